"""The von Mises distribution on the circle with concentration kappa
(jax.scipy.stats.vonmises)."""

import math

import numpy as np

from strata import numpy as jnp
from strata.scipy._util import _const, _promote_inexact
from strata.scipy.special import i0e

__all__ = ["logpdf", "pdf"]


def logpdf(x, kappa):
    """kappa (cos x - 1) - log(2 pi i0e(kappa)); NaN for kappa <= 0."""
    x, kappa = _promote_inexact(x, kappa)
    ok = kappa > 0
    k = jnp.where(ok, kappa, 1.0)
    out = k * (jnp.cos(x) - 1.0) - math.log(2 * math.pi) - jnp.log(i0e(k))
    return jnp.where(ok, out, _const(out, np.nan))


def pdf(x, kappa):
    """The von Mises density."""
    return jnp.exp(logpdf(x, kappa))
