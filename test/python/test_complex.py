"""complex64 and complex128 from Python: dtypes and promotion (Python complex is weak), numpy
and DLPack interop, printing, the jnp complex names, elementwise values against numpy, and
JAX's differentiation conventions (grad of a real function of z, holomorphic=True)."""

import warnings

import numpy as np
import pytest

import strata
import strata.numpy as jnp
from strata import lax
from conftest import x64_mode

Z = np.array([0.5 + 0.3j, -1.2 + 0.7j, 2.0 - 1.5j, -0.3 - 0.8j, 0.1 + 2.5j], np.complex64)


def close(got, want, rtol=2e-6, atol=2e-6):
    got = np.asarray(got)
    assert got.dtype == np.asarray(want).dtype, (got.dtype, np.asarray(want).dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def test_dtype_names_and_scalar_types():
    assert jnp.complex64.dtype == np.complex64 and jnp.complex128.dtype == np.complex128
    assert jnp.complex_ is jnp.complex128
    x = jnp.complex64(1 + 2j)
    assert x.dtype == np.complex64 and not x.weak_type
    assert jnp.issubdtype(jnp.complex64, jnp.complexfloating)
    assert jnp.issubdtype(jnp.complex64, jnp.inexact)
    assert jnp.finfo(jnp.complex64).dtype == np.float32
    assert jnp.finfo(jnp.complex128).eps == np.finfo(np.float64).eps
    assert jnp.iscomplexobj(jnp.asarray(Z)) and not jnp.iscomplexobj(jnp.ones(2))


def test_promotion_with_python_complex_is_weak():
    f16, f32 = jnp.ones(2, jnp.float16), jnp.ones(2, jnp.float32)
    assert (f16 * 1j).dtype == np.complex64  # weak complex does not widen f16 beyond c64
    assert (1j * f32).dtype == np.complex64
    assert (jnp.ones(2, jnp.int32) + 1j).dtype == np.complex64
    w = jnp.asarray(1j)
    assert w.dtype == np.complex64 and w.weak_type
    assert jnp.result_type(f32, 1j) == np.complex64
    assert jnp.result_type(jnp.complex64, jnp.float32) == np.complex64
    assert jnp.promote_types(jnp.complex64, jnp.float64) == np.complex128
    assert jnp.promote_types(jnp.float16, complex) == np.complex64  # complex is weak
    assert jnp.promote_types(int, complex) == np.complex128  # a weak result: numpy's complex
    with x64_mode(True):
        assert (jnp.ones(2, jnp.float64) * 1j).dtype == np.complex128
        assert (jnp.ones(2, jnp.float32) * 1j).dtype == np.complex64
        assert jnp.asarray(1j).dtype == np.complex128
        assert jnp.result_type(jnp.float64, jnp.complex64) == np.complex128
    # x64 off: complex128 data canonicalizes to complex64 (silently), as JAX's inputs.
    assert jnp.asarray(np.array([1 + 1j])).dtype == np.complex64
    with pytest.warns(UserWarning, match="complex128"):
        assert jnp.zeros(2, jnp.complex128).dtype == np.complex64


def test_numpy_interop_and_printing():
    x = jnp.asarray(Z)
    assert x.dtype == np.complex64 and x.shape == (5,)
    np.testing.assert_array_equal(np.asarray(x), Z)
    np.testing.assert_array_equal(np.array(x[1:3]), Z[1:3])
    assert jnp.asarray([1 + 2j, 3]).dtype == np.complex64
    s = jnp.asarray(np.complex64(1 + 2j))
    assert complex(s) == 1 + 2j and s.item() == 1 + 2j and isinstance(s.item(), complex)
    with pytest.raises(TypeError):
        float(s)
    assert "1.+2.j" in repr(jnp.asarray([1 + 2j, 3 - 0.5j]))
    assert "complex64" in repr(jnp.asarray([1 + 2j]))
    with x64_mode(True):
        y = jnp.asarray(Z.astype(np.complex128))
        np.testing.assert_array_equal(np.asarray(y), Z.astype(np.complex128))


def test_dlpack_both_ways():
    x = jnp.asarray(Z)
    back = np.from_dlpack(x)
    assert back.dtype == np.complex64
    np.testing.assert_array_equal(back, Z)
    y = strata.dlpack.from_dlpack(Z)
    assert y.dtype == np.complex64
    np.testing.assert_array_equal(np.asarray(y), Z)


def test_astype_drops_the_imaginary_part_without_warning():
    x = jnp.asarray(Z)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = x.astype(jnp.float32)
    np.testing.assert_array_equal(np.asarray(r), Z.real)
    assert jnp.asarray([1.5, -2.0]).astype(jnp.complex64).dtype == np.complex64


UNARY = ["exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh",
         "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "negative", "square",
         "reciprocal", "conjugate", "conj", "real", "imag", "abs", "absolute", "angle",
         "isfinite", "isnan", "isinf", "isreal", "iscomplex"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_against_numpy(name):
    got = getattr(jnp, name)(jnp.asarray(Z))
    want = getattr(np, name)(Z)
    if want.dtype == np.bool_:
        np.testing.assert_array_equal(np.asarray(got), want)
    else:
        close(got, want, rtol=4e-6, atol=1e-6)


def test_special_values_against_numpy():
    inf, nan = np.inf, np.nan
    v = np.array([complex(-inf, 0), complex(inf, 0), 0j, complex(inf, nan), complex(nan, inf),
                  complex(-1, 0), complex(-inf, 2)], np.complex128)
    with x64_mode(True), np.errstate(all="ignore"):
        x = jnp.asarray(v)
        for f in ("exp", "sqrt", "abs", "isfinite", "isnan", "isinf"):
            np.testing.assert_array_equal(np.asarray(getattr(jnp, f)(x)), getattr(np, f)(v),
                                          err_msg=f)
        np.testing.assert_array_equal(np.asarray(jnp.log(x[2:3])), np.log(v[2:3]))


def test_binary_reductions_and_matmul_against_numpy():
    b = np.array([-0.7 + 1.1j, 2.0 + 0.5j, 0.25 - 3j, 1 + 1j, -2 - 0.5j], np.complex64)
    x, y = jnp.asarray(Z), jnp.asarray(b)
    for name in ("add", "subtract", "multiply", "divide", "power", "equal", "not_equal"):
        got, want = getattr(jnp, name)(x, y), getattr(np, name)(Z, b)
        close(got, want, rtol=2e-5) if want.dtype != np.bool_ else \
            np.testing.assert_array_equal(np.asarray(got), want)
    close(x ** 3, Z ** 3, rtol=1e-5)
    close(2.5 * x - 1j, 2.5 * Z - 1j)
    close(jnp.sum(x), np.sum(Z), rtol=1e-5)
    close(jnp.prod(x), np.prod(Z), rtol=1e-5)
    close(jnp.cumsum(x), np.cumsum(Z), rtol=1e-5)
    a = (np.arange(12).reshape(3, 4) * (0.3 - 0.2j)).astype(np.complex64)
    m = (np.arange(8).reshape(4, 2) * (-0.1 + 0.5j) + 1).astype(np.complex64)
    close(jnp.asarray(a) @ jnp.asarray(m), a @ m, rtol=1e-5)
    close(jnp.dot(jnp.asarray(a[0]), jnp.asarray(m[:, 0])), np.dot(a[0], m[:, 0]), rtol=1e-5)
    with pytest.raises(TypeError):
        jnp.asarray(Z) < jnp.asarray(b)


def test_lax_complex_functions():
    re, im = jnp.asarray([1.0, -2.0]), jnp.asarray([0.5, 3.0])
    z = lax.complex(re, im)
    assert z.dtype == np.complex64
    close(z, np.array([1 + 0.5j, -2 + 3j], np.complex64))
    close(lax.real(z), np.array([1.0, -2.0], np.float32))
    close(lax.imag(z), np.array([0.5, 3.0], np.float32))
    close(lax.conj(z), np.array([1 - 0.5j, -2 - 3j], np.complex64))
    assert lax.conj(re).dtype == np.complex64  # lax.conj of a real array is complex, as JAX
    with pytest.raises(TypeError, match="complex"):
        lax.real(re)


def test_grad_conventions():
    # JAX's FAQ: grad of a real f of z is df/dx - i df/dy.
    g = strata.grad(lambda z: jnp.abs(z) ** 2)(jnp.asarray(3 + 4j))
    assert g.dtype == np.complex64 and complex(g) == pytest.approx(6 - 8j)
    g = strata.grad(lambda z: jnp.real(z * jnp.conj(z)))(jnp.asarray(1 - 2j))
    assert complex(g) == pytest.approx(2 + 4j)
    with pytest.raises(TypeError, match="holomorphic"):
        strata.grad(lambda z: z * z)(jnp.asarray(1 + 1j))
    # holomorphic=True: the complex derivative f'(z).
    g = strata.grad(lambda z: jnp.sin(z) * z, holomorphic=True)(jnp.asarray(0.5 + 0.25j))
    z = 0.5 + 0.25j
    assert complex(g) == pytest.approx(np.cos(z) * z + np.sin(z), rel=1e-5)
    with pytest.raises(TypeError, match="holomorphic=True requires inputs"):
        strata.grad(lambda x: x * 1j, holomorphic=True)(jnp.asarray(1.0))
    v, g = strata.value_and_grad(lambda z: jnp.abs(jnp.exp(z)))(jnp.asarray(0.3 + 0.4j))
    assert float(v) == pytest.approx(np.exp(0.3), rel=1e-6)
    assert complex(g) == pytest.approx(np.exp(0.3), rel=1e-5)  # d|e^z|/dx = e^x, d/dy = 0


def test_real_function_of_complex_against_finite_differences():
    def f_np(z):
        return np.abs(np.sin(z) * np.conj(z) + np.exp(1j * z)) ** 2

    def f(z):
        return jnp.abs(jnp.sin(z) * jnp.conj(z) + jnp.exp(1j * z)) ** 2

    with x64_mode(True):
        for z in (0.4 + 0.7j, -1.1 - 0.2j):
            h = 1e-6
            want = (f_np(z + h) - f_np(z - h)) / (2 * h) - \
                1j * (f_np(z + 1j * h) - f_np(z - 1j * h)) / (2 * h)
            got = complex(strata.grad(f)(jnp.asarray(z)))
            assert got == pytest.approx(want, rel=1e-6)


def test_jacobians_vjp_and_vmap():
    zs = jnp.asarray(Z)
    j = strata.jacfwd(lambda z: z ** 2, holomorphic=True)(jnp.asarray(1 + 2j))
    assert complex(j) == pytest.approx(2 + 4j)
    j = strata.jacrev(lambda z: jnp.exp(z), holomorphic=True)(jnp.asarray(0.1 + 0.2j))
    assert complex(j) == pytest.approx(np.exp(0.1 + 0.2j), rel=1e-6)
    with pytest.raises(TypeError, match="holomorphic"):
        strata.jacfwd(lambda z: z)(jnp.asarray(1j))
    with pytest.raises(TypeError, match="holomorphic"):
        strata.jacrev(lambda z: z)(jnp.asarray(1j))
    out, pull = strata.vjp(lambda z: jnp.conj(z) * 2, zs)
    close(pull(jnp.ones_like(out))[0], np.full(5, 2, np.complex64))
    batched = strata.vmap(lambda z: jnp.abs(jnp.sin(z)) + jnp.angle(z))(zs)
    close(batched, np.abs(np.sin(Z)) + np.angle(Z), rtol=1e-5)
    gs = strata.vmap(strata.grad(lambda z: jnp.real(jnp.exp(z))))(zs)
    close(gs, np.exp(Z), rtol=1e-5)  # grad of re(g(z)) is g'(z) for holomorphic g


def test_jit_compiles_complex_values():
    close(strata.jit(lambda z: z * 2)(jnp.asarray(Z)), Z * 2)
    close(strata.jit(lambda x: jnp.abs(x * 1j))(jnp.ones(3)), np.ones(3, np.float32))
    with pytest.raises(RuntimeError, match="not compiled for complex values"):
        strata.jit(lambda z: jnp.argmax(z))(jnp.asarray(Z))


def test_maximum_minimum_round_floor():
    a = np.array([1 + 5j, 2 - 1j, 1 + 2j], np.complex64)
    b = np.array([2 - 9j, 2 + 1j, 1 + 1j], np.complex64)
    np.testing.assert_array_equal(np.asarray(jnp.maximum(a, b)), np.maximum(a, b))
    np.testing.assert_array_equal(np.asarray(jnp.minimum(a, b)), np.minimum(a, b))
    z = np.array([1.5 - 2.5j, -0.4 + 3.6j], np.complex64)
    np.testing.assert_array_equal(np.asarray(jnp.round(z)), np.round(z))
    with pytest.raises(TypeError, match="floor"):
        jnp.floor(jnp.asarray(z))


def test_statistics_vdot_and_array_attributes():
    x = jnp.asarray(Z)
    with np.errstate(all="ignore"):
        close(jnp.var(x), np.var(Z), rtol=1e-5)
        close(jnp.std(x), np.std(Z), rtol=1e-5)
        close(jnp.var(x.reshape(1, 5), axis=1, ddof=1), np.var(Z.reshape(1, 5), axis=1, ddof=1),
              rtol=1e-5)
    w = Z[::-1].copy()
    close(jnp.vdot(x, jnp.asarray(w)), np.vdot(Z, w), rtol=1e-5)
    close(x.real, Z.real)
    close(x.imag, Z.imag)
    close(x.conj(), Z.conj())
    close(x.conjugate(), Z.conjugate())
    close(jnp.asarray([1.0, 2.0]).imag, np.zeros(2, np.float32))
    close(jnp.exp2(x), np.exp2(Z), rtol=1e-5)
    close(lax.logistic(x), 1 / (1 + np.exp(-Z)), rtol=1e-5)


def test_sort_is_lexicographic_as_numpy():
    v = np.array([2 + 1j, 1 + 5j, 2 - 1j, -1 + 0j, 1 - 5j, 0.5 + 0.5j], np.complex64)
    np.testing.assert_array_equal(np.asarray(jnp.sort(jnp.asarray(v))), np.sort(v))
    np.testing.assert_array_equal(np.asarray(jnp.argsort(jnp.asarray(v))), np.argsort(v))


def test_argmax_argmin_clamp_are_lexicographic_as_numpy():
    rng = np.random.default_rng(0)
    # Few distinct real parts, so ties on the real part are decided by the imaginary part.
    m = (rng.integers(-2, 3, (5, 7)) + 1j * rng.standard_normal((5, 7))).astype(np.complex64)
    for dt in (np.complex64, np.complex128):
        with x64_mode(dt == np.complex128):
            v = m.astype(dt)
            x = jnp.asarray(v)
            for axis in (None, 0, 1, -1):
                np.testing.assert_array_equal(np.asarray(jnp.argmax(x, axis=axis)),
                                              np.argmax(v, axis=axis))
                np.testing.assert_array_equal(np.asarray(jnp.argmin(x, axis=axis)),
                                              np.argmin(v, axis=axis))
            n = np.array([1 + 0j, complex(0, np.nan), complex(np.nan, 0), 9 + 9j], dt)
            assert int(jnp.argmax(jnp.asarray(n))) == np.argmax(n) == 1
            assert int(jnp.argmin(jnp.asarray(n))) == np.argmin(n) == 1
            with np.errstate(invalid="ignore"):
                want = np.minimum(np.maximum(v, dt(-1 + 0.5j)), dt(1 - 0.5j))
            np.testing.assert_array_equal(
                np.asarray(lax.clamp(dt(-1 + 0.5j), x, dt(1 - 0.5j))), want)
    # vmap against a loop over the examples.
    x = jnp.asarray(m)
    batched = strata.vmap(lambda r: jnp.argmax(r))(x)
    np.testing.assert_array_equal(np.asarray(batched), [int(jnp.argmax(x[i])) for i in range(5)])
    lo, hi = np.complex64(-1 + 0j), np.complex64(1 + 0j)
    batched = strata.vmap(lambda r: lax.clamp(lo, r, hi))(x)
    np.testing.assert_array_equal(np.asarray(batched),
                                  np.stack([np.asarray(lax.clamp(lo, x[i], hi)) for i in range(5)]))
    with pytest.raises(ValueError, match="argmax"):
        jnp.argmax(jnp.zeros((0,), jnp.complex64))
