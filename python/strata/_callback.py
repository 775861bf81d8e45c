"""Host callbacks (jax.pure_callback, and the machinery behind strata.debug): Python functions
called with the runtime values of arrays, eagerly, under every transform and from jitted code
(each call of a jitted function calls them again, in program order)."""

import numpy as _np

from strata import _core
from strata import numpy as _jnp
from strata.tree_util import tree_flatten, tree_unflatten, tree_leaves

__all__ = ["pure_callback"]

_VMAP_METHODS = (None, "sequential", "sequential_unrolled", "expand_dims", "broadcast_all")


def _flat_arrays(args, kwargs):
    flat, tree = tree_flatten((args, kwargs))
    return [_jnp.asarray(x) for x in flat], tree


def _debug_callback(callback, args, kwargs, convert):
    """Binds callback(*args, **kwargs) as a debug callback; `convert` maps each runtime value
    (a strata Array) to what the callback receives."""
    flat, tree = _flat_arrays(args, kwargs)

    def run(xs):
        a, k = tree_unflatten(tree, [convert(x) for x in xs])
        callback(*a, **k)
        return []
    _core.debug_callback(run, flat)


def pure_callback(callback, result_shape_dtypes, *args, sharding=None, vmap_method=None,
                  vectorized=None, **kwargs):
    """jax.pure_callback: callback(*args, **kwargs) run on the host with numpy arrays, its
    results (shaped like result_shape_dtypes) returned as Arrays. Works under jit, vmap (per
    vmap_method) and eval_shape; not differentiable (wrap it in custom_jvp/custom_vjp)."""
    if vectorized is not None:
        if vmap_method is not None:
            raise ValueError("[pure_callback] pass vmap_method or vectorized, not both")
        vmap_method = "expand_dims" if vectorized else "sequential"
    if vmap_method not in _VMAP_METHODS:
        raise ValueError("[pure_callback] vmap_method must be one of None, 'sequential', "
                         "'sequential_unrolled', 'expand_dims', 'broadcast_all', got "
                         f"{vmap_method!r}")
    if sharding is not None:
        raise NotImplementedError("[pure_callback] sharding is not supported (one device)")
    flat, tree = _flat_arrays(args, kwargs)
    result_leaves, out_tree = tree_flatten(result_shape_dtypes)
    avals = []
    for r in result_leaves:
        if not (hasattr(r, "shape") and hasattr(r, "dtype")):
            raise TypeError("[pure_callback] result_shape_dtypes leaves need shape and dtype "
                            f"attributes (e.g. ShapeDtypeStruct), got {type(r).__name__}")
        avals.append((tuple(r.shape), r.dtype))

    def run(xs):
        a, k = tree_unflatten(tree, [_np.asarray(x) for x in xs])
        out = tree_leaves(callback(*a, **k))
        if len(out) != len(avals):
            raise TypeError(f"[pure_callback] the callback returned {len(out)} arrays, "
                            f"result_shape_dtypes has {len(avals)}")
        # Shapes are checked by the core against the avals of this call (under vmap, batched).
        return [_np.asarray(o).astype(dtype, copy=False) for o, (_, dtype) in zip(out, avals)]
    outs = _core.pure_callback(run, avals, flat, vmap_method or "")
    return tree_unflatten(out_tree, outs)
