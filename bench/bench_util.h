// Timing and JSON-record helpers shared by the C++ benchmarks.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace strata::bench {

/// Median seconds per call of fn over `reps` timed batches of `inner` calls (after a warm-up).
template <class F> double time_per_call(F &&fn, int inner, int reps = 7) {
  for (int i = 0; i < inner; ++i)
    fn();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < inner; ++i)
      fn();
    auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double>(t1 - t0).count() / inner);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// One result line: the record scripts/bench collects into bench/results/latest.json.
inline void record(const std::string &name, const std::string &unit, double strata,
                   const std::string &peer, double peer_value, const std::string &better,
                   const std::string &extra = "") {
  double ratio = strata / peer_value;
  std::printf("{\"name\": \"%s\", \"unit\": \"%s\", \"strata\": %.6g, \"peer\": \"%s\", "
              "\"peer_value\": %.6g, \"ratio\": %.4f, \"better\": \"%s\"%s%s}\n",
              name.c_str(), unit.c_str(), strata, peer.c_str(), peer_value, ratio, better.c_str(),
              extra.empty() ? "" : ", ", extra.c_str());
  std::fflush(stdout);
}

/// The machine's copy bandwidth: memcpy on as many threads as Strata's kernels use.
inline double memcpy_seconds(char *dst, const char *src, size_t bytes, int threads) {
  return time_per_call(
      [&] {
        std::vector<std::thread> ts;
        size_t chunk = bytes / threads;
        for (int t = 1; t < threads; ++t)
          ts.emplace_back([&, t] {
            size_t b = chunk * t, e = t == threads - 1 ? bytes : b + chunk;
            std::memcpy(dst + b, src + b, e - b);
          });
        std::memcpy(dst, src, chunk);
        for (auto &th : ts)
          th.join();
      },
      5);
}

inline bool selected(const std::string &name, const std::string &filter) {
  return filter.empty() || name.find(filter) != std::string::npos;
}

} // namespace strata::bench
