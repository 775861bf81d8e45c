"""strata.scipy.linalg (jax.scipy.linalg's names): scipy's factor/solve pairs, decompositions in
scipy's conventions, the matrix exponential and its Frechet derivative, and the special
matrices, over strata.numpy.linalg and strata.lax.linalg, differentiable and batchable."""

import math
import operator

import numpy as np

from strata import lax
from strata import numpy as jnp
from strata import _numpy_linalg as _la
from strata._numpy_linalg import _mT, _prims, _promote, _square

__all__ = [
    "block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion",
    "convolution_matrix", "det", "dft", "eigh", "eigh_tridiagonal", "expm", "expm_frechet",
    "fiedler", "fiedler_companion", "funm", "hadamard", "hankel", "helmert", "hessenberg",
    "hilbert", "inv", "invhilbert", "invpascal", "leslie", "lu", "lu_factor", "lu_solve", "pascal",
    "polar", "qr", "qr_multiply", "rsf2csf", "schur", "solve", "solve_sylvester",
    "solve_triangular", "sqrtm", "svd", "toeplitz",
]


# ---- Decompositions in scipy's conventions ----------------------------------------------------

def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of symmetric positive-definite a: upper U with a = U.T @ U (scipy's
    default), or lower L with a = L @ L.T; only that triangle of a is read (as JAX)."""
    a, = _promote(a)
    _square("cholesky", a)
    L = _prims("cholesky").cholesky(a if lower else _mT(a), symmetrize_input=False)
    return L if lower else _mT(L)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """(c, lower) for cho_solve: c holds the Cholesky factor in its lower or upper triangle
    (the other triangle is zero)."""
    return cholesky(a, lower=lower), lower


def _cho_solve_matrix(c, b, lower):
    p = _prims("cho_solve")
    # a = L L^T: solve L y = b, then L^T x = y (upper c: a = U^T U, the transposes swapped).
    y = p.triangular_solve(c, b, left_side=True, lower=lower, transpose_a=not lower)
    return p.triangular_solve(c, y, left_side=True, lower=lower, transpose_a=lower)


def _rhs(name, a, b):
    """b as (..., n, k) with a's batch shape, and whether it was a vector (b.ndim ==
    a.ndim - 1, as scipy's and JAX's factor/solve pairs)."""
    n = a.shape[-1]
    vec = b.ndim == a.ndim - 1
    if vec:
        b = b[..., None]
    if b.ndim < 2 or b.shape[-2] != n:
        raise ValueError(f"[{name}] factor of shape {tuple(a.shape)} and b of shape "
                         f"{tuple(b.shape[:-1] if vec else b.shape)} ({b.dtype}) do not match: "
                         f"b needs {n} rows")
    batch = _la._batch_shape(name, a.shape[:-2], b.shape[:-2])
    return (jnp.broadcast_to(a, batch + a.shape[-2:]), jnp.broadcast_to(b, batch + b.shape[-2:]),
            vec)


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """The solution of a @ x = b from cho_factor(a)'s (c, lower); b is (..., n) or
    (..., n, k)."""
    c, lower = c_and_lower
    c, b = _promote(c, b)
    _square("cho_solve", c)
    c, b, vec = _rhs("cho_solve", c, b)
    x = _cho_solve_matrix(c, b, lower)
    return x[..., 0] if vec else x


def lu_factor(a, overwrite_a=False, check_finite=True):
    """(lu, piv) of square a: L (unit lower, diagonal implied) and U in one matrix, and LAPACK's
    pivots (row i was swapped with row piv[i])."""
    a, = _promote(a)
    _square("lu_factor", a)
    lu_, piv, _ = _prims("lu_factor").lu(a)
    return lu_, piv


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """The solution of op(a) @ x = b from lu_factor(a)'s (lu, piv): op is the identity for
    trans 0, the transpose for 1 and 2 (the conjugate transpose, equal for real a)."""
    lu_, piv = lu_and_piv
    if trans not in (0, 1, 2):
        raise ValueError(f"[lu_solve] trans must be 0, 1 or 2, got {trans!r}")
    lu_, b = _promote(lu_, b)
    _square("lu_solve", lu_)
    perm = _prims("lu_solve").lu_pivots_to_permutation(piv, lu_.shape[-1])
    lu_, b, vec = _rhs("lu_solve", lu_, b)
    perm = jnp.broadcast_to(perm, lu_.shape[:-1])
    x = _la._lu_solve(lu_, perm, b, trans)
    return x[..., 0] if vec else x


def lu(a, permute_l=False, overwrite_a=False, check_finite=True):
    """(p, l, u) with a = p @ l @ u (l: m x k unit lower, u: k x n upper, k = min(m, n)), or
    (p @ l, u) with permute_l."""
    a, = _promote(a)
    _la._matrix("lu", a)
    lu_, _, perm = _prims("lu").lu(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    l_ = jnp.tril(lu_[..., :, :k], -1) + jnp.eye(m, k, dtype=a.dtype)
    u = jnp.triu(lu_[..., :k, :])
    # Row i of a is row perm[i] of l @ u's input order: p[perm[i], i] = 1.
    p = _mT((perm[..., :, None] == jnp.arange(m)).astype(a.dtype))
    return (jnp.matmul(p, l_), u) if permute_l else (p, l_, u)


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    """scipy's qr: (q, r) with q m x m ('full') or m x k ('economic'); (r,) for 'r' (full r);
    with pivoting, the column permutation p comes last (a[:, p] = q @ r)."""
    a, = _promote(a)
    _la._matrix("qr", a)
    if mode not in ("full", "r", "economic", "raw"):
        raise ValueError(f"[qr] unsupported QR decomposition mode '{mode}'")
    if mode == "raw":
        raise NotImplementedError("[qr] mode='raw' (Householder reflectors) is not provided")
    full = mode != "economic"
    p = _prims("qr")
    if pivoting:
        q, r, perm = p.qr(a, pivoting=True, full_matrices=full)
        return (r, perm) if mode == "r" else (q, r, perm)
    q, r = p.qr(a, full_matrices=full)
    return (r,) if mode == "r" else (q, r)


def qr_multiply(a, c, mode="right", pivoting=False, conjugate=False, overwrite_a=False,
                overwrite_c=False):
    """(q @ c or c @ q, r) for a's economic QR (mode 'left' or 'right'); a 1-d c is a column
    (left) or row (right) and the product is 1-d again."""
    if pivoting:
        raise NotImplementedError("[qr_multiply] pivoting is not supported")
    if mode not in ("left", "right"):
        raise ValueError(f"[qr_multiply] mode must be 'left' or 'right', got {mode!r}")
    q, r = qr(a, mode="economic")
    c = jnp.asarray(c, q.dtype)
    vec = c.ndim == 1
    if mode == "left":
        out = jnp.matmul(q, c[:, None] if vec else c)
    else:
        out = jnp.matmul(c[None, :] if vec else c, q)
    return (out.ravel() if vec else out), r


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
        lapack_driver="gesdd"):
    """(u, s, vh) with a = u @ diag(s) @ vh, s descending; s alone when compute_uv is False."""
    if lapack_driver not in ("gesdd", "gesvd"):
        raise ValueError(f"[svd] lapack_driver must be 'gesdd' or 'gesvd', got "
                         f"{lapack_driver!r}")
    out = _la.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return out if not compute_uv else tuple(out)


def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
         turbo=True, eigvals=None, type=1, check_finite=True):
    """(w, v) of symmetric a, w ascending (the standard problem only: b must be None); w alone
    with eigvals_only."""
    if b is not None:
        raise NotImplementedError("[eigh] the generalized problem (b) is not supported")
    if eigvals is not None:
        raise NotImplementedError("[eigh] eigvals (a subset) is not supported")
    w, v = _la.eigh(a, UPLO="L" if lower else "U")
    return w if eigvals_only else (w, v)


def eigh_tridiagonal(d, e, *, eigvals_only=False, select="a", select_range=None, tol=None):
    """The eigenvalues, ascending, of the symmetric tridiagonal matrix with diagonal d and
    off-diagonal e: all (select 'a') or those with indices select_range = (lo, hi) inclusive
    (select 'i'). Eigenvectors are not supported (as JAX)."""
    if not eigvals_only:
        raise NotImplementedError("[eigh_tridiagonal] only eigvals_only=True is supported")
    d, e = _promote(d, e)
    if d.ndim != 1 or e.ndim != 1 or e.shape[0] != max(d.shape[0] - 1, 0):
        raise ValueError(f"[eigh_tridiagonal] d must be 1-d and e one shorter, got shapes "
                         f"{tuple(d.shape)} and {tuple(e.shape)}")
    n = d.shape[0]
    t = jnp.diag(d)
    if n > 1:
        t = t + jnp.diag(e, 1) + jnp.diag(e, -1)
    w = _la.eigvalsh(t)
    if select == "a":
        return w
    if select == "i":
        lo, hi = select_range
        return w[lo:hi + 1]
    if select == "v":
        raise NotImplementedError("[eigh_tridiagonal] select='v' is not supported")
    raise ValueError(f"[eigh_tridiagonal] select must be 'a', 'v' or 'i', got {select!r}")


def polar(a, side="right", *, method="qdwh", eps=None, max_iterations=None):
    """(u, p) with a = u @ p (side 'right') or p @ u ('left'): u with orthonormal columns, p
    symmetric positive semi-definite, from a's SVD (for both methods)."""
    if side not in ("right", "left"):
        raise ValueError(f"[polar] side must be 'right' or 'left', got {side!r}")
    if method not in ("qdwh", "svd"):
        raise ValueError(f"[polar] method must be 'qdwh' or 'svd', got {method!r}")
    a, = _promote(a)
    _la._matrix("polar", a)
    u, s, vh = _la.svd(a, full_matrices=False)
    unitary = jnp.matmul(u, vh)
    if side == "right":
        posdef = jnp.matmul(_mT(vh) * s[..., None, :], vh)
    else:
        posdef = jnp.matmul(u * s[..., None, :], _mT(u))
    return unitary, posdef


def det(a, overwrite_a=False, check_finite=True):
    """The determinant of square a (jnp.linalg.det)."""
    return _la.det(a)


def inv(a, overwrite_a=False, check_finite=True):
    """The inverse of square a (jnp.linalg.inv)."""
    return _la.inv(a)


def _cho_factor_lower(a):
    return _prims("solve").cholesky(a, symmetrize_input=False)


_solve_pos = _la._factored_solve(_cho_factor_lower,
                                 lambda c, b: _cho_solve_matrix(c, b, True),
                                 lambda c, b: _cho_solve_matrix(c, b, True))


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, debug=False,
          check_finite=True, assume_a="gen"):
    """The solution of a @ x = b: by LU ('gen', 'sym', 'her') or by Cholesky ('pos': a
    symmetric positive definite, its lower or upper triangle read per `lower`)."""
    if assume_a not in ("gen", "sym", "her", "pos"):
        raise ValueError(f"[solve] assume_a must be 'gen', 'sym', 'her' or 'pos', got "
                         f"{assume_a!r}")
    if assume_a != "pos":
        return _la.solve(a, b)
    a, = _promote(a)
    _square("solve", a)
    # The factor reads one triangle: the symmetric a it stands for is built from it.
    tri = jnp.tril(a) if lower else jnp.triu(a)
    sym = tri + _mT(tri) - jnp.eye(a.shape[-1], dtype=a.dtype) * a
    return _la._broadcast_solve("solve", _solve_pos, sym, b)


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     debug=None, check_finite=True):
    """The solution of op(a) @ x = b for triangular a (its lower or upper triangle read; the
    diagonal taken as ones with unit_diagonal); op: 0/'N' none, 1/'T' transpose, 2/'C'
    conjugate transpose. b is (..., n) or (..., n, k)."""
    if trans in (0, "N"):
        transpose = False
    elif trans in (1, "T", 2, "C"):
        transpose = True
    else:
        raise ValueError(f"[solve_triangular] invalid trans value {trans!r}")
    a, b = _promote(a, b)
    _square("solve_triangular", a)
    a, b, vec = _rhs("solve_triangular", a, b)
    x = _prims("solve_triangular").triangular_solve(
        a, b, left_side=True, lower=lower, transpose_a=transpose, conjugate_a=trans in (2, "C"),
        unit_diagonal=unit_diagonal)
    return x[..., 0] if vec else x


# ---- The matrix exponential -------------------------------------------------------------------

# Pade coefficients b_0..b_m of exp (Higham 2005, "The scaling and squaring method for the
# matrix exponential revisited") and the 1-norm bounds theta_m below which degree m suffices.
_PADE = {
    3: (120., 60., 12., 1.),
    5: (30240., 15120., 3360., 420., 30., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
    9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880.,
        3960., 90., 1.),
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
         40840800., 960960., 16380., 182., 1.),
}
_THETA = {np.dtype(np.float64): ((3, 1.495585217958292e-2), (5, 2.539398330063230e-1),
                                 (7, 9.504178996162932e-1), (9, 2.097847961257068e0),
                                 (13, 5.371920351148152e0)),
          np.dtype(np.float32): ((3, 4.258730016922831e-1), (5, 1.880152677804762e0),
                                 (7, 3.925724783138660e0))}


def _pade(a, m, eye):
    """(p, q) with exp(a) ~ q^-1 p for the degree-m Pade approximant: p = u + v, q = v - u
    with u the odd and v the even part."""
    b = _PADE[m]
    mm = jnp.matmul
    a2 = mm(a, a)
    if m < 13:
        powers = [eye, a2]
        while len(powers) <= m // 2:
            powers.append(mm(powers[-1], a2))
        u = mm(a, sum(b[2 * j + 1] * powers[j] for j in range(m // 2 + 1)))
        v = sum(b[2 * j] * powers[j] for j in range(m // 2 + 1))
    else:
        a4 = mm(a2, a2)
        a6 = mm(a4, a2)
        u = mm(a, mm(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
               + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
        v = mm(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + \
            b[2] * a2 + b[0] * eye
    return u + v, v - u


def expm(A, *, upper_triangular=False, max_squarings=16):
    """exp(A) for square A (a batch of them) by scaling and squaring with the Pade degree that
    A's 1-norm allows (Higham 2005: degree 13 for float64, 7 for float32); NaN where more than
    max_squarings squarings would be needed."""
    A, = _promote(A)
    _square("expm", A)
    n = A.shape[-1]
    if n == 0:
        return A
    dt = np.dtype(A.dtype)
    thetas = _THETA.get(dt, _THETA[np.dtype(np.float32)])
    eye = jnp.eye(n, dtype=A.dtype)
    norm1 = lax.stop_gradient(jnp.max(jnp.sum(jnp.abs(A), axis=-2), axis=-1))
    top, theta_top = thetas[-1]
    # Scaling by 2^-s brings the norm under theta_top; the last degree is used with it.
    s = jnp.maximum(0, jnp.ceil(jnp.log2(norm1 / theta_top)))
    s = jnp.where(jnp.isfinite(s), s, 0)
    scaled = A / (2.0 ** s)[..., None, None]
    p, q = _pade(scaled, top, eye)
    # Smaller norms use a lower degree without scaling (fewer products, same accuracy).
    for m, theta in reversed(thetas[:-1]):
        pm, qm = _pade(A, m, eye)
        small = (norm1 <= theta)[..., None, None]
        p, q = jnp.where(small, pm, p), jnp.where(small, qm, q)
        s = jnp.where(norm1 <= theta, 0, s)
    if upper_triangular:
        r = solve_triangular(q, p, lower=False)
    else:
        r = _la.solve(q, p)
    s_int = s.astype(jnp.int32)

    def square(carry, i):
        return jnp.where((i < s_int)[..., None, None], jnp.matmul(carry, carry), carry), None
    r, _ = lax.scan(square, r, jnp.arange(max_squarings, dtype=jnp.int32))
    too_many = (s_int > max_squarings) | jnp.any(jnp.isnan(A), axis=(-2, -1))
    return jnp.where(too_many[..., None, None], jnp.full_like(r, jnp.nan), r)


def expm_frechet(A, E, *, method=None, compute_expm=True):
    """(expm(A), L(A, E)) with L the Frechet derivative of expm at A in direction E, from
    expm of the block matrix [[A, E], [0, A]] whose upper-right block is L(A, E); L alone when
    compute_expm is False."""
    if method not in (None, "SPS", "blockEnlarge"):
        raise ValueError(f"[expm_frechet] unknown method {method!r}")
    A, E = _promote(A, E)
    if A.ndim != 2 or A.shape[0] != A.shape[1] or A.shape != E.shape:
        raise ValueError(f"[expm_frechet] A and E must be square matrices of one shape, got "
                         f"{tuple(A.shape)} and {tuple(E.shape)}")
    n = A.shape[0]
    zero = jnp.zeros_like(A)
    big = expm(jnp.concatenate([jnp.concatenate([A, E], axis=1),
                                jnp.concatenate([zero, A], axis=1)], axis=0))
    L = big[:n, n:]
    return (big[:n, :n], L) if compute_expm else L


# ---- Special matrices -------------------------------------------------------------------------

def block_diag(*arrs):
    """The block-diagonal matrix of the arguments (scalars and vectors are 1 x n blocks)."""
    if not arrs:
        return jnp.zeros((1, 0))
    blocks = [jnp.atleast_2d(jnp.asarray(a)) for a in arrs]
    for i, b in enumerate(blocks):
        if b.ndim != 2:
            raise ValueError(f"[block_diag] arguments must have at most two dimensions, "
                             f"argument {i} has shape {tuple(b.shape)}")
    dt = jnp.result_type(*blocks)
    cols = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        c = b.shape[1]
        rows.append(jnp.concatenate([jnp.zeros((b.shape[0], left), dt), b.astype(dt),
                                     jnp.zeros((b.shape[0], cols - left - c), dt)], axis=1))
        left += c
    return jnp.concatenate(rows, axis=0)


def toeplitz(c, r=None):
    """The Toeplitz matrix with first column c and first row r (r[0] ignored; default: c, a
    symmetric matrix). Leading axes of c and r are batch axes (JAX's extension)."""
    c = jnp.asarray(c)
    if r is None:
        r = c
    r = jnp.asarray(r)
    dt = jnp.result_type(c, r)
    c, r = c.astype(dt), r.astype(dt)
    batch = tuple(np.broadcast_shapes(c.shape[:-1], r.shape[:-1])) if c.ndim and r.ndim else ()
    if c.ndim == 0:
        c = c[None]
    if r.ndim == 0:
        r = r[None]
    m, n = c.shape[-1], r.shape[-1]
    # Entry (i, j) is c[i - j] below the diagonal, r[j - i] on and above it.
    vals = jnp.concatenate([jnp.broadcast_to(jnp.flip(c[..., 1:], -1), batch + (m - 1,)),
                            jnp.broadcast_to(r, batch + (n,))], axis=-1)
    idx = (m - 1) - np.arange(m)[:, None] + np.arange(n)[None, :]
    return vals[..., idx]


def hankel(c, r=None):
    """The Hankel matrix with first column c and last row r (r[0] ignored; default zeros)."""
    c = jnp.ravel(jnp.asarray(c))
    r = jnp.zeros_like(c) if r is None else jnp.ravel(jnp.asarray(r))
    dt = jnp.result_type(c, r)
    vals = jnp.concatenate([c.astype(dt), r[1:].astype(dt)])
    m, n = c.shape[0], r.shape[0]
    return vals[np.arange(m)[:, None] + np.arange(n)[None, :]]


def circulant(c):
    """The circulant matrix with first column c (leading axes batch)."""
    c = jnp.asarray(c)
    n = c.shape[-1]
    idx = (np.arange(n)[:, None] - np.arange(n)[None, :]) % n
    return c[..., idx]


def companion(a):
    """The companion matrix of the polynomial with coefficients a (highest first; a[0] != 0):
    first row -a[1:] / a[0], ones on the subdiagonal."""
    a = jnp.asarray(a)
    if a.ndim != 1 or a.shape[0] < 2:
        raise ValueError(f"[companion] a must be 1-d with at least two coefficients, got "
                         f"shape {tuple(a.shape)}")
    a = a.astype(jnp.result_type(a, 1.0))
    n = a.shape[0] - 1
    first = (-a[1:] / a[0])[None, :]
    return jnp.concatenate([first, jnp.eye(n - 1, n, dtype=a.dtype)], axis=0)


def fiedler(a):
    """The symmetric Fiedler matrix |a[i] - a[j]|."""
    a = jnp.ravel(jnp.asarray(a))
    return jnp.abs(a[:, None] - a[None, :])


def fiedler_companion(a):
    """Fiedler's companion matrix of the polynomial with coefficients a (highest first): a
    pentadiagonal matrix with the companion matrix's eigenvalues (scipy's layout)."""
    a = jnp.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"[fiedler_companion] a must be 1-d, got shape {tuple(a.shape)}")
    a = a.astype(jnp.result_type(a, 1.0))
    if a.shape[0] <= 2:
        if a.shape[0] == 2:
            return jnp.reshape(-a[1] / a[0], (1, 1))
        return jnp.zeros((0,), a.dtype)
    a = a / a[0]
    n = a.shape[0] - 1
    one = jnp.ones((), a.dtype)
    # (row, column, value): ones and -a[k] on the first two sub- and superdiagonals.
    entries = [(0, 0, -a[1]), (1, 0, one)]
    entries += [(i, i - 2, one) for i in range(3, n, 2)]
    entries += [(i, i - 1, -a[i + 1]) for i in range(2, n, 2)]
    entries += [(i, i + 2, one) for i in range(0, n - 2, 2)]
    entries += [(i, i + 1, -a[i + 2]) for i in range(0, n - 1, 2)]
    rows = np.array([e[0] for e in entries])
    cols = np.array([e[1] for e in entries])
    flat = jnp.zeros((n * n,), a.dtype).at[rows * n + cols].set(jnp.stack([e[2] for e in
                                                                            entries]))
    return flat.reshape((n, n))


def dft(n, scale=None, *, dtype=None):
    """The n x n discrete Fourier transform matrix w**(i*j) with w = exp(-2 pi i / n).

    Unscaled for scale None, divided by sqrt(n) for 'sqrtn' (unitary) or by n for 'n', in dtype
    (a complex type; default complex64, complex128 with x64). The phase comes from i*j mod n in
    exact integers, so large n keeps full accuracy."""
    if scale is not None and scale not in ("sqrtn", "n"):
        raise ValueError(f"[dft] scale must be None, 'sqrtn' or 'n', got {scale!r}")
    dt = jnp.zeros((), complex if dtype is None else dtype).dtype
    if getattr(dt, "kind", "f") != "c":
        raise ValueError(f"[dft] dtype must be a complex floating type, got {dt}")
    n = max(operator.index(n), 0)
    i = np.arange(n, dtype=np.int64)
    m = np.exp(-2j * np.pi * (np.outer(i, i) % max(n, 1)) / max(n, 1))
    if scale == "sqrtn":
        m /= math.sqrt(n)
    elif scale == "n":
        m /= n
    return jnp.asarray(m, dt)


def hadamard(n, dtype=int):
    """The n x n Hadamard matrix (Sylvester's construction; n a power of two)."""
    n = int(n)
    if n < 1 or n & (n - 1):
        raise ValueError(f"[hadamard] n must be a positive power of two, got {n}")
    h = np.ones((1, 1))
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return jnp.asarray(h.astype(dtype))


def helmert(n, full=False):
    """The Helmert matrix of order n: orthogonal; its first row constant (dropped unless
    full)."""
    n = int(n)
    h = np.tril(np.ones((n, n)), -1) - np.diag(np.arange(n))
    d = np.arange(n) * np.arange(1, n + 1)
    h[0] = 1
    d[0] = n
    out = jnp.asarray(h / np.sqrt(d)[:, None], jnp.asarray(0.0).dtype)
    return out if full else out[1:]


def hilbert(n):
    """The Hilbert matrix 1 / (i + j + 1)."""
    i = jnp.arange(n, dtype=jnp.asarray(0.0).dtype)
    return 1.0 / (i[:, None] + i[None, :] + 1.0)


def invhilbert(n, exact=False):
    """The inverse of the n x n Hilbert matrix, from its closed form (integers; exact=True:
    Python ints in an object array as scipy, else the default float)."""
    n = int(n)
    out = np.empty((n, n), object)
    for i in range(n):
        for j in range(n):
            s = i + j
            out[i, j] = ((-1) ** s * (s + 1) * math.comb(n + i, n - j - 1)
                         * math.comb(n + j, n - i - 1) * math.comb(s, i) ** 2)
    if exact:
        return out
    return jnp.asarray(out.astype(np.float64), jnp.asarray(0.0).dtype)


def pascal(n, kind="symmetric", exact=True):
    """The Pascal matrix: binomial coefficients, 'symmetric' C(i+j, i), 'lower' C(i, j) or
    'upper' its transpose."""
    if kind not in ("symmetric", "lower", "upper"):
        raise ValueError(f"[pascal] kind must be 'symmetric', 'lower' or 'upper', got {kind!r}")
    n = int(n)
    lower = np.array([[math.comb(i, j) for j in range(n)] for i in range(n)], np.int64)
    out = lower if kind == "lower" else lower.T if kind == "upper" else lower @ lower.T
    return jnp.asarray(out if exact else out.astype(np.float64),
                       None if exact else jnp.asarray(0.0).dtype)


def invpascal(n, kind="symmetric", exact=True):
    """The inverse of pascal(n, kind): integers."""
    if kind not in ("symmetric", "lower", "upper"):
        raise ValueError(f"[invpascal] kind must be 'symmetric', 'lower' or 'upper', got "
                         f"{kind!r}")
    n = int(n)
    # The inverse of the lower Pascal matrix has entries (-1)^(i-j) C(i, j).
    il = np.array([[(-1) ** (i - j) * math.comb(i, j) for j in range(n)] for i in range(n)],
                  np.int64)
    out = il if kind == "lower" else il.T if kind == "upper" else il.T @ il
    return jnp.asarray(out if exact else out.astype(np.float64),
                       None if exact else jnp.asarray(0.0).dtype)


def leslie(f, s):
    """The Leslie matrix: fecundities f (n) in the first row, survival rates s (n - 1) on the
    subdiagonal."""
    f, s = jnp.asarray(f), jnp.asarray(s)
    if f.ndim != 1 or s.ndim != 1 or s.shape[0] != f.shape[0] - 1 or f.shape[0] < 1:
        raise ValueError(f"[leslie] f must be 1-d and s one shorter, got shapes "
                         f"{tuple(f.shape)} and {tuple(s.shape)}")
    dt = jnp.result_type(f, s)
    n = f.shape[0]
    sub = jnp.concatenate([jnp.diag(s.astype(dt)), jnp.zeros((n - 1, 1), dt)], axis=1)
    return jnp.concatenate([f.astype(dt)[None, :], sub], axis=0)


def convolution_matrix(a, n, mode="full"):
    """The matrix A with A @ v == numpy.convolve(a, v, mode) for v of length n ('full',
    'valid', 'same')."""
    a = jnp.asarray(a)
    if a.ndim != 1 or a.shape[0] == 0:
        raise ValueError(f"[convolution_matrix] a must be non-empty and 1-d, got shape "
                         f"{tuple(a.shape)}")
    n = int(n)
    if n <= 0:
        raise ValueError(f"[convolution_matrix] n must be positive, got {n}")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"[convolution_matrix] mode must be 'full', 'valid' or 'same', got "
                         f"{mode!r}")
    m = a.shape[0]
    full_rows = m + n - 1
    i = np.arange(full_rows)[:, None] - np.arange(n)[None, :]
    valid = (i >= 0) & (i < m)
    full = jnp.where(jnp.asarray(valid), a[np.clip(i, 0, m - 1)], jnp.zeros((), a.dtype))
    if mode == "full":
        return full
    if mode == "valid":
        lo, length = min(m, n) - 1, max(m, n) - min(m, n) + 1
    else:
        length = max(m, n)
        lo = (full_rows - length) // 2
    return full[lo:lo + length]


# ---- The Schur family: schur, rsf2csf, hessenberg, and the matrix functions on Schur forms -----

def _complex_of(a):
    """a as the complex dtype of its precision (complex64 for float32)."""
    return a if jnp.iscomplexobj(a) else a.astype(jnp.result_type(a.dtype, jnp.complex64))


def schur(a, output="real"):
    """(T, Z) with a = Z T Z^H: T quasi-upper-triangular (output='real', real a) or upper
    triangular (output='complex'); LAPACK's gees, CPU only (as JAX)."""
    if output not in ("real", "complex"):
        raise ValueError(f"[schur] expected output in ('real', 'complex'), got {output!r}")
    a, = _promote(a)
    _square("schur", a)
    if output == "complex":
        a = _complex_of(a)
    t, z = _prims("schur").schur(a)
    return t, z


def rsf2csf(T, Z, check_finite=True):
    """The complex Schur form (T, Z) from a real one, by Givens rotations zeroing each
    subdiagonal entry of T's 2 x 2 blocks (scipy's algorithm), batched over leading axes."""
    T, Z = _promote(T, Z)
    if T.ndim < 2 or T.shape[-1] != T.shape[-2]:
        raise ValueError(f"[rsf2csf] T must be square, got shape {tuple(T.shape)}")
    if Z.shape != T.shape:
        raise ValueError(f"[rsf2csf] T {tuple(T.shape)} and Z {tuple(Z.shape)} must have the "
                         "same shape")
    T, Z = _complex_of(T), _complex_of(Z)
    n = T.shape[-1]
    eps = float(jnp.finfo(jnp.real(T).dtype).eps)
    idx = jnp.arange(n)
    row, col = idx[:, None], idx[None, :]
    for m in range(n - 1, 0, -1):
        tm = T[..., m, m - 1]
        small = jnp.abs(tm) <= eps * (jnp.abs(T[..., m - 1, m - 1]) + jnp.abs(T[..., m, m]))
        # The Givens rotation G = [[conj(c), s], [-s, c]] (scipy's), applied as G T, T G^H, Z G^H.
        mu = jnp.linalg.eigvals(T[..., m - 1:m + 1, m - 1:m + 1]) - T[..., m, m][..., None]
        r = jnp.sqrt(jnp.abs(mu[..., 0]) ** 2 + jnp.abs(tm) ** 2)
        r = jnp.where(small, jnp.ones_like(r), r)
        c = jnp.where(small, jnp.ones_like(mu[..., 0]), mu[..., 0] / r)
        s = jnp.where(small, jnp.zeros_like(tm), tm / r)
        c_, s_ = c[..., None], s[..., None]
        # Rows m-1, m of T[:, m-1:] and columns m-1, m of T[:m+1, :] and of Z.
        # Masks and broadcasts rather than indexed updates (which are scatters).
        rows_lo = (idx >= m - 1)
        r0, r1 = T[..., m - 1, :], T[..., m, :]
        n0 = jnp.where(rows_lo, jnp.conj(c_) * r0 + s_ * r1, r0)
        n1 = jnp.where(rows_lo, -s_ * r0 + c_ * r1, r1)
        T = jnp.where(row == m - 1, n0[..., None, :], jnp.where(row == m, n1[..., None, :], T))
        cols_hi = (idx <= m)
        c0, c1 = T[..., :, m - 1], T[..., :, m]
        k0 = jnp.where(cols_hi, c0 * c_ + c1 * jnp.conj(s_), c0)
        k1 = jnp.where(cols_hi, -c0 * jnp.conj(s_) + c1 * jnp.conj(c_), c1)
        T = jnp.where(col == m - 1, k0[..., :, None], jnp.where(col == m, k1[..., :, None], T))
        z0, z1 = Z[..., :, m - 1], Z[..., :, m]
        y0, y1 = z0 * c_ + z1 * jnp.conj(s_), -z0 * jnp.conj(s_) + z1 * jnp.conj(c_)
        Z = jnp.where(col == m - 1, y0[..., :, None], jnp.where(col == m, y1[..., :, None], Z))
        T = jnp.where((row == m) & (col == m - 1), jnp.zeros_like(T), T)
    return T, Z


def hessenberg(a, *, calc_q=False, overwrite_a=False, check_finite=True):
    """The upper Hessenberg form H of a = Q H Q^H, and Q with calc_q (LAPACK's gehrd/orghr)."""
    a, = _promote(a)
    _square("hessenberg", a)
    n = a.shape[-1]
    if n == 0:
        return (jnp.zeros_like(a), jnp.zeros_like(a)) if calc_q else jnp.zeros_like(a)
    p = _prims("hessenberg")
    packed, taus = p.hessenberg(a)
    h = jnp.triu(packed, -1)
    if not calc_q:
        return h
    batch = a.shape[:-2]
    q = p.householder_product(packed[..., 1:, :-1], taus) if n > 1 else \
        jnp.zeros(batch + (0, 0), a.dtype)
    top = jnp.concatenate([jnp.ones(batch + (1, 1), a.dtype),
                           jnp.zeros(batch + (1, n - 1), a.dtype)], axis=-1)
    rest = jnp.concatenate([jnp.zeros(batch + (n - 1, 1), a.dtype), q], axis=-1)
    return h, jnp.concatenate([top, rest], axis=-2)


def _diag(x):
    """The diagonals of x [..., n, n] (a masked sum: no gather, which jit lacks for complex)."""
    n = x.shape[-1]
    return jnp.sum(jnp.where(_offsets(n) == 0, x, jnp.zeros_like(x)), axis=-1)


def _offsets(n):
    """The column-minus-row offsets of an n x n matrix."""
    i = jnp.arange(n)
    return i[None, :] - i[:, None]


def _upper_sweep(t, diag, step):
    """The upper triangular F with diagonal `diag` whose p-th superdiagonal, p = 1..n-1, is
    step(F, p) (F's entries above diagonal p still zero): Parlett-style recurrences, one
    superdiagonal at a time (each superdiagonal needs only the ones below it)."""
    n = t.shape[-1]
    off = _offsets(n)
    f = jnp.where(off == 0, diag[..., None, :] * jnp.ones_like(t), jnp.zeros_like(t))
    for p in range(1, n):
        f = jnp.where(off == p, step(f, p), f)
    return f


def _sqrtm_triu(t):
    """The upper triangular square root U of upper triangular t (U U = t): U_ij =
    (t_ij - sum_{i<k<j} U_ik U_kj) / (U_ii + U_jj)."""
    d = jnp.sqrt(_diag(t))
    den = d[..., :, None] + d[..., None, :]

    def step(u, p):
        strict = jnp.triu(u, 1)
        return (t - strict @ strict) / den
    return _upper_sweep(t, d, step)


def sqrtm(A, blocksize=1):
    """The principal square root of A, complex, from its complex Schur form (as JAX); CPU
    only."""
    if blocksize > 1:
        raise NotImplementedError("[sqrtm] the blocked algorithm (blocksize > 1) is not "
                                  "implemented (as in JAX)")
    a, = _promote(A)
    _square("sqrtm", a)
    t, z = schur(a, output="complex")
    return z @ _sqrtm_triu(t) @ jnp.conj(_mT(z))


def funm(A, func, disp=True):
    """f(A) for a scalar function f, by Parlett's recurrence on the complex Schur form:
    F_ij = (T_ij (F_jj - F_ii) + sum_{i<k<j} (T_ik F_kj - F_ik T_kj)) / (T_jj - T_ii) (left
    undivided where T_jj = T_ii, as JAX). disp=False also returns an error estimate."""
    a, = _promote(A)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"[funm] expected a square 2-d array, got shape {tuple(a.shape)}")
    t, z = schur(a)
    t, z = rsf2csf(t, z)
    td = _diag(t)
    fd = jnp.asarray(func(td)).astype(t.dtype)
    den = td[None, :] - td[:, None]
    safe = jnp.where(den == 0, jnp.ones_like(den), den)
    ts = jnp.triu(t, 1)

    def step(f, p):
        s = ts @ f - f @ ts
        return jnp.where(den == 0, s, s / safe)
    f = _upper_sweep(t, fd, step)
    out = z @ f @ jnp.conj(z.T)
    if disp:
        return out
    tol = float(jnp.finfo(jnp.real(out).dtype).eps)
    n = t.shape[0]
    upper = _offsets(n) > 0
    minden = jnp.min(jnp.where(upper, jnp.abs(den), jnp.inf)) if n > 1 else jnp.asarray(jnp.inf)
    minden = jnp.where(minden == 0.0, tol, minden)
    err = jnp.where(jnp.any(jnp.isinf(jnp.abs(out))), jnp.inf,
                    jnp.minimum(1, jnp.maximum(tol, (tol / minden) *
                                               jnp.linalg.norm(jnp.triu(t, 1), 1))))
    return out, err


def _sylvester_triangular(r, s, f):
    """Y with R Y + Y S = F for upper triangular R (m x m) and S (n x n): Y_ik depends on the
    Y_jk below it and the Y_ij left of it, so the diagonals k - i = -(m-1) .. n-1 are solved in
    turn, each at once."""
    m, n = r.shape[-1], s.shape[-1]
    i = jnp.arange(m)[:, None]
    k = jnp.arange(n)[None, :]
    off = k - i
    den = _diag(r)[..., :, None] + _diag(s)[..., None, :]
    rs, ss = jnp.triu(r, 1), jnp.triu(s, 1)
    y = jnp.zeros_like(f)
    for d in range(-(m - 1), n):
        y = jnp.where(off == d, (f - rs @ y - y @ ss) / den, y)
    return y, den


def solve_sylvester(A, B, C, *, method="schur", tol=1e-8):
    """X with A X + X B = C: Bartels-Stewart on the complex Schur forms of A and B
    (method='schur') or on their eigendecompositions ('eigen'); NaNs where some eigenvalue sum
    of A and B is within tol of zero (as JAX). Real inputs give a real X."""
    a, b, c = _promote(A, B, C)
    _square("solve_sylvester", a)
    _square("solve_sylvester", b)
    if c.shape[-2:] != (a.shape[-1], b.shape[-1]):
        raise ValueError(f"[solve_sylvester] C of shape {tuple(c.shape)} does not match A "
                         f"{tuple(a.shape)} and B {tuple(b.shape)}")
    real = not jnp.iscomplexobj(c)
    if method == "schur":
        r, u = schur(a, output="complex")
        s, v = schur(b, output="complex")
        f = jnp.conj(_mT(u)) @ _complex_of(c) @ v
        y, den = _sylvester_triangular(r, s, f)
        x = u @ y @ jnp.conj(_mT(v))
    elif method == "eigen":
        p = _prims("solve_sylvester")
        wa, la, va = p.eig(a)
        wb, lb, vb = p.eig(b)

        def inverse(l, v):  # V^-1 = diag(1 / (u_i^H v_i)) U^H from the left eigenvectors
            return jnp.conj(_mT(l)) / jnp.sum(jnp.conj(l) * v, axis=-2)[..., :, None]
        f = inverse(la, va) @ _complex_of(c) @ vb
        den = wa[..., :, None] + wb[..., None, :]
        x = va @ (f / den) @ inverse(lb, vb)
    else:
        raise ValueError(f"[solve_sylvester] method must be 'schur' or 'eigen', got {method!r}")
    bad = jnp.any(jnp.abs(den) < tol, axis=(-2, -1))[..., None, None]
    x = jnp.where(bad, jnp.full_like(x, complex(np.nan, np.nan)), x)
    return jnp.real(x) if real else x
