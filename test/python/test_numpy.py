"""strata.numpy, strata.nn, strata.random and strata.lax against numpy references."""

import math

import numpy as np
import pytest

import strata
import strata.numpy as jnp
from strata import nn, random, lax

rng = np.random.default_rng(0)
A = rng.standard_normal((3, 4)).astype(np.float32)
P = (np.abs(A) + 0.5).astype(np.float32)


def close(got, want, rtol=1e-5, atol=1e-6):
    got = np.asarray(got)
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", ["exp", "tanh", "sin", "cos", "abs", "sign", "floor", "ceil",
                                  "square", "negative", "expm1"])
def test_unary(name):
    close(getattr(jnp, name)(A), getattr(np, name)(A))


@pytest.mark.parametrize("name", ["log", "sqrt", "reciprocal", "log1p"])
def test_unary_positive(name):
    close(getattr(jnp, name)(P), getattr(np, name)(P))


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "maximum", "minimum",
                                  "power", "arctan2"])
def test_binary_broadcast(name):
    close(getattr(jnp, name)(P, P[0]), getattr(np, name)(P, P[0]), rtol=1e-5)


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "prod", "var", "std"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(name, axis, keepdims):
    close(getattr(jnp, name)(A, axis=axis, keepdims=keepdims),
          getattr(np, name)(A, axis=axis, keepdims=keepdims), rtol=1e-5, atol=1e-5)


def test_arg_and_cumulative():
    close(jnp.argmax(A, axis=1), np.argmax(A, axis=1).astype(np.int32))
    close(jnp.argmin(A), np.argmin(A))
    close(jnp.cumsum(A, axis=0), np.cumsum(A, axis=0))
    close(jnp.cumprod(P, axis=1), np.cumprod(P, axis=1))
    assert bool(jnp.all(jnp.asarray(A) == A)) and not bool(jnp.any(jnp.asarray(A) > 10))


def test_linear_algebra():
    B = rng.standard_normal((4, 5)).astype(np.float32)
    close(jnp.matmul(A, B), A @ B, rtol=1e-5)
    close(jnp.dot(A, B), A @ B, rtol=1e-5)
    close(jnp.dot(A[0], A[1]), np.dot(A[0], A[1]), rtol=1e-5)
    close(jnp.einsum("ij,jk->ik", A, B), A @ B, rtol=1e-5)
    close(jnp.einsum("ii", A[:, :3]), np.trace(A[:, :3]), rtol=1e-5)
    close(jnp.tensordot(A, B, 1), np.tensordot(A, B, 1), rtol=1e-5)
    close(jnp.outer(A[0], A[1]), np.outer(A[0], A[1]))
    batch = rng.standard_normal((2, 3, 4)).astype(np.float32)
    close(batch @ jnp.asarray(B), batch @ B, rtol=1e-5)


def test_shapes():
    close(jnp.reshape(A, (2, -1)), A.reshape(2, -1))
    close(jnp.transpose(A), A.T)
    close(jnp.asarray(A).transpose(1, 0), A.T)
    close(jnp.swapaxes(A[None], 0, 2), np.swapaxes(A[None], 0, 2))
    close(jnp.moveaxis(A[None], 0, -1), np.moveaxis(A[None], 0, -1))
    close(jnp.expand_dims(A, 1), np.expand_dims(A, 1))
    close(jnp.squeeze(A[None, :, None]), A)
    close(jnp.concatenate([A, A], axis=1), np.concatenate([A, A], axis=1))
    close(jnp.stack([A, A], axis=1), np.stack([A, A], axis=1))
    for got, want in zip(jnp.split(A, 2, axis=1), np.split(A, 2, axis=1)):
        close(got, want)
    close(jnp.flip(A, 0), np.flip(A, 0))
    close(jnp.broadcast_to(A[0], (2, 4)), np.broadcast_to(A[0], (2, 4)))
    close(jnp.take(A, np.array([2, 0]), axis=0), np.take(A, [2, 0], axis=0))


def test_creation():
    close(jnp.zeros((2, 3)), np.zeros((2, 3), np.float32))
    assert jnp.ones(3, dtype=jnp.int32).dtype == np.int32
    close(jnp.full((2,), 7.0), np.full((2,), 7.0, np.float32))
    close(jnp.arange(5), np.arange(5, dtype=np.int32))
    close(jnp.arange(1.0, 2.0, 0.25), np.arange(1.0, 2.0, 0.25, dtype=np.float32))
    close(jnp.linspace(0, 1, 5), np.linspace(0, 1, 5, dtype=np.float32))
    close(jnp.eye(3, k=1), np.eye(3, k=1, dtype=np.float32))
    close(jnp.zeros_like(A), np.zeros_like(A))


def test_where_and_clip():
    close(jnp.where(A > 0, A, 0.0), np.where(A > 0, A, 0.0).astype(np.float32))
    close(jnp.clip(A, -0.5, 0.5), np.clip(A, -0.5, 0.5))


def test_nn_against_formulas():
    x = A.astype(np.float64)
    close(nn.relu(x), np.maximum(x, 0))
    close(nn.sigmoid(x), 1 / (1 + np.exp(-x)))
    close(nn.silu(x), x / (1 + np.exp(-x)))
    gelu_tanh = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    close(nn.gelu(x), gelu_tanh)
    sm = np.exp(x - x.max(-1, keepdims=True))
    sm /= sm.sum(-1, keepdims=True)
    close(nn.softmax(x), sm)
    close(nn.log_softmax(x), np.log(sm))
    close(nn.logsumexp(x, axis=1), np.log(np.exp(x).sum(1)))
    close(nn.one_hot(np.array([0, 2, 5]), 3),
          np.array([[1, 0, 0], [0, 0, 1], [0, 0, 0]], np.float32))
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    close(nn.layer_norm(x), (x - mu) / np.sqrt(var + 1e-5))
    close(nn.rms_norm(x), x / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6))


def test_random():
    k = random.PRNGKey(0)
    assert k.shape == (2,) and k.dtype == np.uint32
    np.testing.assert_array_equal(np.asarray(random.key_data(random.key(0))), np.asarray(k))
    k1, k2 = random.split(k)
    assert not np.array_equal(np.asarray(k1), np.asarray(k2))
    u = np.asarray(random.uniform(k1, (1000,), minval=2.0, maxval=3.0))
    assert u.min() >= 2.0 and u.max() < 3.0 and abs(u.mean() - 2.5) < 0.05
    z = np.asarray(random.normal(k2, (4000,)))
    assert abs(z.mean()) < 0.1 and abs(z.std() - 1) < 0.1
    np.testing.assert_array_equal(np.asarray(random.normal(k2, (4000,))), z)  # pure function
    r = np.asarray(random.randint(k, (500,), 3, 7))
    assert r.min() >= 3 and r.max() < 7 and r.dtype == np.int32
    b = np.asarray(random.bernoulli(k, 0.3, (2000,)))
    assert b.dtype == np.bool_ and abs(b.mean() - 0.3) < 0.05
    assert sorted(np.asarray(random.permutation(k, 10)).tolist()) == list(range(10))
    assert random.fold_in(k, 3).shape == (2,)


def test_lax():
    close(lax.add(A, A), A + A)
    close(lax.integer_pow(A, 3), A ** 3, rtol=1e-5)
    close(lax.reduce_sum(A, (1,)), A.sum(1), rtol=1e-5)
    close(lax.slice(A, (0, 1), (2, 3)), A[0:2, 1:3])
    close(lax.dynamic_slice(A, [1, 1], (2, 2)), A[1:3, 1:3])
    close(lax.pad(A, 0.0, [(1, 0, 0), (0, 1, 1)]),
          np.pad(np.insert(A, [1, 2, 3], 0, axis=1), ((1, 0), (0, 1))))
    close(lax.dot_general(A, A, (((1,), (1,)), ((), ()))), A @ A.T, rtol=1e-5)
    close(lax.select(A > 0, A, -A), np.abs(A))
    close(lax.sort(A, dimension=1), np.sort(A, axis=1))
    with pytest.raises((TypeError, ValueError)):
        lax.add(A, A[0])  # lax does not broadcast


def test_devices():
    assert strata.devices() == ["cpu:0"]
    x = strata.device_put({"a": np.ones(2)})
    assert isinstance(x["a"], strata.Array)
