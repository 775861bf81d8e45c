"""jnp.roots: the roots of a polynomial as the eigenvalues of its companion matrix, with JAX's
handling of leading zeros (stripped, or kept as NaN roots under jit with strip_zeros=False)."""

import numpy as _np

import strata.numpy as _jnp
from strata import _numpy_linalg as _la

__all__ = ["roots"]


def _complex_dtype(dt):
    return _jnp.result_type(dt, _jnp.complex64)


def _roots_no_zeros(p):
    """The eigenvalues of the companion matrix of p (p[0] != 0)."""
    n = p.shape[0]
    if n < 2:
        return _jnp.zeros((0,), _complex_dtype(p.dtype))
    top = (-p[1:] / p[0])[None, :]
    a = _jnp.concatenate([top, _jnp.eye(n - 2, n - 1, dtype=p.dtype)], axis=0)
    return _la.eigvals(a)


def roots(p, *, strip_zeros=True):
    """The roots of the polynomial with coefficients p (highest power first), complex. Leading
    zeros are stripped (strip_zeros=True: they must be concrete values); with
    strip_zeros=False the roots they stand for are NaN and sorted last, as JAX (jit-friendly)."""
    p_arr, = _la._promote(_jnp.atleast_1d(p))
    if p_arr.ndim != 1:
        raise ValueError(f"[roots] input must be a rank-1 array, got shape {tuple(p_arr.shape)}")
    if p_arr.shape[0] < 2:
        return _jnp.zeros((0,), _complex_dtype(p_arr.dtype))
    is_zero = p_arr == 0
    leading = _jnp.where(_jnp.all(is_zero), p_arr.shape[0], _jnp.argmin(is_zero))
    if strip_zeros:
        try:
            k = int(leading)
        except Exception as e:
            raise TypeError("[roots] the number of leading zeros must be concrete with "
                            "strip_zeros=True (use strip_zeros=False under jit)") from e
        return _roots_no_zeros(p_arr[k:])
    n = p_arr.shape[0]
    # All zeros: any nonzero polynomial keeps LAPACK away from NaNs; every root is NaN anyway.
    q = _jnp.where(leading == n, _jnp.ones_like(p_arr), p_arr)
    idx = (_jnp.arange(n) + leading) % n  # roll the leading zeros to the end
    r = _roots_no_zeros(q[idx])
    # Zero roots (from the rolled zeros) last: a stable argsort of the integer keys, applied as a
    # one-hot sum so that only integer sorting is needed.
    order = _jnp.argsort((r == 0).astype(_jnp.int32), stable=True)
    pick = (order[:, None] == _jnp.arange(n - 1)[None, :]).astype(r.dtype)
    r = _jnp.sum(pick * r[None, :], axis=1)
    keep = _jnp.arange(n - 1) < (n - 1) - leading
    return _jnp.where(keep, r, _jnp.asarray(complex(_np.nan, _np.nan), r.dtype))
