"""strata.lax's general gather and scatter family with JAX's dimension-number classes, modes
(clip, fill/drop, promise_in_bounds) and operand batching dimensions, over the core's scatter /
scatter_add primitives and element-level indexing (strata.numpy.take, Array.at)."""

import enum as _enum
import math as _math
from typing import NamedTuple as _NamedTuple, Sequence as _Sequence

import numpy as _np

from strata import _core
from strata._lax_ops import (_arr, _kind, _tstr, _as_type_error, _is_pyscalar, _scalar_like,
                             broadcasted_iota, broadcast_in_dim, concatenate, reshape, full,
                             slice_in_dim)

_L = _core.lax


class GatherDimensionNumbers(_NamedTuple):
    """How gather's start indices address the operand (XLA's GatherDimensionNumbers; the index
    vector is the last dimension of start_indices)."""
    offset_dims: _Sequence[int]
    collapsed_slice_dims: _Sequence[int]
    start_index_map: _Sequence[int]
    operand_batching_dims: _Sequence[int] = ()
    start_indices_batching_dims: _Sequence[int] = ()


class ScatterDimensionNumbers(_NamedTuple):
    """How scatter's indices and updates address the operand (XLA's ScatterDimensionNumbers;
    the index vector is the last dimension of scatter_indices)."""
    update_window_dims: _Sequence[int]
    inserted_window_dims: _Sequence[int]
    scatter_dims_to_operand_dims: _Sequence[int]
    operand_batching_dims: _Sequence[int] = ()
    scatter_indices_batching_dims: _Sequence[int] = ()


class GatherScatterMode(_enum.Enum):
    """Out-of-bounds handling: CLIP clamps the start indices, FILL_OR_DROP fills gathered
    windows (drops scattered ones) that do not fit, PROMISE_IN_BOUNDS promises they all fit."""
    CLIP = _enum.auto()
    FILL_OR_DROP = _enum.auto()
    PROMISE_IN_BOUNDS = _enum.auto()
    ONE_HOT = _enum.auto()

    @staticmethod
    def from_any(s):
        """A mode from a GatherScatterMode, None (FILL_OR_DROP) or 'clip', 'fill', 'drop',
        'promise_in_bounds', 'one_hot'."""
        if isinstance(s, GatherScatterMode):
            return s
        if s is None or s in ("fill", "drop"):
            return GatherScatterMode.FILL_OR_DROP
        if s == "clip":
            return GatherScatterMode.CLIP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        if s == "one_hot":
            return GatherScatterMode.ONE_HOT
        raise ValueError(f'Unknown gather mode "{s}"')


def _ints(v):
    return tuple(int(i) for i in v)


def _check_indices(name, idx, n_map, keep_wide=False):
    if _kind(idx.dtype) not in "iu":
        raise TypeError(f"[{name}] indices must be integers, got {_tstr(idx)}")
    if idx.ndim == 0:
        raise TypeError(f"[{name}] indices must have rank >= 1 (the index vector is the last "
                        f"dimension), got {_tstr(idx)}")
    if idx.shape[-1] != n_map:
        raise TypeError(f"[{name}] the index vector has {idx.shape[-1]} entries but the "
                        f"dimension numbers map {n_map}")
    if idx.dtype == _np.dtype("int32") or (keep_wide and idx.dtype == _np.dtype("int64")):
        return idx
    return _L.convert_element_type(idx, "int32")


def _column(idx, k):
    return reshape(slice_in_dim(idx, k, k + 1, axis=idx.ndim - 1), tuple(idx.shape[:-1]))


def _scalar(v, dtype="int32"):
    return _core.asarray(v, dtype)


def _in_bounds(idx, dims, limits):
    """Boolean of idx's batch shape: every column k within [0, limits[k]]."""
    ok = None
    for k, hi in enumerate(limits):
        c = _column(idx, k)
        shape = tuple(c.shape)
        z = broadcast_in_dim(_scalar(0), shape, ())
        h = broadcast_in_dim(_scalar(hi), shape, ())
        good = _L.bitwise_and(_L.ge(c, z), _L.le(c, h))
        ok = good if ok is None else _L.bitwise_and(ok, good)
    if ok is None:
        ok = broadcast_in_dim(_core.asarray(True), tuple(idx.shape[:-1]), ())
    return ok


def _clamped(c, hi):
    shape = tuple(c.shape)
    return _L.clamp(broadcast_in_dim(_scalar(0), shape, ()), c,
                    broadcast_in_dim(_scalar(_builtin_max(hi, 0)), shape, ()))


_builtin_max = max


def _default_fill(dtype):
    k = _kind(dtype)
    if k == "f":
        return float("nan")
    if k == "b":
        return True
    info = _np.iinfo(_np.dtype(dtype))
    return int(info.min) if k == "i" else int(info.max)


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
    """XLA's gather: for each index vector (the last dimension of start_indices) the window of
    slice_sizes at those starts; windows that do not fit are filled with fill_value (default
    mode; NaN, the dtype's extreme or True by default) or clamped (mode='clip')."""
    x, idx = _arr(operand), _arr(start_indices)
    dn = dimension_numbers if isinstance(dimension_numbers, GatherDimensionNumbers) else \
        GatherDimensionNumbers(*dimension_numbers)
    offset_dims, collapsed = _ints(dn.offset_dims), _ints(dn.collapsed_slice_dims)
    smap, obatch = _ints(dn.start_index_map), _ints(dn.operand_batching_dims)
    ibatch = _ints(dn.start_indices_batching_dims)
    sizes = _ints(slice_sizes)
    mode = GatherScatterMode.from_any(mode)
    idx = _check_indices("gather", idx, len(smap))
    if len(sizes) != x.ndim:
        raise TypeError(f"[gather] slice_sizes {list(sizes)} must have one entry per dimension "
                        f"of {_tstr(x)}")
    for d, s in enumerate(sizes):
        if not 0 <= s <= x.shape[d]:
            raise TypeError(f"[gather] slice size {s} is out of bounds for dimension {d} of "
                            f"{_tstr(x)}")
    for d in collapsed + obatch:
        if not 0 <= d < x.ndim or sizes[d] > 1:
            raise TypeError(f"[gather] collapsed and batching dimension {d} must exist and have "
                            f"slice size <= 1 (operand {_tstr(x)}, slice_sizes {list(sizes)})")
    if len(obatch) != len(ibatch):
        raise TypeError("[gather] operand_batching_dims and start_indices_batching_dims must "
                        "have one length")
    batch_shape = tuple(idx.shape[:-1])
    window = [d for d in range(x.ndim) if d not in collapsed and d not in obatch]
    if len(offset_dims) != len(window):
        raise TypeError(f"[gather] offset_dims {list(offset_dims)} must have one entry per "
                        f"uncollapsed dimension of the operand ({len(window)})")
    rank = len(batch_shape) + len(offset_dims)
    if sorted(offset_dims) != list(offset_dims) or any(not 0 <= p < rank for p in offset_dims):
        raise TypeError(f"[gather] offset_dims {list(offset_dims)} must be sorted and in "
                        f"[0, {rank})")
    bpos = [p for p in range(rank) if p not in offset_dims]
    out_shape = [0] * rank
    for p, b in zip(bpos, batch_shape):
        out_shape[p] = b
    for p, d in zip(offset_dims, window):
        out_shape[p] = sizes[d]
    out_shape = tuple(out_shape)
    strides = [_math.prod(x.shape[d + 1:]) for d in range(x.ndim)]
    lin = broadcast_in_dim(_scalar(0), out_shape, ())
    for d in range(x.ndim):
        if d in smap:
            c = _column(idx, smap.index(d))
            c = _clamped(c, x.shape[d] - sizes[d])
            part = broadcast_in_dim(c, out_shape, bpos)
        elif d in obatch:
            part = broadcasted_iota("int32", out_shape, bpos[ibatch[obatch.index(d)]])
        else:
            part = None
        if d in window:
            off = broadcasted_iota("int32", out_shape, offset_dims[window.index(d)])
            part = off if part is None else _L.add(part, off)
        if part is not None and strides[d] != 1:
            part = _L.mul(part, broadcast_in_dim(_scalar(strides[d]), out_shape, ()))
        if part is not None:
            lin = _L.add(lin, part)
    from strata import numpy as jnp
    if _math.prod(out_shape) == 0 or x.size == 0:
        return full(out_shape, 0, x.dtype)
    out = jnp.take(reshape(x, (x.size,)), lin)
    if mode is GatherScatterMode.FILL_OR_DROP or mode is GatherScatterMode.ONE_HOT:
        ok = _in_bounds(idx, smap, [x.shape[d] - sizes[d] for d in smap])
        fv = _default_fill(x.dtype) if fill_value is None else fill_value
        fill = _scalar_like("gather", fv, x) if _is_pyscalar(fv) else \
            _L.convert_element_type(_arr(fv), x.dtype)
        out = _L.select(broadcast_in_dim(ok, out_shape, bpos), out,
                        broadcast_in_dim(fill, out_shape, ()))
    return out


def _scatter_setup(name, operand, indices, updates, dimension_numbers, mode, direct=False):
    """Validated (operand, int32 indices, updates, the core's (update_window_dims,
    inserted_window_dims, scatter_dims_to_operand_dims), window size per operand dimension):
    batching dims turned into iota index columns, clip mode into clamped indices; `direct` (the
    core's scatters) keeps int64 indices where no column is built."""
    x, idx, u = _arr(operand), _arr(indices), _arr(updates)
    if _is_pyscalar(updates):
        u = _scalar_like(name, updates, x)
    dn = dimension_numbers if isinstance(dimension_numbers, ScatterDimensionNumbers) else \
        ScatterDimensionNumbers(*dimension_numbers)
    uwd, iwd = _ints(dn.update_window_dims), _ints(dn.inserted_window_dims)
    sdod, obatch = _ints(dn.scatter_dims_to_operand_dims), _ints(dn.operand_batching_dims)
    ibatch = _ints(dn.scatter_indices_batching_dims)
    mode = GatherScatterMode.from_any(mode)
    idx = _check_indices(name, idx, len(sdod), direct and not obatch and
                         mode is not GatherScatterMode.CLIP)
    if u.dtype != x.dtype:
        raise TypeError(f"[{name}] updates {_tstr(u)} must have the operand's dtype {x.dtype}")
    if len(obatch) != len(ibatch):
        raise TypeError(f"[{name}] operand_batching_dims and scatter_indices_batching_dims "
                        f"must have one length")
    window = [d for d in range(x.ndim) if d not in iwd and d not in obatch]
    if len(uwd) != len(window) or any(not 0 <= p < u.ndim for p in uwd):
        raise TypeError(f"[{name}] update_window_dims {list(uwd)} must name one dimension of "
                        f"the updates {_tstr(u)} per window dimension of the operand "
                        f"({len(window)})")
    usd = [p for p in range(u.ndim) if p not in uwd]
    if [u.shape[p] for p in usd] != list(idx.shape[:-1]):
        raise TypeError(f"[{name}] the updates' scatter dimensions "
                        f"{[u.shape[p] for p in usd]} must equal the indices' batch shape "
                        f"{list(idx.shape[:-1])}")
    wsize = [1] * x.ndim
    for p, d in zip(uwd, window):
        if u.shape[p] > x.shape[d]:
            raise TypeError(f"[{name}] update window {_tstr(u)} does not fit in {_tstr(x)}")
        wsize[d] = u.shape[p]
    if mode is GatherScatterMode.CLIP:
        cols = [_clamped(_column(idx, k), x.shape[d] - wsize[d]) for k, d in enumerate(sdod)]
        idx = _stack_columns(cols, tuple(idx.shape[:-1]))
    if obatch:
        bshape = tuple(idx.shape[:-1])
        cols = [_column(idx, k) for k in range(len(sdod))]
        cols += [broadcasted_iota("int32", bshape, j) for j in ibatch]
        idx = _stack_columns(cols, bshape)
        sdod = sdod + obatch
        iwd = tuple(sorted(iwd + obatch))
    return x, idx, u, (tuple(uwd), tuple(iwd), tuple(sdod)), wsize


def _stack_columns(cols, bshape):
    return concatenate([reshape(c, bshape + (1,)) for c in cols], len(bshape)) if cols else \
        full(bshape + (0,), 0, "int32")


def scatter(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
            unique_indices=False, mode=None):
    """operand with the update windows written at scatter_indices (windows that do not fit are
    dropped by default, clamped with mode='clip'); repeated indices keep one of the values."""
    x, idx, u, dn, _ = _scatter_setup("scatter", operand, scatter_indices, updates,
                                      dimension_numbers, mode, direct=True)
    return _as_type_error(_L.scatter, x, idx, u, dn)


def scatter_add(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    """operand with the update windows added at scatter_indices (repeated indices accumulate;
    windows that do not fit are dropped, or clamped with mode='clip')."""
    x, idx, u, dn, _ = _scatter_setup("scatter_add", operand, scatter_indices, updates,
                                      dimension_numbers, mode, direct=True)
    return _as_type_error(_L.scatter_add, x, idx, u, dn)


def scatter_sub(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    """operand with the update windows subtracted at scatter_indices (as scatter_add)."""
    x, idx, u, dn, _ = _scatter_setup("scatter_sub", operand, scatter_indices, updates,
                                      dimension_numbers, mode, direct=True)
    return _as_type_error(_L.scatter_add, x, idx, _L.neg(u), dn)


def _element_positions(x, idx, u, dn, wsize):
    """For every element of the updates, its flat position in the operand, or x.size (a trash
    slot) when its window does not fit (XLA drops the whole window)."""
    uwd, iwd, sdod = dn
    ushape = tuple(u.shape)
    usd = [p for p in range(u.ndim) if p not in uwd]
    window = [d for d in range(x.ndim) if d not in iwd]
    strides = [_math.prod(x.shape[d + 1:]) for d in range(x.ndim)]
    lin = broadcast_in_dim(_scalar(0), ushape, ())
    for d in range(x.ndim):
        part = None
        if d in sdod:
            part = broadcast_in_dim(_column(idx, sdod.index(d)), ushape, usd)
        if d in window:
            off = broadcasted_iota("int32", ushape, uwd[window.index(d)])
            part = off if part is None else _L.add(part, off)
        if part is not None:
            if strides[d] != 1:
                part = _L.mul(part, broadcast_in_dim(_scalar(strides[d]), ushape, ()))
            lin = _L.add(lin, part)
    ok = _in_bounds(idx, sdod, [x.shape[d] - wsize[d] for d in sdod])
    trash = broadcast_in_dim(_scalar(x.size), ushape, ())
    return _L.select(broadcast_in_dim(ok, ushape, usd), lin, trash)


def _combine_scatter(name, method, operand, scatter_indices, updates, dimension_numbers, mode):
    x, idx, u, dn, wsize = _scatter_setup(name, operand, scatter_indices, updates,
                                          dimension_numbers, mode)
    pos = _element_positions(x, idx, u, dn, wsize)
    flat = concatenate([reshape(x, (x.size,)), full((1,), 0, x.dtype)], 0)
    out = getattr(flat.at[pos], method)(u)
    return reshape(slice_in_dim(out, 0, x.size), tuple(x.shape))


def scatter_mul(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    """operand with the update windows multiplied in at scatter_indices (repeated indices
    multiply by every factor; windows that do not fit are dropped, or clamped with
    mode='clip')."""
    return _combine_scatter("scatter_mul", "multiply", operand, scatter_indices, updates,
                            dimension_numbers, mode)


def scatter_min(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    """operand with the elementwise minimum of it and the update windows at scatter_indices."""
    return _combine_scatter("scatter_min", "min", operand, scatter_indices, updates,
                            dimension_numbers, mode)


def scatter_max(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    """operand with the elementwise maximum of it and the update windows at scatter_indices."""
    return _combine_scatter("scatter_max", "max", operand, scatter_indices, updates,
                            dimension_numbers, mode)


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                  indices_are_sorted=False, unique_indices=False, mode=None):
    """operand with the elementwise func applied at every element of the windows of shape
    update_shape at scatter_indices (once per occurrence of a repeated index)."""
    from strata import lax
    x = _arr(operand)
    u = full(tuple(update_shape), 0, x.dtype)
    x, idx, u, dn, wsize = _scatter_setup("scatter_apply", x, scatter_indices, u,
                                          dimension_numbers, mode)
    pos = _element_positions(x, idx, u, dn, wsize)
    counts = full((x.size + 1,), 0, "int32").at[pos].add(1)
    counts = slice_in_dim(counts, 0, x.size)
    flat = reshape(x, (x.size,))
    if counts.is_concrete:
        rounds = int(_np.asarray(counts).max()) if x.size else 0
    else:
        rounds = _math.prod(u.shape)

    def body(r, v):
        hit = _L.gt(counts, broadcast_in_dim(_core.asarray(r, "int32"), (x.size,), ()))
        return _L.select(hit, _arr(func(v)), v)
    flat = lax.fori_loop(0, rounds, body, flat) if rounds else flat
    return reshape(flat, tuple(x.shape))


def index_take(src, idxs, axes):
    """src[idxs[0], idxs[1], ...] along `axes` (one 1-d index array per axis, of one length),
    the remaining dimensions kept after the new leading one."""
    x = _arr(src)
    axes = tuple(int(a) for a in axes)
    ids = [_arr(i) for i in idxs]
    if len(ids) != len(axes):
        raise ValueError(f"[index_take] needs one index array per axis, got {len(ids)} for "
                         f"{len(axes)} axes")
    if not ids:
        raise ValueError("[index_take] needs at least one index array")
    n = ids[0].shape[0] if ids[0].ndim else 1
    cols = [reshape(_L.convert_element_type(i, "int32") if i.dtype != _np.dtype("int32")
                    else i, (n, 1)) for i in ids]
    indices = concatenate(cols, 1)
    sizes = [1 if d in axes else s for d, s in enumerate(x.shape)]
    dn = GatherDimensionNumbers(offset_dims=tuple(range(1, x.ndim - len(axes) + 1)),
                                collapsed_slice_dims=tuple(sorted(axes)), start_index_map=axes)
    return gather(x, indices, dn, sizes)
