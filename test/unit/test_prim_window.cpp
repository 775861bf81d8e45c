// Windowed reductions against a direct oracle (the operand padded and dilated element by element,
// then every window reduced in long double), hand-worked pooling cases, ties, dtypes and errors.
#include <cmath>
#include <limits>

#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

STRATA_TESTS_PRIMITIVES("reduce_window_sum", "reduce_window_max", "reduce_window_min",
                        "reduce_window", "select_and_gather_add", "select_and_scatter_add");

namespace {

const double kInf = std::numeric_limits<double>::infinity();

struct Case {
  Shape shape;
  lax::WindowDims w;
};

/// The cases every oracle runs: 1-D to 3-D, strides, padding, base and window dilation, size 1,
/// windows larger than the operand (padding makes them fit) and empty results.
std::vector<Case> cases() {
  return {
      {{7}, {{3}, {2}, {{1, 1}}, {}, {}}},
      {{1}, {{1}, {}, {}, {}, {}}},
      {{5, 6}, {{2, 3}, {1, 2}, {{1, 0}, {0, 2}}, {}, {}}},
      {{4, 5}, {{2, 2}, {2, 2}, {}, {}, {}}},
      {{4, 5}, {{2, 2}, {1, 1}, {{1, 1}, {0, 1}}, {2, 1}, {1, 2}}},
      {{3, 4}, {{3, 3}, {1, 1}, {{1, 1}, {1, 1}}, {}, {}}},
      {{2, 3, 4}, {{1, 2, 3}, {1, 1, 2}, {{0, 0}, {1, 0}, {0, 1}}, {1, 2, 1}, {1, 1, 1}}},
      {{3, 2}, {{4, 1}, {1, 1}, {}, {}, {}}}, // window longer than the operand: empty
      {{3, 2}, {{5, 2}, {1, 1}, {{1, 1}, {0, 0}}, {}, {}}},
      {{5, 6}, {{2, 2}, {1, 1}, {{-1, 1}, {1, -2}}, {2, 1}, {1, 2}}}, // negative padding crops
  };
}

/// Expected output of a monoid window reduction, with the selected operand offsets of each window
/// (first element that no later one displaces under `ge`/le).
struct Oracle {
  Shape out;
  std::vector<double> sum, max, min;
  std::vector<int64_t> pick_max, pick_min;
};
Oracle oracle(const std::vector<double> &x, const Shape &shape, const lax::WindowDims &w) {
  size_t r = shape.size();
  auto at = [&](const std::vector<int64_t> &v, size_t d, int64_t dflt) {
    return v.empty() ? dflt : v[d];
  };
  Oracle o;
  for (size_t d = 0; d < r; ++d) {
    int64_t lo = w.padding.empty() ? 0 : w.padding[d].first;
    int64_t hi = w.padding.empty() ? 0 : w.padding[d].second;
    int64_t padded = (shape[d] - 1) * at(w.base_dilation, d, 1) + 1 + lo + hi;
    int64_t span = (w.dimensions[d] - 1) * at(w.window_dilation, d, 1) + 1;
    o.out.push_back(padded < span ? 0 : (padded - span) / at(w.strides, d, 1) + 1);
  }
  for_each_index(o.out, [&](const Idx &oi) {
    long double s = 0, mx = -kInf, mn = kInf;
    int64_t pmax = -1, pmin = -1;
    for_each_index(w.dimensions, [&](const Idx &k) {
      Idx src(r);
      for (size_t d = 0; d < r; ++d) {
        int64_t lo = w.padding.empty() ? 0 : w.padding[d].first;
        int64_t p = oi[d] * at(w.strides, d, 1) + k[d] * at(w.window_dilation, d, 1) - lo;
        int64_t b = at(w.base_dilation, d, 1);
        if (p < 0 || p % b != 0 || p / b >= shape[d])
          return;
        src[d] = p / b;
      }
      int64_t off = ravel(src, shape);
      double v = x[static_cast<size_t>(off)];
      s += v;
      if (pmax < 0 || !(mx >= v))
        mx = v, pmax = off;
      if (pmin < 0 || !(mn <= v))
        mn = v, pmin = off;
    });
    o.sum.push_back(static_cast<double>(s));
    o.max.push_back(static_cast<double>(mx));
    o.min.push_back(static_cast<double>(mn));
    o.pick_max.push_back(pmax);
    o.pick_min.push_back(pmin);
  });
  return o;
}

/// Values with ties (a few small integers), so that selection order matters.
std::vector<double> tied(int64_t n, uint32_t seed) {
  std::vector<double> v(static_cast<size_t>(n));
  for (double &e : v) {
    seed = seed * 1664525u + 1013904223u;
    e = static_cast<double>((seed >> 16) % 5) - 2.0;
  }
  return v;
}

TEST(ReduceWindow, MonoidsMatchTheOracle) {
  uint32_t seed = 1;
  for (const Case &c : cases()) {
    std::vector<double> xv = tied(num_elements(c.shape), seed++);
    Oracle o = oracle(xv, c.shape, c.w);
    for (DType t : {float64, float32, int32, float16, bfloat16}) {
      Array x = make(xv, c.shape, t);
      expect_array(lax::reduce_window_sum(x, c.w), o.sum, o.out, t);
      expect_array(lax::reduce_window_max(x, c.w), o.max, o.out, t);
      expect_array(lax::reduce_window_min(x, c.w), o.min, o.out, t);
    }
  }
}

TEST(ReduceWindow, SelectionsPickTheFirstExtremum) {
  uint32_t seed = 7;
  for (const Case &c : cases()) {
    std::vector<double> xv = tied(num_elements(c.shape), seed++);
    Oracle o = oracle(xv, c.shape, c.w);
    int64_t n = num_elements(c.shape), m = num_elements(o.out);
    std::vector<double> tv(static_cast<size_t>(n)), sv(static_cast<size_t>(m));
    for (int64_t i = 0; i < n; ++i)
      tv[i] = 1.0 + i; // the tangent names the element it sits on
    for (int64_t i = 0; i < m; ++i)
      sv[i] = 0.5 + i;
    for (bool ge : {true, false}) {
      const std::vector<int64_t> &pick = ge ? o.pick_max : o.pick_min;
      std::vector<double> gathered, scattered(static_cast<size_t>(n), 0.0);
      for (int64_t i = 0; i < m; ++i) {
        gathered.push_back(pick[i] < 0 ? 0.0 : tv[pick[i]]);
        if (pick[i] >= 0)
          scattered[pick[i]] += sv[i];
      }
      for (DType t : {float64, float32}) {
        Array x = make(xv, c.shape, t);
        expect_array(lax::select_and_gather_add(make(tv, c.shape, t), x, ge, c.w), gathered, o.out,
                     t);
        expect_array(lax::select_and_scatter_add(make(sv, o.out, t), x, ge, c.w), scattered,
                     c.shape, t);
      }
    }
  }
}

// Max pooling 2x2/2 of a 4x4 image, worked by hand; the gradient goes to the first maximum of a
// tied window (JAX's select semantics).
TEST(ReduceWindow, MaxPoolByHand) {
  Array x = make({1, 2, 5, 5, 3, 4, 0, 1, 9, 8, 7, 7, 6, 9, 7, 2}, {4, 4});
  lax::WindowDims w{{2, 2}, {2, 2}, {}, {}, {}};
  expect_array(lax::reduce_window_max(x, w), {4, 5, 9, 7}, {2, 2}, float64);
  expect_array(lax::reduce_window_sum(x, w), {10, 11, 32, 23}, {2, 2}, float64);
  Array g = grad_flat(
      [&](const std::vector<Array> &a) {
        return std::vector<Array>{lax::reduce_sum(lax::reduce_window_max(a[0], w), {0, 1})};
      },
      {x})[0];
  expect_array(g, {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0}, {4, 4}, float64);
}

// Average pooling's gradient: every element gets 1/9 per 3x3 window holding it (SAME padding).
TEST(ReduceWindow, SumGradientCountsWindows) {
  Array x = make(std::vector<double>(16, 1.0), {4, 4});
  lax::WindowDims w{{3, 3}, {1, 1}, {{1, 1}, {1, 1}}, {}, {}};
  Array g = grad_flat(
      [&](const std::vector<Array> &a) {
        return std::vector<Array>{lax::reduce_sum(lax::reduce_window_sum(a[0], w), {0, 1})};
      },
      {x})[0];
  expect_array(g, {4, 6, 6, 4, 6, 9, 9, 6, 6, 9, 9, 6, 4, 6, 6, 4}, {4, 4}, float64);
}

// Padding and base-dilation holes count as the identity: -inf for max, +inf for min.
TEST(ReduceWindow, PaddingIsTheIdentity) {
  Array x = make({-3, -1}, {2});
  lax::WindowDims w{{2}, {1}, {{1, 1}}, {2}, {}};
  expect_array(lax::reduce_window_max(x, w), {-3, -3, -1, -1}, {4}, float64);
  expect_array(lax::reduce_window_min(make({3, 1}, {2}), w), {3, 3, 1, 1}, {4}, float64);
  lax::WindowDims all_pad{{1}, {1}, {{2, 0}}, {}, {}};
  expect_array(lax::reduce_window_max(x, all_pad), {-kInf, -kInf, -3, -1}, {4}, float64);
  // A window of padding only selects nothing: zero tangent, nothing scattered.
  expect_array(lax::select_and_gather_add(make({5, 6}, {2}), x, true, all_pad), {0, 0, 5, 6}, {4},
               float64);
}

TEST(ReduceWindow, NaNPropagates) {
  Array x = make({1, NAN, 2, 3}, {4});
  lax::WindowDims w{{2}, {1}, {}, {}, {}};
  Array y = lax::reduce_window_max(x, w);
  std::vector<double> v = values(y);
  EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1]));
  EXPECT_EQ(v[2], 3);
}

// The general reduction: a monoid computation agrees with the monoid primitive; a pair of
// operands reduces jointly (argmax by value and index, first index on ties).
TEST(ReduceWindow, GeneralMatchesMonoidsAndPairs) {
  for (const Case &c : cases()) {
    std::vector<double> xv = tied(num_elements(c.shape), 3);
    Oracle o = oracle(xv, c.shape, c.w);
    Array x = make(xv, c.shape);
    FlatFn add = [](const std::vector<Array> &a) { return std::vector<Array>{a[0] + a[1]}; };
    expect_array(lax::reduce_window({x}, {Array(0.0)}, add, c.w)[0], o.sum, o.out, float64, 1e-15);
    FlatFn mx = [](const std::vector<Array> &a) {
      return std::vector<Array>{lax::max(a[0], a[1])};
    };
    expect_array(lax::reduce_window({x}, {Array(-kInf)}, mx, c.w)[0], o.max, o.out, float64);
  }
  // (value, index) pairs: the larger value wins, the smaller index on ties.
  Array v = make({1, 3, 3, 2, 5}, {5});
  Array idx = make({0, 1, 2, 3, 4}, {5});
  FlatFn argmax = [](const std::vector<Array> &a) {
    Array take = lax::bitwise_or(lax::gt(a[2], a[0]),
                                 lax::bitwise_and(lax::eq(a[2], a[0]), lax::lt(a[3], a[1])));
    return std::vector<Array>{lax::select(take, a[2], a[0]), lax::select(take, a[3], a[1])};
  };
  lax::WindowDims w{{3}, {1}, {}, {}, {}};
  std::vector<Array> r = lax::reduce_window({v, idx}, {Array(-kInf), Array(1e9)}, argmax, w);
  expect_array(r[0], {3, 3, 5}, {3}, float64);
  expect_array(r[1], {1, 1, 4}, {3}, float64);
}

TEST(ReduceWindow, GeneralDerivativesMatchTheMonoid) {
  Array x = make({0.3, -1.2, 2.0, 0.7, -0.4, 1.1}, {2, 3});
  lax::WindowDims w{{2, 2}, {1, 1}, {{0, 1}, {1, 0}}, {}, {}};
  FlatFn general = [&](const std::vector<Array> &a) {
    FlatFn mul = [](const std::vector<Array> &s) { return std::vector<Array>{s[0] + s[1] * s[1]}; };
    return std::vector<Array>{
        lax::reduce_sum(lax::reduce_window({a[0]}, {Array(0.0)}, mul, w)[0], {0, 1})};
  };
  FlatFn direct = [&](const std::vector<Array> &a) {
    return std::vector<Array>{lax::reduce_sum(lax::reduce_window_sum(a[0] * a[0], w), {0, 1})};
  };
  expect_array(grad_flat(general, {x})[0], values(grad_flat(direct, {x})[0]), {2, 3}, float64,
               1e-14);
  auto [p, t] = jvp_flat(general, {x}, {x});
  auto [pd, td] = jvp_flat(direct, {x}, {x});
  expect_array(t[0], values(td[0]), {}, float64, 1e-14);
}

TEST(ReduceWindow, Errors) {
  Array x = make({1, 2, 3, 4, 5, 6}, {2, 3});
  expect_error([&] { lax::reduce_window_max(x, {{2}, {}, {}, {}, {}}); },
               {"[reduce_window_max]", "window_dimensions has 1 entries", "f64[2,3]"});
  expect_error([&] { lax::reduce_window_sum(x, {{2, 0}, {}, {}, {}, {}}); },
               {"[reduce_window_sum]", "window_dimensions must be positive"});
  expect_error([&] { lax::reduce_window_sum(x, {{2, 2}, {0, 1}, {}, {}, {}}); },
               {"[reduce_window_sum]", "window_strides must be positive"});
  expect_error([&] { lax::reduce_window_sum(make({1, 0}, {2}, bool_), {{1}, {}, {}, {}, {}}); },
               {"[reduce_window_sum]", "numeric operand", "bool[2]"});
  expect_error([&] { lax::select_and_scatter_add(x, x, true, {{2, 2}, {}, {}, {}, {}}); },
               {"[select_and_scatter_add]", "source f64[2,3] must have shape f64[1,2]"});
  expect_error(
      [&] { lax::select_and_gather_add(x.astype(float32), x, true, {{2, 2}, {}, {}, {}, {}}); },
      {"[select_and_gather_add]", "one dtype"});
  FlatFn add = [](const std::vector<Array> &a) { return std::vector<Array>{a[0] + a[1]}; };
  expect_error([&] { lax::reduce_window({x}, {Array(0.0f)}, add, {{2, 2}, {}, {}, {}, {}}); },
               {"[reduce_window]", "initial value 0 must be a scalar", "f32[]"});
  expect_error([&] { lax::reduce_window({x}, {}, add, {{2, 2}, {}, {}, {}, {}}); },
               {"[reduce_window]", "one initial value per operand"});
  // As in JAX, the computation may not close over a tracer.
  expect_error(
      [&] {
        grad_flat(
            [&](const std::vector<Array> &a) {
              FlatFn scaled = [&](const std::vector<Array> &v) {
                return std::vector<Array>{v[0] + v[1] * a[0]};
              };
              Array r = lax::reduce_window({x}, {Array(0.0)}, scaled, {{2, 2}, {}, {}, {}, {}})[0];
              return std::vector<Array>{lax::reduce_sum(r, {0, 1})};
            },
            {Array(2.0)});
      },
      {"[reduce_window]", "closes over a traced value"});
}

// Large windows on a large operand: the parallel kernel against the oracle.
TEST(ReduceWindow, LargeParallel) {
  Shape s{3, 40, 50};
  std::vector<double> xv = tied(num_elements(s), 11);
  lax::WindowDims w{{1, 7, 9}, {1, 2, 3}, {{0, 0}, {3, 3}, {4, 4}}, {}, {}};
  Oracle o = oracle(xv, s, w);
  expect_array(lax::reduce_window_sum(make(xv, s), w), o.sum, o.out, float64);
  expect_array(lax::reduce_window_max(make(xv, s, float32), w), o.max, o.out, float32);
}

// Long windows along the last dimension (float sums take running sums in double there).
TEST(ReduceWindow, LongSumsMatchTheOracle) {
  Shape s{3, 200};
  std::vector<double> xv(static_cast<size_t>(num_elements(s)));
  uint32_t seed = 5;
  for (double &e : xv) {
    seed = seed * 1664525u + 1013904223u;
    e = static_cast<double>(seed >> 8) / (1 << 24) * 4.0 - 1.0;
  }
  std::vector<lax::WindowDims> ws{{{1, 33}, {1, 1}, {{0, 0}, {16, 16}}, {}, {}},
                                  {{2, 40}, {1, 3}, {{1, 0}, {5, 50}}, {}, {}},
                                  {{1, 20}, {2, 1}, {{0, 1}, {-3, -2}}, {}, {}},
                                  {{1, 300}, {1, 1}, {{0, 0}, {150, 149}}, {}, {}}};
  for (const lax::WindowDims &w : ws) {
    Oracle o = oracle(xv, s, w);
    expect_array(lax::reduce_window_sum(make(xv, s, float32), w), o.sum, o.out, float32, 2e-5);
    expect_array(lax::reduce_window_sum(make(xv, s, float16), w), o.sum, o.out, float16, 2e-2);
    expect_array(lax::reduce_window_sum(make(xv, s), w), o.sum, o.out, float64, 1e-13);
  }
}

} // namespace
