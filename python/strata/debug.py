"""strata.debug: jax.debug's print and callback, which see the runtime values of arrays
eagerly, under grad/jvp/vmap/checkpoint and inside jitted code (every call, in program order)."""

import sys

import numpy as _np

from strata._callback import _debug_callback

__all__ = ["print", "callback", "breakpoint"]


def callback(callback, *args, ordered=False, partitioned=False, **kwargs):
    """jax.debug.callback: calls callback(*args, **kwargs) for its effect with the runtime
    values (strata Arrays): once per call under jit, once per element (in order) under vmap,
    on the primal values under jvp/grad. `ordered` is accepted: calls always keep program order."""
    if not callable(callback):
        raise TypeError(f"[debug.callback] callback must be callable, got {type(callback).__name__}")
    _debug_callback(callback, args, kwargs, lambda x: x)


def print(fmt, *args, ordered=False, **kwargs):  # noqa: A001 (jax.debug.print's name)
    """jax.debug.print: prints fmt.format(*args, **kwargs) with the runtime values (as numpy
    arrays), wherever the computation runs; see debug.callback."""
    if not isinstance(fmt, str):
        raise TypeError(f"[debug.print] fmt must be a str, got {type(fmt).__name__}")

    def emit(*a, **k):
        sys.stdout.write(fmt.format(*a, **k) + "\n")
    _debug_callback(emit, args, kwargs, _np.asarray)


def breakpoint(*, backend=None, filter_frames=True, num_frames=None, ordered=False,  # noqa: A001
               token=None, **kwargs):
    """jax.debug.breakpoint is not supported: use debug.callback with a function that calls
    Python's breakpoint() on the values it receives."""
    raise NotImplementedError("[debug.breakpoint] is not supported in Strata; use "
                              "strata.debug.callback(lambda *xs: breakpoint(), ...) instead")
