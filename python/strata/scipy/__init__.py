"""strata.scipy (jax.scipy's names): special functions, probability distributions and linear
algebra written over Strata's ops, so they run under grad, vmap and jit."""

from strata.scipy import linalg, special, stats  # noqa: F401
