// jvp, vjp and batch rules of dot_general and sort. Oracles: central finite differences in
// float64, the adjoint identity <v, J u> == <J^T v, u>, second order against finite
// differences of the first-order rules, a float64 reference for preferred_element_type, and
// per-example loops for vmap (in_axes 0, 1, -1, unbatched operands, nested).
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
  auto [y, t] = jvp(
      [keys](const Array &v) {
        return lax::sort({keys, v}, 0)[1];
      },
      std::make_tuple(make({5, 6, 7, 8}, float64)), std::make_tuple(make({1, 2, 3, 4}, float64)));
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
      expect_same(vmap_flat(kv, {k, v, p}, axes), loop(kv, {k, v, p}, axes), 0.0,
                  "vmap with the integer payload");
    }
  }
}
