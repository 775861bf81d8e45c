// Elementwise primitives: each row below is one primitive with its dtype class, traits and
// scalar function; the shared kernels are in elementwise_impl.h.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>

#include "primitives/bessel_coefficients.h"
#include "primitives/elementwise_impl.h"
#include "primitives/rules_impl.h"
#include "strata/lax.h"

namespace strata {

// ---- Shared rules -------------------------------------------------------------------------------
bool accepts(Accepts a, DType t) {
  switch (a) {
  case Accepts::Float:
    return is_floating(t);
  case Accepts::Numeric:
    return is_floating(t) || is_integer(t);
  case Accepts::Signed:
    return is_floating(t) || is_signed_integer(t);
  case Accepts::Integer:
    return is_integer(t);
  case Accepts::IntOrBool:
    return is_integer(t) || is_bool(t);
  case Accepts::Any:
    return !is_complex(t);
  case Accepts::Inexact:
    return is_inexact(t);
  case Accepts::Number:
    return !is_bool(t);
  case Accepts::All:
    return true;
  }
  return false;
}
std::string_view accepts_str(Accepts a) {
  switch (a) {
  case Accepts::Float:
    return "floating-point";
  case Accepts::Numeric:
    return "integer or floating-point";
  case Accepts::Signed:
    return "signed integer or floating-point";
  case Accepts::Integer:
    return "integer";
  case Accepts::IntOrBool:
    return "integer or bool";
  case Accepts::Any:
    return "real";
  case Accepts::Inexact: // complex_note() names the complex dtypes
    return "floating-point";
  case Accepts::Number:
    return "integer or floating-point";
  case Accepts::All:
    return "any";
  }
  return "";
}

void expect_arity(std::string_view op, std::span<const AbstractValue> in, size_t n) {
  if (in.size() != n)
    fail(op, "expects ", n, " operands, got ", in.size());
}

namespace {
/// What an error adds for the classes that take complex dtypes besides those accepts_str names.
std::string_view complex_note(Accepts a, bool plural) {
  if (a != Accepts::Inexact && a != Accepts::Number)
    return "";
  return plural ? " (or complex ones)" : " (or a complex one)";
}
} // namespace

std::vector<AbstractValue> unary_shape_rule(std::string_view op, Accepts acc, bool bool_out,
                                            std::span<const AbstractValue> in) {
  expect_arity(op, in, 1);
  if (!accepts(acc, in[0].dtype)) {
    std::string_view what = accepts_str(acc);
    const char *article = std::string_view("aeiou").find(what[0]) == what.npos ? "a " : "an ";
    fail_kind(ErrorKind::Type, op, "expects ", article, what, " operand, got ", in[0].str(),
              complex_note(acc, false));
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
              " and ", y.str(), complex_note(acc, true));
  if (x.shape != y.shape)
    fail_kind(ErrorKind::Type, op, "operand shapes differ: ", x.str(), " and ", y.str());
  if (bool_out)
    return {{x.shape, DType::Bool, false}};
  return {{x.shape, x.dtype, x.weak_type && y.weak_type}};
}

namespace {

// ---- Definers -----------------------------------------------------------------------------------
template <Accepts A, bool BoolOut = false, class F>
const Primitive &def_unary(const char *name, uint32_t traits, rules::UnaryDeriv deriv, F f) {
  return register_primitive({
      .name = name,
      .traits = traits | kElementwise | kFusible | (BoolOut ? kComparison | kNonDifferentiable : 0),
      .shape_rule = [name](std::span<const AbstractValue> in,
                           const Params &) { return unary_shape_rule(name, A, BoolOut, in); },
      .impl =
          [f](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
            Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
            STRATA_DISPATCH_ALL(in[0].dtype(), T, {
              if constexpr (accepts_v<A, T>()) {
                using U = std::conditional_t<BoolOut, bool, T>;
                map_unary(in[0].data<T>(), static_cast<U *>(y.mutable_data()), y.size(),
                          [&](compute_t<T> c) { return f(c); });
              }
            });
            return std::vector<Array>{y};
          },
      .jvp = rules::unary_jvp(deriv),
      .vjp = rules::unary_vjp(deriv),
      .batch = rules::elementwise_batch_rule(),
  });
}

template <Accepts A, bool BoolOut = false, class F>
const Primitive &def_binary(const char *name, uint32_t traits, rules::BinaryDeriv deriv, F f,
                            JvpRule jvp = {}, VjpRule vjp = {}) {
  return register_primitive({
      .name = name,
      .traits = traits | kElementwise | kFusible | (BoolOut ? kComparison | kNonDifferentiable : 0),
      .shape_rule = [name](std::span<const AbstractValue> in,
                           const Params &) { return binary_shape_rule(name, A, BoolOut, in); },
      .impl =
          [f](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
            Array z = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
            STRATA_DISPATCH_ALL(in[0].dtype(), T, {
              if constexpr (accepts_v<A, T>()) {
                using U = std::conditional_t<BoolOut, bool, T>;
                map_binary(in[0].data<T>(), in[1].data<T>(), static_cast<U *>(z.mutable_data()),
                           z.size(), [&](compute_t<T> a, compute_t<T> b) { return f(a, b); });
              }
            });
            return std::vector<Array>{z};
          },
      .jvp = jvp ? jvp : rules::binary_jvp(deriv),
      .vjp = vjp ? vjp : rules::binary_vjp(deriv),
      .batch = rules::elementwise_batch_rule(),
  });
}

// Two's-complement wrapping for integer arithmetic (C++ leaves signed overflow undefined, and
// integers narrower than int compute in int, so uint16 products overflow too).
template <class C, class Op> C wrap(C a, C b, Op op) {
  if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
    using U = wrap_unsigned_t<C>;
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
// Complex numbers compare lexicographically, by real part and then imaginary part (as XLA's);
// one with a NaN part is NaN.
template <class C> bool is_nan(std::complex<C> c) { return is_nan(c.real()) || is_nan(c.imag()); }
template <class C> bool greater(C a, C b) {
  if constexpr (is_complex_v<C>)
    return a.real() > b.real() || (a.real() == b.real() && a.imag() > b.imag());
  else
    return a > b;
}
template <class C> C nan_max(C a, C b) {
  if (is_nan(a) || is_nan(b))
    return is_nan(a) ? a : b;
  return greater(a, b) ? a : b;
}
template <class C> C nan_min(C a, C b) {
  if (is_nan(a) || is_nan(b))
    return is_nan(a) ? a : b;
  return greater(b, a) ? a : b;
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

// ---- Special functions
// ---------------------------------------------------------------------------- In double precision
// for every float dtype (f16/bf16/f32 round the double result), by the algorithms that
// LowerToLinalg.cpp emits for the compiled path.
constexpr double kPi = 3.14159265358979323846;
constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// psi(x): reflection below 1/2 (psi(1-x) - pi/tan(pi x), the argument of tan reduced exactly),
// the recurrence psi(x) = psi(x+1) - 1/x up to x >= 10, then the asymptotic series to x^-14
// (error below 5e-17 there). NaN at 0 and the negative integers, as XLA.
double digamma_f64(double x) {
  if (std::isnan(x) || (x <= 0 && x == std::floor(x)))
    return kNaN;
  double acc = 0;
  if (x < 0.5) {
    acc = -kPi / std::tan(kPi * (x - std::nearbyint(x)));
    x = 1 - x;
  }
  for (int i = 0; i < 10 && x < 10; ++i) {
    acc -= 1 / x;
    x += 1;
  }
  double z = 1 / (x * x);
  double series =
      z * (1.0 / 12 - z * (1.0 / 120 -
                           z * (1.0 / 252 -
                                z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return acc + std::log(x) - 0.5 / x - series;
}

// Hurwitz zeta(s, q) = sum_k (q + k)^-s by Euler-Maclaurin summation (as Cephes' zeta): the
// first terms directly until q + k > 9 (at least 9 of them), then the integral, half the last
// term and up to 12 Bernoulli corrections. s == 1 is +inf, s < 1 NaN; q a non-positive integer
// +inf, q < 0 with non-integer s NaN.
constexpr double kZetaB[12] = {12.0,
                               -720.0,
                               30240.0,
                               -1209600.0,
                               47900160.0,
                               -1.8924375803183791606e9,
                               7.47242496e10,
                               -2.950130727918164224e12,
                               1.1646782814350067249e14,
                               -4.5979787224074726105e15,
                               1.8152105401943546773e17,
                               -7.1661652561756670113e18};
constexpr int kZetaMaxTerms = 100000;
double zeta_f64(double s, double q) {
  if (std::isnan(s) || std::isnan(q))
    return kNaN;
  if (s == 1)
    return kInf;
  if (s < 1)
    return kNaN;
  if (q <= 0) {
    if (q == std::floor(q))
      return kInf;
    if (s != std::floor(s))
      return kNaN;
  }
  double sum = std::pow(q, -s), a = q, term = 0;
  for (int i = 0; i < kZetaMaxTerms && (i < 9 || a <= 9); ++i) {
    a += 1;
    term = std::pow(a, -s);
    sum += term;
    if (std::fabs(term / sum) < kEps)
      return sum;
  }
  double w = a;
  sum += term * w / (s - 1) - 0.5 * term;
  double fac = 1, k = 0;
  for (int i = 0; i < 12; ++i) {
    fac *= s + k;
    term /= w;
    double t = fac * term / kZetaB[i];
    sum += t;
    if (std::fabs(t / sum) < kEps)
      break;
    k += 1;
    fac *= s + k;
    term /= w;
    k += 1;
  }
  return sum;
}

// polygamma(n, x) = (-1)^(n+1) n! zeta(n+1, x) for integer n >= 1, digamma for n = 0; NaN for
// a non-integer or negative n.
double polygamma_f64(double n, double x) {
  if (std::isnan(n) || std::isnan(x) || n < 0 || n != std::floor(n))
    return kNaN;
  if (n == 0)
    return digamma_f64(x);
  double sign = std::fmod(n, 2.0) == 1 ? 1 : -1;
  return sign * std::exp(std::lgamma(n + 1)) * zeta_f64(n + 1, x);
}

// The regularized incomplete gamma functions, their derivative in a, and the derivative of a
// Gamma(a, 1) sample x in a (implicit reparameterization: -dP/da / dP/dx), by the power series
// of P (x < 1 or x <= a) or the continued fraction of Q (Cephes' igam/igamc recurrences), each
// carrying its derivative in a along (as XLA computes them).
enum class IgammaMode { Value, Derivative, SampleDerivative };
constexpr int kIgammaMaxIterations = 2000;

// sum_{n>=0} x^n / ((a+1)...(a+n)) and its derivative in a.
std::pair<double, double> igamma_series(double a, double x, bool enabled, IgammaMode mode) {
  double r = a, c = 1, ans = 1, dc = 0, dans = 0;
  for (int i = 0; enabled && i < kIgammaMaxIterations; ++i) {
    r += 1;
    dc = dc * (x / r) - c * x / (r * r);
    dans += dc;
    c *= x / r;
    ans += c;
    enabled = mode == IgammaMode::Value ? c / ans > kEps : std::fabs(dc / dans) > kEps;
  }
  return {ans, dans};
}

// Q's continued fraction (without the factor x^a e^-x / Gamma(a)) and its derivative in a.
std::pair<double, double> igammac_fraction(double a, double x, bool enabled, IgammaMode mode) {
  double y = 1 - a, z = x + y + 1, c = 0;
  double pkm2 = 1, qkm2 = x, pkm1 = x + 1, qkm1 = z * x, ans = pkm1 / qkm1;
  double dpkm2 = 0, dqkm2 = 0, dpkm1 = 0, dqkm1 = -x, dans = (dpkm1 - ans * dqkm1) / qkm1;
  while (enabled && c < kIgammaMaxIterations) {
    c += 1;
    y += 1;
    z += 2;
    double yc = y * c;
    double pk = pkm1 * z - pkm2 * yc, qk = qkm1 * z - qkm2 * yc;
    double dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c;
    double dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c;
    double t = 1, dt = 1;
    if (qk != 0) {
      double r = pk / qk;
      t = std::fabs((ans - r) / r);
      ans = r;
      double next = (dpk - ans * dqk) / qk;
      dt = std::fabs(next - dans);
      dans = next;
    }
    pkm2 = pkm1, pkm1 = pk, qkm2 = qkm1, qkm1 = qk;
    dpkm2 = dpkm1, dpkm1 = dpk, dqkm2 = dqkm1, dqkm1 = dqk;
    if (std::fabs(pk) > 1 / kEps) {
      for (double *v : {&pkm2, &pkm1, &qkm2, &qkm1, &dpkm2, &dpkm1, &dqkm2, &dqkm1})
        *v *= kEps;
    }
    enabled = (mode == IgammaMode::Value ? t : dt) > kEps;
  }
  return {ans, dans};
}

double igamma_f64(double a, double x, IgammaMode mode) {
  bool nan = std::isnan(a) || std::isnan(x);
  if (mode != IgammaMode::Value) {
    if (nan || x < 0 || a <= 0)
      return kNaN;
    if (x == 0)
      return 0;
  } else {
    if (nan || x < 0 || a < 0 || (a == 0 && x == 0))
      return kNaN;
    if (x == 0)
      return 0;
    if (std::isinf(x))
      return 1;
    if (a == 0)
      return 1;
  }
  double log_ax = a * std::log(x) - x - std::lgamma(a);
  bool underflow = log_ax < -std::log(std::numeric_limits<double>::max());
  double ax = std::exp(log_ax);
  bool use_fraction = mode == IgammaMode::Value ? (x >= 1 && x > a) : (x > 1 && x > a);
  if (use_fraction) {
    auto [h, dh] = igammac_fraction(a, x, !underflow, mode);
    if (mode == IgammaMode::Value)
      return 1 - h * ax;
    double dlog = std::log(x) - digamma_f64(a);
    if (mode == IgammaMode::Derivative)
      return -ax * (h * dlog + dh);
    return (dh + h * dlog) * x;
  }
  auto [s, ds] = igamma_series(a, x, !underflow, mode);
  if (mode == IgammaMode::Value)
    return s * ax / a;
  double dlog = std::log(x) - digamma_f64(a + 1);
  if (mode == IgammaMode::Derivative)
    return ax * (s * dlog + ds) / a;
  return -(ds + s * dlog) * x / a;
}

double igammac_f64(double a, double x) {
  if (std::isnan(a) || std::isnan(x) || x < 0 || a < 0 || (a == 0 && x == 0) ||
      (std::isinf(a) && std::isinf(x)))
    return kNaN;
  if (std::isinf(x) || a == 0)
    return 0;
  if (std::isinf(a))
    return 1;
  double log_ax = a * std::log(x) - x - std::lgamma(a);
  bool underflow = log_ax < -std::log(std::numeric_limits<double>::max());
  double ax = std::exp(log_ax);
  if (x < 1 || x < a) {
    auto [s, ds] = igamma_series(a, x, !underflow, IgammaMode::Value);
    return 1 - s * ax / a;
  }
  auto [h, dh] = igammac_fraction(a, x, !underflow, IgammaMode::Value);
  return h * ax;
}

// Cephes' chbevl: the Chebyshev series of `c` (highest degree first) at t in [-2, 2].
template <size_t N> double chebyshev(const double (&c)[N], double t) {
  double b0 = c[0], b1 = 0, b2 = 0;
  for (size_t i = 1; i < N; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = t * b1 - b2 + c[i];
  }
  return 0.5 * (b0 - b2);
}
// exp(-|x|) I0(x) and exp(-|x|) I1(x) (odd) by Cephes' series on [0, 8] and beyond.
double bessel_i0e_f64(double x) {
  double y = std::fabs(x);
  if (y <= 8)
    return chebyshev(bessel::kI0eSmall, y / 2 - 2);
  return chebyshev(bessel::kI0eLarge, 32 / y - 2) / std::sqrt(y);
}
double bessel_i1e_f64(double x) {
  double y = std::fabs(x);
  double r = y <= 8 ? chebyshev(bessel::kI1eSmall, y / 2 - 2) * y
                    : chebyshev(bessel::kI1eLarge, 32 / y - 2) / std::sqrt(y);
  return x < 0 ? -r : r;
}

// The regularized incomplete beta function I_x(a, b): the continued fraction of DLMF 8.17.22
// by the modified Lentz method (at most 600 terms), on x < (a+1)/(a+b+2) or else on
// 1 - I_{1-x}(b, a); the edge cases as XLA (a = 0 or b = inf makes the result 1 for x > 0,
// b = 0 or a = inf makes it 0 for x < 1).
constexpr int kBetaincMaxIterations = 600;
constexpr double kLentzTiny = 1e-300;
double betainc_numerator(int n, double a, double b, double x) {
  if (n == 1)
    return 1;
  double m = (n - 1) / 2;
  if (n % 2 == 0) {
    if (m == 0)
      return -(a + b) * x / (a + 1);
    return -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
  }
  return m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
}
double betainc_f64(double a, double b, double x) {
  if (std::isnan(a) || std::isnan(b) || std::isnan(x))
    return kNaN;
  bool a_zero = a == 0 || std::isinf(b), b_zero = b == 0 || std::isinf(a);
  if (a < 0 || b < 0 || x < 0 || x > 1 || (a_zero && b_zero))
    return kNaN;
  if ((b_zero && x != 1) || (a_zero && x == 0))
    return 0;
  if ((a_zero && x != 0) || (b_zero && x == 1))
    return 1;
  bool flip = !(x < (a + 1) / (a + b + 2));
  if (flip) {
    std::swap(a, b);
    x = 1 - x;
  }
  double h = kLentzTiny, c = h, d = 0;
  for (int n = 1; n < kBetaincMaxIterations; ++n) {
    double num = betainc_numerator(n, a, b, x);
    c = 1 + num / c;
    if (std::fabs(c) < kLentzTiny)
      c = kLentzTiny;
    d = 1 + num * d;
    if (std::fabs(d) < kLentzTiny)
      d = kLentzTiny;
    d = 1 / d;
    double delta = c * d;
    h *= delta;
    if (std::fabs(delta - 1) <= kEps)
      break;
  }
  double lbeta_small = std::lgamma(b) - std::lgamma(a + b);
  double factor =
      a < 2 * std::numeric_limits<double>::min()
          ? std::exp(std::log1p(-x) * b - lbeta_small)
          : std::exp(std::log(x) * a + std::log1p(-x) * b - lbeta_small - std::lgamma(a)) / a;
  double r = h * factor;
  return flip ? 1 - r : r;
}

template <class C, class F> C via_f64(F f, C x) {
  return static_cast<C>(f(static_cast<double>(x)));
}
template <class C, class F> C via_f64(F f, C x, C y) {
  return static_cast<C>(f(static_cast<double>(x), static_cast<double>(y)));
}

// ---- Complex log1p and expm1 --------------------------------------------------------------------
// log1p(x + iy) = log|1 + z| + i arg(1 + z), where log|1 + z| = log1p(x (2 + x) + y^2) / 2 keeps
// the digits that log(1 + z) loses for small z; beyond sqrt(max) / 4 (where the squares
// overflow) and for inf or NaN parts log(1 + z) is as accurate.
template <class C> C complex_log1p(C z) {
  using R = typename C::value_type;
  R x = z.real(), y = z.imag();
  const R big = std::sqrt(std::numeric_limits<R>::max()) / 4;
  if (!(std::fabs(x) < big) || !(std::fabs(y) < big))
    return std::log(C(R(1) + x, y));
  return C(std::log1p(x * (R(2) + x) + y * y) / R(2), std::atan2(y, R(1) + x));
}
// expm1(x + iy) = (e^x cos y - 1) + i e^x sin y, the real part as expm1(x) cos y - 2 sin^2(y/2)
// so that small z keep their digits.
template <class C> C complex_expm1(C z) {
  using R = typename C::value_type;
  R x = z.real(), y = z.imag();
  if (!std::isfinite(x) || !std::isfinite(y))
    return std::exp(z) - C(1);
  R h = std::sin(y / R(2));
  return C(std::expm1(x) * std::cos(y) - R(2) * h * h, std::exp(x) * std::sin(y));
}

// ---- Unary --------------------------------------------------------------------------------------
const Primitive &neg_p = def_unary<Accepts::Number>(
    "neg", kLinear,
    [](const Array &x, const Array &out, const Params &) -> Array {
      return rules::full_like(x, -1);
    },
    [](auto x) {
      using C = decltype(x);
      if constexpr (std::is_floating_point_v<C> || is_complex_v<C>)
        return -x; // not 0 - x, which gives +0 for +0
      else
        return wrap(C(0), x, [](auto a, auto b) { return a - b; });
    });
// abs of a complex number is its (real) modulus, by hypot so that it neither overflows nor
// underflows (inf if either part is inf, as numpy); its derivative is re(conj(x) t) / |x|, 0 at
// x = 0 (as JAX defines it).
const Primitive &abs_p = []() -> const Primitive & {
  Primitive p;
  p.name = "abs";
  p.traits = kElementwise | kFusible;
  p.shape_rule = [](std::span<const AbstractValue> in, const Params &) {
    auto out = unary_shape_rule("abs", Accepts::Number, false, in);
    out[0].dtype = real_dtype(out[0].dtype);
    return out;
  };
  p.impl = [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
    Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
    STRATA_DISPATCH_ALL(in[0].dtype(), T, {
      if constexpr (accepts_v<Accepts::Number, T>()) {
        map_unary(in[0].data<T>(), static_cast<real_t<T> *>(y.mutable_data()), y.size(),
                  [](auto x) {
                    using C = decltype(x);
                    if constexpr (is_complex_v<C> || std::is_floating_point_v<C>)
                      return std::abs(x);
                    else if constexpr (std::is_unsigned_v<C>)
                      return x;
                    else
                      return x < 0 ? wrap(C(0), x, [](auto a, auto b) { return a - b; }) : x;
                  });
      }
    });
    return std::vector<Array>{y};
  };
  // conj(x) / |x| (with |x| = 0 replaced by 1), the direction whose real inner product with a
  // tangent is the modulus' derivative.
  auto direction = [](const Array &x, const Array &out) {
    Array zero = rules::zeros_of(out);
    Array safe = lax::select(lax::eq(out, zero), rules::full_like(out, 1), out);
    return lax::div(lax::conj(x), lax::complex(safe, zero));
  };
  p.jvp = [direction](std::span<const Array> x, std::span<const Array> t,
                      std::span<const Array> out, const Params &) -> std::vector<Array> {
    if (rules::is_zero(t[0]))
      return {Array()};
    if (!is_complex(x[0].dtype()))
      return {lax::mul(t[0], lax::sign(x[0]))};
    return {lax::real(lax::mul(t[0], direction(x[0], out[0])))};
  };
  p.vjp = [direction](std::span<const Array> x, std::span<const Array> out,
                      std::span<const Array> ct, const std::vector<bool> &,
                      const Params &) -> std::vector<Array> {
    if (rules::is_zero(ct[0]))
      return {Array()};
    if (!is_complex(x[0].dtype()))
      return {lax::mul(ct[0], lax::sign(x[0]))};
    return {lax::mul(lax::complex(ct[0], rules::zeros_of(ct[0])), direction(x[0], out[0]))};
  };
  p.batch = rules::elementwise_batch_rule();
  return register_primitive(std::move(p));
}();
// sign of a complex number is x / |x| (0 at 0), as JAX's.
const Primitive &sign_p = def_unary<Accepts::Number>("sign", kNone, nullptr, [](auto x) {
  using C = decltype(x);
  if constexpr (is_complex_v<C>)
    return x == C(0) ? x : x / std::abs(x);
  else // NaN and both zeros map to themselves (XLA keeps the sign of -0).
    return x > C(0) ? C(1) : (x < C(0) ? C(-1) : x);
});
const Primitive &floor_p =
    def_unary<Accepts::Float>("floor", kNone, nullptr, [](auto x) { return std::floor(x); });
const Primitive &ceil_p =
    def_unary<Accepts::Float>("ceil", kNone, nullptr, [](auto x) { return std::ceil(x); });
const Primitive &round_p = def_unary<Accepts::Float>("round", kNone, nullptr, [](auto x) {
  return std::nearbyint(x); // the default rounding mode: half to even
});
const Primitive &exp_p = def_unary<Accepts::Inexact>(
    "exp", kNone, [](const Array &x, const Array &out, const Params &) -> Array { return out; },
    [](auto x) { return std::exp(x); });
const Primitive &log_p = def_unary<Accepts::Inexact>(
    "log", kNone,
    [](const Array &x, const Array &out, const Params &) -> Array {
      return lax::div(rules::full_like(x, 1), x);
    },
    [](auto x) { return std::log(x); });
const Primitive &log1p_p = def_unary<Accepts::Inexact>(
    "log1p", kNone,
    [](const Array &x, const Array &out, const Params &) -> Array {
      return lax::div(rules::full_like(x, 1), lax::add(rules::full_like(x, 1), x));
    },
    [](auto x) {
      if constexpr (is_complex_v<decltype(x)>)
        return complex_log1p(x);
      else
        return std::log1p(x);
    });
const Primitive &expm1_p = def_unary<Accepts::Inexact>(
    "expm1", kNone,
    [](const Array &x, const Array &out, const Params &) -> Array {
      return lax::add(out, rules::full_like(x, 1));
    },
    [](auto x) {
      if constexpr (is_complex_v<decltype(x)>)
        return complex_expm1(x);
      else
        return std::expm1(x);
    });
const Primitive &sqrt_p = def_unary<Accepts::Inexact>(
    "sqrt", kNone,
    [](const Array &x, const Array &out, const Params &) -> Array {
      return lax::div(rules::full_like(x, 0.5), out);
    },
    [](auto x) { return std::sqrt(x); });
const Primitive &rsqrt_p = def_unary<Accepts::Inexact>(
    "rsqrt", kNone,
    [](const Array &x, const Array &out, const Params &) -> Array {
      return lax::mul(rules::full_like(x, -0.5), lax::div(out, x));
    },
    [](auto x) {
      using C = decltype(x);
      return C(1) / std::sqrt(x);
    });
const Primitive &sin_p = def_unary<Accepts::Inexact>(
    "sin", kNone,
    [](const Array &x, const Array &out, const Params &) -> Array { return lax::cos(x); },
    [](auto x) { return std::sin(x); });
const Primitive &cos_p = def_unary<Accepts::Inexact>(
    "cos", kNone,
    [](const Array &x, const Array &out, const Params &) -> Array { return lax::neg(lax::sin(x)); },
    [](auto x) { return std::cos(x); });
const Primitive &tan_p = def_unary<Accepts::Inexact>(
    "tan", kNone,
    [](const Array &x, const Array &out, const Params &) -> Array {
      return lax::add(rules::full_like(x, 1), lax::mul(out, out));
    },
    [](auto x) { return std::tan(x); });
const Primitive &tanh_p = def_unary<Accepts::Inexact>(
    "tanh", kNone,
    [](const Array &x, const Array &out, const Params &) -> Array {
      return lax::sub(rules::full_like(x, 1), lax::mul(out, out));
    },
    [](auto x) { return std::tanh(x); });
const Primitive &logistic_p = def_unary<Accepts::Inexact>(
    "logistic", kNone,
    [](const Array &x, const Array &out, const Params &) -> Array {
      return lax::mul(out, lax::sub(rules::full_like(x, 1), out));
    },
    [](auto x) {
      using C = decltype(x);
      if constexpr (is_complex_v<C>) // the real formula's two branches, split by re(z)
        return x.real() >= 0 ? C(1) / (C(1) + std::exp(-x)) : std::exp(x) / (C(1) + std::exp(x));
      else if (x >= C(0))
        return C(1) / (C(1) + std::exp(-x));
      C e = std::exp(x);
      return e / (C(1) + e);
    });
const Primitive &erf_p = def_unary<Accepts::Float>(
    "erf", kNone,
    [](const Array &x, const Array &out, const Params &) -> Array {
      return lax::mul(rules::full_like(x, 1.1283791670955126), lax::exp(lax::neg(lax::mul(x, x))));
    },
    [](auto x) { return std::erf(x); });
const Primitive &erf_inv_p = def_unary<Accepts::Float>(
    "erf_inv", kNone,
    [](const Array &x, const Array &out, const Params &) -> Array {
      return lax::mul(rules::full_like(x, 0.88622692545275801), lax::exp(lax::mul(out, out)));
    },
    [](auto x) {
      using C = decltype(x);
      return static_cast<C>(erf_inv_f64(static_cast<double>(x)));
    });
const Primitive &sinh_p = def_unary<Accepts::Inexact>(
    "sinh", kNone,
    [](const Array &x, const Array &, const Params &) -> Array { return lax::cosh(x); },
    [](auto x) { return std::sinh(x); });
const Primitive &cosh_p = def_unary<Accepts::Inexact>(
    "cosh", kNone,
    [](const Array &x, const Array &, const Params &) -> Array { return lax::sinh(x); },
    [](auto x) { return std::cosh(x); });
// d/dx asin x = 1/sqrt(1 - x^2), acos its negative, atan 1/(1 + x^2).
const Primitive &asin_p = def_unary<Accepts::Inexact>(
    "asin", kNone,
    [](const Array &x, const Array &, const Params &) -> Array {
      return lax::rsqrt(lax::sub(rules::full_like(x, 1), lax::mul(x, x)));
    },
    [](auto x) { return std::asin(x); });
const Primitive &acos_p = def_unary<Accepts::Inexact>(
    "acos", kNone,
    [](const Array &x, const Array &, const Params &) -> Array {
      return lax::neg(lax::rsqrt(lax::sub(rules::full_like(x, 1), lax::mul(x, x))));
    },
    [](auto x) { return std::acos(x); });
const Primitive &atan_p = def_unary<Accepts::Inexact>(
    "atan", kNone,
    [](const Array &x, const Array &, const Params &) -> Array {
      return lax::div(rules::full_like(x, 1), lax::add(rules::full_like(x, 1), lax::mul(x, x)));
    },
    [](auto x) { return std::atan(x); });
// d/dx asinh x = 1/sqrt(x^2 + 1), acosh 1/sqrt((x - 1)(x + 1)), atanh 1/((1 + x)(1 - x)).
const Primitive &asinh_p = def_unary<Accepts::Inexact>(
    "asinh", kNone,
    [](const Array &x, const Array &, const Params &) -> Array {
      return lax::rsqrt(lax::add(lax::mul(x, x), rules::full_like(x, 1)));
    },
    [](auto x) { return std::asinh(x); });
const Primitive &acosh_p = def_unary<Accepts::Inexact>(
    "acosh", kNone,
    [](const Array &x, const Array &, const Params &) -> Array {
      Array xm = lax::sub(x, rules::full_like(x, 1)), xp = lax::add(x, rules::full_like(x, 1));
      // sqrt((z - 1)(z + 1)) is not sqrt(z - 1) sqrt(z + 1) off the real line, and only the
      // latter has acosh's branch cut.
      if (is_complex(x.dtype()))
        return lax::mul(lax::rsqrt(xm), lax::rsqrt(xp));
      return lax::rsqrt(lax::mul(xm, xp));
    },
    [](auto x) { return std::acosh(x); });
const Primitive &atanh_p = def_unary<Accepts::Inexact>(
    "atanh", kNone,
    [](const Array &x, const Array &, const Params &) -> Array {
      return lax::div(rules::full_like(x, 1), lax::mul(lax::add(rules::full_like(x, 1), x),
                                                       lax::sub(rules::full_like(x, 1), x)));
    },
    [](auto x) { return std::atanh(x); });
// d/dx cbrt x = cbrt(x)^-2 / 3; d/dx 2^x = log(2) 2^x.
const Primitive &cbrt_p = def_unary<Accepts::Float>(
    "cbrt", kNone,
    [](const Array &x, const Array &out, const Params &) -> Array {
      return lax::mul(rules::full_like(x, 1.0 / 3), lax::integer_pow(out, -2));
    },
    [](auto x) { return std::cbrt(x); });
const Primitive &exp2_p = def_unary<Accepts::Inexact>(
    "exp2", kNone,
    [](const Array &x, const Array &out, const Params &) -> Array {
      return lax::mul(rules::full_like(x, 0.69314718055994530942), out);
    },
    [](auto x) {
      using C = decltype(x);
      if constexpr (is_complex_v<C>) // 2^z = e^(z log 2)
        return std::exp(x * typename C::value_type(0.69314718055994530942));
      else
        return std::exp2(x);
    });
const Primitive &erfc_p = def_unary<Accepts::Float>(
    "erfc", kNone,
    [](const Array &x, const Array &, const Params &) -> Array {
      return lax::mul(rules::full_like(x, -1.1283791670955126), lax::exp(lax::neg(lax::mul(x, x))));
    },
    [](auto x) { return std::erfc(x); });
const Primitive &lgamma_p = def_unary<Accepts::Float>(
    "lgamma", kNone,
    [](const Array &x, const Array &, const Params &) -> Array { return lax::digamma(x); },
    [](auto x) { return via_f64([](double v) { return std::lgamma(v); }, x); });
const Primitive &digamma_p = def_unary<Accepts::Float>(
    "digamma", kNone,
    [](const Array &x, const Array &, const Params &) -> Array {
      return lax::polygamma(rules::full_like(x, 1), x);
    },
    [](auto x) { return via_f64(digamma_f64, x); });
// d/dx i0e = i1e - sign(x) i0e; d/dx i1e = i0e - i1e (sign(x) + 1/x), 1/2 at |x| <= eps (as
// JAX defines them).
double dtype_eps(DType d) {
  switch (d) {
  case DType::Float16:
    return 9.765625e-4;
  case DType::BFloat16:
    return 7.8125e-3;
  case DType::Float32:
    return 1.1920928955078125e-7;
  default:
    return kEps;
  }
}
const Primitive &bessel_i0e_p = def_unary<Accepts::Float>(
    "bessel_i0e", kNone,
    [](const Array &x, const Array &out, const Params &) -> Array {
      return lax::sub(lax::bessel_i1e(x), lax::mul(lax::sign(x), out));
    },
    [](auto x) { return via_f64(bessel_i0e_f64, x); });
const Primitive &bessel_i1e_p = def_unary<Accepts::Float>(
    "bessel_i1e", kNone,
    [](const Array &x, const Array &out, const Params &) -> Array {
      Array eps = rules::full_like(x, dtype_eps(x.dtype()));
      Array big = lax::gt(lax::abs(x), eps);
      Array safe = lax::select(big, x, eps);
      Array d = lax::sub(
          lax::bessel_i0e(safe),
          lax::mul(out, lax::add(lax::sign(safe), lax::div(rules::full_like(x, 1), safe))));
      return lax::select(big, d, rules::full_like(x, 0.5));
    },
    [](auto x) { return via_f64(bessel_i1e_f64, x); });
const Primitive &is_finite_p = def_unary<Accepts::Float, true>(
    "is_finite", kNone, nullptr, [](auto x) { return std::isfinite(x); });
const Primitive &not_p =
    def_unary<Accepts::IntOrBool>("not", kNonDifferentiable, nullptr, [](auto x) {
      using C = decltype(x);
      if constexpr (std::is_same_v<C, bool>)
        return !x;
      else
        return static_cast<C>(~x);
    });

// Bit counts of integers (of the operand's bits, the sign bit included).
const Primitive &population_count_p =
    def_unary<Accepts::Integer>("population_count", kNonDifferentiable, nullptr, [](auto x) {
      using C = decltype(x);
      if constexpr (std::is_integral_v<C>)
        return static_cast<C>(std::popcount(static_cast<std::make_unsigned_t<C>>(x)));
      else
        return x;
    });
const Primitive &clz_p =
    def_unary<Accepts::Integer>("clz", kNonDifferentiable, nullptr, [](auto x) {
      using C = decltype(x);
      if constexpr (std::is_integral_v<C>)
        return static_cast<C>(std::countl_zero(static_cast<std::make_unsigned_t<C>>(x)));
      else
        return x;
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
  if constexpr (std::is_floating_point_v<C> || is_complex_v<C>)
    return inv ? C(1) / acc : acc;
  else
    return acc;
}
const Primitive &integer_pow_p = []() -> const Primitive & {
  Primitive p;
  p.name = "integer_pow";
  p.traits = kElementwise | kFusible;
  p.shape_rule = [](std::span<const AbstractValue> in, const Params &params) {
    auto out = unary_shape_rule("integer_pow", Accepts::Number, false, in);
    int64_t y = params.get_int("y");
    if (y < 0 && !is_inexact(in[0].dtype))
      fail("integer_pow", "negative exponent ", y, " for integer operand ", in[0].str());
    return out;
  };
  p.impl = [](std::span<const Array> in, const Params &params, std::span<const AbstractValue> out) {
    int64_t y = params.get_int("y");
    Array z = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
    STRATA_DISPATCH_ALL(in[0].dtype(), T, {
      if constexpr (accepts_v<Accepts::Number, T>()) {
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
const Primitive &add_p = def_binary<Accepts::Number>(
    "add", kLinear, nullptr,
    [](auto a, auto b) { return wrap(a, b, [](auto x, auto y) { return x + y; }); },
    [](std::span<const Array>, std::span<const Array> t, std::span<const Array>,
       const Params &) -> std::vector<Array> { return {rules::add_tangents(t[0], t[1])}; },
    [](std::span<const Array>, std::span<const Array>, std::span<const Array> ct,
       const std::vector<bool> &, const Params &) -> std::vector<Array> { return {ct[0], ct[0]}; });
const Primitive &sub_p = def_binary<Accepts::Number>(
    "sub", kLinear, nullptr,
    [](auto a, auto b) { return wrap(a, b, [](auto x, auto y) { return x - y; }); },
    [](std::span<const Array>, std::span<const Array> t, std::span<const Array>,
       const Params &) -> std::vector<Array> {
      return {rules::add_tangents(t[0], rules::is_zero(t[1]) ? Array() : lax::neg(t[1]))};
    },
    [](std::span<const Array>, std::span<const Array>, std::span<const Array> ct,
       const std::vector<bool> &, const Params &) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array(), Array()};
      return {ct[0], lax::neg(ct[0])};
    });
const Primitive &mul_p = def_binary<Accepts::Number>(
    "mul", kNone,
    [](const Array &x, const Array &y, const Array &out, int which) -> Array {
      return which == 0 ? y : x;
    },
    [](auto a, auto b) { return wrap(a, b, [](auto x, auto y) { return x * y; }); });
// Integer division rounds toward zero; x/0 = -1 and MIN/-1 = MIN, as XLA defines them.
const Primitive &div_p = def_binary<Accepts::Number>(
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
const Primitive &pow_p = def_binary<Accepts::Inexact>(
    "pow", kNone,
    [](const Array &x, const Array &y, const Array &out, int which) -> Array {
      if (which == 0)
        return lax::mul(y, lax::pow(x, lax::sub(y, rules::full_like(y, 1))));
      // d/dy x^y = log(x) x^y, taken as 0 at x = 0 (as JAX does).
      return lax::select(lax::eq(x, rules::full_like(x, 0)), rules::full_like(x, 0),
                         lax::mul(lax::log(x), out));
    },
    [](auto a, auto b) { return std::pow(a, b); });
// The derivative of max (min) in one operand: 1 where it is the result, 1/2 at ties (as JAX
// does); complex operands, which lt/gt reject, find the result by equality with it.
Array extremum_derivative(const Array &a, const Array &b, const Array &out) {
  Array one = rules::full_like(a, 1), zero = rules::zeros_of(a);
  return lax::select(lax::eq(a, b), rules::full_like(a, 0.5),
                     lax::select(lax::eq(a, out), one, zero));
}
const Primitive &max_p = def_binary<Accepts::All>(
    "max", kNone,
    [](const Array &x, const Array &y, const Array &out, int which) -> Array {
      // Ties split the derivative evenly, as JAX does.
      const Array &a = which == 0 ? x : y, &b = which == 0 ? y : x;
      if (is_complex(a.dtype()))
        return extremum_derivative(a, b, out);
      return lax::add(
          lax::convert_element_type(lax::gt(a, b), a.dtype()),
          lax::mul(rules::full_like(a, 0.5), lax::convert_element_type(lax::eq(a, b), a.dtype())));
    },
    [](auto a, auto b) { return nan_max(a, b); });
const Primitive &min_p = def_binary<Accepts::All>(
    "min", kNone,
    [](const Array &x, const Array &y, const Array &out, int which) -> Array {
      const Array &a = which == 0 ? x : y, &b = which == 0 ? y : x;
      if (is_complex(a.dtype()))
        return extremum_derivative(a, b, out);
      return lax::add(
          lax::convert_element_type(lax::lt(a, b), a.dtype()),
          lax::mul(rules::full_like(a, 0.5), lax::convert_element_type(lax::eq(a, b), a.dtype())));
    },
    [](auto a, auto b) { return nan_min(a, b); });
const Primitive &atan2_p = def_binary<Accepts::Float>(
    "atan2", kNone,
    [](const Array &x, const Array &y, const Array &out, int which) -> Array {
      Array d = lax::add(lax::mul(x, x), lax::mul(y, y));
      return which == 0 ? lax::div(y, d) : lax::neg(lax::div(x, d));
    },
    [](auto a, auto b) { return std::atan2(a, b); });
// The incomplete gamma family: d/dx P(a, x) = x^(a-1) e^-x / Gamma(a), d/da by igamma_grad_a
// (as JAX defines them); igamma_grad_a and random_gamma_grad have no derivative of their own.
Array igamma_dx(const Array &a, const Array &x) {
  Array one = rules::full_like(a, 1);
  return lax::exp(lax::sub(lax::mul(lax::sub(a, one), lax::log(x)), lax::add(x, lax::lgamma(a))));
}
const Primitive &igamma_p = def_binary<Accepts::Float>(
    "igamma", kNone,
    [](const Array &a, const Array &x, const Array &, int which) -> Array {
      return which == 0 ? lax::igamma_grad_a(a, x) : igamma_dx(a, x);
    },
    [](auto a, auto x) {
      return via_f64([](double p, double q) { return igamma_f64(p, q, IgammaMode::Value); }, a, x);
    });
const Primitive &igammac_p = def_binary<Accepts::Float>(
    "igammac", kNone,
    [](const Array &a, const Array &x, const Array &, int which) -> Array {
      return lax::neg(which == 0 ? lax::igamma_grad_a(a, x) : igamma_dx(a, x));
    },
    [](auto a, auto x) { return via_f64(igammac_f64, a, x); });
const Primitive &igamma_grad_a_p =
    def_binary<Accepts::Float>("igamma_grad_a", kNonDifferentiable, nullptr, [](auto a, auto x) {
      return via_f64([](double p, double q) { return igamma_f64(p, q, IgammaMode::Derivative); }, a,
                     x);
    });
const Primitive &random_gamma_grad_p = def_binary<Accepts::Float>(
    "random_gamma_grad", kNonDifferentiable, nullptr, [](auto a, auto x) {
      return via_f64(
          [](double p, double q) { return igamma_f64(p, q, IgammaMode::SampleDerivative); }, a, x);
    });
// polygamma(m, x) and zeta(s, q): derivatives in x and q; in m and s (where JAX raises) NaN,
// since a cotangent that reaches them may still be dropped (a stop_gradient'ed order).
const Primitive &polygamma_p = def_binary<Accepts::Float>(
    "polygamma", kNone,
    [](const Array &m, const Array &x, const Array &, int which) -> Array {
      if (which == 0)
        return rules::full_like(m, kNaN);
      return lax::polygamma(lax::add(m, rules::full_like(m, 1)), x);
    },
    [](auto m, auto x) { return via_f64(polygamma_f64, m, x); });
const Primitive &zeta_p = def_binary<Accepts::Float>(
    "zeta", kNone,
    [](const Array &s, const Array &q, const Array &, int which) -> Array {
      if (which == 0)
        return rules::full_like(s, kNaN);
      return lax::neg(lax::mul(s, lax::zeta(lax::add(s, rules::full_like(s, 1)), q)));
    },
    [](auto s, auto q) { return via_f64(zeta_f64, s, q); });
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
    def_binary<Accepts::All, true>("eq", kNone, nullptr, [](auto a, auto b) { return a == b; });
const Primitive &ne_p =
    def_binary<Accepts::All, true>("ne", kNone, nullptr, [](auto a, auto b) { return a != b; });
const Primitive &lt_p =
    def_binary<Accepts::Any, true>("lt", kNone, nullptr, [](auto a, auto b) { return a < b; });
const Primitive &le_p =
    def_binary<Accepts::Any, true>("le", kNone, nullptr, [](auto a, auto b) { return a <= b; });
const Primitive &gt_p =
    def_binary<Accepts::Any, true>("gt", kNone, nullptr, [](auto a, auto b) { return a > b; });
const Primitive &ge_p =
    def_binary<Accepts::Any, true>("ge", kNone, nullptr, [](auto a, auto b) { return a >= b; });

// nextafter(x, y): the value of x's dtype next to x toward y, stepping the storage bits (so
// f16/bf16 step in their own format); NaN if either is NaN, y if x == y, the smallest
// subnormal with y's sign from a zero.
template <class T> struct float_bits;
template <> struct float_bits<float> {
  using type = uint32_t;
};
template <> struct float_bits<double> {
  using type = uint64_t;
};
template <> struct float_bits<f16_t> {
  using type = uint16_t;
};
template <> struct float_bits<bf16_t> {
  using type = uint16_t;
};
template <class T> T next_after(T xs, T ys) {
  using B = typename float_bits<T>::type;
  auto x = load(xs), y = load(ys);
  if (std::isnan(x) || std::isnan(y))
    return store<T>(x + y);
  if (x == y)
    return ys;
  B sign = B{1} << (8 * sizeof(B) - 1);
  if (x == 0)
    return std::bit_cast<T>(static_cast<B>((std::bit_cast<B>(ys) & sign) | 1));
  B bits = std::bit_cast<B>(xs);
  bool away = (x < y) == (x > 0);
  return std::bit_cast<T>(static_cast<B>(away ? bits + 1 : bits - 1));
}
template <class T> void betainc_kernel(std::span<const Array> in, Array &z) {
  if constexpr (accepts_v<Accepts::Float, T>()) {
    const T *a = in[0].data<T>(), *b = in[1].data<T>(), *x = in[2].data<T>();
    T *o = static_cast<T *>(z.mutable_data());
    parallel_for(z.size(), kElementwiseGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        o[i] = store<T>(betainc_f64(load(a[i]), load(b[i]), load(x[i])));
    });
  }
}
template <class T> void next_after_kernel(const Array &x, const Array &y, Array &z) {
  if constexpr (accepts_v<Accepts::Float, T>()) {
    const T *a = x.data<T>(), *b = y.data<T>();
    T *o = static_cast<T *>(z.mutable_data());
    parallel_for(z.size(), kElementwiseGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        o[i] = next_after(a[i], b[i]);
    });
  }
}
const Primitive &nextafter_p = register_primitive({
    .name = "nextafter",
    .traits = kElementwise | kFusible | kNonDifferentiable,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &) {
          return binary_shape_rule("nextafter", Accepts::Float, false, in);
        },
    .impl =
        [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
          Array z = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
          STRATA_DISPATCH(in[0].dtype(), T, { next_after_kernel<T>(in[0], in[1], z); });
          return std::vector<Array>{z};
        },
    .batch = rules::elementwise_batch_rule(),
});

// regularized_incomplete_beta(a, b, x) (lax.betainc): d/dx = x^(a-1) (1-x)^(b-1) / B(a, b);
// NaN in a and b (JAX raises for them).
const Primitive &betainc_p = []() -> const Primitive & {
  Primitive p;
  p.name = "regularized_incomplete_beta";
  p.traits = kElementwise | kFusible;
  p.shape_rule = [](std::span<const AbstractValue> in, const Params &) {
    expect_arity("regularized_incomplete_beta", in, 3);
    for (int i = 1; i < 3; ++i) {
      if (in[i].dtype != in[0].dtype)
        fail_kind(ErrorKind::Type, "regularized_incomplete_beta",
                  "operand dtypes differ: ", in[0].str(), ", ", in[1].str(), " and ", in[2].str());
      if (in[i].shape != in[0].shape)
        fail_kind(ErrorKind::Type, "regularized_incomplete_beta",
                  "operand shapes differ: ", in[0].str(), ", ", in[1].str(), " and ", in[2].str());
    }
    if (!is_floating(in[0].dtype))
      fail_kind(ErrorKind::Type, "regularized_incomplete_beta",
                "expects floating-point operands, got ", in[0].str());
    bool weak = in[0].weak_type && in[1].weak_type && in[2].weak_type;
    return std::vector<AbstractValue>{{in[0].shape, in[0].dtype, weak}};
  };
  p.impl = [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
    Array z = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
    STRATA_DISPATCH(in[0].dtype(), T, { betainc_kernel<T>(in, z); });
    return std::vector<Array>{z};
  };
  auto dx = [](std::span<const Array> v) {
    const Array &a = v[0], &b = v[1], &x = v[2];
    Array one = rules::full_like(x, 1);
    Array lbeta = lax::sub(lax::add(lax::lgamma(a), lax::lgamma(b)), lax::lgamma(lax::add(a, b)));
    return lax::exp(lax::sub(lax::add(lax::mul(lax::sub(b, one), lax::log1p(lax::neg(x))),
                                      lax::mul(lax::sub(a, one), lax::log(x))),
                             lbeta));
  };
  p.jvp = [dx](std::span<const Array> x, std::span<const Array> t, std::span<const Array>,
               const Params &) -> std::vector<Array> {
    Array out;
    for (int i = 0; i < 3; ++i) {
      if (rules::is_zero(t[i]))
        continue;
      Array d = i == 2 ? dx(x) : rules::full_like(x[i], kNaN);
      out = rules::add_tangents(out, lax::mul(t[i], d));
    }
    return {out};
  };
  p.vjp = [dx](std::span<const Array> x, std::span<const Array>, std::span<const Array> ct,
               const std::vector<bool> &wanted, const Params &) -> std::vector<Array> {
    std::vector<Array> g(3);
    if (rules::is_zero(ct[0]))
      return g;
    for (int i = 0; i < 3; ++i)
      if (wanted[i])
        g[i] = lax::mul(ct[0], i == 2 ? dx(x) : rules::full_like(x[i], kNaN));
    return g;
  };
  p.batch = rules::elementwise_batch_rule();
  return register_primitive(std::move(p));
}();

// ---- select, clamp, convert_element_type, stop_gradient -----------------------------------------
const Primitive &select_p = register_primitive({
    .name = "select",
    .traits = kElementwise | kFusible,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &) {
          expect_arity("select", in, 3);
          const AbstractValue &c = in[0], &t = in[1], &f = in[2];
          if (c.dtype != DType::Bool)
            fail_kind(ErrorKind::Type, "select", "predicate must be bool, got ", c.str());
          if (t.dtype != f.dtype)
            fail_kind(ErrorKind::Type, "select", "branches differ: ", t.str(), " and ", f.str());
          if (t.shape != f.shape)
            fail_kind(ErrorKind::Type, "select", "branches differ: ", t.str(), " and ", f.str());
          if (!c.shape.empty() && c.shape != t.shape)
            fail_kind(ErrorKind::Type, "select", "predicate ", c.str(),
                      " must be a scalar or match the branches ", t.str());
          return std::vector<AbstractValue>{{t.shape, t.dtype, t.weak_type && f.weak_type}};
        },
    .impl =
        [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
          Array z = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
          const bool *c = in[0].data<bool>();
          bool scalar = in[0].ndim() == 0;
          STRATA_DISPATCH_ALL(out[0].dtype, T, {
            const T *t = in[1].data<T>(), *f = in[2].data<T>();
            T *o = static_cast<T *>(z.mutable_data());
            parallel_for(z.size(), kElementwiseGrain, [&](int64_t b, int64_t e) {
              for (int64_t i = b; i < e; ++i)
                o[i] = c[scalar ? 0 : i] ? t[i] : f[i];
            });
          });
          return std::vector<Array>{z};
        },
    .jvp = [](std::span<const Array> x, std::span<const Array> t, std::span<const Array>,
              const Params &) -> std::vector<Array> {
      if (rules::is_zero(t[1]) && rules::is_zero(t[2]))
        return {Array()};
      auto tangent = [&](int i) { return rules::is_zero(t[i]) ? rules::zeros_of(x[i]) : t[i]; };
      return {lax::select(x[0], tangent(1), tangent(2))};
    },
    .vjp = [](std::span<const Array> x, std::span<const Array>, std::span<const Array> ct,
              const std::vector<bool> &, const Params &) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array(), Array(), Array()};
      Array zero = rules::zeros_of(ct[0]);
      return {Array(), lax::select(x[0], ct[0], zero), lax::select(x[0], zero, ct[0])};
    },
    .batch = rules::elementwise_batch_rule(/*scalar_operands=*/{0}),
});

/// a > b elementwise, lexicographically (real part, then imaginary part) on complex operands,
/// so clamp's masks agree with the order its kernel uses.
Array order_gt(const Array &a, const Array &b) {
  if (!is_complex(a.dtype()))
    return lax::gt(a, b);
  Array ra = lax::real(a), rb = lax::real(b);
  return lax::bitwise_or(lax::gt(ra, rb),
                         lax::bitwise_and(lax::eq(ra, rb), lax::gt(lax::imag(a), lax::imag(b))));
}

const Primitive &clamp_p = []() -> const Primitive & {
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
        fail_kind(ErrorKind::Type, "clamp", "bound ", b->str(),
                  " must be a scalar or match the operand ", x.str());
    }
    if (is_bool(x.dtype))
      fail_kind(ErrorKind::Type, "clamp", "expects a numeric operand, got ", x.str());
    return std::vector<AbstractValue>{x};
  };
  p.impl = [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
    Array z = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
    bool slo = in[0].ndim() == 0, shi = in[2].ndim() == 0;
    STRATA_DISPATCH_ALL(out[0].dtype, T, {
      const T *lo = in[0].data<T>(), *x = in[1].data<T>(), *hi = in[2].data<T>();
      T *o = static_cast<T *>(z.mutable_data());
      parallel_for(z.size(), kElementwiseGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          // XLA's definition: a NaN anywhere gives NaN, and lo > hi gives hi.
          o[i] =
              store<T>(nan_min(nan_max(load(x[i]), load(lo[slo ? 0 : i])), load(hi[shi ? 0 : i])));
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
    Array in = lax::bitwise_and(order_gt(x[1], lo), order_gt(hi, x[1]));
    return std::array<Array, 3>{
        order_gt(lo, x[1]), in,
        lax::bitwise_and(order_gt(x[1], hi), lax::bitwise_not(order_gt(lo, x[1])))};
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
                  const std::vector<bool> &, const Params &) -> std::vector<Array> {
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
  if constexpr (is_complex_v<From> && !is_complex_v<To> && !std::is_same_v<To, bool>) {
    return convert_scalar<To>(v.real()); // complex -> real keeps the real part, as numpy
  } else if constexpr (is_complex_v<To> && !is_complex_v<From>) {
    return To(static_cast<typename To::value_type>(v), 0);
  } else if constexpr (std::is_same_v<To, bool>) {
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
  if constexpr (is_complex_v<C>) {
    return to_float_for_half(v.real());
  } else if constexpr (std::is_same_v<C, double>) {
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

const Primitive &convert_p = register_primitive({
    .name = "convert_element_type",
    .traits = kElementwise | kFusible,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &params) {
          expect_arity("convert_element_type", in, 1);
          return std::vector<AbstractValue>{
              {in[0].shape, params.get_dtype("new_dtype"), params.get_bool("weak_type")}};
        },
    .impl =
        [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
          if (in[0].dtype() == out[0].dtype)
            return std::vector<Array>{in[0].with_weak_type(out[0].weak_type)};
          Array z = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
          int64_t n = z.size();
          STRATA_DISPATCH_ALL(in[0].dtype(), From, {
            const From *x = in[0].data<From>();
            STRATA_DISPATCH_ALL(out[0].dtype, To, {
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
        },
    // Tangents convert along when both types are floating; otherwise they are zero.
    .jvp = [](std::span<const Array> x, std::span<const Array> t, std::span<const Array> out,
              const Params &params) -> std::vector<Array> {
      if (rules::is_zero(t[0]) || !is_inexact(out[0].dtype()))
        return {Array()};
      return {lax::convert_element_type(t[0], out[0].dtype(), out[0].weak_type())};
    },
    .vjp = [](std::span<const Array> x, std::span<const Array>, std::span<const Array> ct,
              const std::vector<bool> &, const Params &) -> std::vector<Array> {
      if (rules::is_zero(ct[0]) || !is_inexact(x[0].dtype()))
        return {Array()};
      return {lax::convert_element_type(ct[0], x[0].dtype(), x[0].weak_type())};
    },
    .batch = rules::elementwise_batch_rule(),
});

const Primitive &stop_gradient_p = register_primitive({
    .name = "stop_gradient",
    .traits = kElementwise | kFusible,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &) {
          expect_arity("stop_gradient", in, 1);
          return std::vector<AbstractValue>{in[0]};
        },
    .impl = [](std::span<const Array> in, const Params &,
               std::span<const AbstractValue>) { return std::vector<Array>{in[0]}; },
    .jvp = [](std::span<const Array>, std::span<const Array>, std::span<const Array>,
              const Params &) -> std::vector<Array> { return {Array()}; },
    .vjp = [](std::span<const Array>, std::span<const Array>, std::span<const Array>,
              const std::vector<bool> &,
              const Params &) -> std::vector<Array> { return {Array()}; },
    .batch = rules::elementwise_batch_rule(),
});

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
Array sinh(const Array &x) { return bind1(sinh_p, {x}); }
Array cosh(const Array &x) { return bind1(cosh_p, {x}); }
Array asin(const Array &x) { return bind1(asin_p, {x}); }
Array acos(const Array &x) { return bind1(acos_p, {x}); }
Array atan(const Array &x) { return bind1(atan_p, {x}); }
Array asinh(const Array &x) { return bind1(asinh_p, {x}); }
Array acosh(const Array &x) { return bind1(acosh_p, {x}); }
Array atanh(const Array &x) { return bind1(atanh_p, {x}); }
Array cbrt(const Array &x) { return bind1(cbrt_p, {x}); }
Array exp2(const Array &x) { return bind1(exp2_p, {x}); }
Array erfc(const Array &x) { return bind1(erfc_p, {x}); }
Array bessel_i0e(const Array &x) { return bind1(bessel_i0e_p, {x}); }
Array bessel_i1e(const Array &x) { return bind1(bessel_i1e_p, {x}); }
Array population_count(const Array &x) { return bind1(population_count_p, {x}); }
Array clz(const Array &x) { return bind1(clz_p, {x}); }
Array lgamma(const Array &x) { return bind1(lgamma_p, {x}); }
Array digamma(const Array &x) { return bind1(digamma_p, {x}); }
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
Array igamma(const Array &a, const Array &x) { return bind1(igamma_p, {a, x}); }
Array igammac(const Array &a, const Array &x) { return bind1(igammac_p, {a, x}); }
Array igamma_grad_a(const Array &a, const Array &x) { return bind1(igamma_grad_a_p, {a, x}); }
Array random_gamma_grad(const Array &a, const Array &x) {
  return bind1(random_gamma_grad_p, {a, x});
}
Array polygamma(const Array &m, const Array &x) { return bind1(polygamma_p, {m, x}); }
Array zeta(const Array &s, const Array &q) { return bind1(zeta_p, {s, q}); }
Array nextafter(const Array &x, const Array &y) { return bind1(nextafter_p, {x, y}); }
Array betainc(const Array &a, const Array &b, const Array &x) {
  return bind1(betainc_p, {a, b, x});
}
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
