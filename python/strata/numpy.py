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
            return cls is other or _builtins.bool(cls.dtype == other)
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
complex64, complex128 = (_scalar_type(n, n) for n in ("complex64", "complex128"))
csingle, cdouble, complex_ = complex64, complex128, complex128
# numpy's aliases, as JAX has them (64-bit ones canonicalized like float64 when x64 is off).
bool = bool_  # noqa: A001  (jnp.bool; the module uses _builtins.bool)
single, double, float_ = float32, float64, float64
int_, uint = int64, uint64
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


def dot(a, b, *, precision=None, preferred_element_type=None):
    """numpy's dot: a matmul for 1-d and 2-d operands, a product with a scalar, else the sum
    over a's last axis and b's second to last."""
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        r = multiply(a, b)  # noqa: F405
    elif b.ndim <= 2:
        r = matmul(a, b)  # noqa: F405
    else:
        r = tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 2]))
    return r if preferred_element_type is None else r.astype(preferred_element_type)


def true_divide(x1, x2):
    """x1 / x2 (divide)."""
    return divide(x1, x2)  # noqa: F405


# The rest of jax.numpy, in Python over the bindings (these override the bindings' narrower
# signatures of the same names).
from strata._numpy_reductions import *  # noqa: E402,F401,F403
from strata._numpy_shape import *  # noqa: E402,F401,F403
from strata._numpy_sort import *  # noqa: E402,F401,F403
from strata._numpy_math import *  # noqa: E402,F401,F403

# Array API spellings of numpy names (the inverse trigonometric ones appear with their
# bindings).
for _alias, _name in (("acos", "arccos"), ("asin", "arcsin"), ("atan", "arctan"),
                      ("acosh", "arccosh"), ("asinh", "arcsinh"), ("atanh", "arctanh"),
                      ("atan2", "arctan2"), ("pow", "power")):
    if _name in globals() and _alias not in globals():
        globals()[_alias] = globals()[_name]
del _alias, _name


def _ufuncs():
    """The binary bindings as jnp.ufunc objects (as in JAX: jnp.add.reduce, jnp.add.at ...),
    with the reductions, scans and scatters that implement their methods directly."""
    from strata import _numpy_reductions as r
    from strata._numpy_util import axis_index

    def sum_like(red):  # sum/prod: (a, axis, dtype, out, keepdims, initial, where)
        return lambda a, axis, dtype, out, keepdims, initial, where: red(
            a, axis, dtype, None, keepdims, initial, where)

    def extremum(red):  # max/min: no dtype
        def f(a, axis, dtype, out, keepdims, initial, where):
            x = red(a, axis, None, keepdims, initial, where)
            return x if dtype is None else x.astype(dtype)
        return f

    def logical(red, combine):  # all/any: no dtype, no initial
        def f(a, axis, dtype, out, keepdims, initial, where):
            x = red(a, axis, None, keepdims, where=where)
            return x if initial is None else combine(x, initial)
        return f

    def scan(core):  # lax.cummax/cummin over one axis
        def f(a, axis=0, dtype=None):
            a = asarray(a) if dtype is None else asarray(a).astype(dtype)
            return core(a, axis_index("accumulate", axis, a.ndim))
        return f

    def at(method):  # scatters with numpy's accumulation over repeated indices
        return lambda a, indices, b: getattr(a.at[indices], method)(b)
    table = {
        "add": (0, sum_like(r.sum), r.cumsum, at("add")),
        "multiply": (1, sum_like(r.prod), r.cumprod, at("multiply")),
        "maximum": (None, extremum(r.max), scan(_core.lax.cummax), at("max")),
        "minimum": (None, extremum(r.min), scan(_core.lax.cummin), at("min")),
        "logical_and": (True, logical(r.all, logical_and), None, None),  # noqa: F405
        "logical_or": (False, logical(r.any, logical_or), None, None),  # noqa: F405
        "logical_xor": (False, None, None, None),
        "bitwise_and": (-1, None, None, None),
        "bitwise_or": (0, None, None, None),
        "bitwise_xor": (0, None, None, None),
        "subtract": (None, None, None, None),
        "logaddexp": (-inf, None, None, None),
    }
    g = globals()
    for name, (identity, red, acc, at_) in table.items():
        f = g[name]
        g[name] = ufunc(f, 2, 1, name=name, identity=identity, call=f,  # noqa: F405
                        reduce=red, accumulate=acc, at=at_)


_ufuncs()
del _ufuncs

def i0(x):
    """The modified Bessel function of the first kind of order 0, exp(|x|) * bessel_i0e(x)."""
    x = asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(result_type(x, 1.0))
    return exp(abs(x)) * _core.lax.bessel_i0e(x)  # noqa: F405


def kaiser(M, beta):
    """The Kaiser window of M points with shape parameter beta (numpy.kaiser)."""
    if M <= 0:
        return zeros((0,))  # noqa: F405
    if M == 1:
        return ones((1,))  # noqa: F405
    n = arange(M)
    alpha = (M - 1) / 2.0
    beta = asarray(beta, float)  # the default float type
    return i0(beta * sqrt(1 - ((n - alpha) / alpha) ** 2)) / i0(beta)  # noqa: F405


def bitwise_count(x):
    """The number of 1 bits in the absolute value of each integer (numpy.bitwise_count)."""
    x = asarray(x)
    if x.dtype.kind not in "iu" and x.dtype != bool_:
        raise TypeError(f"[bitwise_count] expects integer or bool input, got {x.dtype}")
    a = abs(x) if x.dtype.kind == "i" else x  # noqa: F405
    return _core.lax.population_count(a.astype(uint8) if x.dtype == bool_ else a).astype(uint8)


# jnp.linalg (see _numpy_linalg.py), importable as strata.numpy.linalg too; polyfit on its
# lstsq.
import sys as _sys  # noqa: E402
from strata import _numpy_linalg as linalg  # noqa: E402
from strata._numpy_polyfit import polyfit  # noqa: E402,F401
from strata._numpy_roots import roots  # noqa: E402,F401
_sys.modules[__name__ + ".linalg"] = linalg

# jnp.fft (fft family): the 18 names of jax.numpy.fft (see _numpy_fft.py); importable as
# strata.numpy.fft too.
from strata import _numpy_fft as fft  # noqa: E402
_sys.modules[__name__ + ".fft"] = fft
