"""The binomial distribution of n trials with success probability p (jax.scipy.stats.binom)."""

import numpy as np

from strata import numpy as jnp
from strata.scipy._util import _const, _promote_inexact
from strata.scipy.special import gammaln, xlog1py, xlogy

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    """log C(n, y) + y log p + (n - y) log(1 - p) at the integers y = k - loc in [0, n]."""
    k, n, p, loc = _promote_inexact(k, n, p, loc)
    y = k - loc
    ok = (y >= 0) & (y <= n) & (y == jnp.floor(y))
    ys = jnp.where(ok, y, 0.0)
    comb = gammaln(n + 1.0) - gammaln(ys + 1.0) - gammaln(n - ys + 1.0)
    out = comb + xlogy(ys, p) + xlog1py(n - ys, -p)
    return jnp.where(ok, out, _const(out, -np.inf))


def pmf(k, n, p, loc=0):
    """P(X = k)."""
    return jnp.exp(logpmf(k, n, p, loc))
