"""strata.scipy (jax.scipy's names): special functions and probability distributions written
over Strata's ops, so they run under grad, vmap and jit."""

from strata.scipy import special, stats  # noqa: F401
