"""Host callbacks (strata.debug.print/callback, pure_callback) and forward mode through
custom_vjp rules: values checked against numpy, finite differences and per-example loops."""

import numpy as np
import pytest

import strata
import strata.debug
import strata.numpy as jnp
from strata._callback import pure_callback
from conftest import numerical_grad


def lines(capsys):
    return capsys.readouterr().out.splitlines()


# ---- debug.print / debug.callback --------------------------------------------------------------

def test_print_eager_formats_runtime_values(capsys):
    x = jnp.arange(3.0)
    strata.debug.print("x = {} n = {n}", x, n=jnp.int32(4))
    strata.debug.print("tree {t[a]} {t[b]}", t={"a": x[0], "b": x * 2})
    assert lines(capsys) == ["x = [0. 1. 2.] n = 4", "tree 0.0 [0. 2. 4.]"]


def test_print_under_jit_prints_on_every_call_in_order(capsys):
    def f(x):
        strata.debug.print("first {}", x)
        y = jnp.sin(x)
        strata.debug.print("second {}", y)
        strata.debug.print("third {}", x + 1)
        return y

    jf = strata.jit(f)
    a, b = np.array([0.5, 1.0], np.float32), np.array([2.0, -1.0], np.float32)
    np.testing.assert_allclose(np.asarray(jf(a)), np.sin(a), rtol=1e-6)
    jf(b)
    assert jf.stats()["misses"] == 1  # compiled once: the second call printed from compiled code
    out = lines(capsys)
    assert out[0] == f"first {a}" and out[3] == f"first {b}"
    for line, v in ((out[1], a), (out[4], b)):
        assert line.startswith("second [")
        np.testing.assert_allclose(np.array(line[len("second ["):-1].split(), float), np.sin(v),
                                   rtol=1e-6)
    assert out[2] == f"third {a + 1}" and out[5] == f"third {b + 1}"
    assert len(out) == 6


def test_print_nested_jit(capsys):
    inner = strata.jit(lambda x: (strata.debug.print("inner {}", x), x * 2)[1])
    outer = strata.jit(lambda x: inner(x + 1) + 1)
    for v in (1.0, 5.0):
        assert float(outer(jnp.float32(v))) == 2 * (v + 1) + 1
    assert lines(capsys) == ["inner 2.0", "inner 6.0"]


def test_print_under_grad_shows_primals_and_keeps_the_gradient(capsys):
    def f(x):
        strata.debug.print("x={}", x)
        return jnp.sum(jnp.sin(x) ** 2)

    x = np.array([0.3, -1.2], np.float32)
    g = strata.grad(f)(x)
    np.testing.assert_allclose(np.asarray(g), numerical_grad(lambda v: np.sum(np.sin(v) ** 2), x),
                               rtol=1e-4)
    assert lines(capsys) == [f"x={x}"]
    strata.jit(strata.grad(f))(x)
    assert lines(capsys) == [f"x={x}"]


def test_print_under_jvp_and_checkpoint(capsys):
    def f(x):
        strata.debug.print("p={}", x)
        return jnp.sin(x)

    x = np.array([0.5], np.float32)
    y, t = strata.jvp(f, (x,), (np.ones(1, np.float32),))
    np.testing.assert_allclose(np.asarray(t), np.cos(x), rtol=1e-6)
    assert lines(capsys) == [f"p={x}"]
    g = strata.grad(lambda v: jnp.sum(strata.checkpoint(f)(v)))(x)
    np.testing.assert_allclose(np.asarray(g), np.cos(x), rtol=1e-6)
    out = lines(capsys)
    # The forward pass prints; the backward pass replays the checkpointed function.
    assert out and all(line == f"p={x}" for line in out)


def test_print_under_vmap_once_per_element_in_order(capsys):
    xs = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    strata.vmap(lambda x: (strata.debug.print("row {}", x), x)[1])(xs)
    assert lines(capsys) == [f"row {r}" for r in xs]
    strata.jit(strata.vmap(lambda x: (strata.debug.print("e {}", x), x)[1]))(xs[0])
    assert lines(capsys) == ["e 0.0", "e 1.0"]
    strata.vmap(strata.vmap(lambda x: (strata.debug.print("{}", x), x)[1]))(xs)
    assert lines(capsys) == [str(v) for v in xs.ravel()]


def test_debug_callback_receives_arrays_and_kwargs():
    seen = []
    f = strata.jit(lambda x: (strata.debug.callback(
        lambda a, scale: seen.append((type(a), np.asarray(a) * scale)), x, scale=2), x)[1])
    f(jnp.ones(2))
    assert seen[0][0] is strata.Array
    np.testing.assert_array_equal(seen[0][1], [2.0, 2.0])


def test_eval_shape_calls_nothing():
    seen = []

    def f(x):
        strata.debug.callback(seen.append, x)
        return pure_callback(lambda v: seen.append(v) or v, strata.ShapeDtypeStruct((2,), jnp.float32),
                             x)

    out = strata.eval_shape(f, strata.ShapeDtypeStruct((2,), jnp.float32))
    assert out.shape == (2,) and seen == []


def test_callback_errors_propagate_from_compiled_code():
    def boom(x):
        raise KeyError("from the callback")

    f = strata.jit(lambda x: (strata.debug.callback(boom, x), x + 1)[1])
    with pytest.raises(KeyError, match="from the callback"):
        f(jnp.ones(2))
    with pytest.raises(TypeError, match=r"\[debug.print\] fmt must be a str"):
        strata.debug.print(3)
    with pytest.raises(NotImplementedError, match="breakpoint"):
        strata.debug.breakpoint()


# ---- pure_callback -----------------------------------------------------------------------------

def _host_sin(x, **kw):
    return pure_callback(np.sin, strata.ShapeDtypeStruct(x.shape, x.dtype), x, **kw)


def test_pure_callback_numpy_eager_and_jit():
    x = np.linspace(-2, 2, 7, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(_host_sin(jnp.asarray(x))), np.sin(x), rtol=1e-6)
    f = strata.jit(lambda x: _host_sin(x * 2) + 1)
    for v in (x, x[::-1].copy()):
        np.testing.assert_allclose(np.asarray(f(v)), np.sin(2 * v) + 1, rtol=1e-6, atol=1e-6)
    # A pytree of results of several dtypes, with keyword arguments.
    out = strata.jit(lambda a: pure_callback(
        lambda a, k: {"s": np.sum(a) * k, "n": np.array(a.size, np.int32)},
        {"s": strata.ShapeDtypeStruct((), jnp.float32), "n": strata.ShapeDtypeStruct((), jnp.int32)},
        a, k=3.0))(x)
    np.testing.assert_allclose(float(out["s"]), 3 * np.sum(x), rtol=1e-5, atol=1e-5)
    assert int(out["n"]) == 7 and out["n"].dtype == jnp.int32


@pytest.mark.parametrize("method", ["sequential", "expand_dims", "broadcast_all"])
def test_pure_callback_vmap_methods(method):
    xs = np.arange(12, dtype=np.float32).reshape(4, 3) / 5
    c = np.array([1.0, 2.0, 3.0], np.float32)
    calls = []

    def cb(x, c):
        calls.append((x.shape, c.shape))
        return np.sin(x) * c

    def f(x):
        return pure_callback(cb, strata.ShapeDtypeStruct(x.shape, x.dtype), x, c, vmap_method=method)

    for run in (strata.vmap(f), strata.jit(strata.vmap(f))):
        calls.clear()
        np.testing.assert_allclose(np.asarray(run(xs)), np.sin(xs) * c, rtol=1e-6)
        want = {"sequential": [((3,), (3,))] * 4, "expand_dims": [((4, 3), (1, 3))],
                "broadcast_all": [((4, 3), (4, 3))]}[method]
        assert calls == want


def test_pure_callback_transform_errors():
    x = jnp.ones(3)
    with pytest.raises(ValueError, match="vmap_method=None"):
        strata.vmap(_host_sin)(jnp.ones((2, 3)))
    with pytest.raises(ValueError, match="custom_vjp"):
        strata.grad(lambda v: jnp.sum(_host_sin(v)))(x)
    with pytest.raises(ValueError, match="custom_jvp"):
        strata.jvp(_host_sin, (x,), (x,))
    with pytest.raises(ValueError, match="vmap_method must be"):
        _host_sin(x, vmap_method="bogus")
    with pytest.raises(TypeError, match=r"returned f32\[4\] for result 0, expected f32\[3\]"):
        pure_callback(lambda v: np.zeros(4, np.float32), strata.ShapeDtypeStruct((3,), jnp.float32), x)


def test_pure_callback_differentiable_through_custom_jvp():
    @strata.custom_jvp
    def f(x):
        return _host_sin(x)

    @f.defjvp
    def f_jvp(p, t):
        return f(p[0]), jnp.cos(p[0]) * t[0]

    x = np.array([0.2, 1.1, -0.7], np.float32)
    g = strata.jit(strata.grad(lambda v: jnp.sum(f(v) ** 2)))(x)
    np.testing.assert_allclose(np.asarray(g), numerical_grad(lambda v: np.sum(np.sin(v) ** 2), x),
                               rtol=1e-3)


# ---- jvp of custom_vjp: the transpose of bwd -------------------------------------------------

def _clipped_sin():
    """sin whose rule clips the derivative to [-0.5, 0.5] (linear in the cotangent)."""
    @strata.custom_vjp
    def f(x):
        return jnp.sin(x)

    def fwd(x):
        return jnp.sin(x), jnp.clip(jnp.cos(x), -0.5, 0.5)

    def bwd(c, g):
        return (c * g,)
    f.defvjp(fwd, bwd)
    return f


def test_jvp_of_custom_vjp_uses_the_rule():
    f = _clipped_sin()
    x = np.array([0.1, 1.4, 2.0, 3.0], np.float32)
    t = np.array([1.0, 2.0, -1.0, 0.5], np.float32)
    want = np.clip(np.cos(x), -0.5, 0.5) * t
    y, ty = strata.jvp(f, (x,), (t,))
    np.testing.assert_allclose(np.asarray(y), np.sin(x), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ty), want, rtol=1e-6)
    # Where the rule agrees with sin' so do finite differences of the primal; elsewhere not.
    x64 = x.astype(np.float64)
    fd = (np.sin(x64 + 1e-6 * t) - np.sin(x64 - 1e-6 * t)) / 2e-6
    np.testing.assert_allclose(np.asarray(ty)[1:3], fd[1:3], rtol=1e-4)
    assert abs(float(ty[0]) - fd[0]) > 0.4
    # jit, vmap and jacfwd compose with it (jacfwd == jacrev: both use the rule).
    np.testing.assert_allclose(np.asarray(strata.jit(lambda x, t: strata.jvp(f, (x,), (t,))[1])(x, t)),
                               want, rtol=1e-6)
    per = strata.vmap(lambda x, t: strata.jvp(f, (x,), (t,))[1])(x.reshape(2, 2), t.reshape(2, 2))
    np.testing.assert_allclose(np.asarray(per).ravel(), want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(strata.jacfwd(f)(x)), np.asarray(strata.jacrev(f)(x)),
                               rtol=1e-6)


def test_jvp_of_custom_vjp_correct_rule_matches_finite_differences_and_composes():
    a = np.array([[1.0, 2.0, -1.0], [0.5, 3.0, 1.0]], np.float32)

    @strata.custom_vjp
    def f(x, w):
        return a @ x * w

    f.defvjp(lambda x, w: (a @ x * w, (x, w)),
             lambda r, g: (a.T @ (g * r[1]), g * (a @ r[0])))
    x = np.array([0.3, -1.2, 2.0], np.float32)
    w = np.array([1.5, -0.5], np.float32)

    def h(v):
        return jnp.sum(jnp.sin(f(v[:3], v[3:])))

    v = np.concatenate([x, w])
    hnp = lambda v: np.sum(np.sin(a.astype(np.float64) @ v[:3] * v[3:]))  # noqa: E731
    tv = np.array([1.0, 0.5, -2.0, -1.0, 3.0], np.float32)
    _, th = strata.jvp(h, (v,), (tv,))
    v64 = v.astype(np.float64)
    fd = (hnp(v64 + 1e-6 * tv) - hnp(v64 - 1e-6 * tv)) / 2e-6
    np.testing.assert_allclose(float(th), fd, rtol=1e-3)
    # Hessians both ways round, and jvp of jvp, against finite differences of the gradient.
    fd_h = np.stack([(numerical_grad(hnp, v64 + 1e-4 * e) - numerical_grad(hnp, v64 - 1e-4 * e)) / 2e-4
                     for e in np.eye(5)])
    np.testing.assert_allclose(np.asarray(strata.hessian(h)(v)), fd_h, rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(np.asarray(strata.jacfwd(strata.jacfwd(h))(v)), fd_h, rtol=2e-2,
                               atol=2e-2)
    e0 = np.eye(5, dtype=np.float32)[0]
    second = strata.jvp(lambda u: strata.jvp(h, (u,), (e0,))[1], (v,), (e0,))[1]
    np.testing.assert_allclose(float(second), fd_h[0, 0], rtol=2e-2, atol=2e-2)


def test_print_inside_control_flow_under_jit(capsys):
    from strata import lax

    def body(c, x):
        strata.debug.print("step {} {}", c, x)
        return c + x, c

    f = strata.jit(lambda xs: lax.scan(body, jnp.float32(0), xs))
    carry, ys = f(jnp.arange(3.0))
    assert float(carry) == 3.0 and np.asarray(ys).tolist() == [0.0, 0.0, 1.0]
    assert lines(capsys) == ["step 0.0 0.0", "step 0.0 1.0", "step 1.0 2.0"]
    g = strata.jit(lambda p, x: lax.cond(p, lambda x: (strata.debug.print("T {}", x), x)[1],
                                         lambda x: (strata.debug.print("F {}", x), x)[1], x))
    g(True, 1.0)
    g(False, 2.0)
    assert lines(capsys) == ["T 1.0", "F 2.0"]


def test_print_under_grad_of_jit_runs_forward_and_replay(capsys):
    # grad of a jitted function compiles a backward pass that recomputes the forward one, so
    # the print runs twice per gradient (JAX's partial evaluation runs it once).
    f = strata.jit(lambda x: (strata.debug.print("x={}", x), jnp.sum(jnp.sin(x)))[1])
    x = np.array([0.5, 1.0], np.float32)
    np.testing.assert_allclose(np.asarray(strata.grad(f)(x)), np.cos(x), rtol=1e-6)
    assert lines(capsys) == [f"x={x}", f"x={x}"]
    strata.jvp(f, (x,), (x,))
    assert lines(capsys) == [f"x={x}"]
