// Oracle checks shared by the rule tests: random inputs, per-example loops for vmap, central
// finite differences and the adjoint identity for jvp/vjp, first and second order.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <string>

#include "strata/transforms.h"
#include "test_util.h"

namespace strata::testutil::rules_check {

inline constexpr int64_t NB = kNotBatched;
inline constexpr int64_t kBatch = 3;
using Rng = std::mt19937;

/// The scalar v of x's dtype, broadcast to x's shape (lax does not broadcast).
inline Array scalar_like(double v, const Array &x) {
  return lax::broadcast_in_dim(lax::convert_element_type(Array(v), x.dtype()), x.shape(), {});
}
inline Array random_f64(const Shape &shape, Rng &rng, double lo = -1.0, double hi = 1.0) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(static_cast<size_t>(num_elements(shape)));
  for (double &x : v)
    x = dist(rng);
  return make(v, shape, float64);
}
/// Distinct values at least 0.4 apart in random order: no ties, and finite differences stay
/// on one side of every kink of max, min and sort.
inline Array distinct_f64(const Shape &shape, Rng &rng) {
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
inline Shape batched_shape(Shape s, int64_t axis) {
  int64_t r = static_cast<int64_t>(s.size()) + 1;
  s.insert(s.begin() + (axis < 0 ? axis + r : axis), kBatch);
  return s;
}

/// Example i of x along `axis`.
inline Array take(const Array &x, int64_t axis, int64_t i) {
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
inline std::vector<Array> loop(const FlatFn &f, const std::vector<Array> &args,
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

inline double dot(const Array &a, const Array &b) {
  std::vector<double> x = values(a), y = values(b);
  double s = 0;
  for (size_t i = 0; i < x.size(); ++i)
    s += x[i] * y[i];
  return s;
}

/// jvp against central differences in float64, and vjp against jvp: <v, J u> == <J^T v, u>.
/// Every input of f is float64 (integer operands live in the closure).
inline void check_derivatives(const FlatFn &f, const std::vector<Array> &x, Rng &rng) {
  std::vector<Array> u;
  for (const Array &xi : x)
    u.push_back(random_f64(xi.shape(), rng));
  auto [y, ty] = jvp_flat(f, x, u);
  const double h = 1e-6;
  std::vector<Array> yp = f(shifted(x, u, h)), ym = f(shifted(x, u, -h));
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
inline void check_first_and_second_order(const FlatFn &f, const std::vector<Array> &x, Rng &rng) {
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
inline void check_batching(const FlatFn &f, const std::vector<Array> &args,
                           const std::vector<int64_t> &axes, const std::vector<bool> &float_args,
                           Rng &rng) {
  expect_matches(vmap_flat(f, args, axes), loop(f, args, axes), Tolerance::of(1e-13), "vmap");

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
    expect_matches(vmap_flat(inner_vmap, args2, outer), loop(inner_loop, args2, outer),
                   Tolerance::of(1e-13), "nested vmap");
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
  expect_matches(vmap_flat(jvp_fn, jargs, jaxes), loop(jvp_fn, jargs, jaxes), Tolerance::of(1e-13),
                 "vmap of jvp");
  expect_matches(vmap_flat(vjp_fn, vargs, vaxes), loop(vjp_fn, vargs, vaxes), Tolerance::of(1e-13),
                 "vmap of vjp");

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

inline std::string axes_str(const std::vector<int64_t> &axes) {
  std::string s = "in_axes (";
  for (size_t i = 0; i < axes.size(); ++i)
    s += (i ? ", " : "") + (axes[i] == NB ? std::string("-") : std::to_string(axes[i]));
  return s + ")";
}

} // namespace strata::testutil::rules_check
