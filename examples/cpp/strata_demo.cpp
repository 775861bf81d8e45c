// Strata's demo: softmax regression on synthetic clustered data, trained eagerly on the CPU
// with strata::value_and_grad over a pytree of parameters (the jit issue compiles the step),
// plus per-example gradient norms with vmap(grad).
#include <chrono>
#include <cstdio>
#include <map>

#include "strata/strata.h"
#include "strata/transforms.h"

using namespace strata;
using ParamMap = std::map<std::string, Array>;

int main() {
  const int64_t n = 4096, d = 32, classes = 4;
  Array keys = random::split(random::key(0), 4);

  // Each class is a Gaussian blob around its own random centre.
  Array centres = random::normal(keys[0], {classes, d}) * 0.35f;
  Array labels = random::randint(keys[1], {n}, 0, classes);
  Array x = take(centres, labels, 0) + random::normal(keys[2], {n, d});

  auto loss = [](const ParamMap &p, const Array &x, const Array &labels) {
    Array logp = nn::log_softmax(matmul(x, p.at("w")) + p.at("b"));
    return -mean(sum(nn::one_hot(labels, 4) * logp, -1));
  };
  auto step = value_and_grad(loss);

  ParamMap p{{"w", zeros({d, classes})}, {"b", zeros({classes})}};
  const float lr = 0.5f;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i <= 100; ++i) {
    auto [value, g] = step(p, x, labels);
    for (auto &[k, v] : p)
      v = v - lr * g.at(k);
    if (i % 20 == 0) {
      Array acc = mean(astype(argmax(matmul(x, p.at("w")) + p.at("b"), -1) == labels, float32));
      std::printf("step %3d  loss %.4f  accuracy %.3f\n", i, value.item<float>(),
                  acc.item<float>());
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Per-example gradient norms of the first 8 examples: vmap over grad.
  ParamMap per = vmap(grad(loss), {kNotBatched, 0, 0})(p, x[{Slice(0, 8)}], labels[{Slice(0, 8)}]);
  Array norms = sqrt(sum(per.at("w") * per.at("w"), {1, 2}) + sum(per.at("b") * per.at("b"), 1));
  std::printf("per-example gradient norms:");
  for (float v : norms.to_vector<float>())
    std::printf(" %.3f", v);
  MemoryStats m = memory_stats();
  std::printf("\n101 steps of value_and_grad in %.3f s; peak host memory %.1f MiB\n", secs,
              m.peak_bytes / 1048576.0);
  return 0;
}
