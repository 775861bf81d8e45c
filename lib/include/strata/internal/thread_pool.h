// A small fork-join thread pool for the CPU kernels (STRATA_NUM_THREADS, default: all cores).
#pragma once

#include <cstdint>
#include <functional>

#include "strata/export.h"

namespace strata {

// Exported (though internal) so that the unit tests can exercise the pool directly.
/// Number of threads kernels use (the caller counts as one).
STRATA_EXPORT int num_threads();
/// Calls fn(begin, end) over disjoint chunks covering [0, n), in parallel when n is at least
/// 2 * grain. Nested calls, and calls while the pool is busy with another caller, run inline.
STRATA_EXPORT void parallel_for(int64_t n, int64_t grain,
                                const std::function<void(int64_t, int64_t)> &fn);

} // namespace strata
