// The host side of a GPU program: after `strata-lower-to-nvvm`, the host functions become LLVM
// that calls the CUDA runtime's mgpu* functions (gpu-to-llvm) with buffers in device memory.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace mlir::strata {

/// The "host" stage's pipeline text: strata-gpu-host-memory, gpu-async-region (one stream,
/// one synchronization at the end), then host code and launches to the LLVM dialect.
const std::string &gpuHostPipeline();

/// Registers `strata-lower-gpu-host` (the host stage as a named pipeline, so a dumped
/// `ptx` stage replays through strata-opt).
void registerStrataGpuHostPipeline();

} // namespace mlir::strata
