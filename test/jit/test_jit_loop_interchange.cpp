// strata-interchange-elementwise-loops under jit (the GPU pipeline runs it; the CPU keeps the
// step loop, whose element loop vectorizes): elementwise fori_loops and scans lowered for sm_90
// become one loop over the elements running the steps per element; loops that are not
// elementwise stay. The same functions run on the CPU with the same f32 results, bit for bit,
// as eager evaluation. strata-interchange-elementwise-loops-exec.mlir runs interchanged code.
#include <regex>

#include "jit_test_util.h"
#include "strata/control_flow.h"
#include "strata/transforms.h"

using namespace strata;
using namespace strata::testutil;

namespace {

Array rnd32(uint64_t seed, const Shape &shape) { return random::normal(random::key(seed), shape); }

/// The "linalg" stage of jit(f) at args, lowered for a GPU (sm_90, offline).
template <class F, class... Args> std::string linalg_ir(F f, const Args &...args) {
  JitOptions o;
  o.chip = "sm_90";
  return jit(f, o).lower(args...).as_text("linalg");
}

/// Whether some scf.for of `ir` still carries tensors (a loop the pass left as it was).
bool has_tensor_loop(const std::string &ir) {
  return std::regex_search(ir, std::regex(R"(scf\.for [^\n]*-> \(tensor)"));
}

/// Same dtype and shape, the same bits at every element (NaN aside, none here).
void expect_bitwise(const Array &got, const Array &want) {
  ASSERT_EQ(got.type_str(), want.type_str());
  EXPECT_EQ(values(got), values(want));
}

} // namespace

TEST(JitLoopInterchange, ThousandStepsAreBitwiseEagerAndTheLoopAsItWas) {
  auto f = [](const Array &x) {
    return lax::fori_loop(
        0, 1000, [](const Array &, const Array &c) { return c * 0.99 + 0.01; }, x);
  };
  // The same steps with each carry stacked as ys: not elementwise per step, left as a loop.
  auto stacked = [](const Array &x) {
    return lax::scan(
        [](const Array &c, std::tuple<>) {
          Array n = c * 0.99 + 0.01;
          return std::make_pair(n, n);
        },
        x, std::tuple<>(), 1000);
  };
  Array x = rnd32(1, {4096}) * 10.0f;
  std::string ir = linalg_ir(f, x);
  EXPECT_FALSE(has_tensor_loop(ir)) << ir;
  EXPECT_NE(ir.find("-> (f32)"), std::string::npos) << ir;
  EXPECT_TRUE(has_tensor_loop(linalg_ir(stacked, x)));

  Array got = jit(f)(x);
  expect_bitwise(got, f(x));
  expect_bitwise(got, jit(stacked)(x).first);
}

TEST(JitLoopInterchange, IndexAndPerStepXsReadAtTheElement) {
  // fori_loop's index (a 0-d slice of its iota xs) and a [steps, n] xs read at [step, j].
  auto with_index = [](const Array &x) {
    return lax::fori_loop(
        3, 40,
        [](const Array &i, const Array &c) {
          return c * 0.5 + lax::convert_element_type(i, float32) * 0.25;
        },
        x);
  };
  auto with_xs = [](const Array &h, const Array &xs, bool reverse) {
    return lax::scan([](const Array &c,
                        const Array &x) { return std::make_pair(c * x + 1.0, std::tuple<>()); },
                     h, xs, std::nullopt, reverse)
        .first;
  };
  Array x = rnd32(2, {3, 5}), xs = rnd32(3, {12, 3, 5}) * 0.5f + 0.5f;
  EXPECT_FALSE(has_tensor_loop(linalg_ir(with_index, x)));
  expect_bitwise(jit(with_index)(x), with_index(x));
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse);
    auto g = [with_xs, reverse](const Array &h, const Array &s) { return with_xs(h, s, reverse); };
    std::string ir = linalg_ir(g, x, xs);
    EXPECT_FALSE(has_tensor_loop(ir)) << ir;
    EXPECT_NE(ir.find("tensor.extract"), std::string::npos) << ir;
    expect_bitwise(jit(g)(x, xs), g(x, xs));
  }
}

TEST(JitLoopInterchange, TwoCarriesOfDifferentDtypesAndScalars) {
  // A float and an int carry per element, and 0-d carries (a loop over one element).
  auto f = [](const Array &x, const Array &k) {
    return lax::fori_loop(
        0, 25,
        [](const Array &, const std::pair<Array, Array> &c) {
          Array x1 = c.first * 0.75 + lax::convert_element_type(c.second, float32);
          return std::make_pair(x1, c.second * 3 + 1);
        },
        std::make_pair(x, k));
  };
  Array x = rnd32(4, {64}), k = lax::iota(int32, {64}, 0);
  EXPECT_FALSE(has_tensor_loop(linalg_ir(f, x, k)));
  auto [gx, gk] = jit(f)(x, k);
  auto [wx, wk] = f(x, k);
  expect_bitwise(gx, wx);
  expect_bitwise(gk, wk);
  Array s = Array(1.5f), n = Array(int32_t{2});
  EXPECT_FALSE(has_tensor_loop(linalg_ir(f, s, n)));
  expect_bitwise(jit(f)(s, n).first, f(s, n).first);
}

TEST(JitLoopInterchange, NestedLoopsAndJvpInterchange) {
  // The inner loop becomes an elementwise generic, which makes the outer one elementwise too.
  auto nested = [](const Array &x) {
    return lax::fori_loop(
        0, 6,
        [](const Array &, const Array &c) {
          Array inner = lax::fori_loop(
              0, 7, [](const Array &, const Array &d) { return d * 1.01 - 0.02; }, c);
          return inner * 0.9;
        },
        x);
  };
  Array x = rnd32(5, {2, 33});
  std::string ir = linalg_ir(nested, x);
  EXPECT_FALSE(has_tensor_loop(ir)) << ir;
  expect_bitwise(jit(nested)(x), nested(x));
  // jvp carries the primal and the tangent: both elementwise.
  auto tangent = [](const Array &p, const Array &t) {
    auto f = [](const Array &y) {
      return lax::fori_loop(
          0, 30, [](const Array &, const Array &c) { return sin(c) * 0.5 + c; }, y);
    };
    return jvp(f, std::make_tuple(p), std::make_tuple(t)).second;
  };
  Array t = rnd32(6, {2, 33});
  EXPECT_FALSE(has_tensor_loop(linalg_ir(tangent, x, t)));
  expect_matches(jit(tangent)(x, t), tangent(x, t), Tolerance::of(1e-4));
}

TEST(JitLoopInterchange, LoopsThatAreNotElementwiseStay) {
  // A reduction in the body, and a carry read at another element (a shift).
  auto centered = [](const Array &x) {
    return lax::fori_loop(0, 4, [](const Array &, const Array &c) { return c - mean(c) * 0.5; }, x);
  };
  auto shifted = [](const Array &x) {
    return lax::fori_loop(
        0, 4,
        [](const Array &, const Array &c) {
          return c + concatenate({lax::slice(c, {1}, {8}), zeros({1}, float32)}, 0) * 0.5;
        },
        x);
  };
  Array x = rnd32(7, {8});
  for (auto f : {std::function<Array(const Array &)>(centered),
                 std::function<Array(const Array &)>(shifted)}) {
    EXPECT_TRUE(has_tensor_loop(linalg_ir(f, x)));
    expect_matches(jit(f)(x), f(x), Tolerance::of(1e-5));
  }
}
