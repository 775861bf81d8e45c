// Callable checkpoint policies (CheckpointPolicy::callback, ::everything), the debug checks of
// set_debug_nans, and CompileTimeEval. A policy's effect is observed through a function whose
// forward pass and replay differ (a captured constant): what the policy saved keeps the forward
// pass's value; oracles are the hand-derived gradients of each case.
#include <cmath>
#include <string>
#include <vector>

#include "strata/control_flow.h"
#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {

const std::vector<double> kX = {-1.0, 0.25, 0.5, 2.0};

// d/dx sum(sin(x * c)) under checkpoint, c = 1 in the forward pass and 2 in the replay.
std::vector<double> replay_probe(CheckpointPolicy policy) {
  auto calls = std::make_shared<int>(0);
  FlatFn f = [calls](const std::vector<Array> &in) {
    // The first call is checkpoint's abstract trace (closure conversion); then the forward
    // pass, then the replay.
    double c = ++*calls - 1;
    return std::vector<Array>{sum(sin(in[0] * make({c})))};
  };
  return values(grad_flat(checkpoint_flat(f, std::move(policy)), {make(kX)})[0]);
}

std::vector<double> times_cos(double k, double c) {
  std::vector<double> r;
  for (double x : kX)
    r.push_back(k * std::cos(c * x));
  return r;
}

void expect_near(const std::vector<double> &got, const std::vector<double> &want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-12) << "at " << i;
}

TEST(CheckpointPolicyCallback, DecidesWhatTheReplayRecomputes) {
  expect_near(replay_probe(CheckpointPolicy::nothing()), times_cos(2, 2));
  expect_near(replay_probe(CheckpointPolicy::everything()), times_cos(2, 1));
  auto by_name = [](std::string name) {
    return CheckpointPolicy::callback([name](const Primitive &p, std::span<const AbstractValue>,
                                             const Params &) { return p.name == name; });
  };
  expect_near(replay_probe(by_name("mul")), times_cos(2, 1)); // sin's input kept
  expect_near(replay_probe(by_name("sin")), times_cos(2, 2)); // cos(x c) needs mul: recomputed
}

TEST(CheckpointPolicyCallback, SeesInputAvalsAndParams) {
  std::vector<std::string> seen;
  CheckpointPolicy policy = CheckpointPolicy::callback(
      [&seen](const Primitive &p, std::span<const AbstractValue> in, const Params &params) {
        std::string s = p.name + "(";
        for (const AbstractValue &a : in)
          s += shape_str(a.shape) + std::string(short_name(a.dtype)) + ";";
        seen.push_back(s + params.str() + ")");
        return false;
      });
  FlatFn f = [](const std::vector<Array> &in) { return std::vector<Array>{sum(sin(in[0]), {0})}; };
  std::vector<double> g = values(grad_flat(checkpoint_flat(f, policy), {make(kX)})[0]);
  expect_near(g, times_cos(1, 1));
  ASSERT_FALSE(seen.empty());
  bool saw_sin = false, saw_sum = false;
  for (const std::string &s : seen) {
    saw_sin = saw_sin || s.rfind("sin([4]f64;", 0) == 0;
    saw_sum =
        saw_sum || (s.rfind("reduce_sum([4]f64;", 0) == 0 && s.find("axes=") != std::string::npos);
  }
  EXPECT_TRUE(saw_sin) << seen[0];
  EXPECT_TRUE(saw_sum) << seen.back();
}

TEST(CheckpointPolicyCallback, ErrorsPropagate) {
  CheckpointPolicy policy = CheckpointPolicy::callback(
      [](const Primitive &, std::span<const AbstractValue>, const Params &) -> bool {
        throw Error("[policy] refused", ErrorKind::Value);
      });
  FlatFn f = [](const std::vector<Array> &in) { return std::vector<Array>{sum(sin(in[0]))}; };
  EXPECT_THROW(grad_flat(checkpoint_flat(f, policy), {make(kX)}), Error);
}

// Turns the checks off again when a test ends, whatever happens.
struct DebugChecks {
  DebugChecks(bool nans, bool infs) { set_debug_nans(nans, infs); }
  ~DebugChecks() { set_debug_nans(false, false); }
};

TEST(DebugNans, FirstPrimitiveThatMakesANanThrows) {
  Array x = make({1.0, -1.0});
  EXPECT_TRUE(std::isnan(values(log(x))[1])); // off
  DebugChecks on(true, false);
  try {
    (void)log(x);
    FAIL() << "no FloatingPointError";
  } catch (const FloatingPointError &e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("[log] invalid value (nan) encountered in log", 0), 0u) << msg;
    EXPECT_NE(msg.find("f64[2]"), std::string::npos) << msg;
  }
  EXPECT_NO_THROW((void)(make({1.0}) / make({0.0}))); // an Inf: not checked
  for (DType t : {float32, float16, bfloat16})
    EXPECT_THROW((void)log(make({-1.0}, t)), FloatingPointError) << dtype_name(t);
}

TEST(DebugNans, InfsAndBackwardPasses) {
  DebugChecks on(false, true);
  EXPECT_THROW((void)(make({1.0}) / make({0.0})), FloatingPointError);
  EXPECT_NO_THROW((void)log(make({-1.0})));
  // d/dx sqrt(x) at 0 is an Inf, made by the backward pass.
  FlatFn f = [](const std::vector<Array> &in) { return std::vector<Array>{sum(sqrt(in[0]))}; };
  EXPECT_THROW(grad_flat(f, {make({0.0, 1.0})}), FloatingPointError);
}

TEST(CompileTimeEval, OpsOnConcreteValuesRunEagerlyInLoopBodies) {
  std::vector<bool> concrete;
  FlatFn body = [&concrete](const std::vector<Array> &in) {
    Array k;
    {
      CompileTimeEval eager;
      k = make({2.0}) * make({3.0});
    }
    Array staged = make({2.0}) * make({3.0});
    concrete.push_back(k.is_concrete());
    concrete.push_back(staged.is_concrete());
    return std::vector<Array>{in[1] + k};
  };
  std::vector<Array> out =
      lax::fori_loop_flat(Array(int32_t(0)), Array(int32_t(3)), body, {make({0.0})});
  EXPECT_EQ(values(out[0]), std::vector<double>{18.0});
  ASSERT_GE(concrete.size(), 2u);
  EXPECT_TRUE(concrete[0]);
  EXPECT_FALSE(concrete[1]); // a while_loop body is traced: constants are staged in it
}

} // namespace
