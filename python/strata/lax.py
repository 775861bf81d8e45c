"""strata.lax: one function per primitive, with lax's strict semantics (operands must already
agree in shape and dtype), and structured control flow over pytrees (cond, switch, while_loop,
fori_loop, scan, map) on the flat C++ core (include/strata/control_flow.h): sub-functions are
traced once and stay loops and branches under every transform."""

import re as _re

from strata._core.lax import *  # noqa: F401,F403
from strata._core.lax import stop_gradient as _stop_gradient_leaf
from strata import _core
from strata.tree_util import tree_flatten as _flatten, tree_unflatten as _unflatten


def stop_gradient(x):
    """x unchanged, each leaf of the pytree a constant for every derivative transform."""
    from strata.tree_util import tree_map
    return tree_map(_stop_gradient_leaf, x)


# ---- Control flow: pytrees over the flat core ------------------------------------------------

class _CarryTypeError(TypeError, ValueError):
    """A carry or branch output of the wrong shape or dtype: JAX raises TypeError, Strata's core
    ValueError; both catch it."""


def _arrays(tree):
    leaves, treedef = _flatten(tree)
    return [_core.asarray(x) for x in leaves], treedef


def _leaf_paths(treedef, root):
    """The path of every leaf of treedef, in flattening order, as root[0]['key'].field."""
    out = []

    def walk(t, path):
        if t.kind == "leaf":
            out.append(path)
            return
        if t.kind == "dict":
            keys = [f"[{k!r}]" for k in t.data]
        elif t.kind == "namedtuple":
            keys = [f".{f}" for f in t.data._fields]
        else:
            keys = [f"[{i}]" for i in range(len(t.children))]
        for k, c in zip(keys, t.children):
            walk(c, path + k)
    walk(treedef, root)
    return out


_CARRY_MISMATCH = _re.compile(r"\[(\w+)\] body returns \S+ for carry (\d+), expected")
_OUTPUT_MISMATCH = _re.compile(r"\[(\w+)\] .* for output (\d+) where")


def _naming_paths(op, pattern, paths, offset, fn):
    """fn(), with the core's 'for carry k' / 'for output k' type errors of `op` extended by the
    pytree path of leaf k - offset (paths() gives them)."""
    try:
        return fn()
    except ValueError as e:
        if isinstance(e, _CarryTypeError):
            raise  # a nested op's error, already named
        m = pattern.match(str(e))
        if not m or m.group(1) != op:
            raise
        k, ps = int(m.group(2)) - offset, paths()
        if not 0 <= k < len(ps):
            raise
        what = "output" if pattern is _OUTPUT_MISMATCH else "carry"
        raise _CarryTypeError(f"{e} ({what} {m.group(2)} is {ps[k]})") from None


def _carry_leaves(op, fn_name, out, treedef, like, root):
    """The leaves of a sub-function's new carry `out`, which must have treedef's structure;
    Python scalars take the type of the carry leaf they replace when promotion keeps it
    (returning 0.0 for a float64 carry gives float64)."""
    leaves, t = _flatten(out)
    if t != treedef:
        raise TypeError(f"[{op}] {fn_name} must return a carry with the structure of {root}: "
                        f"got {t!r}, expected {treedef!r}")
    from strata import numpy as jnp
    for i, v in enumerate(leaves):
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            dt = jnp.result_type(like[i], v)
            if dt == like[i].dtype:
                leaves[i] = _core.asarray(v, dt)
    return leaves


def _aval(x):
    return (tuple(x.shape), x.dtype, x.weak_type)


def _promote_weak_carry(carry, fn, head=(), tail=()):
    """JAX's rule for weakly typed initial carries (Python scalars): a carry leaf the body turns
    into another dtype is converted to promote(init, output) first, so fori_loop(0, n, lambda i,
    s: s + x[i], 0) sums floats. fn's inputs are head ++ carry ++ tail (avals), its outputs start
    with the carry. Traces fn once more, abstractly, only when some leaf is weak."""
    if not any(c.weak_type for c in carry):
        return carry
    from strata import numpy as jnp
    outs = _core.eval_shape_flat(fn, list(head) + [_aval(c) for c in carry] + list(tail))
    carry = list(carry)
    for i, (c, (shape, dtype, weak)) in enumerate(zip(carry, outs)):
        if not c.weak_type or tuple(shape) != tuple(c.shape) or dtype == c.dtype:
            continue
        # A weak output promotes as a Python scalar of its kind would.
        kind = getattr(dtype, "kind", "f")
        other = (False if kind == "b" else 0 if kind in "iu" else 0.0) if weak else dtype
        t = jnp.result_type(c, other)
        if t != c.dtype:
            carry[i] = _core.lax.convert_element_type(c, t)
    return carry


def cond(pred, true_fun, false_fun, *operands):
    """true_fun(*operands) if pred else false_fun(*operands) (jax.lax.cond). pred is a boolean
    scalar (an integer scalar means pred != 0); both functions take the operands (pytrees) and
    return pytrees of the same structure, shapes and dtypes. Under vmap with a batched pred both
    run and each example takes its own; grad differentiates the branch taken."""
    if isinstance(pred, (list, tuple)):
        raise TypeError(f"[cond] the predicate must be a boolean scalar, got a "
                        f"{type(pred).__name__}")
    p = _core.asarray(pred)
    if p.ndim == 0 and getattr(p.dtype, "kind", "") in "iu":
        p = p != 0
    ops, tree = _arrays(operands)
    box = {}

    def branch(fun, name):
        def f(xs):
            leaves, t = _flatten(fun(*_unflatten(tree, xs)))
            if "out" not in box:
                box["out"], box["first"] = t, name
            elif t != box["out"]:
                raise TypeError(f"[cond] true_fun and false_fun must return the same pytree "
                                f"structure: {name} returns {t!r}, {box['first']} returns "
                                f"{box['out']!r}")
            return leaves
        return f
    outs = _naming_paths(
        "cond", _OUTPUT_MISMATCH, lambda: _leaf_paths(box["out"], "out"), 0,
        lambda: _core.cond_flat(p, branch(true_fun, "true_fun"), branch(false_fun, "false_fun"),
                                ops))
    return _unflatten(box["out"], outs)


def switch(index, branches, *operands):
    """branches[clamp(index, 0, len(branches) - 1)](*operands) (jax.lax.switch); index is an
    integer scalar and every branch returns the same structure, shapes and dtypes."""
    branches = list(branches)
    ops, tree = _arrays(operands)
    box = {}

    def branch(fun, k):
        def f(xs):
            leaves, t = _flatten(fun(*_unflatten(tree, xs)))
            if "out" not in box:
                box["out"] = t
            elif t != box["out"]:
                raise TypeError(f"[switch] every branch must return the same pytree structure: "
                                f"branch {k} returns {t!r}, branch 0 returns {box['out']!r}")
            return leaves
        return f
    outs = _naming_paths(
        "switch", _OUTPUT_MISMATCH, lambda: _leaf_paths(box["out"], "out"), 0,
        lambda: _core.switch_flat(_core.asarray(index),
                                  [branch(b, k) for k, b in enumerate(branches)], ops))
    return _unflatten(box["out"], outs)


def _cond_leaf(cond_fun, tree):
    def c(xs):
        leaves, t = _flatten(cond_fun(_unflatten(tree, xs)))
        if t.kind != "leaf":
            raise TypeError(f"[while_loop] cond_fun must return a boolean scalar, got a pytree "
                            f"{t!r}")
        return leaves
    return c


def while_loop(cond_fun, body_fun, init_val):
    """while cond_fun(val): val = body_fun(val) (jax.lax.while_loop); val is a pytree whose
    structure, shapes and dtypes body_fun keeps. Differentiable in forward and reverse mode
    (reverse mode records the trip count and the carries); under vmap with a batched predicate
    it runs until every example is done, finished examples keeping their carry."""
    carry, tree = _arrays(init_val)

    def body(xs):
        return _carry_leaves("while_loop", "body_fun", body_fun(_unflatten(tree, xs)), tree, xs,
                             "init_val")
    carry = _promote_weak_carry(carry, body)
    outs = _naming_paths("while_loop", _CARRY_MISMATCH, lambda: _leaf_paths(tree, "init_val"),
                         0, lambda: _core.while_loop_flat(_cond_leaf(cond_fun, tree), body,
                                                          carry))
    return _unflatten(tree, outs)


def _bound(v):
    """A fori_loop bound: a Python int when it is known (a concrete integer scalar), else the
    traced Array."""
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    a = _core.asarray(v)
    if a.ndim != 0 or getattr(a.dtype, "kind", "") not in "iu":
        raise TypeError(f"[fori_loop] lower and upper must be integer scalars, got "
                        f"{a.dtype}{list(a.shape)}")
    return int(a) if a.is_concrete else a


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """for i in range(lower, upper): val = body_fun(i, val) (jax.lax.fori_loop), i an int32
    scalar. Known bounds (Python ints, concrete scalars) make it a scan, reverse-differentiable
    like one; traced bounds a while_loop. `unroll` is accepted with known bounds and ignored (a
    performance hint; the loop stays a loop)."""
    lo, hi = _bound(lower), _bound(upper)
    static = isinstance(lo, int) and isinstance(hi, int)
    if unroll is not None and not static:
        raise ValueError("[fori_loop] unroll needs statically known loop bounds")
    carry, tree = _arrays(init_val)

    def body(xs):
        return _carry_leaves("fori_loop", "body_fun", body_fun(xs[0], _unflatten(tree, xs[1:])),
                             tree, xs[1:], "init_val")
    carry = _promote_weak_carry(carry, body, head=[((), "int32", False)])
    # With traced bounds the core's while_loop carries the index first.
    outs = _naming_paths("fori_loop", _CARRY_MISMATCH, lambda: _leaf_paths(tree, "init_val"),
                         0 if static else 1, lambda: _core.fori_loop_flat(lo, hi, body, carry))
    return _unflatten(tree, outs)


def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    """jax.lax.scan: f(carry, x) -> (carry, y) over the leading axis of every leaf of xs (or
    `length` steps with x None when xs is None); returns (final carry, ys stacked on a new
    leading axis, a pytree like y, None when y is None). reverse scans from the end; unroll
    (an int, or True for all) unrolls that many steps per iteration."""
    carry, ctree = _arrays(init)
    xl, xtree = _arrays(xs)
    nc = len(carry)
    box = {}

    def body(flat):
        out = f(_unflatten(ctree, flat[:nc]), _unflatten(xtree, flat[nc:]))
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(f"[scan] f must return a pair (carry, y), got "
                            f"{type(out).__name__}")
        cl = _carry_leaves("scan", "f", out[0], ctree, flat[:nc], "init")
        yl, box["y"] = _flatten(out[1])
        return cl + yl
    if isinstance(unroll, bool):
        n = length if length is not None else (xl[0].shape[0] if xl and xl[0].ndim else 1)
        unroll = max(int(n), 1) if unroll else 1
    if all(x.ndim > 0 for x in xl):
        carry = _promote_weak_carry(carry, body,
                                    tail=[(tuple(x.shape[1:]), x.dtype, x.weak_type) for x in xl])
    c, ys = _naming_paths("scan", _CARRY_MISMATCH, lambda: _leaf_paths(ctree, "init"), 0,
                          lambda: _core.scan_flat(body, carry, xl,
                                                  None if length is None else int(length),
                                                  bool(reverse), int(unroll)))
    return _unflatten(ctree, c), _unflatten(box["y"], ys)


def map(f, xs, *, batch_size=None):  # noqa: A001  (jax.lax.map)
    """f applied to each slice of xs along its leading axis, results stacked (a scan, so f is
    traced once: jax.lax.map). batch_size: f is vmapped over batches of that many slices
    (the remainder in one last vmapped call)."""
    if batch_size is None:
        return scan(lambda c, x: (c, f(x)), (), xs)[1]
    from strata.api import vmap
    from strata.tree_util import tree_map
    bs = int(batch_size)
    if bs < 1:
        raise ValueError(f"[map] batch_size must be a positive integer, got {batch_size}")
    leaves, _ = _flatten(xs)
    if not leaves:
        raise ValueError("[map] xs must have at least one leaf")
    n = _core.asarray(leaves[0]).shape[0]
    nb, r = divmod(n, bs)
    xs = tree_map(_core.asarray, xs)
    parts = []
    if nb:
        head = tree_map(lambda x: reshape(slice_in_dim(x, 0, nb * bs), (nb, bs) + tuple(x.shape[1:])), xs)
        ys = scan(lambda c, x: (c, vmap(f)(x)), (), head)[1]
        parts.append(tree_map(lambda y: reshape(y, (nb * bs,) + tuple(y.shape[2:])), ys))
    if r:
        parts.append(vmap(f)(tree_map(lambda x: slice_in_dim(x, nb * bs, n), xs)))
    if len(parts) == 1:
        return parts[0]
    return tree_map(lambda a, b: concatenate([a, b], 0), *parts)


# The Python layer over the core's primitives (JAX's signatures, scalars, errors) and the
# helpers built on it; these names replace the raw bindings imported above.
from strata._lax_ops import (  # noqa: E402,F401
    add, sub, mul, div, rem, pow, max, min, atan2, bitwise_and, bitwise_or, bitwise_xor, eq, ne,
    lt, le, gt, ge, shift_left, shift_right_logical, shift_right_arithmetic, RoundingMethod,
    round, square, reciprocal, select, select_n, clamp, integer_pow, convert_element_type,
    bitcast_convert_type, optimization_barrier, Precision, DotAlgorithm, DotAlgorithmPreset,
    dot_general, dot, batch_matmul, broadcast_in_dim, broadcast, broadcast_to_rank, reshape,
    transpose, rev, squeeze, expand_dims, collapse, concatenate, split, slice, slice_in_dim,
    index_in_dim, dynamic_slice, dynamic_update_slice, dynamic_slice_in_dim,
    dynamic_index_in_dim, dynamic_update_slice_in_dim, dynamic_update_index_in_dim, pad, full,
    full_like, zeros_like_array, iota, broadcasted_iota, sort, sort_key_val, top_k, reduce_sum,
    reduce_prod, reduce_max, reduce_min, reduce_and, reduce_or, reduce_xor, argmax, argmin,
    reduce, reduce_precision)
from strata._lax_ops import (  # noqa: E402,F401
    Tolerance, AccuracyMode, broadcast_shapes, PaddingType, padtype_to_pads, approx_max_k,
    approx_min_k)
# Wrappers of the elementwise primitives with JAX's keywords and scalar broadcasting.
from strata._lax_ops import (  # noqa: E402,F401
    exp, exp2, expm1, log, log1p, tanh, logistic, sin, cos, tan, sqrt, rsqrt, cbrt, nextafter,
    igamma, igammac, igamma_grad_a, random_gamma_grad, polygamma, zeta, betainc)
from strata._lax_indexing import (  # noqa: E402,F401
    GatherDimensionNumbers, ScatterDimensionNumbers, GatherScatterMode, gather, scatter,
    scatter_add, scatter_sub, scatter_mul, scatter_min, scatter_max, scatter_apply, index_take)
# Windowed reductions on their primitives.
from strata._window import reduce_window, reduce_window_shape_tuple  # noqa: E402,F401
from strata._lax_scan import (  # noqa: E402,F401
    associative_scan, cumsum, cumprod, cummax, cummin, cumlogsumexp, custom_root,
    custom_linear_solve)

# ---- Linear algebra: jax.lax.linalg, importable as strata.lax.linalg too.
import sys as _sys  # noqa: E402
from strata import _lax_linalg as linalg  # noqa: E402,F401
_sys.modules[__name__ + ".linalg"] = linalg
# Fourier transforms (fft family): lax.fft with FftType and JAX's dtype conversions.
from strata._fft import FftType, fft  # noqa: E402,F401
# Convolution.
from strata._lax_conv import (  # noqa: E402,F401
    ConvDimensionNumbers, conv_dimension_numbers, conv_general_permutations,
    conv_general_dilated, conv, conv_with_general_padding, conv_transpose)
