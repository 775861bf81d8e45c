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
