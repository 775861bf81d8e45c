"""strata.scipy.special (jax.scipy.special's names): special functions over Strata's elementwise
primitives (lgamma, digamma, igamma, betainc, erf, bessel_i0e, ...) and ops, differentiable and
batchable. Arguments are promoted to a floating dtype as in JAX (integers to the default float)."""

import functools
import math
import operator
from fractions import Fraction

import numpy as np

from strata import lax
from strata import numpy as jnp
from strata.api import custom_jvp, jvp, stop_gradient
from strata.scipy._util import (
    _broadcast, _const, _default_float, _is_f64, _promote_inexact)

__all__ = [
    "bernoulli", "bessel_jn", "beta", "betainc", "betaln", "comb", "digamma", "entr", "erf",
    "erfc", "erfcx", "erfinv", "exp1", "expi", "expit", "expn", "factorial", "fresnel", "gamma",
    "gammainc", "gammaincc", "gammaln", "gammasgn", "hyp1f1", "hyp2f1", "i0", "i0e", "i1", "i1e",
    "kl_div", "log_ndtr", "log_softmax", "loggamma", "logit", "logsumexp", "lpmn", "lpmn_values",
    "multigammaln", "ndtr", "ndtri", "owens_t", "poch", "polygamma", "rel_entr", "sici", "softmax",
    "spence", "xlog1py", "xlogy", "zeta",
]


# ---- Gamma family -----------------------------------------------------------------------------

def gammaln(x):
    """log |Gamma(x)| (scipy.special.gammaln)."""
    x, = _promote_inexact(x)
    return lax.lgamma(x)


def gammasgn(x):
    """The sign of Gamma(x): 1 or -1; NaN at the non-positive integers and NaN (as JAX)."""
    x, = _promote_inexact(x)
    x = stop_gradient(x)
    fl = jnp.floor(x)
    neg = x < 0
    odd = jnp.remainder(fl, 2.0) != 0
    neg_zero = (x == 0) & (jnp.divide(1.0, jnp.where(x == 0, x, 1.0)) < 0)
    out = jnp.where((neg & odd) | neg_zero, _const(x, -1.0), _const(x, 1.0))
    return jnp.where((neg & (x == fl)) | jnp.isnan(x), _const(x, np.nan), out)


def gamma(x):
    """Gamma(x) = gammasgn(x) * exp(gammaln(x)); +-inf at +-0, NaN at the negative integers."""
    x, = _promote_inexact(x)
    return gammasgn(x) * jnp.exp(gammaln(x))


def digamma(x):
    """psi(x) = d/dx log Gamma(x) (real arguments)."""
    x, = _promote_inexact(x)
    return lax.digamma(x)


def polygamma(n, x):
    """The n-th derivative of digamma at x; n must have an integer dtype."""
    n_dtype = np.dtype(jnp.asarray(n).dtype)
    if n_dtype.kind not in "iu":
        raise ValueError(f"[polygamma] argument n must have an integer dtype, got {n_dtype}")
    n, x = _promote_inexact(n, x)
    return lax.polygamma(*_broadcast(n, x))


def _zeta_series(s, a):
    """Euler-Maclaurin: zeta(s, a) = sum_{k<N} (a+k)^-s + (a+N)^(1-s)/(s-1) + (a+N)^-s/2 +
    sum_{j<=M} B_2j/(2j)! s(s+1)...(s+2j-2) (a+N)^(-s-2j+1); differentiable in s and a."""
    n = 16 if _is_f64(a) else 8
    total = _const(a, 0.0)
    for k in range(n):
        total = total + jnp.exp(-s * jnp.log(a + k))
    an = a + n
    t = jnp.exp(-s * jnp.log(an))
    total = total + an * t / (s - 1.0) + 0.5 * t
    r = 1.0 / an
    c = t * s * r
    bs = _bernoulli_numbers(2 * n)
    for j in range(1, n + 1):
        total = total + c * float(bs[2 * j] / math.factorial(2 * j))
        c = c * (s + 2 * j - 1) * (s + 2 * j) * r * r
    return total


@custom_jvp
def _zeta(s, q):
    return lax.zeta(s, q)


@_zeta.defjvp
def _zeta_jvp(primals, tangents):
    (s, q), (ds, dq) = primals, tangents
    out = _zeta(s, q)
    # d/dq zeta(s, q) = -s zeta(s + 1, q); d/ds from the series (no closed form)
    d_s = jvp(_zeta_series, (s, q), (jnp.ones_like(s), jnp.zeros_like(q)))[1]
    return out, ds * d_s - dq * s * _zeta(s + 1.0, q)


def zeta(x, q=None):
    """The Hurwitz zeta function sum_k (q + k)^-x, differentiable in x and q (the Riemann one,
    q=None, is not provided, as in JAX)."""
    if q is None:
        raise NotImplementedError("[zeta] the Riemann zeta function is not implemented; pass "
                                  "q to compute the Hurwitz zeta function")
    x, q = _promote_inexact(x, q)
    return _zeta(*_broadcast(x, q))


def multigammaln(a, d):
    """log of the multivariate gamma function of dimension d (a concrete int)."""
    try:
        d = operator.index(d)
    except TypeError:
        raise TypeError(f"[multigammaln] d must be a concrete integer, got {d!r}") from None
    a, = _promote_inexact(a)
    const = 0.25 * d * (d - 1) * math.log(math.pi)
    b = jnp.asarray(np.arange(d) / 2.0, a.dtype)
    return jnp.sum(gammaln(jnp.expand_dims(a, -1) - b), axis=-1) + _const(a, const)


def betaln(a, b):
    """log |B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b)."""
    a, b = _promote_inexact(a, b)
    return gammaln(a) + gammaln(b) - gammaln(a + b)


def beta(a, b):
    """The beta function B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)."""
    a, b = _promote_inexact(a, b)
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * jnp.exp(betaln(a, b))


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    a, b, x = _promote_inexact(a, b, x)
    return lax.betainc(*_broadcast(a, b, x))


def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    a, x = _promote_inexact(a, x)
    return lax.igamma(*_broadcast(a, x))


def gammaincc(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    a, x = _promote_inexact(a, x)
    return lax.igammac(*_broadcast(a, x))


def factorial(n, exact=False):
    """n! = Gamma(n + 1) as a float (0 for n < 0); exact=True is not supported (as in JAX)."""
    if exact:
        raise NotImplementedError("[factorial] exact=True is not supported")
    n, = _promote_inexact(n)
    return jnp.where(n < 0, _const(n, 0.0), jnp.exp(gammaln(n + 1)))


def poch(z, m):
    """The Pochhammer symbol (z)_m = Gamma(z + m) / Gamma(z); 1 for m = 0."""
    z, m = _promote_inexact(z, m)
    ratio = gammasgn(z + m) * gammasgn(z) * jnp.exp(gammaln(z + m) - gammaln(z))
    return jnp.where(m == 0, _const(z, 1.0), ratio)


def loggamma(x):
    """log Gamma(x) for real x > 0 (NaN for x < 0, where the real logarithm does not exist)."""
    x, = _promote_inexact(x)
    return jnp.where(x < 0, _const(x, np.nan), gammaln(x))


def comb(N, k, *, exact=False, repetition=False):
    """The binomial coefficient C(N, k) as a float, Gamma(N+1) / (Gamma(k+1) Gamma(N-k+1)); 0
    outside 0 <= k <= N; with repetition, C(N + k - 1, k). exact=True is not supported."""
    if exact:
        raise NotImplementedError("[comb] exact=True is not supported")
    N, k = _promote_inexact(N, k)
    if repetition:
        N = N + k - 1.0
    ok = (k >= 0) & (N >= 0) & (k <= N)
    ks, ns = jnp.where(ok, k, 0.0), jnp.where(ok, N, 0.0)
    out = jnp.exp(gammaln(ns + 1.0) - gammaln(ks + 1.0) - gammaln(ns - ks + 1.0))
    return jnp.where(ok, out, _const(out, 0.0))


def bernoulli(n):
    """The Bernoulli numbers B_0 ... B_n (B_1 = -1/2, as scipy) for a concrete int n."""
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"[bernoulli] n must be a concrete integer, got {n!r}") from None
    if n < 0:
        raise ValueError(f"[bernoulli] n must be non-negative, got {n}")
    return jnp.asarray(np.array([float(b) for b in _bernoulli_numbers(n)]), _default_float())


@functools.lru_cache(maxsize=None)
def _bernoulli_numbers(n):
    """B_0 .. B_n exactly, by the recurrence sum_{k<=m} C(m+1, k) B_k = 0."""
    bs = [Fraction(1)]
    for m in range(1, n + 1):
        bs.append(-sum(math.comb(m + 1, k) * bs[k] for k in range(m)) / (m + 1))
    return tuple(bs)


# ---- Error function and the normal distribution -----------------------------------------------

def erf(x):
    """The error function."""
    x, = _promote_inexact(x)
    return lax.erf(x)


def erfc(x):
    """The complementary error function 1 - erf(x), accurate where erf(x) is near 1."""
    x, = _promote_inexact(x)
    return lax.erfc(x)


def erfcx(x):
    """The scaled complementary error function exp(x^2) erfc(x), finite for large x (an
    asymptotic series there: 1 / (x sqrt(pi)) sum_n (-1)^n (2n-1)!! / (2x^2)^n)."""
    x, = _promote_inexact(x)
    big = 10.0 if _is_f64(x) else 6.0
    xd = jnp.minimum(x, big)
    direct = jnp.exp(xd * xd) * lax.erfc(xd)
    xa = jnp.maximum(x, big)
    w = 1.0 / (2.0 * xa * xa)
    total = _const(x, 1.0)
    term = _const(x, 1.0)
    for n in range(1, 15 if _is_f64(x) else 9):
        term = term * (-(2 * n - 1)) * w
        total = total + term
    asym = total / (xa * math.sqrt(math.pi))
    return jnp.where(x > big, asym, direct)


def erfinv(x):
    """The inverse of erf on (-1, 1)."""
    x, = _promote_inexact(x)
    return lax.erf_inv(x)


def _check_float(op, x):
    x = jnp.asarray(x)
    if np.dtype(x.dtype) not in (np.float32, np.float64):
        raise TypeError(f"[{op}] x.dtype={x.dtype} is not supported: float32 or float64 only")
    return x


def ndtr(x):
    """The standard normal CDF, (1 + erf(x / sqrt 2)) / 2, through erfc in the tails."""
    x = _check_float("ndtr", x)
    return _ndtr(x)


def _ndtr(x):
    w = x * _const(x, 1 / math.sqrt(2))
    z = jnp.abs(w)
    tail = lax.erfc(z)
    y = jnp.where(z < 1 / math.sqrt(2), 1.0 + lax.erf(w), jnp.where(w > 0, 2.0 - tail, tail))
    return 0.5 * y


# Acklam's rational approximations of the normal quantile (relative error < 1.2e-9), refined by
# one Halley step on ndtr, which brings float64 to full precision.
_ACKLAM_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_ACKLAM_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
             6.680131188771972e+01, -1.328068155288572e+01, 1.0)
_ACKLAM_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_ACKLAM_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
             3.754408661907416e+00, 1.0)


def _horner(coeffs, x):
    out = _const(x, coeffs[0])
    for c in coeffs[1:]:
        out = out * x + c
    return out


def _ndtri_lower(t):
    """ndtri(t) for 0 < t <= 1/2 (a non-positive result)."""
    central = t >= 0.02425
    q = jnp.where(central, t, 0.5) - 0.5
    r = q * q
    x_c = _horner(_ACKLAM_A, r) * q / _horner(_ACKLAM_B, r)
    s = jnp.sqrt(-2.0 * jnp.log(jnp.where(central, 0.02425, t)))
    x_t = _horner(_ACKLAM_C, s) / _horner(_ACKLAM_D, s)
    x = jnp.where(central, x_c, x_t)
    e = _ndtr(x) - t
    u = e * _const(t, math.sqrt(2 * math.pi)) * jnp.exp(0.5 * x * x)
    return x - u / (1.0 + 0.5 * x * u)


@custom_jvp
def _ndtri(p):
    upper = p > 0.5
    t = jnp.where(upper, 1.0 - p, p)  # exact for p >= 1/2
    ok = t > 0
    x = _ndtri_lower(jnp.where(ok, t, 0.25))
    x = jnp.where(ok, x, _const(p, -np.inf))
    x = jnp.where(upper, -x, x)
    return jnp.where((p < 0) | (p > 1) | jnp.isnan(p), _const(p, np.nan), x)


@_ndtri.defjvp
def _ndtri_jvp(primals, tangents):
    (p,), (dp,) = primals, tangents
    x = _ndtri(p)
    return x, dp * _const(p, math.sqrt(2 * math.pi)) * jnp.exp(0.5 * x * x)


def ndtri(p):
    """The inverse of ndtr: x with ndtr(x) = p (-inf at 0, inf at 1, NaN outside [0, 1])."""
    p = _check_float("ndtri", p)
    return _ndtri(p)


@functools.lru_cache(maxsize=None)
def _log_ndtr_fn(series_order):
    @custom_jvp
    def f(x):
        lower = -20.0 if _is_f64(x) else -10.0
        # x > 0: log1p(-ndtr(-x)), ndtr(-x) being accurate in its tail (JAX takes log(ndtr(x))
        # up to 8, which loses the digits of 1 - ndtr(x) there)
        hi = jnp.log1p(-_ndtr(-jnp.maximum(x, 0.0)))
        mid = jnp.log(_ndtr(jnp.clip(x, lower, 0.0)))
        lo = _log_ndtr_asymptotic(jnp.minimum(x, lower), series_order)
        return jnp.where(x > 0, hi, jnp.where(x > lower, mid, lo))

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (dx,) = primals, tangents
        y = f(x)
        # d/dx log ndtr(x) = pdf(x) / ndtr(x), formed in logs so it stays finite in the tails
        return y, dx * jnp.exp(-0.5 * x * x - y - _const(x, 0.5 * math.log(2 * math.pi)))
    return f


def _log_ndtr_asymptotic(x, series_order):
    """log ndtr(x) for x << 0: -x^2/2 - log(-x) - log(2 pi)/2 + log(1 + sum_n (-1)^n
    (2n-1)!! / x^(2n)), the series cut after series_order terms."""
    x2 = x * x
    total = _const(x, 0.0)
    term = _const(x, 1.0)
    for n in range(1, series_order + 1):
        term = term * (-(2 * n - 1)) / x2
        total = total + term
    return (-0.5 * x2 - jnp.log(-x) - _const(x, 0.5 * math.log(2 * math.pi))
            + jnp.log1p(total))


def log_ndtr(x, series_order=3):
    """log ndtr(x), accurate in both tails: log1p(-ndtr(-x)) above 0, an asymptotic series of
    series_order terms (0..30) below -20 (float64) or -10 (float32), as JAX."""
    if not isinstance(series_order, int):
        raise TypeError(f"[log_ndtr] series_order must be a Python int, got {series_order!r}")
    if series_order < 0 or series_order > 30:
        raise ValueError(f"[log_ndtr] series_order must be in [0, 30], got {series_order}")
    x = _check_float("log_ndtr", x)
    return _log_ndtr_fn(series_order)(x)


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(64)


def _owens_t_unit(h, a):
    """T(h, a) for |a| <= 1: (1/2pi) int_0^a exp(-h^2 (1+t^2)/2) / (1+t^2) dt by 64-point
    Gauss-Legendre quadrature (the integrand is smooth on [0, a])."""
    total = _const(h, 0.0)
    half = 0.5 * a
    for node, weight in zip(_GL_NODES, _GL_WEIGHTS):
        t = half * (float(node) + 1.0)
        u = 1.0 + t * t
        total = total + float(weight) * jnp.exp(-0.5 * h * h * u) / u
    return total * half / (2 * math.pi)


def owens_t(h, a):
    """Owen's T function (1/2pi) int_0^a exp(-h^2 (1+x^2)/2) / (1+x^2) dx; for |a| > 1 through
    T(h, a) = (ndtr(h) + ndtr(ah))/2 - ndtr(h) ndtr(ah) - [h < 0]/2 - T(ah, 1/a)."""
    h, a = _promote_inexact(h, a)
    h, a = _broadcast(h, a)
    sa = jnp.sign(a)
    aa, ah = jnp.abs(a), jnp.abs(h)
    unit = aa <= 1.0
    inner = _owens_t_unit(ah, jnp.where(unit, aa, 1.0))
    ab = jnp.where(unit, 2.0, aa)
    p, q = _ndtr(-ah), _ndtr(-ab * ah)  # upper tails: 1 - ndtr(h), 1 - ndtr(ah) for h >= 0
    outer = 0.5 * (p + q) - p * q - _owens_t_unit(ab * ah, 1.0 / ab)
    out = jnp.where(unit, inner, outer)
    return sa * out


# ---- Logistic, logs and entropies -------------------------------------------------------------

def expit(x):
    """The logistic sigmoid 1 / (1 + exp(-x))."""
    x, = _promote_inexact(x)
    return lax.logistic(x)


def logit(x):
    """log(x / (1 - x)), the inverse of expit."""
    x, = _promote_inexact(x)
    return jnp.log(x / (1.0 - x))


@custom_jvp
def _xlogy(x, y):
    ok = x != 0
    return jnp.where(ok, x * jnp.log(jnp.where(ok, y, 1.0)), jnp.zeros_like(x * y))


@_xlogy.defjvp
def _xlogy_jvp(primals, tangents):
    (x, y), (dx, dy) = primals, tangents
    return _xlogy(x, y), dx * jnp.log(y) + dy * x / y


@custom_jvp
def _xlog1py(x, y):
    ok = x != 0
    return jnp.where(ok, x * jnp.log1p(jnp.where(ok, y, 0.0)), jnp.zeros_like(x * y))


@_xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
    (x, y), (dx, dy) = primals, tangents
    return _xlog1py(x, y), dx * jnp.log1p(y) + dy * x / (1.0 + y)


def xlogy(x, y):
    """x * log(y), 0 where x = 0 (even for y = 0); the derivative is JAX's (log(y), x/y)."""
    x, y = _promote_inexact(x, y)
    return _xlogy(x, y)


def xlog1py(x, y):
    """x * log1p(y), 0 where x = 0; the derivative is JAX's (log1p(y), x/(1+y))."""
    x, y = _promote_inexact(x, y)
    return _xlog1py(x, y)


@custom_jvp
def _xlogx(x):
    return _xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return _xlogx(x), dx * (jnp.log(x) + 1.0)


def entr(x):
    """-x log x elementwise: 0 at 0, -inf for x < 0 (derivative -(log x + 1), as JAX)."""
    x, = _promote_inexact(x)
    return jnp.where(x < 0, _const(x, -np.inf), -_xlogx(x))


def rel_entr(p, q):
    """p log(p / q) for p, q > 0; 0 for p = 0, q >= 0; inf otherwise."""
    p, q = _promote_inexact(p, q)
    pos = (p > 0) & (q > 0)
    sp, sq = jnp.where(pos, p, 1.0), jnp.where(pos, q, 1.0)
    val = _xlogx(sp) - _xlogy(sp, sq)
    zero = (p == 0) & (q >= 0)
    return jnp.where(pos, val, jnp.where(zero, _const(val, 0.0), _const(val, np.inf)))


def kl_div(p, q):
    """rel_entr(p, q) - p + q: p log(p / q) - p + q for p, q > 0; q for p = 0, q >= 0; inf
    otherwise."""
    p, q = _promote_inexact(p, q)
    return rel_entr(p, q) - p + q


# ---- Reductions -------------------------------------------------------------------------------

def _axes(ndim, axis):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = []
    for a in axes:
        if not -ndim <= a < max(ndim, 1):
            raise ValueError(f"[logsumexp] axis {a} is out of bounds for an array of rank "
                             f"{ndim}")
        out.append(a % max(ndim, 1))
    return tuple(out)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """log(sum(b * exp(a))) over `axis`, computed stably; with return_sign, (log|sum|, sign)
    (else NaN where the weighted sum is negative); `where` masks entries out."""
    if b is not None:
        a, b = _promote_inexact(a, b)
        a = jnp.where(b != 0, a, _const(a, -np.inf))
    else:
        a, = _promote_inexact(a)
    if where is not None:
        a = jnp.where(where, a, _const(a, -np.inf))
    axes = _axes(a.ndim, axis)
    if a.ndim == 0:
        axes = None
    amax = jnp.max(a, axis=axes, keepdims=True)
    amax = stop_gradient(jnp.where(jnp.isfinite(amax), amax, _const(amax, 0.0)))
    e = jnp.exp(a - amax)
    if b is not None:
        e = e * b
    s = jnp.sum(e, axis=axes, keepdims=keepdims)
    shift = amax if keepdims else jnp.reshape(amax, s.shape)
    if b is None:
        out = jnp.log(s) + shift
        sign = jnp.where(jnp.isnan(out), out, jnp.where(out == -np.inf, 0.0, 1.0))
        sign = sign.astype(out.dtype)
    else:
        sign = stop_gradient(jnp.sign(s))
        out = jnp.log(jnp.abs(s)) + shift
    if return_sign:
        return out, sign
    if b is not None:
        out = jnp.where(sign < 0, _const(out, np.nan), out)
    return out


def _shifted(x, axis, where):
    x, = _promote_inexact(x)
    axes = _axes(x.ndim, axis)
    if where is not None:
        x = jnp.where(where, x, _const(x, -np.inf))
    m = jnp.max(x, axis=axes, keepdims=True)
    m = stop_gradient(jnp.where(jnp.isfinite(m), m, _const(m, 0.0)))
    return x - m, axes


def softmax(x, axis=-1, where=None):
    """exp(x) / sum(exp(x)) along `axis` (jax.nn.softmax); entries outside `where` get 0."""
    z, axes = _shifted(x, axis, where)
    e = jnp.exp(z)
    return e / jnp.sum(e, axis=axes, keepdims=True)


def log_softmax(x, axis=-1, where=None):
    """x - logsumexp(x) along `axis` (jax.nn.log_softmax); -inf outside `where`."""
    z, axes = _shifted(x, axis, where)
    return z - jnp.log(jnp.sum(jnp.exp(z), axis=axes, keepdims=True))


# ---- Hypergeometric functions ------------------------------------------------------------------

def _hyp1f1_series(a, b, x, terms):
    """sum_k (a)_k / ((b)_k k!) x^k, a fixed number of terms (a loop, traced once)."""
    def body(k, state):
        total, term = state
        term = term * (a + k) / (b + k) * x / (k + 1.0)
        return total + term, term
    return lax.fori_loop(0, terms, body, (jnp.ones_like(x), jnp.ones_like(x)))[0]


def _hyp1f1_asymptotic(a, b, x, terms):
    """Gamma(b) / Gamma(a) e^x x^(a-b) sum_k (b-a)_k (1-a)_k / (k! x^k), for large x > 0."""
    total, term = _const(x, 1.0), _const(x, 1.0)
    for k in range(terms):
        term = term * (b - a + k) * (1.0 - a + k) / ((k + 1.0) * x)
        total = total + term
    log_scale = gammaln(b) - gammaln(a) + x + (a - b) * jnp.log(x)
    return gammasgn(b) * gammasgn(a) * jnp.exp(log_scale) * total


def hyp1f1(a, b, x):
    """Kummer's confluent hypergeometric function 1F1(a; b; x) = sum_k (a)_k / ((b)_k k!) x^k,
    by its series (an asymptotic expansion for large x, Kummer's transformation for x < 0);
    1 for a = b = 0, as JAX."""
    a, b, x = _promote_inexact(a, b, x)
    a, b, x = _broadcast(a, b, x)
    f64 = _is_f64(x)
    neg = x < 0
    aa = jnp.where(neg, b - a, a)  # 1F1(a; b; x) = e^x 1F1(b - a; b; -x)
    ax = jnp.abs(x)
    big = 50.0 if f64 else 30.0
    series = _hyp1f1_series(aa, b, jnp.minimum(ax, big), 160 if f64 else 100)
    asym = _hyp1f1_asymptotic(aa, b, jnp.maximum(ax, big), 30 if f64 else 15)
    out = jnp.where(ax > big, asym, series)
    out = jnp.where(neg, jnp.exp(x) * out, out)
    return jnp.where((a == 0) & (b == 0), _const(out, 1.0), out)


def _hyp2f1_series(a, b, c, z, terms):
    """sum_k (a)_k (b)_k / ((c)_k k!) z^k, a fixed number of terms (a loop, traced once)."""
    def body(k, state):
        total, term = state
        term = term * (a + k) * (b + k) / ((c + k) * (k + 1.0)) * z
        return total + term, term
    return lax.fori_loop(0, terms, body, (jnp.ones_like(z), jnp.ones_like(z)))[0]


def _gamma_ratio(num, den):
    """prod Gamma(num) / prod Gamma(den), signs kept, in logs."""
    sign, log = 1.0, 0.0
    for v in num:
        sign, log = sign * gammasgn(v), log + gammaln(v)
    for v in den:
        sign, log = sign * gammasgn(v), log - gammaln(v)
    return sign * jnp.exp(log)


def hyp2f1(a, b, c, x):
    """The Gauss hypergeometric function 2F1(a, b; c; x) for real x <= 1: its series for
    |z| <= 1/2, Pfaff's transformation z = x / (x - 1) for x < 0, the 1 - z connection formula
    (the plain series where c - a - b is an integer) above 1/2, Gauss's sum at x = 1."""
    a, b, c, x = _promote_inexact(a, b, c, x)
    a, b, c, x = _broadcast(a, b, c, x)
    f64 = _is_f64(x)
    terms = 120 if f64 else 60
    neg = x < 0
    z = jnp.where(neg, x / jnp.where(neg, x - 1.0, -1.0), x)
    bb = jnp.where(neg, c - b, b)  # Pfaff: (1-x)^-a 2F1(a, c-b; c; x/(x-1))
    scale = jnp.where(neg, jnp.exp(-a * jnp.log1p(-jnp.where(neg, x, 0.0))), 1.0)
    low = z <= 0.5
    direct = _hyp2f1_series(a, bb, c, jnp.where(low, z, 0.0), terms)
    s = c - a - bb
    integral = s == jnp.round(s)
    w = jnp.where(low, 0.5, 1.0 - z)
    sw = jnp.where(integral, 0.5, s)
    t1 = _gamma_ratio([c, sw], [c - a, c - bb]) * _hyp2f1_series(a, bb, 1.0 - sw, w, terms)
    t2 = (_gamma_ratio([c, -sw], [a, bb]) * jnp.exp(sw * jnp.log(w))
          * _hyp2f1_series(c - a, c - bb, 1.0 + sw, w, terms))
    connected = t1 + t2
    slow = _hyp2f1_series(a, bb, c, jnp.where(low | (z >= 1), 0.5, z), 40 * terms)
    high = jnp.where(integral, slow, connected)
    out = scale * jnp.where(low, direct, high)
    gauss = jnp.where(s > 0, _gamma_ratio([c, jnp.where(s > 0, s, 1.0)], [c - a, c - bb]),
                      _const(x, np.inf))
    out = jnp.where(x == 1, gauss, out)
    return jnp.where(x > 1, _const(x, np.nan), out)


# ---- Bessel functions -------------------------------------------------------------------------

def i0e(x):
    """The exponentially scaled modified Bessel function of order 0, exp(-|x|) I0(x)."""
    x, = _promote_inexact(x)
    return lax.bessel_i0e(x)


def i0(x):
    """The modified Bessel function of the first kind of order 0."""
    x, = _promote_inexact(x)
    return jnp.i0(x)


def i1e(x):
    """The exponentially scaled modified Bessel function of order 1, exp(-|x|) I1(x)."""
    x, = _promote_inexact(x)
    return lax.bessel_i1e(x)


def i1(x):
    """The modified Bessel function of the first kind of order 1."""
    x, = _promote_inexact(x)
    return jnp.exp(jnp.abs(x)) * i1e(x)


def bessel_jn(z, *, v, n_iter=50):
    """The Bessel functions of the first kind J_0(z) ... J_v(z), shape (v + 1, *z.shape), by
    Miller's backward recurrence from order n_iter (rescaled as it grows) normalized by
    J_0 + 2 sum_k J_2k = 1; a power series near 0."""
    try:
        v, n_iter = operator.index(v), operator.index(n_iter)
    except TypeError:
        raise TypeError(f"[bessel_jn] v and n_iter must be concrete integers, got v={v!r}, "
                        f"n_iter={n_iter!r}") from None
    if v < 0 or n_iter < v:
        raise ValueError(f"[bessel_jn] need 0 <= v <= n_iter, got v={v}, n_iter={n_iter}")
    z, = _promote_inexact(z)
    small = jnp.abs(z) < 1e-4
    zs = jnp.where(small, 1.0, z)
    f_next, f = jnp.zeros_like(zs), jnp.full_like(zs, 1e-16)  # f_{k+1}, f_k at k = n_iter + 1
    norm = jnp.zeros_like(zs)
    vals = {}
    for k in range(n_iter, -1, -1):
        f_next, f = f, 2.0 * (k + 1) * f / zs - f_next
        if k % 2 == 0:
            norm = norm + (2.0 if k else 1.0) * f
        if k <= v:
            vals[k] = f
        big = jnp.abs(f) > 1e10
        scale = jnp.where(big, 1e-10, 1.0)
        f, f_next, norm = f * scale, f_next * scale, norm * scale
        vals = {i: x * scale for i, x in vals.items()}
    h = 0.5 * jnp.where(small, z, 0.0)
    h2 = h * h
    out = []
    for n in range(v + 1):
        lead = jnp.power(h, float(n)) * (1.0 / math.factorial(n)) if n else jnp.ones_like(h)
        series = lead * (1.0 - h2 / (n + 1) + h2 * h2 / (2 * (n + 1) * (n + 2)))
        out.append(jnp.where(small, series, vals[n] / norm))
    return jnp.stack(out, axis=0)


def _legendre_values(m, n, z, is_normalized):
    """P_l^k(z) for k <= m, l <= n as an (m+1, n+1, *z.shape) array (0 where k > l), with the
    Condon-Shortley phase; normalized, sqrt((2l+1)/(4 pi) (l-k)!/(l+k)!) P_l^k."""
    zero = jnp.zeros_like(z)
    root = jnp.sqrt(jnp.maximum(1.0 - z * z, 0.0))
    diag = jnp.ones_like(z)  # P_k^k
    rows = []
    for k in range(m + 1):
        if k > 0:
            diag = diag * (-(2.0 * k - 1.0)) * root
        row = [zero] * min(k, n + 1)
        prev2, prev = None, diag
        for ll in range(k, n + 1):
            if ll == k:
                cur = diag
            elif ll == k + 1:
                cur = z * (2.0 * k + 1.0) * diag
            else:
                cur = ((2.0 * ll - 1.0) * z * prev - (ll + k - 1.0) * prev2) / (ll - k)
            if ll > k:
                prev2, prev = prev, cur
            if is_normalized:
                log_ratio = math.lgamma(ll - k + 1) - math.lgamma(ll + k + 1)
                cur = cur * math.sqrt((2 * ll + 1) / (4 * math.pi) * math.exp(log_ratio))
            row.append(cur)
        rows.append(jnp.stack(row, axis=0))
    return jnp.stack(rows, axis=0)


def _legendre_args(op, m, n, z):
    try:
        m, n = operator.index(m), operator.index(n)
    except TypeError:
        raise TypeError(f"[{op}] m and n must be concrete integers, got m={m!r}, n={n!r}") \
            from None
    if m < 0 or n < 0:
        raise ValueError(f"[{op}] m and n must be non-negative, got m={m}, n={n}")
    z, = _promote_inexact(z)
    return m, n, z


def lpmn_values(m, n, z, is_normalized):
    """The associated Legendre functions P_l^k(z), k <= m, l <= n, shape (m+1, n+1, *z.shape)
    (with the Condon-Shortley phase, as scipy; spherical-harmonic normalization if
    is_normalized)."""
    m, n, z = _legendre_args("lpmn_values", m, n, z)
    return _legendre_values(m, n, z, bool(is_normalized))


def lpmn(m, n, z):
    """(P_l^k(z), d/dz P_l^k(z)) for k <= m, l <= n, each (m+1, n+1, *z.shape), as scipy's
    lpmn for each z; the derivatives are exact (forward mode through the recurrence)."""
    m, n, z = _legendre_args("lpmn", m, n, z)
    return jvp(lambda t: _legendre_values(m, n, t, False), (z,), (jnp.ones_like(z),))


# ---- Exponential integrals and the dilogarithm ------------------------------------------------

_EULER = 0.57721566490153286061


def _e1_series(x, terms):
    """E1(x) = -gamma - log x - sum_k (-x)^k / (k k!), for 0 < x <= 2."""
    total = _const(x, 0.0)
    term = _const(x, 1.0)
    for k in range(1, terms + 1):
        term = term * (-x) / k
        total = total + term / k
    return -_EULER - jnp.log(x) - total


def _en_continued_fraction(n, x, depth):
    """E_n(x) = exp(-x) / (x + n - 1 n / (x + n + 2 - 2 (n + 1) / (x + n + 4 - ...))), evaluated
    from the bottom; for x > 1 (x > 2 for E1)."""
    tail = x + n + 2.0 * depth
    for i in range(depth, 0, -1):
        tail = x + n + 2.0 * (i - 1) - i * (n + i - 1) / tail
    return jnp.exp(-x) / tail


def exp1(x):
    """The exponential integral E1(x) = int_1^inf exp(-x t) / t dt for x > 0 (NaN below 0,
    inf at 0)."""
    x, = _promote_inexact(x)
    small = x <= 2.0
    xs = jnp.where(small & (x > 0), x, 0.5)
    xl = jnp.where(small, 3.0, x)
    depth = 60 if _is_f64(x) else 30
    out = jnp.where(small, _e1_series(xs, 30 if _is_f64(x) else 18),
                    _en_continued_fraction(_const(x, 1.0), xl, depth))
    out = jnp.where(x == 0, _const(x, np.inf), out)
    return jnp.where(x < 0, _const(x, np.nan), out)


def expn(n, x):
    """The generalized exponential integral E_n(x) = int_1^inf exp(-x t) / t^n dt for integer
    n >= 0 and x >= 0."""
    n, x = _promote_inexact(n, x)
    n, x = _broadcast(n, x)
    f64 = _is_f64(x)
    small = x <= 1.0
    xs = jnp.where(small & (x > 0), x, 0.5)
    # series: E_n(x) = (-x)^(n-1) / (n-1)! (psi(n) - log x) - sum_{k != n-1} (-x)^k / ((k-n+1) k!)
    terms = 30 if f64 else 16
    total = _const(x, 0.0)
    term = _const(x, 1.0)  # (-x)^k / k!
    for k in range(terms + 1):
        if k > 0:
            term = term * (-xs) / k
        d = k - n + 1.0
        total = total + jnp.where(d == 0, 0.0, term / jnp.where(d == 0, 1.0, d))
    nn = jnp.maximum(n, 1.0)
    sign = jnp.where(jnp.remainder(nn - 1.0, 2.0) == 1, -1.0, 1.0)
    lead = (sign * jnp.exp((nn - 1.0) * jnp.log(xs) - gammaln(nn))
            * (digamma(nn) - jnp.log(xs)))
    series = lead - total
    xl = jnp.where(small, 2.0, x)
    cf = _en_continued_fraction(n, xl, 60 if f64 else 30)
    out = jnp.where(small, series, cf)
    out = jnp.where(n == 0, jnp.exp(-x) / x, out)
    out = jnp.where((x == 0) & (n > 1), 1.0 / jnp.maximum(n - 1.0, 1.0), out)
    out = jnp.where((x == 0) & (n <= 1), _const(x, np.inf), out)
    bad = (x < 0) | (n < 0) | (n != jnp.floor(n))
    return jnp.where(bad, _const(x, np.nan), out)


def expi(x):
    """The exponential integral Ei(x) = -PV int_{-x}^inf exp(-t) / t dt; -E1(-x) for x < 0."""
    x, = _promote_inexact(x)
    f64 = _is_f64(x)
    big = 40.0 if f64 else 20.0
    # 0 < x <= big: gamma + log x + sum_k x^k / (k k!) (all terms positive: no cancellation)
    xs = jnp.where((x > 0) & (x <= big), x, 1.0)
    total = _const(x, 0.0)
    term = _const(x, 1.0)
    for k in range(1, (130 if f64 else 60) + 1):
        term = term * xs / k
        total = total + term / k
    pos = _EULER + jnp.log(xs) + total
    # x > big: exp(x) / x sum_k k! / x^k (asymptotic)
    xb = jnp.where(x > big, x, 2.0 * big)
    asym = _const(x, 1.0)
    term = _const(x, 1.0)
    for k in range(1, (40 if f64 else 20) + 1):
        term = term * k / xb
        asym = asym + term
    large = jnp.exp(xb) / xb * asym
    neg = -exp1(jnp.where(x < 0, -x, 1.0))
    out = jnp.where(x > big, large, pos)
    out = jnp.where(x < 0, neg, out)
    return jnp.where(x == 0, _const(x, -np.inf), out)


def sici(x):
    """(Si(x), Ci(x)): the sine integral int_0^x sin(t)/t dt and the cosine integral
    gamma + log|x| + int_0^|x| (cos(t) - 1)/t dt (even, as scipy's real sici); power series
    near 0, the continued fraction of E1(i x) = -Ci(x) + i (Si(x) - pi/2) beyond."""
    x, = _promote_inexact(x)
    f64 = _is_f64(x)
    ax = jnp.abs(x)
    small = ax <= (4.0 if f64 else 2.0)
    xs = jnp.where(small & (ax > 0), ax, 1.0)
    x2 = xs * xs
    si_s, ci_s = xs, _const(x, 0.0)
    term = xs  # (-1)^k x^(2k+1) / (2k+1)!
    for k in range(1, 22 if f64 else 9):
        term = term * (-x2) / ((2 * k) * (2 * k + 1))
        si_s = si_s + term / (2 * k + 1)
        ci_s = ci_s + term * (2 * k + 1) / (xs * 2 * k)  # (-1)^k x^(2k) / (2k (2k)!)
    ci_s = _EULER + jnp.log(xs) + ci_s
    xl = jnp.where(small, 5.0, ax)
    depth = 60 if f64 else 30
    tr, ti = jnp.full_like(xl, 2.0 * depth + 1.0), xl  # b_depth = 2 depth + 1 + i x
    for j in range(depth, 0, -1):
        d = tr * tr + ti * ti
        tr, ti = (2.0 * j - 1.0) - j * j * tr / d, xl + j * j * ti / d
    d = tr * tr + ti * ti
    hr, hi = tr / d, -ti / d  # 1 / t
    c, s_ = jnp.cos(xl), jnp.sin(xl)
    ci_l = -(c * hr + s_ * hi)
    si_l = math.pi / 2 + (c * hi - s_ * hr)
    si = jnp.where(small, si_s, si_l)
    ci = jnp.where(small, ci_s, ci_l)
    si = jnp.where(x < 0, -si, si)
    si = jnp.where(ax == 0, _const(x, 0.0), si)
    ci = jnp.where(ax == 0, _const(x, -np.inf), ci)
    return si, ci


def fresnel(x):
    """(S(x), C(x)) = (int_0^x sin(pi t^2 / 2) dt, int_0^x cos(pi t^2 / 2) dt): power series
    near 0, beyond it C + iS = (1+i)/2 (1 - e^(i pi x^2 / 2) x (1-i) h) with h a continued
    fraction from erfc, evaluated from the bottom."""
    x, = _promote_inexact(x)
    f64 = _is_f64(x)
    ax = jnp.abs(x)
    small = ax <= 1.5
    xs = jnp.where(small, ax, 1.0)
    t = (math.pi / 2) * xs * xs
    s_s, c_s = _const(x, 0.0), _const(x, 0.0)
    term = xs  # (-1)^k t^j x / j!, j = 2k (C) and 2k + 1 (S)
    for j in range(0, 34 if f64 else 20):
        if j > 0:
            term = term * t / j
        sign = -1.0 if (j // 2) % 2 else 1.0
        if j % 2 == 0:
            c_s = c_s + sign * term / (2 * j + 1)
        else:
            s_s = s_s + sign * term / (2 * j + 1)
    xl = jnp.where(small, 2.0, ax)
    pix2 = math.pi * xl * xl
    depth = 120 if f64 else 50
    # h = 1 / (b_1 + a_2 / (b_2 + a_3 / ...)), b_k = 1 + 4 (k-1) - i pi x^2, a_k = -(2k-3)(2k-2)
    tr, ti = jnp.full_like(xl, 1.0 + 4.0 * (depth - 1)), -pix2
    for k in range(depth, 1, -1):
        a = -(2.0 * k - 3.0) * (2.0 * k - 2.0)
        d = tr * tr + ti * ti
        tr, ti = (1.0 + 4.0 * (k - 2)) + a * tr / d, -pix2 - a * ti / d
    d = tr * tr + ti * ti
    hr, hi = tr / d, -ti / d
    hr, hi = xl * (hr + hi), xl * (hi - hr)  # h * (x - i x)
    c, s_ = jnp.cos(0.5 * pix2), jnp.sin(0.5 * pix2)
    er, ei = 1.0 - (c * hr - s_ * hi), -(c * hi + s_ * hr)  # 1 - e^(i pi x^2/2) h
    c_l, s_l = 0.5 * (er - ei), 0.5 * (er + ei)  # (1 + i)/2 * (er + i ei)
    s_out = jnp.where(small, s_s, s_l)
    c_out = jnp.where(small, c_s, c_l)
    neg = x < 0
    return jnp.where(neg, -s_out, s_out), jnp.where(neg, -c_out, c_out)


def _li2_small(w):
    """Li2(v) for w = -log(1 - v), |w| <= log 2: sum_n B_n w^(n+1) / (n+1)! (B_1 = -1/2)."""
    bs = _bernoulli_numbers(30)
    total = _const(w, 0.0)
    power = w
    for n, b in enumerate(bs):
        if n > 0:
            power = power * w
        if b != 0:
            total = total + power * float(b / math.factorial(n + 1))
    return total


def _li2_unit(v):
    """Li2(v) for 0 <= v <= 1."""
    lo = v <= 0.5
    vs = jnp.where(lo, v, 0.5)
    vr = jnp.where(lo, 0.5, 1.0 - v)  # 1 - v <= 1/2 on the reflected side
    direct = _li2_small(-jnp.log1p(-vs))
    safe = jnp.where(lo | (v == 1), 0.5, v)
    reflected = (math.pi ** 2 / 6 - jnp.log(safe) * jnp.log1p(-safe)
                 - _li2_small(-jnp.log1p(-vr)))
    reflected = jnp.where(v == 1, _const(v, math.pi ** 2 / 6), reflected)
    return jnp.where(lo, direct, reflected)


def spence(x):
    """Spence's function int_1^x log(t) / (1 - t) dt = Li2(1 - x), for x >= 0 (NaN below)."""
    x, = _promote_inexact(x)
    u = 1.0 - x  # Li2(u), u <= 1
    # u in [0, 1]: directly; u < 0 (x > 1): Landen, Li2(u) = -Li2(u / (u - 1)) - log(1 - u)^2 / 2
    # with u / (u - 1) = (x - 1) / x in (0, 1)
    pos = u >= 0
    up = jnp.where(pos, u, 0.0)
    xn = jnp.where(pos, 2.0, x)
    landen = -_li2_unit((xn - 1.0) / xn) - 0.5 * jnp.square(jnp.log(xn))
    out = jnp.where(pos, _li2_unit(up), landen)
    return jnp.where(x < 0, _const(x, np.nan), out)
