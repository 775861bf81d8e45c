// strata_rt_window_sum: jit-compiled CPU code's windowed sums, on libstrata's kernel so that
// they slide as the eager primitive does and give its results bit for bit.
#include "runtime/host/WindowRuntime.h"

#include "strata/internal/window_kernel.h"

#include "strata/export.h"

// Exported (in libstrata_jit) so that mlir-runner can run strata-lower-to-cpu's output too.
extern "C" STRATA_EXPORT void strata_rt_window_sum(int64_t dtype, int64_t x, int64_t y,
                                                   int64_t problem) {
  auto at = [](int64_t a) { return reinterpret_cast<void *>(static_cast<intptr_t>(a)); };
  strata::WindowProblem p =
      strata::WindowProblem::decode(static_cast<const int64_t *>(at(problem)));
  strata::window_sum_kernel(p, static_cast<strata::DType>(dtype), at(x), at(y));
}
