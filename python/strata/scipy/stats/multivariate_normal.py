"""The multivariate normal distribution (jax.scipy.stats.multivariate_normal): the covariance
is factored by a Cholesky decomposition written over Strata's ops (one column per step, so it
suits the small, statically sized matrices of density code)."""

import math

from strata import numpy as jnp
from strata.scipy._util import _promote_inexact

__all__ = ["logpdf", "pdf"]


def _cholesky_columns(cov):
    """The columns of the lower Cholesky factor L of cov (..., n, n), each (..., n), and L's
    diagonal (..., n)."""
    n = cov.shape[-1]
    rows = jnp.arange(n)
    cols, diag = [], []
    a = cov
    for j in range(n):
        v = a[..., :, j]
        d = jnp.sqrt(v[..., j])
        col = jnp.where(rows >= j, v / d[..., None], 0.0)
        cols.append(col)
        diag.append(d)
        a = a - col[..., :, None] * col[..., None, :]
    return cols, jnp.stack(diag, axis=-1)


def _solve_lower(cols, r):
    """y with L y = r, L given by its columns (forward substitution)."""
    ys = []
    for j, col in enumerate(cols):
        y = r[..., j] / col[..., j]
        ys.append(y)
        r = r - col * y[..., None]
    return jnp.stack(ys, axis=-1)


def logpdf(x, mean, cov, allow_singular=None):
    """log N(x; mean, cov): x and mean (..., n), cov (..., n, n), (n,) or a scalar (times the
    identity); mean a scalar for univariate x."""
    if allow_singular is not None:
        raise NotImplementedError("[multivariate_normal.logpdf] allow_singular is not supported")
    x, mean, cov = _promote_inexact(x, mean, cov)
    log2pi = math.log(2 * math.pi)
    if mean.ndim == 0:
        return -0.5 * (x - mean) ** 2 / cov - 0.5 * (log2pi + jnp.log(cov))
    n = mean.shape[-1]
    y = x - mean
    if cov.ndim == 0:
        return -0.5 * jnp.sum(y * y, axis=-1) / cov - 0.5 * n * (log2pi + jnp.log(cov))
    if cov.ndim < 2 or tuple(cov.shape[-2:]) != (n, n):
        raise ValueError(f"[multivariate_normal.logpdf] incompatible shapes: mean "
                         f"{tuple(mean.shape)}, cov {tuple(cov.shape)} (cov must be (..., {n}, "
                         f"{n}))")
    cols, diag = _cholesky_columns(cov)
    w = _solve_lower(cols, y)
    return -0.5 * jnp.sum(w * w, axis=-1) - 0.5 * n * log2pi - jnp.sum(jnp.log(diag), axis=-1)


def pdf(x, mean, cov, allow_singular=None):
    """N(x; mean, cov)."""
    return jnp.exp(logpdf(x, mean, cov, allow_singular))
