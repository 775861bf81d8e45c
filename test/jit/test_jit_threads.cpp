// Jitted calls from eight threads at once: shared jitted functions (cache hits), fresh ones
// (compiles racing for the MLIR context), and jit composed with grad, vmap and scan, each result
// checked against the same call made alone. A normal gtest, so the ThreadSanitizer build runs it.
#include "jit_test_util.h"
#include "strata/control_flow.h"
#include "thread_stress.h"

using namespace strata;
using namespace strata::testutil;

namespace {

Array scan_loss(const Array &xs) {
  auto [c, ys] = lax::scan(
      [](const Array &c, const Array &x) { return std::make_pair(c * 0.9f + sin(x), c * x); },
      zeros({}, float32), xs);
  return c + sum(ys);
}

TEST(JitThreads, GradJitVmapScanFromEightThreads) {
  Array w = weights(), x = batch();
  Array xs = make({0.1, 0.5, -0.3, 0.9, 1.2, -0.7, 0.2}, {7}, float32);
  auto per_row = [](const Array &w, const Array &r) { return loss(w, reshape(r, {1, 4})); };
  // Shared by every thread: the first calls compile, later ones hit the cache.
  auto jit_grad = jit(grad(loss));
  auto grad_jit = grad(jit(loss));
  auto jit_vmap = jit(vmap(grad(per_row), {kNotBatched, 0}));
  auto jit_scan = jit(grad(scan_loss));
  std::vector<StressCase> cases = {
      {"jit_grad", [&] { return std::vector<Array>{jit_grad(w, x)}; }},
      {"grad_jit", [&] { return std::vector<Array>{grad_jit(w, x)}; }},
      {"jit_vmap_grad", [&] { return std::vector<Array>{jit_vmap(w, x)}; }},
      {"jit_grad_scan", [&] { return std::vector<Array>{jit_scan(xs)}; }},
      // A new jitted function each call: every call compiles.
      {"fresh_jit",
       [&] {
         auto f = jit([](const Array &w, const Array &x) { return loss(w, x) * 2.0f; });
         return std::vector<Array>{f(w, x)};
       }},
      {"eager_grad_scan", [&] { return std::vector<Array>{grad(scan_loss)(xs)}; }},
  };
  std::vector<std::string> problems = run_stress(cases, 8, 6, 4.0, Tolerance::of(1e-6));
  for (const std::string &p : problems)
    ADD_FAILURE() << p;
  EXPECT_GE(jit_grad.stats().hits, 8);
}

} // namespace
