"""Windowed reductions and stax pooling: PyTorch's max_pool2d / avg_pool2d (values and
gradients) and numpy loops as oracles; JAX's routing to the monoid primitives, its tie rule, its
shapes; grad, vmap and jit agree with eager."""

import numpy as np
import pytest

import strata
import strata.numpy as jnp
from strata import lax
from strata.example_libraries import stax

torch = pytest.importorskip("torch")
F = torch.nn.functional

RNG = np.random.default_rng(0)


def close(got, want, tol=1e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


def nchw_pool(x, window, strides, padding, reducer, init):
    """lax.reduce_window over the spatial axes of an NCHW array."""
    pads = [(0, 0), (0, 0)] + [(p, p) for p in padding]
    return lax.reduce_window(x, init, reducer, (1, 1) + window, (1, 1) + strides, pads)


@pytest.mark.parametrize("window,strides,padding", [
    ((2, 2), (2, 2), (0, 0)), ((3, 3), (1, 1), (1, 1)), ((3, 2), (2, 1), (1, 0)),
    ((1, 1), (1, 1), (0, 0)), ((5, 5), (3, 2), (2, 2))])
def test_max_pool_matches_torch(window, strides, padding):
    dtype, tol = np.float32, 1e-5
    x = RNG.standard_normal((2, 3, 7, 9)).astype(dtype)
    ct = None

    def f(u):
        return nchw_pool(u, window, strides, padding, lax.max, -np.inf)
    out = f(jnp.asarray(x))
    xt = torch.tensor(x, requires_grad=True)
    want = F.max_pool2d(xt, window, strides, padding)
    close(out, want.detach().numpy(), tol)
    ct = RNG.standard_normal(want.shape).astype(dtype)
    want.backward(torch.tensor(ct))
    _, pullback = strata.vjp(f, jnp.asarray(x))
    close(pullback(jnp.asarray(ct))[0], xt.grad.numpy(), tol)
    close(strata.jit(f)(jnp.asarray(x)), out, tol)


@pytest.mark.parametrize("window,strides,padding", [
    ((3, 3), (1, 1), (1, 1)), ((2, 2), (2, 2), (0, 0)), ((3, 2), (2, 3), (1, 1))])
def test_avg_pool_matches_torch(window, strides, padding):
    x = RNG.standard_normal((2, 3, 8, 7)).astype(np.float32)
    size = float(np.prod(window))

    def f(u):  # torch's count_include_pad=True: padding counts in the divisor
        return nchw_pool(u, window, strides, padding, lax.add, 0.0) / size
    out = f(jnp.asarray(x))
    xt = torch.tensor(x, requires_grad=True)
    want = F.avg_pool2d(xt, window, strides, padding)
    close(out, want.detach().numpy())
    ct = RNG.standard_normal(want.shape).astype(np.float32)
    want.backward(torch.tensor(ct))
    close(strata.vjp(f, jnp.asarray(x))[1](jnp.asarray(ct))[0], xt.grad.numpy())
    close(strata.jit(strata.grad(lambda u: jnp.sum(f(u) * ct)))(jnp.asarray(x)),
          xt.grad.numpy())


def test_ties_go_to_the_first_element():
    x = jnp.asarray(np.array([[1.0, 1.0], [1.0, 0.0]], np.float32))
    g = strata.grad(lambda u: jnp.sum(lax.reduce_window(u, -np.inf, lax.max, (2, 2), (1, 1),
                                                        "VALID")))(x)
    close(g, [[1, 0], [0, 0]])
    g = strata.grad(lambda u: jnp.sum(lax.reduce_window(u, np.inf, lax.min, (2, 2), (1, 1),
                                                        "VALID")))(x)
    close(g, [[0, 0], [0, 1]])


def test_monoids_route_to_their_primitives():
    x = jnp.asarray(RNG.standard_normal((4, 5)).astype(np.float32))
    for fn, init, prim in [(lax.add, 0.0, "reduce_window_sum"),
                           (lax.max, -np.inf, "reduce_window_max"),
                           (lax.min, np.inf, "reduce_window_min"),
                           (lambda a, b: a + b, 0.0, "reduce_window"),
                           (lax.max, 0.0, "reduce_window")]:  # not the identity
        text = str(strata.make_jaxpr(
            lambda u: lax.reduce_window(u, init, fn, (2, 2), (1, 1), "SAME"))(x))
        # The general primitive is staged as its composition (pads, slices, the computation).
        if prim == "reduce_window":
            assert "strata.pad" in text and "strata.reduce_window" not in text, text
        else:
            assert f"strata.{prim}" in text, text
            assert text.count("strata.reduce_window") == 1, text
    # A non-identity initial value is folded in as JAX does: max(0, window max).
    out = lax.reduce_window(x, 0.0, lax.max, (2, 2), (1, 1), "VALID")
    close(out, np.maximum(0, lax.reduce_window(x, -np.inf, lax.max, (2, 2), (1, 1), "VALID")))


def test_shape_tuple_and_errors():
    assert lax.reduce_window_shape_tuple((4, 7), (2, 3), (2, 1), ((0, 0), (1, 1))) == (2, 7)
    assert lax.reduce_window_shape_tuple((4,), (3,), (1,), ((0, 0),), (2,), (1,)) == (5,)
    x = jnp.zeros((3, 4))
    with pytest.raises(TypeError, match="reduce_window"):
        lax.reduce_window(x, 0.0, lax.add, (2,), (1, 1), "VALID")
    with pytest.raises(ValueError, match="padding"):
        lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), ((0, 0),))
    with pytest.raises(TypeError, match="reduce_window"):
        lax.reduce_window(x, jnp.zeros(2), lambda a, b: a + b, (2, 2), (1, 1), "VALID")


def test_general_pytree_and_int():
    v = jnp.asarray(np.array([1.0, 3.0, 3.0, 2.0, 5.0], np.float32))
    i = jnp.arange(5, dtype=jnp.int32)

    def pick(a, b):
        take = (b[0] > a[0]) | ((b[0] == a[0]) & (b[1] < a[1]))
        return (lax.select(take, b[0], a[0]), lax.select(take, b[1], a[1]))
    val, idx = lax.reduce_window((v, i), (-np.inf, np.iinfo(np.int32).max), pick, (3,), (1,),
                                 "VALID")
    close(val, [3, 3, 5])
    assert np.asarray(idx).tolist() == [1, 1, 4]
    xi = jnp.asarray(np.arange(12, dtype=np.int32).reshape(3, 4))
    out = lax.reduce_window(xi, 0, lax.add, (2, 2), (1, 1), "VALID")
    assert out.dtype == jnp.int32
    assert np.asarray(out).tolist() == [[10, 14, 18], [26, 30, 34]]


def test_vmap_and_grad_of_general():
    xs = RNG.standard_normal((3, 5, 6))

    def f(u):
        return lax.reduce_window(u, 0.0, lambda a, b: a + b * b, (2, 3), (1, 2), "SAME")
    per = np.stack([np.asarray(f(jnp.asarray(xs[k]))) for k in range(3)])
    close(strata.vmap(f)(jnp.asarray(xs)), per, 1e-12)
    g = strata.grad(lambda u: jnp.sum(f(u)))(jnp.asarray(xs[0]))
    want = strata.grad(lambda u: jnp.sum(lax.reduce_window(u * u, 0.0, lax.add, (2, 3), (1, 2),
                                                           "SAME")))(jnp.asarray(xs[0]))
    close(g, want, 1e-12)
    close(strata.jit(f)(jnp.asarray(xs[0])), per[0], 1e-6)
    close(strata.jit(strata.grad(lambda u: jnp.sum(f(u))))(jnp.asarray(xs[0])), g, 1e-6)
    close(strata.vmap(strata.jit(strata.grad(lambda u: jnp.sum(f(u)))))(jnp.asarray(xs)),
          np.stack([np.asarray(strata.grad(lambda u: jnp.sum(f(u)))(jnp.asarray(xs[k])))
                    for k in range(3)]), 1e-6)


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_stax_pools(padding):
    x = RNG.standard_normal((2, 6, 5, 3)).astype(np.float32)  # NHWC
    xt = torch.tensor(x).permute(0, 3, 1, 2)
    for layer, name in [(stax.MaxPool, "max"), (stax.SumPool, "sum"), (stax.AvgPool, "avg")]:
        init, apply = layer((2, 2), (2, 1), padding)
        shape, params = init(None, x.shape)
        out = apply(params, jnp.asarray(x))
        assert tuple(out.shape) == tuple(shape) and params == ()
        if padding == "VALID":
            if name == "max":
                want = F.max_pool2d(xt, (2, 2), (2, 1))
            else:
                want = F.avg_pool2d(xt, (2, 2), (2, 1)) * (4 if name == "sum" else 1)
            close(out, want.permute(0, 2, 3, 1).numpy())
    # AvgPool divides by the number of real elements under SAME padding.
    init, apply = stax.AvgPool((3, 3), padding="SAME")
    ones = jnp.ones((1, 4, 4, 1))
    close(apply((), ones), np.ones((1, 4, 4, 1)))
    # spec puts the batch and feature axes elsewhere.
    init, apply = stax.MaxPool((2, 2), (2, 2), spec="NCHW")
    xc = np.transpose(x, (0, 3, 1, 2))
    shape, _ = init(None, xc.shape)
    assert shape == (2, 3, 3, 2)
    close(apply((), jnp.asarray(xc)), F.max_pool2d(torch.tensor(xc), (2, 2), (2, 2)).numpy())
