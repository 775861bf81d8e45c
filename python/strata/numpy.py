"""strata.numpy: the jax.numpy subset that matches Strata's ops (include/strata/ops.h), with the
same names and semantics: numpy broadcasting, JAX's promotion lattice, Python scalars weak."""

import builtins as _builtins

import numpy as _np

from strata import _core
from strata._core.numpy import *  # noqa: F401,F403  (the C++ bindings, one per op)
from strata._core import Array as ndarray  # noqa: F401
from strata._core import from_dlpack  # noqa: F401
from strata._dtypes import bfloat16  # noqa: F401

_c = _core.numpy

class _ScalarMeta(type):
    """The metaclass of jnp.float32 and friends (as in JAX): the class stands for its numpy
    dtype wherever a dtype is expected (np.dtype reads its `dtype` attribute, and it compares
    and hashes like that dtype), and calling it converts: jnp.float32(2.5) is a strongly typed
    0-d float32 Array."""

    def __call__(cls, x):
        x = _core.asarray(x, cls.dtype)
        return x.astype(cls.dtype) if x.weak_type else x

    def __eq__(cls, other):
        try:
            return cls is other or bool(cls.dtype == other)
        except TypeError:
            return False

    def __ne__(cls, other):
        return not _ScalarMeta.__eq__(cls, other)

    def __hash__(cls):
        return hash(cls.dtype)

    def __repr__(cls):
        return f"<class 'strata.numpy.{cls.__name__}'>"


def _scalar_type(name, np_name):
    return _ScalarMeta(name, (object,), {"dtype": _np.dtype(np_name),
                                         "__module__": "strata.numpy"})


bool_ = _scalar_type("bool_", "bool")
int8, int16, int32, int64 = (_scalar_type(n, n) for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (_scalar_type(n, n)
                                 for n in ("uint8", "uint16", "uint32", "uint64"))
float16, float32, float64 = (_scalar_type(n, n) for n in ("float16", "float32", "float64"))
dtype = _np.dtype  # jnp.dtype is numpy's, as in JAX
pi, e, inf, nan = _np.pi, _np.e, _np.inf, _np.nan
newaxis = None


def _is_dtype_like(x):
    return isinstance(x, (_np.dtype, _ScalarMeta, str)) or x is bfloat16 or \
        (isinstance(x, type) and issubclass(x, _np.generic))


_PY_SCALAR_TYPES = {bool: False, int: 0, float: 0.0}


def result_type(*args):
    """The promoted dtype of arrays, scalars (weak) and dtypes (JAX's lattice; the Python types
    int and float count as weak, as in JAX)."""
    def operand(x):
        if isinstance(x, type) and x in _PY_SCALAR_TYPES:
            return _PY_SCALAR_TYPES[x]
        return zeros((), x) if _is_dtype_like(x) else x  # noqa: F405
    return _c.result_type(*[operand(x) for x in args])


def asarray(a, dtype=None):
    """An Array from an Array, numpy array (copied; 64-bit data become 32-bit unless
    jax_enable_x64 is on), Python scalar (weakly typed, as in JAX) or list."""
    return _core.asarray(a, dtype)


def array(object, dtype=None, copy=True):
    """As asarray (jnp.array(2.0) is weakly typed too, as in JAX); Arrays are immutable, so a
    copy is never needed."""
    return _core.asarray(object, dtype)


def dot(a, b):
    """numpy's dot: a matmul for 1-d and 2-d operands, a product with a scalar."""
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)  # noqa: F405
    if b.ndim <= 2:
        return matmul(a, b)  # noqa: F405
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 2]))


def tensordot(a, b, axes=2):
    a, b = asarray(a), asarray(b)
    if isinstance(axes, int):
        ax_a, ax_b = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if isinstance(ax_a, int) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, int) else list(ax_b)
    ax_a = [x % a.ndim for x in ax_a]
    ax_b = [x % b.ndim for x in ax_b]
    return _core.lax.dot_general(*_promote(a, b), ((ax_a, ax_b), ((), ())))


def _promote(*xs):
    t = result_type(*xs)
    return [x.astype(t) if x.dtype != t else x for x in xs]


def vdot(a, b):
    return sum(multiply(ravel(a), ravel(b)))  # noqa: F405


def inner(a, b):
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)  # noqa: F405
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1]))


def outer(a, b):
    return multiply(ravel(a)[:, None], ravel(b)[None, :])  # noqa: F405


def size(a):
    return asarray(a).size


def shape(a):
    return asarray(a).shape


def ndim(a):
    return asarray(a).ndim


def true_divide(x1, x2):
    return divide(x1, x2)  # noqa: F405



def isnan(x):
    x = asarray(x)
    return not_equal(x, x)  # noqa: F405


def isinf(x):
    x = asarray(x)
    return logical_and(logical_not(isfinite(x)), logical_not(isnan(x)))  # noqa: F405


def logaddexp(x1, x2):
    m = maximum(x1, x2)  # noqa: F405
    return m + log1p(exp(-abs(subtract(x1, x2))))  # noqa: F405


def allclose(a, b, rtol=1e-05, atol=1e-08):
    a, b = asarray(a), asarray(b)
    return all(less_equal(abs(a - b), atol + rtol * abs(b)))  # noqa: F405


def concat(arrays, axis=0):
    return concatenate(arrays, axis)  # noqa: F405


def hstack(tup):
    arrs = [asarray(a) for a in tup]
    return concatenate(arrs, axis=0 if arrs[0].ndim == 1 else 1)  # noqa: F405


def vstack(tup):
    return concatenate([atleast_2d(a) for a in tup], axis=0)  # noqa: F405


def atleast_1d(x):
    x = asarray(x)
    return x.reshape(1) if x.ndim == 0 else x


def atleast_2d(x):
    x = asarray(x)
    return x.reshape(1, -1) if x.ndim < 2 else x


def arange(start, stop=None, step=1, dtype=None):
    """jnp.arange: int32 when every argument is an integer, else float32 (by Python type, so
    arange(6.0) is float)."""
    if dtype is None and _builtins.any(isinstance(v, float) for v in (start, stop, step)):
        dtype = float  # the default float type (float64 with jax_enable_x64)
    return _c.arange(start, stop, step, dtype)
