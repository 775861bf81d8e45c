// The CPU BLAS entry that compiled code calls for float and complex contractions (jit's CPU
// backend): general strides, so transposed and sliced operands need no copy.
#pragma once

#include <cstdint>

#include "strata/dtype.h"

namespace strata {

/// One operand of strided_gemm: element pointer, and strides in elements for the batch, row
/// and column dimensions (a batch stride of 0 repeats the operand for every batch).
struct GemmArg {
  void *data;
  int64_t batch_stride, row_stride, col_stride;
};

/// c[i] (m x n) += a[i] (m x k) * b[i] (k x n) for i < batch (c[i] = ... when !accumulate), on
/// float32, float64, complex64 or complex128, through BLIS with libstrata's per-call thread
/// count. Other dtypes throw.
STRATA_EXPORT void strided_gemm(DType dtype, int64_t batch, int64_t m, int64_t n, int64_t k,
                                const GemmArg &a, const GemmArg &b, const GemmArg &c,
                                bool accumulate = true);

} // namespace strata
