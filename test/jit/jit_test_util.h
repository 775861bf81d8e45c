// Helpers shared by the jit composition tests: a small two-layer loss and its inputs (compiled
// results are compared against eager ones with expect_matches).
#pragma once

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

} // namespace strata::testutil
