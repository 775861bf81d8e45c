// The numpy-style user surface: these check arguments, promote dtypes (JAX's lattice) and
// broadcast (numpy's rules), then call the primitives in lax.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "strata/array.h"

namespace strata {

/// Which axes an op works on: one axis, several, or (default) all of them.
struct Axes {
  std::optional<std::vector<int>> axes;
  Axes() = default;
  Axes(int axis) : axes(std::vector<int>{axis}) {}
  Axes(std::vector<int> v) : axes(std::move(v)) {}
  Axes(std::initializer_list<int> v) : axes(std::vector<int>(v)) {}
  bool all() const { return !axes.has_value(); }
};

// ---- Creation -----------------------------------------------------------------------------
// Default dtypes follow 64-bit mode (f32/i32, or f64/i64 with set_enable_x64(true)).
STRATA_EXPORT Array zeros(const Shape &shape, DType dtype = default_float_dtype());
STRATA_EXPORT Array ones(const Shape &shape, DType dtype = default_float_dtype());
STRATA_EXPORT Array full(const Shape &shape, double value, DType dtype = default_float_dtype());
STRATA_EXPORT Array full(const Shape &shape, const Array &value); // broadcasts a scalar array
STRATA_EXPORT Array zeros_like(const Array &x);
STRATA_EXPORT Array ones_like(const Array &x);
STRATA_EXPORT Array full_like(const Array &x, double value);
/// [start, stop) with step; the dtype defaults to the default int (all arguments integral) or
/// the default float.
STRATA_EXPORT Array arange(double start, double stop, double step = 1.0,
                           std::optional<DType> dtype = std::nullopt);
STRATA_EXPORT Array arange(int64_t stop, DType dtype = default_int_dtype());
STRATA_EXPORT Array linspace(double start, double stop, int64_t num = 50, bool endpoint = true,
                             DType dtype = default_float_dtype());
STRATA_EXPORT Array eye(int64_t n, std::optional<int64_t> m = std::nullopt, int64_t k = 0,
                        DType dtype = default_float_dtype());
/// Converts to dtype (numpy's astype).
STRATA_EXPORT Array astype(const Array &x, DType dtype);
/// The promoted type of the operands (weak scalars do not widen arrays).
STRATA_EXPORT DType result_type(const std::vector<Array> &xs);

// ---- Elementwise --------------------------------------------------------------------------
STRATA_EXPORT Array add(const Array &x, const Array &y);
STRATA_EXPORT Array subtract(const Array &x, const Array &y);
STRATA_EXPORT Array multiply(const Array &x, const Array &y);
/// True division: integer operands give floating results.
STRATA_EXPORT Array divide(const Array &x, const Array &y);
STRATA_EXPORT Array floor_divide(const Array &x, const Array &y);
/// numpy's remainder: the result has the sign of the divisor.
STRATA_EXPORT Array remainder(const Array &x, const Array &y);
STRATA_EXPORT Array power(const Array &x, const Array &y);
STRATA_EXPORT Array maximum(const Array &x, const Array &y);
STRATA_EXPORT Array minimum(const Array &x, const Array &y);
STRATA_EXPORT Array arctan2(const Array &x, const Array &y);
/// The next representable value after x in the direction of y (integers promote to float).
STRATA_EXPORT Array nextafter(const Array &x, const Array &y);
STRATA_EXPORT Array equal(const Array &x, const Array &y);
STRATA_EXPORT Array not_equal(const Array &x, const Array &y);
STRATA_EXPORT Array less(const Array &x, const Array &y);
STRATA_EXPORT Array less_equal(const Array &x, const Array &y);
STRATA_EXPORT Array greater(const Array &x, const Array &y);
STRATA_EXPORT Array greater_equal(const Array &x, const Array &y);
STRATA_EXPORT Array logical_and(const Array &x, const Array &y);
STRATA_EXPORT Array logical_or(const Array &x, const Array &y);
STRATA_EXPORT Array logical_xor(const Array &x, const Array &y);
STRATA_EXPORT Array logical_not(const Array &x);
STRATA_EXPORT Array bitwise_and(const Array &x, const Array &y);
STRATA_EXPORT Array bitwise_or(const Array &x, const Array &y);
STRATA_EXPORT Array bitwise_xor(const Array &x, const Array &y);
STRATA_EXPORT Array bitwise_not(const Array &x);
STRATA_EXPORT Array negative(const Array &x);
STRATA_EXPORT Array abs(const Array &x);
STRATA_EXPORT Array sign(const Array &x);
STRATA_EXPORT Array floor(const Array &x);
STRATA_EXPORT Array ceil(const Array &x);
STRATA_EXPORT Array round(const Array &x);
STRATA_EXPORT Array square(const Array &x);
STRATA_EXPORT Array reciprocal(const Array &x);
// Transcendental functions promote integer inputs to the default float type.
STRATA_EXPORT Array exp(const Array &x);
STRATA_EXPORT Array log(const Array &x);
STRATA_EXPORT Array log1p(const Array &x);
STRATA_EXPORT Array expm1(const Array &x);
STRATA_EXPORT Array sqrt(const Array &x);
STRATA_EXPORT Array rsqrt(const Array &x);
STRATA_EXPORT Array sin(const Array &x);
STRATA_EXPORT Array cos(const Array &x);
STRATA_EXPORT Array tan(const Array &x);
STRATA_EXPORT Array tanh(const Array &x);
STRATA_EXPORT Array sinh(const Array &x);
STRATA_EXPORT Array cosh(const Array &x);
STRATA_EXPORT Array arcsin(const Array &x);
STRATA_EXPORT Array arccos(const Array &x);
STRATA_EXPORT Array arctan(const Array &x);
STRATA_EXPORT Array arcsinh(const Array &x);
STRATA_EXPORT Array arccosh(const Array &x);
STRATA_EXPORT Array arctanh(const Array &x);
STRATA_EXPORT Array cbrt(const Array &x);
STRATA_EXPORT Array exp2(const Array &x);
STRATA_EXPORT Array erf(const Array &x);
STRATA_EXPORT Array isfinite(const Array &x);
STRATA_EXPORT Array where(const Array &cond, const Array &x, const Array &y);
STRATA_EXPORT Array clip(const Array &x, std::optional<Array> lo, std::optional<Array> hi);

// ---- Reductions ---------------------------------------------------------------------------
STRATA_EXPORT Array sum(const Array &x, Axes axes = {}, bool keepdims = false);
STRATA_EXPORT Array prod(const Array &x, Axes axes = {}, bool keepdims = false);
STRATA_EXPORT Array max(const Array &x, Axes axes = {}, bool keepdims = false);
STRATA_EXPORT Array min(const Array &x, Axes axes = {}, bool keepdims = false);
STRATA_EXPORT Array mean(const Array &x, Axes axes = {}, bool keepdims = false);
STRATA_EXPORT Array var(const Array &x, Axes axes = {}, bool keepdims = false, int ddof = 0);
STRATA_EXPORT Array std(const Array &x, Axes axes = {}, bool keepdims = false, int ddof = 0);
STRATA_EXPORT Array all(const Array &x, Axes axes = {}, bool keepdims = false);
STRATA_EXPORT Array any(const Array &x, Axes axes = {}, bool keepdims = false);
/// Index of the first extremum; with no axis, into the flattened array. Result is i32.
STRATA_EXPORT Array argmax(const Array &x, std::optional<int> axis = std::nullopt,
                           bool keepdims = false);
STRATA_EXPORT Array argmin(const Array &x, std::optional<int> axis = std::nullopt,
                           bool keepdims = false);
/// With no axis, over the flattened array.
STRATA_EXPORT Array cumsum(const Array &x, std::optional<int> axis = std::nullopt);
STRATA_EXPORT Array cumprod(const Array &x, std::optional<int> axis = std::nullopt);

// ---- Linear algebra -----------------------------------------------------------------------
/// numpy matmul: vectors are promoted and the added dim removed; leading dims broadcast.
STRATA_EXPORT Array matmul(const Array &a, const Array &b);
/// Einstein summation for explicit ("ij,jk->ik") and implicit ("ij,jk") subscripts with any
/// number of operands, repeated indices within an operand (diagonals), and "..." broadcasting.
STRATA_EXPORT Array einsum(const std::string &subscripts, const std::vector<Array> &operands);

// ---- Shapes -------------------------------------------------------------------------------
/// One dimension may be -1 (inferred).
STRATA_EXPORT Array reshape(const Array &x, const Shape &shape);
STRATA_EXPORT Array ravel(const Array &x);
/// Reverses the axes when none are given.
STRATA_EXPORT Array transpose(const Array &x, std::optional<std::vector<int>> axes = std::nullopt);
STRATA_EXPORT Array swapaxes(const Array &x, int a, int b);
STRATA_EXPORT Array moveaxis(const Array &x, int source, int destination);
/// Removes the given size-1 axes (all size-1 axes by default).
STRATA_EXPORT Array squeeze(const Array &x, Axes axes = {});
STRATA_EXPORT Array expand_dims(const Array &x, Axes axes);
STRATA_EXPORT Array broadcast_to(const Array &x, const Shape &shape);
STRATA_EXPORT std::vector<Array> broadcast_arrays(const std::vector<Array> &xs);
STRATA_EXPORT Shape broadcast_shapes(const Shape &a, const Shape &b);
STRATA_EXPORT Array concatenate(const std::vector<Array> &xs, int axis = 0);
STRATA_EXPORT Array stack(const std::vector<Array> &xs, int axis = 0);
/// Splits into `sections` equal parts.
STRATA_EXPORT std::vector<Array> split(const Array &x, int64_t sections, int axis = 0);
/// Splits at the given indices.
STRATA_EXPORT std::vector<Array> split(const Array &x, const std::vector<int64_t> &indices,
                                       int axis = 0);
STRATA_EXPORT Array flip(const Array &x, Axes axes = {});

// ---- Indexing -----------------------------------------------------------------------------
/// numpy basic and advanced indexing. Static integer indices out of range throw; entries of
/// integer index arrays are wrapped once if negative and then clamped (docs/indexing.md).
STRATA_EXPORT Array index(const Array &x, const std::vector<Index> &indices);
/// take along one axis (or the flattened array); indices as in `index`.
STRATA_EXPORT Array take(const Array &x, const Array &indices,
                         std::optional<int> axis = std::nullopt);
STRATA_EXPORT Array take_along_axis(const Array &x, const Array &indices, int axis);

// ---- Operators ----------------------------------------------------------------------------
STRATA_EXPORT Array operator+(const Array &x, const Array &y);
STRATA_EXPORT Array operator-(const Array &x, const Array &y);
STRATA_EXPORT Array operator*(const Array &x, const Array &y);
STRATA_EXPORT Array operator/(const Array &x, const Array &y);
STRATA_EXPORT Array operator%(const Array &x, const Array &y);
STRATA_EXPORT Array operator==(const Array &x, const Array &y);
STRATA_EXPORT Array operator!=(const Array &x, const Array &y);
STRATA_EXPORT Array operator<(const Array &x, const Array &y);
STRATA_EXPORT Array operator<=(const Array &x, const Array &y);
STRATA_EXPORT Array operator>(const Array &x, const Array &y);
STRATA_EXPORT Array operator>=(const Array &x, const Array &y);
STRATA_EXPORT Array operator&(const Array &x, const Array &y);
STRATA_EXPORT Array operator|(const Array &x, const Array &y);
STRATA_EXPORT Array operator^(const Array &x, const Array &y);

/// C++ scalars in operators are weakly typed, as Python scalars are in JAX: `x * 2.0` keeps
/// x's dtype (f16 stays f16), `i * 2` keeps i32.
template <class S> Array as_weak(S s) {
  if constexpr (std::is_floating_point_v<S>)
    return Array::weak_scalar(static_cast<double>(s));
  else
    return Array::weak_scalar_int(static_cast<int64_t>(s));
}
/// A weak scalar stored in x's float type when both are floating, so no precision is lost
/// before promotion (`f64_array * 0.1` multiplies by the double 0.1).
template <class S> Array as_weak_like(const Array &x, S s) {
  if constexpr (std::is_floating_point_v<S>)
    if (is_floating(x.dtype()))
      return Array::weak_scalar(static_cast<double>(s), x.dtype());
  return as_weak(s);
}
#define STRATA_SCALAR_OPERATOR(OP)                                                                 \
  template <class S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>                           \
  Array operator OP(const Array &x, S s) {                                                         \
    return x OP as_weak_like(x, s);                                                                \
  }                                                                                                \
  template <class S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>                           \
  Array operator OP(S s, const Array &x) {                                                         \
    return as_weak_like(x, s) OP x;                                                                \
  }
STRATA_SCALAR_OPERATOR(+)
STRATA_SCALAR_OPERATOR(-)
STRATA_SCALAR_OPERATOR(*)
STRATA_SCALAR_OPERATOR(/)
STRATA_SCALAR_OPERATOR(%)
STRATA_SCALAR_OPERATOR(==)
STRATA_SCALAR_OPERATOR(!=)
STRATA_SCALAR_OPERATOR(<)
STRATA_SCALAR_OPERATOR(<=)
STRATA_SCALAR_OPERATOR(>)
STRATA_SCALAR_OPERATOR(>=)
#undef STRATA_SCALAR_OPERATOR

} // namespace strata
