"""The gamma distribution with shape a (jax.scipy.stats.gamma)."""

import numpy as np

from strata import numpy as jnp
from strata.scipy._util import _const, _promote_inexact
from strata.scipy.special import gammainc, gammaincc, gammaln, xlogy

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def logpdf(x, a, loc=0, scale=1):
    """(a - 1) log z - z - log Gamma(a) - log(scale) for z = (x - loc) / scale >= 0."""
    x, a, loc, scale = _promote_inexact(x, a, loc, scale)
    ok = x >= loc
    z = jnp.where(ok, (x - loc) / scale, 1.0)
    out = xlogy(a - 1.0, z) - z - gammaln(a) - jnp.log(scale)
    return jnp.where(ok, out, _const(out, -np.inf))


def pdf(x, a, loc=0, scale=1):
    """The gamma density."""
    return jnp.exp(logpdf(x, a, loc, scale))


def _z(x, a, loc, scale):
    x, a, loc, scale = _promote_inexact(x, a, loc, scale)
    return a, jnp.maximum((x - loc) / scale, 0.0)


def cdf(x, a, loc=0, scale=1):
    """P(a, z), the regularized lower incomplete gamma function."""
    return gammainc(*_z(x, a, loc, scale))


def logcdf(x, a, loc=0, scale=1):
    """log cdf(x)."""
    return jnp.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    """Q(a, z) = 1 - P(a, z)."""
    return gammaincc(*_z(x, a, loc, scale))


def logsf(x, a, loc=0, scale=1):
    """log sf(x)."""
    return jnp.log(sf(x, a, loc, scale))
