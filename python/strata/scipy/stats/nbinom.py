"""The negative binomial distribution: failures before the n-th success (jax.scipy.stats.nbinom)."""

import numpy as np

from strata import numpy as jnp
from strata.scipy._util import _const, _promote_inexact
from strata.scipy.special import gammaln, xlog1py, xlogy

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    """log Gamma(n+y) - log Gamma(y+1) - log Gamma(n) + n log p + y log(1-p) at the integers
    y = k - loc >= 0."""
    k, n, p, loc = _promote_inexact(k, n, p, loc)
    y = k - loc
    ok = (y >= 0) & (y == jnp.floor(y))
    ys = jnp.where(ok, y, 0.0)
    comb = gammaln(n + ys) - gammaln(ys + 1.0) - gammaln(n)
    out = comb + xlogy(n, p) + xlog1py(ys, -p)
    return jnp.where(ok, out, _const(out, -np.inf))


def pmf(k, n, p, loc=0):
    """P(X = k)."""
    return jnp.exp(logpmf(k, n, p, loc))
