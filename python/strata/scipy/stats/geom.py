"""The geometric distribution: trials up to the first success (jax.scipy.stats.geom)."""

import numpy as np

from strata import numpy as jnp
from strata.scipy._util import _const, _promote_inexact
from strata.scipy.special import xlog1py

__all__ = ["logpmf", "pmf"]


def logpmf(k, p, loc=0):
    """(x - 1) log(1 - p) + log(p) at the integers x = k - loc >= 1, -inf elsewhere."""
    k, p, loc = _promote_inexact(k, p, loc)
    x = k - loc
    ok = (x >= 1) & (x == jnp.floor(x))
    xs = jnp.where(ok, x, 1.0)
    out = xlog1py(xs - 1.0, -p) + jnp.log(p)
    return jnp.where(ok, out, _const(out, -np.inf))


def pmf(k, p, loc=0):
    """P(X = k)."""
    return jnp.exp(logpmf(k, p, loc))
