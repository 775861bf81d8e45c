"""strata.numpy sorting, searching, set operations and counting: sort/argsort (stable,
descending), sort_complex, lexsort, partition, searchsorted, unique with size=, the *1d set
operations, isin, bincount, digitize and the histogram family, over lax.sort (several operands)
and scatters."""

import builtins as _b
from collections import namedtuple as _namedtuple

import numpy as _np

from strata._numpy_util import (_c, _l, arr, kind, is_inexact, is_int, cast, axis_index,
                                int_dtype, concrete_int, float_dtype, rtype, highest,
                                scatter_1d)

__all__ = ["sort", "argsort", "lexsort", "partition", "argpartition", "msort", "sort_complex",
           "searchsorted", "unique", "unique_values", "unique_counts", "unique_inverse",
           "unique_all", "intersect1d", "union1d", "setdiff1d", "setxor1d", "isin", "bincount",
           "digitize", "histogram", "histogram_bin_edges", "histogram2d", "histogramdd"]


def _iota_like(x, axis):
    return _l.broadcasted_iota(int_dtype(), tuple(x.shape), axis)


def _sort_args(op, order, kind_, stable):
    if order is not None:
        raise ValueError(f"[{op}] the 'order' argument is not supported (no structured "
                         f"dtypes)")


def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """a sorted along axis (flattened for None), NaNs last; descending reverses the order."""
    _sort_args("sort", order, kind, stable)
    a = arr(a)
    if axis is None:
        a, axis = _c.ravel(a), 0
    if a.ndim == 0:
        return a
    ax = axis_index("sort", axis, a.ndim)
    s = _l.sort(a, ax)
    return _l.rev(s, [ax]) if descending else s


def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """The indices that sort a along axis (stably: ties keep their order, also with
    descending)."""
    _sort_args("argsort", order, kind, stable)
    a = arr(a)
    if axis is None:
        a, axis = _c.ravel(a), 0
    if a.ndim == 0:
        return _c.zeros((), int_dtype())
    ax = axis_index("argsort", axis, a.ndim)
    n = a.shape[ax]
    if descending:
        r = _l.sort((_l.rev(a, [ax]), _iota_like(a, ax)), ax, 1)[1]
        return (n - 1) - _l.rev(r, [ax])
    return _l.sort((a, _iota_like(a, ax)), ax, 1)[1]


def msort(a):
    """a sorted along its first axis."""
    return sort(a, 0)


def sort_complex(a):
    """a sorted along axis 0 by real part, then imaginary part, as a complex array.

    A real a becomes the complex type a Python complex promotes it to. As JAX's, it sorts axis
    0 where numpy's sorts the last axis (the same for 1-D a)."""
    a = arr(a)
    if a.ndim == 0:
        raise ValueError(f"[sort_complex] needs an array of rank >= 1, got a {a.dtype} scalar")
    s = _l.sort(a, 0)
    return s if kind(s.dtype) == "c" else s.astype(_c.result_type(s, 1j))


def lexsort(keys, axis=-1):
    """The indirect stable sort by several keys, the last key the primary one."""
    ks = [arr(k) for k in keys] if not hasattr(keys, "shape") else \
        [arr(keys)[i] for i in range(arr(keys).shape[0])]
    if not ks:
        raise TypeError("[lexsort] need sequence of keys with len > 0")
    shape = _c.broadcast_shapes(*[k.shape for k in ks])
    ks = [_c.broadcast_to(k, shape) for k in ks]
    if len(shape) == 0:
        return _c.zeros((), int_dtype())
    ax = axis_index("lexsort", axis, len(shape))
    ops = tuple(ks[::-1]) + (_iota_like(ks[0], ax),)
    return _l.sort(ops, ax, len(ks))[-1]


def partition(a, kth, axis=-1):
    """a rearranged so that the kth entry along axis is where sorting puts it, smaller ones
    before and larger ones after (Strata returns the fully sorted order, a valid
    partition)."""
    a = arr(a)
    ax = axis_index("partition", axis, a.ndim)
    k = concrete_int("partition", kth, "kth")
    if not -a.shape[ax] <= k < a.shape[ax]:
        raise ValueError(f"[partition] kth {k} out of bounds for axis of length {a.shape[ax]}")
    return _l.sort(a, ax)


def argpartition(a, kth, axis=-1):
    """The indices that partition a (the stable sorting order, a valid partition)."""
    a = arr(a)
    ax = axis_index("argpartition", axis, a.ndim)
    k = concrete_int("argpartition", kth, "kth")
    if not -a.shape[ax] <= k < a.shape[ax]:
        raise ValueError(f"[argpartition] kth {k} out of bounds for axis of length "
                         f"{a.shape[ax]}")
    return argsort(a, ax)


def _lt(x, y):
    """x < y in the order sorting uses: NaN after everything."""
    if not is_inexact(rtype(x, y)):
        return _c.less(x, y)
    return _c.logical_or(_c.less(x, y), _c.logical_and(_c.not_equal(y, y), _c.equal(x, x)))


def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
    """Where v's entries would go in the sorted 1-d a to keep it sorted: the first such index
    (side='left') or the last ('right'); NaNs sort last. method 'scan'/'sort' run a binary
    search, 'compare_all' compares every pair."""
    if side not in ("left", "right"):
        raise ValueError(f"[searchsorted] side must be 'left' or 'right', got {side!r}")
    if method not in ("scan", "scan_unrolled", "sort", "compare_all"):
        raise ValueError(f"[searchsorted] invalid method {method!r}")
    a, v = arr(a), arr(v)
    if a.ndim != 1:
        raise ValueError(f"[searchsorted] a must be 1-d, got {a.dtype}{list(a.shape)}")
    if sorter is not None:
        a = _c.take(a, arr(sorter), 0)
    dt = rtype(a, v)
    a, v = cast(a, dt), cast(v, dt)
    n = a.shape[0]
    it = int_dtype()
    if n == 0:
        return _c.zeros(v.shape, it)
    if method == "compare_all":
        ae = _c.reshape(a, (n,) + (1,) * v.ndim)
        hit = _lt(ae, v) if side == "left" else _c.logical_not(_lt(v, ae))
        return _c.sum(cast(hit, it), 0)
    lo = _c.zeros(v.shape, it)
    hi = _c.full(v.shape, n, it)
    for _ in range(int(n).bit_length()):
        active = _c.less(lo, hi)
        mid = (lo + hi) // 2
        am = _c.take(a, _c.minimum(mid, n - 1), 0)
        go = _lt(am, v) if side == "left" else _c.logical_not(_lt(v, am))
        go = _c.logical_and(go, active)
        lo, hi = _c.where(go, mid + 1, lo), _c.where(_c.logical_and(active, _c.logical_not(go)),
                                                     mid, hi)
    return lo


# ---- unique and set operations ---------------------------------------------------------------

def _neq_sorted(s, equal_nan=True):
    """True where the sorted 1-d (or row-sorted 2-d, along axis 0) s differs from the entry
    before; NaNs equal each other with equal_nan."""
    d = _c.not_equal(s[1:], s[:-1])
    if equal_nan and is_inexact(s.dtype):
        d = _c.logical_and(d, _c.logical_not(_c.logical_and(_c.not_equal(s[1:], s[1:]),
                                                            _c.not_equal(s[:-1], s[:-1]))))
    if s.ndim > 1:
        d = _c.any(d, tuple(range(1, s.ndim)))
    return _c.concatenate([_c.ones((1,), bool), d], 0)


def _positions(mask, size, fill):
    """The indices of the True entries of the 1-d mask, `size` of them (fill after)."""
    from strata._numpy_shape import nonzero
    return nonzero(mask, size=size, fill_value=fill)[0]


def _unique_core(ar, size, equal_nan=True):
    """The sorted unique slices of ar along axis 0: (values, first index, inverse, counts,
    valid mask, number); the first `size` (all when None, ar concrete) of them."""
    n = ar.shape[0]
    it = int_dtype()
    if ar.ndim == 1:
        perm = _l.sort((ar, _l.iota(it, n)), 0, 1)[1]
    else:
        flat = _c.reshape(ar, (n, -1))
        cols = tuple(flat[:, j] for j in range(flat.shape[1]))
        perm = _l.sort(cols + (_l.iota(it, n),), 0, len(cols))[-1]
    s = _c.take(ar, perm, 0)
    mask = _neq_sorted(s, equal_nan)
    count = _c.sum(cast(mask, it))
    if size is None:
        if not mask.is_concrete:
            raise TypeError("[unique] the size argument is needed under a transformation "
                            "(the number of unique values depends on the data)")
        size = int(count)
    size = int(size)
    pos = _positions(mask, size, n)
    valid = _c.less(_l.iota(it, size), count)
    first = _c.where(valid, pos, _c.zeros((), it))  # padding: the minimum, as JAX
    vals = _c.take(s, first, 0)
    index = _c.take(perm, first, 0)
    inv_sorted = _l.cumsum(cast(mask, it), 0) - 1
    inverse = scatter_1d(_c.zeros((n,), it), perm, inv_sorted)
    nxt = _c.concatenate([pos[1:], _c.full((1,), n, it)], 0)
    nxt = _c.where(_c.less(_l.iota(it, size) + 1, count), nxt, _c.full((), n, it))
    counts = _c.where(valid, nxt - pos, _c.zeros((), it))
    return vals, index, inverse, counts, valid, count


def _fill_rows(vals, valid, fill_value):
    if fill_value is None:
        fill = vals[0]  # the minimum unique value
    else:
        fill = cast(arr(fill_value), vals.dtype)
    v = _c.reshape(valid, (valid.shape[0],) + (1,) * (vals.ndim - 1))
    return _c.where(v, vals, fill)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, size=None, fill_value=None, sorted=True):
    """The sorted unique entries of ar (slices along axis), with first indices, inverse (ar's
    shape for axis None) and counts on request; `size` fixes the length for jit/vmap (padding
    with fill_value, by default the minimum)."""
    a = arr(ar)
    if axis is None:
        x = _c.ravel(a)
        ax = 0
    else:
        ax = axis_index("unique", axis, a.ndim)
        x = _c.moveaxis(a, ax, 0) if ax else a
    if x.shape[0] == 0:
        if size and fill_value is None:
            raise ValueError("[unique] for zero-sized input with nonzero size argument, "
                             "fill_value must be specified")
        n = 0 if size is None else int(size)
        vals = _c.full((n,) + tuple(x.shape[1:]), 0 if fill_value is None else fill_value,
                       a.dtype)
        e = _c.zeros((n,), int_dtype())
        vi = _c.zeros(a.shape if axis is None else (0,), int_dtype())
        vals = vals if ax == 0 else _c.moveaxis(vals, 0, ax)
        out = [vals] + [e] * return_index + [vi] * return_inverse + [e] * return_counts
        return out[0] if len(out) == 1 else tuple(out)
    vals, index, inverse, counts, valid, _ = _unique_core(x, size, equal_nan)
    if size is not None:
        vals = _fill_rows(vals, valid, fill_value)
    if ax:
        vals = _c.moveaxis(vals, 0, ax)
    out = [vals]
    if return_index:
        out.append(index)
    if return_inverse:
        out.append(_c.reshape(inverse, a.shape) if axis is None else inverse)
    if return_counts:
        out.append(counts)
    return out[0] if len(out) == 1 else tuple(out)


_UniqueAll = _namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
_UniqueCounts = _namedtuple("UniqueCountsResult", ["values", "counts"])
_UniqueInverse = _namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def unique_values(x, /, *, size=None, fill_value=None):
    """The Array API's unique values (sorted; each NaN distinct, as the Array API and JAX)."""
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def unique_counts(x, /, *, size=None, fill_value=None):
    """(values, counts) of the unique entries (NaNs distinct)."""
    return _UniqueCounts(*unique(x, return_counts=True, equal_nan=False, size=size,
                                 fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
    """(values, inverse_indices) of the unique entries (the inverse has x's shape; NaNs
    distinct)."""
    return _UniqueInverse(*unique(x, return_inverse=True, equal_nan=False, size=size,
                                  fill_value=fill_value))


def unique_all(x, /, *, size=None, fill_value=None):
    """(values, indices, inverse_indices, counts) of the unique entries (NaNs distinct)."""
    return _UniqueAll(*unique(x, return_index=True, return_inverse=True, return_counts=True,
                              equal_nan=False, size=size, fill_value=fill_value))


def _select_sorted(op, values, valid, size, fill_value):
    """The valid entries of the 1-d values in sorted order, `size` of them (fill_value after,
    by default the smallest selected value); all of them when size is None (concrete)."""
    it = int_dtype()
    inval = cast(_c.logical_not(valid), it)
    s_inval, s = _l.sort((inval, values), 0, 2)
    count = _c.sum(cast(valid, it))
    if size is None:
        if not count.is_concrete:
            raise TypeError(f"[{op}] the size argument is needed under a transformation (the "
                            f"output length depends on the data)")
        size = int(count)
    size = int(size)
    n = s.shape[0]
    if size > n:
        s = _c.concatenate([s, _c.zeros((size - n,), s.dtype)], 0)
    else:
        s = s[:size]
    ok = _c.less(_l.iota(it, size), count)
    if fill_value is None:
        fill = s[0] if size else _c.zeros((), s.dtype)
    else:
        fill = cast(arr(fill_value), s.dtype)
    return _c.where(ok, s, fill)


def _unique_valid(x, assume_unique):
    x = _c.ravel(arr(x))
    if x.shape[0] == 0:
        return x, _c.zeros((0,), bool)
    if assume_unique:
        return x, _c.ones(x.shape, bool)
    vals, _, _, _, valid, _ = _unique_core(x, x.shape[0])
    return vals, valid


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    """True where an entry of element occurs in test_elements (False with invert)."""
    e = arr(element)
    t = _c.ravel(arr(test_elements))
    dt = rtype(e, t)
    e, t = cast(e, dt), cast(t, dt)
    if method not in ("auto", "compare_all", "binary_search", "sort"):
        raise ValueError(f"[isin] invalid method {method!r}")
    if t.shape[0] == 0:
        r = _c.zeros(e.shape, bool)
    elif method == "compare_all" or (method == "auto" and e.size * t.size <= 1 << 20):
        r = _c.any(_c.equal(e[..., None], t), -1)
    else:
        st = _l.sort(t, 0)
        i = searchsorted(st, e)
        r = _c.equal(_c.take(st, _c.minimum(i, t.shape[0] - 1), 0), e)
    return _c.logical_not(r) if invert else r


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """The sorted unique values in both arrays (with the indices of their first occurrences
    on request); `size` fixes the length (values padded with fill_value, by default the
    smallest one, indices with the input sizes)."""
    a1, a2 = _c.ravel(arr(ar1)), _c.ravel(arr(ar2))
    dt = rtype(a1, a2)
    a1, a2 = cast(a1, dt), cast(a2, dt)
    if not return_indices:
        u1, v1 = _unique_valid(a1, assume_unique)
        return _select_sorted("intersect1d", u1, _c.logical_and(v1, isin(u1, a2)), size,
                              fill_value)
    it = int_dtype()
    n1, n2 = a1.shape[0], a2.shape[0]
    if n1 == 0 or n2 == 0:
        z = _c.zeros((0 if size is None else int(size),), it)
        return _c.zeros(z.shape, dt), z, z
    u1, i1, _, _, v1, _ = _unique_core(a1, n1)
    u2, i2, _, _, v2, c2 = _unique_core(a2, n2)
    keep = _c.logical_and(v1, isin(u1, _c.where(v2, u2, u2[0])))
    pos = _positions(keep, size if size is not None else
                     (int(_c.sum(cast(keep, it))) if keep.is_concrete else None), 0)
    if pos is None:
        raise TypeError("[intersect1d] the size argument is needed under a transformation")
    cnt = _c.sum(cast(keep, it))
    ok = _c.less(_l.iota(it, pos.shape[0]), cnt)
    vals = _c.take(u1, pos, 0)
    big = _c.where(v2, u2, _c.full((), highest(dt), dt))
    j = _c.minimum(searchsorted(big, vals), n2 - 1)
    idx1 = _c.take(i1, pos, 0)
    idx2 = _c.take(i2, j, 0)
    fill = vals[0] if fill_value is None and pos.shape[0] else \
        cast(arr(0 if fill_value is None else fill_value), dt)
    # padded indices are out of bounds (the input sizes), as JAX
    return (_c.where(ok, vals, fill), _c.where(ok, idx1, _c.full((), n1, it)),
            _c.where(ok, idx2, _c.full((), n2, it)))


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """The sorted unique values in either array."""
    a1, a2 = _c.ravel(arr(ar1)), _c.ravel(arr(ar2))
    dt = rtype(a1, a2)
    return unique(_c.concatenate([cast(a1, dt), cast(a2, dt)], 0), size=size,
                  fill_value=fill_value)


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted unique values of ar1 that are not in ar2 (with size, padded with fill_value,
    by default 0)."""
    a1, a2 = _c.ravel(arr(ar1)), _c.ravel(arr(ar2))
    dt = rtype(a1, a2)
    a1, a2 = cast(a1, dt), cast(a2, dt)
    u1, v1 = _unique_valid(a1, assume_unique)
    if u1.shape[0] == 0:
        return _c.zeros((0 if size is None else int(size),), dt)
    # JAX fills with 0 by default here (the other set operations use the smallest value)
    return _select_sorted("setdiff1d", u1, _c.logical_and(v1, isin(u1, a2, invert=True)), size,
                          0 if fill_value is None else fill_value)


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted unique values in exactly one of the arrays."""
    a1, a2 = _c.ravel(arr(ar1)), _c.ravel(arr(ar2))
    dt = rtype(a1, a2)
    a1, a2 = cast(a1, dt), cast(a2, dt)
    u1, v1 = _unique_valid(a1, assume_unique)
    u2, v2 = _unique_valid(a2, assume_unique)
    m1 = _c.logical_and(v1, isin(u1, a2, invert=True)) if u1.shape[0] else v1
    m2 = _c.logical_and(v2, isin(u2, a1, invert=True)) if u2.shape[0] else v2
    return _select_sorted("setxor1d", _c.concatenate([u1, u2], 0),
                          _c.concatenate([m1, m2], 0), size, fill_value)


# ---- Counting --------------------------------------------------------------------------------

def bincount(x, weights=None, minlength=0, *, length=None):
    """The number of occurrences (or summed weights) of each value 0..length-1 in the 1-d
    non-negative integer x; length defaults to max(x) + 1 (x concrete). As JAX, negative
    values count as 0 and values past length are dropped."""
    x = arr(x)
    if not is_int(x.dtype) and kind(x.dtype) != "b":
        raise TypeError(f"[bincount] x argument must have an integer type, got {x.dtype}")
    if x.ndim != 1:
        raise ValueError(f"[bincount] only 1-d input is supported, got {list(x.shape)}")
    if length is None:
        if not x.is_concrete:
            raise TypeError("[bincount] the length argument is needed under a transformation")
        xv = _np.asarray(x)
        length = _b.max(int(minlength), int(xv.max()) + 1 if xv.size else 0)
    length = int(length)
    x = cast(x, int_dtype())
    if weights is None:
        w = _c.ones(x.shape, int_dtype())
    else:
        w = arr(weights)
        if tuple(w.shape) != tuple(x.shape):
            raise ValueError(f"[bincount] shape of weights {list(w.shape)} must match shape "
                             f"of x {list(x.shape)}")
    i = _c.maximum(x, 0)
    return scatter_1d(_c.zeros((length,), w.dtype), i, w, add=True)


def digitize(x, bins, right=False, *, method=None):
    """The index of the bin each entry of x falls into (bins monotonically increasing or
    decreasing): bins[i-1] <= x < bins[i], or bins[i-1] < x <= bins[i] with right."""
    x, b = arr(x), arr(bins)
    if b.ndim != 1:
        raise ValueError(f"[digitize] bins must be 1-d, got {list(b.shape)}")
    if b.shape[0] == 0:
        return _c.zeros(x.shape, int_dtype())
    side = "left" if right else "right"
    m = method or "scan"
    inc = searchsorted(b, x, side, method=m)
    dec = b.shape[0] - searchsorted(_l.rev(b, [0]), x, side, method=m)
    return _c.where(_c.greater_equal(b[-1], b[0]), inc, dec)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The edges of the histogram bins: `bins` equal bins over range (default: a's min to
    max, widened by 0.5 each side when they are equal), or the given edges."""
    a = arr(a)
    if isinstance(bins, str):
        raise NotImplementedError("[histogram_bin_edges] string bin estimators are not "
                                  "supported")
    ft = float_dtype(a)
    if not isinstance(bins, (int, _np.integer)):
        b = arr(bins)
        if b.ndim != 1:
            raise ValueError(f"[histogram_bin_edges] bins must be an int or 1-d, got "
                             f"{list(b.shape)}")
        return b
    if range is None:
        lo, hi = cast(_c.min(a), ft), cast(_c.max(a), ft)
    else:
        lo, hi = cast(arr(range[0]), ft), cast(arr(range[1]), ft)
    eq = _c.equal(lo, hi)
    lo = _c.where(eq, lo - 0.5, lo)
    hi = _c.where(eq, hi + 0.5, hi)
    from strata._numpy_shape import linspace
    return linspace(lo, hi, int(bins) + 1)


def histogram(a, bins=10, range=None, weights=None, density=None):
    """(counts, edges): the number (or summed weights) of a's entries per bin, the last bin
    closed; density normalizes to a probability density."""
    a = _c.ravel(arr(a))
    edges = histogram_bin_edges(a, bins, range, weights)
    ft = rtype(a, edges)
    a_, e_ = cast(a, ft), cast(edges, ft)
    if weights is None:
        w = _c.ones(a.shape, a.dtype)
    else:
        w = _c.ravel(arr(weights))
        if w.shape != a.shape:
            raise ValueError(f"[histogram] weights of shape {list(w.shape)} do not match a "
                             f"of {list(a.shape)}")
    nb = e_.shape[0] - 1
    i = searchsorted(e_, a_, "right")
    i = _c.where(_c.equal(a_, e_[-1]), _c.full((), nb, i.dtype), i)
    counts = scatter_1d(_c.zeros((nb + 2,), w.dtype), i, w, add=True)[1:nb + 1]
    if density:
        c = to_f(counts)
        widths = cast(e_[1:] - e_[:-1], c.dtype)
        return c / (_c.sum(c) * widths), edges
    return counts, edges


def to_f(x):
    return cast(x, float_dtype(x))


def histogramdd(sample, bins=10, range=None, weights=None, density=None):
    """The multidimensional histogram of the [N, D] sample: (counts, list of D edge
    arrays)."""
    s = arr(sample)
    if s.ndim == 1:
        s = _c.reshape(s, (-1, 1))
    if s.ndim != 2:
        raise ValueError(f"[histogramdd] sample must be [N, D], got {list(s.shape)}")
    N, D = s.shape
    if isinstance(bins, (int, _np.integer)):
        bins = [int(bins)] * D
    if len(bins) != D:
        raise ValueError(f"[histogramdd] the dimension of bins ({len(bins)}) must equal the "
                         f"dimension of the sample ({D})")
    ranges = range if range is not None else [None] * D
    edges, idx, nbs = [], [], []
    for d in _b.range(D):
        e = histogram_bin_edges(s[:, d], bins[d], ranges[d])
        ft = rtype(s, e)
        x, e_ = cast(s[:, d], ft), cast(e, ft)
        nb = e_.shape[0] - 1
        i = searchsorted(e_, x, "right")
        i = _c.where(_c.equal(x, e_[-1]), _c.full((), nb, i.dtype), i)
        edges.append(e)
        idx.append(i)
        nbs.append(nb + 2)
    flat = _c.zeros((N,), int_dtype())
    for i, nb in zip(idx, nbs):
        flat = flat * nb + i
    w = _c.ones((N,), s.dtype) if weights is None else _c.ravel(arr(weights))
    total = int(_np.prod(nbs))
    counts = _c.reshape(scatter_1d(_c.zeros((total,), w.dtype), flat, w, add=True), tuple(nbs))
    counts = counts[tuple(slice(1, -1) for _ in nbs)]
    if density:
        c = to_f(counts)
        c = c / _c.sum(c)
        for d, e in enumerate(edges):
            shp = [1] * D
            shp[d] = e.shape[0] - 1
            c = c / _c.reshape(cast(e[1:] - e[:-1], c.dtype), tuple(shp))
        return c, edges
    return counts, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):
    """The 2-d histogram of the points (x, y): (counts, x edges, y edges)."""
    x, y = arr(x), arr(y)
    dt = rtype(x, y)
    try:
        nbins = len(bins)
    except TypeError:
        nbins = 1
    b = list(bins) if nbins == 2 else [bins, bins]
    c, e = histogramdd(_c.stack([cast(x, dt), cast(y, dt)], 1), b, range, weights, density)
    return c, e[0], e[1]
