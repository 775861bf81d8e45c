"""strata.numpy array creation and shape manipulation with JAX's signatures: reshape orders,
concatenate/stack families, splits, pad in every mode, tile/repeat/roll, triangles and
diagonals, index helpers (nonzero, where, take with modes), grids and ranges."""

import builtins as _b

import numpy as _np

from strata import _core
from strata._numpy_util import (_c, _l, arr, kind, is_inexact, is_int, to_dtype, cast,
                                check_out, axis_index, int_dtype, concrete_int, float_dtype, rtype,
                                to_float, scatter_1d)

__all__ = ["reshape", "ravel", "concatenate", "concat", "stack", "hstack", "vstack", "dstack",
           "column_stack", "row_stack", "block", "atleast_1d", "atleast_2d", "atleast_3d",
           "split", "array_split", "hsplit", "vsplit", "dsplit", "moveaxis", "rollaxis",
           "permute_dims", "matrix_transpose", "pad", "tile", "repeat", "roll", "rot90",
           "fliplr", "flipud", "tri", "tril", "triu", "diag", "diagflat", "diagonal",
           "diag_indices", "diag_indices_from", "tril_indices", "triu_indices",
           "tril_indices_from", "triu_indices_from", "mask_indices", "trace", "identity", "eye",
           "kron", "cross", "convolve", "correlate", "meshgrid", "mgrid", "ogrid", "indices",
           "ix_", "insert", "delete", "append", "resize", "trim_zeros", "empty", "empty_like",
           "full_like", "zeros_like", "ones_like", "copy", "ravel_multi_index",
           "unravel_index", "nonzero", "argwhere", "flatnonzero", "where", "select",
           "piecewise", "compress", "extract", "place", "put", "choose", "take",
           "take_along_axis", "put_along_axis", "linspace", "logspace", "geomspace", "arange",
           "squeeze", "expand_dims", "fill_diagonal", "unstack", "broadcast_arrays",
           "broadcast_shapes", "broadcast_to", "vander", "tensordot", "einsum", "matmul", "outer",
           "inner", "vdot", "vecdot", "matvec", "vecmat"]


def _ints(op, v, what):
    if isinstance(v, (int, _np.integer)):
        return (int(v),)
    return tuple(concrete_int(op, x, what) for x in v)


# ---- Reshaping -------------------------------------------------------------------------------

def _shape_arg(shape):
    if isinstance(shape, (int, _np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    """a with a new shape (one entry may be -1), read and written in C (row-major) or F
    (column-major) order."""
    if newshape is not None:
        if shape is not None:
            raise TypeError("[reshape] pass shape or the deprecated newshape, not both")
        shape = newshape
    if shape is None:
        raise TypeError("[reshape] missing the shape argument")
    a = arr(a)
    shape = _shape_arg(shape)
    _check_reshape(a, shape)
    if order in ("C", "A"):
        return _c.reshape(a, shape)
    if order != "F":
        raise ValueError(f"[reshape] order must be 'C', 'F' or 'A', got {order!r}")
    t = _c.transpose(a) if a.ndim > 1 else a
    r = _c.reshape(t, shape[::-1])
    return _c.transpose(r) if r.ndim > 1 else r


def _check_reshape(a, shape):
    """TypeError (as JAX) when shape (with at most one -1) does not hold a's elements."""
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise ValueError(f"[reshape] can only specify one unknown dimension, got {shape}")
    if _b.any(s < -1 for s in shape):
        raise ValueError(f"[reshape] negative dimension in {shape}")
    known = int(_np.prod([s for s in shape if s != -1])) if shape else 1
    n = int(_np.prod(a.shape)) if a.ndim else 1
    if (unknown and (known == 0 or n % known)) or (not unknown and known != n):
        raise TypeError(f"[reshape] cannot reshape {a.type_str()} ({n} elements) to "
                        f"{list(shape)}")


def ravel(a, order="C"):
    """a flattened, in C or F order."""
    return reshape(a, (-1,), order)


def _seq(op, arrays):
    if hasattr(arrays, "shape") and not isinstance(arrays, (list, tuple)):
        a = arr(arrays)
        return [a[i] for i in range(a.shape[0])]
    return [arr(x) for x in arrays]


def concatenate(arrays, axis=0, dtype=None):
    """The arrays joined along an existing axis (flattened first for axis=None), promoted to a
    common dtype (or `dtype`)."""
    xs = _seq("concatenate", arrays)
    if not xs:
        raise ValueError("[concatenate] need at least one array to concatenate")
    dt = to_dtype(dtype) if dtype is not None else rtype(*xs)
    xs = [cast(x, dt) for x in xs]
    if axis is None:
        return _c.concatenate([_c.ravel(x) for x in xs], 0)
    if xs[0].ndim == 0:
        raise ValueError("[concatenate] zero-dimensional arrays cannot be concatenated")
    ax = axis_index("concatenate", axis, xs[0].ndim)
    for i, x in enumerate(xs[1:], 1):
        if x.ndim != xs[0].ndim:
            raise ValueError(f"[concatenate] arrays must have the same number of dimensions: "
                             f"array {i} is {x.type_str()}, array 0 {xs[0].type_str()}")
        if _b.any(p != q for d, (p, q) in enumerate(zip(x.shape, xs[0].shape)) if d != ax):
            raise TypeError(f"[concatenate] array {i} ({x.type_str()}) does not match array 0 "
                            f"({xs[0].type_str()}) outside axis {ax}")
    return _c.concatenate(xs, ax)


def concat(arrays, /, *, axis=0):
    """The Array API's concatenate."""
    return concatenate(arrays, axis)


def stack(arrays, axis=0, out=None, dtype=None):
    """The arrays joined along a new axis."""
    check_out("stack", out)
    xs = _seq("stack", arrays)
    if not xs:
        raise ValueError("[stack] need at least one array to stack")
    dt = to_dtype(dtype) if dtype is not None else rtype(*xs)
    return _c.stack([cast(x, dt) for x in xs], axis)


def unstack(x, /, *, axis=0):
    """The slices of x along axis, as a tuple."""
    x = arr(x)
    ax = axis_index("unstack", axis, x.ndim)
    return tuple(_c.squeeze(s, ax) for s in _c.split(x, x.shape[ax], ax)) if x.shape[ax] \
        else ()


def hstack(tup, dtype=None):
    """Concatenation along the second axis (the first for 1-d arrays)."""
    xs = [atleast_1d(x) for x in _seq("hstack", tup)]
    return concatenate(xs, 0 if xs[0].ndim == 1 else 1, dtype)


def vstack(tup, dtype=None):
    """Concatenation along the first axis of the arrays made at least 2-d."""
    return concatenate([atleast_2d(x) for x in _seq("vstack", tup)], 0, dtype)


row_stack = vstack


def dstack(tup, dtype=None):
    """Concatenation along the third axis of the arrays made at least 3-d."""
    return concatenate([atleast_3d(x) for x in _seq("dstack", tup)], 2, dtype)


def column_stack(tup):
    """1-d arrays as columns (2-d arrays as they are), concatenated along axis 1."""
    xs = [arr(x) for x in _seq("column_stack", tup)]
    xs = [_c.reshape(x, (-1, 1)) if x.ndim < 2 else x for x in xs]
    return concatenate(xs, 1)


def block(arrays):
    """An array assembled from nested lists of blocks (the innermost lists join along the last
    axis, the outer ones along earlier axes)."""
    def depth(x):
        if isinstance(x, list):
            if not x:
                raise ValueError("[block] lists cannot be empty")
            ds = {depth(y) for y in x}
            if len(ds) != 1:
                raise ValueError("[block] list depths are mismatched")
            return 1 + ds.pop()
        if isinstance(x, tuple):
            raise TypeError("[block] arrays is a tuple; only lists can nest blocks")
        return 0
    d = depth(arrays)

    def leaves(x):
        return [z for y in x for z in leaves(y)] if isinstance(x, list) else [arr(x)]
    nd = _b.max([d] + [x.ndim for x in leaves(arrays)])

    def go(x, level):
        if not isinstance(x, list):
            x = arr(x)
            return _c.reshape(x, (1,) * (nd - x.ndim) + tuple(x.shape))
        parts = [go(y, level + 1) for y in x]
        return concatenate(parts, nd - d + level)
    return go(arrays, 0)


def atleast_1d(*arys):
    """Each argument as an array of at least one dimension (a list for several)."""
    out = [_c.reshape(x, (1,)) if x.ndim == 0 else x for x in map(arr, arys)]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    """Each argument with at least two dimensions (leading 1s added)."""
    out = [_c.reshape(x, (1,) * (2 - x.ndim) + tuple(x.shape)) if x.ndim < 2 else x
           for x in map(arr, arys)]
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys):
    """Each argument with at least three dimensions: [] -> [1,1,1], [n] -> [1,n,1],
    [m,n] -> [m,n,1]."""
    def f(x):
        if x.ndim == 0:
            return _c.reshape(x, (1, 1, 1))
        if x.ndim == 1:
            return _c.reshape(x, (1, x.shape[0], 1))
        if x.ndim == 2:
            return _c.reshape(x, tuple(x.shape) + (1,))
        return x
    out = [f(x) for x in map(arr, arys)]
    return out[0] if len(out) == 1 else out


def squeeze(a, axis=None):
    """a without its size-1 axes (only those in `axis` when given)."""
    return _c.squeeze(a, axis)


def expand_dims(a, axis):
    """a with new size-1 axes at the positions in `axis`."""
    return _c.expand_dims(a, axis)


def moveaxis(a, source, destination):
    """a with the axes `source` moved to the positions `destination` (ints or sequences)."""
    a = arr(a)
    src = [axis_index("moveaxis", s, a.ndim) for s in _ints("moveaxis", source, "source")]
    dst = [axis_index("moveaxis", s, a.ndim) for s in _ints("moveaxis", destination, "dest")]
    if len(src) != len(dst):
        raise ValueError(f"[moveaxis] source and destination must have the same number of "
                         f"elements: {len(src)} vs {len(dst)}")
    order = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _c.transpose(a, order) if order != list(range(a.ndim)) else a


def rollaxis(a, axis, start=0):
    """numpy's rollaxis: axis moved to just before position `start`."""
    a = arr(a)
    axis = axis_index("rollaxis", axis, a.ndim)
    if not -a.ndim <= start <= a.ndim:
        raise ValueError(f"[rollaxis] start {start} is out of bounds for array of dimension "
                         f"{a.ndim}")
    start = start % (a.ndim + 1) if start < 0 else start
    if axis < start:
        start -= 1
    return moveaxis(a, axis, start) if axis != start else a


def permute_dims(a, /, axes=None):
    """The Array API's transpose."""
    return _c.transpose(a, list(axes) if axes is not None else None)


def matrix_transpose(x, /):
    """x with its last two axes swapped."""
    x = arr(x)
    if x.ndim < 2:
        raise ValueError(f"[matrix_transpose] needs at least 2 dimensions, got "
                         f"{x.dtype}{list(x.shape)}")
    return _c.swapaxes(x, -1, -2)


# ---- Splitting -------------------------------------------------------------------------------

def _split_points(op, n, ios, equal):
    if isinstance(ios, (int, _np.integer)) or (hasattr(ios, "ndim") and arr(ios).ndim == 0):
        k = concrete_int(op, ios, "the number of sections")
        if k <= 0:
            raise ValueError(f"[{op}] number of sections must be larger than 0, got {k}")
        if equal and n % k:
            raise ValueError(f"[{op}] array split does not result in an equal division: "
                             f"size {n} into {k} sections")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        return list(_np.cumsum(sizes)[:-1])
    return [concrete_int(op, i, "split indices") for i in ios]


def _split(op, ary, ios, axis, equal):
    a = arr(ary)
    ax = axis_index(op, axis, a.ndim)
    n = a.shape[ax]
    pts = _split_points(op, n, ios, equal)
    bounds = [0] + [_b.min(_b.max(p + n if p < 0 else p, 0), n) for p in pts] + [n]
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        hi = _b.max(hi, lo)
        start = [0] * a.ndim
        stop = list(a.shape)
        start[ax], stop[ax] = lo, hi
        out.append(_l.slice(a, start, stop))
    return out


def split(ary, indices_or_sections, axis=0):
    """ary split along axis into equal sections (an int) or at the given indices."""
    return _split("split", ary, indices_or_sections, axis, True)


def array_split(ary, indices_or_sections, axis=0):
    """split that allows unequal sections (the first ones one longer)."""
    return _split("array_split", ary, indices_or_sections, axis, False)


def hsplit(ary, indices_or_sections):
    """split along the second axis (the first for 1-d)."""
    a = arr(ary)
    return _split("hsplit", a, indices_or_sections, 0 if a.ndim == 1 else 1, True)


def vsplit(ary, indices_or_sections):
    """split along the first axis (arrays of at least 2 dimensions)."""
    a = arr(ary)
    if a.ndim < 2:
        raise ValueError("[vsplit] only works on arrays of 2 or more dimensions")
    return _split("vsplit", a, indices_or_sections, 0, True)


def dsplit(ary, indices_or_sections):
    """split along the third axis (arrays of at least 3 dimensions)."""
    a = arr(ary)
    if a.ndim < 3:
        raise ValueError("[dsplit] only works on arrays of 3 or more dimensions")
    return _split("dsplit", a, indices_or_sections, 2, True)


# ---- Padding ---------------------------------------------------------------------------------

def _pad_pairs(op, pad_width, ndim):
    pw = _np.asarray(pad_width)
    if pw.dtype.kind not in "iu":
        if pw.dtype == object or pw.dtype.kind == "f":
            raise TypeError(f"[{op}] pad_width must be integers, got {pad_width!r}")
    try:
        pw = _np.broadcast_to(pw.astype(_np.int64), (ndim, 2))
    except ValueError:
        raise ValueError(f"[{op}] pad_width {pad_width!r} does not broadcast to ({ndim}, 2) "
                         f"for an array of dimension {ndim}") from None
    if (pw < 0).any():
        raise ValueError(f"[{op}] pad_width must be non-negative, got {pad_width!r}")
    return [(int(a), int(b)) for a, b in pw]


def _sl(x, axis, lo, hi):
    start = [0] * x.ndim
    stop = list(x.shape)
    start[axis], stop[axis] = lo, hi
    return _l.slice(x, start, stop)


def _values_pairs(op, v, ndim):
    """constant_values / end_values broadcast to per-axis (before, after) pairs (numpy's
    rules: a scalar, (v,), (before, after), or one pair per axis); Arrays may be traced."""
    if isinstance(v, _core.Array):
        if v.ndim == 0:
            return [(v, v)] * ndim
        try:
            b = _c.broadcast_to(v, (ndim, 2))
        except (ValueError, TypeError):
            raise ValueError(f"[{op}] values of shape {list(v.shape)} do not broadcast to "
                             f"({ndim}, 2)") from None
        return [(b[i, 0], b[i, 1]) for i in range(ndim)]
    try:
        b = _np.broadcast_to(_np.asarray(v, dtype=object), (ndim, 2))
    except ValueError:
        raise ValueError(f"[{op}] values {v!r} do not broadcast to ({ndim}, 2)") from None
    return [(b[i, 0], b[i, 1]) for i in range(ndim)]


def _reflect(x, axis, lo, hi, method, symmetric):
    """numpy's reflect/symmetric padding, chunk by chunk for pads longer than the axis (which
    has at least 2 entries for reflect, 1 for symmetric)."""
    while lo > 0 or hi > 0:
        n = x.shape[axis]
        period = n if symmetric else n - 1
        cl, ch = _b.min(period, lo), _b.min(period, hi)
        off = 0 if symmetric else 1
        pieces = []
        if cl:
            p = _l.rev(_sl(x, axis, off, off + cl), [axis])
            if method == "odd":
                p = 2 * _sl(x, axis, 0, 1) - p
            pieces.append(p)
        pieces.append(x)
        if ch:
            p = _l.rev(_sl(x, axis, n - off - ch, n - off), [axis])
            if method == "odd":
                p = 2 * _sl(x, axis, n - 1, n) - p
            pieces.append(p)
        x = _c.concatenate(pieces, axis) if len(pieces) > 1 else x
        lo, hi = lo - cl, hi - ch
    return x


def _stat(x, axis, lo, hi, length, fn, is_int_dt):
    n = x.shape[axis]
    pieces = []
    for side, w in ((0, lo), (1, hi)):
        if not w:
            continue
        L = n if length[side] is None else _b.max(_b.min(int(length[side]), n), 1)
        part = _sl(x, axis, 0, L) if side == 0 else _sl(x, axis, n - L, n)
        s = fn(part, axis)
        if is_int_dt and fn is not _c.max and fn is not _c.min:
            s = _c.round(s)
        s = cast(s, x.dtype)
        shape = list(x.shape)
        shape[axis] = w
        pieces.append((side, _c.broadcast_to(s, tuple(shape))))
    left = [p for s, p in pieces if s == 0]
    right = [p for s, p in pieces if s == 1]
    return _c.concatenate(left + [x] + right, axis) if pieces else x


def _median_axis(x, axis):
    from strata._numpy_reductions import median
    return median(x, axis=axis, keepdims=True)


def _mean_axis(x, axis):
    return _c.mean(cast(x, float_dtype(x)), axis, True)


def pad(array, pad_width, mode="constant", **kwargs):
    """array padded by pad_width ((before, after) per axis, broadcast like numpy) in numpy's
    modes: constant, edge, reflect/symmetric, wrap, linear_ramp, maximum/minimum/mean/median,
    empty, or a padding function (which returns the filled vector, as JAX)."""
    x = arr(array)
    pw = _pad_pairs("pad", pad_width, x.ndim)
    if callable(mode):
        # numpy's padding function, mode(vector, (before, after), axis, kwargs), applied to the
        # 1-d slices of the zero-padded array axis by axis; it returns the filled vector.
        from strata._numpy_math import apply_along_axis
        x = _l.pad(x, _c.zeros((), x.dtype), [(lo, hi, 0) for lo, hi in pw])
        for ax in range(x.ndim):
            x = apply_along_axis(mode, ax, x, pw[ax], ax, kwargs)
        return x
    allowed = {"constant": {"constant_values"}, "edge": set(), "empty": set(),
               "wrap": set(), "reflect": {"reflect_type"}, "symmetric": {"reflect_type"},
               "linear_ramp": {"end_values"}, "maximum": {"stat_length"},
               "minimum": {"stat_length"}, "mean": {"stat_length"}, "median": {"stat_length"}}
    if mode not in allowed:
        raise ValueError(f"[pad] unimplemented padding mode {mode!r}")
    bad = set(kwargs) - allowed[mode]
    if bad:
        raise ValueError(f"[pad] unsupported keyword arguments for mode {mode!r}: "
                         f"{sorted(bad)}")
    if mode in ("constant", "empty"):
        vals = _values_pairs("pad", kwargs.get("constant_values", 0), x.ndim)
        for ax, (lo, hi) in enumerate(pw):
            for side, w in ((0, lo), (1, hi)):
                if w:
                    cfg = [(0, 0, 0)] * x.ndim
                    cfg[ax] = (w, 0, 0) if side == 0 else (0, w, 0)
                    v = cast(arr(vals[ax][side]), x.dtype) if mode == "constant" else \
                        _c.zeros((), x.dtype)
                    x = _l.pad(x, v, cfg)
        return x
    for ax, (lo, hi) in enumerate(pw):
        if not (lo or hi):
            continue
        n = x.shape[ax]
        if n == 0:
            raise ValueError(f"[pad] can't extend empty axis {ax} using modes other than "
                             f"'constant' or 'empty'")
        if mode == "edge":
            idx = _np.clip(_np.arange(-lo, n + hi), 0, n - 1)
            x = _c.take(x, arr(idx.astype(_np.int32)), ax)
        elif mode == "wrap":
            idx = _np.mod(_np.arange(-lo, n + hi), n)
            x = _c.take(x, arr(idx.astype(_np.int32)), ax)
        elif mode in ("reflect", "symmetric"):
            rt = kwargs.get("reflect_type", "even")
            if rt not in ("even", "odd"):
                raise ValueError(f"[pad] reflect_type must be 'even' or 'odd', got {rt!r}")
            if n == 1:
                x = _c.take(x, arr(_np.zeros(lo + hi + 1, _np.int32)), ax)
            else:
                x = _reflect(x, ax, lo, hi, rt, mode == "symmetric")
        elif mode == "linear_ramp":
            ev = _values_pairs("pad", kwargs.get("end_values", 0), x.ndim)[ax]
            ft = float_dtype(x)
            pieces = []
            for side, w in ((0, lo), (1, hi)):
                if not w:
                    continue
                edge = cast(_sl(x, ax, 0, 1) if side == 0 else _sl(x, ax, n - 1, n), ft)
                end = cast(arr(ev[side]), ft)
                shape = [1] * x.ndim
                shape[ax] = w
                if side == 0:
                    t = _np.arange(w) / w
                else:
                    t = (_np.arange(w)[::-1] + 0.0) / w
                t = cast(_c.reshape(arr(t), tuple(shape)), ft)
                r = end + (edge - end) * t
                if is_int(x.dtype):
                    r = _c.where(r < 0, _c.ceil(r), _c.floor(r))  # numpy truncates
                pieces.append((side, cast(r, x.dtype)))
            x = _c.concatenate([p for s, p in pieces if s == 0] + [x] +
                               [p for s, p in pieces if s == 1], ax)
        else:
            sl = kwargs.get("stat_length", None)
            if sl is None:
                length = (None, None)
            else:
                pairs = _np.broadcast_to(_np.asarray(sl), (x.ndim, 2))
                length = tuple(pairs[ax])
            fn = {"maximum": lambda p, a: _c.max(p, a, True),
                  "minimum": lambda p, a: _c.min(p, a, True),
                  "mean": _mean_axis, "median": _median_axis}[mode]
            if mode in ("maximum", "minimum"):
                fn = _c.max if mode == "maximum" else _c.min
                x = _stat(x, ax, lo, hi, length, lambda p, a, f=fn: f(p, a, True), False)
            else:
                x = _stat(x, ax, lo, hi, length, fn, is_int(x.dtype))
    return x


# ---- Tiling, repeating, rolling --------------------------------------------------------------

def tile(A, reps):
    """A repeated reps times along each axis (A gets leading 1s, or reps leading 1s, to agree
    in length)."""
    a = arr(A)
    reps = _ints("tile", reps, "reps")
    nd = _b.max(a.ndim, len(reps))
    a = _c.reshape(a, (1,) * (nd - a.ndim) + tuple(a.shape))
    reps = (1,) * (nd - len(reps)) + reps
    if _b.any(r < 0 for r in reps):
        raise ValueError(f"[tile] reps must be non-negative, got {reps}")
    inter = []
    for r, s in zip(reps, a.shape):
        inter += [r, s]
    y = _c.reshape(a, tuple(v for s in a.shape for v in (1, s)))
    y = _c.broadcast_to(y, tuple(inter))
    return _c.reshape(y, tuple(r * s for r, s in zip(reps, a.shape)))


def repeat(a, repeats, axis=None, *, total_repeat_length=None):
    """Each element of a repeated `repeats` times along axis (flattened for None); repeats is
    an int or one count per element. Traced counts need total_repeat_length (the output
    length; missing entries repeat the last element, extra ones are cut)."""
    a = arr(a)
    if axis is None:
        a = _c.ravel(a)
        axis = 0
    ax = axis_index("repeat", axis, a.ndim)
    n = a.shape[ax]
    r = repeats if isinstance(repeats, (int, _np.integer)) else arr(repeats)
    if not isinstance(r, int) and r.ndim == 0 and r.is_concrete:
        r = int(r)
    if isinstance(r, (int, _np.integer)):
        r = int(r)
        if r < 0:
            raise ValueError(f"[repeat] repeats must be non-negative, got {r}")
        y = _c.expand_dims(a, ax + 1)
        shape = list(y.shape)
        shape[ax + 1] = r
        y = _c.reshape(_c.broadcast_to(y, tuple(shape)),
                       tuple(a.shape[:ax]) + (n * r,) + tuple(a.shape[ax + 1:]))
        if total_repeat_length is not None:
            return _fit(y, ax, total_repeat_length)
        return y
    if r.ndim == 0:
        r = _c.broadcast_to(r, (n,))
    if r.shape != (n,):
        raise ValueError(f"[repeat] repeats of shape {list(r.shape)} do not match axis {ax} "
                         f"of length {n}")
    if r.is_concrete and total_repeat_length is None:
        idx = _np.repeat(_np.arange(n), _np.asarray(r))
        return _c.take(a, arr(idx.astype(_np.int32)), ax)
    if total_repeat_length is None:
        raise TypeError("[repeat] traced repeats need total_repeat_length (the output shape "
                        "must be known)")
    t = int(total_repeat_length)
    ends = _l.cumsum(cast(r, int_dtype()), 0)  # [n]
    j = _l.iota(int_dtype(), t)
    idx = _c.sum(cast(_c.less_equal(ends[None, :], j[:, None]), int_dtype()), 1)
    idx = _c.minimum(idx, n - 1)
    return _c.take(a, idx, ax)


def _fit(y, ax, t):
    n = y.shape[ax]
    t = int(t)
    if t <= n:
        return _sl(y, ax, 0, t)
    idx = _np.minimum(_np.arange(t), n - 1).astype(_np.int32)
    return _c.take(y, arr(idx), ax)


def roll(a, shift, axis=None):
    """a with its elements shifted by `shift` along the axes (flattened for None), those moved
    off one end coming back at the other. Shifts may be traced."""
    a = arr(a)
    if axis is None:
        return _c.reshape(roll(_c.ravel(a), shift, 0), a.shape)
    axs = _ints("roll", axis, "axis") if isinstance(axis, (int, _np.integer, tuple, list)) \
        else (int(axis),)
    sh = arr(shift)
    shs = [sh[i] if sh.ndim else sh for i in range(sh.shape[0] if sh.ndim else 1)]
    if len(shs) == 1 and len(axs) > 1:
        shs = shs * len(axs)
    if len(axs) == 1 and len(shs) > 1:
        axs = axs * len(shs)
    if len(shs) != len(axs):
        raise ValueError(f"[roll] shift and axis must have the same length: {len(shs)} vs "
                         f"{len(axs)}")
    for s, ax in zip(shs, axs):
        ax = axis_index("roll", ax, a.ndim)
        n = a.shape[ax]
        if n == 0:
            continue
        if s.is_concrete:
            k = int(s) % n
            if k:
                a = _c.concatenate([_sl(a, ax, n - k, n), _sl(a, ax, 0, n - k)], ax)
        else:
            idx = _c.remainder(_l.iota(int_dtype(), n) - cast(s, int_dtype()), n)
            a = _c.take(a, idx, ax)
    return a


def rot90(m, k=1, axes=(0, 1)):
    """m rotated by 90 degrees k times in the plane of the two axes (from the first towards the
    second)."""
    m = arr(m)
    if m.ndim < 2:
        raise ValueError(f"[rot90] needs at least 2 dimensions, got {m.dtype}{list(m.shape)}")
    a0, a1 = (axis_index("rot90", x, m.ndim) for x in axes)
    if a0 == a1:
        raise ValueError("[rot90] the two axes must differ")
    k = int(k) % 4
    if k == 0:
        return m
    if k == 2:
        return _l.rev(m, [a0, a1])
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return _c.transpose(_l.rev(m, [a1]), perm)
    return _l.rev(_c.transpose(m, perm), [a1])


def fliplr(m):
    """m with its second axis reversed."""
    m = arr(m)
    if m.ndim < 2:
        raise ValueError(f"[fliplr] needs at least 2 dimensions, got {m.dtype}{list(m.shape)}")
    return _l.rev(m, [1])


def flipud(m):
    """m with its first axis reversed."""
    m = arr(m)
    if m.ndim < 1:
        raise ValueError("[flipud] needs at least 1 dimension")
    return _l.rev(m, [0])


# ---- Triangles and diagonals -----------------------------------------------------------------

def tri(N, M=None, k=0, dtype=None):
    """The [N, M] matrix with ones at and below the k-th diagonal (float by default)."""
    M = N if M is None else M
    dt = to_dtype(dtype) if dtype is not None else _c.zeros((), float).dtype
    i = _l.broadcasted_iota(int_dtype(), (int(N), int(M)), 0)
    j = _l.broadcasted_iota(int_dtype(), (int(N), int(M)), 1)
    return cast(_c.greater_equal(i + k, j), dt)


def _tri_mask(m, k, lower):
    n, mm = m.shape[-2], m.shape[-1]
    i = _l.broadcasted_iota(int_dtype(), (n, mm), 0)
    j = _l.broadcasted_iota(int_dtype(), (n, mm), 1)
    return _c.greater_equal(i + k, j) if lower else _c.less_equal(i + k, j)


def tril(m, k=0):
    """m with the entries above the k-th diagonal zeroed (on the last two axes)."""
    m = arr(m)
    if m.ndim < 2:
        raise ValueError(f"[tril] needs at least 2 dimensions, got {m.dtype}{list(m.shape)}")
    return _c.where(_tri_mask(m, k, True), m, _c.zeros((), m.dtype))


def triu(m, k=0):
    """m with the entries below the k-th diagonal zeroed (on the last two axes)."""
    m = arr(m)
    if m.ndim < 2:
        raise ValueError(f"[triu] needs at least 2 dimensions, got {m.dtype}{list(m.shape)}")
    return _c.where(_tri_mask(m, k - 1, True), _c.zeros((), m.dtype), m)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The offset-th diagonal of the axis1 x axis2 planes of a, along a new last axis."""
    a = arr(a)
    if a.ndim < 2:
        raise ValueError(f"[diagonal] needs at least 2 dimensions, got "
                         f"{a.dtype}{list(a.shape)}")
    a1, a2 = axis_index("diagonal", axis1, a.ndim), axis_index("diagonal", axis2, a.ndim)
    if a1 == a2:
        raise ValueError("[diagonal] axis1 and axis2 must differ")
    x = moveaxis(a, (a1, a2), (-2, -1))
    n, m = x.shape[-2], x.shape[-1]
    offset = int(offset)
    if offset >= 0:
        x = _sl(x, x.ndim - 1, _b.min(offset, m), m)
    else:
        x = _sl(x, x.ndim - 2, _b.min(-offset, n), n)
    n, m = x.shape[-2], x.shape[-1]
    L = _b.min(n, m)
    flat = _c.reshape(x, tuple(x.shape[:-2]) + (n * m,))
    idx = (_np.arange(L) * (m + 1)).astype(_np.int32)
    return _c.take(flat, arr(idx), flat.ndim - 1) if L else \
        _c.zeros(tuple(x.shape[:-2]) + (0,), x.dtype)


def diag(v, k=0):
    """The k-th diagonal of a 2-d v, or the square matrix with 1-d v on its k-th diagonal."""
    v = arr(v)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError(f"[diag] input must be 1-d or 2-d, got {v.dtype}{list(v.shape)}")
    n = v.shape[0] + _b.abs(int(k))
    e = _c.eye(n, n, int(k), bool)
    if k >= 0:
        col = _l.pad(v, _c.zeros((), v.dtype), [(0, int(k), 0)])[:, None]
    else:
        col = _l.pad(v, _c.zeros((), v.dtype), [(0, -int(k), 0)])[None, :]
    return _c.where(e, col, _c.zeros((), v.dtype))


def diagflat(v, k=0):
    """The matrix with the flattened v on its k-th diagonal."""
    return diag(_c.ravel(arr(v)), k)


def _idx(a):
    return arr(_np.asarray(a).astype(int_dtype()))


def diag_indices(n, ndim=2):
    """The index arrays (each arange(n)) that address the main diagonal of an n^ndim array."""
    if n < 0 or ndim < 0:
        raise ValueError(f"[diag_indices] n and ndim must be non-negative, got {n}, {ndim}")
    return (_idx(_np.arange(n)),) * ndim


def diag_indices_from(arr_):
    """diag_indices for a square array."""
    a = arr(arr_)
    if a.ndim < 2 or len(set(a.shape)) != 1:
        raise ValueError(f"[diag_indices_from] input must be square and at least 2-d, got "
                         f"{list(a.shape)}")
    return diag_indices(a.shape[0], a.ndim)


def tril_indices(n, k=0, m=None):
    """The row and column indices of the lower triangle (at and below diagonal k)."""
    return tuple(_idx(x) for x in _np.tril_indices(n, k, m))


def triu_indices(n, k=0, m=None):
    """The row and column indices of the upper triangle (at and above diagonal k)."""
    return tuple(_idx(x) for x in _np.triu_indices(n, k, m))


def tril_indices_from(arr_, k=0):
    """tril_indices for the shape of a 2-d array."""
    a = arr(arr_)
    if a.ndim != 2:
        raise ValueError(f"[tril_indices_from] input must be 2-d, got {list(a.shape)}")
    return tril_indices(a.shape[0], k, a.shape[1])


def triu_indices_from(arr_, k=0):
    """triu_indices for the shape of a 2-d array."""
    a = arr(arr_)
    if a.ndim != 2:
        raise ValueError(f"[triu_indices_from] input must be 2-d, got {list(a.shape)}")
    return triu_indices(a.shape[0], k, a.shape[1])


def mask_indices(n, mask_func, k=0, *, size=None):
    """The indices where mask_func(ones((n, n)), k) is nonzero."""
    return nonzero(mask_func(_c.ones((n, n), int_dtype()), k), size=size)


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """a with val on its main diagonal (inplace=False is required: Arrays are immutable)."""
    if inplace:
        raise ValueError("[fill_diagonal] Arrays are immutable: pass inplace=False and use "
                         "the result")
    a = arr(a)
    if a.ndim < 2:
        raise ValueError("[fill_diagonal] array must be at least 2-d")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise ValueError("[fill_diagonal] all dimensions of input must be of equal length")
    n = _b.min(a.shape)
    if a.ndim == 2 and wrap and a.shape[0] > a.shape[1]:
        rows = _np.arange(a.shape[0])
        rows = rows[rows % (a.shape[1] + 1) != a.shape[1]]
        idx = (_idx(rows), _idx(_np.arange(len(rows)) % a.shape[1]))
        n = len(rows)
    else:
        idx = (_idx(_np.arange(n)),) * a.ndim
    v = _c.ravel(cast(arr(val), a.dtype))
    v = _c.take(v, _idx(_np.arange(n) % _b.max(v.shape[0], 1))) if v.shape[0] != n else v
    return a.at[idx].set(v)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """The sum along the offset-th diagonal of the axis1 x axis2 planes."""
    check_out("trace", out)
    from strata._numpy_reductions import sum as _sum
    return _sum(diagonal(a, offset, axis1, axis2), -1, dtype)


def eye(N, M=None, k=0, dtype=None, *, device=None):
    """The [N, M] matrix with ones on the k-th diagonal."""
    return _c.eye(int(N), None if M is None else int(M), int(k), dtype)


def identity(n, dtype=None):
    """The n x n identity matrix."""
    return _c.eye(int(n), None, 0, dtype)


# ---- Products --------------------------------------------------------------------------------

def _promote(*xs):
    t = rtype(*xs)
    return [cast(x, t) for x in xs]


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
    """The sum of products of a and b over the given axes (the last `axes` of a with the first
    of b for an int)."""
    a, b = arr(a), arr(b)
    if isinstance(axes, (int, _np.integer)):
        axes = int(axes)
        if axes < 0 or axes > _b.min(a.ndim, b.ndim):
            raise TypeError(f"[tensordot] axes={axes} out of range for {a.dtype}"
                            f"{list(a.shape)} and {b.dtype}{list(b.shape)}")
        ax_a, ax_b = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        if len(axes) != 2:
            raise TypeError(f"[tensordot] axes must be an int or a pair of sequences, got "
                            f"{axes!r}")
        ax_a, ax_b = axes
        ax_a = [ax_a] if isinstance(ax_a, (int, _np.integer)) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, (int, _np.integer)) else list(ax_b)
        if len(ax_a) != len(ax_b):
            raise TypeError(f"[tensordot] the two axes lists differ in length: {ax_a} vs "
                            f"{ax_b}")
    ax_a = [axis_index("tensordot", x, a.ndim) for x in ax_a]
    ax_b = [axis_index("tensordot", x, b.ndim) for x in ax_b]
    for i, j in zip(ax_a, ax_b):
        if a.shape[i] != b.shape[j]:
            raise TypeError(f"[tensordot] contracting dimensions differ: {a.dtype}"
                            f"{list(a.shape)} axis {i} and {b.dtype}{list(b.shape)} axis {j}")
    a, b = _promote(a, b)
    r = _l.dot_general(a, b, ((ax_a, ax_b), ((), ())))
    return cast(r, to_dtype(preferred_element_type)) if preferred_element_type else r


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _sublist(sub):
    """numpy's interleaved einsum sublist ([0, 1], [Ellipsis, 0]) as subscript letters."""
    out = []
    for s in sub:
        if s is Ellipsis:
            out.append("...")
        elif isinstance(s, (int, _np.integer)) and 0 <= int(s) < len(_LETTERS):
            out.append(_LETTERS[int(s)])
        else:
            raise ValueError(f"[einsum] subscript {s!r} in a sublist must be an integer in "
                             f"[0, {len(_LETTERS)}) or Ellipsis")
    return "".join(out)


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None, _dot_general=None):
    """Einstein summation over the operands: einsum('ij,jk->ik', a, b), or numpy's interleaved
    form einsum(a, [0, 1], b, [1, 2], [0, 2]). optimize and precision are accepted (the
    contraction order is Strata's own)."""
    check_out("einsum", out)
    if not isinstance(subscripts, str):
        args = (subscripts,) + operands
        ops, subs = list(args[0::2]), list(args[1::2])
        out_sub = None
        if len(ops) > len(subs):  # a trailing output sublist
            out_sub = ops.pop()
        spec = ",".join(_sublist(s) for s in subs)
        if out_sub is not None:
            spec += "->" + _sublist(out_sub)
        subscripts, operands = spec, tuple(ops)
    ops = [arr(o) for o in operands]
    r = _c.einsum(subscripts, *ops)
    return cast(r, to_dtype(preferred_element_type)) if preferred_element_type else r


def matmul(a, b, *, precision=None, preferred_element_type=None):
    """The matrix product with numpy's rules: 1-d operands are vectors, leading axes
    broadcast."""
    a, b = arr(a), arr(b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"[matmul] operands must have at least one dimension, got "
                         f"{a.type_str()} and {b.type_str()}")
    ka = a.shape[-1]
    kb = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if ka != kb:
        raise TypeError(f"[matmul] contracting dimensions differ: {a.type_str()} and "
                        f"{b.type_str()} ({ka} vs {kb})")
    r = _c.matmul(a, b)
    return cast(r, to_dtype(preferred_element_type)) if preferred_element_type else r


def outer(a, b, out=None):
    """The outer product of the flattened a and b."""
    check_out("outer", out)
    a, b = _promote(_c.ravel(arr(a)), _c.ravel(arr(b)))
    return _c.multiply(a[:, None], b[None, :])


def inner(a, b, *, precision=None, preferred_element_type=None):
    """The sum of products over the last axes of a and b (a product with a scalar)."""
    a, b = arr(a), arr(b)
    if a.ndim == 0 or b.ndim == 0:
        return _c.multiply(a, b)
    return tensordot(a, b, ([a.ndim - 1], [b.ndim - 1]),
                     preferred_element_type=preferred_element_type)


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """The dot product of the flattened a and b."""
    a, b = _promote(_c.ravel(arr(a)), _c.ravel(arr(b)))
    if a.shape != b.shape:
        raise TypeError(f"[vdot] sizes differ: {a.shape[0]} vs {b.shape[0]}")
    return tensordot(a, b, 1, preferred_element_type=preferred_element_type)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """The dot product of x1 and x2 along axis, broadcasting the other axes."""
    x1, x2 = _promote(arr(x1), arr(x2))
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(f"[vecdot] axis {axis} differs: {list(x1.shape)} vs "
                         f"{list(x2.shape)}")
    r = _c.sum(_c.multiply(moveaxis(x1, axis, -1), moveaxis(x2, axis, -1)), -1)
    return cast(r, to_dtype(preferred_element_type)) if preferred_element_type else r


def matvec(x1, x2, /):
    """The matrix-vector product over the last axes, broadcasting the leading ones."""
    x1, x2 = arr(x1), arr(x2)
    return _c.matmul(x1, x2[..., None])[..., 0]


def vecmat(x1, x2, /):
    """The vector-matrix product over the last axes, broadcasting the leading ones."""
    x1, x2 = arr(x1), arr(x2)
    return _c.matmul(x1[..., None, :], x2)[..., 0, :]


def kron(a, b):
    """The Kronecker product: blocks a[i, j] * b."""
    a, b = _promote(arr(a), arr(b))
    nd = _b.max(a.ndim, b.ndim)
    a = _c.reshape(a, (1,) * (nd - a.ndim) + tuple(a.shape))
    b = _c.reshape(b, (1,) * (nd - b.ndim) + tuple(b.shape))
    ai = _c.reshape(a, tuple(v for s in a.shape for v in (s, 1)))
    bi = _c.reshape(b, tuple(v for s in b.shape for v in (1, s)))
    return _c.reshape(_c.multiply(ai, bi), tuple(x * y for x, y in zip(a.shape, b.shape)))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 2- or 3-vectors along the given axes (a scalar for two
    2-vectors)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = _promote(moveaxis(arr(a), axisa, -1), moveaxis(arr(b), axisb, -1))
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError(f"[cross] incompatible dimensions for cross product (dimension must "
                         f"be 2 or 3): {list(a.shape)} and {list(b.shape)}")
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    a0, a1 = a[..., 0], a[..., 1]
    a2 = a[..., 2] if a.shape[-1] == 3 else _c.zeros_like(a0)
    b0, b1 = b[..., 0], b[..., 1]
    b2 = b[..., 2] if b.shape[-1] == 3 else _c.zeros_like(b0)
    c = _c.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], -1)
    return moveaxis(c, -1, axisc)


def _correlate1d(op, x, y, mode, precision, preferred_element_type):
    """lax.conv_general_dilated of x with window y (len(x) >= len(y)), padded for mode."""
    from strata._lax_conv import conv_general_dilated
    k = y.shape[0]
    pads = {"valid": (0, 0), "same": (k // 2, k - k // 2 - 1), "full": (k - 1, k - 1)}
    if mode not in pads:
        raise ValueError(f"[{op}] mode must be 'full', 'same' or 'valid', got {mode!r}")
    out = conv_general_dilated(x[None, None, :], y[None, None, :], (1,), [pads[mode]],
                               precision=precision,
                               preferred_element_type=preferred_element_type)
    return out[0, 0]


def _conv_args(op, a, v, preferred_element_type):
    a, v = arr(a), arr(v)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError(f"[{op}] only 1-d inputs are supported, got {a.dtype}{list(a.shape)} "
                         f"and {v.dtype}{list(v.shape)}")
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise ValueError(f"[{op}] inputs cannot be empty, got shapes {list(a.shape)} and "
                         f"{list(v.shape)}")
    if preferred_element_type is None:  # as jnp: promoted to an inexact type
        t = rtype(a, v)
        if not _np.issubdtype(_np.dtype(t), _np.inexact):
            t = rtype(a, v, 1.0)
        return cast(a, t), cast(v, t)
    return _promote(a, v)


def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """The discrete linear convolution of two 1-d arrays (lax.conv_general_dilated with the
    window reversed), mode full, same or valid."""
    a, v = _conv_args("convolve", a, v, preferred_element_type)
    if a.shape[0] < v.shape[0]:
        a, v = v, a
    return _correlate1d("convolve", a, _l.rev(v, [0]), mode, precision, preferred_element_type)


def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """The cross-correlation c[k] = sum_n a[n + k] * v[n] of two 1-d arrays
    (lax.conv_general_dilated), mode valid, same or full."""
    a, v = _conv_args("correlate", a, v, preferred_element_type)
    if a.shape[0] < v.shape[0]:
        return _l.rev(_correlate1d("correlate", v, a, mode, precision, preferred_element_type),
                      [0])
    return _correlate1d("correlate", a, v, mode, precision, preferred_element_type)


# ---- Grids -----------------------------------------------------------------------------------

def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from 1-d coordinate vectors, with 'xy' (Cartesian: the first two
    outputs' axes swapped) or 'ij' (matrix) indexing; sparse keeps size-1 axes."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"[meshgrid] indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [arr(x) for x in xi]
    for i, x in enumerate(xs):
        if x.ndim != 1:
            raise ValueError(f"[meshgrid] arguments must be 1-d, got {x.dtype}"
                             f"{list(x.shape)} for argument {i}")
    nd = len(xs)
    shapes = [x.shape[0] for x in xs]
    if indexing == "xy" and nd > 1:
        shapes[0], shapes[1] = shapes[1], shapes[0]
    out = []
    for i, x in enumerate(xs):
        pos = i
        if indexing == "xy" and nd > 1 and i < 2:
            pos = 1 - i
        s = [1] * nd
        s[pos] = x.shape[0]
        y = _c.reshape(x, tuple(s))
        out.append(y if sparse else _c.broadcast_to(y, tuple(shapes)))
    return out


class _Grid:
    """mgrid/ogrid: index with slices (a complex step is a number of points, end included)."""

    def __init__(self, sparse, name):
        self.sparse, self.name = sparse, name

    def __getitem__(self, key):
        single = isinstance(key, slice)
        keys = (key,) if single else tuple(key)
        vecs = []
        for k in keys:
            if not isinstance(k, slice):
                raise TypeError(f"[{self.name}] indices must be slices, got {k!r}")
            start = 0 if k.start is None else k.start
            step = 1 if k.step is None else k.step
            if isinstance(step, complex):
                vecs.append(linspace(start, k.stop, int(_b.abs(step)), endpoint=True))
            else:
                vecs.append(arange(start, k.stop, step))
        if single:
            return vecs[0]
        ft = rtype(*vecs)
        vecs = [cast(v, ft) for v in vecs]
        g = meshgrid(*vecs, indexing="ij", sparse=self.sparse)
        return g if self.sparse else _c.stack(g, 0)


mgrid = _Grid(False, "mgrid")
ogrid = _Grid(True, "ogrid")


def indices(dimensions, dtype=None, sparse=False):
    """The index grid of an array of shape `dimensions`: one array per axis (stacked, or a
    tuple of broadcastable arrays with sparse)."""
    dims = tuple(int(d) for d in dimensions)
    dt = to_dtype(dtype) if dtype is not None else int_dtype()
    out = []
    for i, d in enumerate(dims):
        s = [1] * len(dims)
        s[i] = d
        v = _c.reshape(cast(_l.iota(int_dtype(), d), dt), tuple(s))
        out.append(v if sparse else _c.broadcast_to(v, dims))
    if sparse:
        return tuple(out)
    return _c.stack(out, 0) if out else _c.zeros((0,), dt)


def ix_(*args):
    """Open mesh index arrays from 1-d sequences: the k-th has its values on axis k."""
    out = []
    n = len(args)
    for i, a in enumerate(args):
        a = arr(a)
        if a.ndim != 1:
            raise ValueError(f"[ix_] cross index must be 1-d, got {a.dtype}{list(a.shape)}")
        if kind(a.dtype) == "b":
            a = _idx(_np.flatnonzero(_np.asarray(a)))
        s = [1] * n
        s[i] = a.shape[0]
        out.append(_c.reshape(a, tuple(s)))
    return tuple(out)


# ---- Insertion and deletion ------------------------------------------------------------------

def _flat_axis(a, axis):
    if axis is None:
        return _c.ravel(a), 0
    return a, axis_index("delete", axis, a.ndim)


def delete(arr_, obj, axis=None, *, assume_unique_indices=False):
    """arr_ without the entries at the indices (or slice, or mask) obj along axis (flattened
    for None); traced integer indices need assume_unique_indices=True."""
    a, ax = _flat_axis(arr(arr_), axis)
    n = a.shape[ax]
    if isinstance(obj, slice):
        drop = _np.arange(n)[obj]
    else:
        o = arr(obj)
        if not o.is_concrete:
            if not (assume_unique_indices and is_int(o.dtype)):
                raise TypeError("[delete] obj must be concrete (the output shape depends on "
                                "it), or unique integer indices with assume_unique_indices=True")
            o = _c.ravel(o)
            o = _c.where(o < 0, o + n, o)
            keep = scatter_1d(_c.ones((n,), bool), o, _c.zeros(o.shape, bool))
            return _c.take(a, nonzero(keep, size=n - o.shape[0])[0], ax)
        o = _np.asarray(o)
        if o.dtype == bool:
            if o.shape != (n,):
                raise ValueError(f"[delete] boolean mask of shape {o.shape} for axis of "
                                 f"length {n}")
            drop = _np.flatnonzero(o)
        else:
            if o.dtype.kind not in "iu":
                raise TypeError(f"[delete] index arrays must be integers, got {o.dtype}")
            o = o.reshape(-1)
            if ((o < -n) | (o >= n)).any():
                raise IndexError(f"[delete] index out of bounds for axis of length {n}")
            drop = o % n if n else o
    keep = _np.setdiff1d(_np.arange(n), drop)
    return _c.take(a, _idx(keep), ax)


def insert(arr_, obj, values, axis=None):
    """arr_ with values inserted before the indices obj along axis (flattened for None)."""
    a, ax = _flat_axis(arr(arr_), axis)
    n = a.shape[ax]
    v = cast(arr(values), a.dtype)
    if isinstance(obj, slice):
        pos = _np.arange(n)[obj]
        scalar = False
    else:
        o = arr(obj)
        if not o.is_concrete:
            raise TypeError("[insert] obj must be concrete (the output shape depends on it)")
        pos = _np.asarray(o)
        scalar = pos.ndim == 0
        if pos.dtype == bool:
            raise TypeError("[insert] boolean obj is not supported")
        pos = pos.reshape(-1)
        if ((pos < -n) | (pos > n)).any():
            raise IndexError(f"[insert] index out of bounds for axis of length {n}")
        pos = _np.where(pos < 0, pos + n, pos)
    if scalar:
        # values shaped like the slice at that position (broadcast), possibly several
        vv = v if v.ndim else _c.reshape(v, (1,))
        vv = moveaxis(vv, 0, ax) if vv.ndim == a.ndim else vv
        shp = list(a.shape)
        k = vv.shape[ax] if vv.ndim == a.ndim else 1
        shp[ax] = k
        if vv.ndim != a.ndim:
            vv = _c.expand_dims(vv, ax) if vv.ndim == a.ndim - 1 else vv
        vv = _c.broadcast_to(vv, tuple(shp))
        p = int(pos[0])
        return _c.concatenate([_sl(a, ax, 0, p), vv, _sl(a, ax, p, n)], ax)
    k = len(pos)
    shp = list(a.shape)
    shp[ax] = k
    if v.ndim == 1 and a.ndim > 1 and v.shape[0] == k:
        s = [1] * a.ndim
        s[ax] = k
        v = _c.reshape(v, tuple(s))
    vv = _c.broadcast_to(v, tuple(shp))
    order = _np.argsort(pos, kind="stable")
    newpos = pos[order] + _np.arange(k)
    total = n + k
    is_new = _np.zeros(total, bool)
    is_new[newpos] = True
    src = _np.empty(total, _np.int64)
    src[~is_new] = _np.arange(n)
    src[newpos] = n + order
    both = _c.concatenate([a, vv], ax)
    return _c.take(both, _idx(src), ax)


def append(arr_, values, axis=None):
    """arr_ with values appended along axis (both flattened for None)."""
    a, v = arr(arr_), arr(values)
    if axis is None:
        return concatenate([_c.ravel(a), _c.ravel(v)], 0)
    return concatenate([a, v], axis)


def resize(a, new_shape):
    """a's flattened entries repeated cyclically to fill new_shape."""
    a = _c.ravel(arr(a))
    shape = _shape_arg(new_shape)
    if _b.any(s < 0 for s in shape):
        raise ValueError(f"[resize] all elements of new_shape must be non-negative, got "
                         f"{shape}")
    total = int(_np.prod(shape)) if shape else 1
    if a.shape[0] == 0:
        return _c.zeros(shape, a.dtype)
    idx = _np.arange(total) % a.shape[0]
    return _c.reshape(_c.take(a, _idx(idx), 0), shape)


def trim_zeros(filt, trim="fb"):
    """The 1-d filt without its leading ('f') and/or trailing ('b') zeros (filt concrete)."""
    f = arr(filt)
    if f.ndim != 1:
        raise ValueError(f"[trim_zeros] filt must be 1-d, got {list(f.shape)}")
    if not f.is_concrete:
        raise TypeError("[trim_zeros] filt must be concrete (the output shape depends on it)")
    nz = _np.flatnonzero(_np.asarray(f))
    if nz.size == 0:
        return f[0:0]
    lo = int(nz[0]) if "f" in trim.lower() else 0
    hi = int(nz[-1]) + 1 if "b" in trim.lower() else f.shape[0]
    return f[lo:hi]


# ---- Creation --------------------------------------------------------------------------------

def empty(shape, dtype=None, *, device=None):
    """An array of the shape (zeros: there is no uninitialized memory to show)."""
    return _c.zeros(shape, dtype)


def empty_like(prototype, dtype=None, shape=None, *, device=None):
    """zeros_like (Arrays have no uninitialized state)."""
    return zeros_like(prototype, dtype, shape)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None):
    """An array shaped like a (or `shape`) filled with fill_value, a's dtype unless given."""
    a = arr(a)
    dt = to_dtype(dtype) if dtype is not None else a.dtype
    shp = tuple(a.shape) if shape is None else _shape_arg(shape)
    v = arr(fill_value)
    if v.ndim == 0 and v.is_concrete and kind(dt) != "c" and dtype is None and shape is None \
            and not isinstance(fill_value, bool) and isinstance(fill_value, (int, float)):
        return _c.full_like(a, fill_value, None)  # the core keeps a weak a weak
    return _c.broadcast_to(cast(v, dt), shp)


def zeros_like(a, dtype=None, shape=None, *, device=None):
    """Zeros shaped like a (or `shape`), a's dtype unless given."""
    if shape is None:
        return _c.zeros_like(a, dtype)
    return _c.zeros(_shape_arg(shape), dtype if dtype is not None else arr(a).dtype)


def ones_like(a, dtype=None, shape=None, *, device=None):
    """Ones shaped like a (or `shape`), a's dtype unless given."""
    if shape is None:
        return _c.ones_like(a, dtype)
    return _c.ones(_shape_arg(shape), dtype if dtype is not None else arr(a).dtype)


def copy(a, order=None):
    """a as an Array (Arrays are immutable, so it shares storage safely)."""
    return arr(a)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    """num evenly spaced values from start to stop (stop excluded with endpoint=False);
    start and stop may be arrays (the values run along a new `axis`); retstep also returns
    the spacing."""
    num = concrete_int("linspace", num, "num")
    if num < 0:
        raise ValueError(f"[linspace] number of samples, {num}, must be non-negative")
    s, e = arr(start), arr(stop)
    dt = to_dtype(dtype)
    ft = rtype(float_dtype(s), float_dtype(e))
    if dt is not None and is_inexact(dt):
        ft = dt
    s, e = _promote(cast(s, ft), cast(e, ft))
    bshape = _c.broadcast_shapes(s.shape, e.shape)
    s, e = _c.broadcast_to(s, bshape), _c.broadcast_to(e, bshape)
    div = (num - 1) if endpoint else num
    delta = e - s
    t = cast(_l.iota(int_dtype(), num), ft)
    t = _c.reshape(t, (num,) + (1,) * len(bshape))
    if div > 0:
        step = delta / div
        vals = s[None] + t * step[None] if num else _c.zeros((0,) + tuple(bshape), ft)
        if endpoint and num > 1:
            vals = _c.concatenate([vals[:-1], e[None]], 0)
    else:
        step = _c.full(bshape, _np.nan, ft)
        vals = _c.broadcast_to(s[None], (num,) + tuple(bshape))
    vals = moveaxis(vals, 0, axis) if vals.ndim > 1 else vals
    if dt is not None and is_int(dt):
        vals = _c.floor(vals)
    vals = cast(vals, dt) if dt is not None else vals
    return (vals, step) if retstep else vals


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """base ** linspace(start, stop): num values evenly spaced on a log scale."""
    dt = to_dtype(dtype)
    lin = linspace(start, stop, num, endpoint, axis=axis)
    r = _c.power(cast(arr(base), lin.dtype), lin)
    return cast(r, dt) if dt is not None else r


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """num values from start to stop evenly spaced on a log scale (a geometric progression);
    start and stop must be nonzero and of the same sign."""
    dt = to_dtype(dtype)
    s, e = to_float(arr(start)), to_float(arr(stop))
    s, e = _promote(s, e)
    sign = _c.sign(s)
    lin = linspace(_c.log(s * sign), _c.log(e * sign), num, endpoint, axis=0)
    r = _c.exp(lin) * sign
    # exact end points, as numpy
    if num > 0:
        r = _c.concatenate([s[None] * _c.ones_like(r[:1]), r[1:]], 0)
        if endpoint and num > 1:
            r = _c.concatenate([r[:-1], e[None] * _c.ones_like(r[:1])], 0)
    r = moveaxis(r, 0, axis) if r.ndim > 1 else r
    return cast(r, dt) if dt is not None else r


def arange(start, stop=None, step=None, dtype=None, *, device=None):
    """Evenly spaced values in [start, stop): int32 when every argument is an integer, else
    float (by Python type, so arange(6.0) is float)."""
    vals = [v for v in (start, stop, step) if v is not None]
    for v in vals:
        if hasattr(v, "shape") and not arr(v).is_concrete:
            raise TypeError("[arange] arguments must be concrete (they fix the output shape)")
    pv = [v.item() if hasattr(v, "item") and _np.ndim(v) == 0 else v for v in vals]
    if dtype is None and _b.any(isinstance(v, float) for v in pv):
        dtype = _c.zeros((), float).dtype
    if dtype is None and _b.any(hasattr(v, "dtype") and kind(v.dtype) == "f" for v in vals):
        dtype = _c.zeros((), float).dtype
    s = pv[0]
    e = pv[1] if stop is not None else None
    st = (pv[-1] if step is not None else 1)
    if st == 0:
        raise ValueError("[arange] step must not be zero")
    return _c.arange(s, e, st, dtype)


# ---- Indices from masks ----------------------------------------------------------------------

def _default_fill_coord(fill_value, nd):
    if fill_value is None:
        return (0,) * nd
    if isinstance(fill_value, (tuple, list)):
        if len(fill_value) != nd:
            raise ValueError(f"[nonzero] fill_value must be a scalar or a tuple of length "
                             f"{nd}, got length {len(fill_value)}")
        return tuple(fill_value)
    return (fill_value,) * nd


def nonzero(a, *, size=None, fill_value=None):
    """The indices of a's nonzero entries, one int array per axis. Without `size` a must be
    concrete; with it the result has that length (extra entries cut, missing ones
    fill_value), which works under jit and vmap."""
    a = arr(a)
    if a.ndim == 0:
        raise ValueError("[nonzero] calling nonzero on 0-d arrays is not allowed; use "
                         "atleast_1d(a).nonzero()")
    mask = _c.ravel(_c.not_equal(a, 0) if kind(a.dtype) != "b" else a)
    if size is None:
        if not mask.is_concrete:
            raise TypeError("[nonzero] the size argument is needed under a transformation "
                            "(the output shape depends on the values)")
        size = int(_np.count_nonzero(_np.asarray(mask)))
    size = int(size)
    n = mask.shape[0]
    it = int_dtype()
    pos = _l.cumsum(cast(mask, it), 0) - 1
    target = _c.where(mask, pos, _c.full((), size, it))
    flat = scatter_1d(_c.full((size,), 0, it), target, _l.iota(it, n)) if n else \
        _c.zeros((size,), it)
    count = _c.sum(cast(mask, it))
    valid = _c.less(_l.iota(it, size), count)
    coords = []
    rem = flat
    strides = _np.cumprod((list(a.shape[1:]) + [1])[::-1])[::-1]
    for d, st in enumerate(strides):
        c = rem // int(st)
        rem = rem - c * int(st)
        coords.append(c)
    fills = _default_fill_coord(fill_value, a.ndim)
    return tuple(_c.where(valid, c, cast(arr(f), it)) for c, f in zip(coords, fills))


def flatnonzero(a, *, size=None, fill_value=None):
    """The indices of the nonzero entries of the flattened a."""
    return nonzero(_c.ravel(arr(a)), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    """The indices of the nonzero entries, one row per entry ([N, ndim])."""
    a = arr(a)
    if a.ndim == 0:
        a = _c.reshape(a, (1,))
        r = nonzero(a, size=size, fill_value=fill_value)
        return _c.zeros((r[0].shape[0], 0), int_dtype())
    return _c.stack(nonzero(a, size=size, fill_value=fill_value), 1)


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """x where condition else y, broadcast; with condition alone, nonzero(condition)."""
    if x is None and y is None:
        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise ValueError("[where] either both or neither of x and y should be given")
    if size is not None or fill_value is not None:
        raise ValueError("[where] size and fill_value apply only to the one-argument form")
    return _c.where(condition, x, y)


def select(condlist, choicelist, default=0):
    """The entry of the first choice whose condition holds, else default."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"[select] condlist and choicelist must have the same length: "
                         f"{len(condlist)} vs {len(choicelist)}")
    if not condlist:
        raise ValueError("[select] condlist must be non-empty")
    conds = [arr(c) for c in condlist]
    for i, c in enumerate(conds):
        if kind(c.dtype) != "b":
            raise TypeError(f"[select] condlist entries must be boolean, got {c.dtype} for "
                            f"entry {i}")
    choices = [arr(c) for c in choicelist]
    dt = rtype(*choices, arr(default))
    out = cast(arr(default), dt)
    for c, ch in zip(reversed(conds), reversed(choices)):
        out = _c.where(c, cast(ch, dt), out)
    return out


def piecewise(x, condlist, funclist, *args, **kw):
    """funclist[k](x) (or the constant funclist[k]) where condlist[k] holds, later ones
    winning; one extra function applies where no condition holds."""
    x = arr(x)
    if isinstance(condlist, (list, tuple)):
        conds = [arr(c) for c in condlist]
    else:
        c = arr(condlist)
        conds = [c] if c.shape == x.shape or c.ndim == 0 else [c[i] for i in range(c.shape[0])]
    n = len(conds)
    if len(funclist) not in (n, n + 1):
        raise ValueError(f"[piecewise] with {n} condition(s), either {n} or {n + 1} functions "
                         f"are needed, got {len(funclist)}")
    if len(funclist) == n + 1:
        none = _c.logical_not(_c.any(_c.stack([_c.broadcast_to(c, x.shape) for c in conds], 0),
                                     0)) if n else _c.ones(x.shape, bool)
        conds = conds + [none]
        funcs = list(funclist[n:]) + list(funclist[:n])
        conds = conds[n:] + conds[:n]
    else:
        funcs = list(funclist)
    out = _c.zeros_like(x)
    for c, f in zip(conds, funcs):
        v = f(x, *args, **kw) if callable(f) else f
        out = _c.where(c, cast(arr(v), x.dtype), out)
    return out


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    """The slices of a along axis (flattened for None) where condition is true; `size` fixes
    the output length (fill_value pads) for use under transformations."""
    check_out("compress", out)
    c = _c.ravel(arr(condition))
    if kind(c.dtype) != "b":
        c = _c.not_equal(c, 0)
    a = arr(a)
    if axis is None:
        a, axis = _c.ravel(a), 0
    ax = axis_index("compress", axis, a.ndim)
    n = a.shape[ax]
    if c.shape[0] > n:
        if not c.is_concrete or _np.asarray(c)[n:].any():
            raise ValueError(f"[compress] condition contains entries that are out of bounds "
                             f"for axis of length {n}")
        c = c[:n]
    elif c.shape[0] < n:
        c = _c.concatenate([c, _c.zeros((n - c.shape[0],), bool)], 0)
    idx = nonzero(c, size=size, fill_value=0)[0]
    r = _c.take(a, idx, ax)
    if size is not None:
        cnt = _c.sum(cast(c, int_dtype()))
        valid = _c.less(_l.iota(int_dtype(), int(size)), cnt)
        s = [1] * r.ndim
        s[ax] = int(size)
        r = _c.where(_c.reshape(valid, tuple(s)), r, cast(arr(fill_value), r.dtype))
    return r


def extract(condition, arr_, *, size=None, fill_value=0):
    """The entries of the flattened arr_ where the flattened condition is true."""
    return compress(_c.ravel(arr(condition)), _c.ravel(arr(arr_)), size=size,
                    fill_value=fill_value)


def place(arr_, mask, vals, *, inplace=True):
    """arr_ with the entries where mask is true replaced by vals (cycled); inplace=False is
    required (Arrays are immutable)."""
    if inplace:
        raise ValueError("[place] Arrays are immutable: pass inplace=False and use the result")
    a = arr(arr_)
    m = _c.ravel(_c.broadcast_to(arr(mask), a.shape))
    v = _c.ravel(cast(arr(vals), a.dtype))
    flat = _c.ravel(a)
    pos = _l.cumsum(cast(m, int_dtype()), 0) - 1
    if v.shape[0] == 0:
        return a
    src = _c.take(v, _c.remainder(_c.maximum(pos, 0), v.shape[0]), 0)
    return _c.reshape(_c.where(m, src, flat), a.shape)


def put(a, ind, v, mode=None, *, inplace=True):
    """a with the flat entries ind set to v (cycled); inplace=False is required."""
    if inplace:
        raise ValueError("[put] Arrays are immutable: pass inplace=False and use the result")
    a = arr(a)
    i = _c.ravel(arr(ind))
    v = _c.ravel(cast(arr(v), a.dtype))
    n = a.size
    if i.shape[0] == 0:
        return a
    if v.shape[0] != i.shape[0]:
        v = _c.take(v, _idx(_np.arange(i.shape[0]) % v.shape[0]), 0)
    if mode in (None, "fill", "raise", "drop"):
        if mode == "raise":
            raise NotImplementedError("[put] mode='raise' is not supported (no runtime "
                                      "errors): use 'fill', 'clip' or 'wrap'")
        i = _c.where(i < 0, i + n, i)
        return _c.reshape(scatter_1d(_c.ravel(a), i, v), a.shape)
    elif mode == "clip":
        i = _c.clip(i, 0, n - 1)
    elif mode == "wrap":
        i = _c.remainder(i, n)
    else:
        raise ValueError(f"[put] invalid mode {mode!r}")
    return _c.reshape(_c.ravel(a).at[i].set(v), a.shape)


def choose(a, choices, out=None, mode="raise"):
    """choices[a[i]][i] for each position, with a broadcast against the choices; mode raise
    (indices assumed in range), wrap or clip."""
    check_out("choose", out)
    a = arr(a)
    chs = [arr(c) for c in choices]
    n = len(chs)
    if mode == "wrap":
        a = _c.remainder(a, n)
    elif mode == "clip":
        a = _c.clip(a, 0, n - 1)
    elif mode != "raise":
        raise ValueError(f"[choose] invalid mode {mode!r}")
    dt = rtype(*chs)
    out_ = cast(chs[0], dt)
    for k in range(1, n):
        out_ = _c.where(_c.equal(a, k), cast(chs[k], dt), out_)
    return _c.broadcast_to(out_, _c.broadcast_shapes(a.shape, out_.shape))


# ---- Gathers with modes ----------------------------------------------------------------------

def _fill_default(dt, fill_value):
    if fill_value is not None:
        return fill_value
    k = kind(dt)
    if k in "fc":
        return _np.nan
    if k == "b":
        return True
    return int(_np.iinfo(dt).min) if k == "i" else int(_np.iinfo(dt).max)


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """The entries of a at indices along axis (flattened for None). Out-of-range indices:
    mode 'fill' (the default, as JAX: NaN for floats, the extreme value for integers, or
    fill_value), 'clip', 'wrap'; negative indices count from the end."""
    check_out("take", out)
    a, i = arr(a), arr(indices)
    if not is_int(i.dtype):
        raise TypeError(f"[take] indices must be integers, got {i.dtype}")
    if axis is None:
        a, axis = _c.ravel(a), 0
    ax = axis_index("take", axis, a.ndim)
    n = a.shape[ax]
    mode = "fill" if mode is None else mode
    if mode == "raise":
        raise NotImplementedError("[take] mode='raise' is not supported (no runtime errors): "
                                  "use 'fill', 'clip' or 'wrap'")
    if mode == "wrap":
        return _c.take(a, _c.remainder(i, n), ax)
    if mode == "clip":
        return _c.take(a, _c.clip(i, 0, n - 1), ax)
    if mode not in ("fill", "promise_in_bounds"):
        raise ValueError(f"[take] invalid mode {mode!r}")
    j = _c.where(i < 0, i + n, i)
    r = _c.take(a, _c.clip(j, 0, _b.max(n - 1, 0)), ax)
    if mode == "promise_in_bounds":
        return r
    valid = _c.logical_and(_c.greater_equal(j, 0), _c.less(j, n))
    valid = _c.reshape(valid, (1,) * ax + tuple(i.shape) + (1,) * (a.ndim - ax - 1))
    return _c.where(valid, r, cast(arr(_fill_default(a.dtype, fill_value)), a.dtype))


def take_along_axis(arr_, indices, axis, mode=None, fill_value=None):
    """arr_'s entries at indices along axis (the other axes broadcast); out-of-range indices
    as take's modes (default 'fill')."""
    a, i = arr(arr_), arr(indices)
    if not is_int(i.dtype):
        raise TypeError(f"[take_along_axis] indices must be integers, got {i.dtype}")
    if axis is None:
        a, axis = _c.ravel(a), 0
        i = _c.ravel(i)
    if i.ndim != a.ndim:
        raise ValueError(f"[take_along_axis] indices and arr must have the same number of "
                         f"dimensions: {i.ndim} vs {a.ndim}")
    ax = axis_index("take_along_axis", axis, a.ndim)
    n = a.shape[ax]
    mode = "fill" if mode is None else mode
    if mode == "wrap":
        return _c.take_along_axis(a, _c.remainder(i, n), ax)
    if mode == "clip":
        return _c.take_along_axis(a, _c.clip(i, 0, n - 1), ax)
    if mode == "raise":
        raise NotImplementedError("[take_along_axis] mode='raise' is not supported")
    j = _c.where(i < 0, i + n, i)
    r = _c.take_along_axis(a, _c.clip(j, 0, _b.max(n - 1, 0)), ax)
    if mode == "promise_in_bounds":
        return r
    valid = _c.logical_and(_c.greater_equal(j, 0), _c.less(j, n))
    return _c.where(valid, r, cast(arr(_fill_default(a.dtype, fill_value)), a.dtype))


def put_along_axis(arr_, indices, values, axis, inplace=True, *, mode=None):
    """arr_ with values written at indices along axis (the other axes broadcast);
    inplace=False is required (Arrays are immutable)."""
    if inplace:
        raise ValueError("[put_along_axis] Arrays are immutable: pass inplace=False and use "
                         "the result")
    a, i = arr(arr_), arr(indices)
    if axis is None:
        flat = put_along_axis(_c.ravel(a), _c.ravel(i), _c.ravel(arr(values)), 0,
                              inplace=False, mode=mode)
        return _c.reshape(flat, a.shape)
    ax = axis_index("put_along_axis", axis, a.ndim)
    if i.ndim != a.ndim:
        raise ValueError(f"[put_along_axis] indices and arr must have the same number of "
                         f"dimensions: {i.ndim} vs {a.ndim}")
    shape = tuple(_b.max(x, y) if d != ax else y
                  for d, (x, y) in enumerate(zip(a.shape, i.shape)))
    i = _c.broadcast_to(i, shape)
    n = a.shape[ax]
    i = _c.where(i < 0, i + n, i)
    idx = []
    for d in range(a.ndim):
        if d == ax:
            idx.append(i)
        else:
            s = [1] * a.ndim
            s[d] = shape[d]
            idx.append(_c.broadcast_to(_c.reshape(_l.iota(int_dtype(), shape[d]), tuple(s)),
                                       shape))
    v = _c.broadcast_to(cast(arr(values), a.dtype), shape)
    return a.at[tuple(idx)].set(v)


# ---- Multi-index conversion ------------------------------------------------------------------

def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """The flat indices of the coordinate arrays multi_index into an array of shape dims;
    mode 'wrap' or 'clip' for out-of-range coordinates ('raise' assumes them in range)."""
    dims = tuple(int(d) for d in dims)
    mi = [arr(m) for m in multi_index]
    if len(mi) != len(dims):
        raise ValueError(f"[ravel_multi_index] the number of coordinate arrays ({len(mi)}) "
                         f"differs from the number of dimensions ({len(dims)})")
    for m in mi:
        if not is_int(m.dtype):
            raise TypeError(f"[ravel_multi_index] only integer indices permitted, got "
                            f"{m.dtype}")
    if mode == "wrap":
        mi = [_c.remainder(m, d) for m, d in zip(mi, dims)]
    elif mode == "clip":
        mi = [_c.clip(m, 0, d - 1) for m, d in zip(mi, dims)]
    elif mode != "raise":
        raise ValueError(f"[ravel_multi_index] invalid mode {mode!r}")
    if order == "F":
        mi, dims = mi[::-1], dims[::-1]
    elif order != "C":
        raise ValueError(f"[ravel_multi_index] order must be 'C' or 'F', got {order!r}")
    it = int_dtype()
    out = cast(_c.zeros((), it), it)
    for m, d in zip(mi, dims):
        out = out * d + cast(m, it)
    return out


def unravel_index(indices, shape):
    """The coordinate arrays of flat indices into an array of the shape (negative indices
    count from the end; out-of-range ones are clipped, as JAX)."""
    shape = _shape_arg(shape)
    i = arr(indices)
    if not is_int(i.dtype):
        raise TypeError(f"[unravel_index] only integer indices permitted, got {i.dtype}")
    total = int(_np.prod(shape)) if shape else 1
    i = _c.where(i < 0, i + total, i)
    i = _c.clip(i, 0, _b.max(total - 1, 0))
    out = []
    for d in reversed(shape):
        out.append(_c.remainder(i, d))
        i = _c.floor_divide(i, d)
    return tuple(reversed(out))


# ---- Broadcasting ----------------------------------------------------------------------------

def broadcast_arrays(*args):
    """The arguments broadcast to their common shape."""
    return list(_c.broadcast_arrays(*[arr(a) for a in args])) if args else []


def broadcast_shapes(*shapes):
    """The shape that the given shapes broadcast to."""
    return tuple(_c.broadcast_shapes(*[_shape_arg(s) for s in shapes])) if shapes else ()


def broadcast_to(array, shape):
    """array broadcast to shape."""
    return _c.broadcast_to(arr(array), _shape_arg(shape))


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-d x: columns x**(N-1), ..., x**0 (reversed with
    increasing)."""
    x = arr(x)
    if x.ndim != 1:
        raise ValueError(f"[vander] x must be 1-d, got {list(x.shape)}")
    N = x.shape[0] if N is None else int(N)
    if N < 0:
        raise ValueError(f"[vander] N must be non-negative, got {N}")
    p = _np.arange(N) if increasing else _np.arange(N)[::-1]
    cols = [_l.integer_pow(x, int(k)) if k else _c.ones_like(x) for k in p]
    return _c.stack(cols, 1) if cols else _c.zeros((x.shape[0], 0), x.dtype)
