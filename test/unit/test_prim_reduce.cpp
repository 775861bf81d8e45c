// Reductions, argmax/argmin and cumulative scans against naive loops written here.
#include <algorithm>
#include <cmath>
#include <limits>

#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

STRATA_TESTS_PRIMITIVES("reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "argmax", "argmin",
                        "cumsum", "cumprod", "cummax", "cummin");

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

enum class Kind { Sum, Prod, Max, Min };

double combine(Kind k, double a, double b) {
  switch (k) {
  case Kind::Sum:
    return a + b;
  case Kind::Prod:
    return a * b;
  case Kind::Max:
    return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b);
  case Kind::Min:
    return std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b);
  }
  return 0;
}

double identity(Kind k, DType t) {
  switch (k) {
  case Kind::Sum:
    return 0;
  case Kind::Prod:
    return 1;
  case Kind::Max:
    switch (t) {
    case DType::Bool:
      return 0;
    case DType::Int8:
      return -128;
    case DType::Int16:
      return std::numeric_limits<int16_t>::min();
    case DType::UInt8:
    case DType::UInt16:
    case DType::UInt32:
    case DType::UInt64:
      return 0;
    case DType::Int32:
      return std::numeric_limits<int32_t>::min();
    case DType::Int64:
      return static_cast<double>(std::numeric_limits<int64_t>::min());
    default:
      return -kInf;
    }
  case Kind::Min:
    switch (t) {
    case DType::Bool:
      return 1;
    case DType::Int8:
      return 127;
    case DType::UInt8:
      return 255;
    case DType::Int16:
      return std::numeric_limits<int16_t>::max();
    case DType::UInt16:
      return std::numeric_limits<uint16_t>::max();
    case DType::UInt64:
      return static_cast<double>(std::numeric_limits<uint64_t>::max());
    case DType::Int32:
      return std::numeric_limits<int32_t>::max();
    case DType::UInt32:
      return std::numeric_limits<uint32_t>::max();
    case DType::Int64:
      return static_cast<double>(std::numeric_limits<int64_t>::max());
    default:
      return kInf;
    }
  }
  return 0;
}

/// Naive reduction in double: visits every input element and folds it into its output slot.
std::vector<double> naive_reduce(Kind k, DType t, const std::vector<double> &x, const Shape &shape,
                                 std::vector<int64_t> axes, Shape &out_shape) {
  int64_t rank = static_cast<int64_t>(shape.size());
  for (auto &a : axes)
    if (a < 0)
      a += rank;
  std::vector<bool> red(shape.size(), false);
  for (int64_t a : axes)
    red[a] = true;
  out_shape.clear();
  for (int64_t i = 0; i < rank; ++i)
    if (!red[i])
      out_shape.push_back(shape[i]);
  std::vector<double> out(static_cast<size_t>(num_elements(out_shape)), identity(k, t));
  std::vector<int64_t> idx(shape.size(), 0);
  for (size_t flat = 0; flat < x.size(); ++flat) {
    int64_t o = 0;
    for (int64_t i = 0; i < rank; ++i)
      if (!red[i])
        o = o * shape[i] + idx[i];
    out[o] = combine(k, out[o], x[flat]);
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++idx[i] < shape[i])
        break;
      idx[i] = 0;
    }
  }
  if (is_integer(t))
    for (double &v : out)
      v = wrap_to(t, v);
  return out;
}

/// Deterministic small test values that every dtype represents exactly.
std::vector<double> small_values(int64_t n, DType t, int mod = 5) {
  std::vector<double> v(static_cast<size_t>(n));
  uint32_t s = 12345;
  for (auto &e : v) {
    s = s * 1664525u + 1013904223u;
    int r = static_cast<int>((s >> 16) % mod);
    if (t == DType::Bool)
      e = r % 2;
    else if (is_unsigned_integer(t))
      e = r;
    else
      e = r - mod / 2;
  }
  return v;
}

std::vector<double> random_doubles(int64_t n, uint32_t seed) {
  std::vector<double> v(static_cast<size_t>(n));
  for (auto &e : v) {
    seed = seed * 1664525u + 1013904223u;
    e = static_cast<double>(seed >> 8) / static_cast<double>(1u << 24) - 0.25;
  }
  return v;
}

Array reduce(Kind k, const Array &x, const std::vector<int64_t> &axes) {
  switch (k) {
  case Kind::Sum:
    return lax::reduce_sum(x, axes);
  case Kind::Prod:
    return lax::reduce_prod(x, axes);
  case Kind::Max:
    return lax::reduce_max(x, axes);
  case Kind::Min:
    return lax::reduce_min(x, axes);
  }
  return {};
}

void check_reduce(Kind k, DType t, const Shape &shape, const std::vector<int64_t> &axes,
                  const std::vector<double> &x, double tol) {
  SCOPED_TRACE(std::string(short_name(t)) + shape_str(shape) + " axes " + shape_str(axes));
  Shape out_shape;
  std::vector<double> want = naive_reduce(k, t, x, shape, axes, out_shape);
  expect_array(reduce(k, make(x, shape, t), axes), want, out_shape, t, tol);
}

const std::vector<std::vector<int64_t>> kAxesSets = {{},     {0},  {1},    {2},       {0, 2},
                                                     {2, 0}, {-1}, {1, 2}, {0, 1, 2}, {0, 1}};

} // namespace

// ---- reduce_* --------------------------------------------------------------------------------
TEST(PrimReduce, SumAllDtypesAndAxes) {
  Shape shape{2, 3, 4};
  for (DType t : all_dtypes()) {
    if (t == bool_)
      continue;
    std::vector<double> x = small_values(24, t);
    for (const auto &axes : kAxesSets)
      check_reduce(Kind::Sum, t, shape, axes, x, 0.0);
  }
}

TEST(PrimReduce, ProdAllDtypesAndAxes) {
  // Factors from {1, 2, -1} (3 instead of -1 when unsigned) keep every product exact in f16.
  Shape shape{2, 3, 2};
  for (DType t : all_dtypes()) {
    if (t == bool_)
      continue;
    std::vector<double> x = small_values(12, t, 4);
    for (auto &e : x)
      e = std::vector<double>{
          1, 2, 1,
          is_unsigned_integer(t) ? 3.0
                                 : -1.0}[static_cast<size_t>(e + (is_unsigned_integer(t) ? 0 : 2))];
    for (const auto &axes : kAxesSets)
      check_reduce(Kind::Prod, t, shape, axes, x, tol_for(t));
  }
}

TEST(PrimReduce, MaxMinAllDtypesAndAxes) {
  Shape shape{2, 3, 4};
  for (DType t : all_dtypes()) {
    std::vector<double> x = small_values(24, t, 7);
    for (const auto &axes : kAxesSets) {
      check_reduce(Kind::Max, t, shape, axes, x, 0.0);
      check_reduce(Kind::Min, t, shape, axes, x, 0.0);
    }
  }
}

TEST(PrimReduce, IntegerSumsAndProductsWrap) {
  expect_array(lax::reduce_sum(make({100, 100, 100}, int8), {0}), {44}, {}, int8);
  expect_array(lax::reduce_sum(make({200, 100}, uint8), {0}), {44}, {}, uint8);
  expect_array(lax::reduce_prod(make({65536, 65536, 3}, int32), {0}), {0}, {}, int32);
  expect_array(lax::reduce_prod(make({16, 16, 3}, uint8), {0}), {0}, {}, uint8);
  expect_array(lax::reduce_sum(make({4294967295.0, 2}, uint32), {0}), {1}, {}, uint32);
  expect_array(lax::reduce_sum(make({2147483647.0, 1}, int32), {0}), {-2147483648.0}, {}, int32);
}

TEST(PrimReduce, MaxMinPropagateNaN) {
  for (DType t : float_dtypes()) {
    Array x = make({1, kNaN, 3, 4, 5, -kInf}, {2, 3}, t);
    expect_array(lax::reduce_max(x, {1}), {kNaN, 5}, {2}, t);
    expect_array(lax::reduce_min(x, {1}), {kNaN, -kInf}, {2}, t);
    expect_array(lax::reduce_max(x, {0}), {4, kNaN, 3}, {3}, t);
    expect_array(lax::reduce_sum(x, {0}), {5, kNaN, -kInf}, {3}, t);
  }
}

TEST(PrimReduce, BoolMaxIsAnyMinIsAll) {
  Array x = make({0, 1, 0, 0, 1, 1}, {2, 3}, bool_);
  expect_array(lax::reduce_max(x, {1}), {1, 1}, {2}, bool_);
  expect_array(lax::reduce_min(x, {1}), {0, 0}, {2}, bool_);
  expect_array(lax::reduce_max(x, {0}), {0, 1, 1}, {3}, bool_);
  expect_array(lax::reduce_min(x, {0}), {0, 1, 0}, {3}, bool_);
}

TEST(PrimReduce, EmptyReductionsGiveTheIdentity) {
  for (DType t : all_dtypes()) {
    SCOPED_TRACE(short_name(t));
    Array x = make({}, {0, 3}, t);
    if (t != bool_) {
      expect_array(lax::reduce_sum(x, {0}), {0, 0, 0}, {3}, t);
      expect_array(lax::reduce_prod(x, {0}), {1, 1, 1}, {3}, t);
      expect_array(lax::reduce_sum(x, {1}), {}, {0}, t);
    }
    double lo = identity(Kind::Max, t), hi = identity(Kind::Min, t);
    expect_array(lax::reduce_max(x, {0}), {lo, lo, lo}, {3}, t);
    expect_array(lax::reduce_min(x, {0, 1}), {hi}, {}, t);
  }
  // Large integer identities are checked exactly (doubles cannot hold them).
  EXPECT_EQ(lax::reduce_max(make({}, {0}, int64), {0}).item<int64_t>(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(lax::reduce_min(make({}, {0}, int64), {0}).item<int64_t>(),
            std::numeric_limits<int64_t>::max());
}

TEST(PrimReduce, RankZeroAndSizeOneDims) {
  for (DType t : {int32, float32, float16}) {
    Array s = make({3}, {}, t);
    expect_array(lax::reduce_sum(s, {}), {3}, {}, t);
    expect_array(lax::reduce_max(s, {}), {3}, {}, t);
    Array x = make({1, 2, 3, 4, 5, 6}, {1, 2, 1, 3}, t);
    expect_array(lax::reduce_sum(x, {0, 2}), {1, 2, 3, 4, 5, 6}, {2, 3}, t);
    expect_array(lax::reduce_sum(x, {1, 2}), {5, 7, 9}, {1, 3}, t);
    expect_array(lax::reduce_prod(x, {0, 3}), {6, 120}, {2, 1}, t, tol_for(t));
  }
}

TEST(PrimReduce, KeepsWeakType) {
  Array w = Array::weak_scalar(2.5);
  Array r = lax::reduce_sum(w, {});
  EXPECT_TRUE(r.weak_type());
  EXPECT_EQ(r.item<double>(), 2.5);
  EXPECT_FALSE(lax::reduce_max(make({1, 2}, float32), {0}).weak_type());
}

TEST(PrimReduce, LargeFloatSumsAreAccurate) {
  // Each case reaches a different kernel path: full reduction split in blocks, few long rows,
  // many rows, column sums split over rows, and non-adjacent reduced axes.
  struct Case {
    Shape shape;
    std::vector<int64_t> axes;
  };
  std::vector<Case> cases = {{{(1 << 20) + 3}, {0}}, {{2, 300001}, {1}},   {{400, 1000}, {1}},
                             {{20000, 7}, {0}},      {{3, 30000, 5}, {1}}, {{64, 50, 64}, {0, 2}},
                             {{40, 3000}, {0}}};
  for (const auto &c : cases) {
    std::vector<double> x = random_doubles(num_elements(c.shape), 7);
    // The f32 inputs are the rounded doubles, so compare against the exact sum of those.
    std::vector<double> xr(x.size()), xabs(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      xr[i] = static_cast<float>(x[i]);
      xabs[i] = std::fabs(xr[i]);
    }
    Shape out_shape;
    std::vector<double> want = naive_reduce(Kind::Sum, float64, xr, c.shape, c.axes, out_shape);
    std::vector<double> mag = naive_reduce(Kind::Sum, float64, xabs, c.shape, c.axes, out_shape);
    SCOPED_TRACE(shape_str(c.shape));
    Array got = lax::reduce_sum(make(x, c.shape, float32), c.axes);
    ASSERT_EQ(got.shape(), out_shape);
    std::vector<double> v = values(got);
    for (size_t i = 0; i < v.size(); ++i) // a bound that sequential f32 accumulation exceeds
      EXPECT_NEAR(v[i], want[i], 1e-6 * mag[i] + 1e-6) << i;
    std::vector<double> wmax = naive_reduce(Kind::Max, float32, xr, c.shape, c.axes, out_shape);
    expect_array(lax::reduce_max(make(x, c.shape, float32), c.axes), wmax, out_shape, float32);
  }
}

TEST(PrimReduce, LargeIntegerAndHalfSums) {
  Shape shape{5, 70000};
  std::vector<double> x = small_values(num_elements(shape), int32, 9);
  for (const auto &axes : std::vector<std::vector<int64_t>>{{0}, {1}, {0, 1}}) {
    check_reduce(Kind::Sum, int32, shape, axes, x, 0.0);
    check_reduce(Kind::Sum, int64, shape, axes, x, 0.0);
    check_reduce(Kind::Max, int8, shape, axes, x, 0.0);
  }
  // f16 accumulates in float: 4096 ones sum to exactly 4096, past f16's integer range (2048).
  expect_array(lax::reduce_sum(make(std::vector<double>(4096, 1.0), float16), {0}), {4096}, {},
               float16);
  expect_array(lax::reduce_sum(make(std::vector<double>(4096, 1.0), bfloat16), {0}), {4096}, {},
               bfloat16);
}

TEST(PrimReduce, Errors) {
  Array x = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32);
  for (Kind k : {Kind::Sum, Kind::Prod, Kind::Max, Kind::Min}) {
    expect_error([&] { reduce(k, x, {2}); }, {"axis 2 is out of range for f32[2,3]"});
    expect_error([&] { reduce(k, x, {-3}); }, {"out of range"});
    expect_error([&] { reduce(k, x, {1, 1}); }, {"duplicate axis"});
    expect_error([&] { reduce(k, x, {0, -2}); }, {"duplicate axis"});
  }
  Array b = make({1, 0}, bool_);
  for (Kind k : {Kind::Sum, Kind::Prod}) {
    try {
      reduce(k, b, {0});
      ADD_FAILURE() << "bool accepted";
    } catch (const Error &e) {
      EXPECT_EQ(e.kind(), ErrorKind::Type);
      EXPECT_NE(std::string(e.what()).find("bool[2]"), std::string::npos) << e.what();
    }
  }
}

TEST(PrimReduce, AbstractEvalAndTraits) {
  const Primitive *p = find_primitive("reduce_sum");
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->has(kReduction));
  AbstractValue in{{2, 3, 4}, float16, true};
  auto out = abstract_eval(*p, std::span<const AbstractValue>(&in, 1),
                           Params{{"axes", std::vector<int64_t>{0, 2}}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (AbstractValue{{3}, float16, true}));
  EXPECT_TRUE(find_primitive("reduce_max")->has(kReduction));
  EXPECT_TRUE(find_primitive("argmax")->has(kNonDifferentiable));
}

// ---- argmax / argmin
// -----------------------------------------------------------------------------
TEST(PrimArgReduce, FirstOccurrenceAllDtypes) {
  // Rows: ties at the extremes (first wins), and a row in reverse order.
  std::vector<double> x = {1, 3, 3, 0, 0, 2, 4, 1, 4, 4, 0, 0};
  for (DType t : all_dtypes()) {
    SCOPED_TRACE(short_name(t));
    std::vector<double> v = x;
    if (t == bool_)
      for (auto &e : v)
        e = e > 1;
    Array a = make(v, {3, 4}, t);
    if (t == bool_) {
      // bool rows: [0,1,1,0], [0,1,1,0], [1,1,0,0]
      expect_array(lax::argmax(a, 1), {1, 1, 0}, {3}, int32);
      expect_array(lax::argmin(a, 1), {0, 0, 2}, {3}, int32);
      continue;
    }
    expect_array(lax::argmax(a, 1), {1, 2, 0}, {3}, int32);
    expect_array(lax::argmin(a, 1), {3, 0, 2}, {3}, int32);
    // Columns: [1,0,4], [3,2,4], [3,4,0], [0,1,0].
    expect_array(lax::argmax(a, 0), {2, 2, 1, 1}, {4}, int32);
    expect_array(lax::argmin(a, 0, int64), {1, 1, 2, 0}, {4}, int64);
    expect_array(lax::argmax(a, -1, int64), {1, 2, 0}, {3}, int64);
  }
}

TEST(PrimArgReduce, NaNCountsAsTheExtremum) {
  for (DType t : float_dtypes()) {
    Array a = make({1, kNaN, 5, kNaN, 9, -1}, {6}, t);
    expect_array(lax::argmax(a, 0), {1}, {}, int32);
    expect_array(lax::argmin(a, 0), {1}, {}, int32);
    Array c = make({1, 5, kNaN, 0, 7, kNaN}, {3, 2}, t);
    expect_array(lax::argmax(c, 0), {1, 2}, {2}, int32);
    expect_array(lax::argmin(c, 0), {1, 2}, {2}, int32);
  }
  expect_array(lax::argmin(make({2, -kInf, -kInf}, float32), 0), {1}, {}, int32);
}

TEST(PrimArgReduce, ShapesAndLargeRows) {
  expect_array(lax::argmax(make({}, {0, 3}, float32), 1), {}, {0}, int32);
  expect_array(lax::argmax(make({7}, {1}, float32), 0), {0}, {}, int32);
  expect_array(lax::argmax(make({1, 2, 3, 4, 5, 6}, {1, 2, 3}, int32), 1), {1, 1, 1}, {1, 3},
               int32);
  // Long rows use parallel blocks; the later of two equal maxima must lose.
  int64_t n = 300000;
  std::vector<double> x(static_cast<size_t>(n), 0.0);
  x[200000] = 5;
  x[250000] = 5;
  x[1000] = -3;
  expect_array(lax::argmax(make(x, float32), 0), {200000}, {}, int32);
  expect_array(lax::argmin(make(x, float32), 0, int64), {1000}, {}, int64);
  x[280000] = kNaN;
  expect_array(lax::argmin(make(x, float32), 0), {280000}, {}, int32);
  // Wide columns.
  std::vector<double> w(static_cast<size_t>(3 * 3000));
  for (int64_t j = 0; j < 3000; ++j)
    for (int64_t r = 0; r < 3; ++r)
      w[r * 3000 + j] = static_cast<double>((j + r) % 3);
  std::vector<double> want(3000);
  for (int64_t j = 0; j < 3000; ++j)
    want[j] = static_cast<double>((2 - j % 3 + 3) % 3);
  expect_array(lax::argmax(make(w, {3, 3000}, int32), 0), want, {3000}, int32);
}

TEST(PrimArgReduce, Errors) {
  Array x = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32);
  expect_error([&] { lax::argmax(x, 2); }, {"[argmax]", "axis 2 is out of range for f32[2,3]"});
  expect_error([&] { lax::argmin(x, -3); }, {"[argmin]", "out of range"});
  expect_error([&] { lax::argmax(x, 0, float32); }, {"index_dtype must be i32 or i64"});
  expect_error([&] { lax::argmax(x, 0, uint32); }, {"index_dtype"});
  expect_error([&] { lax::argmax(make({}, {3, 0}, float32), 1); }, {"empty axis", "f32[3,0]"});
  expect_error([&] { lax::argmin(make({}, {0}, int32), 0); }, {"[argmin]", "empty axis"});
  expect_error([&] { lax::argmax(make({1}, {}, int32), 0); }, {"out of range"});
}

// ---- cumulative scans
// ----------------------------------------------------------------------------
namespace {
/// Naive scan of one axis in double, optionally from the end.
std::vector<double> naive_scan(Kind k, DType t, const std::vector<double> &x, const Shape &shape,
                               int64_t axis, bool reverse) {
  int64_t outer = 1, r = shape[axis], inner = 1;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i)
    if (i != axis)
      (i < axis ? outer : inner) *= shape[i];
  std::vector<double> out(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      double acc = identity(k, t);
      for (int64_t q = 0; q < r; ++q) {
        int64_t p = reverse ? r - 1 - q : q;
        size_t idx = static_cast<size_t>((o * r + p) * inner + j);
        acc = combine(k, acc, x[idx]);
        out[idx] = is_integer(t) ? wrap_to(t, acc) : acc;
      }
    }
  return out;
}

Array scan(Kind k, const Array &x, int64_t axis, bool reverse) {
  switch (k) {
  case Kind::Sum:
    return lax::cumsum(x, axis, reverse);
  case Kind::Prod:
    return lax::cumprod(x, axis, reverse);
  case Kind::Max:
    return lax::cummax(x, axis, reverse);
  case Kind::Min:
    return lax::cummin(x, axis, reverse);
  }
  return {};
}
} // namespace

TEST(PrimCumulative, AllKindsDtypesAxes) {
  Shape shape{3, 4, 2};
  for (Kind k : {Kind::Sum, Kind::Prod, Kind::Max, Kind::Min}) {
    for (DType t : all_dtypes()) {
      if (t == bool_ && (k == Kind::Sum || k == Kind::Prod))
        continue;
      std::vector<double> x = small_values(num_elements(shape), t, k == Kind::Prod ? 4 : 7);
      for (int64_t axis : {0, 1, 2, -1})
        for (bool reverse : {false, true}) {
          SCOPED_TRACE(std::string(short_name(t)) + " axis " + std::to_string(axis) +
                       (reverse ? " reverse" : ""));
          int64_t a = axis < 0 ? axis + 3 : axis;
          expect_array(scan(k, make(x, shape, t), axis, reverse),
                       naive_scan(k, t, x, shape, a, reverse), shape, t, tol_for(t));
        }
    }
  }
}

TEST(PrimCumulative, HandValues) {
  expect_array(lax::cumsum(make({1, 2, 3, 4}, int32), 0), {1, 3, 6, 10}, {4}, int32);
  expect_array(lax::cumsum(make({1, 2, 3, 4}, int32), 0, true), {10, 9, 7, 4}, {4}, int32);
  expect_array(lax::cumprod(make({1, 2, 3, 4}, float32), 0), {1, 2, 6, 24}, {4}, float32);
  expect_array(lax::cummax(make({1, 3, 2, 5, 4}, float32), 0), {1, 3, 3, 5, 5}, {5}, float32);
  expect_array(lax::cummin(make({1, 3, 2, 5, 4}, float32), 0, true), {1, 2, 2, 4, 4}, {5}, float32);
  expect_array(lax::cummax(make({1, kNaN, 2}, float32), 0), {1, kNaN, kNaN}, {3}, float32);
  expect_array(lax::cummax(make({0, 1, 0}, bool_), 0), {0, 1, 1}, {3}, bool_);
  expect_array(lax::cummin(make({1, 1, 0, 1}, bool_), 0), {1, 1, 0, 0}, {4}, bool_);
  expect_array(lax::cumsum(make({100, 100, 100}, int8), 0), {100, -56, 44}, {3}, int8);
}

TEST(PrimCumulative, EdgeShapesAndWeakType) {
  expect_array(lax::cumsum(make({}, {0, 3}, float32), 0), {}, {0, 3}, float32);
  expect_array(lax::cumsum(make({}, {2, 0}, int32), 0, true), {}, {2, 0}, int32);
  expect_array(lax::cummax(make({5}, {1}, uint8), 0), {5}, {1}, uint8);
  Array w = Array::weak_scalar(2.0).with_shape({1});
  EXPECT_TRUE(lax::cumsum(w, 0).weak_type());
}

TEST(PrimCumulative, LongRowsUseBlockedScan) {
  int64_t n = 300001;
  std::vector<double> ones(static_cast<size_t>(n), 1.0);
  for (bool reverse : {false, true}) {
    std::vector<double> want(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      want[i] = reverse ? static_cast<double>(n - i) : static_cast<double>(i + 1);
    expect_array(lax::cumsum(make(ones, float32), 0, reverse), want, {n}, float32);
    expect_array(lax::cumsum(make(ones, int32), 0, reverse), want, {n}, int32);
  }
  std::vector<double> xi = small_values(n, int32, 1000), x = xi;
  x[150000] = kNaN;
  expect_array(lax::cummax(make(x, float32), 0), naive_scan(Kind::Max, float32, x, {n}, 0, false),
               {n}, float32);
  expect_array(lax::cummin(make(xi, int64), 0, true),
               naive_scan(Kind::Min, int64, xi, {n}, 0, true), {n}, int64);
}

TEST(PrimCumulative, Errors) {
  Array x = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32);
  for (Kind k : {Kind::Sum, Kind::Prod, Kind::Max, Kind::Min}) {
    expect_error([&] { scan(k, x, 2, false); }, {"axis 2 is out of range for f32[2,3]"});
    expect_error([&] { scan(k, make({1}, {}, float32), 0, false); }, {"out of range"});
  }
  expect_error([&] { lax::cumsum(make({1, 0}, bool_), 0); }, {"[cumsum]", "bool[2]"});
  expect_error([&] { lax::cumprod(make({1, 0}, bool_), 0); }, {"[cumprod]", "bool[2]"});
}
