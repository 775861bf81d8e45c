// The functions compiled host code calls (BLAS, host callbacks, and on the GPU path device
// copies), by the names the lowering gives them, for the JIT to resolve.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace strata::rt {

/// What CPU code calls: memrefCopy, strata_rt_gemm, the sort and scan functions and the
/// host-callback functions.
std::vector<std::pair<std::string, void *>> cpu_runtime_symbols();

/// What GPU host code calls: the CUDA runtime's mgpu* and strata_rt_cuda_* functions and the
/// host-callback functions.
std::vector<std::pair<std::string, void *>> gpu_runtime_symbols();

/// Throws what the GPU host runtime functions recorded while compiled code ran (they cannot
/// throw through it).
void rethrow_gpu_runtime_errors();

} // namespace strata::rt
