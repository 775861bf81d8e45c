// The functions compiled CPU code calls besides libm and libomp: BLAS (strata-linalg-to-blas),
// memrefCopy, and malloc/free for its temporaries; host callbacks are in HostCallback.cpp, sorts
// and scans in SortScanRuntime.cpp.
#include "runtime/host/HostRuntime.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "runtime/host/ConvRuntime.h" // convolution
#include "runtime/host/HostCallback.h"
#include "runtime/host/SortScanRuntime.h"
#include "runtime/host/WindowRuntime.h" // windowed reductions
// linalg
#include "runtime/host/LinalgRuntime.h"
// fft family
#include "runtime/host/FftRuntime.h"

#include "strata/internal/blas.h"
#include "strata/internal/host_memory.h"

#include "strata/export.h"

/// strata-linalg-to-blas's call: c (+)= a * b with strides in elements (see
/// strata/internal/blas.h); `bits` is the element width of a float type (32, 64) or, negated,
/// of a complex one (-64: complex64, -128: complex128). Exported (in libstrata_jit) so that
/// mlir-runner can run strata-lower-to-cpu's output too
/// (test/Transforms/strata-lower-to-cpu-exec.mlir); jit resolves it through its symbol table.
extern "C" STRATA_EXPORT void strata_rt_gemm(int64_t bits, int64_t batch, int64_t m, int64_t n,
                                             int64_t k, int64_t a, int64_t a_off, int64_t a_bs,
                                             int64_t a_rs, int64_t a_cs, int64_t b, int64_t b_off,
                                             int64_t b_bs, int64_t b_rs, int64_t b_cs, int64_t c,
                                             int64_t c_off, int64_t c_bs, int64_t c_rs,
                                             int64_t c_cs, int64_t accumulate) {
  int64_t size = (bits < 0 ? -bits : bits) / 8;
  auto at = [size](int64_t p, int64_t off) { return reinterpret_cast<void *>(p + off * size); };
  using strata::DType;
  using strata::GemmArg;
  DType dtype = bits == 32    ? DType::Float32
                : bits == 64  ? DType::Float64
                : bits == -64 ? DType::Complex64
                              : DType::Complex128;
  strata::strided_gemm(dtype, batch, m, n, k, GemmArg{at(a, a_off), a_bs, a_rs, a_cs},
                       GemmArg{at(b, b_off), b_bs, b_rs, b_cs},
                       GemmArg{at(c, c_off), c_bs, c_rs, c_cs}, accumulate != 0);
}

namespace {

/// Bytes before each block of strata_rt_malloc: its size (free takes none), padded so that the
/// block keeps host_alloc's 64-byte alignment.
constexpr size_t kHeader = 64;

/// Compiled code's `malloc` (memref.alloc of temporaries): libstrata's host allocator, whose
/// cache of freed large blocks spares each call of a jitted function the page faults of fresh
/// memory (the system malloc maps and unmaps large blocks on every call). Null when out of
/// memory, as malloc.
void *strata_rt_malloc(size_t n) {
  if (n > SIZE_MAX - kHeader)
    return nullptr;
  try {
    auto *base = static_cast<char *>(strata::host_alloc(n + kHeader));
    *reinterpret_cast<size_t *>(base) = n;
    return base + kHeader;
  } catch (...) {
    return nullptr;
  }
}

/// Compiled code's `free`: every block compiled code frees came from its own malloc.
void strata_rt_free(void *p) {
  if (!p)
    return;
  char *base = static_cast<char *>(p) - kHeader;
  strata::host_free(base, *reinterpret_cast<size_t *>(base) + kHeader);
}

} // namespace

namespace strata::rt {

std::vector<std::pair<std::string, void *>> cpu_runtime_symbols() {
  return {
      {"malloc", reinterpret_cast<void *>(&strata_rt_malloc)},
      {"free", reinterpret_cast<void *>(&strata_rt_free)},
      {"memrefCopy", reinterpret_cast<void *>(&memrefCopy)},
      {"strata_rt_gemm", reinterpret_cast<void *>(&strata_rt_gemm)},
      {"strata_rt_host_callback", reinterpret_cast<void *>(&strata_rt_host_callback)},
      {"strata_rt_host_callback_buffer", reinterpret_cast<void *>(&strata_rt_host_callback_buffer)},
      {"strata_rt_host_callback_dim", reinterpret_cast<void *>(&strata_rt_host_callback_dim)},
      {"strata_rt_scan", reinterpret_cast<void *>(&strata_rt_scan)},
      {"strata_rt_sort", reinterpret_cast<void *>(&strata_rt_sort)},
      {"strata_rt_sort_operand", reinterpret_cast<void *>(&strata_rt_sort_operand)},
      // linalg
      {"strata_rt_cholesky", reinterpret_cast<void *>(&strata_rt_cholesky)},
      {"strata_rt_eigh", reinterpret_cast<void *>(&strata_rt_eigh)},
      {"strata_rt_lu", reinterpret_cast<void *>(&strata_rt_lu)},
      {"strata_rt_lu_pivots_to_permutation",
       reinterpret_cast<void *>(&strata_rt_lu_pivots_to_permutation)},
      {"strata_rt_qr", reinterpret_cast<void *>(&strata_rt_qr)},
      {"strata_rt_svd", reinterpret_cast<void *>(&strata_rt_svd)},
      {"strata_rt_triangular_solve", reinterpret_cast<void *>(&strata_rt_triangular_solve)},
      // eig family (nonsymmetric eigenproblem)
      {"strata_rt_eig", reinterpret_cast<void *>(&strata_rt_eig)},
      {"strata_rt_hessenberg", reinterpret_cast<void *>(&strata_rt_hessenberg)},
      {"strata_rt_householder_product", reinterpret_cast<void *>(&strata_rt_householder_product)},
      {"strata_rt_schur", reinterpret_cast<void *>(&strata_rt_schur)},
      // fft family
      {"strata_rt_fft", reinterpret_cast<void *>(&strata_rt_fft)},
      // convolution
      {"strata_rt_conv", reinterpret_cast<void *>(&strata_rt_conv)},
      {"strata_rt_conv_epilogue", reinterpret_cast<void *>(&strata_rt_conv_epilogue)},
      // windowed reductions
      {"strata_rt_window_sum", reinterpret_cast<void *>(&strata_rt_window_sum)}};
}

} // namespace strata::rt
