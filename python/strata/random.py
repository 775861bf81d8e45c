"""strata.random: counter-based random numbers as pure functions of keys, with jax.random's
names and algorithms over Threefry-2x32, bit-compatible with JAX's default PRNG in both of its
counter layouts: `jax_threefry_partitionable=True` (JAX's default since 0.5.0, and Strata's:
element i of a draw hashes the 64-bit counter i split in hi/lo words, and split(key, n)[i] is
fold_in(key, i)) and `strata.config.update("jax_threefry_partitionable", False)` (the layout of
JAX before 0.5.0: halves of one flat iota). A key is a raw u32[2] array (`PRNGKey`) or a typed
key array (`key`); every sampler takes either."""

import operator as _operator

import numpy as _np

from strata import _core
from strata import lax as _lax
from strata import numpy as _jnp
from strata._config import config as _config
from strata._core import random as _c
from strata.tree_util import register_pytree_node as _register

_U32 = _np.dtype("uint32")

_config.define(
    "jax_threefry_partitionable", True,
    help="Threefry counter layout of split and random bits: True (JAX's default since 0.5.0) "
         "hashes each element's flat index as a 64-bit counter (hi, lo), so draws are "
         "partitionable and split(key, n)[i] == fold_in(key, i); False gives the bits of JAX "
         "before 0.5.0 (halves of one flat iota).")


def _partitionable():
    """Whether the partitionable Threefry layout is on (read at each call, so under jit at
    trace time, as JAX reads it)."""
    return bool(_config.read("jax_threefry_partitionable"))


# ---- dtypes ------------------------------------------------------------------------------------

_x64 = _core._x64_enabled


def _canon(dtype, default=None):
    """dtype as JAX canonicalizes it: Python float/int/bool to the default widths, 64-bit types
    narrowed while jax_enable_x64 is off."""
    if dtype is None:
        dtype = default
    if dtype is float:
        dtype = "float64"
    elif dtype is int:
        dtype = "int64"
    elif dtype is bool:
        dtype = "bool"
    if getattr(dtype, "name", None) == "bfloat16" or dtype == "bfloat16":
        return _jnp.bfloat16
    if not isinstance(dtype, (type, _np.dtype, str)) and hasattr(dtype, "dtype"):
        dtype = dtype.dtype
    return _core.canonicalize_dtype(_np.dtype(dtype))


def _is_float(d):
    return d == _jnp.bfloat16 or (isinstance(d, _np.dtype) and d.kind == "f")


def _is_int(d):
    return isinstance(d, _np.dtype) and d.kind in "iu"


def _finfo(d):
    """(bits, mantissa bits, smallest normal, eps, epsneg, max) of a float dtype."""
    if d == _jnp.bfloat16:
        return 16, 7, 2.0 ** -126, 2.0 ** -7, 2.0 ** -8, 3.3895313892515355e38
    f = _np.finfo(d)
    return f.bits, f.nmant, float(f.tiny), float(f.eps), float(f.epsneg), float(f.max)


def _float_dtype(dtype, name):
    d = _canon(dtype, float)
    if not _is_float(d):
        raise ValueError(f"[{name}] dtype argument to `{name}` must be a float dtype, got {d}")
    return d


def _int_dtype(dtype, name):
    d = _canon(dtype, int)
    if not _is_int(d):
        raise ValueError(f"[{name}] dtype argument to `{name}` must be an int dtype, got {d}")
    return d


def _arr(x, dtype=None):
    a = _jnp.asarray(x)
    if dtype is not None and a.dtype != dtype:
        a = _lax.convert_element_type(a, dtype)
    return a


def _shape(shape, name, dtype=_np.uint32):
    """shape as a tuple of ints; an eager draw of dtype[shape] too large to allocate is a
    MemoryError naming the function (u32: the random bits every draw takes at least)."""
    if shape is None:
        return None
    if not hasattr(shape, "__len__"):
        shape = (shape,)
    try:
        shape = tuple(_operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"[{name}] shape must be a sequence of integers, got {shape!r}") from None
    _core._check_result_size(f"random.{name}", shape, dtype)
    return shape


def _broadcast_shapes(name, *shapes):
    try:
        return tuple(_np.broadcast_shapes(*map(tuple, shapes)))
    except ValueError:
        raise ValueError(f"[{name}] Incompatible shapes for broadcasting: "
                         f"{tuple(map(tuple, shapes))}") from None


def _check_shape(name, shape, *param_shapes):
    if param_shapes:
        joint = _broadcast_shapes(name, shape, *param_shapes)
        if tuple(shape) != tuple(joint):
            raise ValueError(
                f"[{name}] parameter shapes must be broadcast-compatible with shape argument, and "
                f"the result of broadcasting the shapes must equal the shape argument, but got "
                f"result {tuple(joint)} for shape argument {tuple(shape)}.")


# ---- keys --------------------------------------------------------------------------------------

class PRNGImpl:
    """A PRNG implementation (only Threefry-2x32 here): its name, key shape and dtype tag."""
    name = "threefry2x32"
    key_shape = (2,)
    tag = "fry"

    def __repr__(self):
        return "PRNGImpl(threefry2x32)"

    __str__ = lambda self: self.name  # noqa: E731

    def __eq__(self, other):
        return isinstance(other, PRNGImpl) or other == self.name

    def __hash__(self):
        return hash(self.name)


threefry2x32 = PRNGImpl()


class KeyDType:
    """The element type of typed key arrays: 'key<fry>' for Threefry keys."""
    name = "key<fry>"
    impl = threefry2x32
    itemsize = 8
    kind = "V"

    def __repr__(self):
        return "key<fry>"

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, KeyDType) or other == "key<fry>"

    def __hash__(self):
        return hash("key<fry>")


_KEY_DTYPE = KeyDType()


class PRNGKeyArray:
    """A typed key array (what `key` and `wrap_key_data` return): an array of Threefry keys of
    `shape`, each key two uint32 words held in `key_data(k)` of shape shape + (2,)."""
    __slots__ = ("_base",)

    def __init__(self, base):
        self._base = base

    shape = property(lambda self: tuple(self._base.shape[:-1]))
    dtype = property(lambda self: _KEY_DTYPE)
    ndim = property(lambda self: len(self._base.shape) - 1)
    size = property(lambda self: int(_np.prod(self.shape)))
    itemsize = property(lambda self: 8)
    T = property(lambda self: self.transpose())

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __getitem__(self, idx):
        if not isinstance(idx, tuple):
            idx = (idx,)
        if any(i is Ellipsis for i in idx):
            return PRNGKeyArray(self._base[idx + (slice(None),)])
        return PRNGKeyArray(self._base[idx + (Ellipsis, slice(None))])

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def reshape(self, *shape):
        """The same keys in a new shape (one -1 is inferred)."""
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = tuple(shape[0])
        known = int(_np.prod([s for s in shape if s != -1]))
        shape = tuple(self.size // max(known, 1) if s == -1 else s for s in shape)
        return PRNGKeyArray(_jnp.reshape(self._base, shape + (2,)))

    def ravel(self):
        """The keys as a flat array."""
        return self.reshape(-1)

    flatten = ravel

    def transpose(self, *axes):
        """The key array with its axes permuted (reversed by default)."""
        axes = list(axes[0]) if len(axes) == 1 and not isinstance(axes[0], int) else list(axes)
        axes = axes or list(range(self.ndim))[::-1]
        return PRNGKeyArray(_jnp.transpose(self._base, axes + [self.ndim]))

    def __eq__(self, other):
        if not isinstance(other, PRNGKeyArray):
            return NotImplemented
        return _jnp.all(_jnp.equal(self._base, other._base), axis=-1)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else _jnp.logical_not(eq)

    __hash__ = None

    def __array__(self, dtype=None):
        raise TypeError("[key] a typed key array cannot be converted to a numpy array; use "
                        "strata.random.key_data(keys)")

    def __repr__(self):
        try:
            data = _np.asarray(self._base)
        except Exception:  # traced
            return f"Traced<key<fry>[{','.join(map(str, self.shape))}]>"
        return f"Array({self.shape}, dtype=key<fry>) overlaying:\n{data}"


_register(PRNGKeyArray, lambda k: ((k._base,), None), lambda _, c: PRNGKeyArray(c[0]))


def _key(name, key):
    """(u32[..., 2] data, typed?) of a raw or typed key; raw keys must be uint32 with a last axis
    of 2."""
    if isinstance(key, PRNGKeyArray):
        return key._base, True
    if not isinstance(key, _core.Array):
        if isinstance(key, (int, float, bool)) or key is None:
            raise TypeError(f"[{name}] unexpected PRNG key type {type(key)}")
        key = _jnp.asarray(key)
    if key.dtype != _U32 or key.ndim < 1 or key.shape[-1] != 2:
        raise TypeError(
            f"[{name}] JAX encountered invalid PRNG key data: expected key_data.dtype = uint32 "
            f"and key_data.shape[-1] = 2, got {key.type_str()}")
    return key, False


def _single(name, key):
    base, typed = _key(name, key)
    if base.ndim != 1:
        raise TypeError(
            f"[{name}] {name} accepts a single key, but was given a key array of shape "
            f"{tuple(base.shape[:-1])} != (). Use jax.vmap for batching.")
    return base, typed


def _wrap(base, typed):
    return PRNGKeyArray(base) if typed else base


def _seed_data(seed):
    """The u32[2] key data JAX's threefry_seed makes from an integer seed."""
    if isinstance(seed, PRNGKeyArray):
        raise TypeError("[PRNGKey] PRNGKey accepts a scalar seed, but was given a PRNGKeyArray.")
    if isinstance(seed, (bool, _np.bool_)) or (isinstance(seed, float)):
        raise TypeError(f"[PRNGKey] seed must be an integer, got {type(seed).__name__}")
    if isinstance(seed, (int, _np.integer)):
        s = int(seed)
        if not -2 ** 63 <= s < 2 ** 64:
            raise OverflowError(f"[PRNGKey] seed {s} does not fit in 64 bits")
        if _x64():
            v = s % 2 ** 64
            return _jnp.asarray(_np.array([v >> 32, v & 0xFFFFFFFF], _U32))
        return _jnp.asarray(_np.array([0, s % 2 ** 32], _U32))
    s = _jnp.asarray(seed)
    if s.ndim:
        raise TypeError(
            f"[PRNGKey] PRNGKey accepts a scalar seed, but was given an array of shape "
            f"{tuple(s.shape)} != (). Use jax.vmap for batching")
    if not _is_int(s.dtype):
        raise TypeError(f"[PRNGKey] seed must be an integer, got {s.dtype}")
    lo = _lax.convert_element_type(s, _U32)
    if s.dtype.itemsize == 8:
        hi = _lax.convert_element_type(
            _lax.shift_right_logical(s, _arr(_np.array(32, s.dtype))), _U32)
    else:
        hi = _jnp.zeros((), _U32)
    return _jnp.stack([hi, lo])


def _impl_check(impl, name):
    if impl is not None and impl != threefry2x32:
        raise ValueError(f"[{name}] unknown PRNG implementation {impl!r}; Strata has only "
                         "'threefry2x32'")


def PRNGKey(seed, *, impl=None):
    """A raw key (u32[2]) for an integer seed, as jax.random.PRNGKey (PRNGKey(-1) is
    [0, 4294967295] with x64 off)."""
    _impl_check(impl, "PRNGKey")
    return _seed_data(seed)


def key(seed, *, impl=None):
    """A typed key array of shape () for an integer seed (jax.random.key): dtype key<fry>."""
    _impl_check(impl, "key")
    return PRNGKeyArray(_seed_data(seed))


def key_data(keys):
    """The uint32 data of keys: shape keys.shape + (2,) (raw keys come back unchanged)."""
    return _key("key_data", keys)[0]


def wrap_key_data(key_bits_array, *, impl=None):
    """A typed key array over uint32 key data of shape (..., 2)."""
    _impl_check(impl, "wrap_key_data")
    base, typed = _key("wrap_key_data", key_bits_array)
    if typed:
        raise TypeError("[wrap_key_data] wrap_key_data takes uint32 key data, got a typed key "
                        "array")
    return PRNGKeyArray(base)


def key_impl(keys):
    """The PRNG implementation of keys (Threefry-2x32)."""
    _key("key_impl", keys)
    return threefry2x32


def key_dtype(impl=None):
    """The dtype of typed key arrays of implementation `impl` (key<fry>)."""
    _impl_check(impl, "key_dtype")
    return _KEY_DTYPE


def default_prng_impl():
    """The default PRNG implementation (Threefry-2x32)."""
    return threefry2x32


def clone(key):
    """key itself (JAX's key-reuse checker treats the result as a fresh key)."""
    _key("clone", key)
    return key


_ROT = ((13, 15, 26, 6), (17, 29, 16, 24))


def _rotl(x, r):
    left = _lax.shift_left(x, _jnp.full(x.shape, r, _U32))
    right = _lax.shift_right_logical(x, _jnp.full(x.shape, 32 - r, _U32))
    return _lax.bitwise_or(left, right)


def _threefry2x32(k1, k2, x0, x1):
    """Threefry-2x32 with 20 rounds over Strata ops (uint32 scalars k1, k2; counters x0, x1 of
    one shape): the partitionable layout and traced fold_in data go through it."""
    shape = x0.shape
    b = lambda v: _jnp.broadcast_to(v, shape)  # noqa: E731
    ks = [b(k1), b(k2), b(_lax.bitwise_xor(_lax.bitwise_xor(k1, k2),
                                            _jnp.asarray(_np.uint32(0x1BD11BDA))))]
    x0 = x0 + ks[0]
    x1 = x1 + ks[1]
    for i in range(5):
        for r in _ROT[i % 2]:
            x0 = x0 + x1
            x1 = _lax.bitwise_xor(_rotl(x1, r), x0)
        x0 = x0 + ks[(i + 1) % 3]
        x1 = x1 + ks[(i + 2) % 3] + _jnp.full(shape, i + 1, _U32)
    return x0, x1


def _iota_2x32(shape):
    """(hi, lo) uint32 words of the 64-bit flat index of each element of `shape` (JAX's
    iota_2x32_shape): the counters of the partitionable layout."""
    shape = tuple(shape)
    size = int(_np.prod(shape))
    if size > 2 ** 64:
        raise NotImplementedError(f"[bits] random bits array of size exceeding 2 ** 64 ({size})")
    if size <= 2 ** 32:
        lo = _jnp.reshape(_lax.iota(_U32, size), shape)
        return _jnp.zeros(shape, _U32), lo
    idx = _np.arange(size, dtype=_np.uint64).reshape(shape)
    return (_jnp.asarray((idx >> _np.uint64(32)).astype(_U32)),
            _jnp.asarray((idx & _np.uint64(0xFFFFFFFF)).astype(_U32)))


def _hash_iota(base, shape):
    """The two Threefry output words for each element of `shape` under the partitionable
    layout: threefry2x32(key, (hi(i), lo(i))) for the flat index i."""
    hi, lo = _iota_2x32(shape)
    return _threefry2x32(base[0], base[1], hi, lo)


def _split_keys(base, n):
    """u32[n, 2]: n keys split from one key in the configured layout (partitionable: key i is
    threefry(key, (0, i)), i.e. fold_in(key, i); original: halves of threefry over iota(2n))."""
    if n == 0:
        return _jnp.zeros((0, 2), _U32)
    if _partitionable():
        x0, x1 = _hash_iota(base, (n,))
        return _jnp.stack([x0, x1], axis=-1)
    return _c.split(base, n)


def _split2(base):
    ks = _split_keys(base, 2)
    return ks[0], ks[1]


def split(key, num=2):
    """`num` new keys (an int or a shape) from one key, stacked on new leading axes."""
    base, typed = _single("split", key)
    shape = (num,) if isinstance(num, int) or hasattr(num, "__index__") else tuple(num)
    shape = tuple(_operator.index(s) for s in shape)
    n = int(_np.prod(shape))
    if n < 0 or any(s < 0 for s in shape):
        raise ValueError(f"[split] num must be non-negative, got {num}")
    return _wrap(_jnp.reshape(_split_keys(base, n), shape + (2,)), typed)


def fold_in(key, data):
    """A new key from `key` and a 32-bit integer `data` (may be traced): threefry(key, (0, data))
    in either layout."""
    base, typed = _single("fold_in", key)
    if isinstance(data, (int, _np.integer)):
        return _wrap(_c.fold_in(base, int(data) % 2 ** 32), typed)
    d = _jnp.asarray(data)
    if d.ndim:
        raise TypeError(f"[fold_in] fold_in accepts a scalar, but was given an array of shape "
                        f"{tuple(d.shape)} != (). Use jax.vmap for batching.")
    d = _lax.convert_element_type(d, _U32)
    x0, x1 = _threefry2x32(base[0], base[1], _jnp.zeros((1,), _U32), _jnp.reshape(d, (1,)))
    return _wrap(_jnp.concatenate([x0, x1]), typed)


# ---- bits --------------------------------------------------------------------------------------
# Each width has both layouts. Partitionable: element i hashes its 64-bit index (hi, lo) to two
# words w1, w2; 32 bits are w1 ^ w2, 8 and 16 bits its low bits, 64 bits w1 << 32 | w2.
# Original: one flat stream of 32-bit words threefry(key, iota), 8/16-bit values sliced from
# its words, 64-bit values from its two halves.

def _words(base, n):
    """n uint32 words: threefry_2x32(key, iota(n)), as JAX's original random_bits."""
    if n == 0:
        return _jnp.zeros((0,), _U32)
    if n >= 2 ** 32 - 1:
        raise ValueError(f"[bits] more than 2**32 - 1 random words requested ({n})")
    return _c.bits(base, (n,))


def _small_bits(base, width, shape):
    """width-bit (8 or 16) random values as uint32, in the configured layout."""
    shape = tuple(shape)
    mask = lambda v: _lax.bitwise_and(v, _jnp.full(v.shape, 2 ** width - 1, _U32))  # noqa: E731
    if _partitionable():
        w1, w2 = _hash_iota(base, shape)
        return mask(_lax.bitwise_xor(w1, w2))
    size = int(_np.prod(shape))
    per = 32 // width
    n = -(-size * width // 32)
    w = _words(base, n)
    shifts = _jnp.asarray(_np.arange(per, dtype=_U32) * width)
    parts = _lax.shift_right_logical(_jnp.broadcast_to(w[:, None], (n, per)),
                                     _jnp.broadcast_to(shifts[None, :], (n, per)))
    return _jnp.reshape(_jnp.reshape(mask(parts), (n * per,))[:size], shape)


def _bits64(base, shape):
    """(high, low) uint32 halves of 64-bit random values, in the configured layout."""
    shape = tuple(shape)
    if _partitionable():
        return _hash_iota(base, shape)
    size = int(_np.prod(shape))
    w = _words(base, 2 * size)
    return _jnp.reshape(w[:size], shape), _jnp.reshape(w[size:], shape)


def _bits32(base, shape):
    """uint32 random values of `shape`, in the configured layout."""
    shape = tuple(shape)
    if _partitionable():
        w1, w2 = _hash_iota(base, shape)
        return _lax.bitwise_xor(w1, w2)
    return _c.bits(base, shape)


def bits(key, shape=(), dtype=None):
    """Uniform random bits as unsigned integers of `dtype` (default uint32; uint64 with x64)."""
    base, _ = _single("bits", key)
    shape = _shape(shape, "bits")
    d = _canon(dtype, "uint64")
    if not (isinstance(d, _np.dtype) and d.kind == "u"):
        raise ValueError(f"[bits] dtype argument to `bits` must be an unsigned int dtype, got {d}")
    width = d.itemsize * 8
    if width == 32:
        return _bits32(base, shape)
    if width in (8, 16):
        return _lax.convert_element_type(_small_bits(base, width, shape), d)
    hi, lo = _bits64(base, shape)
    hi, lo = _lax.convert_element_type(hi, d), _lax.convert_element_type(lo, d)
    return _lax.bitwise_or(_lax.shift_left(hi, _jnp.full(shape, 32, d)), lo)


# ---- continuous samplers -----------------------------------------------------------------------

def _unit(base, shape, d):
    """Uniform [0, 1) values of float dtype d from JAX's mantissa bits: exactly
    (bits >> (width - nmant)) * 2**-nmant."""
    nbits, nmant = _finfo(d)[:2]
    shape = tuple(shape)
    if nbits == 64:
        hi, lo = _bits64(base, shape)
        lo = _lax.shift_right_logical(lo, _jnp.full(shape, 12, _U32))
        f = lambda v: _lax.convert_element_type(v, d)  # noqa: E731
        return f(hi) * 2.0 ** -32 + f(lo) * 2.0 ** -52
    rng_bits = nbits if nmant >= 8 else 8
    raw = _bits32(base, shape) if rng_bits == 32 else _small_bits(base, rng_bits, shape)
    m = _lax.shift_right_logical(raw, _jnp.full(shape, rng_bits - nmant, _U32))
    return _lax.convert_element_type(m, d) * _arr(_np.float32(2.0 ** -nmant), d)


def _uniform(base, shape, d, minval=0.0, maxval=1.0):
    lo = _jnp.broadcast_to(_arr(minval, d), shape)
    hi = _jnp.broadcast_to(_arr(maxval, d), shape)
    return _lax.max(lo, _unit(base, shape, d) * (hi - lo) + lo)


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    """Uniform values in [minval, maxval) (arrays broadcast against shape)."""
    base, _ = _single("uniform", key)
    d = _float_dtype(dtype, "uniform")
    shape = _shape(shape, "uniform", d)
    _check_shape("uniform", shape, _np.shape(minval), _np.shape(maxval))
    return _uniform(base, shape, d, minval, maxval)


def _normal(base, shape, d):
    lo = _np_nextafter(-1.0, 0.0, d)
    u = _uniform(base, shape, d, _arr(lo, d), 1.0)
    return _arr(_np.sqrt(2.0), d) * _lax.erf_inv(u)


def normal(key, shape=(), dtype=None):
    """Standard normal values: sqrt(2) * erf_inv(u) for u uniform in (-1, 1), as JAX."""
    base, _ = _single("normal", key)
    d = _canon(dtype, float)
    if not _is_float(d):
        raise ValueError(f"[normal] dtype argument to `normal` must be a float or complex dtype, "
                         f"got {d}")
    return _normal(base, _shape(shape, "normal", d), d)


def _np_nextafter(x, toward, d):
    """nextafter(x, toward) in dtype d for Python numbers (bfloat16 through its 8-bit
    significand)."""
    if x != x or x == toward:
        return x
    if d == _jnp.bfloat16:
        if _np.isinf(x):
            return _np.sign(x) * 3.3895313892515355e38
        if x == 0:
            return _np.copysign(2.0 ** -133, toward - x)
        e = _np.floor(_np.log2(abs(x)))
        step = 2.0 ** (e - 7)
        if abs(toward) < abs(x) and abs(x) == 2.0 ** e:
            step /= 2
        return x + _np.sign(toward - x) * step
    return float(_np.nextafter(d.type(x), d.type(toward)))


def _nextafter(x, toward_inf, d):
    """nextafter(x, +-inf) elementwise in dtype d."""
    inf = _np.inf if toward_inf else -_np.inf
    return _lax.nextafter(x, _jnp.full(x.shape, inf, d))


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Standard normal values truncated to the open interval (lower, upper)."""
    base, _ = _single("truncated_normal", key)
    d = _float_dtype(dtype, "truncated_normal")
    if shape is None:
        shape = _broadcast_shapes("truncated_normal", _np.shape(lower), _np.shape(upper))
    else:
        shape = _shape(shape, "truncated_normal")
        _check_shape("truncated_normal", shape, _np.shape(lower), _np.shape(upper))
    sqrt2 = _arr(_np.sqrt(2.0), d)
    lower = _arr(lower, d)
    upper = _arr(upper, d)
    a = _lax.erf(lower / sqrt2)
    b = _lax.erf(upper / sqrt2)
    u = _uniform(base, shape, d, a, b)
    out = sqrt2 * _lax.erf_inv(u)
    lo = _jnp.broadcast_to(_nextafter(_lax.stop_gradient(lower), True, d), shape)
    hi = _jnp.broadcast_to(_nextafter(_lax.stop_gradient(upper), False, d), shape)
    return _jnp.minimum(_jnp.maximum(out, lo), hi)


def bernoulli(key, p=_np.float32(0.5), shape=None):
    """Booleans that are True with probability p (shape defaults to p's shape)."""
    base, _ = _single("bernoulli", key)
    d = _canon(_np.result_type(p) if not isinstance(p, _core.Array) else p.dtype)
    if not _is_float(d):
        raise TypeError(f"[bernoulli] bernoulli probability `p` must have a floating dtype, "
                        f"got {d}.")
    p = _arr(p, d)
    if shape is None:
        shape = tuple(p.shape)
    else:
        shape = _shape(shape, "bernoulli")
        _check_shape("bernoulli", shape, p.shape)
    return _uniform(base, shape, d) < p


def _randint(base, shape, minval, maxval, d):
    info = _np.iinfo(d)
    nbits = info.bits
    minval = _jnp.asarray(minval)
    maxval = _jnp.asarray(maxval)
    if not _is_int(minval.dtype):
        minval = minval.astype(_canon(int))
    if not _is_int(maxval.dtype):
        maxval = maxval.astype(_canon(int))
    wide = _np.dtype("int64") if _x64() else _np.dtype("int32")

    def clip(v):  # JAX's _convert_and_clip_integer, in a type wide enough for both ranges
        if v.dtype == d:
            return v
        vi = _np.iinfo(v.dtype)
        lo, hi = max(info.min, vi.min), min(info.max, vi.max)
        return _lax.convert_element_type(_jnp.clip(v, lo, hi), d)

    if info.max < _np.iinfo(maxval.dtype).max:
        out_of_range = maxval > _jnp.asarray(_np.array(info.max, maxval.dtype))
    else:
        out_of_range = _jnp.zeros(maxval.shape, bool)
    minval = _jnp.broadcast_to(clip(minval), shape)
    maxval = _jnp.broadcast_to(clip(maxval), shape)
    out_of_range = _jnp.broadcast_to(out_of_range, shape)
    k1, k2 = _split2(base)
    if d == _np.dtype("uint64"):
        return _randint_u64(k1, k2, shape, minval, maxval, out_of_range)
    if nbits == 64:
        return _randint64(k1, k2, shape, minval, maxval, d)
    if nbits == 32:
        hb, lb = _bits32(k1, shape), _bits32(k2, shape)
    else:
        hb, lb = _small_bits(k1, nbits, shape), _small_bits(k2, nbits, shape)
    mask = _jnp.full(shape, 2 ** nbits - 1 if nbits < 32 else 0xFFFFFFFF, _U32)
    m = (lambda v: _lax.bitwise_and(v, mask)) if nbits < 32 else (lambda v: v)
    diff = _lax.convert_element_type(maxval, wide if nbits < 32 else d) - \
        _lax.convert_element_type(minval, wide if nbits < 32 else d)
    span = m(_lax.convert_element_type(diff, _U32))
    one = _jnp.ones(shape, _U32)
    span = _jnp.where(maxval <= minval, one, span)
    span = _jnp.where(out_of_range & (maxval > minval), m(span + one), span)
    zero_span = span == _jnp.zeros(shape, _U32)
    safe = _jnp.where(zero_span, one, span)
    mult = _lax.rem(_jnp.full(shape, 2 ** (nbits // 2), _U32), safe)
    mult = _lax.rem(m(mult * mult), safe)
    off = m(m(_lax.rem(hb, safe) * mult) + _lax.rem(lb, safe))
    off = _lax.rem(off, safe)
    off = _jnp.where(zero_span, lb, off)
    if nbits < 32:
        res = _lax.convert_element_type(minval, wide) + _lax.convert_element_type(off, wide)
        res = _lax.convert_element_type(
            _lax.bitwise_and(_lax.convert_element_type(res, _U32), mask), _U32)
        if info.min < 0:  # back to the signed range by two's complement of nbits
            r = _lax.convert_element_type(res, wide)
            res = _jnp.where(r >= 2 ** (nbits - 1), r - 2 ** nbits, r)
        return _lax.convert_element_type(res, d)
    return minval + _lax.convert_element_type(off, d)


def _randint64(k1, k2, shape, minval, maxval, d):
    """JAX's randint remainder algorithm for int64, its uint64 arithmetic done on int64 bit
    patterns (Strata has no uint64): products and sums wrap alike, and unsigned remainders and
    comparisons are rebuilt from signed ones."""
    full = lambda v: _jnp.full(shape, v, d)  # noqa: E731
    sign = full(-2 ** 63)

    def u64(hi, lo):
        return _lax.bitwise_or(_lax.shift_left(_lax.convert_element_type(hi, d), full(32)),
                               _lax.convert_element_type(lo, d))

    def ult(a, b):
        return _lax.bitwise_xor(a, sign) < _lax.bitwise_xor(b, sign)

    def addmod(a, b, m):  # (a + b) mod m for a, b in [0, m), without overflow
        return _jnp.where(a >= m - b, a - (m - b), a + b)

    def umod(x, m):  # x mod m for uint64 bit patterns x and m != 0
        big = m < 0  # m >= 2**63: x < 2 m, one subtraction at most
        small = _jnp.where(big, full(1), m)
        r = _lax.rem(x, small)
        r = _jnp.where(r < 0, r + small, r)
        two63 = _lax.rem(_lax.rem(full(2 ** 63 - 1), small) + 1, small)
        r = _jnp.where(x < 0, addmod(r, addmod(two63, two63, small), small), r)
        return _jnp.where(big, _jnp.where(ult(x, m), x, x - m), r)

    hb, lb = u64(*_bits64(k1, shape)), u64(*_bits64(k2, shape))
    span = _jnp.where(maxval <= minval, full(1), maxval - minval)
    zero = span == full(0)
    m = _jnp.where(zero, full(1), span)
    mult = umod(full(2 ** 32), m)
    mult = umod(mult * mult, m)
    off = umod(umod(hb, m) * mult + umod(lb, m), m)
    return minval + _jnp.where(zero, lb, off)


def _randint_u64(k1, k2, shape, minval, maxval, out_of_range):
    """JAX's randint remainder algorithm in native uint64 arithmetic (wrapping products and
    sums; a remainder by the zero span of the full range leaves its operand, as XLA's)."""
    u = _np.dtype("uint64")
    full = lambda v: _jnp.full(shape, v, u)  # noqa: E731

    def u64(hi, lo):
        return _lax.bitwise_or(_lax.shift_left(_lax.convert_element_type(hi, u), full(32)),
                               _lax.convert_element_type(lo, u))

    hb, lb = u64(*_bits64(k1, shape)), u64(*_bits64(k2, shape))
    span = _jnp.where(maxval <= minval, full(1), maxval - minval)
    span = _jnp.where(out_of_range & (maxval > minval), span + full(1), span)
    mult = _lax.rem(full(2 ** 32), span)
    mult = _lax.rem(mult * mult, span)
    off = _lax.rem(_lax.rem(hb, span) * mult + _lax.rem(lb, span), span)
    return minval + off


def randint(key, shape, minval, maxval, dtype=None):
    """Integers uniform in [minval, maxval) (arrays broadcast against shape), as JAX's two-word
    remainder algorithm."""
    base, _ = _single("randint", key)
    d = _canon(dtype, int)
    if not _is_int(d):
        raise TypeError(f"[randint] randint only accepts integer dtypes, got {d}")
    shape = _shape(shape, "randint")
    _check_shape("randint", shape, _np.shape(minval), _np.shape(maxval))
    return _randint(base, shape, minval, maxval, d)


def _sort_along(keys, x, axis):
    return _lax.sort((keys, x), axis, 1)[1]


def _shuffle(base, x, axis):
    exponent = 3
    rounds = int(_np.ceil(exponent * _np.log(max(1, x.size)) / _np.log(2.0 ** 32 - 1)))
    for _ in range(rounds):
        ks = _split_keys(base, 2)
        base, sub = ks[0], ks[1]
        x = _sort_along(_bits32(sub, x.shape), x, axis)
    return x


def _axis(axis, ndim, name):
    if not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"[{name}] axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % max(ndim, 1)


def permutation(key, x, axis=0, independent=False):
    """A random permutation of range(x) for an int x, else x permuted along axis (each slice
    independently when independent=True)."""
    base, _ = _single("permutation", key)
    if isinstance(x, (int, _np.integer)) or (_np.ndim(x) == 0):
        xa = _jnp.asarray(x)
        if not _is_int(xa.dtype):
            raise TypeError("[permutation] x must be an integer or at least 1-dimensional")
        if isinstance(x, _core.Array) and not x.is_concrete:
            raise TypeError("[permutation] argument x of permutation() must be concrete")
        return _shuffle(base, _jnp.arange(int(_np.asarray(xa))), 0)
    x = _jnp.asarray(x)
    axis = _axis(axis, x.ndim, "permutation")
    if independent or x.ndim == 1:
        return _shuffle(base, x, axis)
    ind = _shuffle(base, _jnp.arange(x.shape[axis]), 0)
    return _jnp.take(x, ind, axis)


def shuffle(key, x, axis=0):
    """x shuffled along axis (JAX's deprecated alias of permutation(..., independent=True))."""
    base, _ = _single("shuffle", key)
    x = _jnp.asarray(x)
    return _shuffle(base, x, _axis(axis, x.ndim, "shuffle"))


def _argsort(v):
    idx = _jnp.arange(v.shape[-1])
    return _lax.sort((v, _jnp.broadcast_to(idx, v.shape)), v.ndim - 1, 1)[1]


def choice(key, a, shape=(), replace=True, p=None, axis=0):
    """A sample of `shape` from a's entries along axis (range(a) for an int a), with or without
    replacement, uniform or with probabilities p."""
    base, _ = _single("choice", key)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"[choice] shape argument of jax.random.choice must be a sequence, "
                        f"got {shape}")
    shape = tuple(shape)
    arr = _jnp.asarray(a)
    if arr.ndim == 0:
        n_inputs = int(_np.asarray(arr))
    else:
        axis = _axis(axis, arr.ndim, "choice")
        n_inputs = arr.shape[axis]
    n_draws = int(_np.prod(shape))
    if n_draws == 0:
        return _jnp.zeros(shape, arr.dtype)
    if n_inputs <= 0:
        raise ValueError("[choice] a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError("[choice] Cannot take a larger sample than population when "
                         "'replace=False'")
    if p is None:
        if replace:
            ind = randint(base, shape, 0, n_inputs)
            result = ind if arr.ndim == 0 else _jnp.take(arr, ind, axis)
        else:
            src = _jnp.arange(n_inputs) if arr.ndim == 0 else arr
            perm = permutation(base, src, axis)
            result = _jnp.take(perm, _jnp.arange(n_draws), axis if arr.ndim else 0)
    else:
        p_arr = _jnp.asarray(p)
        if not _is_float(p_arr.dtype):
            p_arr = p_arr.astype(_canon(float))
        if tuple(p_arr.shape) != (n_inputs,):
            raise ValueError("[choice] p must be None or match the shape of a")
        if replace:
            cum = _jnp.cumsum(p_arr)
            r = cum[-1] * (1 - _uniform(base, shape, p_arr.dtype))
            ind = _jnp.sum((cum[(None,) * len(shape)] < r[..., None]).astype(_canon(int)),
                           axis=-1)
        else:
            g = -gumbel(base, (n_inputs,), p_arr.dtype) - _jnp.log(p_arr)
            ind = _argsort(g)[:n_draws]
        result = ind if arr.ndim == 0 else _jnp.take(arr, ind, axis)
    if arr.ndim == 0:
        return _jnp.reshape(result, shape)
    out = list(arr.shape)
    out[axis:axis + 1] = list(shape)
    return _jnp.reshape(result, tuple(out))


def gumbel(key, shape=(), dtype=None, mode=None):
    """Standard Gumbel values: -log(-log(u))."""
    base, _ = _single("gumbel", key)
    d = _float_dtype(dtype, "gumbel")
    shape = _shape(shape, "gumbel")
    tiny = _finfo(d)[2]
    return -_jnp.log(-_jnp.log(_uniform(base, shape, d, tiny, 1.0)))


def categorical(key, logits, axis=-1, shape=None, replace=True, mode=None):
    """Category indices sampled from softmax(logits, axis) by the Gumbel-max trick (without
    replacement by Gumbel top-k)."""
    base, _ = _single("categorical", key)
    logits = _jnp.asarray(logits)
    if axis >= 0:
        axis -= logits.ndim
    batch_shape = tuple(_np.delete(logits.shape, axis))
    if shape is None:
        shape = batch_shape
    else:
        shape = _shape(shape, "categorical")
        _check_shape("categorical", shape, batch_shape)
    prefix = shape[:len(shape) - len(batch_shape)]
    lshape = list(shape[len(shape) - len(batch_shape):])
    lshape.insert(axis % logits.ndim, logits.shape[axis])
    expanded = _jnp.reshape(logits, (1,) * len(prefix) + tuple(logits.shape))
    if replace:
        g = gumbel(base, (*prefix, *lshape), logits.dtype)
        return _jnp.argmax(g + expanded, axis=axis)
    n_draws = int(_np.prod(prefix))
    if n_draws > logits.shape[axis]:
        raise ValueError(f"[categorical] Number of samples without replacement ({n_draws}) "
                         f"cannot exceed number of categories ({logits.shape[axis]}).")
    g = gumbel(base, tuple(lshape), logits.dtype)
    v = _jnp.moveaxis(g + logits, axis, -1)
    top = _argsort(-v)[..., :n_draws]
    return _jnp.reshape(_jnp.moveaxis(top, -1, 0), shape)


def laplace(key, shape=(), dtype=None):
    """Standard Laplace values."""
    base, _ = _single("laplace", key)
    d = _float_dtype(dtype, "laplace")
    u = _uniform(base, _shape(shape, "laplace", d), d, -1.0 + _finfo(d)[4], 1.0)
    return _jnp.sign(u) * _jnp.log1p(-_jnp.abs(u))


def logistic(key, shape=(), dtype=None):
    """Standard logistic values: log(u / (1 - u))."""
    base, _ = _single("logistic", key)
    d = _float_dtype(dtype, "logistic")
    x = _uniform(base, _shape(shape, "logistic", d), d, _finfo(d)[3], 1.0)
    return _jnp.log(x / (_arr(1.0, d) - x))


def exponential(key, shape=(), dtype=None):
    """Standard exponential values: -log1p(-u)."""
    base, _ = _single("exponential", key)
    d = _float_dtype(dtype, "exponential")
    return _exponential(base, _shape(shape, "exponential", d), d)


def _exponential(base, shape, d):
    return -_jnp.log1p(-_uniform(base, shape, d))


def cauchy(key, shape=(), dtype=None):
    """Standard Cauchy values: tan(pi (u - 1/2))."""
    base, _ = _single("cauchy", key)
    d = _float_dtype(dtype, "cauchy")
    u = _uniform(base, _shape(shape, "cauchy", d), d, _finfo(d)[3], 1.0)
    return _jnp.tan(_arr(_np.pi, d) * (u - _arr(0.5, d)))


def _param_shape(name, shape, *params):
    pshape = _broadcast_shapes(name, *[_np.shape(p) for p in params])
    if shape is None:
        return tuple(pshape)
    shape = _shape(shape, name)
    _check_shape(name, shape, *[_np.shape(p) for p in params])
    return shape


def pareto(key, b, shape=None, dtype=None):
    """Pareto values of shape parameter b: exp(e / b) for e exponential."""
    base, _ = _single("pareto", key)
    d = _float_dtype(dtype, "pareto")
    shape = _param_shape("pareto", shape, b)
    return _jnp.exp(_exponential(base, shape, d) / _arr(b, d))


def lognormal(key, sigma=_np.float32(1), shape=None, dtype=None):
    """Log-normal values: exp(sigma * n) for n standard normal."""
    base, _ = _single("lognormal", key)
    d = _float_dtype(dtype, "lognormal")
    shape = _param_shape("lognormal", shape, sigma)
    return _jnp.exp(_normal(base, shape, d) * _arr(sigma, d))


def rayleigh(key, scale, shape=None, dtype=None):
    """Rayleigh values of the given scale: scale * sqrt(-2 log u)."""
    base, _ = _single("rayleigh", key)
    d = _float_dtype(dtype, "rayleigh")
    shape = _param_shape("rayleigh", shape, scale)
    u = _uniform(base, shape, d)
    scale = _jnp.broadcast_to(_arr(scale, d), shape)
    return scale * _jnp.sqrt(_jnp.log(u) * _arr(-2.0, d))


def wald(key, mean, shape=None, dtype=None):
    """Wald (inverse Gaussian) values of the given mean (Michael, Schucany and Haas)."""
    base, _ = _single("wald", key)
    d = _float_dtype(dtype, "wald")
    shape = _param_shape("wald", shape, mean)
    ks = _split_keys(base, 2)
    mean = _jnp.broadcast_to(_arr(mean, d), shape)
    v = _normal(ks[0], shape, d)
    z = _uniform(ks[1], shape, d)
    y = v * v
    y_sq = y * y
    mean_sq = mean * mean
    sqrt_term = _jnp.sqrt(4 * mean * y + mean_sq * y_sq)
    x = mean + mean_sq * y / 2 - mean / 2 * sqrt_term
    return _jnp.where(z <= mean / (mean + x), x, mean_sq / x)


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull values: scale * (-log1p(-u)) ** (1 / concentration)."""
    base, _ = _single("weibull_min", key)
    d = _float_dtype(dtype, "weibull_min")
    u = _uniform(base, _shape(shape, "weibull_min", d), d)
    return _jnp.power(-_jnp.log1p(-u), 1.0 / _arr(concentration, d)) * _arr(scale, d)


def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular values on [left, right] with peak at mode (inverse CDF)."""
    base, _ = _single("triangular", key)
    d = _float_dtype(dtype, "triangular")
    shape = _param_shape("triangular", shape, left, mode, right)
    left, mode, right = (_jnp.broadcast_to(_arr(v, d), shape) for v in (left, mode, right))
    fc = (mode - left) / (right - left)
    u = _uniform(base, shape, d)
    out1 = left + _jnp.sqrt(u * (right - left) * (mode - left))
    out2 = right - _jnp.sqrt((1 - u) * (right - left) * (right - mode))
    return _jnp.where(u < fc, out1, out2)


def rademacher(key, shape=(), dtype=None):
    """Values -1 or +1 with equal probability."""
    base, _ = _single("rademacher", key)
    d = _canon(dtype, int)
    shape = _shape(shape, "rademacher")
    b = _lax.convert_element_type(_uniform(base, shape, _canon(_np.float32)) < 0.5, d)
    return _lax.convert_element_type(2 * b - 1, d)


def maxwell(key, shape=(), dtype=None):
    """One-sided Maxwell values: the norm of three standard normals."""
    base, _ = _single("maxwell", key)
    d = _float_dtype(dtype, "maxwell")
    shape = _shape(shape, "maxwell")
    n = _normal(base, shape + (3,), d)
    return _jnp.sqrt(_jnp.sum(n * n, axis=-1))


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Double-sided Maxwell values of location loc and scale scale."""
    base, _ = _single("double_sided_maxwell", key)
    d = _float_dtype(dtype, "double_sided_maxwell")
    shape = _shape(shape, "double_sided_maxwell")
    pshape = _broadcast_shapes("double_sided_maxwell", _np.shape(loc), _np.shape(scale))
    if not shape:
        shape = pshape
    shape = shape + pshape
    ks = _split_keys(base, 2)
    m = maxwell(ks[0], shape, d)
    s = rademacher(ks[1], shape, d)
    return s * m * _arr(scale, d) + _arr(loc, d)


def geometric(key, p, shape=None, dtype=None):
    """Geometric values (trials to the first success, >= 1) of success probability p."""
    base, _ = _single("geometric", key)
    d = _int_dtype(dtype, "geometric")
    shape = _param_shape("geometric", shape, p)
    p = _jnp.asarray(p)
    if not _is_float(p.dtype):
        p = p.astype(_canon(float))
    u = _uniform(base, shape, p.dtype)
    g = _jnp.floor(_jnp.log(u) / _jnp.broadcast_to(_jnp.log1p(-p), shape)) + 1
    return _lax.convert_element_type(g, d)


# ---- gamma and the distributions built on it ----------------------------------------------------

def _gamma_one(base, alpha, log_space):
    """One Marsaglia-Tsang gamma sample (JAX's _gamma_one: the same keys and loops)."""
    d = alpha.dtype
    c_ = lambda v: _arr(v, d)  # noqa: E731
    zero, one = c_(0.0), c_(1.0)
    boost_mask = alpha >= one
    alpha_orig = alpha
    alpha = _jnp.where(boost_mask, alpha, alpha + one)
    dd = alpha - c_(1.0 / 3.0)
    cc = c_(1.0 / 3.0) / _jnp.sqrt(dd)

    def cond_fn(s):
        _, X, V, U = s
        c1 = U >= one - c_(0.0331) * (X * X)
        c2 = _jnp.log(U) >= X * c_(0.5) + dd * (one - V + _jnp.log(V))
        return c1 & c2

    def body_fn(s):
        k = s[0]

        def next_kxv(kxv):
            kk = _split_keys(kxv[0], 2)
            x = _normal(kk[1], (), d)
            return kk[0], x, one + x * cc

        ks = _split_keys(k, 3)
        _, x, v = _lax.while_loop(lambda kxv: kxv[2] <= zero, next_kxv, (ks[1], zero, c_(-1.0)))
        X = x * x
        V = v * v * v
        U = _uniform(ks[2], (), d)
        return ks[0], X, V, U

    ks = _split_keys(base, 2)
    _, _, V, _ = _lax.while_loop(cond_fn, body_fn, (ks[0], zero, one, c_(2.0)))
    if log_space:
        log_samples = -_exponential(ks[1], (), d)
        log_boost = _jnp.where(boost_mask | (log_samples == zero), zero,
                               log_samples * (one / alpha_orig))
        return _jnp.log(dd) + _jnp.log(V) + log_boost
    samples = one - _uniform(ks[1], (), d)
    boost = _jnp.where(boost_mask, one, _jnp.power(samples, one / alpha_orig))
    return dd * V * boost


def _gamma_impl(base, a, log_space):
    from strata.api import vmap
    size = int(_np.prod(a.shape))
    if size == 0:
        return _jnp.zeros(a.shape, a.dtype)
    keys = _split_keys(base, size)
    flat = _jnp.reshape(a, (size,))
    out = vmap(lambda k, al: _gamma_one(k, al, log_space))(keys, flat)
    return _jnp.reshape(out, a.shape)


def _gamma_grad(sample, a, log_space):
    if log_space:
        s = _jnp.exp(sample)
        s = _jnp.where(s == 0, _jnp.full(s.shape, _finfo(s.dtype)[2], s.dtype), s)
        return _lax.random_gamma_grad(a, s) / s
    return _lax.random_gamma_grad(a, sample)


def _gamma_bind(base, a, log_space):
    from strata.api import custom_jvp

    @custom_jvp
    def sample(a):
        return _gamma_impl(base, a, log_space)

    @sample.defjvp
    def _rule(primals, tangents):
        (a,), (ta,) = primals, tangents
        out = sample(a)
        return out, ta * _gamma_grad(_lax.stop_gradient(out), a, log_space)

    return sample(a)


class _RandomGammaP:
    """jax.random.random_gamma_p's calling convention: bind(key, a, log_space=False) gives one
    gamma sample per element of a (a float array), differentiable in a."""
    name = "random_gamma"

    def bind(self, key, a, *, log_space=False):
        base, _ = _single("random_gamma", key)
        return _gamma_bind(base, _jnp.asarray(a), log_space)

    def __repr__(self):
        return "random_gamma"


random_gamma_p = _RandomGammaP()


def _gamma(name, key, a, shape, dtype, log_space):
    base, _ = _single(name, key)
    d = _float_dtype(dtype, name)
    shape = _param_shape(name, shape, a)
    a = _jnp.broadcast_to(_arr(a, d), shape)
    return _gamma_bind(base, a, log_space)


def gamma(key, a, shape=None, dtype=None):
    """Standard gamma values of shape parameter a (Marsaglia-Tsang, as JAX), reparameterized:
    differentiable in a through the implicit derivative lax.random_gamma_grad."""
    return _gamma("gamma", key, a, shape, dtype, False)


def loggamma(key, a, shape=None, dtype=None):
    """log of standard gamma values, computed in log space (accurate for small a)."""
    return _gamma("loggamma", key, a, shape, dtype, True)


def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) values from two log-gamma samples."""
    base, _ = _single("beta", key)
    d = _float_dtype(dtype, "beta")
    shape = _param_shape("beta", shape, a, b)
    ka, kb = _split2(base)
    a = _jnp.broadcast_to(_arr(a, d), shape)
    b = _jnp.broadcast_to(_arr(b, d), shape)
    lga = _gamma_bind(ka, a, True)
    lgb = _gamma_bind(kb, b, True)
    mx = _jnp.maximum(lga, lgb)
    ga, gb = _jnp.exp(lga - mx), _jnp.exp(lgb - mx)
    return ga / (ga + gb)


def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet values of concentration alpha (..., n): softmax of log-gamma samples."""
    base, _ = _single("dirichlet", key)
    d = _float_dtype(dtype, "dirichlet")
    if _np.ndim(alpha) < 1:
        raise ValueError(f"[dirichlet] dirichlet requires alpha.ndim >= 1, got alpha.ndim == "
                         f"{_np.ndim(alpha)}")
    ashape = _np.shape(alpha)
    if shape is None:
        shape = tuple(ashape[:-1])
    else:
        shape = _shape(shape, "dirichlet")
        _check_shape("dirichlet", shape, ashape[:-1])
    full = shape + tuple(ashape[-1:])
    lg = _gamma_bind(base, _jnp.broadcast_to(_arr(alpha, d), full), True)
    mx = _lax.stop_gradient(_jnp.max(lg, axis=-1, keepdims=True))
    un = _jnp.exp(lg - mx)
    return un / _jnp.sum(un, axis=-1, keepdims=True)


def chisquare(key, df, shape=None, dtype=None):
    """Chi-square values of df degrees of freedom: 2 * gamma(df / 2)."""
    base, _ = _single("chisquare", key)
    d = _float_dtype(dtype, "chisquare")
    shape = _param_shape("chisquare", shape, df)
    half = _jnp.broadcast_to(_arr(df, d) / _arr(2.0, d), shape)
    return _jnp.exp(_gamma_bind(base, half, True)) * _arr(2.0, d)


def f(key, dfnum, dfden, shape=None, dtype=None):
    """F-distribution values: (chi2(dfnum) / dfnum) / (chi2(dfden) / dfden)."""
    base, _ = _single("f", key)
    d = _float_dtype(dtype, "f")
    shape = _param_shape("f", shape, dfden, dfnum)
    kd, kn = _split2(base)
    num = chisquare(kn, dfnum, shape, d) / _jnp.broadcast_to(_arr(dfnum, d), shape)
    den = chisquare(kd, dfden, shape, d) / _jnp.broadcast_to(_arr(dfden, d), shape)
    return num / den


def t(key, df, shape=None, dtype=None):
    """Student's t values: n * sqrt(df / (2 gamma(df / 2)))."""
    base, _ = _single("t", key)
    d = _float_dtype(dtype, "t")
    shape = _param_shape("t", shape, df)
    kn, kg = _split2(base)
    n = _normal(kn, shape, d)
    half = _jnp.broadcast_to(_arr(df, d) / _arr(2.0, d), shape)
    g = _gamma_bind(kg, half, False)
    return n * _jnp.sqrt(half / g)


def generalized_normal(key, p, shape=(), dtype=None):
    """Generalized normal values of shape p (density proportional to exp(-|x|^p))."""
    base, _ = _single("generalized_normal", key)
    d = _float_dtype(dtype, "generalized_normal")
    shape = _shape(shape, "generalized_normal")
    k0, k1 = _split2(base)
    g = _gamma_bind(k0, _jnp.full(shape, 1.0 / p, d), False)
    r = rademacher(k1, shape, d)
    return r * g ** (1.0 / p)


def ball(key, d, p=2, shape=(), dtype=None):
    """Points uniform in the unit Lp ball of dimension d, shape shape + (d,)."""
    base, _ = _single("ball", key)
    dt = _float_dtype(dtype, "ball")
    shape = _shape(shape, "ball")
    d = _operator.index(d)
    k1, k2 = _split2(base)
    g = generalized_normal(k1, p, shape + (d,), dt)
    e = _exponential(k2, shape, dt)
    return g / (((_jnp.abs(g) ** p).sum(-1) + e) ** (1.0 / p))[..., None]


# ---- integer-valued: poisson, binomial, multinomial ---------------------------------------------

def _poisson_knuth(base, lam, shape, d, max_iters):
    def body(c):
        i, k, rng, log_prod = c
        ks = _split_keys(rng, 2)
        k = _jnp.where(log_prod > -lam, k + 1, k)
        u = _uniform(ks[1], shape, _np.dtype("float32"))
        return i + 1, k, ks[0], log_prod + _jnp.log(u)

    def cond(c):
        return _jnp.any(c[3] > -lam) & (c[0] < max_iters)

    init = (_jnp.asarray(_np.int32(0)), _jnp.zeros(shape, d), base, _jnp.zeros(shape, "float32"))
    k = _lax.while_loop(cond, body, init)[1]
    return _lax.convert_element_type(k - 1, d)


def _rejection_loop(base, shape, dtype, max_iters, propose):
    """JAX's transformed-rejection loop (poisson and binomial): each round splits the key in
    three, draws u uniform in [-1/2, 1/2) and v in [0, 1), and takes propose(u, v)'s candidate
    wherever it accepts, until every element has accepted once."""
    def body(c):
        i, k_out, accepted, rng = c
        ks = _split_keys(rng, 3)
        u = _uniform(ks[1], shape, dtype) - 0.5
        v = _uniform(ks[2], shape, dtype)
        k, accept = propose(u, v)
        return i + 1, _jnp.where(accept, k, k_out), accepted | accept, ks[0]

    def cond(c):
        return _jnp.any(~c[2]) & (c[0] < max_iters)

    init = (_jnp.asarray(_np.int32(0)), _jnp.full(shape, -1.0, dtype),
            _jnp.zeros(shape, bool), base)
    return _lax.while_loop(cond, body, init)[1]


def _poisson_rejection(base, lam, shape, d, max_iters):
    log_lam = _jnp.log(lam)
    b = 0.931 + 2.53 * _jnp.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def propose(u, v):
        us = 0.5 - _jnp.abs(u)
        k = _jnp.floor((2 * a / us + b) * u + lam + 0.43)
        s = _jnp.log(v * inv_alpha / (a / (us * us) + b))
        tt = -lam + k * log_lam - _lax.lgamma(k + 1)
        accept1 = (us >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((us < 0.013) & (v > us))
        return k, accept1 | (~reject & (s <= tt))

    k = _rejection_loop(base, shape, lam.dtype, max_iters, propose)
    return _lax.convert_element_type(k, d)


def poisson(key, lam, shape=None, dtype=None):
    """Poisson values of rate lam: Knuth's algorithm for lam < 10, Hormann's transformed
    rejection otherwise (JAX's keys and loops)."""
    base, _ = _single("poisson", key)
    d = _int_dtype(dtype, "poisson")
    shape = _param_shape("poisson", shape, lam)
    lam = _jnp.broadcast_to(_arr(lam, _np.dtype("float32")), shape)
    use_knuth = _jnp.isnan(lam) | (lam < 10)
    lam_knuth = _jnp.where(use_knuth, lam, _jnp.zeros(shape, lam.dtype))
    lam_rej = _jnp.where(use_knuth, _jnp.full(shape, 1e5, lam.dtype), lam)
    max_iters = _np.iinfo(_np.int32).max  # the loop counter is int32
    res = _jnp.where(use_knuth, _poisson_knuth(base, lam_knuth, shape, d, max_iters),
                     _poisson_rejection(base, lam_rej, shape, d, max_iters))
    return _jnp.where(lam == 0, _jnp.zeros(shape, d), res)


_STIRLING = [0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
             0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
             0.00925546218271273, 0.00833056343336287]


def _stirling_tail(k):
    table = _jnp.asarray(_np.array(_STIRLING, _np.float64)).astype(k.dtype)
    idx = _lax.convert_element_type(_jnp.clip(k, 0, 9), _np.dtype("int32"))
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    return _jnp.where(k <= 9, _jnp.take(table, idx), approx)


def _binomial_inversion(base, count, prob, shape, max_iters):
    log1mp = _jnp.log1p(-prob)

    def body(c):
        i, num_geom, geom_sum, rng = c
        ks = _split_keys(rng, 2)
        num_out = _jnp.where(geom_sum <= count, num_geom + 1, num_geom)
        u = _uniform(ks[0], shape, prob.dtype)
        geom = _jnp.ceil(_jnp.log(u) / log1mp)
        return i + 1, num_out, geom_sum + geom, ks[1]

    def cond(c):
        return _jnp.any(c[2] <= count) & (c[0] < max_iters)

    init = (_jnp.asarray(_np.int32(0)), _jnp.zeros(shape, prob.dtype),
            _jnp.zeros(shape, prob.dtype), base)
    return _lax.while_loop(cond, body, init)[1] - 1


def _btrs(base, count, prob, shape, max_iters):
    stddev = _jnp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = _jnp.floor((count + 1) * prob)

    def propose(u, v):
        us = 0.5 - _jnp.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = _jnp.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = _jnp.log(v * alpha / (a / (us * us) + b))
        ub = ((m + 0.5) * _jnp.log((m + 1) / (r * (count - m + 1)))
              + (count + 1) * _jnp.log((count - m + 1) / (count - k + 1))
              + (k + 0.5) * _jnp.log(r * (count - k + 1) / (k + 1))
              + _stirling_tail(m) + _stirling_tail(count - m)
              - _stirling_tail(k) - _stirling_tail(count - k))
        return k, accept1 | (~reject & (v <= ub))

    return _rejection_loop(base, shape, prob.dtype, max_iters, propose)


def binomial(key, n, p, shape=None, dtype=None):
    """Binomial values (as floats) of n trials with success probability p: inversion for
    n * min(p, 1 - p) <= 10, BTRS rejection otherwise."""
    base, _ = _single("binomial", key)
    d = _float_dtype(dtype, "binomial")
    shape = _param_shape("binomial", shape, n, p)
    prob = _jnp.asarray(p)
    if not _is_float(prob.dtype):
        prob = prob.astype(_canon(float))
    count = _jnp.broadcast_to(_arr(n, prob.dtype), shape)
    prob = _jnp.broadcast_to(prob, shape)
    p_lt_half = prob < 0.5
    q = _jnp.where(p_lt_half, prob, 1.0 - prob)
    count_bad = _jnp.isnan(count) | (count < 0.0)
    count_inf = _jnp.isinf(count)
    q_nan = _jnp.isnan(q)
    q_neg = q < 0.0
    q = _jnp.where(q_nan | q_neg, _jnp.full(shape, 0.01, q.dtype), q)
    use_inv = count_bad | (count * q <= 10.0)
    count = _jnp.floor(count)
    count_inv = _jnp.where(use_inv, count, _jnp.zeros(shape, count.dtype))
    count_btrs = _jnp.where(use_inv, _jnp.full(shape, 1e4, count.dtype), count)
    q_btrs = _jnp.where(use_inv, _jnp.full(shape, 0.5, q.dtype), q)
    max_iters = _np.iinfo(_np.int32).max
    s = _jnp.where(use_inv, _binomial_inversion(base, count_inv, q, shape, max_iters),
                   _btrs(base, count_btrs, q_btrs, shape, max_iters))
    s = _lax.convert_element_type(s, d)
    invalid = q_neg | q_nan | count_bad
    s = _jnp.where(invalid, _jnp.full(shape, _np.nan, d), s)
    s = _jnp.where(count_inf & ~invalid, _jnp.full(shape, _np.inf, d), s)
    return _jnp.where(p_lt_half | count_bad | q_nan | count_inf, s,
                      _lax.convert_element_type(count, d) - s)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Counts of n trials over the outcomes of p (last axis), by sequential binomials."""
    base, _ = _single("multinomial", key)
    d = _float_dtype(dtype, "multinomial")
    p = _jnp.asarray(p)
    if not _is_float(p.dtype):
        p = p.astype(_canon(float))
    n = _arr(n, p.dtype)
    if shape is None:
        shape = tuple(p.shape)
    else:
        shape = _shape(shape, "multinomial")
    n = _jnp.broadcast_to(n, shape[:-1])
    p = _jnp.broadcast_to(p, shape)

    def step(remainder, ratio_key):
        ratio, k = ratio_key
        cnt = binomial(k, remainder, _jnp.clip(ratio, 0, 1), dtype=remainder.dtype)
        return remainder - cnt, cnt

    p = _jnp.moveaxis(p, -1, 0)
    remaining = _lax.cumsum(p, 0, reverse=True)
    ratios = p / _jnp.where(remaining == 0, _jnp.ones(remaining.shape, p.dtype), remaining)
    keys = _split_keys(base, ratios.shape[0])
    _, counts = _lax.scan(step, n, (ratios, keys), unroll=unroll)
    return _lax.convert_element_type(_jnp.moveaxis(counts, 0, -1), d)


# ---- matrix-valued: multivariate_normal, orthogonal ---------------------------------------------

def _cholesky(a):
    """Lower Cholesky factor of symmetric positive-definite matrices (..., n, n), column by
    column over Strata ops (n is static)."""
    n = a.shape[-1]
    cols = []
    for j in range(n):
        v = a[..., :, j]
        for k, lk in enumerate(cols):
            v = v - lk * lk[..., j:j + 1]
        piv = _jnp.sqrt(v[..., j:j + 1])
        mask = _jnp.asarray((_np.arange(n) >= j).astype(_np.float32)).astype(a.dtype)
        cols.append(v / piv * mask)
    return _jnp.stack(cols, axis=-1)


def _eigh_jacobi(a, sweeps=12):
    """Eigenvalues and eigenvectors (columns) of symmetric matrices (..., n, n) by cyclic Jacobi
    rotations with a fixed number of sweeps (n is static)."""
    n = a.shape[-1]
    v = _jnp.broadcast_to(_jnp.eye(n, dtype=a.dtype), a.shape)
    for _ in range(sweeps):
        for p_ in range(n - 1):
            for q in range(p_ + 1, n):
                app, aqq, apq = a[..., p_, p_], a[..., q, q], a[..., p_, q]
                small = _jnp.abs(apq) < 1e-30
                safe = _jnp.where(small, _jnp.ones(apq.shape, a.dtype), apq)
                theta = (aqq - app) / (2 * safe)
                tt = _jnp.sign(theta) / (_jnp.abs(theta) + _jnp.sqrt(theta * theta + 1))
                tt = _jnp.where(theta == 0, _jnp.ones(tt.shape, a.dtype), tt)
                tt = _jnp.where(small, _jnp.zeros(tt.shape, a.dtype), tt)
                c = 1 / _jnp.sqrt(tt * tt + 1)
                s = tt * c
                e = _np.eye(n)
                # Rotation G with G[p,p]=G[q,q]=c, G[p,q]=s, G[q,p]=-s; a <- G^T a G.
                eye = _jnp.asarray(e).astype(a.dtype)
                ep = _jnp.asarray(_np.outer(e[p_], e[p_]) + _np.outer(e[q], e[q])).astype(a.dtype)
                epq = _jnp.asarray(_np.outer(e[p_], e[q]) - _np.outer(e[q], e[p_])).astype(a.dtype)
                G = eye - ep + c[..., None, None] * ep + s[..., None, None] * epq
                a = _jnp.matmul(_jnp.swapaxes(G, -1, -2), _jnp.matmul(a, G))
                v = _jnp.matmul(v, G)
    w = _jnp.stack([a[..., i, i] for i in range(n)], axis=-1)
    return w, v


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """Multivariate normal values of mean (..., n) and covariance (..., n, n): mean + factor @ z
    with factor from Cholesky ('cholesky') or a symmetric eigendecomposition ('eigh', 'svd')."""
    base, _ = _single("multivariate_normal", key)
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("[multivariate_normal] method must be one of {'svd', 'eigh', "
                         "'cholesky'}")
    mean = _jnp.asarray(mean)
    cov = _jnp.asarray(cov)
    ft = _np.promote_types(mean.dtype if _is_float(mean.dtype) else _canon(float),
                           cov.dtype if _is_float(cov.dtype) else _canon(float))
    ft = _canon(ft)
    mean, cov = _arr(mean, ft), _arr(cov, ft)
    d = ft if dtype is None else _float_dtype(dtype, "multivariate_normal")
    if mean.ndim < 1:
        raise ValueError(f"[multivariate_normal] multivariate_normal requires mean.ndim >= 1, "
                         f"got mean.ndim == {mean.ndim}")
    if cov.ndim < 2:
        raise ValueError(f"[multivariate_normal] multivariate_normal requires cov.ndim >= 2, "
                         f"got cov.ndim == {cov.ndim}")
    n = mean.shape[-1]
    if tuple(cov.shape[-2:]) != (n, n):
        raise ValueError(f"[multivariate_normal] multivariate_normal requires cov.shape == "
                         f"(..., n, n) for n={n}, but got cov.shape == {tuple(cov.shape)}.")
    if shape is None:
        shape = _broadcast_shapes("multivariate_normal", mean.shape[:-1], cov.shape[:-2])
    else:
        shape = _shape(shape, "multivariate_normal")
        _check_shape("normal", shape, tuple(mean.shape[:-1]), tuple(cov.shape[:-2]))
    if method == "cholesky":
        factor = _cholesky(cov)
    else:
        w, v = _eigh_jacobi(cov)
        factor = v * _jnp.sqrt(_jnp.maximum(w, _jnp.zeros(w.shape, w.dtype)))[..., None, :]
    z = _normal(base, shape + (n,), d)
    return mean + _jnp.sum(factor * z[..., None, :], axis=-1)


def _qr_positive(a):
    """Q of the QR factorization of a (..., m, k), m >= k, with R's diagonal positive (the
    unique one for full-rank a): modified Gram-Schmidt, orthogonalized twice."""
    k = a.shape[-1]
    qs = []
    for j in range(k):
        v = a[..., :, j]
        for _ in range(2):
            for q in qs:
                v = v - _jnp.sum(q * v, axis=-1, keepdims=True) * q
        qs.append(v / _jnp.sqrt(_jnp.sum(v * v, axis=-1, keepdims=True)))
    return _jnp.stack(qs, axis=-1)


def orthogonal(key, n, shape=(), dtype=None, m=None):
    """Orthogonal matrices (shape + (n, n)) uniform over O(n) (Haar): Q of the QR of a normal
    matrix with R's diagonal made positive."""
    base, _ = _single("orthogonal", key)
    d = _float_dtype(dtype, "orthogonal")
    shape = _shape(shape, "orthogonal")
    n = _operator.index(n)
    m = n if m is None else _operator.index(m)
    z = _normal(base, shape + (n, m), d)
    if n >= m:
        return _qr_positive(z)
    return _jnp.swapaxes(_qr_positive(_jnp.swapaxes(z, -1, -2)), -1, -2)


__all__ = [
    "PRNGKey", "ball", "bernoulli", "binomial", "beta", "bits", "categorical", "cauchy",
    "chisquare", "choice", "clone", "dirichlet", "double_sided_maxwell", "exponential", "f",
    "fold_in", "gamma", "generalized_normal", "geometric", "gumbel", "key", "key_data",
    "key_dtype", "key_impl", "laplace", "logistic", "loggamma", "lognormal", "maxwell",
    "multinomial", "multivariate_normal", "normal", "orthogonal", "pareto", "permutation",
    "poisson", "rademacher", "randint", "random_gamma_p", "rayleigh", "split", "t", "triangular",
    "truncated_normal", "uniform", "wald", "weibull_min", "wrap_key_data", "shuffle",
    "default_prng_impl", "threefry2x32", "PRNGKeyArray"]
