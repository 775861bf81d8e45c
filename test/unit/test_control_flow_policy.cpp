// Reverse mode of scan with checkpoint policies (LoopGradOptions::policy): gradients under each
// policy against the default policy, an unrolled loop and finite differences; the dot_generals
// and checkpoint_names the backward pass binds, counted by a trace level; the values each policy
// keeps; the compositions (vmap, jvp and grad of grad, checkpoint_every, reverse, while_loop);
// leaks.
#include <cmath>
#include <map>

#include "strata/control_flow.h"
#include "strata/internal/trace.h"
#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {

// ---- A counting level -----------------------------------------------------------------------

/// What a CountLevel saw: primitive applications by name, and the outputs of every scan bound.
struct Counts {
  std::map<std::string, int> prims;
  std::vector<std::vector<Array>> scans;
  int operator[](const std::string &name) const {
    auto it = prims.find(name);
    return it == prims.end() ? 0 : it->second;
  }
};

// Dynamic, so it sees every primitive bound while it is live (constants included), and re-binds
// it one dynamic level down. Control flow's sub-functions run under a counting level of their
// own, so loop bodies are counted once per step as they run.
class CountLevel : public TraceLevel {
public:
  CountLevel(Counts *counts, TraceLevel *below) : counts_(counts), below_(below) {}
  std::string name() const override { return "count"; }

  std::vector<Array> process(const Primitive &prim, std::span<const Array> inputs,
                             const Params &params) override {
    std::vector<Array> in(inputs.begin(), inputs.end());
    if (!prim.has(kControlFlow)) {
      ++counts_->prims[prim.name];
      DynamicOverride down(below_);
      return strata::bind(prim, in, params);
    }
    Params p = params;
    for (const auto &[name, value] : params.items()) {
      if (const auto *f = std::get_if<SubFnRef>(&value))
        p.set(name, counted(*f));
      else if (const auto *fs = std::get_if<std::vector<SubFnRef>>(&value)) {
        std::vector<SubFnRef> c;
        for (const SubFnRef &g : *fs)
          c.push_back(counted(g));
        p.set(name, c);
      }
    }
    std::vector<Array> outs;
    {
      DynamicOverride down(below_);
      outs = strata::bind(prim, in, p);
    }
    if (prim.name == "scan")
      counts_->scans.push_back(outs);
    return outs;
  }

  SubFnRef counted(const SubFnRef &f) const {
    auto c = std::make_shared<SubFn>(*f);
    c->fn = counted(f->fn);
    return c;
  }
  FlatFn counted(FlatFn f) const {
    if (!f)
      return f;
    return [f, counts = counts_](const std::vector<Array> &in) {
      auto level = std::make_shared<CountLevel>(counts, dynamic_level());
      LevelGuard guard(level, /*dynamic=*/true);
      return f(in);
    };
  }

private:
  Counts *counts_;
  TraceLevel *below_;
};

/// Runs fn with every primitive it binds counted.
template <class Fn> Counts counting(Fn fn) {
  Counts c;
  auto level = std::make_shared<CountLevel>(&c, dynamic_level());
  {
    LevelGuard guard(level, /*dynamic=*/true);
    fn();
  }
  return c;
}

// ---- An RNN over a scan -----------------------------------------------------------------------

constexpr int64_t T = 6, B = 3, H = 5, I = 4, O = 2;

/// wh, wx, wy, h0, xs: every one differentiated, so each dot's vjp takes two products.
std::vector<Array> rnn_params() {
  return {rnd(1, {H, H}, 0.4), rnd(2, {I, H}, 0.4), rnd(3, {H, O}, 0.5), rnd(4, {B, H}, 0.5),
          rnd(5, {T, B, I})};
}

/// One step: three matmuls, the pre-activation tagged "pre" and the readout tagged "out".
std::pair<Array, Array> rnn_step(const std::vector<Array> &p, const Array &h, const Array &x) {
  Array pre = checkpoint_name(matmul(h, p[0]) + matmul(x, p[1]), "pre");
  Array next = tanh(pre);
  Array y = checkpoint_name(matmul(next, p[2]), "out");
  return {next, sin(y)};
}

lax::LoopGradOptions with(CheckpointPolicy policy, int64_t every = 1) {
  lax::LoopGradOptions o;
  o.checkpoint_every = every;
  o.policy = std::move(policy);
  return o;
}

auto rnn_loss(lax::LoopGradOptions options, bool reverse = false) {
  return [options, reverse](const std::vector<Array> &p) {
    auto [h, ys] = lax::scan([p](const Array &h, const Array &x) { return rnn_step(p, h, x); },
                             p[3], p[4], std::nullopt, reverse, 1, options);
    return sum(h * h) + sum(ys * ys);
  };
}

Array rnn_unrolled_in(const std::vector<Array> &p, bool reverse) {
  Array h = p[3], acc = Array(0.0);
  for (int64_t s = 0; s < T; ++s) {
    auto [next, y] = rnn_step(p, h, p[4][reverse ? T - 1 - s : s]);
    h = next;
    acc = acc + sum(y * y);
  }
  return sum(h * h) + acc;
}

Array rnn_unrolled(const std::vector<Array> &p) { return rnn_unrolled_in(p, false); }
Array rnn_unrolled_reverse(const std::vector<Array> &p) { return rnn_unrolled_in(p, true); }

const std::vector<CheckpointPolicy> &policies() {
  static const std::vector<CheckpointPolicy> all = {
      CheckpointPolicy::nothing(), CheckpointPolicy::dots(), CheckpointPolicy::save_names({"pre"}),
      CheckpointPolicy::save_names({"pre", "out"})};
  return all;
}
std::string describe(const CheckpointPolicy &p) {
  switch (p.kind) {
  case CheckpointPolicy::Kind::Nothing:
    return "nothing";
  case CheckpointPolicy::Kind::Dots:
    return "dots";
  case CheckpointPolicy::Kind::Names:
    break;
  }
  std::string s = "save_names(";
  for (const std::string &n : p.names)
    s += n + (n == p.names.back() ? ")" : ",");
  return s;
}

} // namespace

// ---- Gradients ----------------------------------------------------------------------------------

TEST(ControlFlowPolicy, GradUnderEachPolicyMatchesTheDefaultAndFiniteDifferences) {
  std::vector<Array> p = rnn_params();
  std::vector<Array> want = grad(rnn_unrolled)(p);
  expect_matches(grad(rnn_loss({}))(p), want, Tolerance::of(1e-12), "default vs unrolled");
  for (const CheckpointPolicy &policy : policies()) {
    std::vector<Array> g = grad(rnn_loss(with(policy)))(p);
    expect_matches(g, want, Tolerance::of(1e-12), describe(policy));
    // A central difference along a random direction of every leaf.
    std::vector<Array> u;
    for (size_t i = 0; i < p.size(); ++i)
      u.push_back(rnd(100 + i, p[i].shape()));
    const double eps = 1e-5;
    auto f = rnn_loss(with(policy));
    double fd =
        (f(shifted(p, u, eps)).item<double>() - f(shifted(p, u, -eps)).item<double>()) / (2 * eps);
    double dot = 0;
    for (size_t i = 0; i < p.size(); ++i)
      dot += sum(g[i] * u[i]).item<double>();
    EXPECT_NEAR(dot, fd, 1e-6 * (1 + std::fabs(fd))) << describe(policy);
  }
}

// ---- What the backward pass recomputes ----------------------------------------------------------

TEST(ControlFlowPolicy, DotsBackwardBindsFewerDotGenerals) {
  std::vector<Array> p = rnn_params();
  std::map<std::string, Counts> fwd, bwd;
  for (const CheckpointPolicy &policy : policies()) {
    std::string k = describe(policy);
    std::optional<VjpResult> r;
    auto loss = rnn_loss(with(policy));
    fwd[k] = counting([&] {
      r = vjp_flat([&](const std::vector<Array> &v) { return std::vector<Array>{loss(v)}; }, p);
    });
    bwd[k] = counting([&] { r->pullback({Array(1.0)}); });
  }
  for (const auto &[k, c] : fwd)
    EXPECT_EQ(c["dot_general"], 3 * T) << k << ": the forward pass runs each matmul once";
  // Without a policy each backward step replays its 3 matmuls and takes 2 products for each
  // one's vjp; with dots it takes only the products.
  EXPECT_EQ(bwd["nothing"]["dot_general"], 9 * T);
  EXPECT_EQ(bwd["dots"]["dot_general"], 6 * T);
  // save_names replays the matmuls (they feed the named values) but hands back the named
  // values instead of binding checkpoint_name again.
  EXPECT_EQ(bwd["save_names(pre)"]["dot_general"], 9 * T);
  EXPECT_EQ(bwd["nothing"]["checkpoint_name"], 2 * T);
  EXPECT_EQ(bwd["dots"]["checkpoint_name"], 2 * T);
  EXPECT_EQ(bwd["save_names(pre)"]["checkpoint_name"], T);
  EXPECT_EQ(bwd["save_names(pre,out)"]["checkpoint_name"], 0);
}

TEST(ControlFlowPolicy, TheForwardScanKeepsExactlyThePolicysValues) {
  std::vector<Array> p = rnn_params();
  // The oracle: each step's matmuls and named values, from an unrolled loop.
  std::vector<Array> hwh, xwx, nwy, pre, out;
  Array h = p[3];
  for (int64_t t = 0; t < T; ++t) {
    Array x = p[4][t];
    hwh.push_back(matmul(h, p[0]));
    xwx.push_back(matmul(x, p[1]));
    pre.push_back(hwh.back() + xwx.back());
    h = tanh(pre.back());
    nwy.push_back(matmul(h, p[2]));
    out.push_back(nwy.back());
  }
  auto kept_by = [&](const CheckpointPolicy &policy) {
    auto loss = rnn_loss(with(policy));
    std::optional<VjpResult> r;
    Counts c = counting([&] {
      r = vjp_flat([&](const std::vector<Array> &v) { return std::vector<Array>{loss(v)}; }, p);
    });
    EXPECT_EQ(c.scans.size(), 1u);
    // Outputs: final carry, ys, the carry each step starts from, then the kept values.
    const std::vector<Array> &outs = c.scans.at(0);
    EXPECT_GE(outs.size(), 3u);
    expect_matches(outs.at(2)[0], p[3], Tolerance::exact(), "the first step starts from h0");
    return std::vector<Array>(outs.begin() + 3, outs.end());
  };
  EXPECT_TRUE(kept_by(CheckpointPolicy::nothing()).empty());
  EXPECT_TRUE(kept_by(CheckpointPolicy::save_names({"unused"})).empty());
  expect_matches(kept_by(CheckpointPolicy::dots()), {stack(hwh), stack(xwx), stack(nwy)},
                 Tolerance::of(1e-14), "dots");
  expect_matches(kept_by(CheckpointPolicy::save_names({"pre"})), {stack(pre)}, Tolerance::of(1e-14),
                 "pre");
  expect_matches(kept_by(CheckpointPolicy::save_names({"out", "pre"})), {stack(pre), stack(out)},
                 Tolerance::of(1e-14), "pre and out, in the step's order");
}

// ---- Compositions -------------------------------------------------------------------------------

TEST(ControlFlowPolicy, ComposesWithVmapJvpAndGradOfGrad) {
  std::vector<Array> p = rnn_params();
  std::vector<Array> v;
  for (size_t i = 0; i < p.size(); ++i)
    v.push_back(rnd(200 + i, p[i].shape()));
  // Hessian-vector products, forward over reverse and reverse over reverse.
  auto hvp_fwd = [&](lax::LoopGradOptions o) {
    return jvp(grad(rnn_loss(o)), std::make_tuple(p), std::make_tuple(v)).second;
  };
  auto hvp_rev = [&](lax::LoopGradOptions o) {
    return grad([&, o](const std::vector<Array> &q) {
      std::vector<Array> g = grad(rnn_loss(o))(q);
      Array acc = Array(0.0);
      for (size_t i = 0; i < g.size(); ++i)
        acc = acc + sum(g[i] * v[i]);
      return acc;
    })(p);
  };
  std::vector<Array> want = jvp(grad(rnn_unrolled), std::make_tuple(p), std::make_tuple(v)).second;
  // vmap of grad over a batch of inputs.
  Array xb = rnd(300, {3, T, B, I});
  auto grad_at = [&](lax::LoopGradOptions o) {
    return vmap([&, o](const Array &xs) {
      std::vector<Array> q = p;
      q[4] = xs;
      return grad(rnn_loss(o))(q);
    })(xb);
  };
  std::vector<Array> want_batch = grad_at({});
  for (const CheckpointPolicy &policy : policies()) {
    std::string k = describe(policy);
    expect_matches(hvp_fwd(with(policy)), want, Tolerance::of(1e-10), "jvp of grad, " + k);
    expect_matches(hvp_rev(with(policy)), want, Tolerance::of(1e-10), "grad of grad, " + k);
    expect_matches(grad_at(with(policy)), want_batch, Tolerance::of(1e-12), "vmap of grad, " + k);
    // grad of vmap: the scan is batched before it is differentiated.
    auto batched_loss = [&, o = with(policy)](const std::vector<Array> &q) {
      return sum(vmap([&](const Array &xs) {
        std::vector<Array> r = q;
        r[4] = xs;
        return rnn_loss(o)(r);
      })(xb));
    };
    expect_matches(grad(batched_loss)(p), grad([&](const std::vector<Array> &q) {
                     Array acc = Array(0.0);
                     for (int64_t b = 0; b < 3; ++b) {
                       std::vector<Array> r = q;
                       r[4] = xb[b];
                       acc = acc + rnn_unrolled(r);
                     }
                     return acc;
                   })(p),
                   Tolerance::of(1e-12), "grad of vmap, " + k);
  }
}

TEST(ControlFlowPolicy, SegmentsReverseScansAndWhileLoops) {
  std::vector<Array> p = rnn_params();
  std::vector<Array> want = grad(rnn_unrolled)(p);
  std::vector<Array> want_rev = grad(rnn_unrolled_reverse)(p);
  for (const CheckpointPolicy &policy : policies()) {
    std::string k = describe(policy);
    expect_matches(grad(rnn_loss(with(policy, 2)))(p), want, Tolerance::of(1e-12),
                   "segments of 2, " + k);
    expect_matches(grad(rnn_loss(with(policy, 3), true))(p), want_rev, Tolerance::of(1e-12),
                   "reverse, segments of 3, " + k);
    expect_matches(grad(rnn_loss(with(policy), true))(p), want_rev, Tolerance::of(1e-12),
                   "reverse, " + k);
  }
  // Within segments the policy applies to the segment's recompute: a dot runs forward, then
  // once more when its segment is recomputed, and its vjp reuses that product.
  auto backward_dots = [&](const CheckpointPolicy &policy) {
    auto loss = rnn_loss(with(policy, 2));
    VjpResult r =
        vjp_flat([&](const std::vector<Array> &v) { return std::vector<Array>{loss(v)}; }, p);
    return counting([&] { r.pullback({Array(1.0)}); })["dot_general"];
  };
  EXPECT_EQ(backward_dots(CheckpointPolicy::nothing()), 12 * T);
  EXPECT_EQ(backward_dots(CheckpointPolicy::dots()), 9 * T);
  // A while_loop (fori_loop with traced bounds) is differentiated as a scan with the policy.
  auto fori = [&](lax::LoopGradOptions o) {
    return [o](const std::vector<Array> &q) {
      Array h = lax::fori_loop(
          Array(int32_t{0}), Array(int32_t{T}),
          [q](const Array &i, const Array &h) {
            Array z = Array(int32_t{0});
            Array x = lax::reshape(lax::dynamic_slice(q[4], {i, z, z}, {1, B, I}), {B, I});
            return rnn_step(q, h, x).first;
          },
          q[3], o);
      return sum(h * h);
    };
  };
  std::vector<Array> want_fori = grad(fori({}))(p);
  for (const CheckpointPolicy &policy : policies())
    expect_matches(grad(fori(with(policy)))(p), want_fori, Tolerance::of(1e-12),
                   "fori_loop, " + describe(policy));
  auto while_dots = [&](const CheckpointPolicy &policy) {
    auto loss = fori(with(policy));
    VjpResult r =
        vjp_flat([&](const std::vector<Array> &v) { return std::vector<Array>{loss(v)}; }, p);
    return counting([&] { r.pullback({Array(1.0)}); })["dot_general"];
  };
  // The step's three matmuls are no longer replayed (the readout's too, though only its
  // vjp is skipped: its output does not reach the carry).
  EXPECT_EQ(while_dots(CheckpointPolicy::nothing()) - while_dots(CheckpointPolicy::dots()), 3 * T);
}

TEST(ControlFlowPolicy, KeptValuesDoNotOutliveTheGradient) {
  std::vector<Array> p = rnn_params();
  int64_t base_bytes = memory_stats().live_bytes, base_buffers = memory_stats().live_buffers;
  for (const CheckpointPolicy &policy : policies()) {
    std::vector<Array> g = grad(rnn_loss(with(policy)))(p);
    g.clear();
    EXPECT_EQ(memory_stats().live_bytes, base_bytes) << describe(policy);
    EXPECT_EQ(memory_stats().live_buffers, base_buffers) << describe(policy);
  }
}
