// The MLIR context jit stages into and compiles in: every dialect, pass and pipeline registered.
#pragma once

#include <mutex>

#include "strata/export.h"

namespace mlir {
class MLIRContext;
}

namespace strata::rt {

/// The MLIR context jit stages into (every upstream dialect and Strata's registered; passes and
/// pipelines registered). Guarded: callers hold context_mutex() while they use it.
STRATA_EXPORT mlir::MLIRContext &jit_context();
STRATA_EXPORT std::recursive_mutex &context_mutex();

} // namespace strata::rt
