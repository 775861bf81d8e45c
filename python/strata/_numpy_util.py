"""Helpers shared by the Python halves of strata.numpy (_numpy_*.py): argument checks, axis
normalization and dtype classes, on top of the C++ bindings."""

import numpy as _np

from strata import _core

_c = _core.numpy
_l = _core.lax


def arr(x, dtype=None):
    """x as an Array (Python scalars stay weakly typed)."""
    return _core.asarray(x, dtype) if dtype is not None else _core.asarray(x)


def kind(dt):
    """numpy's kind letter of a dtype ('b', 'i', 'u', 'f', 'c'); bfloat16 is 'f'."""
    return getattr(dt, "kind", "f")


def is_inexact(dt):
    return kind(dt) in "fc"


def is_int(dt):
    return kind(dt) in "iu"


def to_dtype(d):
    """A dtype object from a dtype-like (np.dtype, jnp.float32, 'int8', float, bfloat16)."""
    if d is None:
        return None
    from strata._dtypes import bfloat16
    if d is bfloat16 or (isinstance(d, str) and d == "bfloat16"):
        return bfloat16
    inner = getattr(d, "dtype", None)
    if inner is not None and not isinstance(d, _np.dtype):
        return to_dtype(inner)
    if d is float:
        return _c.zeros((), float).dtype
    if d is int:
        return _c.zeros((), int).dtype
    if d is bool:
        return _np.dtype(bool)
    return _np.dtype(d)


def cast(x, dt):
    return x if dt is None or x.dtype == dt else x.astype(dt)


def check_out(op, out):
    if out is not None:
        raise NotImplementedError(f"[{op}] the 'out' argument is not supported (Arrays are "
                                  f"immutable)")


class AxisError(ValueError, IndexError):
    """An axis out of range: JAX raises ValueError, numpy its AxisError (an IndexError too);
    both catch this one."""


def axis_index(op, axis, ndim):
    """One axis in [0, ndim), or AxisError."""
    if not isinstance(axis, (int, _np.integer)):
        raise TypeError(f"[{op}] axis must be an integer, got {axis!r}")
    a = int(axis)
    if not -ndim <= a < ndim:
        raise AxisError(f"[{op}] axis {a} is out of bounds for array of dimension {ndim}")
    return a % ndim if ndim else 0


def axes(op, axis, ndim):
    """The normalized tuple of axes of a reduction (all of them for None)."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        out = tuple(axis_index(op, a, ndim) for a in axis)
        if len(set(out)) != len(out):
            raise ValueError(f"[{op}] repeated axis in {tuple(axis)}")
        return out
    return (axis_index(op, axis, ndim),)


def lowest(dt):
    """The identity of max over dtype dt: -inf, the smallest integer, or False."""
    k = kind(dt)
    if k == "b":
        return False
    if k in "iu":
        return int(_np.iinfo(dt).min)
    return -_np.inf


def highest(dt):
    k = kind(dt)
    if k == "b":
        return True
    if k in "iu":
        return int(_np.iinfo(dt).max)
    return _np.inf


def float_dtype(x):
    """The inexact dtype a computation on x (mean, quantile, interp ...) runs in: x's own
    when inexact, else the default float (weak promotion of x with a Python float)."""
    return x.dtype if is_inexact(x.dtype) else _c.result_type(x, 1.0)


def to_float(x):
    """x in float_dtype(x); a weakly typed integer (a Python int) stays weak, as in JAX."""
    dt = float_dtype(x)
    if x.dtype == dt:
        return x
    if x.weak_type:
        r = _c.multiply(x, 1.0)
        if r.dtype == dt:
            return r
    return x.astype(dt)


def move_to_end(x, ax):
    """x with the axes ax moved to the end and merged into one."""
    rest = [i for i in range(x.ndim) if i not in ax]
    y = _c.transpose(x, rest + list(ax)) if list(ax) != list(range(x.ndim - len(ax), x.ndim)) \
        else x
    n = 1
    for i in ax:
        n *= x.shape[i]
    return _c.reshape(y, tuple(x.shape[i] for i in rest) + (n,))


def keep_shape(shape, ax):
    """shape with the axes ax set to 1 (keepdims)."""
    return tuple(1 if i in ax else s for i, s in enumerate(shape))


def int_dtype():
    """The default integer dtype (int32, int64 with x64)."""
    return _c.zeros((), int).dtype


def concrete_int(op, v, what):
    """v as a Python int; TypeError (JAX's ConcretizationTypeError is one) if it is traced."""
    if isinstance(v, (int, _np.integer)):
        return int(v)
    a = arr(v)
    if not a.is_concrete:
        raise TypeError(f"[{op}] {what} must be a concrete integer (it fixes an output shape), "
                        f"got a traced {a.type_str()}")
    return int(a)


def rtype(*xs):
    """The promoted dtype of Arrays, Python scalars (weak) and dtypes."""
    return _c.result_type(*[x if isinstance(x, (_core.Array, _np.ndarray, _np.generic, bool, int,
                                                float, complex, list, tuple))
                            else _c.zeros((), x) for x in xs])


def scatter_1d(operand, idx, updates, add=False):
    """operand (1-d) with updates written (or added) at idx; out-of-range indices, negative
    ones included, are dropped (JAX's scatter default)."""
    dn = ((), (0,), (0,))
    i = _c.reshape(idx, (-1, 1))
    u = _c.reshape(updates, (-1,))
    return (_l.scatter_add if add else _l.scatter)(operand, i, u, dn)
