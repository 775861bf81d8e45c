"""jnp.polyfit: the least-squares polynomial fit, on strata.numpy.linalg.lstsq (numpy's
algorithm: a column-scaled Vandermonde system), differentiable in x, y and w."""

import strata.numpy as _jnp
from strata import _numpy_linalg as _la

__all__ = ["polyfit"]


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """The coefficients p (highest power first, one column per column of a 2-d y) minimizing
    sum(w**2 * (polyval(p, x) - y)**2). full: (p, residuals, rank, singular values, rcond);
    cov: (p, the covariance of p), scaled by residuals / (len(x) - deg - 1) unless
    cov='unscaled'. rcond default: len(x) * eps (numpy's)."""
    x, y = _la._promote(x, y)
    deg = int(deg)
    if deg < 0:
        raise ValueError(f"[polyfit] expected deg >= 0, got {deg}")
    if x.ndim != 1:
        raise TypeError(f"[polyfit] expected a 1-d x, got shape {tuple(x.shape)}")
    if x.shape[0] == 0:
        raise TypeError("[polyfit] expected a non-empty x")
    if y.ndim not in (1, 2):
        raise TypeError(f"[polyfit] expected a 1-d or 2-d y, got shape {tuple(y.shape)}")
    if x.shape[0] != y.shape[0]:
        raise TypeError(f"[polyfit] expected x and y of one length, got shapes "
                        f"{tuple(x.shape)} and {tuple(y.shape)}")
    order = deg + 1
    n = x.shape[0]
    if rcond is None:
        rcond = n * float(_jnp.finfo(x.dtype).eps)
    lhs = _jnp.vander(x, order)
    rhs = y
    if w is not None:
        w = _jnp.asarray(w, x.dtype)
        if w.ndim != 1 or w.shape[0] != n:
            raise TypeError(f"[polyfit] expected a 1-d w of length {n}, got shape "
                            f"{tuple(w.shape)}")
        lhs = lhs * w[:, None]
        rhs = rhs * (w if rhs.ndim == 1 else w[:, None])
    # Scaling the columns to unit norm conditions the Vandermonde system (numpy does too).
    scale = _jnp.sqrt(_jnp.sum(lhs * lhs, axis=0))
    scale = _jnp.where(scale == 0, 1, scale)
    lhs = lhs / scale
    c, resids, rank, s = _la.lstsq(lhs, rhs, rcond)
    c = (c.T / scale).T
    if full:
        return c, resids, rank, s, _jnp.asarray(rcond, x.dtype)
    if cov:
        base = _la.inv(lhs.T @ lhs) / (scale[:, None] * scale[None, :])
        if cov == "unscaled":
            fac = _jnp.ones((), x.dtype)
        else:
            if n <= order:
                raise ValueError(f"[polyfit] the data must have more than deg + 1 = {order} "
                                 "points to scale the covariance")
            fac = resids / (n - order)
        return c, (base * fac if y.ndim == 1 else base[:, :, None] * fac)
    return c
