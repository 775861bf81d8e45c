// Helpers shared by the jit tests: a small two-layer loss and its inputs (compiled results are
// compared against eager ones with expect_matches), one-compile jitted runs and byte-for-byte
// comparison of results.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "strata/jit.h"
#include "test_util.h"

namespace strata::testutil {

/// A small two-layer network loss: dot_general, broadcasting, tanh, reductions.
inline Array loss(const Array &w, const Array &x) {
  Array h = tanh(matmul(x, w));
  return sum(h * h) / 7.0;
}

inline Array weights() {
  return make({0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.05, 0.7, -0.15, 0.25, 0.35, -0.45}, {4, 3},
              float32);
}

inline Array batch() {
  return make({1, 2, 3, 4, -1, 0.5, 0.25, 2, 0, 1, -2, 3, 0.1, 0.2, 0.3, 0.4, 2, -1, 0, 1}, {5, 4},
              float32);
}

/// fn compiled once by jit (named `name`) and run on `in`: one compile, no inline (eager) calls.
inline std::vector<Array> run_jitted(const FlatFn &fn, const std::vector<Array> &in,
                                     const std::string &name) {
  JitOptions options;
  options.name = name;
  JitFunction jf(options);
  TraceFn trace = [&](const std::vector<Array> &x, std::shared_ptr<void> &) { return fn(x); };
  std::vector<Array> out = jf.call(trace, in, "").first;
  EXPECT_EQ(jf.stats().misses, 1);
  EXPECT_EQ(jf.stats().inline_calls, 0);
  return out;
}

/// Byte-for-byte equality of compiled and eager results (dtype, shape, then the bits).
inline void expect_same_bits(const std::vector<Array> &got, const std::vector<Array> &want,
                             const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].dtype(), want[i].dtype()) << what << " output " << i;
    ASSERT_EQ(got[i].shape(), want[i].shape()) << what << " output " << i;
    EXPECT_EQ(std::memcmp(got[i].data(), want[i].data(), static_cast<size_t>(want[i].nbytes())), 0)
        << what << " output " << i << " differs from eager";
  }
}

} // namespace strata::testutil
