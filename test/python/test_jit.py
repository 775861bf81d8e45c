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
