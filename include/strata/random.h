// strata::random: counter-based random numbers as pure functions of keys (Threefry-2x32,
// bit-compatible with JAX's default PRNG). A key is a u32[2] array.
#pragma once

#include "strata/ops.h"

namespace strata::random {

/// The key for a seed (as jax.random.PRNGKey / key_data(jax.random.key(seed))).
STRATA_EXPORT Array key(uint64_t seed);
/// `num` new keys, shape u32[num, 2].
STRATA_EXPORT Array split(const Array &key, int64_t num = 2);
/// A key derived from `key` and the integer `data`.
STRATA_EXPORT Array fold_in(const Array &key, uint32_t data);
/// Uniform u32 bits of the given shape.
STRATA_EXPORT Array bits(const Array &key, const Shape &shape);
/// Uniform in [minval, maxval).
STRATA_EXPORT Array uniform(const Array &key, const Shape &shape = {}, DType dtype = DType::Float32,
                            double minval = 0.0, double maxval = 1.0);
/// Standard normal.
STRATA_EXPORT Array normal(const Array &key, const Shape &shape = {}, DType dtype = DType::Float32);
/// True with probability p.
STRATA_EXPORT Array bernoulli(const Array &key, double p = 0.5, const Shape &shape = {});
/// Integers in [minval, maxval).
STRATA_EXPORT Array randint(const Array &key, const Shape &shape, int64_t minval, int64_t maxval,
                            DType dtype = DType::Int32);
/// A random permutation of 0..n-1 (i32).
STRATA_EXPORT Array permutation(const Array &key, int64_t n);
/// `x` shuffled along its first axis.
STRATA_EXPORT Array permutation(const Array &key, const Array &x);

} // namespace strata::random
