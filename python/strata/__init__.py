"""Strata: composable function transforms (grad, vmap, jit) over arrays, compiled through MLIR,
with JAX's public names: port JAX code by changing `jax` to `strata` in its imports."""

import numpy as _np

from strata import _core
from strata import _dtypes  # noqa: F401  (registers bfloat16 with the core)
from strata._core import Array
from strata import numpy, nn, random, lax, tree_util, dlpack  # noqa: F401
from strata._core import from_dlpack  # noqa: F401
from strata.api import (  # noqa: F401
    grad, value_and_grad, vjp, jvp, linearize, vmap, jacfwd, jacrev, hessian, jit, checkpoint,
    remat, eval_shape, make_ir, custom_jvp, custom_vjp, stop_gradient, ShapeDtypeStruct)
from strata._core import jit_cache_stats, clear_jit_cache, memory_stats  # noqa: F401

__version__ = "0.1.0"


def devices():
    """The devices Strata can run on (the CPU; GPUs come with the CUDA backend)."""
    return ["cpu:0"]


def device_put(x, device=None):
    """x (a pytree) as strata Arrays on `device` (only the CPU exists)."""
    if device not in (None, "cpu", "cpu:0"):
        raise ValueError(f"[device_put] unknown device {device!r} (have {devices()})")
    return tree_util.tree_map(numpy.asarray, x)


# ---- Array methods written in Python -----------------------------------------------------------

def _repr(self):
    if not self.is_concrete:
        return f"Traced<{self.type_str()}>"
    a = _np.asarray(self)
    body = _np.array2string(a, separator=", ", prefix="Array(")
    dt = self.dtype
    suffix = "" if dt in (_np.dtype("float32"), _np.dtype("int32"), _np.dtype("bool")) \
        and not self.weak_type else f", dtype={dt}"
    if self.weak_type:
        suffix = f", dtype={dt}, weak_type=True"
    return f"Array({body}{suffix})"


def _str(self):
    return f"Traced<{self.type_str()}>" if not self.is_concrete else str(_np.asarray(self))


def _iter(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    for i in range(self.shape[0]):
        yield self[i]


def _transpose(self, *axes):
    if len(axes) == 1 and not isinstance(axes[0], int):
        axes = axes[0]
    return numpy.transpose(self, list(axes) if axes else None)


class _IndexUpdateRef:
    """x.at[idx]: functional updates (set, add, multiply, get) through a flat scatter."""

    def __init__(self, x, idx):
        self.x, self.idx = x, idx

    def _positions(self):
        pos = numpy.reshape(numpy.arange(self.x.size), self.x.shape)[self.idx]
        return pos

    def _scatter(self, values, add):
        x = self.x
        pos = self._positions()
        upd = numpy.broadcast_to(numpy.asarray(values).astype(x.dtype), pos.shape)
        flat = numpy.ravel(x)
        fn = lax.scatter_add if add else lax.scatter
        out = fn(flat, numpy.reshape(pos, (-1, 1)), numpy.ravel(upd), ((), (0,), (0,)))
        return numpy.reshape(out, x.shape)

    def get(self):
        return self.x[self.idx]

    def set(self, values):
        return self._scatter(values, add=False)

    def add(self, values):
        return self._scatter(values, add=True)

    def multiply(self, values):
        # Factors scattered into ones (duplicate indices: the last factor wins).
        ones = _IndexUpdateRef(numpy.ones_like(self.x), self.idx)
        return self.x * ones.set(values)


class _IndexUpdateHelper:
    def __init__(self, x):
        self.x = x

    def __getitem__(self, idx):
        return _IndexUpdateRef(self.x, idx)


def _reduction(name):
    f = getattr(numpy, name)
    return lambda self, axis=None, keepdims=False: f(self, axis=axis, keepdims=keepdims)


Array.__repr__ = _repr
Array.__str__ = _str
Array.__iter__ = _iter
Array.at = property(_IndexUpdateHelper)
Array.tolist = lambda self: _np.asarray(self).tolist()
Array.transpose = _transpose
Array.ravel = lambda self: numpy.ravel(self)
Array.flatten = lambda self: numpy.ravel(self)
Array.squeeze = lambda self, axis=None: numpy.squeeze(self, axis)
Array.clip = lambda self, a_min=None, a_max=None: numpy.clip(self, a_min, a_max)
Array.round = lambda self: numpy.round(self)
Array.argmax = lambda self, axis=None, keepdims=False: numpy.argmax(self, axis, keepdims)
Array.argmin = lambda self, axis=None, keepdims=False: numpy.argmin(self, axis, keepdims)
Array.dot = lambda self, b: numpy.dot(self, b)
Array.var = lambda self, axis=None, keepdims=False, ddof=0: numpy.var(self, axis, keepdims, ddof)
Array.std = lambda self, axis=None, keepdims=False, ddof=0: numpy.std(self, axis, keepdims, ddof)
for _name in ("sum", "prod", "max", "min", "mean", "all", "any"):
    setattr(Array, _name, _reduction(_name))
del _name
