"""strata.lax's JAX-facing layer (python/strata/_lax_*.py): values against numpy / torch,
gradients against finite differences, vmap against a per-example loop, jit against eager, and
the error classes jax.lax raises."""

import math

import numpy as np
import pytest

import strata
import strata.numpy as jnp
from strata import lax

from conftest import numerical_grad

RNG = np.random.default_rng(0)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, np.float64),
                               rtol=tol, atol=tol)


# ---- Binary ops: scalars, broadcasting, errors -----------------------------------------------

BINARY = [("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide),
          ("max", np.maximum), ("min", np.minimum), ("atan2", np.arctan2), ("pow", None),
          ("rem", np.fmod)]


@pytest.mark.parametrize("name,ref", BINARY)
def test_binary_python_scalar_and_rank0(name, ref):
    x = np.abs(f32(2, 3)) + 0.5
    op = getattr(lax, name)
    ref = ref or np.power
    out = op(jnp.asarray(x), 1.5)
    assert out.dtype == np.float32 and not out.weak_type
    close(out, ref(x, np.float32(1.5)))
    close(op(2.0, jnp.asarray(x)), ref(np.float32(2.0), x))
    close(op(jnp.asarray(x), jnp.asarray(np.float32(0.7))), ref(x, np.float32(0.7)))
    close(op(jnp.asarray(x), jnp.asarray(x[:1])), ref(x, x[:1]))  # size-1 broadcasts


def test_binary_weak_and_dtype_rules():
    both = lax.add(1.0, 2.0)
    assert both.weak_type and both.dtype == np.float32 and float(both) == 3.0
    ints = lax.mul(jnp.asarray(np.arange(3, dtype=np.int8)), 3)
    assert ints.dtype == np.int8
    np.testing.assert_array_equal(ints, np.arange(3, dtype=np.int8) * 3)
    half = lax.add(jnp.ones((2,), "float16"), 1.0)
    assert half.dtype == np.float16
    with pytest.raises(TypeError, match=r"^\[add\]"):
        lax.add(1, 1.0)  # jax.lax requires explicit promotion
    with pytest.raises(TypeError, match=r"^\[add\]"):
        lax.add(jnp.ones(3), 1)
    with pytest.raises(TypeError, match=r"^\[add\]"):
        lax.add(jnp.ones(3), jnp.ones(3, "int32"))
    with pytest.raises(TypeError, match=r"^\[add\]"):
        lax.add(jnp.ones(2), jnp.ones((1, 1)))
    with pytest.raises(TypeError, match=r"^\[sub\] incompatible shapes"):
        lax.sub(jnp.ones((2, 3)), jnp.ones((3, 3)))
    with pytest.raises(OverflowError):
        lax.add(jnp.ones(2, "int8"), 300)


@pytest.mark.parametrize("name,ref", [("eq", np.equal), ("ne", np.not_equal), ("lt", np.less),
                                      ("le", np.less_equal), ("gt", np.greater),
                                      ("ge", np.greater_equal)])
def test_comparisons_with_scalars(name, ref):
    x = np.array([[0.0, 1.0, 2.0]], np.float32)
    out = getattr(lax, name)(jnp.asarray(x), 1.0)
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, ref(x, 1.0))
    np.testing.assert_array_equal(getattr(lax, name)(jnp.asarray(x), jnp.ones((2, 1))),
                                  ref(x, np.ones((2, 1))))


def test_bitwise_and_shifts():
    a = np.array([-8, 7, 12, -1], np.int32)
    b = np.array([1, 2, 31, 40], np.int32)
    np.testing.assert_array_equal(lax.bitwise_and(jnp.asarray(a), 6), a & 6)
    np.testing.assert_array_equal(lax.bitwise_or(jnp.asarray(a), 1), a | 1)
    np.testing.assert_array_equal(lax.bitwise_xor(3, jnp.asarray(a)), a ^ 3)
    np.testing.assert_array_equal(lax.shift_left(jnp.asarray(a), 2), a << 2)
    expect = np.where(b >= 32, np.where(a < 0, -1, 0), a >> np.minimum(b, 31))
    np.testing.assert_array_equal(lax.shift_right_arithmetic(jnp.asarray(a), jnp.asarray(b)),
                                  expect)
    np.testing.assert_array_equal(
        lax.shift_right_logical(jnp.asarray(a), 1), (a.view(np.uint32) >> 1).view(np.int32))


def test_binary_grad_vmap_jit():
    x, y = f32(3), f32(3)

    def f(u):
        return jnp.sum(lax.mul(lax.add(u, 2.0), jnp.asarray(y)))
    g = strata.grad(f)(jnp.asarray(x))
    close(g, numerical_grad(lambda u: np.sum((u + 2.0) * y), x), 1e-3)
    per = np.stack([np.asarray(lax.max(jnp.asarray(x[i]), 0.0)) for i in range(3)])
    close(strata.vmap(lambda v: lax.max(v, 0.0))(jnp.asarray(x)), per)
    close(strata.jit(lambda u: lax.sub(u, jnp.ones((1,))))(jnp.asarray(x)), x - 1)


# ---- Unary helpers, select, clamp ------------------------------------------------------------

def test_round_methods():
    x = np.array([-2.5, -1.5, -0.5, -0.3, 0.0, 0.49999997, 0.5, 1.5, 2.5, np.inf], np.float32)
    away = np.sign(x) * np.floor(np.abs(x) + 0.5)
    away[5] = 0.0  # 0.49999997 + 0.5 rounds up in float32; round does not
    np.testing.assert_array_equal(lax.round(jnp.asarray(x)), away)
    np.testing.assert_array_equal(
        lax.round(jnp.asarray(x), lax.RoundingMethod.TO_NEAREST_EVEN), np.round(x))
    np.testing.assert_array_equal(lax.round(jnp.asarray(x), 1), np.round(x))
    assert lax.RoundingMethod.AWAY_FROM_ZERO == 0
    with pytest.raises(TypeError):
        lax.round(jnp.asarray([1, 2]))


def test_square_reciprocal_integer_pow_grad():
    x = np.abs(f32(4)) + 0.5
    close(lax.square(jnp.asarray(x)), x * x)
    close(lax.reciprocal(jnp.asarray(x)), 1 / x)
    close(lax.integer_pow(jnp.asarray(x), 3), x ** 3, 1e-5)
    g = strata.grad(lambda u: jnp.sum(lax.square(u) + lax.reciprocal(u)))(jnp.asarray(x))
    close(g, 2 * x - 1 / x ** 2, 1e-4)


def test_select_select_n_clamp():
    p = np.array([True, False, True])
    a, b = f32(3), f32(3)
    close(lax.select(jnp.asarray(p), jnp.asarray(a), jnp.asarray(b)), np.where(p, a, b))
    close(lax.select(True, jnp.asarray(a), jnp.asarray(b)), a)
    w = np.array([2, 0, 1], np.int32)
    cases = [f32(3) for _ in range(3)]
    close(lax.select_n(jnp.asarray(w), *map(jnp.asarray, cases)),
          np.choose(w, cases))
    close(lax.select_n(jnp.asarray(p), jnp.asarray(a), jnp.asarray(b)), np.where(p, b, a))
    close(lax.clamp(-0.5, jnp.asarray(a), 0.5), np.clip(a, -0.5, 0.5))
    g = strata.grad(lambda u: jnp.sum(lax.select_n(jnp.asarray(w), u, 2 * u, 3 * u)))(
        jnp.asarray(a))
    close(g, w + 1.0)
    with pytest.raises(TypeError, match=r"^\[select\]"):
        lax.select(jnp.asarray(p), jnp.ones(3), jnp.ones(4))
    with pytest.raises(TypeError, match=r"^\[select_n\]"):
        lax.select_n(jnp.asarray(w), jnp.ones(3), jnp.ones(3, "int32"))
    with pytest.raises(TypeError, match=r"^\[clamp\]"):
        lax.clamp(jnp.zeros(2), jnp.ones(3), 1.0)


def test_convert_bitcast_barrier():
    x = np.array([1.5, -2.25], np.float32)
    out = lax.convert_element_type(jnp.asarray(x), jnp.int32)
    np.testing.assert_array_equal(out, x.astype(np.int32))
    np.testing.assert_array_equal(lax.bitcast_convert_type(jnp.asarray(x), "int32"),
                                  x.view(np.int32))
    t = lax.optimization_barrier((jnp.asarray(x), {"a": 2.0}))
    close(t[0], x)
    assert float(t[1]["a"]) == 2.0


# ---- reduce_precision ------------------------------------------------------------------------

def test_reduce_precision_matches_float16():
    x = np.concatenate([RNG.standard_normal(2000) * 10.0 ** RNG.integers(-4, 5, 2000),
                        [65504.0, 65519.0, 65520.0, 1e6, -1e6, 6.2e-5, 0.0, -0.0]])
    x = x.astype(np.float32)
    with np.errstate(over="ignore"):
        ref = x.astype(np.float16).astype(np.float32)
    # XLA flushes values below the smallest normal (subnormals of the format) to zero.
    ref = np.where(np.abs(ref) < np.finfo(np.float16).tiny, np.copysign(0.0, x), ref)
    out = np.asarray(lax.reduce_precision(jnp.asarray(x), 5, 10))
    np.testing.assert_array_equal(out, ref)
    nan = lax.reduce_precision(jnp.asarray([np.nan, np.inf, -np.inf]), 5, 10)
    assert np.isnan(np.asarray(nan)[0]) and list(np.asarray(nan)[1:]) == [np.inf, -np.inf]


def test_reduce_precision_matches_bfloat16():
    x = (RNG.standard_normal(3000) * 10.0 ** RNG.integers(-30, 30, 3000)).astype(np.float32)
    x = np.concatenate([x, np.array([3.4e38, -3.4e38, 1e-40, 1.00390625, 1.01171875],
                                    np.float32)])
    # bfloat16 rounding (nearest even on the top 16 bits) in numpy.
    b = x.view(np.uint32).astype(np.uint64)
    ref = ((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)
    np.testing.assert_array_equal(np.asarray(lax.reduce_precision(jnp.asarray(x), 8, 7)), ref)
    h = jnp.asarray(np.clip(x[:10], -6e4, 6e4).astype(np.float16))
    assert lax.reduce_precision(h, 8, 7).dtype == np.float16


def test_reduce_precision_grad_jit_vmap():
    x = f32(5)
    g = strata.grad(lambda u: jnp.sum(lax.reduce_precision(u, 5, 10) * 3.0))(jnp.asarray(x))
    close(g, np.full(5, 3.0))
    close(strata.jit(lambda u: lax.reduce_precision(u, 5, 3))(jnp.asarray(x)),
          lax.reduce_precision(jnp.asarray(x), 5, 3))
    per = np.stack([np.asarray(lax.reduce_precision(jnp.asarray(x[i]), 4, 2)) for i in range(5)])
    close(strata.vmap(lambda u: lax.reduce_precision(u, 4, 2))(jnp.asarray(x)), per)
    with pytest.raises(TypeError):
        lax.reduce_precision(jnp.asarray([1, 2]), 5, 10)


# ---- dot, dot_general, Precision -------------------------------------------------------------

def test_dot_forms_and_precision():
    a, b, v = f32(2, 3), f32(3, 4), f32(3)
    close(lax.dot(jnp.asarray(a), jnp.asarray(b)), a @ b, 1e-5)
    close(lax.dot(jnp.asarray(a), jnp.asarray(v), precision=lax.Precision.HIGHEST), a @ v, 1e-5)
    close(lax.dot(jnp.asarray(v), jnp.asarray(v), "highest"), v @ v, 1e-5)
    close(lax.dot(jnp.asarray(a), jnp.asarray(b), precision=("default", "high")), a @ b, 1e-5)
    assert lax.Precision("highest") is lax.Precision.HIGHEST and str(lax.Precision.HIGH) == "HIGH"
    assert lax.Precision("bfloat16") is lax.Precision.DEFAULT
    close(lax.dot(jnp.asarray(a), jnp.asarray(b),
                  precision=lax.DotAlgorithmPreset.F32_F32_F32), a @ b, 1e-5)
    with pytest.raises(TypeError, match=r"^\[dot\]"):
        lax.dot(jnp.asarray(a), jnp.asarray(a))
    with pytest.raises(ValueError):
        lax.dot(jnp.asarray(a), jnp.asarray(b), precision="sloppy")


def test_dot_general_batch_mixed_and_preferred():
    a, b = f32(2, 3, 4), f32(2, 4, 5)
    dn = (((2,), (1,)), ((0,), (0,)))
    close(lax.dot_general(jnp.asarray(a), jnp.asarray(b), dn), np.einsum("bij,bjk->bik", a, b),
          1e-5)
    i = np.arange(6, dtype=np.int32).reshape(2, 3)
    m = f32(3, 4)
    out = lax.dot_general(jnp.asarray(i), jnp.asarray(m), (((1,), (0,)), ((), ())))
    assert out.dtype == np.float32
    close(out, i @ m, 1e-5)
    out = lax.dot_general(jnp.asarray(i), jnp.asarray(i.T.copy()), (((1,), (0,)), ((), ())),
                          preferred_element_type=jnp.float32)
    assert out.dtype == np.float32
    close(out, (i @ i.T).astype(np.float32))
    h = lax.dot_general(jnp.asarray(m.astype(np.float16)), jnp.asarray(m.T.astype(np.float16)),
                        (((1,), (0,)), ((), ())), preferred_element_type="float32")
    assert h.dtype == np.float32
    close(h, m.astype(np.float16).astype(np.float32) @ m.T.astype(np.float16).astype(np.float32),
          1e-4)
    with pytest.raises(TypeError, match=r"^\[dot_general\]"):
        lax.dot_general(jnp.asarray(m), jnp.asarray(m), (((1,), (0,)), ((), ())))
    with pytest.raises(TypeError):
        lax.dot_general(jnp.asarray(m), jnp.asarray(m.T.copy()), (((1,), (0,)), ((), ())),
                        preferred_element_type="int32")
    # XLA's HigherPrecisionType: signed over unsigned of one width.
    assert lax.dot_general(jnp.ones((2,), "int32"), jnp.ones((2,), "uint32"),
                           (((0,), (0,)), ((), ()))).dtype == np.int32


def test_dot_general_grad_vmap_jit():
    a, b = f32(3, 4), f32(4, 2)
    dn = (((1,), (0,)), ((), ()))

    def f(u):
        return jnp.sum(lax.dot_general(u, jnp.asarray(b), dn) ** 2)
    close(strata.grad(f)(jnp.asarray(a)),
          numerical_grad(lambda u: np.sum((u @ b) ** 2), a), 2e-3)
    xs = f32(5, 4)
    per = np.stack([np.asarray(lax.dot(jnp.asarray(xs[k]), jnp.asarray(b))) for k in range(5)])
    close(strata.vmap(lambda v: lax.dot(v, jnp.asarray(b)))(jnp.asarray(xs)), per, 1e-5)


def test_batch_matmul():
    a = f32(2, 3, 3)
    close(lax.batch_matmul(jnp.asarray(a), jnp.asarray(a)), a @ a, 1e-5)
    close(strata.jit(lambda u: lax.batch_matmul(u, u))(jnp.asarray(a)), a @ a, 1e-5)


# ---- Shapes ----------------------------------------------------------------------------------

def test_broadcast_family():
    x = f32(3)
    np.testing.assert_array_equal(lax.broadcast(jnp.asarray(x), (2, 4)),
                                  np.broadcast_to(x, (2, 4, 3)))
    assert lax.broadcast_to_rank(jnp.asarray(x), 3).shape == (1, 1, 3)
    assert lax.broadcast_to_rank(jnp.asarray(x), 1).shape == (3,)
    np.testing.assert_array_equal(lax.broadcast_in_dim(jnp.asarray(x), (3, 2), (0,)),
                                  np.broadcast_to(x[:, None], (3, 2)))
    g = strata.grad(lambda u: jnp.sum(lax.broadcast(u, (4,)) * 2.0))(jnp.asarray(x))
    close(g, np.full(3, 8.0))
    with pytest.raises(TypeError):
        lax.broadcast_in_dim(jnp.asarray(x), (4,), (0,))


def test_reshape_squeeze_expand_collapse():
    x = f32(2, 3, 4)
    np.testing.assert_array_equal(lax.reshape(jnp.asarray(x), (6, 4)), x.reshape(6, 4))
    np.testing.assert_array_equal(lax.reshape(jnp.asarray(x), (4, 6), dimensions=(2, 0, 1)),
                                  x.transpose(2, 0, 1).reshape(4, 6))
    y = x[:, :1, :1]
    np.testing.assert_array_equal(lax.squeeze(jnp.asarray(y), (1, -1)), y.reshape(2))
    assert lax.expand_dims(jnp.asarray(x), (0, -1)).shape == (1, 2, 3, 4, 1)
    assert lax.collapse(jnp.asarray(x), 1).shape == (2, 12)
    assert lax.collapse(jnp.asarray(x), 0, 2).shape == (6, 4)
    g = strata.grad(lambda u: jnp.sum(lax.reshape(u, (4, 6), (2, 0, 1))[0] * 3.0))(
        jnp.asarray(x))
    expect = np.zeros_like(x)
    expect[..., 0] = 3.0
    close(g, expect)
    with pytest.raises(TypeError, match=r"^\[reshape\]"):
        lax.reshape(jnp.asarray(x), (5, 5))
    with pytest.raises(ValueError, match=r"^\[squeeze\]"):
        lax.squeeze(jnp.asarray(x), (0,))
    with pytest.raises(TypeError, match=r"^\[transpose\]"):
        lax.transpose(jnp.asarray(x), (0, 0, 1))


def test_concatenate_split_rev_transpose():
    a, b = f32(2, 3), f32(2, 2)
    np.testing.assert_array_equal(lax.concatenate([jnp.asarray(a), jnp.asarray(b)], 1),
                                  np.concatenate([a, b], 1))
    parts = lax.split(jnp.arange(10), (3, 0, 7))
    assert [p.shape for p in parts] == [(3,), (0,), (7,)]
    np.testing.assert_array_equal(parts[2], np.arange(3, 10))
    np.testing.assert_array_equal(lax.rev(jnp.asarray(a), (0, 1)), a[::-1, ::-1])
    np.testing.assert_array_equal(lax.transpose(jnp.asarray(a), (1, 0)), a.T)
    g = strata.grad(lambda u: jnp.sum(lax.split(u, (1, 2), axis=1)[1] ** 2))(jnp.asarray(a))
    close(g, np.concatenate([np.zeros((2, 1)), 2 * a[:, 1:]], 1))
    with pytest.raises(ValueError, match=r"^\[split\]"):
        lax.split(jnp.arange(10), (3, 3))
    with pytest.raises(TypeError):
        lax.concatenate([jnp.asarray(a), jnp.ones((3, 3))], 1)


def test_slices_in_dim():
    x = f32(5, 4)
    np.testing.assert_array_equal(lax.slice(jnp.asarray(x), (1, 0), (5, 4), (2, 3)),
                                  x[1:5:2, 0:4:3])
    np.testing.assert_array_equal(lax.slice_in_dim(jnp.asarray(x), 1, -1, axis=0), x[1:-1])
    np.testing.assert_array_equal(lax.slice_in_dim(jnp.asarray(x), None, None, 2, 1),
                                  x[:, ::2])
    np.testing.assert_array_equal(lax.index_in_dim(jnp.asarray(x), -1, 1), x[:, -1:])
    np.testing.assert_array_equal(lax.index_in_dim(jnp.asarray(x), 2, 0, keepdims=False), x[2])
    with pytest.raises(IndexError):
        lax.index_in_dim(jnp.asarray(x), 5)


def test_dynamic_slices():
    x = f32(6, 3)
    i = jnp.asarray(np.int32(2))
    np.testing.assert_array_equal(lax.dynamic_slice(jnp.asarray(x), (i, 0), (3, 2)), x[2:5, :2])
    np.testing.assert_array_equal(lax.dynamic_slice(jnp.asarray(x), (-2, 1), (2, 2)),
                                  x[4:6, 1:3])  # negative counts from the end
    np.testing.assert_array_equal(lax.dynamic_slice(jnp.asarray(x), (5, 0), (3, 3)), x[3:6])
    np.testing.assert_array_equal(lax.dynamic_slice_in_dim(jnp.asarray(x), i, 2, 0), x[2:4])
    np.testing.assert_array_equal(lax.dynamic_index_in_dim(jnp.asarray(x), 1, 1, False), x[:, 1])
    u = f32(2, 3)
    expect = x.copy()
    expect[1:3] = u
    np.testing.assert_array_equal(
        lax.dynamic_update_slice_in_dim(jnp.asarray(x), jnp.asarray(u), 1, 0), expect)
    expect = x.copy()
    expect[:, 2] = 7.0
    np.testing.assert_array_equal(
        lax.dynamic_update_index_in_dim(jnp.asarray(x), jnp.full((6,), 7.0), -1, 1), expect)
    per = np.stack([x[k:k + 2] for k in range(3)])
    close(strata.vmap(lambda k: lax.dynamic_slice_in_dim(jnp.asarray(x), k, 2))(
        jnp.arange(3)), per)
    close(strata.jit(lambda k: lax.dynamic_index_in_dim(jnp.asarray(x), k))(i), x[2:3])
    g = strata.grad(lambda u: jnp.sum(lax.dynamic_slice_in_dim(u, i, 2) ** 2))(jnp.asarray(x))
    expect = np.zeros_like(x)
    expect[2:4] = 2 * x[2:4]
    close(g, expect)
    with pytest.raises(TypeError, match=r"^\[dynamic_slice\]"):
        lax.dynamic_slice(jnp.asarray(x), (0.5, 0), (1, 1))


def test_pad_negative_and_interior():
    x = np.arange(1, 6, dtype=np.float32)
    out = lax.pad(jnp.asarray(x), 0.0, [(-1, 2, 1)])
    np.testing.assert_array_equal(out, [0, 2, 0, 3, 0, 4, 0, 5, 0, 0])
    np.testing.assert_array_equal(out, _np_pad_1d(x, -1, 2, 1, 0.0))
    m = f32(3, 4)
    ref = np.pad(m, ((0, 1), (2, 0)))[1:, :-1]
    np.testing.assert_array_equal(lax.pad(jnp.asarray(m), 0.0, [(-1, 1, 0), (2, -1, 0)]), ref)
    g = strata.grad(lambda u: jnp.sum(lax.pad(u, 1.0, [(1, -2, 2)]) ** 2))(jnp.asarray(x))
    close(g, numerical_grad(lambda u: np.sum(_np_pad_1d(u, 1, -2, 2, 1.0) ** 2), x), 1e-3)
    with pytest.raises(ValueError):
        lax.pad(jnp.asarray(x), 0.0, [(0, 0, -1)])
    with pytest.raises(TypeError):
        lax.pad(jnp.asarray(x), jnp.asarray(0, "int32"), [(0, 0, 0)])


def _np_pad_1d(x, lo, hi, interior, value):
    n = len(x)
    body = np.full(n + (n - 1) * interior, value, x.dtype)
    body[::interior + 1] = x
    body = np.concatenate([np.full(max(lo, 0), value), body, np.full(max(hi, 0), value)])
    return body[max(-lo, 0):len(body) - max(-hi, 0)]


def test_full_full_like_zeros_iota():
    f = lax.full((2, 3), 1.5)
    assert f.weak_type and f.dtype == np.float32
    np.testing.assert_array_equal(f, np.full((2, 3), 1.5))
    g = lax.full((2,), 3, jnp.int8)
    assert g.dtype == np.int8 and not g.weak_type
    x = jnp.asarray(f32(2, 2))
    fl = lax.full_like(x, 7)
    assert fl.dtype == np.float32 and not fl.weak_type and float(fl[0, 0]) == 7.0
    assert lax.full_like(x, 1, shape=(3,)).shape == (3,)
    assert lax.full_like(np.zeros(3, np.int32), 2).dtype == np.int32
    assert lax.full_like(2.0, 1).weak_type
    np.testing.assert_array_equal(lax.zeros_like_array(x), np.zeros((2, 2)))
    np.testing.assert_array_equal(lax.iota(jnp.int32, 4), np.arange(4))
    np.testing.assert_array_equal(lax.broadcasted_iota("float32", (2, 3), 1),
                                  np.broadcast_to(np.arange(3.0), (2, 3)))
    with pytest.raises(TypeError, match=r"^\[full\]"):
        lax.full((2,), jnp.ones(2))


# ---- Sorting ---------------------------------------------------------------------------------

def test_sort_family():
    x = f32(3, 5)
    np.testing.assert_array_equal(lax.sort(jnp.asarray(x)), np.sort(x, -1))
    np.testing.assert_array_equal(lax.sort(jnp.asarray(x), 0), np.sort(x, 0))
    k = np.array([2, 1, 2, 1, 0], np.int32)
    v = np.arange(5, dtype=np.float32)
    sk, sv = lax.sort_key_val(jnp.asarray(k), jnp.asarray(v))
    order = np.argsort(k, kind="stable")
    np.testing.assert_array_equal(sk, k[order])
    np.testing.assert_array_equal(sv, v[order])
    k2 = np.array([1, 0, 1, 0, 0], np.int32)
    outs = lax.sort((jnp.asarray(k), jnp.asarray(k2), jnp.asarray(v)), num_keys=2)
    assert isinstance(outs, tuple) and len(outs) == 3
    order = np.lexsort((k2, k))
    np.testing.assert_array_equal(outs[2], v[order])
    g = strata.grad(lambda u: jnp.sum(lax.sort(u) * jnp.arange(5.0)))(jnp.asarray(x[0]))
    rank = np.argsort(np.argsort(x[0]))
    close(g, rank.astype(np.float32))
    with pytest.raises(ValueError):
        lax.sort(jnp.asarray(x), num_keys=2)
    with pytest.raises(ValueError):
        lax.sort((jnp.asarray(k),), num_keys=3)


def test_top_k():
    x = np.array([[3.0, 1.0, 3.0, 5.0, np.nan], [0.0, -1.0, 2.0, 2.0, 1.0]], np.float32)
    v, i = lax.top_k(jnp.asarray(x), 3)
    assert i.dtype == np.int32
    np.testing.assert_array_equal(i, [[4, 3, 0], [2, 3, 4]])
    np.testing.assert_array_equal(np.asarray(v)[1], [2.0, 2.0, 1.0])
    y = f32(4, 6)
    ti = np.argsort(-y, axis=0, kind="stable")[:2]
    v, i = lax.top_k(jnp.asarray(y), 2, axis=0)
    np.testing.assert_array_equal(i, ti)
    np.testing.assert_array_equal(v, np.take_along_axis(y, ti, 0))
    g = strata.grad(lambda u: jnp.sum(lax.top_k(u, 2)[0]))(jnp.asarray(y[0]))
    expect = np.zeros(6)
    expect[np.argsort(-y[0])[:2]] = 1
    close(g, expect)
    per = np.stack([np.asarray(lax.top_k(jnp.asarray(y[r]), 3)[0]) for r in range(4)])
    close(strata.vmap(lambda u: lax.top_k(u, 3)[0])(jnp.asarray(y)), per)
    with pytest.raises(ValueError):
        lax.top_k(jnp.asarray(y), -1)
    with pytest.raises(ValueError):
        lax.top_k(jnp.asarray(y), 7)


# ---- Reductions ------------------------------------------------------------------------------

def test_reduce_monoids_and_general():
    x = f32(3, 4)
    close(lax.reduce(jnp.asarray(x), 0.0, lax.add, (1,)), x.sum(1), 1e-5)
    close(lax.reduce(jnp.asarray(x), 1.0, lax.mul, (0, 1)), x.prod(), 1e-4)
    close(lax.reduce(jnp.asarray(x), -np.inf, lax.max, (0,)), x.max(0))
    close(lax.reduce(jnp.asarray(x), np.inf, jnp.minimum, (1,)), x.min(1))
    close(lax.reduce(jnp.asarray(x), 10.0, lax.add, (1,)), x.sum(1) + 10, 1e-5)  # init once
    i = RNG.integers(0, 64, (3, 5)).astype(np.int32)
    np.testing.assert_array_equal(lax.reduce(jnp.asarray(i), 0, lax.bitwise_or, (1,)),
                                  np.bitwise_or.reduce(i, 1))
    np.testing.assert_array_equal(lax.reduce(jnp.asarray(i), -1, lax.bitwise_and, (0,)),
                                  np.bitwise_and.reduce(i, 0))
    # A non-monoid computation over a pair of operands: a running (max, argmax).
    vals, idx = jnp.asarray(x), lax.broadcasted_iota("int32", (3, 4), 1)

    def pick(a, b):
        take_b = lax.gt(b[0], a[0])
        return lax.select(take_b, b[0], a[0]), lax.select(take_b, b[1], a[1])
    m, am = lax.reduce((vals, idx), (-np.inf, 0), pick, (1,))
    close(m, x.max(1))
    np.testing.assert_array_equal(am, x.argmax(1))
    # A general computation that is not a known monoid.
    out = lax.reduce(jnp.asarray(x), 0.0, lambda a, b: a + b * 2.0 - b, (0,))
    close(out, x.sum(0), 1e-5)
    g = strata.grad(lambda u: jnp.sum(lax.reduce(u, 0.0, lambda a, b: lax.max(a, b), (1,))))(
        jnp.asarray(np.abs(x)))
    expect = np.zeros_like(x)
    expect[np.arange(3), np.abs(x).argmax(1)] = 1
    close(g, expect)
    per = np.stack([np.asarray(lax.reduce(jnp.asarray(x[r]), 0.0, lambda a, b: a + b, (0,)))
                    for r in range(3)])
    close(strata.vmap(lambda u: lax.reduce(u, 0.0, lambda a, b: a + b, (0,)))(jnp.asarray(x)),
          per, 1e-5)
    close(strata.jit(lambda u: lax.reduce(u, 0.0, lax.add, (0, 1)))(jnp.asarray(x)), x.sum(),
          1e-5)
    with pytest.raises(TypeError):
        lax.reduce(jnp.asarray(x), jnp.zeros(2), lax.add, (0,))


def test_reduce_named():
    x = f32(2, 3)
    close(lax.reduce_sum(jnp.asarray(x), (0, 1)), x.sum(), 1e-5)
    close(lax.reduce_prod(jnp.asarray(x), (1,)), x.prod(1), 1e-5)
    close(lax.reduce_max(jnp.asarray(x), (0,)), x.max(0))
    close(lax.reduce_min(jnp.asarray(x), ()), x)
    b = np.array([[True, False, True], [True, True, True]])
    np.testing.assert_array_equal(lax.reduce_and(jnp.asarray(b), (1,)), b.all(1))
    np.testing.assert_array_equal(lax.reduce_or(jnp.asarray(b), (0,)), b.any(0))
    np.testing.assert_array_equal(lax.reduce_xor(jnp.asarray(b), (1,)),
                                  np.logical_xor.reduce(b, 1))
    i = RNG.integers(-100, 100, (4, 5)).astype(np.int32)
    np.testing.assert_array_equal(lax.reduce_xor(jnp.asarray(i), (0,)),
                                  np.bitwise_xor.reduce(i, 0))
    np.testing.assert_array_equal(lax.reduce_and(jnp.asarray(i), (0, 1)),
                                  np.bitwise_and.reduce(i.ravel()))
    np.testing.assert_array_equal(lax.reduce_or(jnp.zeros((0, 2), "int32"), (0,)), [0, 0])
    with pytest.raises(TypeError):
        lax.reduce_and(jnp.asarray(x), (0,))
    with pytest.raises(ValueError):
        lax.reduce_sum(jnp.asarray(x), (2,))


def test_argmax_argmin():
    x = f32(3, 4)
    a = lax.argmax(jnp.asarray(x), 1, jnp.int32)
    assert a.dtype == np.int32
    np.testing.assert_array_equal(a, x.argmax(1))
    np.testing.assert_array_equal(lax.argmin(jnp.asarray(x), 0, "int32"), x.argmin(0))
    with pytest.raises(TypeError):
        lax.argmax(jnp.asarray(x), 1)  # index_dtype is required, as in JAX


# ---- Gather and scatter ----------------------------------------------------------------------

def _np_gather_rows(x, rows, fill):
    return np.stack([x[r] if 0 <= r < len(x) else np.full(x.shape[1:], fill) for r in rows])


def test_gather_modes():
    x = f32(5, 3)
    idx = np.array([[1], [4], [7], [-1]], np.int32)
    dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                    start_index_map=(0,))
    out = lax.gather(jnp.asarray(x), jnp.asarray(idx), dn, (1, 3))
    np.testing.assert_array_equal(out, _np_gather_rows(x, idx[:, 0], np.nan))
    out = lax.gather(jnp.asarray(x), jnp.asarray(idx), dn, (1, 3), mode="fill", fill_value=-1.0)
    np.testing.assert_array_equal(out, _np_gather_rows(x, idx[:, 0], -1.0))
    out = lax.gather(jnp.asarray(x), jnp.asarray(idx), dn, (1, 3),
                     mode=lax.GatherScatterMode.CLIP)
    np.testing.assert_array_equal(out, x[np.clip(idx[:, 0], 0, 4)])
    i = np.arange(15, dtype=np.int32).reshape(5, 3)
    out = lax.gather(jnp.asarray(i), jnp.asarray(idx), dn, (1, 3))
    assert np.asarray(out)[2, 0] == np.iinfo(np.int32).min
    assert lax.GatherScatterMode.from_any(None) is lax.GatherScatterMode.FILL_OR_DROP
    assert lax.GatherScatterMode.from_any("promise_in_bounds") is \
        lax.GatherScatterMode.PROMISE_IN_BOUNDS
    with pytest.raises(ValueError):
        lax.GatherScatterMode.from_any("wrap")


def test_gather_windows_and_batching_dims():
    x = f32(4, 6)
    # 2x3 windows at (row, col) starts: output (batch, 2, 3); a window that does not fit is
    # filled (default) or shifted in (clip).
    starts = np.array([[0, 0], [2, 3], [3, 4]], np.int32)
    dn = lax.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(),
                                    start_index_map=(0, 1))
    out = np.asarray(lax.gather(jnp.asarray(x), jnp.asarray(starts), dn, (2, 3), mode="clip"))
    for b, (r, c) in enumerate(starts):
        r, c = min(r, 2), min(c, 3)
        np.testing.assert_array_equal(out[b], x[r:r + 2, c:c + 3])
    out = np.asarray(lax.gather(jnp.asarray(x), jnp.asarray(starts), dn, (2, 3)))
    assert np.isnan(out[2]).all() and not np.isnan(out[:2]).any()
    # Operand batching: row b of x indexed by its own column index (take_along_axis).
    cols = np.array([[1], [5], [0], [2]], np.int32)
    dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(1,),
                                    start_index_map=(1,), operand_batching_dims=(0,),
                                    start_indices_batching_dims=(0,))
    out = lax.gather(jnp.asarray(x), jnp.asarray(cols), dn, (1, 1))
    np.testing.assert_array_equal(out, x[np.arange(4), cols[:, 0]])


def test_gather_grad_vmap_jit():
    x = f32(5, 3)
    idx = jnp.asarray(np.array([[1], [1], [3]], np.int32))
    dn = lax.GatherDimensionNumbers((1,), (0,), (0,))

    def f(u):
        return jnp.sum(lax.gather(u, idx, dn, (1, 3), mode="clip") ** 2)
    g = strata.grad(f)(jnp.asarray(x))
    close(g, numerical_grad(lambda u: np.sum(u[[1, 1, 3]] ** 2), x), 1e-3)
    xs = f32(4, 5, 3)
    per = np.stack([np.asarray(lax.gather(jnp.asarray(xs[k]), idx, dn, (1, 3))) for k in range(4)])
    close(strata.vmap(lambda u: lax.gather(u, idx, dn, (1, 3)))(jnp.asarray(xs)), per)
    close(strata.jit(lambda u, i: lax.gather(u, i, dn, (1, 3)))(jnp.asarray(x), idx),
          x[[1, 1, 3]])


def test_scatter_family():
    x = f32(5)
    idx = np.array([[1], [1], [3], [9]], np.int32)
    u = np.array([2.0, 3.0, -4.0, 100.0], np.float32)
    dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    args = (jnp.asarray(x), jnp.asarray(idx), jnp.asarray(u), dn)
    for op, ufunc in [(lax.scatter_add, np.add), (lax.scatter_sub, np.subtract),
                      (lax.scatter_mul, np.multiply), (lax.scatter_min, np.minimum),
                      (lax.scatter_max, np.maximum)]:
        expect = x.copy()
        ufunc.at(expect, [1, 1, 3], u[:3])  # index 9 is out of bounds: dropped
        close(op(*args), expect)
    st = np.asarray(lax.scatter(jnp.asarray(x), jnp.asarray(idx[2:]), jnp.asarray(u[2:]), dn))
    expect = x.copy()
    expect[3] = u[2]
    close(st, expect)
    clip = x.copy()
    np.add.at(clip, [1, 1, 3, 4], u)
    close(lax.scatter_add(*args, mode="clip"), clip)
    ap = np.asarray(lax.scatter_apply(jnp.asarray(x), jnp.asarray(idx), lambda v: v * 2.0, dn,
                                      update_shape=(4,)))
    expect = x.copy()
    expect[1] *= 4
    expect[3] *= 2
    close(ap, expect)


def test_scatter_windows_and_batching_dims():
    x = np.zeros((4, 5), np.float32)
    # Row windows of 5 added at rows 0 and 2 (update_window_dims names the updates' dim 1).
    dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    u = f32(2, 5)
    out = lax.scatter_add(jnp.asarray(x), jnp.asarray([[0], [2]]), jnp.asarray(u), dn)
    expect = x.copy()
    expect[[0, 2]] += u
    close(out, expect)
    out = lax.scatter_max(jnp.asarray(x), jnp.asarray([[0], [2]]), jnp.asarray(u), dn)
    close(out, np.where(np.isin(np.arange(4), [0, 2])[:, None], np.maximum(expect, 0), 0))
    # Operand batching: row b gets its update at its own column.
    cols = np.array([[1], [4], [0], [2]], np.int32)
    vals = f32(4)
    dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(1,),
                                     scatter_dims_to_operand_dims=(1,),
                                     operand_batching_dims=(0,),
                                     scatter_indices_batching_dims=(0,))
    out = lax.scatter(jnp.asarray(x), jnp.asarray(cols), jnp.asarray(vals), dn)
    expect = x.copy()
    expect[np.arange(4), cols[:, 0]] = vals
    close(out, expect)
    out = lax.scatter_mul(jnp.ones((4, 5)), jnp.asarray(cols), jnp.asarray(vals), dn)
    expect = np.ones((4, 5), np.float32)
    expect[np.arange(4), cols[:, 0]] = vals
    close(out, expect)


def test_scatter_grad_vmap_jit_errors():
    x = f32(5)
    idx = jnp.asarray(np.array([[1], [3]], np.int32))
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))
    u = f32(2)

    def f(a, b):
        return jnp.sum(lax.scatter_mul(a, idx, b, dn) ** 2)
    ga, gb = strata.grad(f, argnums=(0, 1))(jnp.asarray(x), jnp.asarray(u))

    def ref(a, b):
        a = a.copy()
        a[[1, 3]] *= b
        return np.sum(a ** 2)
    close(ga, numerical_grad(lambda a: ref(a, u.astype(np.float64)), x), 1e-3)
    close(gb, numerical_grad(lambda b: ref(x.astype(np.float64), b), u), 1e-3)
    xs = f32(3, 5)
    per = np.stack([np.asarray(lax.scatter_add(jnp.asarray(xs[k]), idx, jnp.asarray(u), dn))
                    for k in range(3)])
    close(strata.vmap(lambda a: lax.scatter_add(a, idx, jnp.asarray(u), dn))(jnp.asarray(xs)),
          per)
    close(strata.jit(lambda a: lax.scatter_max(a, idx, jnp.asarray(u), dn))(jnp.asarray(x)),
          lax.scatter_max(jnp.asarray(x), idx, jnp.asarray(u), dn))
    with pytest.raises(TypeError, match=r"^\[scatter_add\]"):
        lax.scatter_add(jnp.asarray(x), idx, jnp.ones(3), dn)
    with pytest.raises(TypeError, match=r"^\[scatter\]"):
        lax.scatter(jnp.asarray(x), jnp.asarray([[0.5]]), jnp.ones(1), dn)


def test_index_take():
    x = f32(4, 5, 2)
    r, c = np.array([0, 3, 1], np.int32), np.array([4, 0, 2], np.int32)
    out = lax.index_take(jnp.asarray(x), (jnp.asarray(r), jnp.asarray(c)), (0, 1))
    np.testing.assert_array_equal(out, x[r, c])


# ---- map, associative_scan, cumulative reductions --------------------------------------------

@pytest.mark.parametrize("batch_size", [None, 1, 3, 7, 10])
def test_map_batch_size(batch_size):
    xs = f32(7, 2)
    out = lax.map(lambda v: {"s": jnp.sum(v ** 2), "v": v * 2.0}, jnp.asarray(xs),
                  batch_size=batch_size)
    close(out["s"], (xs ** 2).sum(1), 1e-5)
    close(out["v"], xs * 2)


def test_map_batch_size_grad_jit():
    xs = f32(5, 3)

    def f(u):
        return jnp.sum(lax.map(lambda v: jnp.sin(v) * v, u, batch_size=2))
    close(strata.grad(f)(jnp.asarray(xs)),
          numerical_grad(lambda u: np.sum(np.sin(u) * u), xs), 1e-3)
    close(strata.jit(f)(jnp.asarray(xs)), np.sum(np.sin(xs) * xs), 1e-5)
    with pytest.raises(ValueError):
        lax.map(lambda v: v, jnp.asarray(xs), batch_size=0)


@pytest.mark.parametrize("n", [1, 2, 3, 8, 13])
def test_associative_scan_cumsum(n):
    x = f32(n, 3)
    close(lax.associative_scan(lax.add, jnp.asarray(x)), np.cumsum(x, 0), 1e-5)
    close(lax.associative_scan(lax.add, jnp.asarray(x), reverse=True),
          np.cumsum(x[::-1], 0)[::-1], 1e-5)
    close(lax.associative_scan(jnp.maximum, jnp.asarray(x.T), axis=1),
          np.maximum.accumulate(x.T, 1))


@pytest.mark.parametrize("n", [1, 2, 5, 8, 11])
def test_associative_scan_matrix_products(n):
    """A non-commutative op over a pytree: 2x2 matrices as four leaves, composed in order."""
    m = f32(n, 2, 2)
    elems = {"a": m[:, 0, 0], "b": m[:, 0, 1], "c": m[:, 1, 0], "d": m[:, 1, 1]}

    def matmul(p, q):
        return {"a": p["a"] * q["a"] + p["b"] * q["c"], "b": p["a"] * q["b"] + p["b"] * q["d"],
                "c": p["c"] * q["a"] + p["d"] * q["c"], "d": p["c"] * q["b"] + p["d"] * q["d"]}
    out = lax.associative_scan(matmul, {k: jnp.asarray(v) for k, v in elems.items()})
    acc, ref = np.eye(2, dtype=np.float64), []
    for k in range(n):
        acc = acc @ m[k]
        ref.append(acc.copy())
    ref = np.array(ref)
    close(out["a"], ref[:, 0, 0], 1e-4)
    close(out["b"], ref[:, 0, 1], 1e-4)
    close(out["d"], ref[:, 1, 1], 1e-4)
    rev = lax.associative_scan(matmul, {k: jnp.asarray(v) for k, v in elems.items()},
                               reverse=True)
    # reverse=True scans the reversed sequence (as JAX): element k is m[n-1] @ ... @ m[k].
    acc, ref = np.eye(2), []
    for k in reversed(range(n)):
        acc = acc @ m[k]
        ref.append(acc.copy())
    ref = np.array(ref[::-1])
    close(rev["b"], ref[:, 0, 1], 1e-4)


def test_associative_scan_grad_vmap_jit_errors():
    x = f32(6)
    g = strata.grad(lambda u: jnp.sum(lax.associative_scan(lax.mul, u) ** 2))(jnp.asarray(x))
    close(g, numerical_grad(lambda u: np.sum(np.cumprod(u) ** 2), x), 2e-3)
    xs = f32(3, 6)
    per = np.stack([np.cumsum(xs[k]) for k in range(3)])
    close(strata.vmap(lambda u: lax.associative_scan(lax.add, u))(jnp.asarray(xs)), per, 1e-5)
    close(strata.jit(lambda u: lax.associative_scan(lax.add, u, axis=1))(jnp.asarray(xs)),
          np.cumsum(xs, 1), 1e-5)
    with pytest.raises(ValueError):
        lax.associative_scan(lambda a, b: a, (jnp.ones(3), jnp.ones(4)))


def test_cumulative_reductions():
    x = f32(4, 5)
    close(lax.cumsum(jnp.asarray(x), axis=1), np.cumsum(x, 1), 1e-5)
    close(lax.cumprod(jnp.asarray(x), 0, reverse=True), np.cumprod(x[::-1], 0)[::-1], 1e-5)
    close(lax.cummax(jnp.asarray(x), axis=-1), np.maximum.accumulate(x, 1))
    close(lax.cummin(jnp.asarray(x)), np.minimum.accumulate(x, 0))
    ref = np.logaddexp.accumulate(x.astype(np.float64), 1)
    close(lax.cumlogsumexp(jnp.asarray(x), axis=1), ref, 1e-5)
    close(lax.cumlogsumexp(jnp.asarray(x), 0, reverse=True),
          np.logaddexp.accumulate(x[::-1].astype(np.float64), 0)[::-1], 1e-5)
    big = np.array([1000.0, 1000.0, -np.inf, -1000.0], np.float32)
    close(lax.cumlogsumexp(jnp.asarray(big)), np.logaddexp.accumulate(big.astype(np.float64)),
          1e-5)
    assert np.asarray(lax.cumlogsumexp(jnp.asarray([-np.inf, -np.inf])))[1] == -np.inf
    g = strata.grad(lambda u: jnp.sum(lax.cumlogsumexp(u)))(jnp.asarray(x[0]))
    close(g, numerical_grad(lambda u: np.sum(np.logaddexp.accumulate(u)), x[0]), 2e-3)
    with pytest.raises(TypeError):
        lax.cumlogsumexp(jnp.arange(3))


# ---- custom_root, custom_linear_solve --------------------------------------------------------

def _newton(f, x0):
    return lax.fori_loop(0, 30, lambda i, x: x - f(x) / strata.grad(f)(x), x0)


def _sqrt_root(a):
    return lax.custom_root(lambda x: x * x - a, 1.0, _newton, lambda g, y: y / g(1.0))


def test_custom_root_newton_sqrt():
    a = jnp.asarray(np.float32(7.0))
    close(_sqrt_root(a), math.sqrt(7.0), 1e-6)
    close(strata.grad(_sqrt_root)(a), 0.5 / math.sqrt(7.0), 1e-5)
    close(strata.jvp(_sqrt_root, (a,), (jnp.asarray(np.float32(2.0)),))[1],
          1.0 / math.sqrt(7.0), 1e-5)
    xs = np.array([1.0, 4.0, 9.0, 2.0], np.float32)
    close(strata.vmap(strata.grad(_sqrt_root))(jnp.asarray(xs)), 0.5 / np.sqrt(xs), 1e-5)
    close(strata.jit(strata.grad(_sqrt_root))(a), 0.5 / math.sqrt(7.0), 1e-5)


def test_custom_root_vector_has_aux():
    a = np.array([2.0, 3.0, 5.0], np.float32)

    def solve(f, x0):
        x = _newton_vec(f, x0)
        return x, {"iters": jnp.asarray(30)}

    def _newton_vec(f, x0):
        return lax.fori_loop(0, 30, lambda i, x: x - f(x) / (2 * x), x0)

    def cube_root_sum(p):
        root, aux = lax.custom_root(lambda x: x * x - p, jnp.ones(3), solve,
                                    lambda g, y: y / g(jnp.ones(3)), has_aux=True)
        return jnp.sum(root * jnp.asarray([1.0, 2.0, 3.0])), aux
    (val, aux), g = strata.value_and_grad(cube_root_sum, has_aux=True)(jnp.asarray(a))
    close(val, np.sum(np.sqrt(a) * [1, 2, 3]), 1e-5)
    close(g, np.array([1, 2, 3]) * 0.5 / np.sqrt(a), 1e-5)
    assert int(aux["iters"]) == 30


def _dense_solve(a):
    """A linear solve by Gauss-Jordan elimination over strata ops (no pivoting; a is SPD)."""
    def solve(matvec, b):
        n = b.shape[0]
        m = jnp.stack([matvec(jnp.asarray(np.eye(n, dtype=np.float32)[k])) for k in range(n)],
                      axis=1)
        aug = jnp.concatenate([m, b[:, None]], axis=1)
        for k in range(n):
            aug = aug.at[k].set(aug[k] / aug[k, k])
            for r in range(n):
                if r != k:
                    aug = aug.at[r].set(aug[r] - aug[r, k] * aug[k])
        return aug[:, n]
    return solve


def test_custom_linear_solve_grad_vs_numpy():
    rng = np.random.default_rng(3)
    q = rng.standard_normal((3, 3))
    a = (q @ q.T + 3 * np.eye(3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    w = np.array([1.0, -2.0, 0.5], np.float32)

    def loss(am, bv):
        x = lax.custom_linear_solve(lambda v: am @ v, bv, _dense_solve(am), symmetric=True)
        return jnp.sum(x * jnp.asarray(w))
    close(loss(jnp.asarray(a), jnp.asarray(b)), np.linalg.solve(a, b) @ w, 1e-4)
    ga, gb = strata.grad(loss, argnums=(0, 1))(jnp.asarray(a), jnp.asarray(b))
    # d(w . A^-1 b): db = A^-T w, dA = -(A^-T w) x^T.
    x = np.linalg.solve(a.astype(np.float64), b)
    lam = np.linalg.solve(a.T.astype(np.float64), w)
    close(gb, lam, 1e-4)
    close(ga, -np.outer(lam, x), 1e-4)
    t = strata.jvp(lambda bv: loss(jnp.asarray(a), bv), (jnp.asarray(b),),
                   (jnp.asarray(np.ones(3, np.float32)),))[1]
    close(t, lam.sum(), 1e-4)


def test_custom_linear_solve_has_aux_jit():
    a = jnp.asarray(np.diag([2.0, 4.0, 8.0]).astype(np.float32))

    def solve(matvec, b):
        return b / jnp.asarray([2.0, 4.0, 8.0]), jnp.asarray(1)

    def f(b):
        x, aux = lax.custom_linear_solve(lambda v: a @ v, b, solve, has_aux=True)
        return jnp.sum(x ** 2), aux
    b = np.array([1.0, 2.0, 3.0], np.float32)
    (v, aux), g = strata.jit(strata.value_and_grad(f, has_aux=True))(jnp.asarray(b))
    close(v, np.sum((b / [2, 4, 8]) ** 2), 1e-5)
    close(g, 2 * b / np.array([2, 4, 8]) ** 2, 1e-5)
    assert int(aux) == 1


def _cg(matvec, b):
    """Conjugate gradients until the residual is 1e-6 of |b| (a while_loop)."""
    tol = 1e-12 * jnp.sum(b * b)

    def cond(s):
        return jnp.logical_and(s[3] > tol, s[4] < 50)

    def body(s):
        x, r, p, rr, k = s
        ap = matvec(p)
        alpha = rr / jnp.sum(p * ap)
        x, r = x + alpha * p, r - alpha * ap
        rr_new = jnp.sum(r * r)
        return x, r, r + (rr_new / rr) * p, rr_new, k + 1
    return lax.while_loop(cond, body, (jnp.zeros_like(b), b, b, jnp.sum(b * b), 0))[0]


def test_custom_linear_solve_iterative_solver():
    """An iterative solve (CG stopping on a relative residual) still gives the implicit
    derivative: the extra solve is never handed a zero right-hand side."""
    rng = np.random.default_rng(5)
    q = rng.standard_normal((4, 4))
    a = (q @ q.T + 4 * np.eye(4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)

    def loss(am, bv):
        x = lax.custom_linear_solve(lambda v: am @ v, bv, _cg, symmetric=True)
        return jnp.sum(x ** 2)
    x = np.linalg.solve(a.astype(np.float64), b)
    close(loss(jnp.asarray(a), jnp.asarray(b)), np.sum(x ** 2), 1e-4)
    ga, gb = strata.grad(loss, argnums=(0, 1))(jnp.asarray(a), jnp.asarray(b))
    lam = np.linalg.solve(a.T.astype(np.float64), 2 * x)
    close(gb, lam, 1e-3)
    close(ga, -np.outer(lam, x), 1e-3)


# ---- Groups under grad, vmap and jit ---------------------------------------------------------

def _shape_pipeline(u):
    """Many shape helpers composed: u is [4, 3]."""
    a = lax.broadcast_in_dim(u, (2, 4, 3), (1, 2))
    a = lax.collapse(a, 0, 2)                                        # [8, 3]
    a = lax.concatenate([a, lax.rev(a, (0,))], 1)                    # [8, 6]
    a = lax.slice_in_dim(a, 1, -1, 2, 0)                             # [3, 6]
    a = lax.expand_dims(lax.index_in_dim(a, 1, 1, False), (0,))      # [1, 3]
    a = lax.squeeze(lax.transpose(lax.broadcast(a, (2,)), (1, 0, 2)), (0,))  # [2, 3]
    a = lax.dynamic_update_slice_in_dim(lax.pad(a, 0.0, [(1, 0, 1), (0, 0, 0)]),
                                        lax.clamp(-0.5, a[:1], 0.5), 1, 0)
    a = lax.reshape(a, (3, 4), dimensions=(1, 0))
    return lax.reduce_max(lax.square(a), (1,)) + lax.reduce_sum(a, (0, 1))


def _np_shape_pipeline(u):
    a = np.broadcast_to(u, (2, 4, 3)).reshape(8, 3)
    a = np.concatenate([a, a[::-1]], 1)[1:-1:2]
    a = a[:, 1][None]
    a = np.broadcast_to(a, (2, 1, 3)).transpose(1, 0, 2)[0]
    p = np.zeros((4, 3), a.dtype)
    p[1::2] = a
    p[1:2] = np.clip(a[:1], -0.5, 0.5)
    a = p.T.reshape(3, 4)
    return np.max(a * a, 1) + a.sum()


def test_shape_helpers_grad_vmap_jit():
    x = f32(4, 3)
    close(_shape_pipeline(jnp.asarray(x)), _np_shape_pipeline(x), 1e-5)
    close(strata.jit(_shape_pipeline)(jnp.asarray(x)), _np_shape_pipeline(x), 1e-5)
    g = strata.grad(lambda u: jnp.sum(_shape_pipeline(u)))(jnp.asarray(x))
    close(g, numerical_grad(lambda u: np.sum(_np_shape_pipeline(u)), x), 2e-3)
    xs = f32(3, 4, 3)
    per = np.stack([_np_shape_pipeline(xs[k]) for k in range(3)])
    close(strata.vmap(_shape_pipeline)(jnp.asarray(xs)), per, 1e-5)


def test_scatter_min_max_grad():
    x = f32(5)
    idx = jnp.asarray(np.array([[0], [2], [2]], np.int32))
    u = np.array([5.0, -3.0, 4.0], np.float32)
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))

    def ref_max(a, b):
        a = a.copy()
        np.maximum.at(a, [0, 2, 2], b)
        return np.sum(a * np.arange(1, 6))
    g = strata.grad(lambda a, b: jnp.sum(lax.scatter_max(a, idx, b, dn) * jnp.arange(1.0, 6.0)),
                    argnums=(0, 1))(jnp.asarray(x), jnp.asarray(u))
    close(g[0], numerical_grad(lambda a: ref_max(a, u.astype(np.float64)), x, 1e-4), 1e-3)
    close(g[1], numerical_grad(lambda b: ref_max(x.astype(np.float64), b), u, 1e-4), 1e-3)
    close(strata.jit(lambda a: lax.scatter_min(a, idx, jnp.asarray(u), dn))(jnp.asarray(x)),
          np.minimum(x, np.array([5.0, np.inf, -3.0, np.inf, np.inf], np.float32)))


def test_scatter_apply_traced_jit():
    x = f32(6)
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))

    @strata.jit
    def f(a, i):
        return lax.scatter_apply(a, i, lambda v: v * 3.0, dn, update_shape=(3,))
    out = f(jnp.asarray(x), jnp.asarray(np.array([[4], [4], [1]], np.int32)))
    expect = x.copy()
    expect[4] *= 9
    expect[1] *= 3
    close(out, expect)


def test_accuracy_keyword_and_nary_wrappers():
    x = np.abs(f32(3)) + 0.1
    close(lax.exp(jnp.asarray(x), accuracy=lax.AccuracyMode.HIGHEST), np.exp(x), 1e-6)
    close(lax.log(jnp.asarray(x), accuracy=lax.Tolerance(atol=1e-6)), np.log(x), 1e-6)
    close(lax.sqrt(2.0), math.sqrt(2.0), 1e-6)
    with pytest.raises(TypeError):
        lax.sin(jnp.asarray(x), accuracy="high")
    with pytest.raises(ValueError):
        lax.Tolerance()
    from strata._lax_ops import _nary
    op = _nary("atan2", ("x1", "x2"), "atan2.")
    close(op(x2=jnp.ones((1, 3)), x1=jnp.asarray(x[None])), np.arctan2(x[None], 1.0), 1e-6)
    close(op(jnp.asarray(x), 2.0), np.arctan2(x, 2.0), 1e-6)
    out = lax.nextafter(jnp.asarray(np.float32([1.0, 2.0])), 3.0)
    np.testing.assert_array_equal(out, np.nextafter(np.float32([1, 2]), np.float32(3)))


def test_broadcast_shapes_padtype_approx_k():
    assert lax.broadcast_shapes((3, 1), (1, 4), (5, 1, 1)) == (5, 3, 4)
    assert lax.broadcast_shapes((2,)) == (2,)
    with pytest.raises(ValueError):
        lax.broadcast_shapes((3, 1), (4, 1))
    assert lax.padtype_to_pads((5, 6), (3, 2), (2, 1), "VALID") == [(0, 0), (0, 0)]
    # SAME: output ceil(n / s), the extra pad at the end (SAME_LOWER: at the start).
    assert lax.padtype_to_pads((5, 6), (3, 2), (2, 1), "SAME") == [(1, 1), (0, 1)]
    assert lax.padtype_to_pads((6,), (4,), (1,), lax.PaddingType.SAME_LOWER) == [(2, 1)]
    x = f32(3, 6)
    v, i = lax.approx_max_k(jnp.asarray(x), 2)
    order = np.argsort(-x, 1, kind="stable")[:, :2]
    np.testing.assert_array_equal(i, order)
    np.testing.assert_array_equal(v, np.take_along_axis(x, order, 1))
    v, i = lax.approx_min_k(jnp.asarray(x), 3, reduction_dimension=0)
    order = np.argsort(x, 0, kind="stable")
    np.testing.assert_array_equal(i, order)
    np.testing.assert_array_equal(v, np.sort(x, 0))
    g = strata.grad(lambda u: jnp.sum(lax.approx_min_k(u, 1)[0]))(jnp.asarray(x))
    expect = np.zeros_like(x)
    expect[np.arange(3), x.argmin(1)] = 1
    close(g, expect)


def test_more_transform_coverage():
    x = f32(5, 3)
    dn = lax.GatherDimensionNumbers((1,), (0,), (0,))
    rows = np.array([[[0], [4]], [[2], [2]], [[3], [1]]], np.int32)  # a batch of index sets
    per = np.stack([x[r[:, 0]] for r in rows])
    close(strata.vmap(lambda i: lax.gather(jnp.asarray(x), i, dn, (1, 3)))(jnp.asarray(rows)),
          per)
    y = f32(4, 6)
    close(strata.jit(lambda u: lax.sort(u, 0))(jnp.asarray(y)), np.sort(y, 0))
    v, i = strata.jit(lambda u: lax.top_k(u, 2))(jnp.asarray(y))
    np.testing.assert_array_equal(i, np.argsort(-y, 1, kind="stable")[:, :2])
    d = RNG.standard_normal(50) * 10.0 ** RNG.integers(-20, 20, 50)
    out = lax.reduce_precision(jnp.asarray(d), 8, 23)
    if out.dtype == np.float64:  # float64 kept (x64): rounds as a cast to float32
        np.testing.assert_array_equal(np.asarray(out), d.astype(np.float32).astype(np.float64))
    with pytest.raises(TypeError):
        lax.dot_general(jnp.ones((2,), "int32"), jnp.ones((2,), "int32"),
                        (((0,), (0,)), ((), ())), preferred_element_type="int8")


def _np_gather(x, idx, offset_dims, collapsed, smap, sizes, obatch=(), ibatch=()):
    """XLA's gather semantics (clamped starts) by loops: the oracle for the general cases."""
    bshape = idx.shape[:-1]
    window = [d for d in range(x.ndim) if d not in collapsed and d not in obatch]
    rank = len(bshape) + len(offset_dims)
    bpos = [p for p in range(rank) if p not in offset_dims]
    out_shape = [0] * rank
    for p, b in zip(bpos, bshape):
        out_shape[p] = b
    for p, d in zip(offset_dims, window):
        out_shape[p] = sizes[d]
    out = np.zeros(out_shape, x.dtype)
    for o in np.ndindex(*out_shape):
        b = tuple(o[p] for p in bpos)
        pos = []
        for d in range(x.ndim):
            s = 0
            if d in smap:
                s = int(np.clip(idx[b + (smap.index(d),)], 0, x.shape[d] - sizes[d]))
            elif d in obatch:
                s = b[ibatch[obatch.index(d)]]
            if d in window:
                s += o[offset_dims[window.index(d)]]
            pos.append(s)
        out[o] = x[tuple(pos)]
    return out


GATHER_CASES = [
    # (operand shape, index shape, offset_dims, collapsed, start_index_map, slice_sizes)
    ((4, 5), (3, 1), (1,), (0,), (0,), (1, 5)),
    ((4, 5), (3, 1), (0,), (0,), (0,), (1, 5)),        # window dim before the batch dim
    ((4, 5, 6), (2, 3, 2), (2, 3), (1,), (1, 0), (2, 1, 3)),
    ((4, 5, 6), (2, 2), (0, 1, 2), (), (2, 0), (1, 4, 2)),
    ((6,), (2, 3, 1), (), (0,), (0,), (1,)),
]


@pytest.mark.parametrize("case", GATHER_CASES)
def test_gather_general_against_loops(case):
    shape, ishape, offset_dims, collapsed, smap, sizes = case
    x = f32(*shape)
    hi = max(shape) + 2
    idx = RNG.integers(-2, hi, ishape).astype(np.int32)
    dn = lax.GatherDimensionNumbers(offset_dims, collapsed, smap)
    out = lax.gather(jnp.asarray(x), jnp.asarray(idx), dn, sizes, mode="clip")
    np.testing.assert_array_equal(out, _np_gather(x, idx, offset_dims, collapsed, smap, sizes))
    ok = np.all([(idx[..., k] >= 0) & (idx[..., k] <= shape[d] - sizes[d])
                 for k, d in enumerate(smap)], axis=0)
    filled = np.asarray(lax.gather(jnp.asarray(x), jnp.asarray(idx), dn, sizes, fill_value=-7.0))
    ref = _np_gather(x, idx, offset_dims, collapsed, smap, sizes)
    bpos = [p for p in range(ref.ndim) if p not in offset_dims]
    expect = ref.copy()
    for o in np.ndindex(*ref.shape):
        if not ok[tuple(o[p] for p in bpos)]:
            expect[o] = -7.0
    np.testing.assert_array_equal(filled, expect)


def _np_scatter_add(x, idx, u, uwd, iwd, sdod):
    """XLA's scatter-add semantics (out-of-bounds windows dropped) by loops."""
    out = x.copy()
    usd = [p for p in range(u.ndim) if p not in uwd]
    window = [d for d in range(x.ndim) if d not in iwd]
    wsize = [1] * x.ndim
    for p, d in zip(uwd, window):
        wsize[d] = u.shape[p]
    for e in np.ndindex(*u.shape):
        b = tuple(e[p] for p in usd)
        starts = [0] * x.ndim
        for k, d in enumerate(sdod):
            starts[d] = int(idx[b + (k,)])
        if any(not 0 <= starts[d] <= x.shape[d] - wsize[d] for d in range(x.ndim)):
            continue
        pos = list(starts)
        for p, d in zip(uwd, window):
            pos[d] += e[p]
        out[tuple(pos)] += u[e]
    return out


SCATTER_CASES = [
    # (operand shape, index shape, updates shape, update_window_dims, inserted, sdod)
    ((5, 4), (3, 1), (3, 4), (1,), (0,), (0,)),
    ((5, 4), (3, 1), (4, 3), (0,), (0,), (0,)),
    ((5, 4, 3), (2, 2), (2, 2, 3), (1, 2), (1,), (1, 0)),
    ((6,), (2, 2, 1), (2, 2), (), (0,), (0,)),
]


@pytest.mark.parametrize("case", SCATTER_CASES)
def test_scatter_general_against_loops(case):
    shape, ishape, ushape, uwd, iwd, sdod = case
    x, u = f32(*shape), f32(*ushape)
    idx = RNG.integers(-1, max(shape) + 1, ishape).astype(np.int32)
    dn = lax.ScatterDimensionNumbers(uwd, iwd, sdod)
    out = lax.scatter_add(jnp.asarray(x), jnp.asarray(idx), jnp.asarray(u), dn)
    close(out, _np_scatter_add(x, idx, u, uwd, iwd, sdod))
    ones = np.ones(shape, np.float32)
    out = lax.scatter_mul(jnp.asarray(ones), jnp.asarray(idx), jnp.asarray(np.exp(u)), dn)
    close(np.log(np.asarray(out)), _np_scatter_add(np.zeros(shape, np.float32), idx, u, uwd,
                                                   iwd, sdod), 1e-4)


def test_implicit_solves_higher_derivatives():
    """Second and third derivatives of custom_root / custom_linear_solve match the analytic
    ones (sqrt(a) and 2 / a)."""
    a = jnp.asarray(np.float32(7.0))
    d2 = strata.grad(strata.grad(_sqrt_root))(a)
    d3 = strata.grad(strata.grad(strata.grad(_sqrt_root)))(a)
    close(d2, -0.25 * 7.0 ** -1.5, 1e-6)
    close(d3, 0.375 * 7.0 ** -2.5, 1e-6)

    def inv(p):
        return lax.custom_linear_solve(lambda v: p * v, jnp.asarray(2.0), lambda mv, r: r / mv(1.0))
    close(strata.grad(strata.grad(inv))(a), 4.0 / 7.0 ** 3, 1e-6)
    close(strata.hessian(lambda p: inv(p))(a), 4.0 / 7.0 ** 3, 1e-6)


def _np_reduce_window(x, init, op, win, strides, pads, bdil, wdil):
    """XLA's ReduceWindow by loops over the dilated, padded operand."""
    shape = [(n - 1) * b + 1 for n, b in zip(x.shape, bdil)]
    dil = np.full(shape, init, np.float64)
    dil[tuple(np.s_[::b] for b in bdil)] = x
    padded = np.pad(dil, [(max(lo, 0), max(hi, 0)) for lo, hi in pads], constant_values=init)
    padded = padded[tuple(np.s_[max(-lo, 0):padded.shape[i] - max(-hi, 0)]
                          for i, (lo, hi) in enumerate(pads))]
    out_shape = [(n - ((w - 1) * d + 1)) // s + 1 for n, w, d, s in
                 zip(padded.shape, win, wdil, strides)]
    out = np.full(out_shape, init, np.float64)
    for o in np.ndindex(*out_shape):
        for w in np.ndindex(*win):
            pos = tuple(oi * s + wi * d for oi, s, wi, d in zip(o, strides, w, wdil))
            out[o] = op(out[o], padded[pos])
    return out


@pytest.mark.parametrize("win,strides,pads,bdil,wdil", [
    ((2, 2), (2, 2), ((0, 0), (0, 0)), (1, 1), (1, 1)),
    ((3, 2), (1, 2), ((1, 1), (0, 1)), (1, 1), (1, 1)),
    ((2, 2), (1, 1), ((0, 0), (1, -1)), (2, 1), (1, 2)),
])
def test_reduce_window_against_loops(win, strides, pads, bdil, wdil):
    x = f32(5, 6)
    for init, op, ref in [(-np.inf, lax.max, max), (0.0, lax.add, lambda a, b: a + b)]:
        out = lax.reduce_window(jnp.asarray(x), init, op, win, strides, pads, bdil, wdil)
        close(out, _np_reduce_window(x, init, ref, win, strides, pads, bdil, wdil), 1e-5)
    # A computation that is not a known monoid takes the general path.
    out = lax.reduce_window(jnp.asarray(x), 0.0, lambda a, b: a + b, win, strides, pads, bdil,
                            wdil)
    close(out, _np_reduce_window(x, 0.0, lambda a, b: a + b, win, strides, pads, bdil, wdil),
          1e-5)


def test_reduce_window_same_padding_grad_vmap_jit():
    x = f32(4, 5)
    out = lax.reduce_window(jnp.asarray(x), -np.inf, lax.max, (3, 3), (2, 2), "SAME")
    pads = lax.padtype_to_pads((4, 5), (3, 3), (2, 2), "SAME")
    close(out, _np_reduce_window(x, -np.inf, max, (3, 3), (2, 2), pads, (1, 1), (1, 1)))
    assert out.shape == (2, 3)

    def pool(u):
        return jnp.sum(lax.reduce_window(u, -np.inf, lax.max, (2, 2), (1, 1), "VALID") ** 2)
    g = strata.grad(pool)(jnp.asarray(x))
    close(g, numerical_grad(lambda u: np.sum(_np_reduce_window(
        u, -np.inf, max, (2, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1)) ** 2), x), 2e-3)
    xs = f32(3, 4, 5)
    per = np.stack([np.asarray(lax.reduce_window(jnp.asarray(xs[k]), 0.0, lax.add, (2, 2),
                                                 (2, 2), "VALID")) for k in range(3)])
    close(strata.vmap(lambda u: lax.reduce_window(u, 0.0, lax.add, (2, 2), (2, 2), "VALID"))(
        jnp.asarray(xs)), per, 1e-5)
    close(strata.jit(pool)(jnp.asarray(x)), pool(jnp.asarray(x)), 1e-5)
    with pytest.raises(TypeError):
        lax.reduce_window(jnp.asarray(x), 0.0, lax.add, (2,), (1, 1), "VALID")
