"""strata.nn: activations, the softmax family, normalization, one_hot and attention, with
jax.nn's names and signatures (plus Strata's layer_norm and rms_norm)."""

import math as _math
import operator as _operator

import numpy as _np

from strata import lax as _lax
from strata import numpy as _jnp
from strata._core.nn import layer_norm, rms_norm  # noqa: F401
from strata._core import nn as _cnn
from strata.api import custom_jvp as _custom_jvp
from strata.nn import initializers  # noqa: F401

tanh = _jnp.tanh


def _inexact(name, x):
    """x as a float array (integers and bools promote to the default float, as JAX's
    promote_args_inexact)."""
    if isinstance(x, (list, tuple)):
        raise TypeError(f"[{name}] requires ndarray or scalar arguments, got {type(x).__name__}")
    a = _jnp.asarray(x)
    if a.dtype.kind in "biu":
        a = a.astype(_jnp.zeros(()).dtype)
    return a


def _zeros_like(x):
    return _jnp.zeros(x.shape, x.dtype)


# ---- activations -------------------------------------------------------------------------------

@_custom_jvp
def relu(x):
    """max(x, 0), with derivative 0 at 0 (as JAX)."""
    return _jnp.maximum(x, 0)


@relu.defjvp
def _relu_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return relu(x), _jnp.where(x > 0, t, _zeros_like(t))


@_custom_jvp
def relu6(x):
    """min(max(x, 0), 6), with derivative 0 at 0 and 6 (as JAX)."""
    return _jnp.minimum(_jnp.maximum(x, 0), 6.0)


@relu6.defjvp
def _relu6_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return relu6(x), _jnp.where((x > 0) & (x < 6), t, _zeros_like(t))


def identity(x):
    """x unchanged (as an array)."""
    return _jnp.asarray(x)


def sigmoid(x):
    """1 / (1 + exp(-x)) (lax.logistic)."""
    return _lax.logistic(_inexact("sigmoid", x))


def silu(x):
    """x * sigmoid(x), also called swish."""
    x = _inexact("silu", x)
    return x * sigmoid(x)


swish = silu


def softplus(x):
    """log(1 + exp(x)), computed stably as logaddexp(x, 0)."""
    return _jnp.logaddexp(_inexact("softplus", x), 0.0)


def sparse_plus(x):
    """0 for x <= -1, x for x >= 1, (x + 1)**2 / 4 between."""
    x = _inexact("sparse_plus", x)
    return _jnp.where(x <= -1.0, _zeros_like(x), _jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


def sparse_sigmoid(x):
    """The derivative of sparse_plus: 0 for x <= -1, 1 for x >= 1, (x + 1) / 2 between."""
    x = _inexact("sparse_sigmoid", x)
    return 0.5 * _jnp.clip(x + 1.0, 0.0, 2.0)


def soft_sign(x):
    """x / (|x| + 1)."""
    x = _inexact("soft_sign", x)
    return x / (_jnp.abs(x) + 1)


def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x)."""
    return -softplus(-_inexact("log_sigmoid", x))


def elu(x, alpha=1.0):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    x = _inexact("elu", x)
    safe = _jnp.where(x > 0, _zeros_like(x), x)
    return _jnp.where(x > 0, x, alpha * _jnp.expm1(safe))


def leaky_relu(x, negative_slope=1e-2):
    """x for x >= 0, negative_slope * x otherwise."""
    x = _inexact("leaky_relu", x)
    return _jnp.where(x >= 0, x, negative_slope * x)


def hard_tanh(x):
    """x clipped to [-1, 1]."""
    x = _inexact("hard_tanh", x)
    return _jnp.where(x > 1, _jnp.ones(x.shape, x.dtype),
                      _jnp.where(x < -1, -_jnp.ones(x.shape, x.dtype), x))


def celu(x, alpha=1.0):
    """max(x, 0) + alpha * (exp(min(x, 0) / alpha) - 1)."""
    x = _inexact("celu", x)
    return _jnp.maximum(x, 0.0) + alpha * _jnp.expm1(_jnp.minimum(x, 0.0) / alpha)


def selu(x):
    """scale * elu(x, alpha) with the self-normalizing constants."""
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * elu(x, alpha)


def gelu(x, approximate=True):
    """x * Phi(x), Phi the standard normal CDF: the tanh approximation by default, exact
    (erf) with approximate=False."""
    x = _inexact("gelu", x)
    if approximate:
        c = _math.sqrt(2 / _math.pi)
        return x * (0.5 * (1.0 + _jnp.tanh(c * (x + 0.044715 * (x ** 3)))))
    return x * (_lax.erf(x / _math.sqrt(2.0)) + 1) / 2


def glu(x, axis=-1):
    """First half of x along axis times sigmoid of the second half."""
    x = _inexact("glu", x)
    size = x.shape[axis]
    if size % 2:
        raise ValueError(f"[glu] axis size must be divisible by 2, got {size} for "
                         f"{x.type_str()}")
    x1, x2 = _jnp.split(x, 2, axis)
    return x1 * sigmoid(x2)


def squareplus(x, b=4):
    """(x + sqrt(x**2 + b)) / 2."""
    x = _inexact("squareplus", x)
    return (x + _jnp.sqrt(_jnp.square(x) + b)) / 2


def mish(x):
    """x * tanh(softplus(x))."""
    x = _inexact("mish", x)
    return x * _jnp.tanh(softplus(x))


def hard_sigmoid(x):
    """relu6(x + 3) / 6."""
    return relu6(_inexact("hard_sigmoid", x) + 3.0) / 6.0


def hard_silu(x):
    """x * hard_sigmoid(x), also called hard_swish."""
    x = _inexact("hard_silu", x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def log1mexp(x):
    """log(1 - exp(-x)) for x > 0, stable on both sides of log 2."""
    x = _inexact("log1mexp", x)
    small = x < _np.log(2.0)
    return _jnp.where(small, _jnp.log(-_jnp.expm1(-x)), _jnp.log1p(-_jnp.exp(-x)))


# ---- softmax family ----------------------------------------------------------------------------

def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    out = []
    for a in axis:
        if not -ndim <= a < max(ndim, 1):
            raise ValueError(f"[softmax] axis {a} is out of bounds for array of dimension {ndim}")
        out.append(a % max(ndim, 1))
    return tuple(out)


def _masked_max(x, axes, where, initial, keepdims=True):
    if where is not None:
        x = _jnp.where(where, x, _jnp.full(x.shape, -_np.inf, x.dtype))
    m = _jnp.max(x, axis=axes, keepdims=keepdims)
    if initial is not None:
        m = _jnp.maximum(m, _jnp.asarray(initial).astype(m.dtype))
    return m


def _masked_sum(x, axes, where, keepdims=True):
    if where is not None:
        x = _jnp.where(where, x, _zeros_like(x))
    return _jnp.sum(x, axis=axes, keepdims=keepdims)


def softmax(x, axis=-1, where=None, initial=None):
    """exp(x) / sum(exp(x)) along axis (an int, a tuple or None); elements where `where` is
    False are excluded and come out 0."""
    x = _inexact("softmax", x)
    axes = _axes(axis, x.ndim)
    if where is None and initial is None:
        return _cnn.softmax(x, axes if len(axes) != 1 else axes[0])
    x_max = _masked_max(x, axes, where, initial)
    un = _jnp.exp(x - _lax.stop_gradient(x_max))
    res = un / _masked_sum(un, axes, where)
    if where is not None:
        res = _jnp.where(where, res, _zeros_like(res))
    return res


def log_softmax(x, axis=-1, where=None, initial=None):
    """x - logsumexp(x) along axis; elements where `where` is False come out -inf."""
    x = _inexact("log_softmax", x)
    axes = _axes(axis, x.ndim)
    if where is None and initial is None:
        return _cnn.log_softmax(x, axes if len(axes) != 1 else axes[0])
    x_max = _masked_max(x, axes, where, initial)
    shifted = x - _lax.stop_gradient(x_max)
    res = shifted - _jnp.log(_masked_sum(_jnp.exp(shifted), axes, where))
    if where is not None:
        res = _jnp.where(where, res, _jnp.full(res.shape, -_np.inf, res.dtype))
    return res


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """log(sum(b * exp(a))) over axis, stably; with return_sign, (log|sum|, sign)."""
    a = _inexact("logsumexp", a)
    axes = _axes(axis, a.ndim)
    if b is None and where is None and not return_sign:
        return _cnn.logsumexp(a, None if axis is None else axes, keepdims)
    if b is not None:
        b = _jnp.asarray(b)
        dt = _jnp.result_type(a, b)
        if dt.kind in "biu":
            dt = a.dtype
        a, b = a.astype(dt), b.astype(dt)
        a = _jnp.where(b != 0, a, _jnp.full(_jnp.broadcast_shapes(a.shape, b.shape), -_np.inf,
                                            dt))
    amax = _masked_max(a, axes, where, None, keepdims=True)
    amax = _lax.stop_gradient(_jnp.where(_jnp.isfinite(amax), amax, _zeros_like(amax)))
    e = _jnp.exp(a - amax)
    if b is not None:
        e = e * b
    s = _masked_sum(e, axes, where, keepdims=True)
    sign = _jnp.sign(s)
    out = _jnp.log(_jnp.abs(s)) + amax
    if not keepdims:
        out = _jnp.squeeze(out, axes)
        sign = _jnp.squeeze(sign, axes)
    if return_sign:
        return out, sign
    if b is not None:
        out = _jnp.where(sign < 0, _jnp.full(out.shape, _np.nan, out.dtype), out)
    return out


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None):
    """(x - mean) / sqrt(variance + epsilon), the moments over axis unless given."""
    x = _inexact("standardize", x)
    axes = _axes(axis, x.ndim)
    if where is not None:
        count = _masked_sum(_jnp.ones(x.shape, x.dtype), axes, where)
    else:
        count = float(_np.prod([x.shape[i] for i in axes]))
    if mean is None:
        mean = _masked_sum(x, axes, where) / count
    if variance is None:
        variance = _masked_sum(_jnp.square(x), axes, where) / count - _jnp.square(mean)
    return (x - _jnp.asarray(mean)) * _lax.rsqrt(_jnp.asarray(variance) + epsilon)


def one_hot(x, num_classes, *, dtype=None, axis=-1):
    """x's integers as one-hot vectors of length num_classes on a new axis (default float)."""
    from strata.random import _canon
    try:
        num_classes = _operator.index(num_classes)
    except TypeError:
        raise TypeError(f"[one_hot] num_classes must be a concrete integer, got "
                        f"{num_classes!r}") from None
    d = _canon(dtype, float)
    x = _jnp.asarray(x)
    nd = x.ndim + 1
    if not -nd <= axis < nd:
        raise ValueError(f"[one_hot] axis {axis} is out of bounds for an output of dimension {nd}")
    pos = axis % nd
    lhs = _jnp.expand_dims(x, pos)
    shape = [1] * nd
    shape[pos] = num_classes
    rhs = _jnp.reshape(_jnp.arange(num_classes).astype(x.dtype), shape)
    return (lhs == rhs).astype(d)


# ---- attention ---------------------------------------------------------------------------------

def _ensure_4d(t, name):
    if t is None:
        return t
    t = _jnp.asarray(t)
    if t.ndim == 3:
        return _jnp.expand_dims(t, 0)
    if t.ndim != 4:
        raise ValueError(f"[dot_product_attention] {name} must have rank 3 or 4, got "
                         f"{t.type_str()}")
    return t


def _window(T, S, local_window_size):
    if isinstance(local_window_size, int):
        left = right = local_window_size
    else:
        left, right = local_window_size
    row = _np.arange(T)[:, None]
    col = _np.arange(S)[None, :]
    return (col >= row - left) & (col <= row + right)


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal=False, query_seq_lengths=None, key_value_seq_lengths=None,
                          local_window_size=None, implementation=None):
    """softmax(q k^T * scale + bias, masked) v in JAX's BTNH layout ([B,] T, N, H); key/value
    heads K may divide N (grouped-query attention)."""
    if implementation not in (None, "xla"):
        raise ValueError(f"[dot_product_attention] Unsupported implementation option: "
                         f"{implementation!r} (Strata has 'xla' semantics only)")
    q_in = _jnp.asarray(query)
    out_shape = tuple(q_in.shape)
    q = _ensure_4d(q_in, "query")
    k = _ensure_4d(key, "key")
    v = _ensure_4d(value, "value")
    bias = _ensure_4d(bias, "bias")
    mask = _ensure_4d(mask, "mask")
    B, S, K, H = k.shape
    T, N = q.shape[1], q.shape[2]
    if tuple(v.shape) != tuple(k.shape):
        raise ValueError(f"[dot_product_attention] key and value must have the same shape, got "
                         f"{k.type_str()} and {v.type_str()}")
    if q.shape[0] != B or q.shape[-1] != H:
        raise ValueError(f"[dot_product_attention] query {q.type_str()} does not match key "
                         f"{k.type_str()} in batch or head dimension")
    if N % K:
        raise ValueError(f"[dot_product_attention] the number of query heads ({N}) must be a "
                         f"multiple of the number of key/value heads ({K})")
    G = N // K
    scale = 1.0 / _np.sqrt(H) if scale is None else scale
    ldt = _jnp.promote_types(q.dtype, _np.float32)
    qg = _jnp.reshape(q, (B, T, K, G, H)).astype(ldt)
    logits = _jnp.einsum("btkgh,bskh->bkgts", qg, k.astype(ldt))
    logits = logits * _jnp.asarray(scale).astype(ldt)

    def grouped(t):
        tB, tN, tT, tS = t.shape
        if tN == 1:
            return _jnp.reshape(t, (tB, 1, 1, tT, tS))
        if tN != N:
            raise ValueError(f"[dot_product_attention] bias/mask head dimension {tN} must be 1 "
                             f"or {N}")
        return _jnp.reshape(t, (tB, K, G, tT, tS))

    if bias is not None:
        logits = (logits + grouped(bias)).astype(ldt)
    combined = None

    def conj(m, new):
        return new if m is None else m & new

    if mask is not None:
        combined = conj(combined, grouped(mask.astype(bool)))
    if is_causal:
        combined = conj(combined, _jnp.asarray(_np.tril(_np.ones((T, S), bool))))
    if local_window_size is not None:
        combined = conj(combined, _jnp.asarray(_window(T, S, local_window_size)))
    if query_seq_lengths is not None:
        ql = _jnp.asarray(query_seq_lengths)
        qm = _jnp.arange(T)[None, :] < ql[:, None]
        combined = conj(combined, _jnp.reshape(qm, (B, 1, 1, T, 1)))
    if key_value_seq_lengths is not None:
        kl = _jnp.asarray(key_value_seq_lengths)
        km = _jnp.arange(S)[None, :] < kl[:, None]
        combined = conj(combined, _jnp.reshape(km, (B, 1, 1, 1, S)))
    if combined is not None:
        big_neg = -0.7 * float(_np.finfo(_np.float32 if ldt == _np.float32 else ldt).max)
        combined = _jnp.broadcast_to(combined, logits.shape)
        logits = _jnp.where(combined, logits, _jnp.full(logits.shape, big_neg, ldt))
    probs = softmax(logits.astype(_np.float32) if ldt == _np.float32 else logits, axis=-1)
    probs = probs.astype(k.dtype)
    enc = _jnp.einsum("bkgts,bskh->btkgh", probs, v)
    if query_seq_lengths is not None:
        qm = (_jnp.arange(T)[None, :] < _jnp.asarray(query_seq_lengths)[:, None])
        enc = enc * _jnp.reshape(qm, (B, T, 1, 1, 1)).astype(enc.dtype)
    return _jnp.reshape(enc, out_shape)


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=_np.float32):
    """Block-scaled batched matmul: (lhs * scales) @ (rhs * scales)^T with lhs (B, M, K), rhs
    (B, N, K) and scales (B, M | N, K // block), each scale covering a block of K."""
    lhs, rhs = _jnp.asarray(lhs), _jnp.asarray(rhs)
    ls, rs = _jnp.asarray(lhs_scales), _jnp.asarray(rhs_scales)
    if lhs.ndim != 3 or rhs.ndim != 3 or ls.ndim != 3 or rs.ndim != 3:
        raise ValueError(f"[scaled_matmul] operands and scales must be rank 3, got "
                         f"{lhs.type_str()}, {rhs.type_str()}, {ls.type_str()}, {rs.type_str()}")
    B, M, K = lhs.shape
    if rhs.shape[0] != B or rhs.shape[2] != K:
        raise ValueError(f"[scaled_matmul] lhs {lhs.type_str()} and rhs {rhs.type_str()} must "
                         f"agree in batch and contracting dimensions")
    if K % ls.shape[-1] or ls.shape[-1] != rs.shape[-1] or tuple(ls.shape[:2]) != (B, M) or \
            tuple(rs.shape[:2]) != tuple(rhs.shape[:2]):
        raise ValueError(f"[scaled_matmul] scales {ls.type_str()} and {rs.type_str()} do not "
                         f"tile {lhs.type_str()} and {rhs.type_str()} in blocks of K")
    block = K // ls.shape[-1]
    out_t = _np.dtype(preferred_element_type) if preferred_element_type is not None \
        else _np.dtype("float32")

    def dequant(x, sc):
        sc = _jnp.reshape(_jnp.broadcast_to(sc.astype(out_t)[..., None], sc.shape + (block,)),
                          x.shape)
        return x.astype(out_t) * sc
    return _jnp.einsum("bmk,bnk->bmn", dequant(lhs, ls), dequant(rhs, rs))


__all__ = [
    "celu", "dot_product_attention", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu",
    "hard_swish", "hard_tanh", "identity", "initializers", "leaky_relu", "log1mexp",
    "log_sigmoid", "log_softmax", "logsumexp", "mish", "one_hot", "relu", "relu6", "scaled_matmul", "selu",
    "sigmoid", "silu", "soft_sign", "softmax", "softplus", "sparse_plus", "sparse_sigmoid",
    "squareplus", "standardize", "swish", "tanh", "layer_norm", "rms_norm"]
