"""strata.scipy.special and strata.scipy.stats against scipy (values in float32 and float64),
finite differences (gradients), per-example loops (vmap) and eager runs (jit)."""

import contextlib
import math

import numpy as np
import pytest
import scipy.special as ss
import scipy.stats as st

import strata
import strata.numpy as jnp
import strata.scipy.special as sp
import strata.scipy.stats as S
from conftest import numerical_grad


@contextlib.contextmanager
def _precision(dtype):
    """float64 runs with jax_enable_x64 on where the build has the switch."""
    if np.dtype(dtype) != np.float64:
        yield
        return
    try:
        saved = strata.config.read("jax_enable_x64")
    except (AttributeError, KeyError):
        yield  # no switch in this build: float64 arrays stay float64
        return
    strata.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        strata.config.update("jax_enable_x64", saved)


DTYPES = [np.float32, np.float64]
TOL = {np.float32: dict(rtol=2e-5, atol=1e-6), np.float64: dict(rtol=1e-12, atol=1e-14)}


def check(fn, oracle, *args, dtype, rtol=None, atol=None):
    """fn(*args cast to dtype) against oracle(*the same rounded args in float64)."""
    cast = [np.asarray(a, dtype) if isinstance(a, np.ndarray) or isinstance(a, float) else a
            for a in args]
    with _precision(dtype):
        got = fn(*cast)
        got = np.asarray(got)
    want = oracle(*[np.asarray(a, np.float64) if isinstance(a, np.ndarray) else a
                    for a in cast])
    tol = dict(TOL[dtype])
    if rtol is not None:
        tol["rtol"] = rtol
    if atol is not None:
        tol["atol"] = atol
    # values below the dtype's normal range are flushed or subnormal
    tol["atol"] = max(tol["atol"], float(np.finfo(dtype).tiny))
    assert got.dtype == np.dtype(dtype), (got.dtype, dtype)
    np.testing.assert_allclose(got, want, **tol)


def grad_check(fn, oracle, x, rtol=1e-6, atol=1e-8, argnum=0, args=()):
    """The float64 gradient of sum(fn) in argument argnum against finite differences of the
    numpy oracle."""
    x = np.asarray(x, np.float64)
    with _precision(np.float64):
        def f(*a):
            return jnp.sum(fn(*a))
        full = list(args)
        full.insert(argnum, x)
        g = np.asarray(strata.grad(f, argnums=argnum)(*full))

    def f_np(v):
        full = list(args)
        full.insert(argnum, v)
        return np.sum(oracle(*full))
    np.testing.assert_allclose(g, numerical_grad(f_np, x), rtol=rtol, atol=atol)


RNG = np.random.RandomState(0)


# ---- special: functions on the core's existing primitives ---------------------------------------

def test_names_match_jax():
    jax_names = {"bernoulli", "bessel_jn", "beta", "betainc", "betaln", "comb", "erfcx", "hyp1f1",
                 "loggamma", "sici", "fresnel", "owens_t", "hyp2f1", "digamma", "entr", "erf",
                 "erfc", "erfinv", "exp1", "expi", "expit", "expn", "factorial", "gamma",
                 "gammainc", "gammaincc", "gammaln", "gammasgn", "i0", "i0e", "i1", "i1e",
                 "kl_div", "log_ndtr", "log_softmax", "logit", "logsumexp", "lpmn", "lpmn_values",
                 "multigammaln", "ndtr", "ndtri", "poch", "polygamma", "rel_entr", "softmax",
                 "spence", "xlog1py", "xlogy", "zeta"}
    assert jax_names <= set(sp.__all__)
    for n in sp.__all__:
        assert callable(getattr(sp, n))
        assert getattr(sp, n).__doc__
    for mod in S.__dict__.values():
        if getattr(mod, "__all__", None) and mod.__name__.startswith("strata.scipy.stats."):
            for n in mod.__all__:
                assert getattr(mod, n).__doc__, (mod.__name__, n)


@pytest.mark.parametrize("dtype", DTYPES)
def test_logsumexp_values(dtype):
    a = RNG.randn(3, 4, 5) * 3
    b = RNG.randn(3, 4, 5)
    check(sp.logsumexp, ss.logsumexp, a, dtype=dtype)
    check(lambda a: sp.logsumexp(a, axis=1), lambda a: ss.logsumexp(a, axis=1), a, dtype=dtype)
    check(lambda a: sp.logsumexp(a, axis=(0, 2), keepdims=True),
          lambda a: ss.logsumexp(a, axis=(0, 2), keepdims=True), a, dtype=dtype)
    check(lambda a, b: sp.logsumexp(a, axis=-1, b=np.abs(b)),
          lambda a, b: ss.logsumexp(a, axis=-1, b=np.abs(b)), a, b, dtype=dtype)
    for k in (0, 1):
        check(lambda a, b: sp.logsumexp(a, axis=0, b=b, return_sign=True)[k],
              lambda a, b: ss.logsumexp(a, axis=0, b=b, return_sign=True)[k], a, b,
              dtype=dtype)
    # negative weighted sums are NaN without return_sign, as in scipy
    got = np.asarray(sp.logsumexp(np.array([0.0, 0.0]), b=np.array([1.0, -2.0])))
    assert np.isnan(got)
    mask = RNG.rand(3, 4, 5) > 0.3
    check(lambda a: sp.logsumexp(a, axis=2, where=mask),
          lambda a: ss.logsumexp(np.where(mask, a, -np.inf), axis=2), a, dtype=dtype)
    assert float(sp.logsumexp(np.array([-np.inf, -np.inf]))) == -np.inf
    assert float(sp.logsumexp(np.array([np.inf, 1.0]))) == np.inf
    assert np.asarray(sp.logsumexp(np.arange(4))).dtype == jnp.asarray(1.0).dtype


def test_logsumexp_grad_vmap_jit():
    a = RNG.randn(4, 3)
    b = RNG.rand(4, 3) + 0.1
    grad_check(lambda a: sp.logsumexp(a, axis=0), lambda a: ss.logsumexp(a, axis=0), a)
    grad_check(lambda a: sp.logsumexp(a, b=b), lambda a: ss.logsumexp(a, b=b), a)
    grad_check(lambda b: sp.logsumexp(a, b=b, axis=1), lambda b: ss.logsumexp(a, b=b, axis=1), b)
    a32 = a.astype(np.float32)
    per = np.stack([np.asarray(sp.logsumexp(r)) for r in a32])
    np.testing.assert_allclose(np.asarray(strata.vmap(sp.logsumexp)(a32)), per, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(strata.jit(lambda v: sp.logsumexp(v, axis=1))(a32)),
                               np.asarray(sp.logsumexp(a32, axis=1)), rtol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_family(dtype):
    x = RNG.randn(3, 5) * 4
    check(sp.softmax, lambda x: ss.softmax(x, axis=-1), x, dtype=dtype)
    check(lambda x: sp.log_softmax(x, axis=0), lambda x: ss.log_softmax(x, axis=0), x,
          dtype=dtype)
    mask = np.array([True, False, True, True, False])
    check(lambda x: sp.softmax(x, where=mask),
          lambda x: np.where(mask, ss.softmax(np.where(mask, x, -np.inf), axis=-1), 0.0), x,
          dtype=dtype)
    grad_check(lambda x: sp.softmax(x)[:, 1], lambda x: ss.softmax(x, axis=-1)[:, 1], x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_logistic_log_and_entropy_functions(dtype):
    x = np.linspace(-30, 30, 41)
    u = np.linspace(0.001, 0.999, 37)
    check(sp.expit, ss.expit, x, dtype=dtype)
    check(sp.logit, ss.logit, u, dtype=dtype, rtol=1e-5 if dtype == np.float32 else 1e-11)
    p = np.array([0.0, 0.0, 0.5, 2.0, 3.0, -1.0, 1.5])
    q = np.array([0.0, 2.0, 0.3, 1.0, 0.0, 1.0, -1.0])
    check(sp.xlogy, ss.xlogy, p, np.abs(q), dtype=dtype)
    check(sp.xlog1py, ss.xlog1py, p, q, dtype=dtype)
    check(sp.entr, ss.entr, np.array([-1.0, 0.0, 0.2, 1.0, 5.0]), dtype=dtype)
    check(sp.rel_entr, ss.rel_entr, p, q, dtype=dtype)
    check(sp.kl_div, ss.kl_div, p, q, dtype=dtype)
    check(sp.erf, ss.erf, x / 5, dtype=dtype)
    check(sp.erfinv, ss.erfinv, 2 * u - 1, dtype=dtype,
          rtol=2e-5 if dtype == np.float32 else 1e-9)
    # integer arguments promote to the default float
    assert np.asarray(sp.xlogy(2, 3)).dtype == jnp.asarray(1.0).dtype
    assert np.asarray(sp.expit(np.arange(3))).dtype == jnp.asarray(1.0).dtype


def test_logistic_and_xlogy_grads():
    x = np.linspace(-4, 4, 9)
    grad_check(sp.expit, ss.expit, x)
    grad_check(sp.logit, ss.logit, np.linspace(0.05, 0.95, 7))
    y = np.array([0.5, 1.0, 2.0, 3.0])
    xs = np.array([0.3, 1.0, 2.0, 0.5])
    grad_check(sp.xlogy, ss.xlogy, xs, args=(y,))
    grad_check(sp.xlogy, ss.xlogy, y, argnum=1, args=(xs,))
    grad_check(sp.xlog1py, ss.xlog1py, xs, args=(y,))
    grad_check(sp.xlog1py, ss.xlog1py, y, argnum=1, args=(xs,))
    grad_check(sp.entr, ss.entr, np.array([0.2, 1.0, 3.0]))
    grad_check(sp.rel_entr, ss.rel_entr, xs, args=(y,))
    grad_check(sp.kl_div, ss.kl_div, y, argnum=1, args=(xs,))
    # JAX's custom derivatives at x = 0: d/dx = log(y), log1p(y), d/dy = 0
    with _precision(np.float64):
        gx, gy = strata.grad(lambda a, b: sp.xlogy(a, b), argnums=(0, 1))(0.0, 2.0)
        assert float(gx) == pytest.approx(math.log(2.0)) and float(gy) == 0.0
        gx, gy = strata.grad(lambda a, b: sp.xlog1py(a, b), argnums=(0, 1))(0.0, 2.0)
        assert float(gx) == pytest.approx(math.log(3.0)) and float(gy) == 0.0


def test_elementwise_vmap_and_jit():
    x = RNG.rand(4, 3).astype(np.float32) + 0.1
    y = RNG.rand(4, 3).astype(np.float32) + 0.1
    for f in (sp.xlogy, sp.kl_div, sp.rel_entr):
        per = np.stack([np.asarray(f(a, b)) for a, b in zip(x, y)])
        np.testing.assert_allclose(np.asarray(strata.vmap(f)(x, y)), per, rtol=1e-5)
        np.testing.assert_allclose(np.asarray(strata.jit(f)(x, y)), np.asarray(f(x, y)),
                                   rtol=1e-5)
    for f in (sp.exp1, sp.expi, sp.spence, sp.expit, sp.entr):
        per = np.stack([np.asarray(f(a)) for a in x])
        np.testing.assert_allclose(np.asarray(strata.vmap(f)(x)), per, rtol=1e-5)
        np.testing.assert_allclose(np.asarray(strata.jit(f)(x)), np.asarray(f(x)), rtol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_exponential_integrals_and_spence(dtype):
    x = np.concatenate([np.linspace(0.01, 3, 40), np.linspace(3, 70, 40)])
    loose = dict(rtol=2e-5 if dtype == np.float32 else 1e-12)
    check(sp.exp1, ss.exp1, x, dtype=dtype, **loose)
    check(sp.expi, ss.expi, x, dtype=dtype, **loose)
    check(sp.expi, ss.expi, -x[:60], dtype=dtype, **loose)
    check(sp.spence, ss.spence, np.concatenate([[0.0, 1.0], x]), dtype=dtype, atol=1e-7
          if dtype == np.float32 else 1e-15, **loose)
    with _precision(dtype):
        edge = np.asarray(sp.exp1(np.array([0.0, -1.0], dtype)))
        assert edge[0] == np.inf and np.isnan(edge[1])
        assert float(sp.expi(dtype(0.0))) == -np.inf
        assert np.isnan(float(sp.spence(dtype(-1.0))))
    # expi's sign change near 0.3725 is where its relative error is largest
    check(sp.expi, ss.expi, np.array([0.37, 0.38]), dtype=dtype,
          rtol=1e-3 if dtype == np.float32 else 1e-10)


def test_exponential_integral_grads():
    x = np.array([0.3, 1.5, 2.5, 7.0, 30.0])
    grad_check(sp.exp1, ss.exp1, x, rtol=1e-6)
    grad_check(sp.expi, ss.expi, x[:4], rtol=1e-6)
    grad_check(sp.expi, ss.expi, -x, rtol=1e-6)
    grad_check(sp.spence, ss.spence, np.array([0.2, 0.7, 1.3, 4.0]), rtol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_bessel_jn(dtype):
    z = np.concatenate([np.linspace(-25, 25, 51), [1e-5, -3e-5, 0.0, 1e-3]])
    f32 = dtype == np.float32
    check(lambda z: sp.bessel_jn(z, v=5), lambda z: np.stack([ss.jv(n, z) for n in range(6)]),
          z, dtype=dtype, rtol=0, atol=5e-7 if f32 else 1e-11)
    # fewer iterations suffice for smaller |z| (JAX's rule of thumb); any shape of z
    check(lambda z: sp.bessel_jn(z, v=0, n_iter=30), lambda z: ss.jv(0, z)[None],
          np.linspace(-10, 10, 12).reshape(3, 4), dtype=dtype, rtol=0,
          atol=5e-7 if f32 else 1e-11)
    grad_check(lambda z: sp.bessel_jn(z, v=3)[2], lambda z: ss.jv(2, z),
               np.array([-4.0, 0.3, 1.3, 7.0]))
    z32 = np.linspace(0.5, 9, 8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_allclose(np.asarray(strata.jit(lambda z: sp.bessel_jn(z, v=2))(z32)),
                               np.asarray(sp.bessel_jn(z32, v=2)), rtol=1e-5, atol=1e-7)
    with pytest.raises(ValueError):
        sp.bessel_jn(1.0, v=-1)
    with pytest.raises(TypeError):
        sp.bessel_jn(1.0, v=1.5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_legendre(dtype):
    z = np.linspace(-0.95, 0.95, 9)
    f32 = dtype == np.float32
    tol = dict(rtol=1e-5 if f32 else 1e-12, atol=1e-5 if f32 else 1e-12)
    for k in (0, 1):
        check(lambda z: sp.lpmn(3, 5, z)[k],
              lambda z: np.stack([ss.lpmn(3, 5, t)[k] for t in z], axis=-1), z, dtype=dtype,
              **tol)
    check(lambda z: sp.lpmn_values(2, 2, z, False),
          lambda z: np.stack([ss.lpmn(2, 2, t)[0] for t in z], axis=-1), z, dtype=dtype, **tol)

    def normalized(z):  # Y_l^k(theta, 0) = normalized P_l^k(cos theta)
        out = np.zeros((4, 6) + z.shape)
        for k in range(4):
            for ll in range(k, 6):
                out[k, ll] = np.real(ss.sph_harm(k, ll, 0.0, np.arccos(z)))
        return out
    check(lambda z: sp.lpmn_values(3, 5, z, True), normalized, z, dtype=dtype, **tol)
    grad_check(lambda z: sp.lpmn_values(2, 4, z, False)[1, 3],
               lambda z: np.array([ss.lpmn(2, 4, t)[0][1, 3] for t in z]), z[1:-1])
    with pytest.raises(ValueError):
        sp.lpmn(-1, 2, z)


def test_bernoulli_numbers():
    for n in (0, 1, 6, 20):
        np.testing.assert_allclose(np.asarray(sp.bernoulli(n)), ss.bernoulli(n), rtol=1e-6)
    with pytest.raises(ValueError):
        sp.bernoulli(-1)
    with pytest.raises(TypeError):
        sp.bernoulli(2.5)


def test_argument_errors():
    with pytest.raises(ValueError, match="integer"):
        sp.polygamma(1.0, 2.0)
    with pytest.raises(TypeError, match="float32 or float64"):
        sp.ndtr(np.arange(3))
    with pytest.raises(TypeError, match="float32 or float64"):
        sp.ndtri(np.array([1, 2]))
    with pytest.raises(ValueError, match="series_order"):
        sp.log_ndtr(np.float32(1.0), series_order=31)
    with pytest.raises(TypeError, match="series_order"):
        sp.log_ndtr(np.float32(1.0), series_order=2.0)
    with pytest.raises(NotImplementedError):
        sp.zeta(2.0)
    with pytest.raises(NotImplementedError):
        sp.factorial(3, exact=True)
    with pytest.raises(TypeError, match="concrete"):
        strata.jit(lambda d: sp.multigammaln(3.0, d))(2)
    with pytest.raises(ValueError, match="axis"):
        sp.logsumexp(np.ones(3), axis=2)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gammasgn(dtype):
    x = np.array([-2.5, -1.5, -0.5, 0.5, 3.0, 1e-3, -7.2])
    check(sp.gammasgn, ss.gammasgn, x, dtype=dtype)
    # JAX's (and scipy >= 1.15's) conventions at the poles: +-1 at +-0, NaN at the negative
    # integers and NaN (scipy 1.10 here returns 0 there)
    with _precision(dtype):
        got = np.asarray(sp.gammasgn(np.array([0.0, -0.0, -1.0, -4.0, np.nan], dtype)))
    np.testing.assert_array_equal(got, [1.0, -1.0, np.nan, np.nan, np.nan])


# ---- special: functions on the new primitives ---------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_gamma_family_values(dtype):
    x = np.concatenate([np.linspace(0.05, 30, 40), -np.array([0.5, 1.5, 2.3, 7.7])])
    tol = dict(rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5 if dtype == np.float32
               else 1e-12)
    check(sp.gammaln, ss.gammaln, x, dtype=dtype, **tol)
    check(sp.gamma, ss.gamma, x[x < 25], dtype=dtype, rtol=1e-4 if dtype == np.float32
          else 1e-11)
    check(sp.digamma, ss.digamma, x, dtype=dtype, **tol)
    a, b = np.linspace(0.3, 12, 9), np.linspace(0.7, 5, 9)
    check(sp.betaln, ss.betaln, a, b, dtype=dtype, **tol)
    check(sp.beta, ss.beta, a, b, dtype=dtype, rtol=1e-4 if dtype == np.float32 else 1e-11)
    check(lambda a: sp.multigammaln(a, 3), lambda a: ss.multigammaln(a, 3) + 0 * a,
          np.linspace(1.5, 9, 6), dtype=dtype, **tol)
    check(sp.factorial, ss.factorial, np.array([0.0, 1.0, 4.0, 10.0, 2.5]), dtype=dtype,
          rtol=1e-5 if dtype == np.float32 else 1e-12)
    check(sp.poch, ss.poch, np.array([0.5, 2.0, 3.3, 7.0]), np.array([0.0, 1.5, 2.0, 3.0]),
          dtype=dtype, rtol=1e-5 if dtype == np.float32 else 1e-11)
    with _precision(dtype):
        edge = np.asarray(sp.gamma(np.array([0.0, -0.0, -1.0, -3.0], dtype)))
    assert edge[0] == np.inf and edge[1] == -np.inf and np.isnan(edge[2:]).all()
    assert float(sp.factorial(dtype(-1.0))) == 0.0


def test_gamma_family_grads():
    x = np.array([0.4, 1.3, 4.0, 11.0])
    grad_check(sp.gammaln, ss.gammaln, x)
    grad_check(sp.gamma, ss.gamma, x[:3], rtol=1e-6)  # gamma(11) would swamp the differences
    grad_check(sp.digamma, ss.digamma, x, rtol=1e-6)
    grad_check(sp.betaln, ss.betaln, x, args=(np.array([0.7, 2.0, 3.0, 0.5]),))
    grad_check(sp.beta, ss.beta, x, argnum=1, args=(np.array([0.7, 2.0, 3.0, 0.5]),))
    grad_check(lambda a: sp.multigammaln(a, 4), lambda a: np.array([ss.multigammaln(v, 4)
                                                                    for v in a]), x + 2)


@pytest.mark.parametrize("dtype", DTYPES)
def test_polygamma_and_zeta(dtype):
    x = np.linspace(0.3, 15, 12)
    tol = dict(rtol=1e-4 if dtype == np.float32 else 1e-10, atol=1e-6 if dtype ==
               np.float32 else 1e-12)
    for n in (0, 1, 2, 4):
        check(lambda x: sp.polygamma(n, x), lambda x: ss.polygamma(n, x), x, dtype=dtype, **tol)
    check(lambda x: sp.polygamma(np.array([0, 1, 2, 3] * 3), x),
          lambda x: ss.polygamma(np.array([0, 1, 2, 3] * 3), x), x, dtype=dtype, **tol)
    s = np.linspace(1.5, 8, 12)
    check(sp.zeta, ss.zeta, s, x, dtype=dtype, **tol)
    grad_check(lambda x: sp.polygamma(1, x), lambda x: ss.polygamma(1, x), x[:4], rtol=1e-6)
    grad_check(lambda q: sp.zeta(3.0, q), lambda q: ss.zeta(3.0, q), x[:4], rtol=1e-6)
    # in s through the Euler-Maclaurin series (the primitive has no derivative there)
    grad_check(lambda s: sp.zeta(s, 1.7), lambda s: ss.zeta(s, 1.7), s[:5], rtol=1e-7)
    grad_check(lambda s: sp.zeta(s, 0.4), lambda s: ss.zeta(s, 0.4), s[:5], rtol=1e-7)
    f = strata.jit(strata.vmap(lambda s, q: strata.grad(sp.zeta)(s, q)))
    s32, q32 = s[:4].astype(np.float32), x[:4].astype(np.float32)
    fd = np.array([numerical_grad(lambda v: ss.zeta(v, b), a) for a, b in zip(s[:4], q32)])
    np.testing.assert_allclose(np.asarray(f(s32, q32)), fd, rtol=1e-4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_incomplete_gamma(dtype):
    a = np.array([0.3, 1.0, 2.5, 7.0, 20.0, 0.8])
    x = np.array([0.1, 1.0, 3.0, 5.0, 25.0, 8.0])
    tol = dict(rtol=1e-5 if dtype == np.float32 else 1e-10, atol=1e-6 if dtype ==
               np.float32 else 1e-13)
    check(sp.gammainc, ss.gammainc, a, x, dtype=dtype, **tol)
    check(sp.gammaincc, ss.gammaincc, a, x, dtype=dtype, **tol)
    grad_check(lambda x: sp.gammainc(a, x), lambda x: ss.gammainc(a, x), x, rtol=1e-6)
    grad_check(lambda x: sp.gammaincc(a, x), lambda x: ss.gammaincc(a, x), x, rtol=1e-6)
    grad_check(lambda a: sp.gammainc(a, x), lambda a: ss.gammainc(a, x), a, rtol=1e-5,
               atol=1e-7)


@pytest.mark.parametrize("dtype", DTYPES)
def test_betainc(dtype):
    a = np.array([0.5, 1.0, 2.0, 5.0, 0.7])
    b = np.array([0.5, 3.0, 2.0, 1.5, 9.0])
    x = np.array([0.1, 0.5, 0.3, 0.9, 0.05])
    check(sp.betainc, ss.betainc, a, b, x, dtype=dtype,
          rtol=1e-5 if dtype == np.float32 else 1e-10, atol=1e-7 if dtype == np.float32
          else 1e-14)
    grad_check(lambda x: sp.betainc(a, b, x), lambda x: ss.betainc(a, b, x), x, rtol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_bessel(dtype):
    x = np.linspace(-20, 20, 41)
    tol = dict(rtol=1e-5 if dtype == np.float32 else 1e-12)
    check(sp.i0e, ss.i0e, x, dtype=dtype, **tol)
    check(sp.i1e, ss.i1e, x, dtype=dtype, **tol)
    check(sp.i0, ss.i0, x, dtype=dtype, **tol)
    check(sp.i1, ss.i1, x, dtype=dtype, **tol)
    xs = np.array([-3.0, -0.5, 0.4, 2.0, 6.0])
    for f, o in ((sp.i0, ss.i0), (sp.i0e, ss.i0e), (sp.i1, ss.i1), (sp.i1e, ss.i1e)):
        grad_check(f, o, xs, rtol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_normal_functions(dtype):
    x = np.concatenate([np.linspace(-40, 40, 81), [-7.3, -3.1, 0.2, 6.5]])
    f32 = dtype == np.float32
    check(sp.erfc, ss.erfc, x / 3, dtype=dtype, rtol=1e-5 if f32 else 1e-12, atol=0)
    check(sp.ndtr, ss.ndtr, x, dtype=dtype, rtol=1e-5 if f32 else 1e-12, atol=0)
    # below -20 (float64) the series of series_order=3 terms is good to about 1e-11 (as JAX)
    check(sp.log_ndtr, ss.log_ndtr, x, dtype=dtype, rtol=1e-5 if f32 else 1e-10, atol=0)
    check(lambda x: sp.log_ndtr(x, series_order=8), ss.log_ndtr, x, dtype=dtype,
          rtol=1e-5 if f32 else 1e-12, atol=0)
    p = np.concatenate([np.logspace(-30 if f32 else -300, -1, 40),
                        np.linspace(0.1, 0.9, 17), 1 - np.logspace(-7 if f32 else -15, -1, 20)])
    check(sp.ndtri, ss.ndtri, p, dtype=dtype, rtol=2e-5 if f32 else 1e-12, atol=0)
    with _precision(dtype):
        edge = np.asarray(sp.ndtri(np.array([0.0, 1.0, -0.1, 1.5], dtype)))
    assert edge[0] == -np.inf and edge[1] == np.inf and np.isnan(edge[2:]).all()


def test_normal_function_grads_vmap_jit():
    x = np.array([-30.0, -12.0, -3.0, 0.5, 4.0, 9.0])
    grad_check(sp.ndtr, ss.ndtr, x[2:], rtol=1e-6)
    for v in x:  # one at a time: log_ndtr(-30) would swamp the differences of the others
        grad_check(sp.log_ndtr, ss.log_ndtr, v, rtol=1e-6, atol=1e-20)
    grad_check(sp.ndtri, ss.ndtri, np.array([1e-3, 0.01, 0.3, 0.5, 0.97]), rtol=1e-5)
    grad_check(sp.erfc, ss.erfc, x[2:] / 3, rtol=1e-6)
    x32 = np.linspace(-15, 10, 12, dtype=np.float32).reshape(3, 4)
    for f in (sp.ndtr, sp.log_ndtr):
        per = np.stack([np.asarray(f(r)) for r in x32])
        np.testing.assert_allclose(np.asarray(strata.vmap(f)(x32)), per, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(strata.jit(f)(x32)), np.asarray(f(x32)),
                                   rtol=1e-6)
    p32 = np.linspace(0.01, 0.99, 12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose(np.asarray(strata.jit(strata.vmap(sp.ndtri))(p32)),
                               ss.ndtri(p32.astype(np.float64)), rtol=2e-5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_expn(dtype):
    x = np.concatenate([np.linspace(0.01, 1, 15), np.linspace(1.2, 40, 15)])
    for n in (0, 1, 2, 3, 7):
        check(lambda x: sp.expn(n, x), lambda x: ss.expn(n, x), x, dtype=dtype,
              rtol=5e-5 if dtype == np.float32 else 1e-11)
    with _precision(dtype):
        edge = np.asarray(sp.expn(np.array([1, 2, 3, -1]), np.array([0.0, 0.0, 0.0, 1.0],
                                                                     dtype)))
    np.testing.assert_allclose(edge[:3], [np.inf, 1.0, 0.5])
    assert np.isnan(edge[3])
    grad_check(lambda x: sp.expn(3, x), lambda x: ss.expn(3, x), np.array([0.3, 2.0, 9.0]),
               rtol=1e-6)


# ---- stats --------------------------------------------------------------------------------------

def _stats_check(mod, oracle, names, x, *params, dtype, rtol=None, atol=None):
    for name in names:
        check(lambda *a: getattr(mod, name)(*a), lambda *a: getattr(oracle, name)(*a), x,
              *params, dtype=dtype, rtol=rtol, atol=atol)


X = np.concatenate([np.linspace(-6, 6, 25), [-30.0, 15.0]])
Q = np.array([1e-6, 0.01, 0.2, 0.5, 0.75, 0.999])


@pytest.mark.parametrize("dtype", DTYPES)
def test_norm(dtype):
    f32 = dtype == np.float32
    tol = dict(rtol=2e-5 if f32 else 1e-12, atol=0)
    loc, scale = np.float64(0.5), np.float64(2.0)
    _stats_check(S.norm, st.norm, ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"], X, loc,
                 scale, dtype=dtype, **tol)
    _stats_check(S.norm, st.norm, ["ppf", "isf"], Q, loc, scale, dtype=dtype, **tol)
    check(S.norm.logpdf, st.norm.logpdf, X, dtype=dtype, **tol)  # default loc and scale
    grad_check(S.norm.logcdf, st.norm.logcdf, np.array([-25.0, -2.0, 0.0, 3.0]), rtol=1e-6)
    grad_check(lambda s: S.norm.logpdf(X[:5], 0.3, s), lambda s: st.norm.logpdf(X[:5], 0.3, s),
               np.float64(1.7))
    grad_check(lambda q: S.norm.ppf(q, 1.0, 2.0), lambda q: st.norm.ppf(q, 1.0, 2.0), Q[1:5],
               rtol=1e-6)
    grad_check(lambda x: S.norm.sf(x, 1.0, 2.0), lambda x: st.norm.sf(x, 1.0, 2.0), X[::4],
               rtol=1e-6, atol=1e-10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_location_scale_families(dtype):
    f32 = dtype == np.float32
    tol = dict(rtol=2e-5 if f32 else 1e-11, atol=1e-7 if f32 else 1e-14)
    ls = (np.float64(0.5), np.float64(2.0))
    x = X[:25]
    _stats_check(S.uniform, st.uniform, ["logpdf", "pdf", "cdf"], x, *ls, dtype=dtype, **tol)
    _stats_check(S.uniform, st.uniform, ["ppf"], Q, *ls, dtype=dtype, **tol)
    _stats_check(S.expon, st.expon, ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"], x, *ls,
                 dtype=dtype, **tol)
    _stats_check(S.expon, st.expon, ["ppf"], Q, *ls, dtype=dtype, **tol)
    _stats_check(S.laplace, st.laplace, ["logpdf", "pdf", "cdf"], x, *ls, dtype=dtype, **tol)
    _stats_check(S.logistic, st.logistic, ["logpdf", "pdf", "cdf", "sf"], x, *ls, dtype=dtype,
                 **tol)
    _stats_check(S.logistic, st.logistic, ["ppf", "isf"], Q, *ls, dtype=dtype, **tol)
    _stats_check(S.cauchy, st.cauchy, ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"], X,
                 *ls, dtype=dtype, **tol)
    _stats_check(S.cauchy, st.cauchy, ["ppf", "isf"], Q[1:], *ls, dtype=dtype,
                 rtol=1e-4 if f32 else 1e-10)
    _stats_check(S.pareto, st.pareto, ["logpdf", "pdf"], x + 4, np.float64(2.5), *ls,
                 dtype=dtype, **tol)


def test_location_scale_grads():
    x = np.array([-2.0, -0.3, 0.7, 1.1, 3.0])
    for mod, o in ((S.expon, st.expon), (S.laplace, st.laplace), (S.logistic, st.logistic),
                   (S.cauchy, st.cauchy)):
        grad_check(lambda v: mod.logpdf(v, -3.0, 1.5), lambda v: o.logpdf(v, -3.0, 1.5), x)
        grad_check(lambda s: mod.logpdf(x, -3.0, s), lambda s: o.logpdf(x, -3.0, s),
                   np.float64(1.5))
        grad_check(lambda v: mod.cdf(v, -3.0, 1.5), lambda v: o.cdf(v, -3.0, 1.5), x,
                   atol=1e-9)
    grad_check(lambda q: S.logistic.ppf(q, 1.0, 2.0), lambda q: st.logistic.ppf(q, 1.0, 2.0),
               Q[1:5])
    grad_check(lambda b: S.pareto.logpdf(x + 6, b, 0.5, 2.0),
               lambda b: st.pareto.logpdf(x + 6, b, 0.5, 2.0), np.float64(2.5))


def test_mvn_and_location_scale_vmap_jit():
    xs = RNG.randn(6, 3).astype(np.float32)
    A = RNG.randn(3, 3)
    cov = (A @ A.T + 2 * np.eye(3)).astype(np.float32)
    mean = RNG.randn(3).astype(np.float32)
    f = strata.jit(strata.vmap(lambda x: S.multivariate_normal.logpdf(x, mean, cov)))
    np.testing.assert_allclose(np.asarray(f(xs)), st.multivariate_normal.logpdf(xs, mean, cov),
                               rtol=1e-5)
    g = strata.vmap(S.cauchy.logpdf, in_axes=(0, None, None))
    np.testing.assert_allclose(np.asarray(g(xs, 0.5, 2.0)), st.cauchy.logpdf(xs, 0.5, 2.0),
                               rtol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_multivariate_normal(dtype):
    f32 = dtype == np.float32
    n = 4
    A = RNG.randn(n, n)
    cov = A @ A.T + n * np.eye(n)
    mean = RNG.randn(n)
    xs = RNG.randn(7, n)
    tol = dict(rtol=2e-5 if f32 else 1e-11)
    check(lambda x, m, c: S.multivariate_normal.logpdf(x, m, c),
          lambda x, m, c: st.multivariate_normal.logpdf(x, m, c), xs, mean, cov, dtype=dtype,
          **tol)
    check(lambda x, m, c: S.multivariate_normal.pdf(x, m, c),
          lambda x, m, c: st.multivariate_normal.pdf(x, m, c), xs, mean, cov, dtype=dtype,
          **tol)
    # batched covariances broadcast against x
    covs = np.stack([cov, 2 * cov + np.eye(n)])
    with _precision(dtype):
        got = np.asarray(S.multivariate_normal.logpdf(xs[:2].astype(dtype), mean.astype(dtype),
                                                      covs.astype(dtype)))
    want = [st.multivariate_normal.logpdf(xs[i], mean, covs[i]) for i in range(2)]
    np.testing.assert_allclose(got, want, **tol)
    # a scalar covariance is that times the identity; a scalar mean is univariate
    check(lambda x, m: S.multivariate_normal.logpdf(x, m, 2.5),
          lambda x, m: st.multivariate_normal.logpdf(x, m, 2.5 * np.eye(n)), xs, mean,
          dtype=dtype, **tol)
    check(lambda x: S.multivariate_normal.logpdf(x, 0.3, 2.5),
          lambda x: st.norm.logpdf(x, 0.3, math.sqrt(2.5)), xs[:, 0], dtype=dtype, **tol)
    with pytest.raises(ValueError, match="incompatible shapes"):
        S.multivariate_normal.logpdf(xs, mean, np.eye(3))
    with pytest.raises(NotImplementedError):
        S.multivariate_normal.logpdf(xs, mean, cov, allow_singular=True)


def test_multivariate_normal_grads():
    n = 3
    A = RNG.randn(n, n)
    cov = A @ A.T + n * np.eye(n)
    mean = RNG.randn(n)
    xs = RNG.randn(4, n)
    grad_check(lambda x: S.multivariate_normal.logpdf(x, mean, cov),
               lambda x: st.multivariate_normal.logpdf(x, mean, cov), xs)
    grad_check(lambda m: S.multivariate_normal.logpdf(xs, m, cov),
               lambda m: st.multivariate_normal.logpdf(xs, m, cov), mean)
    # d/dcov of the symmetric parametrization (cov + cov.T) / 2
    grad_check(lambda c: S.multivariate_normal.logpdf(xs, mean, (c + c.T) / 2),
               lambda c: st.multivariate_normal.logpdf(xs, mean, (c + c.T) / 2), cov,
               rtol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_t_gamma_chi2_dirichlet_densities(dtype):
    f32 = dtype == np.float32
    tol = dict(rtol=2e-5 if f32 else 1e-11, atol=1e-7 if f32 else 1e-14)
    _stats_check(S.t, st.t, ["logpdf", "pdf"], X[:25], np.float64(3.5), np.float64(0.5),
                 np.float64(2.0), dtype=dtype, **tol)
    x = np.linspace(-1, 12, 27)
    _stats_check(S.gamma, st.gamma, ["logpdf", "pdf"], x, np.float64(2.5), np.float64(0.5),
                 np.float64(1.5), dtype=dtype, **tol)
    _stats_check(S.chi2, st.chi2, ["logpdf", "pdf"], x, np.float64(3.0), np.float64(-0.5),
                 np.float64(1.5), dtype=dtype, **tol)
    alpha = np.array([1.5, 2.0, 3.5])
    xx = RNG.dirichlet(alpha, size=5).T
    # scipy insists on an exact simplex: the oracle takes the float64 points
    with _precision(dtype):
        got = np.asarray(S.dirichlet.logpdf(xx.astype(dtype), alpha.astype(dtype)))
        got_pdf = np.asarray(S.dirichlet.pdf(xx[:2].astype(dtype), alpha.astype(dtype)))
    assert got.dtype == dtype and got_pdf.dtype == dtype
    np.testing.assert_allclose(got, st.dirichlet.logpdf(xx, alpha), rtol=1e-4 if f32 else 1e-11)
    np.testing.assert_allclose(got_pdf, st.dirichlet.pdf(xx, alpha), rtol=1e-4 if f32 else 1e-11)
    with _precision(dtype):
        off = float(S.dirichlet.logpdf(np.array([0.5, 0.6, 0.1], dtype), alpha.astype(dtype)))
    assert off == -np.inf
    with pytest.raises(ValueError, match="alpha"):
        S.dirichlet.logpdf(xx, alpha[None])
    with pytest.raises(ValueError, match="entries"):
        S.dirichlet.logpdf(xx[:1], alpha)


def test_density_grads_in_shape_parameters():
    x = np.array([0.4, 1.0, 2.5, 6.0])
    grad_check(lambda d: S.t.logpdf(x, d, 0.5, 2.0), lambda d: st.t.logpdf(x, d, 0.5, 2.0),
               np.float64(3.5))
    grad_check(lambda a: S.gamma.logpdf(x, a, 0.1, 1.5),
               lambda a: st.gamma.logpdf(x, a, 0.1, 1.5), np.float64(2.5))
    grad_check(lambda v: S.chi2.logpdf(v, 3.0), lambda v: st.chi2.logpdf(v, 3.0), x)
    alpha = np.array([1.5, 2.0, 3.5])
    xx = RNG.dirichlet(alpha, size=3).T
    grad_check(lambda a: S.dirichlet.logpdf(xx, a), lambda a: st.dirichlet.logpdf(xx, a),
               alpha)
    grad_check(lambda mu: S.poisson.logpmf(np.array([0.0, 2.0, 5.0]), mu),
               lambda mu: st.poisson.logpmf(np.array([0.0, 2.0, 5.0]), mu), np.float64(2.3))
    grad_check(lambda p: S.binom.logpmf(np.array([0.0, 2.0, 5.0]), 7.0, p),
               lambda p: st.binom.logpmf(np.array([0.0, 2.0, 5.0]), 7.0, p), np.float64(0.3))


@pytest.mark.parametrize("dtype", DTYPES)
def test_gamma_chi2_poisson_cdfs(dtype):
    f32 = dtype == np.float32
    tol = dict(rtol=2e-5 if f32 else 1e-10, atol=1e-7 if f32 else 1e-14)
    x = np.linspace(-1, 12, 27)
    _stats_check(S.gamma, st.gamma, ["cdf", "logcdf", "sf", "logsf"], x[3:], np.float64(2.5),
                 np.float64(0.5), np.float64(1.5), dtype=dtype, **tol)
    _stats_check(S.chi2, st.chi2, ["cdf", "sf"], x, np.float64(3.0), np.float64(-0.5),
                 np.float64(1.5), dtype=dtype, **tol)
    k = np.array([-1.0, 0.0, 1.0, 2.0, 3.5, 7.0, 12.0])
    _stats_check(S.poisson, st.poisson, ["logpmf", "pmf", "cdf"], k, np.float64(3.2),
                 dtype=dtype, **tol)
    _stats_check(S.poisson, st.poisson, ["logpmf", "cdf"], k, np.float64(3.2), np.float64(1.0),
                 dtype=dtype, **tol)
    grad_check(lambda v: S.gamma.cdf(v, 2.5), lambda v: st.gamma.cdf(v, 2.5),
               np.array([0.5, 2.0, 4.0]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_beta_distribution(dtype):
    f32 = dtype == np.float32
    tol = dict(rtol=2e-5 if f32 else 1e-10, atol=1e-7 if f32 else 1e-14)
    x = np.linspace(-0.2, 2.2, 23)  # no point at the support's ends (float32 rounding there)
    params = (np.float64(2.5), np.float64(1.7), np.float64(0.1), np.float64(2.0))
    _stats_check(S.beta, st.beta, ["logpdf", "pdf", "cdf", "sf"], x, *params, dtype=dtype,
                 **tol)
    _stats_check(S.beta, st.beta, ["logcdf", "logsf"], x[3:-3], *params, dtype=dtype, **tol)
    grad_check(lambda v: S.beta.logpdf(v, 2.5, 1.7), lambda v: st.beta.logpdf(v, 2.5, 1.7),
               np.array([0.2, 0.5, 0.9]))
    grad_check(lambda v: S.beta.cdf(v, 2.5, 1.7), lambda v: st.beta.cdf(v, 2.5, 1.7),
               np.array([0.2, 0.5, 0.9]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_discrete_distributions(dtype):
    f32 = dtype == np.float32
    tol = dict(rtol=2e-5 if f32 else 1e-11, atol=1e-7 if f32 else 1e-14)
    k = np.array([-1.0, 0.0, 1.0, 2.0, 2.5, 4.0, 7.0, 11.0])
    _stats_check(S.binom, st.binom, ["logpmf", "pmf"], k, np.float64(7.0), np.float64(0.35),
                 dtype=dtype, **tol)
    _stats_check(S.geom, st.geom, ["logpmf", "pmf"], k, np.float64(0.35), dtype=dtype, **tol)
    _stats_check(S.geom, st.geom, ["logpmf"], k, np.float64(0.35), np.float64(-1.0),
                 dtype=dtype, **tol)
    _stats_check(S.bernoulli, st.bernoulli, ["logpmf", "pmf", "cdf"], k, np.float64(0.35),
                 dtype=dtype, **tol)
    check(S.bernoulli.ppf, st.bernoulli.ppf, Q, np.float64(0.35), dtype=dtype, **tol)
    with _precision(dtype):
        assert np.isnan(float(S.bernoulli.cdf(dtype(1.0), dtype(1.5))))
    grad_check(lambda p: S.geom.logpmf(np.array([1.0, 3.0]), p),
               lambda p: st.geom.logpmf(np.array([1.0, 3.0]), p), np.float64(0.35))
    grad_check(lambda p: S.bernoulli.logpmf(np.array([0.0, 1.0]), p),
               lambda p: st.bernoulli.logpmf(np.array([0.0, 1.0]), p), np.float64(0.35))


@pytest.mark.parametrize("dtype", DTYPES)
def test_truncnorm(dtype):
    f32 = dtype == np.float32
    tol = dict(rtol=5e-5 if f32 else 1e-10, atol=1e-7 if f32 else 1e-14)
    x = np.linspace(-4, 14, 30)
    for a, b in ((-1.0, 2.0), (0.5, 3.0), (-30.0, -2.0), (-np.inf, 1.0)):
        _stats_check(S.truncnorm, st.truncnorm, ["logpdf", "pdf", "cdf", "sf"], x,
                     np.float64(a), np.float64(b), np.float64(1.0), np.float64(2.0),
                     dtype=dtype, **tol)
    inside = np.linspace(0.0, 6.5, 9)
    _stats_check(S.truncnorm, st.truncnorm, ["logcdf", "logsf"], inside, np.float64(-1.0),
                 np.float64(3.0), np.float64(1.0), np.float64(2.0), dtype=dtype, **tol)
    grad_check(lambda v: S.truncnorm.logpdf(v, -1.0, 2.0, 1.0, 2.0),
               lambda v: st.truncnorm.logpdf(v, -1.0, 2.0, 1.0, 2.0), inside[1:6])
    grad_check(lambda a: S.truncnorm.logpdf(inside[2:5], a, 2.0, 1.0, 2.0),
               lambda a: st.truncnorm.logpdf(inside[2:5], a, 2.0, 1.0, 2.0), np.float64(-1.0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_gumbel(dtype):
    f32 = dtype == np.float32
    tol = dict(rtol=2e-5 if f32 else 1e-11, atol=1e-7 if f32 else 1e-14)
    x = np.linspace(-3, 6, 19)
    names = ["logpdf", "pdf", "logcdf", "cdf", "sf", "logsf"]
    for mod, o in ((S.gumbel_r, st.gumbel_r), (S.gumbel_l, st.gumbel_l)):
        _stats_check(mod, o, names, x, np.float64(0.5), np.float64(2.0), dtype=dtype, **tol)
        _stats_check(mod, o, ["ppf"], Q[1:], np.float64(0.5), np.float64(2.0), dtype=dtype,
                     **tol)
        grad_check(lambda v: mod.logpdf(v, 0.5, 2.0), lambda v: o.logpdf(v, 0.5, 2.0), x[::3])
        grad_check(lambda s: mod.logcdf(x[::3], 0.5, s), lambda s: o.logcdf(x[::3], 0.5, s),
                   np.float64(2.0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_nbinom_betabinom_multinomial(dtype):
    f32 = dtype == np.float32
    tol = dict(rtol=5e-5 if f32 else 1e-10, atol=1e-7 if f32 else 1e-14)
    k = np.array([-1.0, 0.0, 1.0, 2.0, 2.5, 4.0, 7.0, 11.0])
    _stats_check(S.nbinom, st.nbinom, ["logpmf", "pmf"], k, np.float64(3.5), np.float64(0.4),
                 dtype=dtype, **tol)
    _stats_check(S.betabinom, st.betabinom, ["logpmf", "pmf"], k, np.float64(7.0),
                 np.float64(2.5), np.float64(1.5), dtype=dtype, **tol)
    p = np.array([0.2, 0.5, 0.3])
    xs = np.array([[1.0, 3.0, 2.0], [0.0, 6.0, 0.0], [2.0, 2.0, 1.0], [7.0, -1.0, 0.0]])
    check(lambda x, p: S.multinomial.logpmf(x, 6.0, p),
          lambda x, p: st.multinomial.logpmf(x, 6, p), xs, p, dtype=dtype, **tol)
    grad_check(lambda p: S.nbinom.logpmf(k[1:4], 3.5, p), lambda p: st.nbinom.logpmf(k[1:4],
                                                                                     3.5, p),
               np.float64(0.4))
    grad_check(lambda a: S.betabinom.logpmf(k[1:4], 7.0, a, 1.5),
               lambda a: st.betabinom.logpmf(k[1:4], 7.0, a, 1.5), np.float64(2.5))
    # scipy rejects p off the simplex, so the oracle of the derivative is the formula
    grad_check(lambda p: S.multinomial.logpmf(xs[:2], 6.0, p),
               lambda p: ss.gammaln(7.0) + np.sum(ss.xlogy(xs[:2], p) - ss.gammaln(xs[:2] + 1),
                                                  axis=-1), p)


@pytest.mark.parametrize("dtype", DTYPES)
def test_vonmises(dtype):
    f32 = dtype == np.float32
    x = np.linspace(-3, 3, 13)
    for kappa in (0.5, 3.0, 40.0):
        _stats_check(S.vonmises, st.vonmises, ["logpdf", "pdf"], x, np.float64(kappa),
                     dtype=dtype, rtol=2e-5 if f32 else 1e-11, atol=1e-7 if f32 else 1e-14)
    grad_check(lambda k: S.vonmises.logpdf(x, k), lambda k: st.vonmises.logpdf(x, k),
               np.float64(3.0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_comb_loggamma_erfcx_hyp1f1(dtype):
    f32 = dtype == np.float32
    tol = dict(rtol=2e-5 if f32 else 1e-12)
    n = np.array([5.0, 10.0, 3.0, 4.0, 7.5, 30.0])
    k = np.array([2.0, 3.0, 4.0, -1.0, 2.5, 11.0])
    check(sp.comb, ss.comb, n, k, dtype=dtype, rtol=1e-5 if f32 else 1e-11)
    check(lambda n, k: sp.comb(n, k, repetition=True),
          lambda n, k: ss.comb(n, k, repetition=True), n[:3], k[:3], dtype=dtype,
          rtol=1e-5 if f32 else 1e-11)
    with pytest.raises(NotImplementedError):
        sp.comb(5, 2, exact=True)
    x = np.array([0.3, 1.0, 4.5, 20.0, -0.5, -2.5])
    check(sp.loggamma, lambda x: np.real(ss.loggamma(x)) + np.where(x < 0, np.nan, 0), x,
          dtype=dtype, **tol)
    x = np.linspace(-5, 30, 36)
    check(sp.erfcx, ss.erfcx, x, dtype=dtype, rtol=5e-6 if f32 else 1e-13)
    grad_check(sp.erfcx, ss.erfcx, np.array([-1.0, 0.5, 3.0, 12.0]), rtol=1e-6)
    a = np.array([0.5, 1.0, 2.5, 3.0, 0.3])
    b = np.array([1.5, 2.0, 4.0, 1.2, 0.7])
    for xv in (0.3, 5.0, 20.0, 45.0, 60.0, -3.0, -20.0):
        check(lambda a, b: sp.hyp1f1(a, b, dtype(xv)), lambda a, b: ss.hyp1f1(a, b, xv), a, b,
              dtype=dtype, rtol=5e-6 if f32 else 1e-13)
    assert float(sp.hyp1f1(0.0, 0.0, 2.0)) == 1.0  # JAX's convention (scipy: inf)
    xs = np.array([0.3, 2.0, 7.0, -1.5, 9.0, 40.0, 70.0])
    with _precision(np.float64):  # d/dx 1F1(a; b; x) = a/b 1F1(a+1; b+1; x)
        g = strata.vmap(strata.grad(lambda a, b, x: sp.hyp1f1(a, b, x), argnums=2))(
            np.resize(a, 7), np.resize(b, 7), xs)
    np.testing.assert_allclose(np.asarray(g), np.resize(a / b, 7) *
                               ss.hyp1f1(np.resize(a, 7) + 1, np.resize(b, 7) + 1, xs),
                               rtol=1e-12)
    grad_check(lambda a: sp.hyp1f1(a, b, 2.0), lambda a: ss.hyp1f1(a, b, 2.0), a, rtol=1e-6)
    f = strata.jit(strata.vmap(lambda a: sp.hyp1f1(a, 2.0, 3.0)))
    np.testing.assert_allclose(np.asarray(f(a.astype(np.float32))), ss.hyp1f1(a, 2.0, 3.0),
                               rtol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sici(dtype):
    f32 = dtype == np.float32
    x = np.concatenate([-np.linspace(0.01, 40, 25), np.linspace(0.001, 80, 120)])
    for k in (0, 1):
        check(lambda x: sp.sici(x)[k], lambda x: ss.sici(x)[k], x, dtype=dtype,
              rtol=2e-6 if f32 else 1e-13, atol=1e-6 if f32 else 1e-15)
    with _precision(dtype):
        si, ci = sp.sici(dtype(0.0))
    assert float(si) == 0.0 and float(ci) == -np.inf
    xs = np.array([-3.0, 0.4, 1.9, 4.5, 17.0])
    grad_check(lambda x: sp.sici(x)[0], lambda x: ss.sici(x)[0], xs, rtol=1e-6)
    grad_check(lambda x: sp.sici(x)[1], lambda x: ss.sici(x)[1], xs, rtol=1e-6)
    x32 = np.linspace(0.5, 30, 8, dtype=np.float32).reshape(2, 4)
    got = strata.jit(strata.vmap(sp.sici))(x32)
    for k in (0, 1):
        np.testing.assert_allclose(np.asarray(got[k]), ss.sici(x32.astype(np.float64))[k],
                                   rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fresnel(dtype):
    f32 = dtype == np.float32
    x = np.concatenate([-np.linspace(0.01, 10, 20), [0.0], np.linspace(0.001, 20, 100)])
    for k in (0, 1):
        check(lambda x: sp.fresnel(x)[k], lambda x: ss.fresnel(x)[k], x, dtype=dtype,
              rtol=0, atol=2e-6 if f32 else 1e-14)
    xs = np.array([-2.0, 0.3, 1.2, 1.7, 3.3])
    grad_check(lambda x: sp.fresnel(x)[0], lambda x: ss.fresnel(x)[0], xs, rtol=1e-6)
    grad_check(lambda x: sp.fresnel(x)[1], lambda x: ss.fresnel(x)[1], xs, rtol=1e-6)
    x32 = np.linspace(0.2, 6, 8, dtype=np.float32).reshape(2, 4)
    got = strata.jit(strata.vmap(sp.fresnel))(x32)
    for k in (0, 1):
        np.testing.assert_allclose(np.asarray(got[k]), ss.fresnel(x32.astype(np.float64))[k],
                                   rtol=0, atol=2e-6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_owens_t(dtype):
    f32 = dtype == np.float32
    h = np.array([0.0, 0.3, -0.5, 1.0, 2.5, 5.0, -3.0, 8.0])
    for a in (0.0, 0.2, 1.0, -0.7, 1.5, 4.0, 30.0, -2.0):
        check(lambda h, a: sp.owens_t(h, a), ss.owens_t, h, np.float64(a), dtype=dtype,
              rtol=2e-5 if f32 else 1e-12, atol=0)
    grad_check(lambda h: sp.owens_t(h, 0.8), lambda h: ss.owens_t(h, 0.8), h[:5], rtol=1e-6)
    grad_check(lambda a: sp.owens_t(1.3, a), lambda a: ss.owens_t(1.3, a),
               np.array([0.3, 0.9, 2.0, -3.0]), rtol=1e-6)
    f = strata.jit(strata.vmap(sp.owens_t, in_axes=(0, None)))
    np.testing.assert_allclose(np.asarray(f(h.astype(np.float32), 1.5)), ss.owens_t(h, 1.5),
                               rtol=2e-5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_hyp2f1(dtype):
    f32 = dtype == np.float32
    a = np.array([0.5, 1.0, 2.3, -1.5, 0.7, 3.0])
    b = np.array([1.5, 2.0, 0.4, 2.0, 1.3, 1.0])
    c = np.array([2.5, 3.0, 4.1, 1.7, 2.0, 5.0])
    for xv in (0.0, 0.3, -0.4, -3.0, -20.0, 0.6, 0.9, 0.99, 1.0):
        # at x = 1 the 5th row (c = a + b) is ill-conditioned once rounded to float32
        rows = [0, 1, 2, 3, 5] if xv == 1.0 else list(range(6))
        check(lambda a, b, c: sp.hyp2f1(a, b, c, dtype(xv)),
              lambda a, b, c: ss.hyp2f1(a, b, c, xv), a[rows], b[rows], c[rows], dtype=dtype,
              rtol=5e-6 if f32 else 1e-13)
    # c - a - b an integer: the series itself (the connection formula is singular there)
    check(lambda x: sp.hyp2f1(1.0, 1.0, 2.0, x), lambda x: ss.hyp2f1(1.0, 1.0, 2.0, x),
          np.array([0.6, 0.8, 0.9]), dtype=dtype, rtol=5e-6 if f32 else 1e-12)
    xs = np.array([-2.0, -0.3, 0.2, 0.7])
    with _precision(np.float64):  # d/dx 2F1(a, b; c; x) = ab/c 2F1(a+1, b+1; c+1; x)
        g = strata.vmap(strata.grad(lambda x: sp.hyp2f1(0.5, 1.5, 2.5, x)))(xs)
    np.testing.assert_allclose(np.asarray(g), 0.3 * ss.hyp2f1(1.5, 2.5, 3.5, xs), rtol=1e-12)
    grad_check(lambda a: sp.hyp2f1(a, 1.5, 2.5, 0.4), lambda a: ss.hyp2f1(a, 1.5, 2.5, 0.4),
               np.array([0.3, 1.2]), rtol=1e-6)
    f = strata.jit(lambda x: sp.hyp2f1(0.5, 1.5, 2.5, x))
    np.testing.assert_allclose(np.asarray(f(xs.astype(np.float32))),
                               ss.hyp2f1(0.5, 1.5, 2.5, xs), rtol=5e-6)
