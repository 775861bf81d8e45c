"""strata.nn (jax.nn's names) and strata.nn.initializers against numpy / scipy
references, finite differences, per-example loops and eager runs."""

import numpy as np
import pytest
import scipy.special
import scipy.stats

import strata
import strata.numpy as jnp
from strata import nn, random
from strata.nn import initializers as init
from conftest import numerical_grad

rng = np.random.default_rng(0)
# Points away from every kink (0, +-1, 6, -3, 3) so finite differences are meaningful.
X = np.array([-7.3, -3.4, -2.5, -1.6, -0.7, -0.3, 0.2, 0.6, 1.3, 2.2, 3.6, 5.1, 6.8],
             np.float32)


def close(got, want, rtol=1e-5, atol=1e-6):
    got = np.asarray(got)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


SELU_A, SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
expit = scipy.special.expit


def softplus(x):
    return np.logaddexp(x, 0.0)


def elu(x, a=1.0):
    return np.where(x > 0, x, a * np.expm1(np.minimum(x, 0)))


def hard_sigmoid(x):
    return np.clip(x + 3, 0, 6) / 6


def glu(x, axis=-1):
    a, b = np.split(x, 2, axis)
    return a * expit(b)


# float64 numpy references written from the published definitions.
ACTIVATIONS = {
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
    "sigmoid": expit,
    "silu": lambda x: x * expit(x),
    "swish": lambda x: x * expit(x),
    "softplus": softplus,
    "soft_sign": lambda x: x / (1 + np.abs(x)),
    "log_sigmoid": scipy.special.log_expit,
    "elu": elu,
    "leaky_relu": lambda x: np.where(x >= 0, x, 0.01 * x),
    "hard_tanh": lambda x: np.clip(x, -1, 1),
    "celu": lambda x: np.maximum(x, 0) + np.expm1(np.minimum(x, 0)),
    "selu": lambda x: SELU_S * elu(x, SELU_A),
    "gelu": lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
    "mish": lambda x: x * np.tanh(softplus(x)),
    "hard_sigmoid": hard_sigmoid,
    "hard_silu": lambda x: x * hard_sigmoid(x),
    "hard_swish": lambda x: x * hard_sigmoid(x),
    "tanh": np.tanh,
    "identity": lambda x: np.asarray(x, np.float64),
    "sparse_plus": lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)),
    "sparse_sigmoid": lambda x: np.where(x <= -1, 0, np.where(x >= 1, 1, (x + 1) / 2)),
    "squareplus": lambda x: (x + np.sqrt(x * x + 4)) / 2,
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_values_and_grads(name):
    f, ref = getattr(nn, name), ACTIVATIONS[name]
    close(f(X), ref(X.astype(np.float64)), rtol=2e-5, atol=2e-6)
    g = strata.grad(lambda x: jnp.sum(f(x)))(X)
    close(g, numerical_grad(lambda v: np.sum(ref(v)), X), rtol=1e-4, atol=1e-5)


def test_log1mexp():
    x = np.array([1e-3, 0.3, 0.69, 0.7, 2.0, 30.0], np.float32)
    want = np.log(-np.expm1(-x.astype(np.float64)))
    close(nn.log1mexp(x), want, rtol=1e-5)
    g = strata.grad(lambda v: jnp.sum(nn.log1mexp(v)))(x[1:5])
    close(g, 1 / np.expm1(x[1:5].astype(np.float64)), rtol=1e-4)


def test_gelu_exact_and_parameters():
    close(nn.gelu(X, approximate=False), X * scipy.stats.norm.cdf(X.astype(np.float64)),
          rtol=2e-5, atol=1e-6)
    close(nn.elu(X, alpha=0.5), np.where(X > 0, X, 0.5 * np.expm1(X)), rtol=1e-5)
    close(nn.celu(X, alpha=2.0), np.maximum(X, 0) + 2.0 * np.expm1(np.minimum(X, 0) / 2.0),
          rtol=1e-5)
    close(nn.leaky_relu(X, negative_slope=0.2), np.where(X >= 0, X, 0.2 * X), rtol=1e-6)
    close(nn.squareplus(X, b=1.0), (X + np.sqrt(X * X + 1)) / 2, rtol=1e-6)
    close(nn.selu(X), SELU_S * np.where(X > 0, X, SELU_A * np.expm1(X)), rtol=1e-5)


def test_relu_family_derivative_at_kinks_is_zero():
    x = jnp.asarray([0.0, 6.0, -3.0])
    close(strata.grad(lambda v: jnp.sum(nn.relu(v)))(x), [0.0, 1.0, 0.0])
    close(strata.grad(lambda v: jnp.sum(nn.relu6(v)))(x), [0.0, 0.0, 0.0])
    close(strata.grad(lambda v: jnp.sum(nn.hard_sigmoid(v)))(x), [1 / 6, 0.0, 0.0])


def test_integer_inputs_promote_to_float():
    assert nn.sigmoid(jnp.asarray([1, 2])).dtype == np.float32
    assert nn.softplus(3).dtype == np.float32
    with pytest.raises(TypeError, match=r"\[silu\]"):
        nn.silu([1.0, 2.0])


def test_glu():
    a = rng.standard_normal((3, 6)).astype(np.float32)
    close(nn.glu(a), glu(a.astype(np.float64)), rtol=1e-5)
    close(nn.glu(a.T, axis=0), glu(a.T.astype(np.float64), 0), rtol=1e-5)
    with pytest.raises(ValueError, match=r"\[glu\]"):
        nn.glu(np.ones((2, 3), np.float32))
    g = strata.grad(lambda v: jnp.sum(nn.glu(v) ** 2))(a)
    close(g, numerical_grad(lambda v: np.sum(glu(v) ** 2), a),
          rtol=1e-3, atol=1e-4)


A = rng.standard_normal((3, 5)).astype(np.float32)
M = rng.random((3, 5)) > 0.3


@pytest.mark.parametrize("axis", [-1, 0, (0, 1), None])
def test_softmax_and_log_softmax(axis):
    ax = tuple(range(2)) if axis is None else axis
    close(nn.softmax(A, axis=axis), scipy.special.softmax(A.astype(np.float64), axis=ax),
          rtol=1e-5)
    close(nn.log_softmax(A, axis=axis), scipy.special.log_softmax(A.astype(np.float64), axis=ax),
          rtol=1e-5, atol=1e-5)
    w = rng.standard_normal(A.shape)
    g = strata.grad(lambda v: jnp.sum(nn.softmax(v, axis=axis) * w))(A)
    close(g, numerical_grad(lambda v: np.sum(scipy.special.softmax(v, axis=ax) * w), A),
          rtol=1e-3, atol=1e-5)


def test_softmax_where_and_initial():
    e = np.where(M, np.exp(A - A.max(-1, keepdims=True)), 0.0)
    want = e / e.sum(-1, keepdims=True)
    close(nn.softmax(A, where=M), want, rtol=1e-5)
    close(nn.softmax(A, where=M, initial=-np.inf), want, rtol=1e-5)
    lw = np.where(M, np.log(np.where(want > 0, want, 1.0)), -np.inf)
    close(nn.log_softmax(A, where=M, initial=0.0), lw, rtol=1e-5, atol=1e-5)
    g = strata.grad(lambda v: jnp.sum(nn.softmax(v, where=M) * A))(A)
    close(g, numerical_grad(lambda v: np.sum(np.where(M, (lambda e: e / e.sum(-1, keepdims=True))(
        np.where(M, np.exp(v), 0.0)), 0.0) * A), A), rtol=1e-3, atol=1e-5)


def test_logsumexp_variants():
    close(nn.logsumexp(A), scipy.special.logsumexp(A.astype(np.float64)), rtol=1e-6)
    close(nn.logsumexp(A, axis=1, keepdims=True),
          scipy.special.logsumexp(A.astype(np.float64), axis=1, keepdims=True), rtol=1e-6)
    b = rng.random(A.shape).astype(np.float32)
    close(nn.logsumexp(A, axis=0, b=b), scipy.special.logsumexp(A, axis=0, b=b), rtol=1e-5)
    bs = b - 0.6
    v, s = nn.logsumexp(A, axis=1, b=bs, return_sign=True)
    wv, ws = scipy.special.logsumexp(A, axis=1, b=bs, return_sign=True)
    close(v, wv, rtol=1e-4)
    close(s, ws)
    assert np.array_equal(np.isnan(np.asarray(nn.logsumexp(A, axis=1, b=bs))), ws < 0)
    close(nn.logsumexp(A, axis=1, where=M),
          [scipy.special.logsumexp(A[i][M[i]]) for i in range(3)], rtol=1e-5)
    g = strata.grad(lambda v: nn.logsumexp(v, b=b))(A)
    close(g, numerical_grad(lambda v: scipy.special.logsumexp(v, b=b), A), rtol=1e-4, atol=1e-6)


def test_standardize():
    want = (A - A.mean(-1, keepdims=True)) / np.sqrt(A.var(-1, keepdims=True) + 1e-5)
    close(nn.standardize(A), want, rtol=1e-4, atol=1e-5)
    close(nn.standardize(A, axis=0, epsilon=0.1),
          (A - A.mean(0)) / np.sqrt(A.var(0) + 0.1), rtol=1e-4, atol=1e-5)
    close(nn.standardize(A, mean=0.5, variance=2.0), (A - 0.5) / np.sqrt(2.0 + 1e-5), rtol=1e-5)
    row = [(A[i] - A[i][M[i]].mean()) / np.sqrt(A[i][M[i]].var() + 1e-5) for i in range(3)]
    close(nn.standardize(A, where=M), np.stack(row), rtol=1e-4, atol=1e-4)
    g = strata.grad(lambda v: jnp.sum(nn.standardize(v) * A))(A)
    ref = lambda v: np.sum((v - v.mean(-1, keepdims=True)) /  # noqa: E731
                           np.sqrt(v.var(-1, keepdims=True) + 1e-5) * A)
    close(g, numerical_grad(ref, A), rtol=1e-3, atol=1e-4)


def test_one_hot():
    x = np.array([[0, 2], [3, 1]])
    close(nn.one_hot(x, 4), np.eye(4)[x])
    assert nn.one_hot(x, 4).dtype == np.float32
    close(nn.one_hot(x, 4, axis=0), np.moveaxis(np.eye(4)[x], -1, 0))
    close(nn.one_hot(x, 4, axis=1), np.moveaxis(np.eye(4)[x], -1, 1))
    assert nn.one_hot(x, 3, dtype=jnp.int32).dtype == np.int32
    close(nn.one_hot(np.array([5, -1]), 3), np.zeros((2, 3)))
    with pytest.raises(TypeError):
        nn.one_hot(x, 4, jnp.int32)  # dtype is keyword-only, as in JAX


def ref_attention(q, k, v, bias=None, mask=None, scale=None, causal=False, qlen=None, kvlen=None,
                  window=None):
    """Attention in float64 numpy, heads repeated for grouped queries."""
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    B, T, N, H = q.shape
    S, K = k.shape[1], k.shape[2]
    k = np.repeat(k, N // K, axis=2)
    v = np.repeat(v, N // K, axis=2)
    s = np.einsum("btnh,bsnh->bnts", q, k) * (1 / np.sqrt(H) if scale is None else scale)
    if bias is not None:
        s = s + bias
    ok = np.ones(s.shape, bool)
    if mask is not None:
        ok &= mask
    if causal:
        ok &= np.tril(np.ones((T, S), bool))
    if window is not None:
        i, j = np.arange(T)[:, None], np.arange(S)[None, :]
        ok &= (j >= i - window[0]) & (j <= i + window[1])
    if kvlen is not None:
        ok &= (np.arange(S)[None, :] < np.asarray(kvlen)[:, None])[:, None, None, :]
    if qlen is not None:
        ok &= (np.arange(T)[None, :] < np.asarray(qlen)[:, None])[:, None, :, None]
    s = np.where(ok, s, -0.7 * np.finfo(np.float32).max)
    p = scipy.special.softmax(s, axis=-1)
    out = np.einsum("bnts,bsnh->btnh", p, v)
    if qlen is not None:
        out = out * (np.arange(T)[None, :] < np.asarray(qlen)[:, None])[:, :, None, None]
    return out


QA = rng.standard_normal((2, 5, 4, 8)).astype(np.float32)
KA = rng.standard_normal((2, 6, 2, 8)).astype(np.float32)
VA = rng.standard_normal((2, 6, 2, 8)).astype(np.float32)


@pytest.mark.parametrize("kw", [
    {}, {"scale": 0.3}, {"causal": True}, {"window": (1, 2)}, {"qlen": [3, 5], "kvlen": [6, 2]},
    {"bias": True}, {"mask": True}])
def test_dot_product_attention(kw):
    bias = rng.standard_normal((2, 4, 5, 6)).astype(np.float32) if kw.get("bias") else None
    mask = (rng.random((2, 1, 5, 6)) > 0.3) if kw.get("mask") else None
    got = nn.dot_product_attention(
        QA, KA, VA, bias=bias, mask=mask, scale=kw.get("scale"), is_causal=kw.get("causal", False),
        query_seq_lengths=None if "qlen" not in kw else jnp.asarray(kw["qlen"]),
        key_value_seq_lengths=None if "kvlen" not in kw else jnp.asarray(kw["kvlen"]),
        local_window_size=kw.get("window"))
    want = ref_attention(QA, KA, VA, bias, mask, kw.get("scale"), kw.get("causal", False),
                         kw.get("qlen"), kw.get("kvlen"), kw.get("window"))
    close(got, want, rtol=1e-4, atol=1e-5)


def test_dot_product_attention_rank3_grad_vmap_jit():
    q, k, v = QA[0], KA[0], VA[0]
    close(nn.dot_product_attention(q, k, v), ref_attention(q[None], k[None], v[None])[0],
          rtol=1e-4, atol=1e-5)
    g = strata.grad(lambda qq: jnp.sum(nn.dot_product_attention(qq, k, v) ** 2))(q)
    ref = lambda qq: np.sum(ref_attention(qq[None], k[None], v[None]) ** 2)  # noqa: E731
    close(g, numerical_grad(ref, q), rtol=2e-3, atol=2e-4)
    vm = strata.vmap(lambda a, b, c: nn.dot_product_attention(a, b, c, is_causal=True))(QA, KA, VA)
    close(vm, np.stack([np.asarray(nn.dot_product_attention(QA[i], KA[i], VA[i], is_causal=True))
                        for i in range(2)]), rtol=1e-5, atol=1e-6)
    j = strata.jit(lambda a, b, c: nn.dot_product_attention(a, b, c))(QA, KA, VA)
    close(j, nn.dot_product_attention(QA, KA, VA), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"\[dot_product_attention\]"):
        nn.dot_product_attention(QA[:, :, :3], KA, VA)


def test_activations_under_vmap_and_jit():
    a = rng.standard_normal((4, 6)).astype(np.float32)
    for f in (nn.gelu, nn.mish, nn.selu, lambda x: nn.softmax(x, where=x > 0),
              lambda x: nn.logsumexp(x, axis=-1), nn.standardize, nn.glu):
        close(strata.vmap(f)(a), np.stack([np.asarray(f(r)) for r in a]), rtol=1e-5, atol=1e-6)
        close(strata.jit(f)(a), f(a), rtol=1e-5, atol=1e-6)


def test_legacy_strata_names():
    close(nn.layer_norm(A), (A - A.mean(-1, keepdims=True)) / np.sqrt(A.var(-1, keepdims=True)
                                                                      + 1e-5), rtol=1e-4,
          atol=1e-5)
    close(nn.rms_norm(A), A / np.sqrt((A * A).mean(-1, keepdims=True) + 1e-6), rtol=1e-4)


# ---- initializers -------------------------------------------------------------------------------

KEY = random.PRNGKey(42)


def test_initializer_names():
    names = ["constant", "Initializer", "delta_orthogonal", "glorot_normal", "glorot_uniform",
             "he_normal", "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal",
             "lecun_uniform", "normal", "ones", "orthogonal", "truncated_normal", "uniform",
             "variance_scaling", "xavier_normal", "xavier_uniform", "zeros"]
    assert all(hasattr(init, n) for n in names)
    assert init.xavier_uniform is init.glorot_uniform and init.kaiming_normal is init.he_normal


def test_simple_initializers():
    close(init.zeros(KEY, (2, 3)), np.zeros((2, 3)))
    close(init.ones(KEY, (2,), jnp.int32), np.ones(2))
    assert init.ones(KEY, (2,), jnp.int32).dtype == np.int32
    close(init.constant(-2.5)(KEY, (3,)), np.full(3, -2.5))
    u = np.asarray(random.uniform(KEY, (4, 5)))
    close(init.uniform(0.3)(KEY, (4, 5)), u * np.float32(0.3), rtol=1e-6)
    close(init.normal(0.2)(KEY, (4, 5)), np.asarray(random.normal(KEY, (4, 5))) * np.float32(0.2),
          rtol=1e-6)
    tn = init.truncated_normal(0.5, lower=-1.0, upper=1.5)(KEY, (1000,))
    assert np.all(np.asarray(tn) > -0.5) and np.all(np.asarray(tn) < 0.75)
    assert init.uniform()(KEY, (2,), jnp.float16).dtype == np.float16


def fans(shape, in_axis=-2, out_axis=-1, batch_axis=()):
    """JAX's fan formula written out for the test."""
    def size(ax):
        return shape[ax] if isinstance(ax, int) else int(np.prod([shape[i] for i in ax]))
    rf = np.prod(shape) / size(in_axis) / size(out_axis) / size(batch_axis)
    return size(in_axis) * rf, size(out_axis) * rf


@pytest.mark.parametrize("name,scale,mode,dist", [
    ("glorot_uniform", 1.0, "fan_avg", "uniform"), ("glorot_normal", 1.0, "fan_avg", "tn"),
    ("lecun_uniform", 1.0, "fan_in", "uniform"), ("lecun_normal", 1.0, "fan_in", "tn"),
    ("he_uniform", 2.0, "fan_in", "uniform"), ("he_normal", 2.0, "fan_in", "tn")])
def test_variance_scaling_family_bits(name, scale, mode, dist):
    shape = (3, 3, 16, 32)
    fi, fo = fans(shape)
    den = {"fan_in": fi, "fan_out": fo, "fan_avg": (fi + fo) / 2}[mode]
    var = np.float32(scale / den)
    got = getattr(init, name)()(KEY, shape)
    if dist == "uniform":
        want = np.asarray(random.uniform(KEY, shape, minval=-1.0)) * np.sqrt(np.float32(3) * var)
    else:
        want = np.asarray(random.truncated_normal(KEY, -2, 2, shape)) * \
            (np.sqrt(var) / np.float32(.87962566103423978))
    close(got, want, rtol=1e-6, atol=1e-7)
    # The sample variance matches the formula.
    big = np.asarray(getattr(init, name)()(random.PRNGKey(1), (64, 48, 32)))
    fi, fo = fans((64, 48, 32))
    den = {"fan_in": fi, "fan_out": fo, "fan_avg": (fi + fo) / 2}[mode]
    assert abs(big.var() / (scale / den) - 1) < 0.03


def test_variance_scaling_axes_and_errors():
    shape = (4, 5, 6, 7)
    f = init.variance_scaling(1.0, "fan_out", "normal", in_axis=(0, 1), out_axis=2, batch_axis=3)
    fi, fo = fans(shape, (0, 1), 2, 3)
    assert (fi, fo) == (20.0, 6.0)
    close(f(KEY, shape), np.asarray(random.normal(KEY, shape)) * np.sqrt(np.float32(1.0 / fo)),
          rtol=1e-6)
    with pytest.raises(ValueError, match="mode"):
        init.variance_scaling(1.0, "fan_bad", "normal")
    with pytest.raises(ValueError, match="distribution"):
        init.variance_scaling(1.0, "fan_in", "cauchy")
    with pytest.raises(ValueError, match="at least 2D"):
        init.glorot_uniform()(KEY, (5,))


@pytest.mark.parametrize("shape,axis", [((6, 4), -1), ((4, 6), -1), ((3, 2, 5), -1),
                                        ((5, 3), 0)])
def test_orthogonal_initializer(shape, axis):
    w = np.asarray(init.orthogonal(scale=2.0, column_axis=axis)(KEY, shape), np.float64)
    m = np.moveaxis(w, axis, -1).reshape(-1, shape[axis])
    small = min(m.shape)
    gram = m.T @ m if m.shape[0] >= m.shape[1] else m @ m.T
    close(gram, 4.0 * np.eye(small), rtol=1e-5, atol=1e-5)
    # JAX's algorithm with numpy's QR on the same normal bits: Q * sign(diag R).
    n_rows, n_cols = int(np.prod(shape)) // shape[axis], shape[axis]
    ms = (n_cols, n_rows) if n_rows < n_cols else (n_rows, n_cols)
    a = np.asarray(random.normal(KEY, ms), np.float64)
    q, r = np.linalg.qr(a)
    q = q * np.sign(np.diag(r))
    if n_rows < n_cols:
        q = q.T
    rest = tuple(s for i, s in enumerate(shape) if i != axis % len(shape))
    want = 2.0 * np.moveaxis(q.reshape(rest + (shape[axis],)), -1, axis)
    close(w, want, rtol=1e-4, atol=1e-5)


def test_delta_orthogonal():
    w = np.array(init.delta_orthogonal()(KEY, (3, 3, 4, 6)))
    centre = w[1, 1].copy()
    close(centre @ centre.T, np.eye(4), rtol=1e-5, atol=1e-5)
    w[1, 1] = 0
    assert not w.any()
    close(init.delta_orthogonal()(KEY, (3, 4, 6))[1], centre)
    with pytest.raises(ValueError):
        init.delta_orthogonal()(KEY, (3, 6, 4))
    with pytest.raises(ValueError):
        init.delta_orthogonal()(KEY, (6, 4))


def test_initializers_jit_and_typed_key():
    f = init.he_normal()
    close(strata.jit(lambda k: f(k, (8, 4)))(KEY), f(KEY, (8, 4)), rtol=1e-6)
    close(f(random.key(42), (8, 4)), f(KEY, (8, 4)))


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16])
def test_activations_keep_low_precision_dtypes(dtype):
    x = jnp.asarray(np.array([-1.5, 0.3, 2.0], np.float32)).astype(dtype)
    for name in sorted(ACTIVATIONS) + ["log1mexp", "softmax", "log_softmax", "logsumexp",
                                       "standardize"]:
        y = getattr(nn, name)(x)
        assert y.dtype == x.dtype, name
        ref = ACTIVATIONS.get(name)
        if ref is not None:
            close(np.asarray(y.astype(np.float32)), ref(np.asarray(x.astype(np.float32),
                                                                   np.float64)),
                  rtol=2e-2, atol=2e-2)
    assert nn.gelu(x, approximate=False).dtype == x.dtype


def test_scaled_matmul():
    lhs = rng.standard_normal((2, 3, 8)).astype(np.float32)
    rhs = rng.standard_normal((2, 5, 8)).astype(np.float32)
    ls = rng.random((2, 3, 2)).astype(np.float32) + 0.5
    rs = rng.random((2, 5, 2)).astype(np.float32) + 0.5
    want = np.einsum("bmk,bnk->bmn", lhs * np.repeat(ls, 4, axis=-1),
                     rhs * np.repeat(rs, 4, axis=-1))
    close(nn.scaled_matmul(lhs, rhs, ls, rs), want, rtol=1e-5, atol=1e-5)
    g = strata.grad(lambda a: jnp.sum(nn.scaled_matmul(a, rhs, ls, rs)))(lhs)
    close(g, np.repeat(ls, 4, -1) * np.sum(rhs * np.repeat(rs, 4, -1), axis=1)[:, None, :],
          rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"\[scaled_matmul\]"):
        nn.scaled_matmul(lhs, rhs, ls[..., :1], rs)


def test_one_hot_relu_and_initializers_under_transforms():
    idx = np.array([[0, 3, 1], [2, 2, 0]])
    close(strata.vmap(lambda i: nn.one_hot(i, 4, axis=0))(idx),
          np.stack([np.asarray(nn.one_hot(i, 4, axis=0)) for i in idx]))
    close(strata.jit(lambda i: nn.one_hot(i, 4))(idx), np.eye(4)[idx])
    x = np.array([[-1.0, 0.0, 2.0], [3.0, -0.5, 0.0]], np.float32)
    gv = strata.vmap(strata.grad(lambda r: jnp.sum(nn.relu(r) * r)))(x)
    close(gv, np.where(x > 0, 2 * x, 0.0))
    _, tangent = strata.jvp(nn.relu6, (x,), (np.ones_like(x),))
    close(tangent, ((x > 0) & (x < 6)).astype(np.float32))
    ks = random.split(random.PRNGKey(0), 3)
    w = strata.vmap(lambda k: init.glorot_normal()(k, (4, 5)))(ks)
    close(w, np.stack([np.asarray(init.glorot_normal()(ks[i], (4, 5))) for i in range(3)]),
          rtol=1e-6)
