// jit composed with every transform, in both orders, against the same transforms run eagerly.
#include "jit_test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {

TEST(JitCompose, JitOfGrad) {
  auto g = jit(grad(loss));
  expect_matches(g(weights(), batch()), grad(loss)(weights(), batch()), Tolerance::of(2e-5));
  EXPECT_EQ(g.stats().misses, 1);
  EXPECT_EQ(g.stats().inline_calls, 0);
}

TEST(JitCompose, GradOfJit) {
  auto jl = jit(loss);
  expect_matches(grad(jl)(weights(), batch()), grad(loss)(weights(), batch()), Tolerance::of(2e-5));
}

TEST(JitCompose, ValueAndGradUnderJit) {
  auto vg = jit(value_and_grad(loss));
  auto [v, g] = vg(weights(), batch());
  auto [v0, g0] = value_and_grad(loss)(weights(), batch());
  expect_matches(v, v0, Tolerance::of(2e-5));
  expect_matches(g, g0, Tolerance::of(2e-5));
}

TEST(JitCompose, VmapOfJit) {
  auto per_row = [](const Array &w, const Array &x) { return loss(w, reshape(x, {1, 4})); };
  auto jv = vmap(jit(per_row), {kNotBatched, 0});
  expect_matches(jv(weights(), batch()), vmap(per_row, {kNotBatched, 0})(weights(), batch()),
                 Tolerance::of(2e-5));
}

TEST(JitCompose, JitOfVmapOfGrad) {
  auto per_row = [](const Array &w, const Array &x) { return loss(w, reshape(x, {1, 4})); };
  auto per_example = vmap(grad(per_row), {kNotBatched, 0});
  auto jitted = jit(per_example);
  Array want = per_example(weights(), batch());
  EXPECT_EQ(want.shape(), (Shape{5, 4, 3}));
  expect_matches(jitted(weights(), batch()), want, Tolerance::of(2e-5));
  EXPECT_EQ(jitted.stats().inline_calls, 0);
}

TEST(JitCompose, JvpOfJit) {
  Array t = ones_like(weights());
  auto jl = jit(loss);
  auto [p, d] = jvp([&](const Array &w) { return jl(w, batch()); }, std::make_tuple(weights()),
                    std::make_tuple(t));
  auto [p0, d0] = jvp([&](const Array &w) { return loss(w, batch()); }, std::make_tuple(weights()),
                      std::make_tuple(t));
  expect_matches(p, p0, Tolerance::of(2e-5));
  expect_matches(d, d0, Tolerance::of(2e-5));
}

TEST(JitCompose, HessianUnderJitMatchesJvpOfGrad) {
  auto f = [](const Array &x) { return sum(sin(x) * x * x); };
  Array x = make({0.5, -1.0, 2.0}, {3}, float64);
  Array h = jit(hessian(f))(x);
  Array h0 = hessian(f)(x);
  expect_matches(h, h0, Tolerance::of(1e-12));
}

TEST(JitCompose, CheckpointInsideJit) {
  auto layer = checkpoint([](const Array &w, const Array &x) { return tanh(matmul(x, w)); });
  auto f = [layer](const Array &w, const Array &x) { return sum(layer(w, x)); };
  expect_matches(jit(grad(f))(weights(), batch()), grad(f)(weights(), batch()),
                 Tolerance::of(2e-5));
}

TEST(JitCompose, JitOfJitCompilesOnce) {
  auto inner = jit([](const Array &x) { return exp(x) * 2.0; });
  auto outer = jit([inner](const Array &x) { return inner(x) + 1.0; });
  Array x = make({0.5, 1.5}, {2}, float32);
  expect_matches(outer(x), exp(x) * 2.0 + 1.0, Tolerance::of(2e-5));
  EXPECT_EQ(inner.stats().misses, 0); // traced through by the outer jit
}

TEST(JitCompose, EvalShapeOfJit) {
  auto jl = jit(loss);
  auto shapes = eval_shape_flat(
      [&](const std::vector<Array> &in) { return std::vector<Array>{jl(in[0], in[1])}; },
      {abstract_of(weights()), abstract_of(batch())});
  ASSERT_EQ(shapes.size(), 1u);
  EXPECT_EQ(shapes[0].str(), "f32[]");
}

TEST(JitCompose, ClosureOverOuterTracerRunsInline) {
  // jit inside vmap, closing over the batched value: not compilable alone, runs op by op.
  Array c = make({1, 2, 3}, {3}, float32);
  auto f = [c](const Array &x) {
    auto inner = jit([x](const Array &y) { return y * x; });
    return inner(c);
  };
  Array xs = make({1, 2}, {2}, float32);
  Array got = vmap(f)(xs);
  expect_array(got, {1, 2, 3, 2, 4, 6}, {2, 3}, float32);
}

TEST(JitCompose, EscapedTracerIsReported) {
  Array leaked;
  auto f = jit([&leaked](const Array &x) {
    leaked = x * 2.0;
    return x;
  });
  f(make({1}, {1}, float32));
  expect_error([&] { (void)(leaked + 1.0); }, {"jit", "escaped"});
}

TEST(JitCompose, ConcretizingATracedValueFails) {
  auto f = jit([](const Array &x) { return x.item<float>() > 0 ? x : -x; });
  expect_error([&] { f(make({1}, {}, float32)); },
               {"traced value of the jit transform", "static argument"});
}

} // namespace
