// jvp, vjp and batch rules of dot_general and sort. Oracles: central finite differences in
// float64, the adjoint identity <v, J u> == <J^T v, u>, second order against finite
// differences of the first-order rules, a float64 reference for preferred_element_type, and
// per-example loops for vmap (in_axes 0, 1, -1, unbatched operands, nested).
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>

#include "rules_check.h"
#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

using namespace strata::testutil::rules_check;

// ---- dot_general -------------------------------------------------------------------------------

namespace {

struct DotCase {
  const char *what;
  Shape lhs, rhs;
  lax::DotDimensionNumbers dims;
};
const std::vector<DotCase> &dot_cases() {
  static const std::vector<DotCase> c = {
      {"matmul", {3, 4}, {4, 5}, {{1}, {0}, {}, {}}},
      {"transposed operands", {4, 3}, {5, 4}, {{0}, {1}, {}, {}}},
      {"inner product", {5}, {5}, {{0}, {0}, {}, {}}},
      {"outer product", {3}, {2}, {{}, {}, {}, {}}},
      {"batch dims in the middle and last", {4, 2, 3}, {3, 5, 2}, {{2}, {0}, {1}, {2}}},
      // Two contracting dims paired out of order, a batch dim on each side, free dims left.
      {"contracting dims out of order", {2, 3, 4, 5}, {5, 3, 6, 2}, {{1, 3}, {1, 0}, {0}, {3}}},
      {"two batch dims swapped", {2, 3, 4}, {3, 4, 2}, {{2}, {1}, {0, 1}, {2, 0}}},
      {"matrix-vector", {3, 4}, {4}, {{1}, {0}, {}, {}}},
  };
  return c;
}
FlatFn dot_fn(const lax::DotDimensionNumbers &d) {
  return [d](const std::vector<Array> &x) {
    return std::vector<Array>{lax::dot_general(x[0], x[1], d)};
  };
}

} // namespace

TEST(RulesDotSort, DotGeneralDerivatives) {
  Rng rng(1);
  for (const DotCase &c : dot_cases()) {
    SCOPED_TRACE(c.what);
    std::vector<Array> x = {random_f64(c.lhs, rng), random_f64(c.rhs, rng)};
    check_first_and_second_order(dot_fn(c.dims), x, rng);
    // Nonlinear around the product, so that second order sees the rules' own derivatives.
    FlatFn g = [d = c.dims](const std::vector<Array> &in) {
      Array p = lax::dot_general(lax::sin(in[0]), lax::mul(in[1], in[1]), d);
      return std::vector<Array>{lax::mul(p, lax::exp(lax::mul(p, p)))};
    };
    check_first_and_second_order(g, x, rng);
    // One operand constant to the transform (its tangent symbolically zero).
    Array rhs = x[1];
    FlatFn only_lhs = [d = c.dims, rhs](const std::vector<Array> &in) {
      return std::vector<Array>{lax::dot_general(lax::sin(in[0]), rhs, d)};
    };
    check_first_and_second_order(only_lhs, {x[0]}, rng);
  }
}

TEST(RulesDotSort, DotGeneralMatmulByHand) {
  // d/dA sum(A @ B) = 1 B^T, d/dB = A^T 1.
  Array a = make({1, 2, 3, 4, 5, 6}, {2, 3}, float64), b = make({1, 0, 2, 1, 0, 3}, {3, 2});
  auto f = [](const Array &x, const Array &y) {
    return lax::reduce_sum(lax::dot_general(x, y, {{1}, {0}, {}, {}}), {0, 1});
  };
  auto [ga, gb] = grad<0, 1>(f)(a, b);
  expect_array(ga, {1, 3, 3, 1, 3, 3}, {2, 3}, float64);
  expect_array(gb, {5, 5, 7, 7, 9, 9}, {3, 2}, float64);
}

TEST(RulesDotSort, DotGeneralPreferredElementType) {
  // f32 operands accumulated in f64: cotangents come back f32, equal (to f32 rounding) to the
  // cotangents of the same product computed in f64.
  Rng rng(2);
  for (const DotCase &c : dot_cases()) {
    SCOPED_TRACE(c.what);
    Array l64 = random_f64(c.lhs, rng), r64 = random_f64(c.rhs, rng);
    Array l32 = lax::convert_element_type(l64, float32);
    Array r32 = lax::convert_element_type(r64, float32);
    l64 = lax::convert_element_type(l32, float64);
    r64 = lax::convert_element_type(r32, float64);
    FlatFn f32 = [d = c.dims](const std::vector<Array> &in) {
      return std::vector<Array>{lax::dot_general(in[0], in[1], d, float64)};
    };
    VjpResult r = vjp_flat(f32, {l32, r32});
    ASSERT_EQ(r.outputs[0].dtype(), float64);
    Array ct = random_f64(r.outputs[0].shape(), rng);
    std::vector<Array> g = r.pullback({ct});
    std::vector<Array> want = vjp_flat(dot_fn(c.dims), {l64, r64}).pullback({ct});
    for (int i = 0; i < 2; ++i)
      expect_array(g[i], values(want[i]), want[i].shape(), float32, 1e-6);
    // The jvp keeps the preferred type.
    Array tl = lax::convert_element_type(random_f64(c.lhs, rng), float32);
    Array tr = lax::convert_element_type(random_f64(c.rhs, rng), float32);
    auto [y, t] = jvp_flat(f32, {l32, r32}, {tl, tr});
    auto [y64, t64] =
        jvp_flat(dot_fn(c.dims), {l64, r64},
                 {lax::convert_element_type(tl, float64), lax::convert_element_type(tr, float64)});
    expect_array(t[0], values(t64[0]), t64[0].shape(), float64, 1e-12);
    // f16 operands with an f32 result: cotangents are f16.
    Array l16 = lax::convert_element_type(l64, float16);
    Array r16 = lax::convert_element_type(r64, float16);
    FlatFn f16 = [d = c.dims](const std::vector<Array> &in) {
      return std::vector<Array>{lax::dot_general(in[0], in[1], d, float32)};
    };
    VjpResult r16v = vjp_flat(f16, {l16, r16});
    std::vector<Array> g16 = r16v.pullback(
        {lax::convert_element_type(random_f64(r16v.outputs[0].shape(), rng), float32)});
    EXPECT_EQ(g16[0].dtype(), float16);
    EXPECT_EQ(g16[1].dtype(), float16);
  }
}

TEST(RulesDotSort, DotGeneralIntegerOperandsHaveNoCotangent) {
  Array a = make({1, 2, 3, 4}, {2, 2}, int32);
  auto f = [a](const Array &x) {
    Array p = lax::dot_general(a, a, {{1}, {0}, {}, {}}, float64);
    return lax::reduce_sum(lax::mul(p, x), {0, 1});
  };
  expect_array(grad(f)(make({0, 0, 0, 0}, {2, 2}, float64)), {7, 10, 15, 22}, {2, 2}, float64);
}

TEST(RulesDotSort, DotGeneralBatching) {
  Rng rng(3);
  const std::vector<std::vector<int64_t>> combos = {{0, NB},  {1, NB}, {-1, NB}, {NB, 0}, {NB, 1},
                                                    {NB, -1}, {0, 0},  {1, -1},  {-1, 1}, {-1, -1}};
  for (const DotCase &c : dot_cases()) {
    FlatFn f = dot_fn(c.dims);
    for (const auto &axes : combos) {
      if ((axes[0] == 1 && c.lhs.size() < 1) || (axes[1] == 1 && c.rhs.size() < 1))
        continue;
      SCOPED_TRACE(std::string(c.what) + ", " + axes_str(axes));
      Array l = random_f64(axes[0] == NB ? c.lhs : batched_shape(c.lhs, axes[0]), rng);
      Array r = random_f64(axes[1] == NB ? c.rhs : batched_shape(c.rhs, axes[1]), rng);
      check_batching(f, {l, r}, axes, {true, true}, rng);
    }
  }
  // With preferred_element_type and integer operands, the batched result keeps its type.
  Array a = make({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}, int32);
  FlatFn fi = [](const std::vector<Array> &x) {
    return std::vector<Array>{lax::dot_general(x[0], x[1], {{1}, {0}, {}, {}}, int64)};
  };
  check_batching(fi, {a, a}, {0, 2}, {false, false}, rng);
}

// ---- sort --------------------------------------------------------------------------------------

namespace {

struct SortCase {
  Shape shape;
  int64_t dim;
};
const std::vector<SortCase> &sort_cases() {
  static const std::vector<SortCase> c = {{{6}, 0},        {{3, 5}, 1}, {{4, 3}, 0},
                                          {{2, 5, 3}, -2}, {{1}, 0},    {{3, 1}, 1}};
  return c;
}
std::string sort_str(const SortCase &c) {
  return "sort " + shape_str(c.shape) + " dimension " + std::to_string(c.dim);
}

} // namespace

TEST(RulesDotSort, SortDerivatives) {
  Rng rng(4);
  for (const SortCase &c : sort_cases()) {
    SCOPED_TRACE(sort_str(c));
    FlatFn one = [c](const std::vector<Array> &x) { return lax::sort({x[0]}, c.dim); };
    check_first_and_second_order(one, {distinct_f64(c.shape, rng)}, rng);
    FlatFn g = [c](const std::vector<Array> &x) {
      Array s = lax::sort({lax::sin(x[0])}, c.dim)[0];
      return std::vector<Array>{lax::mul(s, lax::exp(s))};
    };
    // |x| < 1: sin keeps the values distinct and in order.
    Array x = distinct_f64(c.shape, rng);
    x = lax::div(x, scalar_like(static_cast<double>(num_elements(c.shape)), x));
    check_first_and_second_order(g, {x}, rng);
    // Keys and a payload, both differentiated; then two keys (the second breaks ties).
    FlatFn kv = [c](const std::vector<Array> &in) {
      std::vector<Array> s = lax::sort({in[0], lax::mul(in[1], in[1])}, c.dim);
      return std::vector<Array>{lax::mul(s[0], s[1]), s[1]};
    };
    check_first_and_second_order(kv, {distinct_f64(c.shape, rng), random_f64(c.shape, rng)}, rng);
    // Two keys: an integer one with ties (constant) and a float one that breaks them.
    Array k0 = lax::convert_element_type(
        lax::floor(lax::mul(random_f64(c.shape, rng, 0, 1), scalar_like(2.0, x))), int32);
    FlatFn two_keys = [c, k0](const std::vector<Array> &in) {
      std::vector<Array> s = lax::sort({k0, in[0], lax::sin(in[1])}, c.dim, 2);
      return std::vector<Array>{s[1], s[2]};
    };
    check_first_and_second_order(two_keys, {distinct_f64(c.shape, rng), random_f64(c.shape, rng)},
                                 rng);
  }
}

TEST(RulesDotSort, SortIsStableUnderDerivatives) {
  // Keys [1, 0, 1, 0] sort the payload [a, b, c, d] to [b, d, a, c] (stable on ties).
  Array keys = make({1, 0, 1, 0}, int32);
  auto f = [keys](const Array &v) {
    Array s = lax::sort({keys, v}, 0)[1];
    return lax::reduce_sum(lax::mul(s, make({1, 10, 100, 1000}, float64)), {0});
  };
  expect_array(grad(f)(make({5, 6, 7, 8}, float64)), {100, 1, 1000, 10}, {4}, float64);
  auto [y, t] = jvp([keys](const Array &v) { return lax::sort({keys, v}, 0)[1]; },
                    std::make_tuple(make({5, 6, 7, 8}, float64)),
                    std::make_tuple(make({1, 2, 3, 4}, float64)));
  expect_array(y, {6, 8, 5, 7}, {4}, float64);
  expect_array(t, {2, 4, 1, 3}, {4}, float64);
  // NaN keys sort last and carry their own cotangent.
  auto g = grad([](const Array &x) {
    return lax::reduce_sum(lax::mul(lax::sort({x}, 0)[0], make({1, 10, 100}, float64)), {0});
  });
  std::vector<double> gx = values(g(make({NAN, 2, 1}, float64)));
  EXPECT_EQ(gx[1], 10);
  EXPECT_EQ(gx[2], 1);
}

TEST(RulesDotSort, SortBatching) {
  Rng rng(5);
  for (const SortCase &c : sort_cases()) {
    FlatFn one = [c](const std::vector<Array> &x) { return lax::sort({x[0]}, c.dim); };
    for (int64_t axis : {0, 1, -1}) {
      SCOPED_TRACE(sort_str(c) + ", " + axes_str({axis}));
      check_batching(one, {distinct_f64(batched_shape(c.shape, axis), rng)}, {axis}, {true}, rng);
    }
    // Keys and a float payload, and an integer payload that is not differentiated.
    FlatFn kv = [c](const std::vector<Array> &in) {
      return lax::sort({in[0], in[1], in[2]}, c.dim);
    };
    const std::vector<std::vector<int64_t>> combos = {
        {0, 0, 0}, {1, NB, NB}, {NB, -1, 0}, {-1, 1, NB}, {NB, NB, 1}};
    for (const auto &axes : combos) {
      SCOPED_TRACE(sort_str(c) + " with payloads, " + axes_str(axes));
      auto shape = [&](int64_t a) { return a == NB ? c.shape : batched_shape(c.shape, a); };
      Array k = distinct_f64(shape(axes[0]), rng);
      Array v = random_f64(shape(axes[1]), rng);
      Array pf = random_f64(shape(axes[2]), rng);
      Array p = lax::convert_element_type(lax::mul(pf, scalar_like(100.0, pf)), int32);
      // Only float outputs for the derivative checks: wrap to drop the integer payload.
      FlatFn floats = [kv](const std::vector<Array> &in) {
        std::vector<Array> s = kv(in);
        return std::vector<Array>{s[0], s[1]};
      };
      check_batching(floats, {k, v, p}, axes, {true, true, false}, rng);
      expect_matches(vmap_flat(kv, {k, v, p}, axes), loop(kv, {k, v, p}, axes), Tolerance::exact(),
                     "vmap with the integer payload");
    }
  }
}
