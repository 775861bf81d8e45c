// numpy-style creation and shape ops: hand-derived values, dtype defaults, rank-0 and
// zero-size shapes, and the error messages of each validation rule.
#include <cmath>

#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {
std::vector<double> iota_values(int64_t n, double start = 0) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = start + static_cast<double>(i);
  return v;
}
} // namespace

// ---- Creation ------------------------------------------------------------------------------
TEST(OpsCreation, ZerosOnesFull) {
  expect_array(zeros({2, 2}), {0, 0, 0, 0}, {2, 2}, float32);
  expect_array(ones({3}, int8), {1, 1, 1}, {3}, int8);
  expect_array(ones({}, bool_), {1}, {}, bool_);
  expect_array(full({2}, 2.5, bfloat16), {2.5, 2.5}, {2}, bfloat16);
  expect_array(full({0, 4}, 7, int64), {}, {0, 4}, int64);
  expect_array(full({2, 2}, make({1, 2}, int32)), {1, 2, 1, 2}, {2, 2}, int32);
  Array f = full({2}, Array::weak_scalar(1.5));
  EXPECT_FALSE(f.weak_type());
  expect_array(f, {1.5, 1.5}, {2}, float32);
  expect_error([] { zeros({2, -1}); }, {"[zeros]", "negative dimension"});
  expect_error([] { full({2}, make({1, 2, 3}, int32)); }, {"[full]", "i32[3]", "[2]"});

  Array x = make({1, 2, 3}, {3}, uint8);
  expect_array(zeros_like(x), {0, 0, 0}, {3}, uint8);
  expect_array(ones_like(x), {1, 1, 1}, {3}, uint8);
  expect_array(full_like(x, 9), {9, 9, 9}, {3}, uint8);
  EXPECT_TRUE(zeros_like(Array::weak_scalar(2.0)).weak_type());
}

TEST(OpsCreation, Arange) {
  expect_array(arange(5), iota_values(5), {5}, int32);
  expect_array(arange(0), {}, {0}, int32);
  expect_array(arange(2, 11, 3), {2, 5, 8}, {3}, int32);
  expect_array(arange(5, 0, -2), {5, 3, 1}, {3}, int32);
  expect_array(arange(0, 1, 0.25), {0, 0.25, 0.5, 0.75}, {4}, float32);
  expect_array(arange(0.5, 3), {0.5, 1.5, 2.5}, {3}, float32);
  expect_array(arange(1, 2, 0.3, float64), {1, 1.3, 1.6, 1.9}, {4}, float64, 1e-15);
  expect_array(arange(3, int64), {0, 1, 2}, {3}, int64);
  expect_array(arange(0, 3, 1, float16), {0, 1, 2}, {3}, float16);
  expect_array(arange(5, 1), {}, {0}, int32);
  expect_error([] { arange(0, 3, 0); }, {"[arange]", "step"});
}

TEST(OpsCreation, Linspace) {
  expect_array(linspace(0, 1, 5), {0, 0.25, 0.5, 0.75, 1}, {5}, float32);
  expect_array(linspace(0, 1, 4, false), {0, 0.25, 0.5, 0.75}, {4}, float32);
  expect_array(linspace(2, 3, 1), {2}, {1}, float32);
  expect_array(linspace(2, 3, 0), {}, {0}, float32);
  expect_array(linspace(0, 1, 3, true, float64), {0, 0.5, 1}, {3}, float64);
  // Integer outputs are floored: [-2, -1.25, -0.5, 0.25, 1].
  expect_array(linspace(-2, 1, 5, true, int32), {-2, -2, -1, 0, 1}, {5}, int32);
  expect_array(linspace(0.1, 0.7, 7, true, float64), {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7}, {7},
               float64, 1e-15);
  expect_error([] { linspace(0, 1, -1); }, {"[linspace]", "-1"});
}

TEST(OpsCreation, Eye) {
  expect_array(eye(3), {1, 0, 0, 0, 1, 0, 0, 0, 1}, {3, 3}, float32);
  expect_array(eye(2, 3, 1, int32), {0, 1, 0, 0, 0, 1}, {2, 3}, int32);
  expect_array(eye(3, 2, -1, bool_), {0, 0, 1, 0, 0, 1}, {3, 2}, bool_);
  expect_array(eye(2, 2, 5), {0, 0, 0, 0}, {2, 2}, float32);
  expect_array(eye(0), {}, {0, 0}, float32);
  expect_error([] { eye(-1); }, {"[eye]", "negative"});
}

TEST(OpsCreation, Astype) {
  Array x = make({1.7, -1.7, 0}, float32);
  expect_array(astype(x, int32), {1, -1, 0}, {3}, int32);
  expect_array(x.astype(bool_), {1, 1, 0}, {3}, bool_);
  Array w = astype(Array::weak_scalar(1.0), float32);
  EXPECT_FALSE(w.weak_type());
}

// ---- Reshaping -------------------------------------------------------------------------------
TEST(OpsShape, Reshape) {
  Array x = make(iota_values(6), {2, 3}, int32);
  expect_array(reshape(x, {3, 2}), iota_values(6), {3, 2}, int32);
  expect_array(reshape(x, {-1}), iota_values(6), {6}, int32);
  expect_array(x.reshape({1, -1, 2}), iota_values(6), {1, 3, 2}, int32);
  expect_array(reshape(make({5}, {1, 1}, float32), {}), {5}, {}, float32);
  expect_array(reshape(make({}, {0, 3}, float32), {3, -1}), {}, {3, 0}, float32);
  expect_array(ravel(x), iota_values(6), {6}, int32);
  expect_array(ravel(Array(2.0f)), {2}, {1}, float32);
  expect_error([&] { reshape(x, {4}); }, {"[reshape]", "cannot reshape", "i32[2,3]", "[4]"});
  expect_error([&] { reshape(x, {-1, -1}); }, {"[reshape]", "one unknown dimension"});
  expect_error([&] { reshape(x, {-1, 4}); }, {"[reshape]", "i32[2,3]"});
  expect_error([&] { reshape(x, {-2, 3}); }, {"[reshape]", "invalid dimension"});
}

TEST(OpsShape, TransposeSwapMove) {
  Array x = make(iota_values(6), {2, 3}, float32);
  expect_array(transpose(x), {0, 3, 1, 4, 2, 5}, {3, 2}, float32);
  expect_array(x.T(), {0, 3, 1, 4, 2, 5}, {3, 2}, float32);
  Array y = make(iota_values(24), {2, 3, 4}, int32);
  // y[i,j,k] = 12i + 4j + k; transpose (2,0,1) gives z[k,i,j].
  Array z = transpose(y, std::vector<int>{2, 0, 1});
  ASSERT_EQ(z.shape(), (Shape{4, 2, 3}));
  std::vector<double> v = values(z), want;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        want.push_back(12 * i + 4 * j + k);
  EXPECT_EQ(v, want);
  EXPECT_EQ(values(moveaxis(y, -1, 0)), want);
  EXPECT_EQ(moveaxis(y, 0, 2).shape(), (Shape{3, 4, 2}));
  EXPECT_EQ(swapaxes(y, 0, -1).shape(), (Shape{4, 3, 2}));
  EXPECT_EQ(values(swapaxes(x, 0, 1)), values(transpose(x)));
  expect_array(transpose(Array(1)), {1}, {}, int32);
  expect_error([&] { transpose(x, std::vector<int>{0}); }, {"[transpose]", "f32[2,3]"});
  expect_error([&] { transpose(x, std::vector<int>{1, 1}); }, {"[transpose]", "repeated"});
  expect_error([&] { swapaxes(x, 0, 2); }, {"[swapaxes]", "axis 2", "dimension 2"});
  expect_error([&] { moveaxis(x, -3, 0); }, {"[moveaxis]", "axis -3"});
}

TEST(OpsShape, SqueezeExpandDims) {
  Array x = make({1, 2, 3}, {1, 3, 1}, float32);
  expect_array(squeeze(x), {1, 2, 3}, {3}, float32);
  expect_array(squeeze(x, 0), {1, 2, 3}, {3, 1}, float32);
  expect_array(squeeze(x, {0, -1}), {1, 2, 3}, {3}, float32);
  expect_array(squeeze(make({7}, {1, 1}, int32)), {7}, {}, int32);
  expect_error([&] { squeeze(x, 1); }, {"[squeeze]", "axis 1", "f32[1,3,1]", "not 1"});
  expect_array(expand_dims(make({1, 2}, float32), 0), {1, 2}, {1, 2}, float32);
  expect_array(expand_dims(make({1, 2}, float32), -1), {1, 2}, {2, 1}, float32);
  expect_array(expand_dims(make({1, 2}, float32), {0, 2}), {1, 2}, {1, 2, 1}, float32);
  expect_array(expand_dims(Array(3), 0), {3}, {1}, int32);
  expect_error([] { expand_dims(make({1, 2}, float32), 3); }, {"[expand_dims]", "axis 3"});
  expect_error([] { expand_dims(make({1, 2}, float32), {1, 1}); }, {"[expand_dims]", "repeated"});
}

TEST(OpsShape, BroadcastTo) {
  expect_array(broadcast_to(make({1, 2}, int32), {2, 2}), {1, 2, 1, 2}, {2, 2}, int32);
  expect_array(broadcast_to(Array(1.5f), {3}), {1.5, 1.5, 1.5}, {3}, float32);
  expect_array(broadcast_to(make({1}, int32), {0}), {}, {0}, int32);
  expect_error([] { broadcast_to(make({1, 2, 3}, float32), {2, 2}); },
               {"[broadcast_to]", "f32[3]", "[2,2]"});
  expect_error([] { broadcast_to(make({1, 2}, {1, 2}, float32), {2}); }, {"[broadcast_to]"});
  EXPECT_EQ(broadcast_shapes({2, 1}, {3}), (Shape{2, 3}));
  EXPECT_EQ(broadcast_shapes({}, {0, 1}), (Shape{0, 1}));
  expect_error([] { broadcast_shapes({2}, {3}); }, {"[broadcast_shapes]", "[2]", "[3]"});
  auto bs = broadcast_arrays({make({1, 2}, {2, 1}, int32), make({5, 6, 7}, float32)});
  expect_array(bs[0], {1, 1, 1, 2, 2, 2}, {2, 3}, int32);
  expect_array(bs[1], {5, 6, 7, 5, 6, 7}, {2, 3}, float32);
}

TEST(OpsShape, ConcatenateStack) {
  Array a = make({1, 2, 3, 4}, {2, 2}, int32), b = make({5, 6}, {1, 2}, float32);
  expect_array(concatenate({a, b}), {1, 2, 3, 4, 5, 6}, {3, 2}, float32);
  expect_array(concatenate({a, a}, -1), {1, 2, 1, 2, 3, 4, 3, 4}, {2, 4}, int32);
  expect_array(concatenate({a, make({}, {0, 2}, int32)}), {1, 2, 3, 4}, {2, 2}, int32);
  expect_array(concatenate({a}), {1, 2, 3, 4}, {2, 2}, int32);
  expect_error([&] { concatenate({a, b}, 1); }, {"[concatenate]", "f32[1,2]", "i32[2,2]"});
  expect_error([] { concatenate({}); }, {"[concatenate]", "at least one"});
  expect_error([] { concatenate({Array(1), Array(2)}); }, {"[concatenate]", "zero-dimensional"});
  expect_error([&] { concatenate({a, a}, 2); }, {"[concatenate]", "axis 2"});

  Array c = make({1, 2}, int8), d = make({3, 4}, int32);
  expect_array(stack({c, d}), {1, 2, 3, 4}, {2, 2}, int32);
  expect_array(stack({c, d}, 1), {1, 3, 2, 4}, {2, 2}, int32);
  expect_array(stack({c, d}, -1), {1, 3, 2, 4}, {2, 2}, int32);
  expect_array(stack({Array(1.0f), Array(2.0f)}), {1, 2}, {2}, float32);
  expect_error([&] { stack({c, make({1}, int8)}); }, {"[stack]", "same shape", "i8[1]"});
}

TEST(OpsShape, Split) {
  Array x = make(iota_values(6), {6}, int32);
  auto p = split(x, 3);
  ASSERT_EQ(p.size(), 3u);
  expect_array(p[0], {0, 1}, {2}, int32);
  expect_array(p[2], {4, 5}, {2}, int32);
  auto q = split(x, std::vector<int64_t>{1, 4});
  ASSERT_EQ(q.size(), 3u);
  expect_array(q[0], {0}, {1}, int32);
  expect_array(q[1], {1, 2, 3}, {3}, int32);
  expect_array(q[2], {4, 5}, {2}, int32);
  // Python slicing: out-of-range and decreasing points give empty pieces.
  auto r = split(x, std::vector<int64_t>{4, 2, 10, -1});
  ASSERT_EQ(r.size(), 5u);
  expect_array(r[0], {0, 1, 2, 3}, {4}, int32);
  expect_array(r[1], {}, {0}, int32);
  expect_array(r[2], {2, 3, 4, 5}, {4}, int32);
  expect_array(r[3], {}, {0}, int32);
  expect_array(r[4], {5}, {1}, int32);
  Array m = make(iota_values(6), {2, 3}, float32);
  auto cols = split(m, 3, 1);
  expect_array(cols[1], {1, 4}, {2, 1}, float32);
  expect_error([&] { split(x, 4); }, {"[split]", "equal division"});
  expect_error([&] { split(x, 0); }, {"[split]", "positive"});
  expect_error([] { split(Array(1), 1); }, {"[split]", "zero-dimensional"});
  auto e = split(make({}, {0}, int32), 2);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[1].shape(), (Shape{0}));
}

TEST(OpsShape, Flip) {
  Array x = make(iota_values(6), {2, 3}, int32);
  expect_array(flip(x), {5, 4, 3, 2, 1, 0}, {2, 3}, int32);
  expect_array(flip(x, 1), {2, 1, 0, 5, 4, 3}, {2, 3}, int32);
  expect_array(flip(x, -2), {3, 4, 5, 0, 1, 2}, {2, 3}, int32);
  expect_array(flip(Array(4)), {4}, {}, int32);
  expect_error([&] { flip(x, 2); }, {"[flip]", "axis 2"});
}
