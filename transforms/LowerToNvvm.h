// The NVIDIA GPU lowering pipeline `strata-lower-to-nvvm`: strata IR -> gpu kernels -> NVVM -> PTX.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "mlir/Pass/PassManager.h"

namespace mlir::strata {

/// The stages of `strata-lower-to-nvvm` for `chip` (an NVVM target such as "sm_90" or "sm_120"),
/// in order: (stage name, textual pass pipeline on the module). Names: "optimized" and "linalg"
/// (the same as the CPU pipeline's), "bufferized" (out-params, contractions as calls of
/// `strata_rt_cuda_gemm`), "gpu" (linalg ops as kernels of at most `blockSize` threads per block
/// and `maxBlocks` blocks, outlined into a gpu.module per kernel), "nvvm" (the kernels in the
/// LLVM/NVVM dialects), "ptx" (each gpu.module replaced by a gpu.binary holding its PTX text).
/// The runtime passes maxBlocks = 8 x the device's SM count.
std::vector<std::pair<std::string, std::string>>
nvvmLoweringStages(const std::string &chip, int64_t blockSize = 256, int64_t maxBlocks = 1056);

/// Appends every stage of `strata-lower-to-nvvm` to `pm`; fails when a pass is not registered.
LogicalResult buildStrataLowerToNvvmPipeline(OpPassManager &pm, const std::string &chip,
                                             int64_t blockSize = 256, int64_t maxBlocks = 1056);

/// Registers `strata-gpu-flatten-parallel` and the `strata-lower-to-nvvm` pipeline (needs
/// upstream's passes registered, for the names).
void registerStrataNvvmPipeline();

} // namespace mlir::strata
