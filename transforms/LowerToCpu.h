// The CPU lowering pipeline `strata-lower-to-cpu`, as named stages that jit can dump one by one.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "mlir/Pass/PassManager.h"

namespace mlir::strata {

/// The stages of `strata-lower-to-cpu`, in order: (stage name, textual pass pipeline on the
/// module). Names: "optimized" (strata-optimize-fused), "linalg", "bufferized", "llvm" (the LLVM
/// dialect, ready for translation to LLVM IR).
const std::vector<std::pair<std::string, std::string>> &cpuLoweringStages();

/// Appends every stage of `strata-lower-to-cpu` to `pm`; fails when a pass is not registered.
LogicalResult buildStrataLowerToCpuPipeline(OpPassManager &pm);

/// Registers `strata-lower-to-cpu` (and needs upstream's passes registered, for the names).
void registerStrataCpuPipeline();

} // namespace mlir::strata
