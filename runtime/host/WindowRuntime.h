// The runtime function of strata-window-to-runtime's calls: jit-compiled CPU windowed sums run
// libstrata's kernel (strata/internal/window_kernel.h).
#pragma once

#include <cstdint>

/// y = reduce_window_sum(x) for the window encoded at address `problem`
/// (strata::WindowProblem::encode), both buffers row-major of dtype code `dtype`.
extern "C" void strata_rt_window_sum(int64_t dtype, int64_t x, int64_t y, int64_t problem);
