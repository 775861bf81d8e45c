// Strata's pass pipelines: the named builders they are composed of, and jit's stage lists.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::strata {

/// The options of the GPU pipelines (`strata-lower-to-nvvm`, `strata-lower-to-gpu`). The
/// runtime passes the device's chip and maxBlocks = 8 x its SM count.
struct GpuPipelineOptions : PassPipelineOptions<GpuPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("NVVM target chip (sm_90, sm_120, ...)"),
                           llvm::cl::init("sm_90")};
  Option<int64_t> blockSize{*this, "block-size", llvm::cl::desc("Most threads per block"),
                            llvm::cl::init(256)};
  Option<int64_t> maxBlocks{*this, "max-blocks",
                            llvm::cl::desc("Most blocks per grid (the runtime: 8 x SMs)"),
                            llvm::cl::init(1056)};
};

/// One stage of a lowering: its name (what jit's stage dumps and `stop_after` call it) and the
/// builder appending its passes to a module pass manager.
struct PipelineStage {
  std::string name;
  std::function<void(OpPassManager &)> build;
};
using PipelineStages = std::vector<PipelineStage>;

// The pieces every pipeline is composed of, each appending passes to a module pass manager.

/// `strata-optimize`: the target-independent cleanup: strata-infer-shapes, canonicalize, cse,
/// then strata-layout.
void buildStrataOptimizePipeline(OpPassManager &pm);
/// `strata-optimize-fused`: strata-optimize, then strata-fuse.
void buildStrataOptimizeFusedPipeline(OpPassManager &pm);
/// `strata-lower-to-cpu-linalg`: strata-optimize, then strata-lower-to-linalg and
/// strata-lower-control-flow.
void buildStrataLowerToCpuLinalgPipeline(OpPassManager &pm);
/// Fused strata IR to linalg on tensors with one result per value; `interchangeElementwiseLoops`
/// (the GPU's) makes each elementwise loop one generic that runs the steps per element.
void buildStrataLinalgPipeline(OpPassManager &pm, bool interchangeElementwiseLoops);
/// Tensors to buffers in destination-passing style at the function boundary, then
/// contractions as calls of `gemmCallee` (strata-linalg-to-blas; `typeCodes`: with dtype codes).
void buildStrataBufferizePipeline(OpPassManager &pm, const std::string &gemmCallee, bool typeCodes);
/// Loops and strided views to branches: expand-strided-metadata, lower-affine,
/// convert-scf-to-cf.
void buildStrataLoopsToCfPipeline(OpPassManager &pm);
/// f16/bf16 arithmetic and math in f32 (rounded per op, as libstrata's kernels do), then the
/// f32 math approximations (strata-approximate-math).
void buildStrataMathLoweringPipeline(OpPassManager &pm);
/// Bufferized CPU code to the LLVM dialect: parallel loops on OpenMP, math to LLVM and libm.
void buildStrataCpuLlvmPipeline(OpPassManager &pm);
/// Bufferized code to kernels: the linalg ops strata-gpu-kernels knows, then every outermost
/// loop nest left, outlined into a gpu.module per kernel.
void buildStrataGpuKernelPipeline(OpPassManager &pm, const GpuPipelineOptions &options);
/// The kernels' gpu.modules to the LLVM/NVVM dialects for `options.chip`.
void buildStrataNvvmPipeline(OpPassManager &pm, const GpuPipelineOptions &options);
/// Each gpu.module to a gpu.binary holding its PTX text.
void buildStrataGpuBinaryPipeline(OpPassManager &pm);
/// `strata-lower-gpu-host`: the host side of a GPU program to LLVM calling the CUDA runtime.
void buildStrataGpuHostPipeline(OpPassManager &pm);

// The lowerings, as stages and as whole pipelines.

/// The stages of `strata-lower-to-cpu`: "optimized" (strata-optimize-fused), "linalg",
/// "bufferized", "llvm" (the LLVM dialect, ready for translation to LLVM IR).
PipelineStages cpuLoweringStages();
/// The stages of `strata-lower-to-gpu`: "optimized", "linalg" (the CPU's, plus the interchange
/// of elementwise loops), "bufferized" (contractions as calls of `strata_rt_cuda_gemm`), "gpu"
/// (linalg ops as kernels of at most `blockSize` threads per block and `maxBlocks` blocks),
/// "nvvm", "ptx" (gpu.binary with PTX; `strata-lower-to-nvvm` ends here), "host" (the host code
/// in the LLVM dialect calling the CUDA runtime).
PipelineStages gpuLoweringStages(const GpuPipelineOptions &options);

/// `strata-lower-to-cpu`: every stage of cpuLoweringStages.
void buildStrataLowerToCpuPipeline(OpPassManager &pm);
/// `strata-lower-to-nvvm`: the stages of gpuLoweringStages up to "ptx".
void buildStrataLowerToNvvmPipeline(OpPassManager &pm, const GpuPipelineOptions &options);
/// `strata-lower-to-gpu`: every stage of gpuLoweringStages, what jit's GPU backend runs.
void buildStrataLowerToGpuPipeline(OpPassManager &pm, const GpuPipelineOptions &options);

/// Registers every named Strata pipeline with the pass registry (once per process, by name).
void registerStrataPipelines();

} // namespace mlir::strata
