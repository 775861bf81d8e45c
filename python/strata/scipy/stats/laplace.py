"""The Laplace distribution (jax.scipy.stats.laplace): density exp(-|x - loc| / scale) /
(2 scale)."""

import math

from strata import numpy as jnp
from strata.scipy._util import _promote_inexact

__all__ = ["logpdf", "pdf", "cdf"]


def logpdf(x, loc=0, scale=1):
    """-log(2 scale) - |x - loc| / scale."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    return -math.log(2.0) - jnp.log(scale) - jnp.abs(x - loc) / scale


def pdf(x, loc=0, scale=1):
    """The Laplace density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """exp(z) / 2 for z = (x - loc) / scale <= 0, 1 - exp(-z) / 2 above."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    z = (x - loc) / scale
    e = jnp.exp(-jnp.abs(z))
    return jnp.where(z <= 0, 0.5 * e, 1.0 - 0.5 * e)
