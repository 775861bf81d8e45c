// Test table of the elementwise primitives: one row per primitive (lax function, dtypes, input
// generator, independent long-double oracle, tolerance), run over every dtype and edge shape.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "strata/internal/thread_pool.h"
#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;

STRATA_TESTS_PRIMITIVES("neg", "abs", "sign", "floor", "ceil", "round", "exp", "log", "log1p",
                        "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "logistic", "erf",
                        "erf_inv", "is_finite", "not", "integer_pow", "add", "sub", "mul", "div",
                        "rem", "pow", "max", "min", "atan2", "and", "or", "xor", "eq", "ne", "lt",
                        "le", "gt", "ge", "select", "clamp", "convert_element_type",
                        "stop_gradient", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh",
                        "atanh", "cbrt", "exp2", "population_count", "clz", "nextafter",
                        "bessel_i0e", "bessel_i1e", "regularized_incomplete_beta",
                        "shift_right_arithmetic", "erfc", "lgamma", "digamma", "igamma", "igammac",
                        "igamma_grad_a", "random_gamma_grad", "polygamma", "zeta");

namespace {

using LD = long double;
using I128 = __int128;
static_assert(std::numeric_limits<LD>::digits >= 64, "oracles need int64 and f64 exact in LD");

constexpr LD kInf = std::numeric_limits<LD>::infinity();
constexpr LD kNaN = std::numeric_limits<LD>::quiet_NaN();

const std::vector<DType> kAll = {bool_,  int8,    int32,    int64,   uint8,
                                 uint32, float16, bfloat16, float32, float64};
const std::vector<DType> kFloat = {float16, bfloat16, float32, float64};
const std::vector<DType> kNumeric = {int8,    int32,    int64,   uint8,  uint32,
                                     float16, bfloat16, float32, float64};
const std::vector<DType> kIntOrBool = {bool_, int8, int32, int64, uint8, uint32};

// ---- Independent rounding and storage ----------------------------------------------------------

// Rounds v to nearest-even in a binary format with `digits` significand bits, smallest normal
// exponent `emin` and largest finite value `max_finite` (one rounding, from the exact value).
LD round_binary(LD v, int digits, int emin, LD max_finite) {
  if (std::isnan(v) || std::isinf(v) || v == 0)
    return v;
  LD a = std::fabs(v);
  int e = std::max(std::ilogb(a), emin);
  LD quantum = std::ldexp(LD{1}, e - (digits - 1));
  LD r = std::nearbyint(a / quantum) * quantum;
  if (r > max_finite)
    r = kInf;
  return std::copysign(r, v);
}

/// The value of dtype `dt` nearest to v (floats); integers and bool pass through.
LD round_to(DType dt, LD v) {
  switch (dt) {
  case float16:
    return round_binary(v, 11, -14, 65504.0L);
  case bfloat16:
    return round_binary(v, 8, -126, std::ldexp(LD{255}, 120));
  case float32:
    return static_cast<float>(v);
  case float64:
    return static_cast<double>(v);
  default:
    return v;
  }
}

/// v reduced modulo 2^bits into dt's range (bool is one bit wide).
I128 wrap_to(DType dt, I128 v) {
  switch (dt) {
  case bool_:
    return v & 1;
  case int8:
    return static_cast<int8_t>(static_cast<uint8_t>(v));
  case int32:
    return static_cast<int32_t>(static_cast<uint32_t>(v));
  case int64:
    return static_cast<int64_t>(static_cast<uint64_t>(v));
  case uint8:
    return static_cast<uint8_t>(v);
  case uint32:
    return static_cast<uint32_t>(v);
  default:
    ADD_FAILURE() << "wrap_to on " << short_name(dt);
    return v;
  }
}

template <class T> std::vector<T> cast_all(const std::vector<LD> &v) {
  std::vector<T> out;
  for (LD x : v)
    out.push_back(static_cast<T>(x));
  return out;
}

/// An array of dt holding v (floats rounded once to dt; integers must already fit).
Array make_ld(const std::vector<LD> &v, const Shape &shape, DType dt) {
  auto from = [&](const auto &vec) { return Array::from_data(vec.data(), shape, dt); };
  switch (dt) {
  case bool_: {
    std::vector<uint8_t> b;
    for (LD x : v)
      b.push_back(x != 0);
    return from(b);
  }
  case int8:
    return from(cast_all<int8_t>(v));
  case int32:
    return from(cast_all<int32_t>(v));
  case int64:
    return from(cast_all<int64_t>(v));
  case uint8:
    return from(cast_all<uint8_t>(v));
  case uint32:
    return from(cast_all<uint32_t>(v));
  case float16: {
    std::vector<f16_t> h;
    for (LD x : v)
      h.push_back(to_f16(static_cast<float>(round_to(float16, x)))); // exact: already rounded
    return from(h);
  }
  case bfloat16: {
    std::vector<bf16_t> h;
    for (LD x : v)
      h.push_back(to_bf16(static_cast<float>(round_to(bfloat16, x))));
    return from(h);
  }
  case float32:
    return from(cast_all<float>(v));
  case float64:
    return from(cast_all<double>(v));
  }
  return {};
}
Array make_ld(const std::vector<LD> &v, DType dt) {
  return make_ld(v, Shape{static_cast<int64_t>(v.size())}, dt);
}

/// Every element of any array, exactly, read straight from its buffer.
std::vector<LD> read(const Array &a) {
  std::vector<LD> out(static_cast<size_t>(a.size()));
  auto go = [&](const auto *p) {
    for (size_t i = 0; i < out.size(); ++i) {
      using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
      if constexpr (std::is_same_v<T, f16_t> || std::is_same_v<T, bf16_t>)
        out[i] = to_float(p[i]);
      else
        out[i] = static_cast<LD>(p[i]);
    }
  };
  switch (a.dtype()) {
  case bool_:
    go(a.data<bool>());
    break;
  case int8:
    go(a.data<int8_t>());
    break;
  case int32:
    go(a.data<int32_t>());
    break;
  case int64:
    go(a.data<int64_t>());
    break;
  case uint8:
    go(a.data<uint8_t>());
    break;
  case uint32:
    go(a.data<uint32_t>());
    break;
  case float16:
    go(a.data<f16_t>());
    break;
  case bfloat16:
    go(a.data<bf16_t>());
    break;
  case float32:
    go(a.data<float>());
    break;
  case float64:
    go(a.data<double>());
    break;
  }
  return out;
}

// A monotone integer key of a float value of dt: consecutive representable values (infinities
// included) differ by one, and both zeros map to 0.
int64_t ulp_key(DType dt, LD v) {
  uint64_t bits = 0;
  int width = 0;
  switch (dt) {
  case float16:
    bits = to_f16(static_cast<float>(v)).bits, width = 16;
    break;
  case bfloat16:
    bits = to_bf16(static_cast<float>(v)).bits, width = 16;
    break;
  case float32:
    bits = std::bit_cast<uint32_t>(static_cast<float>(v)), width = 32;
    break;
  default:
    bits = std::bit_cast<uint64_t>(static_cast<double>(v)), width = 64;
    break;
  }
  uint64_t sign = uint64_t{1} << (width - 1);
  auto mag = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) ? -mag : mag;
}

std::string show(LD v) {
  std::ostringstream os;
  os << std::setprecision(21) << static_cast<double>(v);
  return os.str();
}

/// got == want for integer/bool dtypes; within `ulps` for floats (NaN matches NaN; the sign
/// of a zero result must match when `signed_zero`).
::testing::AssertionResult close(DType dt, LD got, LD want, int ulps, bool signed_zero) {
  auto fail = [&] {
    return ::testing::AssertionFailure() << "got " << show(got) << ", want " << show(want) << " ("
                                         << short_name(dt) << ", " << ulps << " ulp)";
  };
  if (!is_floating(dt))
    return got == want ? ::testing::AssertionSuccess() : fail();
  if (std::isnan(want) || std::isnan(got))
    return std::isnan(want) && std::isnan(got) ? ::testing::AssertionSuccess() : fail();
  if (signed_zero && got == 0 && want == 0 && std::signbit(got) != std::signbit(want))
    return fail() << ": zero of the wrong sign";
  int64_t d = ulp_key(dt, got) - ulp_key(dt, want);
  return (d < 0 ? -d : d) <= ulps ? ::testing::AssertionSuccess() : fail();
}

/// Tolerance in ulps: f16/bf16 compute in float and round once more, so one ulp of the
/// rounded oracle; f32/f64 use the row's bound.
int ulps_for(DType dt, int row_ulps) { return dt == float16 || dt == bfloat16 ? 1 : row_ulps; }

// ---- Input generators ------------------------------------------------------------------------

/// Integers spanning dt's range: extremes, small values, and values whose products overflow.
std::vector<LD> ints_of(DType dt) {
  constexpr LD i32min = -2147483648.0L, i32max = 2147483647.0L;
  const LD i64min = -std::ldexp(LD{1}, 63), i64max = std::ldexp(LD{1}, 63) - 1;
  switch (dt) {
  case bool_:
    return {0, 1};
  case int8:
    return {-128, -127, -100, -7, -2, -1, 0, 1, 2, 3, 7, 100, 126, 127};
  case uint8:
    return {0, 1, 2, 3, 7, 100, 127, 128, 200, 254, 255};
  case int32:
    return {i32min, i32min + 1, -65537, -1000, -7,    -2,       -1,         0,     1,
            2,      3,          7,      46341, 65536, 16842753, i32max - 1, i32max};
  case uint32:
    return {
        0, 1, 2, 3, 7, 65536, 16842753, 2147483647.0L, 2147483648.0L, 4294967294.0L, 4294967295.0L};
  case int64:
    return {i64min,
            i64min + 1,
            -4294967297.0L,
            -7,
            -2,
            -1,
            0,
            1,
            2,
            3,
            7,
            3037000500.0L,
            4294967296.0L,
            std::ldexp(LD{1}, 62) + std::ldexp(LD{1}, 54) + 1,
            i64max - 1,
            i64max};
  default:
    return {};
  }
}

/// Floats for dt (given values, rounded by make_ld) or the integer set for integer dtypes.
std::vector<LD> pick(DType dt, std::vector<LD> floats) {
  return is_floating(dt) ? floats : ints_of(dt);
}

std::vector<LD> general(DType dt) {
  return pick(dt, {-kInf,  -1e30L,  -1000.25L, -3.75L, -2.5L,  -1.5L,    -1,    -0.5L, -0.4L,
                   -1e-3L, -1e-30L, -0.0L,     0.0L,   1e-30L, 1e-3L,    0.4L,  0.5L,  1,
                   1.5L,   2.5L,    3.75L,     7,      100,    65519.9L, 1e30L, kInf,  kNaN});
}
std::vector<LD> binary_values(DType dt) {
  return pick(dt, {-kInf, -1e30L, -3.75L, -2, -1, -0.5L, -0.0L, 0.0L, 1e-3L, 0.5L, 1, 2, 3, 7.25L,
                   1e30L, kInf, kNaN});
}

// ---- Oracles ----------------------------------------------------------------------------------

LD round_half_even(LD x) {
  if (!std::isfinite(x))
    return x;
  LD f = std::floor(x), d = x - f; // exact: x and floor(x) share their leading bits
  LD r = d < 0.5L ? f : d > 0.5L ? f + 1 : (std::fmod(f, LD{2}) == 0 ? f : f + 1);
  return r == 0 ? std::copysign(LD{0}, x) : r;
}

// Bisection on erf (erfc near +-1, where 1 - |x| is exact) in long double.
LD erf_inv_oracle(LD x) {
  if (std::isnan(x) || x < -1 || x > 1)
    return kNaN;
  if (x == 0 || std::fabs(x) == 1)
    return x == 0 ? x : std::copysign(kInf, x);
  LD t = std::fabs(x), lo = 0, hi = 10;
  for (int i = 0; i < 200; ++i) {
    LD mid = (lo + hi) / 2;
    bool below = t > 0.5L ? std::erfc(mid) > 1 - t : std::erf(mid) < t;
    (below ? lo : hi) = mid;
  }
  return std::copysign(lo, x);
}

LD nan_max(LD a, LD b) { return std::isnan(a) ? a : std::isnan(b) ? b : (a > b ? a : b); }
LD nan_min(LD a, LD b) { return std::isnan(a) ? a : std::isnan(b) ? b : (a < b ? a : b); }

// ---- The unary table --------------------------------------------------------------------------

struct UnaryRow {
  const char *name;
  Array (*fn)(const Array &);
  std::vector<DType> dtypes;
  std::vector<LD> (*inputs)(DType);
  LD (*oracle)(LD);         // on the exact input, for float dtypes
  I128 (*int_oracle)(I128); // for integer/bool dtypes (wrapped to the dtype afterwards)
  int ulps;                 // f32/f64 bound; f16/bf16 always 1
  bool bool_out = false;
  bool signed_zero = true;
};

const std::vector<UnaryRow> &unary_rows() {
  static const std::vector<UnaryRow> rows = {
      {"neg", lax::neg, kNumeric, general, [](LD x) { return -x; }, [](I128 v) { return -v; }, 0},
      {"abs", lax::abs, kNumeric, general, [](LD x) { return std::fabs(x); },
       [](I128 v) { return v < 0 ? -v : v; }, 0},
      {"sign", lax::sign, kNumeric, general,
       [](LD x) { return x > 0   ? LD{1}
                         : x < 0 ? LD{-1}
                                 : x; },
       [](I128 v) { return I128{(v > 0) - (v < 0)}; }, 0},
      {"floor", lax::floor, kFloat, general, [](LD x) { return std::floor(x); }, nullptr, 0},
      {"ceil", lax::ceil, kFloat, general, [](LD x) { return std::ceil(x); }, nullptr, 0},
      {"round", lax::round, kFloat,
       [](DType dt) {
         auto v = general(dt);
         for (LD x : {-3.5L, -0.5L, 0.49999999999999994L, 4.5L, 5.5L, 8388609.0L, 1e20L})
           v.push_back(x);
         return v;
       },
       round_half_even, nullptr, 0},
      {"exp", lax::exp, kFloat,
       [](DType) -> std::vector<LD> {
         return {-kInf, -800, -100,   -10, -1,    -0.5L, -0.0L, 0.0L, 1e-3L, 0.5L,
                 1,     10,   11.09L, 80,  88.7L, 100,   709,   800,  kInf,  kNaN};
       },
       [](LD x) { return std::exp(x); }, nullptr, 1},
      {"log", lax::log, kFloat,
       [](DType) -> std::vector<LD> {
         return {-kInf, -1,     -0.0L, 0.0L, 1e-30L, 1e-3L, 0.5L, 0.999L,
                 1,     1.001L, 2,     10,   1e4L,   1e30L, kInf, kNaN};
       },
       [](LD x) { return std::log(x); }, nullptr, 1},
      {"log1p", lax::log1p, kFloat,
       [](DType) -> std::vector<LD> {
         return {-kInf, -2, -1, -0.5L, -1e-5L, -0.0L, 0.0L, 1e-5L, 1e-3L, 1, 10, 1e10L, kInf, kNaN};
       },
       [](LD x) { return std::log1p(x); }, nullptr, 1},
      {"expm1", lax::expm1, kFloat,
       [](DType) -> std::vector<LD> {
         return {-kInf, -50, -1, -1e-5L, -0.0L, 0.0L, 1e-5L, 1e-3L, 1, 10, 50, kInf, kNaN};
       },
       [](LD x) { return std::expm1(x); }, nullptr, 1},
      {"sqrt", lax::sqrt, kFloat,
       [](DType) -> std::vector<LD> {
         return {-kInf, -1, -0.0L, 0.0L, 1e-6L, 0.25L, 2, 3, 1e6L, 1e30L, kInf, kNaN};
       },
       [](LD x) { return std::sqrt(x); }, nullptr, 0},
      {"rsqrt", lax::rsqrt, kFloat,
       [](DType) -> std::vector<LD> {
         return {-1, -0.0L, 0.0L, 1e-6L, 0.25L, 2, 3, 100, 1e6L, 1e30L, kInf, kNaN};
       },
       [](LD x) { return 1 / std::sqrt(x); }, nullptr, 1},
      {"sin", lax::sin, kFloat,
       [](DType) -> std::vector<LD> {
         return {
             -kInf, -1000, -1,   -0.0L, 0.0L, 1e-4L, 0.5L, 1.5707963267948966L, 3.141592653589793L,
             10,    100,   1e4L, kInf,  kNaN};
       },
       [](LD x) { return std::sin(x); }, nullptr, 1},
      {"cos", lax::cos, kFloat,
       [](DType) -> std::vector<LD> {
         return {
             -kInf, -1000, -1,   -0.0L, 0.0L, 1e-4L, 0.5L, 1.5707963267948966L, 3.141592653589793L,
             10,    100,   1e4L, kInf,  kNaN};
       },
       [](LD x) { return std::cos(x); }, nullptr, 1},
      {"tan", lax::tan, kFloat,
       [](DType) -> std::vector<LD> {
         return {-kInf, -1000, -1,   -0.0L, 0.0L, 1e-4L, 0.5L, 1.5L, 1.5707963267948966L,
                 10,    100,   kInf, kNaN};
       },
       [](LD x) { return std::tan(x); }, nullptr, 2},
      {"tanh", lax::tanh, kFloat,
       [](DType) -> std::vector<LD> {
         return {-kInf, -20, -1, -1e-4L, -0.0L, 0.0L, 0.5L, 3, 20, kInf, kNaN};
       },
       [](LD x) { return std::tanh(x); }, nullptr, 2},
      {"logistic", lax::logistic, kFloat,
       [](DType) -> std::vector<LD> {
         return {-kInf, -800, -100, -20, -1, -0.0L, 0.0L, 0.5L, 5, 30, 100, kInf, kNaN};
       },
       [](LD x) { return 1 / (1 + std::exp(-x)); }, nullptr, 3},
      {"erf", lax::erf, kFloat,
       [](DType) -> std::vector<LD> {
         return {-kInf, -5, -1, -0.5L, -1e-5L, -0.0L, 0.0L, 0.3L, 1, 2, 5, kInf, kNaN};
       },
       [](LD x) { return std::erf(x); }, nullptr, 2},
      {"erf_inv", lax::erf_inv, kFloat,
       [](DType) -> std::vector<LD> {
         return {-2,
                 -1,
                 -0.999999L,
                 -0.9L,
                 -0.5L,
                 -1e-5L,
                 -0.0L,
                 0.0L,
                 1e-3L,
                 0.1L,
                 0.5L,
                 0.75L,
                 0.99L,
                 0.999L,
                 1 - 1e-7L,
                 1 - 1e-12L,
                 1 - std::ldexp(LD{1}, -53),
                 1,
                 1.5L,
                 kNaN};
       },
       erf_inv_oracle, nullptr, 2},
      {"sinh", lax::sinh, kFloat, general, [](LD x) { return std::sinh(x); }, nullptr, 2},
      {"cosh", lax::cosh, kFloat, general, [](LD x) { return std::cosh(x); }, nullptr, 2},
      {"asin", lax::asin, kFloat, general, [](LD x) { return std::asin(x); }, nullptr, 2},
      {"acos", lax::acos, kFloat, general, [](LD x) { return std::acos(x); }, nullptr, 2},
      {"atan", lax::atan, kFloat, general, [](LD x) { return std::atan(x); }, nullptr, 2},
      {"asinh", lax::asinh, kFloat, general, [](LD x) { return std::asinh(x); }, nullptr, 2},
      {"acosh", lax::acosh, kFloat, general, [](LD x) { return std::acosh(x); }, nullptr, 2},
      {"atanh", lax::atanh, kFloat, general, [](LD x) { return std::atanh(x); }, nullptr, 2},
      {"cbrt", lax::cbrt, kFloat, general, [](LD x) { return std::cbrt(x); }, nullptr, 2},
      {"exp2", lax::exp2, kFloat, general, [](LD x) { return std::exp2(x); }, nullptr, 2},
      {"is_finite", lax::is_finite, kFloat, general,
       [](LD x) { return std::isfinite(x) ? LD{1} : LD{0}; }, nullptr, 0, /*bool_out=*/true},
      {"not", lax::bitwise_not, kIntOrBool, general, nullptr, [](I128 v) { return ~v; }, 0},
  };
  return rows;
}

bool supports(const std::vector<DType> &dts, DType dt) {
  return std::find(dts.begin(), dts.end(), dt) != dts.end();
}

// Checks out[i] against the row's oracle on ins[i].
template <class Row, class Oracle, class IntOracle>
void check_values(const Row &row, DType dt, const Array &out, const std::string &what,
                  Oracle oracle, IntOracle int_oracle, size_t n) {
  DType out_dt = row.bool_out ? bool_ : dt;
  ASSERT_EQ(out.dtype(), out_dt) << what;
  std::vector<LD> got = read(out);
  ASSERT_EQ(got.size(), n);
  for (size_t i = 0; i < n; ++i) {
    LD want = is_floating(dt) ? oracle(i) : static_cast<LD>(int_oracle(i));
    if (!row.bool_out)
      want = is_floating(dt) ? round_to(dt, want) : static_cast<LD>(wrap_to(dt, int_oracle(i)));
    EXPECT_TRUE(close(out_dt, got[i], want, ulps_for(dt, row.ulps), row.signed_zero))
        << row.name << " " << what << " element " << i;
  }
}

void run_unary(const UnaryRow &row, DType dt) {
  std::vector<LD> xs = row.inputs(dt);
  Array x = make_ld(xs, dt);
  std::vector<LD> in = read(x); // the exact inputs after rounding to dt
  auto oracle = [&](size_t i) { return row.oracle(in[i]); };
  auto int_oracle = [&](size_t i) { return row.int_oracle(static_cast<I128>(in[i])); };
  Array y = row.fn(x);
  EXPECT_EQ(y.shape(), x.shape());
  EXPECT_FALSE(y.weak_type());
  check_values(row, dt, y, "on " + x.type_str(), oracle, int_oracle, in.size());

  // Rank 0, each input on its own.
  for (size_t i = 0; i < in.size(); ++i) {
    Array s = row.fn(make_ld({in[i]}, {}, dt));
    ASSERT_EQ(s.shape(), Shape{});
    check_values(
        row, dt, s, "on rank 0", [&](size_t) { return oracle(i); },
        [&](size_t) { return int_oracle(i); }, 1);
  }
  // Zero-size.
  Array z = row.fn(make_ld({}, {0, 3}, dt));
  EXPECT_EQ(z.shape(), (Shape{0, 3}));
  EXPECT_EQ(z.dtype(), row.bool_out ? bool_ : dt);
}

std::string row_name(const char *name, DType dt) {
  return std::string(name) + "/" + std::string(short_name(dt));
}

void expect_type_error(const std::function<void()> &fn, const std::string &op, DType dt,
                       const std::string &type) {
  try {
    fn();
    ADD_FAILURE() << op << " accepted " << short_name(dt);
  } catch (const Error &e) {
    std::string msg = e.what();
    EXPECT_EQ(e.kind(), ErrorKind::Type) << msg;
    EXPECT_EQ(msg.rfind("[" + op + "]", 0), 0u) << msg;
    EXPECT_NE(msg.find(type), std::string::npos) << msg;
  }
}

TEST(PrimElementwise, UnaryTable) {
  for (const UnaryRow &row : unary_rows()) {
    const Primitive *p = find_primitive(row.name);
    ASSERT_NE(p, nullptr) << row.name;
    EXPECT_TRUE(p->has(kElementwise)) << row.name;
    EXPECT_EQ(p->has(kComparison), row.bool_out) << row.name;
    for (DType dt : kAll) {
      SCOPED_TRACE(row_name(row.name, dt));
      if (supports(row.dtypes, dt)) {
        run_unary(row, dt);
      } else {
        Array x = make_ld({0, 1}, dt);
        expect_type_error([&] { row.fn(x); }, row.name, dt, x.type_str());
      }
    }
  }
}

// ---- The binary table -------------------------------------------------------------------------

struct BinaryRow {
  const char *name;
  Array (*fn)(const Array &, const Array &);
  std::vector<DType> dtypes;
  std::vector<LD> (*inputs)(DType); // every ordered pair of these values
  LD (*oracle)(LD, LD);
  I128 (*int_oracle)(I128, I128);
  int ulps;
  bool bool_out = false;
  bool signed_zero = true;
};

std::vector<LD> pow_values(DType) {
  return {-kInf, -3, -2, -1, -0.5L, -0.0L, 0.0L, 0.5L, 1, 2, 3, 10, 40.5L, kInf, kNaN};
}
std::vector<LD> atan2_values(DType) {
  return {-kInf, -2, -1, -0.0L, 0.0L, 1e-3L, 0.5L, 1, kInf, kNaN};
}
std::vector<LD> all_values(DType dt) {
  return is_bool(dt) ? std::vector<LD>{0, 1} : binary_values(dt);
}

const std::vector<BinaryRow> &binary_rows() {
  static const std::vector<BinaryRow> rows = {
      {"add", lax::add, kNumeric, binary_values, [](LD a, LD b) { return a + b; },
       [](I128 a, I128 b) { return a + b; }, 0},
      {"sub", lax::sub, kNumeric, binary_values, [](LD a, LD b) { return a - b; },
       [](I128 a, I128 b) { return a - b; }, 0},
      {"mul", lax::mul, kNumeric, binary_values, [](LD a, LD b) { return a * b; },
       [](I128 a, I128 b) { return a * b; }, 0},
      // Integers: toward zero, x/0 = -1; MIN/-1 overflows to MIN when wrapped.
      {"div", lax::div, kNumeric, binary_values, [](LD a, LD b) { return a / b; },
       [](I128 a, I128 b) { return b == 0 ? I128{-1} : a / b; }, 0},
      {"rem", lax::rem, kNumeric, binary_values, [](LD a, LD b) { return std::fmod(a, b); },
       [](I128 a, I128 b) { return b == 0 ? a : a % b; }, 0},
      {"pow", lax::pow, kFloat, pow_values, [](LD a, LD b) { return std::pow(a, b); }, nullptr, 1},
      {"max", lax::max, kAll, all_values, nan_max, [](I128 a, I128 b) { return a > b ? a : b; }, 0,
       false, /*signed_zero=*/false},
      {"min", lax::min, kAll, all_values, nan_min, [](I128 a, I128 b) { return a < b ? a : b; }, 0,
       false, /*signed_zero=*/false},
      {"atan2", lax::atan2, kFloat, atan2_values, [](LD a, LD b) { return std::atan2(a, b); },
       nullptr, 1},
      {"and", lax::bitwise_and, kIntOrBool, all_values, nullptr,
       [](I128 a, I128 b) { return a & b; }, 0},
      {"or", lax::bitwise_or, kIntOrBool, all_values, nullptr, [](I128 a, I128 b) { return a | b; },
       0},
      {"xor", lax::bitwise_xor, kIntOrBool, all_values, nullptr,
       [](I128 a, I128 b) { return a ^ b; }, 0},
      {"eq", lax::eq, kAll, all_values, [](LD a, LD b) { return static_cast<LD>(a == b); },
       [](I128 a, I128 b) { return I128{a == b}; }, 0, true},
      {"ne", lax::ne, kAll, all_values, [](LD a, LD b) { return static_cast<LD>(a != b); },
       [](I128 a, I128 b) { return I128{a != b}; }, 0, true},
      {"lt", lax::lt, kAll, all_values, [](LD a, LD b) { return static_cast<LD>(a < b); },
       [](I128 a, I128 b) { return I128{a < b}; }, 0, true},
      {"le", lax::le, kAll, all_values, [](LD a, LD b) { return static_cast<LD>(a <= b); },
       [](I128 a, I128 b) { return I128{a <= b}; }, 0, true},
      {"gt", lax::gt, kAll, all_values, [](LD a, LD b) { return static_cast<LD>(a > b); },
       [](I128 a, I128 b) { return I128{a > b}; }, 0, true},
      {"ge", lax::ge, kAll, all_values, [](LD a, LD b) { return static_cast<LD>(a >= b); },
       [](I128 a, I128 b) { return I128{a >= b}; }, 0, true},
  };
  return rows;
}

void run_binary(const BinaryRow &row, DType dt) {
  std::vector<LD> vals = row.inputs(dt), xs, ys;
  for (LD a : vals)
    for (LD b : vals)
      xs.push_back(a), ys.push_back(b);
  Array x = make_ld(xs, dt), y = make_ld(ys, dt);
  std::vector<LD> a = read(x), b = read(y);
  auto oracle = [&](size_t i) { return row.oracle(a[i], b[i]); };
  auto int_oracle = [&](size_t i) {
    return row.int_oracle(static_cast<I128>(a[i]), static_cast<I128>(b[i]));
  };
  Array z = row.fn(x, y);
  EXPECT_EQ(z.shape(), x.shape());
  EXPECT_FALSE(z.weak_type());
  // Report the failing pair: element i is (a[i], b[i]).
  DType out_dt = row.bool_out ? bool_ : dt;
  ASSERT_EQ(z.dtype(), out_dt);
  std::vector<LD> got = read(z);
  for (size_t i = 0; i < got.size(); ++i) {
    LD want = is_floating(dt) ? oracle(i) : static_cast<LD>(int_oracle(i));
    if (!row.bool_out)
      want = is_floating(dt) ? round_to(dt, want) : static_cast<LD>(wrap_to(dt, int_oracle(i)));
    EXPECT_TRUE(close(out_dt, got[i], want, ulps_for(dt, row.ulps), row.signed_zero))
        << row.name << "(" << show(a[i]) << ", " << show(b[i]) << ")";
  }

  // Rank 0 (one pair) and zero-size.
  size_t k = xs.size() / 2;
  Array s = row.fn(make_ld({a[k]}, {}, dt), make_ld({b[k]}, {}, dt));
  ASSERT_EQ(s.shape(), Shape{});
  EXPECT_TRUE(close(out_dt, read(s)[0], got[k], 0, row.signed_zero)) << "rank 0";
  Array e = row.fn(make_ld({}, {0, 3}, dt), make_ld({}, {0, 3}, dt));
  EXPECT_EQ(e.shape(), (Shape{0, 3}));
  EXPECT_EQ(e.dtype(), out_dt);
}

TEST(PrimElementwise, BinaryTable) {
  for (const BinaryRow &row : binary_rows()) {
    const Primitive *p = find_primitive(row.name);
    ASSERT_NE(p, nullptr) << row.name;
    EXPECT_TRUE(p->has(kElementwise)) << row.name;
    EXPECT_EQ(p->has(kComparison), row.bool_out) << row.name;
    for (DType dt : kAll) {
      SCOPED_TRACE(row_name(row.name, dt));
      if (supports(row.dtypes, dt)) {
        run_binary(row, dt);
      } else {
        Array x = make_ld({0, 1}, dt);
        expect_type_error([&] { row.fn(x, x); }, row.name, dt, x.type_str());
      }
    }
  }
}

TEST(PrimElementwise, BinaryErrors) {
  Array a = make_ld({1, 2, 3, 4, 5, 6}, {2, 3}, float32), b = make_ld({1, 2, 3}, float32);
  Array c = make_ld({1, 2, 3}, int32);
  try {
    lax::add(a, b);
    ADD_FAILURE() << "shape mismatch accepted";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "[add] operand shapes differ: f32[2,3] and f32[3]");
    EXPECT_EQ(e.kind(), ErrorKind::Type);
  }
  try {
    lax::mul(b, c);
    ADD_FAILURE() << "dtype mismatch accepted";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "[mul] operand dtypes differ: f32[3] and i32[3]");
    EXPECT_EQ(e.kind(), ErrorKind::Type);
  }
  testutil::expect_error([&] { lax::lt(a, b); }, {"[lt]", "shapes differ", "f32[2,3]"});
  testutil::expect_error([&] { lax::rem(make_ld({1}, {}, float32), b); },
                         {"[rem]", "f32[]", "f32[3]"});
  // Arity is part of the shape rule (bind with the wrong operand count).
  testutil::expect_error([&] { bind1(*find_primitive("add"), {b}); },
                         {"[add] expects 2 operands, got 1"});
  testutil::expect_error([&] { bind1(*find_primitive("exp"), {b, b}); },
                         {"[exp] expects 1 operands, got 2"});
  testutil::expect_error([&] { lax::add(b, Array()); }, {"[add]", "empty"});
}

TEST(PrimElementwise, WeakTypePropagation) {
  Array w = Array::weak_scalar(2.0), s = make_ld({3}, {}, w.dtype());
  EXPECT_TRUE(lax::exp(w).weak_type());
  EXPECT_TRUE(lax::neg(w).weak_type());
  EXPECT_TRUE(lax::add(w, w).weak_type());
  EXPECT_FALSE(lax::add(w, s).weak_type());
  EXPECT_FALSE(lax::add(s, w).weak_type());
  EXPECT_FALSE(lax::lt(w, w).weak_type());
  EXPECT_FALSE(lax::is_finite(w).weak_type());
  EXPECT_TRUE(lax::integer_pow(w, 2).weak_type());
  EXPECT_TRUE(lax::stop_gradient(w).weak_type());
}

// ---- Semantics spelled out ----------------------------------------------------------------------

TEST(PrimElementwise, IntegerDivisionAndRemainder) {
  const LD mn = -2147483648.0L;
  Array a = make_ld({7, -7, 7, -7, 5, mn, 0, mn}, int32);
  Array b = make_ld({2, 2, -2, -2, 0, -1, 0, 1}, int32);
  testutil::expect_array(lax::div(a, b), {3, -3, -3, 3, -1, -2147483648.0, -1, -2147483648.0}, {8},
                         int32);
  testutil::expect_array(lax::rem(a, b), {1, -1, 1, -1, 5, 0, 0, 0}, {8}, int32);
  Array i8a = make_ld({-128, -128, 100}, int8), i8b = make_ld({-1, 0, 0}, int8);
  EXPECT_EQ(read(lax::div(i8a, i8b)), (std::vector<LD>{-128, -1, -1}));
  EXPECT_EQ(read(lax::rem(i8a, i8b)), (std::vector<LD>{0, -128, 100}));
  Array ua = make_ld({7, 255, 9}, uint8), ub = make_ld({0, 0, 4}, uint8);
  EXPECT_EQ(read(lax::div(ua, ub)), (std::vector<LD>{255, 255, 2})); // x/0 = -1 = all ones
  EXPECT_EQ(read(lax::rem(ua, ub)), (std::vector<LD>{7, 255, 1}));
  Array fa = make_ld({7.5, -7.5, 1, -1, 0}, float32), fb = make_ld({2, 2, 0, 0, 0}, float32);
  testutil::expect_array(lax::rem(fa, fb), {1.5, -1.5, NAN, NAN, NAN}, {5}, float32);
  testutil::expect_array(lax::div(fa, fb), {3.75, -3.75, INFINITY, -INFINITY, NAN}, {5}, float32);
}

TEST(PrimElementwise, WrappingIntegerArithmetic) {
  EXPECT_EQ(read(lax::add(make_ld({127, -128}, int8), make_ld({1, -1}, int8))),
            (std::vector<LD>{-128, 127}));
  EXPECT_EQ(read(lax::add(make_ld({255}, uint8), make_ld({1}, uint8))), (std::vector<LD>{0}));
  EXPECT_EQ(read(lax::sub(make_ld({0}, uint32), make_ld({1}, uint32))),
            (std::vector<LD>{4294967295.0L}));
  EXPECT_EQ(read(lax::add(make_ld({2147483647}, int32), make_ld({1}, int32))),
            (std::vector<LD>{-2147483648.0L}));
  EXPECT_EQ(read(lax::mul(make_ld({65536}, int32), make_ld({65536}, int32))), (std::vector<LD>{0}));
  EXPECT_EQ(read(lax::mul(make_ld({16}, uint8), make_ld({17}, uint8))), (std::vector<LD>{16}));
  EXPECT_EQ(read(lax::mul(make_ld({65537}, uint32), make_ld({65537}, uint32))),
            (std::vector<LD>{131073}));
  const LD i64max = std::ldexp(LD{1}, 63) - 1;
  EXPECT_EQ(read(lax::mul(make_ld({i64max}, int64), make_ld({2}, int64))), (std::vector<LD>{-2}));
  EXPECT_EQ(read(lax::neg(make_ld({-128, 5}, int8))), (std::vector<LD>{-128, -5}));
  EXPECT_EQ(read(lax::abs(make_ld({-128, -5}, int8))), (std::vector<LD>{-128, 5}));
  EXPECT_EQ(read(lax::neg(make_ld({0, 5}, uint8))), (std::vector<LD>{0, 251}));
}

TEST(PrimElementwise, MaxMinPropagateNaNAndComparisonsWithNaN) {
  for (DType dt : kFloat) {
    SCOPED_TRACE(short_name(dt));
    Array a = make_ld({kNaN, 1, kNaN, -kInf}, dt), b = make_ld({1, kNaN, kNaN, 1}, dt);
    testutil::expect_array(lax::max(a, b), {NAN, NAN, NAN, 1}, {4}, dt);
    testutil::expect_array(lax::min(a, b), {NAN, NAN, NAN, -INFINITY}, {4}, dt);
    Array n = make_ld({kNaN}, dt), one = make_ld({1}, dt);
    EXPECT_EQ(read(lax::eq(n, n))[0], 0);
    EXPECT_EQ(read(lax::ne(n, n))[0], 1);
    for (auto f : {lax::lt, lax::le, lax::gt, lax::ge}) {
      EXPECT_EQ(read(f(n, one))[0], 0);
      EXPECT_EQ(read(f(one, n))[0], 0);
    }
    EXPECT_EQ(read(lax::eq(make_ld({-0.0L}, dt), make_ld({0.0L}, dt)))[0], 1);
  }
}

TEST(PrimElementwise, RoundHalfToEven) {
  for (DType dt : kFloat) {
    Array x = make_ld({0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, 0.25, -0.75}, dt);
    testutil::expect_array(lax::round(x), {0, 2, 2, 4, -0.0, -2, -2, 0, -1}, {9}, dt);
    EXPECT_TRUE(std::signbit(read(lax::round(x))[4])) << "round(-0.5) is -0";
  }
  // The largest double below 0.5 must not round up (as floor(x + 0.5) would).
  EXPECT_EQ(read(lax::round(make_ld({0.49999999999999994L}, float64)))[0], 0);
}

TEST(PrimElementwise, SignKeepsSignedZeroAndNaN) {
  for (DType dt : kFloat) {
    std::vector<LD> s = read(lax::sign(make_ld({-0.0L, 0.0L, kNaN, -kInf, 1e-30L}, dt)));
    EXPECT_TRUE(s[0] == 0 && std::signbit(s[0]));
    EXPECT_TRUE(s[1] == 0 && !std::signbit(s[1]));
    EXPECT_TRUE(std::isnan(s[2]));
    EXPECT_EQ(s[3], -1);
  }
}

TEST(PrimElementwise, ErfInvKnownValuesAndInverse) {
  EXPECT_DOUBLE_EQ(read(lax::erf_inv(make_ld({0.5}, float64)))[0], 0.4769362762044699);
  EXPECT_FLOAT_EQ(static_cast<float>(read(lax::erf_inv(make_ld({0.5}, float32)))[0]),
                  0.4769362762044699f);
  std::vector<LD> xs;
  for (int i = -999; i <= 999; i += 7)
    xs.push_back(i / LD{1000});
  for (DType dt : {float32, float64}) {
    Array x = make_ld(xs, dt);
    std::vector<LD> in = read(x), y = read(lax::erf_inv(x));
    std::vector<LD> back = read(lax::erf(lax::erf_inv(x)));
    for (size_t i = 0; i < in.size(); ++i) {
      // erf(erf_inv(x)) == x to the precision erf's slope allows.
      EXPECT_NEAR(static_cast<double>(std::erf(y[i])), static_cast<double>(in[i]),
                  dt == float64 ? 4e-16 : 2e-7)
          << show(in[i]);
      EXPECT_NEAR(static_cast<double>(back[i]), static_cast<double>(in[i]),
                  dt == float64 ? 1e-15 : 6e-7);
    }
  }
}

TEST(PrimElementwise, IntegerPow) {
  for (DType dt : kNumeric) {
    SCOPED_TRACE(short_name(dt));
    std::vector<LD> xs = is_floating(dt) ? std::vector<LD>{-kInf, -3, -1.5L, -1, -0.0L, 0.0L, 0.5L,
                                                           1,     2,  3,     10, 1e30L, kInf, kNaN}
                                         : ints_of(dt);
    Array x = make_ld(xs, dt);
    std::vector<LD> in = read(x);
    std::vector<int64_t> ys = {0, 1, 2, 3, 4, 5, 7, 31};
    if (is_floating(dt))
      ys.insert(ys.end(), {-1, -2, -3});
    for (int64_t y : ys) {
      std::vector<LD> got = read(lax::integer_pow(x, y));
      for (size_t i = 0; i < in.size(); ++i) {
        LD want;
        if (is_floating(dt)) {
          want = round_to(dt, std::pow(in[i], static_cast<LD>(y)));
        } else {
          I128 acc = 1;
          for (int64_t k = 0; k < y; ++k)
            acc = wrap_to(dt, acc * static_cast<I128>(in[i]));
          want = static_cast<LD>(acc);
        }
        EXPECT_TRUE(close(dt, got[i], want, ulps_for(dt, 8), true)) << show(in[i]) << " ** " << y;
      }
    }
    Array s = lax::integer_pow(make_ld({3}, {}, dt), 2);
    EXPECT_EQ(s.shape(), Shape{});
    EXPECT_EQ(read(s)[0], 9);
    EXPECT_EQ(lax::integer_pow(make_ld({}, {0, 3}, dt), 3).shape(), (Shape{0, 3}));
  }
  testutil::expect_error([] { lax::integer_pow(make_ld({2, 3}, int32), -1); },
                         {"[integer_pow] negative exponent -1 for integer operand i32[2]"});
  testutil::expect_error([] { lax::integer_pow(make_ld({2}, uint8), -2); },
                         {"[integer_pow]", "negative exponent", "u8[1]"});
  expect_type_error([] { lax::integer_pow(make_ld({1}, bool_), 2); }, "integer_pow", bool_,
                    "bool[1]");
}

// ---- select, clamp, convert_element_type, stop_gradient -----------------------------------------

std::vector<LD> sample(DType dt) {
  switch (dt) {
  case bool_:
    return {1, 0, 0, 1};
  case uint8:
  case uint32:
    return {0, 7, 200, 3};
  default:
    return is_floating(dt) ? std::vector<LD>{-1.5L, kNaN, -0.0L, kInf}
                           : std::vector<LD>{-7, 0, 100, 3};
  }
}

TEST(PrimElementwise, Select) {
  for (DType dt : kAll) {
    SCOPED_TRACE(short_name(dt));
    Array t = make_ld(sample(dt), {2, 2}, dt);
    std::vector<LD> fv = {0, 1, 1, 0};
    Array f = make_ld(fv, {2, 2}, dt);
    std::vector<LD> tv = read(t);
    Array pred = make_ld({1, 0, 1, 0}, {2, 2}, bool_);
    Array z = lax::select(pred, t, f);
    EXPECT_EQ(z.dtype(), dt);
    EXPECT_EQ(z.shape(), (Shape{2, 2}));
    std::vector<LD> got = read(z), want = {tv[0], fv[1], tv[2], fv[3]};
    for (size_t i = 0; i < 4; ++i)
      EXPECT_TRUE(close(dt, got[i], want[i], 0, true)) << i;
    // A scalar predicate picks a whole branch.
    std::vector<LD> all_t = read(lax::select(make_ld({1}, {}, bool_), t, f));
    for (size_t i = 0; i < 4; ++i)
      EXPECT_TRUE(close(dt, all_t[i], tv[i], 0, true)) << i;
    EXPECT_EQ(read(lax::select(make_ld({0}, {}, bool_), t, f)), fv);
    // Rank 0 and zero-size.
    Array s = lax::select(make_ld({0}, {}, bool_), make_ld({1}, {}, dt), make_ld({0}, {}, dt));
    EXPECT_EQ(s.shape(), Shape{});
    EXPECT_EQ(read(s)[0], 0);
    Array e = make_ld({}, {0, 3}, dt);
    EXPECT_EQ(lax::select(make_ld({}, {0, 3}, bool_), e, e).shape(), (Shape{0, 3}));
    EXPECT_EQ(lax::select(make_ld({1}, {}, bool_), e, e).shape(), (Shape{0, 3}));
  }
  Array w = Array::weak_scalar(1.0), p = make_ld({1}, {}, bool_);
  EXPECT_TRUE(lax::select(p, w, w).weak_type());
  EXPECT_FALSE(lax::select(p, w, make_ld({1}, {}, w.dtype())).weak_type());

  Array x = make_ld({1, 2, 3}, float32), xi = make_ld({1, 2, 3}, int32);
  Array pb = make_ld({1, 0, 1}, bool_);
  expect_type_error([&] { lax::select(x, x, x); }, "select", float32, "predicate must be bool");
  testutil::expect_error([&] { lax::select(pb, x, xi); },
                         {"[select] branches differ: f32[3] and i32[3]"});
  testutil::expect_error([&] { lax::select(pb, x, make_ld({1, 2}, float32)); },
                         {"[select] branches differ: f32[3] and f32[2]"});
  testutil::expect_error(
      [&] { lax::select(make_ld({1, 0}, bool_), x, x); },
      {"[select] predicate bool[2] must be a scalar or match the branches f32[3]"});
  testutil::expect_error([&] { bind1(*find_primitive("select"), {pb, x}); },
                         {"[select] expects 3 operands, got 2"});
}

TEST(PrimElementwise, Clamp) {
  // Oracle: min(max(x, lo), hi) with NaN-propagating max and min, as XLA defines clamp.
  auto oracle = [](LD lo, LD x, LD hi) { return nan_min(nan_max(x, lo), hi); };
  for (DType dt : kNumeric) {
    SCOPED_TRACE(short_name(dt));
    std::vector<LD> xs = is_floating(dt)
                             ? std::vector<LD>{-kInf, -5, -0.5L, 0.0L, 0.5L, 1, 2.5L, 9, kInf, kNaN}
                             : ints_of(dt);
    Array x = make_ld(xs, dt);
    std::vector<LD> in = read(x);
    LD lo_v = is_unsigned_integer(dt) ? 2 : -1, hi_v = 7;
    // Scalar bounds.
    std::vector<LD> got = read(lax::clamp(make_ld({lo_v}, {}, dt), x, make_ld({hi_v}, {}, dt)));
    for (size_t i = 0; i < in.size(); ++i)
      EXPECT_TRUE(close(dt, got[i], oracle(lo_v, in[i], hi_v), 0, true)) << show(in[i]);
    // Array bounds, including lo > hi (the result is hi) and, for floats, NaN bounds.
    std::vector<LD> los, his;
    for (size_t i = 0; i < in.size(); ++i) {
      los.push_back(i % 3 == 0 ? 3 : i % 3 == 1 ? 0 : 5);
      his.push_back(i % 4 == 0 ? 1 : 100);
    }
    if (is_floating(dt))
      los[1] = kNaN, his[2] = kNaN;
    Array lo = make_ld(los, dt), hi = make_ld(his, dt);
    std::vector<LD> lov = read(lo), hiv = read(hi);
    got = read(lax::clamp(lo, x, hi));
    for (size_t i = 0; i < in.size(); ++i)
      EXPECT_TRUE(close(dt, got[i], oracle(lov[i], in[i], hiv[i]), 0, true))
          << "clamp(" << show(lov[i]) << ", " << show(in[i]) << ", " << show(hiv[i]) << ")";
    // Mixed: scalar lo, array hi. Rank 0 and zero-size.
    got = read(lax::clamp(make_ld({lo_v}, {}, dt), x, hi));
    for (size_t i = 0; i < in.size(); ++i)
      EXPECT_TRUE(close(dt, got[i], oracle(lo_v, in[i], hiv[i]), 0, true));
    Array s = lax::clamp(make_ld({0}, {}, dt), make_ld({9}, {}, dt), make_ld({4}, {}, dt));
    EXPECT_EQ(s.shape(), Shape{});
    EXPECT_EQ(read(s)[0], 4);
    Array e = make_ld({}, {0, 3}, dt);
    EXPECT_EQ(lax::clamp(make_ld({0}, {}, dt), e, make_ld({1}, {}, dt)).shape(), (Shape{0, 3}));
  }
  Array x = make_ld({1, 2, 3}, float32);
  Array b = make_ld({1, 0, 1}, bool_);
  expect_type_error([&] { lax::clamp(b, b, b); }, "clamp", bool_, "bool[3]");
  expect_type_error([&] { lax::clamp(make_ld({0}, {}, int32), x, make_ld({1}, {}, float32)); },
                    "clamp", int32, "bound i32[] and operand f32[3] dtypes differ");
  testutil::expect_error(
      [&] { lax::clamp(make_ld({0, 1}, float32), x, make_ld({1}, {}, float32)); },
      {"[clamp] bound f32[2] must be a scalar or match the operand f32[3]"});
  testutil::expect_error([&] { bind1(*find_primitive("clamp"), {x, x}); },
                         {"[clamp] expects 3 operands, got 2"});
}

// Values to convert from dt: its extremes, fractions to truncate, values that saturate, and
// values that round differently when rounded twice.
std::vector<LD> convert_inputs(DType dt) {
  if (!is_floating(dt))
    return ints_of(dt);
  return {-kInf,
          -1e30L,
          -9.3e18L,
          -4294967296.0L,
          -2147483904.0L,
          -1e5L,
          -129.5L,
          -128.9L,
          -2.9L,
          -1.5L,
          -0.5L,
          -0.0L,
          0.0L,
          3e-8L,
          1e-8L,
          0.5L,
          0.9L,
          1.5L,
          2.9L,
          1 + std::ldexp(LD{1}, -8),
          1 + 3 * std::ldexp(LD{1}, -8),
          1 + std::ldexp(LD{1}, -11) + std::ldexp(LD{1}, -40),
          127.9L,
          128,
          255.9L,
          256,
          65519.99L,
          65520,
          2147483520.0L,
          2147483648.0L,
          4294967040.0L,
          4294967296.0L,
          1e10L,
          9.3e18L,
          1e30L,
          3.4e38L,
          1e300L,
          kInf,
          kNaN};
}

LD convert_oracle(LD v, DType from, DType to) {
  if (to == bool_)
    return v != 0 ? 1 : 0; // NaN != 0 too
  if (is_floating(to))
    return round_to(to, v);
  if (!is_floating(from))
    return static_cast<LD>(wrap_to(to, static_cast<I128>(v)));
  if (std::isnan(v))
    return 0;
  LD lo = 0, hi = 0;
  switch (to) {
  case int8:
    lo = -128, hi = 127;
    break;
  case int32:
    lo = -2147483648.0L, hi = 2147483647.0L;
    break;
  case int64:
    lo = -std::ldexp(LD{1}, 63), hi = std::ldexp(LD{1}, 63) - 1;
    break;
  case uint8:
    lo = 0, hi = 255;
    break;
  case uint32:
    lo = 0, hi = 4294967295.0L;
    break;
  default:
    break;
  }
  return std::clamp(std::trunc(v), lo, hi);
}

TEST(PrimElementwise, ConvertElementTypeMatrix) {
  for (DType from : kAll) {
    Array x = make_ld(convert_inputs(from), from);
    std::vector<LD> in = read(x);
    for (DType to : kAll) {
      SCOPED_TRACE(std::string(short_name(from)) + "->" + std::string(short_name(to)));
      Array y = lax::convert_element_type(x, to);
      ASSERT_EQ(y.dtype(), to);
      ASSERT_EQ(y.shape(), x.shape());
      EXPECT_FALSE(y.weak_type());
      std::vector<LD> got = read(y);
      for (size_t i = 0; i < in.size(); ++i)
        EXPECT_TRUE(close(to, got[i], convert_oracle(in[i], from, to), 0, true))
            << "converting " << show(in[i]);
      Array s = lax::convert_element_type(make_ld({in[1]}, {}, from), to);
      EXPECT_EQ(s.shape(), Shape{});
      EXPECT_TRUE(close(to, read(s)[0], got[1], 0, true));
      EXPECT_EQ(lax::convert_element_type(make_ld({}, {0, 3}, from), to).shape(), (Shape{0, 3}));
    }
  }
}

TEST(PrimElementwise, ConvertElementTypeCases) {
  // Float to int truncates toward zero, saturates, and sends NaN to 0.
  EXPECT_EQ(read(lax::convert_element_type(
                make_ld({2.9, -2.9, 1e10, -1e10, kNaN, kInf, -kInf}, float32), int32)),
            (std::vector<LD>{2, -2, 2147483647, -2147483648.0L, 0, 2147483647, -2147483648.0L}));
  EXPECT_EQ(read(lax::convert_element_type(make_ld({-3.5, 300.5, 255.5}, float64), uint8)),
            (std::vector<LD>{0, 255, 255}));
  // To bool is x != 0 (NaN is true); bool to float is 0/1.
  EXPECT_EQ(read(lax::convert_element_type(make_ld({0, -0.0L, 0.25, kNaN, -3}, float32), bool_)),
            (std::vector<LD>{0, 0, 1, 1, 1}));
  EXPECT_EQ(read(lax::convert_element_type(make_ld({1, 0}, bool_), float16)),
            (std::vector<LD>{1, 0}));
  // f32 -> f16 / bf16 round to nearest even; overflow goes to inf.
  Array f = make_ld({1 + std::ldexp(LD{1}, -11), 1 + 3 * std::ldexp(LD{1}, -11), 65520, 65519,
                     1 + std::ldexp(LD{1}, -8)},
                    float32);
  EXPECT_EQ(
      read(lax::convert_element_type(f, float16)),
      (std::vector<LD>{1, 1 + std::ldexp(LD{1}, -9), kInf, 65504, 1 + std::ldexp(LD{1}, -8)}));
  EXPECT_EQ(read(lax::convert_element_type(f, bfloat16))[4], 1);
  // One rounding, not two (through f32): these land exactly on a tie after the first.
  EXPECT_EQ(
      read(lax::convert_element_type(
          make_ld({1 + std::ldexp(LD{1}, -11) + std::ldexp(LD{1}, -40)}, float64), float16))[0],
      1 + std::ldexp(LD{1}, -10));
  EXPECT_EQ(read(lax::convert_element_type(make_ld({16842753}, int32), bfloat16))[0],
            16777216 + 131072);
  // The weak_type parameter sets the flag; a same-dtype conversion shares the data.
  Array x = make_ld({1, 2}, float32);
  Array w = lax::convert_element_type(x, float32, /*weak_type=*/true);
  EXPECT_TRUE(w.weak_type());
  EXPECT_EQ(w.data(), x.data());
  EXPECT_TRUE(lax::convert_element_type(x, float64, true).weak_type());
  EXPECT_FALSE(lax::convert_element_type(w, float32).weak_type());
  testutil::expect_error(
      [&] {
        bind1(*find_primitive("convert_element_type"), {x, x},
              {{"new_dtype", float32}, {"weak_type", false}});
      },
      {"[convert_element_type] expects 1 operands, got 2"});
}

TEST(PrimElementwise, StopGradientIsIdentity) {
  for (DType dt : kAll) {
    Array x = make_ld(sample(dt), {2, 2}, dt);
    Array y = lax::stop_gradient(x);
    EXPECT_EQ(y.dtype(), dt);
    EXPECT_EQ(y.shape(), (Shape{2, 2}));
    std::vector<LD> a = read(x), b = read(y);
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_TRUE(close(dt, b[i], a[i], 0, true));
    EXPECT_EQ(lax::stop_gradient(make_ld({1}, {}, dt)).shape(), Shape{});
    EXPECT_EQ(lax::stop_gradient(make_ld({}, {0, 3}, dt)).shape(), (Shape{0, 3}));
  }
  testutil::expect_error([] { bind1(*find_primitive("stop_gradient"), {}); },
                         {"[stop_gradient] expects 1 operands, got 0"});
}

// ---- Large arrays: the parallel path against a serial oracle ----------------------------------

TEST(PrimElementwise, LargeArraysMatchSerialOracle) {
  EXPECT_GE(num_threads(), 1);
  const int64_t n = 131101; // > 2 * kElementwiseGrain (parallel), and an odd count
  std::vector<LD> xs(n), ys(n), is(n), js(n), ps(n);
  for (int64_t i = 0; i < n; ++i) {
    xs[i] = (i % 2003) * 0.01L - 10;
    ys[i] = ((i * 7919) % 1009) * 0.02L - 10;
    is[i] = (i * 2654435761LL) % 2000003 - 1000001;
    js[i] = (i % 13) - 6;
    ps[i] = (i * 31) % 3 == 0;
  }
  xs[12345] = kNaN, xs[100000] = kInf, xs[n - 1] = -kInf;
  for (DType dt : {float32, bfloat16, float64}) {
    SCOPED_TRACE(short_name(dt));
    Array x = make_ld(xs, dt), y = make_ld(ys, dt);
    std::vector<LD> a = read(x), b = read(y);
    std::vector<LD> e = read(lax::exp(x)), s = read(lax::add(x, y)), fin = read(lax::is_finite(x));
    std::vector<LD> lt = read(lax::lt(x, y));
    std::vector<LD> c = read(lax::clamp(make_ld({-1}, {}, dt), x, y));
    std::vector<LD> sel = read(lax::select(make_ld(ps, bool_), x, y));
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_TRUE(close(dt, e[i], round_to(dt, std::exp(a[i])), ulps_for(dt, 1), true)) << i;
      ASSERT_TRUE(close(dt, s[i], round_to(dt, a[i] + b[i]), ulps_for(dt, 0), true)) << i;
      ASSERT_EQ(fin[i], std::isfinite(a[i]) ? 1 : 0) << i;
      ASSERT_EQ(lt[i], a[i] < b[i] ? 1 : 0) << i;
      ASSERT_TRUE(close(dt, c[i], nan_min(nan_max(a[i], -1), b[i]), 0, true)) << i;
      ASSERT_TRUE(close(dt, sel[i], ps[i] != 0 ? a[i] : b[i], 0, true)) << i;
    }
  }
  {
    Array x = make_ld(xs, float32);
    std::vector<LD> a = read(x);
    std::vector<LD> h = read(lax::convert_element_type(x, bfloat16));
    std::vector<LD> k = read(lax::convert_element_type(x, int32));
    std::vector<LD> q = read(lax::integer_pow(x, 3));
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_TRUE(close(bfloat16, h[i], round_to(bfloat16, a[i]), 0, true)) << i;
      ASSERT_EQ(k[i], convert_oracle(a[i], float32, int32)) << i;
      ASSERT_TRUE(close(float32, q[i], round_to(float32, a[i] * a[i] * a[i]), 2, true)) << i;
    }
  }
  for (DType dt : {int32, int8, uint32}) {
    SCOPED_TRACE(short_name(dt));
    std::vector<LD> iv(n), jv(n);
    for (int64_t i = 0; i < n; ++i) {
      iv[i] = static_cast<LD>(wrap_to(dt, static_cast<I128>(is[i])));
      jv[i] = static_cast<LD>(wrap_to(dt, static_cast<I128>(js[i])));
    }
    Array x = make_ld(iv, dt), y = make_ld(jv, dt);
    std::vector<LD> m = read(lax::mul(x, y)), d = read(lax::div(x, y)), r = read(lax::rem(x, y));
    for (int64_t i = 0; i < n; ++i) {
      auto a = static_cast<I128>(iv[i]), b = static_cast<I128>(jv[i]);
      ASSERT_EQ(m[i], static_cast<LD>(wrap_to(dt, a * b))) << i;
      ASSERT_EQ(d[i], static_cast<LD>(wrap_to(dt, b == 0 ? -1 : a / b))) << i;
      ASSERT_EQ(r[i], static_cast<LD>(wrap_to(dt, b == 0 ? a : a % b))) << i;
    }
  }
}

} // namespace

// ---- Special functions: values from mpmath (30 digits) ------------------------------------------

namespace {

struct Known {
  std::vector<LD> x, y, want;
};

// Each float dtype: the f64 result within `rel` of the value, the others within an ulp or two of
// the rounded value (they compute in double and round once).
void expect_known(const std::string &name,
                  const std::function<Array(const Array &, const Array &)> &f, const Known &k,
                  double rel) {
  for (DType dt : kFloat) {
    SCOPED_TRACE(name + "/" + std::string(short_name(dt)));
    Array x = make_ld(k.x, dt), y = make_ld(k.y, dt);
    std::vector<LD> in_x = read(x), in_y = read(y);
    std::vector<LD> got = read(f(x, y));
    ASSERT_EQ(got.size(), k.want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      // Lower precisions: only where the rounded inputs are the exact ones.
      if (dt != float64 && (in_x[i] != k.x[i] || in_y[i] != k.y[i]))
        continue;
      LD want = k.want[i];
      if (dt == float64) {
        EXPECT_NEAR(static_cast<double>(got[i]), static_cast<double>(want),
                    rel * std::fabs(static_cast<double>(want)))
            << name << " element " << i;
      } else {
        EXPECT_TRUE(close(dt, got[i], round_to(dt, want), 2, true))
            << name << " element " << i << " got " << show(got[i]) << " want " << show(want);
      }
    }
  }
}
void expect_known1(const std::string &name, Array (*f)(const Array &), const Known &k, double rel) {
  expect_known(name, [f](const Array &x, const Array &) { return f(x); }, {k.x, k.x, k.want}, rel);
}

} // namespace

TEST(PrimElementwise, SpecialFunctionsKnownValues) {
  expect_known1("erfc", lax::erfc,
                {{-1.5L, 0.3L, 2, 6},
                 {},
                 {1.9661051464753107271L, 0.67137324054087258381L, 0.0046777349810472658379L,
                  2.1519736712498913117e-17L}},
                1e-15);
  expect_known1("lgamma", lax::lgamma,
                {{0.5L, 1.5L, 3, 10.5L, -2.5L, 100, 1e-8L, 1e6L},
                 {},
                 {0.57236494292470008707L, -0.12078223763524522235L, 0.69314718055994530942L,
                  13.940625219403763633L, -0.056243716497674050673L, 359.13420536957539878L,
                  18.420680738180208884L, 12815504.56914761166L}},
                1e-14);
  expect_known1("digamma", lax::digamma,
                {{0.5L, 1, 3.7L, -2.5L, 20, 1e-6L, -0.3L, 1e8L},
                 {},
                 {-1.9635100260214234794L, -0.57721566490153286061L, 1.1671535393615114409L,
                  1.1031566406452431872L, 2.9705239922421490509L, -1000000.5772140200139L,
                  2.1133097796353988734L, 18.420680738952365464L}},
                1e-14);
  expect_known1("bessel_i0e", lax::bessel_i0e,
                {{-12.5L, -1, 0, 0.3L, 5, 8, 30},
                 {},
                 {0.11402192946228890093L, 0.4657596075936404365L, 1, 0.75758062518254785826L,
                  0.18354081260932835307L, 0.14343178185685031071L, 0.073145946482237293929L}},
                1e-15);
  expect_known1("bessel_i1e", lax::bessel_i1e,
                {{-12.5L, -1, 0, 0.3L, 5, 8, 30},
                 {},
                 {-0.10936143099065089054L, -0.20791041534970844887L, 0, 0.11237756063983879503L,
                  0.16397226694454235693L, 0.13414249329269817831L, 0.071916330598647554706L}},
                1e-15);
  expect_known("polygamma", lax::polygamma,
               {{1, 2, 3, 1, 4},
                {0.5L, 2, 3.5L, -1.5L, 10},
                {4.9348022005446793094L, -0.4041138063191885708L, 0.070305848817252051255L,
                 9.3792466449891237539L, -0.0007299311682352866345L}},
               1e-14);
  expect_known("zeta", lax::zeta,
               {{2, 3.5L, 1.5L, 20, 2},
                {1, 2.5L, 0.7L, 1, -1.5L},
                {1.6449340668482264365L, 0.065171251589659707199L, 3.4987277412050928241L,
                 1.0000009539620338728L, 9.3792466449891237539L}},
               1e-14);
  Known gamma_args{{0.5L, 2, 3, 10, 1.5L}, {0.3L, 2.5L, 1, 12, 7}, {}};
  auto with = [&](std::vector<LD> want) {
    Known k = gamma_args;
    k.want = std::move(want);
    return k;
  };
  expect_known("igamma", lax::igamma,
               with({0.56142197391900013648L, 0.71270250481635421691L, 0.080301397071394196011L,
                     0.75760783832948765132L, 0.99709484722573256267L}),
               1e-14);
  expect_known("igammac", lax::igammac,
               with({0.43857802608099986352L, 0.28729749518364578309L, 0.91969860292860580399L,
                     0.24239216167051234868L, 0.0029051527742674373323L}),
               1e-13);
  expect_known("igamma_grad_a", lax::igamma_grad_a,
               with({-0.77057035137535191706L, -0.24878306814493011734L, -0.10645935294394226702L,
                     -0.097177972037179651258L, -0.0059347899181729047461L}),
               1e-12);
  expect_known("random_gamma_grad", lax::random_gamma_grad,
               with({1.0098019459488546259L, 1.2123192900803567358L, 0.57877304915405245171L,
                     1.1123294430180883858L, 2.1800308742126924719L}),
               1e-12);
}

TEST(PrimElementwise, SpecialFunctionsEdges) {
  auto vals = [](const Array &a) { return read(a); };
  Array x = make_ld({0, -1, -3, kInf, -kInf, kNaN}, float64);
  std::vector<LD> lg = vals(lax::lgamma(x));
  EXPECT_EQ(lg[0], kInf);
  EXPECT_EQ(lg[1], kInf);
  EXPECT_EQ(lg[2], kInf);
  EXPECT_EQ(lg[3], kInf);
  EXPECT_EQ(lg[4], kInf);
  EXPECT_TRUE(std::isnan(lg[5]));
  for (LD v : vals(lax::digamma(make_ld({0, -1, -4, -kInf, kNaN}, float64))))
    EXPECT_TRUE(std::isnan(v));
  EXPECT_EQ(vals(lax::digamma(make_ld({kInf}, float64)))[0], kInf);
  // P(a, 0) = 0, P(a, inf) = 1, P(0, x > 0) = 1; NaN outside the domain.
  std::vector<LD> p = vals(lax::igamma(make_ld({2, 2, 0, -1, 1, 0, kNaN}, float64),
                                       make_ld({0, kInf, 3, 1, -1, 0, 1}, float64)));
  EXPECT_EQ(p[0], 0);
  EXPECT_EQ(p[1], 1);
  EXPECT_EQ(p[2], 1);
  for (size_t i = 3; i < p.size(); ++i)
    EXPECT_TRUE(std::isnan(p[i])) << i;
  std::vector<LD> q =
      vals(lax::igammac(make_ld({2, 2, 0, kInf}, float64), make_ld({0, kInf, 3, 1}, float64)));
  EXPECT_EQ(q[0], 1);
  EXPECT_EQ(q[1], 0);
  EXPECT_EQ(q[2], 0);
  EXPECT_EQ(q[3], 1);
  // zeta: s = 1 is a pole, s < 1 is outside the domain, q = 0 a pole.
  std::vector<LD> z = vals(lax::zeta(make_ld({1, 0.5L, 2}, float64), make_ld({2, 2, 0}, float64)));
  EXPECT_EQ(z[0], kInf);
  EXPECT_TRUE(std::isnan(z[1]));
  EXPECT_EQ(z[2], kInf);
  // polygamma of a non-integer or negative order is NaN.
  for (LD v : vals(lax::polygamma(make_ld({0.5L, -1}, float64), make_ld({2, 2}, float64))))
    EXPECT_TRUE(std::isnan(v));
  // Large a: the series and the fraction both converge (P(a, a) -> 1/2).
  std::vector<LD> big =
      vals(lax::igamma(make_ld({1e4L, 500}, float64), make_ld({1e4L, 450}, float64)));
  EXPECT_NEAR(static_cast<double>(big[0]), 0.50132980760, 1e-9);
  EXPECT_GT(big[1], 0.0);
  EXPECT_LT(big[1], 0.02);
}

TEST(PrimElementwise, SpecialFunctionsRejectIntegersAndUnsupportedDerivatives) {
  Array i = make_ld({1, 2}, int32);
  for (auto f : {lax::erfc, lax::lgamma, lax::digamma})
    EXPECT_THROW(f(i), Error);
  for (auto f : {lax::igamma, lax::igammac, lax::igamma_grad_a, lax::random_gamma_grad,
                 lax::polygamma, lax::zeta}) {
    try {
      f(i, i);
      ADD_FAILURE() << "integer operands accepted";
    } catch (const Error &e) {
      EXPECT_EQ(e.kind(), ErrorKind::Type) << e.what();
    }
  }
  // The derivative in polygamma's order and zeta's s is NaN (JAX raises).
  Array m = make_ld({2, 3}, float64), x = make_ld({1.5L, 2.5L}, float64);
  for (LD v :
       read(grad([&](const Array &a) { return lax::reduce_sum(lax::polygamma(a, x), {0}); })(m)))
    EXPECT_TRUE(std::isnan(v));
  for (LD v : read(grad([&](const Array &a) { return lax::reduce_sum(lax::zeta(a, x), {0}); })(m)))
    EXPECT_TRUE(std::isnan(v));
}

// d/da of igamma and igammac (igamma_grad_a) against central differences in a.
TEST(PrimElementwise, IgammaDerivativeInA) {
  Array a = make_ld({0.6L, 2, 3, 5, 1.5L}, float64), x = make_ld({0.4L, 3.5L, 1.2L, 9, 7}, float64);
  const double h = 1e-6;
  Array ah = make_ld({0.6L + h, 2 + h, 3 + h, 5 + h, 1.5L + h}, float64);
  Array al = make_ld({0.6L - h, 2 - h, 3 - h, 5 - h, 1.5L - h}, float64);
  for (auto f : {lax::igamma, lax::igammac}) {
    std::vector<LD> g =
        read(grad([&](const Array &p) { return lax::reduce_sum(f(p, x), {0}); })(a));
    std::vector<LD> hi = read(f(ah, x)), lo = read(f(al, x));
    for (size_t i = 0; i < g.size(); ++i)
      EXPECT_NEAR(static_cast<double>(g[i]), static_cast<double>((hi[i] - lo[i]) / (2 * h)), 1e-7)
          << i;
  }
}

// ---- Bit counts and nextafter
// --------------------------------------------------------------------

TEST(PrimElementwise, PopulationCountAndClz) {
  EXPECT_EQ(read(lax::population_count(make_ld({0, 1, 7, -1, -2147483648.0L, 255}, int32))),
            (std::vector<LD>{0, 1, 3, 32, 1, 8}));
  EXPECT_EQ(read(lax::population_count(make_ld({-1, 5}, int8))), (std::vector<LD>{8, 2}));
  EXPECT_EQ(read(lax::population_count(make_ld({4294967295.0L, 6}, uint32))),
            (std::vector<LD>{32, 2}));
  EXPECT_EQ(read(lax::population_count(make_ld({-1}, int64))), (std::vector<LD>{64}));
  EXPECT_EQ(read(lax::clz(make_ld({0, 1, 255, -1, 65536}, int32))),
            (std::vector<LD>{32, 31, 24, 0, 15}));
  EXPECT_EQ(read(lax::clz(make_ld({0, 1, 128}, uint8))), (std::vector<LD>{8, 7, 0}));
  EXPECT_EQ(read(lax::clz(make_ld({1}, int64))), (std::vector<LD>{63}));
  using Fn = Array (*)(const Array &);
  for (auto [name, f] : {std::pair<const char *, Fn>{"population_count", lax::population_count},
                         std::pair<const char *, Fn>{"clz", lax::clz}}) {
    expect_type_error([&] { f(make_ld({1}, float32)); }, name, float32, "f32[1]");
    expect_type_error([&] { f(make_ld({1}, bool_)); }, name, bool_, "bool[1]");
  }
}

TEST(PrimElementwise, NextafterStepsInTheOperandsFormat) {
  std::vector<double> xs = {1, 1, 0, 0, -1, 2, -0.0, 3, 1e308, -5, 1};
  std::vector<double> ys = {2, 0, 1, -1, -2, 2, 0.0, kInf, kInf, -kInf, static_cast<double>(kNaN)};
  std::vector<LD> xl(xs.begin(), xs.end()), yl(ys.begin(), ys.end());
  std::vector<LD> d = read(lax::nextafter(make_ld(xl, float64), make_ld(yl, float64)));
  std::vector<LD> f = read(lax::nextafter(make_ld(xl, float32), make_ld(yl, float32)));
  for (size_t i = 0; i < xs.size(); ++i) {
    double wd = std::nextafter(xs[i], ys[i]);
    float wf = std::nextafter(static_cast<float>(xs[i]), static_cast<float>(ys[i]));
    if (std::isnan(wd)) {
      EXPECT_TRUE(std::isnan(d[i]) && std::isnan(f[i])) << i;
      continue;
    }
    EXPECT_EQ(std::bit_cast<uint64_t>(static_cast<double>(d[i])), std::bit_cast<uint64_t>(wd)) << i;
    EXPECT_EQ(std::bit_cast<uint32_t>(static_cast<float>(f[i])), std::bit_cast<uint32_t>(wf)) << i;
  }
  // f16 and bf16 step by their own ulps: 1 -> 1 + 2^-10 and 1 + 2^-7; 0 -> the smallest
  // subnormals 2^-24 and 2^-133.
  std::vector<LD> h =
      read(lax::nextafter(make_ld({1, 0, 1}, float16), make_ld({2, 1, 0}, float16)));
  EXPECT_EQ(h[0], 1 + std::ldexp(LD{1}, -10));
  EXPECT_EQ(h[1], std::ldexp(LD{1}, -24));
  EXPECT_EQ(h[2], 1 - std::ldexp(LD{1}, -11));
  std::vector<LD> bf = read(lax::nextafter(make_ld({1, 0}, bfloat16), make_ld({2, -1}, bfloat16)));
  EXPECT_EQ(bf[0], 1 + std::ldexp(LD{1}, -7));
  EXPECT_EQ(bf[1], -std::ldexp(LD{1}, -133));
  expect_type_error([&] { lax::nextafter(make_ld({1}, int32), make_ld({1}, int32)); }, "nextafter",
                    int32, "i32[1]");
}

// ---- betainc
// ---------------------------------------------------------------------------------------

TEST(PrimElementwise, BetaincKnownValuesAndEdges) {
  Array a = make_ld({2, 0.5L, 5, 10, 0.1L}, float64), b = make_ld({3, 0.5L, 1.5L, 20, 4}, float64);
  Array x = make_ld({0.4L, 0.9L, 0.7L, 0.3L, 0.01L}, float64);
  std::vector<double> want = {0.52480000000000003837, 0.79516723530086657191,
                              0.29180564480614543448, 0.36400408107194422775,
                              0.75100455801169322832};
  std::vector<LD> got = read(lax::betainc(a, b, x));
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(static_cast<double>(got[i]), want[i], 1e-14 * want[i]) << i;
  std::vector<LD> f = read(lax::betainc(lax::convert_element_type(a, float32),
                                        lax::convert_element_type(b, float32),
                                        lax::convert_element_type(x, float32)));
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(static_cast<double>(f[i]), want[i], 1e-6) << i;
  // x = 0 and 1; a = 0 (result 1 for x > 0), b = 0 (0 for x < 1); NaN outside the domain.
  std::vector<LD> e = read(lax::betainc(make_ld({2, 2, 0, 2, -1, 2, 0}, float64),
                                        make_ld({3, 3, 2, 0, 1, 1, 0}, float64),
                                        make_ld({0, 1, 0.5L, 0.5L, 0.5L, 1.5L, 0.5L}, float64)));
  EXPECT_EQ(e[0], 0);
  EXPECT_EQ(e[1], 1);
  EXPECT_EQ(e[2], 1);
  EXPECT_EQ(e[3], 0);
  for (size_t i = 4; i < e.size(); ++i)
    EXPECT_TRUE(std::isnan(e[i])) << i;
  testutil::expect_error([&] { lax::betainc(a, b, make_ld({0.5L}, float64)); },
                         {"[regularized_incomplete_beta]", "shapes differ"});
}

TEST(PrimElementwise, ShiftRightArithmetic) {
  // Amounts of at least the width (negative ones read as unsigned) give all sign bits.
  EXPECT_EQ(read(lax::shift_right_arithmetic(make_ld({-8, 8, -1, -128, 100, -100, 7}, int8),
                                             make_ld({1, 1, 7, 7, 8, 9, -1}, int8))),
            (std::vector<LD>{-4, 4, -1, -1, 0, -1, 0}));
  EXPECT_EQ(read(lax::shift_right_arithmetic(make_ld({-2147483648.0L, 1024}, int32),
                                             make_ld({31, 3}, int32))),
            (std::vector<LD>{-1, 128}));
  // Unsigned operands shift their bits as signed: the top bit fills in.
  EXPECT_EQ(
      read(lax::shift_right_arithmetic(make_ld({128, 64, 255}, uint8), make_ld({2, 2, 9}, uint8))),
      (std::vector<LD>{224, 16, 255}));
  EXPECT_EQ(read(lax::shift_right_arithmetic(make_ld({-1}, int64), make_ld({63}, int64))),
            (std::vector<LD>{-1}));
  expect_type_error(
      [&] { lax::shift_right_arithmetic(make_ld({1}, float32), make_ld({1}, float32)); },
      "shift_right_arithmetic", float32, "f32[1]");
}
