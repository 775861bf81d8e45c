"""The normal distribution (jax.scipy.stats.norm): loc is the mean, scale the standard
deviation."""

import math

from strata import numpy as jnp
from strata.scipy._util import _promote_inexact
from strata.scipy.special import log_ndtr, ndtr, ndtri

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def _z(x, loc, scale):
    x, loc, scale = _promote_inexact(x, loc, scale)
    return (x - loc) / scale, scale


def logpdf(x, loc=0, scale=1):
    """log of the normal density at x."""
    z, scale = _z(x, loc, scale)
    return -0.5 * z * z - jnp.log(scale) - 0.5 * math.log(2 * math.pi)


def pdf(x, loc=0, scale=1):
    """The normal density at x."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """P(X <= x)."""
    return ndtr(_z(x, loc, scale)[0])


def logcdf(x, loc=0, scale=1):
    """log P(X <= x), accurate far in the lower tail."""
    return log_ndtr(_z(x, loc, scale)[0])


def sf(x, loc=0, scale=1):
    """P(X > x) = cdf(-x), accurate in the upper tail."""
    return ndtr(-_z(x, loc, scale)[0])


def logsf(x, loc=0, scale=1):
    """log P(X > x)."""
    return log_ndtr(-_z(x, loc, scale)[0])


def ppf(q, loc=0, scale=1):
    """The quantile function: x with cdf(x) = q."""
    q, loc, scale = _promote_inexact(q, loc, scale)
    return ndtri(q) * scale + loc


def isf(q, loc=0, scale=1):
    """The inverse survival function: x with sf(x) = q."""
    q, loc, scale = _promote_inexact(q, loc, scale)
    return loc - ndtri(q) * scale
