// Reverse mode of scan with checkpoint policies under jit: the kept values are more results of
// the staged forward strata.scan, the compiled gradient equals the eager one, and with dots the
// staged backward loop holds fewer dot_generals.
#include "jit_test_util.h"
#include "strata/control_flow.h"

using namespace strata;
using namespace strata::testutil;

namespace {

lax::LoopGradOptions with(CheckpointPolicy policy, int64_t every = 1) {
  lax::LoopGradOptions o;
  o.checkpoint_every = every;
  o.policy = std::move(policy);
  return o;
}

/// An RNN over 12 steps: three matmuls a step, the pre-activation tagged "pre".
auto rnn_loss(lax::LoopGradOptions options) {
  return [options](const Array &wh, const Array &wx, const Array &wy, const Array &xs) {
    auto [h, ys] = lax::scan(
        [wh, wx, wy](const Array &h, const Array &x) {
          Array next = tanh(checkpoint_name(matmul(h, wh) + matmul(x, wx), "pre"));
          return std::make_pair(next, sin(matmul(next, wy)));
        },
        zeros({3, 5}, float64), xs, std::nullopt, false, 1, options);
    return sum(h * h) + sum(ys * ys);
  };
}

size_t occurrences(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

} // namespace

TEST(JitControlFlowPolicy, CompiledGradEqualsEagerUnderEachPolicy) {
  Array wh = rnd(1, {5, 5}, 0.4), wx = rnd(2, {4, 5}, 0.4), wy = rnd(3, {5, 2}, 0.5);
  Array xs = rnd(4, {12, 3, 4});
  auto want = grad<0, 1, 2, 3>(rnn_loss({}))(wh, wx, wy, xs);
  for (const CheckpointPolicy &policy : {CheckpointPolicy::nothing(), CheckpointPolicy::dots(),
                                         CheckpointPolicy::save_names({"pre"})}) {
    for (int64_t every : {1, 3}) {
      auto jg = jit(grad<0, 1, 2, 3>(rnn_loss(with(policy, every))));
      auto got = jg(wh, wx, wy, xs);
      expect_matches(std::get<0>(got), std::get<0>(want), Tolerance::of(1e-10));
      expect_matches(std::get<1>(got), std::get<1>(want), Tolerance::of(1e-10));
      expect_matches(std::get<2>(got), std::get<2>(want), Tolerance::of(1e-10));
      expect_matches(std::get<3>(got), std::get<3>(want), Tolerance::of(1e-10));
      EXPECT_EQ(jg.stats().inline_calls, 0); // compiled whole, not run op by op
    }
  }
  // vmap of grad, compiled.
  Array xb = rnd(5, {2, 12, 3, 4});
  auto per_example = [](lax::LoopGradOptions o) {
    return [o](const Array &wh, const Array &wx, const Array &wy, const Array &xs) {
      return vmap([=](const Array &x) { return grad(rnn_loss(o))(wh, wx, wy, x); })(xs);
    };
  };
  Array vg = per_example({})(wh, wx, wy, xb);
  auto jv = jit(per_example(with(CheckpointPolicy::dots())));
  expect_matches(jv(wh, wx, wy, xb), vg, Tolerance::of(1e-10));
  EXPECT_EQ(jv.stats().inline_calls, 0);
}

TEST(JitControlFlowPolicy, DotsStageFewerMatmulsInTheBackwardLoop) {
  Array wh = rnd(1, {5, 5}, 0.4), wx = rnd(2, {4, 5}, 0.4), wy = rnd(3, {5, 2}, 0.5);
  Array xs = rnd(4, {12, 3, 4});
  auto staged = [&](const CheckpointPolicy &policy) {
    return lower(grad<0, 1, 2, 3>(rnn_loss(with(policy))), wh, wx, wy, xs).as_text("strata");
  };
  std::string nothing = staged(CheckpointPolicy::nothing()),
              dots = staged(CheckpointPolicy::dots());
  // Each sub-function is staged once: the forward body's 3 matmuls, then the backward body's
  // products (6) and, without a policy, its replay of the 3 matmuls.
  EXPECT_EQ(occurrences(nothing, "strata.dot_general"), 12u) << nothing;
  EXPECT_EQ(occurrences(dots, "strata.dot_general"), 9u) << dots;
  EXPECT_EQ(occurrences(dots, "strata.scan"), 2u) << dots;
}
