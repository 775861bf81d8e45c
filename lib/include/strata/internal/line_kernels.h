// The sort and cumulative-scan kernels that libstrata's eager primitives and jit-compiled CPU
// code share (through runtime/host/SortScanRuntime.cpp), so that both give the same bits.
#pragma once

#include <cstdint>
#include <span>

#include "strata/dtype.h"

namespace strata {

/// One operand of sort_lines: its element type, the input and a separate output buffer (both
/// row-major [outer, n, inner]).
struct SortOperand {
  DType dtype;
  const void *in;
  void *out;
};

/// Sorts every line (the n elements at a fixed outer and inner position) of all operands by the
/// same permutation: lexicographically by the first num_keys operands, NaN after every number
/// (NaNs equal to each other, -0.0 equal to 0.0), complex keys by real then imaginary part, ties
/// kept in input order (stable). Single-key sorts of real numbers run an LSD radix sort on the
/// keys' order-preserving bit patterns; lines are sorted in parallel. Outputs must not overlap the
/// inputs.
STRATA_EXPORT void sort_lines(std::span<const SortOperand> operands, int64_t num_keys,
                              int64_t outer, int64_t n, int64_t inner);

/// The combine of a cumulative scan.
enum class ScanKind : int64_t { Sum, Prod, Max, Min };

/// y = the inclusive scan of x (row-major [outer, n, inner]) along the middle dimension, from
/// its end when reverse: libstrata's cumsum/cumprod/cummax/cummin kernel (floating sums and
/// products carry double; long lines are scanned in fixed blocks on all threads). Sum and Prod
/// take no bool. y may be x.
STRATA_EXPORT void scan_lines(ScanKind kind, DType dtype, const void *x, void *y, int64_t outer,
                              int64_t n, int64_t inner, bool reverse);

} // namespace strata
