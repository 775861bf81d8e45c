// numpy-style elementwise ops: JAX's promotion table with weak scalars, numpy broadcasting
// (rank-0 and zero-size included), numpy's sign rules for floor_divide/remainder, and errors.
#include <cmath>
#include <limits>

#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
} // namespace

// ---- Promotion -----------------------------------------------------------------------------
TEST(OpsElementwise, WeakScalarsDoNotWiden) {
  Array h = make({1, 2}, float16);
  Array r = h * 2.0;
  EXPECT_EQ(r.dtype(), float16);
  EXPECT_FALSE(r.weak_type());
  expect_array(r, {2, 4}, {2}, float16);

  Array i = make({1, 2}, int32);
  expect_array(i * 2.5, {2.5, 5}, {2}, float32);
  expect_array(i * 2, {2, 4}, {2}, int32);
  expect_array(2 - i, {1, 0}, {2}, int32);
  expect_array(make({250, 3}, uint8) + 10, {4, 13}, {2}, uint8); // wraps in u8
  expect_array(make({1, 2}, bfloat16) + 1, {2, 3}, {2}, bfloat16);
  expect_array(make({1, 2}, int8) + 1.5, {2.5, 3.5}, {2}, float32);

  // Two weak operands stay weak; a weak float beats a weak int.
  Array w = Array::weak_scalar_int(3) * Array::weak_scalar(0.5);
  EXPECT_EQ(w.dtype(), float32);
  EXPECT_TRUE(w.weak_type());
  EXPECT_EQ(values(w), std::vector<double>{1.5});
  // bool joined with a weak int is a weak int.
  Array bi = make({1, 0}, bool_) + 2;
  EXPECT_EQ(bi.dtype(), int32);
  EXPECT_TRUE(bi.weak_type());
}

TEST(OpsElementwise, StrongPromotionTable) {
  struct Row {
    DType a, b, out;
  };
  // JAX's table with 64-bit mode off (the default): u32 + i32 is i32.
  const Row rows[] = {{int8, uint8, int16},         {uint8, uint32, uint32},
                      {uint32, int32, int32},       {int64, float16, float16},
                      {float16, bfloat16, float32}, {int32, float32, float32},
                      {bool_, int8, int8},          {float32, float64, float64}};
  for (const Row &r : rows) {
    Array s = make({1, 1}, r.a) + make({3, 4}, r.b);
    expect_array(s, {4, 5}, {2}, r.out);
    EXPECT_EQ(result_type({make({1}, r.a), make({1}, r.b)}), r.out);
  }
  // A strong f64 scalar (C++ Array(2.0)) does widen.
  expect_array(make({1}, float32) * Array(2.0), {2}, {1}, float64);
  EXPECT_EQ(result_type({make({1}, float16), Array::weak_scalar(1.0)}), float16);
  expect_error([] { result_type({}); }, {"[result_type]"});
}

// ---- Broadcasting --------------------------------------------------------------------------
TEST(OpsElementwise, Broadcasting) {
  Array a = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32);
  expect_array(a + make({10, 20, 30}, float32), {11, 22, 33, 14, 25, 36}, {2, 3}, float32);
  expect_array(make({1, 2}, {2, 1}, int32) * make({1, 10, 100}, {1, 3}, int32),
               {1, 10, 100, 2, 20, 200}, {2, 3}, int32);
  expect_array(a - Array(1.0f), {0, 1, 2, 3, 4, 5}, {2, 3}, float32); // rank 0
  expect_array(Array(3) * Array(4), {12}, {}, int32);
  // Zero-size dims broadcast against 1 and against themselves.
  expect_array(make({}, {0, 3}, float32) + make({1, 2, 3}, float32), {}, {0, 3}, float32);
  expect_array(make({}, {0}, int32) + make({1}, int32), {}, {0}, int32);
  expect_error([&] { a + make({1, 2, 3, 4}, float32); },
               {"[broadcast]", "f32[2,3]", "f32[4]", "incompatible", "add"});
  expect_error([] { make({}, {0}, int32) + make({1, 2}, int32); }, {"[broadcast]", "i32[0]"});
}

// ---- Arithmetic ----------------------------------------------------------------------------
TEST(OpsElementwise, BoolArithmeticIsLogical) {
  Array t = make({1, 1, 0, 0}, bool_), u = make({1, 0, 1, 0}, bool_);
  expect_array(t + u, {1, 1, 1, 0}, {4}, bool_);
  expect_array(t * u, {1, 0, 0, 0}, {4}, bool_);
  expect_error([&] { t - u; }, {"[subtract]", "bool"});
  expect_error([&] { -t; }, {"[negative]", "bool"});
}

TEST(OpsElementwise, TrueDivideGivesFloats) {
  expect_array(make({1, -3, 7}, int32) / make({2, 2, 7}, int32), {0.5, -1.5, 1}, {3}, float32);
  expect_array(make({1, 2}, uint8) / 4, {0.25, 0.5}, {2}, float32);
  expect_array(make({1, 0}, bool_) / make({1, 1}, bool_), {1, 0}, {2}, float32);
  expect_array(make({3}, float16) / make({2}, float16), {1.5}, {1}, float16);
  expect_array(make({1, -1, 0}, float32) / 0.0, {kInf, -kInf, kNaN}, {3}, float32);
  Array w = Array::weak_scalar_int(1) / Array::weak_scalar_int(4);
  EXPECT_EQ(w.dtype(), float32);
  EXPECT_TRUE(w.weak_type());
}

TEST(OpsElementwise, FloorDivideAndRemainderFollowNumpySigns) {
  Array x = make({7, -7, 7, -7, 6, 0}, int32), y = make({2, 2, -2, -2, 3, -5}, int32);
  // numpy: 7//2=3, -7//2=-4, 7//-2=-4, -7//-2=3; 7%2=1, -7%2=1, 7%-2=-1, -7%-2=-1.
  expect_array(floor_divide(x, y), {3, -4, -4, 3, 2, 0}, {6}, int32);
  expect_array(x % y, {1, 1, -1, -1, 0, 0}, {6}, int32);
  expect_array(remainder(make({5, -5}, int64), make({0, 0}, int64)), {0, 0}, {2}, int64);
  expect_array(floor_divide(make({7, 200}, uint8), make({2, 7}, uint8)), {3, 28}, {2}, uint8);
  expect_array(remainder(make({7, 200}, uint8), make({2, 7}, uint8)), {1, 4}, {2}, uint8);
  for (DType t : {float32, float64, float16}) {
    Array a = make({7.5, -7.5, 7.5, -7.5, 6}, t), b = make({2, 2, -2, -2, 3}, t);
    expect_array(floor_divide(a, b), {3, -4, -4, 3, 2}, {5}, t);
    expect_array(remainder(a, b), {1.5, 0.5, -0.5, -1.5, 0}, {5}, t);
  }
  // Bools compute as i32.
  expect_array(floor_divide(make({1, 0}, bool_), make({1, 1}, bool_)), {1, 0}, {2}, int32);
  // The identity x == (x // y) * y + x % y.
  Array a = make({-9.25, -1, 0.5, 3, 11.75}, float64), b = make({2.5, -0.75, 3, -4, 1.5}, float64);
  Array back = floor_divide(a, b) * b + remainder(a, b);
  expect_array(back, values(a), {5}, float64, 1e-12);
}

TEST(OpsElementwise, Power) {
  expect_array(power(make({2, 9}, float32), make({3, 0.5}, float32)), {8, 3}, {2}, float32, 2e-6);
  expect_array(power(make({2, -3, 5, 0, 7}, int32), make({10, 3, 0, 2, 1}, int32)),
               {1024, -27, 1, 0, 7}, {5}, int32);
  // Negative integer exponents truncate 1/x**n toward zero.
  expect_array(power(make({1, -1, 2, -1}, int64), make({-2, -3, -1, -2}, int64)), {1, -1, 0, 1},
               {4}, int64);
  expect_array(power(make({3, 2}, uint8), make({4, 7}, uint8)), {81, 128}, {2}, uint8);
  expect_array(power(make({4}, int32), as_weak(0.5)), {2}, {1}, float32);
  expect_array(power(make({4}, int32), Array(0.5)), {2}, {1}, float64); // strong f64 widens
  expect_array(power(make({1.5}, float16), 2), {2.25}, {1}, float16);
}

TEST(OpsElementwise, MaxMinArctan2) {
  expect_array(maximum(make({1, kNaN, 3}, float32), make({2, 0, kNaN}, float32)), {2, kNaN, kNaN},
               {3}, float32);
  expect_array(minimum(make({1, 5}, int32), as_weak(2.5)), {1, 2.5}, {2}, float32);
  expect_array(maximum(make({0, 1}, bool_), make({0, 0}, bool_)), {0, 1}, {2}, bool_);
  expect_array(arctan2(make({1, 0}, int32), make({1, -1}, int32)), {M_PI / 4, M_PI}, {2}, float32,
               2e-6);
}

// ---- Comparisons, logical and bitwise ------------------------------------------------------
TEST(OpsElementwise, Comparisons) {
  Array i = make({1, 2, 3}, int32);
  expect_array(i < 2.5, {1, 1, 0}, {3}, bool_);
  expect_array(i <= 2, {1, 1, 0}, {3}, bool_);
  expect_array(i > 2, {0, 0, 1}, {3}, bool_);
  expect_array(i >= 2, {0, 1, 1}, {3}, bool_);
  expect_array(i == 2, {0, 1, 0}, {3}, bool_);
  expect_array(i != 2, {1, 0, 1}, {3}, bool_);
  expect_array(make({kNaN, 1}, float32) == make({kNaN, 1}, float32), {0, 1}, {2}, bool_);
  expect_array(equal(make({1, 2}, {2, 1}, uint8), make({1, 2}, int8)), {1, 0, 0, 1}, {2, 2}, bool_);
}

TEST(OpsElementwise, LogicalAndBitwise) {
  Array a = make({0, 2, -1, 0}, int32), b = make({0, 0, 3.5, 1}, float32);
  expect_array(logical_and(a, b), {0, 0, 1, 0}, {4}, bool_);
  expect_array(logical_or(a, b), {0, 1, 1, 1}, {4}, bool_);
  expect_array(logical_xor(a, b), {0, 1, 0, 1}, {4}, bool_);
  expect_array(logical_not(a), {1, 0, 0, 1}, {4}, bool_);
  expect_array(!make({0.0, 0.5}, float32), {1, 0}, {2}, bool_);

  Array x = make({12, 10, -1}, int32), y = make({10, 6, 5}, int32);
  expect_array(x & y, {8, 2, 5}, {3}, int32);
  expect_array(x | y, {14, 14, -1}, {3}, int32);
  expect_array(x ^ y, {6, 12, -6}, {3}, int32);
  expect_array(~x, {-13, -11, 0}, {3}, int32);
  expect_array(~make({0, 255}, uint8), {255, 0}, {2}, uint8);
  expect_array(~make({0, 1}, bool_), {1, 0}, {2}, bool_);
  expect_array(bitwise_and(make({1, 1}, bool_), make({1, 0}, bool_)), {1, 0}, {2}, bool_);
  expect_error([] { make({1}, float32) & make({1}, float32); },
               {"[bitwise_and]", "integer or bool", "f32[1]"});
  expect_error([] { bitwise_not(make({1}, float16)); }, {"[bitwise_not]", "f16[1]"});
}

// ---- Unary ---------------------------------------------------------------------------------
TEST(OpsElementwise, UnaryNumeric) {
  expect_array(-make({1, -2}, int32), {-1, 2}, {2}, int32);
  expect_array(negative(make({1, 0}, uint8)), {255, 0}, {2}, uint8);
  expect_array(abs(make({-1.5, 2}, float32)), {1.5, 2}, {2}, float32);
  expect_array(abs(make({-7, 7}, int8)), {7, 7}, {2}, int8);
  expect_array(abs(make({200}, uint8)), {200}, {1}, uint8);
  expect_array(abs(make({1, 0}, bool_)), {1, 0}, {2}, bool_);
  expect_array(sign(make({-3, 0, 4}, int32)), {-1, 0, 1}, {3}, int32);
  expect_array(sign(make({-0.5, 0, kNaN}, float32)), {-1, 0, kNaN}, {3}, float32);
  // Rounding is the identity on integers; round is half to even.
  expect_array(floor(make({-7, 7}, int32)), {-7, 7}, {2}, int32);
  expect_array(ceil(make({1, 0}, bool_)), {1, 0}, {2}, bool_);
  expect_array(floor(make({-1.5, 1.5}, float32)), {-2, 1}, {2}, float32);
  expect_array(ceil(make({-1.5, 1.5}, bfloat16)), {-1, 2}, {2}, bfloat16);
  expect_array(round(make({0.5, 1.5, 2.5, -0.5, -1.7}, float64)), {0, 2, 2, -0.0, -2}, {5},
               float64);
  expect_array(round(make({3}, int64)), {3}, {1}, int64);
  expect_array(square(make({-3, 4}, int32)), {9, 16}, {2}, int32);
  expect_array(square(make({1, 0}, bool_)), {1, 0}, {2}, int32);
  expect_array(reciprocal(make({2, 4}, int32)), {0.5, 0.25}, {2}, float32);
  expect_array(reciprocal(make({8}, float16)), {0.125}, {1}, float16);
}

TEST(OpsElementwise, TranscendentalPromoteIntegers) {
  expect_array(exp(make({0, 1}, int32)), {1, std::exp(1.0)}, {2}, float32, 2e-6);
  expect_array(log(make({1, 0}, bool_)), {0, -kInf}, {2}, float32);
  expect_array(sqrt(make({4, 2}, float16)), {2, std::sqrt(2.0)}, {2}, float16, 2e-3);
  expect_array(rsqrt(make({4}, uint8)), {0.5}, {1}, float32);
  expect_array(log1p(make({0}, int8)), {0}, {1}, float32);
  expect_array(expm1(make({0.5}, float64)), {std::expm1(0.5)}, {1}, float64, 1e-14);
  expect_array(sin(make({1}, int64)), {std::sin(1.0)}, {1}, float32, 2e-6);
  expect_array(cos(make({1}, float64)), {std::cos(1.0)}, {1}, float64, 1e-14);
  expect_array(tan(make({1}, float32)), {std::tan(1.0)}, {1}, float32, 2e-6);
  expect_array(tanh(make({1}, bfloat16)), {std::tanh(1.0)}, {1}, bfloat16, 1.6e-2);
  expect_array(erf(make({1}, int32)), {std::erf(1.0)}, {1}, float32, 2e-6);
  Array w = exp(Array::weak_scalar_int(0));
  EXPECT_EQ(w.dtype(), float32);
  EXPECT_TRUE(w.weak_type());
}

TEST(OpsElementwise, IsFinite) {
  expect_array(isfinite(make({1, kInf, -kInf, kNaN}, float32)), {1, 0, 0, 0}, {4}, bool_);
  expect_array(isfinite(make({1, 2}, {1, 2}, int32)), {1, 1}, {1, 2}, bool_);
  expect_array(isfinite(make({}, {0}, uint8)), {}, {0}, bool_);
}

// ---- where and clip ------------------------------------------------------------------------
TEST(OpsElementwise, Where) {
  Array c = make({1, 0, 2}, int32);
  expect_array(where(c, make({1, 2, 3}, int32), make({-1, -2, -3}, int32)), {1, -2, 3}, {3}, int32);
  // Scalars and a column broadcast with the condition; x/y promote.
  expect_array(where(make({1, 0}, {2, 1}, bool_), Array::weak_scalar(0.5), make({7, 8, 9}, int8)),
               {0.5, 0.5, 0.5, 7, 8, 9}, {2, 3}, float32);
  expect_array(where(Array(true), make({1, 2}, float16), 0), {1, 2}, {2}, float16);
  expect_error([] { where(make({1, 0}, bool_), make({1, 2, 3}, float32), 0.0); },
               {"[broadcast]", "where"});
}

TEST(OpsElementwise, Clip) {
  Array x = make({-2, 0.5, 3, kNaN}, float32);
  expect_array(clip(x, Array::weak_scalar(0.0), Array::weak_scalar(1.0)), {0, 0.5, 1, kNaN}, {4},
               float32);
  expect_array(clip(x, std::nullopt, Array::weak_scalar(1.0)), {-2, 0.5, 1, kNaN}, {4}, float32);
  expect_array(clip(x, Array::weak_scalar(0.0), std::nullopt), {0, 0.5, 3, kNaN}, {4}, float32);
  expect_array(clip(x, std::nullopt, std::nullopt), {-2, 0.5, 3, kNaN}, {4}, float32);
  expect_array(clip(make({-5, 5, 1}, int32), Array::weak_scalar_int(-1), make({0, 2, 3}, int32)),
               {-1, 2, 1}, {3}, int32);
}

TEST(OpsElementwise, ZeroSizeAndRankZero) {
  Array e = make({}, {2, 0}, float32);
  expect_array(exp(e), {}, {2, 0}, float32);
  expect_array(e * 3, {}, {2, 0}, float32);
  expect_array(floor_divide(make({}, {0}, int32), 2), {}, {0}, int32);
  expect_array(power(make({}, {0}, int32), make({}, {0}, int32)), {}, {0}, int32);
  expect_array(where(make({}, {0}, bool_), 1.0, 2.0), {}, {0}, float64);
  expect_array(remainder(Array(-7), Array(3)), {2}, {}, int32);
  expect_array(-Array(2.5f), {-2.5}, {}, float32);
}
