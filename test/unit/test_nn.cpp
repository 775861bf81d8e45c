// strata::nn against formulas evaluated here in double: activations, the softmax family
// (stability on large and -inf inputs), one_hot, layer_norm and rms_norm.
#include <cmath>
#include <limits>

#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

template <class F> std::vector<double> map(const std::vector<double> &v, F f) {
  std::vector<double> out;
  for (double e : v)
    out.push_back(f(e));
  return out;
}
} // namespace

TEST(Nn, Activations) {
  std::vector<double> v = {-3, -0.5, 0, 0.25, 2, 6};
  Array x = make(v, float64);
  expect_array(nn::relu(x), map(v, [](double e) { return e > 0 ? e : 0; }), {6}, float64);
  expect_array(nn::relu(make({-2, 3}, int32)), {0, 3}, {2}, int32);
  auto sig = [](double e) { return 1 / (1 + std::exp(-e)); };
  expect_array(nn::sigmoid(x), map(v, sig), {6}, float64, 1e-14);
  expect_array(nn::silu(x), map(v, [&](double e) { return e * sig(e); }), {6}, float64, 1e-14);
  auto gelu_tanh = [](double e) {
    return 0.5 * e * (1 + std::tanh(std::sqrt(2 / M_PI) * (e + 0.044715 * e * e * e)));
  };
  auto gelu_erf = [](double e) { return 0.5 * e * (1 + std::erf(e / std::sqrt(2.0))); };
  expect_array(nn::gelu(x), map(v, gelu_tanh), {6}, float64, 1e-14);
  expect_array(nn::gelu(x, false), map(v, gelu_erf), {6}, float64, 1e-14);
  // Integers promote to f32; f16 stays f16.
  expect_array(nn::sigmoid(make({0}, int32)), {0.5}, {1}, float32);
  expect_array(nn::gelu(make({1}, float16)), {gelu_tanh(1)}, {1}, float16, 2e-3);
  expect_array(nn::silu(make({}, {0}, float32)), {}, {0}, float32);
}

TEST(Nn, SoftmaxFamily) {
  std::vector<double> v = {1, 2, 3, -1, 0, 1000};
  Array x = make(v, {2, 3}, float64);
  std::vector<double> sm, lsm;
  for (int r = 0; r < 2; ++r) {
    double m = std::max({v[r * 3], v[r * 3 + 1], v[r * 3 + 2]}), s = 0;
    for (int c = 0; c < 3; ++c)
      s += std::exp(v[r * 3 + c] - m);
    for (int c = 0; c < 3; ++c) {
      sm.push_back(std::exp(v[r * 3 + c] - m) / s);
      lsm.push_back(v[r * 3 + c] - m - std::log(s));
    }
  }
  expect_array(nn::softmax(x), sm, {2, 3}, float64, 1e-14);
  expect_array(nn::log_softmax(x), lsm, {2, 3}, float64, 1e-14);
  // Along axis 0: each column sums to one.
  std::vector<double> col = values(sum(nn::softmax(x, 0), 0));
  for (double c : col)
    EXPECT_NEAR(c, 1.0, 1e-14);
  expect_array(nn::softmax(make({1000, 1000}, float32)), {0.5, 0.5}, {2}, float32);
  expect_array(nn::softmax(make({0, -kInf}, float32)), {1, 0}, {2}, float32);
  expect_array(nn::softmax(make({1, 1}, int32)), {0.5, 0.5}, {2}, float32);
}

TEST(Nn, Logsumexp) {
  std::vector<double> v = {1, 2, 3, -1, 0, 1000};
  Array x = make(v, {2, 3}, float64);
  double r0 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  double r1 = 1000 + std::log(std::exp(-1001.0) + std::exp(-1000.0) + 1);
  expect_array(nn::logsumexp(x, 1), {r0, r1}, {2}, float64, 1e-14);
  expect_array(nn::logsumexp(x, -1, true), {r0, r1}, {2, 1}, float64, 1e-14);
  expect_array(nn::logsumexp(x), {r1}, {}, float64, 1e-14);
  // Rows of -inf stay -inf (not NaN); +inf gives +inf.
  expect_array(nn::logsumexp(make({-kInf, -kInf, 0, -kInf}, {2, 2}, float32), 1), {-kInf, 0}, {2},
               float32);
  expect_array(nn::logsumexp(make({kInf, 1}, float32)), {kInf}, {}, float32);
  expect_array(nn::logsumexp(make({kNaN, 1}, float32)), {kNaN}, {}, float32);
  expect_array(nn::logsumexp(make({0, 0}, int32)), {std::log(2.0)}, {}, float32, 2e-6);
}

TEST(Nn, OneHot) {
  expect_array(nn::one_hot(make({0, 2, -1, 3}, int32), 3), {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0},
               {4, 3}, float32);
  expect_array(nn::one_hot(make({1, 0}, {2, 1}, uint8), 2, int32), {0, 1, 1, 0}, {2, 1, 2}, int32);
  expect_array(nn::one_hot(Array(1), 2, bool_), {0, 1}, {2}, bool_);
  expect_array(nn::one_hot(make({1}, int64), 0), {}, {1, 0}, float32);
  expect_error([] { nn::one_hot(make({1}, int32), -1); }, {"[one_hot]", "-1"});
}

TEST(Nn, LayerNormAndRmsNorm) {
  std::vector<double> v = {1, 2, 3, 4, -2, 0, 2, 8};
  Array x = make(v, {2, 4}, float64);
  std::vector<double> ln, rn;
  double eps = 1e-5;
  for (int r = 0; r < 2; ++r) {
    double m = 0, var = 0, ms = 0;
    for (int c = 0; c < 4; ++c) {
      m += v[r * 4 + c] / 4;
      ms += v[r * 4 + c] * v[r * 4 + c] / 4;
    }
    for (int c = 0; c < 4; ++c)
      var += (v[r * 4 + c] - m) * (v[r * 4 + c] - m) / 4;
    for (int c = 0; c < 4; ++c) {
      ln.push_back((v[r * 4 + c] - m) / std::sqrt(var + eps));
      rn.push_back(v[r * 4 + c] / std::sqrt(ms + 1e-6));
    }
  }
  expect_array(nn::layer_norm(x), ln, {2, 4}, float64, 1e-12);
  expect_array(nn::rms_norm(x), rn, {2, 4}, float64, 1e-12);
  std::vector<double> scale = {1, 2, 0.5, -1}, bias = {0, 1, 2, 3}, lna, rna;
  for (size_t i = 0; i < ln.size(); ++i) {
    lna.push_back(ln[i] * scale[i % 4] + bias[i % 4]);
    rna.push_back(rn[i] * scale[i % 4]);
  }
  expect_array(nn::layer_norm(x, make(scale, float64), make(bias, float64)), lna, {2, 4}, float64,
               1e-12);
  expect_array(nn::rms_norm(x, make(scale, float64)), rna, {2, 4}, float64, 1e-12);
  // f32 and integer inputs, and a 1-D input.
  expect_array(nn::layer_norm(make(v, {2, 4}, float32)), ln, {2, 4}, float32, 1e-5);
  expect_array(nn::layer_norm(make({1, 3}, int32), std::nullopt, std::nullopt, 0.0), {-1, 1}, {2},
               float32, 2e-6);
  expect_error([] { nn::layer_norm(Array(1.0f)); }, {"[layer_norm]", "f32[]"});
  expect_error([] { nn::rms_norm(Array(1.0f)); }, {"[rms_norm]"});
  expect_error([&] { nn::layer_norm(x, make({1, 2, 3}, float64)); }, {"[broadcast]"});
}
