// The composition matrix: every ordered pair and triple of grad, jvp, vmap and checkpoint on
// ten real functions, each checked against an oracle built without transforms (central
// finite differences for derivatives, loops for vmap); Hessians four ways; per-example
// gradients; leaks; and the memory saved by checkpointing.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>

#include "compose_ops.h"
#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {

struct NamedFn {
  std::string name;
  Shape shape; // of the argument
  ScalarFn f;
};

// Ten real functions of one float64 array argument returning a scalar.
std::vector<NamedFn> real_functions() {
  std::vector<NamedFn> fs;
  {
    Array x = rnd(1, {4, 3}), v = rnd(2, {5, 2}), y = rnd(3, {4, 2});
    fs.push_back({"mlp_loss", {3, 5}, [=](const Array &w) {
                    Array h = tanh(matmul(x, w));
                    Array d = matmul(h, v) - y;
                    return mean(d * d);
                  }});
  }
  {
    Array labels = Array::from_vector(std::vector<int32_t>{0, 3, 1, 4});
    fs.push_back({"softmax_xent", {4, 5}, [=](const Array &logits) {
                    Array oh = nn::one_hot(labels, 5, float64);
                    return -mean(sum(oh * nn::log_softmax(logits), -1));
                  }});
  }
  {
    Array scale = rnd(4, {6}), bias = rnd(5, {6}), c = rnd(6, {3, 6});
    fs.push_back({"layer_norm", {3, 6}, [=](const Array &x) {
                    return sum(nn::layer_norm(x, scale, bias) * c);
                  }});
  }
  {
    Array k = rnd(7, {5, 8}), v = rnd(8, {5, 8}), c = rnd(9, {4, 8});
    fs.push_back({"attention", {4, 8}, [=](const Array &q) {
                    Array s = matmul(q, k.T()) / std::sqrt(8.0);
                    return sum(matmul(nn::softmax(s, -1), v) * c);
                  }});
  }
  {
    Array w = rnd(10, {5, 5}, 0.5), u = rnd(11, {5, 3}), xs = rnd(12, {6, 3}), c = rnd(13, {5});
    fs.push_back({"tanh_rnn", {5}, [=](const Array &h0) {
                    Array h = h0;
                    for (int t = 0; t < 6; ++t)
                      h = tanh(matmul(w, h) + matmul(u, xs[t]));
                    return sum(h * c);
                  }});
  }
  fs.push_back({"polynomial", {5}, [](const Array &x) {
                  return sum(3.0 * lax::integer_pow(x, 3) - 2.0 * x * x + x - 1.0) +
                         prod(1.0 + 0.1 * x);
                }});
  fs.push_back({"logsumexp", {3, 4}, [](const Array &x) {
                  return sum(nn::logsumexp(x, 1) *
                             Array::from_vector(std::vector<double>{1.0, -2.0, 0.5}));
                }});
  {
    Array b = rnd(14, {3, 1});
    fs.push_back({"broadcast_reduce", {2, 3, 4}, [=](const Array &x) {
                    Array s = sum(x * b, {0, 2});     // [3]
                    Array m = mean(x * x, {1}, true); // [2,1,4]
                    return sum(s * s) + sum(m * x) + max(x * 0.5);
                  }});
  }
  {
    Array idx = Array::from_vector(std::vector<int32_t>{0, 2, 2, 5});
    Array c = rnd(15, {4, 3});
    fs.push_back({"int_indexing", {6, 3}, [=](const Array &x) {
                    return sum(x[idx] * c) + sum(take(x, idx, 0) * x[{Slice(0, 4)}]);
                  }});
  }
  fs.push_back({"where_masked", {7}, [](const Array &x) {
                  // The unselected branch is NaN at negative x; the mask must keep it out.
                  Array safe = sqrt(where(x > 0.0, x, ones_like(x)));
                  return sum(where(x > 0.0, safe, exp(x)));
                }});
  return fs;
}

std::vector<Op> operators() { return compose_operators(1e-3); }

void check_chain(const NamedFn &nf, const std::vector<const Op *> &chain) {
  check_operator_chain(nf.f, nf.f, nf.shape, rnd(200, nf.shape, 0.7), chain, nf.name + " ", 1e-12);
}

} // namespace

TEST(Compose, SingleTransforms) {
  auto ops = operators();
  for (const NamedFn &f : real_functions())
    for (const Op &a : ops)
      check_chain(f, {&a});
}

TEST(Compose, EveryOrderedPair) {
  auto ops = operators();
  for (const NamedFn &f : real_functions())
    for (const Op &a : ops)
      for (const Op &b : ops)
        check_chain(f, {&a, &b});
}

TEST(Compose, EveryOrderedTriple) {
  auto ops = operators();
  for (const NamedFn &f : real_functions())
    for (const Op &a : ops)
      for (const Op &b : ops)
        for (const Op &c : ops)
          check_chain(f, {&a, &b, &c});
}

TEST(Compose, HessianFourWaysAgree) {
  for (const NamedFn &nf : real_functions()) {
    if (nf.name != "polynomial" && nf.name != "mlp_loss" && nf.name != "logsumexp")
      continue;
    // Flatten the argument so the Hessian is a matrix.
    Shape s = nf.shape;
    auto flat = [&](const Array &v) { return nf.f(reshape(v, s)); };
    Array x = reshape(rnd(300, s, 0.5), {-1});
    int64_t n = x.size();
    Array h1 = hessian(flat)(x);
    Array h2 = jacfwd(grad(flat))(x); // jvp of grad
    Array h3 = jacrev(grad(flat))(x); // grad of grad
    Array h4 = jacfwd(jacrev(flat))(x);
    ASSERT_EQ(h1.shape(), (Shape{n, n})) << nf.name;
    std::vector<double> a = values(h1);
    for (const Array &h : {h2, h3, h4}) {
      std::vector<double> b = values(h);
      for (size_t i = 0; i < a.size(); ++i)
        EXPECT_NEAR(a[i], b[i], 1e-10 * (1 + std::fabs(a[i]))) << nf.name << " at " << i;
    }
    // And the Hessian is symmetric and matches finite differences of the gradient.
    auto g = grad(flat);
    for (int64_t j = 0; j < n; j += 3) {
      Array e = lax::convert_element_type(nn::one_hot(Array(static_cast<int32_t>(j)), n), float64);
      std::vector<double> fd = values((g(x + 1e-5 * e) - g(x - 1e-5 * e)) / 2e-5);
      for (int64_t i = 0; i < n; ++i)
        EXPECT_NEAR(a[i * n + j], fd[i], 1e-5 * (1 + std::fabs(fd[i]))) << nf.name;
    }
  }
}

TEST(Compose, PerExampleGradientsOfAnMlp) {
  using Params = std::map<std::string, Array>;
  Params params{{"w1", rnd(1, {6, 8}, 0.3)},
                {"b1", rnd(2, {8}, 0.1)},
                {"w2", rnd(3, {8, 3}, 0.3)},
                {"b2", rnd(4, {3}, 0.1)}};
  auto loss = [](const Params &p, const Array &x, const Array &y) {
    Array h = nn::relu(matmul(x, p.at("w1")) + p.at("b1"));
    Array logits = matmul(h, p.at("w2")) + p.at("b2");
    return -sum(nn::one_hot(y, 3, float64) * nn::log_softmax(logits));
  };
  Array xs = rnd(5, {7, 6});
  Array ys = Array::from_vector(std::vector<int32_t>{0, 1, 2, 1, 0, 2, 2});
  Params batched = vmap(grad(loss), {kNotBatched, 0, 0})(params, xs, ys);
  for (int i = 0; i < 7; ++i) {
    Params gi = grad(loss)(params, xs[i], ys[i]);
    for (const auto &[k, v] : gi) {
      std::vector<double> want = values(v), got = values(batched.at(k)[i]);
      ASSERT_EQ(want.size(), got.size());
      for (size_t j = 0; j < want.size(); ++j)
        EXPECT_NEAR(got[j], want[j], 1e-12) << k << " example " << i;
    }
  }
}

TEST(Compose, NoBuffersOrTapesOutliveATransform) {
  Array w = rnd(1, {16, 16}, 0.2), x = rnd(2, {8, 16});
  auto loss = [&](const Array &v) { return sum(tanh(matmul(x, v)) * tanh(matmul(x, v))); };
  Array g0 = grad(loss)(w); // warm caches
  g0 = Array();
  int64_t base_bytes = memory_stats().live_bytes, base_buffers = memory_stats().live_buffers;
  for (int i = 0; i < 100; ++i) {
    Array g = grad(loss)(w);
    Array h = vmap(grad(loss))(stack({w, w}));
    Array j = jvp(grad(loss), std::make_tuple(w), std::make_tuple(w)).second;
  }
  EXPECT_EQ(memory_stats().live_bytes, base_bytes);
  EXPECT_EQ(memory_stats().live_buffers, base_buffers);
}

TEST(Compose, CheckpointLowersPeakMemory) {
  // Activations (batch x width) dominate the weights (width x width), as in a deep MLP.
  const int layers = 32, batch = 256, width = 64;
  std::vector<Array> ws;
  for (int i = 0; i < layers; ++i)
    ws.push_back(
        lax::convert_element_type(random::normal(random::key(i), {width, width}), float32) *
        (1.0f / std::sqrt(float(width))));
  Array x = random::normal(random::key(99), {batch, width});
  const int64_t act = int64_t{batch} * width * 4; // one activation in bytes
  auto layer = [](const Array &h, const Array &w) {
    return tanh(checkpoint_name(matmul(h, w), "pre"));
  };
  // policy: nullopt = no checkpoint
  auto make_loss = [&](std::optional<CheckpointPolicy> policy) {
    return [&, policy](const std::vector<Array> &wv) {
      Array h = x;
      for (int i = 0; i < layers; ++i)
        h = policy ? checkpoint(layer, *policy)(h, wv[i]) : layer(h, wv[i]);
      return sum(h * h);
    };
  };
  auto peak_of = [&](std::optional<CheckpointPolicy> policy) {
    reset_peak_memory();
    int64_t base = memory_stats().live_bytes;
    std::vector<Array> g = grad(make_loss(policy))(ws);
    return memory_stats().peak_bytes - base;
  };
  std::vector<Array> g_plain = grad(make_loss(std::nullopt))(ws);
  for (CheckpointPolicy policy : {CheckpointPolicy::nothing(), CheckpointPolicy::dots(),
                                  CheckpointPolicy::save_names({"pre"})}) {
    std::vector<Array> g_remat = grad(make_loss(policy))(ws);
    for (int i = 0; i < layers; i += 7) {
      std::vector<double> a = values(g_plain[i]), b = values(g_remat[i]);
      for (size_t j = 0; j < a.size(); j += 97)
        EXPECT_NEAR(a[j], b[j], 1e-4 * (1 + std::fabs(a[j])));
    }
  }
  int64_t plain = peak_of(std::nullopt), remat = peak_of(CheckpointPolicy::nothing());
  int64_t dots = peak_of(CheckpointPolicy::dots());
  int64_t named = peak_of(CheckpointPolicy::save_names({"pre"}));
  std::printf("checkpoint policies: save dots %lld bytes, save named 'pre' %lld bytes\n",
              static_cast<long long>(dots), static_cast<long long>(named));
  // Saving the matmul outputs costs one activation per layer more than saving nothing.
  EXPECT_GT(dots, remat + layers * act / 2);
  EXPECT_GT(named, remat + layers * act / 2);
  std::printf("checkpoint memory: peak above baseline %lld bytes plain, %lld with checkpoint "
              "(%.1f vs %.1f activations)\n",
              static_cast<long long>(plain), static_cast<long long>(remat), double(plain) / act,
              double(remat) / act);
  // Plain grad keeps the matmul and tanh outputs of every layer; checkpoint keeps one
  // activation per layer plus one layer's replay.
  EXPECT_LT(remat, plain * 7 / 10);
  EXPECT_LT(remat, (layers + 12) * act + int64_t{layers} * width * width * 4);
}
