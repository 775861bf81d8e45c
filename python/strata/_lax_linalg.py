"""strata.lax.linalg: JAX's jax.lax.linalg primitives (cholesky, triangular_solve, lu,
lu_pivots_to_permutation, qr, eigh, svd), batched over leading dimensions, on LAPACK."""

from strata import _core

_la = _core.linalg

__all__ = ["cholesky", "triangular_solve", "lu", "lu_pivots_to_permutation", "qr", "eigh", "svd"]


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
