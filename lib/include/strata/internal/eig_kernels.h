// The batched LAPACK kernels of the nonsymmetric eigenproblem (eig, schur, hessenberg,
// householder_product) on row-major buffers: the eager implementations and jit-compiled code's
// runtime calls share them.
#pragma once

#include <cstdint>

#include "strata/dtype.h"
#include "strata/export.h"

namespace strata {

// Each kernel takes `batch` matrices stored one after another, row-major, of float32, float64,
// complex64 or complex128 (`dtype`; others throw), and writes fresh outputs.

/// Eigenvalues w (n complex per matrix: complex64 for float32 and complex64 operands, complex128
/// for the others) of each n x n matrix a and, where vl / vr are not null, its left and right
/// eigenvectors in columns (n x n complex, each of unit 2-norm with its largest component real,
/// as LAPACK's geev gives them: vl[:, j]^H a = w[j] vl[:, j]^H, a vr[:, j] = w[j] vr[:, j]). A
/// decomposition that does not converge gives NaNs.
STRATA_EXPORT void linalg_eig(DType dtype, int64_t batch, int64_t n, const void *a, void *w,
                              void *vl, void *vr);

/// The Schur form t (quasi-upper-triangular for real a, upper triangular for complex a) of each
/// n x n matrix a = vs t vs^H and, where vs is not null, the unitary Schur vectors vs; both of
/// a's dtype. A decomposition that does not converge gives NaNs.
STRATA_EXPORT void linalg_schur(DType dtype, int64_t batch, int64_t n, const void *a, void *t,
                                void *vs);

/// The Hessenberg reduction of each n x n matrix as LAPACK's gehrd packs it: h (n x n) holds the
/// upper Hessenberg matrix on and above the first subdiagonal and the Householder vectors below
/// it, taus their max(n - 1, 0) scale factors.
STRATA_EXPORT void linalg_hessenberg(DType dtype, int64_t batch, int64_t n, const void *a, void *h,
                                     void *taus);

/// The m x n matrix q with orthonormal columns that the first k Householder reflectors stored
/// below the diagonal of each m x n matrix a (scale factors taus, k per matrix) make, as
/// LAPACK's orgqr / ungqr; m >= n >= k.
STRATA_EXPORT void linalg_householder_product(DType dtype, int64_t batch, int64_t m, int64_t n,
                                              int64_t k, const void *a, const void *taus, void *q);

} // namespace strata
