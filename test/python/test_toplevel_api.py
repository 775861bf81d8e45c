"""Top-level names a JAX program uses besides the transforms' core: devices and processes,
block_until_ready/device_get, typeof, make_jaxpr, jit's lower/compile/trace, checkpoint policies,
custom_jvp/custom_vjp options, vmap's axis options, and the strata.config switches
(jax_debug_nans/infs, jax_disable_jit, jax_log_compiles, ...). Oracles: numpy formulas, finite
differences, per-example loops, eager runs."""

import logging

import numpy as np
import pytest

import strata
import strata.numpy as jnp
from strata import lax
from conftest import numerical_grad

RNG = np.random.default_rng(7)
X = RNG.standard_normal(5).astype(np.float32)
A = RNG.standard_normal((3, 5)).astype(np.float32)


def close(a, b, rtol=1e-5, atol=1e-5):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64),
                               rtol=rtol, atol=atol)


@pytest.fixture
def options():
    """Restores every strata.config option a test changes."""
    saved = strata.config.values()
    yield strata.config
    for k, v in saved.items():
        if strata.config.read(k) != v:
            strata.config.update(k, v)


# ---- devices and processes ---------------------------------------------------------------------

def test_devices_have_jax_attributes():
    ds = strata.devices()
    assert len(ds) == strata.device_count() == strata.local_device_count() >= 1
    assert strata.local_devices() == ds
    assert strata.default_backend() in ("cpu", "gpu")
    assert all(d.platform == strata.default_backend() for d in ds)
    cpu = strata.devices("cpu")[0]
    assert (cpu.platform, cpu.id, cpu.device_kind, cpu.process_index) == ("cpu", 0, "cpu", 0)
    assert str(cpu) == "cpu:0" and repr(cpu) == "CpuDevice(id=0)"
    assert cpu == "cpu:0" and cpu == strata.devices("cpu")[0] and hash(cpu) == hash(cpu)
    assert strata.device_count("cpu") == 1
    assert strata.process_index() == 0 and strata.process_count() == 1
    assert isinstance(cpu, strata.Device)


def test_device_errors():
    with pytest.raises(RuntimeError, match="unknown backend"):
        strata.devices("tpu")
    with pytest.raises(ValueError, match="process_index"):
        strata.local_devices(process_index=1)
    if not any(n.startswith("cuda") for n in strata._core.devices()):
        with pytest.raises(RuntimeError, match="no devices"):
            strata.devices("gpu")
        assert strata.default_backend() == "cpu"


def test_arrays_know_their_device():
    x = strata.device_put(X, strata.devices("cpu")[0])
    assert x.device == strata.devices("cpu")[0] and x.device.platform == "cpu"
    assert x.devices() == {strata.devices("cpu")[0]}
    close(x, X)


def test_print_environment_info(capsys):
    text = strata.print_environment_info(return_string=True)
    assert "strata:" in text and "numpy:" in text and "CpuDevice(id=0)" in text
    strata.print_environment_info()
    assert "process_count: 1" in capsys.readouterr().out


# ---- block_until_ready, device_get ---------------------------------------------------------------

def test_block_until_ready_returns_its_argument():
    tree = {"a": jnp.sin(X), "b": [jnp.ones(2), 3.0]}
    assert strata.block_until_ready(tree) is tree
    y = strata.jit(jnp.cos)(X)
    assert y.block_until_ready() is y
    close(strata.block_until_ready(y), np.cos(X))
    # Inside a transform it passes tracers through.
    close(strata.grad(lambda v: jnp.sum(strata.block_until_ready(jnp.sin(v))))(X), np.cos(X))


def test_device_get_gives_numpy():
    out = strata.device_get({"a": jnp.exp(X), "b": (jnp.arange(3), "tag", 2)})
    assert isinstance(out["a"], np.ndarray) and isinstance(out["b"][0], np.ndarray)
    close(out["a"], np.exp(X))
    np.testing.assert_array_equal(out["b"][0], np.arange(3))
    assert out["b"][1:] == ("tag", 2)
    with pytest.raises(TypeError, match=r"\[device_get\]"):
        strata.jit(lambda v: strata.device_get(v))(X)


# ---- typeof, ShapeDtypeStruct --------------------------------------------------------------------

def test_typeof():
    t = strata.typeof(jnp.ones((2, 3), jnp.float32))
    assert (t.shape, t.dtype, t.weak_type, t.ndim, t.size) == ((2, 3), np.float32, False, 2, 6)
    assert str(t) == "float32[2,3]" and repr(t) == "ShapedArray(float32[2,3])"
    w = strata.typeof(1.0)
    assert w.shape == () and w.dtype == np.float32 and w.weak_type
    assert strata.typeof(np.arange(4, dtype=np.int32)).dtype == np.int32
    assert strata.typeof(strata.ShapeDtypeStruct((4,), jnp.float32)).shape == (4,)
    seen = []
    strata.jit(lambda v: seen.append(strata.typeof(v)) or v)(jnp.ones((2, 3)))
    strata.vmap(lambda v: seen.append(strata.typeof(v)) or v)(jnp.ones((2, 3)))
    assert [s.shape for s in seen] == [(2, 3), (3,)]
    with pytest.raises(TypeError, match=r"\[typeof\]"):
        strata.typeof((1.0, 2.0))


def test_shape_dtype_struct():
    s = strata.ShapeDtypeStruct((2, 3), jnp.float32)
    assert s.dtype == np.dtype("float32") and isinstance(s.dtype, np.dtype)
    assert (s.ndim, s.size, len(s)) == (2, 6, 2)
    assert s == strata.ShapeDtypeStruct([2, 3], "float32") and hash(s) == hash(
        strata.ShapeDtypeStruct((2, 3), np.float32))
    assert s != strata.ShapeDtypeStruct((2, 3), jnp.int32)
    assert repr(s) == "ShapeDtypeStruct(shape=(2, 3), dtype=float32)"
    out = strata.eval_shape(lambda a, b: (a @ b, jnp.sum(b)), s,
                            strata.ShapeDtypeStruct((3, 4), jnp.float32))
    assert out[0] == strata.ShapeDtypeStruct((2, 4), jnp.float32)
    assert out[1].shape == ()


# ---- make_jaxpr, named_scope, ensure_compile_time_eval -------------------------------------------

def test_make_jaxpr():
    def f(x, n, y):
        return {"s": jnp.sin(x) * n, "d": x @ y}
    j = strata.make_jaxpr(f, static_argnums=1)(jnp.ones(3), 2.0, jnp.ones((3, 2)))
    text = str(j)
    assert "strata.sin" in text and "strata.dot_general" in text and "func.func @main" in text
    assert [str(a) for a in j.in_avals] == ["float32[3]", "float32[3,2]"]
    assert sorted(str(a) for a in j.out_avals) == ["float32[2]", "float32[3]"]
    j2, shapes = strata.make_jaxpr(jnp.cos, return_shape=True)(
        strata.ShapeDtypeStruct((4,), jnp.float32))
    assert "strata.cos" in str(j2) and shapes == strata.ShapeDtypeStruct((4,), jnp.float32)
    # The same text as make_ir (one staging path).
    assert str(strata.make_jaxpr(jnp.tanh)(X)) == strata.make_ir(jnp.tanh)(X)


def test_named_scope_nests_and_changes_nothing():
    from strata.api import current_name_scope
    names = []

    def f(x):
        with strata.named_scope("outer"):
            with strata.named_scope("inner"):
                names.append(current_name_scope())
                y = jnp.sin(x)
            names.append(current_name_scope())
        return y
    close(strata.jit(f)(X), np.sin(X))
    close(strata.grad(lambda v: jnp.sum(f(v)))(X), np.cos(X))
    assert names[:2] == ["outer/inner", "outer"] and current_name_scope() == ""
    with pytest.raises(TypeError, match=r"\[named_scope\]"):
        with strata.named_scope(3):
            pass


def test_ensure_compile_time_eval():
    @strata.jit
    def f(x):
        with strata.ensure_compile_time_eval():
            c = jnp.sum(jnp.arange(4.0))
            sign = 1.0 if float(c) > 0 else -1.0  # concrete inside jit
        return x * sign + c
    close(f(X), X + 6.0)

    # Inside a loop body traced by lax.fori_loop too.
    def body(i, acc):
        with strata.ensure_compile_time_eval():
            k = jnp.asarray(2.0) * 3.0
            assert k.is_concrete
        return acc + k
    close(lax.fori_loop(0, 3, body, jnp.zeros(())), 18.0)


# ---- jacobian, linear_transpose ------------------------------------------------------------------

def test_jacobian_is_jacrev():
    assert strata.jacobian is strata.jacrev
    close(strata.jacobian(lambda v: jnp.tanh(A @ v))(X),
          (1 - np.tanh(A @ X) ** 2)[:, None] * A, rtol=1e-4)


def test_linear_transpose():
    t = strata.linear_transpose(lambda v: jnp.asarray(A) @ v, X)
    ct = RNG.standard_normal(3).astype(np.float32)
    (g,) = t(ct)
    close(g, A.T @ ct, rtol=1e-4)
    close(strata.jit(lambda c: t(c)[0])(ct), A.T @ ct, rtol=1e-4)

    # Pytrees and ShapeDtypeStructs; f(a, b) = (2a + b.sum(), 3b) transposes to sums.
    def f(a, b):
        return {"u": 2 * a + jnp.sum(b), "v": 3 * b}
    t2 = strata.linear_transpose(f, strata.ShapeDtypeStruct((), jnp.float32),
                                 np.zeros(2, np.float32))
    ga, gb = t2({"u": jnp.asarray(1.5), "v": jnp.asarray([1.0, -1.0])})
    close(ga, 3.0)
    close(gb, np.array([1.5 + 3.0, 1.5 - 3.0]))
    with pytest.raises(TypeError, match=r"\[linear_transpose\]"):
        t(np.ones(4, np.float32))
    with pytest.raises(TypeError, match=r"\[linear_transpose\]"):
        strata.linear_transpose(lambda i: i * 2, np.arange(3, dtype=np.int32))


# ---- disable_jit, jit's lower/compile/trace, jit hints, log_compiles -----------------------------

def test_disable_jit_runs_eagerly(options):
    calls = []

    @strata.jit
    def f(x):
        calls.append(1)
        if float(jnp.sum(x)) > 0:  # needs a concrete value: only works eagerly
            return x * 2
        return -x
    with strata.disable_jit():
        assert options.jax_disable_jit
        close(f(jnp.abs(X)), 2 * np.abs(X))
        close(f(-jnp.abs(X)), np.abs(X))
        close(f(jnp.abs(X)), 2 * np.abs(X))
    assert len(calls) == 3 and not options.jax_disable_jit
    options.update("jax_disable_jit", True)
    close(f(jnp.abs(X)), 2 * np.abs(X))
    assert len(calls) == 4


def test_lower_compile():
    def f(x, y):
        return jnp.sin(x) @ y + 1.0
    jf = strata.jit(f)
    low = jf.lower(strata.ShapeDtypeStruct((3, 5), jnp.float32), jnp.ones((5, 2)))
    assert "strata.sin" in low.as_text() and [str(a) for a in low.in_avals] == [
        "float32[3,5]", "float32[5,2]"]
    c = low.compile()
    y = RNG.standard_normal((5, 2)).astype(np.float32)
    close(c(A, y), np.sin(A) @ y + 1.0, rtol=1e-4)
    assert c.as_text() and c.as_text("strata") == low.as_text("strata")
    with pytest.raises(TypeError, match=r"\[jit\].*compiled for"):
        c(np.ones((2, 5), np.float32), y)
    with pytest.raises(TypeError, match=r"\[jit\].*compiled for"):
        c(A.astype(np.int32), y)
    # Under grad the compiled function differentiates like the jitted one.
    close(strata.grad(lambda a: jnp.sum(c(a, y)))(A),
          np.cos(A) * y.sum(axis=1)[None, :], rtol=1e-4)


def test_trace():
    tr = strata.jit(lambda x: jnp.exp(x) * 2).trace(X)
    assert "strata.exp" in str(tr.jaxpr)
    close(tr.lower().compile()(X), np.exp(X) * 2)


def test_jit_hints_are_checked():
    from strata.api import _check_jit_hints
    _check_jit_hints(donate_argnums=(0,), donate_argnames="x", inline=True, keep_unused=True)
    with pytest.raises(ValueError, match="both a device and a backend"):
        _check_jit_hints(device=strata.devices()[0], backend="cpu")
    with pytest.raises(RuntimeError, match="unknown backend"):
        _check_jit_hints(backend="tpu")


def test_log_compiles(options, caplog):
    f = strata.jit(lambda x: x * 3 + 1)
    options.update("jax_log_compiles", True)
    with caplog.at_level(logging.WARNING, logger="strata"):
        f(jnp.ones(7))
        f(jnp.ones(7))   # cached: no second line
        f(jnp.ones(8))
    lines = [r.getMessage() for r in caplog.records if "compiling" in r.getMessage()]
    assert len(lines) == 2 and "float32[7]" in lines[0] and "float32[8]" in lines[1]


# ---- jax_debug_nans / jax_debug_infs -------------------------------------------------------------

def test_debug_nans_eager(options):
    x = jnp.asarray([1.0, -1.0])
    assert np.isnan(np.asarray(jnp.log(x))[1])  # off: no check
    options.update("jax_debug_nans", True)
    with pytest.raises(FloatingPointError, match=r"\[log\] invalid value \(nan\).*f32\[2\]"):
        jnp.log(x)
    close(jnp.log(jnp.abs(x)), [0.0, 0.0])  # no NaN: nothing raised
    # In a backward pass: d/dx sqrt(x) * 0 ... the NaN comes from 0 * inf in the pullback.
    with pytest.raises(FloatingPointError, match="invalid value"):
        strata.grad(lambda v: jnp.sum(jnp.sqrt(v) * 0.0))(jnp.asarray([0.0, 1.0]))
    # Under vmap, at the batched primitive.
    with pytest.raises(FloatingPointError, match=r"\[log\]"):
        strata.vmap(jnp.log)(x)
    options.update("jax_debug_nans", False)
    jnp.log(x)


def test_debug_nans_under_jit_names_the_primitive(options):
    f = strata.jit(lambda v: jnp.sin(v) + jnp.log(v - 2.0))
    assert np.isnan(np.asarray(f(jnp.ones(3)))).all()
    options.update("jax_debug_nans", True)
    with pytest.raises(FloatingPointError, match=r"\[log\] invalid value \(nan\)"):
        f(jnp.ones(3))
    close(f(jnp.full(3, 3.0)), np.sin(3.0) + np.log(1.0))


def test_debug_nans_in_compiled_backward_passes(options):
    # The Inf appears only in the backward pass of the jitted function (d sqrt at 0), which the
    # core compiles on its own: its outputs are checked and it is re-run op by op.
    f = strata.jit(lambda v: jnp.sum(jnp.sqrt(v)))
    x = jnp.asarray([0.0, 4.0])
    assert np.isinf(np.asarray(strata.grad(f)(x))[0])
    options.update("jax_debug_infs", True)
    with pytest.raises(FloatingPointError, match=r"invalid value \(inf\)"):
        strata.grad(f)(x)
    with pytest.raises(FloatingPointError, match=r"invalid value \(inf\)"):
        strata.jit(strata.grad(f))(x)
    close(strata.grad(f)(jnp.asarray([1.0, 4.0])), [0.5, 0.25])
    # Nested jits: the inner one is compiled into the outer; the re-run finds the primitive.
    g = strata.jit(lambda v: strata.jit(lambda u: u / (u - 1.0))(v) * 2)
    with pytest.raises(FloatingPointError, match=r"\[div\] invalid value \(inf\)"):
        g(jnp.ones(2))


def test_debug_infs(options):
    one, zero = jnp.asarray(1.0), jnp.asarray(0.0)
    options.update("jax_debug_infs", True)
    with pytest.raises(FloatingPointError, match=r"\[div\] invalid value \(inf\)"):
        one / zero
    jnp.log(jnp.asarray(-1.0))  # NaN is not checked by jax_debug_infs
    with pytest.raises(FloatingPointError, match=r"invalid value \(inf\)"):
        strata.jit(lambda a, b: a / b)(one, zero)
    options.update("jax_debug_infs", False)
    assert np.isinf(np.asarray(one / zero))


def test_debug_nans_in_bfloat16_and_float16(options):
    options.update("jax_debug_nans", True)
    for dt in (jnp.bfloat16, jnp.float16):
        with pytest.raises(FloatingPointError, match=r"\[log\]"):
            jnp.log(jnp.asarray([-1.0], dt))
        jnp.log(jnp.asarray([1.0], dt))


# ---- other config options ------------------------------------------------------------------------

def test_config_options(options):
    for name, good, bad in [("jax_default_matmul_precision", "highest", "best"),
                            ("jax_numpy_rank_promotion", "raise", "sometimes"),
                            ("jax_traceback_filtering", "off", "maybe")]:
        options.update(name, good)
        assert options.read(name) == good and getattr(options, name) == good
        with pytest.raises(ValueError, match=name):
            options.update(name, bad)
    close(jnp.dot(A, X), A @ X, rtol=1e-4)  # precision is advisory
    options.update("jax_platforms", "cpu")
    assert strata.default_backend() == "cpu" and strata.devices() == ["cpu:0"]
    options.update("jax_platforms", "tpu")
    with pytest.raises(RuntimeError, match="unknown platform"):
        strata.default_backend()
    options.update("jax_platforms", None)
    options.update("jax_platform_name", "cpu")
    assert strata.default_backend() == "cpu"


# ---- checkpoint policies -------------------------------------------------------------------------

def _mlp(w, x):
    h = jnp.tanh(w @ x)
    h = lax.checkpoint_name(h, "hidden")
    return jnp.sum(jnp.sin(h) ** 2)


def _mlp_grad_np(w, x):
    z = w @ x
    h = np.tanh(z)
    dh = 2 * np.sin(h) * np.cos(h)
    return np.outer(dh * (1 - h ** 2), x)


P = strata.checkpoint_policies
POLICIES = [None, P.everything_saveable, P.nothing_saveable, P.dots_saveable, P.checkpoint_dots,
            P.dots_with_no_batch_dims_saveable, P.checkpoint_dots_with_no_batch_dims,
            P.save_anything_except_these_names("hidden"), P.save_any_names_but_these("other"),
            P.save_only_these_names("hidden"),
            P.save_from_both_policies(P.dots_saveable, P.save_only_these_names("hidden")),
            lambda prim, *avals, **params: prim.name == "tanh"]


@pytest.mark.parametrize("policy", POLICIES)
def test_checkpoint_policies_keep_the_gradient(policy):
    g = strata.grad(strata.checkpoint(_mlp, policy=policy))(A, X)
    close(g, _mlp_grad_np(A, X), rtol=1e-4)
    close(strata.jit(strata.grad(strata.checkpoint(_mlp, policy=policy)))(A, X),
          _mlp_grad_np(A, X), rtol=1e-4)
    xs = RNG.standard_normal((2, 5)).astype(np.float32)
    batched = strata.vmap(strata.grad(strata.checkpoint(_mlp, policy=policy)), (None, 0))(A, xs)
    close(batched, np.stack([_mlp_grad_np(A, x) for x in xs]), rtol=1e-4)


def _replay_probe(policy):
    """grad of sin(x * c) where c is 1 in the forward pass and 2 in checkpoint's replay: what
    the policy saved keeps the forward pass's value, the rest is recomputed with c = 2."""
    count = []

    def f(x):
        # The first call is checkpoint's abstract trace (closure conversion); then the forward
        # pass, then the replay.
        count.append(1)
        c = float(len(count) - 1)
        return jnp.sum(jnp.sin(x * c))
    return np.asarray(strata.grad(strata.checkpoint(f, policy=policy))(X))


def test_the_policy_decides_what_is_recomputed():
    close(_replay_probe(P.nothing_saveable), np.cos(2 * X) * 2)   # all recomputed
    close(_replay_probe(P.everything_saveable), np.cos(X) * 2)   # mul's output kept
    close(_replay_probe(lambda prim, *_, **__: prim.name == "mul"), np.cos(X) * 2)
    close(_replay_probe(lambda prim, *_, **__: prim.name == "sin"), np.cos(2 * X) * 2)


def test_callable_policy_sees_primitives_avals_and_params():
    seen = []

    def policy(prim, *avals, **params):
        seen.append((prim, avals, params))
        return prim.name == "dot_general"
    w = jnp.asarray(A)
    v = RNG.standard_normal((5, 2)).astype(np.float32)
    g = strata.grad(strata.checkpoint(lambda u: jnp.sum(jnp.sin(w @ u)), policy=policy))(v)
    close(g, A.T @ np.cos(A @ v), rtol=1e-4)
    dots = [s for s in seen if s[0].name == "dot_general"]
    assert dots and dots[0][0] is strata.api.Primitive("dot_general")
    prim, avals, params = dots[0]
    assert [str(a) for a in avals] == ["float32[3,5]", "float32[5,2]"]
    assert params["dimension_numbers"] == (((1,), (0,)), ((), ()))
    assert any(s[0].name == "sin" and str(s[1][0]) == "float32[3,2]" for s in seen)


def test_dots_with_no_batch_dims_policy():
    dn = P.dots_with_no_batch_dims_saveable
    dot = strata.api.Primitive("dot_general")
    assert dn(dot, dimension_numbers=(((1,), (0,)), ((), ())))
    assert not dn(dot, dimension_numbers=(((2,), (1,)), ((0,), (0,))))
    assert not dn(strata.api.Primitive("sin"))
    # Batched matmuls (einsum with a batch axis) under the policy still differentiate right.
    b = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    c = RNG.standard_normal((2, 4, 5)).astype(np.float32)

    def f(u):
        return jnp.sum(jnp.sin(jnp.einsum("bij,bjk->bik", u, c)))
    g = strata.grad(strata.checkpoint(f, policy=dn))(b)
    close(g, np.einsum("bik,bjk->bij", np.cos(np.einsum("bij,bjk->bik", b, c)), c), rtol=1e-4)


def test_checkpoint_options_and_errors():
    def f(x, n, y):
        return jnp.sum(jnp.sin(x) ** n * y)
    g = strata.grad(strata.checkpoint(f, static_argnums=(1,), prevent_cse=False))(X, 3, 2.0)
    close(g, 3 * np.sin(X) ** 2 * np.cos(X) * 2.0, rtol=1e-4)
    with pytest.raises(TypeError, match=r"\[checkpoint\]"):
        strata.checkpoint(f, policy=3)
    with pytest.raises(NotImplementedError, match="offload"):
        P.save_and_offload_only_these_names(names_which_can_be_saved=["a"])
    with pytest.raises(ZeroDivisionError):
        bad = strata.checkpoint(jnp.sin, policy=lambda prim, *a, **p: 1 / 0)
        strata.grad(lambda v: jnp.sum(bad(v)))(X)


# ---- custom_jvp / custom_vjp options -------------------------------------------------------------

def test_defjvps():
    @strata.custom_jvp
    def f(x, y):
        return jnp.sin(x) * y
    f.defjvps(lambda g, ans, x, y: jnp.cos(x) * g * y, lambda g, ans, x, y: jnp.sin(x) * g)
    y = RNG.standard_normal(5).astype(np.float32)
    gx, gy = strata.grad(lambda a, b: jnp.sum(f(a, b)), argnums=(0, 1))(X, y)
    close(gx, np.cos(X) * y)
    close(gy, np.sin(X))
    _, t = strata.jvp(f, (X, y), (np.ones(5, np.float32), np.zeros(5, np.float32)))
    close(t, np.cos(X) * y)
    close(strata.vmap(strata.grad(lambda a, b: f(a, b)))(X, y), np.cos(X) * y)
    close(strata.jit(strata.grad(lambda a: jnp.sum(f(a, y))))(X), np.cos(X) * y)

    # A None rule: the output does not depend on that argument.
    @strata.custom_jvp
    def h(x, k):
        return x * 2.0
    h.defjvps(lambda g, ans, x, k: 2.0 * g, None)
    close(strata.grad(lambda a, k: jnp.sum(h(a, k)), argnums=1)(X, X), np.zeros(5))


def test_custom_jvp_nondiff_argnums():
    @strata.custom_jvp
    def apply(fn, x):
        return fn(x)
    apply = strata.custom_jvp(apply.fun, nondiff_argnums=(0,))

    @apply.defjvp
    def apply_jvp(fn, primals, tangents):
        (x,), (t,) = primals, tangents
        return fn(x), 3.0 * t  # deliberately not fn's derivative: the rule is used
    assert apply.nondiff_argnums == (0,)
    close(strata.grad(lambda v: jnp.sum(apply(jnp.sin, v)))(X), np.full(5, 3.0))
    close(strata.jit(strata.grad(lambda v: jnp.sum(apply(jnp.sin, v))))(X), np.full(5, 3.0))
    close(apply(jnp.sin, X), np.sin(X))
    with pytest.raises(TypeError, match="defjvps"):
        apply.defjvps(None)

    # Keyword arguments are placed by the signature; symbolic_zeros is accepted.
    @strata.custom_jvp
    def scale(x, factor=2.0):
        return x * factor
    scale.defjvp(lambda p, t: (p[0] * p[1], t[0] * p[1] + p[0] * t[1]), symbolic_zeros=True)
    close(strata.grad(lambda v: jnp.sum(scale(v, factor=jnp.asarray(4.0))))(X), np.full(5, 4.0))


def test_custom_jvp_rule_errors():
    @strata.custom_jvp
    def f(x):
        return jnp.sin(x)
    f.defjvp(lambda p, t: (jnp.sin(p[0]), (t[0], t[0])))
    with pytest.raises(TypeError, match="equal structures"):
        strata.grad(lambda v: jnp.sum(f(v)))(X)
    with pytest.raises(AttributeError, match="no JVP"):
        strata.custom_jvp(jnp.sin)(X)


def test_custom_vjp_nondiff_argnums():
    def clip_gradient(lo, hi, x):
        return x

    f = strata.custom_vjp(clip_gradient, nondiff_argnums=(0, 1))

    def fwd(lo, hi, x):
        return x, None

    def bwd(lo, hi, _, g):
        return (jnp.clip(g, lo, hi),)
    f.defvjp(fwd, bwd)
    loss = lambda v: jnp.sum(f(-0.5, 0.5, v) * jnp.asarray([-2.0, -0.1, 0.0, 0.3, 4.0]))
    close(strata.grad(loss)(X), [-0.5, -0.1, 0.0, 0.3, 0.5])
    close(strata.jit(strata.grad(loss))(X), [-0.5, -0.1, 0.0, 0.3, 0.5])
    close(strata.vmap(strata.grad(lambda v: f(-1.0, 1.0, v) * 3.0))(X), np.ones(5))


def test_custom_vjp_none_cotangent_and_symbolic_zeros():
    @strata.custom_vjp
    def f(x, y):
        return x * y

    def fwd(x, y):
        assert isinstance(x, strata.api.CustomVJPPrimal) and x.perturbed
        return x.value * y.value, (x.value, y.value)

    def bwd(res, g):
        x, y = res
        return (g * y, None)  # None: a zero cotangent for y
    f.defvjp(fwd, bwd, symbolic_zeros=True)
    y = RNG.standard_normal(5).astype(np.float32)
    gx, gy = strata.grad(lambda a, b: jnp.sum(f(a, b)), argnums=(0, 1))(X, y)
    close(gx, y)
    close(gy, np.zeros(5))

    @strata.custom_vjp
    def h(x):
        return x
    h.defvjp(lambda x: (x, None), lambda _, g: (g, g))
    with pytest.raises(TypeError, match="2 cotangents for 1"):
        strata.grad(lambda v: jnp.sum(h(v)))(X)


# ---- vmap's options ------------------------------------------------------------------------------

def test_vmap_axis_size_without_mapped_arguments():
    out = strata.vmap(lambda v: jnp.sin(v), in_axes=None, axis_size=4)(X)
    close(out, np.stack([np.sin(X)] * 4))
    out = strata.vmap(lambda: jnp.ones(2), axis_size=3)()
    close(out, np.ones((3, 2)))
    with pytest.raises(ValueError, match="at least one non-None"):
        strata.vmap(jnp.sin, in_axes=None)(X)
    with pytest.raises(ValueError, match="axis_size=3"):
        strata.vmap(jnp.sin, axis_size=3)(X)
    with pytest.raises(TypeError, match="axis_size"):
        strata.vmap(jnp.sin, axis_size=2.5)
    close(strata.vmap(jnp.sin, axis_size=5)(X), np.sin(X))
    # Composes with grad and jit.
    g = strata.grad(lambda v: jnp.sum(strata.vmap(jnp.sin, in_axes=None, axis_size=3)(v)))(X)
    close(g, 3 * np.cos(X))
    close(strata.jit(strata.vmap(lambda v: v * 2, in_axes=None, axis_size=2))(X),
          np.stack([2 * X] * 2))


def test_vmap_keyword_arguments_are_mapped_over_axis_0():
    def f(x, *, scale, shift=0.0):
        return x * scale + shift
    xs = RNG.standard_normal((4, 5)).astype(np.float32)
    ss = RNG.standard_normal(4).astype(np.float32)
    out = strata.vmap(f, in_axes=(0,))(xs, scale=ss, shift=ss)
    close(out, np.stack([f(x, scale=s, shift=s) for x, s in zip(xs, ss)]))
    with pytest.raises(ValueError):
        strata.vmap(f)(xs, scale=np.ones(3, np.float32))
    g = strata.grad(lambda s: jnp.sum(strata.vmap(f)(xs, scale=s)))(ss)
    close(g, xs.sum(axis=1), rtol=1e-4)
    close(strata.jit(lambda a, s: strata.vmap(f)(a, scale=s))(xs, ss), xs * ss[:, None])


def test_vmap_axis_name_is_recorded():
    from strata.api import _axis_env
    frames = []

    def f(v):
        frames.append(list(_axis_env.frames))
        return v * 2
    close(strata.vmap(strata.vmap(f, axis_name="j"), axis_name="i", spmd_axis_name="data")(A),
          2 * A)
    assert [(n, s) for n, s, _ in frames[0]] == [("i", 3), ("j", 5)]
    assert frames[0][0][2] == "data" and _axis_env.frames == []


def test_vmap_in_axes_type_errors():
    with pytest.raises(TypeError, match="in_axes"):
        strata.vmap(jnp.sin, in_axes="0")
    close(strata.vmap(lambda a, b: a + b, in_axes=[0, None])(A, X), A + X)


def test_finite_differences_agree_with_checkpointed_grad():
    f64 = lambda v: float(np.sum(np.sin(np.tanh(A.astype(np.float64) @ v)) ** 2))
    g = strata.grad(strata.checkpoint(lambda v: _mlp(jnp.asarray(A), v),
                                      policy=P.dots_saveable))(X)
    close(g, numerical_grad(f64, X), rtol=1e-3, atol=1e-4)


def test_custom_gradient():
    @strata.custom_gradient
    def f(x):
        return jnp.sin(x), lambda g: (g * 3.0 * jnp.cos(x),)  # 3x the true derivative
    want = 3 * np.cos(X)
    close(f(X), np.sin(X))
    close(strata.grad(lambda v: jnp.sum(f(v)))(X), want)
    close(strata.jit(strata.grad(lambda v: jnp.sum(f(v))))(X), want)
    close(strata.grad(strata.jit(lambda v: jnp.sum(f(v))))(X), want)
    close(strata.vmap(strata.grad(f))(X), want)
    close(strata.grad(strata.checkpoint(lambda v: jnp.sum(f(v))))(X), want)

    @strata.custom_gradient
    def mul(x, y):
        return x * y, lambda ct: (ct * y, ct * x * 10.0)
    gx, gy = strata.grad(mul, argnums=(0, 1))(2.0, 3.0)
    close(gx, 3.0)
    close(gy, 20.0)


def test_lower_with_weak_specs_matches_python_scalars():
    jf = strata.jit(lambda x, s: x * s)
    c = jf.lower(strata.ShapeDtypeStruct((5,), jnp.float32),
                 strata.ShapeDtypeStruct((), jnp.float32, weak_type=True)).compile()
    close(c(X, 2.0), 2 * X)
    assert "f32" in c.as_text("strata")


def test_compiled_checks_static_arguments_and_structure():
    jf = strata.jit(lambda x, n, d: {"y": x ** n + d["b"]}, static_argnums=1)
    c = jf.lower(X, 3, {"b": jnp.ones(5)}).compile()
    close(c(X, 3, {"b": np.full(5, 2.0, np.float32)})["y"], X ** 3 + 2.0, rtol=1e-4)
    with pytest.raises(TypeError, match="static arguments differ"):
        c(X, 2, {"b": jnp.ones(5)})
    with pytest.raises(TypeError, match="compiled for"):
        c(X, 3, {"c": jnp.ones(5)})


def test_option_contexts_named_call_and_clear_caches():
    import numpy as np
    import strata.numpy as jnp
    assert not strata.config.jax_debug_nans
    with strata.debug_nans(True):
        assert strata.config.jax_debug_nans
        with pytest.raises(FloatingPointError, match=r"\[log\]"):
            jnp.log(jnp.asarray([-1.0]))
    assert not strata.config.jax_debug_nans
    old = strata.config.jax_threefry_partitionable
    with strata.threefry_partitionable(not old):
        assert strata.config.jax_threefry_partitionable == (not old)
    assert strata.config.jax_threefry_partitionable == old
    seen = []

    def f(x):
        seen.append(strata.api.current_name_scope())
        return x * 2
    g = strata.named_call(f, name="double")
    assert float(g(1.5)) == 3.0 and seen == ["double"]
    h = strata.jit(lambda x: x + 1)
    h(1.0)
    assert strata.jit_cache_stats()["entries"] >= 1
    strata.clear_caches()
    assert strata.jit_cache_stats()["entries"] == 0
    np.testing.assert_array_equal(np.asarray(h(1.0)), 2.0)
