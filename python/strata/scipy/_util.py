"""Argument handling shared by strata.scipy's modules: JAX's promotion of arguments to a
floating dtype, broadcasting for lax's primitives, typed constants."""

import numpy as np

from strata import numpy as jnp


def _default_float():
    return jnp.asarray(0.0).dtype


def _promote_inexact(*args):
    """The arguments as arrays of their promoted dtype, integers and bools promoted to the
    default float (JAX's promote_args_inexact)."""
    weak = [type(a) in (int, float, bool) for a in args]
    arrs = [a if w else jnp.asarray(a) for a, w in zip(args, weak)]
    dt = np.dtype(jnp.result_type(*arrs))
    if dt.kind not in "fV":  # V: bfloat16
        dt = np.dtype(_default_float())
    out = []
    for a, w in zip(arrs, weak):
        if w:
            a = jnp.asarray(a, dt)
        out.append(a if a.dtype == dt else a.astype(dt))
    return out


def _broadcast(*xs):
    """The arrays broadcast to one shape (lax's elementwise primitives need equal shapes)."""
    shapes = {tuple(x.shape) for x in xs}
    return list(jnp.broadcast_arrays(*xs)) if len(shapes) > 1 else list(xs)


def _const(x, v):
    """v as a 0-d array of x's dtype."""
    return jnp.asarray(v, x.dtype)


def _is_f64(x):
    return np.dtype(x.dtype) == np.float64
