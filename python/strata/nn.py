"""strata.nn: activations, normalizations and the softmax family (jax.nn's names)."""

from strata._core.nn import (  # noqa: F401
    relu, gelu, silu, sigmoid, softmax, log_softmax, logsumexp, one_hot, layer_norm, rms_norm)

swish = silu
