// strata-opt: the standard MLIR optimizer driver with the strata dialect, passes and pipelines.
#include "dialects/strata/StrataOps.h"
#include "transforms/LowerToCpu.h"
#include "transforms/GpuHost.h"
#include "transforms/LowerToNvvm.h"
#include "transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  // Upstream's passes (the lowering pipelines name them), then Strata's own.
  mlir::registerAllPasses();
  mlir::strata::registerStrataPasses();
  mlir::strata::registerStrataPipelines();
  mlir::strata::registerStrataCpuPipeline();
  mlir::strata::registerStrataNvvmPipeline();
  mlir::strata::registerStrataGpuHostPipeline();

  // The strata dialect and every upstream dialect (with its interface models: bufferization,
  // conversion to LLVM), so any dumped stage of jit's pipeline can be replayed.
  mlir::DialectRegistry registry;
  registry.insert<mlir::strata::StrataDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates each gpu.module to LLVM IR (strata-lower-to-nvvm).
  mlir::registerAllToLLVMIRTranslations(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Strata optimizer driver\n", registry));
}
