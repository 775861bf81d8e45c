"""The right-skewed Gumbel distribution (jax.scipy.stats.gumbel_r): CDF exp(-exp(-z))."""


from strata import numpy as jnp
from strata.scipy._util import _promote_inexact

__all__ = ["logpdf", "pdf", "logcdf", "cdf", "ppf", "sf", "logsf"]


def _z(x, loc, scale):
    x, loc, scale = _promote_inexact(x, loc, scale)
    return (x - loc) / scale, scale


def logpdf(x, loc=0, scale=1):
    """-(z + exp(-z)) - log(scale)."""
    z, scale = _z(x, loc, scale)
    return -(z + jnp.exp(-z)) - jnp.log(scale)


def pdf(x, loc=0, scale=1):
    """The Gumbel density."""
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """-exp(-z)."""
    return -jnp.exp(-_z(x, loc, scale)[0])


def cdf(x, loc=0, scale=1):
    """exp(-exp(-z))."""
    return jnp.exp(logcdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    """1 - exp(-exp(-z)), without cancellation."""
    return -jnp.expm1(-jnp.exp(-_z(x, loc, scale)[0]))


def logsf(x, loc=0, scale=1):
    """log sf(x)."""
    return jnp.log(sf(x, loc, scale))


def ppf(q, loc=0, scale=1):
    """loc - scale * log(-log(q))."""
    q, loc, scale = _promote_inexact(q, loc, scale)
    return loc - scale * jnp.log(-jnp.log(q))


