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

#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {

constexpr int64_t NB = kNotBatched;
constexpr int64_t kBatch = 3;
using Rng = std::mt19937;

/// The scalar v of x's dtype, broadcast to x's shape (lax does not broadcast).
Array scalar_like(double v, const Array &x) {
  return lax::broadcast_in_dim(lax::convert_element_type(Array(v), x.dtype()), x.shape(), {});
}
Array random_f64(const Shape &shape, Rng &rng, double lo = -1.0, double hi = 1.0) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(static_cast<size_t>(num_elements(shape)));
  for (double &x : v)
    x = dist(rng);
  return make(v, shape, float64);
}
/// Distinct values at least 0.4 apart in random order: no ties, and finite differences stay
/// on one side of every kink of max, min and sort.
Array distinct_f64(const Shape &shape, Rng &rng) {
  int64_t n = num_elements(shape);
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0.0);
  std::shuffle(v.begin(), v.end(), rng);
  std::uniform_real_distribution<double> jitter(0.0, 0.1);
  for (double &x : v)
    x = 0.5 * x - 0.25 * static_cast<double>(n) + jitter(rng);
  return make(v, shape, float64);
}

/// Shape with the batch axis (kBatch long) inserted at `axis` (negative counts from the end of
/// the batched shape).
Shape batched_shape(Shape s, int64_t axis) {
  int64_t r = static_cast<int64_t>(s.size()) + 1;
  s.insert(s.begin() + (axis < 0 ? axis + r : axis), kBatch);
  return s;
}

/// Example i of x along `axis`.
Array take(const Array &x, int64_t axis, int64_t i) {
  if (axis < 0)
    axis += x.ndim();
  std::vector<int64_t> start(x.ndim(), 0), limit(x.shape().begin(), x.shape().end());
  start[axis] = i;
  limit[axis] = i + 1;
  Shape s = x.shape();
  s.erase(s.begin() + axis);
  return lax::reshape(lax::slice(x, start, limit), s);
}

/// The per-example loop that vmap must reproduce: f on each example, stacked along axis 0.
std::vector<Array> loop(const FlatFn &f, const std::vector<Array> &args,
                        const std::vector<int64_t> &axes) {
  int64_t size = -1;
  for (size_t i = 0; i < args.size(); ++i)
    if (axes[i] != NB)
      size = args[i].shape()[axes[i] < 0 ? axes[i] + args[i].ndim() : axes[i]];
  std::vector<std::vector<Array>> per_out;
  for (int64_t b = 0; b < size; ++b) {
    std::vector<Array> ex;
    for (size_t i = 0; i < args.size(); ++i)
      ex.push_back(axes[i] == NB ? args[i] : take(args[i], axes[i], b));
    std::vector<Array> outs = f(ex);
    per_out.resize(outs.size());
    for (size_t j = 0; j < outs.size(); ++j)
      per_out[j].push_back(outs[j]);
  }
  std::vector<Array> result;
  for (auto &xs : per_out)
    result.push_back(stack(xs, 0));
  return result;
}

void expect_same(const std::vector<Array> &got, const std::vector<Array> &want, double tol,
                 const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(what + ", output " + std::to_string(i));
    expect_array(got[i], values(want[i]), want[i].shape(), want[i].dtype(), tol);
  }
}

double dot(const Array &a, const Array &b) {
  std::vector<double> x = values(a), y = values(b);
  double s = 0;
  for (size_t i = 0; i < x.size(); ++i)
    s += x[i] * y[i];
  return s;
}

/// jvp against central differences in float64, and vjp against jvp: <v, J u> == <J^T v, u>.
/// Every input of f is float64 (integer operands live in the closure).
void check_derivatives(const FlatFn &f, const std::vector<Array> &x, Rng &rng) {
  std::vector<Array> u;
  for (const Array &xi : x)
    u.push_back(random_f64(xi.shape(), rng));
  auto [y, ty] = jvp_flat(f, x, u);
  const double h = 1e-6;
  auto shifted = [&](double s) {
    std::vector<Array> xs;
    for (size_t i = 0; i < x.size(); ++i) {
      std::vector<double> a = values(x[i]), d = values(u[i]);
      for (size_t k = 0; k < a.size(); ++k)
        a[k] += s * d[k];
      xs.push_back(make(a, x[i].shape(), float64));
    }
    return f(xs);
  };
  std::vector<Array> yp = shifted(h), ym = shifted(-h);
  for (size_t j = 0; j < y.size(); ++j) {
    std::vector<double> p = values(yp[j]), m = values(ym[j]), fd;
    for (size_t k = 0; k < p.size(); ++k)
      fd.push_back((p[k] - m[k]) / (2 * h));
    SCOPED_TRACE("jvp vs finite differences, output " + std::to_string(j));
    expect_array(ty[j], fd, y[j].shape(), float64, 1e-7);
  }
  VjpResult r = vjp_flat(f, x);
  double lhs = 0, rhs = 0;
  std::vector<Array> v;
  for (size_t j = 0; j < y.size(); ++j) {
    v.push_back(random_f64(y[j].shape(), rng));
    lhs += dot(v[j], ty[j]);
  }
  std::vector<Array> g = r.pullback(v);
  ASSERT_EQ(g.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(g[i].shape(), x[i].shape());
    rhs += dot(g[i], u[i]);
  }
  EXPECT_NEAR(lhs, rhs, 1e-12 * (1 + std::fabs(lhs))) << "<v, J u> != <J^T v, u>";
}

/// check_derivatives on f, and on its pullback at a fixed cotangent (second order: the jvp and
/// vjp of the vjp rules themselves), and grad of grad vs jvp of grad on a scalar of f.
void check_first_and_second_order(const FlatFn &f, const std::vector<Array> &x, Rng &rng) {
  {
    SCOPED_TRACE("first order");
    check_derivatives(f, x, rng);
  }
  std::vector<Array> v;
  for (const Array &y : f(x))
    v.push_back(random_f64(y.shape(), rng));
  FlatFn pullback = [f, v](const std::vector<Array> &xs) { return vjp_flat(f, xs).pullback(v); };
  {
    SCOPED_TRACE("second order (pullback)");
    check_derivatives(pullback, x, rng);
  }
  // The tangent map as a function of x: its derivatives are the jvp rules' own.
  std::vector<Array> u;
  for (const Array &xi : x)
    u.push_back(random_f64(xi.shape(), rng));
  FlatFn tangent = [f, u](const std::vector<Array> &xs) { return jvp_flat(f, xs, u).second; };
  SCOPED_TRACE("second order (jvp)");
  check_derivatives(tangent, x, rng);
}

/// vmap(f) against the per-example loop, for f, its jvp and its vjp (the derivative rules'
/// outputs batched), nested vmap against a double loop, and the derivatives of vmap(f) (the
/// batch rules' outputs differentiated). float_args: which arguments are differentiated.
void check_batching(const FlatFn &f, const std::vector<Array> &args,
                    const std::vector<int64_t> &axes, const std::vector<bool> &float_args,
                    Rng &rng) {
  expect_same(vmap_flat(f, args, axes), loop(f, args, axes), 1e-13, "vmap");

  // Nested: one more batch axis, last, on every batched argument.
  {
    std::vector<Array> args2;
    std::vector<int64_t> outer;
    for (size_t i = 0; i < args.size(); ++i) {
      if (axes[i] == NB) {
        args2.push_back(args[i]);
        outer.push_back(NB);
        continue;
      }
      std::vector<Array> copies;
      for (int64_t k = 0; k < kBatch; ++k)
        copies.push_back(lax::mul(args[i], scalar_like(1.0 + 0.5 * k, args[i])));
      if (!is_floating(args[i].dtype()))
        copies.assign(static_cast<size_t>(kBatch), args[i]);
      args2.push_back(stack(copies, -1));
      outer.push_back(-1);
    }
    FlatFn inner_vmap = [f, axes](const std::vector<Array> &in) { return vmap_flat(f, in, axes); };
    FlatFn inner_loop = [f, axes](const std::vector<Array> &in) { return loop(f, in, axes); };
    expect_same(vmap_flat(inner_vmap, args2, outer), loop(inner_loop, args2, outer), 1e-13,
                "nested vmap");
  }

  std::vector<size_t> fl;
  for (size_t i = 0; i < args.size(); ++i)
    if (float_args[i])
      fl.push_back(i);
  if (fl.empty())
    return;
  auto restrict = [f, fl](const std::vector<Array> &all) {
    return [f, fl, all](const std::vector<Array> &x) {
      std::vector<Array> a = all;
      for (size_t k = 0; k < fl.size(); ++k)
        a[fl[k]] = x[k];
      return f(a);
    };
  };
  const size_t n = args.size();
  FlatFn jvp_fn = [restrict, fl, n](const std::vector<Array> &in) {
    std::vector<Array> all(in.begin(), in.begin() + n), x, t;
    for (size_t k = 0; k < fl.size(); ++k) {
      x.push_back(all[fl[k]]);
      t.push_back(in[n + k]);
    }
    return jvp_flat(restrict(all), x, t).second;
  };
  std::vector<Array> outs0 = vmap_flat(f, args, axes);
  FlatFn vjp_fn = [restrict, fl, n](const std::vector<Array> &in) {
    std::vector<Array> all(in.begin(), in.begin() + n), x;
    for (size_t k : fl)
      x.push_back(all[k]);
    std::vector<Array> cts(in.begin() + n, in.end());
    return vjp_flat(restrict(all), x).pullback(cts);
  };
  std::vector<Array> jargs = args, vargs = args;
  std::vector<int64_t> jaxes = axes, vaxes = axes;
  for (size_t k : fl) {
    jargs.push_back(random_f64(args[k].shape(), rng));
    jaxes.push_back(axes[k]);
  }
  for (const Array &o : outs0) { // cotangents batched at 0, like vmap's outputs
    vargs.push_back(random_f64(o.shape(), rng));
    vaxes.push_back(0);
  }
  expect_same(vmap_flat(jvp_fn, jargs, jaxes), loop(jvp_fn, jargs, jaxes), 1e-13, "vmap of jvp");
  expect_same(vmap_flat(vjp_fn, vargs, vaxes), loop(vjp_fn, vargs, vaxes), 1e-13, "vmap of vjp");

  FlatFn batched_f = [f, fl, args, axes](const std::vector<Array> &xs) {
    std::vector<Array> a = args;
    for (size_t k = 0; k < fl.size(); ++k)
      a[fl[k]] = xs[k];
    return vmap_flat(f, a, axes);
  };
  std::vector<Array> x;
  for (size_t k : fl)
    x.push_back(args[k]);
  SCOPED_TRACE("derivatives of vmap(f)");
  check_derivatives(batched_f, x, rng);
}

std::string axes_str(const std::vector<int64_t> &axes) {
  std::string s = "in_axes (";
  for (size_t i = 0; i < axes.size(); ++i)
    s += (i ? ", " : "") + (axes[i] == NB ? std::string("-") : std::to_string(axes[i]));
  return s + ")";
}

} // namespace

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
