// strata_rt_cuda_cholesky ... strata_rt_cuda_svd: the linear algebra of GPU-compiled code, on
// device buffers, with the arguments of the CPU runtime's strata_rt_<op> (LinalgRuntime.h).
#pragma once

#include <cstdint>
#include <string>

#include "strata/export.h"

extern "C" {
// Each acts on the current device (strata::cuda::current_device) after the work queued on its
// stream; a, b: device addresses of the row-major operands, the others of the results; dtype a
// strata::DType code. Failures are recorded (rethrow_pending_error), never thrown.

/// Lower Cholesky factors l of `batch` n x n matrices a (NaNs where one is not positive
/// definite).
STRATA_EXPORT void strata_rt_cuda_cholesky(int64_t dtype, int64_t batch, int64_t n, int64_t a,
                                           int64_t l, int64_t symmetrize_input);
/// x = op(a)^-1 b or b op(a)^-1; flags: 1 left side, 2 lower, 4 transpose a, 8 unit diagonal.
STRATA_EXPORT void strata_rt_cuda_triangular_solve(int64_t dtype, int64_t batch, int64_t m,
                                                   int64_t n, int64_t a, int64_t b, int64_t x,
                                                   int64_t flags);
/// LU with partial pivoting: lu, 0-based int32 pivots (min(m, n)), int32 permutation (m).
STRATA_EXPORT void strata_rt_cuda_lu(int64_t dtype, int64_t batch, int64_t m, int64_t n, int64_t a,
                                     int64_t lu, int64_t pivots, int64_t permutation);
/// The int32 permutation (`size` per matrix) that k int32 pivots per matrix apply.
STRATA_EXPORT void strata_rt_cuda_lu_pivots_to_permutation(int64_t batch, int64_t k, int64_t size,
                                                           int64_t pivots, int64_t permutation);
/// q, r of each m x n matrix (full_matrices: q m x m, r m x n; else m x k, k x n).
STRATA_EXPORT void strata_rt_cuda_qr(int64_t dtype, int64_t batch, int64_t m, int64_t n, int64_t a,
                                     int64_t q, int64_t r, int64_t full_matrices);
/// Eigenvectors v (columns) and ascending eigenvalues w of each symmetric n x n matrix.
STRATA_EXPORT void strata_rt_cuda_eigh(int64_t dtype, int64_t batch, int64_t n, int64_t a,
                                       int64_t v, int64_t w, int64_t lower);
/// Singular values s and, when u and vt are not 0, the singular vectors.
STRATA_EXPORT void strata_rt_cuda_svd(int64_t dtype, int64_t batch, int64_t m, int64_t n, int64_t a,
                                      int64_t s, int64_t u, int64_t vt, int64_t full_matrices);
}

namespace strata::cuda {
/// "cusolver" when the calls above run on cuSOLVER and cuBLAS, else "host (<why>)": they stage
/// through host memory and libstrata's LAPACK kernels (cuSOLVER missing, or
/// STRATA_CUDA_LINALG=host). Decided once, at the first call.
STRATA_EXPORT std::string linalg_backend();
} // namespace strata::cuda
