// The batched LAPACK kernels of the linear-algebra primitives, on row-major buffers: the eager
// implementations and jit-compiled code's runtime calls share them.
#pragma once

#include <cstdint>

#include "strata/dtype.h"
#include "strata/export.h"

namespace strata {

// Each kernel takes `batch` matrices stored one after another, row-major, of float32 or float64
// (`dtype`; others throw), and writes fresh outputs (the inputs are never modified).

/// l = the lower Cholesky factor of each n x n matrix a (only a's lower triangle is read), or of
/// (a + a^T) / 2 with symmetrize_input; a matrix that is not positive definite gives NaNs.
STRATA_EXPORT void linalg_cholesky(DType dtype, int64_t batch, int64_t n, const void *a, void *l,
                                   bool symmetrize_input);

/// x = op(a)^-1 b (left_side) or b op(a)^-1, with a k x k triangular and b m x n (k = m on the
/// left, n on the right); op transposes when transpose_a.
STRATA_EXPORT void linalg_triangular_solve(DType dtype, int64_t batch, int64_t m, int64_t n,
                                           const void *a, const void *b, void *x, bool left_side,
                                           bool lower, bool transpose_a, bool unit_diagonal);

/// LU with partial pivoting of each m x n matrix: lu holds L's strict lower part (unit diagonal
/// implied) and U, pivots the 0-based row swapped with row i (min(m, n) of int32), permutation
/// the resulting row order (m of int32).
STRATA_EXPORT void linalg_lu(DType dtype, int64_t batch, int64_t m, int64_t n, const void *a,
                             void *lu, int32_t *pivots, int32_t *permutation);

/// The permutation (`size` int32 per matrix) that `k` 0-based pivots per matrix apply to
/// 0..size-1; a pivot outside [0, size) throws.
STRATA_EXPORT void linalg_pivots_to_permutation(int64_t batch, int64_t k, int64_t size,
                                                const int32_t *pivots, int32_t *permutation);

/// QR of each m x n matrix: q is m x m (full_matrices) or m x min(m, n), r m x n or min(m, n) x n.
STRATA_EXPORT void linalg_qr(DType dtype, int64_t batch, int64_t m, int64_t n, const void *a,
                             void *q, void *r, bool full_matrices);

/// Eigenvectors v (in columns) and ascending eigenvalues w of each symmetric n x n matrix, from
/// its lower (or upper) triangle; a failed decomposition gives NaNs.
STRATA_EXPORT void linalg_eigh(DType dtype, int64_t batch, int64_t n, const void *a, void *v,
                               void *w, bool lower);

/// Singular values s (descending, min(m, n)) of each m x n matrix and, when u and vt are not
/// null, the singular vectors: u m x m and vt n x n (full_matrices) or m x k and k x n.
STRATA_EXPORT void linalg_svd(DType dtype, int64_t batch, int64_t m, int64_t n, const void *a,
                              void *s, void *u, void *vt, bool full_matrices);

} // namespace strata
