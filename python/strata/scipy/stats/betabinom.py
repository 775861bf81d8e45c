"""The beta-binomial distribution (jax.scipy.stats.betabinom): n trials, p ~ Beta(a, b)."""

import numpy as np

from strata import numpy as jnp
from strata.scipy._util import _const, _promote_inexact
from strata.scipy.special import betaln

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, a, b, loc=0):
    """log C(n, y) + log B(y + a, n - y + b) - log B(a, b) at the integers y = k - loc in
    [0, n]."""
    k, n, a, b, loc = _promote_inexact(k, n, a, b, loc)
    y = k - loc
    ok = (y >= 0) & (y <= n) & (y == jnp.floor(y))
    ys = jnp.where(ok, y, 0.0)
    comb = -jnp.log(n + 1.0) - betaln(n - ys + 1.0, ys + 1.0)
    out = comb + betaln(ys + a, n - ys + b) - betaln(a, b)
    return jnp.where(ok, out, _const(out, -np.inf))


def pmf(k, n, a, b, loc=0):
    """P(X = k)."""
    return jnp.exp(logpmf(k, n, a, b, loc))
