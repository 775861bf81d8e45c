"""The Cauchy distribution (jax.scipy.stats.cauchy): density 1 / (pi scale (1 + z^2))."""

import math

from strata import numpy as jnp
from strata.scipy._util import _promote_inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "isf", "ppf"]


def _z(x, loc, scale):
    x, loc, scale = _promote_inexact(x, loc, scale)
    return (x - loc) / scale, scale


def logpdf(x, loc=0, scale=1):
    """-log(pi) - log(scale) - log1p(z^2)."""
    z, scale = _z(x, loc, scale)
    return -math.log(math.pi) - jnp.log(scale) - jnp.log1p(z * z)


def pdf(x, loc=0, scale=1):
    """The Cauchy density."""
    return jnp.exp(logpdf(x, loc, scale))


def _cdf_z(z):
    # 1/2 + atan(z) / pi, as atan2(1, -z) / pi: no cancellation for z << 0
    return jnp.arctan2(jnp.ones_like(z), -z) / math.pi


def cdf(x, loc=0, scale=1):
    """1/2 + arctan((x - loc) / scale) / pi."""
    return _cdf_z(_z(x, loc, scale)[0])


def logcdf(x, loc=0, scale=1):
    """log cdf(x)."""
    return jnp.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    """P(X > x) = cdf(-x)."""
    return _cdf_z(-_z(x, loc, scale)[0])


def logsf(x, loc=0, scale=1):
    """log sf(x)."""
    return jnp.log(sf(x, loc, scale))


def ppf(q, loc=0, scale=1):
    """loc + scale * tan(pi (q - 1/2))."""
    q, loc, scale = _promote_inexact(q, loc, scale)
    return loc + scale * jnp.tan(math.pi * (q - 0.5))


def isf(q, loc=0, scale=1):
    """loc + scale * tan(pi (1/2 - q))."""
    q, loc, scale = _promote_inexact(q, loc, scale)
    return loc + scale * jnp.tan(math.pi * (0.5 - q))
