"""The nonsymmetric eigenproblem against numpy and scipy: lax.linalg.eig, schur, hessenberg,
householder_product; jnp.linalg.eig/eigvals, jnp.roots; eigenvalue gradients against finite
differences, vmap against a loop, jit against eager, and the errors JAX raises."""

import numpy as np
import pytest
import scipy.linalg as sl

import strata
import strata.numpy as jnp
import strata.lax.linalg as L
from conftest import numerical_grad

rng = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def _x64(x64_on):
    yield


def general(n, batch=(), dtype=np.float64):
    a = rng.standard_normal(batch + (n, n))
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * rng.standard_normal(batch + (n, n))
    return a.astype(dtype)


def sorted_eigs(w):
    w = np.asarray(w)
    return np.sort_complex(np.round(w, 8))


def assert_same_set(got, want, tol):
    """Each eigenvalue of got is within tol of a distinct one of want (any order)."""
    got, want = list(np.asarray(got)), list(np.asarray(want))
    assert len(got) == len(want)
    for g in got:
        k = int(np.argmin([abs(g - w) for w in want]))
        assert abs(g - want[k]) <= tol * (1 + abs(want[k])), (g, want)
        want.pop(k)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("n", [1, 2, 5, 12])
def test_eig_matches_numpy(dtype, n):
    a = general(n, (2,), dtype)
    w, vl, vr = L.eig(a)
    want_dt = np.complex64 if dtype in (np.float32, np.complex64) else np.complex128
    assert w.dtype == want_dt and vl.dtype == want_dt and vr.dtype == want_dt
    assert w.shape == (2, n) and vl.shape == vr.shape == (2, n, n)
    tol = 1e-4 if want_dt == np.complex64 else 1e-10
    w, vl, vr = np.asarray(w), np.asarray(vl), np.asarray(vr)
    ww = np.linalg.eigvals(a.astype(np.complex128))
    for b in range(2):
        assert_same_set(w[b], ww[b], tol * 100)
        ab = a[b].astype(np.complex128)
        # A vr = vr diag(w); vl^H A = diag(w) vl^H; unit columns.
        np.testing.assert_allclose(ab @ vr[b], vr[b] * w[b], atol=tol * 10 * (1 + abs(ab).max()))
        np.testing.assert_allclose(vl[b].conj().T @ ab, w[b][:, None] * vl[b].conj().T,
                                   atol=tol * 10 * (1 + abs(ab).max()))
        np.testing.assert_allclose(np.linalg.norm(vr[b], axis=0), 1, rtol=tol)
        np.testing.assert_allclose(np.linalg.norm(vl[b], axis=0), 1, rtol=tol)


def test_eig_matches_lapack_bit_conventions():
    # numpy's geev gives the same normalized eigenvectors (largest component real) and order.
    a = general(6)
    w, vr = L.eig(a, compute_left_eigenvectors=False)
    ww, wv = np.linalg.eig(a)
    np.testing.assert_allclose(np.asarray(w), ww, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(vr), wv, rtol=1e-10, atol=1e-10)
    out = L.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)
    assert len(out) == 1
    np.testing.assert_allclose(np.asarray(out[0]), ww, rtol=1e-12, atol=1e-12)


def test_eig_edge_cases():
    w, vl, vr = L.eig(np.zeros((3, 0, 0)))
    assert w.shape == (3, 0) and vr.shape == (3, 0, 0) and w.dtype == np.complex128
    w, vr = jnp.linalg.eig(np.array([[2.0]]))
    np.testing.assert_allclose(np.asarray(w), [2.0])
    np.testing.assert_allclose(np.asarray(vr), [[1.0]])
    # A rotation: eigenvalues +-i.
    np.testing.assert_allclose(sorted_eigs(jnp.linalg.eigvals(np.array([[0.0, -1.0],
                                                                        [1.0, 0.0]]))),
                               [-1j, 1j], atol=1e-12)
    # Integers promote (JAX's promote_dtypes_inexact).
    assert jnp.linalg.eigvals(np.eye(2, dtype=np.int32)).dtype == np.complex128
    assert np.isnan(np.asarray(L.eig(np.full((2, 2), np.nan))[0])).all()


def test_eig_float32_without_x64():
    from conftest import x64_mode
    with x64_mode(False):
        w = jnp.linalg.eigvals(np.eye(3, dtype=np.float32) * 2)
        assert w.dtype == np.complex64


def test_jnp_linalg_eig_result():
    a = general(4)
    r = jnp.linalg.eig(a)
    assert r.eigenvalues is r[0] and r.eigenvectors is r[1]
    np.testing.assert_allclose(a @ np.asarray(r[1]), np.asarray(r[1]) * np.asarray(r[0]),
                               atol=1e-10)


def test_eig_errors():
    with pytest.raises(ValueError, match=r"\[eig\].*square.*f64\[2,3\]"):
        L.eig(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"\[eig\].*rank >= 2"):
        L.eig(np.zeros(3))
    with pytest.raises(ValueError, match=r"\[eig\].*float32, float64, complex64 or complex128"):
        L.eig(np.zeros((2, 2), np.int32))


def _eig_grad_check(f, a, rtol=1e-6):
    g = np.asarray(strata.grad(f)(a))
    want = numerical_grad(lambda y: float(np.asarray(f(y))), a)
    np.testing.assert_allclose(g, want, rtol=rtol, atol=1e-7)


def test_eigvals_gradients_against_finite_differences():
    # Separated real eigenvalues, and a pair of complex ones.
    a = rng.uniform(-0.3, 0.3, (4, 4)) + np.diag([1.0, 2.5, 4.0, 5.5])
    wts = np.arange(1.0, 5.0)
    _eig_grad_check(lambda x: jnp.sum(jnp.real(jnp.sort(jnp.linalg.eigvals(x))) * wts), a)
    rot = np.array([[0.3, -1.2, 0.1], [1.1, 0.2, 0.3], [0.0, 0.2, 2.0]])
    _eig_grad_check(lambda x: jnp.sum(jnp.abs(jnp.imag(jnp.linalg.eigvals(x)))), rot)
    _eig_grad_check(lambda x: jnp.sum(jnp.real(jnp.linalg.eigvals(x)) ** 2), rot)
    # jvp against finite differences, complex input in both real directions.
    z = general(3, (), np.complex128)
    dz = general(3, (), np.complex128)
    for d in (dz.real.astype(np.complex128), 1j * dz.imag):
        _, t = strata.jvp(lambda x: jnp.prod(jnp.linalg.eigvals(x)), (z,), (d,))
        eps = 1e-6
        fd = (np.prod(np.linalg.eigvals(z + eps * d)) - np.prod(np.linalg.eigvals(z - eps * d))) \
            / (2 * eps)
        np.testing.assert_allclose(complex(np.asarray(t)), fd, rtol=1e-6)


def test_eigenvector_derivatives_raise_not_implemented():
    a = general(3)
    with pytest.raises(NotImplementedError, match=r"\[eig\].*eigenvectors"):
        strata.grad(lambda x: jnp.sum(jnp.real(jnp.linalg.eig(x)[1])))(a)


def test_eig_vmap_and_jit():
    a = general(4, (3,))
    f = lambda x: L.eig(x)  # noqa: E731
    got = strata.vmap(f)(a)
    for b in range(3):
        for g, want in zip(got, f(a[b])):
            np.testing.assert_array_equal(np.asarray(g)[b], np.asarray(want))
    got = strata.vmap(f, in_axes=2)(np.moveaxis(a, 0, 2))
    np.testing.assert_array_equal(np.asarray(got[0]), np.asarray(f(a)[0]))
    for g, want in zip(strata.jit(f)(a), f(a)):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(want))
    h = strata.jit(lambda x: jnp.linalg.eigvals(x))
    np.testing.assert_array_equal(np.asarray(h(a)), np.asarray(jnp.linalg.eigvals(a)))
    grad = strata.jit(strata.grad(lambda x: jnp.sum(jnp.real(jnp.linalg.eigvals(x)))))
    np.testing.assert_allclose(np.asarray(grad(a[0])), np.eye(4), atol=1e-10)


# ---- roots ------------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [[1.0, -3.0, 2.0], [2.0, 0.0, 0.0, -16.0], [0.0, 0.0, 1.0, 1.0],
                               [1.0, 0.0, 1.0], [5.0], [], [0.0, 0.0], [3, 1, 4, 1, 5, 9, 2, 6],
                               [1.0, 2.0, 0.0, 0.0]])
def test_roots_matches_numpy(p):
    got = np.asarray(jnp.roots(np.asarray(p)))
    want = np.roots(np.asarray(p, dtype=float))
    assert np.issubdtype(got.dtype, np.complexfloating)
    assert got.shape == want.shape
    np.testing.assert_allclose(sorted_eigs(got), sorted_eigs(want), atol=1e-7)


def test_roots_strip_zeros_false_under_jit():
    p = np.array([0.0, 0.0, 1.0, -3.0, 2.0])
    got = np.asarray(strata.jit(lambda q: jnp.roots(q, strip_zeros=False))(p))
    assert got.shape == (4,)
    np.testing.assert_allclose(np.sort(got[:2].real), [1.0, 2.0], atol=1e-12)
    assert np.isnan(got[2:]).all()
    assert np.isnan(np.asarray(jnp.roots(np.zeros(3), strip_zeros=False))).all()
    with pytest.raises(TypeError, match=r"\[roots\].*concrete"):
        strata.jit(jnp.roots)(p)
    with pytest.raises(ValueError, match=r"\[roots\].*rank-1"):
        jnp.roots(np.ones((2, 2)))


# ---- schur, hessenberg, householder_product ---------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("n", [1, 3, 8])
def test_schur_matches_scipy(dtype, n):
    a = general(n, (2,), dtype)
    t, vs = L.schur(a)
    assert t.dtype == dtype and vs.dtype == dtype and t.shape == a.shape
    t, vs = np.asarray(t), np.asarray(vs)
    tol = 1e-4 if dtype in (np.float32, np.complex64) else 1e-11
    for b in range(2):
        wt, wz = sl.schur(a[b], output="complex" if np.iscomplexobj(a) else "real")
        np.testing.assert_allclose(t[b], wt, atol=tol * 10, rtol=tol * 10)
        np.testing.assert_allclose(vs[b] @ t[b] @ vs[b].conj().T, a[b], atol=tol * 10)
        np.testing.assert_allclose(vs[b].conj().T @ vs[b], np.eye(n), atol=tol * 10)
        assert np.allclose(np.tril(t[b], -2), 0)
    (t_only,) = L.schur(a, compute_schur_vectors=False)
    np.testing.assert_allclose(np.asarray(t_only), t, atol=tol)
    with pytest.raises(NotImplementedError, match=r"\[schur\].*sort"):
        L.schur(a, sort_eig_vals=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("n", [1, 2, 6])
def test_hessenberg_and_householder_product_match_scipy(dtype, n):
    a = general(n, (), dtype)
    h, taus = L.hessenberg(a)
    assert h.dtype == dtype and taus.shape == (max(n - 1, 0),)
    tol = 1e-4 if dtype == np.float32 else 1e-11
    wh, wq = sl.hessenberg(a, calc_q=True)
    hh = np.triu(np.asarray(h), -1)
    q = np.eye(n, dtype=dtype)
    if n > 1:
        q[1:, 1:] = np.asarray(L.householder_product(np.asarray(h)[1:, :-1], taus))
    np.testing.assert_allclose(q @ hh @ q.conj().T, a, atol=tol * 10)
    if n > 2:  # scipy returns a itself for n <= 2; LAPACK (and JAX) still reflect
        np.testing.assert_allclose(hh, wh, atol=tol * 10, rtol=tol * 10)
        np.testing.assert_allclose(q, wq, atol=tol * 10)


def test_householder_product_is_qr_q():
    a = rng.standard_normal((5, 3))
    f, tau = sl.lapack.dgeqrf(a)[:2]
    q = np.asarray(L.householder_product(f, tau))
    np.testing.assert_allclose(q, np.linalg.qr(a)[0], atol=1e-12)
    with pytest.raises(ValueError, match=r"\[householder_product\].*at least as many rows"):
        L.householder_product(np.zeros((2, 3)), np.zeros(2))


def test_schur_family_not_differentiable_batched_and_jitted():
    a = general(4, (3,))
    for f in (lambda x: L.schur(x)[0], lambda x: L.hessenberg(x)[0]):
        with pytest.raises(NotImplementedError, match=r"differentiation is not implemented"):
            strata.grad(lambda x: jnp.sum(f(x)))(a[0])
        v = np.asarray(strata.vmap(f)(a))
        for b in range(3):
            np.testing.assert_array_equal(v[b], np.asarray(f(a[b])))
        np.testing.assert_array_equal(np.asarray(strata.jit(f)(a)), np.asarray(f(a)))
    taus = np.asarray(L.hessenberg(a)[1])
    hh = np.asarray(L.hessenberg(a)[0])[:, 1:, :-1]
    g = strata.jit(L.householder_product)
    np.testing.assert_array_equal(np.asarray(g(hh, taus)),
                                  np.asarray(L.householder_product(hh, taus)))


# ---- jax.scipy.linalg on the Schur family -----------------------------------------------------

import strata.scipy.linalg as jsl  # noqa: E402


@pytest.mark.parametrize("output", ["real", "complex"])
def test_jsp_schur_matches_scipy(output):
    a = general(5)
    t, z = jsl.schur(a, output=output)
    wt, wz = sl.schur(a, output=output)
    assert np.asarray(t).dtype == wt.dtype
    np.testing.assert_allclose(np.asarray(t), wt, atol=1e-10)
    np.testing.assert_allclose(np.asarray(z), wz, atol=1e-10)
    with pytest.raises(ValueError, match=r"\[schur\].*output"):
        jsl.schur(a, output="quasi")


@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_rsf2csf_matches_scipy(n):
    a = general(n)
    t, z = sl.schur(a)
    got_t, got_z = jsl.rsf2csf(t, z)
    want_t, want_z = sl.rsf2csf(t, z)
    np.testing.assert_allclose(np.asarray(got_t), want_t, atol=1e-10)
    np.testing.assert_allclose(np.asarray(got_z), want_z, atol=1e-10)
    gt, gz = np.asarray(got_t), np.asarray(got_z)
    np.testing.assert_allclose(gz @ gt @ gz.conj().T, a, atol=1e-10)
    assert np.allclose(np.tril(gt, -1), 0)


@pytest.mark.parametrize("calc_q", [False, True])
def test_jsp_hessenberg_matches_scipy(calc_q):
    a = general(6, (), np.complex128)
    got = jsl.hessenberg(a, calc_q=calc_q)
    want = sl.hessenberg(a, calc_q=calc_q)
    if calc_q:
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w, atol=1e-10)
    else:
        np.testing.assert_allclose(np.asarray(got), want, atol=1e-10)
    assert jsl.hessenberg(np.zeros((0, 0))).shape == (0, 0)
    h, q = jsl.hessenberg(np.array([[3.0]]), calc_q=True)
    np.testing.assert_allclose(np.asarray(h), [[3.0]])
    np.testing.assert_allclose(np.asarray(q), [[1.0]])


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("n", [1, 3, 7])
def test_sqrtm_matches_scipy(dtype, n):
    a = general(n, (), dtype) + n * np.eye(n)  # away from the negative real axis
    got = np.asarray(jsl.sqrtm(a))
    assert np.iscomplexobj(got)
    np.testing.assert_allclose(got, sl.sqrtm(a), atol=1e-9)
    np.testing.assert_allclose(got @ got, a, atol=1e-9)
    with pytest.raises(NotImplementedError, match=r"\[sqrtm\].*blocksize"):
        jsl.sqrtm(a, blocksize=2)


@pytest.mark.parametrize("name", ["exp", "sin", "cube"])
def test_funm_matches_scipy(name):
    f = {"exp": np.exp, "sin": np.sin, "cube": lambda x: x ** 3}[name]
    a = general(5) / 2
    got = np.asarray(jsl.funm(a, _strata_fn(f)))
    np.testing.assert_allclose(got, sl.funm(a, f), atol=1e-9)
    out, err = jsl.funm(a, _strata_fn(f), disp=False)
    np.testing.assert_allclose(np.asarray(out), got, atol=1e-12)
    assert 0 < float(np.asarray(err)) <= 1


def _strata_fn(f):
    return {np.exp: jnp.exp, np.sin: jnp.sin}.get(f, lambda x: x ** 3)


def test_funm_exp_is_expm():
    a = general(4) / 3
    np.testing.assert_allclose(np.asarray(jsl.funm(a, jnp.exp)), sl.expm(a), atol=1e-10)
    with pytest.raises(ValueError, match=r"\[funm\].*square"):
        jsl.funm(np.ones((2, 3)), jnp.exp)


@pytest.mark.parametrize("method", ["schur", "eigen"])
@pytest.mark.parametrize("m, n", [(1, 1), (3, 4), (5, 2)])
def test_solve_sylvester_matches_scipy(method, m, n):
    a = general(m) + 2 * np.eye(m)
    b = general(n) + 2 * np.eye(n)
    c = rng.standard_normal((m, n))
    x = np.asarray(jsl.solve_sylvester(a, b, c, method=method))
    assert x.dtype == np.float64
    np.testing.assert_allclose(x, sl.solve_sylvester(a, b, c), atol=1e-9)
    np.testing.assert_allclose(a @ x + x @ b, c, atol=1e-9)


def test_solve_sylvester_complex_singular_and_errors():
    a = general(3, (), np.complex128)
    b = general(2, (), np.complex128)
    c = general(2, (), np.complex128)[:, :2]
    c = np.concatenate([c, c[:1]], axis=0)
    x = np.asarray(jsl.solve_sylvester(a, b, c))
    np.testing.assert_allclose(a @ x + x @ b, c, atol=1e-9)
    # A and -A share eigenvalue sums of zero: NaNs (as JAX).
    s = np.diag([1.0, 2.0])
    assert np.isnan(np.asarray(jsl.solve_sylvester(s, -s, np.ones((2, 2))))).all()
    with pytest.raises(ValueError, match=r"\[solve_sylvester\].*C of shape"):
        jsl.solve_sylvester(s, s, np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"\[solve_sylvester\].*method"):
        jsl.solve_sylvester(s, s, np.ones((2, 2)), method="bogus")


def test_schur_family_under_jit():
    a = general(4) + 4 * np.eye(4)
    for f in (jsl.sqrtm, lambda x: jsl.funm(x, jnp.exp), lambda x: jsl.rsf2csf(*jsl.schur(x))[0],
              lambda x: jsl.solve_sylvester(x, x, x)):
        np.testing.assert_allclose(np.asarray(strata.jit(f)(a)), np.asarray(f(a)), atol=1e-12)


# ---- Complex inputs to the decompositions (LAPACK's c/z routines) -----------------------------

def _complex_grad_check(f, x, hermitian=False):
    """grad of a real f at complex x against finite differences along both real directions:
    with JAX's convention df = Re(sum(grad * dz))."""
    g = np.asarray(strata.grad(f)(x))
    d = rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape)
    if hermitian:
        d = d + d.conj().T
    fn = lambda y: float(np.asarray(f(y)))  # noqa: E731
    eps = 1e-6
    for dd in (d.real.astype(complex), 1j * d.imag):
        want = (fn(x + eps * dd) - fn(x - eps * dd)) / (2 * eps)
        got = np.real(np.sum(g * dd))
        assert abs(got - want) <= 1e-5 * (1 + abs(want)), (got, want)


_z = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
_h = _z @ _z.conj().T + 3 * np.eye(3)
_t = np.tril(_z) + 3 * np.eye(3)
_b = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_decompositions_match_numpy(dtype):
    tol = 1e-4 if dtype == np.complex64 else 1e-10
    z, h, t, b = (x.astype(dtype) for x in (_z, _h, _t, _b))
    close = lambda g, w: np.testing.assert_allclose(np.asarray(g), w, atol=tol, rtol=tol)  # noqa
    close(L.cholesky(h), np.linalg.cholesky(h))
    close(L.triangular_solve(t, b, left_side=True, lower=True), sl.solve_triangular(t, b, lower=True))
    for trans, conj in (("T", False), ("C", True)):
        close(L.triangular_solve(t, b, left_side=True, lower=True, transpose_a=True,
                                 conjugate_a=conj), sl.solve_triangular(t, b, lower=True, trans=trans))
    close(L.triangular_solve(t, b.T, left_side=False, lower=True), b.T @ np.linalg.inv(t))
    P, Lm, U = sl.lu(z)
    lu, piv, perm = L.lu(z)
    close(lu, np.tril(Lm, -1) + U)
    q, r = L.qr(z)
    close(np.asarray(q) @ np.asarray(r), z)
    close(np.abs(np.asarray(r)), np.abs(np.linalg.qr(z)[1]))
    v, w = L.eigh(h)
    assert w.dtype == (np.float32 if dtype == np.complex64 else np.float64)
    close(w, np.linalg.eigvalsh(h))
    vv = np.asarray(v)
    close(vv @ np.diag(np.asarray(w)) @ vv.conj().T, h)
    close(jnp.linalg.solve(z, b), np.linalg.solve(z, b))
    close(jnp.linalg.inv(z), np.linalg.inv(z))
    close(jnp.linalg.det(z), np.linalg.det(z))
    s, ld = jnp.linalg.slogdet(z)
    ws, wld = np.linalg.slogdet(z)
    close(s, ws)
    close(ld, wld)
    u, sv, vh = L.svd(z, full_matrices=False)
    assert sv.dtype == (np.float32 if dtype == np.complex64 else np.float64)
    close(sv, np.linalg.svd(z, compute_uv=False))
    close((np.asarray(u) * np.asarray(sv)[..., None, :]) @ np.asarray(vh), z)
    close(L.svd(z, compute_uv=False), np.linalg.svd(z, compute_uv=False))
    close(jnp.linalg.pinv(z), np.linalg.pinv(z))
    close(jnp.linalg.norm(z, 2), np.linalg.norm(z, 2))
    close(jnp.linalg.cond(z), np.linalg.cond(z))
    assert int(jnp.linalg.matrix_rank(z)) == np.linalg.matrix_rank(z)
    close(jnp.linalg.lstsq(z, b)[0], np.linalg.lstsq(z, b, rcond=None)[0])


def test_complex_decompositions_jit_matches_eager():
    f = lambda z, h: (L.cholesky(h), L.lu(z)[0], L.qr(z)[1], L.eigh(h)[1],  # noqa: E731
                      L.triangular_solve(z, h, left_side=True, lower=True),
                      *L.svd(z, full_matrices=False))
    for got, want in zip(strata.jit(f)(_z, _h), f(_z, _h)):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_complex_decomposition_gradients():
    wts = rng.standard_normal((3, 3))
    _complex_grad_check(lambda y: jnp.sum(jnp.abs(L.cholesky(y)) * wts), _h, hermitian=True)
    _complex_grad_check(lambda y: jnp.sum(L.eigh(y)[1] * jnp.arange(1.0, 4.0)), _h, True)
    _complex_grad_check(lambda y: jnp.sum(jnp.abs(L.eigh(y)[0][0]) ** 2 * jnp.arange(1.0, 4.0)),
                        _h, True)
    _complex_grad_check(lambda y: jnp.sum(jnp.real(L.lu(y)[0] * wts)), _z)
    _complex_grad_check(lambda y: jnp.sum(jnp.real(L.qr(y)[1]) * wts), _z)
    _complex_grad_check(lambda y: jnp.sum(jnp.imag(L.qr(y)[0]) * wts), _z)
    _complex_grad_check(lambda y: jnp.sum(jnp.abs(L.triangular_solve(
        y, _b, left_side=True, lower=True, transpose_a=True, conjugate_a=True)) ** 2), _t)
    _complex_grad_check(lambda y: jnp.real(jnp.linalg.det(y)), _z)
    _complex_grad_check(lambda y: jnp.sum(jnp.abs(jnp.linalg.solve(y, _b))), _z)
    _complex_grad_check(lambda y: jnp.sum(jnp.imag(jnp.linalg.inv(y))), _z)
    _complex_grad_check(lambda y: jnp.linalg.slogdet(y)[1], _z)
    # svd: the singular values and gauge-invariant functions of the vectors (|u|^2, u s vh).
    _complex_grad_check(lambda y: jnp.sum(L.svd(y, compute_uv=False) * jnp.arange(1.0, 4.0)), _z)
    _complex_grad_check(lambda y: jnp.sum(jnp.abs(L.svd(y, full_matrices=False)[0]) ** 2 * wts),
                        _z)
    _complex_grad_check(lambda y: jnp.sum(jnp.abs(L.svd(y, full_matrices=False)[2]) ** 2 * wts),
                        _z)
    _complex_grad_check(lambda y: jnp.sum(jnp.real(jnp.linalg.pinv(y)) * wts), _z)
    _complex_grad_check(lambda y: jnp.real(jnp.linalg.slogdet(y)[0]), _z)
