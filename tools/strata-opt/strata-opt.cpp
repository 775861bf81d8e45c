// strata-opt: the standard MLIR optimizer driver with the strata dialect, passes and pipelines.
#include "dialects/strata/StrataOps.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  // Upstream's generic passes (canonicalize, cse, inline, ...), then Strata's own.
  mlir::registerTransformsPasses();
  mlir::strata::registerStrataPasses();
  mlir::strata::registerStrataPipelines();

  // The strata dialect and the ones its lowerings produce.
  mlir::DialectRegistry registry;
  registry
      .insert<mlir::strata::StrataDialect, mlir::func::FuncDialect, mlir::arith::ArithDialect,
              mlir::linalg::LinalgDialect, mlir::math::MathDialect, mlir::tensor::TensorDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Strata optimizer driver\n", registry));
}
