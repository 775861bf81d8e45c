"""Windowed reductions with JAX's signatures: lax.reduce_window (the monoid primitives
reduce_window_sum/max/min when the computation is lax.add/max/min with its identity as the
initial value, the general primitive otherwise) and lax.reduce_window_shape_tuple."""

import numpy as _np

from strata import _core
from strata._lax_ops import (PaddingType, padtype_to_pads, _arr, _identity_of, _is_pyscalar,
                             _kind, _monoid_of, _operand_trees, _scalar_like, _tstr)

_L = _core.lax

_MONOID_WINDOW = {"add": _L._reduce_window_sum, "max": _L._reduce_window_max,
                  "min": _L._reduce_window_min}


def _window_params(name, shape, window_dimensions, window_strides, padding, base_dilation,
                   window_dilation):
    """(window, strides, pads, base_dilation, window_dilation) as tuples, checked against the
    operand's rank; string padding becomes pairs over the base-dilated operand."""
    nd = len(shape)
    win = tuple(int(w) for w in window_dimensions)
    strides = tuple(int(s) for s in window_strides)
    bdil = (1,) * nd if base_dilation is None else tuple(int(d) for d in base_dilation)
    wdil = (1,) * nd if window_dilation is None else tuple(int(d) for d in window_dilation)
    for what, v in (("window_dimensions", win), ("window_strides", strides),
                    ("base_dilation", bdil), ("window_dilation", wdil)):
        if len(v) != nd or any(d < 1 for d in v):
            raise TypeError(f"[{name}] {what} {list(v)} must have {nd} positive entries for an "
                            f"operand of shape {tuple(shape)}")
    if isinstance(padding, (str, PaddingType)):
        dilated = [(n - 1) * b + 1 if n else 0 for n, b in zip(shape, bdil)]
        eff = [(w - 1) * d + 1 for w, d in zip(win, wdil)]
        padding = padtype_to_pads(dilated, eff, strides, padding)
    pads = tuple(tuple(int(p) for p in pr) for pr in padding)
    if len(pads) != nd or any(len(p) != 2 for p in pads):
        raise ValueError(f"[{name}] padding must be {nd} (low, high) pairs, got {padding}")
    return win, strides, pads, bdil, wdil


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None):
    """The shape lax.reduce_window gives an operand of operand_shape (padding as pairs)."""
    win, strides, pads, bdil, wdil = _window_params(
        "reduce_window_shape_tuple", tuple(operand_shape), window_dimensions, window_strides,
        padding, base_dilation, window_dilation)
    out = []
    for n, w, s, (lo, hi), b, d in zip(operand_shape, win, strides, pads, bdil, wdil):
        padded = ((n - 1) * b + 1 if n else 0) + lo + hi
        span = (w - 1) * d + 1
        out.append(0 if padded < span else (padded - span) // s + 1)
    return tuple(out)


def _is_identity(raw, v, monoid, x):
    """Whether the initial value is concretely the monoid's identity for x's dtype: a Python or
    numpy scalar (concrete even while tracing), or a concrete Array, of x's dtype once
    converted (v)."""
    if v.ndim != 0 or v.dtype != x.dtype:
        return False
    ident = _identity_of(_kind(x.dtype), x.dtype).get(monoid)
    if ident is None:
        return False
    if _is_pyscalar(raw) or isinstance(raw, (_np.ndarray, _np.generic)):
        return _np.asarray(raw).item() == ident
    return v.is_concrete and v.item() == ident


def reduce_window(operand, init_value, computation, window_dimensions, window_strides,
                  padding, base_dilation=None, window_dilation=None):
    """computation folded over every window of window_dimensions (strided, dilated) of the
    operand padded with init_value (padding: (low, high) per dimension, or 'VALID' / 'SAME'),
    starting from init_value: pooling. Operand and init_value may be matching pytrees."""
    from strata.tree_util import tree_flatten, tree_unflatten
    xs, inits, tree = _operand_trees("reduce_window", operand, init_value)
    win, strides, pads, bdil, wdil = _window_params(
        "reduce_window", tuple(xs[0].shape), window_dimensions, window_strides, padding,
        base_dilation, window_dilation)
    raw = inits
    inits = [_scalar_like("reduce_window", v, x) if _is_pyscalar(v) else _arr(v)
             for v, x in zip(raw, xs)]
    args = (win, strides, pads, bdil, wdil)
    if len(xs) == 1:
        monoid = _monoid_of(computation)
        if monoid in _MONOID_WINDOW and _is_identity(raw[0], inits[0], monoid, xs[0]) and \
                not (monoid == "add" and _kind(xs[0].dtype) == "b"):
            return tree_unflatten(tree, [_MONOID_WINDOW[monoid](xs[0], *args)])
    n = len(xs)

    def flat(vals):
        acc = tree_unflatten(tree, vals[:n])
        elem = tree_unflatten(tree, vals[n:])
        out, t = tree_flatten(computation(acc, elem))
        if t != tree:
            raise TypeError(f"[reduce_window] computation must return the operands' structure "
                            f"{tree!r}, got {t!r}")
        return [_arr(o) for o in out]
    for v, x in zip(inits, xs):
        if v.ndim != 0 or v.dtype != x.dtype:
            raise TypeError(f"[reduce_window] init_values must be scalars of the operands' "
                            f"dtypes, got {_tstr(v)} for {_tstr(x)}")
    return tree_unflatten(tree, list(_L._reduce_window_flat(xs, inits, flat, *args)))
