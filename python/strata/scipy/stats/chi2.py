"""The chi-squared distribution with df degrees of freedom (jax.scipy.stats.chi2): a gamma
distribution of shape df / 2 and scale 2."""

from strata.scipy._util import _promote_inexact
from strata.scipy.stats import gamma as _gamma

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def _args(x, df, loc, scale):
    x, df, loc, scale = _promote_inexact(x, df, loc, scale)
    return x, 0.5 * df, loc, 2.0 * scale


def logpdf(x, df, loc=0, scale=1):
    """log of the chi-squared density."""
    return _gamma.logpdf(*_args(x, df, loc, scale))


def pdf(x, df, loc=0, scale=1):
    """The chi-squared density."""
    return _gamma.pdf(*_args(x, df, loc, scale))


def cdf(x, df, loc=0, scale=1):
    """P(X <= x)."""
    return _gamma.cdf(*_args(x, df, loc, scale))


def logcdf(x, df, loc=0, scale=1):
    """log P(X <= x)."""
    return _gamma.logcdf(*_args(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
    """P(X > x)."""
    return _gamma.sf(*_args(x, df, loc, scale))


def logsf(x, df, loc=0, scale=1):
    """log P(X > x)."""
    return _gamma.logsf(*_args(x, df, loc, scale))
