// cond, switch, while_loop, fori_loop and scan: values against unrolled C++ loops, pytree carries,
// the cases (an RNN trained through scan, Newton's square root differentiated through
// while_loop against the analytic derivatives, an ODE integrator in both modes, vmap of loops with
// per-example trip counts, cond under vmap and grad), checkpointing, and bad input.
#include <cmath>
#include <map>

#include "strata/control_flow.h"
#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

STRATA_TESTS_PRIMITIVES("cond", "while", "scan", "trip_count_bound");

namespace {

Array f64(double v) { return Array(v); }
double num(const Array &a) { return a.item<double>(); }

// Newton's method for sqrt(x), x a float64 scalar or array: iterates until every element has
// converged (or 60 steps), so the trip count depends on x.
Array newton_sqrt(const Array &x) {
  auto [y, i] = lax::while_loop(
      [x](const std::pair<Array, Array> &c) {
        return logical_and(max(abs(c.first * c.first - x)) > 1e-13 * max(x), c.second < 60);
      },
      [x](const std::pair<Array, Array> &c) {
        return std::make_pair(0.5 * (c.first + x / c.first), c.second + 1);
      },
      std::make_pair(x, Array(int32_t{0})));
  return y;
}

} // namespace

// ---- Values ---------------------------------------------------------------------------------

TEST(ControlFlow, CondAndSwitchPickABranch) {
  Array x = make({1, 2, 3}), y = make({4, 5, 6});
  auto add = [](const Array &a, const std::pair<Array, Array> &b) {
    return a + b.first * b.second;
  };
  auto sub = [](const Array &a, const std::pair<Array, Array> &b) { return a - b.first; };
  expect_array(lax::cond(Array(true), add, sub, x, std::make_pair(y, y)), {17, 27, 39}, {3},
               float64);
  expect_array(lax::cond(Array(false), add, sub, x, std::make_pair(y, y)), {-3, -3, -3}, {3},
               float64);
  std::vector<std::function<Array(const Array &)>> branches = {
      [](const Array &a) { return a * 2.0; }, [](const Array &a) { return a + 1.0; },
      [](const Array &a) { return -a; }};
  expect_array(lax::switch_(Array(int32_t{1}), branches, x), {2, 3, 4}, {3}, float64);
  // The index is clamped into range, as jax.lax.switch does.
  expect_array(lax::switch_(Array(int32_t{7}), branches, x), {-1, -2, -3}, {3}, float64);
  expect_array(lax::switch_(Array(int64_t{-2}), branches, x), {2, 4, 6}, {3}, float64);
}

TEST(ControlFlow, WhileLoopMatchesALoop) {
  // Halve until below 1, counting the halvings: a pytree carry of a float and an int.
  auto [v, n] = lax::while_loop(
      [](const std::pair<Array, Array> &c) { return c.first >= 1.0; },
      [](const std::pair<Array, Array> &c) { return std::make_pair(c.first / 2.0, c.second + 1); },
      std::make_pair(f64(37.0), Array(int32_t{0})));
  double want = 37.0;
  int count = 0;
  while (want >= 1.0) {
    want /= 2.0;
    ++count;
  }
  EXPECT_DOUBLE_EQ(num(v), want);
  EXPECT_EQ(n.item<int32_t>(), count);
  // A loop that does not run returns its init.
  Array z = lax::while_loop([](const Array &c) { return c > 5.0; },
                            [](const Array &c) { return c + 1.0; }, f64(1.0));
  EXPECT_EQ(num(z), 1.0);
}

TEST(ControlFlow, ForiLoopStaticAndTracedBounds) {
  auto body = [](const Array &i, const std::vector<Array> &c) {
    Array fi = lax::convert_element_type(i, float64);
    return std::vector<Array>{c[0] + fi * fi, c[1] * 1.5};
  };
  std::vector<Array> init{f64(0.0), f64(1.0)};
  double s = 0, p = 1;
  for (int i = 2; i < 9; ++i) {
    s += i * i;
    p *= 1.5;
  }
  std::vector<Array> a = lax::fori_loop(2, 9, body, init);
  std::vector<Array> b = lax::fori_loop(Array(int32_t{2}), Array(int32_t{9}), body, init);
  for (const auto &r : {a, b}) {
    EXPECT_DOUBLE_EQ(num(r[0]), s);
    EXPECT_DOUBLE_EQ(num(r[1]), p);
  }
  EXPECT_EQ(num(lax::fori_loop(5, 3, body, init)[1]), 1.0); // an empty range
}

TEST(ControlFlow, ScanMatchesALoop) {
  Array xs = rnd(1, {5, 3}), w = rnd(2, {3, 3}, 0.5);
  using Carry = std::map<std::string, Array>;
  auto step = [w](const Carry &c, const std::tuple<Array, Array> &x) {
    Array h = tanh(matmul(w, c.at("h")) + std::get<0>(x) * std::get<1>(x));
    Carry next{{"h", h}, {"n", c.at("n") + 1.0}};
    return std::make_pair(next, std::make_pair(h, sum(h)));
  };
  Carry init{{"h", zeros({3}, float64)}, {"n", f64(0)}};
  Array scale = rnd(3, {5});
  for (bool reverse : {false, true}) {
    auto [carry, ys] = lax::scan(step, init, std::make_tuple(xs, scale), std::nullopt, reverse);
    Array h = zeros({3}, float64);
    std::vector<Array> hs(5), ss(5);
    for (int s = 0; s < 5; ++s) {
      int t = reverse ? 4 - s : s;
      h = tanh(matmul(w, h) + xs[t] * scale[t]);
      hs[t] = h;
      ss[t] = sum(h);
    }
    expect_matches(carry.at("h"), h, Tolerance::of(1e-14), "carry");
    EXPECT_EQ(num(carry.at("n")), 5.0);
    expect_matches(ys.first, stack(hs), Tolerance::of(1e-14), "ys");
    expect_matches(ys.second, stack(ss), Tolerance::of(1e-14), "ys sums");
  }
  // No xs: `length` steps; and a zero-length scan stacks nothing.
  auto [c, ys] =
      lax::scan([](const Array &c, const std::tuple<> &) { return std::make_pair(c * 2.0, c); },
                f64(1.0), std::tuple<>(), 4);
  EXPECT_EQ(num(c), 16.0);
  expect_array(ys, {1, 2, 4, 8}, {4}, float64);
  auto [c0, ys0] =
      lax::scan([](const Array &c, const Array &x) { return std::make_pair(c + x, x * 2.0); },
                ones({2}, float64), zeros({0, 2}, float64));
  expect_array(c0, {1, 1}, {2}, float64);
  EXPECT_EQ(ys0.shape(), (Shape{0, 2}));
}

TEST(ControlFlow, EvalShapeTracesOnce) {
  int calls = 0;
  auto f = [&](const Array &x) {
    auto [c, ys] = lax::scan(
        [&](const Array &c, const Array &xi) {
          ++calls;
          return std::make_pair(c + xi, stack({xi, xi}));
        },
        zeros({3}, float64), x);
    return std::make_pair(c, ys);
  };
  std::vector<AbstractValue> out = eval_shape(f, zeros({7, 3}, float64));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape, (Shape{3}));
  EXPECT_EQ(out[1].shape, (Shape{7, 2, 3}));
  EXPECT_LE(calls, 2); // traced at the call (and once for the output avals), never per step
  Array w = lax::while_loop([](const Array &c) { return sum(c) < 10.0; },
                            [](const Array &c) { return c + 1.0; }, zeros({2}, float64));
  auto shapes = eval_shape([](const Array &x) { return newton_sqrt(x); }, w);
  EXPECT_EQ(shapes[0].shape, (Shape{2}));
  // grad through a while_loop needs the trip count, which eval_shape does not have: any works.
  auto g = eval_shape(
      [](const Array &x) { return grad([](const Array &v) { return sum(newton_sqrt(v)); })(x); },
      make({2.0, 3.0}));
  EXPECT_EQ(g[0].shape, (Shape{2}));
}

// ---- The cases ------------------------------------------------------------------------

TEST(ControlFlow, NewtonSqrtGradAndHessianAreAnalytic) {
  auto f = [](const Array &x) { return newton_sqrt(x); };
  for (double x : {0.3, 2.0, 9.0, 150.0}) {
    EXPECT_NEAR(num(f(f64(x))), std::sqrt(x), 1e-12 * std::sqrt(x));
    double d1 = 0.5 / std::sqrt(x), d2 = -0.25 / (x * std::sqrt(x));
    EXPECT_NEAR(num(grad(f)(f64(x))), d1, 1e-10 * std::fabs(d1)) << x;
    EXPECT_NEAR(num(jvp(f, std::make_tuple(f64(x)), std::make_tuple(f64(1.0))).second), d1,
                1e-10 * std::fabs(d1));
    EXPECT_NEAR(num(grad(grad(f))(f64(x))), d2, 1e-8 * std::fabs(d2)) << x;
    EXPECT_NEAR(num(jvp(grad(f), std::make_tuple(f64(x)), std::make_tuple(f64(1.0))).second), d2,
                1e-8 * std::fabs(d2));
    EXPECT_NEAR(num(grad(checkpoint(f))(f64(x))), d1, 1e-10 * std::fabs(d1));
  }
  // Per-example trip counts differ: vmap(grad) and grad(vmap) both mask finished examples.
  Array xs = make({0.3, 2.0, 9.0, 150.0, 1.7});
  std::vector<double> want;
  for (double x : values(xs))
    want.push_back(0.5 / std::sqrt(x));
  expect_array(vmap(grad(f))(xs), want, {5}, float64, 1e-10);
  expect_array(grad([&](const Array &v) { return sum(vmap(f)(v)); })(xs), want, {5}, float64,
               1e-10);
  std::vector<double> want2;
  for (double x : values(xs))
    want2.push_back(-0.25 / (x * std::sqrt(x)));
  expect_array(vmap(grad(grad(f)))(xs), want2, {5}, float64, 1e-8);
  // A checkpoint every 3 iterations gives the same derivative.
  auto f3 = [](const Array &x) {
    return lax::while_loop([x](const Array &y) { return abs(y * y - x) > 1e-13 * x; },
                           [x](const Array &y) { return 0.5 * (y + x / y); }, x,
                           lax::LoopGradOptions{3});
  };
  EXPECT_NEAR(num(grad(f3)(f64(9.0))), 1.0 / 6.0, 1e-10);
  expect_array(vmap(grad(f3))(xs), want, {5}, float64, 1e-10);
}

TEST(ControlFlow, ForiLoopOdeIntegratorBothModes) {
  // y' = a y by forward Euler: y_N = y0 (1 + a h)^N, with analytic derivatives in a and y0.
  const int steps = 30;
  const double h = 0.02;
  auto solve = [&](const Array &p) { // p = (a, y0)
    Array a = p[0];
    return lax::fori_loop(
        0, steps, [&, a](const Array &, const Array &y) { return y + h * a * y; }, p[1]);
  };
  Array p = make({0.7, 1.3});
  double a = 0.7, y0 = 1.3, g = 1 + a * h;
  double y = y0 * std::pow(g, steps);
  std::vector<double> dy = {y0 * steps * h * std::pow(g, steps - 1), std::pow(g, steps)};
  EXPECT_NEAR(num(solve(p)), y, 1e-12 * y);
  expect_array(grad(solve)(p), dy, {2}, float64, 1e-11);
  for (int i = 0; i < 2; ++i) {
    Array e = make({i == 0 ? 1.0 : 0.0, i == 1 ? 1.0 : 0.0});
    EXPECT_NEAR(num(jvp(solve, std::make_tuple(p), std::make_tuple(e)).second), dy[i],
                1e-11 * std::fabs(dy[i]));
  }
  // The same with traced bounds (a while_loop) and with a checkpoint every 5 steps.
  auto solve_traced = [&](const Array &q) {
    Array a = q[0];
    return lax::fori_loop(
        Array(int32_t{0}), Array(int32_t{steps}),
        [&, a](const Array &, const Array &y) { return y + h * a * y; }, q[1]);
  };
  auto solve_ckpt = [&](const Array &q) {
    Array a = q[0];
    return lax::fori_loop(
        0, steps, [&, a](const Array &, const Array &y) { return y + h * a * y; }, q[1],
        lax::LoopGradOptions{5});
  };
  expect_array(grad(solve_traced)(p), dy, {2}, float64, 1e-11);
  expect_array(grad(solve_ckpt)(p), dy, {2}, float64, 1e-11);
  // Second order: d2y/da2 = y0 N (N-1) h^2 (1 + a h)^(N-2).
  double d2 = y0 * steps * (steps - 1) * h * h * std::pow(g, steps - 2);
  auto dyda = [&](const Array &q) { return grad(solve)(q)[0]; };
  EXPECT_NEAR(num(grad(dyda)(p)[0]), d2, 1e-10 * d2);
}

TEST(ControlFlow, RnnOverFiftyStepsTrainsWithGrad) {
  using Params = std::map<std::string, Array>;
  const int T = 50, H = 6;
  Params params{{"w", rnd(1, {H, H}, 0.3)}, {"u", rnd(2, {H, 2}, 0.5)}, {"v", rnd(3, {H}, 0.5)}};
  Array xs = rnd(4, {T, 2});
  Array target = sin(lax::convert_element_type(lax::iota(int32, {T}), float64) * 0.3);
  auto loss = [&](const Params &p) {
    auto [h, ys] = lax::scan(
        [p](const Array &h, const Array &x) {
          Array next = tanh(matmul(p.at("w"), h) + matmul(p.at("u"), x));
          return std::make_pair(next, sum(next * p.at("v")));
        },
        zeros({H}, float64), xs);
    return mean((ys - target) * (ys - target));
  };
  auto unrolled = [&](const Params &p) {
    Array h = zeros({H}, float64), acc = f64(0);
    for (int t = 0; t < T; ++t) {
      h = tanh(matmul(p.at("w"), h) + matmul(p.at("u"), xs[t]));
      Array d = sum(h * p.at("v")) - target[t];
      acc = acc + d * d;
    }
    return acc / double(T);
  };
  EXPECT_NEAR(num(loss(params)), num(unrolled(params)), 1e-13);
  Params g = grad(loss)(params), gu = grad(unrolled)(params);
  for (const auto &[k, v] : g)
    expect_matches(v, gu.at(k), Tolerance::of(1e-11), "grad " + k);
  double first = num(loss(params));
  for (int step = 0; step < 30; ++step) {
    Params gs = grad(loss)(params);
    for (auto &[k, v] : params)
      v = v - 0.5 * gs.at(k);
  }
  double last = num(loss(params));
  EXPECT_LT(last, 0.7 * first) << first << " -> " << last;
}

TEST(ControlFlow, VmapOfWhileWithPerExampleTripCounts) {
  auto halvings = [](const Array &x) {
    return lax::while_loop([](const std::pair<Array, Array> &c) { return c.first >= 1.0; },
                           [](const std::pair<Array, Array> &c) {
                             return std::make_pair(c.first * 0.5, c.second + 1);
                           },
                           std::make_pair(x, Array(int32_t{0})));
  };
  Array xs = make({0.5, 1.5, 10.0, 1000.0, 3.0});
  auto [v, n] = vmap(halvings)(xs);
  std::vector<double> wv, wn;
  for (double x : values(xs)) { // the per-example oracle
    int k = 0;
    while (x >= 1.0) {
      x *= 0.5;
      ++k;
    }
    wv.push_back(x);
    wn.push_back(k);
  }
  expect_array(v, wv, {5}, float64);
  expect_array(n, wn, {5}, int32);
  // Batched only through a captured value (the bound), with an unbatched init.
  Array limits = make({1.0, 4.0, 20.0});
  Array counts = vmap([](const Array &lim) {
    return lax::while_loop([lim](const Array &c) { return c < lim; },
                           [](const Array &c) { return c * 2.0 + 1.0; }, f64(0.0));
  })(limits);
  expect_array(counts, {1, 7, 31}, {3}, float64);
}

TEST(ControlFlow, CondUnderVmapAndGrad) {
  auto f = [](const Array &x) {
    return lax::cond(
        x > 0.0, [](const Array &v) { return sin(v) * v; }, [](const Array &v) { return exp(v); },
        x);
  };
  Array xs = make({-1.0, 0.5, 2.0, -0.3});
  std::vector<double> want, dwant;
  for (double x : values(xs)) {
    want.push_back(x > 0 ? std::sin(x) * x : std::exp(x));
    dwant.push_back(x > 0 ? std::sin(x) + x * std::cos(x) : std::exp(x));
  }
  expect_array(vmap(f)(xs), want, {4}, float64, 1e-15);
  expect_array(vmap(grad(f))(xs), dwant, {4}, float64, 1e-14);
  expect_array(grad([&](const Array &v) { return sum(vmap(f)(v)); })(xs), dwant, {4}, float64,
               1e-14);
  expect_array(jvp(vmap(f), std::make_tuple(xs), std::make_tuple(ones_like(xs))).second, dwant, {4},
               float64, 1e-14);
  // An unbatched predicate over batched operands stays one cond.
  Array ys = vmap([](const Array &v) {
    return lax::cond(
        Array(true), [](const Array &a) { return a * 3.0; }, [](const Array &a) { return a; }, v);
  })(xs);
  expect_array(ys, {-3.0, 1.5, 6.0, -0.9}, {4}, float64, 1e-15);
  // switch with a batched index.
  std::vector<std::function<Array(const Array &)>> br = {[](const Array &a) { return a; },
                                                         [](const Array &a) { return a * a; },
                                                         [](const Array &a) { return -a; }};
  Array idx = Array::from_vector(std::vector<int32_t>{2, 0, 1, 5});
  Array s = vmap([&](const Array &i, const Array &v) { return lax::switch_(i, br, v); })(idx, xs);
  expect_array(s, {1.0, 0.5, 4.0, 0.3}, {4}, float64, 1e-15);
}

TEST(ControlFlow, CheckpointInsideABodyAndSegments) {
  Array w = rnd(5, {4, 4}, 0.4), xs = rnd(6, {12, 4});
  auto step = [](const Array &h, const Array &x, const Array &w) { return tanh(matmul(w, h) + x); };
  auto run = [&](int mode, int64_t every) {
    return [=](const Array &wv) {
      auto body = [=](const Array &h, const Array &x) {
        Array next = mode == 1 ? checkpoint(step)(h, x, wv) : step(h, x, wv);
        return std::make_pair(next, sum(next));
      };
      auto [h, ys] = lax::scan(body, zeros({4}, float64), xs, std::nullopt, mode == 2, 1,
                               lax::LoopGradOptions{every});
      return sum(h) + sum(ys * ys);
    };
  };
  auto unrolled = [&](bool reverse) {
    return [=](const Array &wv) {
      Array h = zeros({4}, float64), acc = f64(0);
      for (int s = 0; s < 12; ++s) {
        h = step(h, xs[reverse ? 11 - s : s], wv);
        acc = acc + sum(h) * sum(h);
      }
      return sum(h) + acc;
    };
  };
  Array want = grad(unrolled(false))(w), want_rev = grad(unrolled(true))(w);
  expect_matches(grad(run(0, 1))(w), want, Tolerance::of(1e-12), "plain");
  expect_matches(grad(run(1, 1))(w), want, Tolerance::of(1e-12), "checkpoint in the body");
  expect_matches(grad(run(0, 3))(w), want, Tolerance::of(1e-12), "a carry every 3 steps");
  expect_matches(grad(run(2, 4))(w), want_rev, Tolerance::of(1e-12),
                 "reverse, a carry every 4 steps");
  expect_error([&] { grad(run(0, 5))(w); }, {"[scan]", "checkpoint_every (5)", "length (12)"});
}

TEST(ControlFlow, NestedLoopsAndHigherOrder) {
  // A scan whose body runs a while_loop (traced bounds) that closes over the scan's carry and
  // over the differentiated argument.
  Array xs = rnd(7, {4, 3}, 0.5);
  auto f = [&](const Array &a) {
    auto [h, ys] = lax::scan(
        [a](const Array &h, const Array &x) {
          Array inner = lax::fori_loop(
              Array(int32_t{0}), Array(int32_t{3}),
              [a, h, x](const Array &, const Array &v) { return tanh(v * a + h * 0.5 + x); }, h);
          return std::make_pair(inner, sum(inner));
        },
        zeros({3}, float64), xs);
    return sum(h) + sum(ys);
  };
  auto g = [&](const Array &a) {
    Array h = zeros({3}, float64), acc = f64(0);
    for (int t = 0; t < 4; ++t) {
      Array v = h;
      for (int k = 0; k < 3; ++k)
        v = tanh(v * a + h * 0.5 + xs[t]);
      h = v;
      acc = acc + sum(h);
    }
    return sum(h) + acc;
  };
  Array a = make({0.3, -0.2, 0.6});
  expect_matches(f(a), g(a), Tolerance::of(1e-14), "value");
  expect_matches(grad(f)(a), grad(g)(a), Tolerance::of(1e-12), "grad");
  expect_matches(hessian([&](const Array &v) { return f(v); })(a),
                 hessian([&](const Array &v) { return g(v); })(a), Tolerance::of(1e-10), "hessian");
  expect_matches(jacrev(grad(f))(a), hessian([&](const Array &v) { return g(v); })(a),
                 Tolerance::of(1e-10), "grad of grad");
  Array pts = stack({a, a * 0.5, -a});
  expect_matches(vmap(grad(f))(pts), vmap(grad(g))(pts), Tolerance::of(1e-12), "vmap of grad");
}

TEST(ControlFlow, NoBuffersOutliveTheTransforms) {
  Array w = rnd(1, {8, 8}, 0.3), xs = rnd(2, {10, 8});
  auto loss = [&](const Array &v) {
    auto [h, ys] = lax::scan(
        [v](const Array &h, const Array &x) {
          Array n = tanh(matmul(v, h) + x);
          return std::make_pair(n, sum(n));
        },
        zeros({8}, float64), xs);
    return sum(ys) + sum(newton_sqrt(h * h + 1.0));
  };
  Array g0 = grad(loss)(w);
  g0 = Array();
  int64_t base = memory_stats().live_bytes, buffers = memory_stats().live_buffers;
  for (int i = 0; i < 5; ++i) {
    Array g = grad(loss)(w);
    Array j = jvp(grad(loss), std::make_tuple(w), std::make_tuple(w)).second;
    Array v = vmap(grad(loss))(stack({w, w}));
  }
  EXPECT_EQ(memory_stats().live_bytes, base);
  EXPECT_EQ(memory_stats().live_buffers, buffers);
}

// ---- Bad input --------------------------------------------------------------------------------

TEST(ControlFlow, MismatchedBodiesAndPredicatesAreNamed) {
  Array x3 = zeros({3}, float32), x4 = zeros({4}, float32);
  using V = std::vector<Array>;
  expect_error(
      [&] {
        lax::while_loop([](const V &) { return Array(true); },
                        [&](const V &c) { return V{c[0], x3}; }, V{x3, x4});
      },
      {"[while_loop] body returns f32[3] for carry 1, expected f32[4]"});
  expect_error(
      [&] {
        lax::while_loop([](const V &) { return Array(true); }, [&](const V &c) { return V{c[0]}; },
                        V{x3, x4});
      },
      {"[while_loop] body returns 1 values for 2 carries"});
  expect_error(
      [&] {
        lax::while_loop([](const Array &c) { return sum(c); }, [](const Array &c) { return c; },
                        x3);
      },
      {"[while_loop] cond_fun must return one boolean scalar, got f32[]"});
  expect_error(
      [&] {
        lax::while_loop([](const Array &c) { return c > 0.0f; }, [](const Array &c) { return c; },
                        x3);
      },
      {"[while_loop]", "bool[3]"});
  expect_error(
      [&] {
        lax::cond(
            Array(true), [](const Array &a) { return a; },
            [](const Array &a) { return lax::convert_element_type(a, float64); }, x3);
      },
      {"[cond] true_fn returns f32[3] for output 0 where false_fn returns f64[3]"});
  expect_error(
      [&] {
        lax::cond(
            make({1, 0}, bool_), [](const Array &a) { return a; }, [](const Array &a) { return a; },
            x3);
      },
      {"[cond] the predicate must be a boolean scalar, got bool[2]"});
  expect_error(
      [&] {
        lax::cond(
            Array(1.0f), [](const Array &a) { return a; }, [](const Array &a) { return a; }, x3);
      },
      {"[cond] the predicate must be a boolean scalar, got f32[]"});
  std::vector<std::function<Array(const Array &)>> br = {[](const Array &a) { return a; }};
  expect_error([&] { lax::switch_(Array(0.5f), br, x3); },
               {"[switch] the index must be an integer scalar, got f32[]"});
  expect_error(
      [&] {
        lax::scan([](const Array &c, const Array &x) { return std::make_pair(x, x); }, x4,
                  zeros({5, 3}, float32));
      },
      {"[scan] body returns f32[3] for carry 0, expected f32[4]"});
  expect_error(
      [&] {
        lax::scan([](const Array &c, const V &x) { return std::make_pair(c, c); }, x4,
                  V{zeros({5, 4}), zeros({6, 4})});
      },
      {"[scan]", "has length 6, leaf 0 has 5"});
  expect_error(
      [&] {
        lax::scan([](const Array &c, const Array &x) { return std::make_pair(c, c); }, x4,
                  zeros({5, 4}), 7);
      },
      {"[scan] length is 7 but xs have length 5"});
  expect_error([&] { lax::fori_loop(0, 3, [&](const Array &, const Array &) { return x4; }, x3); },
               {"[fori_loop] body returns f32[4] for carry 0, expected f32[3]"});
}

TEST(ControlFlow, PrimitivesAreListed) {
  std::vector<std::string> names;
  for (const ControlFlowPrimitive &p : control_flow_primitives())
    names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"cond", "scan", "while_loop"}));
}
