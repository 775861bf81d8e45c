// Strata's named pass pipelines, built from sub-builders and registered once by name.
#include "transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

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

void buildStrataLowerToCpuLinalgPipeline(OpPassManager &pm) {
  buildStrataOptimizePipeline(pm);
  pm.addPass(createStrataLowerToLinalg());
  pm.addPass(createStrataLowerControlFlow());
}

/// `strata-optimize-fused`: strata-optimize, then strata-fuse; the first stage of jit's
/// strata-lower-to-cpu. strata-optimize stays unfused so that its output reads op by op.
void buildStrataOptimizeFusedPipeline(OpPassManager &pm) {
  buildStrataOptimizePipeline(pm);
  pm.addPass(createStrataFuse());
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
}

} // namespace mlir::strata
