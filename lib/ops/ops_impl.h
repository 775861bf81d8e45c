// Helpers shared by the numpy-style ops: axis checks, dtype promotion and broadcasting, all
// expressed through lax:: so that every transform sees only primitives.
#pragma once

#include <string_view>
#include <vector>

#include "strata/lax.h"
#include "strata/ops.h"

namespace strata::ops_detail {

/// The dtype and weak flag of an array, as promote_types takes them.
inline TypedDType typed(const Array &x) { return {x.dtype(), x.weak_type()}; }

/// Converts x to `t` (dtype and weak flag); a no-op when it already has that type.
inline Array convert(const Array &x, TypedDType t) {
  if (x.dtype() == t.dtype && x.weak_type() == t.weak)
    return x;
  return lax::convert_element_type(x, t.dtype, t.weak);
}

/// The inexact type an op computes in: floats and complex stay, bools and integers go to f32,
/// 64-bit integers to f64 (canonicalized), keeping a weak flag, as JAX's promote_args_inexact does.
inline TypedDType to_inexact(TypedDType t) {
  if (is_inexact(t.dtype))
    return t;
  if (t.weak)
    return {default_float_dtype(), true};
  return {itemsize(t.dtype) == 8 ? canonicalize_dtype(DType::Float64) : DType::Float32, false};
}
/// Bools become i32 (JAX's promote_args_numeric); other types stay.
inline TypedDType to_numeric(TypedDType t) {
  return is_bool(t.dtype) ? TypedDType{DType::Int32, t.weak} : t;
}

/// Maps a possibly negative axis into [0, ndim); throws `[op] axis 3 is out of bounds ...`.
int64_t canonical_axis(std::string_view op, int64_t axis, int64_t ndim);
/// The sorted axes named by `axes` (all of them by default); rejects duplicates.
std::vector<int64_t> canonical_axes(std::string_view op, const Axes &axes, int64_t ndim);

/// The joined type of all operands (weak scalars do not widen arrays).
TypedDType promoted_type(std::string_view op, const std::vector<Array> &xs);
/// Converts every operand to their joined type.
std::vector<Array> promote(std::string_view op, const std::vector<Array> &xs);

/// The numpy broadcast shape of all operands; `op` is named in the error.
Shape broadcast_shapes_of(std::string_view op, const std::vector<Array> &xs);
/// Broadcasts x to `shape` (numpy rules: leading dims added, size-1 dims stretched).
Array broadcast_to_shape(std::string_view op, const Array &x, const Shape &shape);
/// Promotes then broadcasts every operand to the common shape.
std::vector<Array> promote_and_broadcast(std::string_view op, const std::vector<Array> &xs);

/// A scalar of type `t` holding `value`, broadcast to `shape`.
Array constant(double value, TypedDType t, const Shape &shape = {});
/// A scalar of x's dtype and weak flag holding `value`, broadcast to x's shape.
Array constant_like(const Array &x, double value);

/// Reinserts size-1 dims at the reduced `axes` (sorted) when keepdims is set.
Array keep_dims(const Array &reduced, const Shape &in_shape, const std::vector<int64_t> &axes);

} // namespace strata::ops_detail
