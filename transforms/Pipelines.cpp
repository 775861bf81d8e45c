// Strata's pass pipelines, built from named sub-builders and registered once by name.
#include "transforms/Pipelines.h"

#include "transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <memory>

namespace mlir::strata {

/// Shape refinement first, so the cleanup and later passes see static types where the operands
/// allow them.
static void buildStrataShapeInferencePipeline(OpPassManager &pm) {
  pm.addPass(createStrataInferShapes());
}

/// Layout after the cleanup (which has already merged duplicate transposes and folded
/// transpose pairs) and before fusion, so fusion sees dots and reductions with their
/// transposes already folded away.
static void buildStrataLayoutPipeline(OpPassManager &pm) { pm.addPass(createStrataLayout()); }

void buildStrataOptimizePipeline(OpPassManager &pm) {
  buildStrataShapeInferencePipeline(pm);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  buildStrataLayoutPipeline(pm);
}

/// strata-optimize stays unfused so that its output reads op by op; jit's pipelines fuse.
void buildStrataOptimizeFusedPipeline(OpPassManager &pm) {
  buildStrataOptimizePipeline(pm);
  pm.addPass(createStrataFuse());
}

void buildStrataLowerToCpuLinalgPipeline(OpPassManager &pm) {
  buildStrataOptimizePipeline(pm);
  pm.addPass(createStrataLowerToLinalg());
  pm.addPass(createStrataLowerControlFlow());
}

void buildStrataLinalgPipeline(OpPassManager &pm, bool interchangeElementwiseLoops) {
  pm.addPass(createStrataLowerToLinalg());
  pm.addPass(createStrataLowerControlFlow());
  pm.addPass(createCanonicalizerPass());
  // After canonicalize, which hoists a loop body's invariant ops. Not on the CPU: there the
  // element loop is the one to vectorize, and a per-element chain of dependent steps ran 45x
  // slower than step-by-step vector loops.
  if (interchangeElementwiseLoops)
    pm.addPass(createStrataInterchangeElementwiseLoops());
  pm.addPass(createStrataUniqueResults());
}

void buildStrataBufferizePipeline(OpPassManager &pm, const std::string &gemmCallee,
                                  bool typeCodes) {
  // Destination passing at the function boundary: results become out-params that the runtime
  // allocates, and inputs are read-only (the runtime shares them with the caller).
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion = bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createCanonicalizerPass());
  StrataLinalgToBlasOptions blas;
  blas.callee = gemmCallee;
  blas.typeCodes = typeCodes;
  pm.addPass(createStrataLinalgToBlas(blas));
}

/// expand-strided-metadata makes affine.apply, so lower-affine comes after it.
void buildStrataLoopsToCfPipeline(OpPassManager &pm) {
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
}

void buildStrataMathLoweringPipeline(OpPassManager &pm) {
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16", "f16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  pm.addPass(math::createMathExtendToSupportedTypes());
  pm.addPass(createStrataApproximateMath());
}

void buildStrataCpuLlvmPipeline(OpPassManager &pm) {
  StrataParallelizeLoopsOptions loops;
  loops.rowLoops = true;
  pm.addPass(createStrataParallelizeLoops(loops));
  // Only large functions: below 64 loop nests one function compiles in well under a second,
  // and LLVM optimizing the nests together ran the 784-512-512 MLP train step (about 40 nests)
  // 20% faster than with each nest in a function of its own. After the row loops, so that a
  // row's ops stay one nest.
  StrataOutlineKernelsOptions outline;
  outline.minKernels = 64;
  // Or a few nests of much code: a long chain of transcendentals fuses into groups (at most 64
  // ops each) that approximate-math expands; outlined, repeated groups compile once.
  outline.minOps = 4096;
  pm.addPass(createStrataOutlineKernels(outline));
  pm.addPass(createConvertSCFToOpenMPPass());
  pm.addPass(createCanonicalizerPass());
  buildStrataLoopsToCfPipeline(pm);
  pm.addPass(createCanonicalizerPass());
  // Complex arithmetic as arith/math on the parts (before the math lowering, which expands what
  // it makes); what stays complex (create, re, im, constants) becomes LLVM structs below.
  pm.addPass(createConvertComplexToStandardPass());
  buildStrataMathLoweringPipeline(pm);
  pm.addPass(arith::createArithExpandOpsPass());
  pm.addPass(createConvertComplexToLLVMPass());
  // The vector accumulators of row reductions (strata-parallelize-loops).
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void buildStrataGpuKernelPipeline(OpPassManager &pm, const GpuPipelineOptions &options) {
  // strata-gpu-kernels makes the kernels of the linalg ops it knows (grid-stride elementwise,
  // row groups, full reductions); every outermost loop nest left becomes one kernel of
  // strata-gpu-map-loops. Canonicalize before outlining so that constants are sunk into the
  // kernels rather than passed as arguments.
  OpPassManager &func = pm.nest<func::FuncOp>();
  StrataGpuKernelsOptions kernels;
  kernels.blockSize = options.blockSize;
  kernels.maxBlocks = options.maxBlocks;
  func.addPass(createStrataGpuKernels(kernels));
  func.addPass(createConvertLinalgToParallelLoopsPass());
  StrataGpuMapLoopsOptions mapLoops;
  mapLoops.blockSize = options.blockSize;
  func.addPass(createStrataGpuMapLoops(mapLoops));
  func.addPass(createConvertParallelLoopToGpuPass());
  func.addPass(createCanonicalizerPass());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createCSEPass());
}

void buildStrataNvvmPipeline(OpPassManager &pm, const GpuPipelineOptions &options) {
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = "+ptx88";
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  // f16/bf16 math in f32 and f32 math approximated, as on the CPU. convert-gpu-to-nvvm makes
  // libdevice calls of the math left (the approximations' fma, floor, fabs): the ones with an
  // exact intrinsic become that intrinsic again (strata-nvvm-intrinsics), the rest (f64 exp,
  // pow, ...) need libdevice, which gpu-module-to-binary links from the toolkit it finds.
  // Branches first: the NVVM translation does not take scf.if.
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  buildStrataLoopsToCfPipeline(kernels);
  // Complex arithmetic on the parts, as on the CPU; create/re/im become LLVM structs.
  kernels.addPass(createConvertComplexToStandardPass());
  buildStrataMathLoweringPipeline(kernels);
  kernels.addPass(createConvertComplexToLLVMPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createConvertMathToLLVMPass());
  kernels.addPass(createStrataNvvmIntrinsics());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void buildStrataGpuBinaryPipeline(OpPassManager &pm) {
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void buildStrataGpuHostPipeline(OpPassManager &pm) {
  // Buffers in device memory, then one stream with one synchronization at the end.
  pm.addPass(createStrataGpuHostMemory());
  pm.nest<func::FuncOp>().addPass(createGpuAsyncRegionPass());
  buildStrataLoopsToCfPipeline(pm);
  // Complex constants and parts left on the host (fills, scalars between kernels).
  pm.addPass(createConvertComplexToStandardPass());
  pm.addPass(createConvertComplexToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

PipelineStages cpuLoweringStages() {
  return {
      {"optimized", buildStrataOptimizeFusedPipeline},
      // Sorts and scans call libstrata's kernels (O(n log n) sort, blocked parallel scans),
      // which the GPU cannot: there they stay loops that become kernels.
      {"linalg",
       [](OpPassManager &pm) {
         pm.addPass(createStrataSortScanToRuntime());
         pm.addPass(createStrataLinalgToRuntime()); // linalg: LAPACK calls
         // fft family: FFTs call libstrata's FFTW kernel.
         pm.addPass(createStrataFftToRuntime());
         pm.addPass(createStrataConvToRuntime()); // convolution: libstrata's kernel
         // windowed reductions: sums call libstrata's kernel, which slides long windows.
         pm.addPass(createStrataWindowToRuntime());
         buildStrataLinalgPipeline(pm, false);
       }},
      {"bufferized",
       [](OpPassManager &pm) { buildStrataBufferizePipeline(pm, "strata_rt_gemm", false); }},
      {"llvm", buildStrataCpuLlvmPipeline},
  };
}

PipelineStages gpuLoweringStages(const GpuPipelineOptions &options) {
  // The stages outlive the caller's options: they share a copy.
  auto shared = std::make_shared<GpuPipelineOptions>();
  shared->copyOptionValuesFrom(options);
  return {
      {"optimized", buildStrataOptimizeFusedPipeline},
      {"linalg",
       [](OpPassManager &pm) {
         // linalg: calls of the CUDA runtime's linear-algebra functions on device buffers.
         StrataLinalgToRuntimeOptions linalg;
         linalg.cuda = true;
         pm.addPass(createStrataLinalgToRuntime(linalg));
         // fft family: cuFFT calls on device buffers.
         StrataFftToRuntimeOptions fft;
         fft.cuda = true;
         pm.addPass(createStrataFftToRuntime(fft));
         // convolution: cuDNN where it takes the problem, else the generated kernels.
         StrataConvToRuntimeOptions conv;
         conv.cuda = true;
         pm.addPass(createStrataConvToRuntime(conv));
         buildStrataLinalgPipeline(pm, true);
       }},
      // f32/f64 contractions and the f16/bf16 ones with an f32 accumulator become host calls
      // of the runtime's cuBLAS gemm (device pointers), between the kernels.
      {"bufferized",
       [](OpPassManager &pm) { buildStrataBufferizePipeline(pm, "strata_rt_cuda_gemm", true); }},
      {"gpu", [shared](OpPassManager &pm) { buildStrataGpuKernelPipeline(pm, *shared); }},
      {"nvvm", [shared](OpPassManager &pm) { buildStrataNvvmPipeline(pm, *shared); }},
      {"ptx", buildStrataGpuBinaryPipeline},
      {"host", buildStrataGpuHostPipeline},
  };
}

void buildStrataLowerToCpuPipeline(OpPassManager &pm) {
  for (const PipelineStage &stage : cpuLoweringStages())
    stage.build(pm);
}

void buildStrataLowerToNvvmPipeline(OpPassManager &pm, const GpuPipelineOptions &options) {
  for (const PipelineStage &stage : gpuLoweringStages(options)) {
    stage.build(pm);
    if (stage.name == "ptx")
      return;
  }
}

void buildStrataLowerToGpuPipeline(OpPassManager &pm, const GpuPipelineOptions &options) {
  for (const PipelineStage &stage : gpuLoweringStages(options))
    stage.build(pm);
}

void registerStrataPipelines() {
  PassPipelineRegistration<>("strata-optimize",
                             "Optimizes strata IR (infer-shapes, canonicalize, cse, layout)",
                             buildStrataOptimizePipeline);
  PassPipelineRegistration<>("strata-lower-to-cpu-linalg",
                             "Optimizes strata IR, then lowers it to linalg/tensor/arith/math",
                             buildStrataLowerToCpuLinalgPipeline);
  PassPipelineRegistration<>("strata-optimize-fused",
                             "Optimizes strata IR (strata-optimize), then groups it into "
                             "strata.fusion ops (strata-fuse)",
                             buildStrataOptimizeFusedPipeline);
  PassPipelineRegistration<>(
      "strata-lower-to-cpu",
      "Lowers strata IR to the LLVM dialect for the CPU: strata-optimize-fused, "
      "strata-lower-to-linalg, one-shot bufferization with out-params, loops, LLVM",
      buildStrataLowerToCpuPipeline);
  PassPipelineRegistration<GpuPipelineOptions>(
      "strata-lower-to-nvvm",
      "Lowers strata IR to PTX for an NVIDIA GPU: the CPU pipeline's first stages, one-shot "
      "bufferization with out-params, linalg ops to kernels (grid-stride, row reductions and "
      "fused row groups with warp shuffles and shared memory, full reductions), NVVM, "
      "gpu.binary with PTX",
      buildStrataLowerToNvvmPipeline);
  PassPipelineRegistration<>(
      "strata-lower-gpu-host",
      "The host side of strata-lower-to-nvvm's output: buffers in device memory, launches on "
      "one stream, host code to the LLVM dialect calling the CUDA runtime's mgpu* functions",
      buildStrataGpuHostPipeline);
  PassPipelineRegistration<GpuPipelineOptions>(
      "strata-lower-to-gpu",
      "Lowers strata IR for an NVIDIA GPU as jit does: strata-lower-to-nvvm, then "
      "strata-lower-gpu-host",
      buildStrataLowerToGpuPipeline);
}

} // namespace mlir::strata
