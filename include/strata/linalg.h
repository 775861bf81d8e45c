// strata::lax::linalg: the linear-algebra primitives of jax.lax.linalg, batched over leading
// dimensions (LAPACK on the CPU).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "strata/array.h"
#include "strata/export.h"

namespace strata::lax::linalg {

/// The lower Cholesky factor L of each matrix x = L L^H (float32/float64/complex, [..., n, n]);
/// with symmetrize_input, of (x + x^H) / 2. A matrix that is not positive definite gives NaNs.
/// cholesky, triangular_solve, lu, qr and eigh take complex64/complex128 (LAPACK's c/z
/// routines; eigh's eigenvalues are real); svd takes float32/float64 only.
STRATA_EXPORT Array cholesky(const Array &x, bool symmetrize_input = true);

/// Solves op(a) x = b (left_side) or x op(a) = b for x, with a [..., k, k] triangular (lower or
/// upper; a unit diagonal is assumed, not read, when unit_diagonal) and b [..., m, n] with the
/// same leading dimensions; op(a) = a^T when transpose_a, a^H with conjugate_a too (conjugate_a
/// alone solves with conj(a); it matters for complex a only).
STRATA_EXPORT Array triangular_solve(const Array &a, const Array &b, bool left_side = false,
                                     bool lower = false, bool transpose_a = false,
                                     bool conjugate_a = false, bool unit_diagonal = false);

/// LU decomposition with partial pivoting of each m x n matrix: (lu, pivots, permutation), lu
/// holding L's strict lower part (unit diagonal) and U, pivots (int32, 0-based, min(m, n)) the
/// row swapped with row i in turn, permutation (int32, m) the row order: x[perm] = L U.
struct LuResult {
  Array lu, pivots, permutation;
};
STRATA_EXPORT LuResult lu(const Array &x);

/// The permutation of 0..permutation_size-1 that the swaps `pivots` ([..., k] int32) make.
STRATA_EXPORT Array lu_pivots_to_permutation(const Array &pivots, int64_t permutation_size);

/// QR decomposition (q, r) of each m x n matrix: q m x m and r m x n (full_matrices) or q m x k
/// and r k x n, k = min(m, n). Column pivoting is not implemented (pivoting throws).
STRATA_EXPORT std::pair<Array, Array> qr(const Array &x, bool pivoting = false,
                                         bool full_matrices = true);

/// Eigenvectors v (columns) and ascending eigenvalues w of each symmetric matrix, read from its
/// lower (or upper) triangle, of (x + x^T) / 2 with symmetrize_input; subset_by_index [lo, hi)
/// keeps eigenpairs lo..hi-1.
STRATA_EXPORT std::pair<Array, Array>
eigh(const Array &x, bool lower = true, bool symmetrize_input = true, bool sort_eigenvalues = true,
     std::optional<std::pair<int64_t, int64_t>> subset_by_index = std::nullopt);

/// Singular value decomposition of each m x n matrix: u, s (descending), vh with x = u diag(s)
/// vh; u m x m and vh n x n (full_matrices) or m x k and k x n. subset_by_index [lo, hi) keeps
/// singular triplets lo..hi-1.
struct SvdResult {
  Array u, s, vh;
};
STRATA_EXPORT SvdResult
svd(const Array &x, bool full_matrices = true,
    std::optional<std::pair<int64_t, int64_t>> subset_by_index = std::nullopt);
/// The singular values alone (compute_uv=False).
STRATA_EXPORT Array svd_values(
    const Array &x, std::optional<std::pair<int64_t, int64_t>> subset_by_index = std::nullopt);

/// The eigendecomposition of each general n x n matrix (float32/float64/complex): eigenvalues w
/// ([..., n], complex64 for float32 and complex64 inputs, complex128 otherwise) and, where
/// asked, the left eigenvectors vl (vl[:, j]^H x = w[j] vl[:, j]^H) and right eigenvectors vr
/// (x vr[:, j] = w[j] vr[:, j]) in columns, each of unit norm with its largest component real
/// (LAPACK's geev). Only the eigenvalues are differentiable, and only when no eigenvectors are
/// computed (as in JAX); arrays not computed are invalid.
struct EigResult {
  Array w, vl, vr;
};
STRATA_EXPORT EigResult eig(const Array &x, bool compute_left_eigenvectors = true,
                            bool compute_right_eigenvectors = true);

/// The Schur decomposition x = vs t vs^H of each square matrix: t quasi-upper-triangular (2 x 2
/// blocks for complex pairs) for real x, upper triangular for complex x, and the unitary Schur
/// vectors vs (invalid unless compute_schur_vectors). sort_eig_vals is not implemented (throws,
/// as JAX on the CPU). Not differentiable (as in JAX).
STRATA_EXPORT std::pair<Array, Array> schur(const Array &x, bool compute_schur_vectors = true,
                                            bool sort_eig_vals = false);

/// The Hessenberg reduction of each square matrix, packed as LAPACK's gehrd and JAX's
/// lax.linalg.hessenberg: (a, taus), a holding the upper Hessenberg matrix on and above its
/// first subdiagonal and the Householder vectors below, taus ([..., n - 1]) their scale
/// factors. Not differentiable (as in JAX).
STRATA_EXPORT std::pair<Array, Array> hessenberg(const Array &x);

/// The product of the Householder reflectors stored below the diagonal of each m x n matrix a
/// (m >= n) with scale factors taus ([..., k], k <= n): the m x n matrix with orthonormal
/// columns that LAPACK's orgqr / ungqr forms. Not differentiable (as in JAX).
STRATA_EXPORT Array householder_product(const Array &a, const Array &taus);

} // namespace strata::lax::linalg
