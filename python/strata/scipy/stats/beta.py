"""The beta distribution with shapes a, b on [loc, loc + scale] (jax.scipy.stats.beta)."""

import numpy as np

from strata import numpy as jnp
from strata.scipy._util import _const, _promote_inexact
from strata.scipy.special import betainc, betaln, xlog1py, xlogy

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def logpdf(x, a, b, loc=0, scale=1):
    """(a-1) log z + (b-1) log(1-z) - log B(a, b) - log(scale) inside, -inf outside."""
    x, a, b, loc, scale = _promote_inexact(x, a, b, loc, scale)
    z = (x - loc) / scale
    out = xlogy(a - 1.0, z) + xlog1py(b - 1.0, -z) - betaln(a, b) - jnp.log(scale)
    return jnp.where((x < loc) | (x > loc + scale), _const(out, -np.inf), out)


def pdf(x, a, b, loc=0, scale=1):
    """The beta density."""
    return jnp.exp(logpdf(x, a, b, loc, scale))


def _z(x, a, b, loc, scale):
    x, a, b, loc, scale = _promote_inexact(x, a, b, loc, scale)
    return a, b, jnp.clip((x - loc) / scale, 0.0, 1.0)


def cdf(x, a, b, loc=0, scale=1):
    """I_z(a, b), the regularized incomplete beta function."""
    return betainc(*_z(x, a, b, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
    """log cdf(x)."""
    return jnp.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    """I_{1-z}(b, a) = 1 - I_z(a, b)."""
    a, b, z = _z(x, a, b, loc, scale)
    return betainc(b, a, 1.0 - z)


def logsf(x, a, b, loc=0, scale=1):
    """log sf(x)."""
    return jnp.log(sf(x, a, b, loc, scale))
