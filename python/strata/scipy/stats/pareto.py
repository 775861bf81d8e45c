"""The Pareto distribution with shape b, support x >= loc + scale (jax.scipy.stats.pareto)."""

import numpy as np

from strata import numpy as jnp
from strata.scipy._util import _const, _promote_inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x, b, loc=0, scale=1):
    """log(b) - log(scale) - (b + 1) log((x - loc) / scale) on the support, -inf below."""
    x, b, loc, scale = _promote_inexact(x, b, loc, scale)
    ok = x >= loc + scale
    z = jnp.where(ok, (x - loc) / scale, 1.0)
    out = jnp.log(b) - jnp.log(scale) - (b + 1.0) * jnp.log(z)
    return jnp.where(ok, out, _const(out, -np.inf))


def pdf(x, b, loc=0, scale=1):
    """The Pareto density."""
    return jnp.exp(logpdf(x, b, loc, scale))
