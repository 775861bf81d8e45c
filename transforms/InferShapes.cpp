// strata-infer-shapes: gives strata results the static types their shape rules compute.
//
// Program order, one walk: an op whose operands are all static and whose results have a
// dynamic dimension gets the rule's result types (the verifier's rule, through StrataVerify.h),
// so consumers visited later see static operands and refine in turn. Users that are not strata
// ops keep the old type through a tensor.cast; function signatures are left unchanged.
#include "transforms/Passes.h"

#include "dialects/strata/StrataOps.h"
#include "dialects/strata/StrataVerify.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include <string>

namespace mlir::strata {
#define GEN_PASS_DEF_STRATAINFERSHAPES
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;
namespace st = mlir::strata;

namespace {

bool hasDynamicResult(Operation *op) {
  return llvm::any_of(op->getResultTypes(), [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && shaped.hasRank() && !shaped.hasStaticShape();
  });
}

/// Refines `op`'s results; fails (with a diagnostic) when the rule rejects the operands or
/// contradicts a static result dimension.
LogicalResult refine(Operation *op) {
  std::string error;
  FailureOr<SmallVector<RankedTensorType>> inferred = st::inferPrimitiveResultTypes(op, &error);
  if (failed(inferred))
    return op->emitOpError() << "shape rule fails on the refined operands: " << error;
  if (inferred->size() != op->getNumResults())
    return op->emitOpError() << "has " << op->getNumResults()
                             << " results, but the shape rule gives " << inferred->size();
  for (OpResult result : op->getResults()) {
    auto old = cast<RankedTensorType>(result.getType());
    RankedTensorType refined = (*inferred)[result.getResultNumber()];
    if (old == refined)
      continue;
    if (!st::isCompatibleResultType(old, refined))
      return op->emitOpError() << "result #" << result.getResultNumber() << " has type " << old
                               << ", but the shape rule gives " << refined
                               << " for the refined operands";
    result.setType(refined);
    // Strata users take the refined value; any other user keeps the old type through a cast.
    auto keepsOldType = [](OpOperand &use) {
      return !isa<st::PrimitiveOpInterface>(use.getOwner());
    };
    if (llvm::none_of(result.getUses(), keepsOldType))
      continue;
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    auto castOp = tensor::CastOp::create(b, op->getLoc(), old, result);
    result.replaceUsesWithIf(castOp.getResult(), [&](OpOperand &use) {
      return use.getOwner() != castOp.getOperation() && keepsOldType(use);
    });
  }
  return success();
}

struct StrataInferShapes : st::impl::StrataInferShapesBase<StrataInferShapes> {
  void runOnOperation() override {
    WalkResult walked = getOperation()->walk<WalkOrder::PreOrder>([](Operation *op) {
      if (!isa<st::PrimitiveOpInterface>(op) || !hasDynamicResult(op) || !st::canRunShapeRule(op))
        return WalkResult::advance();
      return failed(refine(op)) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (walked.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
