"""Oracles shared by the test_numpy_api_*.py files (no tests of its own): value comparison,
gradients against central differences of the numpy function, vmap against a loop."""

import numpy as np

import strata
import strata.numpy as jnp
from conftest import numerical_grad

_rng = np.random.default_rng(12)


def close(got, want, rtol=1e-5, atol=1e-6):
    """got (an Array) has want's shape and values (NaNs where want has them)."""
    got = np.asarray(got)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def check_grad(jf, nf, x, rtol=2e-3, atol=1e-4):
    """strata.grad of sum(jf(x) * w) (random w) against central differences of numpy's nf,
    evaluated in float64."""
    x = np.asarray(x, np.float32)
    w = _rng.standard_normal(np.shape(nf(x.astype(np.float64))))
    g = strata.grad(lambda v: jnp.sum(jf(v) * w.astype(np.float32)))(x)
    want = numerical_grad(lambda v: np.sum(nf(v) * w), x.astype(np.float64), eps=1e-4)
    np.testing.assert_allclose(np.asarray(g), want, rtol=rtol, atol=atol)


def check_vmap(f, x):
    """vmap(f) over x's leading axis equals f applied to each slice."""
    got = strata.vmap(f)(x)
    want = np.stack([np.asarray(f(x[i])) for i in range(x.shape[0])])
    close(got, want)
