// `strata-lower-to-cpu`: strata IR -> LLVM dialect, for jit's CPU backend and strata-opt.
#include "transforms/LowerToCpu.h"

#include "mlir/Pass/PassRegistry.h"

namespace mlir::strata {

const std::vector<std::pair<std::string, std::string>> &cpuLoweringStages() {
  static const std::vector<std::pair<std::string, std::string>> stages = {
      {"optimized", "strata-optimize-fused"},
      {"linalg", "strata-lower-to-linalg,strata-lower-control-flow,canonicalize,"
                 "strata-unique-results"},
      // Destination passing at the function boundary: results become out-params that the
      // runtime allocates, and inputs are read-only (the runtime shares them with the caller).
      {"bufferized",
       "one-shot-bufferize{bufferize-function-boundaries "
       "function-boundary-type-conversion=identity-layout-map},"
       "buffer-results-to-out-params{hoist-static-allocs modify-public-functions},"
       "buffer-deallocation-pipeline,canonicalize,strata-linalg-to-blas"},
      // f16/bf16 arithmetic and math run in f32 and round per op, as libstrata's kernels do.
      // expand-strided-metadata makes affine.apply, so lower-affine comes after it.
      {"llvm",
       "strata-parallelize-loops,convert-scf-to-openmp,canonicalize,"
       "expand-strided-metadata,lower-affine,convert-scf-to-cf,"
       "canonicalize,arith-emulate-unsupported-floats{source-types=bf16,f16 target-type=f32},"
       "math-extend-to-supported-types,strata-approximate-math,arith-expand,convert-math-to-llvm,convert-math-to-libm,"
       "finalize-memref-to-llvm,convert-arith-to-llvm,"
       "convert-openmp-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts"},
  };
  return stages;
}

LogicalResult buildStrataLowerToCpuPipeline(OpPassManager &pm) {
  for (const auto &[name, text] : cpuLoweringStages())
    if (failed(parsePassPipeline(text, pm)))
      return failure();
  return success();
}

void registerStrataCpuPipeline() {
  PassPipelineRegistration<>(
      "strata-lower-to-cpu",
      "Lowers strata IR to the LLVM dialect for the CPU: strata-optimize-fused, "
      "strata-lower-to-linalg, one-shot bufferization with out-params, loops, LLVM",
      [](OpPassManager &pm) { (void)buildStrataLowerToCpuPipeline(pm); });
}

} // namespace mlir::strata
