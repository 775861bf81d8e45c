"""The Dirichlet distribution with concentrations alpha (jax.scipy.stats.dirichlet); x holds
the K components along its first axis, or K - 1 of them (the last is 1 - their sum)."""

import numpy as np

from strata import numpy as jnp
from strata.scipy._util import _const, _promote_inexact
from strata.scipy.special import gammaln, xlogy

__all__ = ["logpdf", "pdf"]


def logpdf(x, alpha):
    """sum_i (alpha_i - 1) log x_i - log B(alpha) on the simplex, -inf off it."""
    x, alpha = _promote_inexact(x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f"[dirichlet.logpdf] alpha must be one-dimensional, got shape "
                         f"{tuple(alpha.shape)}")
    k = alpha.shape[0]
    if x.ndim == 0 or x.shape[0] not in (k, k - 1):
        raise ValueError(f"[dirichlet.logpdf] x must have {k} or {k - 1} entries along axis 0 "
                         f"for alpha of shape ({k},), got shape {tuple(x.shape)}")
    if x.shape[0] == k - 1:
        x = jnp.concatenate([x, 1.0 - jnp.sum(x, axis=0, keepdims=True)], axis=0)
    norm = jnp.sum(gammaln(alpha)) - gammaln(jnp.sum(alpha))
    a = jnp.reshape(alpha, (k,) + (1,) * (x.ndim - 1))
    out = jnp.sum(xlogy(a - 1.0, x), axis=0) - norm
    simplex = jnp.all(x >= 0, axis=0) & (jnp.abs(jnp.sum(x, axis=0) - 1.0) < 1e-6)
    return jnp.where(simplex, out, _const(out, -np.inf))


def pdf(x, alpha):
    """The Dirichlet density."""
    return jnp.exp(logpdf(x, alpha))
