// gather, scatter and scatter_add: hand-derived examples (take rows, take along an axis, point
// gathers, batched windows, clamping, dropped out-of-bounds updates, duplicates), naive-loop
// oracles over many dimension-number layouts, every dtype, edge shapes, and every validation rule.
#include <algorithm>
#include <functional>

#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

STRATA_TESTS_PRIMITIVES("gather", "scatter", "scatter_add");

namespace {

using GDims = lax::GatherDimensionNumbers;
using SDims = lax::ScatterDimensionNumbers;

bool has(const Idx &v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::vector<double> iota_values(int64_t n, double scale = 1.0) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[i] = static_cast<double>(i) * scale;
  return v;
}

Array indices_of(const std::vector<int64_t> &v, const Shape &shape, DType dtype = int32) {
  std::vector<double> d(v.begin(), v.end());
  return make(d, shape, dtype);
}

// The gather of XLA's spec, element by element: for output index `out`, the batch index is the
// non-offset dims, the offset index the offset dims; start = clamp(indices[batch]).
std::vector<double> naive_gather(const std::vector<double> &x, const Shape &xs,
                                 const std::vector<int64_t> &ind, const Shape &is, const GDims &g,
                                 const Idx &slice, const Shape &out_shape) {
  std::vector<double> out;
  const int64_t nvec = is.back();
  for_each_index(out_shape, [&](const Idx &o) {
    Idx batch, offs;
    for (size_t i = 0; i < o.size(); ++i)
      (has(g.offset_dims, static_cast<int64_t>(i)) ? offs : batch).push_back(o[i]);
    Idx ivec = batch;
    ivec.push_back(0);
    Idx start(xs.size(), 0);
    for (int64_t k = 0; k < nvec; ++k) {
      ivec.back() = k;
      int64_t d = g.start_index_map[k];
      start[d] = std::clamp<int64_t>(ind[ravel(ivec, is)], 0, xs[d] - slice[d]);
    }
    Idx full(xs.size());
    for (size_t d = 0, k = 0; d < xs.size(); ++d)
      full[d] = start[d] + (has(g.collapsed_slice_dims, static_cast<int64_t>(d)) ? 0 : offs[k++]);
    out.push_back(x[ravel(full, xs)]);
  });
  return out;
}

// The scatter of XLA's spec, update element by update element in row-major order (so later
// batch positions come later for any one operand element); a window not wholly in bounds drops.
std::vector<double> naive_scatter(std::vector<double> x, const Shape &xs,
                                  const std::vector<int64_t> &ind, const Shape &is,
                                  const std::vector<double> &u, const Shape &us, const SDims &s,
                                  bool add) {
  const int64_t nvec = is.back();
  Shape window(xs.size(), 1);
  for (size_t d = 0, k = 0; d < xs.size(); ++d)
    if (!has(s.inserted_window_dims, static_cast<int64_t>(d)))
      window[d] = us[s.update_window_dims[k++]];
  for_each_index(us, [&](const Idx &ui) {
    Idx batch, win;
    for (size_t i = 0; i < ui.size(); ++i)
      (has(s.update_window_dims, static_cast<int64_t>(i)) ? win : batch).push_back(ui[i]);
    Idx ivec = batch;
    ivec.push_back(0);
    Idx full(xs.size(), 0);
    for (int64_t k = 0; k < nvec; ++k) {
      ivec.back() = k;
      int64_t d = s.scatter_dims_to_operand_dims[k];
      int64_t st = ind[ravel(ivec, is)];
      if (st < 0 || st + window[d] > xs[d])
        return;
      full[d] = st;
    }
    for (size_t d = 0, k = 0; d < xs.size(); ++d)
      if (!has(s.inserted_window_dims, static_cast<int64_t>(d)))
        full[d] += win[k++];
    double &dst = x[ravel(full, xs)];
    dst = add ? dst + u[ravel(ui, us)] : u[ravel(ui, us)];
  });
  return x;
}

} // namespace

// ---- gather -------------------------------------------------------------------------------------

TEST(PrimGather, TakeRows) {
  Array x = make(iota_values(12), {3, 4}, float32);
  Array y = lax::gather(x, indices_of({2, 0, 2}, {3, 1}), {{1}, {0}, {0}}, {1, 4});
  expect_array(y, {8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11}, {3, 4}, float32);
}

TEST(PrimGather, TakeRowsEveryDtypeBitExact) {
  for (DType t : all_dtypes()) {
    std::vector<double> v = {1, 0, 1, 1, 0, 0};
    if (t != bool_)
      v = {-1.5, 2.25, 3, 100, 7, -0.125};
    if (is_integer(t))
      for (double &e : v)
        e = std::floor(std::fabs(e));
    Array x = make(v, {3, 2}, t);
    Array y = lax::gather(x, indices_of({1, 2, 0}, {3, 1}, int64), {{1}, {0}, {0}}, {1, 2});
    std::vector<double> want = {v[2], v[3], v[4], v[5], v[0], v[1]};
    expect_array(y, want, {3, 2}, t);
  }
}

TEST(PrimGather, TakeAlongAxis) {
  // y[i, j] = x[i, idx[i, j]]: each index vector is the pair (i, idx[i, j]).
  Array x = make({10, 11, 12, 20, 21, 22}, {2, 3}, int32);
  Array ind = indices_of({0, 2, 0, 0, 1, 1, 1, 2}, {2, 2, 2});
  Array y = lax::gather(x, ind, {{}, {0, 1}, {0, 1}}, {1, 1});
  expect_array(y, {12, 10, 21, 22}, {2, 2}, int32);
}

TEST(PrimGather, PointGatherAndPermutedStartMap) {
  Array x = make(iota_values(9), {3, 3}, float64);
  Array y = lax::gather(x, indices_of({0, 1, 2, 2, 1, 0}, {3, 2}), {{}, {0, 1}, {0, 1}}, {1, 1});
  expect_array(y, {1, 8, 3}, {3}, float64);
  // start_index_map {1, 0}: the index vector is (column, row).
  Array z = lax::gather(x, indices_of({0, 1, 2, 2, 1, 0}, {3, 2}), {{}, {0, 1}, {1, 0}}, {1, 1});
  expect_array(z, {3, 8, 1}, {3}, float64);
}

TEST(PrimGather, BatchedWindowsWithOffsetDimsAroundBatch) {
  // Column windows of width 2 starting at the indexed column; the batch dimension sits between
  // the two offset dimensions of the output.
  Array x = make(iota_values(20), {4, 5}, int32);
  Array y = lax::gather(x, indices_of({1, 3}, {2, 1}), {{0, 2}, {}, {1}}, {4, 2});
  ASSERT_EQ(y.shape(), (Shape{4, 2, 2}));
  std::vector<double> want;
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t b : {1, 3})
      for (int64_t c = 0; c < 2; ++c)
        want.push_back(static_cast<double>(r * 5 + b + c));
  expect_array(y, want, {4, 2, 2}, int32);
}

TEST(PrimGather, StartIndicesAreClamped) {
  Array x = make({0, 1, 2, 3, 4}, int32);
  // Windows of 2: start 4 clamps to 3, -7 to 0; u32 huge clamps to 3.
  Array y = lax::gather(x, indices_of({4, -7, 1}, {3, 1}), {{1}, {}, {0}}, {2});
  expect_array(y, {3, 4, 0, 1, 1, 2}, {3, 2}, int32);
  Array big = Array::from_vector<uint32_t>({4000000000u}, {1, 1});
  expect_array(lax::gather(x, big, {{}, {0}, {0}}, {1}), {4}, {1}, int32);
  Array i8 = indices_of({-1, 9}, {2, 1}, int8);
  expect_array(lax::gather(x, i8, {{}, {0}, {0}}, {1}), {0, 4}, {2}, int32);
}

TEST(PrimGather, MatchesNaiveLoopOverLayouts) {
  struct Case {
    Shape xs;
    Shape is;
    GDims g;
    Idx slice;
  };
  std::vector<Case> cases = {
      {{4, 5, 3}, {2, 3, 2}, {{2, 3}, {0}, {0, 2}}, {1, 3, 2}},
      {{4, 5, 3}, {6, 1}, {{1, 2, 3}, {}, {1}}, {2, 2, 3}},
      {{4, 5, 3}, {2, 3}, {{0}, {0, 2}, {2, 0, 1}}, {1, 4, 1}},
      {{6}, {3, 2, 1}, {{2}, {}, {0}}, {3}},
      {{3, 4}, {1}, {{0, 1}, {}, {1}}, {3, 2}},
      {{3, 4}, {5, 0}, {{1, 2}, {}, {}}, {2, 3}},
  };
  for (const Case &c : cases) {
    std::vector<double> xv = iota_values(num_elements(c.xs), 0.5);
    std::vector<int64_t> iv(static_cast<size_t>(num_elements(c.is)));
    for (size_t k = 0; k < iv.size(); ++k)
      iv[k] = static_cast<int64_t>((k * 7 + 3) % 9) - 2; // some negative, some past the end
    Array y = lax::gather(make(xv, c.xs, float32), indices_of(iv, c.is), c.g, c.slice);
    std::vector<double> want = naive_gather(xv, c.xs, iv, c.is, c.g, c.slice, y.shape());
    expect_array(y, want, y.shape(), float32);
    int64_t out_rank = static_cast<int64_t>(c.is.size()) - 1 + c.g.offset_dims.size();
    EXPECT_EQ(y.ndim(), out_rank);
  }
}

TEST(PrimGather, EdgeShapes) {
  Array x = make({5, 6, 7}, float32);
  // Rank-0 result: a single index vector, everything collapsed.
  expect_array(lax::gather(x, indices_of({2}, {1}), {{}, {0}, {0}}, {1}), {7}, {}, float32);
  // No batch positions.
  Array none =
      lax::gather(make(iota_values(12), {3, 4}), indices_of({}, {0, 1}), {{1}, {0}, {0}}, {1, 4});
  expect_array(none, {}, {0, 4}, float64);
  // A zero-size operand dimension with slice size 0.
  Array empty =
      lax::gather(make({}, {3, 0}, int8), indices_of({1, 2}, {2, 1}), {{1}, {0}, {0}}, {1, 0});
  expect_array(empty, {}, {2, 0}, int8);
  // Index vectors of length 0: every slice starts at 0.
  Array whole = lax::gather(make({1, 2, 3}), indices_of({}, {2, 0}), {{1}, {}, {}}, {2});
  expect_array(whole, {1, 2, 1, 2}, {2, 2}, float64);
}

TEST(PrimGather, LargeParallelTake) {
  const int64_t rows = 5000, cols = 16;
  Array x = make(iota_values(rows * cols), {rows, cols}, float32);
  std::vector<int64_t> iv(rows);
  for (int64_t i = 0; i < rows; ++i)
    iv[i] = (i * 7919) % rows;
  Array y = lax::gather(x, indices_of(iv, {rows, 1}), {{1}, {0}, {0}}, {1, cols});
  std::vector<float> v = y.to_vector<float>();
  bool ok = true;
  for (int64_t i = 0; i < rows && ok; ++i)
    for (int64_t c = 0; c < cols; ++c)
      ok &= v[i * cols + c] == static_cast<float>(iv[i] * cols + c);
  EXPECT_TRUE(ok);
}

TEST(PrimGather, Errors) {
  Array x = make(iota_values(12), {3, 4}, float32);
  Array rows = indices_of({0, 1}, {2, 1});
  auto g = [&](const Array &ind, GDims d, Shape s) { return lax::gather(x, ind, d, s); };
  expect_error([&] { g(make({0, 1}, {2, 1}, float32), {{1}, {0}, {0}}, {1, 4}); },
               {"[gather]", "indices must have an integer dtype", "f32[2,1]"});
  expect_error([&] { g(Array(int32_t{1}), {{0, 1}, {}, {}}, {3, 4}); },
               {"[gather]", "rank >= 1", "i32[]"});
  expect_error([&] { g(rows, {{1}, {0}, {0}}, {1}); },
               {"[gather]", "slice_sizes [1]", "operand f32[3,4], indices i32[2,1]"});
  expect_error([&] { g(rows, {{1}, {0}, {0, 1}}, {1, 4}); },
               {"[gather]", "start_index_map [0,1]", "one entry per index"});
  expect_error([&] { g(indices_of({0}, {1}), {{1, 0}, {}, {0}}, {3, 4}); },
               {"[gather]", "offset_dims [1,0] must be sorted"});
  expect_error([&] { g(rows, {{2}, {0}, {0}}, {1, 4}); },
               {"[gather]", "offset_dims [2]", "out of range [0, 2)"});
  expect_error([&] { g(indices_of({0}, {1, 1}), {{}, {0, 0}, {0}}, {1, 1}); },
               {"[gather]", "collapsed_slice_dims [0,0] repeats 0"});
  expect_error([&] { g(rows, {{1}, {0}, {2}}, {1, 4}); },
               {"[gather]", "start_index_map [2]", "out of range [0, 2)"});
  expect_error([&] { g(indices_of({0, 0}, {1, 2}), {{1}, {0}, {0, 0}}, {1, 4}); },
               {"[gather]", "start_index_map [0,0] repeats 0"});
  expect_error([&] { g(rows, {{}, {0}, {0}}, {1, 4}); },
               {"[gather]", "must together cover the operand's 2 dimensions"});
  expect_error([&] { g(rows, {{1}, {0}, {0}}, {1, 5}); },
               {"[gather]", "slice_sizes [1,5] exceed the operand's bounds in dimension 1"});
  expect_error([&] { g(rows, {{1}, {0}, {0}}, {2, 4}); },
               {"[gather]", "collapsed dimension 0 must have slice size 1", "[2,4]"});
}

// ---- scatter and scatter_add --------------------------------------------------------------------

TEST(PrimScatter, ScatterRows) {
  Array x = make({0, 0, 0, 0, 0, 0}, {3, 2}, float32);
  Array u = make({1, 2, 3, 4}, {2, 2}, float32);
  Array y = lax::scatter(x, indices_of({2, 0}, {2, 1}), u, {{1}, {0}, {0}});
  expect_array(y, {3, 4, 0, 0, 1, 2}, {3, 2}, float32);
  Array z = lax::scatter_add(make({1, 1, 1, 1, 1, 1}, {3, 2}, float32), indices_of({2, 0}, {2, 1}),
                             u, {{1}, {0}, {0}});
  expect_array(z, {4, 5, 1, 1, 2, 3}, {3, 2}, float32);
}

TEST(PrimScatter, DuplicatesLastWinsAndAddAccumulates) {
  Array x = make({5, 5, 5, 5}, int32);
  Array ind = indices_of({1, 3, 1, 1}, {4, 1});
  Array u = make({10, 20, 30, 40}, int32);
  expect_array(lax::scatter(x, ind, u, {{}, {0}, {0}}), {5, 40, 5, 20}, {4}, int32);
  expect_array(lax::scatter_add(x, ind, u, {{}, {0}, {0}}), {5, 85, 5, 25}, {4}, int32);
  // Row-major order over a 2-D batch: position (1, 0) comes after (0, 1).
  Array ind2 = indices_of({0, 2, 2, 0}, {2, 2, 1});
  Array u2 = make({1, 2, 3, 4}, {2, 2}, int32);
  expect_array(lax::scatter(x, ind2, u2, {{}, {0}, {0}}), {4, 5, 3, 5}, {4}, int32);
}

TEST(PrimScatter, OutOfBoundsWindowsAreDroppedWhole) {
  Array x = make({0, 0, 0, 0, 0}, float64);
  // Windows of 2: starts 4 (would cover 4..5) and -1 drop entirely; 3 fits; 0 fits.
  Array ind = indices_of({4, -1, 3, 0}, {4, 1});
  Array u = make({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  expect_array(lax::scatter(x, ind, u, {{1}, {}, {0}}), {7, 8, 0, 5, 6}, {5}, float64);
  expect_array(lax::scatter_add(x, ind, u, {{1}, {}, {0}}), {7, 8, 0, 5, 6}, {5}, float64);
  // u32 indices past i32's range are out of bounds too.
  Array big = Array::from_vector<uint32_t>({4000000000u, 1u}, {2, 1});
  expect_array(lax::scatter(x, big, make({9, 8}), {{}, {0}, {0}}), {0, 8, 0, 0, 0}, {5}, float64);
}

TEST(PrimScatter, PointScatterAdd2D) {
  Array x = make(std::vector<double>(6, 0), {2, 3}, float32);
  Array ind = indices_of({0, 1, 1, 2, 0, 1, 2, 0}, {4, 2});
  Array u = make({1.5, 2, 3, 9}, {4}, float32);
  expect_array(lax::scatter_add(x, ind, u, {{}, {0, 1}, {0, 1}}), {0, 4.5, 0, 0, 0, 2}, {2, 3},
               float32);
}

TEST(PrimScatter, IntegersWrapAndHalfFloatsRoundPerStep) {
  Array ind = indices_of({0, 0}, {2, 1});
  expect_array(lax::scatter_add(make({100}, int8), ind, make({100, 0}, int8), {{}, {0}, {0}}),
               {-56}, {1}, int8);
  expect_array(lax::scatter_add(make({200}, uint8), ind, make({50, 50}, uint8), {{}, {0}, {0}}),
               {44}, {1}, uint8);
  expect_array(
      lax::scatter_add(make({4294967295.0}, uint32), ind, make({1, 1}, uint32), {{}, {0}, {0}}),
      {1}, {1}, uint32);
  // 2048 + 1 rounds back to 2048 in f16 at every step (a float accumulator would give 2050).
  Array i3 = indices_of({0, 0, 0}, {3, 1});
  expect_array(
      lax::scatter_add(make({2048}, float16), i3, make({1, 1, 1}, float16), {{}, {0}, {0}}), {2048},
      {1}, float16);
  expect_array(
      lax::scatter_add(make({256}, bfloat16), i3, make({1, 1, 1}, bfloat16), {{}, {0}, {0}}), {256},
      {1}, bfloat16);
}

TEST(PrimScatter, EveryDtype) {
  for (DType t : all_dtypes()) {
    std::vector<double> base = {0, 1, 0, 1}, upd = {1, 0};
    if (t != bool_)
      base = {3, 4, 5, 6}, upd = {7, 9};
    Array ind = indices_of({3, 0}, {2, 1}, uint8);
    Array y = lax::scatter(make(base, t), ind, make(upd, t), {{}, {0}, {0}});
    expect_array(y, {upd[1], base[1], base[2], upd[0]}, {4}, t);
    if (t == bool_)
      continue;
    Array z = lax::scatter_add(make(base, t), ind, make(upd, t), {{}, {0}, {0}});
    expect_array(z, {base[0] + upd[1], base[1], base[2], base[3] + upd[0]}, {4}, t);
  }
}

TEST(PrimScatter, MatchesNaiveLoopOverLayouts) {
  struct Case {
    Shape xs;
    Shape is;
    Shape us;
    SDims s;
  };
  std::vector<Case> cases = {
      {{4, 5, 3}, {2, 3, 2}, {2, 3, 3, 2}, {{2, 3}, {0}, {0, 2}}},
      {{4, 5, 3}, {6, 1}, {2, 6, 2, 3}, {{0, 2, 3}, {}, {1}}},
      {{4, 5, 3}, {2, 3}, {4, 2}, {{0}, {0, 2}, {2, 0, 1}}},
      {{6}, {3, 2, 1}, {3, 2, 3}, {{2}, {}, {0}}},
      {{3, 4}, {5, 0}, {5, 2, 3}, {{1, 2}, {}, {}}},
      {{3, 4}, {7, 2}, {7}, {{}, {0, 1}, {1, 0}}},
  };
  for (const Case &c : cases) {
    std::vector<double> xv = iota_values(num_elements(c.xs), 0.5);
    std::vector<double> uv = iota_values(num_elements(c.us), 3.0);
    std::vector<int64_t> iv(static_cast<size_t>(num_elements(c.is)));
    for (size_t k = 0; k < iv.size(); ++k)
      iv[k] = static_cast<int64_t>((k * 5 + 1) % 7) - 1; // duplicates, negatives, past the end
    for (bool add : {false, true}) {
      Array x = make(xv, c.xs, float64), ind = indices_of(iv, c.is), u = make(uv, c.us, float64);
      Array y = add ? lax::scatter_add(x, ind, u, c.s) : lax::scatter(x, ind, u, c.s);
      expect_array(y, naive_scatter(xv, c.xs, iv, c.is, uv, c.us, c.s, add), c.xs, float64);
    }
  }
}

TEST(PrimScatter, EdgeShapesAndLargeWindow) {
  // No updates: the operand comes back unchanged.
  Array x = make({1, 2, 3}, float32);
  expect_array(lax::scatter(x, indices_of({}, {0, 1}), make({}, {0}, float32), {{}, {0}, {0}}),
               {1, 2, 3}, {3}, float32);
  // Zero-size operand.
  expect_array(lax::scatter_add(make({}, {0, 2}, float32), indices_of({0}, {1, 1}),
                                make({}, {1, 0, 2}, float32), {{1, 2}, {}, {0}}),
               {}, {0, 2}, float32);
  // Rank-0 operand, empty index vector: the update replaces the whole value.
  expect_array(
      lax::scatter(make({4}, {}, int32), indices_of({}, {0}), make({9}, {}, int32), {{}, {}, {}}),
      {9}, {}, int32);
  // One window big enough for the parallel path, added twice.
  const int64_t n = 1 << 17;
  Array big = make(std::vector<double>(n, 1.0), {n}, float32);
  Array ind = indices_of({0, 0}, {2, 1});
  Array u = make(iota_values(2 * n), {2, n}, float32);
  std::vector<float> v = lax::scatter_add(big, ind, u, {{1}, {}, {0}}).to_vector<float>();
  bool ok = true;
  for (int64_t i = 0; i < n; ++i)
    ok &= v[i] == static_cast<float>(1 + i + (n + i));
  EXPECT_TRUE(ok);
}

TEST(PrimScatter, Errors) {
  Array x = make({0, 0, 0, 0, 0, 0}, {3, 2}, float32);
  Array rows = indices_of({0, 1}, {2, 1});
  Array u = make({1, 2, 3, 4}, {2, 2}, float32);
  auto s = [&](const Array &ind, const Array &upd, SDims d) {
    return lax::scatter(x, ind, upd, d);
  };
  expect_error([&] { s(rows, make({1, 2, 3, 4}, {2, 2}, float64), {{1}, {0}, {0}}); },
               {"[scatter]", "operand and updates dtypes differ", "updates f64[2,2]"});
  expect_error([&] { s(make({0, 1}, {2, 1}, float32), u, {{1}, {0}, {0}}); },
               {"[scatter]", "indices must have an integer dtype"});
  expect_error([&] { s(Array(int32_t{0}), u, {{1}, {0}, {0}}); }, {"[scatter]", "rank >= 1"});
  expect_error([&] { s(rows, u, {{1}, {0}, {0, 1}}); },
               {"[scatter]", "scatter_dims_to_operand_dims [0,1]", "one entry per"});
  expect_error([&] { s(indices_of({0}, {1}), u, {{1, 0}, {}, {0}}); },
               {"[scatter]", "update_window_dims [1,0] must be sorted"});
  expect_error([&] { s(rows, u, {{1}, {3}, {0}}); },
               {"[scatter]", "inserted_window_dims [3]", "out of range [0, 2)"});
  expect_error([&] { s(rows, u, {{1}, {0}, {5}}); },
               {"[scatter]", "scatter_dims_to_operand_dims [5]", "out of range"});
  expect_error([&] { s(rows, u, {{1}, {}, {0}}); },
               {"[scatter]", "must together cover the operand's 2 dimensions"});
  expect_error([&] { s(rows, make({1, 2}, {2, 1}, float32), {{}, {0, 1}, {0}}); },
               {"[scatter]", "updates must have rank 1"});
  expect_error([&] { s(rows, make({1, 2, 3, 4, 5, 6}, {3, 2}, float32), {{1}, {0}, {0}}); },
               {"[scatter]", "updates dimension 0 (size 3) must match indices dimension 0",
                "indices i32[2,1], updates f32[3,2]"});
  expect_error([&] { s(rows, make(iota_values(6), {2, 3}, float32), {{1}, {0}, {0}}); },
               {"[scatter]", "update window dimension 1 (size 3) exceeds operand dimension 1"});
  expect_error(
      [&] {
        lax::scatter_add(make({1, 0}, bool_), indices_of({0}, {1, 1}), make({1}, bool_),
                         {{}, {0}, {0}});
      },
      {"[scatter_add]", "numeric operand", "operand bool[2]"});
  expect_error(
      [&] { lax::scatter_add(x, rows, make({1, 2}, {2, 1, 1}, float32), {{1}, {0}, {0}}); },
      {"[scatter_add]", "updates must have rank 2"});
}
