"""Strata: composable function transforms (grad, vmap, jit) over arrays, compiled through MLIR,
with JAX's public names: most single-device JAX programs run after changing `jax` to `strata` in
their imports (docs/jax-differences.md lists what differs and what is missing)."""

import numpy as _np

from strata import _core
from strata._config import config  # noqa: F401  (first: the modules below declare options)
from strata import _dtypes  # noqa: F401  (registers bfloat16 with the core)
from strata._core import Array
from strata import numpy, nn, random, lax, tree_util, tree, dlpack, debug, scipy  # noqa: F401
from strata._callback import pure_callback  # noqa: F401
from strata._core import from_dlpack  # noqa: F401
from strata.api import (  # noqa: F401
    grad, value_and_grad, vjp, jvp, linearize, vmap, jacfwd, jacrev, jacobian, hessian, jit,
    checkpoint, remat, checkpoint_policies, eval_shape, make_ir, make_jaxpr, custom_jvp,
    custom_vjp, custom_gradient, stop_gradient, ShapeDtypeStruct, typeof, linear_transpose,
    named_scope, ensure_compile_time_eval, disable_jit, named_call, clear_caches)
from strata._core import jit_cache_stats, clear_jit_cache, memory_stats  # noqa: F401

__version__ = "0.1.0"


# ---- Devices and processes ----------------------------------------------------------------------

class Device:
    """One device (jax.Device): platform ('cpu' or 'gpu'), id, device_kind ('cpu', or the GPU's
    name), process_index. str() is Strata's name ('cpu:0', 'cuda:0'), which device_put takes
    and which compares equal to the Device; repr() is JAX's ('CpuDevice(id=0)')."""

    def __init__(self, name):
        kind, _, index = name.partition(":")
        self._name, self.id = name, int(index or 0)
        self.platform = "cpu" if kind == "cpu" else "gpu"
        self.process_index = 0
        self.host_id = 0
        desc = _core.describe_device(name) if kind != "cpu" else "cpu"
        self.device_kind = desc.split(",")[0] if desc else kind

    def __str__(self):
        return self._name

    def __repr__(self):
        return f"{'CpuDevice' if self.platform == 'cpu' else 'CudaDevice'}(id={self.id})"

    def __eq__(self, other):
        if isinstance(other, Device):
            return self._name == other._name
        return isinstance(other, str) and other == self._name

    def __hash__(self):
        return hash(self._name)


_device_objects = {}


def _device(name):
    d = _device_objects.get(name)
    if d is None:
        d = _device_objects[name] = Device(name)
    return d


_PLATFORM_ALIASES = {"cpu": "cpu", "gpu": "gpu", "cuda": "gpu"}


def _platforms():
    """The platforms jax_platforms / jax_platform_name allow, in order (None: all)."""
    text = config.jax_platforms or config.jax_platform_name
    if not text:
        return None
    out = []
    for p in str(text).split(","):
        p = p.strip().lower()
        if p not in _PLATFORM_ALIASES:
            raise RuntimeError(f"[devices] unknown platform {p!r} in jax_platforms (Strata has "
                               "'cpu' and 'cuda'/'gpu')")
        out.append(_PLATFORM_ALIASES[p])
    return out


def _backend_platform(backend):
    if backend is None:
        return None
    b = str(backend).lower()
    if b not in _PLATFORM_ALIASES:
        raise RuntimeError(f"[devices] unknown backend {backend!r} (Strata has 'cpu' and "
                           "'cuda'/'gpu')")
    return _PLATFORM_ALIASES[b]


def devices(backend=None):
    """The Devices of `backend` ('cpu', 'gpu'/'cuda'; default: the default backend): the host
    is cpu:0; the GPUs the CUDA runtime finds are cuda:0, cuda:1, ..."""
    plat = _backend_platform(backend) or default_backend()
    out = [d for d in map(_device, _core.devices()) if d.platform == plat]
    if not out:
        raise RuntimeError(f"[devices] backend {backend!r} has no devices"
                           + (f": {_core.gpu_unavailable_reason()}" if plat == "gpu" else ""))
    return out


def local_devices(process_index=None, backend=None, host_id=None):
    """devices(backend) of this process (Strata runs one process)."""
    idx = process_index if process_index is not None else host_id
    if idx not in (None, 0):
        raise ValueError(f"[local_devices] process_index {idx} does not exist (one process)")
    return devices(backend)


def device_count(backend=None):
    """How many devices the backend (default: the default backend) has."""
    return len(devices(backend))


def local_device_count(backend=None):
    """How many devices the backend has in this process (all of them)."""
    return len(devices(backend))


def default_backend():
    """'gpu' when a GPU is found (and jax_platforms allows it), else 'cpu'."""
    have = ["gpu"] if any(not n.startswith("cpu") for n in _core.devices()) else []
    have.append("cpu")
    allowed = _platforms()
    if allowed is None:
        return have[0]
    for p in allowed:
        if p in have:
            return p
    raise RuntimeError(f"[devices] none of the platforms {allowed} in jax_platforms is available")


def process_index():
    """This process's index among the processes of a multi-process run: 0."""
    return 0


def process_count():
    """How many processes take part: 1."""
    return 1


def device_put(x, device=None):
    """x (a pytree) as strata Arrays on `device` (a Device or a name, "cpu", "cuda:0", ...;
    default: the host). A jitted function runs on the device its arguments live on."""
    name = "cpu:0" if device is None else str(device)
    return tree_util.tree_map(lambda a: _core.device_put(numpy.asarray(a), name), x)


def device_get(x):
    """x (a pytree) with its Arrays as numpy arrays on the host; other leaves unchanged."""
    def get(a):
        if isinstance(a, Array):
            if not a.is_concrete:
                raise TypeError(f"[device_get] got a traced value {a.type_str()} (use it outside "
                                "the transform)")
            return _np.asarray(a)
        return a
    return tree_util.tree_map(get, x)


def block_until_ready(x):
    """x (a pytree) once its Arrays are computed (Strata's ops finish before they return, so
    this returns x at once)."""
    for leaf in tree_util.tree_leaves(x):
        if isinstance(leaf, Array) and leaf.is_concrete:
            leaf.block_until_ready()
    return x


def print_environment_info(return_string=False):
    """Prints (or returns) the versions of Strata, Python and numpy, the devices and the
    platform."""
    import platform
    import sys
    names = _core.devices()
    lines = [f"strata:    {__version__}", f"numpy:     {_np.__version__}",
             f"python:    {sys.version.replace(chr(10), ' ')}",
             f"strata.devices ({len(names)} total, {len(names)} local): "
             f"[{', '.join(repr(_device(n)) for n in names)}]",
             f"process_count: {process_count()}", f"platform: {platform.uname()}"]
    if not any(n.startswith("cuda") for n in names):
        lines.append(f"gpu: none ({_core.gpu_unavailable_reason()})")
    text = "\n".join(lines) + "\n"
    if return_string:
        return text
    print(text, end="")


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


def _numpy_index(idx):
    """idx with its Strata arrays and lists as numpy arrays, or None when a part is traced (the
    positions then have to be computed by Strata ops)."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    out = []
    for p in parts:
        if isinstance(p, Array):
            if not p.is_concrete:
                return None
            p = _np.asarray(p)
        elif isinstance(p, list):
            p = _np.asarray(p)
        out.append(p)
    return tuple(out) if isinstance(idx, tuple) else out[0]


def _occurrence_rank(pos):
    """For each entry of the flat int array pos, how many earlier entries hold the same value."""
    order = _np.argsort(pos, kind="stable")
    srt = pos[order]
    first = _np.ones(len(srt), bool)
    first[1:] = srt[1:] != srt[:-1]
    group_start = _np.maximum.accumulate(_np.where(first, _np.arange(len(srt)), 0))
    rank = _np.empty(len(pos), _np.int64)
    rank[order] = _np.arange(len(srt)) - group_start
    return rank


def _positions_dropping_out_of_bounds(shape, idx):
    """The flat position in an array of `shape` of each element idx (a concrete numpy-style
    index) selects, with size (one past the end, which scatters drop) for an out-of-bounds
    integer index: JAX's .at[...] updates drop those (numpy would raise, Strata's gather
    clamps). Each dimension indexed by integers gets one sentinel slot past its end."""
    size = int(_np.prod(shape, dtype=_np.int64))
    parts = []
    for p in (idx if isinstance(idx, tuple) else (idx,)):
        if isinstance(p, _np.ndarray) and p.dtype == _np.bool_:
            parts.extend(p.nonzero())  # a mask consumes p.ndim dimensions
        else:
            parts.append(p)
    consumed = sum(1 for p in parts if p is not None and p is not Ellipsis)
    if sum(1 for p in parts if p is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    expanded = []
    for p in parts:
        expanded.extend([slice(None)] * (len(shape) - consumed) if p is Ellipsis else [p])
    ext_shape, mapped, dim = list(shape), [], 0
    for p in expanded:
        if p is None or isinstance(p, slice):
            mapped.append(p)
            dim += p is not None
            continue
        i = _np.asarray(p)
        if i.dtype.kind not in "iu" or dim >= len(shape):
            raise IndexError(f"unsupported index {p!r}")
        d = shape[dim]
        i = i.astype(_np.int64)
        mapped.append(_np.where((i >= -d) & (i < d), _np.where(i < 0, i + d, i), d))
        ext_shape[dim] = d + 1
        dim += 1
    ext = _np.full(ext_shape, size, _np.int64)
    ext[tuple(slice(0, d) for d in shape)] = _np.arange(size, dtype=_np.int64).reshape(shape)
    return ext[tuple(mapped)]


class _IndexUpdateRef:
    """x.at[idx]: functional updates through flat scatters, with JAX's semantics for repeated
    indices: add accumulates, multiply multiplies by every factor, min/max reduce over every
    value, set keeps the last value."""

    def __init__(self, x, idx):
        self.x, self.idx = x, idx

    def _positions(self):
        """(flat positions as a Strata int array, the same in numpy or None when traced)."""
        x = self.x
        np_idx = _numpy_index(self.idx)
        if np_idx is not None:
            try:
                pos = _positions_dropping_out_of_bounds(x.shape, np_idx)
            except (IndexError, TypeError, ValueError):
                pos = None  # let Strata's indexing raise its own error
            if pos is not None:
                dt = _np.int32 if x.size < 2 ** 31 else _np.int64
                return numpy.asarray(pos.astype(dt)), pos.reshape(-1)
        return numpy.reshape(numpy.arange(x.size), x.shape)[self.idx], None

    def _prepared(self, values):
        x = self.x
        pos, pos_np = self._positions()
        upd = numpy.broadcast_to(numpy.asarray(values).astype(x.dtype), pos.shape)
        return numpy.reshape(pos, (-1, 1)), numpy.ravel(upd), pos_np

    def _scatter(self, values, add):
        x = self.x
        pos, upd, _ = self._prepared(values)
        fn = lax.scatter_add if add else lax.scatter
        out = fn(numpy.ravel(x), pos, upd, ((), (0,), (0,)))
        return numpy.reshape(out, x.shape)

    def _combine(self, values, start, identity, op):
        """op folded over every update of each position, onto start (a flat array): repeated
        indices are split into rounds of distinct positions when the index is concrete, else
        reduced over a one-hot (positions x size) mask."""
        x = self.x
        pos, upd, pos_np = self._prepared(values)
        n = x.size
        if pos_np is not None:
            rank = _occurrence_rank(pos_np)
            acc = start
            for r in range(int(rank.max()) + 1 if len(rank) else 0):
                sel = _np.nonzero(rank == r)[0]
                p, u = pos, upd
                if len(sel) != len(rank):
                    sel_a = numpy.asarray(sel.astype(_np.int32))
                    p, u = numpy.take(pos, sel_a, axis=0), numpy.take(upd, sel_a)
                spread = lax.scatter(numpy.full((n,), identity, x.dtype), p, u,
                                     ((), (0,), (0,)))
                acc = op(acc, spread)
            return acc
        hit = numpy.equal(pos, numpy.arange(n)[None, :])
        spread = numpy.where(hit, upd[:, None], numpy.full((), identity, x.dtype))
        return op(start, _fold(op, spread))

    def get(self):
        return self.x[self.idx]

    def set(self, values):
        return self._scatter(values, add=False)

    def add(self, values):
        return self._scatter(values, add=True)

    def multiply(self, values):
        x = self.x
        f = self._combine(values, numpy.ones((x.size,), x.dtype), 1, numpy.multiply)
        return x * numpy.reshape(f, x.shape)

    def divide(self, values):
        x = self.x
        f = self._combine(values, numpy.ones((x.size,), x.dtype), 1, numpy.multiply)
        return x / numpy.reshape(f, x.shape)

    def min(self, values):
        x = self.x
        hi = _extremum_identity(x.dtype, _np.inf, "max")
        return numpy.reshape(self._combine(values, numpy.ravel(x), hi, numpy.minimum), x.shape)

    def max(self, values):
        x = self.x
        lo = _extremum_identity(x.dtype, -_np.inf, "min")
        return numpy.reshape(self._combine(values, numpy.ravel(x), lo, numpy.maximum), x.shape)


def _extremum_identity(dtype, inf, bound):
    """The identity of min (inf, bound "max") or max (-inf, "min") on dtype: complex numbers
    order lexicographically, so inf in both parts; integers take their extreme value."""
    if dtype.kind == "c":
        return complex(inf, inf)
    if dtype.kind == "f" or dtype == numpy.bfloat16:
        return inf
    return getattr(_np.iinfo(_np.dtype(dtype)), bound)


def _fold(op, spread):
    """op reduced over axis 0 of spread."""
    if op is numpy.multiply:
        return numpy.prod(spread, axis=0)
    return numpy.min(spread, axis=0) if op is numpy.minimum else numpy.max(spread, axis=0)


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
Array.block_until_ready = lambda self: self  # ops are synchronous: the data is there
Array.copy_to_host_async = lambda self: None
_device_name = Array.device.fget  # the core's "cpu:0"-style name
Array.device = property(lambda self: _device(_device_name(self)) if self.is_concrete else None)
Array.devices = lambda self: {self.device} if self.is_concrete else set()
# complex family: x.real, x.imag, x.conj(), x.conjugate() as jax.Array's.
Array.real = property(lambda self: numpy.real(self))
Array.imag = property(lambda self: numpy.imag(self))
Array.conj = lambda self: numpy.conjugate(self)
Array.conjugate = lambda self: numpy.conjugate(self)
Array.var = lambda self, axis=None, keepdims=False, ddof=0: numpy.var(self, axis, keepdims, ddof)
Array.std = lambda self, axis=None, keepdims=False, ddof=0: numpy.std(self, axis, keepdims, ddof)
for _name in ("sum", "prod", "max", "min", "mean", "all", "any"):
    setattr(Array, _name, _reduction(_name))
del _name

# jax.enable_x64(True), jax.debug_nans(True), ...: the options usable as contexts (built last:
# strata.random and the others define their options at import).
globals().update(api.option_contexts())
