// conv_general_dilated: values against the direct reference loop of conv_cases.h in every float
// dtype and in integers, hand-computed values, empty and degenerate shapes, and the shape
// rule's errors.
#include <random>

#include "conv_cases.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

STRATA_TESTS_PRIMITIVES("conv_general_dilated");

namespace {

std::vector<double> random_values(const Shape &s, std::mt19937 &rng, bool integral = false) {
  std::uniform_real_distribution<double> d(-1, 1);
  std::uniform_int_distribution<int> i(-3, 3);
  std::vector<double> v(static_cast<size_t>(num_elements(s)));
  for (double &x : v)
    x = integral ? i(rng) : d(rng);
  return v;
}

} // namespace

TEST(PrimConv, MatchesTheDefinitionInEveryFloatDtype) {
  std::mt19937 rng(7);
  for (const ConvCase &c : conv_cases()) {
    SCOPED_TRACE(c.what);
    std::vector<double> l = random_values(c.lhs, rng), r = random_values(c.rhs, rng);
    for (DType t : float_dtypes()) {
      SCOPED_TRACE(dtype_name(t));
      // Round the operands to t first, so the reference sees what the kernel sees.
      Array lt = make(l, c.lhs, t), rt = make(r, c.rhs, t);
      Array y = c.apply(lt, rt);
      std::vector<double> want = conv_reference(c, values(lt), values(rt), y.shape());
      double tol = t == float64 ? 1e-13 : t == float32 ? 1e-5 : t == float16 ? 1e-2 : 4e-2;
      expect_array(y, want, y.shape(), t, tol);
    }
  }
}

TEST(PrimConv, IntegersAndPreferredElementType) {
  std::mt19937 rng(8);
  for (const ConvCase &c : conv_cases()) {
    SCOPED_TRACE(c.what);
    std::vector<double> l = random_values(c.lhs, rng, true), r = random_values(c.rhs, rng, true);
    Array y = c.apply(make(l, c.lhs, int32), make(r, c.rhs, int32));
    expect_array(y, conv_reference(c, l, r, y.shape()), y.shape(), int32);
    // int8 operands accumulated in int32, f32 operands in f64.
    Array y8 = lax::conv_general_dilated(make(l, c.lhs, int8), make(r, c.rhs, int8), c.strides,
                                         c.padding, c.lhs_dilation, c.rhs_dilation, c.dn,
                                         c.feature_groups, c.batch_groups, int32);
    expect_array(y8, conv_reference(c, l, r, y.shape()), y.shape(), int32);
    Array yf = lax::conv_general_dilated(make(l, c.lhs, float32), make(r, c.rhs, float32),
                                         c.strides, c.padding, c.lhs_dilation, c.rhs_dilation, c.dn,
                                         c.feature_groups, c.batch_groups, float64);
    expect_array(yf, conv_reference(c, l, r, y.shape()), y.shape(), float64, 1e-12);
  }
}

TEST(PrimConv, HandValues) {
  // [1 2 3 4] correlated with [1 10] (XLA convolves without flipping): [21 32 43]; stride 2:
  // [21 43]; padded by one on each side: [10 21 32 43 4].
  Array x = make({1, 2, 3, 4}, {1, 1, 4}), w = make({1, 10}, {1, 1, 2});
  expect_array(lax::conv_general_dilated(x, w, {1}, {{0, 0}}), {21, 32, 43}, {1, 1, 3}, float64);
  expect_array(lax::conv_general_dilated(x, w, {2}, {{0, 0}}), {21, 43}, {1, 1, 2}, float64);
  expect_array(lax::conv_general_dilated(x, w, {1}, {{1, 1}}), {10, 21, 32, 43, 4}, {1, 1, 5},
               float64);
  // rhs dilation 2: the taps are x[i] and x[i + 2].
  expect_array(lax::conv_general_dilated(x, w, {1}, {{0, 0}}, {1}, {2}), {31, 42}, {1, 1, 2},
               float64);
  // lhs dilation 2: [1 0 2 0 3 0 4] correlated with [1 10].
  expect_array(lax::conv_general_dilated(x, w, {1}, {{0, 0}}, {2}, {1}), {1, 20, 2, 30, 3, 40},
               {1, 1, 6}, float64);
  for (DType t : {float32, float64}) {
    Array xt = make({1, 2, 3, 4}, {1, 1, 2, 2}, t), wt = make({1, 1, 1, 1}, {1, 1, 2, 2}, t);
    expect_array(lax::conv_general_dilated(xt, wt, {1, 1}, {{1, 1}, {1, 1}}),
                 {1, 3, 2, 4, 10, 6, 3, 7, 4}, {1, 1, 3, 3}, t);
  }
}

TEST(PrimConv, EmptyAndDegenerateShapes) {
  for (DType t : {float32, float64}) {
    // No examples; no output features; a window longer than the padded input; no input
    // features (every output is an empty sum).
    Array y = lax::conv_general_dilated(make({}, {0, 2, 4, 4}, t),
                                        make(std::vector<double>(36, 1), {2, 2, 3, 3}, t), {1, 1},
                                        {{0, 0}, {0, 0}});
    EXPECT_EQ(y.shape(), (Shape{0, 2, 2, 2}));
    y = lax::conv_general_dilated(make(std::vector<double>(16, 1), {1, 1, 4, 4}, t),
                                  make({}, {0, 1, 3, 3}, t), {1, 1}, {{0, 0}, {0, 0}});
    EXPECT_EQ(y.shape(), (Shape{1, 0, 2, 2}));
    y = lax::conv_general_dilated(make(std::vector<double>(4, 1), {1, 1, 2, 2}, t),
                                  make(std::vector<double>(9, 1), {1, 1, 3, 3}, t), {1, 1},
                                  {{0, 0}, {0, 0}});
    EXPECT_EQ(y.shape(), (Shape{1, 1, 0, 0}));
    y = lax::conv_general_dilated(make({}, {2, 0, 3}, t), make({}, {3, 0, 2}, t), {1}, {{0, 0}});
    expect_array(y, std::vector<double>(12, 0.0), {2, 3, 2}, t);
  }
}

TEST(PrimConv, ShapeRuleErrors) {
  Array x = make(std::vector<double>(2 * 4 * 5 * 5, 1), {2, 4, 5, 5});
  Array w = make(std::vector<double>(6 * 4 * 3 * 3, 1), {6, 4, 3, 3});
  auto conv = [&](const Array &a, const Array &b, int64_t g = 1, int64_t bg = 1) {
    return lax::conv_general_dilated(a, b, {1, 1}, {{0, 0}, {0, 0}}, {}, {}, std::nullopt, g, bg);
  };
  expect_error([&] { conv(x, lax::convert_element_type(w, float32)); },
               {"[conv_general_dilated]", "dtypes differ", "f64[2,4,5,5]", "f32[6,4,3,3]"});
  expect_error([&] { conv(x, lax::reshape(w, {6, 4, 9})); }, {"same rank", "f64[6,4,9]"});
  expect_error([&] { conv(x, w, 3); }, {"not a multiple of feature_group_count 3"});
  expect_error([&] { conv(x, w, 2); }, {"must equal the rhs input feature dimension size 4"});
  expect_error([&] { conv(x, w, 1, 4); }, {"not a multiple of batch_group_count 4"});
  expect_error([&] { conv(x, w, 2, 2); }, {"at most one of feature_group_count"});
  expect_error([&] { lax::conv_general_dilated(x, w, {1}, {{0, 0}, {0, 0}}); },
               {"window_strides [1] needs 2 entries"});
  expect_error([&] { lax::conv_general_dilated(x, w, {0, 1}, {{0, 0}, {0, 0}}); },
               {"window_strides must be positive"});
  expect_error([&] { lax::conv_general_dilated(x, w, {1, 1}, {{0, 0}}); },
               {"padding needs 2 (low, high) pairs"});
  expect_error([&] { lax::conv_general_dilated(x, w, {1, 1}, {{-4, -3}, {0, 0}}); },
               {"negative padding"});
  expect_error(
      [&] {
        lax::conv_general_dilated(
            x, w, {1, 1}, {{0, 0}, {0, 0}}, {}, {},
            lax::ConvDimensionNumbers{{0, 1, 2, 2}, {0, 1, 2, 3}, {0, 1, 2, 3}});
      },
      {"lhs_spec [0,1,2,2] is not a permutation"});
  Array b = make({1, 0}, {1, 1, 2}, bool_);
  expect_error([&] { lax::conv_general_dilated(b, b, {1}, {{0, 0}}); },
               {"expects numeric operands"});
  expect_error(
      [&] {
        lax::conv_general_dilated(x, w, {1, 1}, {{0, 0}, {0, 0}}, {}, {}, std::nullopt, 1, 1,
                                  float32);
      },
      {"preferred_element_type f32 is incompatible"});
}
