// strata-opt: the standard MLIR optimizer driver with the strata dialect, passes and pipelines.
#include "transforms/InitStrata.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  // Every dialect jit's pipelines go through, so any dumped stage can be replayed.
  mlir::DialectRegistry registry;
  mlir::strata::registerStrataEverything(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Strata optimizer driver\n", registry));
}
