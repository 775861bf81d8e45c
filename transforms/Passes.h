// Strata's passes and named pipelines: declarations generated from Passes.td, plus the pipelines.
#pragma once

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::strata {

#define GEN_PASS_DECL
#include "transforms/Passes.h.inc"

/// Whether `op` is a pure, fusible elementwise strata op (its Strata_Elementwise and
/// Strata_Fusible traits): the ops strata-fuse groups and strata-layout sinks transposes
/// through. Defined in Fuse.cpp.
bool isElementwisePrimitive(Operation *op);

/// `strata-optimize`: the target-independent cleanup: strata-infer-shapes, canonicalize, cse,
/// then strata-layout.
void buildStrataOptimizePipeline(OpPassManager &pm);
/// `strata-lower-to-cpu-linalg`: strata-optimize, then strata-lower-to-linalg.
void buildStrataLowerToCpuLinalgPipeline(OpPassManager &pm);
/// Registers every named Strata pipeline with the pass registry (once, by name).
void registerStrataPipelines();

#define GEN_PASS_REGISTRATION
#include "transforms/Passes.h.inc"

} // namespace mlir::strata
