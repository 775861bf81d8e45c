// Strata's passes: declarations generated from Passes.td (the pipelines are in Pipelines.h).
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

#define GEN_PASS_REGISTRATION
#include "transforms/Passes.h.inc"

} // namespace mlir::strata
