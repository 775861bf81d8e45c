// Transform benchmarks: per-example gradients of a 784-256-10 MLP at batch 128, by
// vmap(grad) against a loop of grad over the examples (eager, CPU), and jit(vmap(grad)). Prints
// JSON records; the PyTorch peers are measured by bench/peers_torch.py in the same scripts/bench
// run.
#include <map>

#include "bench_util.h"
#include "strata/jit.h"
#include "strata/strata.h"
#include "strata/transforms.h"

using namespace strata;
using namespace strata::bench;

int main(int argc, char **argv) {
  std::string filter = argc > 1 ? argv[1] : "";
  if (!selected("per_example_grad", filter))
    return 0;
  using Params = std::map<std::string, Array>;
  Params p{{"w1", random::normal(random::key(1), {784, 256}) * 0.05f},
           {"b1", zeros({256})},
           {"w2", random::normal(random::key(2), {256, 10}) * 0.05f},
           {"b2", zeros({10})}};
  Array x = random::normal(random::key(3), {128, 784});
  Array y = random::randint(random::key(4), {128}, 0, 10);
  auto loss = [](const Params &p, const Array &x, const Array &y) {
    Array h = nn::relu(matmul(x, p.at("w1")) + p.at("b1"));
    Array logits = matmul(h, p.at("w2")) + p.at("b2");
    return -sum(nn::one_hot(y, 10) * nn::log_softmax(logits));
  };
  auto g = grad(loss);
  auto vg = vmap(grad(loss), {kNotBatched, 0, 0});
  double t_vmap = time_per_call([&] { Params r = vg(p, x, y); }, 3, 5);
  double t_loop = time_per_call(
      [&] {
        for (int i = 0; i < 128; ++i)
          Params r = g(p, x[i], y[i]);
      },
      1, 5);
  record("per_example_grad_mlp784_vmap_vs_loop", "ms", t_vmap * 1e3,
         "strata loop of grad (same run)", t_loop * 1e3, "lower", "\"target_ratio\": 0.2");
  // The same under jit (the functorch peer is paired in by scripts/bench).
  auto jvg = jit(vg);
  jvg(p, x, y);
  double t_jit = time_per_call([&] { Params r = jvg(p, x, y); }, 5);
  record("jit_per_example_grad_mlp784", "ms", t_jit * 1e3, "Strata eager vmap(grad) (same run)",
         t_vmap * 1e3, "lower");
}
