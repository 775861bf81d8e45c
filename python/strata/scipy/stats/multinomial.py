"""The multinomial distribution of n draws over the categories of p (jax.scipy.stats.multinomial);
the categories are the last axis."""

import numpy as np

from strata import numpy as jnp
from strata.scipy._util import _const, _promote_inexact
from strata.scipy.special import gammaln, xlogy

__all__ = ["logpmf", "pmf"]


def logpmf(x, n, p):
    """log n! + sum_i (x_i log p_i - log x_i!) where the counts x sum to n, -inf elsewhere."""
    x, n, p = _promote_inexact(x, n, p)
    out = gammaln(n + 1.0) + jnp.sum(xlogy(x, p) - gammaln(x + 1.0), axis=-1)
    ok = (jnp.sum(x, axis=-1) == n) & jnp.all(x >= 0, axis=-1)
    return jnp.where(ok, out, _const(out, -np.inf))


def pmf(x, n, p):
    """P(X = x)."""
    return jnp.exp(logpmf(x, n, p))
