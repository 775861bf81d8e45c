// Shape primitives: values against hand-derived results and naive index loops, every dtype
// moved bit-exactly, rank-0 and zero-size shapes, and each validation rule's error.
#include <cstring>
#include <functional>
#include <optional>

#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

STRATA_TESTS_PRIMITIVES("iota", "broadcast_in_dim", "reshape", "transpose", "rev", "slice",
                        "dynamic_slice", "dynamic_update_slice", "pad", "concatenate");

namespace {

// A sample of `dtype` with varied values (fractional for floats, so f16/bf16 rounding shows).
Array sample(const Shape &shape, DType dtype, int seed = 0) {
  std::vector<double> v(static_cast<size_t>(num_elements(shape)));
  for (size_t k = 0; k < v.size(); ++k) {
    int64_t h = (static_cast<int64_t>(k) * 37 + seed * 11 + 5) % 101;
    v[k] = dtype == bool_ ? static_cast<double>(h % 2) : static_cast<double>(h) + 0.3 * (k % 3);
  }
  return make(v, shape, dtype);
}

std::vector<uint8_t> bytes(const Array &a) {
  std::vector<uint8_t> b(static_cast<size_t>(a.nbytes()));
  a.copy_to(b.data());
  return b;
}

// The naive oracle: out[idx] must be src[src_index(idx)] bit for bit, or `fill` where
// src_index gives nullopt.
void expect_moved(const Array &out, const Shape &shape, const Array &src,
                  const std::function<std::optional<Idx>(const Idx &)> &src_index,
                  const Array *fill = nullptr) {
  ASSERT_EQ(out.dtype(), src.dtype());
  ASSERT_EQ(out.shape(), shape) << out.type_str();
  size_t sz = itemsize(src.dtype());
  std::vector<uint8_t> o = bytes(out), s = bytes(src), f = fill ? bytes(*fill) : o;
  int failures = 0;
  for_each_index(shape, [&](const Idx &idx) {
    std::optional<Idx> si = src_index(idx);
    const uint8_t *want = si ? &s[ravel(*si, src.shape()) * sz] : f.data();
    const uint8_t *got = &o[ravel(idx, shape) * sz];
    if (std::memcmp(want, got, sz) != 0 && failures++ < 5)
      ADD_FAILURE() << "mismatch at flat index " << ravel(idx, shape) << " of " << out.type_str();
  });
}

} // namespace

// ---- Traits -----------------------------------------------------------------------------------
TEST(PrimShape, Traits) {
  EXPECT_EQ(find_primitive("iota")->traits, kNone);
  for (const char *n : {"broadcast_in_dim", "reshape", "transpose", "rev", "slice", "dynamic_slice",
                        "dynamic_update_slice", "pad", "concatenate"}) {
    const Primitive *p = find_primitive(n);
    ASSERT_NE(p, nullptr) << n;
    EXPECT_TRUE(p->has(kShapeOp)) << n;
    EXPECT_FALSE(p->has(kElementwise)) << n;
  }
}

// ---- iota -------------------------------------------------------------------------------------
TEST(PrimShape, IotaValues) {
  expect_array(lax::iota(int32, {2, 3}, 1), {0, 1, 2, 0, 1, 2}, {2, 3}, int32);
  expect_array(lax::iota(int32, {2, 3}, 0), {0, 0, 0, 1, 1, 1}, {2, 3}, int32);
  expect_array(lax::iota(float32, {2, 2, 2}, 1), {0, 0, 1, 1, 0, 0, 1, 1}, {2, 2, 2}, float32);
  for (DType dt : all_dtypes()) {
    if (dt == bool_)
      continue;
    expect_array(lax::iota(dt, {5}), {0, 1, 2, 3, 4}, {5}, dt);
  }
  std::vector<double> mid;
  for_each_index({3, 4, 5}, [&](const Idx &i) { mid.push_back(static_cast<double>(i[1])); });
  expect_array(lax::iota(uint8, {3, 4, 5}, 1), mid, {3, 4, 5}, uint8);
  expect_array(lax::iota(float16, {0, 3}, 1), {}, {0, 3}, float16);
  expect_array(lax::iota(int64, {3, 0}, 0), {}, {3, 0}, int64);
}

TEST(PrimShape, IotaLarge) {
  Array a = lax::iota(int64, {300, 400}, 1);
  std::vector<int64_t> v = a.to_vector<int64_t>();
  for (size_t k = 0; k < v.size(); ++k)
    ASSERT_EQ(v[k], static_cast<int64_t>(k % 400)) << k;
  Array b = lax::iota(float32, {1000, 70}, 0);
  std::vector<float> w = b.to_vector<float>();
  for (size_t k = 0; k < w.size(); ++k)
    ASSERT_EQ(w[k], static_cast<float>(k / 70)) << k;
}

TEST(PrimShape, IotaErrors) {
  expect_error([] { lax::iota(bool_, {3}); }, {"[iota]", "numeric", "bool"});
  expect_error([] { lax::iota(int32, {2, 3}, 2); }, {"[iota]", "dimension 2", "[2,3]"});
  expect_error([] { lax::iota(int32, {2, 3}, -1); }, {"[iota]", "dimension -1"});
  expect_error([] { lax::iota(int32, {}, 0); }, {"[iota]", "out of range", "[]"});
  expect_error([] { lax::iota(int32, {2, -1}); }, {"[iota]", "negative dimension", "[2,-1]"});
  expect_error(
      [] {
        bind1(*find_primitive("iota"), {Array(1.0f)},
              {{"dtype", int32}, {"shape", Shape{2}}, {"dimension", int64_t{0}}});
      },
      {"[iota]", "expects 0 operands"});
}

// ---- broadcast_in_dim -------------------------------------------------------------------------
TEST(PrimShape, BroadcastInDimValues) {
  Array row = make({1, 2, 3}, float32);
  expect_array(lax::broadcast_in_dim(row, {2, 3}, {1}), {1, 2, 3, 1, 2, 3}, {2, 3}, float32);
  Array col = make({1, 2}, {2, 1}, int32);
  expect_array(lax::broadcast_in_dim(col, {2, 3}, {0, 1}), {1, 1, 1, 2, 2, 2}, {2, 3}, int32);
  expect_array(lax::broadcast_in_dim(make({1, 2}, int8), {2, 3}, {0}), {1, 1, 1, 2, 2, 2}, {2, 3},
               int8);
  expect_array(lax::broadcast_in_dim(Array(7.5), {2, 2}, {}), {7.5, 7.5, 7.5, 7.5}, {2, 2},
               float64);
  expect_array(lax::broadcast_in_dim(Array(7.5), {}, {}), {7.5}, {}, float64);
}

TEST(PrimShape, BroadcastInDimAllDtypesNaive) {
  for (DType dt : all_dtypes()) {
    Array x = sample({3, 1, 4}, dt);
    Shape out = {2, 3, 5, 4};
    Array y = lax::broadcast_in_dim(x, out, {1, 2, 3});
    expect_moved(y, out, x, [](const Idx &i) { return Idx{i[1], 0, i[3]}; });
  }
  // Large enough for the parallel path and for a non-trailing broadcast dim.
  Array x = sample({50, 1, 300}, float32);
  Array y = lax::broadcast_in_dim(x, {50, 40, 300}, {0, 1, 2});
  expect_moved(y, {50, 40, 300}, x, [](const Idx &i) { return Idx{i[0], 0, i[2]}; });
  Array z = lax::broadcast_in_dim(make({1, 2, 3}, {3}, uint8), {300, 3, 200}, {1});
  expect_moved(z, {300, 3, 200}, make({1, 2, 3}, {3}, uint8),
               [](const Idx &i) { return Idx{i[1]}; });
}

TEST(PrimShape, BroadcastInDimEdgeShapes) {
  expect_array(lax::broadcast_in_dim(make({}, {0}, float32), {2, 0}, {1}), {}, {2, 0}, float32);
  expect_array(lax::broadcast_in_dim(Array(1), {0, 3}, {}), {}, {0, 3}, int32);
  // Adding size-1 dims only shares the buffer.
  Array x = sample({2, 3}, bfloat16);
  Array y = lax::broadcast_in_dim(x, {1, 2, 1, 3}, {1, 3});
  EXPECT_EQ(y.data(), x.data());
  EXPECT_EQ(y.shape(), (Shape{1, 2, 1, 3}));
  // Weak types survive.
  EXPECT_TRUE(lax::broadcast_in_dim(Array::weak_scalar(2.0), {3}, {}).weak_type());
}

TEST(PrimShape, BroadcastInDimErrors) {
  Array x = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32);
  expect_error([&] { lax::broadcast_in_dim(x, {2, 3}, {0}); },
               {"[broadcast_in_dim]", "one entry per operand dimension", "f32[2,3]"});
  expect_error([&] { lax::broadcast_in_dim(x, {2, 3}, {0, 2}); },
               {"[broadcast_in_dim]", "out of range", "[2,3]"});
  expect_error([&] { lax::broadcast_in_dim(x, {2, 3}, {0, -1}); },
               {"[broadcast_in_dim]", "out of range"});
  expect_error([&] { lax::broadcast_in_dim(x, {3, 2, 3}, {2, 1}); },
               {"[broadcast_in_dim]", "strictly increasing", "[2,1]"});
  expect_error([&] { lax::broadcast_in_dim(x, {2, 2, 3}, {1, 1}); },
               {"[broadcast_in_dim]", "strictly increasing"});
  expect_error([&] { lax::broadcast_in_dim(x, {2, 4}, {0, 1}); },
               {"[broadcast_in_dim]", "f32[2,3]", "[2,4]", "dimension 1 has size 3"});
  expect_error([&] { lax::broadcast_in_dim(x, {2, -3}, {0, 1}); },
               {"[broadcast_in_dim]", "negative dimension"});
}

// ---- reshape ----------------------------------------------------------------------------------
TEST(PrimShape, ReshapeAllDtypes) {
  for (DType dt : all_dtypes()) {
    Array x = sample({2, 3, 4}, dt);
    Array y = lax::reshape(x, {4, 6});
    EXPECT_EQ(y.shape(), (Shape{4, 6}));
    EXPECT_EQ(y.dtype(), dt);
    EXPECT_EQ(bytes(y), bytes(x)) << short_name(dt);
    EXPECT_EQ(y.data(), x.data()) << "reshape should share the buffer";
  }
  expect_array(lax::reshape(make({1, 2, 3, 4, 5, 6}, {2, 3}, int32), {3, 2}), {1, 2, 3, 4, 5, 6},
               {3, 2}, int32);
}

TEST(PrimShape, ReshapeEdgeShapes) {
  Array s = Array(3.5f);
  expect_array(lax::reshape(s, {1, 1}), {3.5}, {1, 1}, float32);
  expect_array(lax::reshape(lax::reshape(s, {1}), {}), {3.5}, {}, float32);
  expect_array(lax::reshape(make({}, {0, 3}, float32), {3, 0, 5}), {}, {3, 0, 5}, float32);
  EXPECT_TRUE(lax::reshape(Array::weak_scalar(1.0), {1}).weak_type());
}

TEST(PrimShape, ReshapeErrors) {
  Array x = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32);
  expect_error([&] { lax::reshape(x, {4}); },
               {"[reshape] cannot reshape f32[2,3] (6 elements) to [4]"});
  expect_error([&] { lax::reshape(x, {-2, -3}); }, {"[reshape]", "negative dimension", "[-2,-3]"});
}

// ---- transpose --------------------------------------------------------------------------------
TEST(PrimShape, TransposeValues) {
  Array x = make({1, 2, 3, 4, 5, 6}, {2, 3}, int32);
  expect_array(lax::transpose(x, {1, 0}), {1, 4, 2, 5, 3, 6}, {3, 2}, int32);
  expect_array(lax::transpose(x, {0, 1}), {1, 2, 3, 4, 5, 6}, {2, 3}, int32);
  expect_array(lax::transpose(Array(2.0f), {}), {2}, {}, float32);
  expect_array(lax::transpose(make({}, {0, 3}, float32), {1, 0}), {}, {3, 0}, float32);
}

TEST(PrimShape, TransposeAllDtypesNaive) {
  for (DType dt : all_dtypes()) {
    Array x = sample({2, 3, 4}, dt);
    Array y = lax::transpose(x, {2, 0, 1});
    expect_moved(y, {4, 2, 3}, x, [](const Idx &i) { return Idx{i[1], i[2], i[0]}; });
    Array z = lax::transpose(x, {1, 0, 2});
    expect_moved(z, {3, 2, 4}, x, [](const Idx &i) { return Idx{i[1], i[0], i[2]}; });
  }
}

TEST(PrimShape, TransposeLarge) {
  // Large and odd-sized: exercises the tiled path, partial tiles and the thread pool.
  for (DType dt : {float32, float16, int8, float64}) {
    Array x = sample({301, 517}, dt);
    expect_moved(lax::transpose(x, {1, 0}), {517, 301}, x,
                 [](const Idx &i) { return Idx{i[1], i[0]}; });
  }
  Array x = sample({37, 20, 65}, float32, 3);
  expect_moved(lax::transpose(x, {2, 1, 0}), {65, 20, 37}, x,
               [](const Idx &i) { return Idx{i[2], i[1], i[0]}; });
  expect_moved(lax::transpose(x, {0, 2, 1}), {37, 65, 20}, x,
               [](const Idx &i) { return Idx{i[0], i[2], i[1]}; });
  Array w = sample({8, 33, 2, 40}, int32, 1);
  expect_moved(lax::transpose(w, {3, 0, 2, 1}), {40, 8, 2, 33}, w,
               [](const Idx &i) { return Idx{i[1], i[3], i[2], i[0]}; });
}

TEST(PrimShape, TransposeErrors) {
  Array x = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32);
  for (const std::vector<int64_t> &perm :
       std::vector<std::vector<int64_t>>{{0, 0}, {0}, {0, 1, 2}, {0, 2}, {-1, 0}})
    expect_error([&] { lax::transpose(x, perm); },
                 {"[transpose]", "not a permutation", "f32[2,3]"});
}

// ---- rev --------------------------------------------------------------------------------------
TEST(PrimShape, RevValues) {
  Array x = make({1, 2, 3, 4, 5, 6}, {2, 3}, int32);
  expect_array(lax::rev(x, {0}), {4, 5, 6, 1, 2, 3}, {2, 3}, int32);
  expect_array(lax::rev(x, {1}), {3, 2, 1, 6, 5, 4}, {2, 3}, int32);
  expect_array(lax::rev(x, {1, 0}), {6, 5, 4, 3, 2, 1}, {2, 3}, int32);
  expect_array(lax::rev(x, {}), {1, 2, 3, 4, 5, 6}, {2, 3}, int32);
  expect_array(lax::rev(Array(1.5), {}), {1.5}, {}, float64);
  expect_array(lax::rev(make({}, {2, 0}, float32), {0, 1}), {}, {2, 0}, float32);
}

TEST(PrimShape, RevAllDtypesNaive) {
  for (DType dt : all_dtypes()) {
    Array x = sample({3, 4, 5}, dt);
    expect_moved(lax::rev(x, {0, 2}), {3, 4, 5}, x,
                 [](const Idx &i) { return Idx{2 - i[0], i[1], 4 - i[2]}; });
  }
  Array big = sample({200, 300}, float32);
  expect_moved(lax::rev(big, {1}), {200, 300}, big,
               [](const Idx &i) { return Idx{i[0], 299 - i[1]}; });
}

TEST(PrimShape, RevErrors) {
  Array x = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32);
  expect_error([&] { lax::rev(x, {2}); }, {"[rev]", "dimension 2", "out of range", "f32[2,3]"});
  expect_error([&] { lax::rev(x, {-1}); }, {"[rev]", "dimension -1", "out of range"});
  expect_error([&] { lax::rev(x, {1, 1}); }, {"[rev]", "[1,1]", "repeat"});
}

// ---- slice ------------------------------------------------------------------------------------
TEST(PrimShape, SliceValues) {
  Array x = make({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4}, int32);
  expect_array(lax::slice(x, {1, 1}, {3, 3}), {5, 6, 9, 10}, {2, 2}, int32);
  expect_array(lax::slice(x, {0, 0}, {3, 4}, {2, 3}), {0, 3, 8, 11}, {2, 2}, int32);
  expect_array(lax::slice(x, {0, 1}, {3, 4}, {1, 2}), {1, 3, 5, 7, 9, 11}, {3, 2}, int32);
  expect_array(lax::slice(x, {0, 0}, {3, 4}), values(x), {3, 4}, int32);
  expect_array(lax::slice(x, {1, 2}, {1, 4}), {}, {0, 2}, int32);
  expect_array(lax::slice(Array(4.0f), {}, {}), {4}, {}, float32);
}

TEST(PrimShape, SliceAllDtypesNaive) {
  for (DType dt : all_dtypes()) {
    Array x = sample({5, 6, 7}, dt);
    Idx start = {1, 0, 2}, stride = {2, 1, 3};
    Array y = lax::slice(x, start, {5, 4, 7}, stride);
    expect_moved(y, {2, 4, 2}, x, [&](const Idx &i) {
      return Idx{start[0] + i[0] * stride[0], start[1] + i[1] * stride[1],
                 start[2] + i[2] * stride[2]};
    });
  }
}

TEST(PrimShape, SliceErrors) {
  Array x = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32);
  expect_error([&] { lax::slice(x, {0}, {2, 3}); },
               {"[slice]", "start [0]", "one entry per dimension", "f32[2,3]"});
  expect_error([&] { lax::slice(x, {0, 0}, {2}); }, {"[slice]", "limit [2]"});
  expect_error([&] { lax::slice(x, {0, 0}, {2, 3}, {1}); }, {"[slice]", "strides [1]"});
  expect_error([&] { lax::slice(x, {0, 2}, {2, 1}); },
               {"[slice]", "start 2 and limit 1", "dimension 1", "f32[2,3]"});
  expect_error([&] { lax::slice(x, {0, 0}, {2, 4}); }, {"[slice]", "limit 4", "<= 3"});
  expect_error([&] { lax::slice(x, {-1, 0}, {2, 3}); }, {"[slice]", "start -1"});
  expect_error([&] { lax::slice(x, {0, 0}, {2, 3}, {1, 0}); },
               {"[slice]", "strides [1,0]", ">= 1"});
}

// ---- dynamic_slice ----------------------------------------------------------------------------
TEST(PrimShape, DynamicSliceValues) {
  Array x = make({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4}, float32);
  expect_array(lax::dynamic_slice(x, {Array(1), Array(2)}, {2, 2}), {6, 7, 10, 11}, {2, 2},
               float32);
  // Starts clamp so the window stays inside: (5, -3) -> (1, 0).
  expect_array(lax::dynamic_slice(x, {Array(5), Array(-3)}, {2, 3}), {4, 5, 6, 8, 9, 10}, {2, 3},
               float32);
  // Every integer index dtype, mixed.
  expect_array(lax::dynamic_slice(x, {Array(int8_t{2}), Array(uint32_t{1})}, {1, 2}), {9, 10},
               {1, 2}, float32);
  expect_array(lax::dynamic_slice(x, {Array(uint8_t{200}), Array(int64_t{-9000000000})}, {1, 1}),
               {8}, {1, 1}, float32);
  expect_array(lax::dynamic_slice(x, {Array(0), Array(0)}, {3, 4}), values(x), {3, 4}, float32);
  expect_array(lax::dynamic_slice(x, {Array(2), Array(1)}, {0, 2}), {}, {0, 2}, float32);
  expect_array(lax::dynamic_slice(Array(3.0), {}, {}), {3}, {}, float64);
}

TEST(PrimShape, DynamicSliceAllDtypesNaive) {
  for (DType dt : all_dtypes()) {
    Array x = sample({4, 5, 6}, dt);
    Array y = lax::dynamic_slice(x, {Array(1), Array(7), Array(2)}, {2, 3, 4});
    expect_moved(y, {2, 3, 4}, x, [](const Idx &i) { return Idx{1 + i[0], 2 + i[1], 2 + i[2]}; });
  }
}

TEST(PrimShape, DynamicSliceErrors) {
  Array x = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32);
  expect_error([&] { lax::dynamic_slice(x, {Array(0)}, {1, 1}); },
               {"[dynamic_slice]", "expects 2 start indices", "f32[2,3]", "got 1"});
  expect_error([&] { lax::dynamic_slice(x, {Array(0), Array(1.0f)}, {1, 1}); },
               {"[dynamic_slice]", "start index 1", "integer scalar", "f32[]"});
  expect_error([&] { lax::dynamic_slice(x, {Array(0), Array(true)}, {1, 1}); },
               {"[dynamic_slice]", "integer scalar", "bool[]"});
  expect_error([&] { lax::dynamic_slice(x, {make({0}, int32), Array(0)}, {1, 1}); },
               {"[dynamic_slice]", "start index 0", "i32[1]"});
  expect_error([&] { lax::dynamic_slice(x, {Array(0), Array(0)}, {1}); },
               {"[dynamic_slice]", "slice_sizes [1]", "one entry per dimension"});
  expect_error([&] { lax::dynamic_slice(x, {Array(0), Array(0)}, {3, 1}); },
               {"[dynamic_slice]", "slice_sizes [3,1]", "f32[2,3]", "dimension 0"});
  expect_error([&] { lax::dynamic_slice(x, {Array(0), Array(0)}, {1, -1}); },
               {"[dynamic_slice]", "slice_sizes [1,-1]", "dimension 1"});
}

// ---- dynamic_update_slice ---------------------------------------------------------------------
TEST(PrimShape, DynamicUpdateSliceValues) {
  Array x = make({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4}, int32);
  Array u = make({-1, -2, -3, -4}, {2, 2}, int32);
  expect_array(lax::dynamic_update_slice(x, u, {Array(1), Array(1)}),
               {0, 1, 2, 3, 4, -1, -2, 7, 8, -3, -4, 11}, {3, 4}, int32);
  // Clamped: (9, -1) -> (1, 0).
  expect_array(lax::dynamic_update_slice(x, u, {Array(uint32_t{9}), Array(int8_t{-1})}),
               {0, 1, 2, 3, -1, -2, 6, 7, -3, -4, 10, 11}, {3, 4}, int32);
  // The input is untouched (arrays are immutable).
  expect_array(x, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4}, int32);
  expect_array(lax::dynamic_update_slice(x, make({}, {0, 2}, int32), {Array(1), Array(1)}),
               values(x), {3, 4}, int32);
  expect_array(lax::dynamic_update_slice(Array(1.0f), Array(2.0f), {}), {2}, {}, float32);
  expect_array(
      lax::dynamic_update_slice(make({}, {0}, float32), make({}, {0}, float32), {Array(0)}), {},
      {0}, float32);
}

TEST(PrimShape, DynamicUpdateSliceAllDtypesNaive) {
  for (DType dt : all_dtypes()) {
    Array x = sample({4, 5, 6}, dt);
    Array u = sample({2, 5, 3}, dt, 7);
    Array y = lax::dynamic_update_slice(x, u, {Array(1), Array(0), Array(int64_t{4})});
    Idx start = {1, 0, 3};
    std::vector<uint8_t> yb = bytes(y), xb = bytes(x), ub = bytes(u);
    size_t sz = itemsize(dt);
    for_each_index({4, 5, 6}, [&](const Idx &i) {
      bool in = true;
      Idx ui(3);
      for (int k = 0; k < 3; ++k) {
        ui[k] = i[k] - start[k];
        in = in && ui[k] >= 0 && ui[k] < u.shape()[k];
      }
      const uint8_t *want = in ? &ub[ravel(ui, u.shape()) * sz] : &xb[ravel(i, x.shape()) * sz];
      ASSERT_EQ(std::memcmp(want, &yb[ravel(i, y.shape()) * sz], sz), 0) << short_name(dt);
    });
  }
}

TEST(PrimShape, DynamicUpdateSliceErrors) {
  Array x = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32);
  std::vector<Array> at0 = {Array(0), Array(0)};
  expect_error([&] { lax::dynamic_update_slice(x, make({1}, {1, 1}, int32), at0); },
               {"[dynamic_update_slice]", "i32[1,1]", "f32[2,3]", "dtypes differ"});
  expect_error([&] { lax::dynamic_update_slice(x, make({1}, {1}, float32), at0); },
               {"[dynamic_update_slice]", "f32[1]", "rank"});
  expect_error([&] { lax::dynamic_update_slice(x, make({1, 2, 3, 4}, {1, 4}, float32), at0); },
               {"[dynamic_update_slice]", "f32[1,4]", "does not fit", "dimension 1"});
  expect_error([&] { lax::dynamic_update_slice(x, make({1}, {1, 1}, float32), {Array(0)}); },
               {"[dynamic_update_slice]", "expects 2 start indices"});
  expect_error(
      [&] { lax::dynamic_update_slice(x, make({1}, {1, 1}, float32), {Array(0), Array(0.5)}); },
      {"[dynamic_update_slice]", "start index 1", "integer scalar", "f64[]"});
}

// ---- pad --------------------------------------------------------------------------------------
namespace {
// Naive pad oracle: the operand index that output `i` comes from, if any.
std::function<std::optional<Idx>(const Idx &)> pad_source(const Shape &x, const Idx &low,
                                                          const Idx &interior) {
  return [=](const Idx &i) -> std::optional<Idx> {
    Idx s(x.size());
    for (size_t k = 0; k < x.size(); ++k) {
      int64_t q = i[k] - low[k], step = interior[k] + 1;
      if (q < 0 || q % step != 0 || q / step >= x[k])
        return std::nullopt;
      s[k] = q / step;
    }
    return s;
  };
}
} // namespace

TEST(PrimShape, PadValues) {
  Array x = make({1, 2, 3}, float32);
  Array z = Array(0.0f);
  expect_array(lax::pad(x, z, {1}, {2}, {1}), {0, 1, 0, 2, 0, 3, 0, 0}, {8}, float32);
  expect_array(lax::pad(x, z, {-1}, {-1}, {1}), {0, 2, 0}, {3}, float32);
  expect_array(lax::pad(x, Array(9.0f), {-2}, {1}, {0}), {3, 9}, {2}, float32);
  expect_array(lax::pad(x, z, {-3}, {0}, {0}), {}, {0}, float32);
  expect_array(lax::pad(x, z, {0}, {0}, {0}), {1, 2, 3}, {3}, float32);
  expect_array(lax::pad(make({}, {0}, float32), Array(5.0f), {2}, {1}, {3}), {5, 5, 5}, {3},
               float32);
  expect_array(lax::pad(Array(int8_t{4}), Array(int8_t{0}), {}, {}, {}), {4}, {}, int8);
  Array m = make({1, 2, 3, 4}, {2, 2}, int32);
  expect_array(lax::pad(m, Array(0), {1, 0}, {0, 1}, {0, 1}), {0, 0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0},
               {3, 4}, int32);
}

TEST(PrimShape, PadAllDtypesNaive) {
  Shape xs = {4, 5, 3};
  Idx low = {2, -3, 0}, high = {-1, 1, 2}, interior = {1, 2, 0};
  Shape out = {2 - 1 + 4 + 3 * 1, -3 + 1 + 5 + 4 * 2, 0 + 2 + 3};
  for (DType dt : all_dtypes()) {
    Array x = sample(xs, dt);
    Array pv = lax::reshape(sample({1}, dt, 5), {});
    expect_moved(lax::pad(x, pv, low, high, interior), out, x, pad_source(xs, low, interior), &pv);
  }
  Array big = sample({100, 400}, float32);
  Array pv = Array(-1.0f);
  expect_moved(lax::pad(big, pv, {3, -5}, {-2, 7}, {0, 1}), {101, 2 + 400 + 399}, big,
               pad_source({100, 400}, {3, -5}, {0, 1}), &pv);
}

TEST(PrimShape, PadErrors) {
  Array x = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32);
  Array z = Array(0.0f);
  expect_error([&] { lax::pad(x, make({0}, float32), {0, 0}, {0, 0}, {0, 0}); },
               {"[pad]", "padding_value must be a scalar", "f32[1]"});
  expect_error([&] { lax::pad(x, Array(0.0), {0, 0}, {0, 0}, {0, 0}); },
               {"[pad]", "f64[]", "f32[2,3]", "dtypes differ"});
  expect_error([&] { lax::pad(x, z, {0}, {0, 0}, {0, 0}); },
               {"[pad]", "low [0]", "one entry per dimension"});
  expect_error([&] { lax::pad(x, z, {0, 0}, {0, 0, 0}, {0, 0}); }, {"[pad]", "high [0,0,0]"});
  expect_error([&] { lax::pad(x, z, {0, 0}, {0, 0}, {}); }, {"[pad]", "interior []"});
  expect_error([&] { lax::pad(x, z, {0, 0}, {0, 0}, {0, -1}); },
               {"[pad]", "interior [0,-1]", "non-negative"});
  expect_error([&] { lax::pad(x, z, {-2, 0}, {-1, 0}, {0, 0}); },
               {"[pad]", "negative size -1", "dimension 0", "f32[2,3]"});
}

// ---- concatenate ------------------------------------------------------------------------------
TEST(PrimShape, ConcatenateValues) {
  Array a = make({1, 2, 3, 4}, {2, 2}, int32), b = make({5, 6}, {1, 2}, int32);
  expect_array(lax::concatenate({a, b}, 0), {1, 2, 3, 4, 5, 6}, {3, 2}, int32);
  Array c = make({7, 8}, {2, 1}, int32);
  expect_array(lax::concatenate({a, c, a}, 1), {1, 2, 7, 1, 2, 3, 4, 8, 3, 4}, {2, 5}, int32);
  expect_array(lax::concatenate({a}, 1), {1, 2, 3, 4}, {2, 2}, int32);
  expect_array(lax::concatenate({a, make({}, {2, 0}, int32), c}, 1), {1, 2, 7, 3, 4, 8}, {2, 3},
               int32);
  expect_array(lax::concatenate({make({}, {0, 2}, int32), make({}, {0, 2}, int32)}, 0), {}, {0, 2},
               int32);
  expect_array(lax::concatenate({make({}, {0, 2}, int32), make({}, {0, 3}, int32)}, 1), {}, {0, 5},
               int32);
}

TEST(PrimShape, ConcatenateAllDtypesNaive) {
  for (DType dt : all_dtypes()) {
    Array a = sample({2, 3, 4}, dt, 1), b = sample({2, 1, 4}, dt, 2), c = sample({2, 2, 4}, dt, 3);
    Array y = lax::concatenate({a, b, c}, 1);
    ASSERT_EQ(y.shape(), (Shape{2, 6, 4}));
    std::vector<uint8_t> yb = bytes(y), ab = bytes(a), bb = bytes(b), cb = bytes(c);
    size_t sz = itemsize(dt);
    for_each_index({2, 6, 4}, [&](const Idx &i) {
      const Array *src = i[1] < 3 ? &a : (i[1] < 4 ? &b : &c);
      const std::vector<uint8_t> &sb = i[1] < 3 ? ab : (i[1] < 4 ? bb : cb);
      int64_t j = i[1] < 3 ? i[1] : (i[1] < 4 ? i[1] - 3 : i[1] - 4);
      const uint8_t *want = &sb[ravel({i[0], j, i[2]}, src->shape()) * sz];
      ASSERT_EQ(std::memcmp(want, &yb[ravel(i, y.shape()) * sz], sz), 0) << short_name(dt);
    });
  }
}

TEST(PrimShape, ConcatenateErrors) {
  Array a = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32);
  expect_error([] { lax::concatenate({}, 0); }, {"[concatenate]", "at least one operand"});
  expect_error([&] { lax::concatenate({a, lax::convert_element_type(a, int32)}, 0); },
               {"[concatenate]", "dtypes differ", "f32[2,3]", "i32[2,3]"});
  expect_error([&] { lax::concatenate({a, make({1, 2, 3}, float32)}, 0); },
               {"[concatenate]", "ranks differ", "f32[3]"});
  expect_error([&] { lax::concatenate({Array(1.0f), Array(2.0f)}, 0); },
               {"[concatenate]", "scalars", "f32[]"});
  expect_error([&] { lax::concatenate({a, a}, 2); },
               {"[concatenate]", "dimension 2", "out of range"});
  expect_error([&] { lax::concatenate({a, a}, -1); }, {"[concatenate]", "dimension -1"});
  expect_error([&] { lax::concatenate({a, make({1, 2, 3}, {3, 1}, float32)}, 1); },
               {"[concatenate]", "f32[2,3]", "f32[3,1]", "differ outside dimension 1"});
}
