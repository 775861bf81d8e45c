// The trace levels on elementwise functions: jvp, vjp, grad, vmap, eval_shape, nesting, and
// errors. Oracles: hand-derived derivatives and per-example loops.
#include <cmath>

#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

STRATA_TESTS_PRIMITIVES("checkpoint_name");

namespace {
Array f64(std::vector<double> v) { return make(v, float64); }
} // namespace

TEST(TransformsBasic, JvpOfElementwiseChain) {
  auto f = [](const Array &x) { return lax::mul(lax::sin(x), lax::exp(x)); };
  Array x = f64({0.1, 0.5, -1.2}), t = f64({1.0, 2.0, -0.5});
  auto [y, ty] = jvp(f, std::make_tuple(x), std::make_tuple(t));
  std::vector<double> xv = values(x), tv = values(t), want_y, want_t;
  for (size_t i = 0; i < xv.size(); ++i) {
    double a = xv[i];
    want_y.push_back(std::sin(a) * std::exp(a));
    want_t.push_back(tv[i] * (std::cos(a) * std::exp(a) + std::sin(a) * std::exp(a)));
  }
  expect_array(y, want_y, {3}, float64, 1e-14);
  expect_array(ty, want_t, {3}, float64, 1e-14);
}

TEST(TransformsBasic, VjpAndGradOfElementwise) {
  auto f = [](const Array &x, const Array &y) { return lax::div(lax::tanh(x), y); };
  Array x = f64({0.3, -0.7}), y = f64({2.0, -4.0});
  auto [out, pullback] = vjp(f, x, y);
  auto [gx, gy] = pullback(f64({1.0, 3.0}));
  std::vector<double> xv = values(x), yv = values(y), ct = {1.0, 3.0};
  std::vector<double> wx, wy;
  for (int i = 0; i < 2; ++i) {
    double th = std::tanh(xv[i]);
    wx.push_back(ct[i] * (1 - th * th) / yv[i]);
    wy.push_back(-ct[i] * th / (yv[i] * yv[i]));
  }
  expect_array(gx, wx, {2}, float64, 1e-14);
  expect_array(gy, wy, {2}, float64, 1e-14);
}

TEST(TransformsBasic, SecondDerivativeByNesting) {
  // d/dx sin(x) = cos(x); d2/dx2 = -sin(x), by grad(grad), jvp(grad) and grad(jvp).
  auto f = [](const Array &x) { return lax::sin(x); };
  Array x(0.7);
  auto g = grad(f);
  auto gg = grad(g);
  EXPECT_NEAR(g(x).item<double>(), std::cos(0.7), 1e-15);
  EXPECT_NEAR(gg(x).item<double>(), -std::sin(0.7), 1e-15);
  auto jg = jvp(g, std::make_tuple(x), std::make_tuple(Array(1.0))).second;
  EXPECT_NEAR(jg.item<double>(), -std::sin(0.7), 1e-15);
  auto gj = grad([&](const Array &z) {
    return jvp(f, std::make_tuple(z), std::make_tuple(Array(1.0))).second;
  })(x);
  EXPECT_NEAR(gj.item<double>(), -std::sin(0.7), 1e-15);
  // Third order.
  EXPECT_NEAR(grad(gg)(x).item<double>(), -std::cos(0.7), 1e-15);
}

TEST(TransformsBasic, VmapMatchesLoop) {
  auto f = [](const Array &x, const Array &y) { return lax::add(lax::mul(x, x), y); };
  Array xs = make({1, 2, 3, 4, 5, 6}, {3, 2}, float64);
  Array y = f64({10, 20});
  Array out = vmap(f, {0, kNotBatched})(xs, y);
  expect_array(out, {11, 24, 19, 36, 35, 56}, {3, 2}, float64);
  // in_axes 1 and out_axes 1
  Array out1 = vmap(f, {1, kNotBatched}, {1})(xs.T(), y);
  expect_array(out1, {11, 19, 35, 24, 36, 56}, {2, 3}, float64);
}

TEST(TransformsBasic, VmapOfGradIsPerExampleGrad) {
  auto f = [](const Array &x) { return lax::mul(x, lax::exp(x)); }; // scalar -> scalar
  Array xs = f64({0.0, 1.0, -2.0});
  Array g = vmap(grad(f))(xs);
  std::vector<double> want;
  for (double v : {0.0, 1.0, -2.0})
    want.push_back(std::exp(v) * (1 + v));
  expect_array(g, want, {3}, float64, 1e-14);
  Array g2 = grad([&](const Array &x) { return lax::sin(x); })(Array(0.0));
  EXPECT_NEAR(g2.item<double>(), 1.0, 0);
}

TEST(TransformsBasic, EvalShape) {
  auto avals = eval_shape([](const Array &x) { return lax::exp(x); }, ones({4, 5}, float16));
  ASSERT_EQ(avals.size(), 1u);
  EXPECT_EQ(avals[0].str(), "f16[4,5]");
}

TEST(TransformsBasic, Errors) {
  expect_error([] { grad([](const Array &x) { return lax::exp(x); })(ones({3})); },
               {"[grad]", "scalar", "f32[3]"});
  expect_error([] { grad([](const Array &x) { return lax::exp(x); })(Array(int32_t{3})); },
               {"[grad]", "i32[]", "floating-point"});
  expect_error(
      [] {
        vmap([](const Array &x, const Array &y) { return lax::add(x, y); })(ones({3}), ones({4}));
      },
      {"[vmap]", "batch sizes disagree", "f32[4]"});
  expect_error([] { vmap([](const Array &x) { return x; }, {2})(ones({3})); },
               {"[vmap]", "in_axes 2", "f32[3]"});
  expect_error([] { grad_flat([](const std::vector<Array> &v) { return v; }, {Array(1.0)}, {3}); },
               {"[grad]", "argnums", "3"});
}

TEST(TransformsBasic, EscapedTracerNamesItsTransform) {
  Array leaked;
  grad([&](const Array &x) {
    leaked = x;
    return lax::sin(x);
  })(Array(1.0));
  expect_error([&] { lax::exp(leaked); }, {"[exp]", "grad", "escaped"});
  Array leaked_v;
  vmap([&](const Array &x) {
    leaked_v = x;
    return x;
  })(ones({2}));
  expect_error([&] { lax::neg(leaked_v); }, {"vmap", "escaped"});
}

TEST(TransformsBasic, VmapSelectWithScalarPredicateAndBranches) {
  // select(scalar pred, unbatched scalar, batched x): the unbatched branch is broadcast.
  Array xs = f64({1, 2, 3});
  Array out = vmap([](const Array &x) { return lax::select(Array(true), Array(5.0), x); })(xs);
  expect_array(out, {5, 5, 5}, {3}, float64);
  Array out2 = vmap([](const Array &p, const Array &x) { return lax::select(p, Array(0.0), x); })(
      Array::from_vector(std::vector<bool>{true, false, true}), xs);
  expect_array(out2, {0, 2, 0}, {3}, float64);
  Array out3 = vmap([](const Array &lo, const Array &x) { return lax::clamp(lo, x, Array(2.5)); })(
      f64({0, 2.2, 3}), make({1, 2, 3, 4, 5, 6}, {3, 2}, float64));
  expect_array(out3, {1, 2, 2.5, 2.5, 2.5, 2.5}, {3, 2}, float64);
}

TEST(TransformsBasic, CheckpointNameIsIdentity) {
  Array x = f64({1.5, -2.0});
  Array y = checkpoint_name(x, "h");
  expect_array(y, {1.5, -2.0}, {2}, float64);
  EXPECT_EQ(y.buffer(), x.buffer()); // no copy
  expect_error([] { bind1(*find_primitive("checkpoint_name"), {}, {{"name", std::string("h")}}); },
               {"[checkpoint_name]", "1 operand"});
}

TEST(TransformsBasic, ErrorsNameTheUserArgumentOfPytrees) {
  auto f = [](const std::vector<Array> &v, const Array &c) { return lax::add(v[1], c); };
  std::vector<Array> v = {ones({3}), ones({3})};
  expect_error([&] { vmap(f, {kNotBatched, 5})(v, ones({3})); },
               {"[vmap]", "in_axes 5", "argument 1", "f32[3]"});
  expect_error([&] { vmap(f, {0, 0})(v, ones({4})); },
               {"[vmap]", "batch sizes disagree", "argument 1", "f32[4]"});
  auto g = [](const Array &a, const std::vector<Array> &w) { return sum(a * w[0]) + sum(w[1]); };
  std::vector<Array> w = {ones({2}), Array::from_vector(std::vector<int32_t>{1, 2})};
  expect_error([&] { grad<1>(g)(ones({2}), w); },
               {"[grad]", "argument 1 (leaf 1)", "i32[2]", "floating-point"});
}

TEST(TransformsBasic, LambdasOfArraysCompileAndWork) {
  // The example: a lambda taking Array by value, written with the public ops.
  auto g = strata::grad([](strata::Array x) { return strata::sum(strata::tanh(x) * x); });
  Array x = f64({0.5, -1.0});
  std::vector<double> want;
  for (double v : {0.5, -1.0})
    want.push_back(std::tanh(v) + v * (1 - std::tanh(v) * std::tanh(v)));
  expect_array(g(x), want, {2}, float64, 1e-14);
  // Several arguments and several outputs (a tuple) through vjp and jvp.
  auto f = [](Array a, Array b) { return std::make_tuple(a * b, strata::sin(a)); };
  auto [out, pullback] = vjp(f, x, f64({2.0, 3.0}));
  auto [ga, gb] = pullback(std::make_tuple(f64({1.0, 1.0}), f64({1.0, 0.0})));
  expect_array(ga, {2.0 + std::cos(0.5), 3.0}, {2}, float64, 1e-14);
  expect_array(gb, {0.5, -1.0}, {2}, float64, 1e-14);
  auto [y, ty] = jvp(f, std::make_tuple(x, f64({2.0, 3.0})),
                     std::make_tuple(f64({1.0, 0.0}), f64({0.0, 1.0})));
  expect_array(std::get<0>(ty), {2.0, -1.0}, {2}, float64, 1e-14);
  expect_array(std::get<1>(ty), {std::cos(0.5), 0.0}, {2}, float64, 1e-14);
}
