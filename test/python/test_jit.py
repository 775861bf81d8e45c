"""strata.jit from Python: results against eager, the cache (static arguments, structures,
shapes), lowering texts, and composition with the other transforms."""

import numpy as np
import pytest

import strata
import strata.numpy as jnp
from strata import nn

rng = np.random.default_rng(2)
X = rng.standard_normal((4, 3)).astype(np.float32)
W = rng.standard_normal((3, 2)).astype(np.float32)


def mlp(params, x):
    return nn.log_softmax(jnp.tanh(x @ params["w"] + params["b"]))


PARAMS = {"w": W, "b": np.zeros(2, np.float32)}


def close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


def test_jit_matches_eager_and_caches():
    f = strata.jit(mlp)
    close(f(PARAMS, X), mlp(PARAMS, X))
    close(f(PARAMS, X + 1), mlp(PARAMS, X + 1))
    s = f.stats()
    assert s["misses"] == 1 and s["hits"] == 1
    f(PARAMS, X[:2])  # a new shape compiles again
    assert f.stats()["misses"] == 2 and f.explain() != ""


def test_static_argnums_and_argnames():
    def power(x, n, scale=1.0):
        out = x
        for _ in range(n - 1):  # Python control flow on a static value
            out = out * x
        return out * scale
    f = strata.jit(power, static_argnums=1)
    close(f(X, 3), X ** 3)
    close(f(X, 2), X ** 2)
    close(f(X, 3), X ** 3)
    assert f.stats()["misses"] == 2 and f.stats()["hits"] == 1
    g = strata.jit(power, static_argnames="n")
    close(g(X, n=2, scale=2.0), 2 * X ** 2)


# ---- Static arguments: keyed by type, hash and == (regressions of repr keys) -------------------

def test_static_lambdas_made_in_a_loop_are_distinct():
    f = strata.jit(lambda g, x: g(x), static_argnums=0)
    fs = [lambda x, k=k: x * k for k in range(1, 7)]
    assert [float(f(g, jnp.float32(1.0))) for g in fs] == [1, 2, 3, 4, 5, 6]
    assert f.stats()["misses"] == 6


class _SameRepr:
    """Objects that all print alike but differ by value."""

    def __init__(self, v):
        self.v = v

    def __repr__(self):
        return "_SameRepr"

    def __hash__(self):
        return hash(self.v)

    def __eq__(self, other):
        return isinstance(other, _SameRepr) and other.v == self.v


def test_static_equal_repr_objects_do_not_share_an_executable():
    f = strata.jit(lambda c, x: x * c.v, static_argnums=0)
    assert float(f(_SameRepr(2.0), 1.0)) == 2.0
    assert float(f(_SameRepr(3.0), 1.0)) == 3.0


def test_static_equal_hashable_objects_hit_the_cache():
    f = strata.jit(lambda c, x: x * c.v, static_argnums=0)
    f(_SameRepr(2.0), X)
    f(_SameRepr(2.0), X)  # a different but equal object
    assert f.stats()["misses"] == 1 and f.stats()["hits"] == 1


def test_static_values_of_different_types_compile_apart():
    f = strata.jit(lambda x, n: x + (1 if isinstance(n, int) else 2), static_argnums=1)
    assert float(f(0.0, 1)) == 1.0 and float(f(0.0, 1.0)) == 2.0


def test_static_unhashable_raises_value_error_naming_the_argument():
    f = strata.jit(lambda x, t: x * t[0], static_argnums=1)
    big = np.zeros(10000)
    with pytest.raises(ValueError, match=r"\[jit\] static argument 1 .*numpy.ndarray.*tuple"):
        f(1.0, big)
    with pytest.raises(ValueError, match="static argument 1 .*list"):
        f(1.0, [1, 2])
    g = strata.jit(lambda x, t: x * t[-1], static_argnames="t")
    with pytest.raises(ValueError, match="static argument 't'"):
        g(1.0, t=big)
    # A tuple with one element changed is a new key.
    assert float(f(1.0, (1.0,) * 100)) == 1.0
    assert float(f(1.0, (2.0,) + (1.0,) * 99)) == 2.0


def test_static_argnums_zero_negative_and_by_name():
    def scale(n, x):
        return x * n
    f = strata.jit(scale, static_argnums=0)  # 0 used to be dropped as falsy
    assert float(f(2, 1.0)) == 2.0 and float(f(3, 1.0)) == 3.0
    assert f.stats()["misses"] == 2
    g = strata.jit(lambda x, n: x * n, static_argnums=-1)
    assert float(g(1.0, 4)) == 4.0 and float(g(1.0, 5)) == 5.0
    # static_argnums also covers its parameter passed by keyword, and argnames the position.
    h = strata.jit(scale, static_argnums=0)
    assert float(h(n=6, x=1.0)) == 6.0
    k = strata.jit(scale, static_argnames="n")
    assert float(k(7, 1.0)) == 7.0
    with pytest.raises(ValueError, match="not hashable"):
        k([7], 1.0)  # static by name, passed by position
    both = strata.jit(lambda a, x, *, b: x * a + b, static_argnums=0, static_argnames="b")
    assert float(both(2, 1.0, b=3)) == 5.0


def test_donate_argnums_is_accepted():
    f = strata.jit(lambda x, y: x + y, donate_argnums=(0,), donate_argnames="y")
    x = jnp.asarray(X)
    close(f(x, x), 2 * X)
    close(x, X)  # donation is a hint: the donated input still holds its value


def test_pytree_outputs_and_decorator_form():
    @strata.jit
    def f(d):
        return {"sum": d["a"] + d["b"], "parts": (d["a"], [d["b"] * 2])}
    out = f({"a": X, "b": X})
    close(out["sum"], 2 * X)
    close(out["parts"][1][0], 2 * X)

    @strata.jit(static_argnums=(1,))
    def g(x, axis):
        return jnp.sum(x, axis=axis)
    close(g(X, 0), X.sum(0))
    close(g(X, 1), X.sum(1))


def test_lower_and_make_ir():
    lowered = strata.jit(mlp).lower(PARAMS, X)
    text = lowered.as_text("strata")
    assert "strata.tanh" in text and "func.func" in text
    assert "llvm" in lowered.stages()
    assert "define" in lowered.as_text("llvm-ir")
    with pytest.raises(ValueError):
        lowered.as_text("nope")
    assert "strata.exp" in strata.make_ir(jnp.exp)(X)


def test_jit_composes_with_transforms():
    def loss(p, x):
        return -jnp.mean(mlp(p, x)[:, 0])
    eager = strata.grad(loss)(PARAMS, X)
    close(strata.grad(strata.jit(loss))(PARAMS, X)["w"], eager["w"])
    close(strata.jit(strata.grad(loss))(PARAMS, X)["w"], eager["w"])
    per_ex = strata.vmap(strata.jit(lambda x: jnp.sum(jnp.tanh(x @ W))))(X)
    close(per_ex, np.tanh(X @ W).sum(1))
    close(strata.jit(strata.vmap(lambda x: x @ W))(X), X @ W)


def test_jit_errors():
    with pytest.raises(TypeError, match="ConcretizationTypeError"):
        strata.jit(lambda x: 1.0 if x.sum() > 0 else 0.0)(X)
    with pytest.raises(TypeError, match=r"\[reshape\]"):
        strata.jit(lambda x: x.reshape(5))(X)
    f = strata.jit(lambda x: x * 2)
    close(f(X), X * 2)  # a failed trace elsewhere leaves jit usable


# Regression: strata-linalg-to-blas took acc + exp(a) * b for a gemm and dropped the exp.
@pytest.mark.parametrize("n", [4, 16, 64])
def test_fused_unary_times_reduce(n):
    x = np.linspace(-1, 1, n).astype(np.float32)
    v = np.cos(np.arange(n)).astype(np.float32)
    for op, ref in ((jnp.exp, np.exp), (jnp.sin, np.sin), (jnp.tanh, np.tanh)):
        got = strata.jit(lambda x, v: jnp.sum(op(x) * v))(x, v)
        close(got, np.sum(ref(x) * v), rtol=1e-5, atol=1e-5)


# Regression: a large nest with a reduction loop became an OpenMP reduction that scf-to-cf
# could not lower.
def test_batched_dot_general_compiles():
    rng = np.random.default_rng(0)
    q = rng.standard_normal((4, 32, 4, 16)).astype(np.float32)
    k = rng.standard_normal((4, 32, 4, 16)).astype(np.float32)
    f = lambda q, k: jnp.einsum("bqhd,bkhd->bhqk", q, k)  # noqa: E731
    close(strata.jit(f)(q, k), np.einsum("bqhd,bkhd->bhqk", q, k), rtol=1e-4, atol=1e-4)


def test_large_loop_runs_in_parallel_from_python():
    # Regression: nests of >= 262144 iterations run as OpenMP loops; from Python libomp's
    # __kmpc_* symbols are not global, and compiled code could not resolve them.
    x = np.linspace(-2, 2, 600_000).astype(np.float32)
    got = strata.jit(lambda x: jnp.tanh(x * 1.5 + 0.5) * jnp.exp(-x) - 0.25)(x)
    close(got, np.tanh(x * 1.5 + 0.5) * np.exp(-x) - 0.25, rtol=1e-5, atol=1e-5)


def test_jit_closing_over_an_outer_grad_tracer_runs_op_by_op():
    # The jitted lambda uses x, a tracer of the enclosing grad: it cannot be compiled alone, and
    # the signal crosses the Python frames of the lambda back to jit (not a crash).
    def outer(x):
        return strata.jit(lambda y: x * y * y)(jnp.float32(2.0))
    np.testing.assert_allclose(float(strata.grad(outer)(jnp.float32(3.0))), 4.0)


def test_config_options_are_part_of_the_cache_key():
    # A jitted function retraces when an option that changes tracing changes (as JAX).
    f = strata.jit(lambda k: strata.random.bits(k, (2,)))
    key = strata.random.PRNGKey(3)
    old = strata.config.jax_threefry_partitionable
    try:
        strata.config.update("jax_threefry_partitionable", True)
        a = np.asarray(f(key))
        strata.config.update("jax_threefry_partitionable", False)
        b = np.asarray(f(key))
        np.testing.assert_array_equal(b, np.asarray(strata.random.bits(key, (2,))))
        assert not np.array_equal(a, b) and f.stats()["misses"] == 2
        strata.config.update("jax_threefry_partitionable", True)
        np.testing.assert_array_equal(np.asarray(f(key)), a)
        assert f.stats()["misses"] == 2  # the first entry is found again
    finally:
        strata.config.update("jax_threefry_partitionable", old)


# ---- The call path: builtin pytrees flattened in C++, everything else through tree_util -------

def test_builtin_pytrees_take_the_fast_path_and_others_the_general_one():
    f = strata.jit(lambda *a, **k: 0.0)
    x = jnp.ones(3)
    for args, kwargs in (((x,), {}), ((x, 1.0, 2, True, np.float32(3), X), {}),
                         (((x, [x, None]), {"b": x, "a": (x,)}), {"k": [x]})):
        p = f._prepare_fast(args, kwargs)
        assert p is not None and len(p.leaves) == len(strata.tree_util.tree_leaves(
            (args, kwargs)))
    Pair = __import__("collections").namedtuple("Pair", "a b")
    for args in ((Pair(x, x),), ({1: x},), ({"a": Pair(x, x)},), ("text",)):
        assert f._prepare_fast(args, {}) is None


def test_fast_path_rebuilds_containers_as_tree_util_does():
    # The function sees dicts in sorted key order and gets its outputs back in sorted order,
    # as with the general path (and JAX).
    f = strata.jit(lambda d, l, t, n: ([v * 2 for v in d.values()], l, t, n))
    x, y = jnp.float32(1.0), jnp.float32(2.0)
    vals, l, t, n = f({"b": x, "a": y}, [x, y], (x, (y,)), None)
    assert [float(v) for v in vals] == [4.0, 2.0]
    assert type(l) is list and type(t) is tuple and type(t[1]) is tuple and n is None
    out = strata.jit(lambda x: {"z": x, "a": {"y": x * 2, "b": [x, None]}})(x)
    assert list(out) == ["a", "z"] and list(out["a"]) == ["b", "y"]
    assert out["a"]["b"][1] is None and float(out["a"]["y"]) == 2.0
    assert float(strata.jit(lambda x: x)(x)) == 1.0


def test_fast_path_keys_on_structure_and_keyword_arguments():
    f = strata.jit(lambda a, **kw: a + sum(kw.values()))
    x = jnp.ones(3)
    f(x)
    f(x)
    assert f.stats()["misses"] == 1 and f.stats()["hits"] == 1
    close(f(x, b=x), 2 * np.ones(3))
    close(f(x, c=x), 2 * np.ones(3))  # another keyword name: another structure
    close(f((x, x)[0], c=x, b=x), 3 * np.ones(3))
    assert f.stats()["misses"] == 4
    close(f(x, b=x, c=x), 3 * np.ones(3))  # the keyword order does not matter
    assert f.stats()["misses"] == 4
    g = strata.jit(lambda t: t[0])
    g((x,))
    g([x])
    g({"0": x}["0"])
    assert g.stats()["misses"] == 3
    # The caller's keyword order reaches the function.
    h = strata.jit(lambda **kw: jnp.stack(list(kw.values())))
    close(h(b=jnp.float32(1), a=jnp.float32(2)), [1.0, 2.0])


def test_fast_path_weak_types_and_python_scalars():
    f = strata.jit(lambda x, s: x * s)
    h = jnp.ones(3, jnp.float16)
    assert f(h, 2.0).dtype == jnp.float16  # a Python float stays weak
    assert f(h, 2).dtype == jnp.float16
    assert f(h, np.float32(2)).dtype == jnp.float32  # a numpy scalar has a type
    assert f(True, 2).dtype == jnp.int32
    with pytest.raises(OverflowError):
        f(h, 2 ** 80)


def test_general_path_handles_registered_nodes_and_namedtuples():
    from collections import OrderedDict, namedtuple
    Pair = namedtuple("Pair", "a b")
    f = strata.jit(lambda p, d: Pair(p.a + d["x"], p.b * 2))
    x = jnp.ones(2)
    out = f(Pair(x, x), OrderedDict(x=x))
    assert type(out) is Pair
    close(out.a, 2 * np.ones(2))
    f(Pair(x, x), OrderedDict(x=x))
    assert f.stats()["misses"] == 1 and f.stats()["hits"] == 1
    g = strata.jit(lambda d: d[2] + d[1])  # non-str keys
    close(g({2: x, 1: x}), 2 * np.ones(2))
    close(g({1: x, 2: x}), 2 * np.ones(2))
    assert g.stats()["misses"] == 1


def test_fast_path_errors_and_lower_compile():
    f = strata.jit(lambda x, y: x + y)
    with pytest.raises(ValueError, match=r"\[broadcast\] shapes f32\[3\] and f32\[4\]"):
        f(jnp.ones(3), jnp.ones(4))

    def boom(x):
        raise KeyError("inside")
    with pytest.raises(KeyError, match="inside"):
        strata.jit(boom)(jnp.ones(1))
    c = strata.jit(lambda d: d["a"] * 2).lower({"a": X}).compile()
    close(c({"a": X}), 2 * X)
    with pytest.raises(TypeError, match="structure or static"):
        c({"b": X})
    with pytest.raises(TypeError, match="differ"):
        c({"a": X[:1]})


def test_fast_path_under_transforms_and_disable_jit():
    f = strata.jit(lambda d, s: jnp.sum(jnp.sin(d["w"]) * d["v"][0]) * s)
    w, v = jnp.asarray(X[0]), jnp.asarray(X[1])
    g = strata.grad(lambda d: f(d, 2.0))({"w": w, "v": [v]})
    close(g["w"], 2 * np.cos(X[0]) * X[1], rtol=1e-5)
    close(g["v"][0], 2 * np.sin(X[0]), rtol=1e-5)
    per = strata.vmap(lambda r: f({"w": r, "v": [r]}, 1.0))(jnp.asarray(X))
    close(per, np.sum(np.sin(X) * X, axis=1), rtol=1e-5)
    calls = []
    h = strata.jit(lambda x: calls.append(1) or x * 2)
    with strata.disable_jit():
        h(1.0)
        h(1.0)
    assert len(calls) == 2 and h.stats()["misses"] == 0


# ---- f32 transcendentals under jit (strata-approximate-math): ULPs against eager (libm) -------

def _ulps(got, want):
    """|got - want| in f32 units in the last place (NaN against NaN: 0, against a number: inf)."""
    def ordered(a):
        i = a.view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7fffffff), i)
    d = np.abs(ordered(got) - ordered(want)).astype(np.float64)
    d[np.isnan(got) & np.isnan(want)] = 0
    d[np.isnan(got) ^ np.isnan(want)] = np.inf
    return d


# Every 65669th f32 bit pattern (a subset of the every-97th sample that
# docs/approximate-math.md's table was measured on) and the edges.
_F32_SAMPLE = np.concatenate([
    np.arange(0, 1 << 32, 97 * 677, dtype=np.uint64).astype(np.uint32).view(np.float32),
    np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.1754942e-38, 3.4028235e38,
              -3.4028235e38, 1e30, -1e30, 2.0 ** 28, 2.0 ** 28 * (1 - 2.0 ** -24), 1.5707964,
              3.1415927, 8.7e7, 1.0e5, 88.72, -87.3, -103.9], np.float32)])


@pytest.mark.parametrize("name,bound", [("exp", 5), ("log", 1), ("tanh", 5), ("sin", 1),
                                        ("cos", 1), ("erf", 5), ("log1p", 2), ("expm1", 5)])
def test_transcendental_ulp_bounds_over_the_f32_range(name, bound):
    op = getattr(jnp, name) if hasattr(jnp, name) else getattr(strata.scipy.special, name)
    x = _F32_SAMPLE
    with np.errstate(all="ignore"):
        got = np.asarray(strata.jit(op)(x))
        want = np.asarray(op(jnp.asarray(x)))
    d = _ulps(got, want)
    # Subnormal results may flush to zero (exp's polynomial scales by 2^k in the normal range).
    subnormal = (np.abs(want) < np.float32(2.0 ** -126)) & (want != 0)
    assert np.all(got[subnormal] * want[subnormal] >= 0)
    d[subnormal] = 0
    worst = int(np.argmax(d))
    assert d[worst] <= bound, f"{name}({x[worst]!r}) = {got[worst]!r}, eager {want[worst]!r}"


def test_sin_cos_large_arguments_are_reduced_exactly():
    # Values where a float32 reduction loses every digit; want from float64 libm on the same
    # f32 inputs (exact reduction), rounded once.
    x = np.array([1e30, -1e30, 3.4028235e38, 2.0 ** 100, 16367173 * 2.0 ** 72, 1.0e10,
                  2.0 ** 28, 2.0 ** 28 - 16, 6.2831855e15], np.float32)
    for op, ref in ((jnp.sin, np.sin), (jnp.cos, np.cos)):
        got = np.asarray(strata.jit(op)(x))
        want = ref(x.astype(np.float64)).astype(np.float32)
        assert np.all(_ulps(got, want) <= 1), (op, got, want)
    assert np.signbit(np.asarray(strata.jit(jnp.sin)(np.float32(-0.0))))


def test_large_program_compiles_in_parts_and_loads_from_the_cache(tmp_path):
    """A program big enough to be compiled in parts on several threads (a 3000-op chain: its
    fused groups are outlined into many kernels) gives eager's values, compiled and loaded back
    from the persistent cache as a bundle of objects."""
    import os
    import subprocess
    import sys
    code = (
        "import numpy as np, strata, strata.numpy as jnp\n"
        "def f(x):\n"
        "    for i in range(3000):\n"
        "        x = (jnp.sin, lambda v: v * 1.01, lambda v: v + 0.1)[i % 3](x)\n"
        "    return x\n"
        "x = np.linspace(-3, 3, 1037, dtype=np.float32)\n"
        "np.testing.assert_allclose(np.asarray(strata.jit(f)(x)), np.asarray(f(x)),\n"
        "                           rtol=1e-4, atol=1e-5)\n")
    env = dict(os.environ, STRATA_TIMING="1", STRATA_CACHE_DIR=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    if int(os.environ.get("STRATA_NUM_THREADS", os.cpu_count() or 1)) >= 2:
        assert "threads)" in runs[0].stderr, runs[0].stderr
    assert "llvm-opt" not in runs[1].stderr, runs[1].stderr  # loaded from the cache
