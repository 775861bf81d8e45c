"""The Bernoulli distribution with success probability p (jax.scipy.stats.bernoulli)."""

import numpy as np

from strata import numpy as jnp
from strata.scipy._util import _const, _promote_inexact
from strata.scipy.special import xlog1py, xlogy

__all__ = ["logpmf", "pmf", "cdf", "ppf"]


def logpmf(k, p, loc=0):
    """log(p) at k - loc = 1, log(1 - p) at 0, -inf elsewhere."""
    k, p, loc = _promote_inexact(k, p, loc)
    x = k - loc
    ok = (x == 0) | (x == 1)
    xs = jnp.where(ok, x, 0.0)
    out = xlogy(xs, p) + xlog1py(1.0 - xs, -p)
    return jnp.where(ok, out, _const(out, -np.inf))


def pmf(k, p, loc=0):
    """P(X = k)."""
    return jnp.exp(logpmf(k, p, loc))


def _bad(*xs):
    out = None
    for x in xs:
        out = jnp.isnan(x) if out is None else out | jnp.isnan(x)
    return out


def cdf(k, p):
    """0 below 0, 1 - p on [0, 1), 1 from 1; NaN for p outside [0, 1]."""
    k, p = _promote_inexact(k, p)
    out = jnp.where(k < 0, _const(p, 0.0), jnp.where(k < 1, 1.0 - p, _const(p, 1.0)))
    return jnp.where(_bad(k, p) | (p < 0) | (p > 1), _const(out, np.nan), out)


def ppf(q, p):
    """0 for q <= 1 - p, else 1; NaN for q or p outside [0, 1]."""
    q, p = _promote_inexact(q, p)
    out = jnp.where(q <= 1.0 - p, _const(q, 0.0), _const(q, 1.0))
    bad = _bad(q, p) | (p < 0) | (p > 1) | (q < 0) | (q > 1)
    return jnp.where(bad, _const(out, np.nan), out)
