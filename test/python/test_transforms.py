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


@pytest.mark.usefixtures("x64_on")  # float64 finite differences
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


def _num_jac(f_np, x, out_shape):
    """Finite-difference Jacobian of a numpy function at float64 x: out_shape + x.shape."""
    return np.stack([numerical_grad(lambda v: f_np(v)[i], x) for i in np.ndindex(out_shape)]
                    ).reshape(out_shape + np.shape(x))


@pytest.mark.parametrize("jac", [strata.jacfwd, strata.jacrev])
def test_jacobians_several_arguments_and_pytrees(jac):
    a, b = X, W  # (3, 4), (4, 2)

    def f(a, b, scale):
        return {"m": jnp.tanh(a @ b) * scale, "s": jnp.sum(jnp.sin(a))}

    def m_np(a, b):
        return np.tanh(a @ b) * 2.0
    j = jac(f, argnums=(0, 1))(a, b, 2.0)
    assert set(j) == {"m", "s"} and isinstance(j["m"], tuple) and len(j["m"]) == 2
    assert j["m"][0].shape == (3, 2, 3, 4) and j["m"][1].shape == (3, 2, 4, 2)
    assert j["s"][0].shape == (3, 4) and j["s"][1].shape == (4, 2)
    close(j["m"][0], _num_jac(lambda v: m_np(v, b), a, (3, 2)), rtol=1e-5, atol=1e-8)
    close(j["m"][1], _num_jac(lambda v: m_np(a, v), b, (3, 2)), rtol=1e-5, atol=1e-8)
    close(j["s"][0], np.cos(a))
    close(j["s"][1], np.zeros((4, 2)))
    # argnums as an int selecting a non-first argument
    close(jac(f, argnums=1)(a, b, 2.0)["m"], j["m"][1])

    # pytree input: a dict argument and a list output
    def g(p):
        return [jnp.sum(p["w"] ** 2) * p["c"], p["w"] * p["c"]]
    p = {"w": X[0], "c": np.float64(1.5)}
    jg = jac(g)(p)
    close(jg[0]["w"], 2 * X[0] * 1.5)
    close(jg[0]["c"], np.sum(X[0] ** 2))
    close(jg[1]["w"], 1.5 * np.eye(4))
    close(jg[1]["c"], X[0])
    assert jg[1]["c"].shape == (4,)

    # has_aux returns the auxiliary value unchanged
    jh, aux = jac(lambda x: (jnp.sin(x), {"n": x.sum()}), has_aux=True)(X[0])
    close(jh, np.diag(np.cos(X[0])))
    close(aux["n"], X[0].sum())


def test_hessian_several_arguments():
    def f(x, y):
        return jnp.sum(jnp.sin(x) * y ** 2)
    x, y = X[0], X[1]
    h = strata.hessian(f, argnums=(0, 1))(x, y)
    close(h[0][0], np.diag(-np.sin(x) * y ** 2), atol=1e-12)
    close(h[0][1], np.diag(2 * np.cos(x) * y), atol=1e-12)
    close(h[1][0], np.diag(2 * np.cos(x) * y), atol=1e-12)
    close(h[1][1], np.diag(2 * np.sin(x)), atol=1e-12)


def test_jacobian_of_integer_input_is_an_error():
    with pytest.raises(TypeError, match="floating"):
        strata.jacrev(lambda n: n * 2.0)(jnp.arange(3))


@pytest.mark.usefixtures("x64_on")  # float64 finite differences
def test_transforms_compose_in_any_order():
    @strata.custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        return f(primals[0]), 2.0 * tangents[0]

    @strata.custom_vjp
    def g(x):
        return x * 1.0
    g.defvjp(lambda x: (g(x), None), lambda res, ct: (jnp.clip(ct, -0.5, 0.5),))

    two, half = 2 * np.ones_like(X), np.full_like(X, 0.5)
    close(strata.vmap(f)(X), np.sin(X))
    close(strata.jit(strata.grad(lambda x: jnp.sum(f(x))))(X), two)
    close(strata.vmap(strata.grad(lambda x: jnp.sum(f(x))))(X), two)
    close(strata.jit(strata.grad(lambda x: jnp.sum(g(x) * 3.0)))(X), half)
    close(strata.grad(strata.jit(lambda x: jnp.sum(g(x) * 3.0)))(X), half)
    close(strata.vmap(strata.grad(lambda x: jnp.sum(g(x) * 3.0)))(X), half)

    def th(x):
        return jnp.sum(jnp.tanh(x))
    dth = 1 - np.tanh(X) ** 2
    close(strata.jit(strata.grad(strata.checkpoint(th)))(X), dth)
    close(strata.vmap(strata.grad(strata.checkpoint(th)))(X), dth)
    named = strata.checkpoint(lambda x: th(strata.lax.checkpoint_name(jnp.sin(x), "s")),
                              policy=["s"])
    close(strata.grad(named)(X), (1 - np.tanh(np.sin(X)) ** 2) * np.cos(X))

    sq = strata.grad(lambda x: jnp.sum(x ** 2))
    s = strata.eval_shape(sq, X)
    assert s.shape == X.shape and s.dtype == np.float64
    assert "strata.mul" in strata.make_ir(sq)(X) or "strata.add" in strata.make_ir(sq)(X)

    h = strata.jit(strata.hessian(lambda x: jnp.sum(jnp.sin(x) ** 2)))(X[0])
    close(h, np.diag(2 * np.cos(2 * X[0])), atol=1e-12)
    close(strata.vmap(strata.jacrev(jnp.sin))(X), np.stack([np.diag(np.cos(x)) for x in X]))
    close(strata.jit(strata.jacfwd(jnp.sin))(X[0]), np.diag(np.cos(X[0])))
    close(strata.jit(lambda x: strata.linearize(jnp.sin, x)[1](x))(X), np.cos(X) * X)
    close(strata.vmap(lambda x: strata.vjp(jnp.sin, x)[1](x)[0])(X), np.cos(X) * X)
    close(strata.vmap(strata.vmap(lambda a: a * 2))(X), 2 * X)
    close(strata.jit(strata.grad(lambda x: jnp.sum(x * strata.stop_gradient(x))))(X), X)
    close(strata.grad(strata.jit(lambda x, n: jnp.sum(x ** n), static_argnames="n"))(X, n=3),
          3 * X ** 2)


def test_vmap_out_axes_pytrees_and_none():
    a, b = strata.vmap(lambda x, y: (x * 2, y), in_axes=(0, None), out_axes=(0, None))(X, W)
    close(a, 2 * X)
    close(b, W)
    d = strata.vmap(lambda x: {"p": x, "q": x.sum()}, out_axes={"p": 1, "q": 0})(X)
    close(d["p"], X.T)
    close(d["q"], X.sum(1))


@pytest.mark.parametrize("where", ["int", "index", "range"])
def test_concretization_errors_for_int_and_index(where):
    fns = {"int": lambda x: jnp.ones(int(x)), "index": lambda x: [1, 2, 3][x],
           "range": lambda x: list(range(x))}
    for t in (strata.jit, strata.vmap):
        with pytest.raises(TypeError, match="ConcretizationTypeError.*static"):
            t(fns[where])(jnp.asarray([1, 2]) if t is strata.vmap else 2)
    assert jnp.sin(jnp.asarray(1.0)).is_concrete


@pytest.mark.parametrize("name", ["jvp", "vjp", "jacrev", "jacfwd", "checkpoint", "eval_shape",
                                  "custom_vjp_fwd", "jit_of_grad"])
def test_exception_in_other_transforms_leaves_no_level(name):
    class Boom(Exception):
        pass

    def bad(x):
        jnp.sin(x)
        raise Boom("inside")

    @strata.custom_vjp
    def c(x):
        return x
    c.defvjp(bad, lambda r, g: (g,))
    x = X[0]
    run = {"jvp": lambda: strata.jvp(bad, (x,), (x,)), "vjp": lambda: strata.vjp(bad, x),
           "jacrev": lambda: strata.jacrev(bad)(x), "jacfwd": lambda: strata.jacfwd(bad)(x),
           "checkpoint": lambda: strata.grad(lambda v: jnp.sum(strata.checkpoint(bad)(v)))(x),
           "eval_shape": lambda: strata.eval_shape(bad, x),
           "custom_vjp_fwd": lambda: strata.grad(lambda v: jnp.sum(c(v)))(x),
           "jit_of_grad": lambda: strata.jit(strata.grad(lambda v: jnp.sum(bad(v))))(x)}
    with pytest.raises(Boom, match="inside"):
        run[name]()
    assert jnp.sin(jnp.asarray(x)).is_concrete
    close(strata.grad(loss)(X), numerical_grad(loss_np, X), rtol=1e-5)


# Regression: uniform_in read lo.item() of a bound that jit had staged (omnistaging).
def test_random_under_jit():
    k = strata.random.key(0)
    for f in (lambda k: strata.random.uniform(k, (3,)), lambda k: strata.random.normal(k, (3,)),
              lambda k: strata.random.bernoulli(k, 0.3, (3,))):
        np.testing.assert_array_equal(np.asarray(strata.jit(f)(k)), np.asarray(f(k)))


def test_random_under_vmap_matches_loop():
    keys = strata.random.split(strata.random.key(0), 3)
    got = strata.vmap(lambda k: strata.random.normal(k, (2,)))(keys)
    want = np.stack([np.asarray(strata.random.normal(k, (2,))) for k in keys])
    np.testing.assert_array_equal(np.asarray(got), want)
    got = strata.jit(lambda k: strata.random.split(k, 4))(keys[0])
    want = strata.random.key_data(strata.random.split(keys[0], 4))
    np.testing.assert_array_equal(np.asarray(strata.random.key_data(got)), np.asarray(want))
