"""The Poisson distribution with mean mu, shifted by loc (jax.scipy.stats.poisson)."""

import numpy as np

from strata import numpy as jnp
from strata.scipy._util import _const, _promote_inexact
from strata.scipy.special import gammaincc, gammaln, xlogy

__all__ = ["logpmf", "pmf", "cdf"]


def logpmf(k, mu, loc=0):
    """k log(mu) - log(k!) - mu at the non-negative integers k - loc, -inf elsewhere."""
    k, mu, loc = _promote_inexact(k, mu, loc)
    x = k - loc
    ok = (x >= 0) & (x == jnp.floor(x))
    xs = jnp.where(ok, x, 0.0)
    out = xlogy(xs, mu) - gammaln(xs + 1.0) - mu
    return jnp.where(ok, out, _const(out, -np.inf))


def pmf(k, mu, loc=0):
    """P(X = k)."""
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """P(X <= k) = Q(floor(k - loc) + 1, mu); 0 below loc."""
    k, mu, loc = _promote_inexact(k, mu, loc)
    x = k - loc
    xs = jnp.where(x >= 0, x, 0.0)
    p = gammaincc(jnp.floor(xs) + 1.0, mu)
    return jnp.where(x < 0, _const(p, 0.0), p)
