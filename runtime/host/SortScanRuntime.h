// The runtime functions of strata-sort-scan-to-runtime's calls: sorts and cumulative scans of
// jit-compiled CPU code run libstrata's line kernels (strata/internal/line_kernels.h).
#pragma once

#include <cstdint>

/// Announces one operand of the next strata_rt_sort in this thread: its dtype code
/// (strata::DType) and the addresses of its input and of its output buffer (row-major).
extern "C" void strata_rt_sort_operand(int64_t dtype, int64_t in, int64_t out);
/// Sorts the operands announced since the last call ([outer, n, inner] each) along n by their
/// first num_keys, as the sort primitive does.
extern "C" void strata_rt_sort(int64_t num_keys, int64_t outer, int64_t n, int64_t inner);
/// y = the cumulative scan of x ([outer, n, inner], dtype code `dtype`) along n: kind 0 sum,
/// 1 prod, 2 max, 3 min (strata::ScanKind), from the end when reverse is 1.
extern "C" void strata_rt_scan(int64_t kind, int64_t dtype, int64_t x, int64_t y, int64_t outer,
                               int64_t n, int64_t inner, int64_t reverse);
