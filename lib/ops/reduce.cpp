// numpy-style reductions (sum, mean, var, all, argmax, cumsum...) with jnp's dtype rules:
// small integers and bools accumulate in the default int, 16-bit floats in f32.
#include <algorithm>

#include "ops_impl.h"

namespace strata {

namespace ops_detail {
Array keep_dims(const Array &reduced, const Shape &in_shape, const std::vector<int64_t> &axes) {
  Shape out = in_shape;
  for (int64_t a : axes)
    out[static_cast<size_t>(a)] = 1;
  return lax::reshape(reduced, out);
}
} // namespace ops_detail

using namespace ops_detail;

namespace {

/// The accumulation type of sum/prod (jnp's promote_integers): bool and integers narrower than
/// the default int widen to it (unsigned ones to the default unsigned type).
DType accumulate_type(DType t) {
  if (is_bool(t) || (is_signed_integer(t) && itemsize(t) < itemsize(default_int_dtype())))
    return default_int_dtype();
  if (is_unsigned_integer(t) && itemsize(t) < itemsize(default_uint_dtype()))
    return default_uint_dtype();
  return t;
}

/// 16-bit floats are reduced in f32 and rounded once at the end.
bool upcast(DType t) { return t == DType::Float16 || t == DType::BFloat16; }

using LaxReduce = Array (*)(const Array &, const std::vector<int64_t> &);

Array finish(const Array &r, const Array &x, const std::vector<int64_t> &axes, bool keepdims) {
  return keepdims ? keep_dims(r, x.shape(), axes) : r;
}

/// sum and prod: accumulate in the wider type, then reduce over the canonical axes.
Array accumulate(std::string_view op, LaxReduce f, const Array &x, const Axes &axes,
                 bool keepdims) {
  std::vector<int64_t> dims = canonical_axes(op, axes, x.ndim());
  TypedDType t{accumulate_type(x.dtype()), x.weak_type()};
  Array in = convert(x, upcast(t.dtype) ? TypedDType{DType::Float32, t.weak} : t);
  Array r = dims.empty() ? in : f(in, dims);
  return finish(convert(r, t), x, dims, keepdims);
}

/// max and min: no identity, so reducing over an empty axis is an error (as in numpy).
Array extremum(std::string_view op, LaxReduce f, const Array &x, const Axes &axes, bool keepdims) {
  std::vector<int64_t> dims = canonical_axes(op, axes, x.ndim());
  for (int64_t a : dims)
    if (x.shape()[a] == 0)
      fail(op, "zero-size array to reduction operation ", op, " which has no identity (",
           x.type_str(), ", axis ", a, ")");
  Array r = dims.empty() ? x : f(x, dims);
  return finish(r, x, dims, keepdims);
}

int64_t count(const Array &x, const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t a : dims)
    n *= x.shape()[a];
  return n;
}

} // namespace

Array sum(const Array &x, Axes axes, bool keepdims) {
  return accumulate("sum", lax::reduce_sum, x, axes, keepdims);
}
Array prod(const Array &x, Axes axes, bool keepdims) {
  return accumulate("prod", lax::reduce_prod, x, axes, keepdims);
}
Array max(const Array &x, Axes axes, bool keepdims) {
  return extremum("max", lax::reduce_max, x, axes, keepdims);
}
Array min(const Array &x, Axes axes, bool keepdims) {
  return extremum("min", lax::reduce_min, x, axes, keepdims);
}

Array mean(const Array &x, Axes axes, bool keepdims) {
  std::vector<int64_t> dims = canonical_axes("mean", axes, x.ndim());
  TypedDType t = to_inexact(typed(x));
  TypedDType ct = upcast(t.dtype) ? TypedDType{DType::Float32, t.weak} : t;
  Array in = convert(x, ct);
  Array s = dims.empty() ? in : lax::reduce_sum(in, dims);
  // An empty reduction gives 0/0 = NaN, as numpy does.
  Array r = lax::div(s, constant(static_cast<double>(count(x, dims)), ct, s.shape()));
  return finish(convert(r, t), x, dims, keepdims);
}

Array var(const Array &x, Axes axes, bool keepdims, int ddof) {
  std::vector<int64_t> dims = canonical_axes("var", axes, x.ndim());
  TypedDType t = to_inexact(typed(x));
  TypedDType ct = upcast(t.dtype) ? TypedDType{DType::Float32, t.weak} : t;
  Array in = convert(x, ct);
  Array centered = in;
  if (!dims.empty()) {
    Array s = lax::reduce_sum(in, dims);
    Array m = lax::div(s, constant(static_cast<double>(count(x, dims)), ct, s.shape()));
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < x.ndim(); ++d)
      if (!std::binary_search(dims.begin(), dims.end(), d))
        kept.push_back(d);
    centered = lax::sub(in, lax::broadcast_in_dim(m, in.shape(), kept));
  } else {
    centered = lax::sub(in, in); // zero, but keeps NaN and inf behaviour of x - mean(x)
  }
  // The variance of complex values is real: the mean of |x - mean(x)|^2, as numpy's and jnp's.
  Array sq = is_complex(ct.dtype) ? lax::real(lax::mul(centered, lax::conj(centered)))
                                  : lax::mul(centered, centered);
  TypedDType rt{real_dtype(ct.dtype), ct.weak};
  Array s = dims.empty() ? sq : lax::reduce_sum(sq, dims);
  // N - ddof below zero counts as zero (inf or NaN results), as jnp.var does.
  double norm = static_cast<double>(std::max<int64_t>(count(x, dims) - ddof, 0));
  Array r = lax::div(s, constant(norm, rt, s.shape()));
  return finish(convert(r, {real_dtype(t.dtype), t.weak}), x, dims, keepdims);
}

Array std(const Array &x, Axes axes, bool keepdims, int ddof) {
  return sqrt(var(x, axes, keepdims, ddof));
}

namespace {
/// all/any: min/max over x != 0 (bool is ordered false < true; empty all is true).
Array boolean_reduce(std::string_view op, LaxReduce f, const Array &x, const Axes &axes,
                     bool keepdims) {
  std::vector<int64_t> dims = canonical_axes(op, axes, x.ndim());
  Array b = convert(x, {DType::Bool, false});
  return finish(dims.empty() ? b : f(b, dims), x, dims, keepdims);
}
} // namespace

Array all(const Array &x, Axes axes, bool keepdims) {
  return boolean_reduce("all", lax::reduce_min, x, axes, keepdims);
}
Array any(const Array &x, Axes axes, bool keepdims) {
  return boolean_reduce("any", lax::reduce_max, x, axes, keepdims);
}

namespace {
using LaxArg = Array (*)(const Array &, int64_t, DType);
Array arg_extremum(std::string_view op, LaxArg f, const Array &x, std::optional<int> axis,
                   bool keepdims) {
  Array in = x;
  int64_t a = 0;
  if (axis) {
    a = canonical_axis(op, *axis, x.ndim());
  } else {
    in = lax::reshape(x, {x.size()});
  }
  if (in.shape()[a] == 0)
    fail(op, "attempt to get ", op, " of an empty sequence (", x.type_str(), ")");
  Array r = f(in, a, DType::Int32);
  if (!keepdims)
    return r;
  if (axis)
    return keep_dims(r, x.shape(), {a});
  return lax::reshape(r, Shape(static_cast<size_t>(x.ndim()), 1));
}

using LaxCum = Array (*)(const Array &, int64_t, bool);
Array cumulative(std::string_view op, LaxCum f, const Array &x, std::optional<int> axis) {
  Array in = axis ? x : lax::reshape(x, {x.size()});
  int64_t a = axis ? canonical_axis(op, *axis, x.ndim()) : 0;
  in = convert(in, {accumulate_type(x.dtype()), x.weak_type()});
  return f(in, a, false);
}
} // namespace

Array argmax(const Array &x, std::optional<int> axis, bool keepdims) {
  return arg_extremum("argmax", lax::argmax, x, axis, keepdims);
}
Array argmin(const Array &x, std::optional<int> axis, bool keepdims) {
  return arg_extremum("argmin", lax::argmin, x, axis, keepdims);
}
Array cumsum(const Array &x, std::optional<int> axis) {
  return cumulative("cumsum", lax::cumsum, x, axis);
}
Array cumprod(const Array &x, std::optional<int> axis) {
  return cumulative("cumprod", lax::cumprod, x, axis);
}

} // namespace strata
