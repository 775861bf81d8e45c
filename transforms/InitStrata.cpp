// One registration for every tool and context of Strata: dialects, passes and named pipelines.
#include "transforms/InitStrata.h"

#include "dialects/strata/StrataOps.h"
#include "transforms/Passes.h"
#include "transforms/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include <mutex>

namespace mlir::strata {

void registerStrataEverything(DialectRegistry &registry) {
  // The pass registry is global and takes each name once.
  static std::once_flag passes;
  std::call_once(passes, [] {
    registerAllPasses();
    registerStrataPasses();
    registerStrataPipelines();
  });
  registry.insert<StrataDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // The CPU path translates builtin, LLVM and OpenMP; the GPU path's gpu-module-to-binary and
  // the gpu.binary/launch_func translation need GPU and NVVM.
  registerAllToLLVMIRTranslations(registry);
}

} // namespace mlir::strata
