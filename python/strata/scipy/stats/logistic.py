"""The logistic distribution (jax.scipy.stats.logistic): CDF expit((x - loc) / scale)."""

from strata import numpy as jnp
from strata.scipy._util import _promote_inexact
from strata.scipy.special import expit, logit

__all__ = ["logpdf", "pdf", "cdf", "sf", "ppf", "isf"]


def _z(x, loc, scale):
    x, loc, scale = _promote_inexact(x, loc, scale)
    return (x - loc) / scale, loc, scale


def logpdf(x, loc=0, scale=1):
    """-|z| - 2 log1p(exp(-|z|)) - log(scale), z = (x - loc) / scale (symmetric, stable)."""
    z, _, scale = _z(x, loc, scale)
    a = jnp.abs(z)
    return -a - 2.0 * jnp.log1p(jnp.exp(-a)) - jnp.log(scale)


def pdf(x, loc=0, scale=1):
    """The logistic density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """expit((x - loc) / scale)."""
    return expit(_z(x, loc, scale)[0])


def sf(x, loc=0, scale=1):
    """expit(-(x - loc) / scale)."""
    return expit(-_z(x, loc, scale)[0])


def ppf(q, loc=0, scale=1):
    """loc + scale * logit(q)."""
    q, loc, scale = _promote_inexact(q, loc, scale)
    return loc + scale * logit(q)


def isf(q, loc=0, scale=1):
    """loc - scale * logit(q)."""
    q, loc, scale = _promote_inexact(q, loc, scale)
    return loc - scale * logit(q)
