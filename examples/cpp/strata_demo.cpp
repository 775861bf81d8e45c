// Strata's demo: softmax regression on synthetic clustered data, trained eagerly on the CPU
// with a hand-written gradient (the transforms issue replaces it with strata::grad, and the
// jit issue compiles the step).
#include <chrono>
#include <cstdio>

#include "strata/strata.h"

using namespace strata;

int main() {
  const int64_t n = 4096, d = 32, classes = 4;
  Array key = random::key(0);
  Array keys = random::split(key, 4);
  auto k = [&](int i) { return keys[i]; };

  // Each class is a Gaussian blob around its own random centre.
  Array centres = random::normal(k(0), {classes, d}) * 0.35f;
  Array labels = random::randint(k(1), {n}, 0, classes);
  Array x = take(centres, labels, 0) + random::normal(k(2), {n, d});
  Array y = nn::one_hot(labels, classes);

  Array w = zeros({d, classes}), b = zeros({classes});
  const float lr = 0.5f;
  auto t0 = std::chrono::steady_clock::now();
  for (int step = 0; step <= 100; ++step) {
    Array logits = matmul(x, w) + b;
    Array logp = nn::log_softmax(logits);
    Array loss = -mean(sum(y * logp, -1));
    // d loss / d logits = (softmax - onehot) / n
    Array g = (exp(logp) - y) / static_cast<float>(n);
    w = w - lr * matmul(x.T(), g);
    b = b - lr * sum(g, 0);
    if (step % 10 == 0) {
      Array acc = mean(astype(argmax(logits, -1) == labels, float32));
      std::printf("step %3d  loss %.4f  accuracy %.3f\n", step, loss.item<float>(),
                  acc.item<float>());
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MemoryStats m = memory_stats();
  std::printf("100 eager steps in %.3f s; peak host memory %.1f MiB, live %.1f MiB\n", secs,
              m.peak_bytes / 1048576.0, m.live_bytes / 1048576.0);
  return 0;
}
