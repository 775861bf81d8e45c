"""Transforms over Python callables and pytrees: grad against finite differences, vmap against a
per-example loop, composition, custom rules, pytrees and error propagation."""

import collections

import numpy as np
import pytest

import strata
import strata.numpy as jnp
from strata import tree_util
from conftest import numerical_grad

rng = np.random.default_rng(1)
X = rng.standard_normal((3, 4))  # float64: finite differences need it
W = rng.standard_normal((4, 2))


def loss_np(x):
    return np.sum(np.tanh(x @ W) ** 2) + np.sum(np.sin(x))


def loss(x):
    return jnp.sum(jnp.tanh(x @ W) ** 2) + jnp.sum(jnp.sin(x))


def close(got, want, rtol=1e-6, atol=1e-8):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)


def test_grad_against_finite_differences():
    close(strata.grad(loss)(X), numerical_grad(loss_np, X), rtol=1e-5)


def test_value_and_grad_argnums_has_aux():
    def f(a, b, c):
        return jnp.sum(a * b) + c, {"aux": a.sum()}
    a, b = X, X + 1
    (v, aux), (ga, gb) = strata.value_and_grad(f, argnums=(0, 1), has_aux=True)(a, b, 2.0)
    close(v, np.sum(a * b) + 2)
    close(aux["aux"], a.sum())
    close(ga, b)
    close(gb, a)
    g, aux = strata.grad(f, argnums=1, has_aux=True)(a, b, 2.0)
    close(g, a)


def test_grad_of_pytree_argument():
    params = {"w": W, "b": np.zeros(2)}

    def f(p, x):
        return jnp.sum(jnp.tanh(x @ p["w"] + p["b"]))
    g = strata.grad(f)(params, X)
    assert set(g) == {"w", "b"}

    def f_np_w(w):
        return np.sum(np.tanh(X @ w))
    close(g["w"], numerical_grad(f_np_w, W), rtol=1e-5)


def test_vjp_and_jvp():
    y, pullback = strata.vjp(lambda x: jnp.tanh(x @ W), X)
    ct = rng.standard_normal(y.shape)
    (gx,) = pullback(ct)
    close(gx, numerical_grad(lambda x: np.sum(np.tanh(x @ W) * ct), X), rtol=1e-5)
    t = rng.standard_normal(X.shape)
    out, tout = strata.jvp(loss, (X,), (t,))
    eps = 1e-6
    close(tout, (loss_np(X + eps * t) - loss_np(X - eps * t)) / (2 * eps), rtol=1e-5)
    # <v, J u> == <J^T v, u>
    _, ju = strata.jvp(lambda x: jnp.tanh(x @ W), (X,), (t,))
    close(np.sum(np.asarray(ju) * ct), np.sum(np.asarray(gx) * t))


def test_linearize():
    t = rng.standard_normal(X.shape)
    y, f_jvp = strata.linearize(loss, X)
    close(f_jvp(t), strata.jvp(loss, (X,), (t,))[1])


def test_vmap_against_loop():
    def f(x, w):
        return jnp.tanh(x @ w)
    got = strata.vmap(f, in_axes=(0, None))(X, W)
    close(got, np.stack([np.tanh(x @ W) for x in X]))
    got = strata.vmap(f, in_axes=(1, None), out_axes=1)(X.T, W)
    close(got, np.stack([np.tanh(x @ W) for x in X], axis=1))


def test_vmap_pytrees():
    batch = {"a": X, "b": X[:, :2]}
    out = strata.vmap(lambda d: (d["a"].sum(), d["b"] * 2))(batch)
    close(out[0], X.sum(1))
    close(out[1], X[:, :2] * 2)
    out = strata.vmap(lambda d, s: d["a"] * s, in_axes=({"a": 0, "b": None}, None))(
        {"a": X, "b": W}, 3.0)
    close(out, X * 3)


def test_per_example_gradients_vmap_of_grad():
    def per_ex(x):
        return jnp.sum(jnp.tanh(x @ W) ** 2)
    got = strata.vmap(strata.grad(per_ex))(X)
    want = np.stack([numerical_grad(lambda x: np.sum(np.tanh(x @ W) ** 2), x) for x in X])
    close(got, want, rtol=1e-5)


def test_jacobians_and_hessian():
    def f(x):
        return jnp.tanh(x * jnp.sum(x))
    x = X[0]
    jf = np.asarray(strata.jacfwd(f)(x))
    jr = np.asarray(strata.jacrev(f)(x))
    num = np.stack([numerical_grad(lambda v: np.tanh(v * np.sum(v))[i], x) for i in range(4)])
    close(jf, num, rtol=1e-5)
    close(jr, num, rtol=1e-5)

    def g(v):
        return jnp.sum(jnp.sin(v) * v[0])
    h = np.asarray(strata.hessian(g)(x))
    num_h = np.stack([numerical_grad(
        lambda v: np.asarray(strata.grad(g)(v))[i], x) for i in range(4)])
    close(h, num_h, rtol=1e-4, atol=1e-6)
    # Hessian-vector product by jvp of grad
    v = rng.standard_normal(4)
    close(strata.jvp(strata.grad(g), (x,), (v,))[1], h @ v, rtol=1e-6)


def test_grad_of_grad():
    d2 = strata.grad(strata.grad(lambda x: x ** 3))(2.0)
    close(d2, 12.0)


def test_checkpoint_gives_same_gradient():
    def f(x):
        return jnp.sum(jnp.tanh(jnp.tanh(x @ W)))
    close(strata.grad(strata.checkpoint(f))(X), strata.grad(f)(X), rtol=1e-12)
    close(strata.grad(strata.checkpoint(f, policy="dots"))(X), strata.grad(f)(X), rtol=1e-12)


def test_custom_jvp():
    @strata.custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), 2.0 * t  # deliberately not cos: the rule must be used

    close(f(X), np.sin(X))
    close(strata.jvp(f, (X,), (np.ones_like(X),))[1], 2 * np.ones_like(X))
    close(strata.grad(lambda x: jnp.sum(f(x)))(X), 2 * np.ones_like(X))


def test_custom_vjp():
    @strata.custom_vjp
    def clip_grad(x):
        return x * 1.0

    def fwd(x):
        return clip_grad(x), None

    def bwd(res, g):
        return (jnp.clip(g, -0.5, 0.5),)
    clip_grad.defvjp(fwd, bwd)
    g = strata.grad(lambda x: jnp.sum(clip_grad(x) * 3.0))(X)
    close(g, np.full_like(X, 0.5))


def test_stop_gradient_and_eval_shape():
    g = strata.grad(lambda x: jnp.sum(x * strata.stop_gradient(x)))(X)
    close(g, X)
    s = strata.eval_shape(lambda a, b: {"m": a @ b, "s": a.sum()},
                          strata.ShapeDtypeStruct((3, 4), np.float32), jnp.ones((4, 5)))
    assert s["m"].shape == (3, 5) and s["m"].dtype == np.float32 and s["s"].shape == ()


def test_python_exception_propagates_and_leaves_no_level():
    class Boom(Exception):
        pass

    def bad(x):
        y = jnp.sin(x)
        raise Boom("inside")
    for t in (strata.grad, strata.vmap, lambda f: strata.jit(f)):
        with pytest.raises(Boom, match="inside") as info:
            t(bad)(X[0, 0] if t is strata.grad else X)
        assert "bad" in "".join(str(f.name) for f in info.traceback)
        # Nothing is left on the trace stack: eager ops give concrete arrays again.
        assert jnp.sin(jnp.asarray(X)).is_concrete
    close(strata.grad(loss)(X), numerical_grad(loss_np, X), rtol=1e-5)


def test_concretization_errors():
    def f(x):
        return x if x > 0 else -x
    close(strata.grad(f)(-2.0), -1.0)  # as in JAX, grad's values stay concrete
    with pytest.raises(TypeError, match="ConcretizationTypeError.*where"):
        strata.vmap(f)(jnp.ones(3))
    with pytest.raises(TypeError, match="static"):
        strata.jit(f)(1.0)
    with pytest.raises(TypeError, match="floating"):
        strata.grad(lambda n: n * 2.0)(jnp.arange(3))


def test_tree_util_round_trips():
    Point = collections.namedtuple("Point", "x y")

    class Box:
        def __init__(self, a, b):
            self.a, self.b = a, b

    tree_util.register_pytree_node(Box, lambda b: ((b.a, b.b), "meta"),
                                   lambda aux, ch: Box(*ch))
    tree = {"z": [1, (2, None)], "a": Point(3, {"k": 4}), "box": Box(5, [6])}
    leaves, td = tree_util.tree_flatten(tree)
    assert leaves == [3, 4, 5, 6, 1, 2]  # dict keys sorted
    back = tree_util.tree_unflatten(td, leaves)
    assert back["z"] == [1, (2, None)] and back["a"] == Point(3, {"k": 4})
    assert isinstance(back["box"], Box) and back["box"].b == [6]
    assert tree_util.tree_structure(back) == td
    doubled = tree_util.tree_map(lambda v: v * 2, tree)
    assert tree_util.tree_leaves(doubled) == [6, 8, 10, 12, 2, 4]
    assert tree_util.tree_map(lambda a, b: a + b, [1, 2], [10, 20]) == [11, 22]
    with pytest.raises(ValueError):
        tree_util.tree_map(lambda a, b: a, [1], (1,))
