// The windowed-sum kernel that libstrata's eager reduce_window_sum and jit-compiled CPU code
// share (through runtime/host/WindowRuntime.cpp), and the flat table compiled code passes it.
#pragma once

#include <cstdint>
#include <vector>

#include "strata/array.h"

namespace strata {

/// A window over a row-major operand: per dimension the operand and output sizes, the window
/// size, stride, low and high padding, and the base and window dilations.
struct WindowProblem {
  std::vector<int64_t> in, out, win, stride, lo, hi, base, wdil;

  /// The problem as a flat list of integers (rank, then each field in order), and back.
  std::vector<int64_t> encode() const {
    std::vector<int64_t> v = {static_cast<int64_t>(in.size())};
    for (const auto *f : {&in, &out, &win, &stride, &lo, &hi, &base, &wdil})
      v.insert(v.end(), f->begin(), f->end());
    return v;
  }
  static WindowProblem decode(const int64_t *d) {
    WindowProblem p;
    size_t n = static_cast<size_t>(d[0]);
    const int64_t *next = d + 1;
    for (auto *f : {&p.in, &p.out, &p.win, &p.stride, &p.lo, &p.hi, &p.base, &p.wdil}) {
      f->assign(next, next + n);
      next += n;
    }
    return p;
  }
};

/// y = reduce_window_sum(x) of dtype `dtype` (not bool) as the eager primitive computes it:
/// long float windows along the last dimension slide (differences of running sums in double),
/// the rest add window element by window element in vectorizable runs.
STRATA_EXPORT void window_sum_kernel(const WindowProblem &p, DType dtype, const void *x, void *y);

} // namespace strata
