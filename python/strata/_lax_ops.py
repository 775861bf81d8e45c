"""strata.lax's Python layer over the C++ primitives (strata._core.lax): JAX's signatures and
keyword names, Python scalars and rank-0 / size-1 broadcasting in the elementwise binary ops
(JAX's broadcasting_shape_rule), TypeError for shape and dtype errors, and the structural
helpers (dot, broadcast, *_in_dim, sort/top_k, reduce, reduce_precision, Precision...)."""

import builtins as _b
import enum as _enum
import math as _math
import operator as _operator
from typing import NamedTuple as _NamedTuple

import numpy as _np

from strata import _core

_L = _core.lax


# ---- Operands, dtypes, errors ----------------------------------------------------------------

def _is_pyscalar(x):
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, _np.generic)


def _arr(x):
    return x if isinstance(x, _core.Array) else _core.asarray(x)


def _kind(dtype):
    return getattr(dtype, "kind", None) or _np.dtype(dtype).kind


def _tstr(x):
    return x.type_str() if isinstance(x, _core.Array) else repr(x)


def _as_type_error(fn, *args):
    """fn(*args), with the core's ValueError for a shape mismatch raised as TypeError (the class
    jax.lax raises); a TypeError passes unchanged."""
    try:
        return fn(*args)
    except TypeError:
        raise
    except ValueError as e:
        raise TypeError(str(e)) from None


def _scalar_like(name, v, other):
    """The Python scalar v as an operand beside the Array `other`: it takes other's dtype when
    its kind fits (an int for an integer or float dtype's ints, a float for a float dtype),
    weakly typed when other is; a kind that does not fit keeps its own weak type (the core then
    reports the dtype mismatch)."""
    k = _kind(other.dtype)
    fits = (isinstance(v, bool) and k == "b") or \
        (isinstance(v, int) and not isinstance(v, bool) and k in "iu") or \
        (isinstance(v, float) and k == "f")
    if not fits:
        return _core.asarray(v)
    if k in "iu":
        info = _np.iinfo(_np.dtype(other.dtype))
        if not info.min <= v <= info.max:
            raise OverflowError(f"[{name}] Python int {v} is out of range for {other.dtype}")
    if other.weak_type:
        a = _core.asarray(v)
        if a.dtype == other.dtype:
            return a
    return _core.asarray(v, other.dtype)


def _broadcast_shape(name, arrays):
    """JAX's broadcasting_shape_rule: rank-0 operands broadcast; the others must share a rank,
    each dimension equal or 1."""
    shapes = [tuple(a.shape) for a in arrays if a.ndim]
    if not shapes:
        return ()
    if len({len(s) for s in shapes}) != 1:
        raise TypeError(f"[{name}] arrays must have the same number of dimensions, got "
                        f"{', '.join(_tstr(a) for a in arrays)}")
    out = []
    for ds in zip(*shapes):
        big = {d for d in ds if d != 1}
        if len(big) > 1:
            raise TypeError(f"[{name}] incompatible shapes for broadcasting: "
                            f"{', '.join(_tstr(a) for a in arrays)}")
        out.append(big.pop() if big else 1)
    return tuple(out)


def _bcast(x, shape):
    if tuple(x.shape) == tuple(shape):
        return x
    dims = () if x.ndim == 0 else tuple(range(x.ndim))
    return _L.broadcast_in_dim(x, tuple(shape), dims)


def _operands(name, *xs):
    """The operands of an n-ary elementwise op: Python scalars typed after the first Array
    among them, then broadcast to the common shape."""
    like = next((x for x in xs if not _is_pyscalar(x)), None)
    if like is not None:
        like = _arr(like)
        arrs = [_scalar_like(name, x, like) if _is_pyscalar(x) else _arr(x) for x in xs]
    else:
        arrs = [_core.asarray(x) for x in xs]
    shape = _broadcast_shape(name, arrs)
    return [_bcast(a, shape) for a in arrs]


def _binary(name, prim, doc):
    def op(x, y):
        a, b = _operands(name, x, y)
        return _as_type_error(prim, a, b)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc + (" Python scalars take the other operand's dtype; rank-0 and size-1 "
                        "operands broadcast (jax.lax's rule).")
    return op


_BINARY_DOCS = {
    "add": "x + y elementwise.", "sub": "x - y elementwise.", "mul": "x * y elementwise.",
    "div": "x / y elementwise (integers round toward zero).",
    "rem": "x mod y elementwise, with the sign of x (C's fmod).",
    "pow": "x ** y elementwise.", "max": "Elementwise maximum (NaN propagates).",
    "min": "Elementwise minimum (NaN propagates).", "atan2": "Elementwise atan2(x, y).",
    "bitwise_and": "Elementwise x & y (logical and on bools).",
    "bitwise_or": "Elementwise x | y (logical or on bools).",
    "bitwise_xor": "Elementwise x ^ y (logical xor on bools).",
    "eq": "x == y elementwise.", "ne": "x != y elementwise.", "lt": "x < y elementwise.",
    "le": "x <= y elementwise.", "gt": "x > y elementwise.", "ge": "x >= y elementwise.",
    "shift_left": "x << y elementwise on integers (shifts past the width give 0).",
    "shift_right_logical": "Zero-filling x >> y elementwise on the bits of integers.",
}
for _name, _doc in _BINARY_DOCS.items():
    globals()[_name] = _binary(_name, getattr(_L, _name), _doc)
del _name, _doc


def shift_right_arithmetic(x, y):
    """Sign-filling x >> y elementwise on integers (shifts past the width give 0 or -1)."""
    a, b = _operands("shift_right_arithmetic", x, y)
    if _kind(a.dtype) not in "iu":
        raise TypeError(f"[shift_right_arithmetic] needs integer operands, got {_tstr(a)}")
    logical = _as_type_error(_L.shift_right_logical, a, b)
    ones = _L.bitwise_not(_L.broadcast_in_dim(_core.asarray(0, a.dtype), tuple(a.shape), ()))
    fill = _L.bitwise_not(_L.shift_right_logical(ones, b))  # the top y bits set
    bits = 8 * _np.dtype(a.dtype).itemsize
    top = _L.shift_left(_L.broadcast_in_dim(_core.asarray(1, a.dtype), tuple(a.shape), ()),
                        _L.broadcast_in_dim(_core.asarray(bits - 1, a.dtype), tuple(a.shape),
                                            ()))
    negative = _L.ne(_L.bitwise_and(a, top), _L.broadcast_in_dim(_core.asarray(0, a.dtype),
                                                                  tuple(a.shape), ()))
    return _L.select(negative, _L.bitwise_or(logical, fill), logical)


# ---- Elementwise unary and selection ---------------------------------------------------------

class RoundingMethod(_enum.IntEnum):
    """How lax.round treats halfway values."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):  # noqa: A001
    """Elementwise rounding to the nearest integer; halfway values away from zero (default) or
    to the nearest even integer."""
    rounding_method = RoundingMethod(rounding_method)
    x = _arr(x)
    if _kind(x.dtype) != "f":
        raise TypeError(f"[round] needs a floating-point operand, got {_tstr(x)}")
    if rounding_method is RoundingMethod.TO_NEAREST_EVEN:
        return _L.round(x)
    a = _L.abs(x)
    r = _L.floor(a)
    half = _L.broadcast_in_dim(_core.asarray(0.5, x.dtype), tuple(x.shape), ())
    one = _L.broadcast_in_dim(_core.asarray(1.0, x.dtype), tuple(x.shape), ())
    r = _L.select(_L.ge(_L.sub(a, r), half), _L.add(r, one), r)
    return _L.select(_L.lt(x, _L.broadcast_in_dim(_core.asarray(0.0, x.dtype),
                                                  tuple(x.shape), ())), _L.neg(r), r)


def square(x):
    """x * x elementwise."""
    x = _arr(x)
    return _L.mul(x, x)


def reciprocal(x):
    """1 / x elementwise."""
    x = _arr(x)
    return _L.div(_bcast(_scalar_like("reciprocal", 1.0 if _kind(x.dtype) == "f" else 1, x),
                         x.shape), x)


def select(pred, on_true, on_false):
    """on_true where pred else on_false; pred is boolean, a scalar or of the cases' shape, and
    the cases agree in shape and dtype."""
    p = _arr(pred)
    if _is_pyscalar(on_true) and not _is_pyscalar(on_false):
        f = _arr(on_false)
        t = _scalar_like("select", on_true, f)
    elif _is_pyscalar(on_false) and not _is_pyscalar(on_true):
        t = _arr(on_true)
        f = _scalar_like("select", on_false, t)
    else:
        t, f = _arr(on_true), _arr(on_false)
    if tuple(t.shape) != tuple(f.shape):
        raise TypeError(f"[select] on_true and on_false must have the same shape, got "
                        f"{_tstr(t)} and {_tstr(f)}")
    if p.ndim == 0 and t.ndim:
        p = _bcast(p, t.shape)
    elif tuple(p.shape) != tuple(t.shape):
        raise TypeError(f"[select] pred must be a scalar or have the cases' shape, got "
                        f"{_tstr(p)} for cases {_tstr(t)}")
    return _as_type_error(_L.select, p, t, f)


def select_n(which, *cases):
    """cases[which] elementwise: which is a boolean (two cases) or int32 array, a scalar or of
    the cases' shape; out-of-range indices are undefined in JAX (here: clamped)."""
    if not cases:
        raise ValueError("[select_n] needs at least one case")
    w = _arr(which)
    cs = [_arr(c) for c in cases]
    for c in cs[1:]:
        if tuple(c.shape) != tuple(cs[0].shape) or c.dtype != cs[0].dtype:
            raise TypeError(f"[select_n] cases must have one shape and dtype, got "
                            f"{', '.join(_tstr(c) for c in cs)}")
    if len(cs) == 1:
        return cs[0]
    if _kind(w.dtype) == "b":
        if len(cs) != 2:
            raise TypeError(f"[select_n] a boolean which selects between 2 cases, got "
                            f"{len(cs)}")
        return select(w, cs[1], cs[0])
    if _kind(w.dtype) not in "iu":
        raise TypeError(f"[select_n] which must be boolean or integer, got {_tstr(w)}")
    out = cs[0]
    for i in range(1, len(cs)):
        out = select(ge(w, _scalar_like("select_n", i, w)), cs[i], out)  # noqa: F821
    return out


def clamp(min, x, max):  # noqa: A002
    """min(max(x, min), max) elementwise; min and max are scalars or of x's shape."""
    x = _arr(x)
    lo = _scalar_like("clamp", min, x) if _is_pyscalar(min) else _arr(min)
    hi = _scalar_like("clamp", max, x) if _is_pyscalar(max) else _arr(max)
    for b in (lo, hi):
        if b.ndim and tuple(b.shape) != tuple(x.shape):
            raise TypeError(f"[clamp] min and max must be scalars or of x's shape, got "
                            f"{_tstr(lo)}, {_tstr(x)}, {_tstr(hi)}")
    return _as_type_error(_L.clamp, lo, x, hi)


def integer_pow(x, y):
    """x ** y elementwise for a Python int y (negative y: the reciprocal, floats only)."""
    return _as_type_error(_L.integer_pow, _arr(x), _operator.index(y))


def convert_element_type(operand, new_dtype):
    """operand converted to new_dtype (strongly typed), elementwise."""
    return _L.convert_element_type(_arr(operand), new_dtype)


def bitcast_convert_type(operand, new_dtype):
    """operand's bits reinterpreted as new_dtype of the same width."""
    return _as_type_error(_L.bitcast_convert_type, _arr(operand), new_dtype)


def optimization_barrier(operand, /):
    """operand (a pytree) unchanged: a scheduling hint in XLA, the identity here."""
    from strata.tree_util import tree_map
    return tree_map(_arr, operand)


# ---- Precision -------------------------------------------------------------------------------

class Precision(_enum.Enum):
    """Matmul precision for TPUs/GPUs: DEFAULT, HIGH or HIGHEST (also their strings and
    'bfloat16', 'tensorfloat32', 'float32'). Strata computes every dot in the operands' type."""
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value):
        names = {"default": cls.DEFAULT, "fastest": cls.DEFAULT, "bfloat16": cls.DEFAULT,
                 "high": cls.HIGH, "bfloat16_3x": cls.HIGH, "tensorfloat32": cls.HIGH,
                 "highest": cls.HIGHEST, "float32": cls.HIGHEST}
        if isinstance(value, str) and value.lower() in names:
            return names[value.lower()]
        return None

    def __str__(self):
        return self.name


class DotAlgorithm(_NamedTuple):
    """An explicit dot algorithm (accepted; Strata computes in the operands' type)."""
    lhs_precision_type: object
    rhs_precision_type: object
    accumulation_type: object
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


class DotAlgorithmPreset(_enum.Enum):
    """Named dot algorithms (accepted; Strata computes in the operands' type)."""
    DEFAULT = _enum.auto()
    ANY_F8_ANY_F8_F32 = _enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = _enum.auto()
    ANY_F8_ANY_F8_ANY = _enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = _enum.auto()
    F16_F16_F16 = _enum.auto()
    F16_F16_F32 = _enum.auto()
    BF16_BF16_BF16 = _enum.auto()
    BF16_BF16_F32 = _enum.auto()
    BF16_BF16_F32_X3 = _enum.auto()
    BF16_BF16_F32_X6 = _enum.auto()
    BF16_BF16_F32_X9 = _enum.auto()
    TF32_TF32_F32 = _enum.auto()
    TF32_TF32_F32_X3 = _enum.auto()
    F32_F32_F32 = _enum.auto()
    F64_F64_F64 = _enum.auto()

    def __str__(self):
        return self.name


def _check_precision(precision):
    """JAX's canonicalize_precision (the values are validated, then unused)."""
    if precision is None or isinstance(precision, (Precision, DotAlgorithm, DotAlgorithmPreset)):
        return
    if isinstance(precision, str):
        if Precision._missing_(precision) is None and precision not in DotAlgorithmPreset.__members__:
            raise ValueError(f"[dot_general] unknown precision {precision!r}")
        return
    if isinstance(precision, (tuple, list)) and len(precision) == 2:
        for p in precision:
            _check_precision(p)
        return
    raise ValueError(f"[dot_general] precision must be None, a Precision, a string, a pair of "
                     f"them or a DotAlgorithm(Preset), got {precision!r}")


def _type_rank(dt):
    """XLA's HigherPrecisionType order: (complex, max exponent, mantissa bits, width, signed)."""
    k = _kind(dt)
    if k == "f":
        fi = (8, 7) if str(dt) == "bfloat16" else (
            {2: (5, 10), 4: (8, 23), 8: (11, 52)}[_np.dtype(dt).itemsize])
        return (False, fi[0], fi[1], 8 * _size(dt), True)
    return (k == "c", -1, -1, 8 * _size(dt) if k != "b" else 1, k not in "ub")


def _size(dt):
    return 2 if str(dt) == "bfloat16" else _np.dtype(dt).itemsize


def _dot_result_dtype(lhs, rhs, preferred):
    lp, rp = _type_rank(lhs.dtype), _type_rank(rhs.dtype)
    if lp == rp and lhs.dtype != rhs.dtype:
        raise TypeError(f"[dot_general] operand dtypes differ: {_tstr(lhs)} and {_tstr(rhs)}")
    dt = lhs.dtype if lp >= rp else rhs.dtype
    if preferred is None:
        return dt
    pk, k = _kind(preferred), _kind(dt)
    ok = (k in "iu" and pk in "iuf") or (k == "f" and pk == "f") or (k == "b" and pk in "biuf")
    if not ok:
        raise TypeError(f"[dot_general] preferred_element_type {preferred} is incompatible with "
                        f"the operands' {dt}: allowed are integral->integral, integral->floating, "
                        f"floating->floating")
    if (k == pk == "f" or (k in "iu" and pk in "iu")) and _size(preferred) < _size(dt):
        raise TypeError(f"[dot_general] preferred_element_type {preferred} must not be narrower "
                        f"than the operands' {dt}")
    return preferred


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None, *,
                out_sharding=None):
    """The general contraction ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch)):
    output dims are batch, lhs free, rhs free. Mixed dtypes compute in the higher-precision one
    (XLA's rule), or in preferred_element_type."""
    _check_precision(precision)
    a, b = _arr(lhs), _arr(rhs)
    pet = None if preferred_element_type is None else \
        _core.numpy.zeros((), preferred_element_type).dtype
    dt = _dot_result_dtype(a, b, pet)
    if a.dtype != dt:
        a = _L.convert_element_type(a, dt)
    if b.dtype != dt:
        b = _L.convert_element_type(b, dt)
    (lc, rc), (lb, rb) = dimension_numbers
    dims = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
    return _as_type_error(_L.dot_general, a, b, dims)


def dot(lhs, rhs, *args, dimension_numbers=None, precision=None, preferred_element_type=None,
        out_sharding=None):
    """Vector/matrix products: lhs's last dimension against rhs's first (rank 1 or 2 each);
    with dimension_numbers, dot_general. The legacy positional precision and
    preferred_element_type are accepted."""
    if args:
        if len(args) > 2:
            raise TypeError(f"[dot] takes at most 4 positional arguments, got {2 + len(args)}")
        precision = args[0]
        if len(args) == 2:
            preferred_element_type = args[1]
    a, b = _arr(lhs), _arr(rhs)
    if dimension_numbers is None:
        if not (1 <= a.ndim <= 2 and 1 <= b.ndim <= 2 and a.shape[-1] == b.shape[0]):
            raise TypeError(f"[dot] incompatible shapes for dot: got {_tstr(a)} and {_tstr(b)}")
        dimension_numbers = (((a.ndim - 1,), (0,)), ((), ()))
    return dot_general(a, b, dimension_numbers, precision, preferred_element_type)


def batch_matmul(lhs, rhs, precision=None):
    """Batched matrix product over matching leading dimensions: [..., m, k] x [..., k, n]."""
    a, b = _arr(lhs), _arr(rhs)
    if a.ndim < 2 or a.ndim != b.ndim or tuple(a.shape[:-2]) != tuple(b.shape[:-2]):
        raise ValueError(f"[batch_matmul] needs operands of one rank >= 2 with matching batch "
                         f"dimensions, got {_tstr(a)} and {_tstr(b)}")
    batch = tuple(range(a.ndim - 2))
    return dot_general(a, b, (((a.ndim - 1,), (b.ndim - 2,)), (batch, batch)), precision)


# ---- Shapes ----------------------------------------------------------------------------------

def _axis(axis, ndim, name):
    axis = _operator.index(axis)
    if not -ndim <= axis < _b.max(ndim, 1) or (ndim == 0 and axis not in (0, -1)):
        raise ValueError(f"[{name}] axis {axis} is out of bounds for rank {ndim}")
    return axis % ndim if ndim else 0


def broadcast_in_dim(operand, shape, broadcast_dimensions, *, out_sharding=None):
    """operand's dimension i placed at output dimension broadcast_dimensions[i] (its size there
    equal or 1), the others broadcast."""
    return _as_type_error(_L.broadcast_in_dim, _arr(operand), tuple(int(d) for d in shape),
                          tuple(int(d) for d in broadcast_dimensions))


def broadcast(operand, sizes, *, out_sharding=None):
    """operand with new leading dimensions of the given sizes."""
    x = _arr(operand)
    sizes = tuple(int(s) for s in sizes)
    return broadcast_in_dim(x, sizes + tuple(x.shape), range(len(sizes), len(sizes) + x.ndim))


def broadcast_to_rank(x, rank):
    """x with leading size-1 dimensions added up to `rank`."""
    x = _arr(x)
    if x.ndim >= rank:
        return x
    return broadcast(x, (1,) * (rank - x.ndim))


def reshape(operand, new_sizes, dimensions=None, *, out_sharding=None):
    """operand (transposed by `dimensions` first when given) in the shape new_sizes."""
    x = _arr(operand)
    new_sizes = tuple(int(s) for s in ((new_sizes,) if isinstance(new_sizes, int) else new_sizes))
    if dimensions is not None:
        dims = tuple(int(d) for d in dimensions)
        if sorted(dims) != list(range(x.ndim)):
            raise ValueError(f"[reshape] dimensions must be a permutation of the operand's "
                             f"{x.ndim} dimensions, got {dims}")
        if dims != tuple(range(x.ndim)):
            x = _L.transpose(x, dims)
    if _math.prod(new_sizes) != _math.prod(x.shape):
        raise TypeError(f"[reshape] cannot reshape {_tstr(x)} ({_math.prod(x.shape)} elements) "
                        f"to {list(new_sizes)}")
    if tuple(x.shape) == new_sizes:
        return x
    return _as_type_error(_L.reshape, x, new_sizes)


def transpose(operand, permutation):
    """operand's dimensions permuted: output dimension i is input dimension permutation[i]."""
    x = _arr(operand)
    perm = tuple(int(p) for p in permutation)
    if sorted(perm) != list(range(x.ndim)):
        raise TypeError(f"[transpose] permutation {perm} is not a permutation of the dimensions "
                        f"of {_tstr(x)}")
    return x if perm == tuple(range(x.ndim)) else _L.transpose(x, perm)


def rev(operand, dimensions):
    """operand reversed along each of `dimensions`."""
    x = _arr(operand)
    dims = tuple(int(d) for d in dimensions)
    if len(set(dims)) != len(dims) or any(not 0 <= d < x.ndim for d in dims):
        raise ValueError(f"[rev] dimensions must be unique and in [0, {x.ndim}), got {dims}")
    return _L.rev(x, dims) if dims else x


def squeeze(array, dimensions):
    """array without the given size-1 dimensions."""
    x = _arr(array)
    dims = sorted({_axis(d, x.ndim, "squeeze") for d in dimensions})
    for d in dims:
        if x.shape[d] != 1:
            raise ValueError(f"[squeeze] cannot squeeze dimension {d} of {_tstr(x)}: its size is "
                             f"not 1")
    return reshape(x, tuple(s for i, s in enumerate(x.shape) if i not in dims))


def expand_dims(array, dimensions):
    """array with size-1 dimensions inserted at `dimensions` (positions in the result)."""
    x = _arr(array)
    n = x.ndim + len(dimensions)
    dims = sorted(_axis(d, n, "expand_dims") for d in dimensions)
    if len(set(dims)) != len(dims):
        raise ValueError(f"[expand_dims] repeated dimensions {tuple(dimensions)}")
    shape = list(x.shape)
    for d in dims:
        shape.insert(d, 1)
    return reshape(x, tuple(shape))


def collapse(operand, start_dimension, stop_dimension=None):
    """operand with dimensions [start_dimension, stop_dimension) merged into one."""
    x = _arr(operand)
    lo = _axis(start_dimension, x.ndim, "collapse") if x.ndim else 0
    hi = x.ndim if stop_dimension is None else (
        stop_dimension + x.ndim if stop_dimension < 0 else stop_dimension)
    if not lo <= hi <= x.ndim:
        raise ValueError(f"[collapse] invalid dimension range [{start_dimension}, "
                         f"{stop_dimension}) for {_tstr(x)}")
    s = tuple(x.shape)
    return reshape(x, s[:lo] + (_math.prod(s[lo:hi]),) + s[hi:])


def concatenate(operands, dimension):
    """operands (of one dtype, equal except along `dimension`) joined along `dimension`."""
    xs = [_arr(o) for o in operands]
    if not xs:
        raise ValueError("[concatenate] needs at least one operand")
    if len(xs) == 1:
        return xs[0]
    return _as_type_error(_L.concatenate, xs, int(dimension))


def split(operand, sizes, axis=0):
    """operand cut along `axis` into consecutive pieces of the given sizes (summing to the
    dimension)."""
    x = _arr(operand)
    axis = _axis(axis, x.ndim, "split")
    sizes = [int(s) for s in sizes]
    if any(s < 0 for s in sizes) or sum(sizes) != x.shape[axis]:
        raise ValueError(f"[split] sizes {sizes} must be nonnegative and sum to {x.shape[axis]}, "
                         f"the size of axis {axis} of {_tstr(x)}")
    out, start = [], 0
    for s in sizes:
        out.append(slice_in_dim(x, start, start + s, axis=axis))
        start += s
    return out


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001
    """operand[start:limit:stride] along every dimension (static bounds)."""
    x = _arr(operand)
    return _as_type_error(_L.slice, x, tuple(int(i) for i in start_indices),
                          tuple(int(i) for i in limit_indices),
                          None if strides is None else tuple(int(s) for s in strides))


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    """operand[start:limit:stride] along `axis` (None: the ends; negative: from the end)."""
    x = _arr(operand)
    axis = _axis(axis, x.ndim, "slice_in_dim")
    n = x.shape[axis]
    start = 0 if start_index is None else int(start_index)
    limit = n if limit_index is None else int(limit_index)
    start = start + n if start < 0 else start
    limit = limit + n if limit < 0 else limit
    lo, hi, st = [0] * x.ndim, list(x.shape), [1] * x.ndim
    lo[axis], hi[axis], st[axis] = start, limit, int(stride)
    return slice(x, lo, hi, st)


def index_in_dim(operand, index, axis=0, keepdims=True):
    """The slice at a static `index` along `axis` (kept as a size-1 dimension by default)."""
    x = _arr(operand)
    axis = _axis(axis, x.ndim, "index_in_dim")
    index = _operator.index(index)
    n = x.shape[axis]
    if not -n <= index < n:
        raise IndexError(f"[index_in_dim] index {index} is out of bounds for axis {axis} of size "
                         f"{n}")
    index %= n
    out = slice_in_dim(x, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def _index_scalar(i, name):
    i = _arr(i)
    if i.ndim != 0 or _kind(i.dtype) not in "iu":
        raise TypeError(f"[{name}] start indices must be integer scalars, got {_tstr(i)}")
    return i


def _starts(x, start_indices, name, allow_negative_indices=True):
    if isinstance(start_indices, _core.Array) or isinstance(start_indices, _np.ndarray):
        a = _arr(start_indices)
        if a.ndim != 1:
            raise TypeError(f"[{name}] start_indices must be 1-d, got {_tstr(a)}")
        start_indices = [index_in_dim(a, k, keepdims=False) for k in range(a.shape[0])]
    idx = [_index_scalar(i, name) for i in start_indices]
    if len(idx) != x.ndim:
        raise TypeError(f"[{name}] needs one start index per dimension of {_tstr(x)}, got "
                        f"{len(idx)}")
    if len({i.dtype for i in idx}) > 1:
        idx = [_L.convert_element_type(i, "int32") for i in idx]
    if allow_negative_indices:
        # JAX counts negative start indices from the end, then clamps.
        out = []
        for i, n in zip(idx, x.shape):
            if _kind(i.dtype) == "i":
                zero, size = _core.asarray(0, i.dtype), _core.asarray(n, i.dtype)
                i = _L.select(_L.lt(i, zero), _L.add(i, size), i)
            out.append(i)
        idx = out
    return idx


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    """The slice of static size slice_sizes at traced start_indices (negative ones count from
    the end; each start is clamped so the slice stays in bounds)."""
    x = _arr(operand)
    idx = _starts(x, start_indices, "dynamic_slice", allow_negative_indices)
    return _as_type_error(_L.dynamic_slice, x, idx, tuple(int(s) for s in slice_sizes))


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    """operand with `update` written at traced start_indices (clamped so it fits)."""
    x, u = _arr(operand), _arr(update)
    idx = _starts(x, start_indices, "dynamic_update_slice", allow_negative_indices)
    return _as_type_error(_L.dynamic_update_slice, x, u, idx)


def _zero_index(i):
    return _core.asarray(0, _arr(i).dtype)


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0, *,
                         allow_negative_indices=True):
    """The slice of static size slice_size at a traced start_index along `axis`."""
    x = _arr(operand)
    axis = _axis(axis, x.ndim, "dynamic_slice_in_dim")
    starts = [_zero_index(start_index)] * x.ndim
    starts[axis] = start_index
    sizes = list(x.shape)
    sizes[axis] = int(slice_size)
    return dynamic_slice(x, starts, sizes, allow_negative_indices=allow_negative_indices)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True):
    """The slice at a traced `index` along `axis` (kept as a size-1 dimension by default)."""
    x = _arr(operand)
    axis = _axis(axis, x.ndim, "dynamic_index_in_dim")
    out = dynamic_slice_in_dim(x, index, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def dynamic_update_slice_in_dim(operand, update, start_index, axis):
    """operand with `update` written at a traced start_index along `axis`."""
    x = _arr(operand)
    axis = _axis(axis, x.ndim, "dynamic_update_slice_in_dim")
    starts = [_zero_index(start_index)] * x.ndim
    starts[axis] = start_index
    return dynamic_update_slice(x, update, starts)


def dynamic_update_index_in_dim(operand, update, index, axis):
    """operand with `update` (with or without the size-1 `axis`) written at a traced index."""
    x, u = _arr(operand), _arr(update)
    axis = _axis(axis, x.ndim, "dynamic_update_index_in_dim")
    if u.ndim == x.ndim - 1:
        u = expand_dims(u, (axis,))
    return dynamic_update_slice_in_dim(x, u, index, axis)


def pad(operand, padding_value, padding_config):
    """operand padded with the scalar padding_value: (low, high, interior) per dimension, low
    and high negative to crop."""
    x = _arr(operand)
    v = _scalar_like("pad", padding_value, x) if _is_pyscalar(padding_value) else \
        _arr(padding_value)
    cfg = [tuple(int(c) for c in p) for p in padding_config]
    if len(cfg) != x.ndim:
        raise ValueError(f"[pad] padding_config has {len(cfg)} entries for {_tstr(x)}")
    if any(len(c) != 3 for c in cfg):
        raise ValueError("[pad] padding_config entries are (low, high, interior)")
    if any(c[2] < 0 for c in cfg):
        raise ValueError(f"[pad] interior padding must be nonnegative, got {cfg}")
    if v.ndim != 0:
        raise TypeError(f"[pad] padding_value must be a scalar, got {_tstr(v)}")
    if v.dtype != x.dtype:
        raise TypeError(f"[pad] padding_value {_tstr(v)} must have the operand's dtype "
                        f"{x.dtype}")
    for n, (lo, hi, it) in zip(x.shape, cfg):
        if n + lo + hi + _b.max(n - 1, 0) * it < 0:
            raise ValueError(f"[pad] padding {cfg} gives a negative dimension for {_tstr(x)}")
    return _L.pad(x, v, cfg)


# ---- Creation --------------------------------------------------------------------------------

def _filled(shape, value, dtype, weak):
    """A constant of `shape` and `dtype` filled with the scalar `value` (weakly typed when weak
    and the value is a Python scalar of that dtype's default kind)."""
    v = value
    if _is_pyscalar(v):
        k = _kind(dtype)
        py = bool(v) if k == "b" else (int(v) if k in "iu" else float(v))
        a = _core.asarray(py)
        if not (weak and a.dtype == dtype and a.weak_type):
            a = _core.asarray(py, dtype)
    else:
        a = _arr(v)
        if a.ndim != 0:
            raise TypeError(f"[full] fill_value must be a scalar, got {_tstr(a)}")
        if a.dtype != dtype or (a.weak_type and not weak):
            a = _L.convert_element_type(a, dtype)
    shape = tuple(int(s) for s in ((shape,) if isinstance(shape, int) else shape))
    return _L.broadcast_in_dim(a, shape, ()) if shape else a


def full(shape, fill_value, dtype=None, *, sharding=None):
    """An array of `shape` filled with the scalar fill_value (dtype: fill_value's, weak for a
    Python scalar, unless given)."""
    if dtype is None:
        a = _arr(fill_value)
        if a.ndim != 0:
            raise TypeError(f"[full] fill_value must be a scalar, got {_tstr(a)}")
        return _filled(shape, a if not _is_pyscalar(fill_value) else fill_value, a.dtype,
                       a.weak_type)
    dt = _core.numpy.zeros((), dtype).dtype
    return _filled(shape, fill_value, dt, False)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """An array like x (its shape and dtype, weak type kept, unless given) filled with
    fill_value."""
    if hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, _np.generic):
        xshape, xdt = tuple(x.shape), x.dtype
        weak = bool(getattr(x, "weak_type", False))
        if isinstance(x, _np.ndarray):
            xdt = _core.asarray(_np.zeros((), x.dtype)).dtype
    else:
        a = _arr(x)
        xshape, xdt, weak = tuple(a.shape), a.dtype, a.weak_type
    if dtype is not None:
        xdt, weak = _core.numpy.zeros((), dtype).dtype, False
    return _filled(xshape if shape is None else shape, fill_value, xdt, weak)


def zeros_like_array(x):
    """Zeros of x's shape and dtype."""
    return full_like(x, 0)


def iota(dtype, size):
    """[0, 1, ..., size - 1] of `dtype`."""
    return _L.iota(dtype, _operator.index(size))


def broadcasted_iota(dtype, shape, dimension, *, out_sharding=None):
    """An array of `shape` counting 0, 1, ... along `dimension`."""
    shape = tuple(int(s) for s in shape)
    return _L.broadcasted_iota(dtype, shape, _axis(dimension, len(shape), "broadcasted_iota"))


# ---- Sorting ---------------------------------------------------------------------------------

def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """operand sorted along `dimension` (NaNs last); a sequence of operands is sorted together,
    lexicographically by its first num_keys, returning a tuple. Always stable."""
    if isinstance(operand, (list, tuple)):
        xs = [_arr(o) for o in operand]
        if not xs:
            raise ValueError("[sort] needs at least one operand")
        if not 1 <= num_keys <= len(xs):
            raise ValueError(f"[sort] num_keys={num_keys} must be in [1, {len(xs)}]")
        for x in xs[1:]:
            if tuple(x.shape) != tuple(xs[0].shape):
                raise TypeError(f"[sort] operands must have one shape, got "
                                f"{', '.join(_tstr(x) for x in xs)}")
        d = _axis(dimension, xs[0].ndim, "sort")
        return tuple(_as_type_error(_L.sort, xs, d, int(num_keys)))
    if num_keys != 1:
        raise ValueError(f"[sort] num_keys={num_keys} must equal 1 for a single operand")
    x = _arr(operand)
    return _as_type_error(_L.sort, x, _axis(dimension, x.ndim, "sort"), 1)


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    """keys sorted along `dimension`, values permuted alike: (sorted keys, values)."""
    k, v = sort([keys, values], dimension, is_stable, 1)
    return k, v


def top_k(operand, k, *, axis=-1):
    """The k largest entries along `axis` in descending order and their int32 indices (ties:
    the lower index first; NaN counts as the largest)."""
    x = _arr(operand)
    k = _operator.index(k)
    if k < 0:
        raise ValueError(f"[top_k] k must be nonnegative, got {k}")
    if x.ndim == 0:
        raise TypeError("[top_k] needs an operand of rank >= 1")
    axis = _axis(axis, x.ndim, "top_k")
    if k > x.shape[axis]:
        raise ValueError(f"[top_k] k={k} is larger than the size {x.shape[axis]} of axis {axis}")
    idx = broadcasted_iota("int32", x.shape, axis)
    # A stable ascending sort of the reversed array, reversed back, is descending with ties in
    # index order.
    # Only the last k of the ascending order are reversed (not the whole sorted line).
    v, i = _L.sort([_L.rev(x, [axis]), _L.rev(idx, [axis])], axis, 1)
    n = x.shape[axis]
    return (_L.rev(slice_in_dim(v, n - k, n, axis=axis), [axis]),
            _L.rev(slice_in_dim(i, n - k, n, axis=axis), [axis]))


# ---- Reductions ------------------------------------------------------------------------------

def _axes(x, axes, name):
    axes = tuple(int(a) for a in axes)
    if len(set(axes)) != len(axes) or any(not 0 <= a < x.ndim for a in axes):
        raise ValueError(f"[{name}] axes {axes} must be unique and in [0, {x.ndim})")
    return axes


def _reducer(name, prim):
    def op(operand, axes):
        x = _arr(operand)
        return prim(x, _axes(x, axes, name)) if axes else x
    op.__name__ = op.__qualname__ = name
    return op


reduce_sum = _reducer("reduce_sum", _L.reduce_sum)
reduce_sum.__doc__ = "The sum over `axes`."
reduce_prod = _reducer("reduce_prod", _L.reduce_prod)
reduce_prod.__doc__ = "The product over `axes`."
reduce_max = _reducer("reduce_max", _L.reduce_max)
reduce_max.__doc__ = "The maximum over `axes` (NaN propagates)."
reduce_min = _reducer("reduce_min", _L.reduce_min)
reduce_min.__doc__ = "The minimum over `axes` (NaN propagates)."


def _tree_reduce(xs, axes, combine):
    """combine (elementwise, associative and commutative, over lists of arrays) folded over
    `axes` of every array of xs by pairwise halving: log depth, vectorized."""
    if not axes:
        return xs
    x0 = xs[0]
    keep = [d for d in range(x0.ndim) if d not in axes]
    perm = tuple(axes) + tuple(keep)
    n = _math.prod(x0.shape[a] for a in axes)
    rest = tuple(x0.shape[d] for d in keep)
    ys = [reshape(transpose(x, perm), (n,) + rest) for x in xs]
    while n > 1:
        h = n // 2
        lo = [slice_in_dim(y, 0, h) for y in ys]
        hi = [slice_in_dim(y, h, 2 * h) for y in ys]
        c = combine(lo, hi)
        if n % 2:
            c = [concatenate([ci, slice_in_dim(y, 2 * h, n)], 0) for ci, y in zip(c, ys)]
        ys, n = c, h + n % 2
    return [reshape(y, rest) for y in ys]


def _bitwise_reducer(name, bool_prim, op):
    def f(operand, axes):
        x = _arr(operand)
        axes = _axes(x, axes, name)
        if not axes:
            return x
        k = _kind(x.dtype)
        if k == "b" and bool_prim is not None:
            return bool_prim(x, axes)
        if k not in "biu":
            raise TypeError(f"[{name}] needs a boolean or integer operand, got {_tstr(x)}")
        if any(x.shape[a] == 0 for a in axes):
            ident = {"reduce_and": -1 if k == "i" else (True if k == "b" else
                                                        int(_np.iinfo(_np.dtype(x.dtype)).max)),
                     "reduce_or": 0, "reduce_xor": 0}[name]
            return full(tuple(s for d, s in enumerate(x.shape) if d not in axes),
                        bool(ident) if k == "b" else ident, x.dtype)
        return _tree_reduce([x], axes, lambda a, b: [op(a[0], b[0])])[0]
    f.__name__ = f.__qualname__ = name
    return f


reduce_and = _bitwise_reducer("reduce_and", _L.reduce_min, _L.bitwise_and)
reduce_and.__doc__ = "The bitwise (logical, on bools) and over `axes`."
reduce_or = _bitwise_reducer("reduce_or", _L.reduce_max, _L.bitwise_or)
reduce_or.__doc__ = "The bitwise (logical, on bools) or over `axes`."
reduce_xor = _bitwise_reducer("reduce_xor", None, _L.bitwise_xor)
reduce_xor.__doc__ = "The bitwise (logical, on bools) xor over `axes`."


def argmax(operand, axis, index_dtype):
    """Index of the first maximum along `axis` (NaN counts as the maximum), of index_dtype."""
    x = _arr(operand)
    return _L.argmax(x, _axis(axis, x.ndim, "argmax"), index_dtype)


def argmin(operand, axis, index_dtype):
    """Index of the first minimum along `axis` (NaN counts as the minimum), of index_dtype."""
    x = _arr(operand)
    return _L.argmin(x, _axis(axis, x.ndim, "argmin"), index_dtype)


def _identity_of(kind, dtype):
    """{monoid: its identity as a Python value} for the dtype."""
    if kind == "b":
        return {"max": False, "min": True, "and": True, "or": False, "xor": False}
    if kind in "iu":
        info = _np.iinfo(_np.dtype(dtype))
        return {"add": 0, "mul": 1, "max": int(info.min), "min": int(info.max),
                "and": -1 if kind == "i" else int(info.max), "or": 0, "xor": 0}
    return {"add": 0.0, "mul": 1.0, "max": -_math.inf, "min": _math.inf}


def _monoid_of(computation):
    import strata.numpy as jnp
    g = globals()
    table = {"add": (g["add"], _L.add, jnp.add, _operator.add),
             "mul": (g["mul"], _L.mul, jnp.multiply, _operator.mul),
             "max": (g["max"], _L.max, jnp.maximum),
             "min": (g["min"], _L.min, jnp.minimum),
             "and": (g["bitwise_and"], _L.bitwise_and, jnp.bitwise_and, jnp.logical_and,
                     _operator.and_),
             "or": (g["bitwise_or"], _L.bitwise_or, jnp.bitwise_or, jnp.logical_or,
                    _operator.or_),
             "xor": (g["bitwise_xor"], _L.bitwise_xor, jnp.bitwise_xor, jnp.logical_xor,
                     _operator.xor)}
    for name, fns in table.items():
        if any(computation is f for f in fns):
            return name
    return None


_MONOID_REDUCE = {"add": reduce_sum, "mul": reduce_prod, "max": reduce_max, "min": reduce_min,
                  "and": reduce_and, "or": reduce_or, "xor": reduce_xor}


def _operand_trees(name, operands, init_values):
    """(operand Arrays, init leaves, treedef) of matching pytrees, at least one leaf."""
    from strata.tree_util import tree_flatten
    xs, tree = tree_flatten(operands)
    inits, itree = tree_flatten(init_values)
    if tree != itree:
        raise ValueError(f"[{name}] operands and init_values must have one structure, got "
                         f"{tree!r} and {itree!r}")
    if not xs:
        raise ValueError(f"[{name}] needs at least one operand")
    return [_arr(x) for x in xs], inits, tree


def reduce(operands, init_values, computation, dimensions, out_sharding=None):  # noqa: A001
    """computation (associative and commutative, on pytrees of operands' structure) folded over
    `dimensions`, starting from init_values. lax.add/mul/max/min/bitwise ops (and their jnp
    forms) use the reduce primitives; any other computation a pairwise tree."""
    from strata.tree_util import tree_flatten, tree_unflatten
    xs, inits, tree = _operand_trees("reduce", operands, init_values)
    for x in xs[1:]:
        if tuple(x.shape) != tuple(xs[0].shape):
            raise ValueError(f"[reduce] operands must have one shape, got "
                             f"{', '.join(_tstr(x) for x in xs)}")
    dims = _axes(xs[0], dimensions, "reduce")
    inits = [_scalar_like("reduce", v, x) if _is_pyscalar(v) else _arr(v)
             for v, x in zip(inits, xs)]
    for v, x in zip(inits, xs):
        if v.ndim != 0 or v.dtype != x.dtype:
            raise TypeError(f"[reduce] init_values must be scalars of the operands' dtypes, got "
                            f"{_tstr(v)} for {_tstr(x)}")
    monoid = _monoid_of(computation) if len(xs) == 1 else None
    if monoid is not None and _kind(xs[0].dtype) in "biuf" and \
            monoid in _identity_of(_kind(xs[0].dtype), xs[0].dtype):
        x, v = xs[0], inits[0]
        out = _MONOID_REDUCE[monoid](x, dims)
        ident = _identity_of(_kind(x.dtype), x.dtype)[monoid]
        if not (v.is_concrete and v.item() == ident):
            out = computation(out, _bcast(v, out.shape))
        return tree_unflatten(tree, [out])

    def combine(a, b):
        out, t = tree_flatten(computation(tree_unflatten(tree, a), tree_unflatten(tree, b)))
        if t != tree:
            raise TypeError(f"[reduce] computation must return the operands' structure "
                            f"{tree!r}, got {t!r}")
        return [_arr(o) for o in out]
    if any(xs[0].shape[d] == 0 for d in dims):
        rest = tuple(s for d, s in enumerate(xs[0].shape) if d not in dims)
        return tree_unflatten(tree, [_bcast(v, rest) for v in inits])
    red = _tree_reduce(xs, dims, combine)
    return tree_unflatten(tree, combine(red, [_bcast(v, red[0].shape) for v in inits]))


# ---- reduce_precision ------------------------------------------------------------------------

def _reduce_precision_bits(x, exponent_bits, mantissa_bits):
    """XLA's ReducePrecision on the bits of x (float32 or float64): round the mantissa to
    nearest even, then overflow to inf and flush values below the smallest normal to zero."""
    wide = _np.dtype(x.dtype).itemsize == 8
    ibits, E, M = (64, 11, 52) if wide else (32, 8, 23)
    it = "int64" if wide else "int32"
    bits = _L.bitcast_convert_type(x, it)
    shape = tuple(x.shape)

    def c(v):
        return _L.broadcast_in_dim(_core.asarray(_np.array(v).astype(it)), shape, ())
    if mantissa_bits < M:
        shift = M - mantissa_bits
        last = 1 << shift
        last_bit = _L.bitwise_and(_L.shift_right_logical(bits, c(shift)), c(1))
        bias = _L.add(last_bit, c((last >> 1) - 1))
        mask = _np.array(~(last - 1)).astype(it)
        bits = _L.bitwise_and(_L.add(bits, bias), c(mask))
    if exponent_bits < E:
        exp_mask = ((1 << E) - 1) << M
        sign_mask = _np.array(1 << (ibits - 1), dtype=_np.uint64).astype(it) if wide else \
            _np.array(1 << 31, dtype=_np.uint32).view(_np.int32)
        bias_src = (1 << (E - 1)) - 1
        bias_dst = (1 << (exponent_bits - 1)) - 1
        x_exp = _L.bitwise_and(bits, c(exp_mask))
        over = _L.gt(x_exp, c((bias_src + bias_dst) << M))
        under = _L.le(x_exp, c((bias_src - bias_dst) << M))
        signed_zero = _L.bitwise_and(bits, c(sign_mask))
        signed_inf = _L.bitwise_or(signed_zero, c(exp_mask))
        bits = _L.select(over, signed_inf, _L.select(under, signed_zero, bits))
    out = _L.bitcast_convert_type(bits, x.dtype)
    return _L.select(_L.ne(x, x), x, out)  # NaN stays NaN


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """operand rounded to a float format with the given exponent and mantissa bits (kept in its
    dtype): mantissa rounded to nearest even, overflow to inf, values below the format's
    smallest normal flushed to zero. The derivative passes tangents through unchanged."""
    from strata.api import custom_jvp
    e, m = _operator.index(exponent_bits), _operator.index(mantissa_bits)
    if e < 1 or m < 0:
        raise ValueError(f"[reduce_precision] needs exponent_bits >= 1 and mantissa_bits >= 0, "
                         f"got {e} and {m}")
    x = _arr(operand)
    if _kind(x.dtype) != "f":
        raise TypeError(f"[reduce_precision] needs a floating-point operand, got {_tstr(x)}")
    src = {"bfloat16": (8, 7)}.get(str(x.dtype)) or \
        {2: (5, 10), 4: (8, 23), 8: (11, 52)}[_np.dtype(x.dtype).itemsize]
    if e >= src[0] and m >= src[1]:
        return x
    # float16 and bfloat16 compute in float32 (exact), with a format no wider than their own.
    wide = _np.dtype(x.dtype).itemsize == 8
    full_e, full_m = (11, 52) if wide else (8, 23)
    ee = e if e < src[0] else full_e
    mm = m if m < src[1] else full_m

    @custom_jvp
    def f(v):
        w = v if v.dtype in (_np.dtype("float32"), _np.dtype("float64")) else \
            _L.convert_element_type(v, "float32")
        out = _reduce_precision_bits(w, ee, mm)
        return out if out.dtype == v.dtype else _L.convert_element_type(out, v.dtype)

    @f.defjvp
    def f_jvp(primals, tangents):
        return f(primals[0]), tangents[0]
    return f(x)


# ---- Elementwise functions of other helpers' primitives, with JAX's keywords -----------------

import inspect as _inspect  # noqa: E402


class Tolerance:
    """Requested accuracy of a unary function (atol and rtol, or atol and ulps): accepted and
    validated; Strata has one implementation of each function."""

    def __init__(self, atol=0.0, rtol=0.0, ulps=0):
        if atol < 0.0 or rtol < 0.0 or ulps < 0:
            raise ValueError("[Tolerance] tolerances must be non-negative")
        if atol == 0.0 and rtol == 0.0 and ulps == 0:
            raise ValueError("[Tolerance] at least one of atol, rtol, or ulps must be set")
        self.atol, self.rtol, self.ulps = atol, rtol, ulps


class AccuracyMode(_enum.Enum):
    """HIGHEST or DEFAULT accuracy of a unary function (accepted; one implementation)."""
    HIGHEST = 1
    DEFAULT = 2


def _unary_with_accuracy(name, prim):
    def op(x, accuracy=None):
        if accuracy is not None and not isinstance(accuracy, (Tolerance, AccuracyMode)):
            raise TypeError(f"[{name}] accuracy must be None, a lax.Tolerance or a "
                            f"lax.AccuracyMode, got {accuracy!r}")
        return prim(_arr(x) if not _is_pyscalar(x) else x)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise {name} (jax.lax.{name}; `accuracy` is accepted and unused)."
    return op


for _name in ("exp", "exp2", "expm1", "log", "log1p", "tanh", "logistic", "sin", "cos", "tan",
              "sqrt", "rsqrt", "cbrt"):
    globals()[_name] = _unary_with_accuracy(_name, getattr(_L, _name))


def _nary(name, params, doc):
    """A wrapper of the core's n-ary elementwise `name` with JAX's parameter names, Python
    scalars and rank-0 / size-1 broadcasting."""
    prim = getattr(_L, name)
    sig = _inspect.Signature([_inspect.Parameter(p, _inspect.Parameter.POSITIONAL_OR_KEYWORD)
                              for p in params])

    def op(*args, **kwargs):
        vals = sig.bind(*args, **kwargs).args
        return _as_type_error(prim, *_operands(name, *vals))
    op.__name__ = op.__qualname__ = name
    op.__signature__ = sig
    op.__doc__ = doc + " Python scalars and rank-0 / size-1 operands broadcast as in jax.lax."
    return op


_NARY = {"nextafter": (("x1", "x2"), "The next float after x1 toward x2, elementwise."),
         "igamma": (("a", "x"), "The regularized lower incomplete gamma P(a, x)."),
         "igammac": (("a", "x"), "The regularized upper incomplete gamma Q(a, x)."),
         "igamma_grad_a": (("a", "x"), "d/da of igamma(a, x)."),
         "random_gamma_grad": (("a", "x"), "The reparameterization derivative of gamma "
                                           "samples."),
         "polygamma": (("m", "x"), "The polygamma function of order m."),
         "zeta": (("x", "q"), "The Hurwitz zeta function."),
         "betainc": (("a", "b", "x"), "The regularized incomplete beta function.")}
for _name, (_params, _doc) in _NARY.items():
    globals()[_name] = _nary(_name, _params, _doc)
del _name


# ---- Shape and window utilities, approximate top-k -------------------------------------------

def broadcast_shapes(*shapes):
    """The numpy-broadcast shape of `shapes` (ValueError when they do not broadcast)."""
    shapes = [tuple(int(d) for d in s) for s in shapes]
    if not shapes:
        return ()
    n = _b.max(len(s) for s in shapes)
    padded = [(1,) * (n - len(s)) + s for s in shapes]
    out = []
    for ds in zip(*padded):
        big = {d for d in ds if d != 1}
        if len(big) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
        out.append(big.pop() if big else 1)
    return tuple(out)


class PaddingType(_enum.Enum):
    """Window padding schemes of padtype_to_pads."""
    VALID = 1
    SAME = 2
    SAME_LOWER = 3


def padtype_to_pads(in_shape, window_shape, window_strides, padding):
    """(low, high) padding per dimension for 'VALID', 'SAME' (extra at the end) or
    'SAME_LOWER' (extra at the start) windows."""
    if isinstance(padding, str):
        try:
            padding = PaddingType[padding.upper()]
        except KeyError:
            raise RuntimeError(f"Unrecognized padding type: expected 'VALID' or 'SAME', got "
                               f"{padding}.") from None
    if padding is PaddingType.VALID:
        return [(0, 0)] * len(in_shape)
    out = []
    for n, w, s in zip(in_shape, window_shape, window_strides):
        total = _b.max((-(-n // s) - 1) * s + w - n, 0)
        lo = total // 2 if padding is PaddingType.SAME else total - total // 2
        out.append((lo, total - lo))
    return out


def _k_along(operand, k, dim, largest, name):
    x = _arr(operand)
    k = _operator.index(k)
    if x.ndim == 0:
        raise TypeError(f"[{name}] needs an operand of rank >= 1")
    dim = _axis(dim, x.ndim, name)
    if not 0 <= k <= x.shape[dim]:
        raise ValueError(f"[{name}] k={k} must be in [0, {x.shape[dim]}]")
    if largest:
        return top_k(x, k, axis=dim)
    v, i = _L.sort([x, broadcasted_iota("int32", x.shape, dim)], dim, 1)
    return slice_in_dim(v, 0, k, axis=dim), slice_in_dim(i, 0, k, axis=dim)


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The k largest entries along reduction_dimension and their int32 indices; Strata
    computes them exactly (recall 1)."""
    return _k_along(operand, k, reduction_dimension, True, "approx_max_k")


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The k smallest entries along reduction_dimension (ascending) and their int32 indices;
    computed exactly."""
    return _k_along(operand, k, reduction_dimension, False, "approx_min_k")
