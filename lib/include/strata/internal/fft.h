// The CPU FFT kernel (FFTW underneath), shared by the eager fft primitive and the compiled
// code's runtime call.
#pragma once

#include <cstdint>
#include <span>

#include "strata/dtype.h"
#include "strata/export.h"

namespace strata {

/// The four transforms of lax.fft, in JAX's FftType order.
enum class FftKind : int { FFT = 0, IFFT = 1, RFFT = 2, IRFFT = 3 };

/// Runs `batch` contiguous transforms over the trailing axes of sizes `lengths` (1 to 3 of them),
/// as lax.fft: FFT/IFFT map complex to complex (IFFT scaled by 1/prod(lengths)), RFFT maps real
/// `lengths` to complex with the last axis n/2+1, IRFFT the reverse (scaled). `real` is the real
/// dtype (f32 or f64) of the transform. Plans are made once per shape and cached; safe to call
/// from several threads. Uses Strata's thread pool.
STRATA_EXPORT void fft_run(FftKind kind, DType real, std::span<const int64_t> lengths,
                           int64_t batch, const void *in, void *out);

} // namespace strata
