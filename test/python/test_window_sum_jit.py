"""Jitted windowed sums run libstrata's kernel (strata-window-to-runtime): bit for bit the
eager results, numpy loops as the oracle (float windows long enough to slide included), avg
pooling's gradient under jit, and every dtype the primitive takes."""
import numpy as np
import pytest

import strata
import strata.numpy as jnp
from strata import lax
from strata.example_libraries import stax

RNG = np.random.default_rng(0)


def window_sum_reference(x, win, strides, pads, base=None, wdil=None):
    """reduce_window_sum by explicit loops in float64 (or exact integers)."""
    r = x.ndim
    base = base or (1,) * r
    wdil = wdil or (1,) * r
    acc = np.float64 if x.dtype.kind == "f" else x.dtype
    dil_shape = [(n - 1) * b + 1 if n else 0 for n, b in zip(x.shape, base)]
    xd = np.zeros(dil_shape, acc)
    xd[tuple(slice(None, None, b) for b in base)] = x
    padded = np.pad(xd, [(max(lo, 0), max(hi, 0)) for lo, hi in pads])
    padded = padded[tuple(slice(max(-lo, 0), padded.shape[d] - max(-hi, 0))
                          for d, (lo, hi) in enumerate(pads))]
    span = [(w - 1) * d + 1 for w, d in zip(win, wdil)]
    out_shape = [max(0, (n - s) // st + 1) if n >= s else 0
                 for n, s, st in zip(padded.shape, span, strides)]
    out = np.zeros(out_shape, acc)
    for k in np.ndindex(*win):
        sl = tuple(slice(k[d] * wdil[d], k[d] * wdil[d] + (out_shape[d] - 1) * strides[d] + 1,
                         strides[d]) for d in range(r))
        out += padded[sl]
    return out


def jit_calls_runtime(f, *args):
    return "strata_rt_window_sum" in strata.jit(f).lower(*args).as_text("linalg")


@pytest.mark.parametrize("shape,win,strides,pads", [
    ((2, 3, 9, 8), (1, 1, 3, 3), (1, 1, 1, 1), [(0, 0), (0, 0), (1, 1), (1, 1)]),
    ((4, 300), (1, 64), (1, 1), [(0, 0), (0, 0)]),
    ((4, 300), (1, 64), (1, 1), [(0, 0), (31, 32)]),
    ((3, 129), (2, 17), (1, 3), [(1, 0), (5, 7)]),
    ((5, 7), (5, 7), (1, 1), [(0, 0), (0, 0)]),
    ((1,), (1,), (1,), [(0, 0)]),
    ((6, 40), (3, 20), (2, 4), [(-1, 2), (3, -2)]),
])
def test_jit_window_sum_matches_eager_bitwise_and_loops(shape, win, strides, pads):
    x = RNG.standard_normal(shape).astype(np.float32)

    def f(u):
        return lax.reduce_window(u, 0.0, lax.add, win, strides, pads)
    assert jit_calls_runtime(f, x)
    got = np.asarray(strata.jit(f)(x))
    np.testing.assert_array_equal(got, np.asarray(f(x)))
    np.testing.assert_allclose(got, window_sum_reference(x, win, strides, pads), rtol=1e-5,
                               atol=1e-4)


def test_dilations_and_dtypes():
    strata.config.update("jax_enable_x64", True)
    try:
        for dtype in [np.float64, np.float32, np.float16, np.int32, np.int64]:
            x = (RNG.standard_normal((4, 11)) * 10).astype(dtype)
            win, strides, pads = (2, 3), (1, 2), [(1, 1), (2, 0)]

            def f(u):
                return lax.reduce_window(u, dtype(0), lax.add, win, strides, pads,
                                         base_dilation=(2, 1), window_dilation=(1, 2))
            assert jit_calls_runtime(f, x)
            got = np.asarray(strata.jit(f)(x))
            assert got.dtype == dtype
            np.testing.assert_array_equal(got, np.asarray(f(x)))
            want = window_sum_reference(x, win, strides, pads, (2, 1), (1, 2))
            tol = 2e-2 if dtype == np.float16 else 1e-6
            np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol, atol=tol)
    finally:
        strata.config.update("jax_enable_x64", False)


def test_empty_output_and_empty_operand():
    x = np.zeros((0, 5), np.float32)

    def f(u):
        return lax.reduce_window(u, 0.0, lax.add, (1, 2), (1, 1), [(0, 0), (0, 0)])
    assert strata.jit(f)(x).shape == (0, 4)

    def g(u):  # windows over padding only
        return lax.reduce_window(u, 0.0, lax.add, (1, 1), (1, 1), [(1, 1), (0, 0)])
    np.testing.assert_array_equal(np.asarray(strata.jit(g)(x)), np.zeros((2, 5), np.float32))


def test_avg_pool_value_and_grad_under_jit():
    init, apply = stax.AvgPool((3, 3), (1, 1), padding="SAME")
    x = RNG.standard_normal((2, 9, 8, 3)).astype(np.float32)

    def loss(u):
        y = apply((), u)
        return jnp.sum(y * y)
    vg = strata.value_and_grad(loss)
    assert jit_calls_runtime(vg, x)
    (v, g), (ve, ge) = strata.jit(vg)(x), vg(x)
    np.testing.assert_allclose(float(v), float(ve), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(g), np.asarray(ge), rtol=1e-6, atol=1e-6)
    eps, i = 1e-2, (1, 4, 3, 2)
    xp, xm = x.copy(), x.copy()
    xp[i] += eps
    xm[i] -= eps
    fd = (float(loss(xp)) - float(loss(xm))) / (2 * eps)
    np.testing.assert_allclose(float(np.asarray(g)[i]), fd, rtol=2e-2, atol=2e-3)


def test_vmap_of_jitted_window_sum_matches_loop():
    x = RNG.standard_normal((3, 50)).astype(np.float32)

    def f(u):
        return lax.reduce_window(u, 0.0, lax.add, (20,), (1,), [(10, 9)])
    got = np.asarray(strata.jit(strata.vmap(f))(x))
    np.testing.assert_array_equal(got, np.stack([np.asarray(f(r)) for r in x]))
