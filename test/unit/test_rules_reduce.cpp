// jvp, vjp and batch rules of the reductions (reduce_sum/max/min/prod, argmax/argmin) and the
// cumulative scans (cumsum/cumprod/cummax/cummin). Oracles: central finite differences in
// float64, the adjoint identity <v, J u> == <J^T v, u>, second order against finite
// differences of the first-order rules, hand-derived derivatives at ties and zeros, and
// per-example loops for vmap (in_axes 0, 1, -1, nested).
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

namespace {

using Reduce = Array (*)(const Array &, const std::vector<int64_t> &);
using Scan = Array (*)(const Array &, int64_t, bool);

FlatFn reduce_fn(Reduce op, std::vector<int64_t> axes) {
  return [op, axes](const std::vector<Array> &x) { return std::vector<Array>{op(x[0], axes)}; };
}
/// Nonlinear around the op, so the second-order checks see more than a linear map.
FlatFn reduce_then_square(Reduce op, std::vector<int64_t> axes) {
  return [op, axes](const std::vector<Array> &x) {
    Array r = op(lax::mul(x[0], lax::sin(x[0])), axes);
    return std::vector<Array>{lax::mul(r, r)};
  };
}
FlatFn scan_fn(Scan op, int64_t axis, bool reverse) {
  return [op, axis, reverse](const std::vector<Array> &x) {
    return std::vector<Array>{op(x[0], axis, reverse)};
  };
}

struct AxesCase {
  Shape shape;
  std::vector<int64_t> axes;
};
const std::vector<AxesCase> &axes_cases() {
  static const std::vector<AxesCase> c = {
      {{2, 3, 4}, {0, 2}},    {{2, 3, 4}, {1}}, {{2, 3, 4}, {}},
      {{2, 3, 4}, {0, 1, 2}}, {{5}, {0}},       {{3, 4}, {-1}},
  };
  return c;
}

const std::vector<std::vector<int64_t>> kUnaryAxes = {{0}, {1}, {-1}};

/// |x| in [0.5, 1.5] with a random sign: products stay well scaled, so central differences
/// stay accurate.
Array signed_f64(const Shape &shape, Rng &rng) {
  return lax::mul(random_f64(shape, rng, 0.5, 1.5), lax::sign(random_f64(shape, rng)));
}

/// A value with exactly one zero per reduction group, the rest away from zero.
Array with_zeros(const Shape &shape, Rng &rng, int64_t every) {
  std::vector<double> v = values(random_f64(shape, rng, 0.5, 1.5));
  for (size_t i = 0; i < v.size(); i += static_cast<size_t>(every))
    v[i] = 0.0;
  return make(v, shape, float64);
}

} // namespace

// ---- reductions --------------------------------------------------------------------------------

TEST(RulesReduce, ReduceSumDerivatives) {
  Rng rng(1);
  for (const AxesCase &c : axes_cases()) {
    SCOPED_TRACE("reduce_sum " + shape_str(c.shape) + " axes " + shape_str(c.axes));
    check_derivatives(reduce_fn(lax::reduce_sum, c.axes), {random_f64(c.shape, rng)}, rng);
    check_first_and_second_order(reduce_then_square(lax::reduce_sum, c.axes),
                                 {random_f64(c.shape, rng)}, rng);
  }
}

TEST(RulesReduce, ReduceMaxMinDerivatives) {
  Rng rng(2);
  for (Reduce op : {Reduce(lax::reduce_max), Reduce(lax::reduce_min)}) {
    for (const AxesCase &c : axes_cases()) {
      SCOPED_TRACE(std::string(op == Reduce(lax::reduce_max) ? "reduce_max " : "reduce_min ") +
                   shape_str(c.shape) + " axes " + shape_str(c.axes));
      check_first_and_second_order(reduce_fn(op, c.axes), {distinct_f64(c.shape, rng)}, rng);
      FlatFn g = [op, axes = c.axes](const std::vector<Array> &x) {
        // x + sin(x) is increasing, so the order (and the locations of extrema) is kept.
        Array r = op(lax::add(x[0], lax::sin(x[0])), axes);
        return std::vector<Array>{lax::mul(r, lax::sin(r))};
      };
      check_first_and_second_order(g, {distinct_f64(c.shape, rng)}, rng);
    }
  }
}

TEST(RulesReduce, ReduceMaxMinTiesShareTheCotangentEvenly) {
  Array x = make({1, 3, 3, 2, 5, 5, 5, 0}, {2, 4}, float64);
  auto gmax = grad([](const Array &a) { return lax::reduce_sum(lax::reduce_max(a, {1}), {0}); });
  expect_array(gmax(x), {0, 0.5, 0.5, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3, 0}, {2, 4}, float64, 1e-15);
  auto gmin = grad([](const Array &a) { return lax::reduce_sum(lax::reduce_min(a, {0}), {0}); });
  Array y = make({1, 3, 3, 2, 1, 3, 5, 0}, {2, 4}, float64);
  expect_array(gmin(y), {0.5, 0.5, 1, 0, 0.5, 0.5, 0, 1}, {2, 4}, float64, 1e-15);
  // The jvp is the mean of the tied tangents.
  auto [out, t] = jvp([](const Array &a) { return lax::reduce_max(a, {1}); }, std::make_tuple(x),
                      std::make_tuple(make({0, 2, 4, 0, 3, 6, 9, 100}, {2, 4}, float64)));
  expect_array(out, {3, 5}, {2}, float64);
  expect_array(t, {3, 6}, {2}, float64, 1e-15);
}

TEST(RulesReduce, ReduceProdDerivatives) {
  Rng rng(3);
  for (const AxesCase &c : axes_cases()) {
    SCOPED_TRACE("reduce_prod " + shape_str(c.shape) + " axes " + shape_str(c.axes));
    Array x = signed_f64(c.shape, rng);
    check_first_and_second_order(reduce_fn(lax::reduce_prod, c.axes), {x}, rng);
    check_first_and_second_order(reduce_then_square(lax::reduce_prod, c.axes),
                                 {random_f64(c.shape, rng)}, rng);
    // The product is multilinear, so central differences stay exact at zeros: one zero per
    // group, and (every = 2) two zeros in some groups.
    for (int64_t every : {5, 2}) {
      SCOPED_TRACE("with zeros every " + std::to_string(every));
      check_first_and_second_order(reduce_fn(lax::reduce_prod, c.axes),
                                   {with_zeros(c.shape, rng, every)}, rng);
    }
  }
}

TEST(RulesReduce, ReduceProdGradientAtZeros) {
  auto g = grad([](const Array &a) { return lax::reduce_prod(a, {0}); });
  expect_array(g(make({2, 0, 3, 4}, float64)), {0, 24, 0, 0}, {4}, float64);
  expect_array(g(make({0, 2, 0}, float64)), {0, 0, 0}, {3}, float64);
  expect_array(g(make({2, 3, 4}, float64)), {12, 8, 6}, {3}, float64);
  // Hessian at a single zero: d2/dx0 dx1 of x0 x1 x2 at (2, 0, 3) is x2 = 3, etc.
  auto h = [](const Array &a) {
    return grad([](const Array &b) { return lax::reduce_prod(b, {0}); })(a);
  };
  Array x = make({2, 0, 3}, float64);
  auto [gx, hx] = jvp(h, std::make_tuple(x), std::make_tuple(make({1, 0, 0}, float64)));
  expect_array(gx, {0, 6, 0}, {3}, float64);
  expect_array(hx, {0, 3, 0}, {3}, float64);
  // Over two axes at once, with the zero anywhere in the group.
  auto g2 = grad([](const Array &a) { return lax::reduce_sum(lax::reduce_prod(a, {0, 2}), {0}); });
  Array y = make({1, 2, 3, 4, 0, 5, 6, 7}, {2, 2, 2}, float64);
  // Groups: column 0 holds {1, 2, 0, 5} (product 0), column 1 holds {3, 4, 6, 7}.
  expect_array(g2(y), {0, 0, 168, 126, 10, 0, 84, 72}, {2, 2, 2}, float64);
}

TEST(RulesReduce, ReductionBatching) {
  Rng rng(4);
  struct Case {
    Reduce op;
    const char *name;
    bool product = false; // well-scaled values instead of distinct ones
  };
  for (Case op :
       {Case{lax::reduce_sum, "reduce_sum"}, Case{lax::reduce_max, "reduce_max"},
        Case{lax::reduce_min, "reduce_min"}, Case{lax::reduce_prod, "reduce_prod", true}}) {
    for (const AxesCase &c : axes_cases()) {
      FlatFn f = reduce_fn(op.op, c.axes);
      for (const auto &axes : kUnaryAxes) {
        SCOPED_TRACE(std::string(op.name) + " " + shape_str(c.shape) + " axes " +
                     shape_str(c.axes) + ", " + axes_str(axes));
        Shape s = batched_shape(c.shape, axes[0]);
        check_batching(f, {op.product ? signed_f64(s, rng) : distinct_f64(s, rng)}, axes, {true},
                       rng);
      }
    }
  }
}

TEST(RulesReduce, ArgmaxArgminBatching) {
  Rng rng(5);
  for (int64_t axis : {0, 1, -1}) {
    for (DType idx : {int32, int64}) {
      FlatFn fmax = [axis, idx](const std::vector<Array> &x) {
        return std::vector<Array>{lax::argmax(x[0], axis, idx)};
      };
      FlatFn fmin = [axis, idx](const std::vector<Array> &x) {
        return std::vector<Array>{lax::argmin(x[0], axis, idx)};
      };
      for (const auto &axes : kUnaryAxes) {
        SCOPED_TRACE("axis " + std::to_string(axis) + ", " + axes_str(axes));
        Array x = distinct_f64(batched_shape({3, 4}, axes[0]), rng);
        check_batching(fmax, {x}, axes, {false}, rng);
        check_batching(fmin, {x}, axes, {false}, rng);
      }
    }
  }
  // Derivatives flow around them: x[argmax] through a one-hot mask.
  auto f = [](const Array &x) {
    Array i = lax::argmax(x, 0);
    Array hot = lax::convert_element_type(
        lax::eq(lax::iota(int32, x.shape(), 0), lax::broadcast_in_dim(i, x.shape(), {})), float64);
    return lax::reduce_sum(lax::mul(hot, lax::mul(x, x)), {0});
  };
  expect_array(grad(f)(make({1, 4, 2}, float64)), {0, 8, 0}, {3}, float64);
  Array xs = make({1, 4, 2, 7, 0, 3}, {2, 3}, float64);
  expect_array(vmap(grad(f))(xs), {0, 8, 0, 14, 0, 0}, {2, 3}, float64);
}

// ---- cumulative scans --------------------------------------------------------------------------

namespace {
struct ScanCase {
  Shape shape;
  int64_t axis;
  bool reverse;
};
const std::vector<ScanCase> &scan_cases() {
  static const std::vector<ScanCase> c = {
      {{7}, 0, false},      {{7}, 0, true},         {{3, 5}, 1, false}, {{3, 5}, 0, true},
      {{2, 9, 2}, 1, true}, {{2, 3, 4}, -1, false}, {{1}, 0, false},
  };
  return c;
}
std::string scan_str(const char *name, const ScanCase &c) {
  return std::string(name) + " " + shape_str(c.shape) + " axis " + std::to_string(c.axis) +
         (c.reverse ? " reverse" : "");
}
} // namespace

TEST(RulesReduce, CumsumDerivatives) {
  Rng rng(6);
  for (const ScanCase &c : scan_cases()) {
    SCOPED_TRACE(scan_str("cumsum", c));
    check_derivatives(scan_fn(lax::cumsum, c.axis, c.reverse), {random_f64(c.shape, rng)}, rng);
    FlatFn g = [c](const std::vector<Array> &x) {
      Array s = lax::cumsum(lax::sin(x[0]), c.axis, c.reverse);
      return std::vector<Array>{lax::mul(s, s)};
    };
    check_first_and_second_order(g, {random_f64(c.shape, rng)}, rng);
  }
  // The vjp is the reverse cumsum.
  auto [out, pb] = vjp([](const Array &x) { return lax::cumsum(x, 0); }, make({1, 2, 3}, float64));
  expect_array(pb(make({1, 10, 100}, float64)), {111, 110, 100}, {3}, float64);
}

TEST(RulesReduce, CumprodDerivatives) {
  Rng rng(7);
  for (const ScanCase &c : scan_cases()) {
    SCOPED_TRACE(scan_str("cumprod", c));
    Array x = signed_f64(c.shape, rng);
    check_first_and_second_order(scan_fn(lax::cumprod, c.axis, c.reverse), {x}, rng);
    // Each output is multilinear in x, so central differences are exact at zeros too.
    for (int64_t every : {4, 2}) {
      SCOPED_TRACE("with zeros every " + std::to_string(every));
      check_first_and_second_order(scan_fn(lax::cumprod, c.axis, c.reverse),
                                   {with_zeros(c.shape, rng, every)}, rng);
    }
  }
  // By hand, a zero in the middle: y = [2, 0, 0, 0]; dy3/dx1 = 2 * 3 * 4.
  auto [y, pb] =
      vjp([](const Array &x) { return lax::cumprod(x, 0); }, make({2, 0, 3, 4}, float64));
  expect_array(y, {2, 0, 0, 0}, {4}, float64);
  expect_array(pb(make({0, 0, 0, 1}, float64)), {0, 24, 0, 0}, {4}, float64);
  expect_array(pb(make({1, 1, 1, 1}, float64)), {1, 2 + 6 + 24, 0, 0}, {4}, float64);
}

TEST(RulesReduce, CummaxCumminDerivatives) {
  Rng rng(8);
  for (Scan op : {Scan(lax::cummax), Scan(lax::cummin)}) {
    const char *name = op == Scan(lax::cummax) ? "cummax" : "cummin";
    for (const ScanCase &c : scan_cases()) {
      SCOPED_TRACE(scan_str(name, c));
      check_first_and_second_order(scan_fn(op, c.axis, c.reverse), {distinct_f64(c.shape, rng)},
                                   rng);
      FlatFn g = [op, c](const std::vector<Array> &x) {
        // x + sin(x) is increasing, so the order (and the locations of extrema) is kept.
        Array s = op(lax::add(x[0], lax::sin(x[0])), c.axis, c.reverse);
        return std::vector<Array>{lax::mul(s, lax::sin(s))};
      };
      check_first_and_second_order(g, {distinct_f64(c.shape, rng)}, rng);
    }
  }
}

TEST(RulesReduce, CummaxTiesTakeTheLatestTangent) {
  // Running maxima [1, 3, 3, 3, 5] are reached at positions [0, 1, 2, 2, 4]: on a tie the
  // later position carries the derivative.
  Array x = make({1, 3, 3, 2, 5}, float64);
  auto [y, t] = jvp([](const Array &a) { return lax::cummax(a, 0); }, std::make_tuple(x),
                    std::make_tuple(make({10, 20, 30, 40, 50}, float64)));
  expect_array(y, {1, 3, 3, 3, 5}, {5}, float64);
  expect_array(t, {10, 20, 30, 30, 50}, {5}, float64);
  auto [y2, pb] = vjp([](const Array &a) { return lax::cummax(a, 0); }, x);
  expect_array(pb(make({1, 10, 100, 1000, 10000}, float64)), {1, 10, 1100, 0, 10000}, {5}, float64);
  // Reverse cummin: running minima from the end [1, 2, 2, 2, 5] come from [0, 3, 3, 3, 4].
  Array z = make({1, 3, 4, 2, 5}, float64);
  auto [y3, t3] = jvp([](const Array &a) { return lax::cummin(a, 0, true); }, std::make_tuple(z),
                      std::make_tuple(make({10, 20, 30, 40, 50}, float64)));
  expect_array(y3, {1, 2, 2, 2, 5}, {5}, float64);
  expect_array(t3, {10, 40, 40, 40, 50}, {5}, float64);
}

TEST(RulesReduce, ScanBatching) {
  Rng rng(9);
  struct Case {
    Scan op;
    const char *name;
    bool product = false; // well-scaled values instead of distinct ones
  };
  for (Case op : {Case{lax::cumsum, "cumsum"}, Case{lax::cumprod, "cumprod", true},
                  Case{lax::cummax, "cummax"}, Case{lax::cummin, "cummin"}}) {
    for (const ScanCase &c : scan_cases()) {
      FlatFn f = scan_fn(op.op, c.axis, c.reverse);
      for (const auto &axes : kUnaryAxes) {
        SCOPED_TRACE(scan_str(op.name, c) + ", " + axes_str(axes));
        Shape s = batched_shape(c.shape, axes[0]);
        check_batching(f, {op.product ? signed_f64(s, rng) : distinct_f64(s, rng)}, axes, {true},
                       rng);
      }
    }
  }
}
