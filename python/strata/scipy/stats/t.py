"""Student's t distribution with df degrees of freedom (jax.scipy.stats.t)."""

import math

from strata import numpy as jnp
from strata.scipy._util import _promote_inexact
from strata.scipy.special import gammaln

__all__ = ["logpdf", "pdf"]


def logpdf(x, df, loc=0, scale=1):
    """log Gamma((df+1)/2) - log Gamma(df/2) - log(pi df scale^2)/2 - (df+1)/2 log1p(z^2/df)."""
    x, df, loc, scale = _promote_inexact(x, df, loc, scale)
    z = (x - loc) / scale
    half = 0.5 * df
    norm = gammaln(half) + 0.5 * jnp.log(math.pi * df * scale * scale) - gammaln(half + 0.5)
    return -norm - (half + 0.5) * jnp.log1p(z * z / df)


def pdf(x, df, loc=0, scale=1):
    """Student's t density."""
    return jnp.exp(logpdf(x, df, loc, scale))
