"""strata.numpy elementwise math composed from the bindings (rounding, remainders, exponent
splitting, sign handling, gcd/lcm...), differences/gradients/interpolation, polynomials,
window functions, dtype introspection (finfo, iinfo, issubdtype, isdtype, the abstract scalar
classes) and the function transformers (vectorize, apply_along_axis, fromfunction)."""

import builtins as _b
import functools as _functools
import re as _re

import numpy as _np

from strata import _core
from strata._numpy_util import (_c, _l, arr, kind, is_inexact, is_int, to_dtype, cast,
                                check_out, axis_index, int_dtype, float_dtype, to_float, rtype,
                                move_to_end)

__all__ = ["round", "around", "rint", "fix", "trunc", "clip", "mod", "fmod", "divmod",
           "ldexp", "frexp", "modf", "heaviside", "sinc", "hypot", "copysign", "signbit",
           "logaddexp", "logaddexp2", "log2", "log10", "deg2rad", "rad2deg", "degrees",
           "radians", "fabs", "absolute", "positive", "float_power", "gcd", "lcm", "isneginf",
           "isposinf", "isreal", "iscomplex", "isnan", "isinf", "nan_to_num", "real", "imag",
           "conj", "conjugate", "angle", "fmax", "fmin", "invert", "bitwise_invert",
           "left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift",
           "interp", "diff", "ediff1d", "gradient", "trapezoid", "unwrap", "polyval",
           "polyadd", "polysub", "polymul", "polydiv", "polyder", "polyint", "poly",
           "bartlett", "blackman", "hamming", "hanning", "packbits", "unpackbits",
           "finfo", "iinfo", "issubdtype", "isdtype", "can_cast", "dtype", "iscomplexobj",
           "isrealobj", "isscalar", "iterable", "size", "shape", "ndim", "generic", "number",
           "integer", "signedinteger", "unsignedinteger", "inexact", "floating",
           "complexfloating", "character", "flexible", "euler_gamma", "vectorize",
           "frompyfunc", "ufunc", "apply_along_axis", "apply_over_axes", "fromfunction", "printoptions",
           "set_printoptions", "get_printoptions", "array_repr", "array_str", "save", "savez",
           "load", "frombuffer", "fromstring", "fromiter", "fromfile", "s_", "index_exp", "r_",
           "c_", "spacing", "einsum_path"]


def _bin(x1, x2):
    """Two operands promoted (weak scalars) and broadcast to one shape, for lax ops."""
    a, b = arr(x1), arr(x2)
    t = rtype(a, b)
    a, b = cast(a, t), cast(b, t)
    s = _c.broadcast_shapes(a.shape, b.shape)
    return _c.broadcast_to(a, s), _c.broadcast_to(b, s)


# ---- Rounding --------------------------------------------------------------------------------

def round(a, decimals=0, out=None):
    """a rounded to `decimals` decimals, halves to even (as numpy)."""
    check_out("round", out)
    a = arr(a)
    decimals = int(decimals)
    if kind(a.dtype) == "b":
        return a
    if is_int(a.dtype):
        if decimals >= 0:
            return a
        f = 10 ** (-decimals)
        return cast(_c.round(cast(a, float_dtype(a)) / f) * f, a.dtype)
    if decimals == 0:
        return _c.round(a)
    f = 10.0 ** decimals
    if getattr(a.dtype, "itemsize", 4) == 2:  # 16-bit floats scale in float32, as JAX
        return cast(_c.round(cast(a, _np.dtype("float32")) * f) / f, a.dtype)
    return _c.round(a * f) / f


around = round


def rint(x):
    """x rounded to the nearest integer, halves to even."""
    x = arr(x)
    return _c.round(x) if is_inexact(x.dtype) else cast(x, float_dtype(x))


def trunc(x):
    """x rounded towards zero."""
    x = arr(x)
    if not is_inexact(x.dtype):
        return x
    return _c.where(_c.less(x, 0), _c.ceil(x), _c.floor(x))


def fix(x, out=None):
    """x rounded towards zero."""
    check_out("fix", out)
    return trunc(x)


def clip(arr_=None, /, min=None, max=None, *, a=None, a_min=None, a_max=None):
    """arr_ limited to [min, max] (either may be None); a, a_min, a_max are numpy's older
    names. Complex values raise ValueError, as JAX's clip."""
    if a is not None:
        if arr_ is not None:
            raise TypeError("[clip] pass the array once (positionally or as a)")
        arr_ = a
    if a_min is not None:
        if min is not None:
            raise TypeError("[clip] pass min or a_min, not both")
        min = a_min
    if a_max is not None:
        if max is not None:
            raise TypeError("[clip] pass max or a_max, not both")
        max = a_max
    if arr_ is None:
        raise TypeError("[clip] missing the array argument")
    if any(isinstance(t, complex) or iscomplexobj(t) for t in (arr_, min, max)):
        # JAX's error: max/min order complex numbers lexicographically, numpy's clip does not.
        raise ValueError(
            "Clip received a complex value either through the input or the min/max keywords. "
            "Complex values have no ordering and cannot be clipped. Please convert to a real "
            "value or array by taking the real or imaginary components via "
            "jax.numpy.real/imag respectively.")
    x = arr(arr_)
    if min is not None:
        x = _c.maximum(min, x)
    if max is not None:
        x = _c.minimum(max, x)
    return x


# ---- Remainders and exponents ----------------------------------------------------------------

def mod(x1, x2):
    """The remainder with the sign of the divisor (numpy's mod, remainder)."""
    return _c.remainder(x1, x2)


def fmod(x1, x2):
    """The remainder with the sign of the dividend (C's fmod)."""
    a, b = _bin(x1, x2)
    if is_int(a.dtype):
        safe = _c.where(_c.equal(b, 0), _c.ones((), b.dtype), b)
        return _c.where(_c.equal(b, 0), _c.zeros((), a.dtype), _l.rem(a, safe))
    return _l.rem(a, b)


def divmod(x1, x2):
    """(floor_divide(x1, x2), mod(x1, x2))."""
    return _c.floor_divide(x1, x2), _c.remainder(x1, x2)


def ldexp(x1, x2):
    """x1 * 2 ** x2 (x2 integer)."""
    x1, x2 = arr(x1), arr(x2)
    if not is_int(x2.dtype):
        raise TypeError(f"[ldexp] x2 must be an integer, got {x2.dtype}")
    x = to_float(x1)
    # Two steps keep 2 ** x2 representable when x * 2 ** x2 is (subnormal results, large x2).
    h = _c.floor_divide(x2, 2)
    two = cast(arr(2.0), x.dtype)
    return x * _c.power(two, cast(h, x.dtype)) * _c.power(two, cast(x2 - h, x.dtype))


def frexp(x):
    """(mantissa, exponent) with x = mantissa * 2 ** exponent and 0.5 <= |mantissa| < 1
    (0, inf and NaN have exponent 0)."""
    x = to_float(arr(x))
    it = int_dtype()
    ok = _c.logical_and(_c.isfinite(x), _c.not_equal(x, 0))
    ax = _c.where(ok, _c.abs(x), _c.ones((), x.dtype))
    lt = x.dtype if getattr(x.dtype, "itemsize", 2) >= 4 else _np.dtype("float32")
    e = cast(_c.floor(_c.log(cast(ax, lt)) / float(_np.log(2.0))), it) + 1
    m = ldexp(ax, -e)
    for _ in range(2):  # fix the floating rounding of the logarithm
        hi = _c.greater_equal(m, 1)
        lo = _c.less(m, 0.5)
        m = _c.where(hi, m / 2, _c.where(lo, m * 2, m))
        e = _c.where(hi, e + 1, _c.where(lo, e - 1, e))
    m = _c.where(ok, _c.where(_c.less(x, 0), -m, m), x)
    return m, _c.where(ok, e, _c.zeros((), it))


def modf(x, out=None):
    """(fractional part, integral part) of x, both with x's sign."""
    check_out("modf", out)
    x = to_float(arr(x))
    t = trunc(x)
    return _c.where(isinf(x), _c.zeros((), x.dtype) * _c.sign(x), x - t), t


# ---- Signs and special values ----------------------------------------------------------------

def spacing(x):
    """The distance from x to the next representable number away from zero (negative for
    negative x; NaN for infinities and NaN)."""
    x = to_float(arr(x))
    fi = finfo(x.dtype)
    _, e = frexp(x)
    sp = ldexp(_c.ones_like(x), e - 1 - int(fi.nmant))
    tiny = cast(arr(float(fi.smallest_subnormal)), x.dtype)
    sp = _c.where(_c.logical_or(_c.equal(x, 0), _c.less(sp, tiny)), tiny, sp)
    sp = _c.where(_c.less(x, 0), -sp, sp)
    return _c.where(_c.isfinite(x), sp, _c.full((), _np.nan, x.dtype))


def signbit(x):
    """True where the sign bit is set (negative numbers, -0.0, negative NaNs)."""
    x = arr(x)
    k = kind(x.dtype)
    if k == "b":
        return _c.zeros(x.shape, bool)
    if k == "u":
        return _c.zeros(x.shape, bool)
    if k == "i":
        return _c.less(x, 0)
    if getattr(x.dtype, "itemsize", 4) == 8:
        return _c.less(_l.bitcast_convert_type(x, _np.dtype("int64")), 0)
    return _c.less(_l.bitcast_convert_type(cast(x, _np.dtype("float32")),
                                           _np.dtype("int32")), 0)


def copysign(x1, x2):
    """|x1| with the sign (bit) of x2."""
    a, b = _bin(to_float(arr(x1)), x2)
    a = to_float(a)
    return _c.where(signbit(b), -_c.abs(a), _c.abs(a))


def heaviside(x1, x2):
    """0 for x1 < 0, x2 for x1 == 0, 1 for x1 > 0."""
    a, b = _bin(to_float(arr(x1)), x2)
    return _c.where(_c.less(a, 0), _c.zeros((), a.dtype),
                    _c.where(_c.greater(a, 0), _c.ones((), a.dtype),
                             _c.where(isnan(a), a, b)))


def sinc(x):
    """sin(pi x) / (pi x), 1 at 0 (with derivative 0 there)."""
    x = to_float(arr(x))
    zero = _c.equal(x, 0)
    safe = _c.where(zero, 1.0, x)
    px = safe * _np.pi
    return _c.where(zero, 1.0, _c.sin(px) / px)


def hypot(x1, x2):
    """sqrt(x1**2 + x2**2) without overflow or underflow in between."""
    a, b = _bin(to_float(arr(x1)), to_float(arr(x2)))
    a, b = _c.abs(a), _c.abs(b)
    big, small = _c.maximum(a, b), _c.minimum(a, b)
    safe = _c.where(_c.equal(big, 0), _c.ones((), big.dtype), big)
    r = small / safe
    out = _c.where(_c.equal(big, 0), _c.zeros((), big.dtype), big * _c.sqrt(1 + r * r))
    return _c.where(_c.logical_or(isinf(a), isinf(b)), _c.full((), _np.inf, big.dtype), out)


def isnan(x):
    """True where x is NaN."""
    x = arr(x)
    return _c.not_equal(x, x) if is_inexact(x.dtype) else _c.zeros(x.shape, bool)


def isinf(x):
    """True where x is +inf or -inf."""
    x = arr(x)
    if not is_inexact(x.dtype):
        return _c.zeros(x.shape, bool)
    return _c.equal(_c.abs(x), _np.inf)


def isposinf(x, out=None):
    """True where x is +inf."""
    check_out("isposinf", out)
    x = arr(x)
    return _c.equal(x, _np.inf) if is_inexact(x.dtype) else _c.zeros(x.shape, bool)


def isneginf(x, out=None):
    """True where x is -inf."""
    check_out("isneginf", out)
    x = arr(x)
    return _c.equal(x, -_np.inf) if is_inexact(x.dtype) else _c.zeros(x.shape, bool)


def isreal(x):
    """True where x has no imaginary part (everywhere for real x)."""
    x = arr(x)
    if kind(x.dtype) == "c":
        return _c.equal(_l.imag(x), 0)
    return _c.ones(x.shape, bool)


def iscomplex(x):
    """True where x has a nonzero imaginary part (nowhere for real x)."""
    x = arr(x)
    if kind(x.dtype) == "c":
        return _c.not_equal(_l.imag(x), 0)
    return _c.zeros(x.shape, bool)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """x with NaN, +inf and -inf replaced (by default by 0 and the largest/smallest finite
    values of x's dtype)."""
    x = arr(x)
    if not is_inexact(x.dtype):
        return x
    fi = finfo(x.dtype)
    pi = fi.max if posinf is None else posinf
    ni = fi.min if neginf is None else neginf
    x = _c.where(isnan(x), cast(arr(nan), x.dtype), x)
    x = _c.where(isposinf(x), cast(arr(pi), x.dtype), x)
    return _c.where(isneginf(x), cast(arr(ni), x.dtype), x)


def real(val):
    """The real part (val itself for real input)."""
    x = arr(val)
    return _l.real(x) if kind(x.dtype) == "c" else x


def imag(val):
    """The imaginary part (zeros for real input)."""
    x = arr(val)
    return _l.imag(x) if kind(x.dtype) == "c" else _c.zeros_like(x)


def conjugate(x):
    """The complex conjugate (x itself for real input)."""
    x = arr(x)
    return _l.conj(x) if kind(x.dtype) == "c" else x


conj = conjugate


def angle(z, deg=False):
    """The argument of z, atan2(imag(z), real(z)): 0 for non-negative reals, pi for negative
    ones."""
    z = arr(z)
    if kind(z.dtype) == "c":
        r = _c.arctan2(_l.imag(z), _l.real(z))
    else:
        z = to_float(z)
        r = _c.arctan2(_c.zeros_like(z), z)
    return r * (180 / _np.pi) if deg else r


def fmax(x1, x2):
    """The elementwise maximum ignoring NaNs (NaN only if both are)."""
    a, b = _bin(x1, x2)
    return _c.where(isnan(a), b, _c.where(isnan(b), a, _c.maximum(a, b)))


def fmin(x1, x2):
    """The elementwise minimum ignoring NaNs."""
    a, b = _bin(x1, x2)
    return _c.where(isnan(a), b, _c.where(isnan(b), a, _c.minimum(a, b)))


def fabs(x):
    """|x| as a float."""
    return _c.abs(to_float(arr(x)))


def absolute(x):
    """|x|."""
    return _c.abs(x)


def positive(x):
    """+x."""
    return arr(x)


def float_power(x1, x2):
    """x1 ** x2 computed in floating point (integers promoted to the default float)."""
    a, b = arr(x1), arr(x2)
    t = rtype(a, b)
    t = t if is_inexact(t) else rtype(_c.zeros((), t), 1.0)
    return _c.power(cast(a, t), cast(b, t))


def _log_base(x, base):
    x = to_float(arr(x))
    return _c.log(x) / float(_np.log(base))


def log2(x):
    """The base-2 logarithm."""
    return _log_base(x, 2.0)


def log10(x):
    """The base-10 logarithm."""
    return _log_base(x, 10.0)


def logaddexp(x1, x2):
    """log(exp(x1) + exp(x2)) without overflow (infinities handled)."""
    a, b = _bin(to_float(arr(x1)), to_float(arr(x2)))
    m = _c.maximum(a, b)
    d = a - b
    same = _c.equal(a, b)  # both inf of one sign, or equal values
    safe = _c.where(same, _c.zeros((), d.dtype), d)
    r = m + _c.log1p(_c.exp(-_c.abs(safe)))
    return _c.where(_c.logical_and(same, isinf(a)), a, _c.where(isnan(d), a + b, r))


def logaddexp2(x1, x2):
    """log2(2**x1 + 2**x2) without overflow."""
    a, b = _bin(to_float(arr(x1)), to_float(arr(x2)))
    ln2 = _np.log(2.0)
    return logaddexp(a * ln2, b * ln2) / ln2


def deg2rad(x):
    """Degrees to radians."""
    return to_float(arr(x)) * (_np.pi / 180)


def rad2deg(x):
    """Radians to degrees."""
    return to_float(arr(x)) * (180 / _np.pi)


radians, degrees = deg2rad, rad2deg


def gcd(x1, x2):
    """The greatest common divisor of integers (non-negative; gcd(0, 0) = 0)."""
    a, b = _bin(x1, x2)
    if not is_int(a.dtype):
        raise TypeError(f"[gcd] arguments must be integers, got {a.dtype}")
    from strata.lax import while_loop
    a, b = _c.abs(a), _c.abs(b)

    def body(c):
        x, y = c
        nz = _c.not_equal(y, 0)
        ys = _c.where(nz, y, _c.ones((), y.dtype))
        return _c.where(nz, y, x), _c.where(nz, _c.remainder(x, ys), y)
    return while_loop(lambda c: _c.any(_c.not_equal(c[1], 0)), body, (a, b))[0]


def lcm(x1, x2):
    """The least common multiple of integers (0 if either is 0)."""
    a, b = _bin(x1, x2)
    g = gcd(a, b)
    safe = _c.where(_c.equal(g, 0), _c.ones((), g.dtype), g)
    return _c.where(_c.equal(g, 0), _c.zeros((), g.dtype), _c.abs(a * _c.floor_divide(b, safe)))


def invert(x):
    """Bitwise NOT (logical NOT for booleans)."""
    return _c.bitwise_not(x)


bitwise_invert = invert


def left_shift(x1, x2):
    """x1 shifted left by x2 bits."""
    a, b = _bin(x1, x2)
    if not is_int(a.dtype):
        raise TypeError(f"[left_shift] arguments must be integers, got {a.dtype}")
    return _l.shift_left(a, b)


def right_shift(x1, x2):
    """x1 shifted right by x2 bits (arithmetic for signed integers: the sign fills in)."""
    a, b = _bin(x1, x2)
    if not is_int(a.dtype):
        raise TypeError(f"[right_shift] arguments must be integers, got {a.dtype}")
    if kind(a.dtype) == "u":
        return _l.shift_right_logical(a, b)
    neg = _c.less(a, 0)
    na = _c.bitwise_not(a)
    return _c.where(neg, _c.bitwise_not(_l.shift_right_logical(na, b)),
                    _l.shift_right_logical(a, b))


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


# ---- Differences, gradients, interpolation ---------------------------------------------------

def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The n-th discrete difference along axis (with prepend/append joined first)."""
    a = arr(a)
    if a.ndim == 0:
        raise ValueError("[diff] requires input that is at least one dimensional")
    ax = axis_index("diff", axis, a.ndim)
    n = int(n)
    if n < 0:
        raise ValueError(f"[diff] order must be non-negative but got {n}")
    parts = []
    for v in (prepend, None, append):
        if v is None and parts and parts[-1] is a:
            continue
        if v is None:
            parts.append(a)
            continue
        v = arr(v)
        if v.ndim == 0:
            shp = list(a.shape)
            shp[ax] = 1
            v = _c.broadcast_to(v, tuple(shp))
        parts.append(v)
    if len(parts) > 1:
        dt = rtype(*parts)
        a = _c.concatenate([cast(p, dt) for p in parts], ax)
    for _ in range(n):
        m = a.shape[ax]
        if m == 0:
            break
        hi = [slice(None)] * a.ndim
        lo = [slice(None)] * a.ndim
        hi[ax], lo[ax] = slice(1, None), slice(None, -1)
        a = _c.not_equal(a[tuple(hi)], a[tuple(lo)]) if kind(a.dtype) == "b" else \
            a[tuple(hi)] - a[tuple(lo)]
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of consecutive entries of the flattened ary, with to_begin/to_end
    joined."""
    a = _c.ravel(arr(ary))
    d = a[1:] - a[:-1]
    parts = []
    if to_begin is not None:
        parts.append(cast(_c.ravel(arr(to_begin)), d.dtype))
    parts.append(d)
    if to_end is not None:
        parts.append(cast(_c.ravel(arr(to_end)), d.dtype))
    return _c.concatenate(parts, 0) if len(parts) > 1 else d


def gradient(f, *varargs, axis=None, edge_order=None):
    """The gradient of sampled f: second-order central differences inside, first-order
    one-sided ones at the edges; spacings are scalars or coordinate arrays per axis."""
    f = to_float(arr(f))
    if edge_order is not None and edge_order != 1:
        raise NotImplementedError("[gradient] only edge_order=1 is supported (as JAX)")
    axes_ = tuple(range(f.ndim)) if axis is None else \
        tuple(axis_index("gradient", a, f.ndim) for a in
              (axis if isinstance(axis, (tuple, list)) else (axis,)))
    if len(varargs) == 0:
        spac = [1.0] * len(axes_)
    elif len(varargs) == 1 and arr(varargs[0]).ndim == 0:
        spac = [varargs[0]] * len(axes_)
    elif len(varargs) == len(axes_):
        spac = list(varargs)
    else:
        raise TypeError(f"[gradient] invalid number of spacing arguments: {len(varargs)} for "
                        f"{len(axes_)} axes")
    out = []
    for ax, h in zip(axes_, spac):
        n = f.shape[ax]
        if n < 2:
            raise ValueError(f"[gradient] shape of array too small to calculate a numerical "
                             f"gradient: axis {ax} has {n} element(s)")

        def sl(s, ax=ax):
            idx = [slice(None)] * f.ndim
            idx[ax] = s
            return f[tuple(idx)]
        h = arr(h)
        shp = [1] * f.ndim
        if h.ndim == 0:
            h = cast(h, f.dtype)
            inner = (sl(slice(2, None)) - sl(slice(None, -2))) / (2 * h)
            first = (sl(slice(1, 2)) - sl(slice(0, 1))) / h
            last = (sl(slice(-1, None)) - sl(slice(-2, -1))) / h
        else:
            x = cast(h, f.dtype)
            if x.shape != (n,):
                raise ValueError(f"[gradient] coordinates of shape {list(x.shape)} do not "
                                 f"match axis {ax} of length {n}")
            dx = x[1:] - x[:-1]
            shp[ax] = n - 2
            h1 = _c.reshape(dx[:-1], tuple(shp))
            h2 = _c.reshape(dx[1:], tuple(shp))
            inner = (h1 * h1 * sl(slice(2, None)) - h2 * h2 * sl(slice(None, -2)) +
                     (h2 * h2 - h1 * h1) * sl(slice(1, -1))) / (h1 * h2 * (h1 + h2))
            first = (sl(slice(1, 2)) - sl(slice(0, 1))) / dx[0]
            last = (sl(slice(-1, None)) - sl(slice(-2, -1))) / dx[-1]
        out.append(_c.concatenate([first, inner, last], ax) if n > 2 else
                   _c.concatenate([first, last], ax))
    return out[0] if len(out) == 1 else out


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of y along axis by the trapezoidal rule (sample points x, or spacing
    dx)."""
    y = to_float(arr(y))
    ax = axis_index("trapezoid", axis, y.ndim)
    y = _c.moveaxis(y, ax, -1) if ax != y.ndim - 1 else y
    if x is None:
        d = cast(arr(dx), y.dtype)
    else:
        xx = cast(arr(x), y.dtype)
        if xx.ndim == 1:
            d = xx[1:] - xx[:-1]
        else:
            xx = _c.moveaxis(xx, ax, -1) if ax != xx.ndim - 1 else xx
            d = xx[..., 1:] - xx[..., :-1]
    return _c.sum(d * (y[..., 1:] + y[..., :-1]), -1) / 2


def unwrap(p, discont=None, axis=-1, period=2 * _np.pi):
    """p with jumps larger than discont (default period / 2) along axis replaced by their
    period complement."""
    p = to_float(arr(p))
    ax = axis_index("unwrap", axis, p.ndim)
    dd = diff(p, axis=ax)
    if discont is None:
        discont = period / 2
    interval_high = period / 2
    interval_low = -interval_high
    ddmod = _c.remainder(dd - interval_low, period) + interval_low
    ddmod = _c.where(_c.logical_and(_c.equal(ddmod, interval_low), _c.greater(dd, 0)),
                     cast(arr(interval_high), p.dtype), ddmod)
    corr = _c.where(_c.less(_c.abs(dd), discont), _c.zeros((), p.dtype), ddmod - dd)
    shp = list(p.shape)
    shp[ax] = 1
    c = _c.concatenate([_c.zeros(tuple(shp), p.dtype), _l.cumsum(corr, ax)], ax)
    return p + c


def interp(x, xp, fp, left=None, right=None, period=None):
    """The piecewise-linear interpolant through (xp, fp) (xp increasing) at x; left/right
    for x outside (default fp[0]/fp[-1]); with period, xp is periodic."""
    x, xp, fp = arr(x), arr(xp), arr(fp)
    if xp.ndim != 1 or fp.ndim != 1 or xp.shape != fp.shape:
        raise ValueError(f"[interp] xp and fp must be 1-d of the same length, got "
                         f"{list(xp.shape)} and {list(fp.shape)}")
    if xp.shape[0] == 0:
        raise ValueError("[interp] xp and fp must not be empty")
    ft = rtype(float_dtype(x), float_dtype(xp), float_dtype(fp))
    x, xp, fp = cast(x, ft), cast(xp, ft), cast(fp, ft)
    if period is not None:
        if left is not None or right is not None:
            raise ValueError("[interp] left and right have no effect with period")
        per = _c.abs(cast(arr(period), ft))
        x = _c.remainder(x, per)
        xp = _c.remainder(xp, per)
        order = _l.sort((xp, fp), 0, 1)
        xp, fp = order
        xp = _c.concatenate([xp[-1:] - per, xp, xp[:1] + per], 0)
        fp = _c.concatenate([fp[-1:], fp, fp[:1]], 0)
    from strata._numpy_sort import searchsorted
    n = xp.shape[0]
    if n == 1:
        r = _c.broadcast_to(fp[0], x.shape)
    else:
        i = _c.clip(searchsorted(xp, x, "right"), 1, n - 1)
        x0, x1 = _c.take(xp, i - 1, 0), _c.take(xp, i, 0)
        f0, f1 = _c.take(fp, i - 1, 0), _c.take(fp, i, 0)
        dx = x1 - x0
        safe = _c.where(_c.equal(dx, 0), _c.ones((), ft), dx)
        t = (x - x0) / safe
        r = _c.where(_c.equal(dx, 0), f0, f0 + t * (f1 - f0))
    if period is None:
        lv = fp[0] if left is None else cast(arr(left), ft)
        rv = fp[-1] if right is None else cast(arr(right), ft)
        r = _c.where(_c.less(x, xp[0]), lv, r)
        r = _c.where(_c.greater(x, xp[-1]), rv, r)
        r = _c.where(_c.equal(x, xp[-1]), fp[-1], r) if right is None else r
    return r


# ---- Polynomials (coefficients highest power first) -------------------------------------------

def polyval(p, x, *, unroll=16):
    """The polynomial with coefficients p (highest power first) at x, by Horner's rule (a scan
    over the coefficients, `unroll` steps per iteration)."""
    from strata.lax import scan
    p, x = arr(p), arr(x)
    if p.ndim != 1:
        raise ValueError(f"[polyval] p must be 1-d, got {list(p.shape)}")
    t = rtype(p, x)
    p, x = cast(p, t), cast(x, t)
    y0 = _c.zeros(x.shape, t)
    if p.shape[0] == 0:
        return y0
    return scan(lambda y, c: (y * x + c, None), y0, p, unroll=int(unroll))[0]


def _trim(a):
    if not a.is_concrete:
        raise TypeError("[poly] trim_leading_zeros needs concrete coefficients")
    v = _np.asarray(a)
    nz = _np.flatnonzero(v)
    return a[int(nz[0]):] if nz.size else a[-1:]


def polyadd(a1, a2):
    """The sum of two polynomials."""
    a, b = arr(a1), arr(a2)
    t = rtype(a, b)
    a, b = cast(_c.ravel(a), t), cast(_c.ravel(b), t)
    n = _b.max(a.shape[0], b.shape[0])
    a = _l.pad(a, _c.zeros((), t), [(n - a.shape[0], 0, 0)])
    b = _l.pad(b, _c.zeros((), t), [(n - b.shape[0], 0, 0)])
    return a + b


def polysub(a1, a2):
    """The difference of two polynomials."""
    return polyadd(a1, -arr(a2))


def polymul(a1, a2, *, trim_leading_zeros=False):
    """The product of two polynomials (the convolution of their coefficients)."""
    from strata._numpy_shape import convolve
    a, b = _c.ravel(arr(a1)), _c.ravel(arr(a2))
    if trim_leading_zeros:
        a, b = _trim(a), _trim(b)
    if a.shape[0] == 0 or b.shape[0] == 0:
        t = rtype(a, b)
        return _c.zeros((1,), t)
    return convolve(a, b)


def polydiv(u, v, *, trim_leading_zeros=False):
    """(quotient, remainder) of polynomial long division u / v."""
    u, v = to_float(_c.ravel(arr(u))), _c.ravel(arr(v))
    t = rtype(u, float_dtype(v))
    u, v = cast(u, t), cast(v, t)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = 1.0 / v[0]
    q = _c.zeros((_b.max(m - n + 1, 1),), t)
    r = u
    for k in range(0, m - n + 1):
        d = scale * r[k]
        q = q.at[k].set(d)
        upd = _l.pad(d * v, _c.zeros((), t), [(k, m - n - k, 0)])
        r = r - upd
    if trim_leading_zeros:
        r = _trim(r)
    return q, r


def polyder(p, m=1):
    """The m-th derivative of the polynomial p."""
    p = arr(p)
    m = int(m)
    if m < 0:
        raise ValueError(f"[polyder] order of derivative must be positive, got {m}")
    t = p.dtype if is_inexact(p.dtype) else rtype(p, 1)
    p = cast(p, t)
    for _ in range(m):
        n = p.shape[0]
        if n <= 1:
            return _c.zeros((0,), t) if n == 0 else _c.zeros((0,), t)
        pw = cast(arr(_np.arange(n - 1, 0, -1)), t)
        p = p[:-1] * pw
    return p


def polyint(p, m=1, k=None):
    """The m-th antiderivative of p, with integration constants k (zeros by default)."""
    p = to_float(arr(p))
    m = int(m)
    if m < 0:
        raise ValueError(f"[polyint] order of integral must be positive, got {m}")
    ks = _c.zeros((m,), p.dtype) if k is None else \
        _c.broadcast_to(cast(_c.ravel(arr(k)), p.dtype), (m,))
    for i in range(m):
        n = p.shape[0]
        div = cast(arr(_np.arange(n, 0, -1)), p.dtype)
        p = _c.concatenate([p / div, ks[i:i + 1]], 0)
    return p


def poly(seq_of_zeros):
    """The coefficients of the monic polynomial with the given roots (1-d input)."""
    from strata._numpy_shape import convolve
    z = arr(seq_of_zeros)
    if z.ndim != 1:
        raise NotImplementedError("[poly] only a 1-d sequence of roots is supported (matrix "
                                  "input needs eigenvalues)")
    z = to_float(z)
    c = _c.ones((1,), z.dtype)
    for i in range(z.shape[0]):
        c = convolve(c, _c.stack([_c.ones((), z.dtype), -z[i]], 0))
    return c


# ---- Window functions ------------------------------------------------------------------------

def _window(M, f):
    M = int(M)
    ft = _c.zeros((), float).dtype
    if M < 1:
        return _c.zeros((0,), ft)
    if M == 1:
        return _c.ones((1,), ft)
    n = cast(_l.iota(int_dtype(), M), ft)
    return f(n, M)


def bartlett(M):
    """The Bartlett (triangular) window of M points."""
    return _window(M, lambda n, M: 1 - _c.abs(2 * n / (M - 1) - 1))


def blackman(M):
    """The Blackman window of M points."""
    return _window(M, lambda n, M: 0.42 - 0.5 * _c.cos(2 * _np.pi * n / (M - 1)) +
                   0.08 * _c.cos(4 * _np.pi * n / (M - 1)))


def hamming(M):
    """The Hamming window of M points."""
    return _window(M, lambda n, M: 0.54 - 0.46 * _c.cos(2 * _np.pi * n / (M - 1)))


def hanning(M):
    """The Hann window of M points."""
    return _window(M, lambda n, M: 0.5 - 0.5 * _c.cos(2 * _np.pi * n / (M - 1)))


# ---- Bit packing -----------------------------------------------------------------------------

def packbits(a, axis=None, bitorder="big"):
    """The bits of the boolean/integer a (nonzero = 1) packed into uint8 along axis (flattened
    for None), zero-padded to a multiple of 8."""
    a = arr(a)
    if not (is_int(a.dtype) or kind(a.dtype) == "b"):
        raise TypeError(f"[packbits] expected an integer or boolean array, got {a.dtype}")
    if bitorder not in ("big", "little"):
        raise ValueError(f"[packbits] bitorder must be 'big' or 'little', got {bitorder!r}")
    if axis is None:
        a, axis = _c.ravel(a), 0
    ax = axis_index("packbits", axis, a.ndim)
    bits = cast(_c.not_equal(a, 0), _np.dtype("uint8"))
    n = bits.shape[ax]
    pad = (-n) % 8
    cfg = [(0, 0, 0)] * bits.ndim
    cfg[ax] = (0, pad, 0)
    bits = _l.pad(bits, _c.zeros((), bits.dtype), cfg)
    bits = _c.moveaxis(bits, ax, -1)
    bits = _c.reshape(bits, tuple(bits.shape[:-1]) + ((n + pad) // 8, 8))
    w = _np.array([128, 64, 32, 16, 8, 4, 2, 1] if bitorder == "big" else
                  [1, 2, 4, 8, 16, 32, 64, 128], _np.uint8)
    r = cast(_c.sum(bits * arr(w), -1), _np.dtype("uint8"))
    return _c.moveaxis(r, -1, ax)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    """The bits of the uint8 a, unpacked along axis (flattened for None); count keeps that
    many (negative: drops that many from the end)."""
    a = arr(a)
    if a.dtype != _np.dtype("uint8"):
        raise TypeError(f"[unpackbits] expected an input array of unsigned byte data type, "
                        f"got {a.dtype}")
    if bitorder not in ("big", "little"):
        raise ValueError(f"[unpackbits] bitorder must be 'big' or 'little', got {bitorder!r}")
    if axis is None:
        a, axis = _c.ravel(a), 0
    ax = axis_index("unpackbits", axis, a.ndim)
    sh = _np.arange(7, -1, -1) if bitorder == "big" else _np.arange(8)
    x = _c.moveaxis(a, ax, -1)[..., None]
    bits = _c.bitwise_and(_l.shift_right_logical(_c.broadcast_to(x, tuple(x.shape[:-1]) + (8,)),
                                                 _c.broadcast_to(arr(sh.astype(_np.uint8)),
                                                                 tuple(x.shape[:-1]) + (8,))),
                          cast(arr(1), x.dtype))
    bits = _c.reshape(bits, tuple(bits.shape[:-2]) + (bits.shape[-2] * 8,))
    if count is not None:
        bits = bits[..., :int(count)]
    return _c.moveaxis(bits, -1, ax)


# ---- Dtype introspection ---------------------------------------------------------------------

generic, number, integer = _np.generic, _np.number, _np.integer
signedinteger, unsignedinteger = _np.signedinteger, _np.unsignedinteger
inexact, floating, complexfloating = _np.inexact, _np.floating, _np.complexfloating
character, flexible = _np.character, _np.flexible
euler_gamma = _np.euler_gamma
dtype = _np.dtype


def _is_bf16(d):
    from strata._dtypes import bfloat16
    return d is bfloat16 or (isinstance(d, str) and d == "bfloat16") or \
        getattr(d, "name", None) == "bfloat16"


def _dtype_of(x):
    """The dtype of a dtype-like or an array-like (Python scalars give numpy's type)."""
    if isinstance(x, (_core.Array, _np.ndarray, _np.generic)):
        return x.dtype
    if isinstance(x, bool):
        return _np.dtype(bool)
    if isinstance(x, int):
        return int_dtype()
    if isinstance(x, float):
        return _c.zeros((), float).dtype
    if isinstance(x, (list, tuple)):
        return arr(x).dtype
    return to_dtype(x)


class _BF16Info:
    """finfo of bfloat16 (8 exponent bits, 7 mantissa bits), for numpy without ml_dtypes."""

    def __init__(self, dt):
        self.dtype = dt
        self.bits = 16
        self.nmant, self.nexp = 7, 8
        self.eps = _np.float32(2.0 ** -7)
        self.epsneg = _np.float32(2.0 ** -8)
        self.max = _np.float32(3.3895313892515355e38)
        self.min = -self.max
        self.tiny = self.smallest_normal = _np.float32(2.0 ** -126)
        self.smallest_subnormal = _np.float32(2.0 ** -133)
        self.resolution = _np.float32(0.01)
        self.precision = 2
        self.maxexp, self.minexp = 128, -126
        self.machep, self.negep = -7, -8
        self.iexp = 8

    def __repr__(self):
        return (f"finfo(resolution={self.resolution}, min={self.min:.4e}, max={self.max:.4e}, "
                f"dtype=bfloat16)")


def finfo(dtype):
    """Machine limits of a floating dtype (eps, max, min, tiny, bits...); bfloat16 too."""
    d = _dtype_of(dtype)
    if _is_bf16(d):
        try:
            import ml_dtypes
            return ml_dtypes.finfo(d)
        except ImportError:
            return _BF16Info(d)
    if kind(d) not in "fc":
        raise ValueError(f"[finfo] data type {d} not inexact")
    return _np.finfo(d)


def iinfo(int_type):
    """Machine limits of an integer dtype (min, max, bits)."""
    d = _dtype_of(int_type)
    if kind(d) not in "iub":
        raise ValueError(f"[iinfo] invalid integer data type {d}")
    if kind(d) == "b":
        raise ValueError("[iinfo] invalid integer data type bool")
    return _np.iinfo(d)


def _abstract(c):
    return isinstance(c, type) and issubclass(c, _np.generic) and c in (
        _np.generic, _np.number, _np.integer, _np.signedinteger, _np.unsignedinteger,
        _np.inexact, _np.floating, _np.complexfloating, _np.character, _np.flexible)


def issubdtype(arg1, arg2):
    """True when dtype arg1 is arg2 or below it in the hierarchy (jnp.floating, jnp.integer
    ...); bfloat16 is a floating type."""
    d1 = arg1 if _abstract(arg1) else _dtype_of(arg1)
    if _abstract(arg2):
        if _is_bf16(d1):
            return arg2 in (_np.generic, _np.number, _np.inexact, _np.floating)
        return _np.issubdtype(d1, arg2)
    d2 = _dtype_of(arg2)
    if _is_bf16(d1) or _is_bf16(d2):
        return _is_bf16(d1) and _is_bf16(d2)
    return _np.issubdtype(d1, d2)


_KINDS = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
          "real floating": "f", "complex floating": "c", "numeric": "iufc"}


def isdtype(dtype, kind):
    """The Array API's dtype kind test: kind is a dtype, a name ('bool', 'signed integer',
    'unsigned integer', 'integral', 'real floating', 'complex floating', 'numeric') or a
    tuple of them."""
    d = _dtype_of(dtype)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    k = getattr(d, "kind", "f")
    for q in kinds:
        if isinstance(q, str) and q in _KINDS:
            if k in _KINDS[q]:
                return True
        elif isinstance(q, str) and q not in _KINDS and not q.isidentifier():
            raise ValueError(f"[isdtype] unrecognized kind {q!r}")
        else:
            try:
                if _dtype_of(q) == d:
                    return True
            except TypeError:
                raise TypeError(f"[isdtype] kind must be a dtype, a string or a tuple, got "
                                f"{q!r}") from None
    return False


def can_cast(from_, to, casting="safe"):
    """Whether a cast from from_ (a dtype or array) to `to` keeps values under the rule."""
    d1, d2 = _dtype_of(from_), _dtype_of(to)
    if _is_bf16(d1) or _is_bf16(d2):
        if _is_bf16(d1) and _is_bf16(d2):
            return True
        if casting == "unsafe":
            return True
        if _is_bf16(d1):
            return kind(d2) in "fc" and getattr(d2, "itemsize", 0) >= 4
        return kind(d1) == "b" or (casting == "same_kind" and kind(d1) in "iuf")
    return bool(_np.can_cast(d1, d2, casting))


def iscomplexobj(x):
    """True when x has a complex dtype."""
    try:
        return kind(_dtype_of(x)) == "c"
    except TypeError:
        return False


def isrealobj(x):
    """True when x does not have a complex dtype."""
    return not iscomplexobj(x)


def isscalar(element):
    """True for Python/numpy scalars and 0-d arrays (as JAX)."""
    if isinstance(element, (_core.Array, _np.ndarray)):
        return element.ndim == 0
    return isinstance(element, (bool, int, float, complex, _np.generic))


iterable = _np.iterable


def size(a, axis=None):
    """The number of elements (along one axis when given)."""
    a = arr(a) if not hasattr(a, "shape") else a
    if axis is None:
        return int(_np.prod(a.shape))
    return a.shape[axis_index("size", axis, len(a.shape))]


def shape(a):
    """The shape of a as a tuple."""
    return tuple(a.shape) if hasattr(a, "shape") else tuple(arr(a).shape)


def ndim(a):
    """The number of dimensions of a."""
    return len(shape(a))


# ---- Function transformers -------------------------------------------------------------------

_DIM = r"\w+"
_CORE = r"\((?:{0}(?:,{0})*)?\)".format(_DIM)
_ARGS = r"{0}(?:,{0})*".format(_CORE)
_SIG = r"^{0}->{0}$".format(_ARGS)


def _parse_signature(sig):
    s = sig.replace(" ", "")
    if not _re.match(_SIG, s):
        raise ValueError(f"[vectorize] not a valid gufunc signature: {sig}")
    ins, outs = s.split("->")
    parse = lambda part: [tuple(_re.findall(_DIM, g)) for g in _re.findall(_CORE, part)]
    return parse(ins), parse(outs)


class vectorize:
    """pyfunc mapped over its arguments' broadcast leading axes with vmap (every axis, or the
    loop axes of a gufunc `signature` such as '(n),(n)->()'); `excluded` names positional
    indices or keywords passed through unmapped."""

    def __init__(self, pyfunc, *, excluded=frozenset(), signature=None):
        self.pyfunc = pyfunc
        self.excluded = frozenset(excluded)
        self.signature = signature
        _functools.update_wrapper(self, pyfunc)

    def __call__(self, *args, **kwargs):
        from strata import vmap
        excluded = self.excluded
        ex_pos = {i for i in excluded if isinstance(i, int)}
        ex_kw = {k for k in excluded if isinstance(k, str)}
        for i in ex_pos:
            if not 0 <= i < len(args):
                raise ValueError(f"[vectorize] excluded positional argument {i} not given")
        ex_pos |= {i for i, a in enumerate(args) if a is None}  # None passes through, as JAX
        static_kw = {k: v for k, v in kwargs.items() if k in ex_kw}
        dyn_kw = {k: v for k, v in kwargs.items() if k not in ex_kw}
        names = list(dyn_kw)
        dyn_pos = [i for i in range(len(args)) if i not in ex_pos]
        vals = [arr(args[i]) for i in dyn_pos] + [arr(dyn_kw[k]) for k in names]

        def call(*xs):
            full = list(args)
            for i, x in zip(dyn_pos, xs):
                full[i] = x
            kw = dict(static_kw)
            kw.update({k: x for k, x in zip(names, xs[len(dyn_pos):])})
            return self.pyfunc(*full, **kw)

        if self.signature is None:
            core = [()] * len(vals)
        else:
            ins, _ = _parse_signature(self.signature)
            if len(ins) != len(vals):
                raise TypeError(f"[vectorize] wrong number of positional arguments: expected "
                                f"{len(ins)}, got {len(vals)}")
            core = ins
        sizes = {}
        loop_shapes = []
        for x, dims in zip(vals, core):
            if x.ndim < len(dims):
                raise ValueError(f"[vectorize] input with shape {list(x.shape)} has fewer "
                                 f"dimensions than the core dimensions {dims}")
            for dname, n in zip(dims, x.shape[x.ndim - len(dims):]):
                if sizes.setdefault(dname, n) != n:
                    raise ValueError(f"[vectorize] inconsistent size for core dimension "
                                     f"{dname!r}: {sizes[dname]} vs {n}")
            loop_shapes.append(tuple(x.shape[:x.ndim - len(dims)]))
        bshape = _c.broadcast_shapes(*loop_shapes) if loop_shapes else ()
        vals = [_c.broadcast_to(x, tuple(bshape) + tuple(x.shape[x.ndim - len(d):]))
                for x, d in zip(vals, core)]
        f = call
        for _ in range(len(bshape)):
            f = vmap(f)
        return f(*vals)


class ufunc:
    """A universal function (jax.numpy.ufunc): an elementwise function of nin arguments with
    numpy's methods outer, reduce, accumulate and at (binary, single-output functions); call,
    reduce, accumulate and at may give fast implementations, else folds run as scans."""

    def __init__(self, func, /, nin, nout, *, name=None, nargs=None, identity=None, call=None,
                 reduce=None, accumulate=None, at=None, reduceat=None):
        self._func = func
        self.nin, self.nout = int(nin), int(nout)
        self.nargs = self.nin if nargs is None else int(nargs)
        self.identity = identity
        self.__name__ = name or getattr(func, "__name__", "ufunc")
        self.__doc__ = getattr(func, "__doc__", None) or ufunc.__doc__
        self._call = call if call is not None else vectorize(func)
        self._reduce, self._accumulate, self._at = reduce, accumulate, at
        if reduceat is not None:
            raise NotImplementedError("[ufunc] reduceat is not supported")

    def __repr__(self):
        return f"<strata.numpy.ufunc '{self.__name__}'>"

    def __call__(self, *args, out=None, where=None):
        check_out(self.__name__, out)
        if where is not None:
            raise NotImplementedError(f"[{self.__name__}] the where argument is not supported")
        if len(args) != self.nin:
            raise TypeError(f"[{self.__name__}] expected {self.nin} arguments, got {len(args)}")
        return self._call(*args)

    def _binary(self, method):
        if self.nin != 2 or self.nout != 1:
            raise ValueError(f"[{self.__name__}.{method}] only binary ufuncs with one output "
                             f"support {method} (nin={self.nin}, nout={self.nout})")

    def outer(self, A, B, /):
        """func(a, b) for every pair of entries: shape A.shape + B.shape."""
        self._binary("outer")
        a, b = arr(A), arr(B)
        return self(_c.reshape(a, tuple(a.shape) + (1,) * b.ndim), b)

    def _fold(self, a, axis, initial, where, keep_all):
        from strata.lax import scan
        x = _c.moveaxis(a, axis, 0) if axis else a
        w = None
        if where is not None:
            w = _c.broadcast_to(arr(where), a.shape)
            w = _c.moveaxis(w, axis, 0) if axis else w
        if initial is None:
            if x.shape[0] == 0:
                if self.identity is None:
                    raise ValueError(f"[{self.__name__}.reduce] zero-size reduction of a ufunc "
                                     f"without identity needs initial")
                initial = self.identity
            elif w is not None:
                if self.identity is None:
                    raise ValueError(f"[{self.__name__}.reduce] a where mask needs initial (or "
                                     f"a ufunc identity)")
                initial = self.identity
        if initial is None:
            carry, xs, ws = x[0], x[1:], None if w is None else w[1:]
        else:
            carry, xs, ws = _c.broadcast_to(cast(arr(initial), x.dtype), x.shape[1:]), x, w

        def step(c, item):
            v = item if ws is None else item[0]
            n = cast(self(c, v), c.dtype)
            if ws is not None:
                n = _c.where(item[1], n, c)
            return n, (n if keep_all else None)
        final, ys = scan(step, carry, xs if ws is None else (xs, ws))
        return final, ys, carry if initial is None else None

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=None):
        """func folded over axis (all axes for None, several in turn for a tuple), starting
        from initial (or the first entry; the identity where needed)."""
        self._binary("reduce")
        check_out(f"{self.__name__}.reduce", out)
        if self._reduce is not None:
            return self._reduce(a, axis, dtype, None, keepdims, initial, where)
        a = arr(a)
        if dtype is not None:
            a = cast(a, to_dtype(dtype))
        if axis is None:
            axs = tuple(range(a.ndim))
        elif isinstance(axis, (tuple, list)):
            axs = tuple(axis_index(f"{self.__name__}.reduce", x, a.ndim) for x in axis)
        else:
            axs = (axis_index(f"{self.__name__}.reduce", axis, a.ndim),)
        if not axs:
            return a
        # the reduced axes merged into one (numpy reduces several axes only for reorderable
        # ufuncs, where the order does not matter)
        x = move_to_end(a, axs)
        w = None if where is None else move_to_end(_c.broadcast_to(arr(where), a.shape), axs)
        r = self._fold(x, x.ndim - 1, initial, w, False)[0]
        if keepdims:
            r = _c.reshape(r, tuple(1 if i in axs else s for i, s in enumerate(a.shape)))
        return r

    def accumulate(self, a, axis=0, dtype=None, out=None):
        """The running fold of func along axis (the first entry, then func(previous, next))."""
        self._binary("accumulate")
        check_out(f"{self.__name__}.accumulate", out)
        if self._accumulate is not None:
            return self._accumulate(a, axis, dtype)
        a = arr(a)
        if dtype is not None:
            a = cast(a, to_dtype(dtype))
        ax = axis_index(f"{self.__name__}.accumulate", axis, a.ndim)
        if a.shape[ax] == 0:
            return a
        _, ys, first = self._fold(a, ax, None, None, True)
        r = _c.concatenate([first[None], ys], 0) if ys.shape[0] else first[None]
        return _c.moveaxis(r, 0, ax) if ax else r

    def at(self, a, indices, b=None, /, *, inplace=True):
        """a with a[i] = func(a[i], b) applied at each index in turn (repeats accumulate);
        inplace=False is required (Arrays are immutable)."""
        if inplace:
            raise ValueError(f"[{self.__name__}.at] Arrays are immutable: pass inplace=False "
                             f"and use the result")
        if self._at is not None and b is not None:
            return self._at(arr(a), arr(indices), b)
        from strata.lax import scan
        a = arr(a)
        idx = _c.ravel(arr(indices))
        n = a.shape[0]
        idx = _c.where(idx < 0, idx + n, idx)
        if b is None:
            if self.nin != 1:
                raise ValueError(f"[{self.__name__}.at] b is needed for a binary ufunc")
            upd = lambda x, v: self(x)
            bs = _c.zeros(idx.shape, a.dtype)
        else:
            self._binary("at")
            upd = self
            bs = _c.broadcast_to(cast(arr(b), a.dtype), tuple(idx.shape) + tuple(a.shape[1:]))

        def step(c, item):
            i, v = item
            return c.at[i].set(cast(arr(upd(c[i], v)), c.dtype)), None
        return scan(step, a, (idx, bs))[0]


def frompyfunc(func, /, nin, nout, *, identity=None):
    """A ufunc from a Python function of scalars (vectorized over all arguments)."""
    return ufunc(func, nin, nout, identity=identity)


def apply_along_axis(func1d, axis, arr_, *args, **kwargs):
    """func1d applied to every 1-d slice of arr_ along axis (vmap over the other axes); its
    output axes take the place of axis."""
    from strata import vmap
    a = arr(arr_)
    ax = axis_index("apply_along_axis", axis, a.ndim)
    f = lambda x: func1d(x, *args, **kwargs)
    for i in range(1, ax + 1):
        f = vmap(f, in_axes=0, out_axes=0)
    for i in range(ax + 1, a.ndim):
        f = vmap(f, in_axes=-1, out_axes=-1)
    return f(a)


def apply_over_axes(func, a, axes):
    """func(a, axis) applied for each axis in turn, keeping the dimension (re-inserted when
    func drops it)."""
    a = arr(a)
    for ax in (axes if isinstance(axes, (tuple, list)) else (axes,)):
        r = func(a, ax)
        a = r if r.ndim == a.ndim else _c.expand_dims(r, ax)
    return a


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """function applied to the index grids of an array of the shape (one grid per axis, of
    the dtype)."""
    from strata._numpy_shape import indices
    g = indices(tuple(int(s) for s in shape), dtype=dtype)
    return function(*[g[i] for i in range(g.shape[0])], **kwargs)


# ---- Printing, files, buffers, index tricks (numpy's, with Arrays) ----------------------------

printoptions, set_printoptions, get_printoptions = (_np.printoptions, _np.set_printoptions,
                                                    _np.get_printoptions)


def array_repr(arr_, max_line_width=None, precision=None, suppress_small=None):
    """numpy's array_repr of the values."""
    return _np.array_repr(_np.asarray(arr_), max_line_width, precision, suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """numpy's array_str of the values."""
    return _np.array_str(_np.asarray(a), max_line_width, precision, suppress_small)


def save(file, arr_, allow_pickle=True):
    """numpy's save of the values."""
    return _np.save(file, _np.asarray(arr_), allow_pickle)


def savez(file, *args, **kwds):
    """numpy's savez of the values."""
    return _np.savez(file, *[_np.asarray(a) for a in args],
                     **{k: _np.asarray(v) for k, v in kwds.items()})


def load(file, *args, **kwargs):
    """numpy's load, arrays converted to Arrays."""
    out = _np.load(file, *args, **kwargs)
    return arr(out) if isinstance(out, _np.ndarray) and out.dtype != object else out


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    """An Array of the bytes in buffer interpreted as dtype."""
    return arr(_np.frombuffer(buffer, to_dtype(dtype), count, offset))


def fromstring(string, dtype=float, count=-1, *, sep):
    """An Array parsed from text with separator sep."""
    return arr(_np.fromstring(string, to_dtype(dtype), count, sep=sep))


def fromiter(iterable, dtype, count=-1):
    """An Array of the values of an iterable."""
    return arr(_np.fromiter(iterable, to_dtype(dtype), count))


def fromfile(*args, **kwargs):
    """Not supported (as in JAX): read with numpy.fromfile and convert with asarray."""
    raise NotImplementedError("[fromfile] reading files inside traced code is not supported: "
                              "use numpy.fromfile and strata.numpy.asarray")


def einsum_path(subscripts, *operands, optimize="auto"):
    """numpy's contraction order for einsum over operands of these shapes (the path, and a
    printable report)."""
    ops = [_np.zeros(o.shape, _np.float32) if hasattr(o, "shape") else o for o in operands]
    return _np.einsum_path(subscripts, *ops, optimize="greedy" if optimize == "auto" else
                           optimize)


s_, index_exp = _np.s_, _np.index_exp


class _Concatenator:
    """r_ / c_: slices become ranges (a complex step is a number of points), scalars 1-d,
    and the pieces are concatenated along the first axis (r_; a string like "1" sets the
    axis) or as columns (c_: 1-d pieces become [n, 1])."""

    def __init__(self, axis, columns, name):
        self.axis, self.columns, self.name = axis, columns, name

    def __getitem__(self, key):
        from strata._numpy_shape import linspace, arange
        keys = key if isinstance(key, tuple) else (key,)
        axis = self.axis
        parts = []
        for k in keys:
            if isinstance(k, str):
                if not _re.fullmatch(r"-?\d+", k.strip()):
                    raise NotImplementedError(f"[{self.name}] only an integer axis directive "
                                              f"is supported, got {k!r}")
                axis = int(k)
                continue
            if isinstance(k, slice):
                step = 1 if k.step is None else k.step
                start = 0 if k.start is None else k.start
                v = linspace(start, k.stop, int(_b.abs(step))) if isinstance(step, complex) \
                    else arange(start, k.stop, step)
            else:
                v = arr(k)
            if v.ndim == 0:
                v = _c.reshape(v, (1,))
            if self.columns and v.ndim == 1:
                v = _c.reshape(v, (-1, 1))
            parts.append(v)
        if not parts:
            return _c.zeros((0,), _c.zeros((), float).dtype)
        dt = rtype(*parts)
        return _c.concatenate([cast(p, dt) for p in parts], axis_index(self.name, axis,
                                                                          parts[0].ndim))


r_ = _Concatenator(0, False, "r_")
c_ = _Concatenator(-1, True, "c_")
