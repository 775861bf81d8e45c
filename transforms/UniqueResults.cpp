// strata-unique-results: a function that returns one tensor value at several result positions
// returns a copy at each repeat, so that bufferization gives every result its own buffer.
#include "transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATAUNIQUERESULTS
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;

namespace {

struct StrataUniqueResultsPass : strata::impl::StrataUniqueResultsBase<StrataUniqueResultsPass> {
  void runOnOperation() override {
    getOperation()->walk([](func::ReturnOp ret) {
      OpBuilder b(ret);
      llvm::SmallPtrSet<Value, 8> seen;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (!type || seen.insert(v).second)
          continue;
        Value empty = tensor::EmptyOp::create(b, ret.getLoc(), type, ValueRange{});
        operand.set(linalg::CopyOp::create(b, ret.getLoc(), v, empty).getResult(0));
      }
    });
  }
};

} // namespace
