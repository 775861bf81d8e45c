// numpy indexing against hand-derived results and naive loops: integers, slices (negative
// steps, clamping), newaxis, ellipsis, advanced integer arrays (numpy's placement rules),
// take, take_along_axis, and the errors.
#include <optional>

#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {
const std::nullopt_t none = std::nullopt;

std::vector<double> iota_values(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = static_cast<double>(i);
  return v;
}
// x[i,j,k] = 12i + 4j + k.
Array cube(DType t = int32) { return make(iota_values(24), {2, 3, 4}, t); }
double cv(int64_t i, int64_t j, int64_t k) { return static_cast<double>(12 * i + 4 * j + k); }
Array ints(const std::vector<double> &v, const Shape &s, DType t = int32) { return make(v, s, t); }
Array ints(const std::vector<double> &v, DType t = int32) { return make(v, t); }
} // namespace

TEST(OpsIndexing, Integers) {
  Array x = cube();
  std::vector<double> last;
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 4; ++k)
      last.push_back(cv(1, j, k));
  expect_array(x[1], last, {3, 4}, int32);
  expect_array(x[-1], last, {3, 4}, int32);
  expect_array(x[{0, -1}], {8, 9, 10, 11}, {4}, int32);
  expect_array(x[{1, 2, 3}], {23}, {}, int32);
  expect_array(x[{-2, -3, -4}], {0}, {}, int32);
  expect_array(index(Array(5.0f), {}), {5}, {}, float32);
  expect_error([&] { x[2]; }, {"[index]", "index 2 is out of bounds for axis 0 with size 2"});
  expect_error([&] { x[{0, -4}]; }, {"index -4 is out of bounds for axis 1 with size 3"});
  try {
    x[{0, 0, 4}];
    ADD_FAILURE() << "expected an error";
  } catch (const Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::Index);
  }
  expect_error([&] { x[{0, 0, 0, 0}]; }, {"[index]", "too many indices", "i32[2,3,4]", "4"});
  expect_error([] { Array(1)[0]; }, {"[index]", "too many indices"});
}

TEST(OpsIndexing, Slices) {
  Array v = make(iota_values(10), {10}, float32);
  expect_array(v[Slice(2, 5)], {2, 3, 4}, {3}, float32);
  expect_array(v[Slice(none, none, 3)], {0, 3, 6, 9}, {4}, float32);
  expect_array(v[Slice(-3, none)], {7, 8, 9}, {3}, float32);
  expect_array(v[Slice(none, none, -1)], {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, {10}, float32);
  expect_array(v[Slice(8, 2, -3)], {8, 5}, {2}, float32);
  expect_array(v[Slice(-2, none, -2)], {8, 6, 4, 2, 0}, {5}, float32);
  expect_array(v[Slice(none, -8, -3)], {9, 6, 3}, {3}, float32);
  expect_array(v[Slice(100, -100, -4)], {9, 5, 1}, {3}, float32);
  expect_array(v[Slice(-100, 100)], iota_values(10), {10}, float32);
  expect_array(v[Slice(5, 2)], {}, {0}, float32);
  expect_array(v[Slice(2, 5, -1)], {}, {0}, float32);
  expect_array(v[Slice(-1, -1, -1)], {}, {0}, float32);
  expect_array(make({}, {0}, float32)[Slice(none, none, -1)], {}, {0}, float32);
  expect_error([&] { v[Slice(0, 5, 0)]; }, {"[index]", "step cannot be zero"});

  Array x = cube();
  // x[:, 1:, ::-2]
  std::vector<double> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 1; j < 3; ++j)
      for (int k : {3, 1})
        want.push_back(cv(i, j, k));
  expect_array(x[{Slice(), Slice(1, none), Slice(none, none, -2)}], want, {2, 2, 2}, int32);
  // x[1, ::-1, 2]
  expect_array(x[{1, Slice(none, none, -1), 2}], {cv(1, 2, 2), cv(1, 1, 2), cv(1, 0, 2)}, {3},
               int32);
}

TEST(OpsIndexing, NewAxisAndEllipsis) {
  Array x = cube();
  expect_array(x[NewAxis], iota_values(24), {1, 2, 3, 4}, int32);
  expect_array(x[{Ellipsis, NewAxis}], iota_values(24), {2, 3, 4, 1}, int32);
  expect_array(x[{0, NewAxis, Slice(), 1}], {1, 5, 9}, {1, 3}, int32);
  std::vector<double> col;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      col.push_back(cv(i, j, 1));
  expect_array(x[{Ellipsis, 1}], col, {2, 3}, int32);
  expect_array(x[{1, Ellipsis, 2}], {cv(1, 0, 2), cv(1, 1, 2), cv(1, 2, 2)}, {3}, int32);
  expect_array(x[{0, 0, 0, Ellipsis}], {0}, {}, int32);
  expect_array(x[Ellipsis], iota_values(24), {2, 3, 4}, int32);
  expect_array(Array(7)[{NewAxis, NewAxis}], {7}, {1, 1}, int32);
  expect_error([&] { x[{Ellipsis, 0, Ellipsis}]; }, {"[index]", "single ellipsis"});
}

TEST(OpsIndexing, AdvancedSingleArray) {
  Array v = make(iota_values(10), {10}, float32);
  expect_array(v[ints({3, -1, 0}, {3})], {3, 9, 0}, {3}, float32);
  expect_array(v[ints({1, 2, 3, 4}, {2, 2})], {1, 2, 3, 4}, {2, 2}, float32);
  expect_array(v[ints({4}, {1}, uint8)], {4}, {1}, float32);
  expect_array(v[ints({-10, 9}, {2}, int64)], {0, 9}, {2}, float32);
  // Out-of-range entries are clamped by gather (docs/indexing.md).
  expect_array(v[ints({12, -30}, {2})], {9, 0}, {2}, float32);
  expect_array(v[Array(2)], {2}, {}, float32);
  Array x = cube();
  // x[[1, 0]] swaps the blocks; x[:, [2, 0]] picks rows in place.
  std::vector<double> swapped, rows;
  for (int i : {1, 0})
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        swapped.push_back(cv(i, j, k));
  expect_array(x[ints({1, 0}, {2})], swapped, {2, 3, 4}, int32);
  for (int i = 0; i < 2; ++i)
    for (int j : {2, 0})
      for (int k = 0; k < 4; ++k)
        rows.push_back(cv(i, j, k));
  expect_array(x[{Slice(), ints({2, 0}, {2})}], rows, {2, 2, 4}, int32);
  expect_array(x[{Slice(), ints({-1, -3}, {2})}], rows, {2, 2, 4}, int32);
  expect_array(x[ints({}, {0})], {}, {0, 3, 4}, int32);
}

TEST(OpsIndexing, AdvancedPlacement) {
  Array x = cube();
  Array a01 = ints({0, 1}, {2});
  // Adjacent arrays at the front: x[[0,1], [2,0]] -> [2,4].
  std::vector<double> w1;
  for (auto [i, j] : {std::pair{0, 2}, std::pair{1, 0}})
    for (int k = 0; k < 4; ++k)
      w1.push_back(cv(i, j, k));
  expect_array(x[{a01, ints({2, 0}, {2})}], w1, {2, 4}, int32);
  // Separated by a slice: x[[0,1], :, [3,1]] -> the index dims go first: [2,3].
  std::vector<double> w2;
  for (auto [i, k] : {std::pair{0, 3}, std::pair{1, 1}})
    for (int j = 0; j < 3; ++j)
      w2.push_back(cv(i, j, k));
  expect_array(x[{a01, Slice(), ints({3, 1}, {2})}], w2, {2, 3}, int32);
  // Adjacent after a slice: x[:, [0,2], [1,3]] -> stay in place: [2,2].
  std::vector<double> w3;
  for (int i = 0; i < 2; ++i)
    for (auto [j, k] : {std::pair{0, 1}, std::pair{2, 3}})
      w3.push_back(cv(i, j, k));
  expect_array(x[{Slice(), ints({0, 2}, {2}), ints({1, 3}, {2})}], w3, {2, 2}, int32);
  // An integer counts as an advanced index: x[0, :, [1,2]] is separated -> [2,3];
  std::vector<double> w4, w5;
  for (int k : {1, 2})
    for (int j = 0; j < 3; ++j)
      w4.push_back(cv(0, j, k));
  expect_array(x[{0, Slice(), ints({1, 2}, {2})}], w4, {2, 3}, int32);
  // x[:, 0, [1,2]] is adjacent -> [2,2].
  for (int i = 0; i < 2; ++i)
    for (int k : {1, 2})
      w5.push_back(cv(i, 0, k));
  expect_array(x[{Slice(), 0, ints({1, 2}, {2})}], w5, {2, 2}, int32);
  // Index arrays broadcast: rows [2,1] with cols [2] -> [2,2], then the slice dim: [2,2,3].
  std::vector<double> w6;
  for (int p : {1, 0})
    for (int q : {0, 3})
      for (int j = 0; j < 3; ++j)
        w6.push_back(cv(p, j, q));
  expect_array(x[{ints({1, 0}, {2, 1}), Slice(), ints({0, 3}, {2})}], w6, {2, 2, 3}, int32);
  // A newaxis between the arrays separates them: x[[0,1], None, [0,2]] -> [2,1,4].
  std::vector<double> w7;
  for (auto [i, j] : {std::pair{0, 0}, std::pair{1, 2}})
    for (int k = 0; k < 4; ++k)
      w7.push_back(cv(i, j, k));
  expect_array(x[{a01, NewAxis, ints({0, 2}, {2})}], w7, {2, 1, 4}, int32);
  // Slices with steps combine with arrays: x[::-1, [1], 1:3] -> [2,1,2].
  std::vector<double> w8;
  for (int i : {1, 0})
    for (int k : {1, 2})
      w8.push_back(cv(i, 1, k));
  expect_array(x[{Slice(none, none, -1), ints({1}, {1}), Slice(1, 3)}], w8, {2, 1, 2}, int32);
  // Three scalar-like indices as arrays: a rank-0 result.
  expect_array(x[{Array(1), Array(2), Array(3)}], {23}, {}, int32);
  // Every dtype moves through gather.
  for (DType t : all_dtypes()) {
    Array y = make({1, 0, 1}, {3}, t);
    expect_array(y[ints({2, 1}, {2})], {1, 0}, {2}, t);
  }
}

TEST(OpsIndexing, Errors) {
  Array x = cube();
  expect_error([&] { x[make({1, 0}, bool_)]; },
               {"[index]", "boolean mask", "bool[2]", "not supported"});
  expect_error([&] { x[make({1}, float32)]; }, {"[index]", "integers", "f32[1]"});
  expect_error([&] { x[{ints({0, 1}, {2}), ints({0, 1, 2}, {3})}]; },
               {"[broadcast]", "i32[2]", "i32[3]"});
  expect_error([&] { x[{0, 5, ints({0}, {1})}]; }, {"index 5 is out of bounds for axis 1"});
  expect_error([] { make({}, {0}, float32)[ints({0}, {1})]; }, {"[index]", "size 0"});
}

TEST(OpsIndexing, Take) {
  Array x = cube(float32);
  expect_array(take(x, ints({0, 23, -1}, {3})), {0, 23, 23}, {3}, float32);
  expect_array(take(x, ints({5, 7, 1, 2}, {2, 2})), {5, 7, 1, 2}, {2, 2}, float32);
  // axis 1: out[i, p, q, k] = x[i, idx[p,q], k] with idx [[2,0]] of shape [1,2].
  std::vector<double> want;
  for (int i = 0; i < 2; ++i)
    for (int j : {2, 0})
      for (int k = 0; k < 4; ++k)
        want.push_back(cv(i, j, k));
  expect_array(take(x, ints({2, 0}, {1, 2}), 1), want, {2, 1, 2, 4}, float32);
  expect_array(take(x, ints({-1, -3}, {1, 2}), -2), want, {2, 1, 2, 4}, float32);
  expect_array(take(x, Array(3), 2), {3, 7, 11, 15, 19, 23}, {2, 3}, float32);
  expect_array(take(x, ints({}, {0}), 0), {}, {0, 3, 4}, float32);
  expect_array(take(make({}, {0}, int32), ints({}, {0})), {}, {0}, int32);
  expect_error([&] { take(x, ints({0}, {1}), 3); }, {"[take]", "axis 3"});
  expect_error([&] { take(x, make({1}, bool_)); }, {"[take]", "boolean"});
  expect_error([] { take(make({}, {0}, int32), ints({0}, {1})); }, {"[take]", "size 0"});
}

TEST(OpsIndexing, TakeAlongAxis) {
  Array x = make({10, 30, 20, 60, 50, 40}, {2, 3}, float32);
  // The argsort of each row, as numpy's example.
  Array idx = ints({0, 2, 1, 2, 1, 0}, {2, 3});
  expect_array(take_along_axis(x, idx, 1), {10, 20, 30, 40, 50, 60}, {2, 3}, float32);
  expect_array(take_along_axis(x, ints({1, -1}, {2, 1}), -1), {30, 40}, {2, 1}, float32);
  expect_array(take_along_axis(x, ints({1, 0, 1}, {1, 3}), 0), {60, 30, 40}, {1, 3}, float32);
  // Size-1 dims broadcast: one index row for both rows of x.
  expect_array(take_along_axis(x, ints({2, 0}, {1, 2}), 1), {20, 10, 40, 60}, {2, 2}, float32);
  expect_array(take_along_axis(x, ints({}, {2, 0}), 1), {}, {2, 0}, float32);
  expect_error([&] { take_along_axis(x, ints({0}, {1}), 0); }, {"[take_along_axis]", "rank"});
  expect_error([&] { take_along_axis(x, ints({0, 0, 0}, {3, 1}), 1); },
               {"[take_along_axis]", "incompatible"});
}
