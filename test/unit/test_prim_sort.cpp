// sort: hand-derived orders (stability, NaNs last, lexicographic keys) and a std::stable_sort
// oracle over every dtype and dimension.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

STRATA_TESTS_PRIMITIVES("sort");

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::vector<double> gen(int64_t n, DType t, uint32_t seed, int mod) {
  std::vector<double> v(static_cast<size_t>(n));
  for (auto &e : v) {
    seed = seed * 1664525u + 1013904223u;
    int r = static_cast<int>((seed >> 16) % mod);
    e = t == bool_ ? r % 2 : is_unsigned_integer(t) ? r : r - mod / 2;
  }
  return v;
}

/// Oracle: for every line along `dim`, a std::stable_sort of positions by (key0, key1, ...) with
/// NaN greater than everything, applied to every operand.
std::vector<std::vector<double>> oracle(const std::vector<std::vector<double>> &ops,
                                        const Shape &shape, int64_t dim, int64_t num_keys) {
  int64_t outer = 1, r = shape[dim], inner = 1;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i)
    if (i != dim)
      (i < dim ? outer : inner) *= shape[i];
  auto less = [](double a, double b) {
    if (std::isnan(a))
      return false;
    return std::isnan(b) || a < b;
  };
  std::vector<std::vector<double>> out = ops;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      auto at = [&](int64_t q) { return static_cast<size_t>((o * r + q) * inner + j); };
      std::vector<int64_t> perm(static_cast<size_t>(r));
      std::iota(perm.begin(), perm.end(), 0);
      std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
        for (int64_t k = 0; k < num_keys; ++k) {
          double x = ops[k][at(a)], y = ops[k][at(b)];
          if (less(x, y))
            return true;
          if (less(y, x))
            return false;
        }
        return false;
      });
      for (size_t k = 0; k < ops.size(); ++k)
        for (int64_t q = 0; q < r; ++q)
          out[k][at(q)] = ops[k][at(perm[q])];
    }
  return out;
}

} // namespace

TEST(PrimSort, HandValues) {
  for (DType t : float_dtypes()) {
    Array x = make({3, kNaN, 1, -kInf, 2, kNaN, 1, kInf}, t);
    auto y = lax::sort({x});
    ASSERT_EQ(y.size(), 1u);
    expect_array(y[0], {-kInf, 1, 1, 2, 3, kInf, kNaN, kNaN}, {8}, t);
  }
  expect_array(lax::sort({make({1, 0, 1, 0}, bool_)})[0], {0, 0, 1, 1}, {4}, bool_);
  expect_array(lax::sort({make({200, 3, 255, 0}, uint8)})[0], {0, 3, 200, 255}, {4}, uint8);
  expect_array(lax::sort({make({-5, 3, -128, 127}, int8)})[0], {-128, -5, 3, 127}, {4}, int8);
  expect_array(lax::sort({make({4000000000.0, 1, 3000000000.0}, uint32)})[0],
               {1, 3000000000.0, 4000000000.0}, {3}, uint32);
}

TEST(PrimSort, StableWithValues) {
  Array keys = make({2, 1, 2, 1, kNaN, 1}, float32);
  Array vals = make({0, 1, 2, 3, 4, 5}, int32);
  auto out = lax::sort({keys, vals});
  ASSERT_EQ(out.size(), 2u);
  expect_array(out[0], {1, 1, 1, 2, 2, kNaN}, {6}, float32);
  expect_array(out[1], {1, 3, 5, 0, 2, 4}, {6}, int32);
}

TEST(PrimSort, LexicographicKeys) {
  Array k1 = make({1, 0, 1, 0, 1}, bool_);
  Array k2 = make({5, 7, 3, 7, 5}, float16);
  Array v = make({0, 1, 2, 3, 4}, int64);
  auto out = lax::sort({k1, k2, v}, 0, 2);
  expect_array(out[0], {0, 0, 1, 1, 1}, {5}, bool_);
  expect_array(out[1], {7, 7, 3, 5, 5}, {5}, float16);
  expect_array(out[2], {1, 3, 2, 0, 4}, {5}, int64);
  // With one key the second operand only follows.
  auto one = lax::sort({k1, k2, v}, 0, 1);
  expect_array(one[1], {7, 7, 5, 3, 5}, {5}, float16);
  expect_array(one[2], {1, 3, 0, 2, 4}, {5}, int64);
}

TEST(PrimSort, EveryDtypeAndDimension) {
  Shape shape{3, 5, 4};
  for (DType t : all_dtypes()) {
    std::vector<double> x = gen(num_elements(shape), t, 3, 7);
    if (is_floating(t)) {
      x[4] = kNaN;
      x[17] = kNaN;
    }
    for (int64_t dim : {0, 1, 2, -1}) {
      SCOPED_TRACE(std::string(short_name(t)) + " dim " + std::to_string(dim));
      int64_t d = dim < 0 ? dim + 3 : dim;
      auto want = oracle({x}, shape, d, 1);
      expect_array(lax::sort({make(x, shape, t)}, dim)[0], want[0], shape, t);
      // Several operands of mixed dtypes: keys of t, values of f64 and i32.
      std::vector<double> v1 = gen(num_elements(shape), float64, 9, 1000);
      std::vector<double> v2 = gen(num_elements(shape), int32, 11, 1000);
      auto want3 = oracle({x, v1, v2}, shape, d, 1);
      auto got =
          lax::sort({make(x, shape, t), make(v1, shape, float64), make(v2, shape, int32)}, dim);
      expect_array(got[0], want3[0], shape, t);
      expect_array(got[1], want3[1], shape, float64);
      expect_array(got[2], want3[2], shape, int32);
      // Two keys.
      auto want2 = oracle({x, v2, v1}, shape, d, 2);
      auto got2 =
          lax::sort({make(x, shape, t), make(v2, shape, int32), make(v1, shape, float64)}, dim, 2);
      expect_array(got2[1], want2[1], shape, int32);
      expect_array(got2[2], want2[2], shape, float64);
    }
  }
}

TEST(PrimSort, LargeLines) {
  Shape shape{3, 20000};
  std::vector<double> x = gen(num_elements(shape), float32, 5, 5000);
  std::vector<double> v = gen(num_elements(shape), int32, 6, 100000);
  auto want = oracle({x, v}, shape, 1, 1);
  auto got = lax::sort({make(x, shape, float32), make(v, shape, int32)}, 1);
  expect_array(got[0], want[0], shape, float32);
  expect_array(got[1], want[1], shape, int32);
  expect_array(lax::sort({make(x, shape, float32)}, 1)[0], want[0], shape, float32);
}

// Lines long enough for the radix sort (and strided: dimension 1 of 3), with many ties,
// infinities and NaNs, in every dtype, alone, with payloads, and with two keys.
TEST(PrimSort, RadixLinesEveryDtype) {
  Shape shape{2, 700, 3};
  for (DType t : all_dtypes()) {
    std::vector<double> x = gen(num_elements(shape), t, 17, 37);
    if (is_floating(t))
      for (size_t i = 0; i < x.size(); i += 97) {
        x[i] = kNaN;
        x[i + 5] = kInf;
        x[i + 7] = -kInf;
      }
    for (int64_t dim : {1, 0, 2}) {
      SCOPED_TRACE(std::string(short_name(t)) + " dim " + std::to_string(dim));
      Shape sh = shape;
      if (dim != 1)
        std::swap(sh[1], sh[dim]);
      std::vector<double> v1 = gen(num_elements(sh), float64, 9, 1000);
      std::vector<double> v2 = gen(num_elements(sh), int32, 11, 5);
      expect_array(lax::sort({make(x, sh, t)}, dim)[0], oracle({x}, sh, dim, 1)[0], sh, t);
      auto want = oracle({x, v1}, sh, dim, 1);
      auto got = lax::sort({make(x, sh, t), make(v1, sh, float64)}, dim);
      expect_array(got[0], want[0], sh, t);
      expect_array(got[1], want[1], sh, float64);
      auto want2 = oracle({v2, x, v1}, sh, dim, 2);
      auto got2 = lax::sort({make(v2, sh, int32), make(x, sh, t), make(v1, sh, float64)}, dim, 2);
      expect_array(got2[1], want2[1], sh, t);
      expect_array(got2[2], want2[2], sh, float64);
    }
  }
}

/// The bits of a sorted f32 or f64 line of `x` (a double per element) against a stable sort of
/// the elements themselves: -0.0 and 0.0 tie, NaNs tie after everything, ties keep input order.
template <class T> void expect_bits_sorted(const std::vector<double> &x) {
  std::vector<T> in(x.begin(), x.end());
  std::vector<T> want = in;
  std::stable_sort(want.begin(), want.end(), [](T a, T b) {
    if (std::isnan(a))
      return false;
    return std::isnan(b) || a < b;
  });
  DType t = sizeof(T) == 4 ? float32 : float64;
  Shape shape{static_cast<int64_t>(in.size())};
  Array sorted = lax::sort({Array::from_vector(in, shape)})[0];
  Array keys = lax::sort({Array::from_vector(in, shape), lax::iota(int32, shape, 0)})[0];
  for (const Array &a : {sorted, keys}) {
    ASSERT_EQ(a.dtype(), t);
    EXPECT_EQ(std::memcmp(a.data(), want.data(), want.size() * sizeof(T)), 0)
        << short_name(t) << " n=" << in.size();
  }
}

TEST(PrimSort, SignedZerosAndNanBitsKeepInputOrder) {
  for (int64_t n : {9, 600}) {
    std::vector<double> x;
    for (int64_t i = 0; i < n; ++i) {
      switch (i % 9) {
      case 0:
        x.push_back(-0.0);
        break;
      case 1:
      case 4:
        x.push_back(0.0);
        break;
      case 2: // NaNs of both signs and distinct payloads (kept by the f64 -> f32 conversion)
        x.push_back(std::bit_cast<double>(0x7ff8000000000000ull | (uint64_t(i % 64) << 32)));
        break;
      case 3:
        x.push_back(-std::bit_cast<double>(0x7ff8000000000000ull | (uint64_t(i % 32) << 33)));
        break;
      case 5:
        x.push_back(-1.5 * static_cast<double>(i % 5));
        break;
      default:
        x.push_back(static_cast<double>(i % 7) - 3.0);
      }
    }
    expect_bits_sorted<float>(x);
    expect_bits_sorted<double>(x);
  }
}

TEST(PrimSort, EdgeShapesAndWeakType) {
  expect_array(lax::sort({make({}, {0, 3}, float32)}, 0)[0], {}, {0, 3}, float32);
  expect_array(lax::sort({make({}, {2, 0}, int32)}, 0)[0], {}, {2, 0}, int32);
  expect_array(lax::sort({make({7}, {1}, int32)})[0], {7}, {1}, int32);
  expect_array(lax::sort({make({3, 1, 2}, {3, 1}, float64)}, 1)[0], {3, 1, 2}, {3, 1}, float64);
  Array w = Array::weak_scalar(2.0).with_shape({1});
  EXPECT_TRUE(lax::sort({w})[0].weak_type());
}

TEST(PrimSort, Errors) {
  Array a = make({3, 1, 2}, float32);
  expect_error([&] { lax::sort({}); }, {"[sort]", "at least one operand"});
  expect_error([&] { lax::sort({a, make({1, 2}, float32)}); },
               {"operand shapes differ: f32[3] and f32[2]"});
  expect_error([&] { lax::sort({a}, 1); }, {"dimension 1 is out of range for f32[3]"});
  expect_error([&] { lax::sort({a}, -2); }, {"out of range"});
  expect_error([&] { lax::sort({make({1}, {}, float32)}, 0); }, {"out of range for f32[]"});
  expect_error([&] { lax::sort({a}, 0, 0); }, {"num_keys 0 must be between 1 and"});
  expect_error([&] { lax::sort({a, a}, 0, 3); }, {"num_keys 3"});
}

TEST(PrimSort, AbstractEval) {
  const Primitive *p = find_primitive("sort");
  ASSERT_NE(p, nullptr);
  AbstractValue in[2] = {{{4, 2}, float16, true}, {{4, 2}, int32, false}};
  auto out = abstract_eval(*p, in, Params{{"dimension", int64_t{0}}, {"num_keys", int64_t{1}}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], in[0]);
  EXPECT_EQ(out[1], in[1]);
}
