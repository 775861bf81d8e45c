// strata_rt_cuda_fft: the FFTs of GPU-compiled code on cuFFT, on device buffers, with the
// arguments of the CPU runtime's strata_rt_fft (runtime/host/FftRuntime.h).
#pragma once

#include <cstdint>
#include <string>

#include "strata/export.h"

extern "C" {
/// One FFT of kind 0 FFT, 1 IFFT, 2 RFFT, 3 IRFFT over the `rank` (1-3) trailing axes of
/// lengths n0, n1, n2 (the unused ones 1) of `batch` contiguous transforms, in real dtype
/// `real_dtype` (float32 or float64: complex64/complex128 data); in, out: device addresses.
/// Inverses are scaled by 1/n as numpy's and JAX's are. It acts on the current device after
/// the work queued on its stream; failures are recorded (rethrow_pending_error), never thrown.
STRATA_EXPORT void strata_rt_cuda_fft(int64_t kind, int64_t real_dtype, int64_t rank, int64_t n0,
                                      int64_t n1, int64_t n2, int64_t batch, int64_t in,
                                      int64_t out);
}

namespace strata::cuda {
/// Whether cuFFT loaded, and why not ("" when it did).
STRATA_EXPORT bool fft_available();
STRATA_EXPORT std::string fft_unavailable_reason();
} // namespace strata::cuda
