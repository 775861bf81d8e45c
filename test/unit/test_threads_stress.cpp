// Eager work from eight threads at once (grad, vmap, scan, and the kernels behind them: BLAS
// matmuls on the thread pool, sorts, FFT plans, random bits), each result checked against the
// same call made alone. A normal gtest, so the ThreadSanitizer build runs it as well.
#include <cmath>
#include <thread>

#include "strata/control_flow.h"
#include "strata/internal/thread_pool.h"
#include "strata/random.h"
#include "strata/transforms.h"
#include "test_util.h"
#include "thread_stress.h"

using namespace strata;
using namespace strata::testutil;

namespace {

constexpr int kThreads = 8;

Array ramp(int64_t n, const Shape &shape, double scale) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = std::sin(static_cast<double>(i) * scale) + 0.01 * i;
  return Array::from_vector(v, shape);
}

Array loss(const Array &w, const Array &x) {
  Array h = tanh(matmul(x, w));
  return sum(h * h) / 7.0 + sum(sin(w));
}

std::vector<StressCase> eager_cases() {
  Array w = ramp(12, {4, 3}, 0.7), x = ramp(20, {5, 4}, 0.3);
  Array big_a = ramp(160 * 96, {160, 96}, 0.01), big_b = ramp(96 * 128, {96, 128}, 0.02);
  Array unsorted = ramp(20000, {20000}, 12.345);
  Array signal = ramp(8 * 192, {8, 192}, 0.05);
  return {
      {"grad", [=] { return std::vector<Array>{grad(loss)(w, x)}; }},
      {"grad_argnums",
       [=] {
         auto [gw, gx] = grad<0, 1>(loss)(w, x);
         return std::vector<Array>{gw, gx};
       }},
      {"vmap_grad",
       [=] {
         auto per_row = [](const Array &w, const Array &r) { return loss(w, reshape(r, {1, 4})); };
         return std::vector<Array>{vmap(grad(per_row), {kNotBatched, 0})(w, x)};
       }},
      {"grad_scan",
       [=] {
         auto f = [](const Array &xs) {
           auto [c, ys] =
               lax::scan([](const Array &c,
                            const Array &x) { return std::make_pair(c * 0.9 + sin(x), c * x); },
                         zeros({}, float64), xs);
           return c + sum(ys);
         };
         return std::vector<Array>{grad(f)(ramp(33, {33}, 0.2))};
       }},
      {"matmul_pool", [=] { return std::vector<Array>{matmul(big_a, big_b)}; }},
      {"sort", [=] { return lax::sort({unsorted}); }},
      {"rfft", [=] { return std::vector<Array>{lax::fft(signal, "RFFT", {192})}; }},
      {"random",
       [] {
         Array keys = random::split(random::key(7), 3);
         return std::vector<Array>{random::normal(keys[1], {64, 8}, float64)};
       }},
  };
}

TEST(ThreadsStress, EagerTransformsFromEightThreads) {
  std::vector<std::string> problems =
      run_stress(eager_cases(), kThreads, 20, 3.0, Tolerance::of(1e-12));
  for (const std::string &p : problems)
    ADD_FAILURE() << p;
}

// FFT plans for lengths nobody planned before, made from many threads at once: FFTW's planner is
// not thread-safe, its plans are. Checked against a direct DFT.
TEST(ThreadsStress, FftPlansFromEightThreads) {
  std::vector<std::thread> pool;
  std::vector<double> worst(kThreads, 0.0);
  for (int t = 0; t < kThreads; ++t)
    pool.emplace_back([t, &worst] {
      for (int k = 0; k < 4; ++k) {
        int64_t n = 37 + 8 * t + k; // distinct lengths: every call plans
        Array x = ramp(n, {n}, 0.3 + t);
        std::vector<double> got = values(lax::fft(x, "RFFT", {n})), xv = values(x);
        int64_t m = n / 2 + 1;
        for (int64_t j = 0; j < m; ++j) {
          double re = 0, im = 0;
          for (int64_t i = 0; i < n; ++i) {
            double a = -2 * M_PI * static_cast<double>(i * j % n) / static_cast<double>(n);
            re += xv[static_cast<size_t>(i)] * std::cos(a);
            im += xv[static_cast<size_t>(i)] * std::sin(a);
          }
          worst[static_cast<size_t>(t)] =
              std::max({worst[static_cast<size_t>(t)], std::abs(got[static_cast<size_t>(j)] - re),
                        std::abs(got[static_cast<size_t>(m + j)] - im)});
        }
      }
    });
  for (std::thread &th : pool)
    th.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_LT(worst[static_cast<size_t>(t)], 1e-9) << "thread " << t;
}

// Two callers of parallel_for at once: one gets the pool, the other runs inline; both cover
// their whole range exactly once.
TEST(ThreadsStress, ParallelForFromEightThreads) {
  std::vector<std::thread> pool;
  std::vector<int64_t> bad(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    pool.emplace_back([t, &bad] {
      for (int r = 0; r < 200; ++r) {
        int64_t n = 1000 + 17 * t + r;
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        parallel_for(n, 16, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i)
            ++hits[static_cast<size_t>(i)];
        });
        for (auto &h : hits)
          bad[static_cast<size_t>(t)] += h.load() != 1;
      }
    });
  for (std::thread &th : pool)
    th.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(bad[static_cast<size_t>(t)], 0) << "thread " << t;
}

} // namespace
