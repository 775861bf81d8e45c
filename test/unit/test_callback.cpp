// Host callbacks (strata/callback.h): debug_callback and pure_callback eagerly and under jvp,
// grad, vmap, eval_shape and checkpoint, against the values the callback should see.
#include <cmath>

#include "strata/callback.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

STRATA_TESTS_PRIMITIVES("host_callback");

namespace {
Array f64v(std::vector<double> v) { return make(v, float64); }

// A debug callback that records the values it sees.
struct Recorder {
  std::shared_ptr<std::vector<std::vector<double>>> seen =
      std::make_shared<std::vector<std::vector<double>>>();
  HostFn fn() const {
    return [seen = seen](const std::vector<Array> &in) {
      seen->push_back(values(in[0]));
      return std::vector<Array>{};
    };
  }
};

// sin on the host, as a pure callback of x's type.
std::vector<Array> host_sin(const Array &x, VmapMethod m = VmapMethod::Sequential) {
  return pure_callback(
      [](const std::vector<Array> &in) {
        std::vector<double> v = values(in[0]);
        for (double &e : v)
          e = std::sin(e);
        return std::vector<Array>{make(v, in[0].shape(), in[0].dtype())};
      },
      {abstract_of(x)}, {x}, m);
}
} // namespace

TEST(HostCallback, DebugCallbackSeesPrimalValuesUnderTransforms) {
  Recorder r;
  Array x = f64v({0.5, -1.0});
  auto f = [&](const Array &x) {
    Array y = x * 2.0;
    debug_callback(r.fn(), {y});
    return sum(sin(y));
  };
  f(x);
  grad(f)(x);
  jvp(f, std::make_tuple(x), std::make_tuple(f64v({1, 1})));
  ASSERT_EQ(r.seen->size(), 3u);
  for (const auto &v : *r.seen)
    EXPECT_EQ(v, (std::vector<double>{1.0, -2.0}));
  // The gradient is unaffected by the callback.
  expect_array(grad(f)(x), {2 * std::cos(1.0), 2 * std::cos(-2.0)}, {2}, float64, 1e-15);
  // eval_shape computes nothing, so calls nothing.
  r.seen->clear();
  eval_shape(f, x);
  EXPECT_TRUE(r.seen->empty());
}

TEST(HostCallback, DebugCallbackUnderVmapRunsOncePerElementInOrder) {
  Recorder r;
  Array xs = make({1, 2, 3, 4, 5, 6}, {3, 2}, float64);
  vmap([&](const Array &x) {
    debug_callback(r.fn(), {x + 1.0});
    return x;
  })(xs);
  ASSERT_EQ(r.seen->size(), 3u);
  EXPECT_EQ((*r.seen)[0], (std::vector<double>{2, 3}));
  EXPECT_EQ((*r.seen)[2], (std::vector<double>{6, 7}));
  // Nested: the inner axis fastest.
  r.seen->clear();
  vmap(vmap([&](const Array &x) {
    debug_callback(r.fn(), {x});
    return x;
  }))(xs);
  ASSERT_EQ(r.seen->size(), 6u);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ((*r.seen)[i], (std::vector<double>{double(i + 1)}));
}

TEST(HostCallback, PureCallbackValuesAndVmapMethods) {
  Array x = make({0.1, 0.7, -2.0, 1.5, 3.0, -0.4}, {2, 3}, float64);
  std::vector<double> want = values(x);
  for (double &v : want)
    v = std::sin(v);
  expect_array(host_sin(x)[0], want, {2, 3}, float64, 1e-15);
  for (VmapMethod m : {VmapMethod::Sequential, VmapMethod::ExpandDims, VmapMethod::BroadcastAll})
    expect_array(vmap([m](const Array &r) { return host_sin(r, m)[0]; })(x), want, {2, 3}, float64,
                 1e-15);
  // Batched on axis 1, and an unbatched second operand: expand_dims passes it with a
  // leading 1, broadcast_all at full batch size, sequential as it is.
  auto shapes = std::make_shared<std::vector<Shape>>();
  auto cb = [shapes](const std::vector<Array> &in) {
    shapes->push_back(in[1].shape());
    return std::vector<Array>{in[0] + in[1]};
  };
  Array c = make({10, 20}, {2}, float64);
  for (VmapMethod m : {VmapMethod::Sequential, VmapMethod::ExpandDims, VmapMethod::BroadcastAll}) {
    shapes->clear();
    Array got =
        vmap([&](const Array &col,
                 const Array &c) { return pure_callback(cb, {abstract_of(col)}, {col, c}, m)[0]; },
             {1, kNotBatched})(x, c);
    expect_array(got, {10.1, 20.0 + 1.5, 10.7, 23, 8, 19.6}, {3, 2}, float64, 1e-12);
    Shape want_shape = m == VmapMethod::Sequential   ? Shape{2}
                       : m == VmapMethod::ExpandDims ? Shape{1, 2}
                                                     : Shape{3, 2};
    ASSERT_FALSE(shapes->empty());
    EXPECT_EQ(shapes->back(), want_shape);
    EXPECT_EQ(shapes->size(), m == VmapMethod::Sequential ? 3u : 1u);
  }
  expect_error([&] { vmap([](const Array &r) { return host_sin(r, VmapMethod::None)[0]; })(x); },
               {"[pure_callback]", "vmap_method=None"});
}

TEST(HostCallback, PureCallbackIsNotDifferentiable) {
  Array x = f64v({0.5, 1.0});
  expect_error([&] { grad([](const Array &x) { return sum(host_sin(x)[0]); })(x); },
               {"[pure_callback]", "custom_vjp"});
  expect_error(
      [&] {
        jvp([](const Array &x) { return host_sin(x)[0]; }, std::make_tuple(x), std::make_tuple(x));
      },
      {"[pure_callback]", "custom_jvp"});
  // Wrapped in custom_jvp it is: the rule supplies the derivative.
  auto f = custom_jvp([](const Array &x) { return host_sin(x)[0]; },
                      [](const std::tuple<Array> &p, const std::tuple<Array> &t) {
                        return cos(std::get<0>(p)) * std::get<0>(t);
                      });
  expect_array(grad([f](const Array &x) { return sum(f(x)); })(x), {std::cos(0.5), std::cos(1.0)},
               {2}, float64, 1e-15);
}

TEST(HostCallback, ResultsAreChecked) {
  Array x = f64v({1, 2});
  expect_error(
      [&] {
        pure_callback(
            [](const std::vector<Array> &) { return std::vector<Array>{f64v({1, 2, 3})}; },
            {abstract_of(x)}, {x});
      },
      {"[pure_callback]", "returned f64[3] for result 0, expected f64[2]"});
  // A traced call checks too (here under grad, with the error at the forward pass).
  expect_error(
      [&] {
        grad([](const Array &x) {
          pure_callback([](const std::vector<Array> &) { return std::vector<Array>{}; },
                        {abstract_of(x)}, {x});
          return sum(x);
        })(x);
      },
      {"[pure_callback]", "returned 0 arrays, expected 1"});
  expect_error([] { host_callback_at(1 << 30); }, {"[host_callback]", "no callback"});
}

TEST(HostCallback, CheckpointRunsTheCallbackInItsForwardPass) {
  Recorder r;
  auto f = checkpoint_flat([&](const std::vector<Array> &in) {
    debug_callback(r.fn(), {in[0]});
    return std::vector<Array>{sum(sin(in[0]))};
  });
  Array x = f64v({0.25});
  std::vector<Array> g = grad_flat(f, {x});
  expect_array(g[0], {std::cos(0.25)}, {1}, float64, 1e-15);
  // Once in the forward pass, once more when the backward pass replays f.
  ASSERT_EQ(r.seen->size(), 2u);
  EXPECT_EQ((*r.seen)[0], (std::vector<double>{0.25}));
}
