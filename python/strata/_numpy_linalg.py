"""strata.numpy.linalg (jax.numpy.linalg's 31 names): norms and products over Strata's ops, and
the decompositions, solvers and everything built on them over strata.lax.linalg's primitives,
with JAX's signatures, dtypes, errors and derivative rules (det, slogdet, solve, pinv)."""

import math
import operator
from typing import NamedTuple

import numpy as _np

import strata.numpy as _jnp
from strata import lax as _lax
from strata.api import custom_jvp as _custom_jvp, custom_vjp as _custom_vjp, jit as _jit

__all__ = ["cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
           "inv", "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank",
           "matrix_transpose", "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve",
           "svd", "svdvals", "tensordot", "tensorinv", "tensorsolve", "trace", "vecdot",
           "vector_norm"]


class EigResult(NamedTuple):
    """eig's result: complex eigenvalues, right eigenvectors in the columns."""
    eigenvalues: object
    eigenvectors: object


class EighResult(NamedTuple):
    """eigh's result: eigenvalues ascending, eigenvectors in the columns."""
    eigenvalues: object
    eigenvectors: object


class QRResult(NamedTuple):
    """qr's result: Q with orthonormal columns and upper-triangular R."""
    Q: object
    R: object


class SlogdetResult(NamedTuple):
    """slogdet's result: the determinant is sign * exp(logabsdet)."""
    sign: object
    logabsdet: object


class SVDResult(NamedTuple):
    """svd's result: a = U @ (S[..., None] * Vh), S descending."""
    U: object
    S: object
    Vh: object


def _prims(name):
    """strata.lax.linalg, whose primitives the decompositions are built on."""
    try:
        from strata.lax import linalg
    except ImportError as e:
        raise NotImplementedError(f"[{name}] needs the strata.lax.linalg primitives ({e})") from e
    return linalg


def _inexact(x):
    """x itself when floating, else converted to the float type JAX promotes it to."""
    return x if getattr(x.dtype, "kind", "") == "f" or _jnp.issubdtype(x.dtype, _jnp.floating) \
        else x.astype(_jnp.result_type(x.dtype, 1.0))


def _promote(*xs):
    """The arguments as arrays of one floating dtype (JAX's promote_dtypes_inexact)."""
    arrs = [_jnp.asarray(x) for x in xs]
    dt = _jnp.result_type(*arrs)
    if not _jnp.issubdtype(dt, _jnp.floating):
        dt = _jnp.result_type(dt, 1.0)
    return [a if a.dtype == dt else a.astype(dt) for a in arrs]


def _square(name, a):
    """a checked to be a (batch of) square matrices."""
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"[{name}] expects square matrices in the last two axes, got shape "
                         f"{tuple(a.shape)} ({a.dtype})")
    return a


def _matrix(name, a):
    if a.ndim < 2:
        raise ValueError(f"[{name}] expects an array of at least two dimensions, got shape "
                         f"{tuple(a.shape)} ({a.dtype})")
    return a


def _mT(x):
    return _jnp.swapaxes(x, -1, -2)


def _mH(x):
    """The conjugate transpose over the last two axes (_mT for real x)."""
    return _jnp.conj(_mT(x)) if _jnp.iscomplexobj(x) else _mT(x)


def _axes(axis, ndim):
    return tuple(range(ndim)) if axis is None else \
        tuple(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))


# ---- Norms ------------------------------------------------------------------------------------

def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The vector ord-norm of x over axis (all of x by default): ord in 0, 1, 2, inf, -inf or
    any other number (sum(|x|**ord)**(1/ord))."""
    x = _inexact(_jnp.asarray(x))
    if isinstance(ord, str):
        hint = " Use 'jax.numpy.inf' instead." if ord == "inf" else ""
        raise ValueError(f"[vector_norm] invalid order '{ord}' for a vector norm.{hint}")
    ax = _axes(axis, x.ndim)
    a = _jnp.abs(x)
    if ord is None or ord == 2:
        return _jnp.sqrt(_jnp.sum(x * x, axis=ax, keepdims=keepdims))
    if ord == _jnp.inf:
        return _jnp.max(a, axis=ax, keepdims=keepdims)
    if ord == -_jnp.inf:
        return _jnp.min(a, axis=ax, keepdims=keepdims)
    if ord == 0:
        return _jnp.sum(x != 0, axis=ax, keepdims=keepdims).astype(x.dtype)
    if ord == 1:
        return _jnp.sum(a, axis=ax, keepdims=keepdims)
    p = _jnp.asarray(ord, x.dtype)
    return _jnp.sum(a ** p, axis=ax, keepdims=keepdims) ** (1 / p)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The matrix norm over the last two axes: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def norm(x, ord=None, axis=None, keepdims=False):
    """numpy.linalg.norm: a vector norm for one axis (or a 1-d x), a matrix norm for two
    ('fro', 'nuc', 1, -1, 2, -2, inf, -inf; 2, -2 and 'nuc' from the singular values)."""
    x = _inexact(_jnp.asarray(x))
    if axis is None:
        if ord is None:
            return vector_norm(x, axis=None, keepdims=keepdims)
        if x.ndim not in (1, 2):
            raise ValueError(f"[norm] ord={ord!r} without axis needs a 1-d or 2-d array, got "
                             f"shape {tuple(x.shape)}")
        axis = tuple(range(x.ndim))
    ax = _axes(axis, x.ndim)
    if len(ax) == 1:
        return vector_norm(x, axis=ax, keepdims=keepdims, ord=2 if ord is None else ord)
    if len(ax) != 2 or ax[0] == ax[1]:
        raise ValueError(f"[norm] improper axes {axis!r} for an array of shape "
                         f"{tuple(x.shape)}: pass one axis for a vector norm, two for a matrix "
                         "norm")
    r, c = ax
    a = _jnp.abs(x)
    if ord is None or ord == "fro":
        return _jnp.sqrt(_jnp.sum(x * x, axis=ax, keepdims=keepdims))
    if not isinstance(ord, str) and ord in (1, -1, _jnp.inf, -_jnp.inf):
        sum_axis, red_axis = (r, c) if ord in (1, -1) else (c, r)
        s = _jnp.sum(a, axis=sum_axis, keepdims=True)
        red = _jnp.max if ord in (1, _jnp.inf) else _jnp.min
        out = red(s, axis=red_axis, keepdims=True)
        return out if keepdims else _jnp.squeeze(out, axis=ax)
    if not isinstance(ord, str) and ord in (2, -2) or ord == "nuc":
        y = _jnp.moveaxis(x, (r, c), (-2, -1))
        s = svd(y, compute_uv=False)
        out = _jnp.sum(s, axis=-1) if ord == "nuc" else \
            (_jnp.max(s, axis=-1) if ord == 2 else _jnp.min(s, axis=-1))
        if keepdims:
            out = _jnp.expand_dims(out, tuple(sorted(ax)))
        return out
    raise ValueError(f"[norm] invalid order {ord!r} for a matrix norm")


# ---- Products ---------------------------------------------------------------------------------

def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """Sum of x1 * x2 over axis, the other axes broadcast."""
    x1, x2 = _jnp.asarray(x1), _jnp.asarray(x2)
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(f"[vecdot] x1 and x2 must have the same size along axis {axis}, got "
                         f"shapes {tuple(x1.shape)} and {tuple(x2.shape)}")
    out = _jnp.sum(x1 * x2, axis=axis)
    return out if preferred_element_type is None else out.astype(preferred_element_type)


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """x1 @ x2."""
    return _jnp.matmul(x1, x2, precision=precision,
                       preferred_element_type=preferred_element_type)


def outer(x1, x2, /):
    """The outer product of two vectors."""
    x1, x2 = _jnp.asarray(x1), _jnp.asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"[outer] expects 1-d operands, got shapes {x1.shape} and {x2.shape}")
    return x1[:, None] * x2[None, :]


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None):
    """jnp.tensordot."""
    return _jnp.tensordot(x1, x2, axes=axes, precision=precision,
                          preferred_element_type=preferred_element_type)


def trace(x, /, *, offset=0, dtype=None):
    """Trace over the last two axes."""
    return _jnp.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def diagonal(x, /, *, offset=0):
    """Diagonals of the last two axes."""
    return _jnp.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def matrix_transpose(x, /):
    """x with its last two axes swapped."""
    x = _jnp.asarray(x)
    if x.ndim < 2:
        raise ValueError(f"[matrix_transpose] expects at least two dimensions, got shape "
                         f"{tuple(x.shape)}")
    return _jnp.swapaxes(x, -1, -2)


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-vectors along axis (the array API's: size 2 is refused)."""
    x1, x2 = _jnp.asarray(x1), _jnp.asarray(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(f"[cross] both inputs must be (arrays of) 3-vectors along axis {axis}, "
                         f"got shapes {tuple(x1.shape)} and {tuple(x2.shape)}")
    return _jnp.cross(x1, x2, axis=axis)


def _chain_order(dims):
    """The split table of the cheapest parenthesization of a chain of matrices whose shapes are
    dims[i] x dims[i+1] (the classic dynamic programme, as numpy's multi_dot)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def multi_dot(arrays, *, precision=None):
    """The product of a chain of matrices in the order of fewest multiplications; the first
    and last may be vectors (treated as row and column vectors, their axis dropped)."""
    arrs = [_jnp.asarray(a) for a in arrays]
    if len(arrs) < 2:
        raise ValueError(f"[multi_dot] needs at least two arrays, got {len(arrs)}")
    first_vec, last_vec = arrs[0].ndim == 1, arrs[-1].ndim == 1
    if first_vec:
        arrs[0] = arrs[0][None, :]
    if last_vec:
        arrs[-1] = arrs[-1][:, None]
    for i, a in enumerate(arrs):
        if a.ndim != 2:
            raise ValueError(f"[multi_dot] argument {i} must be 2-d (the first and last may be "
                             f"1-d), got shape {tuple(a.shape)}")
    for i in range(len(arrs) - 1):
        if arrs[i].shape[1] != arrs[i + 1].shape[0]:
            raise ValueError(f"[multi_dot] shapes {tuple(arrs[i].shape)} and "
                             f"{tuple(arrs[i + 1].shape)} of arguments {i} and {i + 1} do not "
                             "chain")
    split = _chain_order([arrs[0].shape[0]] + [a.shape[1] for a in arrs])

    def product(i, j):
        if i == j:
            return arrs[i]
        k = split[i][j]
        return _jnp.matmul(product(i, k), product(k + 1, j), precision=precision)
    out = product(0, len(arrs) - 1)
    if first_vec:
        out = out[0]
    if last_vec:
        out = out[..., 0]
    return out


def matrix_power(a, n):
    """a raised to the integer power n by repeated squaring (negative n: of inv(a); 0: the
    identity)."""
    a, = _promote(a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise TypeError(f"[matrix_power] expects square matrices in the last two axes, got "
                        f"shape {tuple(a.shape)} ({a.dtype})")
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError(f"[matrix_power] exponent must be an integer, got {n!r}") from e
    if n == 0:
        return _jnp.broadcast_to(_jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    if n < 0:
        a, n = inv(a), -n
    result = None
    base = a
    while True:
        if n & 1:
            result = base if result is None else _jnp.matmul(result, base)
        n >>= 1
        if not n:
            return result
        base = _jnp.matmul(base, base)


# ---- Decompositions ---------------------------------------------------------------------------

def cholesky(a, *, upper=False, symmetrize_input=True):
    """The Cholesky factor of a symmetric positive-definite a: lower L with a = L @ L.T, or
    upper U = L.T; NaN where a is not positive definite (as JAX)."""
    a, = _promote(a)
    _square("cholesky", a)
    L = _prims("cholesky").cholesky(a, symmetrize_input=symmetrize_input)
    return _mT(L) if upper else L


def qr(a, mode="reduced"):
    """QRResult(Q, R) of a ('reduced': Q is m x k, 'complete': m x m, k = min(m, n)); 'r': R
    alone (k x n)."""
    a, = _promote(a)
    _matrix("qr", a)
    if mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(f"[qr] unsupported QR decomposition mode '{mode}'")
    if mode == "raw":
        raise NotImplementedError("[qr] mode='raw' (Householder reflectors) is not provided")
    q, r = _prims("qr").qr(a, full_matrices=(mode == "complete"))
    return r if mode == "r" else QRResult(q, r)


def eigh(a, UPLO=None, symmetrize_input=True):
    """EighResult(eigenvalues, eigenvectors) of a symmetric a, eigenvalues ascending; UPLO
    ('L' default, or 'U') names the triangle used when symmetrize_input is False."""
    a, = _promote(a)
    _square("eigh", a)
    if UPLO is None or UPLO == "L":
        lower = True
    elif UPLO == "U":
        lower = False
    else:
        raise ValueError(f"[eigh] UPLO must be one of None, 'L', or 'U', got {UPLO!r}")
    v, w = _prims("eigh").eigh(a, lower=lower, symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigvalsh(a, UPLO="L", *, symmetrize_input=True):
    """The eigenvalues of a symmetric a, ascending."""
    return eigh(a, UPLO=UPLO, symmetrize_input=symmetrize_input).eigenvalues


def svd(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None):
    """SVDResult(U, S, Vh) with a = U @ diag(S) @ Vh, S descending (full_matrices: U and Vh
    square; else k = min(m, n) columns); S alone when compute_uv is False. hermitian: from
    eigh of the symmetric a."""
    a, = _promote(a)
    _matrix("svd", a)
    if hermitian:
        if subset_by_index is not None:
            raise NotImplementedError("[svd] subset_by_index with hermitian=True is not "
                                      "supported")
        _square("svd", a)
        w, v = eigh(a)
        s = _jnp.abs(w)
        order = _jnp.flip(_jnp.argsort(s, axis=-1), axis=-1)
        s = _jnp.take_along_axis(s, order, axis=-1)
        if not compute_uv:
            return s
        sign = _jnp.take_along_axis(_jnp.sign(w), order, axis=-1)
        u = _jnp.take_along_axis(v, _jnp.broadcast_to(order[..., None, :], v.shape), axis=-1)
        return SVDResult(u, s, _mT(u * sign[..., None, :]))
    p = _prims("svd")
    # subset_by_index goes to the primitive only when given (the primitive decides).
    extra = {} if subset_by_index is None else {"subset_by_index": subset_by_index}
    if not compute_uv:
        return p.svd(a, full_matrices=full_matrices, compute_uv=False, **extra)
    u, s, vh = p.svd(a, full_matrices=full_matrices, compute_uv=True, **extra)
    return SVDResult(u, s, vh)


def svdvals(x, /):
    """The singular values of x, descending."""
    return svd(x, compute_uv=False)


def eig(a):
    """EigResult(eigenvalues, eigenvectors) of a general square a: complex64 for 32-bit input,
    complex128 for 64-bit (as JAX, even where the eigenvalues are real); eigenvectors in the
    columns, of unit norm. Differentiable only through eigvals (as JAX)."""
    a, = _promote(a)
    _square("eig", a)
    w, v = _prims("eig").eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


def eigvals(a):
    """The (complex) eigenvalues of a general square a, differentiable."""
    a, = _promote(a)
    _square("eigvals", a)
    return _prims("eigvals").eig(a, compute_left_eigenvectors=False,
                                 compute_right_eigenvectors=False)[0]


# ---- Solvers on the LU factorization ---------------------------------------------------------

def _batch_shape(name, *shapes):
    try:
        return tuple(_np.broadcast_shapes(*shapes))
    except ValueError as e:
        raise ValueError(f"[{name}] batch shapes {' and '.join(map(str, shapes))} do not "
                         "broadcast") from e


def _permute_rows(x, perm):
    """x[..., perm, :] for (..., n, k) x and a batch of permutations perm (..., n) of x's
    batch shape: one row gather from x's rows stacked as a matrix (take_along_axis with a
    full-size index array was 50x slower: 3.6 ms against 0.07 ms on 512 x 512 f64)."""
    n, k = x.shape[-2:]
    if x.ndim == 2:
        return x[perm]
    batch = math.prod(x.shape[:-2])
    rows = perm.reshape((batch, n)) + (_jnp.arange(batch, dtype=perm.dtype) * n)[:, None]
    return x.reshape((batch * n, k))[rows.reshape((batch * n,))].reshape(x.shape)


def _lu_solve(lu, perm, b, trans=0):
    """The solution of op(a) x = b for a = P^T L U factored as lu (L unit lower, U upper in one
    matrix) with row permutation perm (a[perm] = L U); op is transposition for trans 1 and 2.
    b is (..., n, k) with lu's batch shape."""
    p = _prims("lu_solve")
    if trans == 0:
        x = _permute_rows(b, perm)
        x = p.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
        return p.triangular_solve(lu, x, left_side=True, lower=False)
    x = p.triangular_solve(lu, b, left_side=True, lower=False, transpose_a=True)
    x = p.triangular_solve(lu, x, left_side=True, lower=True, transpose_a=True,
                           unit_diagonal=True)
    return _permute_rows(x, _jnp.argsort(perm, axis=-1))


def _factored_solve(factor, solve_with, solve_transposed):
    """A differentiable solve(a, b) for (..., n, n) a and (..., n, k) b of one batch shape,
    whose factorization factor(a) is computed once and reused by the derivative: the
    cotangent g of x = a^-1 b gives l = a^-T g for b and -l x^T for a (forward mode
    transposes that rule). JAX's custom_linear_solve gives the same derivatives."""
    @_custom_vjp
    def solve_(a, b):
        return solve_with(factor(a), b)

    def fwd(a, b):
        f = factor(a)
        x = solve_with(f, b)
        return x, (f, x)

    def bwd(res, g):
        f, x = res
        lam = solve_transposed(f, g)
        return -_jnp.matmul(lam, _mT(x)), lam
    solve_.defvjp(fwd, bwd)
    return solve_


def _lu_factor(a):
    lu, _, perm = _prims("solve").lu(a)
    return lu, perm


_solve_lu = _factored_solve(_lu_factor, lambda f, b: _lu_solve(f[0], f[1], b),
                            lambda f, b: _lu_solve(f[0], f[1], b, trans=1))


def _broadcast_solve(name, solver, a, b):
    """solver(a, b) with numpy's broadcasting for solve: b is a vector when 1-d, else a
    (batch of) matrices; batch axes broadcast."""
    a, b = _promote(a, b)
    _square(name, a)
    n = a.shape[-1]
    vec = b.ndim == 1
    if vec:
        b = b[:, None]
    if b.ndim < 2 or b.shape[-2] != n:
        raise ValueError(f"[{name}] a of shape {tuple(a.shape)} and b of shape "
                         f"{tuple(b.shape[:-1] if vec else b.shape)} ({a.dtype}) do not match: "
                         f"b needs {n} rows")
    batch = _batch_shape(name, a.shape[:-2], b.shape[:-2])
    if not n:  # an empty system has the empty solution (no factorization of 0 x 0)
        x = _jnp.zeros(batch + b.shape[-2:], a.dtype)
    elif a.ndim == 2 and b.ndim > 2:
        # One matrix, a batch of right-hand sides: one factorization, the batch as columns.
        k = b.shape[-1]
        cols = _jnp.moveaxis(b, -2, 0).reshape((n, -1))
        x = _jnp.moveaxis(solver(a, cols).reshape((n,) + tuple(b.shape[:-2]) + (k,)), 0, -2)
    else:
        x = solver(_jnp.broadcast_to(a, batch + a.shape[-2:]),
                   _jnp.broadcast_to(b, batch + b.shape[-2:]))
    return x[..., 0] if vec else x


def solve(a, b):
    """The solution x of a @ x = b for square a: b is (..., n) when 1-d, else (..., n, k);
    batch axes broadcast. Singular a gives inf/nan (as JAX). Via LU with partial pivoting; the
    gradient reuses the factorization."""
    return _broadcast_solve("solve", _solve_lu, a, b)


def inv(a):
    """The inverse of square a (a batch of them), by solving a @ x = I."""
    a, = _promote(a)
    _square("inv", a)
    return solve(a, _jnp.broadcast_to(_jnp.eye(a.shape[-1], dtype=a.dtype), a.shape))


def _pivots_sign_and_diag(lu, pivots):
    n = lu.shape[-1]
    parity = _jnp.count_nonzero(pivots != _jnp.arange(n, dtype=pivots.dtype), axis=-1)
    sign = _jnp.where(parity % 2 == 1, -1, 1).astype(lu.dtype)
    # The diagonal as a masked sum: compiled code has no gather of complex values.
    eye = _jnp.eye(n, dtype=bool)
    return sign, _jnp.sum(_jnp.where(eye, lu, _jnp.zeros_like(lu)), axis=-1)


# The small elementwise steps around a factorization run as one compiled call each (eager
# op-by-op they cost more than a batch of 32 x 32 factorizations).
_pivots_sign_and_diag = _jit(_pivots_sign_and_diag)


def _lu_sign_and_diag(a):
    """(lu, the sign of the permutation, the diagonal of U, the permutation) for square a."""
    lu, pivots, perm = _prims("det").lu(a)
    sign, d = _pivots_sign_and_diag(lu, pivots)
    return lu, sign, d, perm


@_jit
def _sign_and_log(sign, d):
    """(sign, log|det|) of a factorization with the sign of its orthogonal or permutation
    factor `sign` and the diagonal d of its triangular factor; (0, -inf) for singular."""
    zero = _jnp.any(d == 0, axis=-1)
    sign = sign * _jnp.prod(_jnp.sign(d), axis=-1)
    logdet = _jnp.sum(_jnp.log(_jnp.abs(d)), axis=-1)
    return (_jnp.where(zero, _jnp.zeros_like(sign), sign),
            _jnp.where(zero, _jnp.full_like(logdet, -_jnp.inf), logdet))


def _slogdet_lu(a):
    """(sign, log|det a|, x -> a^-1 x) from a's LU factorization."""
    lu, sign, d, perm = _lu_sign_and_diag(a)
    return _sign_and_log(sign, d) + (lambda x: _lu_solve(lu, perm, x),)


def _slogdet_qr(a):
    """(sign, log|det a|, x -> a^-1 x) from a's QR factorization."""
    p = _prims("slogdet")
    q, r = p.qr(a, full_matrices=True)
    sign_q = _sign_and_log(*_lu_sign_and_diag(_lax.stop_gradient(q))[1:3])[0]  # det(q) = +-1
    out = _sign_and_log(sign_q, _jnp.diagonal(r, axis1=-2, axis2=-1))
    return out + (lambda x: p.triangular_solve(r, _jnp.matmul(_jnp.conj(_mT(q)), x),
                                               left_side=True, lower=False),)


def _slogdet_rule(method):
    def value(a):
        if a.shape[-1] == 0:
            return (_jnp.ones(a.shape[:-2], a.dtype),
                    _jnp.real(_jnp.zeros(a.shape[:-2], a.dtype)))
        return method(a)[:2]

    @_custom_jvp
    def slogdet_(a):
        return value(a)

    @slogdet_.defjvp
    def slogdet_jvp(primals, tangents):
        a, = primals
        da, = tangents
        if a.shape[-1] == 0:
            out = value(a)
            return out, (_jnp.zeros_like(out[0]), _jnp.zeros_like(out[1]))
        # y = trace(a^-1 da) with the factors of the value: d log|det a| = real(y); a real
        # sign is piecewise constant, a complex one turns by i imag(y) (JAX's rule).
        sign, logdet, inv_apply = method(a)
        x = inv_apply(da)
        # The trace as a masked sum (its transpose is a select, not a complex scatter).
        eye = _jnp.eye(x.shape[-1], dtype=bool)
        y = _jnp.sum(_jnp.where(eye, x, _jnp.zeros_like(x)), axis=(-2, -1))
        if _jnp.iscomplexobj(y):
            return (sign, logdet), (sign * (1j * _jnp.imag(y)).astype(sign.dtype), _jnp.real(y))
        return (sign, logdet), (_jnp.zeros_like(sign), y)
    return slogdet_


_slogdet_by_lu = _slogdet_rule(_slogdet_lu)
_slogdet_methods = {None: _slogdet_by_lu, "lu": _slogdet_by_lu, "qr": _slogdet_rule(_slogdet_qr)}


def slogdet(a, *, method=None):
    """SlogdetResult(sign, logabsdet) of square a: det(a) = sign * exp(logabsdet); sign 0 and
    logabsdet -inf for singular a. method: 'lu' (default) or 'qr'."""
    a, = _promote(a)
    _square("slogdet", a)
    if method not in _slogdet_methods:
        raise ValueError(f"[slogdet] unrecognized method {method!r}: use 'lu' or 'qr'")
    return SlogdetResult(*_slogdet_methods[method](a))


def _cofactor_solve(a, b):
    """(det(a), det(a) * solve(a, b)) for square a and b of its shape, defined for every a:
    adj(a) @ b, which is not zero for a of rank n - 1 and zero below. With a = P^T L U and
    w = L^-1 P b, det(a) U^-1 w is the solution y of U y = det(a) w; its last row reads
    u_nn y_n = det(a) w_n, i.e. y_n = d w_n with d the product of the other pivots (sign
    included). Replacing u_nn by 1 / d and w's other rows by det(a) w gives a system that is
    regular whenever the other pivots are nonzero (rank >= n - 1); otherwise adj(a) = 0."""
    n = a.shape[-1]
    lu, sign, diag, perm = _lu_sign_and_diag(a)
    partial = sign * _jnp.prod(diag[..., :-1], axis=-1)
    det_a = partial * diag[..., -1]
    # Rank below n - 1: another pivot is zero and adj(a) = 0. Those systems are replaced by
    # the identity, so that no inf enters the solves (nor their transposes under grad).
    low_rank = ~_jnp.isfinite(1 / partial)
    last = _jnp.arange(n) == n - 1
    corner = last[:, None] & last[None, :]
    safe = _jnp.where(low_rank, _jnp.ones_like(partial), partial)
    lu_c = _jnp.where(corner, (1 / safe)[..., None, None], lu)
    lu_c = _jnp.where(low_rank[..., None, None], _jnp.eye(n, dtype=a.dtype), lu_c)
    p = _prims("det")
    w = p.triangular_solve(lu_c, _permute_rows(b, perm), left_side=True, lower=True,
                           unit_diagonal=True)
    w = _jnp.where(last[:, None], w, det_a[..., None, None] * w)
    y = p.triangular_solve(lu_c, w, left_side=True, lower=False)
    return det_a, _jnp.where(low_rank[..., None, None], _jnp.zeros_like(y), y)


def _det_value(a):
    if a.shape[-1] == 0:
        return _jnp.ones(a.shape[:-2], a.dtype)
    _, sign, d, _ = _lu_sign_and_diag(a)
    return sign * _jnp.prod(d, axis=-1)


@_custom_jvp
def _det(a):
    return _det_value(a)


@_det.defjvp
def _det_jvp(primals, tangents):
    a, = primals
    da, = tangents
    if a.shape[-1] == 0:
        return _det_value(a), _jnp.zeros(a.shape[:-2], a.dtype)
    # d det(a) = trace(adj(a) da), well defined for singular a.
    y, z = _cofactor_solve(a, da)
    return y, _jnp.trace(z, axis1=-2, axis2=-1)


def _det_small(a):
    """The determinant of 2 x 2 and 3 x 3 matrices by cofactor expansion (as JAX: exact
    products, no factorization; differentiated as the polynomial it is)."""
    e = lambda i, j: a[..., i, j]  # noqa: E731
    if a.shape[-1] == 2:
        return e(0, 0) * e(1, 1) - e(0, 1) * e(1, 0)
    return (e(0, 0) * (e(1, 1) * e(2, 2) - e(1, 2) * e(2, 1))
            - e(0, 1) * (e(1, 0) * e(2, 2) - e(1, 2) * e(2, 0))
            + e(0, 2) * (e(1, 0) * e(2, 1) - e(1, 1) * e(2, 0)))


def det(a):
    """The determinant of square a (a batch of them): by cofactor expansion for 2 x 2 and
    3 x 3, else from the LU factorization; 1 for 0 x 0. Its derivative trace(adj(a) da) holds
    for singular a too."""
    a, = _promote(a)
    _square("det", a)
    if a.shape[-1] in (2, 3):
        return _det_small(a)
    return _det(a)


# ---- On the SVD -------------------------------------------------------------------------------

def _pinv_value(a, rtol, hermitian):
    if hermitian:
        # Symmetric a: |eigenvalues| are the singular values, eigenvectors both bases.
        w, v = eigh(a)
        cutoff = rtol[..., None] * _jnp.max(_jnp.abs(w), axis=-1, keepdims=True)
        keep = _jnp.abs(w) > cutoff
        w_inv = _jnp.where(keep, 1 / _jnp.where(keep, w, 1), 0).astype(a.dtype)
        return _jnp.matmul(v * w_inv[..., None, :], _mH(v))
    u, s, vh = svd(a, full_matrices=False)
    cutoff = rtol[..., None] * _jnp.max(s, axis=-1, keepdims=True)
    s_inv = _jnp.where(s > cutoff, 1 / _jnp.where(s > cutoff, s, 1), 0).astype(a.dtype)
    return _jnp.matmul(_mH(vh) * s_inv[..., None, :], _mH(u))


def _pinv_rule(hermitian):
    @_custom_jvp
    def pinv_(a, rtol):
        return _pinv_value(a, rtol, hermitian)

    @pinv_.defjvp
    def pinv_jvp(primals, tangents):
        # Golub and Pereyra's derivative of the pseudo-inverse (exact where the rank is
        # constant); the symmetric case reads the symmetrized a, so its tangent is too.
        a, rtol = primals
        da, _ = tangents
        p = _pinv_value(a, rtol, hermitian)
        if hermitian:
            a, da = (a + _mH(a)) / 2, (da + _mH(da)) / 2
        m, n = a.shape[-2:]
        mm = _jnp.matmul
        left = mm(mm(p, _mH(p)), _mH(da))   # n x m
        right = mm(mm(_mH(da), _mH(p)), p)  # n x m
        dp = (-mm(mm(p, da), p) + left - mm(mm(left, a), p) + right - mm(mm(p, a), right))
        return p, dp
    return pinv_


_pinv = {False: _pinv_rule(False), True: _pinv_rule(True)}


def pinv(a, rtol=None, hermitian=False, *, rcond=None):
    """The Moore-Penrose pseudo-inverse of a (..., m, n), from its SVD (hermitian: from eigh
    of the symmetric a): singular values at or below rtol * the largest count as zero
    (default rtol: 10 * max(m, n) * eps, as JAX; rcond is numpy's older name for rtol).
    Differentiable where the rank is constant."""
    a, = _promote(a)
    _matrix("pinv", a)
    if rcond is not None:
        if rtol is not None:
            raise ValueError("[pinv] pass rtol or rcond, not both")
        rtol = rcond
    if rtol is None:
        rtol = 10.0 * max(a.shape[-2:]) * _jnp.finfo(a.dtype).eps
    rtol = _jnp.broadcast_to(_jnp.asarray(rtol, _jnp.finfo(a.dtype).dtype), a.shape[:-2])
    if hermitian:
        _square("pinv", a)
    if 0 in a.shape[-2:]:
        return _jnp.zeros(a.shape[:-2] + (a.shape[-1], a.shape[-2]), a.dtype)
    return _pinv[bool(hermitian)](a, _lax.stop_gradient(rtol))


def lstsq(a, b, rcond=None, *, numpy_resid=False):
    """The least-squares solution x of a @ x = b (a: m x n; b: m or m x k) from a's SVD:
    (x, residuals, rank, s). Singular values below rcond * the largest are dropped (default
    eps * max(m, n), numpy's). residuals: the squared norms of b - a @ x per column, always
    (numpy_resid=True: empty where numpy gives them empty: rank < n or m <= n)."""
    a, b = _promote(a, b)
    if a.ndim != 2:
        raise TypeError(f"[lstsq] a must be two-dimensional, got shape {tuple(a.shape)}")
    if b.ndim not in (1, 2):
        raise TypeError(f"[lstsq] b must be one- or two-dimensional, got shape "
                        f"{tuple(b.shape)}")
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"[lstsq] leading dimensions of a {tuple(a.shape)} and b "
                         f"{tuple(b.shape)} must match")
    vec = b.ndim == 1
    if vec:
        b = b[:, None]
    m, n = a.shape
    if a.size == 0:
        s = _jnp.zeros((0,), _jnp.finfo(a.dtype).dtype)
        rank = _jnp.asarray(0, _jnp.int32)
        x = _jnp.zeros((n, b.shape[1]), a.dtype)
    else:
        if rcond is None:
            rcond = float(_jnp.finfo(a.dtype).eps) * max(m, n)
        elif rcond < 0:
            rcond = float(_jnp.finfo(a.dtype).eps)
        u, s, vh = svd(a, full_matrices=False)
        keep = s >= _jnp.asarray(rcond, s.dtype) * s[0]
        rank = _jnp.sum(keep).astype(_jnp.int32)
        s_inv = _jnp.where(keep, 1 / _jnp.where(keep, s, 1), 0).astype(a.dtype)
        x = _jnp.matmul(_mH(vh), s_inv[:, None] * _jnp.matmul(_mH(u), b))
    if numpy_resid and (m <= n or int(rank) < n):
        resid = _jnp.zeros((0,), _jnp.finfo(a.dtype).dtype)
    else:
        r = b - _jnp.matmul(a, x)
        resid = _jnp.sum(_jnp.real(r * _jnp.conj(r)), axis=0)
    if vec:
        x = x[:, 0]
        if resid.shape[0]:
            resid = resid.reshape((1,))
    return x, resid, rank, s


def matrix_rank(M, rtol=None, *, tol=None):
    """The number of singular values of M above the threshold: rtol * the largest (default
    rtol: max(m, n) * eps), or the absolute tol when given (numpy's); 1-d M: 1 unless zero."""
    M, = _promote(M)
    if M.ndim < 2:
        return _jnp.any(M != 0).astype(_jnp.int32)
    if 0 in M.shape[-2:]:
        return _jnp.zeros(M.shape[:-2], _jnp.int32)
    s = svd(M, compute_uv=False)
    smax = _jnp.max(s, axis=-1)
    if tol is not None:
        if rtol is not None:
            raise ValueError("[matrix_rank] pass rtol or tol, not both")
        thresh = _jnp.asarray(tol, s.dtype)
    else:
        if rtol is None:
            rtol = max(M.shape[-2:]) * _jnp.finfo(s.dtype).eps
        thresh = _jnp.asarray(rtol, s.dtype) * smax
    return _jnp.sum(s > thresh[..., None], axis=-1).astype(_jnp.int32)


def cond(x, p=None):
    """The condition number of x in the p-norm (None or 2: largest / smallest singular value;
    -2: the inverse; 'fro', 'nuc', 1, -1, inf, -inf: norm(x) * norm(inv(x)) for square x).
    Singular x gives inf."""
    x, = _promote(x)
    _matrix("cond", x)
    if p is None or (not isinstance(p, str) and p in (2, -2)):
        s = svd(x, compute_uv=False)
        r = s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
    else:
        _square("cond", x)
        r = norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))
    # A singular x gives nan from inv's inf: cond is inf there unless x itself had a nan.
    return _jnp.where(_jnp.isnan(r) & ~_jnp.any(_jnp.isnan(x), axis=(-2, -1)), _jnp.inf, r)


# ---- Tensor forms -----------------------------------------------------------------------------

def tensorinv(a, ind=2):
    """The inverse of a as a linear map from its last a.ndim - ind axes to its first ind:
    shape a.shape[ind:] + a.shape[:ind]."""
    a = _jnp.asarray(a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"[tensorinv] ind must be a positive integer, got {ind}")
    out_shape, in_shape = tuple(a.shape[:ind]), tuple(a.shape[ind:])
    rows, cols = math.prod(out_shape), math.prod(in_shape)
    if rows != cols:
        raise ValueError(f"[tensorinv] the product of the first {ind} dimensions of shape "
                         f"{tuple(a.shape)} ({rows}) must equal that of the others ({cols})")
    return inv(a.reshape((rows, cols))).reshape(in_shape + out_shape)


def tensorsolve(a, b, axes=None):
    """The x with tensordot(a, x, x.ndim) == b: x has shape a.shape[b.ndim:] (after moving
    `axes` of a to the end)."""
    a, b = _jnp.asarray(a), _jnp.asarray(b)
    if axes is not None:
        axes = (axes,) if isinstance(axes, int) else tuple(axes)
        a = _jnp.moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim)))
    out_shape = tuple(a.shape[b.ndim:])
    if tuple(a.shape[:b.ndim]) != tuple(b.shape):
        raise ValueError(f"[tensorsolve] b of shape {tuple(b.shape)} must match the leading "
                         f"dimensions of a, shape {tuple(a.shape)}")
    rows, cols = math.prod(b.shape), math.prod(out_shape)
    if rows != cols:
        raise ValueError(f"[tensorsolve] a of shape {tuple(a.shape)} is not square as a map "
                         f"from {out_shape} to {tuple(b.shape)}")
    return solve(a.reshape((rows, cols)), b.reshape((rows,))).reshape(out_shape)
