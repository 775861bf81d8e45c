// strata::nn: activations, the softmax family and normalizations, composed from ops and lax
// exactly as jax.nn defines them.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "ops_impl.h"
#include "strata/nn.h"

namespace strata::nn {

using namespace ops_detail;

namespace {
Array inexact(const Array &x) { return convert(x, to_inexact(typed(x))); }
} // namespace

Array relu(const Array &x) { return maximum(x, Array::weak_scalar_int(0)); }

Array gelu(const Array &x, bool approximate) {
  Array v = inexact(x);
  Array half = constant_like(v, 0.5), one = constant_like(v, 1.0);
  if (approximate) {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Array c = constant_like(v, std::sqrt(2.0 / std::numbers::pi));
    Array inner =
        lax::mul(c, lax::add(v, lax::mul(constant_like(v, 0.044715), lax::integer_pow(v, 3))));
    return lax::mul(lax::mul(half, v), lax::add(one, lax::tanh(inner)));
  }
  // 0.5 x (1 + erf(x / sqrt(2)))
  Array e = lax::erf(lax::mul(v, constant_like(v, 1.0 / std::numbers::sqrt2)));
  return lax::mul(lax::mul(half, v), lax::add(one, e));
}

Array sigmoid(const Array &x) { return lax::logistic(inexact(x)); }

Array silu(const Array &x) {
  Array v = inexact(x);
  return lax::mul(v, lax::logistic(v));
}

namespace {
/// x minus its (non-differentiated) max over `axes`, as jax.nn.softmax shifts it.
Array shifted(const Array &v, const Axes &axes) {
  Array m = max(v, axes, /*keepdims=*/true);
  return subtract(v, lax::stop_gradient(m));
}
} // namespace

Array softmax(const Array &x, Axes axis) {
  Array v = inexact(x);
  Array e = exp(shifted(v, axis));
  return divide(e, sum(e, axis, /*keepdims=*/true));
}

Array log_softmax(const Array &x, Axes axis) {
  Array v = inexact(x);
  Array s = shifted(v, axis);
  return subtract(s, log(sum(exp(s), axis, /*keepdims=*/true)));
}

Array logsumexp(const Array &x, Axes axes, bool keepdims) {
  Array v = inexact(x);
  std::vector<int64_t> dims = canonical_axes("logsumexp", axes, v.ndim());
  Array m = max(v, axes, /*keepdims=*/true);
  // A row of -inf (or +inf) has a non-finite max; shifting by 0 instead keeps the result
  // -inf (or inf) rather than NaN.
  m = lax::stop_gradient(lax::select(lax::is_finite(m), m, constant_like(m, 0.0)));
  Array out = add(log(sum(exp(subtract(v, m)), axes, /*keepdims=*/true)), m);
  if (keepdims)
    return out;
  Shape s;
  for (int64_t d = 0; d < v.ndim(); ++d)
    if (!std::binary_search(dims.begin(), dims.end(), d))
      s.push_back(v.shape()[d]);
  return lax::reshape(out, s);
}

Array one_hot(const Array &indices, int64_t num_classes, DType dtype) {
  if (num_classes < 0)
    fail("one_hot", "num_classes must be non-negative, got ", num_classes);
  Shape shape = indices.shape();
  shape.push_back(num_classes);
  std::vector<int64_t> dims(static_cast<size_t>(indices.ndim()));
  for (size_t i = 0; i < dims.size(); ++i)
    dims[i] = static_cast<int64_t>(i);
  // Compare in the promoted type of the indices and the class ids (i32, or the index type).
  TypedDType t = promote_types(typed(indices), TypedDType{DType::Int32, true});
  Array idx = lax::broadcast_in_dim(convert(indices, t), shape, dims);
  Array classes = lax::iota(t.dtype, shape, static_cast<int64_t>(indices.ndim()));
  return lax::convert_element_type(lax::eq(idx, convert(classes, t)), dtype);
}

namespace {
/// Applies the optional scale and bias (numpy broadcasting, e.g. shape [features]).
Array affine(const Array &y, const std::optional<Array> &scale, const std::optional<Array> &bias) {
  Array out = y;
  if (scale)
    out = multiply(out, *scale);
  if (bias)
    out = add(out, *bias);
  return out;
}
} // namespace

Array layer_norm(const Array &x, std::optional<Array> scale, std::optional<Array> bias,
                 double eps) {
  if (x.ndim() == 0)
    fail("layer_norm", "needs at least one dimension, got ", x.type_str());
  Array v = inexact(x);
  Array m = mean(v, -1, /*keepdims=*/true);
  Array c = subtract(v, m);
  Array var = mean(square(c), -1, /*keepdims=*/true);
  Array y = multiply(c, rsqrt(add(var, constant(eps, {var.dtype(), true}))));
  return affine(y, scale, bias);
}

Array rms_norm(const Array &x, std::optional<Array> scale, double eps) {
  if (x.ndim() == 0)
    fail("rms_norm", "needs at least one dimension, got ", x.type_str());
  Array v = inexact(x);
  Array ms = mean(square(v), -1, /*keepdims=*/true);
  Array y = multiply(v, rsqrt(add(ms, constant(eps, {ms.dtype(), true}))));
  return affine(y, scale, std::nullopt);
}

} // namespace strata::nn
