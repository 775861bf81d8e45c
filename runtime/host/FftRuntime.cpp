// strata_rt_fft: jit-compiled CPU code's FFTs, on libstrata's kernel so that they give the eager
// primitive's results bit for bit.
#include "runtime/host/FftRuntime.h"

#include "strata/internal/fft.h"

#include "strata/export.h"

// Exported (in libstrata_jit) so that mlir-runner can run strata-lower-to-cpu's output too.
extern "C" STRATA_EXPORT void strata_rt_fft(int64_t kind, int64_t real_dtype, int64_t rank,
                                            int64_t n0, int64_t n1, int64_t n2, int64_t batch,
                                            int64_t in, int64_t out) {
  const int64_t lengths[3] = {n0, n1, n2};
  strata::fft_run(static_cast<strata::FftKind>(kind), static_cast<strata::DType>(real_dtype),
                  std::span<const int64_t>(lengths, static_cast<size_t>(rank)), batch,
                  reinterpret_cast<const void *>(static_cast<intptr_t>(in)),
                  reinterpret_cast<void *>(static_cast<intptr_t>(out)));
}
