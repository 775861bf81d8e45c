// Elementwise primitives: each row below is one primitive with its dtype class, traits and
// scalar function; the shared kernels are in elementwise_impl.h.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>

#include "../elementwise_impl.h"
#include "../transforms/rules_impl.h"
#include "strata/lax.h"

namespace strata {

// ---- Shared rules -------------------------------------------------------------------------------
bool accepts(Accepts a, DType t) {
  switch (a) {
  case Accepts::Float: return is_floating(t);
  case Accepts::Numeric: return is_floating(t) || is_integer(t);
  case Accepts::Signed: return is_floating(t) || is_signed_integer(t);
  case Accepts::IntOrBool: return is_integer(t) || is_bool(t);
  case Accepts::Any: return true;
  }
  return false;
}
std::string_view accepts_str(Accepts a) {
  switch (a) {
  case Accepts::Float: return "floating-point";
  case Accepts::Numeric: return "integer or floating-point";
  case Accepts::Signed: return "signed integer or floating-point";
  case Accepts::IntOrBool: return "integer or bool";
  case Accepts::Any: return "any";
  }
  return "";
}

void expect_arity(std::string_view op, std::span<const AbstractValue> in, size_t n) {
  if (in.size() != n)
    fail(op, "expects ", n, " operands, got ", in.size());
}

std::vector<AbstractValue> unary_shape_rule(std::string_view op, Accepts acc, bool bool_out,
                                            std::span<const AbstractValue> in) {
  expect_arity(op, in, 1);
  if (!accepts(acc, in[0].dtype)) {
    std::string_view what = accepts_str(acc);
    const char *article = std::string_view("aeiou").find(what[0]) == what.npos ? "a " : "an ";
    fail_kind(ErrorKind::Type, op, "expects ", article, what, " operand, got ", in[0].str());
  }
  if (bool_out)
    return {{in[0].shape, DType::Bool, false}};
  return {in[0]};
}

std::vector<AbstractValue> binary_shape_rule(std::string_view op, Accepts acc, bool bool_out,
                                             std::span<const AbstractValue> in) {
  expect_arity(op, in, 2);
  const AbstractValue &x = in[0], &y = in[1];
  if (x.dtype != y.dtype)
    fail_kind(ErrorKind::Type, op, "operand dtypes differ: ", x.str(), " and ", y.str());
  if (!accepts(acc, x.dtype))
    fail_kind(ErrorKind::Type, op, "expects ", accepts_str(acc), " operands, got ", x.str(),
              " and ", y.str());
  if (x.shape != y.shape)
    fail(op, "operand shapes differ: ", x.str(), " and ", y.str());
  if (bool_out)
    return {{x.shape, DType::Bool, false}};
  return {{x.shape, x.dtype, x.weak_type && y.weak_type}};
}

namespace {

// ---- Definers -----------------------------------------------------------------------------------
template <Accepts A, bool BoolOut = false, class F>
const Primitive &def_unary(const char *name, uint32_t traits, rules::UnaryDeriv deriv, F f) {
  Primitive p;
  p.name = name;
  p.traits = traits | kElementwise | kFusible | (BoolOut ? kComparison | kNonDifferentiable : 0);
  p.jvp = rules::unary_jvp(deriv);
  p.vjp = rules::unary_vjp(deriv);
  p.batch = rules::elementwise_batch_rule();
  p.shape_rule = [name](std::span<const AbstractValue> in, const Params &) {
    return unary_shape_rule(name, A, BoolOut, in);
  };
  p.impl = [f](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
    Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
    STRATA_DISPATCH(in[0].dtype(), T, {
      if constexpr (accepts_v<A, T>()) {
        using U = std::conditional_t<BoolOut, bool, T>;
        map_unary(in[0].data<T>(), static_cast<U *>(y.mutable_data()), y.size(),
                  [&](compute_t<T> c) { return f(c); });
      }
    });
    return std::vector<Array>{y};
  };
  return register_primitive(std::move(p));
}

template <Accepts A, bool BoolOut = false, class F>
const Primitive &def_binary(const char *name, uint32_t traits, rules::BinaryDeriv deriv, F f,
                            JvpRule jvp = {}, VjpRule vjp = {}) {
  Primitive p;
  p.name = name;
  p.traits = traits | kElementwise | kFusible | (BoolOut ? kComparison | kNonDifferentiable : 0);
  p.jvp = jvp ? jvp : rules::binary_jvp(deriv);
  p.vjp = vjp ? vjp : rules::binary_vjp(deriv);
  p.batch = rules::elementwise_batch_rule();
  p.shape_rule = [name](std::span<const AbstractValue> in, const Params &) {
    return binary_shape_rule(name, A, BoolOut, in);
  };
  p.impl = [f](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
    Array z = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
    STRATA_DISPATCH(in[0].dtype(), T, {
      if constexpr (accepts_v<A, T>()) {
        using U = std::conditional_t<BoolOut, bool, T>;
        map_binary(in[0].data<T>(), in[1].data<T>(), static_cast<U *>(z.mutable_data()), z.size(),
                   [&](compute_t<T> a, compute_t<T> b) { return f(a, b); });
      }
    });
    return std::vector<Array>{z};
  };
  return register_primitive(std::move(p));
}

// Two's-complement wrapping for signed integer arithmetic (C++ leaves overflow undefined).
template <class C> constexpr bool signed_int_v = std::is_integral_v<C> && std::is_signed_v<C>;
template <class C, class Op> C wrap(C a, C b, Op op) {
  if constexpr (signed_int_v<C> && !std::is_same_v<C, bool>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(op(static_cast<U>(a), static_cast<U>(b)));
  } else {
    return static_cast<C>(op(a, b));
  }
}
template <class C> bool is_nan(C c) {
  if constexpr (std::is_floating_point_v<C>)
    return std::isnan(c);
  else
    return false;
}
// max and min that propagate NaN from either side, as XLA defines them (used by clamp too).
template <class C> C nan_max(C a, C b) {
  if (is_nan(a) || is_nan(b))
    return is_nan(a) ? a : b;
  return a > b ? a : b;
}
template <class C> C nan_min(C a, C b) {
  if (is_nan(a) || is_nan(b))
    return is_nan(a) ? a : b;
  return a < b ? a : b;
}

// erf^-1: Giles' single-precision approximation ("Approximating the erfinv function", 2010),
// then Newton steps in double precision, which make it accurate to about an ulp in f64.
double erf_inv_f64(double x) {
  if (x <= -1)
    return x == -1 ? -std::numeric_limits<double>::infinity()
                   : std::numeric_limits<double>::quiet_NaN();
  if (x >= 1)
    return x == 1 ? std::numeric_limits<double>::infinity()
                  : std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(x))
    return x;
  double w = -std::log((1.0 - x) * (1.0 + x)), p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double ax = std::fabs(x), y = p * ax;
  const double two_over_sqrt_pi = 1.1283791670955126;
  if (ax <= 0.5) {
    for (int i = 0; i < 2; ++i)
      y -= (std::erf(y) - ax) / (two_over_sqrt_pi * std::exp(-y * y));
  } else {
    // In the tail erf(y) rounds to 1 and loses the digits that matter, while 1 - |x| is exact;
    // so solve log(erfc(y)) = log(1 - |x|), nearly quadratic in y: Newton converges from the
    // approximation's rough start (off by 1e-4 near |x| = 1 - 2^-53) in a few steps.
    double target = std::log(1.0 - ax);
    for (int i = 0; i < 6; ++i) {
      double c = std::erfc(y);
      double step = (std::log(c) - target) * c / (-two_over_sqrt_pi * std::exp(-y * y));
      y -= step;
      if (std::fabs(step) <= 1e-17 * y)
        break;
    }
  }
  return std::copysign(y, x);
}

// ---- Unary --------------------------------------------------------------------------------------
const Primitive &neg_p = def_unary<Accepts::Numeric>(
    "neg", kLinear, [](const Array &x, const Array &out, const Params &) -> Array { return rules::full_like(x, -1); },
    [](auto x) {
  using C = decltype(x);
  if constexpr (std::is_floating_point_v<C>)
    return -x; // not 0 - x, which gives +0 for +0
  else
    return wrap(C(0), x, [](auto a, auto b) { return a - b; });
});
const Primitive &abs_p = def_unary<Accepts::Numeric>(
    "abs", kNone, [](const Array &x, const Array &out, const Params &) -> Array { return lax::sign(x); },
    [](auto x) {
  using C = decltype(x);
  if constexpr (std::is_unsigned_v<C>)
    return x;
  else if constexpr (std::is_floating_point_v<C>)
    return std::fabs(x);
  else
    return x < 0 ? wrap(C(0), x, [](auto a, auto b) { return a - b; }) : x;
});
const Primitive &sign_p = def_unary<Accepts::Numeric>(
    "sign", kNone, nullptr,
    [](auto x) {
  using C = decltype(x);
  // NaN and both zeros map to themselves (XLA keeps the sign of -0).
  return x > C(0) ? C(1) : (x < C(0) ? C(-1) : x);
});
const Primitive &floor_p =
    def_unary<Accepts::Float>(
    "floor", kNone, nullptr,
    [](auto x) { return std::floor(x); });
const Primitive &ceil_p =
    def_unary<Accepts::Float>(
    "ceil", kNone, nullptr,
    [](auto x) { return std::ceil(x); });
const Primitive &round_p = def_unary<Accepts::Float>(
    "round", kNone, nullptr,
    [](auto x) {
  return std::nearbyint(x); // the default rounding mode: half to even
});
const Primitive &exp_p =
    def_unary<Accepts::Float>(
    "exp", kNone, [](const Array &x, const Array &out, const Params &) -> Array { return out; },
    [](auto x) { return std::exp(x); });
const Primitive &log_p =
    def_unary<Accepts::Float>(
    "log", kNone, [](const Array &x, const Array &out, const Params &) -> Array { return lax::div(rules::full_like(x, 1), x); },
    [](auto x) { return std::log(x); });
const Primitive &log1p_p =
    def_unary<Accepts::Float>(
    "log1p", kNone, [](const Array &x, const Array &out, const Params &) -> Array { return lax::div(rules::full_like(x, 1), lax::add(rules::full_like(x, 1), x)); },
    [](auto x) { return std::log1p(x); });
const Primitive &expm1_p =
    def_unary<Accepts::Float>(
    "expm1", kNone, [](const Array &x, const Array &out, const Params &) -> Array { return lax::add(out, rules::full_like(x, 1)); },
    [](auto x) { return std::expm1(x); });
const Primitive &sqrt_p =
    def_unary<Accepts::Float>(
    "sqrt", kNone, [](const Array &x, const Array &out, const Params &) -> Array { return lax::div(rules::full_like(x, 0.5), out); },
    [](auto x) { return std::sqrt(x); });
const Primitive &rsqrt_p = def_unary<Accepts::Float>(
    "rsqrt", kNone, [](const Array &x, const Array &out, const Params &) -> Array { return lax::mul(rules::full_like(x, -0.5), lax::div(out, x)); },
    [](auto x) {
  using C = decltype(x);
  return C(1) / std::sqrt(x);
});
const Primitive &sin_p =
    def_unary<Accepts::Float>(
    "sin", kNone, [](const Array &x, const Array &out, const Params &) -> Array { return lax::cos(x); },
    [](auto x) { return std::sin(x); });
const Primitive &cos_p =
    def_unary<Accepts::Float>(
    "cos", kNone, [](const Array &x, const Array &out, const Params &) -> Array { return lax::neg(lax::sin(x)); },
    [](auto x) { return std::cos(x); });
const Primitive &tan_p =
    def_unary<Accepts::Float>(
    "tan", kNone, [](const Array &x, const Array &out, const Params &) -> Array { return lax::add(rules::full_like(x, 1), lax::mul(out, out)); },
    [](auto x) { return std::tan(x); });
const Primitive &tanh_p =
    def_unary<Accepts::Float>(
    "tanh", kNone, [](const Array &x, const Array &out, const Params &) -> Array { return lax::sub(rules::full_like(x, 1), lax::mul(out, out)); },
    [](auto x) { return std::tanh(x); });
const Primitive &logistic_p = def_unary<Accepts::Float>(
    "logistic", kNone, [](const Array &x, const Array &out, const Params &) -> Array { return lax::mul(out, lax::sub(rules::full_like(x, 1), out)); },
    [](auto x) {
  using C = decltype(x);
  if (x >= C(0))
    return C(1) / (C(1) + std::exp(-x));
  C e = std::exp(x);
  return e / (C(1) + e);
});
const Primitive &erf_p =
    def_unary<Accepts::Float>(
    "erf", kNone, [](const Array &x, const Array &out, const Params &) -> Array { return lax::mul(rules::full_like(x, 1.1283791670955126), lax::exp(lax::neg(lax::mul(x, x)))); },
    [](auto x) { return std::erf(x); });
const Primitive &erf_inv_p = def_unary<Accepts::Float>(
    "erf_inv", kNone, [](const Array &x, const Array &out, const Params &) -> Array { return lax::mul(rules::full_like(x, 0.88622692545275801), lax::exp(lax::mul(out, out))); },
    [](auto x) {
  using C = decltype(x);
  return static_cast<C>(erf_inv_f64(static_cast<double>(x)));
});
const Primitive &is_finite_p = def_unary<Accepts::Float, true>(
    "is_finite", kNone, nullptr,
    [](auto x) { return std::isfinite(x); });
const Primitive &not_p = def_unary<Accepts::IntOrBool>(
    "not", kNonDifferentiable, nullptr,
    [](auto x) {
  using C = decltype(x);
  if constexpr (std::is_same_v<C, bool>)
    return !x;
  else
    return static_cast<C>(~x);
});

// integer_pow: x**y for a static integer y, by repeated squaring.
template <class C> C ipow(C x, int64_t y) {
  bool inv = y < 0;
  // Negate in unsigned arithmetic: -y overflows for INT64_MIN.
  uint64_t e = inv ? uint64_t{0} - static_cast<uint64_t>(y) : static_cast<uint64_t>(y);
  C acc = C(1), base = x;
  while (e) {
    if (e & 1)
      acc = wrap(acc, base, [](auto a, auto b) { return a * b; });
    base = wrap(base, base, [](auto a, auto b) { return a * b; });
    e >>= 1;
  }
  if constexpr (std::is_floating_point_v<C>)
    return inv ? C(1) / acc : acc;
  else
    return acc;
}
const Primitive &integer_pow_p = [] () -> const Primitive & {
  Primitive p;
  p.name = "integer_pow";
  p.traits = kElementwise | kFusible;
  p.shape_rule = [](std::span<const AbstractValue> in, const Params &params) {
    auto out = unary_shape_rule("integer_pow", Accepts::Numeric, false, in);
    int64_t y = params.get_int("y");
    if (y < 0 && !is_floating(in[0].dtype))
      fail("integer_pow", "negative exponent ", y, " for integer operand ", in[0].str());
    return out;
  };
  p.impl = [](std::span<const Array> in, const Params &params,
              std::span<const AbstractValue> out) {
    int64_t y = params.get_int("y");
    Array z = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
    STRATA_DISPATCH(in[0].dtype(), T, {
      if constexpr (accepts_v<Accepts::Numeric, T>()) {
        map_unary(in[0].data<T>(), static_cast<T *>(z.mutable_data()), z.size(),
                  [&](compute_t<T> c) { return ipow(c, y); });
      }
    });
    return std::vector<Array>{z};
  };
  // d/dx x^y = y x^(y-1)
  rules::UnaryDeriv d = [](const Array &x, const Array &, const Params &params) -> Array {
    int64_t y = params.get_int("y");
    if (y == 0)
      return rules::full_like(x, 0);
    if (y == 1)
      return rules::full_like(x, 1);
    return lax::mul(rules::full_like(x, static_cast<double>(y)), lax::integer_pow(x, y - 1));
  };
  p.jvp = rules::unary_jvp(d);
  p.vjp = rules::unary_vjp(d);
  p.batch = rules::elementwise_batch_rule();
  return register_primitive(std::move(p));
}();

// ---- Binary -------------------------------------------------------------------------------------
const Primitive &add_p = def_binary<Accepts::Numeric>(
    "add", kLinear, nullptr,
    [](auto a, auto b) { return wrap(a, b, [](auto x, auto y) { return x + y; }); },
    [](std::span<const Array>, std::span<const Array> t, std::span<const Array>,
       const Params &) -> std::vector<Array> { return {rules::add_tangents(t[0], t[1])}; },
    [](std::span<const Array>, std::span<const Array>, std::span<const Array> ct,
       const Params &) -> std::vector<Array> { return {ct[0], ct[0]}; });
const Primitive &sub_p = def_binary<Accepts::Numeric>(
    "sub", kLinear, nullptr,
    [](auto a, auto b) { return wrap(a, b, [](auto x, auto y) { return x - y; }); },
    [](std::span<const Array>, std::span<const Array> t, std::span<const Array>,
       const Params &) -> std::vector<Array> {
      return {rules::add_tangents(t[0], rules::is_zero(t[1]) ? Array() : lax::neg(t[1]))};
    },
    [](std::span<const Array>, std::span<const Array>, std::span<const Array> ct,
       const Params &) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array(), Array()};
      return {ct[0], lax::neg(ct[0])};
    });
const Primitive &mul_p = def_binary<Accepts::Numeric>(
    "mul", kNone,
    [](const Array &x, const Array &y, const Array &out, int which) -> Array {
      return which == 0 ? y : x;
    },
    [](auto a, auto b) {
  return wrap(a, b, [](auto x, auto y) { return x * y; });
});
// Integer division rounds toward zero; x/0 = -1 and MIN/-1 = MIN, as XLA defines them.
const Primitive &div_p = def_binary<Accepts::Numeric>(
    "div", kNone,
    [](const Array &x, const Array &y, const Array &out, int which) -> Array {
      return which == 0 ? lax::div(rules::full_like(y, 1), y) : lax::neg(lax::div(out, y));
    },
    [](auto a, auto b) {
  using C = decltype(a);
  if constexpr (std::is_integral_v<C>) {
    if (b == 0)
      return static_cast<C>(-1);
    if constexpr (std::is_signed_v<C>)
      if (a == std::numeric_limits<C>::min() && b == -1)
        return a;
    return static_cast<C>(a / b);
  } else {
    return a / b;
  }
});
// Remainder with the dividend's sign; x%0 = x and MIN%-1 = 0, as XLA defines them.
const Primitive &rem_p = def_binary<Accepts::Numeric>(
    "rem", kNone,
    [](const Array &x, const Array &y, const Array &out, int which) -> Array {
      if (which == 0)
        return rules::full_like(x, 1);
      Array q = lax::div(x, y); // d/dy (x - y * trunc(x / y)) = -trunc(x / y)
      return lax::neg(lax::mul(lax::sign(q), lax::floor(lax::abs(q))));
    },
    [](auto a, auto b) {
  using C = decltype(a);
  if constexpr (std::is_integral_v<C>) {
    if (b == 0)
      return a;
    if constexpr (std::is_signed_v<C>)
      if (b == -1)
        return C(0);
    return static_cast<C>(a % b);
  } else {
    return std::fmod(a, b);
  }
});
const Primitive &pow_p =
    def_binary<Accepts::Float>(
    "pow", kNone,
    [](const Array &x, const Array &y, const Array &out, int which) -> Array {
      if (which == 0)
        return lax::mul(y, lax::pow(x, lax::sub(y, rules::full_like(y, 1))));
      // d/dy x^y = log(x) x^y, taken as 0 at x = 0 (as JAX does).
      return lax::select(lax::eq(x, rules::full_like(x, 0)), rules::full_like(x, 0),
                         lax::mul(lax::log(x), out));
    },
    [](auto a, auto b) { return std::pow(a, b); });
const Primitive &max_p = def_binary<Accepts::Any>(
    "max", kNone,
    [](const Array &x, const Array &y, const Array &out, int which) -> Array {
      // Ties split the derivative evenly, as JAX does.
      const Array &a = which == 0 ? x : y, &b = which == 0 ? y : x;
      return lax::add(lax::convert_element_type(lax::gt(a, b), a.dtype()),
                      lax::mul(rules::full_like(a, 0.5),
                               lax::convert_element_type(lax::eq(a, b), a.dtype())));
    },
    [](auto a, auto b) {
  return nan_max(a, b);
});
const Primitive &min_p = def_binary<Accepts::Any>(
    "min", kNone,
    [](const Array &x, const Array &y, const Array &out, int which) -> Array {
      const Array &a = which == 0 ? x : y, &b = which == 0 ? y : x;
      return lax::add(lax::convert_element_type(lax::lt(a, b), a.dtype()),
                      lax::mul(rules::full_like(a, 0.5),
                               lax::convert_element_type(lax::eq(a, b), a.dtype())));
    },
    [](auto a, auto b) {
  return nan_min(a, b);
});
const Primitive &atan2_p =
    def_binary<Accepts::Float>(
    "atan2", kNone,
    [](const Array &x, const Array &y, const Array &out, int which) -> Array {
      Array d = lax::add(lax::mul(x, x), lax::mul(y, y));
      return which == 0 ? lax::div(y, d) : lax::neg(lax::div(x, d));
    },
    [](auto a, auto b) { return std::atan2(a, b); });
const Primitive &and_p =
    def_binary<Accepts::IntOrBool>("and", kNonDifferentiable, nullptr, [](auto a, auto b) {
      using C = decltype(a);
      return static_cast<C>(a & b);
    });
const Primitive &or_p =
    def_binary<Accepts::IntOrBool>("or", kNonDifferentiable, nullptr, [](auto a, auto b) {
      using C = decltype(a);
      return static_cast<C>(a | b);
    });
const Primitive &xor_p =
    def_binary<Accepts::IntOrBool>("xor", kNonDifferentiable, nullptr, [](auto a, auto b) {
      using C = decltype(a);
      return static_cast<C>(a ^ b);
    });
const Primitive &eq_p =
    def_binary<Accepts::Any, true>("eq", kNone, nullptr, [](auto a, auto b) { return a == b; });
const Primitive &ne_p =
    def_binary<Accepts::Any, true>("ne", kNone, nullptr, [](auto a, auto b) { return a != b; });
const Primitive &lt_p =
    def_binary<Accepts::Any, true>("lt", kNone, nullptr, [](auto a, auto b) { return a < b; });
const Primitive &le_p =
    def_binary<Accepts::Any, true>("le", kNone, nullptr, [](auto a, auto b) { return a <= b; });
const Primitive &gt_p =
    def_binary<Accepts::Any, true>("gt", kNone, nullptr, [](auto a, auto b) { return a > b; });
const Primitive &ge_p =
    def_binary<Accepts::Any, true>("ge", kNone, nullptr, [](auto a, auto b) { return a >= b; });

// ---- select, clamp, convert_element_type, stop_gradient -----------------------------------------
const Primitive &select_p = [] () -> const Primitive & {
  Primitive p;
  p.name = "select";
  p.traits = kElementwise | kFusible;
  p.shape_rule = [](std::span<const AbstractValue> in, const Params &) {
    expect_arity("select", in, 3);
    const AbstractValue &c = in[0], &t = in[1], &f = in[2];
    if (c.dtype != DType::Bool)
      fail_kind(ErrorKind::Type, "select", "predicate must be bool, got ", c.str());
    if (t.dtype != f.dtype)
      fail_kind(ErrorKind::Type, "select", "branches differ: ", t.str(), " and ", f.str());
    if (t.shape != f.shape)
      fail("select", "branches differ: ", t.str(), " and ", f.str());
    if (!c.shape.empty() && c.shape != t.shape)
      fail("select", "predicate ", c.str(), " must be a scalar or match the branches ", t.str());
    return std::vector<AbstractValue>{{t.shape, t.dtype, t.weak_type && f.weak_type}};
  };
  p.impl = [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
    Array z = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
    const bool *c = in[0].data<bool>();
    bool scalar = in[0].ndim() == 0;
    STRATA_DISPATCH(out[0].dtype, T, {
      const T *t = in[1].data<T>(), *f = in[2].data<T>();
      T *o = static_cast<T *>(z.mutable_data());
      parallel_for(z.size(), kElementwiseGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i)
          o[i] = c[scalar ? 0 : i] ? t[i] : f[i];
      });
    });
    return std::vector<Array>{z};
  };
  p.jvp = [](std::span<const Array> x, std::span<const Array> t, std::span<const Array>,
              const Params &) -> std::vector<Array> {
    if (rules::is_zero(t[1]) && rules::is_zero(t[2]))
      return {Array()};
    auto tangent = [&](int i) { return rules::is_zero(t[i]) ? rules::zeros_of(x[i]) : t[i]; };
    return {lax::select(x[0], tangent(1), tangent(2))};
  };
  p.vjp = [](std::span<const Array> x, std::span<const Array>, std::span<const Array> ct,
              const Params &) -> std::vector<Array> {
    if (rules::is_zero(ct[0]))
      return {Array(), Array(), Array()};
    Array zero = rules::zeros_of(ct[0]);
    return {Array(), lax::select(x[0], ct[0], zero), lax::select(x[0], zero, ct[0])};
  };
  p.batch = rules::elementwise_batch_rule(/*scalar_operands=*/{0});
  return register_primitive(std::move(p));
}();

const Primitive &clamp_p = [] () -> const Primitive & {
  Primitive p;
  p.name = "clamp";
  p.traits = kElementwise | kFusible;
  p.shape_rule = [](std::span<const AbstractValue> in, const Params &) {
    expect_arity("clamp", in, 3);
    const AbstractValue &lo = in[0], &x = in[1], &hi = in[2];
    for (const AbstractValue *b : {&lo, &hi}) {
      if (b->dtype != x.dtype)
        fail_kind(ErrorKind::Type, "clamp", "bound ", b->str(), " and operand ", x.str(),
                  " dtypes differ");
      if (!b->shape.empty() && b->shape != x.shape)
        fail("clamp", "bound ", b->str(), " must be a scalar or match the operand ", x.str());
    }
    if (is_bool(x.dtype))
      fail_kind(ErrorKind::Type, "clamp", "expects a numeric operand, got ", x.str());
    return std::vector<AbstractValue>{x};
  };
  p.impl = [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
    Array z = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
    bool slo = in[0].ndim() == 0, shi = in[2].ndim() == 0;
    STRATA_DISPATCH(out[0].dtype, T, {
      const T *lo = in[0].data<T>(), *x = in[1].data<T>(), *hi = in[2].data<T>();
      T *o = static_cast<T *>(z.mutable_data());
      parallel_for(z.size(), kElementwiseGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          // XLA's definition: a NaN anywhere gives NaN, and lo > hi gives hi.
          o[i] = store<T>(nan_min(nan_max(load(x[i]), load(lo[slo ? 0 : i])),
                                  load(hi[shi ? 0 : i])));
        }
      });
    });
    return std::vector<Array>{z};
  };
  // The operand's derivative is 1 strictly inside [lo, hi]; a bound's is 1 where it is the
  // result (as JAX defines them). Scalar bounds' cotangents are summed.
  auto masks = [](std::span<const Array> x) {
    Array lo = x[0].ndim() == x[1].ndim() ? x[0] : lax::broadcast_in_dim(x[0], x[1].shape(), {});
    Array hi = x[2].ndim() == x[1].ndim() ? x[2] : lax::broadcast_in_dim(x[2], x[1].shape(), {});
    Array in = lax::bitwise_and(lax::gt(x[1], lo), lax::lt(x[1], hi));
    return std::array<Array, 3>{lax::gt(lo, x[1]), in, lax::bitwise_and(lax::lt(hi, x[1]),
                                                                       lax::bitwise_not(lax::gt(lo, x[1])))};
  };
  p.jvp = [masks](std::span<const Array> x, std::span<const Array> t, std::span<const Array>,
                  const Params &) -> std::vector<Array> {
    auto m = masks(x);
    Array out;
    for (int i = 0; i < 3; ++i) {
      if (rules::is_zero(t[i]))
        continue;
      Array ti = t[i].ndim() == x[1].ndim() ? t[i] : lax::broadcast_in_dim(t[i], x[1].shape(), {});
      out = rules::add_tangents(out, lax::select(m[i], ti, rules::zeros_of(ti)));
    }
    return {out};
  };
  p.vjp = [masks](std::span<const Array> x, std::span<const Array>, std::span<const Array> ct,
                  const Params &) -> std::vector<Array> {
    if (rules::is_zero(ct[0]))
      return {Array(), Array(), Array()};
    auto m = masks(x);
    std::vector<Array> g;
    Array zero = rules::zeros_of(ct[0]);
    for (int i = 0; i < 3; ++i) {
      Array gi = lax::select(m[i], ct[0], zero);
      if (x[i].ndim() != x[1].ndim()) { // a scalar bound: sum over the operand's shape
        std::vector<int64_t> all(x[1].ndim());
        std::iota(all.begin(), all.end(), 0);
        gi = all.empty() ? gi : lax::reduce_sum(gi, all);
      }
      g.push_back(gi);
    }
    return g;
  };
  p.batch = rules::elementwise_batch_rule(/*scalar_operands=*/{0, 2});
  return register_primitive(std::move(p));
}();

// Float -> integer conversion truncates toward zero and saturates; NaN becomes 0.
template <class To, class From> To convert_scalar(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    if (std::isnan(v))
      return To(0);
    if (v <= static_cast<From>(std::numeric_limits<To>::min()))
      return std::numeric_limits<To>::min();
    if (v >= static_cast<From>(std::numeric_limits<To>::max()))
      return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// Rounds to float with round-to-odd (truncate, then set the last bit when inexact). Rounding
// that float again to f16/bf16, which have at least two bits fewer, gives the correctly rounded
// result; rounding to nearest twice can land on a false tie (f64 1+2^-11+2^-40 -> f16 1).
float round_odd_to_float(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || static_cast<double>(f) == d)
    return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d))
    f = std::nextafter(f, 0.0f);
  return std::bit_cast<float>(std::bit_cast<uint32_t>(f) | 1u);
}
float round_odd_to_float(uint64_t magnitude, bool negative) {
  int shift = std::bit_width(magnitude) - std::numeric_limits<float>::digits;
  if (shift > 0) {
    bool sticky = (magnitude & ((uint64_t{1} << shift) - 1)) != 0;
    magnitude = (magnitude >> shift) | uint64_t{sticky};
  }
  float f = std::ldexp(static_cast<float>(magnitude), std::max(shift, 0)); // exact
  return negative ? -f : f;
}
/// The float to round to a 16-bit float: exact, or rounded to odd when C has more bits.
template <class C> float to_float_for_half(C v) {
  if constexpr (std::is_same_v<C, double>) {
    return round_odd_to_float(v);
  } else if constexpr (std::is_integral_v<C> && sizeof(C) >= 4) {
    if constexpr (std::is_signed_v<C>)
      if (v < 0)
        return round_odd_to_float(uint64_t{0} - static_cast<uint64_t>(v), true);
    return round_odd_to_float(static_cast<uint64_t>(v), false);
  } else {
    return static_cast<float>(v); // bool, 8-bit integers and float are exact in float
  }
}

const Primitive &convert_p = [] () -> const Primitive & {
  Primitive p;
  p.name = "convert_element_type";
  p.traits = kElementwise | kFusible;
  p.shape_rule = [](std::span<const AbstractValue> in, const Params &params) {
    expect_arity("convert_element_type", in, 1);
    return std::vector<AbstractValue>{
        {in[0].shape, params.get_dtype("new_dtype"), params.get_bool("weak_type")}};
  };
  p.impl = [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
    if (in[0].dtype() == out[0].dtype)
      return std::vector<Array>{in[0].with_weak_type(out[0].weak_type)};
    Array z = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
    int64_t n = z.size();
    STRATA_DISPATCH(in[0].dtype(), From, {
      const From *x = in[0].data<From>();
      STRATA_DISPATCH(out[0].dtype, To, {
        To *o = static_cast<To *>(z.mutable_data());
        parallel_for(n, kElementwiseGrain, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) {
            auto v = load(x[i]);
            if constexpr (is_half_v<To>)
              o[i] = store<To>(to_float_for_half(v));
            else
              o[i] = convert_scalar<To>(v);
          }
        });
      });
    });
    return std::vector<Array>{z};
  };
  // Tangents convert along when both types are floating; otherwise they are zero.
  p.jvp = [](std::span<const Array> x, std::span<const Array> t, std::span<const Array> out,
             const Params &params) -> std::vector<Array> {
    if (rules::is_zero(t[0]) || !is_floating(out[0].dtype()))
      return {Array()};
    return {lax::convert_element_type(t[0], out[0].dtype(), out[0].weak_type())};
  };
  p.vjp = [](std::span<const Array> x, std::span<const Array>, std::span<const Array> ct,
             const Params &) -> std::vector<Array> {
    if (rules::is_zero(ct[0]) || !is_floating(x[0].dtype()))
      return {Array()};
    return {lax::convert_element_type(ct[0], x[0].dtype(), x[0].weak_type())};
  };
  p.batch = rules::elementwise_batch_rule();
  return register_primitive(std::move(p));
}();

const Primitive &stop_gradient_p = [] () -> const Primitive & {
  Primitive p;
  p.name = "stop_gradient";
  p.traits = kElementwise | kFusible;
  p.shape_rule = [](std::span<const AbstractValue> in, const Params &) {
    expect_arity("stop_gradient", in, 1);
    return std::vector<AbstractValue>{in[0]};
  };
  p.impl = [](std::span<const Array> in, const Params &, std::span<const AbstractValue>) {
    return std::vector<Array>{in[0]};
  };
  p.jvp = [](std::span<const Array>, std::span<const Array>, std::span<const Array>,
             const Params &) -> std::vector<Array> { return {Array()}; };
  p.vjp = [](std::span<const Array>, std::span<const Array>, std::span<const Array>,
             const Params &) -> std::vector<Array> { return {Array()}; };
  p.batch = rules::elementwise_batch_rule();
  return register_primitive(std::move(p));
}();

} // namespace

// ---- lax wrappers -------------------------------------------------------------------------------
namespace lax {
Array neg(const Array &x) { return bind1(neg_p, {x}); }
Array abs(const Array &x) { return bind1(abs_p, {x}); }
Array sign(const Array &x) { return bind1(sign_p, {x}); }
Array floor(const Array &x) { return bind1(floor_p, {x}); }
Array ceil(const Array &x) { return bind1(ceil_p, {x}); }
Array round(const Array &x) { return bind1(round_p, {x}); }
Array exp(const Array &x) { return bind1(exp_p, {x}); }
Array log(const Array &x) { return bind1(log_p, {x}); }
Array log1p(const Array &x) { return bind1(log1p_p, {x}); }
Array expm1(const Array &x) { return bind1(expm1_p, {x}); }
Array sqrt(const Array &x) { return bind1(sqrt_p, {x}); }
Array rsqrt(const Array &x) { return bind1(rsqrt_p, {x}); }
Array sin(const Array &x) { return bind1(sin_p, {x}); }
Array cos(const Array &x) { return bind1(cos_p, {x}); }
Array tan(const Array &x) { return bind1(tan_p, {x}); }
Array tanh(const Array &x) { return bind1(tanh_p, {x}); }
Array logistic(const Array &x) { return bind1(logistic_p, {x}); }
Array erf(const Array &x) { return bind1(erf_p, {x}); }
Array erf_inv(const Array &x) { return bind1(erf_inv_p, {x}); }
Array is_finite(const Array &x) { return bind1(is_finite_p, {x}); }
Array bitwise_not(const Array &x) { return bind1(not_p, {x}); }
Array integer_pow(const Array &x, int64_t y) { return bind1(integer_pow_p, {x}, {{"y", y}}); }

Array add(const Array &x, const Array &y) { return bind1(add_p, {x, y}); }
Array sub(const Array &x, const Array &y) { return bind1(sub_p, {x, y}); }
Array mul(const Array &x, const Array &y) { return bind1(mul_p, {x, y}); }
Array div(const Array &x, const Array &y) { return bind1(div_p, {x, y}); }
Array rem(const Array &x, const Array &y) { return bind1(rem_p, {x, y}); }
Array pow(const Array &x, const Array &y) { return bind1(pow_p, {x, y}); }
Array max(const Array &x, const Array &y) { return bind1(max_p, {x, y}); }
Array min(const Array &x, const Array &y) { return bind1(min_p, {x, y}); }
Array atan2(const Array &x, const Array &y) { return bind1(atan2_p, {x, y}); }
Array bitwise_and(const Array &x, const Array &y) { return bind1(and_p, {x, y}); }
Array bitwise_or(const Array &x, const Array &y) { return bind1(or_p, {x, y}); }
Array bitwise_xor(const Array &x, const Array &y) { return bind1(xor_p, {x, y}); }
Array eq(const Array &x, const Array &y) { return bind1(eq_p, {x, y}); }
Array ne(const Array &x, const Array &y) { return bind1(ne_p, {x, y}); }
Array lt(const Array &x, const Array &y) { return bind1(lt_p, {x, y}); }
Array le(const Array &x, const Array &y) { return bind1(le_p, {x, y}); }
Array gt(const Array &x, const Array &y) { return bind1(gt_p, {x, y}); }
Array ge(const Array &x, const Array &y) { return bind1(ge_p, {x, y}); }

Array select(const Array &pred, const Array &t, const Array &f) {
  return bind1(select_p, {pred, t, f});
}
Array clamp(const Array &lo, const Array &x, const Array &hi) {
  return bind1(clamp_p, {lo, x, hi});
}
Array convert_element_type(const Array &x, DType dtype, bool weak_type) {
  return bind1(convert_p, {x}, {{"new_dtype", dtype}, {"weak_type", weak_type}});
}
Array stop_gradient(const Array &x) { return bind1(stop_gradient_p, {x}); }
} // namespace lax

} // namespace strata
