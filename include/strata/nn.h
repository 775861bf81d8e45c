// strata::nn: activations, normalizations and the softmax family (jax.nn's names).
#pragma once

#include <optional>

#include "strata/ops.h"

namespace strata::nn {

STRATA_EXPORT Array relu(const Array &x);
/// tanh approximation by default, as jax.nn.gelu.
STRATA_EXPORT Array gelu(const Array &x, bool approximate = true);
STRATA_EXPORT Array silu(const Array &x);
STRATA_EXPORT Array sigmoid(const Array &x);
STRATA_EXPORT Array softmax(const Array &x, Axes axis = -1);
STRATA_EXPORT Array log_softmax(const Array &x, Axes axis = -1);
/// log(sum(exp(x))) computed stably (the max is subtracted first).
STRATA_EXPORT Array logsumexp(const Array &x, Axes axes = {}, bool keepdims = false);
/// One-hot encoding along a new last axis; out-of-range indices give all zeros.
STRATA_EXPORT Array one_hot(const Array &indices, int64_t num_classes,
                            DType dtype = DType::Float32);
/// Normalizes over the last axis: (x - mean) / sqrt(var + eps) * scale + bias.
STRATA_EXPORT Array layer_norm(const Array &x, std::optional<Array> scale = std::nullopt,
                               std::optional<Array> bias = std::nullopt, double eps = 1e-5);
/// x / sqrt(mean(x^2) + eps) * scale over the last axis.
STRATA_EXPORT Array rms_norm(const Array &x, std::optional<Array> scale = std::nullopt,
                             double eps = 1e-6);

} // namespace strata::nn
