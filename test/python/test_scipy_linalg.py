"""strata.scipy.linalg against scipy.linalg: the special matrices, and (on strata.lax.linalg's
primitives) the factor/solve pairs, decompositions and the matrix exponential, with gradients
against finite differences, vmap against a loop and jit against eager."""

import numpy as np
import pytest
import scipy.linalg as sl

import strata
import strata.numpy as jnp
import strata.scipy.linalg as jsl
from conftest import numerical_grad, x64_mode
from test_numpy_linalg import close, needs_lowering, needs_primitives, tol

rng = np.random.default_rng(11)


@pytest.fixture
def x64():
    with x64_mode(True):
        yield


def fd_check(f, x, g, rtol=1e-6, atol=1e-6):
    fd = numerical_grad(lambda v: float(f(v)), x)
    np.testing.assert_allclose(np.asarray(g), fd, rtol=rtol, atol=atol)


# ---- Special matrices (no decomposition) ------------------------------------------------------

def test_block_diag_toeplitz_hankel_circulant(x64):
    close(jsl.block_diag(np.ones((2, 2)), 3.0, [1.0, 2.0], np.zeros((0, 2))),
          sl.block_diag(np.ones((2, 2)), 3.0, [1.0, 2.0], np.zeros((0, 2))))
    assert jsl.block_diag(np.ones((1, 1), np.int32), np.ones((2, 1), np.int32)).dtype == np.int32
    assert jsl.block_diag().shape == (1, 0)
    with pytest.raises(ValueError, match=r"\[block_diag\] arguments must have at most two"):
        jsl.block_diag(np.ones((2, 2, 2)))
    close(jsl.toeplitz([1.0, 2, 3], [1.0, 5, 6, 7]), sl.toeplitz([1.0, 2, 3], [1.0, 5, 6, 7]))
    close(jsl.toeplitz([1.0, 2, 3]), sl.toeplitz([1.0, 2, 3]))
    close(jsl.toeplitz([4.0], [4.0, 1.0]), sl.toeplitz([4.0], [4.0, 1.0]))
    cb = rng.standard_normal((2, 3))
    close(jsl.toeplitz(cb), np.stack([sl.toeplitz(c) for c in cb]))  # leading axes batch
    close(jsl.hankel([1.0, 2, 3], [3.0, 5, 6, 7]), sl.hankel([1.0, 2, 3], [3.0, 5, 6, 7]))
    close(jsl.hankel([1.0, 2, 3]), sl.hankel([1.0, 2, 3]))
    close(jsl.circulant([1.0, 2, 3, 4]), sl.circulant([1.0, 2, 3, 4]))
    g = strata.grad(lambda c: jnp.sum(jsl.toeplitz(c) * np.arange(9.0).reshape(3, 3)))(
        np.array([1.0, 2.0, 3.0]))
    fd_check(lambda c: np.sum(sl.toeplitz(c) * np.arange(9.0).reshape(3, 3)),
             np.array([1.0, 2.0, 3.0]), g)


def test_constructed_matrices_against_scipy(x64):
    close(jsl.companion([2.0, 3, 4, 5]), sl.companion([2.0, 3, 4, 5]))
    close(jsl.fiedler([1.0, 4, 2, 8]), sl.fiedler([1.0, 4, 2, 8]))
    for k in range(2, 9):
        c = np.arange(1.0, k)
        close(jsl.fiedler_companion(c), sl.fiedler_companion(c))
    close(jsl.hadamard(8), sl.hadamard(8))
    close(jsl.helmert(5), sl.helmert(5))
    close(jsl.helmert(5, full=True), sl.helmert(5, full=True))
    close(jsl.hilbert(4), sl.hilbert(4))
    close(jsl.invhilbert(5), sl.invhilbert(5), 1e-12, 1e-6)
    assert (jsl.invhilbert(5, exact=True) == sl.invhilbert(5, exact=True)).all()
    for kind in ("symmetric", "lower", "upper"):
        close(jsl.pascal(6, kind), sl.pascal(6, kind))
        close(jsl.invpascal(6, kind), sl.invpascal(6, kind))
    close(jsl.leslie([0.1, 2.0, 1.0, 0.1], [0.2, 0.8, 0.7]),
          sl.leslie([0.1, 2.0, 1.0, 0.1], [0.2, 0.8, 0.7]))
    for n in (1, 2, 5):
        for mode in ("full", "valid", "same"):
            close(jsl.convolution_matrix([1.0, 2.0, 3.0], n, mode),
                  sl.convolution_matrix([1.0, 2.0, 3.0], n, mode))
    with pytest.raises(ValueError, match=r"\[hadamard\] n must be a positive power of two"):
        jsl.hadamard(6)
    with pytest.raises(ValueError, match=r"\[pascal\] kind must be"):
        jsl.pascal(3, "diag")
    with pytest.raises(ValueError, match=r"\[leslie\] f must be 1-d and s one shorter"):
        jsl.leslie([1.0, 2.0], [1.0, 2.0])


# ---- Factor/solve pairs and decompositions ----------------------------------------------------

@needs_primitives
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_factor_solve_pairs(dtype):
    with x64_mode(dtype == np.float64):
        r, t = tol(dtype)
        a = rng.standard_normal((5, 5)).astype(dtype)
        b = rng.standard_normal((5, 2)).astype(dtype)
        spd = (a @ a.T + 5 * np.eye(5)).astype(dtype)
        for lower in (False, True):
            close(jsl.cholesky(spd, lower=lower), sl.cholesky(spd, lower=lower), r, t)
            c = jsl.cho_factor(spd, lower=lower)
            assert c[1] == lower
            close(jsl.cho_solve(c, b), sl.cho_solve(sl.cho_factor(spd, lower=lower), b), r, t)
            close(jsl.cho_solve(c, b[:, 0]), np.linalg.solve(spd, b[:, 0]), r, t)
            close(jsl.solve(np.tril(spd) if lower else np.triu(spd), b, assume_a="pos",
                            lower=lower), np.linalg.solve(spd, b), r, t)
        lu, piv = jsl.lu_factor(a)
        wlu, wpiv = sl.lu_factor(a)
        close(lu, wlu, r, t)
        np.testing.assert_array_equal(np.asarray(piv), wpiv)
        for trans in (0, 1, 2):
            close(jsl.lu_solve((lu, piv), b, trans=trans), sl.lu_solve((wlu, wpiv), b,
                                                                        trans=trans), r, t)
            close(jsl.lu_solve((lu, piv), b[:, 1], trans=trans),
                  sl.lu_solve((wlu, wpiv), b[:, 1], trans=trans), r, t)
        for trans in (0, 1, 2, "N", "T", "C"):
            for lower in (False, True):
                for unit in (False, True):
                    close(jsl.solve_triangular(a, b, trans=trans, lower=lower,
                                               unit_diagonal=unit),
                          sl.solve_triangular(a, b, trans=trans, lower=lower,
                                              unit_diagonal=unit), r * 10, t * 10)
        close(jsl.solve(a, b), sl.solve(a, b), r, t)
        close(jsl.inv(a), sl.inv(a), r * 10, t * 10)
        close(jsl.det(a), sl.det(a), r, t)


@needs_primitives
def test_factor_solve_batched_errors_and_vmap(x64):
    a = rng.standard_normal((3, 4, 4))
    b = rng.standard_normal((3, 4))
    spd = a @ a.transpose(0, 2, 1) + 4 * np.eye(4)
    close(jsl.cho_solve(jsl.cho_factor(spd, lower=True), b),
          np.stack([np.linalg.solve(m, v) for m, v in zip(spd, b)]))
    lu, piv = jsl.lu_factor(a)
    close(jsl.lu_solve((lu, piv), b), np.stack([np.linalg.solve(m, v) for m, v in zip(a, b)]))
    close(jsl.solve_triangular(a, b, lower=True),
          np.stack([sl.solve_triangular(m, v, lower=True) for m, v in zip(a, b)]))
    close(strata.vmap(lambda m, v: jsl.solve_triangular(m, v, trans="T"))(a, b),
          np.stack([sl.solve_triangular(m, v, trans="T") for m, v in zip(a, b)]))
    with pytest.raises(ValueError, match=r"\[solve_triangular\] invalid trans value 3"):
        jsl.solve_triangular(a[0], b[0], trans=3)
    with pytest.raises(ValueError, match=r"\[lu_solve\] trans must be 0, 1 or 2"):
        jsl.lu_solve((lu, piv), b, trans="X")
    with pytest.raises(ValueError, match=r"\[cho_solve\] factor of shape \(4, 4\) and b"):
        jsl.cho_solve((spd[0], False), np.ones(5))
    with pytest.raises(ValueError, match=r"\[solve\] assume_a must be"):
        jsl.solve(a[0], b[0], assume_a="banded")


@needs_primitives
def test_decompositions_in_scipy_conventions(x64):
    a = rng.standard_normal((5, 3))
    p, l_, u = jsl.lu(a)
    wp, wl, wu = sl.lu(a)
    close(p, wp)
    close(l_, wl)
    close(u, wu)
    pl, u2 = jsl.lu(a.T, permute_l=True)
    close(np.asarray(pl) @ np.asarray(u2), a.T)
    q, r = jsl.qr(a)
    assert q.shape == (5, 5) and r.shape == (5, 3)
    close(np.asarray(q) @ np.asarray(r), a)
    q, r = jsl.qr(a, mode="economic")
    assert q.shape == (5, 3) and r.shape == (3, 3)
    rr, = jsl.qr(a, mode="r")
    close(np.abs(rr), np.abs(sl.qr(a, mode="r")[0]))
    c = rng.standard_normal((2, 5))
    cq, r = jsl.qr_multiply(a, c)
    close(cq, c @ np.asarray(jsl.qr(a, mode="economic")[0]))
    u, s, vh = jsl.svd(a, full_matrices=False)
    close(np.asarray(u) * np.asarray(s) @ np.asarray(vh), a)
    close(jsl.svd(a, compute_uv=False), sl.svd(a, compute_uv=False))
    spd = a.T @ a + np.eye(3)
    close(jsl.eigh(spd, eigvals_only=True), sl.eigh(spd, eigvals_only=True))
    w, v = jsl.eigh(spd)
    close(np.abs(v), np.abs(sl.eigh(spd)[1]), 1e-8, 1e-8)
    with pytest.raises(NotImplementedError, match=r"\[eigh\] the generalized problem"):
        jsl.eigh(spd, np.eye(3))
    d, e = rng.standard_normal(6), rng.standard_normal(5)
    close(jsl.eigh_tridiagonal(d, e, eigvals_only=True),
          sl.eigh_tridiagonal(d, e, eigvals_only=True))
    close(jsl.eigh_tridiagonal(d, e, eigvals_only=True, select="i", select_range=(1, 3)),
          sl.eigh_tridiagonal(d, e, eigvals_only=True, select="i", select_range=(1, 3)))
    with pytest.raises(NotImplementedError, match=r"\[eigh_tridiagonal\] only eigvals_only"):
        jsl.eigh_tridiagonal(d, e)
    sq = rng.standard_normal((4, 4))
    for side in ("right", "left"):
        for method in ("qdwh", "svd"):
            up, pp = jsl.polar(sq, side=side, method=method)
            wu, wpp = sl.polar(sq, side=side)
            close(up, wu, 1e-9, 1e-9)
            close(pp, wpp, 1e-9, 1e-9)


# ---- The matrix exponential -------------------------------------------------------------------

@needs_primitives
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_expm_against_scipy(dtype):
    with x64_mode(dtype == np.float64):
        r = 1e-4 if dtype == np.float32 else 1e-11
        a = rng.standard_normal((6, 6))
        # Norms on each side of every Pade degree's bound, and ones that need squarings.
        for scale in (1e-3, 0.05, 0.3, 1.0, 2.0, 5.0, 20.0):
            m = (scale * a).astype(dtype)
            want = sl.expm(m.astype(np.float64))
            got = np.asarray(jsl.expm(m))
            assert got.dtype == dtype
            np.testing.assert_allclose(got, want, rtol=r * 10, atol=r * np.abs(want).max())
        close(jsl.expm(np.zeros((3, 3), dtype)), np.eye(3))
        assert jsl.expm(np.zeros((0, 0), dtype)).shape == (0, 0)
        close(jsl.expm(np.array([[2.0]], dtype)), [[np.exp(2.0)]], r, r)
        up = np.triu(a).astype(dtype)
        np.testing.assert_allclose(np.asarray(jsl.expm(up, upper_triangular=True)),
                                   sl.expm(up.astype(np.float64)), rtol=r * 10,
                                   atol=r * np.abs(sl.expm(up)).max())
        # Past max_squarings the result is NaN (as JAX).
        assert np.all(np.isnan(np.asarray(jsl.expm((1e4 * a).astype(dtype), max_squarings=4))))
        b = rng.standard_normal((3, 4, 4)).astype(dtype)
        np.testing.assert_allclose(np.asarray(strata.vmap(jsl.expm)(b)),
                                   np.stack([sl.expm(m.astype(np.float64)) for m in b]),
                                   rtol=r * 10, atol=r * 10)


@needs_lowering
def test_linalg_under_jit(x64):
    a = rng.standard_normal((3, 4, 4))
    b = rng.standard_normal((3, 4))
    spd = a @ a.transpose(0, 2, 1) + 4 * np.eye(4)
    close(strata.jit(lambda m, v: jsl.cho_solve(jsl.cho_factor(m), v))(spd, b),
          np.stack([np.linalg.solve(m, v) for m, v in zip(spd, b)]))
    close(strata.jit(jsl.expm)(a), np.asarray(jsl.expm(a)), 1e-12, 1e-12)
    close(strata.jit(lambda m, v: jsl.solve_triangular(m, v, trans=1, lower=True))(a, b),
          np.stack([sl.solve_triangular(m, v, trans=1, lower=True) for m, v in zip(a, b)]))
    close(strata.jit(lambda m: jsl.lu(m)[2])(a), np.stack([sl.lu(m)[2] for m in a]), 1e-12,
          1e-12)
    g = strata.jit(strata.grad(lambda m: jnp.sum(jsl.expm(m))))(a[0])
    fd_check(lambda m: np.sum(sl.expm(m)), a[0], g)


@needs_primitives
def test_expm_gradient_and_frechet(x64):
    a = 0.7 * rng.standard_normal((4, 4))
    e = rng.standard_normal((4, 4))
    ex, L = jsl.expm_frechet(a, e)
    wex, wL = sl.expm_frechet(a, e)
    close(ex, wex, 1e-11, 1e-11)
    close(L, wL, 1e-10, 1e-10)
    close(jsl.expm_frechet(a, e, compute_expm=False), wL, 1e-10, 1e-10)
    c = rng.standard_normal((4, 4))
    for scale in (0.1, 1.0, 8.0):  # a low Pade degree, degree 13, degree 13 with squarings
        m = scale * a
        fd_check(lambda x: np.sum(c * sl.expm(x)), m,
                 strata.grad(lambda x: jnp.sum(c * jsl.expm(x)))(m), rtol=1e-6,
                 atol=1e-6 * np.abs(sl.expm(m)).max())
    # The jvp is the Frechet derivative.
    _, t = strata.jvp(jsl.expm, (a,), (e,))
    close(t, wL, 1e-9, 1e-9)


@needs_primitives
def test_solver_gradients(x64):
    a = rng.standard_normal((4, 4)) + 4 * np.eye(4)
    spd = a @ a.T
    b = rng.standard_normal((4, 2))
    w = rng.standard_normal((4, 2))
    fd_check(lambda m: np.sum(w * sl.solve(m, b, assume_a="pos")), spd,
             strata.grad(lambda m: jnp.sum(w * jsl.solve(m, b, assume_a="pos")))(spd))
    fd_check(lambda v: np.sum(w * sl.cho_solve(sl.cho_factor(spd), v)), b,
             strata.grad(lambda v: jnp.sum(w * jsl.cho_solve(jsl.cho_factor(spd), v)))(b))
    for trans in (0, 1):
        fd_check(lambda m: np.sum(w * sl.solve_triangular(m, b, trans=trans, lower=True)), a,
                 strata.grad(lambda m: jnp.sum(w * jsl.solve_triangular(m, b, trans=trans,
                                                                         lower=True)))(a))
    lu_piv = jsl.lu_factor(a)
    fd_check(lambda v: np.sum(w * sl.lu_solve(sl.lu_factor(a), v)), b,
             strata.grad(lambda v: jnp.sum(w * jsl.lu_solve(lu_piv, v)))(b))
    fd_check(lambda m: np.sum(w * sl.lu_solve(sl.lu_factor(m), b)), a,
             strata.grad(lambda m: jnp.sum(w * jsl.lu_solve(jsl.lu_factor(m), b)))(a))


@pytest.mark.parametrize("n", [1, 2, 5, 8, 33])
@pytest.mark.parametrize("scale", [None, "sqrtn", "n"])
def test_dft_against_scipy(n, scale):
    m = jsl.dft(n, scale)
    assert m.dtype == np.complex64 and m.shape == (n, n)
    np.testing.assert_allclose(np.asarray(m), sl.dft(n, scale), rtol=0, atol=2e-7)
    with x64_mode(True):
        m = jsl.dft(n, scale)
        assert m.dtype == np.complex128
        np.testing.assert_allclose(np.asarray(m), sl.dft(n, scale), rtol=0, atol=1e-12)
        x = rng.standard_normal(n)
        norm = {None: "backward", "sqrtn": "ortho", "n": "forward"}[scale]
        np.testing.assert_allclose(np.asarray(m @ x), np.fft.fft(x, norm=norm), atol=1e-12)


def test_dft_dtype_size_zero_and_errors():
    assert jsl.dft(4, dtype=jnp.complex64).dtype == np.complex64
    assert jsl.dft(0).shape == (0, 0)
    # The phase of w**(i*j) is reduced mod n in integers: exact where a float product is not.
    np.testing.assert_allclose(np.asarray(jsl.dft(3001))[3000], sl.dft(3001)[3000], atol=2e-6)
    with pytest.raises(ValueError, match=r"\[dft\] scale"):
        jsl.dft(3, "ortho")
    with pytest.raises(ValueError, match=r"\[dft\] dtype.*float32"):
        jsl.dft(3, dtype=np.float32)
    with pytest.raises(TypeError):
        jsl.dft(2.5)
