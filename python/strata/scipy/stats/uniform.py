"""The uniform distribution on [loc, loc + scale] (jax.scipy.stats.uniform)."""

import numpy as np

from strata import numpy as jnp
from strata.scipy._util import _const, _promote_inexact

__all__ = ["logpdf", "pdf", "cdf", "ppf"]


def logpdf(x, loc=0, scale=1):
    """-log(scale) inside [loc, loc + scale], -inf outside."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    out = jnp.broadcast_to(-jnp.log(scale), jnp.broadcast_shapes(x.shape, loc.shape,
                                                                 scale.shape))
    return jnp.where((x < loc) | (x > loc + scale), _const(out, -np.inf), out)


def pdf(x, loc=0, scale=1):
    """1 / scale inside [loc, loc + scale], 0 outside."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """P(X <= x): 0 below loc, (x - loc) / scale inside, 1 above."""
    x, loc, scale = _promote_inexact(x, loc, scale)
    z = (x - loc) / scale
    return jnp.where(x < loc, _const(z, 0.0), jnp.where(x >= loc + scale, _const(z, 1.0), z))


def ppf(q, loc=0, scale=1):
    """loc + q * scale for q in [0, 1], NaN outside."""
    q, loc, scale = _promote_inexact(q, loc, scale)
    out = loc + q * scale
    return jnp.where((q < 0) | (q > 1), _const(out, np.nan), out)
