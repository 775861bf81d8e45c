"""The examples in examples/python, each run at a small size, with their results checked
against oracles (a per-example loop, hessian(f) @ v and finite differences, the loss falling,
test accuracy, scikit-learn's Gaussian-process likelihood and its gradient, direct convolution)."""

import importlib.util
import os

import numpy as np
import pytest

import strata
from test_numpy_linalg import _primitives_lower, needs_primitives

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python")


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(EXAMPLES, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.skipif(not os.path.exists(load("train_digits").DIGITS),
                    reason="python3-sklearn's digits data is not installed")
def test_train_digits_reaches_95_percent():
    # The full run is under a second, so the suite checks the bar itself.
    out = load("train_digits").train(epochs=30, verbose=False)
    assert out["test_accuracy"] >= 0.95
    assert out["losses"][-1] < 0.2 * out["losses"][0]


@pytest.mark.skipif(not os.path.exists(load("train_digits").DIGITS),
                    reason="python3-sklearn's digits data is not installed")
def test_cnn_digits_reaches_97_percent_under_jit():
    # conv, max pooling and dense layers (stax) trained under jit: a few seconds in full.
    out = load("cnn_digits").train(verbose=False)
    assert out["test_accuracy"] > 0.97
    assert out["losses"][-1] < 0.2 * out["losses"][0]


def test_train_digits_main_small(capsys):
    out = load("train_digits").main(["--epochs", "4", "--hidden", "64"])
    assert out["test_accuracy"] > 0.8
    assert "test accuracy" in capsys.readouterr().out


@pytest.mark.parametrize("jit", [False, True])
def test_per_example_grad_norms_match_loop(jit):
    norms, ref, err = load("per_example_grad_norms").run(batch=6, dim=5, hidden=4, classes=3,
                                                          jit=jit, verbose=False)
    assert norms.shape == (6,) and np.all(norms > 0)
    assert err < 1e-5


@pytest.mark.usefixtures("x64_on")  # compared at float64 precision
def test_hvp_matches_hessian_and_finite_differences():
    mod = load("hvp")
    hv, ref, h = mod.run(n=7, verbose=False)
    np.testing.assert_allclose(hv, ref, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(h, h.T, atol=1e-10)
    # An oracle outside the transforms: central differences of the gradient along v.
    rng = np.random.default_rng(0)
    x, v = rng.standard_normal(7), rng.standard_normal(7)
    g = strata.grad(mod.f)
    eps = 1e-6
    fd = (np.asarray(g(x + eps * v)) - np.asarray(g(x - eps * v))) / (2 * eps)
    np.testing.assert_allclose(hv, fd, rtol=1e-6, atol=1e-6)


@pytest.mark.usefixtures("x64_on")
def test_hvp_under_jit():
    hv, ref, _ = load("hvp").run(n=16, jit=True, verbose=False)
    np.testing.assert_allclose(hv, ref, rtol=1e-10, atol=1e-10)


def test_tiny_transformer_loss_falls():
    losses = load("tiny_transformer").train(steps=30, batch=4, context=8, d_model=16, n_heads=2,
                                            n_layers=1, verbose=False)
    assert all(np.isfinite(losses))
    assert np.mean(losses[-5:]) < losses[0] - 0.5


@needs_primitives
@pytest.mark.usefixtures("x64_on")
def test_gaussian_process_likelihood_gradient_and_fit():
    gpr = pytest.importorskip("sklearn.gaussian_process")
    kernels = pytest.importorskip("sklearn.gaussian_process.kernels")
    gp = load("gaussian_process")
    x, y, x_test = gp.data(n=30)
    theta = np.log([1.3, 0.7, 0.05])
    ref = gpr.GaussianProcessRegressor(
        kernel=kernels.ConstantKernel(1.3) * kernels.RBF(0.7) + kernels.WhiteKernel(0.05),
        alpha=0.0, optimizer=None).fit(x, y)
    want, want_grad = ref.log_marginal_likelihood(theta, eval_gradient=True)
    value, grad = strata.value_and_grad(gp.log_marginal_likelihood)(theta, x, y)
    np.testing.assert_allclose(float(value), want, rtol=1e-10)
    np.testing.assert_allclose(np.asarray(grad), want_grad, rtol=1e-7, atol=1e-8)
    eps = 1e-6
    fd = [(float(gp.log_marginal_likelihood(theta + eps * e, x, y))
           - float(gp.log_marginal_likelihood(theta - eps * e, x, y))) / (2 * eps)
          for e in np.eye(3)]
    np.testing.assert_allclose(np.asarray(grad), fd, rtol=1e-5, atol=1e-6)
    mean, var = gp.predict(theta, x, y, x_test)
    ref_mean, ref_std = ref.predict(x_test, return_std=True)  # its std includes the noise
    np.testing.assert_allclose(np.asarray(mean), ref_mean, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(np.sqrt(np.asarray(var) + 0.05), ref_std, rtol=1e-8, atol=1e-8)
    # A few Adam steps (jitted where jit lowers the linalg primitives) raise the likelihood,
    # and the fit tracks sin(3x).
    fitted, history = gp.fit(np.log([1.0, 1.0, 0.5]), x, y, steps=40, jit=_primitives_lower(),
                             verbose=False)
    assert history[-1] > history[0] + 5 and all(np.isfinite(history))
    mean, _ = gp.predict(fitted, x, y, x_test)
    assert np.sqrt(np.mean((np.asarray(mean) - np.sin(3 * x_test[:, 0])) ** 2)) < 0.15


@pytest.mark.parametrize("n,taps", [(64, 9), (33, 4), (1, 1)])
def test_fft_convolution_matches_direct_convolution(n, taps):
    from conftest import x64_mode
    with x64_mode():
        got, want, g, fd = load("fft_convolution").run(n=n, taps=taps, batch=3, verbose=False)
    ref = np.stack([np.convolve(x, k) for x, k in zip(*_fft_conv_inputs(n, taps, 3))])
    np.testing.assert_allclose(got, ref, atol=1e-10)
    np.testing.assert_allclose(want, ref, atol=1e-10)
    np.testing.assert_allclose(g, fd, atol=1e-6)


def _fft_conv_inputs(n, taps, batch, seed=0):
    """The signals and kernel fft_convolution.run draws (repeated with each signal)."""
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal((batch, n))
    k = rng.standard_normal(taps)
    return xs, [k] * batch
