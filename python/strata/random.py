"""strata.random: counter-based random numbers as pure functions of keys (Threefry-2x32,
bit-compatible with JAX's default PRNG). A key is a u32[2] array."""

from strata._core.random import (  # noqa: F401
    key, split, fold_in, bits, uniform, normal, bernoulli, randint, permutation)

PRNGKey = key
