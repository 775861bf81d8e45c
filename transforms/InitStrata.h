// One registration for every tool and context of Strata: dialects, passes and named pipelines.
#pragma once

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::strata {

/// Inserts the strata dialect and every upstream dialect, extension (interface models:
/// bufferization, conversion to LLVM) and LLVM IR translation into `registry`, so any stage of
/// jit's pipelines parses and translates; registers (once per process) upstream's passes,
/// Strata's passes and Strata's named pipelines, so they parse by name.
void registerStrataEverything(DialectRegistry &registry);

} // namespace mlir::strata
