"""The exponential distribution with rate 1 / scale, shifted by loc (jax.scipy.stats.expon)."""

import numpy as np

from strata import numpy as jnp
from strata.scipy._util import _const, _promote_inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def _z(x, loc, scale):
    x, loc, scale = _promote_inexact(x, loc, scale)
    return (x - loc) / scale, x < loc, scale


def logpdf(x, loc=0, scale=1):
    """-(x - loc) / scale - log(scale) for x >= loc, -inf below."""
    z, below, scale = _z(x, loc, scale)
    out = -z - jnp.log(scale)
    return jnp.where(below, _const(out, -np.inf), out)


def pdf(x, loc=0, scale=1):
    """The exponential density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """1 - exp(-(x - loc) / scale) for x >= loc, 0 below."""
    z, below, _ = _z(x, loc, scale)
    return jnp.where(below, _const(z, 0.0), -jnp.expm1(-jnp.where(below, 0.0, z)))


def logcdf(x, loc=0, scale=1):
    """log P(X <= x)."""
    z, below, _ = _z(x, loc, scale)
    safe = jnp.where(below, 1.0, z)
    return jnp.where(below, _const(z, -np.inf), jnp.log(-jnp.expm1(-safe)))


def sf(x, loc=0, scale=1):
    """exp(-(x - loc) / scale) for x >= loc, 1 below."""
    return jnp.exp(logsf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    """-(x - loc) / scale for x >= loc, 0 below."""
    z, below, _ = _z(x, loc, scale)
    return jnp.where(below, _const(z, 0.0), -z)


def ppf(q, loc=0, scale=1):
    """loc - scale * log(1 - q) for q in [0, 1], NaN outside."""
    q, loc, scale = _promote_inexact(q, loc, scale)
    out = loc - scale * jnp.log1p(-jnp.clip(q, 0.0, 1.0))
    return jnp.where((q < 0) | (q > 1), _const(out, np.nan), out)
