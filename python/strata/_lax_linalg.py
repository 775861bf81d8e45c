"""strata.lax.linalg: JAX's jax.lax.linalg primitives (cholesky, triangular_solve, lu,
lu_pivots_to_permutation, qr, eigh, svd, and the nonsymmetric eig, schur, hessenberg,
householder_product), batched over leading dimensions, on LAPACK."""

from strata import _core

_la = _core.linalg

__all__ = ["cholesky", "triangular_solve", "lu", "lu_pivots_to_permutation", "qr", "eigh", "svd",
           "eig", "schur", "hessenberg", "householder_product"]


def cholesky(x, *, symmetrize_input=True):
    """The lower Cholesky factor L of each matrix (x = L L^T); NaNs where x is not positive
    definite. With symmetrize_input, of (x + x^T) / 2."""
    return _la.cholesky(x, symmetrize_input)


def triangular_solve(a, b, *, left_side=False, lower=False, transpose_a=False,
                     conjugate_a=False, unit_diagonal=False):
    """Solves op(a) x = b (left_side) or x op(a) = b, a triangular."""
    return _la.triangular_solve(a, b, left_side, lower, transpose_a, conjugate_a, unit_diagonal)


def lu(x):
    """(lu, pivots, permutation): LU with partial pivoting; pivots and permutation int32,
    0-based."""
    return _la.lu(x)


def lu_pivots_to_permutation(pivots, permutation_size):
    """The permutation of range(permutation_size) that the row swaps `pivots` make."""
    return _la.lu_pivots_to_permutation(pivots, int(permutation_size))


def qr(x, *, pivoting=False, full_matrices=True, use_magma=None):
    """(q, r) of each matrix; column pivoting is not implemented."""
    if pivoting:
        raise NotImplementedError("[qr] pivoting=True (column-pivoted QR) is not implemented")
    return _la.qr(x, False, full_matrices)


def eigh(x, *, lower=True, symmetrize_input=True, sort_eigenvalues=True, subset_by_index=None):
    """(v, w): eigenvectors in columns and ascending eigenvalues of each symmetric matrix."""
    return _la.eigh(x, lower, symmetrize_input, sort_eigenvalues, subset_by_index)


def svd(x, *, full_matrices=True, compute_uv=True, subset_by_index=None, algorithm=None):
    """(u, s, vh) with x = u diag(s) vh, or s alone (compute_uv=False); s descending."""
    return _la.svd(x, full_matrices, compute_uv, subset_by_index)


def eig(x, *, compute_left_eigenvectors=True, compute_right_eigenvectors=True, use_magma=None):
    """[w, vl, vr] (those computed, in that order): the complex eigenvalues and the left and
    right eigenvectors (columns) of each general square matrix, as LAPACK's geev (CPU only, as
    JAX). Only the eigenvalues are differentiable, with no eigenvectors computed."""
    return _la.eig(x, compute_left_eigenvectors, compute_right_eigenvectors)


def schur(x, *, compute_schur_vectors=True, sort_eig_vals=False, select_callable=None):
    """(T, vs) (or (T,) without Schur vectors): x = vs T vs^H with T quasi-upper-triangular for
    real x, upper triangular for complex x (LAPACK's gees; CPU only, as JAX)."""
    if sort_eig_vals or select_callable is not None:
        raise NotImplementedError("[schur] sort_eig_vals / select_callable (LAPACK's sorting of "
                                  "the Schur form) is not implemented (as in JAX)")
    return _la.schur(x, compute_schur_vectors, False)


def hessenberg(a):
    """(a, taus): the Hessenberg reduction packed as LAPACK's gehrd (the Hessenberg matrix on
    and above the first subdiagonal, Householder vectors below it, taus their factors)."""
    return _la.hessenberg(a)


def householder_product(a, taus):
    """The m x n matrix with orthonormal columns of the Householder reflectors below a's
    diagonal with factors taus (LAPACK's orgqr / ungqr)."""
    return _la.householder_product(a, taus)
