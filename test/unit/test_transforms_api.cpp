// The typed transforms API: argnums, aux outputs, pytree arguments and outputs, reusable
// pullbacks, linearize, Jacobians and Hessians, eval_shape, custom_jvp, custom_vjp,
// stop_gradient, and the errors each reports. Oracles are hand-derived derivatives, central
// finite differences and per-example loops, never another transform.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

STRATA_TESTS_PRIMITIVES("remat", "custom_jvp_call", "custom_vjp_call");

namespace {

Array f64(std::vector<double> v) { return make(v, float64); }
Array f64(std::vector<double> v, const Shape &s) { return make(v, s, float64); }

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Elementwise map of a double function over a vector.
template <class Fn> std::vector<double> map1(const std::vector<double> &a, Fn fn) {
  std::vector<double> r;
  for (double v : a)
    r.push_back(fn(v));
  return r;
}
template <class Fn>
std::vector<double> map2(const std::vector<double> &a, const std::vector<double> &b, Fn fn) {
  std::vector<double> r;
  for (size_t i = 0; i < a.size(); ++i)
    r.push_back(fn(a[i], b[i]));
  return r;
}

// Central finite-difference Jacobian of f at x (float64), row-major [out..., in...].
std::vector<double> fd_jacobian(const std::function<Array(const Array &)> &f, const Array &x,
                                double h = 1e-6) {
  std::vector<double> xv = values(x);
  size_t m = values(f(x)).size(), n = xv.size();
  std::vector<double> jac(m * n);
  for (size_t j = 0; j < n; ++j) {
    std::vector<double> xp = xv, xm = xv;
    xp[j] += h;
    xm[j] -= h;
    std::vector<double> yp = values(f(Array::from_vector(xp, x.shape())));
    std::vector<double> ym = values(f(Array::from_vector(xm, x.shape())));
    for (size_t i = 0; i < m; ++i)
      jac[i * n + j] = (yp[i] - ym[i]) / (2 * h);
  }
  return jac;
}

double dot(const std::vector<double> &a, const std::vector<double> &b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i)
    s += a[i] * b[i];
  return s;
}

} // namespace

// ---- grad, value_and_grad, aux -----------------------------------------------------------------

TEST(TransformsApi, GradArgnums) {
  // f(x, y, z) = sum(x*y) + sum(sin(z)*x): df/dx = y + sin z, df/dy = x, df/dz = x cos z.
  auto f = [](const Array &x, const Array &y, const Array &z) {
    return sum(x * y) + sum(sin(z) * x);
  };
  Array x = f64({0.5, -1.0, 2.0}), y = f64({1.5, 0.25, -0.75}), z = f64({0.3, 1.1, -2.0});
  std::vector<double> xv = values(x), yv = values(y), zv = values(z);
  std::vector<double> dx = map2(yv, zv, [](double b, double c) { return b + std::sin(c); });
  std::vector<double> dz = map2(xv, zv, [](double a, double c) { return a * std::cos(c); });

  expect_array(grad(f)(x, y, z), dx, {3}, float64, 1e-15);
  expect_array(grad<0>(f)(x, y, z), dx, {3}, float64, 1e-15);
  expect_array(grad<1>(f)(x, y, z), xv, {3}, float64, 1e-15);

  auto g02 = grad<0, 2>(f)(x, y, z);
  static_assert(std::is_same_v<decltype(g02), std::tuple<Array, Array>>);
  expect_array(std::get<0>(g02), dx, {3}, float64, 1e-15);
  expect_array(std::get<1>(g02), dz, {3}, float64, 1e-15);
  // The tuple follows the order of the argnums, not of the arguments.
  auto [gz, gx] = grad<2, 0>(f)(x, y, z);
  expect_array(gz, dz, {3}, float64, 1e-15);
  expect_array(gx, dx, {3}, float64, 1e-15);
}

TEST(TransformsApi, ValueAndGrad) {
  auto f = [](const Array &x, const Array &y) { return sum(exp(x) * y * y); };
  Array x = f64({0.2, -0.4}), y = f64({1.5, -2.0});
  std::vector<double> xv = values(x), yv = values(y);
  double want = 0;
  for (int i = 0; i < 2; ++i)
    want += std::exp(xv[i]) * yv[i] * yv[i];
  auto [v, g] = value_and_grad<1>(f)(x, y);
  EXPECT_EQ(v.shape(), Shape{});
  EXPECT_NEAR(v.item<double>(), want, 1e-14);
  expect_array(g, map2(xv, yv, [](double a, double b) { return 2 * std::exp(a) * b; }), {2},
               float64, 1e-15);
  auto [v0, g0] = value_and_grad(f)(x, y);
  EXPECT_NEAR(v0.item<double>(), want, 1e-14);
  expect_array(g0, map2(xv, yv, [](double a, double b) { return std::exp(a) * b * b; }), {2},
               float64, 1e-15);
  auto [v01, g01] = value_and_grad<0, 1>(f)(x, y);
  EXPECT_NEAR(v01.item<double>(), want, 1e-14);
  expect_matches(std::get<0>(g01), g0, Tolerance::exact());
  expect_matches(std::get<1>(g01), g, Tolerance::exact());
}

TEST(TransformsApi, GradWithAux) {
  // loss = sum((w*x)^2); aux carries the prediction (traced in f) and an integer constant.
  auto f = [](const Array &w, const Array &x) {
    Array pred = w * x;
    std::map<std::string, Array> aux{{"pred", pred}, {"count", Array(int32_t{3})}};
    return std::make_pair(sum(pred * pred), aux);
  };
  Array w = f64({0.5, -2.0, 1.5}), x = f64({3.0, 0.25, -1.0});
  std::vector<double> wv = values(w), xv = values(x);
  std::vector<double> pred = map2(wv, xv, [](double a, double b) { return a * b; });

  auto [g, aux] = grad_with_aux(f)(w, x);
  expect_array(g, map2(wv, xv, [](double a, double b) { return 2 * a * b * b; }), {3}, float64,
               1e-15);
  // aux comes back as concrete values, not tracers of the finished transform.
  EXPECT_EQ(aux.at("pred").tracer(), nullptr);
  expect_array(aux.at("pred"), pred, {3}, float64);
  expect_array(aux.at("count"), {3}, {}, int32);

  auto [va, gx] = value_and_grad_with_aux<1>(f)(w, x);
  EXPECT_NEAR(va.first.item<double>(), dot(pred, pred), 1e-14);
  expect_array(va.second.at("pred"), pred, {3}, float64);
  expect_array(gx, map2(wv, xv, [](double a, double b) { return 2 * a * a * b; }), {3}, float64,
               1e-15);

  auto [g01, aux01] = grad_with_aux<0, 1>(f)(w, x);
  expect_matches(std::get<0>(g01), g, Tolerance::exact());
  expect_matches(std::get<1>(g01), gx, Tolerance::exact());
  expect_array(aux01.at("pred"), pred, {3}, float64);
}

// ---- pytrees -----------------------------------------------------------------------------------

TEST(TransformsApi, GradOfMapParams) {
  // L = sum(tanh(W x + b)^2): dL/du = 2 h (1 - h^2), dL/db = dL/du, dL/dW = outer(dL/du, x).
  using Params = std::map<std::string, Array>;
  Params p{{"w", f64({0.1, -0.2, 0.3, 0.4, 0.5, -0.6}, {2, 3})}, {"b", f64({0.05, -0.1})}};
  Array x = f64({1.0, 2.0, -0.5});
  auto loss = [](const Params &p, const Array &x) {
    Array h = tanh(matmul(p.at("w"), x) + p.at("b"));
    return sum(h * h);
  };
  Params g = grad(loss)(p, x);
  ASSERT_EQ(g.size(), 2u);
  std::vector<double> wv = values(p.at("w")), bv = values(p.at("b")), xv = values(x);
  std::vector<double> du(2), dw(6);
  for (int i = 0; i < 2; ++i) {
    double u = bv[i];
    for (int j = 0; j < 3; ++j)
      u += wv[i * 3 + j] * xv[j];
    double h = std::tanh(u);
    du[i] = 2 * h * (1 - h * h);
    for (int j = 0; j < 3; ++j)
      dw[i * 3 + j] = du[i] * xv[j];
  }
  expect_array(g.at("b"), du, {2}, float64, 1e-14);
  expect_array(g.at("w"), dw, {2, 3}, float64, 1e-14);
}

TEST(TransformsApi, GradOfVectorTupleAndPairArguments) {
  std::vector<Array> ws{f64({1.0, -2.0}), f64({0.5}), f64({3.0, 4.0, -1.0})};
  // L = sum_k (k+1) sum(ws[k]^2) -> 2 (k+1) ws[k]
  std::vector<Array> gv = grad([](const std::vector<Array> &ws) {
    Array s(0.0);
    for (size_t k = 0; k < ws.size(); ++k)
      s = s + static_cast<double>(k + 1) * sum(ws[k] * ws[k]);
    return s;
  })(ws);
  ASSERT_EQ(gv.size(), 3u);
  for (size_t k = 0; k < 3; ++k)
    expect_array(gv[k], map1(values(ws[k]), [&](double v) { return 2.0 * (k + 1) * v; }),
                 ws[k].shape(), float64, 1e-15);

  Array a = f64({1.0, 2.0}), b = f64({-3.0, 0.5});
  auto gt = grad([](const std::tuple<Array, Array> &t) {
    return sum(std::get<0>(t) * std::get<1>(t));
  })(std::make_tuple(a, b));
  expect_matches(std::get<0>(gt), b, Tolerance::exact());
  expect_matches(std::get<1>(gt), a, Tolerance::exact());

  auto gp = grad([](const std::pair<Array, Array> &p) { return sum(exp(p.first) + p.second); })(
      std::make_pair(a, b));
  expect_array(gp.first, map1(values(a), [](double v) { return std::exp(v); }), {2}, float64,
               1e-15);
  expect_array(gp.second, {1.0, 1.0}, {2}, float64);
}

TEST(TransformsApi, GradOfNestedPytrees) {
  using Nested = std::pair<std::tuple<Array, Array>, std::vector<Array>>;
  using Table = std::map<std::string, std::vector<Array>>;
  auto f = [](const Nested &n, const Table &t, const Array &s) {
    const auto &[a, b] = n.first;
    return sum(a * b) + sum(n.second[0] * n.second[1] * s) + sum(exp(t.at("u")[0])) +
           sum(t.at("v")[0] * t.at("v")[1]);
  };
  Array a = f64({1, 2}), b = f64({3, -4}), c = f64({0.5, 1.5, 2.5}), d = f64({-1, 2, 0.25});
  Array u = f64({0.1, -0.3}), v0 = f64({2.0}), v1 = f64({-7.0}), s(2.0);
  Nested n{{a, b}, {c, d}};
  Table t{{"u", {u}}, {"v", {v0, v1}}};
  auto [gn, gt] = grad<0, 1>(f)(n, t, s);
  static_assert(std::is_same_v<decltype(gn), Nested>);
  static_assert(std::is_same_v<decltype(gt), Table>);
  expect_matches(std::get<0>(gn.first), b, Tolerance::exact());
  expect_matches(std::get<1>(gn.first), a, Tolerance::exact());
  expect_matches(gn.second[0], d * 2.0, Tolerance::exact());
  expect_matches(gn.second[1], c * 2.0, Tolerance::exact());
  expect_array(gt.at("u")[0], map1(values(u), [](double x) { return std::exp(x); }), {2}, float64,
               1e-15);
  expect_matches(gt.at("v")[0], v1, Tolerance::exact());
  expect_matches(gt.at("v")[1], v0, Tolerance::exact());
  // The scalar argument alone: d/ds = sum(c*d).
  EXPECT_NEAR(grad<2>(f)(n, t, s).item<double>(), dot(values(c), values(d)), 1e-15);
}

namespace {
// f(p, v) = {"a": p.first * v[0], "b": sin(p.second) + v[1]}
std::map<std::string, Array> pytree_fn(const std::pair<Array, Array> &p,
                                       const std::vector<Array> &v) {
  return {{"a", p.first * v[0]}, {"b", sin(p.second) + v[1]}};
}
} // namespace

TEST(TransformsApi, VjpWithPytreesIsReusable) {
  std::pair<Array, Array> p{f64({1.0, -2.0}), f64({0.3, 1.2})};
  std::vector<Array> v{f64({4.0, 0.5}), f64({-1.0, 2.0})};
  auto [out, pullback] = vjp(pytree_fn, p, v);
  static_assert(std::is_same_v<decltype(out), std::map<std::string, Array>>);
  std::vector<double> p1 = values(p.first), p2 = values(p.second), v0 = values(v[0]);
  expect_array(out.at("a"), map2(p1, v0, [](double x, double y) { return x * y; }), {2}, float64);

  auto check = [&](std::vector<double> ca, std::vector<double> cb) {
    std::map<std::string, Array> ct{{"a", f64(ca)}, {"b", f64(cb)}};
    auto [gp, gv] = pullback(ct);
    static_assert(std::is_same_v<decltype(gp), std::pair<Array, Array>>);
    static_assert(std::is_same_v<decltype(gv), std::vector<Array>>);
    expect_array(gp.first, map2(ca, v0, [](double c, double y) { return c * y; }), {2}, float64,
                 1e-15);
    expect_array(gp.second, map2(cb, p2, [](double c, double x) { return c * std::cos(x); }), {2},
                 float64, 1e-15);
    ASSERT_EQ(gv.size(), 2u);
    expect_array(gv[0], map2(ca, p1, [](double c, double x) { return c * x; }), {2}, float64,
                 1e-15);
    expect_array(gv[1], cb, {2}, float64);
  };
  check({1.0, 0.0}, {0.0, 2.0});
  check({-3.0, 0.5}, {1.0, 1.0}); // a second, different cotangent
  check({1.0, 0.0}, {0.0, 2.0});  // and the first again: nothing was consumed
}

TEST(TransformsApi, JvpWithPytreesMatchesHandAndTransposesVjp) {
  std::pair<Array, Array> p{f64({1.0, -2.0}), f64({0.3, 1.2})};
  std::vector<Array> v{f64({4.0, 0.5}), f64({-1.0, 2.0})};
  std::pair<Array, Array> tp{f64({0.5, 1.0}), f64({-1.0, 3.0})};
  std::vector<Array> tv{f64({2.0, -0.25}), f64({1.0, 1.0})};
  auto [y, ty] = jvp(pytree_fn, std::make_tuple(p, v), std::make_tuple(tp, tv));
  static_assert(std::is_same_v<decltype(ty), std::map<std::string, Array>>);
  std::vector<double> p1 = values(p.first), p2 = values(p.second), v0 = values(v[0]);
  std::vector<double> t1 = values(tp.first), t2 = values(tp.second), tv0 = values(tv[0]),
                      tv1 = values(tv[1]);
  std::vector<double> want_a, want_b;
  for (int i = 0; i < 2; ++i) {
    want_a.push_back(t1[i] * v0[i] + p1[i] * tv0[i]);
    want_b.push_back(std::cos(p2[i]) * t2[i] + tv1[i]);
  }
  expect_array(ty.at("a"), want_a, {2}, float64, 1e-15);
  expect_array(ty.at("b"), want_b, {2}, float64, 1e-15);
  expect_matches(y.at("b"), sin(p.second) + v[1], Tolerance::exact());

  // <ct, J t> == <J^T ct, t>
  std::map<std::string, Array> ct{{"a", f64({0.7, -1.1})}, {"b", f64({2.0, 0.3})}};
  auto [gp, gv] = vjp(pytree_fn, p, v).second(ct);
  double lhs = dot(values(ct.at("a")), want_a) + dot(values(ct.at("b")), want_b);
  double rhs = dot(values(gp.first), t1) + dot(values(gp.second), t2) + dot(values(gv[0]), tv0) +
               dot(values(gv[1]), tv1);
  EXPECT_NEAR(lhs, rhs, 1e-13);
}

TEST(TransformsApi, VmapWithPytreesMatchesLoop) {
  using Params = std::map<std::string, Array>;
  auto f = [](const Params &prm, const std::pair<Array, Array> &xy) {
    return std::make_tuple(sum(prm.at("w") * xy.first), prm.at("b") * xy.second);
  };
  Params prm{{"w", f64({1.0, -2.0, 0.5})}, {"b", f64({3.0, -1.0})}};
  Array xs = f64({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {4, 3});
  Array ys = f64({0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4}, {4, 2});
  std::vector<Array> loop0, loop1;
  for (int i = 0; i < 4; ++i) {
    auto [o0, o1] = f(prm, {xs[i], ys[i]});
    loop0.push_back(o0);
    loop1.push_back(o1);
  }
  Array want0 = stack(loop0), want1 = stack(loop1);

  auto [b0, b1] = vmap(f, {kNotBatched, 0})(prm, std::make_pair(xs, ys));
  expect_matches(b0, want0, Tolerance::of(1e-15));
  expect_matches(b1, want1, Tolerance::of(1e-15));

  // Batch axis 1 of every leaf of the pair (and -1 for the 2-D ys.T), outputs at per-leaf axes.
  auto [c0, c1] = vmap(f, {kNotBatched, 1}, {0, 1})(prm, std::make_pair(xs.T(), ys.T()));
  expect_matches(c0, want0, Tolerance::of(1e-15));
  expect_matches(c1, want1.T(), Tolerance::of(1e-15));
  auto [d0, d1] = vmap(f, {kNotBatched, -1}, {-1})(prm, std::make_pair(xs.T(), ys.T()));
  expect_matches(d0, want0, Tolerance::of(1e-15));
  expect_matches(d1, want1.T(), Tolerance::of(1e-15));

  // Batched params (a vector of per-example weights) with an unbatched input.
  std::vector<Array> ws{xs, ys};
  Array z = f64({2.0});
  auto h = [](const std::vector<Array> &w, const Array &z) {
    return std::map<std::string, Array>{{"s", sum(w[0]) * z}, {"t", w[1] * w[1]}};
  };
  auto bm = vmap(h, {0, kNotBatched})(ws, z);
  std::vector<Array> s_loop, t_loop;
  for (int i = 0; i < 4; ++i) {
    auto m = h({xs[i], ys[i]}, z);
    s_loop.push_back(m.at("s"));
    t_loop.push_back(m.at("t"));
  }
  expect_matches(bm.at("s"), stack(s_loop), Tolerance::of(1e-15));
  expect_matches(bm.at("t"), stack(t_loop), Tolerance::of(1e-15));
}

// ---- linearize, Jacobians, Hessians, eval_shape ------------------------------------------------

TEST(TransformsApi, LinearizeMatchesJvp) {
  auto f = [](const Array &x, const Array &y) { return sin(x) * y + x * x; };
  Array x = f64({0.4, -1.3, 2.0}), y = f64({1.0, 0.5, -2.0});
  auto [y0, lin] = linearize(f, x, y);
  expect_matches(y0, f(x, y), Tolerance::exact());
  std::vector<double> xv = values(x), yv = values(y);
  for (auto [tx, ty] : {std::make_pair(f64({1, 0, 0}), f64({0, 0, 0})),
                        std::make_pair(f64({0.5, -1, 2}), f64({3, 1, -0.5}))}) {
    Array lt = lin(tx, ty);
    expect_matches(lt, jvp(f, std::make_tuple(x, y), std::make_tuple(tx, ty)).second,
                   Tolerance::of(1e-15));
    std::vector<double> txv = values(tx), tyv = values(ty), want;
    for (int i = 0; i < 3; ++i)
      want.push_back(std::cos(xv[i]) * yv[i] * txv[i] + std::sin(xv[i]) * tyv[i] +
                     2 * xv[i] * txv[i]);
    expect_array(lt, want, {3}, float64, 1e-15);
    expect_matches(lin(tx * 2.0, ty * 2.0), lt * 2.0, Tolerance::of(1e-15)); // linear
  }
}

TEST(TransformsApi, JacobiansOfNonSquareFunction) {
  // f: R^3 -> R^2, f(x) = A (x*x) + sin(B x); J = A diag(2x) + diag(cos(Bx)) B.
  std::vector<double> av = {1, -2, 0.5, 0.25, 3, -1}, bv = {0.2, 0.1, -0.4, 1.0, -0.3, 0.6};
  Array A = f64(av, {2, 3}), B = f64(bv, {2, 3});
  auto f = [A, B](const Array &x) { return matmul(A, x * x) + sin(matmul(B, x)); };
  Array x = f64({0.7, -1.2, 0.4});
  std::vector<double> xv = values(x), want(6);
  for (int i = 0; i < 2; ++i) {
    double bx = 0;
    for (int j = 0; j < 3; ++j)
      bx += bv[i * 3 + j] * xv[j];
    for (int j = 0; j < 3; ++j)
      want[i * 3 + j] = av[i * 3 + j] * 2 * xv[j] + std::cos(bx) * bv[i * 3 + j];
  }
  Array jf = jacfwd(f)(x), jr = jacrev(f)(x);
  expect_array(jf, want, {2, 3}, float64, 1e-14);
  expect_array(jr, want, {2, 3}, float64, 1e-14);
  expect_array(jf, fd_jacobian(f, x), {2, 3}, float64, 1e-8);
  expect_array(jr, fd_jacobian(f, x), {2, 3}, float64, 1e-8);

  // Matrix input: shaped out.shape + in.shape.
  auto g = [](const Array &m) { return sum(m * m, {1}) + m[0]; }; // [2,2] -> [2]
  Array m = f64({1, 2, 3, 4}, {2, 2});
  // d(sum_j m_ij^2 + m_0i)/dm_kl = 2 m_kl [k=i] + [k=0, l=i]
  std::vector<double> gj = {2 * 1 + 1, 2 * 2, 0, 0, 0, 1, 2 * 3, 2 * 4};
  expect_array(jacfwd(g)(m), gj, {2, 2, 2}, float64, 1e-15);
  expect_array(jacrev(g)(m), gj, {2, 2, 2}, float64, 1e-15);
}

TEST(TransformsApi, Hessian) {
  // f(x) = sum(x^3) + x0 x1 x2: H_ii = 6 x_i, H_ij = x_k (k the third index).
  auto f = [](const Array &x) { return sum(x * x * x) + prod(x); };
  Array x = f64({0.5, -1.5, 2.0});
  std::vector<double> v = values(x);
  std::vector<double> want = {6 * v[0], v[2], v[1], v[2], 6 * v[1], v[0], v[1], v[0], 6 * v[2]};
  expect_array(hessian(f)(x), want, {3, 3}, float64, 1e-14);
  expect_array(jacrev(jacrev(f))(x), want, {3, 3}, float64, 1e-14);
  expect_array(jacrev(jacfwd(f))(x), want, {3, 3}, float64, 1e-14);
  // And against finite differences of the hand gradient 3x^2 + prod/x.
  auto hand_grad = [](const Array &x) {
    std::vector<double> v = values(x);
    return f64({3 * v[0] * v[0] + v[1] * v[2], 3 * v[1] * v[1] + v[0] * v[2],
                3 * v[2] * v[2] + v[0] * v[1]});
  };
  expect_array(hessian(f)(x), fd_jacobian(hand_grad, x), {3, 3}, float64, 1e-8);
}

TEST(TransformsApi, EvalShapeWithPytrees) {
  auto f = [](const std::map<std::string, Array> &m, const std::vector<Array> &v) {
    return std::make_pair(matmul(m.at("w"), v[0]), std::make_tuple(astype(v[1], float32) * 2.0,
                                                                   sum(m.at("b")), v[1] + v[1]));
  };
  std::map<std::string, Array> m{{"w", ones({2, 3}, float64)}, {"b", ones({4}, float64)}};
  std::vector<Array> v{ones({3}, float64), ones({5}, int32)};
  auto avals = eval_shape(f, m, v);
  ASSERT_EQ(avals.size(), 4u);
  EXPECT_EQ(avals[0].str(), "f64[2]");
  EXPECT_EQ(avals[1].str(), "f32[5]");
  EXPECT_EQ(avals[2].str(), "f64[]");
  EXPECT_EQ(avals[3].str(), "i32[5]");
  // Nothing is computed: a function reading a value fails only when actually run.
  auto reads = [](const Array &x) { return x * x.item<double>(); };
  EXPECT_ANY_THROW(eval_shape(reads, ones({}, float64)));
}

// ---- custom_jvp --------------------------------------------------------------------------------

namespace {
// log(1 + e^x) with the derivative sigmoid(x) = 1 - 1/(1 + e^x), which stays finite where
// e^x overflows; `scale` multiplies the rule so tests can tell it is the one in use.
auto log1pexp(double scale = 1.0) {
  return custom_jvp([](const Array &x) { return log1p(exp(x)); },
                    [scale](const std::tuple<Array> &p, const std::tuple<Array> &t) {
                      const Array &x = std::get<0>(p);
                      return std::get<0>(t) * (1.0 - 1.0 / (1.0 + exp(x))) * scale;
                    });
}
} // namespace

TEST(TransformsApi, CustomJvpRuleIsUsedByJvpAndGrad) {
  auto f = log1pexp(3.0);
  Array x = f64({-2.0, 0.5, 3.0}), t = f64({1.0, -2.0, 0.5});
  std::vector<double> xv = values(x), tv = values(t);
  std::vector<double> sig = map1(xv, sigmoid);
  expect_array(f(x), map1(xv, [](double v) { return std::log1p(std::exp(v)); }), {3}, float64,
               1e-15);

  auto [y, ty] = jvp(f, std::make_tuple(x), std::make_tuple(t));
  expect_matches(y, f(x), Tolerance::exact());
  expect_array(ty, map2(sig, tv, [](double s, double u) { return 3 * s * u; }), {3}, float64,
               1e-14);

  std::vector<double> g3 = map1(sig, [](double s) { return 3 * s; });
  auto sumf = [f](const Array &x) { return sum(f(x)); };
  expect_array(grad(sumf)(x), g3, {3}, float64, 1e-14);
  expect_array(vjp(f, x).second(ones({3}, float64)), g3, {3}, float64, 1e-14);
  std::vector<double> diag = {g3[0], 0, 0, 0, g3[1], 0, 0, 0, g3[2]};
  expect_array(jacfwd(f)(x), diag, {3, 3}, float64, 1e-14);
  expect_array(jacrev(f)(x), diag, {3, 3}, float64, 1e-14);
  // Per-example: vmap over grad.
  expect_array(vmap(grad(f))(x), g3, {3}, float64, 1e-14);
}

TEST(TransformsApi, CustomJvpUnderVmapKeepsTheRule) {
  // The call is batched, not traced through: an outer grad or jvp still sees the rule.
  auto f = log1pexp(3.0);
  Array x = f64({-2.0, 0.5, 3.0}), t = f64({1.0, -2.0, 0.5});
  std::vector<double> g3 = map1(values(x), [](double v) { return 3 * sigmoid(v); });
  expect_array(grad([f](const Array &x) { return sum(vmap(f)(x)); })(x), g3, {3}, float64, 1e-14);
  expect_array(jvp(vmap(f), std::make_tuple(x), std::make_tuple(t)).second,
               map2(g3, values(t), [](double g, double u) { return g * u; }), {3}, float64, 1e-14);
  // Batched over a matrix's columns, with an unbatched second argument.
  auto h = custom_jvp([](const Array &a, const Array &b) { return a * b; },
                      [](const std::tuple<Array, Array> &p, const std::tuple<Array, Array> &t) {
                        auto [a, b] = p;
                        auto [ta, tb] = t;
                        return (ta * b + a * tb) * 2.0;
                      });
  Array m = f64({1, 2, 3, 4, 5, 6}, {2, 3}), b = f64({0.5, -1.0});
  auto loss = [h](const Array &m, const Array &b) { return sum(vmap(h, {1, kNotBatched})(m, b)); };
  auto [gm, gb] = grad<0, 1>(loss)(m, b);
  // d/dm_ij = 2 b_i; d/db_i = 2 sum_j m_ij
  expect_array(gm, {1, 1, 1, -2, -2, -2}, {2, 3}, float64, 1e-15);
  expect_array(gb, {12, 30}, {2}, float64, 1e-15);
}

TEST(TransformsApi, CustomJvpIsNumericallyStable) {
  Array big(800.0); // e^800 overflows float64
  auto naive = [](const Array &x) { return log1p(exp(x)); };
  EXPECT_TRUE(std::isnan(grad(naive)(big).item<double>()));
  auto f = log1pexp();
  EXPECT_EQ(grad(f)(big).item<double>(), 1.0);
  EXPECT_EQ(jvp(f, std::make_tuple(big), std::make_tuple(Array(2.0))).second.item<double>(), 2.0);
}

TEST(TransformsApi, CustomJvpHigherOrderDifferentiatesTheRule) {
  // The (scaled) rule's own derivative: d/dx 3 sigmoid(x) = 3 s (1 - s).
  auto f = log1pexp(3.0);
  for (double v : {-1.5, 0.0, 2.0}) {
    double s = sigmoid(v), want = 3 * s * (1 - s);
    Array x(v);
    EXPECT_NEAR(grad(grad(f))(x).item<double>(), want, 1e-14) << v;
    auto jg = jvp(grad(f), std::make_tuple(x), std::make_tuple(Array(1.0))).second;
    EXPECT_NEAR(jg.item<double>(), want, 1e-14) << v;
    auto gj = grad([f](const Array &z) {
      return jvp(f, std::make_tuple(z), std::make_tuple(Array(1.0))).second;
    })(x);
    EXPECT_NEAR(gj.item<double>(), want, 1e-14) << v;
    // Against finite differences of the first derivative.
    double h = 1e-6;
    double fd =
        (grad(f)(Array(v + h)).item<double>() - grad(f)(Array(v - h)).item<double>()) / (2 * h);
    EXPECT_NEAR(grad(grad(f))(x).item<double>(), fd, 1e-8) << v;
  }
}

TEST(TransformsApi, CustomJvpWithPytreeArgumentsAndOutputs) {
  // f((x, y), z) = (x*y, sum(z)); the rule doubles the first tangent and scales the second by 5.
  using XY = std::pair<Array, Array>;
  auto f = custom_jvp(
      [](const XY &xy, const Array &z) { return std::make_tuple(xy.first * xy.second, sum(z)); },
      [](const std::tuple<XY, Array> &p, const std::tuple<XY, Array> &t) {
        auto [xy, z] = p;
        auto [txy, tz] = t;
        return std::make_tuple((txy.first * xy.second + xy.first * txy.second) * 2.0,
                               sum(tz) * 5.0);
      });
  Array x = f64({1.0, 2.0}), y = f64({-3.0, 0.5}), z = f64({4.0, 5.0, 6.0});
  auto [p0, p1] = f(XY{x, y}, z);
  expect_array(p0, {-3.0, 1.0}, {2}, float64);
  EXPECT_EQ(p1.item<double>(), 15.0);

  auto loss = [f](const XY &xy, const Array &z) {
    auto [a, b] = f(xy, z);
    return sum(a) + b * 2.0;
  };
  auto [gxy, gz] = grad<0, 1>(loss)(XY{x, y}, z);
  expect_matches(gxy.first, y * 2.0, Tolerance::exact());
  expect_matches(gxy.second, x * 2.0, Tolerance::exact());
  expect_array(gz, {10, 10, 10}, {3}, float64);
  // Only z differentiated: the other inputs are constants, their tangents zero in the rule.
  expect_array(grad<1>(loss)(XY{x, y}, z), {10, 10, 10}, {3}, float64);

  auto [out, tout] = jvp(f, std::make_tuple(XY{x, y}, z),
                         std::make_tuple(XY{f64({1, 0}), f64({0, 1})}, f64({1, 1, 1})));
  expect_array(std::get<0>(tout), {2 * -3.0, 2 * 2.0}, {2}, float64);
  EXPECT_EQ(std::get<1>(tout).item<double>(), 15.0);
}

// ---- custom_vjp --------------------------------------------------------------------------------

namespace {
// sin(x) whose backward pass clips the cotangent cos(x) * g to [-0.5, 0.5].
auto clipped_sin() {
  return custom_vjp(
      [](const Array &x) { return sin(x); },
      [](const Array &x) { return std::make_pair(sin(x), cos(x)); },
      [](const Array &c, const Array &g) { return clip(c * g, Array(-0.5), Array(0.5)); });
}
std::vector<double> clipped_cos(const std::vector<double> &x) {
  return map1(x, [](double v) { return std::clamp(std::cos(v), -0.5, 0.5); });
}
} // namespace

TEST(TransformsApi, CustomVjpBwdIsUsedByGrad) {
  auto f = clipped_sin();
  Array x = f64({0.1, 1.4, 2.0, 3.0}); // cos: 0.995 (clipped), 0.17, -0.42, -0.99 (clipped)
  std::vector<double> xv = values(x);
  expect_array(f(x), map1(xv, [](double v) { return std::sin(v); }), {4}, float64, 1e-15);
  auto sumf = [f](const Array &x) { return sum(f(x)); };
  expect_array(grad(sumf)(x), clipped_cos(xv), {4}, float64, 1e-15);
  Array w = f64({0.25, 1, 1, 1});
  // With a cotangent of 0.25 the first entry is no longer clipped.
  std::vector<double> want = clipped_cos(xv);
  want[0] = std::cos(0.1) * 0.25;
  expect_array(vjp(f, x).second(w), want, {4}, float64, 1e-15);
  expect_array(jacrev(f)(x)[1], {0, std::cos(1.4), 0, 0}, {4}, float64, 1e-15);
  // Per-example gradients, and vmap inside grad (the call is batched with fwd and bwd).
  expect_array(vmap(grad(f))(x), clipped_cos(xv), {4}, float64, 1e-15);
  expect_array(grad([f](const Array &x) { return sum(vmap(f)(x)); })(x), clipped_cos(xv), {4},
               float64, 1e-15);
}

namespace {
// sin(x) whose rule clips the derivative: bwd(c, g) = clip(cos x, -0.5, 0.5) * g, linear in g
// (as forward mode needs) and different from sin's derivative wherever |cos x| > 0.5.
auto clipped_derivative_sin() {
  return custom_vjp(
      [](const Array &x) { return sin(x); },
      [](const Array &x) { return std::make_pair(sin(x), clip(cos(x), Array(-0.5), Array(0.5))); },
      [](const Array &c, const Array &g) { return c * g; });
}
// Central differences of f along t at x.
std::vector<double> fd_along(const std::function<Array(const Array &)> &f, const Array &x,
                             const Array &t, double h = 1e-6) {
  std::vector<double> a = values(f(x + t * h)), b = values(f(x - t * h)), out;
  for (size_t i = 0; i < a.size(); ++i)
    out.push_back((a[i] - b[i]) / (2 * h));
  return out;
}
} // namespace

TEST(TransformsApi, CustomVjpForwardModeTransposesBwd) {
  // A correct rule for a non-elementwise function (y = A x + x * w): jvp matches finite
  // differences of the primal, and jacfwd equals jacrev.
  Array a = f64({1, 2, -1, 0.5, 3, 1}, {2, 3});
  auto f =
      custom_vjp([a](const Array &x, const Array &w) { return matmul(a, x) + x[Slice(0, 2)] * w; },
                 [a](const Array &x, const Array &w) {
                   return std::make_pair(matmul(a, x) + x[Slice(0, 2)] * w, std::make_pair(x, w));
                 },
                 [a](const std::pair<Array, Array> &r, const Array &g) {
                   Array gx =
                       matmul(transpose(a), g) + concatenate({g * r.second, zeros({1}, float64)});
                   return std::make_tuple(gx, g * r.first[Slice(0, 2)]);
                 });
  Array x = f64({0.3, -1.2, 2.0}), w = f64({1.5, -0.5});
  Array tx = f64({1.0, 0.5, -2.0}), tw = f64({-1.0, 3.0});
  auto [y, ty] = jvp(f, std::make_tuple(x, w), std::make_tuple(tx, tw));
  expect_matches(y, f(x, w), Tolerance::exact());
  Array both = concatenate({x, w}), tboth = concatenate({tx, tw});
  auto g = [f](const Array &v) { return f(v[Slice(0, 3)], v[Slice(3, 5)]); };
  expect_array(ty, fd_along(g, both, tboth), {2}, float64, 1e-8);
  expect_array(jacfwd(g)(both), values(jacrev(g)(both)), {2, 5}, float64, 1e-14);

  // A rule that differs from the derivative: forward mode uses it, as grad does.
  auto c = clipped_derivative_sin();
  Array xs = f64({0.1, 1.4, 2.0, 3.0}), ts = f64({1.0, 2.0, -1.0, 0.5});
  auto clipped = [](double v) { return std::clamp(std::cos(v), -0.5, 0.5); };
  std::vector<double> want;
  for (int i = 0; i < 4; ++i)
    want.push_back(clipped(values(xs)[i]) * values(ts)[i]);
  auto [ys, tys] = jvp(c, std::make_tuple(xs), std::make_tuple(ts));
  expect_matches(ys, sin(xs), Tolerance::exact());
  expect_array(tys, want, {4}, float64, 1e-15);
  // Where the rule agrees with sin' (|cos x| < 0.5), so do finite differences; elsewhere not.
  std::vector<double> fd = fd_along([](const Array &v) { return sin(v); }, xs, ts);
  EXPECT_NEAR(values(tys)[1], fd[1], 1e-8);
  EXPECT_NEAR(values(tys)[2], fd[2], 1e-8);
  EXPECT_GT(std::fabs(values(tys)[0] - fd[0]), 0.4);
  std::vector<double> diag(16, 0.0);
  for (int i = 0; i < 4; ++i)
    diag[i * 5] = clipped(values(xs)[i]);
  expect_array(jacfwd(c)(xs), diag, {4, 4}, float64, 1e-15);
  expect_array(linearize(c, xs).second(ts), want, {4}, float64, 1e-15);
}

TEST(TransformsApi, CustomVjpForwardModeComposes) {
  // bwd = 2 cos(x) g: the rule's first derivative is 2 cos x, its second -2 sin x.
  auto f = custom_vjp([](const Array &x) { return sin(x); },
                      [](const Array &x) { return std::make_pair(sin(x), cos(x)); },
                      [](const Array &c, const Array &g) { return c * g * 2.0; });
  Array x = f64({-0.7, 0.3, 2.5});
  std::vector<double> xv = values(x);
  auto d1 = map1(xv, [](double v) { return 2 * std::cos(v); });
  auto d2 = map1(xv, [](double v) { return -2 * std::sin(v); });
  Array ones = f64({1, 1, 1});
  // jvp of jvp: the tangent's tangent differentiates the rule; the primal output's outer
  // tangent uses the rule too.
  auto tangent = [f, ones](const Array &x) {
    return jvp(f, std::make_tuple(x), std::make_tuple(ones)).second;
  };
  expect_array(jvp(tangent, std::make_tuple(x), std::make_tuple(ones)).second, d2, {3}, float64,
               1e-14);
  auto primal = [f, ones](const Array &x) {
    return jvp(f, std::make_tuple(x), std::make_tuple(ones)).first;
  };
  expect_array(jvp(primal, std::make_tuple(x), std::make_tuple(ones)).second, d1, {3}, float64,
               1e-14);
  // vmap of jvp against a per-example loop.
  Array xs = f64({0.1, 0.2, 0.3, 1.0, 1.5, 2.0}, {2, 3}), ts = f64({1, 2, 3, -1, 0.5, 2}, {2, 3});
  Array batched = vmap([f](const Array &x, const Array &t) {
    return jvp(f, std::make_tuple(x), std::make_tuple(t)).second;
  })(xs, ts);
  for (int64_t i = 0; i < 2; ++i)
    expect_matches(batched[i], jvp(f, std::make_tuple(xs[i]), std::make_tuple(ts[i])).second,
                   Tolerance::exact());
  // Hessians of a function that uses the custom_vjp inside, both ways round.
  auto h = [f](const Array &x) { return sum(f(x) * 3.0); };
  std::vector<double> hd(9, 0.0);
  for (int i = 0; i < 3; ++i)
    hd[i * 4] = 3 * d2[i];
  expect_array(hessian(h)(x), hd, {3, 3}, float64, 1e-14);
  expect_array(jacrev(jacfwd(h))(x), hd, {3, 3}, float64, 1e-14);
  expect_array(jacfwd(jacfwd(h))(x), hd, {3, 3}, float64, 1e-14);
  // Forward mode over a vmapped custom_vjp.
  expect_array(jvp(vmap(f), std::make_tuple(x), std::make_tuple(ones)).second, d1, {3}, float64,
               1e-15);
}

TEST(TransformsApi, CustomVjpForwardModeIntegerArgumentAndRuleErrors) {
  // An integer argument has no tangent; bwd's cotangent for it is ignored.
  auto f = custom_vjp(
      [](const Array &x, const Array &n) { return x * astype(n, float64); },
      [](const Array &x, const Array &n) { return std::make_pair(x * astype(n, float64), n); },
      [](const Array &n, const Array &g) {
        return std::make_tuple(g * astype(n, float64) * 10.0, zeros_like(n));
      });
  Array x = f64({1.0, 2.0}), n = Array::from_vector(std::vector<int32_t>{3, 4});
  auto [y, ty] = jvp([f, n](const Array &x) { return f(x, n); }, std::make_tuple(x),
                     std::make_tuple(f64({1.0, -1.0})));
  expect_array(ty, {30, -40}, {2}, float64, 1e-15);
  auto bad = custom_vjp([](const Array &x) { return sin(x); },
                        [](const Array &x) { return std::make_pair(sin(x), x); },
                        [](const Array &x, const Array &g) { return sum(g); });
  expect_error([&] { jvp(bad, std::make_tuple(x), std::make_tuple(x)); },
               {"[custom_vjp]", "bwd returned a cotangent of type f64[]"});
}

TEST(TransformsApi, CustomVjpMultipleArgumentsAndPytreeResiduals) {
  // f(x, w) = x * w; bwd scales the true cotangents by 2 (for x) and 3 (for w).
  using Res = std::map<std::string, Array>;
  auto f = custom_vjp(
      [](const Array &x, const Array &w) { return x * w; },
      [](const Array &x, const Array &w) { return std::make_pair(x * w, Res{{"x", x}, {"w", w}}); },
      [](const Res &r, const Array &g) {
        return std::make_tuple(g * r.at("w") * 2.0, g * r.at("x") * 3.0);
      });
  Array x = f64({1.0, -2.0, 0.5}), w = f64({4.0, 0.25, -1.0});
  auto loss = [f](const Array &x, const Array &w) { return sum(f(x, w)); };
  auto [gx, gw] = grad<0, 1>(loss)(x, w);
  expect_matches(gx, w * 2.0, Tolerance::exact());
  expect_matches(gw, x * 3.0, Tolerance::exact());
  expect_matches(grad<1>(loss)(x, w), x * 3.0, Tolerance::exact());

  // A shared, unbatched w under vmap: its cotangent is summed over the batch.
  Array xs = f64({1, 2, 3, 4, 5, 6}, {2, 3});
  auto batched = [f](const Array &xs, const Array &w) {
    return sum(vmap(f, {0, kNotBatched})(xs, w));
  };
  auto [gxs, gw2] = grad<0, 1>(batched)(xs, w);
  expect_array(gxs, {8, 0.5, -2, 8, 0.5, -2}, {2, 3}, float64, 1e-15);
  expect_array(gw2, {15, 21, 27}, {3}, float64, 1e-15);
  // w batched on axis 1 of a matrix instead.
  Array ws = f64({1, 2, 3, 4, 5, 6}, {3, 2});
  auto [gx3, gws] = grad<0, 1>([f](const Array &x, const Array &ws) {
    return sum(vmap(f, {kNotBatched, 1})(x, ws));
  })(x, ws);
  expect_array(gx3, {2 * 3.0, 2 * 7.0, 2 * 11.0}, {3}, float64, 1e-15);
  expect_array(gws, {3, 3, -6, -6, 1.5, 1.5}, {3, 2}, float64, 1e-15);
}

TEST(TransformsApi, CustomVjpPytreeOutputAndTupleCotangent) {
  // One argument: bwd may return the cotangent in a one-element tuple too.
  auto f =
      custom_vjp([](const Array &x) { return std::make_pair(x * x, exp(x)); },
                 [](const Array &x) { return std::make_pair(std::make_pair(x * x, exp(x)), x); },
                 [](const Array &x, const std::pair<Array, Array> &g) {
                   return std::make_tuple(g.first * x * 2.0 + g.second * exp(x) * 10.0);
                 });
  Array x = f64({0.5, -1.0});
  auto g = grad([f](const Array &x) {
    auto [a, b] = f(x);
    return sum(a) + sum(b);
  })(x);
  std::vector<double> xv = values(x);
  expect_array(g, map1(xv, [](double v) { return 2 * v + 10 * std::exp(v); }), {2}, float64, 1e-14);
}

TEST(TransformsApi, CustomVjpGradOfGradDifferentiatesBwd) {
  // bwd = 2 cos(x) g: grad = 2 cos x, grad of grad = -2 sin x.
  auto f = custom_vjp([](const Array &x) { return sin(x); },
                      [](const Array &x) { return std::make_pair(sin(x), cos(x)); },
                      [](const Array &c, const Array &g) { return c * g * 2.0; });
  for (double v : {-0.7, 0.3, 2.5}) {
    EXPECT_NEAR(grad(f)(Array(v)).item<double>(), 2 * std::cos(v), 1e-15);
    EXPECT_NEAR(grad(grad(f))(Array(v)).item<double>(), -2 * std::sin(v), 1e-15);
  }
}

TEST(TransformsApi, CustomVjpWithVectorOutput) {
  // The output's leaf count depends on the value (a vector): counted by an abstract trace.
  auto f = custom_vjp(
      [](const std::vector<Array> &xs) {
        std::vector<Array> out;
        for (const Array &x : xs)
          out.push_back(x * x);
        return out;
      },
      [](const std::vector<Array> &xs) {
        std::vector<Array> out;
        for (const Array &x : xs)
          out.push_back(x * x);
        return std::make_pair(out, xs);
      },
      [](const std::vector<Array> &xs, const std::vector<Array> &g) {
        std::vector<Array> ct; // 4x instead of 2x: proves bwd is used
        for (size_t i = 0; i < xs.size(); ++i)
          ct.push_back(g[i] * xs[i] * 4.0);
        return ct;
      });
  std::vector<Array> xs{f64({1, 2}), f64({-3}), f64({0.5, 0.25, 2})};
  std::vector<Array> ys = f(xs);
  ASSERT_EQ(ys.size(), 3u);
  expect_array(ys[1], {9}, {1}, float64);
  auto g = grad([f](const std::vector<Array> &xs) {
    Array s(0.0);
    for (const Array &y : f(xs))
      s = s + sum(y);
    return s;
  })(xs);
  for (size_t i = 0; i < 3; ++i)
    expect_matches(g[i], xs[i] * 4.0, Tolerance::exact());
}

TEST(TransformsApi, CustomRulesUnderNestedTransforms) {
  auto f = log1pexp(3.0);
  Array x = f64({-1.0, 0.25, 1.5});
  std::vector<double> xv = values(x);
  // hessian = forward over reverse through the rule: diag(3 s (1 - s)).
  std::vector<double> h(9, 0.0);
  for (int i = 0; i < 3; ++i)
    h[i * 4] = 3 * sigmoid(xv[i]) * (1 - sigmoid(xv[i]));
  expect_array(hessian([f](const Array &x) { return sum(f(x)); })(x), h, {3, 3}, float64, 1e-14);
  // Nested vmap inside grad, over a matrix.
  Array m = f64({-1, 0, 1, 2, 3, -2}, {2, 3});
  std::vector<double> want = map1(values(m), [](double v) { return 3 * sigmoid(v); });
  expect_array(grad([f](const Array &m) { return sum(vmap(vmap(f))(m)); })(m), want, {2, 3},
               float64, 1e-14);

  auto c = clipped_sin();
  Array mx = f64({0.1, 1.4, 2.0, 3.0}, {2, 2});
  expect_array(grad([c](const Array &m) { return sum(vmap(vmap(c))(m)); })(mx),
               clipped_cos(values(mx)), {2, 2}, float64, 1e-15);
  expect_array(vmap(vmap(grad(c)))(mx), clipped_cos(values(mx)), {2, 2}, float64, 1e-15);
  // Forward mode through a batched custom_vjp transposes bwd too. clipped_sin clips the
  // product c * g, which is not linear in g: its derivative at g = 0 is c = cos x, unclipped.
  expect_array(jvp(vmap(c), std::make_tuple(f64({0.1, 3.0})), std::make_tuple(f64({1, 1}))).second,
               {std::cos(0.1), std::cos(3.0)}, {2}, float64, 1e-15);
  // eval_shape of both sees f's output types.
  EXPECT_EQ(eval_shape(f, x)[0].str(), "f64[3]");
  EXPECT_EQ(eval_shape(c, mx)[0].str(), "f64[2,2]");
}

// ---- stop_gradient -----------------------------------------------------------------------------

TEST(TransformsApi, StopGradient) {
  Array x = f64({1.5, -2.0});
  // d/dx sum(x * sg(x)) = sg(x) = x, not 2x.
  expect_matches(grad([](const Array &x) { return sum(x * stop_gradient(x)); })(x), x,
                 Tolerance::exact());
  auto [y, ty] = jvp([](const Array &x) { return stop_gradient(x) * x; }, std::make_tuple(x),
                     std::make_tuple(f64({1.0, 1.0})));
  expect_matches(ty, x, Tolerance::exact());
  expect_matches(y, x * x, Tolerance::exact());

  // Pytrees: same structure and values, every leaf constant to grad.
  using M = std::map<std::string, Array>;
  M m{{"a", f64({1, 2})}, {"b", f64({3})}};
  M s = stop_gradient(m);
  expect_matches(s.at("a"), m.at("a"), Tolerance::exact());
  expect_matches(s.at("b"), m.at("b"), Tolerance::exact());
  M g = grad([](const M &m) {
    M c = stop_gradient(m);
    return sum(m.at("a") * c.at("a")) + sum(c.at("b") * c.at("b"));
  })(m);
  expect_matches(g.at("a"), m.at("a"), Tolerance::exact());
  expect_array(g.at("b"), {0}, {1}, float64);
  auto p = stop_gradient(std::make_pair(x, std::vector<Array>{x * 2.0}));
  expect_matches(p.second[0], x * 2.0, Tolerance::exact());
  // A tuple of leaves: d/dx [sum(exp(x)) held constant + x] = 1.
  EXPECT_EQ(grad([](const Array &x) {
              return sum(std::get<1>(stop_gradient(std::make_tuple(x, exp(x))))) + x;
            })(Array(1.0))
                .item<double>(),
            1.0);
}

// ---- errors ------------------------------------------------------------------------------------

TEST(TransformsApi, ErrorsNameTheTransformAndArgument) {
  auto vec_out = [](const Array &x) { return exp(x); };
  expect_error([&] { grad(vec_out)(f64({1, 2})); },
               {"[grad]", "must return a scalar", "f64[2]", "jacrev"});
  expect_error([&] { value_and_grad(vec_out)(f64({1, 2})); },
               {"[value_and_grad]", "scalar", "f64[2]"});
  expect_error([] { grad([](const Array &x) { return astype(x, int32); })(Array(1.0)); },
               {"[grad]", "floating-point scalar", "i32[]"});
  auto two = [](const Array &x, const Array &n) { return sum(x) * astype(n, float64); };
  expect_error([&] { grad<1>(two)(f64({1}), Array(int32_t{2})); },
               {"[grad]", "i32[]", "floating-point"});
  expect_error([&] { grad<0, 1>(two)(f64({1}), Array(int32_t{2})); },
               {"[grad]", "argument 1", "i32[]"});

  FlatFn sum_flat = [](const std::vector<Array> &v) { return std::vector<Array>{sum(v[0])}; };
  expect_error([&] { grad_flat(sum_flat, {f64({1}), f64({2})}, {2}); },
               {"[grad]", "argnums entry 2", "out of range", "2 arguments"});
  expect_error([&] { grad_flat(sum_flat, {f64({1})}, {-1}); }, {"[grad]", "argnums entry -1"});
  expect_error([&] { grad_flat(sum_flat, {f64({1}), Array(int32_t{2})}, {1}); },
               {"[grad]", "differentiated argument 1", "i32[]", "floating-point"});
  expect_error(
      [&] {
        grad_flat([](const std::vector<Array> &v) { return v; }, {f64({1}), f64({2})}, {0, 1});
      },
      {"[grad]", "one scalar", "2 outputs"});

  auto add = [](const Array &x, const Array &y) { return x + y; };
  expect_error([&] { vmap(add, {0, 2})(f64({1, 2}), f64({1, 2, 3, 4}, {2, 2})); },
               {"[vmap]", "in_axes 2", "out of range", "argument 1", "f64[2,2]"});
  expect_error([&] { vmap(add, {-3, 0})(f64({1, 2}), f64({1, 2})); },
               {"[vmap]", "in_axes -3", "argument 0"});
  expect_error([&] { vmap(add, {0})(f64({1, 2}), f64({1, 2})); },
               {"[vmap]", "in_axes has 1 entries for 2 arguments"});
  expect_error([&] { vmap(add)(f64({1, 2, 3}), f64({1, 2, 3, 4})); },
               {"[vmap]", "batch sizes disagree", "argument 1", "f64[4]", "size 4", "3"});
  expect_error([&] { vmap(add, {kNotBatched, kNotBatched})(f64({1}), f64({1})); },
               {"[vmap]", "no argument is batched"});
  expect_error([&] { vmap(add, {0, 0}, {0, 1})(f64({1}), f64({1})); },
               {"[vmap]", "out_axes has 2 entries for 1 outputs"});

  auto [y, pullback] = vjp(vec_out, f64({1, 2, 3}));
  expect_error([&] { pullback(f64({1, 2})); }, {"[vjp]", "cotangent 0", "f64[2]", "f64[3]"});
  expect_error([&] { pullback(make({1, 2, 3}, float32)); },
               {"[vjp]", "cotangent 0", "f32[3]", "f64[3]"});
  // The pullback still works after a bad call.
  expect_array(pullback(f64({1, 1, 1})), map1({1, 2, 3}, [](double v) { return std::exp(v); }), {3},
               float64, 1e-15);

  expect_error([&] { jvp(vec_out, std::make_tuple(f64({1, 2})), std::make_tuple(f64({1}))); },
               {"[jvp]", "tangent 0", "f64[1]", "f64[2]"});

  auto bad_rule = custom_jvp(
      [](const Array &x) { return x * 2.0; },
      [](const std::tuple<Array> &, const std::tuple<Array> &t) { return sum(std::get<0>(t)); });
  expect_error([&] { jvp(bad_rule, std::make_tuple(f64({1, 2})), std::make_tuple(f64({1, 1}))); },
               {"[custom_jvp]", "rule returned tangent", "f64[]", "f64[2]"});
  auto bad_bwd = custom_vjp(
      [](const Array &x, const Array &y) { return x * y; },
      [](const Array &x, const Array &y) { return std::make_pair(x * y, y); },
      [](const Array &y, const Array &g) { return g * y; }); // one cotangent for two inputs
  expect_error([&] { grad([&](const Array &x) { return sum(bad_bwd(x, x)); })(f64({1, 2})); },
               {"[custom_vjp]", "bwd returned 1 cotangents for 2 inputs"});
}
