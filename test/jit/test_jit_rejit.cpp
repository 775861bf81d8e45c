// vmap, jvp and grad of a jitted function are compiled and cached: values against the same
// transforms of the plain function (and per-example loops, jvp of grad), cache hits on repeats.
#include "jit_test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {

// Counter changes over a span of calls, of one jitted function (its transforms included).
struct Delta {
  explicit Delta(JitStats before) : before(before) {}
  JitStats before;
  JitStats of(const JitStats &now) const {
    JitStats d;
    d.hits = now.hits - before.hits;
    d.misses = now.misses - before.misses;
    d.inline_calls = now.inline_calls - before.inline_calls;
    return d;
  }
};

// Runs `run` (a transform of jf, not run before with these types): it compiles, nothing op by op.
template <class J, class F> void expect_compiles(const J &jf, F run) {
  Delta d(jf.stats());
  run();
  EXPECT_GT(d.of(jf.stats()).misses, 0);
  EXPECT_EQ(d.of(jf.stats()).inline_calls, 0);
}

// Runs `run` again: every executable comes from the cache, nothing compiles or runs op by op.
template <class J, class F> void expect_cache_hit(const J &jf, F run) {
  Delta d(jf.stats());
  JitStats global = jit_cache_stats();
  run();
  EXPECT_EQ(d.of(jf.stats()).misses, 0);
  EXPECT_GT(d.of(jf.stats()).hits, 0);
  EXPECT_EQ(d.of(jf.stats()).inline_calls, 0);
  EXPECT_EQ(jit_cache_stats().misses - global.misses, 0);
  EXPECT_EQ(jit_cache_stats().inline_calls - global.inline_calls, 0);
}

TEST(JitRejit, GradOfJitCompilesForwardAndBackward) {
  auto jl = jit(loss);
  Array want = grad(loss)(weights(), batch());
  Delta d(jl.stats());
  expect_matches(grad(jl)(weights(), batch()), want, Tolerance::of(2e-5));
  EXPECT_EQ(d.of(jl.stats()).misses, 2); // the forward pass and the backward pass
  EXPECT_EQ(d.of(jl.stats()).inline_calls, 0);
  expect_cache_hit(
      jl, [&] { expect_matches(grad(jl)(weights(), batch()), want, Tolerance::of(2e-5)); });
  // The forward pass is the function itself: a plain call hits its executable.
  Delta plain(jl.stats());
  expect_matches(jl(weights(), batch()), loss(weights(), batch()), Tolerance::of(2e-5));
  EXPECT_EQ(plain.of(jl.stats()).hits, 1);
  EXPECT_EQ(plain.of(jl.stats()).misses, 0);
}

TEST(JitRejit, GradOfJitAgainstFiniteDifferences) {
  auto f = [](const Array &x) { return sum(sin(x) * x * exp(x * 0.5)); };
  Array x = make({0.3, -1.2, 2.0, 0.7}, {4}, float64);
  Array g = grad(jit(f))(x);
  std::vector<double> xv = values(x), fd;
  for (size_t i = 0; i < xv.size(); ++i) {
    std::vector<double> hi = xv, lo = xv;
    hi[i] += 1e-6;
    lo[i] -= 1e-6;
    fd.push_back((values(f(make(hi, {4}, float64)))[0] - values(f(make(lo, {4}, float64)))[0]) /
                 2e-6);
  }
  expect_array(g, fd, {4}, float64, 1e-7);
}

TEST(JitRejit, VmapOfJitUnbatchedArgument) {
  auto per_row = [](const Array &w, const Array &x) { return loss(w, reshape(x, {1, 4})); };
  auto jf = jit(per_row);
  Array got;
  expect_compiles(jf, [&] { got = vmap(jf, {kNotBatched, 0})(weights(), batch()); });
  // Per-example loop.
  std::vector<Array> rows;
  for (int64_t i = 0; i < 5; ++i)
    rows.push_back(per_row(weights(), index(batch(), {Index(i)})));
  expect_matches(got, stack(rows), Tolerance::of(2e-5));
  expect_cache_hit(jf, [&] {
    expect_matches(vmap(jf, {kNotBatched, 0})(weights(), batch()), stack(rows),
                   Tolerance::of(2e-5));
  });
}

TEST(JitRejit, VmapOfJitNonZeroAxes) {
  auto f = [](const Array &a, const Array &b) { return std::vector<Array>{a * b + 1.0, sum(a)}; };
  auto jf = jit(f);
  Array a = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32);       // batched on axis 1: 3 examples of [2]
  Array b = make({0.5, -1, 2, 3, 1, 0.25}, {3, 2}, float32); // batched on axis 0
  auto run = [&] { return vmap(jf, {1, 0})(a, b); };
  std::vector<Array> got;
  expect_compiles(jf, [&] { got = run(); });
  std::vector<Array> want = vmap(f, {1, 0})(a, b);
  ASSERT_EQ(got.size(), 2u);
  expect_matches(got[0], want[0], Tolerance::of(2e-5));
  expect_matches(got[1], want[1], Tolerance::of(2e-5));
  // Per-example loop for the product.
  for (int64_t i = 0; i < 3; ++i) {
    Array ai = index(moveaxis(a, 1, 0), {Index(i)}), bi = index(b, {Index(i)});
    expect_matches(index(got[0], {Index(i)}), ai * bi + 1.0, Tolerance::of(2e-5));
  }
  expect_cache_hit(jf, [&] { run(); });
  // Another pattern of batch axes is another compiled function.
  Delta d(jf.stats());
  std::vector<Array> got2 = vmap(jf, {0, kNotBatched})(transpose(a), index(b, {Index(0)}));
  std::vector<Array> want2 = vmap(f, {0, kNotBatched})(transpose(a), index(b, {Index(0)}));
  expect_matches(got2[0], want2[0], Tolerance::of(2e-5));
  expect_matches(got2[1], want2[1], Tolerance::of(2e-5));
  EXPECT_EQ(d.of(jf.stats()).misses, 1);
}

TEST(JitRejit, JvpOfJit) {
  auto jl = jit(loss);
  Array tw = ones_like(weights()) * 0.5;
  Array tx =
      make({1, 0, -1, 2, 0.5, 0.5, 1, -2, 3, 0, 1, 1, 0, 0, 1, -1, 2, 2, 0, 1}, {5, 4}, float32);
  auto run = [&] { return jvp(jl, std::make_tuple(weights(), batch()), std::make_tuple(tw, tx)); };
  std::pair<Array, Array> pt;
  expect_compiles(jl, [&] { pt = run(); });
  auto [p, t] = pt;
  auto [p0, t0] = jvp(loss, std::make_tuple(weights(), batch()), std::make_tuple(tw, tx));
  expect_matches(p, p0, Tolerance::of(2e-5));
  expect_matches(t, t0, Tolerance::of(2e-5));
  expect_cache_hit(jl, [&] { run(); });
  // A tangent for the weights only: x stays constant to the jvp.
  auto only_w = [&] {
    return jvp([&](const Array &w) { return jl(w, batch()); }, std::make_tuple(weights()),
               std::make_tuple(tw));
  };
  expect_compiles(jl, [&] { pt = only_w(); });
  auto [p1, t1] = pt;
  auto [p2, t2] = jvp([&](const Array &w) { return loss(w, batch()); }, std::make_tuple(weights()),
                      std::make_tuple(tw));
  expect_matches(p1, p2, Tolerance::of(2e-5));
  expect_matches(t1, t2, Tolerance::of(2e-5));
  expect_cache_hit(jl, [&] { only_w(); });
}

TEST(JitRejit, GradOfGradOfJitMatchesJvpOfGrad) {
  auto f = [](const Array &x) { return sin(x) * x * x + exp(x * 0.25); };
  auto jf = jit(f);
  Array x = make({0.7}, {}, float64);
  auto run = [&] { return grad(grad(jf))(x); };
  Array h;
  expect_compiles(jf, [&] { h = run(); });
  Array h0 = jvp(grad(f), std::make_tuple(x), std::make_tuple(ones_like(x))).second;
  expect_matches(h, h0, Tolerance::of(1e-12));
  expect_cache_hit(jf, [&] { expect_matches(run(), h0, Tolerance::of(1e-12)); });
}

TEST(JitRejit, JvpOfGradOfJitAndHessian) {
  auto f = [](const Array &x) { return sum(sin(x) * x * x); };
  auto jf = jit(f);
  Array x = make({0.5, -1.0, 2.0}, {3}, float64);
  Array v = make({1.0, -2.0, 0.5}, {3}, float64);
  auto hvp = [&] { return jvp(grad(jf), std::make_tuple(x), std::make_tuple(v)).second; };
  Array want = jvp(grad(f), std::make_tuple(x), std::make_tuple(v)).second;
  expect_compiles(jf, [&] { expect_matches(hvp(), want, Tolerance::of(1e-12)); });
  expect_cache_hit(jf, [&] { expect_matches(hvp(), want, Tolerance::of(1e-12)); });
  // hessian = jacfwd(jacrev): vmap of jvp of vjp of the jitted function.
  expect_compiles(jf, [&] { expect_matches(hessian(jf)(x), hessian(f)(x), Tolerance::of(1e-12)); });
  expect_cache_hit(jf, [&] { hessian(jf)(x); });
}

TEST(JitRejit, NestedVmapAndGradOfVmap) {
  auto f = [](const Array &a, const Array &b) { return sum(tanh(a * b)); };
  auto jf = jit(f);
  Array a = make({0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2}, {2, 3, 2}, float32);
  Array b = make({1, -1}, {2}, float32);
  auto vv = [](auto g) { return vmap(vmap(g, {0, kNotBatched}), {0, kNotBatched}); };
  expect_compiles(jf, [&] { expect_matches(vv(jf)(a, b), vv(f)(a, b), Tolerance::of(2e-5)); });
  expect_cache_hit(jf, [&] { vv(jf)(a, b); });
  auto gv = [&](auto g) {
    return grad([g](const Array &a, const Array &b) {
      return sum(vmap(g, {0, kNotBatched})(a, b) * 1.5);
    })(a, b);
  };
  expect_compiles(jf, [&] { expect_matches(gv(jf), gv(f), Tolerance::of(2e-5)); });
  expect_cache_hit(jf, [&] { gv(jf); });
  // vmap of grad of the jitted function.
  auto vg = [&](auto g) { return vmap(grad(g), {0, kNotBatched})(a, b); };
  expect_compiles(jf, [&] { expect_matches(vg(jf), vg(f), Tolerance::of(2e-5)); });
  expect_cache_hit(jf, [&] { vg(jf); });
}

TEST(JitRejit, NonFloatInputsAndOutputs) {
  // An integer argument (zero cotangent) and an integer output (no cotangent).
  auto f = [](const Array &w, const Array &n) {
    Array s = sum(w * astype(n, float32));
    return std::make_pair(s * s, argmax(w));
  };
  auto jf = jit(f);
  Array w = make({0.5, -1.5, 2.0}, {3}, float32);
  Array n = make({1, 2, 3}, {3}, int32);
  auto run = [&](auto g) {
    auto [out, pullback] = vjp(g, w, n);
    auto [gw, gn] = pullback(std::make_pair(ones_like(out.first), zeros_like(out.second)));
    return std::vector<Array>{out.first, out.second, gw, gn};
  };
  std::vector<Array> got, want = run(f);
  expect_compiles(jf, [&] { got = run(jf); });
  for (size_t i = 0; i < got.size(); ++i)
    expect_matches(got[i], want[i], Tolerance::of(2e-5));
  expect_cache_hit(jf, [&] { run(jf); });
  // grad with respect to w only, the integer argument dynamic.
  auto gf = [](auto g) {
    return grad([g](const Array &w, const Array &n) { return g(w, n).first; });
  };
  // The same forward and backward passes as the vjp's: nothing new to compile.
  expect_cache_hit(jf, [&] { expect_matches(gf(jf)(w, n), gf(f)(w, n), Tolerance::of(2e-5)); });
  // vmap over the integer argument.
  Array ns = make({1, 2, 3, 0, 1, 0}, {2, 3}, int32);
  auto vf = [&](auto g) { return vmap(g, {kNotBatched, 0})(w, ns); };
  std::pair<Array, Array> vgot, vwant = vf(f);
  expect_compiles(jf, [&] { vgot = vf(jf); });
  expect_matches(vgot.first, vwant.first, Tolerance::of(2e-5));
  expect_matches(vgot.second, vwant.second, Tolerance::of(2e-5));
}

TEST(JitRejit, StaticArgumentsUnderVmapAndGrad) {
  auto f = [](const Array &x, int k, double s) { return sum(sin(x) * static_cast<double>(k)) * s; };
  auto jf = jit(f);
  Array x = make({0.2, 0.4, -0.6}, {3}, float64);
  Array xs = make({0.2, 0.4, -0.6, 1.0, 2.0, 3.0}, {2, 3}, float64);
  auto g = [&](auto fn, int k) {
    return grad([fn, k](const Array &x) { return fn(x, k, 0.5); })(x);
  };
  auto v = [&](auto fn, int k) {
    return vmap([fn, k](const Array &x) { return fn(x, k, 0.5); })(xs);
  };
  expect_compiles(jf, [&] { expect_matches(g(jf, 3), g(f, 3), Tolerance::of(1e-12)); });
  expect_compiles(jf, [&] { expect_matches(v(jf, 3), v(f, 3), Tolerance::of(1e-12)); });
  expect_cache_hit(jf, [&] {
    g(jf, 3);
    v(jf, 3);
  });
  // Other static values compile again and give their own results.
  Delta d(jf.stats());
  expect_matches(g(jf, 2), g(f, 2), Tolerance::of(1e-12));
  expect_matches(v(jf, 2), v(f, 2), Tolerance::of(1e-12));
  EXPECT_EQ(d.of(jf.stats()).misses, 3); // forward, backward, batched
}

TEST(JitRejit, JitOfVmapOfJitStagesThrough) {
  auto inner = jit([](const Array &x) { return exp(x) * 2.0; });
  auto outer = jit(vmap(inner));
  Array xs = make({0.5, 1.5, -1, 0.25}, {2, 2}, float32);
  expect_matches(outer(xs), exp(xs) * 2.0, Tolerance::of(1e-6));
  EXPECT_EQ(inner.stats().misses, 0); // staged into the outer function
  EXPECT_EQ(outer.stats().misses, 1);
  // grad of a jitted function inside jit: both passes are staged into the outer function.
  auto jl = jit(loss);
  auto jg = jit(grad(jl));
  expect_matches(jg(weights(), batch()), grad(loss)(weights(), batch()), Tolerance::of(2e-5));
  EXPECT_EQ(jl.stats().misses, 0);
  EXPECT_EQ(jg.stats().misses, 1);
  EXPECT_EQ(jg.stats().inline_calls, 0);
}

TEST(JitRejit, EvalShapeOfGradOfJitTracesThrough) {
  auto jl = jit(loss);
  auto shapes = eval_shape_flat(
      [&](const std::vector<Array> &in) { return std::vector<Array>{grad(jl)(in[0], in[1])}; },
      {abstract_of(weights()), abstract_of(batch())});
  ASSERT_EQ(shapes.size(), 1u);
  EXPECT_EQ(shapes[0].str(), "f32[4,3]");
  EXPECT_EQ(jl.stats().misses, 0);
}

TEST(JitRejit, ClosureOverTheTransformsTracerTracesThrough) {
  // The jitted function closes over a tracer of the level that transforms it: it cannot be
  // compiled alone, so that level traces through it (and gets the closure's derivative right).
  auto f = [](const Array &x) {
    auto inner = jit([x](const Array &y) { return y * x; });
    return sum(inner(x));
  };
  Array x = make({0.5, -1, 2}, {3}, float64);
  expect_matches(grad(f)(x), x * 2.0, Tolerance::of(1e-12));
  Array xs = make({1, 2, 3, 4}, {2, 2}, float64);
  expect_matches(vmap(f)(xs), sum(xs * xs, {1}), Tolerance::of(1e-12));
  auto [p, t] = jvp(f, std::make_tuple(x), std::make_tuple(ones_like(x)));
  expect_matches(t, sum(x * 2.0), Tolerance::of(1e-12));
}

} // namespace
