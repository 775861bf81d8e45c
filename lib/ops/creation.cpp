// numpy-style array creation (zeros, full, arange, linspace, eye...), built from scalar
// constants, lax::iota and lax::broadcast_in_dim so that no data is touched here.
#include <cmath>
#include <limits>

#include "ops_impl.h"
#include "strata/sizes.h"

namespace strata {

using namespace ops_detail;

namespace {
/// A negative dimension is an error, and so is an eager result too large to allocate; the
/// scope names `op` in any allocation failure of the ops it is built from.
void check_shape(std::string_view op, const Shape &shape, DType dtype) {
  for (int64_t d : shape)
    if (d < 0)
      fail(op, "negative dimension in shape ", shape_str(shape));
  check_result_size(op, dtype, shape);
}
bool integral(double v) { return std::isfinite(v) && std::floor(v) == v; }
} // namespace

Array zeros(const Shape &shape, DType dtype) {
  AllocationScope scope("zeros");
  check_shape("zeros", shape, dtype);
  return constant(0.0, {dtype, false}, shape);
}
Array ones(const Shape &shape, DType dtype) {
  AllocationScope scope("ones");
  check_shape("ones", shape, dtype);
  return constant(1.0, {dtype, false}, shape);
}
Array full(const Shape &shape, double value, DType dtype) {
  AllocationScope scope("full");
  check_shape("full", shape, dtype);
  return constant(value, {dtype, false}, shape);
}
Array full(const Shape &shape, const Array &value) {
  AllocationScope scope("full");
  check_shape("full", shape, value.dtype());
  return broadcast_to_shape("full", convert(value, {value.dtype(), false}), shape);
}

// The *_like functions keep x's weak flag, as lax.full_like does.
Array zeros_like(const Array &x) { return constant(0.0, typed(x), x.shape()); }
Array ones_like(const Array &x) { return constant(1.0, typed(x), x.shape()); }
Array full_like(const Array &x, double value) { return constant(value, typed(x), x.shape()); }

Array arange(double start, double stop, double step, std::optional<DType> dtype) {
  AllocationScope scope("arange");
  if (step == 0)
    fail("arange", "step must not be zero");
  if (!std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(step))
    fail("arange", "arguments must be finite, got start=", start, " stop=", stop, " step=", step);
  bool all_integral = integral(start) && integral(stop) && integral(step);
  DType dt = dtype.value_or(all_integral ? default_int_dtype() : default_float_dtype());
  double count = std::max(0.0, std::ceil((stop - start) / step));
  if (!(count < 0x1p63)) // the cast below would be undefined
    throw AllocationError(detail::cat("[arange] too large: ", count, " elements of ",
                                      short_name(dt), " overflow int64"));
  int64_t n = static_cast<int64_t>(count);
  check_result_size("arange", dt, {n});
  if (n == 0)
    return constant(0.0, {dt, false}, {0});
  if (is_integer(dt) && all_integral) {
    // Exact in the integer type itself.
    Array i = lax::iota(dt, {n});
    return lax::add(lax::mul(i, constant(step, {dt, false}, {n})),
                    constant(start, {dt, false}, {n}));
  }
  // Computed in f64 and rounded once, as numpy computes on the host.
  Array i = lax::iota(DType::Float64, {n});
  Array v = lax::add(lax::mul(i, constant(step, {DType::Float64, false}, {n})),
                     constant(start, {DType::Float64, false}, {n}));
  return lax::convert_element_type(v, dt);
}

Array arange(int64_t stop, DType dtype) {
  return arange(0.0, static_cast<double>(stop), 1.0, dtype);
}

Array linspace(double start, double stop, int64_t num, bool endpoint, DType dtype) {
  AllocationScope scope("linspace");
  if (num < 0)
    fail("linspace", "number of samples must be non-negative, got ", num);
  TypedDType f64{DType::Float64, false};
  if (num == 0)
    return constant(0.0, {dtype, false}, {0});
  check_result_size("linspace", dtype, {num});
  int64_t div = endpoint ? num - 1 : num;
  double step = div > 0 ? (stop - start) / static_cast<double>(div) : 0.0;
  Array i = lax::iota(DType::Float64, {num});
  Array v = lax::add(lax::mul(i, constant(step, f64, {num})), constant(start, f64, {num}));
  if (endpoint && num > 1) // the last sample is exactly `stop`
    v = lax::select(lax::eq(i, constant(static_cast<double>(num - 1), f64, {num})),
                    constant(stop, f64, {num}), v);
  if (is_integer(dtype)) // numpy floors before casting to an integer type
    v = lax::floor(v);
  return lax::convert_element_type(v, dtype);
}

Array eye(int64_t n, std::optional<int64_t> m, int64_t k, DType dtype) {
  AllocationScope scope("eye");
  int64_t cols = m.value_or(n);
  if (n < 0 || cols < 0)
    fail("eye", "negative dimension in shape ", shape_str({n, cols}));
  check_result_size("eye", dtype, {n, cols});
  DType it = std::max(n, cols) < std::numeric_limits<int32_t>::max() ? DType::Int32 : DType::Int64;
  Shape shape{n, cols};
  if (k >= cols || -k >= n) // the diagonal lies outside the matrix (and k may not fit `it`)
    return constant(0.0, {dtype, false}, shape);
  Array row = lax::iota(it, shape, 0), col = lax::iota(it, shape, 1);
  Array on = lax::eq(lax::add(row, constant(static_cast<double>(k), {it, false}, shape)), col);
  return lax::convert_element_type(on, dtype);
}

Array astype(const Array &x, DType dtype) {
  if (x.dtype() == dtype && !x.weak_type())
    return x;
  return lax::convert_element_type(x, dtype, false);
}

DType result_type(const std::vector<Array> &xs) { return promoted_type("result_type", xs).dtype; }

} // namespace strata
