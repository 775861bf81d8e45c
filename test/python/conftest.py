"""Shared helpers of the Python tests: finite-difference oracles, tolerances, 64-bit mode."""

import contextlib

import numpy as np
import pytest


def numerical_grad(f, x, eps=1e-6):
    """Central finite differences of a scalar numpy function f at float64 x."""
    x = np.asarray(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


@contextlib.contextmanager
def x64_mode(on=True):
    """Runs the block with strata.config's jax_enable_x64 set to `on`, then restores it."""
    import strata
    saved = strata.config.jax_enable_x64
    strata.config.update("jax_enable_x64", on)
    try:
        yield
    finally:
        strata.config.update("jax_enable_x64", saved)


@pytest.fixture
def x64_on():
    """64-bit mode for one test (for float64 oracles such as finite differences)."""
    with x64_mode(True):
        yield


def check_jit_and_vmap(f, key, rtol=1e-6, atol=1e-7):
    """A sampler f(key) under jit equals it eagerly, and under vmap over three keys split from
    key equals a per-key loop (the shapes included)."""
    import strata
    from strata import random

    def close(got, want):
        got = np.asarray(got)
        assert got.shape == np.shape(want), (got.shape, np.shape(want))
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    close(strata.jit(f)(key), np.asarray(f(key)))
    ks = random.split(key, 3)
    close(strata.vmap(f)(ks), np.stack([np.asarray(f(ks[i])) for i in range(3)]))
