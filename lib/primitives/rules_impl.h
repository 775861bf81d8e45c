// Helpers for writing jvp, vjp and batch rules beside each primitive. Rules use lax:: ops
// only, so that they are themselves differentiable and batchable.
#pragma once

#include <span>
#include <vector>

#include "strata/lax.h"
#include "strata/primitive.h"

namespace strata::rules {

/// An empty Array stands for a symbolically zero tangent or cotangent.
inline bool is_zero(const Array &t) { return !t.valid(); }

/// a + b where either may be symbolically zero.
Array add_tangents(const Array &a, const Array &b);
/// t * d where t may be symbolically zero (then the result is too).
Array scale(const Array &t, const Array &d);
/// A scalar of x's dtype broadcast to x's shape.
Array full_like(const Array &x, double value);
/// Zeros of a value's type (materialized).
Array zeros_of(const Array &x);

/// Moves axis `from` of x to `to` (non-negative).
Array move_axis(const Array &x, int64_t from, int64_t to);
/// x with its batch axis at 0: moved when batched at `bdim`, broadcast when not batched.
Array batch_to_front(const Array &x, int64_t bdim, int64_t size);
/// The common rule of elementwise primitives: every operand batched at axis 0 (unbatched ones
/// broadcast), the primitive applied once, outputs batched at 0. Unary ops keep their axis.
/// The operands listed in scalar_operands (select's predicate, clamp's bounds) may be scalars
/// beside larger operands: unbatched rank-0 ones stay scalars.
std::vector<Array> batch_elementwise(const BatchContext &ctx, std::span<const Array> vals,
                                     std::span<const int64_t> dims, const Params &params,
                                     std::vector<int64_t> &out_dims,
                                     std::vector<int> scalar_operands = {});
/// The BatchRule of elementwise primitives (see batch_elementwise).
BatchRule elementwise_batch_rule(std::vector<int> scalar_operands = {});

/// Sum of `ct` over the dimensions that broadcast_in_dim added or stretched, to get the
/// cotangent of its operand of shape `operand_shape`.
Array unbroadcast(const Array &ct, const Shape &operand_shape,
                  const std::vector<int64_t> &broadcast_dimensions);

} // namespace strata::rules

namespace strata::rules {

/// dy/dx of a unary elementwise primitive at x (with output `out`); nullptr: zero derivative.
using UnaryDeriv = Array (*)(const Array &x, const Array &out, const Params &params);
/// d out / d operand `which` (0 or 1) of a binary elementwise primitive.
using BinaryDeriv = Array (*)(const Array &x, const Array &y, const Array &out, int which);
/// jvp t * d and vjp ct * d from the derivative of a unary elementwise primitive.
JvpRule unary_jvp(UnaryDeriv d);
VjpRule unary_vjp(UnaryDeriv d);
/// jvp tx * dx + ty * dy and vjp (ct * dx, ct * dy) from the partial derivatives.
JvpRule binary_jvp(BinaryDeriv d);
VjpRule binary_vjp(BinaryDeriv d);

} // namespace strata::rules
