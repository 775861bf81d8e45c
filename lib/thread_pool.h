// A small fork-join thread pool for the CPU kernels (STRATA_NUM_THREADS, default: all cores).
#pragma once

#include <cstdint>
#include <functional>

namespace strata {

/// Number of threads kernels use (the caller counts as one).
int num_threads();
/// Calls fn(begin, end) over disjoint chunks covering [0, n), in parallel when n is at least
/// 2 * grain. Nested calls, and calls while the pool is busy with another caller, run inline.
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)> &fn);

} // namespace strata
