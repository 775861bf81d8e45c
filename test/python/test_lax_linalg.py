"""strata.lax.linalg against numpy and scipy: values, JAX's output conventions (shapes, pivots,
NaN on failure), gradients against finite differences, vmap against a loop, jit against eager."""

import numpy as np
import pytest
import scipy.linalg as sl

import strata
import strata.lax.linalg as L
from strata.lax import linalg as L2
from conftest import numerical_grad

rng = np.random.default_rng(0)


def spd(n, batch=()):
    m = rng.standard_normal(batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


@pytest.fixture(autouse=True)
def _x64(x64_on):
    yield


def test_module_is_importable_both_ways():
    assert L is L2 and L.cholesky is strata.lax.linalg.cholesky


@pytest.mark.parametrize("n", [1, 2, 7, 40])
def test_cholesky_matches_numpy_batched(n):
    a = spd(n, (3,))
    np.testing.assert_allclose(np.asarray(L.cholesky(a)), np.linalg.cholesky(a), rtol=1e-12,
                               atol=1e-12)


def test_cholesky_float32_and_failure_is_nan():
    a = spd(4).astype(np.float32)
    got = L.cholesky(a)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), np.linalg.cholesky(a), rtol=2e-5, atol=2e-5)
    assert np.isnan(np.asarray(L.cholesky(-np.eye(3)))).all()


@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a", [True, False])
@pytest.mark.parametrize("unit_diagonal", [True, False])
def test_triangular_solve_matches_scipy(left_side, lower, transpose_a, unit_diagonal):
    a = rng.standard_normal((5, 5)) + 4 * np.eye(5)
    b = rng.standard_normal((5, 3) if left_side else (3, 5))
    x = np.asarray(L.triangular_solve(a, b, left_side=left_side, lower=lower,
                                      transpose_a=transpose_a, unit_diagonal=unit_diagonal))
    if left_side:
        want = sl.solve_triangular(a, b, lower=lower, trans=1 if transpose_a else 0,
                                   unit_diagonal=unit_diagonal)
    else:  # x op(a) = b  <=>  op(a)^T x^T = b^T
        want = sl.solve_triangular(a, b.T, lower=lower, trans=0 if transpose_a else 1,
                                   unit_diagonal=unit_diagonal).T
    np.testing.assert_allclose(x, want, rtol=1e-12, atol=1e-12)


def test_lu_matches_scipy():
    a = rng.standard_normal((2, 6, 4))
    lu, piv, perm = L.lu(a)
    assert piv.dtype == np.int32 and perm.dtype == np.int32
    for i in range(2):
        want_lu, want_piv = sl.lu_factor(a[i])
        np.testing.assert_allclose(np.asarray(lu)[i], want_lu, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(np.asarray(piv)[i], want_piv)
        p, _, _ = sl.lu(a[i])  # a = p l u, so a[perm] = l u with perm = argmax of p's columns
        np.testing.assert_array_equal(np.asarray(perm)[i], np.argmax(p, axis=0))
    np.testing.assert_array_equal(np.asarray(L.lu_pivots_to_permutation(piv, 6)), perm)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_qr_matches_numpy(shape, full_matrices):
    a = rng.standard_normal(shape)
    q, r = L.qr(a, full_matrices=full_matrices)
    wq, wr = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
    np.testing.assert_allclose(np.asarray(q), wq, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(r), wr, rtol=1e-12, atol=1e-12)
    with pytest.raises(NotImplementedError, match="pivoting"):
        L.qr(a, pivoting=True)


def test_eigh_matches_numpy():
    a = spd(6, (2,))
    v, w = L.eigh(a)
    ww, wv = np.linalg.eigh(a)
    np.testing.assert_allclose(np.asarray(w), ww, rtol=1e-12)
    # Eigenvectors up to sign.
    np.testing.assert_allclose(np.abs(np.einsum("bij,bij->bj", np.asarray(v), wv)), 1, rtol=1e-10)
    v, w = L.eigh(a, subset_by_index=(2, 5))
    np.testing.assert_allclose(np.asarray(w), ww[:, 2:5], rtol=1e-12)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_matches_numpy(shape, full_matrices):
    a = rng.standard_normal(shape)
    u, s, vh = L.svd(a, full_matrices=full_matrices)
    wu, ws, wvh = np.linalg.svd(a, full_matrices=full_matrices)
    assert u.shape == wu.shape and vh.shape == wvh.shape
    np.testing.assert_allclose(np.asarray(s), ws, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(L.svd(a, compute_uv=False)), ws, rtol=1e-12)
    k = min(shape)
    np.testing.assert_allclose((np.asarray(u)[:, :k] * np.asarray(s)) @ np.asarray(vh)[:k], a,
                               atol=1e-12)


def _check_grad(f, x, rtol=1e-6):
    g = np.asarray(strata.grad(lambda y: f(y))(x))
    want = numerical_grad(lambda y: float(np.asarray(f(y))), x)
    np.testing.assert_allclose(g, want, rtol=rtol, atol=1e-7)


def test_gradients_against_finite_differences():
    a = spd(4)
    w = rng.standard_normal((4, 4))
    _check_grad(lambda x: (L.cholesky(x) * w).sum(), a)
    t = rng.standard_normal((4, 4)) + 4 * np.eye(4)
    b = rng.standard_normal((4, 2))
    _check_grad(lambda x: (L.triangular_solve(x, b, left_side=True, lower=True) ** 2).sum(), t)
    _check_grad(lambda x: (L.lu(x)[0] * w).sum(), t)
    _check_grad(lambda x: (L.qr(x, full_matrices=False)[1] * w).sum(), rng.standard_normal((4, 4)))
    _check_grad(lambda x: (L.eigh(x)[1] * np.arange(1.0, 5.0)).sum(), a)
    _check_grad(lambda x: L.svd(x, compute_uv=False).sum(), rng.standard_normal((5, 3)))


def test_vmap_matches_a_loop():
    a = spd(3, (4,))
    f = lambda x: L.cholesky(x)  # noqa: E731
    loop = np.stack([np.asarray(f(x)) for x in a])
    np.testing.assert_allclose(np.asarray(strata.vmap(f)(a)), loop, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(strata.vmap(f, in_axes=2)(np.moveaxis(a, 0, 2))), loop,
                               rtol=1e-12)


def test_errors_name_the_op_and_shapes():
    with pytest.raises(ValueError, match=r"\[cholesky\].*square.*f64\[2,3\]"):
        L.cholesky(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"\[eigh\].*rank >= 2"):
        L.eigh(np.zeros(3))
    with pytest.raises(ValueError, match=r"\[svd\].*float32 or float64"):
        L.svd(np.zeros((2, 2), np.int32))


def test_jit_matches_eager():
    a = spd(3, (4,))
    b = np.random.default_rng(1).standard_normal((4, 3, 2))

    def f(x, y):
        lu, piv, perm = L.lu(x)
        u, s, vh = L.svd(x, full_matrices=False)
        v, w = L.eigh(x)
        q, r = L.qr(x)
        return (L.cholesky(x), L.triangular_solve(x, y, left_side=True, lower=True), lu, piv,
                perm, L.lu_pivots_to_permutation(piv, 3), u, s, vh, v, w, q, r,
                L.svd(x, compute_uv=False))

    for got, want in zip(strata.jit(f)(a, b), f(a, b)):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
