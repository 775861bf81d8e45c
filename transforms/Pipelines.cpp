// Strata's named pass pipelines, built from sub-builders and registered once by name.
#include "transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::strata {

void buildStrataOptimizePipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void buildStrataLowerToCpuLinalgPipeline(OpPassManager &pm) {
  buildStrataOptimizePipeline(pm);
  pm.addPass(createStrataLowerToLinalg());
}

void registerStrataPipelines() {
  PassPipelineRegistration<>("strata-optimize",
                             "Optimizes strata IR (canonicalize, cse; layout and fusion to come)",
                             buildStrataOptimizePipeline);
  PassPipelineRegistration<>("strata-lower-to-cpu-linalg",
                             "Optimizes strata IR, then lowers it to linalg/tensor/arith/math",
                             buildStrataLowerToCpuLinalgPipeline);
}

} // namespace mlir::strata
