"""strata.numpy.linalg: the jax.numpy.linalg names that need no matrix decomposition (norms,
products, traces). Decompositions and solvers (cholesky, qr, svd, eigh, solve, inv, det, ...)
come with the linear-algebra primitives (docs/jax-differences.md)."""

import strata.numpy as _jnp

__all__ = ["norm", "vector_norm", "matrix_norm", "vecdot", "matmul", "outer", "tensordot",
           "trace", "diagonal", "matrix_transpose", "cross"]

def _inexact(x):
    """x itself when floating, else converted to the float type JAX promotes it to."""
    return x if getattr(x.dtype, "kind", "") == "f" else x.astype(_jnp.result_type(x.dtype, 1.0))


def _axes(axis, ndim):
    return tuple(range(ndim)) if axis is None else \
        tuple(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))

def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The vector ord-norm of x over axis (all of x by default): ord in 0, 1, 2, inf, -inf or
    any other number (sum(|x|**ord)**(1/ord))."""
    x = _inexact(_jnp.asarray(x))
    ax = _axes(axis, x.ndim)
    a = _jnp.abs(x)
    if ord == 2:
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
    """The matrix norm over the last two axes: 'fro', 1, -1, inf, -inf (2, -2 and 'nuc' need
    singular values, which come with the linear-algebra primitives)."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)

def norm(x, ord=None, axis=None, keepdims=False):
    """numpy.linalg.norm: a vector norm for one axis (or a 1-d x), a matrix norm for two."""
    x = _jnp.asarray(x)
    if axis is None:
        if ord is None:
            return vector_norm(x, axis=None, keepdims=keepdims)
        axis = tuple(range(x.ndim))
    ax = _axes(axis, x.ndim)
    if len(ax) == 1:
        return vector_norm(x, axis=ax, keepdims=keepdims, ord=2 if ord is None else ord)
    if len(ax) != 2:
        raise ValueError(f"[norm] axis must name one or two axes, got {axis!r}")
    r, c = ax
    x = _inexact(x)
    a = _jnp.abs(x)
    if ord is None or ord == "fro":
        return _jnp.sqrt(_jnp.sum(x * x, axis=ax, keepdims=keepdims))
    if ord in (1, -1, _jnp.inf, -_jnp.inf):
        sum_axis, red_axis = (r, c) if ord in (1, -1) else (c, r)
        s = _jnp.sum(a, axis=sum_axis, keepdims=True)
        red = _jnp.max if ord in (1, _jnp.inf) else _jnp.min
        out = red(s, axis=red_axis, keepdims=True)
        return out if keepdims else _jnp.squeeze(out, axis=ax)
    raise NotImplementedError(f"[norm] ord={ord!r} for matrices needs singular values, which "
                              "come with the linear-algebra primitives")

def vecdot(x1, x2, /, *, axis=-1):
    """Sum of x1 * x2 over axis (broadcast)."""
    return _jnp.sum(_jnp.asarray(x1) * _jnp.asarray(x2), axis=axis)

def matmul(x1, x2, /):
    """x1 @ x2."""
    return _jnp.matmul(x1, x2)

def outer(x1, x2, /):
    """The outer product of two vectors."""
    x1, x2 = _jnp.asarray(x1), _jnp.asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"[outer] expects 1-d operands, got shapes {x1.shape} and {x2.shape}")
    return x1[:, None] * x2[None, :]

def tensordot(x1, x2, /, *, axes=2):
    """jnp.tensordot."""
    return _jnp.tensordot(x1, x2, axes=axes)

def trace(x, /, *, offset=0, dtype=None):
    """Trace over the last two axes."""
    return _jnp.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)

def diagonal(x, /, *, offset=0):
    """Diagonals of the last two axes."""
    return _jnp.diagonal(x, offset=offset, axis1=-2, axis2=-1)

def matrix_transpose(x, /):
    """x with its last two axes swapped."""
    return _jnp.swapaxes(x, -1, -2)

def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-vectors along axis."""
    return _jnp.cross(x1, x2, axis=axis)

