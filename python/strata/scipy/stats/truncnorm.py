"""The normal distribution truncated to [a, b] in standard units (jax.scipy.stats.truncnorm):
a and b are (bound - loc) / scale."""

import numpy as np

from strata import numpy as jnp
from strata.scipy._util import _const, _promote_inexact
from strata.scipy.special import log_ndtr, ndtr
from strata.scipy.stats import norm

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def _log_diff(x, y):
    """log(exp(x) - exp(y)) for x >= y."""
    return x + jnp.log1p(-jnp.exp(y - x))


def _log_gauss_mass(a, b):
    """log(ndtr(b) - ndtr(a)) for a <= b, computed in the tail it lies in."""
    left, right = b <= 0, a > 0
    central = ~(left | right)
    al, bl = jnp.where(left, a, -2.0), jnp.where(left, b, -1.0)
    ar, br = jnp.where(right, a, 1.0), jnp.where(right, b, 2.0)
    ac, bc = jnp.where(central, a, -1.0), jnp.where(central, b, 1.0)
    out_l = _log_diff(log_ndtr(bl), log_ndtr(al))
    out_r = _log_diff(log_ndtr(-ar), log_ndtr(-br))
    out_c = jnp.log1p(-ndtr(ac) - ndtr(-bc))
    return jnp.where(left, out_l, jnp.where(right, out_r, out_c))


def logpdf(x, a, b, loc=0, scale=1):
    """The normal log-density renormalized over [a, b]; -inf outside."""
    x, a, b, loc, scale = _promote_inexact(x, a, b, loc, scale)
    z = (x - loc) / scale
    out = norm.logpdf(z) - jnp.log(scale) - _log_gauss_mass(a, b)
    return jnp.where((z < a) | (z > b), _const(out, -np.inf), out)


def pdf(x, a, b, loc=0, scale=1):
    """The truncated normal density."""
    return jnp.exp(logpdf(x, a, b, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
    """log P(X <= x): log mass of [a, z] over that of [a, b]."""
    x, a, b, loc, scale = _promote_inexact(x, a, b, loc, scale)
    z = jnp.clip((x - loc) / scale, a, b)
    out = _log_gauss_mass(a, z) - _log_gauss_mass(a, b)
    return jnp.where(z >= b, _const(out, 0.0), out)


def cdf(x, a, b, loc=0, scale=1):
    """P(X <= x)."""
    return jnp.exp(logcdf(x, a, b, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    """log P(X > x), by the reflection x -> -x, [a, b] -> [-b, -a]."""
    x, a, b, loc, scale = _promote_inexact(x, a, b, loc, scale)
    return logcdf(-x, -b, -a, -loc, scale)


def sf(x, a, b, loc=0, scale=1):
    """P(X > x)."""
    return jnp.exp(logsf(x, a, b, loc, scale))
