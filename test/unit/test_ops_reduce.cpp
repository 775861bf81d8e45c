// numpy-style reductions: values against naive loops, jnp's accumulation dtypes, keepdims,
// ddof, flattening argmax/cumsum, rank-0 and zero-size inputs, and the errors.
#include <cmath>
#include <limits>

#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// x[i,j,k] = (7*(12i+4j+k)) % 11 - 5, shape [2,3,4].
std::vector<double> cube_values() {
  std::vector<double> v;
  for (int i = 0; i < 24; ++i)
    v.push_back((7 * i) % 11 - 5);
  return v;
}
} // namespace

TEST(OpsReduce, SumAgainstLoops) {
  std::vector<double> v = cube_values();
  Array x = make(v, {2, 3, 4}, float32);
  double total = 0;
  for (double e : v)
    total += e;
  expect_array(sum(x), {total}, {}, float32);
  std::vector<double> s1(8, 0.0), s02(3, 0.0);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        s1[i * 4 + k] += v[12 * i + 4 * j + k];
        s02[j] += v[12 * i + 4 * j + k];
      }
  expect_array(sum(x, 1), s1, {2, 4}, float32);
  expect_array(sum(x, -2, true), s1, {2, 1, 4}, float32);
  expect_array(sum(x, {0, 2}), s02, {3}, float32);
  expect_array(sum(x, {2, 0}, true), s02, {1, 3, 1}, float32);
  expect_array(sum(x, std::vector<int>{}), v, {2, 3, 4}, float32);
  expect_error([&] { sum(x, 3); }, {"[sum]", "axis 3", "dimension 3"});
  expect_error([&] { sum(x, {1, -2}); }, {"[sum]", "repeated"});
}

TEST(OpsReduce, AccumulationDtypes) {
  expect_array(sum(make({1, 1, 0}, bool_)), {2}, {}, int32);
  expect_array(sum(make({100, 100}, int8)), {200}, {}, int32);
  expect_array(sum(make({200, 100}, uint8)), {300}, {}, uint32);
  expect_array(sum(make({1, 2}, int64)), {3}, {}, int64);
  expect_array(prod(make({1, 1}, bool_)), {1}, {}, int32);
  expect_array(prod(make({16, 16}, uint8)), {256}, {}, uint32);
  // f16 accumulates in f32: 2048 + 1 + 1 would stay 2048 in f16 step by step.
  expect_array(sum(make({2048, 1, 1}, float16)), {2050}, {}, float16);
  expect_array(sum(make({1.5}, bfloat16)), {1.5}, {}, bfloat16);
  EXPECT_TRUE(sum(Array::weak_scalar(2.0)).weak_type());
}

TEST(OpsReduce, ProdMaxMin) {
  Array x = make({1, -2, 3, 4, 0.5, -1}, {2, 3}, float64);
  expect_array(prod(x), {12}, {}, float64);
  expect_array(prod(x, 1), {-6, -2}, {2}, float64);
  expect_array(max(x), {4}, {}, float64);
  expect_array(max(x, 0), {4, 0.5, 3}, {3}, float64);
  expect_array(min(x, 1, true), {-2, -1}, {2, 1}, float64);
  expect_array(max(make({1, kNaN, 3}, float32)), {kNaN}, {}, float32);
  expect_array(min(make({0, 1}, bool_)), {0}, {}, bool_);
  expect_array(max(make({5, 200}, {2}, uint8)), {200}, {}, uint8);
  expect_array(max(Array(3)), {3}, {}, int32);
  // Empty reductions: sum/prod have identities, max/min do not.
  expect_array(sum(make({}, {0, 3}, float32), 0), {0, 0, 0}, {3}, float32);
  expect_array(prod(make({}, {0}, int32)), {1}, {}, int32);
  expect_array(max(make({}, {3, 0}, float32), 0), {}, {0}, float32);
  expect_error([] { max(make({}, {0, 3}, float32), 0); },
               {"[max]", "zero-size", "no identity", "f32[0,3]"});
  expect_error([] { min(make({}, {0}, int32)); }, {"[min]", "zero-size"});
}

TEST(OpsReduce, MeanVarStd) {
  Array x = make({1, 2, 3, 4, 6, 8}, {2, 3}, float32);
  expect_array(mean(x), {4}, {}, float32);
  expect_array(mean(x, 1), {2, 6}, {2}, float32);
  expect_array(mean(x, 0, true), {2.5, 4, 5.5}, {1, 3}, float32);
  // Rows: [1,2,3] var 2/3, [4,6,8] var 8/3; ddof=1 gives 1 and 4.
  expect_array(var(x, 1), {2.0 / 3, 8.0 / 3}, {2}, float32, 2e-6);
  expect_array(var(x, 1, false, 1), {1, 4}, {2}, float32, 2e-6);
  expect_array(strata::std(x, 1, true, 1), {1, 2}, {2, 1}, float32, 2e-6);
  double m = 4, ss = 0;
  for (double e : {1, 2, 3, 4, 6, 8})
    ss += (e - m) * (e - m);
  expect_array(var(x), {ss / 6}, {}, float32, 2e-6);
  expect_array(strata::std(x), {std::sqrt(ss / 6)}, {}, float32, 2e-6);
  // Integers give f32; f16 stays f16.
  expect_array(mean(make({1, 2}, int32)), {1.5}, {}, float32);
  expect_array(mean(make({1, 0, 1, 1}, bool_)), {0.75}, {}, float32);
  expect_array(var(make({1, 3}, int8)), {1}, {}, float32);
  expect_array(mean(make({2048, 1, 1, 2}, float16)), {513}, {}, float16);
  // Empty means are NaN; ddof >= N gives inf or NaN.
  expect_array(mean(make({}, {0}, float32)), {kNaN}, {}, float32);
  expect_array(var(make({1, 2}, float32), Axes{}, false, 2), {kInf}, {}, float32);
  expect_array(var(make({5}, float64), 0, false, 1), {kNaN}, {}, float64);
  expect_array(mean(Array(3.0)), {3}, {}, float64);
  expect_array(var(Array(3.0)), {0}, {}, float64);
}

TEST(OpsReduce, AllAny) {
  Array x = make({1, 0, 2, 3, 0.5, 0}, {2, 3}, float32);
  expect_array(all(x), {0}, {}, bool_);
  expect_array(any(x), {1}, {}, bool_);
  expect_array(all(x, 0), {1, 0, 0}, {3}, bool_);
  expect_array(any(x, 1, true), {1, 1}, {2, 1}, bool_);
  expect_array(all(make({}, {0}, int32)), {1}, {}, bool_);
  expect_array(any(make({}, {0}, int32)), {0}, {}, bool_);
  expect_array(all(Array(2)), {1}, {}, bool_);
  expect_array(any(make({0, -1}, int8)), {1}, {}, bool_);
}

TEST(OpsReduce, ArgmaxArgmin) {
  Array x = make({3, 9, 9, 1, 7, 0}, {2, 3}, float32);
  expect_array(argmax(x), {1}, {}, int32);
  expect_array(argmin(x), {5}, {}, int32);
  expect_array(argmax(x, 1), {1, 1}, {2}, int32);
  expect_array(argmin(x, 0), {1, 1, 1}, {3}, int32);
  expect_array(argmax(x, -1, true), {1, 1}, {2, 1}, int32);
  expect_array(argmax(x, std::nullopt, true), {1}, {1, 1}, int32);
  expect_array(argmax(make({1, kNaN, 5}, float32)), {1}, {}, int32);
  expect_array(argmax(make({0, 1, 1}, bool_)), {1}, {}, int32);
  expect_array(argmin(Array(5)), {0}, {}, int32);
  expect_error([] { argmax(make({}, {0}, float32)); }, {"[argmax]", "empty"});
  expect_error([] { argmin(make({}, {2, 0}, float32), 1); }, {"[argmin]", "empty"});
  expect_error([&] { argmax(x, 2); }, {"[argmax]", "axis 2"});
}

TEST(OpsReduce, CumsumCumprod) {
  Array x = make({1, 2, 3, 4, 5, 6}, {2, 3}, int32);
  expect_array(cumsum(x), {1, 3, 6, 10, 15, 21}, {6}, int32);
  expect_array(cumsum(x, 1), {1, 3, 6, 4, 9, 15}, {2, 3}, int32);
  expect_array(cumsum(x, 0), {1, 2, 3, 5, 7, 9}, {2, 3}, int32);
  expect_array(cumprod(x, -1), {1, 2, 6, 4, 20, 120}, {2, 3}, int32);
  expect_array(cumprod(make({0.5, 4, -1}, float32)), {0.5, 2, -2}, {3}, float32);
  expect_array(cumsum(make({1, 1, 0, 1}, bool_)), {1, 2, 2, 3}, {4}, int32);
  expect_array(cumsum(make({100, 100}, int8)), {100, 200}, {2}, int32);
  expect_array(cumsum(make({200, 100}, uint8)), {200, 300}, {2}, uint32);
  expect_array(cumsum(Array(4.0f)), {4}, {1}, float32);
  expect_array(cumsum(make({}, {0, 2}, float32), 1), {}, {0, 2}, float32);
  expect_error([&] { cumsum(x, 2); }, {"[cumsum]", "axis 2"});
}
