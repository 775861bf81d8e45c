"""strata.lax control flow (cond, switch, while_loop, fori_loop, scan, map) from Python: each
against a plain Python loop or if over numpy, pytree carries, the transforms (grad against finite
differences or the analytic derivative, jvp, vmap, hessian), error messages, and jit."""

import collections

import numpy as np
import pytest

import strata
import strata.numpy as jnp
from strata import lax
from conftest import numerical_grad, x64_mode

rng = np.random.default_rng(8)


@pytest.fixture(autouse=True)
def _x64():
    """These tests compare against float64 oracles (numpy loops, finite differences, analytic
    derivatives at 1e-12), so they run in 64-bit mode, as JAX's own tests do."""
    with x64_mode(True):
        yield


def close(got, want, rtol=1e-6, atol=1e-9):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


# ---- cond and switch -------------------------------------------------------------------------

@pytest.mark.parametrize("p", [True, False])
def test_cond_against_python_if(p):
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    got = lax.cond(p, lambda a, b: a * b + 1.0, lambda a, b: a - b, x, y)
    close(got, x * y + 1.0 if p else x - y)


def test_cond_pytree_operands_and_outputs():
    ops = {"w": rng.standard_normal((2, 3)), "b": rng.standard_normal(3)}

    def t(d, s):
        return (d["w"].sum(0) + d["b"] * s, {"n": jnp.sum(d["b"])})

    def f(d, s):
        return (d["w"][0] - s, {"n": jnp.max(d["b"])})
    for p in (True, False):
        out = lax.cond(jnp.asarray(p), t, f, ops, 2.0)
        want = (ops["w"].sum(0) + ops["b"] * 2, {"n": ops["b"].sum()}) if p else \
            (ops["w"][0] - 2, {"n": ops["b"].max()})
        assert isinstance(out, tuple) and set(out[1]) == {"n"}
        close(out[0], want[0])
        close(out[1]["n"], want[1]["n"])


def test_cond_integer_predicate_and_no_operands():
    assert float(lax.cond(3, lambda: 1.0, lambda: 2.0)) == 1.0
    assert float(lax.cond(np.int32(0), lambda: 1.0, lambda: 2.0)) == 2.0


@pytest.mark.parametrize("i", [-2, 0, 1, 2, 7])
def test_switch_clamps_the_index(i):
    x = rng.standard_normal(4)
    branches = [lambda v: v + 1.0, lambda v: v * v, lambda v: jnp.sin(v)]
    oracle = [lambda v: v + 1.0, lambda v: v * v, np.sin][min(max(i, 0), 2)]
    close(lax.switch(i, branches, x), oracle(x))
    close(lax.switch(jnp.asarray(i), tuple(branches), x), oracle(x))


# ---- while_loop ------------------------------------------------------------------------------

def test_while_loop_against_python_loop():
    def gcd_np(a, b):
        while b != 0:
            a, b = b, a % b
        return a
    out = lax.while_loop(lambda c: c[1] != 0, lambda c: (c[1], c[0] % c[1]),
                         (jnp.int32(1071), jnp.int32(462)))
    assert int(out[0]) == gcd_np(1071, 462) == 21 and int(out[1]) == 0


def test_while_loop_pytree_carry():
    Carry = collections.namedtuple("Carry", ["i", "state"])
    x = rng.standard_normal(3)

    def body(c):
        return Carry(c.i + 1, {"s": c.state["s"] * 0.5 + x, "hist": (c.state["hist"][0] + 1.0,)})
    out = lax.while_loop(lambda c: c.i < 7, body,
                         Carry(0, {"s": np.zeros(3), "hist": (np.zeros(2),)}))
    s = np.zeros(3)
    for _ in range(7):
        s = s * 0.5 + x
    assert isinstance(out, Carry) and int(out.i) == 7
    close(out.state["s"], s)
    close(out.state["hist"][0], np.full(2, 7.0))


def test_while_loop_zero_iterations():
    out = lax.while_loop(lambda c: c > 10.0, lambda c: c + 1.0, jnp.float32(3.0))
    assert float(out) == 3.0


# ---- fori_loop -------------------------------------------------------------------------------

def test_fori_loop_against_python_loop():
    x = rng.standard_normal(6).astype(np.float32)
    xj = jnp.asarray(x)
    got = lax.fori_loop(1, 5, lambda i, s: s + xj[i] * i, 0)  # weak int init promoted to f32
    assert got.dtype == np.float32
    close(got, sum(x[i] * i for i in range(1, 5)), rtol=1e-6)
    x64 = x.astype(np.float64)
    x64j = jnp.asarray(x64)
    got = lax.fori_loop(0, 6, lambda i, s: s + x64j[i], 0.0)  # weak float init promoted to f64
    assert got.dtype == np.float64
    close(got, x64.sum())
    assert float(lax.fori_loop(4, 2, lambda i, s: s + 1.0, 0.0)) == 0.0  # empty range


def test_fori_loop_pytree_carry_and_python_scalar_outputs():
    def body(i, c):
        a, d = c
        return a * 2.0, {"k": d["k"] + i, "z": 0.0}
    a, d = lax.fori_loop(0, 4, body, (np.ones(2), {"k": 0, "z": np.array(1.0)}))
    close(a, np.full(2, 16.0))
    assert int(d["k"]) == 6 and float(d["z"]) == 0.0 and d["z"].dtype == np.float64


def test_fori_loop_traced_bounds_under_vmap():
    x = rng.standard_normal(8)
    xj = jnp.asarray(x)
    ns = np.array([0, 3, 8, 5], np.int32)
    got = strata.vmap(lambda n: lax.fori_loop(0, n, lambda i, s: s + xj[i], 0.0))(ns)
    close(got, [x[:n].sum() for n in ns])


def test_fori_loop_rejects_float_bounds():
    with pytest.raises(TypeError, match=r"\[fori_loop\] lower and upper must be integer"):
        lax.fori_loop(0, 2.5, lambda i, c: c, 0.0)


# ---- scan ------------------------------------------------------------------------------------

@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("unroll", [1, 3, True])
def test_scan_against_python_loop(reverse, unroll):
    xs = rng.standard_normal((7, 2))

    def f(c, x):
        c = 0.9 * c + x
        return c, c * c
    c, ys = lax.scan(f, np.zeros(2), xs, reverse=reverse, unroll=unroll)
    cc, want = np.zeros(2), [None] * 7
    for t in (range(6, -1, -1) if reverse else range(7)):
        cc = 0.9 * cc + xs[t]
        want[t] = cc * cc
    close(c, cc)
    close(ys, np.stack(want))


def test_scan_pytrees_none_y_and_length():
    xs = {"a": rng.standard_normal((5, 3)), "b": (np.arange(5, dtype=np.int32),)}

    def f(c, x):
        s, n = c
        return (s + x["a"] * x["b"][0], n + 1), {"sq": x["a"] ** 2, "n": n}
    (s, n), ys = lax.scan(f, (np.zeros(3), 0), xs)
    close(s, (xs["a"] * np.arange(5)[:, None]).sum(0))
    assert int(n) == 5
    close(ys["sq"], xs["a"] ** 2)
    close(ys["n"], np.arange(5))
    # no y
    c, ys = lax.scan(lambda c, x: (c + x, None), 0.0, np.arange(4.0))
    assert ys is None and float(c) == 6.0
    # no xs: length steps with x None
    c, ys = lax.scan(lambda c, x: (c * 2.0, c), 1.0, None, length=5)
    assert float(c) == 32.0
    close(ys, [1, 2, 4, 8, 16])
    close(lax.map(lambda r: jnp.sum(r * r), xs["a"]), (xs["a"] ** 2).sum(1))


# ---- Transforms ------------------------------------------------------------------------------

def newton_sqrt(a):
    """sqrt(a) by Newton's iteration until converged: a while_loop with a data-dependent trip
    count."""
    def body(c):
        x, _ = c
        return 0.5 * (x + a / x), x
    x, _ = lax.while_loop(lambda c: jnp.abs(c[0] - c[1]) > 1e-12, body, (a, a + 1.0))
    return x


def test_grad_newton_sqrt_while_loop():
    for a in (0.5, 2.0, 9.0):
        close(newton_sqrt(jnp.float64(a)), np.sqrt(a), rtol=1e-12)
        close(strata.grad(newton_sqrt)(jnp.float64(a)), 0.5 / np.sqrt(a), rtol=1e-8)
    # per-example trip counts under vmap, and vmap of grad
    a = np.array([0.25, 3.0, 100.0, 1e4])
    close(strata.vmap(newton_sqrt)(a), np.sqrt(a), rtol=1e-12)
    close(strata.vmap(strata.grad(newton_sqrt))(a), 0.5 / np.sqrt(a), rtol=1e-8)


def test_grad_fori_loop_euler_ode():
    # y' = -k y by explicit Euler: y_N = y0 (1 - k h)^N, so dy_N/dk = -y0 N h (1 - k h)^(N - 1)
    n, h, y0 = 50, 0.02, 1.5

    def solve(k):
        return lax.fori_loop(0, n, lambda i, y: y - h * k * y, jnp.float64(y0))
    k = jnp.float64(1.3)
    close(solve(k), y0 * (1 - k * h) ** n, rtol=1e-12)
    close(strata.grad(solve)(k), -y0 * n * h * (1 - k * h) ** (n - 1), rtol=1e-10)
    # traced bounds: the while_loop form, same derivative
    solve_w = lambda k, n: lax.fori_loop(jnp.int32(0), n, lambda i, y: y - h * k * y,  # noqa: E731
                                         jnp.float64(y0))
    close(strata.grad(lambda k: strata.vmap(lambda m: solve_w(k, m))(
        jnp.asarray([n], jnp.int32))[0])(k), -y0 * n * h * (1 - k * h) ** (n - 1), rtol=1e-10)


def rnn_np(params, xs):
    h = np.zeros(params["wh"].shape[0])
    loss = 0.0
    for x, y in xs:
        h = np.tanh(params["wh"] @ h + params["wx"] * x + params["b"])
        loss += (params["wo"] @ h - y) ** 2
    return loss / len(xs)


def rnn_loss(params, xs, ys):
    def step(h, xy):
        x, y = xy
        h = jnp.tanh(params["wh"] @ h + params["wx"] * x + params["b"])  # params closed over
        return h, (jnp.dot(params["wo"], h) - y) ** 2
    _, errs = lax.scan(step, jnp.zeros(params["wh"].shape[0], params["wh"].dtype), (xs, ys))
    return jnp.mean(errs)


def test_grad_rnn_scan_finite_differences_and_sgd():
    steps, hid = 50, 4
    t = np.linspace(0, 4 * np.pi, steps + 1)
    xs, ys = np.sin(t[:-1]), np.sin(t[1:])  # predict the next sample
    params = {"wh": 0.3 * rng.standard_normal((hid, hid)), "wx": rng.standard_normal(hid),
              "b": np.zeros(hid), "wo": 0.5 * rng.standard_normal(hid)}
    close(rnn_loss(params, xs, ys), rnn_np(params, list(zip(xs, ys))), rtol=1e-10)
    g = strata.grad(rnn_loss)(params, xs, ys)
    for name in params:
        def f(v, name=name):
            return rnn_np(dict(params, **{name: v}), list(zip(xs, ys)))
        close(g[name], numerical_grad(f, params[name]), rtol=1e-5, atol=1e-8)
    # SGD decreases the loss
    vg = strata.value_and_grad(rnn_loss)
    p = params
    losses = []
    for _ in range(30):
        loss, g = vg(p, xs, ys)
        losses.append(float(loss))
        p = {k: p[k] - 0.2 * g[k] for k in p}
    assert losses[-1] < 0.5 * losses[0]
    assert all(b <= a + 1e-12 for a, b in zip(losses, losses[1:]))


def test_grad_through_cond_and_switch():
    def f(x):
        return lax.cond(jnp.sum(x) > 0, lambda v: jnp.sum(jnp.sin(v) * v),
                        lambda v: jnp.sum(v ** 3), x)
    for x in (np.array([0.5, 1.0, -0.2]), np.array([-0.5, -1.0, 0.2])):
        want = numerical_grad(lambda v: np.sum(np.sin(v) * v) if v.sum() > 0 else np.sum(v ** 3), x)
        close(strata.grad(f)(x), want, rtol=1e-6)

    def g(x, i):
        return lax.switch(i, [lambda v: jnp.sum(v * v), lambda v: jnp.sum(jnp.exp(v))], x)
    x = np.array([0.1, -0.4])
    close(strata.grad(g)(x, 0), 2 * x)
    close(strata.grad(g)(x, 1), np.exp(x))


def test_jvp_of_scan_and_while():
    x = rng.standard_normal(5)
    t = rng.standard_normal(5)

    def f(v):
        return lax.scan(lambda c, a: (c * jnp.cos(a) + a, c), 1.0, v)[0]

    def f_np(v):
        c = 1.0
        for a in v:
            c = c * np.cos(a) + a
        return c
    out, tout = strata.jvp(f, (x,), (t,))
    close(out, f_np(x))
    close(tout, numerical_grad(f_np, x) @ t, rtol=1e-6)
    out, tout = strata.jvp(newton_sqrt, (jnp.float64(2.0),), (jnp.float64(1.0),))
    close(tout, 0.5 / np.sqrt(2.0), rtol=1e-8)


def test_vmap_cond_with_batched_predicate():
    xs = rng.standard_normal((6, 3))
    got = strata.vmap(lambda v: lax.cond(jnp.sum(v) > 0, lambda u: u * 2.0, lambda u: -u, v))(xs)
    close(got, np.stack([v * 2 if v.sum() > 0 else -v for v in xs]))
    idx = np.array([0, 2, 1, 5, -1, 1], np.int32)
    got = strata.vmap(lambda i, v: lax.switch(i, [jnp.sin, jnp.cos, jnp.exp], v))(idx, xs)
    fns = [np.sin, np.cos, np.exp]
    close(got, np.stack([fns[min(max(i, 0), 2)](v) for i, v in zip(idx, xs)]))


def test_vmap_while_loop_per_example_trip_counts():
    def steps_to_one(n):  # Collatz
        def body(c):
            v, k = c
            return jnp.where(v % 2 == 0, v // 2, 3 * v + 1), k + 1
        return lax.while_loop(lambda c: c[0] != 1, body, (n, 0))[1]

    def oracle(n):
        k = 0
        while n != 1:
            n, k = (n // 2 if n % 2 == 0 else 3 * n + 1), k + 1
        return k
    ns = np.array([1, 6, 7, 27, 2], np.int32)
    close(strata.vmap(steps_to_one)(ns), [oracle(int(n)) for n in ns])


def test_hessian_through_fori_loop():
    def f(x):  # sum(x^3 * w), x^3 by a loop
        return jnp.sum(lax.fori_loop(0, 3, lambda i, c: c * x, jnp.ones_like(x)) * w)
    w = rng.standard_normal(4)
    x = rng.standard_normal(4)
    close(strata.hessian(f)(x), np.diag(6 * x * w), atol=1e-10)
    # and through a scan whose body closes over the input: sum_a sum_j sin(a x_j)
    def g(x):
        return lax.scan(lambda c, a: (c + jnp.sum(jnp.sin(x * a)), None), 0.0,
                        np.arange(1.0, 4.0))[0]
    a = np.arange(1.0, 4.0)[:, None]
    close(strata.hessian(g)(x), np.diag(np.sum(-a * a * np.sin(a * x), 0)), atol=1e-10)


# ---- Errors ----------------------------------------------------------------------------------

def test_while_loop_type_mismatch_names_the_path():
    with x64_mode(False):  # the messages name the default (x64 off) f32 types
        with pytest.raises(TypeError) as e:
            lax.while_loop(lambda c: c["i"] < 3, lambda c: {"i": c["i"] + 1, "v": c["v"][:3]},
                           {"i": 0, "v": np.zeros(4, np.float32)})
        msg = str(e.value)
        assert "[while_loop] body returns f32[3] for carry 1, expected f32[4]" in msg
        assert "init_val['v']" in msg
        assert isinstance(e.value, ValueError)  # the core's kind too
        # traced bounds: the core's while_loop carries the index first (carry 2 is the user's 1)
        with pytest.raises(TypeError, match=r"for carry 2, expected f32\[2\] \(carry 2 is "
                                            r"init_val\[1\]\)"):
            strata.vmap(lambda n: lax.fori_loop(0, n, lambda i, c: (c[0], c[1][:1]),
                                                (1.0, jnp.zeros(2))))(jnp.array([1, 2]))
        with pytest.raises(TypeError, match=r"for carry 0, expected i32\[\].*init\[0\]\.x"):
            P = collections.namedtuple("P", ["x"])
            lax.scan(lambda c, x: ((P(c[0].x + 0.5 * x),), None), (P(np.int32(0)),),
                     np.ones(3, np.float32))


def test_structure_mismatches():
    with pytest.raises(TypeError, match=r"\[while_loop\] body_fun must return a carry with the "
                                        r"structure of init_val"):
        lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1,), (0, 1.0))
    with pytest.raises(TypeError, match=r"\[scan\] f must return a carry with the structure"):
        lax.scan(lambda c, x: ([c[0]], x), (0.0,), np.ones(3))
    with pytest.raises(TypeError, match=r"\[scan\] f must return a pair"):
        lax.scan(lambda c, x: c, 0.0, np.ones(3))
    with pytest.raises(TypeError, match=r"\[cond\] true_fun and false_fun must return the same "
                                        r"pytree structure"):
        lax.cond(True, lambda x: (x, x), lambda x: x, 1.0)
    with pytest.raises(TypeError, match=r"\[switch\] every branch"):
        lax.switch(0, [lambda x: x, lambda x: [x]], 1.0)
    with pytest.raises(ValueError, match=r"\[cond\] true_fn returns f32\[2\] for output 1 where "
                                         r"false_fn returns f32\[3\].*out\['b'\]"):
        lax.cond(True, lambda x: {"a": x, "b": x[:2]}, lambda x: {"a": x, "b": x},
                 np.ones(3, np.float32))
    with pytest.raises(ValueError, match=r"\[scan\] .*length"):
        lax.scan(lambda c, x: (c, x), 0.0, (np.ones(3), np.ones(4)))


def test_predicate_errors():
    with x64_mode(False):  # the messages name the default (x64 off) f32 types
        with pytest.raises(TypeError, match=r"\[cond\] the predicate must be a boolean scalar, got "
                                            r"f32\[\]"):
            lax.cond(1.5, lambda: 1.0, lambda: 2.0)
        with pytest.raises(TypeError, match=r"\[cond\] the predicate must be a boolean scalar, got "
                                            r"bool\[2\]"):
            lax.cond(np.array([True, False]), lambda: 1.0, lambda: 2.0)
        with pytest.raises(TypeError, match=r"\[switch\] the index must be an integer scalar"):
            lax.switch(1.0, [lambda: 1.0, lambda: 2.0])
        with pytest.raises(TypeError, match=r"\[while_loop\] cond_fun must return one boolean "
                                            r"scalar, got f32\[\]"):
            lax.while_loop(lambda c: c, lambda c: c - 1.0, 3.0)
        with pytest.raises(TypeError, match=r"\[while_loop\] cond_fun must return one boolean "
                                            r"scalar, got bool\[2\]"):
            lax.while_loop(lambda c: c > 0, lambda c: c - 1.0, np.ones(2))


def test_python_errors_in_sub_functions_propagate():
    def body(c):
        raise KeyError("boom")
    with pytest.raises(KeyError, match="boom"):
        lax.while_loop(lambda c: c < 3, body, 0)


# ---- jit: control flow is staged into strata.cond/while/scan regions ------------------------

def test_jit_while_and_fori_loop():
    f = strata.jit(newton_sqrt)
    close(f(jnp.float64(2.0)), np.sqrt(2.0), rtol=1e-12)
    x = jnp.asarray(rng.standard_normal(16).astype(np.float32))
    g = strata.jit(lambda x, n: lax.fori_loop(0, n, lambda i, s: s + x[i % 16], 0.0),
                   static_argnums=1)
    close(g(x, 40), sum(float(x[i % 16]) for i in range(40)), rtol=1e-5)
    h = strata.jit(lambda x, n: lax.fori_loop(0, n, lambda i, s: s + x[i], 0.0))
    close(h(x, jnp.int32(7)), x[:7].sum(), rtol=1e-5)
    close(h(x, jnp.int32(3)), x[:3].sum(), rtol=1e-5)


def test_jit_traces_the_body_once():
    calls = []

    def body(i, c):
        calls.append(i)
        return c * 1.01 + 1.0
    f = strata.jit(lambda c: lax.fori_loop(0, 1000, body, c))
    c = 0.0
    for _ in range(1000):
        c = c * 1.01 + 1.0
    close(f(jnp.float32(0.0)), c, rtol=1e-4)
    assert len(calls) < 10  # traced, not unrolled or run step by step


def test_jit_scan_cond_and_grad():
    steps, hid = 20, 3
    xs = np.sin(np.linspace(0, 3, steps))
    ys = np.cos(np.linspace(0, 3, steps))
    params = {"wh": 0.3 * rng.standard_normal((hid, hid)), "wx": rng.standard_normal(hid),
              "b": np.zeros(hid), "wo": rng.standard_normal(hid)}
    close(strata.jit(rnn_loss)(params, xs, ys), rnn_np(params, list(zip(xs, ys))), rtol=1e-10)
    g = strata.jit(strata.grad(rnn_loss))(params, xs, ys)
    for name in params:
        def f(v, name=name):
            return rnn_np(dict(params, **{name: v}), list(zip(xs, ys)))
        close(g[name], numerical_grad(f, params[name]), rtol=1e-5, atol=1e-8)
    c = strata.jit(lambda p, v: lax.cond(p, lambda u: u + 1.0, lambda u: u * 3.0, v))
    close(c(True, np.ones(2)), np.full(2, 2.0))
    close(c(False, np.ones(2)), np.full(2, 3.0))


def test_jit_of_grad_through_while_loop_runs_op_by_op():
    # The trip count is data-dependent: jit cannot compile the reverse pass alone, so it runs the
    # function op by op (an inline call) and still gives the analytic derivative 1/(2 sqrt(a)).
    before = strata.jit_cache_stats()["inline_calls"]
    g = strata.jit(strata.grad(newton_sqrt))
    close(g(jnp.float64(2.0)), 0.5 / np.sqrt(2.0), rtol=1e-10)
    assert strata.jit_cache_stats()["inline_calls"] > before
