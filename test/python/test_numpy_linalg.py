"""strata.numpy.linalg against numpy.linalg: norms, products, and (on strata.lax.linalg's
primitives) the decompositions and solvers, with gradients against finite differences, vmap
against a loop and jit against eager."""

import numpy as np
import pytest

import strata
import strata.numpy as jnp
import strata.numpy.linalg as sla
from conftest import numerical_grad, x64_mode

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
    with pytest.raises(ValueError, match=r"\[norm\] invalid order 3"):
        sla.norm(A, ord=3)
    with pytest.raises(ValueError, match=r"\[vector_norm\] invalid order 'fro'"):
        sla.norm(V, ord="fro")
    with pytest.raises(ValueError, match=r"\[norm\] improper axes"):
        sla.norm(np.ones((2, 2, 2)), axis=(0, 1, 2))


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


def test_multi_dot_matches_numpy_and_picks_the_cheapest_order():
    a = rng.standard_normal((10, 100)).astype(np.float32)
    b = rng.standard_normal((100, 5)).astype(np.float32)
    c = rng.standard_normal((5, 50)).astype(np.float32)
    v = rng.standard_normal(50).astype(np.float32)
    np.testing.assert_allclose(np.asarray(sla.multi_dot([a, b, c])), np.linalg.multi_dot([a, b, c]),
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(sla.multi_dot([a[0], b, c, v])),
                               np.linalg.multi_dot([a[0], b, c, v]), rtol=1e-4, atol=1e-3)
    assert sla.multi_dot([a[0], b[:, 0]]).shape == ()
    # (a b) c costs 10*100*5 + 10*5*50 = 7500 products; a (b c) 100*5*50 + 10*100*50 = 75000.
    from strata._numpy_linalg import _chain_order
    assert _chain_order([10, 100, 5, 50])[0][2] == 1
    with pytest.raises(ValueError, match=r"\[multi_dot\] needs at least two"):
        sla.multi_dot([a])
    with pytest.raises(ValueError, match=r"\[multi_dot\] shapes \(10, 100\) and \(5, 50\)"):
        sla.multi_dot([a, c])
    g = strata.grad(lambda x: jnp.sum(sla.multi_dot([x, b, c])))(a)
    np.testing.assert_allclose(np.asarray(g), np.tile((b @ c).sum(1), (10, 1)), rtol=1e-4)


def test_matrix_power_nonnegative_and_errors():
    m = rng.standard_normal((2, 3, 3)).astype(np.float32)
    for n in (0, 1, 2, 3, 7):
        np.testing.assert_allclose(np.asarray(sla.matrix_power(m, n)),
                                   np.linalg.matrix_power(m, n), rtol=1e-4, atol=1e-4)
    with pytest.raises(TypeError, match=r"\[matrix_power\] exponent must be an integer"):
        sla.matrix_power(m, 1.5)
    with pytest.raises(TypeError, match=r"\[matrix_power\] expects square"):
        sla.matrix_power(A, 2)


def test_array_api_products_keywords_and_errors():
    x = rng.standard_normal((2, 3)).astype(np.float32)
    y = rng.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(sla.cross(x, y)), np.cross(x, y), rtol=1e-5)
    with pytest.raises(ValueError, match=r"\[cross\] both inputs must be"):
        sla.cross(x[:, :2], y[:, :2])
    with pytest.raises(ValueError, match=r"\[vecdot\] x1 and x2 must have the same size"):
        sla.vecdot(x, y[:, :2])
    np.testing.assert_allclose(np.asarray(sla.vecdot(x, y, axis=0)), (x * y).sum(0), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(sla.tensordot(x, y.T, axes=1)), x @ y.T, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(sla.matmul(x, y.T, precision="highest")), x @ y.T,
                               rtol=1e-5)
    with pytest.raises(ValueError, match=r"\[outer\] expects 1-d"):
        sla.outer(x, y)
    with pytest.raises(ValueError, match=r"\[matrix_transpose\]"):
        sla.matrix_transpose(V)



# ---- Decompositions and solvers (on strata.lax.linalg) ----------------------------------------

def _have_primitives():
    try:
        from strata.lax import linalg
    except ImportError:
        return False
    return all(hasattr(linalg, n) for n in ("cholesky", "triangular_solve", "lu", "qr", "eigh",
                                            "svd"))


needs_primitives = pytest.mark.skipif(not _have_primitives(),
                                      reason="the strata.lax.linalg primitives are not built")


def _primitives_lower():
    """Whether jit lowers the linalg primitives (their dialect ops and lowerings)."""
    if not _have_primitives():
        return False
    from strata.lax import linalg
    try:
        strata.jit(lambda a: linalg.lu(a)[0])(np.eye(2, dtype=np.float32))
    except RuntimeError:
        return False
    return True


needs_lowering = pytest.mark.skipif(not _primitives_lower(),
                                    reason="jit does not lower the linalg primitives yet")


def close(got, want, rtol=1e-10, atol=1e-10):
    got = np.asarray(got)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def tol(dtype):
    return (2e-4, 2e-4) if np.dtype(dtype) == np.float32 else (1e-10, 1e-10)


@pytest.fixture
def x64():
    with x64_mode(True):
        yield


def fd_check(f, x, g, rtol=1e-6, atol=1e-6):
    """grad g of scalar f at x (float64) against central differences of f itself."""
    fd = numerical_grad(lambda v: float(f(v)), x)
    np.testing.assert_allclose(np.asarray(g), fd, rtol=rtol, atol=atol)


@needs_primitives
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_solve_inv_det_slogdet_values(dtype):
    with x64_mode(dtype == np.float64):
        r, t = tol(dtype)
        for n in (1, 2, 3, 5, 8):
            a = rng.standard_normal((n, n)).astype(dtype)
            b = rng.standard_normal((n, 3)).astype(dtype)
            close(sla.solve(a, b), np.linalg.solve(a, b), r, t)
            close(sla.solve(a, b[:, 0]), np.linalg.solve(a, b[:, 0]), r, t)
            close(sla.inv(a), np.linalg.inv(a), r * 10, t * 10)
            close(sla.det(a), np.linalg.det(a), r, t)
            sign, logabs = sla.slogdet(a)
            ws, wl = np.linalg.slogdet(a)
            close(sign, ws)
            close(logabs, wl, r, t)
            close(sla.slogdet(a, method="qr").logabsdet, wl, r, t)
            close(sla.slogdet(a, method="qr").sign, ws)
            assert sla.det(a).dtype == dtype and sla.solve(a, b).dtype == dtype
        # Batched and broadcast: a (2, 1, 4, 4) against b (3, 4, 2); a vector b per batch.
        a = rng.standard_normal((2, 1, 4, 4)).astype(dtype)
        b = rng.standard_normal((3, 4, 2)).astype(dtype)
        close(sla.solve(a, b), np.linalg.solve(a, b[None]), r, t)  # numpy 1's b: matrices
        close(sla.solve(a[:, 0], b[0, :, 0]), np.stack([np.linalg.solve(m, b[0, :, 0])
                                                        for m in a[:, 0]]), r, t)
        close(sla.det(a), np.linalg.det(a), r, t)
        close(sla.inv(a), np.linalg.inv(a), r * 10, t * 10)
        # One matrix against a batch of right-hand sides (factored once).
        close(sla.solve(a[0, 0], b), np.linalg.solve(a[0, 0], b), r, t)


@needs_primitives
def test_singular_empty_and_bad_inputs(x64):
    s = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert float(sla.det(s)) == 0.0
    sign, logabs = sla.slogdet(s)
    assert float(sign) == 0.0 and float(logabs) == -np.inf
    assert not np.all(np.isfinite(np.asarray(sla.inv(s))))
    assert float(sla.cond(np.diag([1.0, 0.0]))) == np.inf
    assert float(sla.cond(np.diag([1.0, 0.0]), 1)) == np.inf
    e = np.zeros((0, 0))
    close(sla.det(e), 1.0)
    close(sla.slogdet(np.zeros((3, 0, 0))).logabsdet, np.zeros(3))
    close(sla.det(np.array([[3.0]])), 3.0)
    assert sla.solve(e, np.zeros(0)).shape == (0,) and sla.inv(e).shape == (0, 0)
    assert sla.solve(np.zeros((2, 0, 0)), np.zeros((2, 0, 3))).shape == (2, 0, 3)
    close(sla.inv(np.array([[4.0]])), [[0.25]])
    assert sla.det(np.arange(4).reshape(2, 2)).dtype == np.float64  # ints promote
    with pytest.raises(ValueError, match=r"\[det\] expects square matrices.*\(2, 3\)"):
        sla.det(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"\[solve\] a of shape \(3, 3\) and b of shape \(4,\)"):
        sla.solve(np.eye(3), np.ones(4))
    with pytest.raises(ValueError, match=r"\[slogdet\] unrecognized method"):
        sla.slogdet(np.eye(2), method="svd")
    with pytest.raises(ValueError, match=r"\[eig\] expects square matrices.*\(2, 3\)"):
        sla.eig(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"\[eigvals\] expects square matrices.*\(3,\)"):
        sla.eigvals(np.ones(3))


def _cofactors(a):
    n = a.shape[0]
    c = np.empty_like(a)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(a, i, 0), j, 1)
            c[i, j] = (-1) ** (i + j) * np.linalg.det(minor)
    return c


@needs_primitives
def test_det_gradient_regular_and_singular(x64):
    a = rng.standard_normal((4, 4))
    g = strata.grad(sla.det)(a)
    fd_check(np.linalg.det, a, g)
    # Rank n - 1: the gradient is the cofactor matrix, not zero (JAX's rule); rank n - 2: 0.
    r1 = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    close(strata.grad(sla.det)(r1), _cofactors(r1), 1e-9, 1e-9)
    r2 = np.outer([1.0, 2.0, 3.0], [1.0, -1.0, 2.0])
    close(strata.grad(sla.det)(r2), np.zeros((3, 3)))
    # The same through the LU path (n > 3): a zero row stays zero through elimination, so the
    # last pivot is exactly zero; two zero rows give rank n - 2.
    z1 = rng.standard_normal((5, 5))
    z1[2] = 0.0
    close(sla.det(z1), 0.0)
    close(strata.grad(sla.det)(z1), _cofactors(z1), 1e-9, 1e-9)
    z2 = z1.copy()
    z2[4] = 0.0
    close(strata.grad(sla.det)(z2), np.zeros((5, 5)))
    # Batched under vmap, and jvp against the directional difference.
    b = rng.standard_normal((3, 3, 3))
    close(strata.vmap(strata.grad(sla.det))(b), np.stack([_cofactors(m) for m in b]), 1e-8, 1e-8)
    da = rng.standard_normal((4, 4))
    _, t = strata.jvp(sla.det, (a,), (da,))
    h = 1e-6
    close(t, (np.linalg.det(a + h * da) - np.linalg.det(a - h * da)) / (2 * h), 1e-6, 1e-6)


@needs_primitives
def test_slogdet_inv_solve_gradients(x64):
    a = rng.standard_normal((4, 4)) + 4 * np.eye(4)
    b = rng.standard_normal((4, 2))
    fd_check(lambda m: np.linalg.slogdet(m)[1], a, strata.grad(lambda m: sla.slogdet(m)[1])(a))
    close(strata.grad(lambda m: sla.slogdet(m).logabsdet)(a), np.linalg.inv(a).T, 1e-9, 1e-9)
    c = rng.standard_normal((4, 4))
    fd_check(lambda m: np.sum(c * np.linalg.inv(m)), a,
             strata.grad(lambda m: jnp.sum(c * sla.inv(m)))(a))
    w = rng.standard_normal((4, 2))
    ga, gb = strata.grad(lambda m, v: jnp.sum(w * sla.solve(m, v)), argnums=(0, 1))(a, b)
    fd_check(lambda m: np.sum(w * np.linalg.solve(m, b)), a, ga)
    fd_check(lambda v: np.sum(w * np.linalg.solve(a, v)), b, gb)
    # Second order: the Hessian-vector product of logdet, -tr(a^-1 da a^-1 da).
    da = rng.standard_normal((4, 4))
    hv = strata.jvp(strata.grad(lambda m: sla.slogdet(m)[1]), (a,), (da,))[1]
    ai = np.linalg.inv(a)
    close(jnp.sum(hv * da), -np.trace(ai @ da @ ai @ da), 1e-8, 1e-8)


@needs_primitives
def test_solvers_under_vmap(x64):
    a = rng.standard_normal((5, 4, 4))
    b = rng.standard_normal((5, 4))
    close(strata.vmap(sla.solve)(a, b), np.stack([np.linalg.solve(m, v) for m, v in zip(a, b)]))
    close(strata.vmap(sla.det)(a), np.array([np.linalg.det(m) for m in a]))
    close(strata.vmap(sla.inv)(a), np.linalg.inv(a), 1e-9, 1e-9)
    close(strata.vmap(strata.grad(sla.det))(a),
          np.stack([np.linalg.det(m) * np.linalg.inv(m).T for m in a]), 1e-8, 1e-8)
    close(strata.vmap(sla.svdvals)(a), np.linalg.svd(a, compute_uv=False))
    close(strata.vmap(sla.pinv)(a[:, :, :2]), np.linalg.pinv(a[:, :, :2]), 1e-9, 1e-9)


@needs_lowering
def test_solvers_under_jit(x64):
    a = rng.standard_normal((5, 3, 3))
    b = rng.standard_normal((5, 3))
    close(strata.jit(sla.solve)(a, b[..., None])[..., 0],
          np.stack([np.linalg.solve(m, v) for m, v in zip(a, b)]))
    close(strata.jit(sla.solve)(a[0], b[0]), np.linalg.solve(a[0], b[0]))
    close(strata.jit(sla.inv)(a), np.linalg.inv(a), 1e-9, 1e-9)
    close(strata.jit(sla.slogdet)(a).logabsdet, np.linalg.slogdet(a)[1])
    g = strata.jit(strata.grad(lambda m: jnp.sum(sla.det(m))))(a)
    close(g, np.stack([np.linalg.det(m) * np.linalg.inv(m).T for m in a]), 1e-8, 1e-8)
    close(strata.jit(sla.pinv)(a[:, :, :2]), np.linalg.pinv(a[:, :, :2]), 1e-9, 1e-9)
    close(strata.jit(sla.det)(a), np.linalg.det(a))
    close(strata.jit(sla.svd, static_argnames=("full_matrices",))(a, full_matrices=False).S,
          np.linalg.svd(a, compute_uv=False))


@needs_primitives
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_decompositions_against_numpy(dtype):
    with x64_mode(dtype == np.float64):
        r, t = tol(dtype)
        m = rng.standard_normal((2, 5, 3)).astype(dtype)
        for full in (True, False):
            u, s, vh = sla.svd(m, full_matrices=full)
            k = 5 if full else 3
            assert u.shape == (2, 5, k) and s.shape == (2, 3) and vh.shape == (2, 3, 3)
            close(np.asarray(u)[..., :3] * np.asarray(s)[..., None, :] @ np.asarray(vh), m, r, t)
        close(sla.svdvals(m), np.linalg.svd(m, compute_uv=False), r, t)
        spd = m.transpose(0, 2, 1) @ m + np.eye(3, dtype=dtype)
        close(sla.cholesky(spd), np.linalg.cholesky(spd), r, t)
        close(sla.cholesky(spd, upper=True), np.linalg.cholesky(spd).transpose(0, 2, 1), r, t)
        w, v = sla.eigh(spd)
        close(w, np.linalg.eigvalsh(spd), r, t)
        close(np.asarray(v) * np.asarray(w)[..., None, :] @ np.asarray(v).transpose(0, 2, 1),
              spd, r * 10, t * 10)
        close(sla.eigvalsh(np.triu(spd), UPLO="U", symmetrize_input=False),
              np.linalg.eigvalsh(spd), r, t)
        sym_s = np.linalg.svd(spd)[1]
        close(sla.svd(spd, hermitian=True, compute_uv=False), sym_s, r, t)
        u, s, vh = sla.svd(spd, hermitian=True)
        close(np.asarray(u) * np.asarray(s)[..., None, :] @ np.asarray(vh), spd, r * 10, t * 10)
        q, rr = sla.qr(m)
        assert q.shape == (2, 5, 3) and rr.shape == (2, 3, 3)
        close(np.asarray(q) @ np.asarray(rr), m, r, t)
        assert sla.qr(m, mode="complete").Q.shape == (2, 5, 5)
        close(np.abs(sla.qr(m, mode="r")), np.abs(np.linalg.qr(m, mode="r")), r, t)
        with pytest.raises(ValueError, match=r"\[qr\] unsupported QR decomposition mode"):
            sla.qr(m, mode="full")
        with pytest.raises(ValueError, match=r"\[eigh\] UPLO must be"):
            sla.eigh(spd, UPLO="X")


@needs_primitives
def test_cholesky_not_positive_definite_is_nan():
    assert np.all(np.isnan(np.asarray(sla.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]])))))


@needs_primitives
def test_svd_based_names_against_numpy(x64):
    m = rng.standard_normal((4, 6))
    low = rng.standard_normal((5, 2)) @ rng.standard_normal((2, 4))  # rank 2
    for ord in (2, -2, "nuc"):
        close(sla.norm(m, ord=ord), np.linalg.norm(m, ord=ord))
        close(sla.matrix_norm(m, ord=ord, keepdims=True),
              np.linalg.norm(m, ord=ord, keepdims=True, axis=(-2, -1)))
        close(sla.norm(np.stack([m, 2 * m]), ord=ord, axis=(2, 1)),
              np.linalg.norm(np.stack([m, 2 * m]), ord=ord, axis=(2, 1)))
    for a in (m, low, m.T):
        close(sla.pinv(a), np.linalg.pinv(a), 1e-9, 1e-9)
        assert int(sla.matrix_rank(a)) == np.linalg.matrix_rank(a)
    close(sla.pinv(np.stack([m, m])), np.linalg.pinv(np.stack([m, m])), 1e-9, 1e-9)
    close(sla.pinv(low @ low.T, hermitian=True), np.linalg.pinv(low @ low.T, hermitian=True),
          1e-8, 1e-8)
    sym = m @ m.T
    dsym = rng.standard_normal((4, 4))
    _, t = strata.jvp(lambda x: sla.pinv(x, hermitian=True), (sym,), (dsym + dsym.T,))
    h = 1e-6
    close(t, (np.linalg.pinv(sym + h * (dsym + dsym.T)) - np.linalg.pinv(sym - h * (dsym + dsym.T)))
          / (2 * h), 1e-6, 1e-6)
    close(sla.matrix_rank(np.stack([m[:, :5], low.T])), [4, 2])
    assert int(sla.matrix_rank(np.zeros(3))) == 0 and int(sla.matrix_rank(np.ones(3))) == 1
    assert int(sla.matrix_rank(m, tol=10.0)) == np.linalg.matrix_rank(m, tol=10.0)
    sq = rng.standard_normal((3, 4, 4))
    for p in (None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf):
        close(sla.cond(sq, p), np.linalg.cond(sq, p), 1e-8, 1e-8)
    b = rng.standard_normal((6, 2))
    for a, rhs in ((m.T, b), (m.T, b[:, 0]), (low.T[:, :4], b[:4]), (m, b[:4])):
        x, res, rank, s = sla.lstsq(a, rhs)
        wx, wres, wrank, ws = np.linalg.lstsq(a, rhs, rcond=None)
        close(x, wx, 1e-9, 1e-9)
        close(s, ws, 1e-9, 1e-9)
        assert int(rank) == wrank
        if len(wres):
            close(sla.lstsq(a, rhs, numpy_resid=True)[1], wres, 1e-9, 1e-9)
        else:
            assert sla.lstsq(a, rhs, numpy_resid=True)[1].shape == (0,)
            close(res, np.sum((rhs - a @ wx) ** 2, axis=0).reshape(np.shape(res)), 1e-9, 1e-9)
    with pytest.raises(ValueError, match=r"\[lstsq\] leading dimensions"):
        sla.lstsq(m, b)


@needs_primitives
def test_svd_based_gradients(x64):
    m = rng.standard_normal((4, 3))
    fd_check(lambda a: np.linalg.norm(a, 2), m, strata.grad(lambda a: sla.norm(a, 2))(m))
    fd_check(lambda a: np.linalg.norm(a, "nuc"), m, strata.grad(lambda a: sla.norm(a, "nuc"))(m))
    c = rng.standard_normal((3, 4))
    fd_check(lambda a: np.sum(c * np.linalg.pinv(a)), m,
             strata.grad(lambda a: jnp.sum(c * sla.pinv(a)))(m))
    fd_check(lambda a: np.sum(c.T * np.linalg.pinv(a)), m.T,
             strata.grad(lambda a: jnp.sum(c.T * sla.pinv(a)))(m.T))
    spd = m.T @ m + np.eye(3)
    wts = np.array([1.0, -2.0, 0.5])
    # eigvalsh reads (a + a.T) / 2 (symmetrize_input), so its gradient is symmetric.
    fd_check(lambda a: np.sum(wts * np.linalg.eigvalsh((a + a.T) / 2)), spd,
             strata.grad(lambda a: jnp.sum(wts * sla.eigvalsh(a)))(spd))


@needs_primitives
def test_matrix_power_tensorinv_tensorsolve(x64):
    a = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    for n in (-1, -2, -5):
        close(sla.matrix_power(a, n), np.linalg.matrix_power(a, n), 1e-9, 1e-9)
    t = rng.standard_normal((4, 6, 8, 3))
    close(sla.tensorinv(t, ind=2), np.linalg.tensorinv(t, ind=2), 1e-8, 1e-8)
    t1 = rng.standard_normal((6, 2, 3))
    close(sla.tensorinv(t1, ind=1), np.linalg.tensorinv(t1, ind=1), 1e-8, 1e-8)
    with pytest.raises(ValueError, match=r"\[tensorinv\] the product of the first 1"):
        sla.tensorinv(t1[:5], ind=1)
    with pytest.raises(ValueError, match=r"\[tensorinv\] ind must be a positive"):
        sla.tensorinv(t, ind=0)
    ts = rng.standard_normal((6, 4, 2, 3, 4))
    b = rng.standard_normal((6, 4))
    close(sla.tensorsolve(ts, b), np.linalg.tensorsolve(ts, b), 1e-8, 1e-8)
    tsa = np.moveaxis(ts, 2, 0)
    close(sla.tensorsolve(tsa, b, axes=(0,)), np.linalg.tensorsolve(tsa, b, axes=(0,)), 1e-8,
          1e-8)
    with pytest.raises(ValueError, match=r"\[tensorsolve\] b of shape"):
        sla.tensorsolve(ts, b[:5])


@needs_primitives
def test_polyfit_against_numpy(x64):
    x = np.linspace(-1.0, 1.0, 20)
    y = 3 * x ** 3 - x + 0.1 * rng.standard_normal(20)
    ys = np.stack([y, 2 * y + 1], 1)
    w = rng.uniform(0.5, 1.5, 20)
    for kw in ({}, {"w": w}, {"rcond": 1e-3}):
        close(jnp.polyfit(x, y, 3, **kw), np.polyfit(x, y, 3, **kw), 1e-9, 1e-9)
        close(jnp.polyfit(x, ys, 2, **kw), np.polyfit(x, ys, 2, **kw), 1e-9, 1e-9)
    for got, want in zip(jnp.polyfit(x, y, 3, full=True), np.polyfit(x, y, 3, full=True)):
        close(got, want, 1e-9, 1e-9)
    for cov in (True, "unscaled"):
        for rhs in (y, ys):
            for got, want in zip(jnp.polyfit(x, rhs, 3, cov=cov), np.polyfit(x, rhs, 3, cov=cov)):
                close(got, want, 1e-9, 1e-9)
    g = strata.grad(lambda v: jnp.sum(jnp.polyfit(x, v, 2) * np.array([1.0, -2.0, 0.5])))(y)
    fd_check(lambda v: np.sum(np.polyfit(x, v, 2) * np.array([1.0, -2.0, 0.5])), y, g)
    with pytest.raises(ValueError, match=r"\[polyfit\] expected deg >= 0"):
        jnp.polyfit(x, y, -1)
    with pytest.raises(TypeError, match=r"\[polyfit\] expected x and y of one length"):
        jnp.polyfit(x, y[:5], 2)
