// Host memory: 64-byte aligned blocks with a bounded cache of freed large blocks, so that
// eager kernels and compiled code producing big buffers do not page-fault fresh memory on
// every call.
#pragma once

#include <cstddef>

#include "strata/export.h"

namespace strata {

/// Allocates at least `nbytes` (64-byte aligned); throws strata::AllocationError when out of
/// memory or past PTRDIFF_MAX.
STRATA_EXPORT void *host_alloc(size_t nbytes);
/// Returns a block from host_alloc with the same `nbytes`.
STRATA_EXPORT void host_free(void *p, size_t nbytes);
/// Drops every cached block (tests and memory-pressure paths).
STRATA_EXPORT void host_cache_clear();

} // namespace strata
