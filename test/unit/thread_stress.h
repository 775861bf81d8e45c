// A stress harness for concurrent calls: cases run from many threads at once, each result
// checked against the same case run alone on the calling thread.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "expect_matches.h"
#include "strata/strata.h"

namespace strata::testutil {

/// One concurrent workload: a name and a call that returns its results.
struct StressCase {
  std::string name;
  std::function<std::vector<Array>()> run;
};

/// Runs every case once alone (the reference), then from `threads` threads at once, each
/// thread cycling through the cases from its own starting case for `rounds` rounds or until
/// `seconds` have passed (each thread finishes at least one round). Returns what differed from
/// the reference beyond `tol`, and the exceptions thrown, one line each.
inline std::vector<std::string> run_stress(const std::vector<StressCase> &cases, int threads,
                                           int rounds, double seconds, const Tolerance &tol) {
  std::vector<std::vector<Array>> want;
  for (const StressCase &c : cases)
    want.push_back(c.run());
  std::mutex mu;
  std::vector<std::string> problems;
  auto report = [&](std::string s) {
    std::lock_guard<std::mutex> lock(mu);
    problems.push_back(std::move(s));
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      // Start together, so that first calls (compiles, plans, lazy loads) race.
      ++ready;
      while (ready.load() < threads)
        std::this_thread::yield();
      for (int r = 0; r < rounds; ++r) {
        if (r > 0 && std::chrono::steady_clock::now() > deadline)
          break;
        for (size_t k = 0; k < cases.size(); ++k) {
          size_t i = (k + static_cast<size_t>(t)) % cases.size();
          try {
            std::vector<Array> got = cases[i].run();
            if (got.size() != want[i].size()) {
              report(cases[i].name + ": " + std::to_string(got.size()) + " outputs, want " +
                     std::to_string(want[i].size()));
              continue;
            }
            for (size_t j = 0; j < got.size(); ++j)
              if (std::string m = mismatches(got[j], want[i][j], tol); !m.empty())
                report(cases[i].name + " output " + std::to_string(j) + " on thread " +
                       std::to_string(t) + ": " + m);
          } catch (const std::exception &e) {
            report(cases[i].name + " on thread " + std::to_string(t) + " threw: " + e.what());
          }
        }
      }
    });
  for (std::thread &th : pool)
    th.join();
  return problems;
}

} // namespace strata::testutil
