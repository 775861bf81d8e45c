"""Programs written as JAX's examples/ are (examples/python/jax_style: an MLP from scratch,
stax + optimizers, a VAE, DP-SGD, ADVI), differing only in their imports: each runs at a small
size with its result checked against an oracle (accuracy on held-out data, a per-example loop,
the ELBO rising, finite differences)."""

import importlib
import os
import sys

import numpy as np
import pytest

import strata
import strata.numpy as jnp

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python", "jax_style")
DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
pytestmark = pytest.mark.skipif(not os.path.exists(DIGITS),
                                reason="python3-sklearn's digits data is not installed")


def load(name):
    if EXAMPLES not in sys.path:
        sys.path.insert(0, EXAMPLES)
    return importlib.import_module(name)


def test_mlp_from_scratch_learns_in_float32():
    out = load("mnist_classifier_fromscratch").main(num_epochs=6, verbose=False)
    train_acc, test_acc = out["history"][-1]
    assert test_acc > 0.9 and train_acc > 0.9
    assert out["dtype"] == "float32"  # numpy float64 parameters canonicalized (x64 off)


def test_stax_momentum_classifier_learns():
    out = load("mnist_classifier").main(num_epochs=4, verbose=False)
    assert out["history"][-1][1] > 0.9
    assert out["update"].stats()["misses"] == 2  # the full batches, and the smaller last one


def test_vae_elbo_rises():
    out = load("mnist_vae").main(num_epochs=6, verbose=False)
    h = out["history"]
    assert np.all(np.isfinite(h)) and h[-1] > h[0] + 1.0
    assert out["samples"].shape == (4, 5, 8, 8) and out["samples"].dtype == np.bool_


def test_dp_sgd_clips_each_example_and_learns():
    mod = load("differentially_private_sgd")
    out = mod.main(num_epochs=4, verbose=False)
    assert out["history"][-1] > 0.7
    # vmap'd clipping against a per-example loop, and every clipped norm within the bound.
    params = out["params"]
    ds = load("datasets")
    x, y, _, _ = ds.digits()
    batch = (jnp.asarray(x[:5].reshape(5, 1, 64)), jnp.asarray(y[:5]))
    clip = 0.05
    batched = strata.vmap(mod.clipped_grad, (None, None, 0))(params, clip, batch)
    for i in range(5):
        one = mod.clipped_grad(params, clip, (batch[0][i], batch[1][i]))
        for got, want in zip(strata.tree.leaves(batched), strata.tree.leaves(one)):
            np.testing.assert_allclose(np.asarray(got)[i], np.asarray(want), rtol=1e-4,
                                       atol=1e-6)
        norm = np.sqrt(sum(float(np.sum(np.asarray(g)[i] ** 2))
                           for g in strata.tree.leaves(batched)))
        assert norm <= clip * (1 + 1e-4)


def test_advi_elbo_rises_and_gradient_matches_finite_differences():
    mod = load("advi")
    out = mod.main(num_steps=120, verbose=False)
    h = np.asarray(out["history"])
    assert np.mean(h[-20:]) > np.mean(h[:20])
    X, Y, Z = out["grid"]
    assert Z.shape == (31, 31) and np.all(np.isfinite(np.asarray(Z)))
    # The ELBO's gradient (fixed key: a deterministic function) against central differences.
    key = strata.random.key(3)
    f = lambda m: mod.batch_elbo(mod.funnel_log_density, key, (m, jnp.zeros(2)), 8)
    m0 = np.array([0.3, -0.2], np.float32)
    g = np.asarray(strata.grad(f)(jnp.asarray(m0)))
    eps = 1e-2
    fd = [(float(f(jnp.asarray(m0 + eps * e))) - float(f(jnp.asarray(m0 - eps * e)))) / (2 * eps)
          for e in np.eye(2, dtype=np.float32)]
    np.testing.assert_allclose(g, fd, rtol=2e-2, atol=2e-2)
