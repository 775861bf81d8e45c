// The primitive test table (design.md section 7): one row per registered primitive, with an
// operand generator in the primitive's valid domain and the primitive applied through its lax::
// wrapper. test_rules_oracle.cpp checks every transform rule over it; the jit tests compare
// compiled against eager over it. Adding a primitive adds one row in make_rows().
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "strata/callback.h"
#include "strata/control_flow.h"
#include "strata/linalg.h"
#ifdef STRATA_TABLE_JIT_ROWS
#include "strata/jit.h"
#endif
#include "strata/transforms.h"
#include "test_util.h"

namespace strata::testutil {

using Rng = std::mt19937_64;
using Gen = std::function<std::vector<Array>(Rng &)>;

struct Row {
  std::string name; // the primitive this row exercises
  Gen gen;          // one example's operands, in the primitive's valid domain
  FlatFn fn;        // the primitive applied through its lax:: wrapper
  // Finite-difference step and tolerance (relative to the size of the derivative), and the
  // tolerance of the <v, J u> == <J^T v, u> identity.
  double fd_step = 1e-6, fd_tol = 1e-6, dot_tol = 1e-10;
  // The primitive's derivative is zero by definition (stop_gradient), not its numeric one.
  bool zero_derivative = false;
  // Why the row's float64 operands cannot be float32 (empty: they can); the float32 variant of
  // the jit test checks that eager rejects them and skips with this reason.
  std::string rejects_float32;
  // Why jit cannot compile the row on its own (the jit tests skip it, saying so); empty: it can.
  std::string not_compiled;
  // Why the GPU pipeline cannot compile the row (the GPU jit tests skip it); empty: it can.
  std::string not_compiled_gpu;
  // Why the primitive has no derivative (as in JAX, its jvp raises NotImplemented): the
  // derivative oracles skip the row; empty: it has one.
  std::string no_derivative;
  // Why the first-order rules have no derivative of their own (JAX's neither): SecondOrder skips.
  std::string first_order_only;
};

// ---- Operand generators -----------------------------------------------------------------------

inline std::vector<double> draw(Rng &rng, int64_t n, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(static_cast<size_t>(n));
  for (double &x : v)
    x = d(rng);
  return v;
}
inline Array uniform(Rng &rng, const Shape &s, double lo = -1, double hi = 1) {
  return make(draw(rng, num_elements(s), lo, hi), s, float64);
}
// |x| in [lo, hi] with a random sign: away from a kink or pole at 0.
inline Array away_from_zero(Rng &rng, const Shape &s, double lo = 0.3, double hi = 1.5) {
  std::vector<double> v = draw(rng, num_elements(s), lo, hi);
  std::bernoulli_distribution coin;
  for (double &x : v)
    x = coin(rng) ? x : -x;
  return make(v, s, float64);
}
// Values whose fractional part lies in [0.1, 0.4] or [0.6, 0.9]: away from the steps of floor,
// ceil and round.
inline Array off_grid(Rng &rng, const Shape &s) {
  std::vector<double> v = draw(rng, num_elements(s), 0.1, 0.4);
  std::uniform_int_distribution<int> whole(-3, 2);
  std::bernoulli_distribution coin;
  for (double &x : v)
    x = whole(rng) + (coin(rng) ? x : 1 - x);
  return make(v, s, float64);
}
// Distinct values at least 0.4 apart in random order: no ties for sort, max and argmax.
inline Array distinct(Rng &rng, const Shape &s) {
  int64_t n = num_elements(s);
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0.0);
  std::shuffle(v.begin(), v.end(), rng);
  std::vector<double> jitter = draw(rng, n, 0, 0.1);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = 0.5 * v[i] - 0.25 * n + jitter[i];
  return make(v, s, float64);
}
inline Array integers(Rng &rng, const Shape &s, int64_t lo, int64_t hi, DType dtype = int32) {
  std::uniform_int_distribution<int64_t> d(lo, hi);
  std::vector<double> v(static_cast<size_t>(num_elements(s)));
  for (double &x : v)
    x = static_cast<double>(d(rng));
  return make(v, s, dtype);
}
inline Array u32_bits(Rng &rng, const Shape &s) {
  std::vector<uint32_t> v(static_cast<size_t>(num_elements(s)));
  for (uint32_t &x : v)
    x = static_cast<uint32_t>(rng());
  return Array::from_vector(v, s);
}
inline Array bools(Rng &rng, const Shape &s) {
  std::bernoulli_distribution coin;
  std::vector<bool> v(static_cast<size_t>(num_elements(s)));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = coin(rng);
  return Array::from_vector(v, s);
}
// n distinct indices in [0, bound), as an i32 column [n, 1].
inline Array distinct_rows(Rng &rng, int64_t n, int64_t bound) {
  std::vector<double> v(static_cast<size_t>(bound));
  std::iota(v.begin(), v.end(), 0.0);
  std::shuffle(v.begin(), v.end(), rng);
  v.resize(static_cast<size_t>(n));
  return make(v, {n, 1}, int32);
}

inline const Shape kS{2, 3};

// Batches of symmetric positive definite n x n matrices: M M^T / n + I.
inline Array spd(Rng &rng, int64_t batch, int64_t n) {
  std::vector<double> m = draw(rng, batch * n * n, -1, 1), v(m.size());
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = i == j ? 1.0 : 0.0;
        for (int64_t k = 0; k < n; ++k)
          s += m[(b * n + i) * n + k] * m[(b * n + j) * n + k] / static_cast<double>(n);
        v[(b * n + i) * n + j] = s;
      }
  return make(v, {batch, n, n}, float64);
}
// Batches of n x n matrices whose diagonal lies in [2, 3] (either triangle well-conditioned).
inline Array triangular(Rng &rng, int64_t batch, int64_t n) {
  std::vector<double> v = draw(rng, batch * n * n, -1, 1), d = draw(rng, batch * n, 2, 3);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i)
      v[(b * n + i) * n + i] = d[b * n + i];
  return make(v, {batch, n, n}, float64);
}
// Batches of symmetric n x n matrices with eigenvalues about 2 apart: a small random symmetric
// part plus diag(0, 2, 4, ...).
inline Array separated_symmetric(Rng &rng, int64_t batch, int64_t n) {
  std::vector<double> m = draw(rng, batch * n * n, -0.3, 0.3), v(m.size());
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        v[(b * n + i) * n + j] = m[(b * n + i) * n + j] + m[(b * n + j) * n + i] +
                                 (i == j ? 2.0 * static_cast<double>(i) : 0.0);
  return make(v, {batch, n, n}, float64);
}
// The columns of x [..., m, k] times the signs of the first row of s [..., m', k]: eigen- and
// singular vectors are defined up to sign, and this choice is smooth where s[0, j] != 0.
inline Array signs_by_first_row(const Array &x, const Array &s) {
  int64_t r = s.ndim();
  std::vector<int64_t> lo(static_cast<size_t>(r), 0), hi(s.shape().begin(), s.shape().end());
  hi[static_cast<size_t>(r - 2)] = 1;
  std::vector<int64_t> dims(static_cast<size_t>(r));
  std::iota(dims.begin(), dims.end(), 0);
  return lax::mul(x, lax::broadcast_in_dim(lax::sign(lax::slice(s, lo, hi)), x.shape(), dims));
}

// ---- Row builders -----------------------------------------------------------------------------

inline FlatFn unary_fn(Array (*f)(const Array &)) {
  return [f](const std::vector<Array> &in) { return std::vector<Array>{f(in[0])}; };
}
inline FlatFn binary_fn(Array (*f)(const Array &, const Array &)) {
  return [f](const std::vector<Array> &in) { return std::vector<Array>{f(in[0], in[1])}; };
}
inline Row unary(std::string name, Array (*f)(const Array &), std::function<Array(Rng &)> x) {
  return {std::move(name), [x](Rng &r) { return std::vector<Array>{x(r)}; }, unary_fn(f)};
}
inline Row binary(std::string name, Array (*f)(const Array &, const Array &),
                  std::function<Array(Rng &)> x, std::function<Array(Rng &)> y) {
  return {std::move(name), [x, y](Rng &r) { return std::vector<Array>{x(r), y(r)}; }, binary_fn(f)};
}
inline auto U(double lo, double hi, Shape s = kS) {
  return [lo, hi, s](Rng &r) { return uniform(r, s, lo, hi); };
}
inline auto AwayFromZero(Shape s = kS) {
  return [s](Rng &r) { return away_from_zero(r, s); };
}
inline auto OffGrid(Shape s = kS) {
  return [s](Rng &r) { return off_grid(r, s); };
}

inline std::vector<Row> make_rows() {
  std::vector<Row> rows;
  auto add = [&](Row r) { rows.push_back(std::move(r)); };

  // ---- Elementwise unary
  add(unary("neg", lax::neg, U(-2, 2)));
  add(unary("abs", lax::abs, AwayFromZero()));
  add(unary("sign", lax::sign, AwayFromZero()));
  add(unary("floor", lax::floor, OffGrid()));
  add(unary("ceil", lax::ceil, OffGrid()));
  add(unary("round", lax::round, OffGrid()));
  add(unary("exp", lax::exp, U(-2, 2)));
  add(unary("log", lax::log, U(0.3, 3)));
  add(unary("log1p", lax::log1p, U(-0.6, 2)));
  add(unary("expm1", lax::expm1, U(-2, 2)));
  add(unary("sqrt", lax::sqrt, U(0.3, 3)));
  add(unary("rsqrt", lax::rsqrt, U(0.3, 3)));
  add(unary("sin", lax::sin, U(-3, 3)));
  add(unary("cos", lax::cos, U(-3, 3)));
  add(unary("tan", lax::tan, U(-1.2, 1.2)));
  add(unary("tanh", lax::tanh, U(-2, 2)));
  add(unary("logistic", lax::logistic, U(-4, 4)));
  add(unary("erf", lax::erf, U(-2, 2)));
  add(unary("erf_inv", lax::erf_inv, U(-0.9, 0.9)));
  add(unary("sinh", lax::sinh, U(-2, 2)));
  add(unary("cosh", lax::cosh, U(-2, 2)));
  add(unary("asin", lax::asin, U(-0.9, 0.9)));
  add(unary("acos", lax::acos, U(-0.9, 0.9)));
  add(unary("atan", lax::atan, U(-3, 3)));
  add(unary("asinh", lax::asinh, U(-3, 3)));
  add(unary("acosh", lax::acosh, U(1.2, 4)));
  add(unary("atanh", lax::atanh, U(-0.9, 0.9)));
  add(unary("cbrt", lax::cbrt, AwayFromZero()));
  add(unary("exp2", lax::exp2, U(-2, 2)));
  add(unary("erfc", lax::erfc, U(-2, 2)));
  // Both series of the Bessel functions ([0, 8] and beyond), away from the kink at 0.
  add(unary("bessel_i0e", lax::bessel_i0e, [](Rng &r) { return away_from_zero(r, kS, 0.3, 12); }));
  add(unary("bessel_i1e", lax::bessel_i1e, [](Rng &r) { return away_from_zero(r, kS, 0.3, 12); }));
  add(unary("lgamma", lax::lgamma, U(0.3, 4)));
  add(unary("digamma", lax::digamma, U(0.3, 4)));
  add(unary("is_finite", lax::is_finite, [](Rng &r) {
    std::vector<double> v = draw(r, 6, -2, 2);
    v[1] = INFINITY;
    v[4] = NAN;
    return make(v, kS, float64);
  }));
  add(unary("population_count", lax::population_count,
            [](Rng &r) { return integers(r, kS, -100000, 100000); }));
  add(unary("clz", lax::clz, [](Rng &r) { return integers(r, kS, 0, 255, uint8); }));
  add(unary("not", lax::bitwise_not, [](Rng &r) { return integers(r, kS, -50, 50); }));
  add({"integer_pow", [](Rng &r) { return std::vector<Array>{uniform(r, kS, -2, 2)}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::integer_pow(in[0], 3)};
       }});

  // ---- Elementwise binary
  add(binary("add", lax::add, U(-2, 2), U(-2, 2)));
  add(binary("sub", lax::sub, U(-2, 2), U(-2, 2)));
  add(binary("mul", lax::mul, U(-2, 2), U(-2, 2)));
  add(binary("div", lax::div, U(-2, 2), AwayFromZero()));
  // x / y stays off the integers, where rem's derivative in y jumps.
  add(binary(
      "rem", lax::rem, [](Rng &r) { return away_from_zero(r, kS, 0.2, 0.8); },
      [](Rng &r) { return away_from_zero(r, kS, 1.0, 1.5); }));
  add(binary("pow", lax::pow, U(0.4, 2), U(-1.5, 1.5)));
  add({"max",
       [](Rng &r) {
         Array x = uniform(r, kS, -2, 2);
         return std::vector<Array>{x, lax::add(x, away_from_zero(r, kS, 0.2, 1))};
       },
       binary_fn(lax::max)});
  add({"min",
       [](Rng &r) {
         Array x = uniform(r, kS, -2, 2);
         return std::vector<Array>{x, lax::add(x, away_from_zero(r, kS, 0.2, 1))};
       },
       binary_fn(lax::min)});
  add(binary("atan2", lax::atan2, AwayFromZero(), AwayFromZero()));
  // Both evaluation branches of the incomplete gamma functions (series for x < 1 or x <= a,
  // continued fraction beyond).
  // igamma and igammac vary x only (a = 2 behind stop_gradient): their derivative in a,
  // igamma_grad_a, has no derivative of its own (as in JAX), so second order would fail;
  // test_prim_elementwise.cpp checks the first-order derivative in a.
  auto in_x = [](Array (*f)(const Array &, const Array &)) {
    return Row{"", [](Rng &r) { return std::vector<Array>{uniform(r, kS, 0.2, 4)}; },
               [f](const std::vector<Array> &in) {
                 Array one = lax::integer_pow(in[0], 0);
                 return std::vector<Array>{f(lax::stop_gradient(lax::add(one, one)), in[0])};
               }};
  };
  Row igamma_row = in_x(lax::igamma), igammac_row = in_x(lax::igammac);
  igamma_row.name = "igamma";
  igammac_row.name = "igammac";
  add(igamma_row);
  add(igammac_row);
  add(binary("igamma_grad_a", lax::igamma_grad_a, U(0.5, 3), U(0.2, 4)));
  add(binary("random_gamma_grad", lax::random_gamma_grad, U(0.5, 3), U(0.2, 4)));
  // polygamma and zeta differentiate in their second operand only: the first is a constant
  // made from it behind stop_gradient (polygamma's order 2, zeta's s = 3).
  add({"polygamma", [](Rng &r) { return std::vector<Array>{uniform(r, kS, 0.5, 3)}; },
       [](const std::vector<Array> &in) {
         Array one = lax::integer_pow(in[0], 0);
         return std::vector<Array>{lax::polygamma(lax::stop_gradient(lax::add(one, one)), in[0])};
       }});
  add({"zeta", [](Rng &r) { return std::vector<Array>{uniform(r, kS, 0.5, 3)}; },
       [](const std::vector<Array> &in) {
         Array one = lax::integer_pow(in[0], 0);
         Array s = lax::stop_gradient(lax::add(one, lax::add(one, one)));
         return std::vector<Array>{lax::zeta(s, in[0])};
       }});
  add(binary("nextafter", lax::nextafter, U(-2, 2), U(-2, 2)));
  // betainc varies x in both regions of the continued fraction (a = 2, b = 3 behind
  // stop_gradient: its derivatives in a and b are NaN, as JAX has none).
  add({"regularized_incomplete_beta",
       [](Rng &r) { return std::vector<Array>{uniform(r, kS, 0.05, 0.95)}; },
       [](const std::vector<Array> &in) {
         Array one = lax::integer_pow(in[0], 0);
         Array a = lax::stop_gradient(lax::add(one, one));
         Array b = lax::stop_gradient(lax::add(a, one));
         return std::vector<Array>{lax::betainc(a, b, in[0])};
       }});
  add(binary(
      "and", lax::bitwise_and, [](Rng &r) { return integers(r, kS, -50, 50); },
      [](Rng &r) { return integers(r, kS, -50, 50); }));
  add(binary(
      "or", lax::bitwise_or, [](Rng &r) { return bools(r, kS); },
      [](Rng &r) { return bools(r, kS); }));
  add(binary(
      "xor", lax::bitwise_xor, [](Rng &r) { return integers(r, kS, 0, 255, uint8); },
      [](Rng &r) { return integers(r, kS, 0, 255, uint8); }));
  // Comparisons draw from a few values so that ties occur.
  auto few = [](Rng &r) { return integers(r, kS, 0, 2, float64); };
  add(binary("eq", lax::eq, few, few));
  add(binary("ne", lax::ne, few, few));
  add(binary("lt", lax::lt, few, few));
  add(binary("le", lax::le, few, few));
  add(binary("gt", lax::gt, few, few));
  add(binary("ge", lax::ge, few, few));

  // ---- select, clamp, convert_element_type, stop_gradient
  add({"select",
       [](Rng &r) { return std::vector<Array>{bools(r, kS), uniform(r, kS), uniform(r, kS)}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::select(in[0], in[1], in[2])};
       }});
  // Scalar bounds in [-0.6, -0.4] and [0.4, 0.6]; the operand stays out of [-0.7, -0.3] and
  // [0.3, 0.7], so no mix of examples puts it on a bound.
  add({"clamp",
       [](Rng &r) {
         std::vector<double> x = draw(r, 6, 0, 0.3);
         std::uniform_int_distribution<int> band(0, 2);
         for (double &v : x)
           v = std::array<double, 3>{-1.0 + v, v - 0.15, 0.7 + v}[band(r)];
         return std::vector<Array>{uniform(r, {}, -0.6, -0.4), make(x, kS, float64),
                                   uniform(r, {}, 0.4, 0.6)};
       },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::clamp(in[0], in[1], in[2])};
       }});
  // f64 -> f32 rounds, so the difference quotient needs a wide step and a loose tolerance.
  Row convert{"convert_element_type", [](Rng &r) { return std::vector<Array>{uniform(r, kS)}; },
              [](const std::vector<Array> &in) {
                return std::vector<Array>{lax::convert_element_type(in[0], float32)};
              }};
  convert.fd_step = 1e-2;
  convert.fd_tol = 1e-4;
  convert.dot_tol = 1e-6;
  add(convert);
  Row stop = unary("stop_gradient", lax::stop_gradient, U(-2, 2));
  stop.zero_derivative = true;
  add(stop);
  add(unary("checkpoint_name", [](const Array &x) { return checkpoint_name(x, "tag"); }, U(-2, 2)));

  // ---- Shapes
  add({"iota", [](Rng &) { return std::vector<Array>{}; },
       [](const std::vector<Array> &) { return std::vector<Array>{lax::iota(int32, {2, 3}, 1)}; }});
  add({"broadcast_in_dim", [](Rng &r) { return std::vector<Array>{uniform(r, {3, 1})}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::broadcast_in_dim(in[0], {2, 3, 4}, {1, 2})};
       }});
  add({"reshape", [](Rng &r) { return std::vector<Array>{uniform(r, {2, 3})}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::reshape(in[0], {3, 1, 2})};
       }});
  add({"transpose", [](Rng &r) { return std::vector<Array>{uniform(r, {2, 3, 4})}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::transpose(in[0], {2, 0, 1})};
       }});
  add({"rev", [](Rng &r) { return std::vector<Array>{uniform(r, {2, 3})}; },
       [](const std::vector<Array> &in) { return std::vector<Array>{lax::rev(in[0], {1})}; }});
  add({"slice", [](Rng &r) { return std::vector<Array>{uniform(r, {4, 5})}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::slice(in[0], {1, 0}, {4, 5}, {2, 2})};
       }});
  add({"dynamic_slice",
       [](Rng &r) {
         return std::vector<Array>{uniform(r, {4, 5}), integers(r, {}, 0, 2),
                                   integers(r, {}, 0, 2)};
       },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::dynamic_slice(in[0], {in[1], in[2]}, {2, 3})};
       }});
  add({"dynamic_update_slice",
       [](Rng &r) {
         return std::vector<Array>{uniform(r, {4, 5}), uniform(r, {2, 3}), integers(r, {}, 0, 2),
                                   integers(r, {}, 0, 2)};
       },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::dynamic_update_slice(in[0], in[1], {in[2], in[3]})};
       }});
  add({"pad", [](Rng &r) { return std::vector<Array>{uniform(r, {2, 3}), uniform(r, {})}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::pad(in[0], in[1], {1, -1}, {0, 2}, {1, 0})};
       }});
  add({"concatenate",
       [](Rng &r) {
         return std::vector<Array>{uniform(r, {2, 3}), uniform(r, {2, 1}), uniform(r, {2, 2})};
       },
       [](const std::vector<Array> &in) { return std::vector<Array>{lax::concatenate(in, 1)}; }});

  // ---- Reductions
  add({"reduce_sum", [](Rng &r) { return std::vector<Array>{uniform(r, {2, 3, 4})}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::reduce_sum(in[0], {0, 2})};
       }});
  add({"reduce_max", [](Rng &r) { return std::vector<Array>{distinct(r, {2, 3, 4})}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::reduce_max(in[0], {1})};
       }});
  add({"reduce_min", [](Rng &r) { return std::vector<Array>{distinct(r, {3, 4})}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::reduce_min(in[0], {0})};
       }});
  add({"reduce_prod",
       [](Rng &r) { return std::vector<Array>{away_from_zero(r, {2, 3}, 0.5, 1.5)}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::reduce_prod(in[0], {1})};
       }});
  add({"argmax", [](Rng &r) { return std::vector<Array>{distinct(r, {3, 4})}; },
       [](const std::vector<Array> &in) { return std::vector<Array>{lax::argmax(in[0], 1)}; }});
  add({"argmin", [](Rng &r) { return std::vector<Array>{distinct(r, {3, 4})}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::argmin(in[0], 0, int64)};
       }});
  add({"cumsum", [](Rng &r) { return std::vector<Array>{uniform(r, {3, 4})}; },
       [](const std::vector<Array> &in) { return std::vector<Array>{lax::cumsum(in[0], 1)}; }});
  add({"cumprod", [](Rng &r) { return std::vector<Array>{away_from_zero(r, {3, 4}, 0.5, 1.5)}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::cumprod(in[0], 0, /*reverse=*/true)};
       }});
  add({"cummax", [](Rng &r) { return std::vector<Array>{distinct(r, {3, 4})}; },
       [](const std::vector<Array> &in) { return std::vector<Array>{lax::cummax(in[0], 1)}; }});
  add({"cummin", [](Rng &r) { return std::vector<Array>{distinct(r, {3, 4})}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::cummin(in[0], 0, /*reverse=*/true)};
       }});

  // ---- Contractions
  add({"dot_general",
       [](Rng &r) { return std::vector<Array>{uniform(r, {2, 3, 4}), uniform(r, {2, 4, 5})}; },
       [](const std::vector<Array> &in) {
         lax::DotDimensionNumbers d{{2}, {1}, {0}, {0}};
         return std::vector<Array>{lax::dot_general(in[0], in[1], d)};
       }});

  // ---- Gather and scatter
  // Gathers 2-wide windows of rows: index vectors (row, column) with the window in bounds.
  add({"gather",
       [](Rng &r) {
         Array rows_ = integers(r, {3, 1}, 0, 4), cols = integers(r, {3, 1}, 0, 2);
         return std::vector<Array>{uniform(r, {5, 4}), lax::concatenate({rows_, cols}, 1)};
       },
       [](const std::vector<Array> &in) {
         lax::GatherDimensionNumbers d{{1}, {0}, {0, 1}};
         return std::vector<Array>{lax::gather(in[0], in[1], d, {1, 2})};
       }});
  // scatter_add may hit a row twice; scatter gets distinct rows (its result is then unique).
  add({"scatter_add",
       [](Rng &r) {
         return std::vector<Array>{uniform(r, {5, 4}), integers(r, {3, 1}, 0, 4),
                                   uniform(r, {3, 4})};
       },
       [](const std::vector<Array> &in) {
         lax::ScatterDimensionNumbers d{{1}, {0}, {0}};
         return std::vector<Array>{lax::scatter_add(in[0], in[1], in[2], d)};
       }});
  add({"scatter",
       [](Rng &r) {
         return std::vector<Array>{uniform(r, {5, 4}), distinct_rows(r, 3, 5), uniform(r, {3, 4})};
       },
       [](const std::vector<Array> &in) {
         lax::ScatterDimensionNumbers d{{1}, {0}, {0}};
         return std::vector<Array>{lax::scatter(in[0], in[1], in[2], d)};
       }});

  // ---- Sorting: float keys carrying a float and an integer payload.
  add({"sort",
       [](Rng &r) {
         return std::vector<Array>{distinct(r, {3, 4}), uniform(r, {3, 4}),
                                   integers(r, {3, 4}, -9, 9)};
       },
       [](const std::vector<Array> &in) { return lax::sort(in, -1, 1); }});

  // ---- Bits and random numbers
  add(binary(
      "shift_left", lax::shift_left, [](Rng &r) { return u32_bits(r, kS); },
      [](Rng &r) { return integers(r, kS, 0, 34, uint32); }));
  add(binary(
      "shift_right_logical", lax::shift_right_logical, [](Rng &r) { return u32_bits(r, kS); },
      [](Rng &r) { return integers(r, kS, 0, 34, uint32); }));
  add(binary(
      "shift_right_arithmetic", lax::shift_right_arithmetic,
      [](Rng &r) { return integers(r, kS, -100000, 100000); },
      [](Rng &r) { return integers(r, kS, -2, 34); }));
  Row bitcast{"bitcast_convert_type", [](Rng &r) { return std::vector<Array>{uniform(r, kS)}; },
              [](const std::vector<Array> &in) {
                return std::vector<Array>{lax::bitcast_convert_type(in[0], int64)};
              }};
  bitcast.rejects_float32 = "f64 -> i64 keeps the itemsize; an f32 operand's differs";
  add(bitcast);
  add({"threefry2x32",
       [](Rng &r) {
         return std::vector<Array>{u32_bits(r, {4}), u32_bits(r, {4}), u32_bits(r, {4}),
                                   u32_bits(r, {4})};
       },
       [](const std::vector<Array> &in) {
         auto [a, b] = lax::threefry2x32(in[0], in[1], in[2], in[3]);
         return std::vector<Array>{a, b};
       }});
  // ---- Host callbacks: a pure callback on integers (so not differentiated), run on the host
  // eagerly, per batch element under vmap, and from compiled code under jit.
  add({"host_callback", [](Rng &r) { return std::vector<Array>{integers(r, {3, 4}, -9, 9)}; },
       [](const std::vector<Array> &in) {
         static const int64_t id =
             register_host_callback({[](const std::vector<Array> &a) {
                                       return std::vector<Array>{a[0] * Array(3) + Array(1)};
                                     },
                                     {{{3, 4}, int32, false}},
                                     false,
                                     VmapMethod::Sequential,
                                     "pure_callback"});
         return host_callback(id, in);
       }});
  // ---- Control flow: sub-functions built from public ops, each closing over an operand (a
  // const of the primitive), so that every rule also carries consts.
  add({"cond",
       [](Rng &r) {
         return std::vector<Array>{integers(r, {}, 0, 2), uniform(r, kS), uniform(r, kS)};
       },
       [](const std::vector<Array> &in) {
         const Array &y = in[2];
         std::vector<FlatFn> branches{
             [y](const std::vector<Array> &o) { return std::vector<Array>{lax::sin(o[0]) * y}; },
             [y](const std::vector<Array> &o) {
               return std::vector<Array>{o[0] * y + lax::cos(y)};
             },
             [](const std::vector<Array> &o) { return std::vector<Array>{o[0] * o[0]}; }};
         return lax::switch_flat(in[0], branches, {in[1]});
       }});
  add({"while",
       [](Rng &r) {
         return std::vector<Array>{integers(r, {}, 1, 3), uniform(r, kS), uniform(r, kS)};
       },
       [](const std::vector<Array> &in) {
         const Array &n = in[0], &a = in[2];
         FlatFn cond = [n](const std::vector<Array> &c) {
           return std::vector<Array>{lax::lt(c[0], n)};
         };
         FlatFn body = [a](const std::vector<Array> &c) {
           return std::vector<Array>{lax::add(c[0], Array(int32_t{1})),
                                     lax::sin(c[1]) * a + c[1] * 0.5};
         };
         return lax::while_loop_flat(cond, body, {Array(int32_t{0}), in[1]});
       }});
  add({"scan",
       [](Rng &r) {
         return std::vector<Array>{uniform(r, {3}), uniform(r, {4, 3}), uniform(r, {3})};
       },
       [](const std::vector<Array> &in) {
         const Array &w = in[2];
         FlatFn body = [w](const std::vector<Array> &c) {
           return std::vector<Array>{lax::tanh(c[0] * w + c[1]), c[0] * c[1]};
         };
         auto [carry, ys] = lax::scan_flat(body, {in[0]}, {in[1]});
         return std::vector<Array>{carry[0], ys[0]};
       }});
  // An upper bound of its operand over vmap's batch (reverse mode of while reads it as a trip
  // count): min(n, bound(n)) is n exactly when the bound holds, per example under vmap.
  Row bound{"trip_count_bound", [](Rng &r) { return std::vector<Array>{integers(r, {}, 0, 9)}; },
            [](const std::vector<Array> &in) {
              Array b = bind1(*find_primitive("trip_count_bound"), {in[0]});
              return std::vector<Array>{lax::min(in[0], b)};
            }};
  bound.not_compiled = "the bound is concrete only once its operand is: jit runs it op by op";
  add(bound);
  // ---- Calls: each applies a sub-function; the rules are checked on f(x, y) = sin(x) y (and
  // exp(sin(x)) for remat) with the rules written out. The sub-functions close over a traced
  // value of the enclosing transform whenever the oracle differentiates or batches `scale`:
  // its captured tracer becomes the call's leading operand.
  auto two = [](Rng &r) { return std::vector<Array>{uniform(r, kS), uniform(r, kS)}; };
  add({"remat", two, [](const std::vector<Array> &in) {
         // Saves the named value: the replay takes it from the forward pass.
         Array scale = in[1];
         FlatFn f = [scale](const std::vector<Array> &a) {
           Array h = checkpoint_name(sin(a[0]), "h");
           return std::vector<Array>{h * scale, exp(h)};
         };
         return checkpoint_flat(f, CheckpointPolicy::save_names({"h"}))({in[0]});
       }});
  add({"custom_jvp_call", two, [](const std::vector<Array> &in) {
         FlatFn f = [](const std::vector<Array> &a) {
           return std::vector<Array>{sin(a[0]) * a[1]};
         };
         auto rule = [](const std::vector<Array> &p, const std::vector<Array> &t) {
           return std::vector<Array>{cos(p[0]) * p[1] * t[0] + sin(p[0]) * t[1]};
         };
         return custom_jvp_flat(f, rule)(in);
       }});
  add({"custom_vjp_call", two, [](const std::vector<Array> &in) {
         FlatFn f = [](const std::vector<Array> &a) {
           return std::vector<Array>{sin(a[0]) * a[1]};
         };
         FlatFn fwd = [](const std::vector<Array> &a) {
           return std::vector<Array>{sin(a[0]) * a[1], cos(a[0]), sin(a[0]), a[1]};
         };
         auto bwd = [](const std::vector<Array> &res, const std::vector<Array> &g) {
           return std::vector<Array>{g[0] * res[2] * res[0], g[0] * res[1]};
         };
         return custom_vjp_flat(f, fwd, 1, bwd)(in);
       }});
  // ---- Complex numbers (complex family)
  // Real f64 operands x and y form z = x + iy, so the oracles' finite differences run in the
  // real and the imaginary direction of z; outputs are real parts read back by real and imag.
  // z stays off the real and imaginary axes (the branch cuts of log, sqrt, asin, acosh, atanh
  // and atan). "real" and "imag" run every complex elementwise op and its derivative rules.
  {
    auto z_of = [](const std::vector<Array> &in) { return lax::complex(in[0], in[1]); };
    Gen xy = [](Rng &r) {
      std::vector<Array> v = {uniform(r, kS, 0.3, 1.5), away_from_zero(r, kS)};
      return v;
    };
    using Op = Array (*)(const Array &);
    static const Op kReal[] = {lax::exp,  lax::log,  lax::sqrt,  lax::sin,   lax::tanh,
                               lax::asin, lax::atan, lax::acosh, lax::expm1, lax::neg};
    static const Op kImag[] = {lax::log1p, lax::rsqrt, lax::cos,   lax::tan,   lax::sinh,
                               lax::cosh,  lax::acos,  lax::asinh, lax::atanh, lax::tanh};
    Row r;
    r = {"complex", xy, [z_of](const std::vector<Array> &in) {
           Array z = z_of(in);
           Array w = lax::div(lax::mul(z, z), lax::add(z, lax::integer_pow(z, 3)));
           return std::vector<Array>{lax::real(w), lax::imag(w), lax::abs(w)};
         }};
    add(r);
    r = {"real", xy, [z_of](const std::vector<Array> &in) {
           Array z = z_of(in);
           std::vector<Array> out;
           for (Op f : kReal)
             out.push_back(lax::real(f(z)));
           out.push_back(lax::real(lax::pow(z, lax::conj(z))));
           return out;
         }};
    add(r);
    r = {"imag", xy, [z_of](const std::vector<Array> &in) {
           Array z = z_of(in);
           std::vector<Array> out;
           for (Op f : kImag)
             out.push_back(lax::imag(f(z)));
           out.push_back(lax::imag(lax::sub(lax::integer_pow(z, -2), z)));
           return out;
         }};
    add(r);
    r = {"conj", xy, [z_of](const std::vector<Array> &in) {
           Array z = z_of(in), w = lax::mul(lax::conj(z), lax::conj(in[1]));
           Array s = lax::reduce_sum(lax::mul(z, w), {1});
           return std::vector<Array>{lax::real(w), lax::imag(s),
                                     lax::real(lax::reduce_prod(z, {0}))};
         }};
    add(r);
  }
  // ---- Linear algebra: batches of two small matrices, operands where the decompositions are
  // smooth (positive definite, well-conditioned triangles, separated eigen- and singular values,
  // pivots not close to ties); eigen- and singular vectors get signs fixed by their first row.
  add({"cholesky", [](Rng &r) { return std::vector<Array>{spd(r, 2, 3)}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::linalg::cholesky(in[0])};
       }});
  add({"triangular_solve",
       [](Rng &r) { return std::vector<Array>{triangular(r, 2, 3), uniform(r, {2, 3, 2})}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::linalg::triangular_solve(in[0], in[1], true, true, true)};
       }});
  add({"lu", [](Rng &r) { return std::vector<Array>{distinct(r, {2, 4, 3})}; },
       [](const std::vector<Array> &in) {
         lax::linalg::LuResult f = lax::linalg::lu(in[0]);
         return std::vector<Array>{f.lu, f.pivots, f.permutation};
       }});
  add({"lu_pivots_to_permutation",
       [](Rng &r) { return std::vector<Array>{integers(r, {2, 3}, 0, 3)}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::linalg::lu_pivots_to_permutation(in[0], 4)};
       }});
  add({"qr", [](Rng &r) { return std::vector<Array>{uniform(r, {2, 4, 3})}; },
       [](const std::vector<Array> &in) {
         auto [q, rr] = lax::linalg::qr(in[0], false, false);
         return std::vector<Array>{q, rr};
       }});
  add({"eigh", [](Rng &r) { return std::vector<Array>{separated_symmetric(r, 2, 3)}; },
       [](const std::vector<Array> &in) {
         auto [v, w] = lax::linalg::eigh(in[0]);
         return std::vector<Array>{signs_by_first_row(v, v), w};
       }});
  add({"svd", [](Rng &r) { return std::vector<Array>{uniform(r, {2, 4, 3})}; },
       [](const std::vector<Array> &in) {
         lax::linalg::SvdResult f = lax::linalg::svd(in[0], false);
         Array vt =
             lax::transpose(signs_by_first_row(lax::transpose(f.vh, {0, 2, 1}), f.u), {0, 2, 1});
         return std::vector<Array>{signs_by_first_row(f.u, f.u), f.s, vt};
       }});
  // ---- Fourier transforms (fft family)
  // Real f64 x and y form z = x + iy; every fft_type at even and odd lengths and at 1 to 3 axes,
  // read back as real parts. The IRFFT operands are half spectra cut from z.
  {
    Gen xy = [](Rng &r) {
      Shape s{2, 4, 6};
      std::vector<Array> v = {uniform(r, s), uniform(r, s)};
      return v;
    };
    Row r = {"fft", xy, [](const std::vector<Array> &in) {
               Array z = lax::complex(in[0], in[1]);
               Array half = lax::slice(z, {0, 0, 0}, {2, 4, 4});
               Array odd = lax::slice(z, {0, 0, 0}, {2, 4, 3});
               Array x5 = lax::slice(in[0], {0, 0, 0}, {2, 4, 5});
               Array a = lax::fft(z, "FFT", {6}), b = lax::fft(z, "IFFT", {4, 6});
               Array c = lax::fft(x5, "RFFT", {4, 5}), d = lax::fft(z, "FFT", {2, 4, 6});
               return std::vector<Array>{lax::real(a),
                                         lax::imag(b),
                                         lax::real(c),
                                         lax::imag(c),
                                         lax::fft(half, "IRFFT", {4, 6}),
                                         lax::fft(odd, "IRFFT", {5}),
                                         lax::imag(d)};
             }};
    add(r);
  }
  // ---- Windowed reductions (lib/primitives/window.cpp): 1-D to 3-D operands under strides,
  // padding and both dilations; max/min see distinct values (no ties: the derivative is unique).
  auto windows = [](bool distinct_values) {
    return [distinct_values](Rng &r) {
      auto x = [&](const Shape &s) { return distinct_values ? distinct(r, s) : uniform(r, s); };
      return std::vector<Array>{x({7}), x({5, 6}), x({2, 3, 4})};
    };
  };
  auto window_dims = [] {
    return std::vector<lax::WindowDims>{
        {{3}, {2}, {{-1, 2}}, {}, {}}, // negative padding crops
        {{2, 3}, {1, 2}, {{1, 0}, {0, 2}}, {2, 1}, {1, 2}},
        {{1, 2, 2}, {1, 1, 2}, {{0, 0}, {1, 0}, {0, 1}}, {}, {1, 2, 1}}};
  };
  auto monoid_row = [&](std::string name, Array (*f)(const Array &, const lax::WindowDims &),
                        bool distinct_values) {
    return Row{std::move(name), windows(distinct_values),
               [f, window_dims](const std::vector<Array> &in) {
                 std::vector<lax::WindowDims> w = window_dims();
                 std::vector<Array> out;
                 for (size_t i = 0; i < in.size(); ++i)
                   out.push_back(f(in[i], w[i]));
                 return out;
               }};
  };
  add(monoid_row("reduce_window_sum", lax::reduce_window_sum, false));
  add(monoid_row("reduce_window_max", lax::reduce_window_max, true));
  add(monoid_row("reduce_window_min", lax::reduce_window_min, true));
  // The general reduction with a non-monoid computation over two operands (acc + x * y and the
  // running max); the initial values are constants of the function.
  add({"reduce_window",
       [](Rng &r) { return std::vector<Array>{uniform(r, {4, 5}), distinct(r, {4, 5})}; },
       [](const std::vector<Array> &in) {
         FlatFn f = [](const std::vector<Array> &a) {
           return std::vector<Array>{a[0] + a[2] * a[3], lax::max(a[1], a[3])};
         };
         Array zero = lax::convert_element_type(Array(0.0), in[0].dtype());
         Array low = lax::convert_element_type(Array(-1e30), in[0].dtype());
         lax::WindowDims w{{2, 3}, {1, 2}, {{1, 0}, {0, 1}}, {1, 2}, {}};
         return lax::reduce_window(in, {zero, low}, f, w);
       }});
  // The selections see distinct operand values (their derivative in the operand is zero).
  add({"select_and_gather_add",
       [](Rng &r) { return std::vector<Array>{uniform(r, {5, 6}), distinct(r, {5, 6})}; },
       [](const std::vector<Array> &in) {
         lax::WindowDims w{{2, 3}, {1, 2}, {{1, 0}, {0, 2}}, {2, 1}, {1, 2}};
         return std::vector<Array>{lax::select_and_gather_add(in[0], in[1], true, w),
                                   lax::select_and_gather_add(in[0], in[1], false, w)};
       }});
  add({"select_and_scatter_add",
       [](Rng &r) { return std::vector<Array>{uniform(r, {5, 3}), distinct(r, {5, 6})}; },
       [](const std::vector<Array> &in) {
         lax::WindowDims w{{2, 3}, {1, 2}, {{1, 0}, {0, 1}}, {}, {}};
         return std::vector<Array>{lax::select_and_scatter_add(in[0], in[1], true, w),
                                   lax::select_and_scatter_add(in[0], in[1], false, w)};
       }});
  // ---- Convolution: feature groups, strides, asymmetric padding, rhs dilation, NHWC/HWIO
  // (test_rules_conv.cpp runs the rules over 1-D to 3-D, lhs dilation and batch groups).
  {
    Row conv{"conv_general_dilated",
             [](Rng &r) {
               return std::vector<Array>{uniform(r, {2, 5, 6, 4}), uniform(r, {2, 3, 2, 6})};
             },
             [](const std::vector<Array> &in) {
               lax::ConvDimensionNumbers nhwc{{0, 3, 1, 2}, {3, 2, 0, 1}, {0, 3, 1, 2}};
               return std::vector<Array>{lax::conv_general_dilated(
                   in[0], in[1], {2, 1}, {{1, 0}, {0, 1}}, {1, 1}, {1, 2}, nhwc, 2)};
             }};
    add(conv);
  }
  // ---- The nonsymmetric eigenproblem (eig family): real f64 x and a small y form z = x + iy;
  // x is diagonally dominant with a separated diagonal (distinct eigenvalues in a stable order).
  // Complex outputs are read back as real and imaginary parts. CPU only, as in JAX.
  {
    const std::string cpu_only = "the nonsymmetric eigenproblem is compiled for the CPU only";
    Gen xy = [](Rng &r) {
      Array x =
          lax::add(uniform(r, {2, 3, 3}, -0.3, 0.3),
                   make({1, 0, 0, 0, 2.5, 0, 0, 0, 4, 1, 0, 0, 0, 2.5, 0, 0, 0, 4}, {2, 3, 3}));
      return std::vector<Array>{x, uniform(r, {2, 3, 3}, -0.2, 0.2)};
    };
    auto parts = [](std::vector<Array> &out, const Array &z) {
      out.push_back(lax::real(z));
      out.push_back(lax::imag(z));
    };
    Row r{"eig", xy, [parts](const std::vector<Array> &in) {
            std::vector<Array> out;
            parts(out, lax::linalg::eig(in[0], false, false).w);
            parts(out, lax::linalg::eig(lax::complex(in[0], in[1]), false, false).w);
            return out;
          }};
    r.first_order_only = "eigenvalue tangents need eigenvectors, which have no derivative "
                         "(as in JAX)";
    r.not_compiled_gpu = cpu_only;
    add(r);
    r = {"schur", xy, [parts](const std::vector<Array> &in) {
           auto [t, vs] = lax::linalg::schur(in[0]);
           auto [tc, vc] = lax::linalg::schur(lax::complex(in[0], in[1]));
           std::vector<Array> out{t, vs};
           parts(out, tc);
           parts(out, vc);
           return out;
         }};
    r.no_derivative = "schur has no derivative rule (as in JAX)";
    r.not_compiled_gpu = cpu_only;
    add(r);
    r = {"hessenberg", xy, [parts](const std::vector<Array> &in) {
           auto [h, taus] = lax::linalg::hessenberg(in[0]);
           auto [hc, tc] = lax::linalg::hessenberg(lax::complex(in[0], in[1]));
           std::vector<Array> out{h, taus};
           parts(out, hc);
           parts(out, tc);
           return out;
         }};
    r.no_derivative = "hessenberg has no derivative rule (as in JAX)";
    r.not_compiled_gpu = cpu_only;
    add(r);
    r = {"householder_product",
         [](Rng &r) {
           return std::vector<Array>{uniform(r, {2, 4, 3}), uniform(r, {2, 4, 3}),
                                     uniform(r, {2, 2}, 0.5, 1.5)};
         },
         [parts](const std::vector<Array> &in) {
           Array z = lax::complex(in[0], in[1]);
           std::vector<Array> out{lax::linalg::householder_product(in[0], in[2])};
           parts(out,
                 lax::linalg::householder_product(z, lax::convert_element_type(in[2], z.dtype())));
           return out;
         }};
    r.no_derivative = "householder_product has no derivative rule (as in JAX)";
    r.not_compiled_gpu = cpu_only;
    add(r);
  }
#ifdef STRATA_TABLE_JIT_ROWS
  // A jitted function (jit_call exists where the compiler is linked: the jit tests): under the
  // oracle's transforms, each compiles its transform of the function (jit_call's rules) and
  // calls it; `scale` is a captured tracer when it is one.
  add({"jit_call", two, [](const std::vector<Array> &in) {
         Array scale = in[1];
         auto f = jit([scale](const Array &x) {
           return std::vector<Array>{sin(x) * scale, exp(x) + scale};
         });
         return f(in[0]);
       }});
#endif
  return rows;
}

inline const std::map<std::string, Row> &rows() {
  static const std::map<std::string, Row> m = [] {
    std::map<std::string, Row> out;
    for (Row &r : make_rows()) {
      std::string n = r.name;
      if (!out.emplace(n, std::move(r)).second)
        ADD_FAILURE() << "two rows for " << n;
    }
    return out;
  }();
  return m;
}

// A seed per row, so each row's operands do not depend on the table's order.
inline Rng rng_for(const std::string &name) { return Rng(std::hash<std::string>{}(name) ^ 0x5eed); }

} // namespace strata::testutil
