"""strata.numpy.linalg's norms and products against numpy.linalg, with gradients against finite
differences."""

import numpy as np
import pytest

import strata
import strata.numpy as jnp
import strata.numpy.linalg as sla
from conftest import numerical_grad

rng = np.random.default_rng(5)
A = rng.standard_normal((3, 4)).astype(np.float32)
V = rng.standard_normal(5).astype(np.float32)


@pytest.mark.parametrize("ord", [None, 1, 2, 0, 3, np.inf, -np.inf])
def test_vector_norms(ord):
    np.testing.assert_allclose(np.asarray(jnp.linalg.norm(V, ord=ord)),
                               np.linalg.norm(V, ord=ord), rtol=1e-5)


@pytest.mark.parametrize("ord", [None, "fro", 1, -1, np.inf, -np.inf])
def test_matrix_norms(ord):
    np.testing.assert_allclose(np.asarray(sla.norm(A, ord=ord)), np.linalg.norm(A, ord=ord),
                               rtol=1e-5)
    np.testing.assert_allclose(np.asarray(sla.norm(A, ord=ord, axis=(0, 1), keepdims=True)),
                               np.linalg.norm(A, ord=ord, axis=(0, 1), keepdims=True), rtol=1e-5)


def test_norm_axis_and_keepdims_and_ints():
    np.testing.assert_allclose(np.asarray(sla.norm(A, axis=1)), np.linalg.norm(A, axis=1),
                               rtol=1e-5)
    np.testing.assert_allclose(np.asarray(sla.vector_norm(A, axis=0, keepdims=True, ord=1)),
                               np.linalg.norm(A, axis=0, keepdims=True, ord=1), rtol=1e-5)
    n = sla.norm(jnp.arange(4))
    assert n.dtype == np.float32 and np.isclose(float(n), np.sqrt(14))
    with pytest.raises(NotImplementedError, match=r"\[norm\] ord=2"):
        sla.norm(A, ord=2)


def test_norm_grad_vmap_jit():
    g = strata.grad(lambda v: sla.norm(v))(V)
    np.testing.assert_allclose(np.asarray(g), V / np.linalg.norm(V), rtol=1e-5)
    gf = strata.grad(lambda a: sla.matrix_norm(a, ord=1))(A)
    fd = numerical_grad(lambda a: np.linalg.norm(a, ord=1), A.astype(np.float64))
    np.testing.assert_allclose(np.asarray(gf), fd, rtol=1e-4, atol=1e-4)
    per_row = strata.vmap(sla.norm)(A)
    np.testing.assert_allclose(np.asarray(per_row), np.linalg.norm(A, axis=1), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(strata.jit(sla.norm)(A)), np.linalg.norm(A), rtol=1e-5)


def test_products():
    B = rng.standard_normal((4, 2)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(sla.matmul(A, B)), A @ B, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(sla.vecdot(A, A)), (A * A).sum(-1), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(sla.outer(V, V)), np.outer(V, V), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(sla.matrix_transpose(A)), A.T)
    S = rng.standard_normal((2, 3, 3)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(sla.trace(S)), np.trace(S, axis1=-2, axis2=-1),
                               rtol=1e-5)
    np.testing.assert_allclose(np.asarray(sla.diagonal(S)),
                               np.diagonal(S, axis1=-2, axis2=-1))


def test_i0_kaiser_bitwise_count_against_numpy():
    x = np.linspace(-5, 5, 11).astype(np.float32)
    np.testing.assert_allclose(np.asarray(jnp.i0(x)), np.i0(x), rtol=1e-5)
    g = strata.grad(lambda v: jnp.sum(jnp.i0(v)))(x)
    fd = numerical_grad(lambda v: np.i0(v).sum(), x.astype(np.float64))
    np.testing.assert_allclose(np.asarray(g), fd, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(np.asarray(jnp.kaiser(12, 8.6)), np.kaiser(12, 8.6), rtol=1e-5,
                               atol=1e-6)
    assert jnp.kaiser(1, 3.0).shape == (1,) and jnp.kaiser(0, 3.0).shape == (0,)
    v = np.array([0, 1, 7, -1, -128, 255 - 256], np.int8)
    want = [bin(abs(int(t))).count("1") for t in v]
    got = jnp.bitwise_count(v)
    np.testing.assert_array_equal(np.asarray(got), want)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(np.asarray(jnp.bitwise_count(np.array([3, 255], np.uint8))),
                                  [2, 8])
    with pytest.raises(TypeError, match=r"\[bitwise_count\]"):
        jnp.bitwise_count(np.ones(2, np.float32))
