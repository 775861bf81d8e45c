// jvp, vjp and batch rules of conv_general_dilated over every configuration of conv_cases.h.
// Oracles: central finite differences in float64, the adjoint identity, second order, and
// per-example loops for vmap (lhs, rhs or both batched, at leading, middle and last axes).
#include "conv_cases.h"
#include "rules_check.h"

using namespace strata;
using namespace strata::testutil;
using namespace strata::testutil::rules_check;

namespace {

FlatFn conv_fn(const ConvCase &c) {
  return [c](const std::vector<Array> &x) { return std::vector<Array>{c.apply(x[0], x[1])}; };
}

} // namespace

TEST(RulesConv, Derivatives) {
  Rng rng(11);
  for (const ConvCase &c : conv_cases()) {
    SCOPED_TRACE(c.what);
    std::vector<Array> x = {random_f64(c.lhs, rng), random_f64(c.rhs, rng)};
    check_first_and_second_order(conv_fn(c), x, rng);
    // Nonlinear around the convolution, so that second order sees the rules' own derivatives.
    FlatFn g = [c](const std::vector<Array> &in) {
      Array p = c.apply(lax::sin(in[0]), lax::mul(in[1], in[1]));
      return std::vector<Array>{lax::mul(p, lax::exp(lax::mul(p, p)))};
    };
    check_first_and_second_order(g, x, rng);
  }
}

TEST(RulesConv, GradientsOfTheTargetLayerInFloat32) {
  // The oneDNN path (f32): gradients against the float64 ones of the same operands.
  Rng rng(12);
  ConvCase c{"3x3 same",       {2, 8, 9, 9}, {8, 8, 3, 3}, {1, 1},
             {{1, 1}, {1, 1}}, {1, 1},       {1, 1},       kNCHW};
  Array l = random_f64(c.lhs, rng), r = random_f64(c.rhs, rng);
  Array l32 = lax::convert_element_type(l, float32), r32 = lax::convert_element_type(r, float32);
  l = lax::convert_element_type(l32, float64);
  r = lax::convert_element_type(r32, float64);
  VjpResult v64 = vjp_flat(conv_fn(c), {l, r}), v32 = vjp_flat(conv_fn(c), {l32, r32});
  Array ct = random_f64(v64.outputs[0].shape(), rng);
  std::vector<Array> g64 = v64.pullback({ct});
  std::vector<Array> g32 = v32.pullback({lax::convert_element_type(ct, float32)});
  for (int i = 0; i < 2; ++i)
    expect_array(g32[i], values(g64[i]), g64[i].shape(), float32, 1e-4);
}

TEST(RulesConv, Batching) {
  Rng rng(13);
  const std::vector<std::vector<int64_t>> combos = {{0, NB}, {2, NB},  {-1, NB}, {NB, 0},
                                                    {NB, 1}, {NB, -1}, {0, 0},   {1, -1}};
  for (const ConvCase &c : conv_cases()) {
    for (const auto &axes : combos) {
      SCOPED_TRACE(c.what + ", " + axes_str(axes));
      Array l = random_f64(axes[0] == NB ? c.lhs : batched_shape(c.lhs, axes[0]), rng);
      Array r = random_f64(axes[1] == NB ? c.rhs : batched_shape(c.rhs, axes[1]), rng);
      check_batching(conv_fn(c), {l, r}, axes, {true, true}, rng);
    }
  }
}
