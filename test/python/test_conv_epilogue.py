"""Bias and activation epilogues folded into jitted convolutions (strata-conv-to-runtime's
strata_rt_conv_epilogue): values against PyTorch and the eager primitives, on oneDNN (f32) and
im2col (f64) paths, gradients of a conv layer under jit against eager and PyTorch, and the
epilogues that must not fold."""
import numpy as np
import pytest

import strata
import strata.numpy as jnp
from strata import lax, nn

torch = pytest.importorskip("torch")
F = torch.nn.functional
rng = np.random.default_rng(0)

ACTS = {
    "relu": (nn.relu, F.relu),
    "relu6": (nn.relu6, lambda t: F.hardtanh(t, 0.0, 6.0)),
    "clip": (lambda v: jnp.clip(v, -0.5, 1.5), lambda t: torch.clamp(t, -0.5, 1.5)),
    "leaky_relu": (nn.leaky_relu, lambda t: F.leaky_relu(t, 0.01)),
    "tanh": (jnp.tanh, torch.tanh),
    "sigmoid": (nn.sigmoid, torch.sigmoid),
    "silu": (nn.silu, F.silu),
    "gelu_tanh": (nn.gelu, lambda t: F.gelu(t, approximate="tanh")),
    "none": (lambda v: v, lambda t: t),
}


@pytest.fixture
def x64():
    strata.config.update("jax_enable_x64", True)
    yield
    strata.config.update("jax_enable_x64", False)


def fused_call(f, *args):
    return "strata_rt_conv_epilogue" in strata.jit(f).lower(*args).as_text("linalg")


def torch_layer(x, w, b, stride, groups, act):
    t = F.conv2d(torch.tensor(x, dtype=torch.float64), torch.tensor(w, dtype=torch.float64),
                 torch.tensor(b, dtype=torch.float64), stride=stride, padding=1, groups=groups)
    return act(t).numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("act", sorted(ACTS))
@pytest.mark.parametrize("stride,groups", [(1, 1), (2, 1), (1, 2)])
def test_folded_epilogue_matches_torch_and_eager(x64, dtype, act, stride, groups):
    ours, theirs = ACTS[act]
    x = rng.standard_normal((3, 4, 7, 6)).astype(dtype)
    w = rng.standard_normal((6, 4 // groups, 3, 3)).astype(dtype)
    b = rng.standard_normal(6).astype(dtype)

    def layer(x, w, b):
        y = lax.conv_general_dilated(x, w, (stride, stride), [(1, 1), (1, 1)],
                                     feature_group_count=groups)
        return ours(y + b.reshape(1, -1, 1, 1))
    assert fused_call(layer, x, w, b)
    got = np.asarray(strata.jit(layer)(x, w, b))
    assert got.dtype == dtype
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, torch_layer(x, w, b, stride, groups, theirs), rtol=tol,
                               atol=tol * 10)
    np.testing.assert_allclose(got, np.asarray(layer(x, w, b)), rtol=tol, atol=tol)


@pytest.mark.parametrize("act", ["relu", "gelu_tanh", "leaky_relu"])
def test_nhwc_bias_along_last_dim(act):
    ours, theirs = ACTS[act]
    x = rng.standard_normal((2, 9, 8, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 5)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    dn = ("NHWC", "HWIO", "NHWC")

    def layer(x, w, b):
        return ours(lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=dn) + b)
    assert fused_call(layer, x, w, b)
    want = torch_layer(x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1), b, 1, 1, theirs)
    np.testing.assert_allclose(np.asarray(strata.jit(layer)(x, w, b)), want.transpose(0, 2, 3, 1),
                               rtol=2e-5, atol=2e-4)


def test_window_larger_than_output_and_single_feature():
    # The kernel covers more positions than the output: oneDNN's weight-gradient form, which
    # takes no post-ops, so the epilogue runs over its output afterwards.
    x = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    w = rng.standard_normal((1, 3, 4, 4)).astype(np.float32)
    b = rng.standard_normal(1).astype(np.float32)

    def layer(x, w, b):
        return nn.silu(lax.conv_general_dilated(x, w, (1, 1), "VALID") + b.reshape(1, 1, 1, 1))
    assert fused_call(layer, x, w, b)
    want = F.silu(F.conv2d(torch.tensor(x), torch.tensor(w), torch.tensor(b))).numpy()
    np.testing.assert_allclose(np.asarray(strata.jit(layer)(x, w, b)), want, rtol=1e-5,
                               atol=1e-5)


def test_conv1d_bias_tanh():
    x = rng.standard_normal((4, 2, 17)).astype(np.float32)
    w = rng.standard_normal((3, 2, 5)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)

    def layer(x, w, b):
        return jnp.tanh(lax.conv_general_dilated(x, w, (2,), [(2, 2)]) + b[None, :, None])
    assert fused_call(layer, x, w, b)
    want = torch.tanh(F.conv1d(torch.tensor(x), torch.tensor(w), torch.tensor(b), stride=2,
                               padding=2)).numpy()
    np.testing.assert_allclose(np.asarray(strata.jit(layer)(x, w, b)), want, rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("act", ["relu", "silu", "gelu_tanh"])
def test_value_and_grad_of_conv_layer_jit_matches_eager_and_torch(act):
    ours, theirs = ACTS[act]
    x = rng.standard_normal((4, 3, 8, 8)).astype(np.float32)
    w = rng.standard_normal((5, 3, 3, 3)).astype(np.float32) * 0.3
    b = rng.standard_normal(5).astype(np.float32)

    def loss(x, w, b):
        y = ours(lax.conv_general_dilated(x, w, (1, 1), "SAME") + b.reshape(1, -1, 1, 1))
        return jnp.sum(y * y)
    vg = strata.value_and_grad(loss, argnums=(0, 1, 2))
    assert fused_call(vg, x, w, b)
    (v, grads), (ve, grads_e) = strata.jit(vg)(x, w, b), vg(x, w, b)
    tx, tw, tb = (torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (x, w, b))
    ty = theirs(F.conv2d(tx, tw, tb, padding=1))
    tl = (ty * ty).sum()
    tl.backward()
    np.testing.assert_allclose(float(v), float(ve), rtol=1e-5)
    np.testing.assert_allclose(float(v), tl.item(), rtol=1e-5)
    for g, ge, t in zip(grads, grads_e, (tx, tw, tb)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(ge), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(np.asarray(g), t.grad.numpy(), rtol=1e-4, atol=1e-3)


def test_unrecognised_epilogues_keep_their_fusion():
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)

    # A bias along the last spatial dimension is no feature bias; float16 results are not
    # folded (the fusion rounds between the ops).
    def along_width(x, w, b):
        return nn.relu(lax.conv_general_dilated(x, w, (1, 1), "SAME") + b)

    def half(x, w):
        return nn.relu(lax.conv_general_dilated(x, w, (1, 1), "SAME"))
    xh, wh = x.astype(np.float16), w.astype(np.float16)
    assert not fused_call(along_width, x, w, b)
    assert not fused_call(half, xh, wh)
    np.testing.assert_allclose(np.asarray(strata.jit(along_width)(x, w, b)),
                               np.asarray(along_width(x, w, b)), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(strata.jit(half)(xh, wh)).astype(np.float32),
                               np.asarray(half(xh, wh)).astype(np.float32), rtol=1e-3, atol=1e-3)


def test_elu_folds_only_its_bias():
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)

    def layer(x, w, b):
        return nn.elu(lax.conv_general_dilated(x, w, (1, 1), "SAME") + b.reshape(1, -1, 1, 1))
    text = strata.jit(layer).lower(x, w, b).as_text("linalg")
    assert "strata_rt_conv_epilogue" in text and "expm1" in text
    want = F.elu(F.conv2d(torch.tensor(x), torch.tensor(w), torch.tensor(b), padding=1)).numpy()
    np.testing.assert_allclose(np.asarray(strata.jit(layer)(x, w, b)), want, rtol=1e-5,
                               atol=1e-5)


def test_slopes_that_print_alike_get_their_own_oneDNN_primitive():
    x = np.ones((1, 4, 5, 5), np.float32)
    w = np.full((2, 4, 3, 3), -3.0, np.float32)
    want_conv = F.conv2d(torch.tensor(x, dtype=torch.float64),
                         torch.tensor(w, dtype=torch.float64), padding=1).numpy()
    for slope in (0.1, 0.1000004):
        def layer(x, w):
            return nn.leaky_relu(lax.conv_general_dilated(x, w, (1, 1), "SAME"), slope)
        assert fused_call(layer, x, w)
        want = np.where(want_conv >= 0, want_conv, want_conv * np.float32(slope))
        np.testing.assert_allclose(np.asarray(strata.jit(layer)(x, w)), want, rtol=3e-7)
