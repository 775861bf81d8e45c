"""strata.lax's convolutions and jnp.convolve/correlate against PyTorch and numpy: values,
gradients, string padding and dimension numbers, conv_transpose, and JAX's errors."""
import numpy as np
import pytest

import strata
import strata.numpy as jnp
from strata import lax

torch = pytest.importorskip("torch")
F = torch.nn.functional
rng = np.random.default_rng(0)


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("stride,padding,dilation,groups", [
    (1, 1, 1, 1), (2, 0, 1, 1), (1, 2, 2, 1), (2, 1, 1, 2), (1, 1, 1, 4)])
def test_conv2d_matches_torch_values_and_gradients(stride, padding, dilation, groups):
    x, w = rand(3, 4, 9, 8), rand(8, 4 // groups, 3, 3)
    tx = torch.tensor(x, requires_grad=True)
    tw = torch.tensor(w, requires_grad=True)
    ty = F.conv2d(tx, tw, stride=stride, padding=padding, dilation=dilation, groups=groups)

    def f(a, b):
        return lax.conv_general_dilated(a, b, (stride, stride), [(padding, padding)] * 2,
                                        rhs_dilation=(dilation, dilation),
                                        feature_group_count=groups)
    y = f(jnp.asarray(x), jnp.asarray(w))
    np.testing.assert_allclose(np.asarray(y), ty.detach().numpy(), rtol=1e-4, atol=1e-4)
    ct = rand(*ty.shape)
    ty.backward(torch.tensor(ct))
    gx, gw = strata.grad(lambda a, b: jnp.sum(f(a, b) * ct), argnums=(0, 1))(
        jnp.asarray(x), jnp.asarray(w))
    np.testing.assert_allclose(np.asarray(gx), tx.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(gw), tw.grad.numpy(), rtol=1e-4, atol=1e-3)


def test_conv1d_and_conv3d_match_torch():
    x, w = rand(2, 3, 11), rand(4, 3, 3)
    y = lax.conv_general_dilated(x, w, (2,), [(1, 1)], rhs_dilation=(2,))
    want = F.conv1d(torch.tensor(x), torch.tensor(w), stride=2, padding=1, dilation=2)
    np.testing.assert_allclose(np.asarray(y), want.numpy(), rtol=1e-4, atol=1e-5)
    x, w = rand(1, 2, 5, 4, 6), rand(3, 2, 2, 3, 2)
    y = lax.conv_general_dilated(x, w, (1, 1, 2), [(1, 0), (0, 1), (1, 1)])
    want = F.conv3d(F.pad(torch.tensor(x), (1, 1, 0, 1, 1, 0)), torch.tensor(w), stride=(1, 1, 2))
    np.testing.assert_allclose(np.asarray(y), want.numpy(), rtol=1e-4, atol=1e-5)


def test_string_dimension_numbers_and_padding():
    x, w = rand(2, 7, 6, 3), rand(3, 3, 3, 5)  # NHWC, HWIO
    y = lax.conv_general_dilated(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    assert y.shape == (2, 4, 3, 5)
    # SAME with strides 2 on 7 and 6: totals 2 and 1, the extra at the end.
    want = F.conv2d(F.pad(torch.tensor(x).permute(0, 3, 1, 2), (0, 1, 1, 1)),
                    torch.tensor(w).permute(3, 2, 0, 1), stride=2).permute(0, 2, 3, 1)
    np.testing.assert_allclose(np.asarray(y), want.numpy(), rtol=1e-4, atol=1e-5)
    low = lax.conv_general_dilated(x, w, (2, 2), "SAME_LOWER",
                                   dimension_numbers=("NHWC", "HWIO", "NHWC"))
    want = F.conv2d(F.pad(torch.tensor(x).permute(0, 3, 1, 2), (1, 0, 1, 1)),
                    torch.tensor(w).permute(3, 2, 0, 1), stride=2).permute(0, 2, 3, 1)
    np.testing.assert_allclose(np.asarray(low), want.numpy(), rtol=1e-4, atol=1e-5)
    dn = lax.conv_dimension_numbers(x.shape, w.shape, ("NHWC", "HWIO", "NHWC"))
    assert dn == lax.ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    y2 = lax.conv_general_dilated(x, w, (2, 2), "SAME", dimension_numbers=dn)
    np.testing.assert_array_equal(np.asarray(y2), np.asarray(y))
    v = lax.conv(rand(1, 3, 5, 5), rand(2, 3, 3, 3), (1, 1), "VALID")
    assert v.shape == (1, 2, 3, 3)


def test_conv_transpose_matches_torch():
    x, w = rand(2, 5, 6, 3), rand(3, 3, 3, 4)  # NHWC input, HWIO kernel
    for padding in ["SAME", "VALID"]:
        y = lax.conv_transpose(x, w, (2, 2), padding)
        assert y.shape == ((2, 10, 12, 4) if padding == "SAME" else (2, 11, 13, 4))
    # transpose_kernel: the gradient of the forward convolution with respect to its input.
    wf, gt = rand(5, 4, 3, 3), rand(2, 5, 4, 4)
    y = lax.conv_transpose(gt, wf, (2, 2), [(2, 2), (2, 2)],
                           dimension_numbers=("NCHW", "OIHW", "NCHW"), transpose_kernel=True)
    want = F.conv_transpose2d(torch.tensor(gt), torch.tensor(wf), stride=2)
    assert y.shape == (2, 4, 9, 9)
    np.testing.assert_allclose(np.asarray(y), want.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_and_correlate_match_numpy(mode):
    for n, m in [(7, 3), (3, 7), (5, 5), (1, 4), (6, 1)]:
        a, v = rng.standard_normal(n), rng.standard_normal(m)
        np.testing.assert_allclose(np.asarray(jnp.convolve(a, v, mode)),
                                   np.convolve(a, v, mode), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(np.asarray(jnp.correlate(a, v, mode)),
                                   np.correlate(a, v, mode), rtol=1e-5, atol=1e-5)
    assert jnp.convolve(np.arange(3), np.arange(2)).dtype == np.float32


def test_errors():
    x, w = rand(2, 4, 5, 5), rand(6, 4, 3, 3)
    with pytest.raises(TypeError, match="conv_general_dilated.*dtypes differ"):
        lax.conv_general_dilated(x, w.astype(np.float16), (1, 1), "VALID")
    with pytest.raises(TypeError, match="feature_group_count"):
        lax.conv_general_dilated(x, w, (1, 1), "VALID", feature_group_count=3)
    with pytest.raises(TypeError, match="exactly once"):
        lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NNHW", "OIHW", "NCHW"))
    with pytest.raises(ValueError, match="transposed convolution"):
        lax.conv_general_dilated(x, w, (1, 1), "SAME", lhs_dilation=(2, 2))
    with pytest.raises(ValueError, match=r"^\[convolve\] only 1-d inputs"):
        jnp.convolve(np.ones((2, 2)), np.ones(2))
    with pytest.raises(ValueError, match=r"^\[correlate\] mode must be"):
        jnp.correlate(np.ones(3), np.ones(2), "bad")


def test_stax_conv_layers_shapes_values_and_training():
    from strata import random
    from strata.example_libraries import stax
    init, apply = stax.serial(stax.Conv(4, (3, 3), padding="SAME"), stax.Relu,
                              stax.Conv(2, (3, 3), strides=(2, 2)), stax.Flatten, stax.Dense(3),
                              stax.LogSoftmax)
    out_shape, params = init(random.key(0), (5, 8, 8, 1))
    assert out_shape == (5, 3)
    x = jnp.asarray(rand(5, 8, 8, 1))
    W, b = params[0]
    assert W.shape == (3, 3, 1, 4) and b.shape == (1, 1, 1, 4)
    first = stax.Conv(4, (3, 3), padding="SAME")[1](params[0], x)
    want = F.conv2d(torch.tensor(np.asarray(x)).permute(0, 3, 1, 2),
                    torch.tensor(np.asarray(W)).permute(3, 2, 0, 1), padding=1)
    np.testing.assert_allclose(np.asarray(first - b), want.permute(0, 2, 3, 1).numpy(),
                               rtol=1e-4, atol=1e-5)
    labels = jnp.asarray(np.eye(3, dtype=np.float32)[[0, 1, 2, 0, 1]])

    def loss(p):
        return -jnp.mean(jnp.sum(apply(p, x) * labels, axis=1))
    before = float(loss(params))
    step = strata.jit(strata.grad(loss))
    for _ in range(20):
        g = step(params)
        params = strata.tree_util.tree_map(lambda p, d: p - 0.1 * d, params, g)
    assert float(loss(params)) < 0.5 * before
    for layer, shape in [(stax.Conv1D(3, (2,)), (2, 5, 3)),
                         (stax.ConvTranspose(3, (3, 3), strides=(2, 2)), (2, 11, 11, 3)),
                         (stax.Conv1DTranspose(3, (2,), padding="SAME"), (2, 6, 3))]:
        s, p = layer[0](random.key(1), (2, 6, 2) if len(shape) == 3 else (2, 5, 5, 2))
        assert s == shape
        assert layer[1](p, jnp.zeros((2, 6, 2) if len(shape) == 3 else (2, 5, 5, 2))).shape == shape


def test_jit_matches_eager_and_torch_for_value_and_grad():
    x, w = rand(2, 6, 7, 6), rand(3, 3, 3, 4)  # NHWC, HWIO, two feature groups of 3

    def loss(a, b):
        y = lax.conv_general_dilated(a, b, (2, 1), "SAME", rhs_dilation=(1, 2),
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                     feature_group_count=2)
        return jnp.sum(jnp.tanh(y) * y)
    f = strata.value_and_grad(loss, argnums=(0, 1))
    (v, (gx, gw)), (jv, (jgx, jgw)) = f(x, w), strata.jit(f)(x, w)
    # jit's f32 tanh is an approximation of its own (docs/decisions.md): 1e-4, not bits.
    np.testing.assert_allclose(float(jv), float(v), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(jgx), np.asarray(gx), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(jgw), np.asarray(gw), rtol=1e-4, atol=1e-5)
    tx = torch.tensor(x).permute(0, 3, 1, 2).requires_grad_()
    tw = torch.tensor(w).permute(3, 2, 0, 1).requires_grad_()
    # SAME with strides (2, 1) on 6 x 7 and a dilated 3 x 5 window: (0, 1) and (2, 2).
    ty = F.conv2d(F.pad(tx, (2, 2, 0, 1)), tw, stride=(2, 1), dilation=(1, 2), groups=2)
    (torch.tanh(ty) * ty).sum().backward()
    np.testing.assert_allclose(np.asarray(jgx), tx.grad.permute(0, 2, 3, 1).numpy(), rtol=1e-4,
                               atol=1e-4)
    np.testing.assert_allclose(np.asarray(jgw), tw.grad.permute(2, 3, 1, 0).numpy(), rtol=1e-4,
                               atol=1e-4)


def test_vmap_of_conv_matches_a_loop():
    x, w = rand(4, 2, 3, 6, 6), rand(4, 5, 3, 3, 3)  # a batch of (input, kernel) pairs
    f = lambda a, b: lax.conv_general_dilated(a, b, (1, 1), "VALID")
    got = strata.vmap(f)(x, w)
    want = np.stack([np.asarray(f(x[i], w[i])) for i in range(4)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
    got = strata.jit(strata.vmap(f, in_axes=(0, None)))(x, w[0])
    want = np.stack([np.asarray(f(x[i], w[0])) for i in range(4)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
