// strata_rt_sort and strata_rt_scan: jit-compiled CPU code's sorts and cumulative scans, on
// libstrata's kernels so that they give the eager primitives' results bit for bit.
#include "runtime/host/SortScanRuntime.h"

#include <vector>

#include "strata/internal/line_kernels.h"

#include "strata/export.h"

namespace {
/// The operands announced for the next strata_rt_sort of this thread.
thread_local std::vector<strata::SortOperand> g_sort_operands;

template <class P> P *address(int64_t a) { return reinterpret_cast<P *>(static_cast<intptr_t>(a)); }
} // namespace

// Exported (in libstrata_jit) so that mlir-runner can run strata-lower-to-cpu's output too.
extern "C" STRATA_EXPORT void strata_rt_sort_operand(int64_t dtype, int64_t in, int64_t out) {
  g_sort_operands.push_back(
      {static_cast<strata::DType>(dtype), address<const void>(in), address<void>(out)});
}

extern "C" STRATA_EXPORT void strata_rt_sort(int64_t num_keys, int64_t outer, int64_t n,
                                             int64_t inner) {
  std::vector<strata::SortOperand> operands = std::move(g_sort_operands);
  g_sort_operands.clear();
  strata::sort_lines(operands, num_keys, outer, n, inner);
}

extern "C" STRATA_EXPORT void strata_rt_scan(int64_t kind, int64_t dtype, int64_t x, int64_t y,
                                             int64_t outer, int64_t n, int64_t inner,
                                             int64_t reverse) {
  strata::scan_lines(static_cast<strata::ScanKind>(kind), static_cast<strata::DType>(dtype),
                     address<const void>(x), address<void>(y), outer, n, inner, reverse != 0);
}
