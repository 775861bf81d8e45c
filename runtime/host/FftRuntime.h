// The runtime function of strata-fft-to-runtime's calls: FFTs of jit-compiled CPU code run
// libstrata's FFT kernel (strata/internal/fft.h), the one the eager primitive runs.
#pragma once

#include <cstdint>

/// `batch` transforms of the trailing `rank` (1 to 3) axes of sizes n0, n1, n2 (the first
/// `rank` of them) from the buffer at address `in` to the one at `out`: kind 0 FFT, 1 IFFT,
/// 2 RFFT, 3 IRFFT (strata::FftKind), `real_dtype` the code of f32 or f64 (strata::DType).
extern "C" void strata_rt_fft(int64_t kind, int64_t real_dtype, int64_t rank, int64_t n0,
                              int64_t n1, int64_t n2, int64_t batch, int64_t in, int64_t out);
