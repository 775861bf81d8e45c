"""strata.lax's special and inverse-trigonometric primitives and their strata.numpy names:
values against scipy.special / numpy in float32 and float64, gradients against finite
differences, vmap against a per-example loop and jit against eager."""

import numpy as np
import pytest
import scipy.special as sp

import strata
import strata.numpy as jnp
from strata import lax

from conftest import numerical_grad


@pytest.fixture(autouse=True)
def x64():
    """float64 stays float64 in these tests (JAX's jax_enable_x64)."""
    try:
        old = strata.config.read("jax_enable_x64")
    except Exception:  # the option may not exist yet: float64 is kept anyway
        yield
        return
    strata.config.update("jax_enable_x64", True)
    yield
    strata.config.update("jax_enable_x64", old)


rng = np.random.default_rng(0)


def close(got, want, dtype, rtol=None, atol=None):
    got = np.asarray(got)
    assert got.dtype == dtype
    assert got.shape == np.shape(want)
    if rtol is None:
        rtol = 1e-12 if dtype == np.float64 else 3e-6
    if atol is None:
        atol = 1e-13 if dtype == np.float64 else 1e-6
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# name: (strata.lax function, reference, domain)
UNARY = {
    "sinh": (lax.sinh, np.sinh, (-3, 3)),
    "cosh": (lax.cosh, np.cosh, (-3, 3)),
    "asin": (lax.asin, np.arcsin, (-0.95, 0.95)),
    "acos": (lax.acos, np.arccos, (-0.95, 0.95)),
    "atan": (lax.atan, np.arctan, (-4, 4)),
    "asinh": (lax.asinh, np.arcsinh, (-4, 4)),
    "acosh": (lax.acosh, np.arccosh, (1.1, 5)),
    "atanh": (lax.atanh, np.arctanh, (-0.9, 0.9)),
    "cbrt": (lax.cbrt, np.cbrt, (0.2, 5)),
    "exp2": (lax.exp2, np.exp2, (-4, 4)),
    "erfc": (lax.erfc, sp.erfc, (-3, 5)),
    "lgamma": (lax.lgamma, sp.gammaln, (0.1, 12)),
    "digamma": (lax.digamma, sp.digamma, (0.1, 12)),
    "bessel_i0e": (lax.bessel_i0e, sp.i0e, (0.2, 20)),
    "bessel_i1e": (lax.bessel_i1e, sp.i1e, (0.2, 20)),
}
# (function, reference, domain of the first operand, domain of the second)
BINARY = {
    "igamma": (lax.igamma, sp.gammainc, (0.2, 8), (0.05, 12)),
    "igammac": (lax.igammac, sp.gammaincc, (0.2, 8), (0.05, 12)),
    "zeta": (lax.zeta, sp.zeta, (1.5, 6), (0.3, 5)),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values(name, dtype):
    f, ref, (lo, hi) = UNARY[name]
    x = rng.uniform(lo, hi, (4, 5)).astype(dtype)
    rtol = None
    if name == "lgamma" and dtype == np.float64:
        rtol = 1e-13
    close(f(x), ref(x.astype(np.float64)), dtype, rtol=rtol)


def test_special_values_off_the_easy_domain():
    x = np.array([-2.5, -0.3, 1e-6, 1.0, 2.0, 150.0, 1e6])
    close(lax.lgamma(x), sp.gammaln(x), np.float64)
    close(lax.digamma(x), sp.digamma(x), np.float64, rtol=1e-12)
    assert np.isnan(np.asarray(lax.digamma(np.array([0.0, -3.0])))).all()
    assert (np.asarray(lax.lgamma(np.array([0.0, -3.0]))) == np.inf).all()
    e = np.array([-6.0, -1.0, 0.0, 0.5, 10.0, 26.0])
    close(lax.erfc(e), sp.erfc(e), np.float64, atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_values(name, dtype):
    f, ref, (alo, ahi), (xlo, xhi) = BINARY[name]
    a = rng.uniform(alo, ahi, (4, 6)).astype(dtype)
    x = rng.uniform(xlo, xhi, (4, 6)).astype(dtype)
    close(f(a, x), ref(a.astype(np.float64), x.astype(np.float64)), dtype,
          rtol=1e-11 if dtype == np.float64 else 2e-5)


def test_igamma_large_and_edge_arguments():
    a = np.array([50.0, 200.0, 1000.0, 0.01, 3.0, 3.0])
    x = np.array([45.0, 230.0, 990.0, 0.5, 0.0, np.inf])
    close(lax.igamma(a, x), sp.gammainc(a, x), np.float64, rtol=1e-10)
    close(lax.igammac(a, x), sp.gammaincc(a, x), np.float64, rtol=1e-10)
    assert np.isnan(np.asarray(lax.igamma(np.array([-1.0, 1.0]), np.array([1.0, -1.0])))).all()


def test_polygamma_values():
    m = np.array([0.0, 1.0, 2.0, 3.0, 1.0, 4.0])
    x = np.array([0.7, 0.5, 2.0, 3.5, -1.5, 10.0])
    close(lax.polygamma(m, x), sp.polygamma(m.astype(int), x), np.float64, rtol=1e-11)
    close(lax.polygamma(m.astype(np.float32), x.astype(np.float32)),
          sp.polygamma(m.astype(int), x), np.float32, rtol=2e-5)


def test_igamma_grad_a_and_random_gamma_grad():
    a = np.array([0.5, 2.0, 3.0, 10.0, 1.5])
    x = np.array([0.3, 2.5, 1.0, 12.0, 7.0])
    h = 1e-6
    dpda = (sp.gammainc(a + h, x) - sp.gammainc(a - h, x)) / (2 * h)
    close(lax.igamma_grad_a(a, x), dpda, np.float64, rtol=1e-7, atol=1e-9)
    pdf = np.exp(-x + (a - 1) * np.log(x) - sp.gammaln(a))
    close(lax.random_gamma_grad(a, x), -dpda / pdf, np.float64, rtol=1e-7, atol=1e-9)
    close(lax.igamma_grad_a(a.astype(np.float32), x.astype(np.float32)), dpda, np.float32,
          rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_grad(name):
    f, ref, (lo, hi) = UNARY[name]
    x = rng.uniform(lo + 0.05 * (hi - lo), hi - 0.05 * (hi - lo), (3,))
    g = strata.grad(lambda v: jnp.sum(f(v)))(x)
    want = numerical_grad(lambda v: np.sum(ref(v)), x)
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-6, atol=1e-8)


def test_digamma_second_derivative_is_polygamma():
    x = np.array([0.7, 1.5, 4.0])
    g2 = strata.grad(lambda v: jnp.sum(strata.grad(lambda w: jnp.sum(lax.digamma(w)))(v)))(x)
    np.testing.assert_allclose(np.asarray(g2), sp.polygamma(2, x), rtol=1e-10)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_igamma_grads_in_both_operands(name):
    f, ref, _, _ = BINARY[name]
    a = np.array([0.6, 2.0, 3.0, 5.0])
    x = np.array([0.4, 3.5, 1.2, 9.0])
    ga, gx = strata.grad(lambda p, q: jnp.sum(f(p, q)), argnums=(0, 1))(a, x)
    np.testing.assert_allclose(np.asarray(ga), numerical_grad(lambda v: np.sum(ref(v, x)), a),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(np.asarray(gx), numerical_grad(lambda v: np.sum(ref(a, v)), x),
                               rtol=1e-6, atol=1e-8)


def test_polygamma_and_zeta_grads():
    x = np.array([0.6, 1.5, 3.0])
    m = np.full(3, 2.0)
    g = strata.grad(lambda v: jnp.sum(lax.polygamma(m, v)))(x)
    np.testing.assert_allclose(np.asarray(g), sp.polygamma(3, x), rtol=1e-10)
    s = np.array([2.5, 3.0, 4.0])
    gq = strata.grad(lambda q: jnp.sum(lax.zeta(s, q)))(x)
    np.testing.assert_allclose(np.asarray(gq),
                               numerical_grad(lambda v: np.sum(sp.zeta(s, v)), x), rtol=1e-6)
    # The derivative in the order is NaN (JAX raises).
    assert np.isnan(np.asarray(strata.grad(lambda v: jnp.sum(lax.polygamma(v, x)))(m))).all()


@pytest.mark.parametrize("name", ["lgamma", "digamma", "asinh", "cbrt"])
def test_unary_vmap_and_jit(name):
    f = UNARY[name][0]
    lo, hi = UNARY[name][2]
    x = rng.uniform(lo, hi, (3, 4))
    loop = np.stack([np.asarray(f(row)) for row in x])
    np.testing.assert_allclose(np.asarray(strata.vmap(f)(x)), loop, rtol=0, atol=0)
    np.testing.assert_allclose(np.asarray(strata.jit(f)(x)), np.asarray(f(x)), rtol=1e-12)
    x32 = x.astype(np.float32)
    np.testing.assert_allclose(np.asarray(strata.jit(f)(x32)), np.asarray(f(x32)), rtol=2e-6)


@pytest.mark.parametrize("name", sorted(BINARY) + ["polygamma", "igamma_grad_a",
                                                   "random_gamma_grad"])
def test_binary_vmap_and_jit(name):
    f = getattr(lax, name)
    a = rng.uniform(1.5, 4, (3, 4))
    x = rng.uniform(0.3, 5, (3, 4))
    if name == "polygamma":
        a = np.floor(a)
    loop = np.stack([np.asarray(f(p, q)) for p, q in zip(a, x)])
    np.testing.assert_allclose(np.asarray(strata.vmap(f)(a, x)), loop, rtol=0, atol=0)
    np.testing.assert_allclose(np.asarray(strata.jit(f)(a, x)), np.asarray(f(a, x)), rtol=1e-11)


@pytest.mark.parametrize("name,ref", [("sinh", np.sinh), ("cosh", np.cosh),
                                      ("arcsin", np.arcsin), ("arccos", np.arccos),
                                      ("arctan", np.arctan), ("arcsinh", np.arcsinh),
                                      ("arctanh", np.arctanh), ("cbrt", np.cbrt),
                                      ("exp2", np.exp2)])
def test_numpy_names(name, ref):
    x = rng.uniform(-0.9, 0.9, (2, 3)).astype(np.float32)
    close(getattr(jnp, name)(x), ref(x), np.float32)
    # Integers promote to the default float type, as jnp.sin does.
    i = np.array([0, 1, -1], dtype=np.int32)
    out = getattr(jnp, name)(i)
    assert out.dtype == jnp.sin(i).dtype
    close(out, ref(i.astype(np.float64)).astype(out.dtype), out.dtype, rtol=2e-6)


def test_numpy_arccosh():
    x = np.array([1.0, 1.5, 10.0], dtype=np.float32)
    close(jnp.arccosh(x), np.arccosh(x), np.float32)


def test_lax_square_and_errors():
    x = np.array([1.5, -2.0], dtype=np.float32)
    close(lax.square(x), x * x, np.float32)
    assert np.asarray(lax.square(np.array([3], dtype=np.int32))).tolist() == [9]
    with pytest.raises(TypeError, match=r"\[lgamma\]"):
        lax.lgamma(np.array([1, 2], dtype=np.int32))
    with pytest.raises(TypeError, match=r"\[igamma\]"):
        lax.igamma(np.array([1.0], dtype=np.float32), np.array([1.0]))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.uint32])
def test_population_count_and_clz(dtype):
    info = np.iinfo(dtype)
    x = np.array([0, 1, 5, info.max, info.min, 100], dtype=dtype)
    bits = info.bits
    u = x.astype(np.int64) & ((1 << bits) - 1)
    want_pc = np.array([bin(v).count("1") for v in u])
    want_clz = np.array([bits - int(v).bit_length() for v in u])
    for f, want in [(lax.population_count, want_pc), (lax.clz, want_clz)]:
        got = np.asarray(f(x))
        assert got.dtype == dtype
        np.testing.assert_array_equal(got.astype(np.int64), want)
        np.testing.assert_array_equal(np.asarray(strata.jit(f)(x)), got)
    with pytest.raises(TypeError, match=r"\[clz\]"):
        lax.clz(np.array([1.0], dtype=np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nextafter(dtype):
    x = np.array([1.0, 1.0, 0.0, -0.0, -1.0, 2.0, 3.0, np.inf, np.nan], dtype=dtype)
    y = np.array([2.0, 0.0, 1.0, -1.0, -2.0, 2.0, np.inf, 0.0, 1.0], dtype=dtype)
    want = np.nextafter(x, y)
    got = np.asarray(lax.nextafter(x, y))
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.asarray(strata.jit(lax.nextafter)(x, y)), want)
    np.testing.assert_array_equal(np.asarray(strata.vmap(lax.nextafter)(x, y)), want)


def test_bessel_negative_and_edges():
    x = np.array([-30.0, -8.0, -0.5, 0.0, 1e-300, np.inf, -np.inf])
    close(lax.bessel_i0e(x), sp.i0e(x), np.float64, atol=0, rtol=1e-14)
    close(lax.bessel_i1e(x), sp.i1e(x), np.float64, atol=1e-300, rtol=1e-14)
    g = strata.grad(lambda v: jnp.sum(lax.bessel_i1e(v)))(np.array([0.0, -2.0]))
    np.testing.assert_allclose(np.asarray(g)[0], 0.5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_betainc(dtype):
    a = rng.uniform(0.2, 8, (4, 5)).astype(dtype)
    b = rng.uniform(0.2, 8, (4, 5)).astype(dtype)
    x = rng.uniform(0.0, 1.0, (4, 5)).astype(dtype)
    want = sp.betainc(a.astype(np.float64), b.astype(np.float64), x.astype(np.float64))
    close(lax.betainc(a, b, x), want, dtype, rtol=1e-11 if dtype == np.float64 else 2e-5,
          atol=1e-13 if dtype == np.float64 else 2e-6)
    np.testing.assert_allclose(np.asarray(strata.jit(lax.betainc)(a, b, x)),
                               np.asarray(lax.betainc(a, b, x)), rtol=1e-11, atol=1e-13)
    loop = np.stack([np.asarray(lax.betainc(p, q, r)) for p, q, r in zip(a, b, x)])
    np.testing.assert_array_equal(np.asarray(strata.vmap(lax.betainc)(a, b, x)), loop)


def test_betainc_grad_in_x():
    a, b = np.array([2.0, 0.7, 5.0]), np.array([3.0, 1.5, 0.9])
    x = np.array([0.3, 0.6, 0.9])
    g = strata.grad(lambda v: jnp.sum(lax.betainc(a, b, v)))(x)
    want = numerical_grad(lambda v: np.sum(sp.betainc(a, b, v)), x)
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-6)


def test_shift_right_arithmetic():
    x = np.array([-8, 8, -1, -128, 100, -100], dtype=np.int8)
    y = np.array([1, 1, 7, 7, 8, 9], dtype=np.int8)
    want = np.where(y >= 8, np.where(x < 0, -1, 0), x >> np.minimum(y, 7)).astype(np.int8)
    got = np.asarray(lax.shift_right_arithmetic(x, y))
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.asarray(strata.jit(lax.shift_right_arithmetic)(x, y)), want)


def test_lax_shape_errors_are_type_errors():
    a = np.ones((2, 3), np.float32)
    b = np.ones((3,), np.float32)
    with pytest.raises(TypeError, match=r"\[add\] .*f32\[2,3\].*f32\[3\]"):
        lax.add(a, b)
    with pytest.raises(TypeError, match=r"\[igamma\] .*f32\[2,3\].*f32\[3\]"):
        lax.igamma(a, b)
    with pytest.raises(TypeError, match=r"\[reshape\]"):
        lax.reshape(a, (4,))
    with pytest.raises(TypeError, match=r"\[concatenate\]"):
        lax.concatenate([a, np.ones((3, 3), np.float32)], 1)
    with pytest.raises(TypeError, match=r"\[dot_general\] contracting dimensions differ"):
        lax.dot_general(a, np.ones((4, 2), np.float32), (((1,), (0,)), ((), ())))


def test_numpy_nextafter_broadcasts_and_promotes():
    x = np.array([[1.0], [2.0]], dtype=np.float32)
    got = jnp.nextafter(x, np.float32(3.0))
    np.testing.assert_array_equal(np.asarray(got), np.nextafter(x, np.float32(3.0)))
    assert got.shape == (2, 1) and got.dtype == np.float32
    out = jnp.nextafter(np.array([1, 2], dtype=np.int32), np.array([0, 3], dtype=np.int32))
    assert out.dtype == jnp.sin(np.array([1], dtype=np.int32)).dtype
