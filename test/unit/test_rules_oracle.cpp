// The transform-rule oracle table (design.md section 7): one row per registered primitive, and
// the same independent checks run over every row:
//   HasRules      batch rule always; jvp and vjp unless kNonDifferentiable,
//   Jvp           jvp vs central finite differences in float64,
//   SecondOrder   jvp of jvp, and jvp of the vjp, vs finite differences of the first-order rule,
//   VjpTranspose  <v, J u> == <J^T v, u> between jvp_flat and vjp_flat,
//   Vmap          vmap vs a per-example loop, in_axes 0, 1, -1 and kNotBatched operands,
//   NestedVmap    vmap of vmap vs a double loop,
//   EvalShape     eval_shape_flat vs the shapes that eval produces.
// The suite is instantiated over every registered primitive as well as every row, so a primitive
// without a row shows up as its own failing case ("a primitive without a rule is a test
// failure").
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {

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
};

// ---- Operand generators -----------------------------------------------------------------------

std::vector<double> draw(Rng &rng, int64_t n, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(static_cast<size_t>(n));
  for (double &x : v)
    x = d(rng);
  return v;
}
Array uniform(Rng &rng, const Shape &s, double lo = -1, double hi = 1) {
  return make(draw(rng, num_elements(s), lo, hi), s, float64);
}
// |x| in [lo, hi] with a random sign: away from a kink or pole at 0.
Array away_from_zero(Rng &rng, const Shape &s, double lo = 0.3, double hi = 1.5) {
  std::vector<double> v = draw(rng, num_elements(s), lo, hi);
  std::bernoulli_distribution coin;
  for (double &x : v)
    x = coin(rng) ? x : -x;
  return make(v, s, float64);
}
// Values whose fractional part lies in [0.1, 0.4] or [0.6, 0.9]: away from the steps of floor,
// ceil and round.
Array off_grid(Rng &rng, const Shape &s) {
  std::vector<double> v = draw(rng, num_elements(s), 0.1, 0.4);
  std::uniform_int_distribution<int> whole(-3, 2);
  std::bernoulli_distribution coin;
  for (double &x : v)
    x = whole(rng) + (coin(rng) ? x : 1 - x);
  return make(v, s, float64);
}
// Distinct values at least 0.4 apart in random order: no ties for sort, max and argmax.
Array distinct(Rng &rng, const Shape &s) {
  int64_t n = num_elements(s);
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0.0);
  std::shuffle(v.begin(), v.end(), rng);
  std::vector<double> jitter = draw(rng, n, 0, 0.1);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = 0.5 * v[i] - 0.25 * n + jitter[i];
  return make(v, s, float64);
}
Array integers(Rng &rng, const Shape &s, int64_t lo, int64_t hi, DType dtype = int32) {
  std::uniform_int_distribution<int64_t> d(lo, hi);
  std::vector<double> v(static_cast<size_t>(num_elements(s)));
  for (double &x : v)
    x = static_cast<double>(d(rng));
  return make(v, s, dtype);
}
Array u32_bits(Rng &rng, const Shape &s) {
  std::vector<uint32_t> v(static_cast<size_t>(num_elements(s)));
  for (uint32_t &x : v)
    x = static_cast<uint32_t>(rng());
  return Array::from_vector(v, s);
}
Array bools(Rng &rng, const Shape &s) {
  std::bernoulli_distribution coin;
  std::vector<bool> v(static_cast<size_t>(num_elements(s)));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = coin(rng);
  return Array::from_vector(v, s);
}
// n distinct indices in [0, bound), as an i32 column [n, 1].
Array distinct_rows(Rng &rng, int64_t n, int64_t bound) {
  std::vector<double> v(static_cast<size_t>(bound));
  std::iota(v.begin(), v.end(), 0.0);
  std::shuffle(v.begin(), v.end(), rng);
  v.resize(static_cast<size_t>(n));
  return make(v, {n, 1}, int32);
}

const Shape kS{2, 3};

// ---- Row builders -----------------------------------------------------------------------------

FlatFn unary_fn(Array (*f)(const Array &)) {
  return [f](const std::vector<Array> &in) { return std::vector<Array>{f(in[0])}; };
}
FlatFn binary_fn(Array (*f)(const Array &, const Array &)) {
  return [f](const std::vector<Array> &in) { return std::vector<Array>{f(in[0], in[1])}; };
}
Row unary(std::string name, Array (*f)(const Array &), std::function<Array(Rng &)> x) {
  return {std::move(name), [x](Rng &r) { return std::vector<Array>{x(r)}; }, unary_fn(f)};
}
Row binary(std::string name, Array (*f)(const Array &, const Array &),
           std::function<Array(Rng &)> x, std::function<Array(Rng &)> y) {
  return {std::move(name), [x, y](Rng &r) { return std::vector<Array>{x(r), y(r)}; },
          binary_fn(f)};
}
auto U(double lo, double hi, Shape s = kS) {
  return [lo, hi, s](Rng &r) { return uniform(r, s, lo, hi); };
}
auto AwayFromZero(Shape s = kS) {
  return [s](Rng &r) { return away_from_zero(r, s); };
}
auto OffGrid(Shape s = kS) {
  return [s](Rng &r) { return off_grid(r, s); };
}

std::vector<Row> make_rows() {
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
  add(unary("is_finite", lax::is_finite, [](Rng &r) {
    std::vector<double> v = draw(r, 6, -2, 2);
    v[1] = INFINITY;
    v[4] = NAN;
    return make(v, kS, float64);
  }));
  add(unary("not", lax::bitwise_not, [](Rng &r) { return integers(r, kS, -50, 50); }));
  add({"integer_pow", [](Rng &r) { return std::vector<Array>{uniform(r, kS, -2, 2)}; },
       [](const std::vector<Array> &in) { return std::vector<Array>{lax::integer_pow(in[0], 3)}; }});

  // ---- Elementwise binary
  add(binary("add", lax::add, U(-2, 2), U(-2, 2)));
  add(binary("sub", lax::sub, U(-2, 2), U(-2, 2)));
  add(binary("mul", lax::mul, U(-2, 2), U(-2, 2)));
  add(binary("div", lax::div, U(-2, 2), AwayFromZero()));
  // x / y stays off the integers, where rem's derivative in y jumps.
  add(binary("rem", lax::rem, [](Rng &r) { return away_from_zero(r, kS, 0.2, 0.8); },
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
  add(binary("and", lax::bitwise_and, [](Rng &r) { return integers(r, kS, -50, 50); },
             [](Rng &r) { return integers(r, kS, -50, 50); }));
  add(binary("or", lax::bitwise_or, [](Rng &r) { return bools(r, kS); },
             [](Rng &r) { return bools(r, kS); }));
  add(binary("xor", lax::bitwise_xor, [](Rng &r) { return integers(r, kS, 0, 255, uint8); },
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
       [](Rng &r) {
         return std::vector<Array>{bools(r, kS), uniform(r, kS), uniform(r, kS)};
       },
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
  add(unary(
      "checkpoint_name", [](const Array &x) { return checkpoint_name(x, "tag"); }, U(-2, 2)));

  // ---- Shapes
  add({"iota", [](Rng &) { return std::vector<Array>{}; },
       [](const std::vector<Array> &) {
         return std::vector<Array>{lax::iota(int32, {2, 3}, 1)};
       }});
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
  add({"cumprod",
       [](Rng &r) { return std::vector<Array>{away_from_zero(r, {3, 4}, 0.5, 1.5)}; },
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
         return std::vector<Array>{uniform(r, {5, 4}), distinct_rows(r, 3, 5),
                                   uniform(r, {3, 4})};
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
  add(binary("shift_left", lax::shift_left, [](Rng &r) { return u32_bits(r, kS); },
             [](Rng &r) { return integers(r, kS, 0, 34, uint32); }));
  add(binary("shift_right_logical", lax::shift_right_logical,
             [](Rng &r) { return u32_bits(r, kS); },
             [](Rng &r) { return integers(r, kS, 0, 34, uint32); }));
  add({"bitcast_convert_type", [](Rng &r) { return std::vector<Array>{uniform(r, kS)}; },
       [](const std::vector<Array> &in) {
         return std::vector<Array>{lax::bitcast_convert_type(in[0], int64)};
       }});
  add({"threefry2x32",
       [](Rng &r) {
         return std::vector<Array>{u32_bits(r, {4}), u32_bits(r, {4}), u32_bits(r, {4}),
                                   u32_bits(r, {4})};
       },
       [](const std::vector<Array> &in) {
         auto [a, b] = lax::threefry2x32(in[0], in[1], in[2], in[3]);
         return std::vector<Array>{a, b};
       }});
  return rows;
}

const std::map<std::string, Row> &rows() {
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
Rng rng_for(const std::string &name) { return Rng(std::hash<std::string>{}(name) ^ 0x5eed); }

// ---- Helpers over flat lists of arrays --------------------------------------------------------

bool floating(const Array &a) { return is_floating(a.dtype()); }

// All float outputs' values, concatenated.
std::vector<double> flat_floats(const std::vector<Array> &xs) {
  std::vector<double> out;
  for (const Array &x : xs)
    if (floating(x)) {
      std::vector<double> v = values(x);
      out.insert(out.end(), v.begin(), v.end());
    }
  return out;
}

// x + h * u for the float operands (u is zero elsewhere).
std::vector<Array> shifted(const std::vector<Array> &x, const std::vector<Array> &u, double h) {
  std::vector<Array> out;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!floating(x[i])) {
      out.push_back(x[i]);
      continue;
    }
    std::vector<double> a = values(x[i]), b = values(u[i]);
    for (size_t k = 0; k < a.size(); ++k)
      a[k] += h * b[k];
    out.push_back(make(a, x[i].shape(), x[i].dtype()));
  }
  return out;
}

// A random direction for the float operands; zeros of the operand's type for the others.
std::vector<Array> direction(Rng &rng, const std::vector<Array> &x) {
  std::vector<Array> u;
  for (const Array &a : x)
    u.push_back(floating(a) ? lax::convert_element_type(uniform(rng, a.shape()), a.dtype())
                            : zeros_like(a));
  return u;
}

double max_abs(const std::vector<double> &v) {
  double m = 0;
  for (double x : v)
    m = std::max(m, std::fabs(x));
  return m;
}

// got ~= want elementwise, within tol relative to the larger of 1 and want's largest entry.
void expect_vectors_near(const std::vector<double> &got, const std::vector<double> &want,
                         double tol, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = std::max(1.0, max_abs(want));
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * scale) << what << " at flat index " << i;
}

// Same shape, dtype and values (NaN matches NaN); floats within a relative tol.
void expect_same(const Array &got, const Array &want, double tol, const std::string &what) {
  ASSERT_EQ(got.type_str(), want.type_str()) << what;
  std::vector<double> g = values(got), w = values(want);
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(w[i])) {
      EXPECT_TRUE(std::isnan(g[i])) << what << " at flat index " << i;
      continue;
    }
    if (std::isinf(w[i]) || !floating(want)) {
      EXPECT_EQ(g[i], w[i]) << what << " at flat index " << i;
      continue;
    }
    EXPECT_NEAR(g[i], w[i], tol * (1 + std::fabs(w[i]))) << what << " at flat index " << i;
  }
}

// ---- The parameterized suite ------------------------------------------------------------------

class RulesOracle : public ::testing::TestWithParam<std::string> {
protected:
  const Primitive *prim() const { return find_primitive(GetParam()); }
  // The row under test, or nullptr (the HasRow case reports that).
  const Row *row() const {
    auto it = rows().find(GetParam());
    return it == rows().end() ? nullptr : &it->second;
  }
  // Differentiation checks apply to differentiable primitives with float operands.
  bool differentiable(const Row &r, const std::vector<Array> &x) const {
    const Primitive *p = prim();
    if (!p || p->has(kNonDifferentiable))
      return false;
    return std::any_of(x.begin(), x.end(), floating);
  }
};

#define REQUIRE_ROW(r)                                                                          \
  const Row *r = row();                                                                        \
  if (!r)                                                                                       \
    GTEST_SKIP() << "no row (reported by HasRow)";

TEST_P(RulesOracle, HasRow) {
  EXPECT_NE(prim(), nullptr) << "row '" << GetParam() << "' names no registered primitive";
  EXPECT_NE(row(), nullptr) << "primitive '" << GetParam() << "' has no row in the oracle table";
}

TEST_P(RulesOracle, HasRules) {
  const Primitive *p = prim();
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(static_cast<bool>(p->batch)) << p->name << " has no batch rule";
  if (!p->has(kNonDifferentiable)) {
    EXPECT_TRUE(static_cast<bool>(p->jvp)) << p->name << " has no jvp rule";
    EXPECT_TRUE(static_cast<bool>(p->vjp)) << p->name << " has no vjp rule";
  }
}

TEST_P(RulesOracle, Jvp) {
  REQUIRE_ROW(r);
  Rng rng = rng_for(r->name);
  std::vector<Array> x = r->gen(rng);
  if (!differentiable(*r, x))
    GTEST_SKIP() << "not differentiable";
  for (int trial = 0; trial < 2; ++trial) {
    std::vector<Array> u = direction(rng, x);
    auto [y, ty] = jvp_flat(r->fn, x, u);
    std::vector<Array> y0 = r->fn(x);
    ASSERT_EQ(y.size(), y0.size());
    for (size_t i = 0; i < y.size(); ++i) {
      expect_same(y[i], y0[i], 0, "jvp primal output " + std::to_string(i));
      EXPECT_EQ(ty[i].type_str(), y[i].type_str()) << "tangent of output " << i;
    }
    std::vector<double> want;
    if (r->zero_derivative) {
      want.assign(flat_floats(y).size(), 0.0);
    } else {
      std::vector<double> hi = flat_floats(r->fn(shifted(x, u, r->fd_step)));
      std::vector<double> lo = flat_floats(r->fn(shifted(x, u, -r->fd_step)));
      for (size_t k = 0; k < hi.size(); ++k)
        want.push_back((hi[k] - lo[k]) / (2 * r->fd_step));
    }
    expect_vectors_near(flat_floats(ty), want, r->fd_tol, "jvp vs finite differences");
  }
}

TEST_P(RulesOracle, SecondOrder) {
  REQUIRE_ROW(r);
  Rng rng = rng_for(r->name);
  std::vector<Array> x = r->gen(rng);
  if (!differentiable(*r, x))
    GTEST_SKIP() << "not differentiable";
  std::vector<Array> u = direction(rng, x), w = direction(rng, x);
  std::vector<Array> y = r->fn(x);
  std::vector<Array> v;
  for (const Array &o : y)
    v.push_back(floating(o) ? lax::convert_element_type(uniform(rng, o.shape()), o.dtype())
                            : zeros_like(o));
  // First-order rules as functions of the primal point: the jvp along u, and the vjp of v.
  FlatFn jvp_u = [&](const std::vector<Array> &p) { return jvp_flat(r->fn, p, u).second; };
  FlatFn vjp_v = [&](const std::vector<Array> &p) {
    std::vector<Array> g = vjp_flat(r->fn, p).pullback(v);
    std::vector<Array> out;
    for (size_t i = 0; i < g.size(); ++i)
      if (floating(p[i]))
        out.push_back(g[i]);
    return out;
  };
  double h = r->fd_step * 10; // the rules' outputs are smoother than FD noise at 1e-6
  for (auto [first, what] : {std::pair{jvp_u, "jvp of jvp"}, std::pair{vjp_v, "jvp of vjp"}}) {
    SCOPED_TRACE(what);
    std::vector<Array> t = jvp_flat(first, x, w).second;
    std::vector<double> want;
    if (r->zero_derivative) {
      want.assign(flat_floats(t).size(), 0.0);
    } else {
      std::vector<double> hi = flat_floats(first(shifted(x, w, h)));
      std::vector<double> lo = flat_floats(first(shifted(x, w, -h)));
      for (size_t k = 0; k < hi.size(); ++k)
        want.push_back((hi[k] - lo[k]) / (2 * h));
    }
    expect_vectors_near(flat_floats(t), want, r->fd_tol, std::string(what) + " vs FD");
  }
}

TEST_P(RulesOracle, VjpTranspose) {
  REQUIRE_ROW(r);
  Rng rng = rng_for(r->name);
  std::vector<Array> x = r->gen(rng);
  if (!differentiable(*r, x))
    GTEST_SKIP() << "not differentiable";
  for (int trial = 0; trial < 2; ++trial) {
    std::vector<Array> u = direction(rng, x);
    std::vector<Array> ju = jvp_flat(r->fn, x, u).second;
    VjpResult res = vjp_flat(r->fn, x);
    std::vector<Array> v;
    for (const Array &o : res.outputs)
      v.push_back(floating(o) ? lax::convert_element_type(uniform(rng, o.shape()), o.dtype())
                              : zeros_like(o));
    std::vector<Array> jtv = res.pullback(v);
    ASSERT_EQ(jtv.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_EQ(jtv[i].type_str(), x[i].type_str()) << "cotangent of operand " << i;
    double lhs = 0, rhs = 0, scale = 0;
    std::vector<double> fv = flat_floats(v), fju = flat_floats(ju);
    for (size_t k = 0; k < fv.size(); ++k) {
      lhs += fv[k] * fju[k];
      scale += std::fabs(fv[k] * fju[k]);
    }
    std::vector<double> fjtv = flat_floats(jtv), fu = flat_floats(u);
    ASSERT_EQ(fjtv.size(), fu.size());
    for (size_t k = 0; k < fu.size(); ++k) {
      rhs += fjtv[k] * fu[k];
      scale += std::fabs(fjtv[k] * fu[k]);
    }
    EXPECT_NEAR(lhs, rhs, r->dot_tol * std::max(1.0, scale)) << "<v, J u> vs <J^T v, u>";
  }
}

// ---- vmap -------------------------------------------------------------------------------------

constexpr int64_t kBatch = 3;

// Stacks examples at `axis` (kNotBatched: the first example, shared by all).
Array batched(const std::vector<Array> &examples, int64_t axis) {
  if (axis == kNotBatched)
    return examples[0];
  return stack(examples, static_cast<int>(axis));
}

// vmap of the row's function with the given in_axes (an operand's axis is in [0, its rank])
// vs a loop over examples whose outputs are stacked at 0.
void check_vmap(const Row &r, const std::vector<std::vector<Array>> &ex,
                const std::vector<int64_t> &axes, const std::string &what) {
  SCOPED_TRACE(what);
  size_t n = ex[0].size();
  std::vector<Array> in;
  std::vector<std::vector<Array>> per_operand(n);
  for (size_t i = 0; i < n; ++i) {
    for (const auto &e : ex)
      per_operand[i].push_back(e[i]);
    in.push_back(batched(per_operand[i], axes[i]));
  }
  // Pass the axes the way users write them: the last one as -1.
  std::vector<int64_t> in_axes = axes;
  for (size_t i = 0; i < n; ++i)
    if (axes[i] != kNotBatched && axes[i] == ex[0][i].ndim() && axes[i] > 0)
      in_axes[i] = -1;
  std::vector<Array> got = vmap_flat(r.fn, in, in_axes);
  std::vector<std::vector<Array>> loop_outs;
  for (size_t b = 0; b < ex.size(); ++b) {
    std::vector<Array> args;
    for (size_t i = 0; i < n; ++i)
      args.push_back(axes[i] == kNotBatched ? ex[0][i] : ex[b][i]);
    loop_outs.push_back(r.fn(args));
  }
  ASSERT_EQ(got.size(), loop_outs[0].size());
  for (size_t k = 0; k < got.size(); ++k) {
    std::vector<Array> col;
    for (auto &o : loop_outs)
      col.push_back(o[k]);
    expect_same(got[k], stack(col, 0), 1e-12, "output " + std::to_string(k));
  }
}

std::string axes_str(const std::vector<int64_t> &axes) {
  std::string s = "in_axes {";
  for (size_t i = 0; i < axes.size(); ++i)
    s += (i ? ", " : "") + (axes[i] == kNotBatched ? std::string("N") : std::to_string(axes[i]));
  return s + "}";
}

TEST_P(RulesOracle, Vmap) {
  REQUIRE_ROW(r);
  Rng rng = rng_for(r->name);
  std::vector<std::vector<Array>> ex;
  for (int b = 0; b < kBatch; ++b)
    ex.push_back(r->gen(rng));
  size_t n = ex[0].size();
  if (n == 0)
    GTEST_SKIP() << "no operands: vmap never batches this primitive";
  std::vector<std::vector<int64_t>> modes;
  std::vector<int64_t> zero(n, 0), one(n), last(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t rank = ex[0][i].ndim();
    one[i] = rank >= 1 ? 1 : 0;
    last[i] = rank;
  }
  modes = {zero, one, last};
  // Each operand in turn not batched, and all but the first not batched.
  if (n > 1) {
    for (size_t i = 0; i < n; ++i) {
      std::vector<int64_t> m = zero;
      m[i] = kNotBatched;
      modes.push_back(m);
    }
    std::vector<int64_t> m(n, kNotBatched);
    m[0] = last[0];
    modes.push_back(m);
  }
  for (const auto &m : modes)
    check_vmap(*r, ex, m, axes_str(m));
}

TEST_P(RulesOracle, NestedVmap) {
  REQUIRE_ROW(r);
  Rng rng = rng_for(r->name);
  constexpr int kOuter = 2, kInner = 3;
  std::vector<std::vector<std::vector<Array>>> ex(kOuter);
  for (auto &outer : ex)
    for (int b = 0; b < kInner; ++b)
      outer.push_back(r->gen(rng));
  size_t n = ex[0][0].size();
  if (n == 0)
    GTEST_SKIP() << "no operands: vmap never batches this primitive";
  // The inner vmap maps every operand at 0 but the last, which only the outer one maps (when
  // there are several operands). The outer vmap maps the inner batches at axis 1.
  std::vector<int64_t> inner_axes(n, 0), outer_axes(n, 1);
  if (n > 1) {
    inner_axes[n - 1] = kNotBatched;
    outer_axes[n - 1] = 0;
  }
  std::vector<Array> in;
  for (size_t i = 0; i < n; ++i) {
    std::vector<Array> per_outer;
    for (int a = 0; a < kOuter; ++a) {
      std::vector<Array> per_inner;
      for (int b = 0; b < kInner; ++b)
        per_inner.push_back(ex[a][b][i]);
      per_outer.push_back(inner_axes[i] == kNotBatched ? per_inner[0] : stack(per_inner, 0));
    }
    in.push_back(stack(per_outer, static_cast<int>(outer_axes[i])));
  }
  FlatFn inner = [&](const std::vector<Array> &xs) { return vmap_flat(r->fn, xs, inner_axes); };
  std::vector<Array> got = vmap_flat(inner, in, outer_axes);
  std::vector<Array> want;
  for (size_t k = 0;; ++k) {
    std::vector<Array> rows_a;
    for (int a = 0; a < kOuter; ++a) {
      std::vector<Array> rows_b;
      for (int b = 0; b < kInner; ++b) {
        std::vector<Array> args;
        for (size_t i = 0; i < n; ++i)
          args.push_back(inner_axes[i] == kNotBatched ? ex[a][0][i] : ex[a][b][i]);
        std::vector<Array> o = r->fn(args);
        if (k >= o.size())
          break;
        rows_b.push_back(o[k]);
      }
      if (rows_b.empty())
        break;
      rows_a.push_back(stack(rows_b, 0));
    }
    if (rows_a.empty())
      break;
    want.push_back(stack(rows_a, 0));
  }
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k)
    expect_same(got[k], want[k], 1e-12, "nested vmap output " + std::to_string(k));
}

TEST_P(RulesOracle, EvalShape) {
  REQUIRE_ROW(r);
  Rng rng = rng_for(r->name);
  std::vector<Array> x = r->gen(rng);
  std::vector<AbstractValue> in;
  for (const Array &a : x)
    in.push_back(abstract_of(a));
  std::vector<AbstractValue> got = eval_shape_flat(r->fn, in);
  std::vector<Array> y = r->fn(x);
  ASSERT_EQ(got.size(), y.size());
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_EQ(got[i], abstract_of(y[i]))
        << "output " << i << ": eval_shape " << got[i].str() << ", eval " << y[i].type_str();
}

// Every registered primitive and every row name, so that a primitive without a row and a row
// without a primitive each show up as a failing case.
std::vector<std::string> case_names() {
  std::set<std::string> names;
  for (const Primitive *p : all_primitives())
    names.insert(p->name);
  for (const auto &[n, r] : rows())
    names.insert(n);
  return {names.begin(), names.end()};
}

INSTANTIATE_TEST_SUITE_P(All, RulesOracle, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           return info.param;
                         });

TEST(RulesOracleTable, EveryPrimitiveHasARow) {
  std::string missing;
  for (const Primitive *p : all_primitives())
    if (!rows().count(p->name))
      missing += p->name + " ";
  EXPECT_TRUE(missing.empty()) << "primitives without an oracle row: " << missing;
}

} // namespace
