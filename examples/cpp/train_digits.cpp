// Strata's main job: trains a 64-256-10 MLP on the handwritten digits data set (1797 8x8
// images, shipped with Debian's python3-sklearn) with jit(value_and_grad) and an Adam update,
// compiled into one executable per step. Usage: train_digits <digits.csv> [epochs]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "strata/jit.h"
#include "strata/nn.h"
#include "strata/random.h"
#include "strata/strata.h"

using namespace strata;
using Weights = std::vector<Array>; // w1, b1, w2, b2

namespace {

struct Data {
  Array x, y; // f32[n, 64] in [0, 1], i32[n]
};

Data load_digits(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot open " + path);
  std::vector<float> xs;
  std::vector<int32_t> ys;
  std::string line;
  while (std::getline(in, line)) {
    std::stringstream row(line);
    std::string cell;
    std::vector<float> v;
    while (std::getline(row, cell, ','))
      v.push_back(std::stof(cell));
    if (v.size() != 65)
      continue;
    for (int i = 0; i < 64; ++i)
      xs.push_back(v[i] / 16.0f);
    ys.push_back(static_cast<int32_t>(v[64]));
  }
  int64_t n = static_cast<int64_t>(ys.size());
  return {Array::from_vector(xs, {n, 64}), Array::from_vector(ys, {n})};
}

Weights init(const Array &key, int64_t hidden) {
  Array k = random::split(key);
  auto glorot = [](const Array &kk, int64_t fan_in, int64_t fan_out) {
    return random::normal(kk, {fan_in, fan_out}) * as_weak(std::sqrt(2.0 / (fan_in + fan_out)));
  };
  return {glorot(k[0], 64, hidden), zeros({hidden}, float32), glorot(k[1], hidden, 10),
          zeros({10}, float32)};
}

Array logits(const Weights &p, const Array &x) {
  Array h = nn::relu(matmul(x, p[0]) + p[1]);
  return matmul(h, p[2]) + p[3];
}

Array loss_fn(const Weights &p, const Array &x, const Array &y) {
  Array logp = nn::log_softmax(logits(p, x));
  return -mean(sum(logp * nn::one_hot(y, 10), -1));
}

// One Adam step: (params, m, v, step, x, y) -> (loss, params, m, v).
std::tuple<Array, Weights, Weights, Weights> train_step(const Weights &p, const Weights &m,
                                                        const Weights &v, const Array &step,
                                                        const Array &x, const Array &y) {
  auto [loss, g] = value_and_grad(loss_fn)(p, x, y);
  const double lr = 3e-3, b1 = 0.9, b2 = 0.999, eps = 1e-8;
  Array t = step + as_weak(1.0);
  Array c1 = as_weak(1.0) - power(as_weak(b1), t), c2 = as_weak(1.0) - power(as_weak(b2), t);
  Weights np, nm, nv;
  for (size_t i = 0; i < p.size(); ++i) {
    nm.push_back(m[i] * as_weak(b1) + g[i] * as_weak(1 - b1));
    nv.push_back(v[i] * as_weak(b2) + g[i] * g[i] * as_weak(1 - b2));
    np.push_back(p[i] - as_weak(lr) * (nm[i] / c1) / (sqrt(nv[i] / c2) + as_weak(eps)));
  }
  return {loss, np, nm, nv};
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <digits.csv> [epochs]\n", argv[0]);
    return 2;
  }
  int epochs = argc > 2 ? std::atoi(argv[2]) : 12;
  Data d = load_digits(argv[1]);
  const int64_t n = d.y.size(), n_train = 1536, batch = 128;
  std::printf("digits: %lld images of 8x8; training on %lld, testing on %lld\n",
              static_cast<long long>(n), static_cast<long long>(n_train),
              static_cast<long long>(n - n_train));
  Array x_train = d.x[Slice(0, n_train)], y_train = d.y[Slice(0, n_train)];
  Array x_test = d.x[Slice(n_train, n)], y_test = d.y[Slice(n_train, n)];

  Array key = random::key(0);
  Weights p = init(key, 256), m, v;
  for (const Array &w : p) {
    m.push_back(zeros_like(w));
    v.push_back(zeros_like(w));
  }
  auto step = jit(train_step, JitOptions{.name = "train_step"});
  auto accuracy =
      jit([](const Weights &p, const Array &x,
             const Array &y) { return mean((argmax(logits(p, x), -1) == y).astype(float32)); },
          JitOptions{.name = "accuracy"});

  Array t = zeros({}, float32);
  for (int epoch = 0; epoch < epochs; ++epoch) {
    Array perm = random::permutation(random::fold_in(key, epoch + 1), n_train);
    double total = 0;
    int batches = 0;
    for (int64_t s = 0; s + batch <= n_train; s += batch) {
      Array idx = perm[Slice(s, s + batch)];
      auto [loss, np, nm, nv] = step(p, m, v, t, take(x_train, idx, 0), take(y_train, idx, 0));
      p = np, m = nm, v = nv;
      t = t + as_weak(1.0);
      total += loss.item<float>();
      ++batches;
    }
    std::printf("epoch %2d  train loss %.4f  test accuracy %.3f\n", epoch + 1, total / batches,
                accuracy(p, x_test, y_test).item<float>());
  }
  JitStats s = step.stats();
  std::printf("train_step cache: %lld hits, %lld misses, compile %.0f ms\n",
              static_cast<long long>(s.hits), static_cast<long long>(s.misses),
              s.compile_seconds * 1e3);
  const char *dump = std::getenv("STRATA_DUMP_IR");
  std::printf("IR of every compilation stage: %s\n",
              dump && *dump ? dump : "(set STRATA_DUMP_IR=<dir> to write it)");
  return 0;
}
