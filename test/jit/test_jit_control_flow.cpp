// Control flow under jit: cond, switch, while_loop, fori_loop and scan compiled for the CPU
// against eager evaluation of the same functions, alone, nested, with pytree carries and under
// jvp, grad and vmap; staged as strata.cond/while/scan (one trace of each sub-function).
#include <map>

#include "jit_test_util.h"
#include "strata/control_flow.h"

using namespace strata;
using namespace strata::testutil;

namespace {

/// jit(f)(args...) equals f(args...) leaf by leaf, compiled once and never run op by op; and
/// the GPU path lowers it for sm_90 down to LLVM IR (host code and kernels) without a device.
template <class F, class... Args> void expect_jit_matches(F f, const Args &...args) {
  JitOptions gpu;
  gpu.chip = "sm_90";
  EXPECT_NE(jit(f, gpu).lower(args...).as_text("llvm-ir").find("define"), std::string::npos);
  auto jf = jit(f);
  auto got = tree_leaves(jf(args...));
  auto want = tree_leaves(f(args...));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    expect_matches(got[i], want[i], Tolerance::of(1e-9));
  EXPECT_EQ(jf.stats().misses, 1);
  EXPECT_EQ(jf.stats().inline_calls, 0);
}

/// The staged IR (strata dialect, before any pass) of jit(f) at args.
template <class F, class... Args> std::string staged(F f, const Args &...args) {
  return lower(f, args...).as_text("strata");
}

/// Halves until below 1, counting the halvings (a pytree carry of a float and an int).
std::pair<Array, Array> halvings(const Array &x) {
  return lax::while_loop(
      [](const std::pair<Array, Array> &c) { return c.first >= 1.0; },
      [](const std::pair<Array, Array> &c) { return std::make_pair(c.first / 2.0, c.second + 1); },
      std::make_pair(x, Array(int32_t{0})));
}

/// An RNN over the leading axis of xs: h = tanh(w h + u x), summing a readout of each h.
Array rnn_loss(const Array &w, const Array &u, const Array &xs) {
  auto step = [w, u](const Array &h, const Array &x) {
    Array next = tanh(matmul(w, h) + matmul(u, x));
    return std::make_pair(next, sum(next * next));
  };
  auto [h, ys] = lax::scan(step, zeros({w.shape()[0]}, w.dtype()), xs);
  return sum(ys) + sum(h);
}

} // namespace

TEST(JitControlFlow, CondAndSwitch) {
  auto f = [](const Array &p, const Array &x, const Array &y) {
    auto add = [](const Array &a, const std::pair<Array, Array> &b) {
      return a + b.first * b.second;
    };
    auto sub = [](const Array &a, const std::pair<Array, Array> &b) { return a - exp(b.first); };
    return lax::cond(p, add, sub, x, std::make_pair(y, y));
  };
  Array x = make({1, 2, 3}), y = make({4, 5, -6});
  expect_jit_matches(f, Array(true), x, y);
  expect_jit_matches(f, Array(false), x, y);
  auto g = [](const Array &i, const Array &x) {
    std::vector<std::function<Array(const Array &)>> branches = {
        [](const Array &a) { return a * 2.0; }, [](const Array &a) { return sin(a) + 1.0; },
        [](const Array &a) { return -a; }};
    return lax::switch_(i, branches, x);
  };
  // Clamped as lax.switch clamps: 7 takes the last branch, -2 the first.
  for (int32_t i : {0, 1, 2, 7, -2})
    expect_jit_matches(g, Array(i), x);
  EXPECT_NE(staged(g, Array(int32_t{1}), x).find("strata.cond"), std::string::npos);
}

TEST(JitControlFlow, WhileLoopWithPytreeCarry) {
  expect_jit_matches(halvings, Array(37.0));
  expect_jit_matches(halvings, Array(0.5)); // runs zero times: the init
  auto f = [](const Array &x) { return halvings(x).second; };
  auto jf = jit(f);
  EXPECT_EQ(jf(Array(1000.0)).item<int32_t>(), 10);
  EXPECT_EQ(jf(Array(3.0)).item<int32_t>(), 2); // same signature: one executable
  EXPECT_EQ(jf.stats().misses, 1);
}

TEST(JitControlFlow, CarriesThatSwapOrAlias) {
  // Each step's next carries are the current ones swapped (and one of them read again by the
  // step's output): compiled code must not overwrite a carry before it is read.
  auto swap = [](const Array &a, const Array &b) {
    return lax::scan(
        [](const std::pair<Array, Array> &c, const Array &x) {
          return std::make_pair(std::make_pair(c.second, c.first * x), c.first);
        },
        std::make_pair(a, b), make({1.5, -2.0, 0.5, 3.0}));
  };
  expect_jit_matches(swap, make({1, 2, 3}), make({4, 5, 6}));
  auto fib = [](const Array &n) {
    auto [a, b, i] = lax::while_loop(
        [n](const std::tuple<Array, Array, Array> &c) { return std::get<2>(c) < n; },
        [](const std::tuple<Array, Array, Array> &c) {
          return std::make_tuple(std::get<1>(c), std::get<0>(c) + std::get<1>(c),
                                 std::get<2>(c) + 1);
        },
        std::make_tuple(Array(0.0), Array(1.0), Array(int32_t{0})));
    return a;
  };
  expect_jit_matches(fib, Array(int32_t{30}));
}

TEST(JitControlFlow, ForiLoopStaticAndTracedBounds) {
  auto body = [](const Array &i, const std::vector<Array> &c) {
    Array fi = lax::convert_element_type(i, float64);
    return std::vector<Array>{c[0] + fi * fi, c[1] * 1.5};
  };
  auto fixed = [body](const Array &a, const Array &b) {
    return lax::fori_loop(2, 9, body, std::vector<Array>{a, b});
  };
  auto traced = [body](const Array &lo, const Array &hi, const Array &a) {
    return lax::fori_loop(lo, hi, body, std::vector<Array>{a, a});
  };
  expect_jit_matches(fixed, Array(0.0), Array(1.0));
  expect_jit_matches(traced, Array(int32_t{2}), Array(int32_t{9}), Array(0.5));
  expect_jit_matches(traced, Array(int32_t{5}), Array(int32_t{3}), Array(0.5)); // empty range
}

TEST(JitControlFlow, ThousandStepLoopIsNotUnrolled) {
  auto f = [](const Array &x) {
    return lax::fori_loop(
        0, 1000, [](const Array &, const Array &c) { return c * 0.999 + 0.001; }, x);
  };
  Array x = rnd(4, {16});
  expect_jit_matches(f, x);
  std::string ir = staged(f, x);
  EXPECT_NE(ir.find("strata.scan"), std::string::npos);
  EXPECT_LT(ir.size(), 4000u) << ir;
}

TEST(JitControlFlow, ScanForwardReverseAndEmpty) {
  using Carry = std::map<std::string, Array>;
  Array w = rnd(2, {3, 3}, 0.5);
  auto run = [w](const Array &xs, const Array &scale, bool reverse) {
    auto step = [w](const Carry &c, const std::tuple<Array, Array> &x) {
      Array h = tanh(matmul(w, c.at("h")) + std::get<0>(x) * std::get<1>(x));
      Carry next{{"h", h}, {"n", c.at("n") + 1.0}};
      return std::make_pair(next, std::make_pair(h, sum(h)));
    };
    Carry init{{"h", zeros({3}, float64)}, {"n", Array(0.0)}};
    return lax::scan(step, init, std::make_tuple(xs, scale), std::nullopt, reverse);
  };
  Array xs = rnd(1, {5, 3}), scale = rnd(3, {5});
  for (bool reverse : {false, true})
    expect_jit_matches(
        [run, reverse](const Array &a, const Array &b) { return run(a, b, reverse); }, xs, scale);
  // Zero steps: the init and empty ys.
  expect_jit_matches([run](const Array &a, const Array &b) { return run(a, b, false); },
                     zeros({0, 3}, float64), zeros({0}, float64));
  // No xs: `length` steps.
  auto counter = [](const Array &x) {
    return lax::scan([](const Array &c, std::tuple<>) { return std::make_pair(c * 2.0, c); }, x,
                     std::tuple<>(), 6);
  };
  expect_jit_matches(counter, Array(1.5));
}

TEST(JitControlFlow, NestedLoopsAndCond) {
  // A while loop in a scan body, a cond in the while body, a fori_loop around it all.
  auto f = [](const Array &xs, const Array &limit) {
    auto step = [limit](const Array &acc, const Array &x) {
      Array y = lax::while_loop([limit](const Array &v) { return max(abs(v)) < limit; },
                                [](const Array &v) {
                                  return lax::cond(
                                      sum(v) > 0.0, [](const Array &a) { return a * 1.7 + 0.1; },
                                      [](const Array &a) { return a * 1.3 - 0.2; }, v);
                                },
                                x);
      return std::make_pair(acc + y, sum(y));
    };
    auto [acc, ys] = lax::scan(step, zeros({xs.shape()[1]}, float64), xs);
    Array z =
        lax::fori_loop(0, 3, [](const Array &, const Array &c) { return sqrt(c * c + 1.0); }, acc);
    return std::make_pair(z, ys);
  };
  expect_jit_matches(f, rnd(5, {4, 3}, 0.3), Array(5.0));
}

TEST(JitControlFlow, LoopBodyCallsDotGeneral) {
  Array w = rnd(6, {8, 8}, 0.3), u = rnd(7, {8, 4}, 0.3), xs = rnd(8, {10, 4});
  expect_jit_matches(rnn_loss, w, u, xs);
  // A while loop whose body multiplies matrices (power iteration to a fixed count).
  auto power = [](const Array &a, const Array &v) {
    auto [x, i] = lax::while_loop([](const std::pair<Array, Array> &c) { return c.second < 20; },
                                  [a](const std::pair<Array, Array> &c) {
                                    Array y = matmul(a, c.first);
                                    return std::make_pair(y / sqrt(sum(y * y)), c.second + 1);
                                  },
                                  std::make_pair(v, Array(int32_t{0})));
    return x;
  };
  expect_jit_matches(power, w, rnd(9, {8}));
}

TEST(JitControlFlow, JvpOfWhileAndScan) {
  auto g = [](const Array &x) { return halvings(x * x).first; };
  auto jg = [g](const Array &x, const Array &t) {
    auto [p, d] = jvp(g, std::make_tuple(x), std::make_tuple(t));
    return std::make_pair(p, d);
  };
  expect_jit_matches(jg, Array(7.0), Array(1.0));
  Array w = rnd(6, {8, 8}, 0.3), u = rnd(7, {8, 4}, 0.3), xs = rnd(8, {10, 4});
  auto jr = [u, xs](const Array &w, const Array &t) {
    auto [p, d] = jvp([u, xs](const Array &w) { return rnn_loss(w, u, xs); }, std::make_tuple(w),
                      std::make_tuple(t));
    return std::make_pair(p, d);
  };
  expect_jit_matches(jr, w, ones_like(w));
}

TEST(JitControlFlow, GradOfScanForiLoopAndCond) {
  Array w = rnd(6, {8, 8}, 0.3), u = rnd(7, {8, 4}, 0.3), xs = rnd(8, {10, 4});
  expect_jit_matches(grad<0, 1>(rnn_loss), w, u, xs);
  auto fori = [](const Array &x) {
    return sum(lax::fori_loop(
        0, 5,
        [](const Array &i, const Array &c) {
          return sin(c) * lax::convert_element_type(i + 1, float64);
        },
        x));
  };
  expect_jit_matches(grad(fori), rnd(10, {4}));
  auto branchy = [](const Array &p, const Array &x) {
    return sum(lax::cond(
        p, [](const Array &a) { return exp(a) * a; }, [](const Array &a) { return a * a * a; }, x));
  };
  expect_jit_matches(grad<1>(branchy), Array(true), rnd(11, {3}));
  expect_jit_matches(grad<1>(branchy), Array(false), rnd(11, {3}));
}

TEST(JitControlFlow, GradOfScanRnnHundredSteps) {
  Array w = rnd(12, {16, 16}, 0.2), u = rnd(13, {16, 8}, 0.3), xs = rnd(14, {100, 8});
  auto vg = jit(value_and_grad<0, 1>(rnn_loss));
  auto [v, g] = vg(w, u, xs);
  auto [v0, g0] = value_and_grad<0, 1>(rnn_loss)(w, u, xs);
  expect_matches(v, v0, Tolerance::of(1e-9));
  expect_matches(std::get<0>(g), std::get<0>(g0), Tolerance::of(1e-9));
  expect_matches(std::get<1>(g), std::get<1>(g0), Tolerance::of(1e-9));
  EXPECT_EQ(vg.stats().inline_calls, 0);
  std::string ir = staged(value_and_grad<0, 1>(rnn_loss), w, u, xs);
  EXPECT_NE(ir.find("strata.scan"), std::string::npos);
  EXPECT_LT(ir.size(), 40000u); // two loops, not 200 unrolled steps
}

TEST(JitControlFlow, VmapWithBatchedPredicates) {
  auto pick = [](const Array &x) {
    return lax::cond(
        sum(x) > 0.0, [](const Array &a) { return a * 2.0; }, [](const Array &a) { return -a; }, x);
  };
  expect_jit_matches(vmap(pick), rnd(15, {6, 3}));
  // Per-example trip counts: the batched loop runs until every example is done.
  auto count = [](const Array &x) { return halvings(x).second; };
  expect_jit_matches(vmap(count), make({0.5, 3.0, 1000.0, 37.0}));
  expect_jit_matches(vmap(halvings), make({0.5, 3.0, 1000.0, 37.0}));
}

TEST(JitControlFlow, GradOfWhileLoopRunsOpByOp) {
  // Reverse mode needs the trip count as a number before the backward loop is built: staged
  // code does not have it, so jit runs this function op by op (docs/decisions.md).
  auto f = [](const Array &x) { return halvings(x * x).first * x; };
  auto jf = jit(grad(f));
  expect_matches(jf(Array(7.0)), grad(f)(Array(7.0)), Tolerance::of(1e-12));
  EXPECT_EQ(jf.stats().inline_calls, 1);
}
