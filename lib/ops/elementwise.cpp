// numpy-style elementwise ops: JAX's dtype promotion, numpy's broadcasting, and the operators.
#include <algorithm>
#include <cmath>

#include "ops_impl.h"

namespace strata {

// ---- Promotion and broadcasting ------------------------------------------------------------
namespace ops_detail {

TypedDType promoted_type(std::string_view op, const std::vector<Array> &xs) {
  if (xs.empty())
    fail(op, "needs at least one array");
  TypedDType t = typed(xs[0]);
  for (size_t i = 1; i < xs.size(); ++i)
    t = promote_types(t, typed(xs[i]));
  return t;
}

std::vector<Array> promote(std::string_view op, const std::vector<Array> &xs) {
  TypedDType t = promoted_type(op, xs);
  std::vector<Array> out;
  out.reserve(xs.size());
  for (const Array &x : xs)
    out.push_back(convert(x, t));
  return out;
}

static bool join_shape(Shape &acc, const Shape &s) {
  size_t n = std::max(acc.size(), s.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t a = i < n - acc.size() ? 1 : acc[i - (n - acc.size())];
    int64_t b = i < n - s.size() ? 1 : s[i - (n - s.size())];
    if (a != b && a != 1 && b != 1)
      return false;
    out[i] = a == 1 ? b : a;
  }
  acc = std::move(out);
  return true;
}

Shape broadcast_shapes_of(std::string_view op, const std::vector<Array> &xs) {
  Shape acc;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (!join_shape(acc, xs[i].shape())) {
      // Name the first operand that disagrees with this one.
      for (size_t j = 0; j < i; ++j) {
        Shape pair = xs[j].shape();
        if (!join_shape(pair, xs[i].shape()))
          fail("broadcast", "shapes ", xs[j].type_str(), " and ", xs[i].type_str(),
               " are incompatible (in ", op, ")");
      }
      fail("broadcast", "shape ", xs[i].type_str(), " is incompatible with the broadcast shape ",
           shape_str(acc), " of the other operands (in ", op, ")");
    }
  }
  return acc;
}

Array broadcast_to_shape(std::string_view op, const Array &x, const Shape &shape) {
  if (x.shape() == shape)
    return x;
  int64_t r = x.ndim(), n = static_cast<int64_t>(shape.size());
  bool ok = r <= n;
  std::vector<int64_t> dims;
  for (int64_t i = 0; ok && i < r; ++i) {
    int64_t d = x.shape()[i], o = shape[n - r + i];
    ok = d == o || d == 1;
    dims.push_back(n - r + i);
  }
  if (!ok)
    fail(op, "cannot broadcast ", x.type_str(), " to shape ", shape_str(shape));
  return lax::broadcast_in_dim(x, shape, dims);
}

std::vector<Array> promote_and_broadcast(std::string_view op, const std::vector<Array> &xs) {
  Shape shape = broadcast_shapes_of(op, xs);
  std::vector<Array> out = promote(op, xs);
  for (Array &x : out)
    x = broadcast_to_shape(op, x, shape);
  return out;
}

Array constant(double value, TypedDType t, const Shape &shape) {
  Array c = lax::convert_element_type(Array(value), t.dtype, t.weak);
  return shape.empty() ? c : lax::broadcast_in_dim(c, shape, {});
}
Array constant_like(const Array &x, double value) { return constant(value, typed(x), x.shape()); }

} // namespace ops_detail

using namespace ops_detail;

namespace {

/// Promotes (then adjusts the joined type with `fix`) and broadcasts two operands.
std::pair<Array, Array> binary_args(std::string_view op, const Array &x, const Array &y,
                                    TypedDType (*fix)(TypedDType) = nullptr) {
  Shape shape = broadcast_shapes_of(op, {x, y});
  TypedDType t = promote_types(typed(x), typed(y));
  if (fix)
    t = fix(t);
  return {broadcast_to_shape(op, convert(x, t), shape),
          broadcast_to_shape(op, convert(y, t), shape)};
}

void require(std::string_view op, const Array &x, bool ok, std::string_view what) {
  if (!ok)
    fail_kind(ErrorKind::Type, op, "expects ", what, " operands, got ", x.type_str());
}

/// Applies a float-only lax function after promoting integer and bool inputs to float.
Array inexact_unary(const Array &x, Array (*f)(const Array &)) {
  return f(convert(x, to_inexact(typed(x))));
}

} // namespace

// ---- Arithmetic ------------------------------------------------------------------------------
Array add(const Array &x, const Array &y) {
  auto [a, b] = binary_args("add", x, y);
  return is_bool(a.dtype()) ? lax::bitwise_or(a, b) : lax::add(a, b); // bool add is "or"
}

Array subtract(const Array &x, const Array &y) {
  auto [a, b] = binary_args("subtract", x, y);
  if (is_bool(a.dtype()))
    fail_kind(ErrorKind::Type, "subtract", "boolean subtract is not supported (", x.type_str(),
              " and ", y.type_str(), "); use logical_xor");
  return lax::sub(a, b);
}

Array multiply(const Array &x, const Array &y) {
  auto [a, b] = binary_args("multiply", x, y);
  return is_bool(a.dtype()) ? lax::bitwise_and(a, b) : lax::mul(a, b); // bool mul is "and"
}

Array divide(const Array &x, const Array &y) {
  auto [a, b] = binary_args("divide", x, y, to_inexact);
  return lax::div(a, b);
}

Array floor_divide(const Array &x, const Array &y) {
  auto [a, b] = binary_args("floor_divide", x, y, to_numeric);
  DType t = a.dtype();
  if (is_unsigned_integer(t))
    return lax::div(a, b);
  if (is_integer(t)) {
    // Truncating division rounds toward zero; step down when the signs differ and it was inexact.
    Array q = lax::div(a, b);
    Array adjust = lax::bitwise_and(lax::ne(lax::sign(a), lax::sign(b)),
                                    lax::ne(lax::rem(a, b), constant_like(a, 0)));
    return lax::select(adjust, lax::sub(q, constant_like(q, 1)), q);
  }
  // Floats: numpy's divmod, so that x == floor_divide(x, y) * y + remainder(x, y).
  Array mod = lax::rem(a, b);
  Array div = lax::div(lax::sub(a, mod), b);
  Array adjust =
      lax::bitwise_and(lax::ne(mod, constant_like(mod, 0)), lax::ne(lax::sign(b), lax::sign(mod)));
  div = lax::select(adjust, lax::sub(div, constant_like(div, 1)), div);
  return lax::round(div);
}

Array remainder(const Array &x, const Array &y) {
  auto [a, b] = binary_args("remainder", x, y, to_numeric);
  Array zero = constant_like(a, 0);
  if (is_integer(b.dtype())) // x % 0 is 0 as in numpy (and avoids relying on rem's x%0)
    b = lax::select(lax::eq(b, zero), constant_like(b, 1), b);
  Array trunc = lax::rem(a, b);
  Array adjust =
      lax::bitwise_and(lax::ne(lax::lt(trunc, zero), lax::lt(b, zero)), lax::ne(trunc, zero));
  return lax::select(adjust, lax::add(trunc, b), trunc);
}

Array power(const Array &x, const Array &y) {
  // A concrete integer scalar exponent (a Python int: what JAX's jnp.power tests with
  // operator.index) is integer_pow: multiplications by repeated squaring, as in JAX, where pow
  // would be an exp and a log per element. Decided before the operands are promoted and
  // broadcast, so that the exponent is never converted nor broadcast to x's shape.
  if (y.is_concrete() && y.ndim() == 0 && is_integer(y.dtype())) {
    TypedDType t = to_numeric(promote_types(typed(x), typed(y)));
    if (is_inexact(t.dtype))
      return lax::integer_pow(convert(x, t), y.item<int64_t>());
  }
  auto [a, b] = binary_args("power", x, y, to_numeric);
  if (is_inexact(a.dtype()))
    return lax::pow(a, b);
  // Integers: square-and-multiply over the exponent's bits, one select per bit.
  Array zero = constant_like(b, 0), one = constant_like(a, 1), two = constant_like(b, 2);
  Array negative_exp = is_signed_integer(b.dtype()) ? lax::lt(b, zero) : Array();
  Array e = is_signed_integer(b.dtype()) ? lax::abs(b) : b;
  Array acc = one, base = a;
  int bits = static_cast<int>(itemsize(b.dtype()) * 8);
  for (int i = 0; i < bits; ++i) {
    Array odd = lax::ne(lax::rem(e, two), zero);
    acc = lax::select(odd, lax::mul(acc, base), acc);
    if (i + 1 < bits) {
      base = lax::mul(base, base);
      e = lax::div(e, two);
    }
  }
  if (negative_exp.valid()) {
    // x ** -n truncates 1 / x**n toward zero: 1 for x == 1, +-1 for x == -1, else 0.
    Array inv = lax::div(one, lax::select(lax::eq(acc, constant_like(acc, 0)), one, acc));
    acc = lax::select(negative_exp, inv, acc);
  }
  return acc;
}

Array maximum(const Array &x, const Array &y) {
  auto [a, b] = binary_args("maximum", x, y);
  return lax::max(a, b);
}
Array minimum(const Array &x, const Array &y) {
  auto [a, b] = binary_args("minimum", x, y);
  return lax::min(a, b);
}
Array arctan2(const Array &x, const Array &y) {
  auto [a, b] = binary_args("arctan2", x, y, to_inexact);
  return lax::atan2(a, b);
}
Array nextafter(const Array &x, const Array &y) {
  auto [a, b] = binary_args("nextafter", x, y, to_inexact);
  return lax::nextafter(a, b);
}

// ---- Comparisons -----------------------------------------------------------------------------
#define STRATA_COMPARISON(NAME, LAX)                                                               \
  Array NAME(const Array &x, const Array &y) {                                                     \
    auto [a, b] = binary_args(#NAME, x, y);                                                        \
    return lax::LAX(a, b);                                                                         \
  }
STRATA_COMPARISON(equal, eq)
STRATA_COMPARISON(not_equal, ne)
STRATA_COMPARISON(less, lt)
STRATA_COMPARISON(less_equal, le)
STRATA_COMPARISON(greater, gt)
STRATA_COMPARISON(greater_equal, ge)
#undef STRATA_COMPARISON

// ---- Logical and bitwise ---------------------------------------------------------------------
namespace {
Array to_bool(const Array &x) { return convert(x, {DType::Bool, false}); }
std::pair<Array, Array> logical_args(std::string_view op, const Array &x, const Array &y) {
  Shape shape = broadcast_shapes_of(op, {x, y});
  return {broadcast_to_shape(op, to_bool(x), shape), broadcast_to_shape(op, to_bool(y), shape)};
}
std::pair<Array, Array> bitwise_args(std::string_view op, const Array &x, const Array &y) {
  auto args = binary_args(op, x, y);
  DType t = args.first.dtype();
  if (!is_integer(t) && !is_bool(t))
    fail_kind(ErrorKind::Type, op, "expects integer or bool operands, got ", x.type_str(), " and ",
              y.type_str());
  return args;
}
} // namespace

Array logical_and(const Array &x, const Array &y) {
  auto [a, b] = logical_args("logical_and", x, y);
  return lax::bitwise_and(a, b);
}
Array logical_or(const Array &x, const Array &y) {
  auto [a, b] = logical_args("logical_or", x, y);
  return lax::bitwise_or(a, b);
}
Array logical_xor(const Array &x, const Array &y) {
  auto [a, b] = logical_args("logical_xor", x, y);
  return lax::bitwise_xor(a, b);
}
Array logical_not(const Array &x) { return lax::bitwise_not(to_bool(x)); }

Array bitwise_and(const Array &x, const Array &y) {
  auto [a, b] = bitwise_args("bitwise_and", x, y);
  return lax::bitwise_and(a, b);
}
Array bitwise_or(const Array &x, const Array &y) {
  auto [a, b] = bitwise_args("bitwise_or", x, y);
  return lax::bitwise_or(a, b);
}
Array bitwise_xor(const Array &x, const Array &y) {
  auto [a, b] = bitwise_args("bitwise_xor", x, y);
  return lax::bitwise_xor(a, b);
}
Array bitwise_not(const Array &x) {
  require("bitwise_not", x, is_integer(x.dtype()) || is_bool(x.dtype()), "integer or bool");
  return lax::bitwise_not(x);
}

// ---- Unary ---------------------------------------------------------------------------------
Array negative(const Array &x) {
  require("negative", x, !is_bool(x.dtype()), "numeric (not bool)");
  return lax::neg(x);
}
Array abs(const Array &x) {
  if (is_bool(x.dtype()) || is_unsigned_integer(x.dtype()))
    return x;
  return lax::abs(x);
}
Array sign(const Array &x) { return is_bool(x.dtype()) ? x : lax::sign(x); }

// Rounding is the identity on integers and bools, as in jnp.
// floor and ceil reject complex operands (lax's error); round rounds both parts, as jnp.round.
Array floor(const Array &x) { return is_inexact(x.dtype()) ? lax::floor(x) : x; }
Array ceil(const Array &x) { return is_inexact(x.dtype()) ? lax::ceil(x) : x; }
Array round(const Array &x) {
  if (is_complex(x.dtype()))
    return lax::complex(lax::round(lax::real(x)), lax::round(lax::imag(x)));
  return is_floating(x.dtype()) ? lax::round(x) : x;
}

Array square(const Array &x) { return lax::integer_pow(convert(x, to_numeric(typed(x))), 2); }
Array reciprocal(const Array &x) { return lax::integer_pow(convert(x, to_inexact(typed(x))), -1); }

Array exp(const Array &x) { return inexact_unary(x, lax::exp); }
Array log(const Array &x) { return inexact_unary(x, lax::log); }
Array log1p(const Array &x) { return inexact_unary(x, lax::log1p); }
Array expm1(const Array &x) { return inexact_unary(x, lax::expm1); }
Array sqrt(const Array &x) { return inexact_unary(x, lax::sqrt); }
Array rsqrt(const Array &x) { return inexact_unary(x, lax::rsqrt); }
Array sin(const Array &x) { return inexact_unary(x, lax::sin); }
Array cos(const Array &x) { return inexact_unary(x, lax::cos); }
Array tan(const Array &x) { return inexact_unary(x, lax::tan); }
Array tanh(const Array &x) { return inexact_unary(x, lax::tanh); }
Array sinh(const Array &x) { return inexact_unary(x, lax::sinh); }
Array cosh(const Array &x) { return inexact_unary(x, lax::cosh); }
Array arcsin(const Array &x) { return inexact_unary(x, lax::asin); }
Array arccos(const Array &x) { return inexact_unary(x, lax::acos); }
Array arctan(const Array &x) { return inexact_unary(x, lax::atan); }
Array arcsinh(const Array &x) { return inexact_unary(x, lax::asinh); }
Array arccosh(const Array &x) { return inexact_unary(x, lax::acosh); }
Array arctanh(const Array &x) { return inexact_unary(x, lax::atanh); }
Array cbrt(const Array &x) { return inexact_unary(x, lax::cbrt); }
Array exp2(const Array &x) { return inexact_unary(x, lax::exp2); }
Array erf(const Array &x) { return inexact_unary(x, lax::erf); }

Array isfinite(const Array &x) {
  if (is_floating(x.dtype()))
    return lax::is_finite(x);
  if (is_complex(x.dtype())) // both parts finite, as jnp.isfinite
    return lax::bitwise_and(lax::is_finite(lax::real(x)), lax::is_finite(lax::imag(x)));
  return constant(1.0, {DType::Bool, false}, x.shape());
}

// ---- Selection -----------------------------------------------------------------------------
Array where(const Array &cond, const Array &x, const Array &y) {
  Shape shape = broadcast_shapes_of("where", {cond, x, y});
  TypedDType t = promote_types(typed(x), typed(y));
  return lax::select(broadcast_to_shape("where", to_bool(cond), shape),
                     broadcast_to_shape("where", convert(x, t), shape),
                     broadcast_to_shape("where", convert(y, t), shape));
}

Array clip(const Array &x, std::optional<Array> lo, std::optional<Array> hi) {
  // As jnp.clip: maximum with the lower bound, then minimum with the upper one.
  Array out = x;
  if (lo)
    out = maximum(*lo, out);
  if (hi)
    out = minimum(*hi, out);
  return out;
}

// ---- Operators -------------------------------------------------------------------------------
Array operator+(const Array &x, const Array &y) { return add(x, y); }
Array operator-(const Array &x, const Array &y) { return subtract(x, y); }
Array operator*(const Array &x, const Array &y) { return multiply(x, y); }
Array operator/(const Array &x, const Array &y) { return divide(x, y); }
Array operator%(const Array &x, const Array &y) { return remainder(x, y); }
Array operator==(const Array &x, const Array &y) { return equal(x, y); }
Array operator!=(const Array &x, const Array &y) { return not_equal(x, y); }
Array operator<(const Array &x, const Array &y) { return less(x, y); }
Array operator<=(const Array &x, const Array &y) { return less_equal(x, y); }
Array operator>(const Array &x, const Array &y) { return greater(x, y); }
Array operator>=(const Array &x, const Array &y) { return greater_equal(x, y); }
Array operator&(const Array &x, const Array &y) { return bitwise_and(x, y); }
Array operator|(const Array &x, const Array &y) { return bitwise_or(x, y); }
Array operator^(const Array &x, const Array &y) { return bitwise_xor(x, y); }

} // namespace strata
