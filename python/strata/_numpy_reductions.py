"""strata.numpy reductions with JAX's full signatures (dtype, out, keepdims, initial, where),
cumulative and NaN-ignoring reductions, order statistics (quantile family, median), average,
cov/corrcoef and the closeness tests, over the C++ bindings."""

import builtins as _b

import numpy as _np

from strata._numpy_util import (_c, _l, arr, kind, is_inexact, to_dtype, cast,
                                check_out, axis_index, axes, lowest, highest, float_dtype,
                                to_float, move_to_end, keep_shape, int_dtype, rtype)

__all__ = ["sum", "prod", "product", "max", "min", "amax", "amin", "mean", "var", "std", "all",
           "any", "argmax", "argmin", "ptp", "count_nonzero", "cumsum", "cumprod",
           "cumulative_sum", "cumulative_prod", "nancumsum", "nancumprod", "nansum", "nanprod",
           "nanmax", "nanmin", "nanmean", "nanvar", "nanstd", "nanargmax", "nanargmin",
           "quantile", "percentile", "nanquantile", "nanpercentile", "median", "nanmedian",
           "average", "cov", "corrcoef", "isclose", "allclose", "array_equal", "array_equiv"]


def _mask(a, where, fill):
    """a with the entries where `where` is False replaced by fill (a's dtype)."""
    if where is None:
        return a
    w = arr(where)
    return _c.where(_c.broadcast_to(w, a.shape) if w.shape != a.shape else w, a,
                    _c.full((), fill, a.dtype))


def _accumulate(op, core, identity, combine, a, axis, dtype, out, keepdims, initial, where,
                promote_integers):
    check_out(op, out)
    a, dtype = arr(a), to_dtype(dtype)
    axes(op, axis, a.ndim)
    if dtype is not None:
        a = cast(a, dtype)
    r = core(_mask(a, where, identity), axis, keepdims)
    if dtype is not None:
        r = cast(r, dtype)
    elif not promote_integers and kind(a.dtype) != "b":
        r = cast(r, a.dtype)
    if initial is not None:
        r = combine(r, cast(arr(initial), r.dtype))
    return r


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
        promote_integers=True):
    """Sum over the axes (all for None); booleans and narrow integers sum in the default integer
    unless promote_integers=False; `where` masks entries out, `initial` is added."""
    return _accumulate("sum", _c.sum, 0, _c.add, a, axis, dtype, out, keepdims, initial, where,
                       promote_integers)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
         promote_integers=True):
    """Product over the axes, with sum's dtype rules; `where` masks, `initial` multiplies."""
    return _accumulate("prod", _c.prod, 1, _c.multiply, a, axis, dtype, out, keepdims, initial,
                       where, promote_integers)


product = prod


def _extremum(op, core, comb, fill_of, a, axis, out, keepdims, initial, where):
    check_out(op, out)
    a = arr(a)
    axes(op, axis, a.ndim)
    if where is not None and initial is None:
        raise ValueError(f"[{op}] reduction operation {op!r} has no identity, so a where mask "
                         f"needs an initial value")
    if a.size == 0 and initial is None and \
            _b.any(a.shape[i] == 0 for i in axes(op, axis, a.ndim)):
        raise ValueError(f"[{op}] zero-size array to a reduction without identity "
                         f"({a.dtype}{list(a.shape)}); pass initial")
    if a.size == 0 or (where is not None):
        a = _mask(a, where if where is not None else True, fill_of(a.dtype))
    if a.size == 0:
        shp = keep_shape(a.shape, axes(op, axis, a.ndim))
        r = _c.full(shp if keepdims else tuple(s for i, s in enumerate(a.shape)
                                                 if i not in axes(op, axis, a.ndim)),
                    fill_of(a.dtype), a.dtype)
    else:
        r = core(a, axis, keepdims)
    if initial is not None:
        r = comb(r, cast(arr(initial), r.dtype))
    return r


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Maximum over the axes; NaN propagates. With `where`, `initial` is required."""
    return _extremum("max", _c.max, _c.maximum, lowest, a, axis, out, keepdims, initial, where)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Minimum over the axes; NaN propagates. With `where`, `initial` is required."""
    return _extremum("min", _c.min, _c.minimum, highest, a, axis, out, keepdims, initial, where)


amax, amin = max, min


def _count(a, axis, keepdims, where):
    """The number of entries a reduction of a over axis sees (an Array when where is given)."""
    ax = axes("mean", axis, a.ndim)
    if where is None:
        n = 1
        for i in ax:
            n *= a.shape[i]
        return n
    w = _c.broadcast_to(arr(where), a.shape)
    return _c.sum(w, axis, keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Arithmetic mean over the axes (integers average in the default float)."""
    check_out("mean", out)
    a, dtype = arr(a), to_dtype(dtype)
    axes("mean", axis, a.ndim)
    if dtype is not None and is_inexact(dtype):
        a = cast(a, dtype)
    if where is None and dtype is None:
        return _c.mean(a, axis, keepdims)
    ft = float_dtype(a)
    ct = _upcast(ft)
    s = _c.sum(_mask(cast(a, ct), where, 0), axis, keepdims)
    n = _count(a, axis, keepdims, where)
    r = s / (cast(n, ct) if not isinstance(n, int) else n)
    return cast(r, dtype if dtype is not None else ft)


def _upcast(dt):
    """The dtype a float reduction computes in: 16-bit floats in float32 (as JAX, so sums and
    counts do not overflow)."""
    return _np.dtype("float32") if kind(dt) == "f" and getattr(dt, "itemsize", 4) == 2 else dt


def _ddof(op, ddof, correction):
    if correction is not None:
        if ddof != 0:
            raise ValueError(f"[{op}] ddof and correction can't both be given")
        return correction
    return ddof


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        correction=None):
    """Variance over the axes, divided by N - ddof (correction is the Array API name)."""
    check_out("var", out)
    ddof = _ddof("var", ddof, correction)
    a, dtype = arr(a), to_dtype(dtype)
    axes("var", axis, a.ndim)
    if where is None and dtype is None and isinstance(ddof, int):
        return _c.var(a, axis, keepdims, ddof)
    a = to_float(cast(a, dtype) if dtype is not None and is_inexact(dtype) else a)
    ft = a.dtype
    a = cast(a, _upcast(ft))
    m = mean(a, axis, keepdims=True, where=where)
    d = _mask(a - m, where, 0)
    s = _c.sum(d * d, axis, keepdims)
    n = _count(a, axis, keepdims, where)
    r = s / (cast(arr(n), a.dtype) - ddof)
    return cast(r, dtype if dtype is not None else ft)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        correction=None):
    """Standard deviation: the square root of var."""
    check_out("std", out)
    r = _c.sqrt(var(a, axis, None, None, ddof, keepdims, where=where, correction=correction))
    return cast(r, to_dtype(dtype)) if dtype is not None else r


def _logical(op, core, fill, a, axis, out, keepdims, where):
    check_out(op, out)
    a = arr(a)
    axes(op, axis, a.ndim)
    if where is not None:
        a = _mask(_c.not_equal(a, 0) if kind(a.dtype) != "b" else a, where, fill)
    return core(a, axis, keepdims)


def all(a, axis=None, out=None, keepdims=False, *, where=None):
    """True where every entry (that `where` selects) is nonzero."""
    return _logical("all", _c.all, True, a, axis, out, keepdims, where)


def any(a, axis=None, out=None, keepdims=False, *, where=None):
    """True where some entry (that `where` selects) is nonzero."""
    return _logical("any", _c.any, False, a, axis, out, keepdims, where)


def _arg(op, core, a, axis, out, keepdims):
    check_out(op, out)
    a = arr(a)
    if axis is not None:
        axis = axis_index(op, axis, a.ndim)
    return core(a, axis, bool(keepdims))


def argmax(a, axis=None, out=None, keepdims=None):
    """Index of the maximum (the first one; NaN counts as the maximum), flat for axis None."""
    return _arg("argmax", _c.argmax, a, axis, out, keepdims)


def argmin(a, axis=None, out=None, keepdims=None):
    """Index of the minimum (the first one; NaN counts as the minimum), flat for axis None."""
    return _arg("argmin", _c.argmin, a, axis, out, keepdims)


def ptp(a, axis=None, out=None, keepdims=False):
    """max - min over the axes ("peak to peak")."""
    check_out("ptp", out)
    a = arr(a)
    axes("ptp", axis, a.ndim)
    return _c.subtract(_c.max(a, axis, keepdims), _c.min(a, axis, keepdims))


def count_nonzero(a, axis=None, keepdims=False):
    """The number of nonzero entries over the axes, in the default integer dtype."""
    a = arr(a)
    return cast(_c.sum(_c.not_equal(a, 0) if kind(a.dtype) != "b" else a, axis, keepdims),
                int_dtype())


# ---- Cumulative reductions -------------------------------------------------------------------

def _cumulative(op, core, a, axis, dtype, out, fill=None):
    check_out(op, out)
    a, dtype = arr(a), to_dtype(dtype)
    if axis is None or a.ndim == 0:
        a = _c.ravel(a)
        axis = 0
    axis = axis_index(op, axis, a.ndim)
    if fill is not None and is_inexact(a.dtype):
        a = _c.where(_c.not_equal(a, a), _c.full((), fill, a.dtype), a)
    if dtype is None and kind(a.dtype) == "b":
        dtype = int_dtype()
    a = cast(a, dtype)
    if a.shape[axis] == 0:
        return a
    return cast(core(a, axis), a.dtype)


def cumsum(a, axis=None, dtype=None, out=None):
    """Running sum along axis (flattened for None); the dtype stays (int8 stays int8, as in
    JAX), booleans count in the default integer."""
    return _cumulative("cumsum", _l.cumsum, a, axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None):
    """Running product along axis (flattened for None), dtype as cumsum."""
    return _cumulative("cumprod", _l.cumprod, a, axis, dtype, out)


def nancumsum(a, axis=None, dtype=None, out=None):
    """cumsum with NaNs counted as zero."""
    return _cumulative("nancumsum", _l.cumsum, a, axis, dtype, out, fill=0)


def nancumprod(a, axis=None, dtype=None, out=None):
    """cumprod with NaNs counted as one."""
    return _cumulative("nancumprod", _l.cumprod, a, axis, dtype, out, fill=1)


def _cumulative_api(op, core, x, axis, dtype, include_initial, init):
    x = arr(x)
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"[{op}] axis must be given for arrays of more than one dimension "
                             f"(got {x.dtype}{list(x.shape)})")
        axis = 0
    r = _cumulative(op, core, x, axis, dtype, None)
    if include_initial:
        ax = axis_index(op, axis, r.ndim)
        cfg = [(1 if i == ax else 0, 0, 0) for i in range(r.ndim)]
        r = _l.pad(r, _c.full((), init, r.dtype), cfg)
    return r


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """The Array API running sum; include_initial prepends the zero."""
    return _cumulative_api("cumulative_sum", _l.cumsum, x, axis, dtype, include_initial, 0)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """The Array API running product; include_initial prepends the one."""
    return _cumulative_api("cumulative_prod", _l.cumprod, x, axis, dtype, include_initial, 1)


# ---- NaN-ignoring reductions -----------------------------------------------------------------

def _isnan(a):
    return _c.not_equal(a, a)


def _nan_to(a, v):
    return _c.where(_isnan(a), _c.full((), v, a.dtype), a) if is_inexact(a.dtype) else a


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """sum with NaNs counted as zero."""
    check_out("nansum", out)
    return sum(_nan_to(arr(a), 0), axis, dtype, None, keepdims, initial, where)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """prod with NaNs counted as one."""
    check_out("nanprod", out)
    return prod(_nan_to(arr(a), 1), axis, dtype, None, keepdims, initial, where)


def _nan_extremum(op, f, fill_of, a, axis, out, keepdims, initial, where):
    check_out(op, out)
    a = arr(a)
    if not is_inexact(a.dtype):
        return f(a, axis, None, keepdims, initial, where)
    nan = _isnan(a)
    r = f(_c.where(nan, _c.full((), fill_of(a.dtype), a.dtype), a), axis, None, keepdims,
          initial, where)
    if initial is None:  # an all-NaN slice is NaN
        valid = _c.logical_not(nan)
        if where is not None:
            valid = _c.logical_and(valid, arr(where))
        r = _c.where(_c.any(valid, axis, keepdims), r, _c.full((), _np.nan, r.dtype))
    return r


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """max ignoring NaNs (NaN for an all-NaN slice)."""
    return _nan_extremum("nanmax", max, lowest, a, axis, out, keepdims, initial, where)


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """min ignoring NaNs (NaN for an all-NaN slice)."""
    return _nan_extremum("nanmin", min, highest, a, axis, out, keepdims, initial, where)


def _valid(a, where):
    v = _c.logical_not(_isnan(a))
    return v if where is None else _c.logical_and(v, arr(where))


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """mean of the non-NaN entries (NaN for an all-NaN slice)."""
    check_out("nanmean", out)
    a = arr(a)
    if not is_inexact(a.dtype):
        return mean(a, axis, dtype, None, keepdims, where=where)
    return mean(_nan_to(a, 0), axis, dtype, None, keepdims, where=_valid(a, where))


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
           correction=None):
    """var of the non-NaN entries (NaN where fewer than ddof + 1 remain)."""
    check_out("nanvar", out)
    a = arr(a)
    if not is_inexact(a.dtype):
        return var(a, axis, dtype, None, ddof, keepdims, where=where, correction=correction)
    ddof = _ddof("nanvar", ddof, correction)
    v = _valid(a, where)
    ft = a.dtype
    a = cast(a, _upcast(ft))
    a0 = _nan_to(a, 0)
    n = cast(_c.sum(v, axis, keepdims), a.dtype)
    m = _c.sum(a0, axis, True) / cast(_c.sum(v, axis, True), a.dtype)
    d = _c.where(v, a0 - m, _c.full((), 0, a.dtype))
    s = _c.sum(d * d, axis, keepdims)
    dof = n - ddof
    r = _c.where(dof > 0, s / _c.where(dof > 0, dof, _c.full((), 1, a.dtype)),
                 _c.full((), _np.nan, a.dtype))
    return cast(r, to_dtype(dtype) if dtype is not None else ft)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
           correction=None):
    """std of the non-NaN entries."""
    check_out("nanstd", out)
    r = _c.sqrt(nanvar(a, axis, None, None, ddof, keepdims, where=where, correction=correction))
    return cast(r, to_dtype(dtype)) if dtype is not None else r


def _nan_arg(op, f, fill_of, a, axis, out, keepdims):
    check_out(op, out)
    a = arr(a)
    if not is_inexact(a.dtype):
        return f(a, axis, None, keepdims)
    nan = _isnan(a)
    r = f(_c.where(nan, _c.full((), fill_of(a.dtype), a.dtype), a), axis, None, keepdims)
    all_nan = _c.all(nan, axis, bool(keepdims))
    return _c.where(all_nan, _c.full((), -1, r.dtype), r)


def nanargmax(a, axis=None, out=None, keepdims=None):
    """argmax ignoring NaNs; -1 for an all-NaN slice (JAX's choice; numpy raises)."""
    return _nan_arg("nanargmax", argmax, lowest, a, axis, out, keepdims)


def nanargmin(a, axis=None, out=None, keepdims=None):
    """argmin ignoring NaNs; -1 for an all-NaN slice."""
    return _nan_arg("nanargmin", argmin, highest, a, axis, out, keepdims)


# ---- Order statistics ------------------------------------------------------------------------

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(op, a, q, axis, method, keepdims, squash_nans):
    a = to_float(arr(a))
    q = arr(q)
    if kind(q.dtype) == "c":
        raise TypeError(f"[{op}] q must be real, got {q.dtype}")
    q = cast(q, a.dtype)
    if q.ndim > 1:
        raise ValueError(f"[{op}] q must be a scalar or 1-d, got {q.dtype}{list(q.shape)}")
    if method not in _METHODS:
        raise ValueError(f"[{op}] method must be one of {_METHODS}, got {method!r}")
    ax = axes(op, axis, a.ndim)
    out_shape = keep_shape(a.shape, ax) if keepdims else \
        tuple(s for i, s in enumerate(a.shape) if i not in ax)
    x = move_to_end(a, ax) if a.ndim else _c.reshape(a, (1,))
    n = x.shape[-1]
    nan = _isnan(x)
    s = _l.sort(x, -1)  # NaNs sort last
    qf = _c.reshape(q, (-1,))  # [Q]
    if squash_nans:
        cnt = cast(_c.sum(_c.logical_not(nan), -1, True), a.dtype)  # B + [1]
    else:
        cnt = _c.full((), n, a.dtype)
    pos = qf * (cnt - 1)  # B + [Q]
    low = _c.clip(_c.floor(pos), 0, n - 1)
    high = _c.clip(_c.ceil(pos), 0, n - 1)
    if method == "lower":
        idx = (low, None)
    elif method == "higher":
        idx = (high, None)
    elif method == "nearest":
        idx = (_c.clip(_c.round(pos), 0, n - 1), None)  # half to even, as numpy
    else:
        idx = (low, high)
    vl = _c.take_along_axis(s, _c.broadcast_to(cast(idx[0], _np.dtype("int32")),
                                               x.shape[:-1] + (qf.shape[0],)), -1)
    if idx[1] is None:
        r = vl
    else:
        vh = _c.take_along_axis(s, _c.broadcast_to(cast(idx[1], _np.dtype("int32")),
                                                   x.shape[:-1] + (qf.shape[0],)), -1)
        w = 0.5 if method == "midpoint" else pos - _c.floor(pos)
        r = vl + (vh - vl) * w
    bad = _c.any(nan, -1, True) if not squash_nans else _c.less(cnt, 1)
    r = _c.where(bad, _c.full((), _np.nan, a.dtype), r)
    r = _c.moveaxis(r, r.ndim - 1, 0)  # [Q] + B
    return _c.reshape(r, tuple(q.shape) + out_shape)


def _quantile_args(op, out, overwrite_input, method, interpolation):
    check_out(op, out)
    if interpolation is not None:
        method = interpolation
    return method


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, interpolation=None):
    """The q-th quantiles (q in [0, 1], a scalar or 1-d) over the axes, by sorting; methods
    linear, lower, higher, midpoint, nearest. A NaN in a slice makes it NaN."""
    method = _quantile_args("quantile", out, overwrite_input, method, interpolation)
    return _quantile("quantile", a, q, axis, method, keepdims, False)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, interpolation=None):
    """quantile of the non-NaN entries."""
    method = _quantile_args("nanquantile", out, overwrite_input, method, interpolation)
    return _quantile("nanquantile", a, q, axis, method, keepdims, True)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, interpolation=None):
    """quantile with q in percent."""
    method = _quantile_args("percentile", out, overwrite_input, method, interpolation)
    return _quantile("percentile", a, to_float(arr(q)) / 100, axis, method, keepdims, False)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, interpolation=None):
    """nanquantile with q in percent."""
    method = _quantile_args("nanpercentile", out, overwrite_input, method, interpolation)
    return _quantile("nanpercentile", a, to_float(arr(q)) / 100, axis, method, keepdims, True)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The middle value (mean of the two middle ones for an even count) over the axes."""
    check_out("median", out)
    return _quantile("median", a, 0.5, axis, "midpoint", keepdims, False)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """median of the non-NaN entries."""
    check_out("nanmedian", out)
    return _quantile("nanmedian", a, 0.5, axis, "midpoint", keepdims, True)


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """The weighted mean over the axes (weights of a's shape, or 1-d along one axis); with
    returned=True also the sum of the weights."""
    a = arr(a)
    if weights is None:
        r = mean(a, axis, keepdims=keepdims)
        if not returned:
            return r
        n = _count(a, axis, keepdims, None)
        return r, _c.full(r.shape, n, r.dtype)
    w = arr(weights)
    ft = rtype(float_dtype(a), w)
    a, w = cast(a, ft), cast(w, ft)
    if w.shape != a.shape:
        if axis is None:
            raise ValueError(f"[average] axis must be given when the weights' shape "
                             f"{list(w.shape)} differs from a's {list(a.shape)}")
        if w.ndim != 1:
            raise TypeError(f"[average] 1-d weights expected when shapes differ, got "
                            f"{w.dtype}{list(w.shape)} for a {a.dtype}{list(a.shape)}")
        ax = axis_index("average", axis, a.ndim)
        if w.shape[0] != a.shape[ax]:
            raise ValueError(f"[average] the length of weights ({w.shape[0]}) differs from "
                             f"a's axis {ax} ({a.shape[ax]})")
        w = _c.reshape(w, tuple(w.shape[0] if i == ax else 1 for i in range(a.ndim)))
        w = _c.broadcast_to(w, a.shape)
    sw = _c.sum(w, axis, keepdims)
    r = _c.sum(a * w, axis, keepdims) / sw
    if returned:
        return r, _c.broadcast_to(sw, r.shape)
    return r


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None):
    """The covariance matrix of the variables in m's rows (columns for rowvar=False), with
    frequency and reliability weights as numpy."""
    m = arr(m)
    if m.ndim > 2:
        raise ValueError(f"[cov] m has more than 2 dimensions: {m.dtype}{list(m.shape)}")
    x = to_float(_c.reshape(m, (1, -1)) if m.ndim < 2 else m)
    if not rowvar and x.shape[0] != 1:
        x = _c.transpose(x)
    if x.shape[0] == 0:
        return _c.full((0, 0), _np.nan, x.dtype)
    if y is not None:
        yy = to_float(arr(y))
        yy = _c.reshape(yy, (1, -1)) if yy.ndim < 2 else yy
        if not rowvar and yy.shape[0] != 1:
            yy = _c.transpose(yy)
        ft = rtype(x, yy)
        x = _c.concatenate([cast(x, ft), cast(yy, ft)], 0)
    if ddof is None:
        ddof = 0 if bias else 1
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = cast(arr(fweights), x.dtype)
    if aweights is not None:
        aw = cast(arr(aweights), x.dtype)
        w = aw if w is None else w * aw
    if w is None:
        avg = _c.mean(x, 1, True)
        fact = n - ddof
        xc = x - avg
        c = _c.matmul(xc, _c.transpose(xc)) / fact
    else:
        sw = _c.sum(w)
        avg = _c.sum(x * w, 1, True) / sw
        if ddof == 0:
            fact = sw
        elif aweights is None:
            fact = sw - ddof
        else:
            fact = sw - ddof * _c.sum(w * cast(arr(aweights), x.dtype)) / sw
        xc = x - avg
        c = _c.matmul(xc * w, _c.transpose(xc)) / fact
    return _c.squeeze(c) if c.shape == (1, 1) else c


def corrcoef(x, y=None, rowvar=True):
    """Pearson correlation coefficients: cov normalized by the standard deviations, clipped to
    [-1, 1]."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return c / c
    d = _c.sqrt(_c.einsum("ii->i", c))
    c = c / d[:, None] / d[None, :]
    return _c.clip(c, -1, 1)


# ---- Closeness -------------------------------------------------------------------------------

def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise |a - b| <= atol + rtol * |b| for finite values; infinities are close only
    to themselves, NaN only to NaN with equal_nan."""
    a, b = arr(a), arr(b)
    dt = rtype(a, b)
    if kind(dt) == "b":
        return _c.equal(a, b)
    if not is_inexact(dt):
        dt = rtype(_c.zeros((), dt), 1.0)
    a, b = cast(a, dt), cast(b, dt)
    fin = _c.logical_and(_c.isfinite(a), _c.isfinite(b))
    close = _c.less_equal(_c.abs(_c.where(fin, a - b, _c.zeros((), dt))),
                          atol + rtol * _c.abs(_c.where(fin, b, _c.zeros((), dt))))
    r = _c.where(fin, close, _c.equal(a, b))
    if equal_nan:
        r = _c.logical_or(r, _c.logical_and(_isnan(a), _isnan(b)))
    return r


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when isclose holds everywhere (a 0-d boolean Array)."""
    return _c.all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """True when the shapes agree and every entry is equal (NaN == NaN with equal_nan)."""
    a1, a2 = arr(a1), arr(a2)
    if tuple(a1.shape) != tuple(a2.shape):
        return _c.full((), False, bool)
    eq = _c.equal(a1, a2)
    if equal_nan and is_inexact(rtype(a1, a2)):
        eq = _c.logical_or(eq, _c.logical_and(_isnan(a1), _isnan(a2)))
    return _c.all(eq)


def array_equiv(a1, a2):
    """True when the arrays broadcast together and are equal everywhere."""
    a1, a2 = arr(a1), arr(a2)
    try:
        _c.broadcast_shapes(a1.shape, a2.shape)
    except (ValueError, TypeError):
        return _c.full((), False, bool)
    return _c.all(_c.equal(a1, a2))
