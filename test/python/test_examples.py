"""The examples in examples/python, each run at a small size, with their results checked
against oracles (a per-example loop, hessian(f) @ v and finite differences, the loss falling)."""

import importlib.util
import os

import numpy as np
import pytest

import strata

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
