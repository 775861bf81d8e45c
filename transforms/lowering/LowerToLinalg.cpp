// strata-lower-to-linalg: rewrites strata ops on static tensors to linalg/tensor/arith/math/scf,
// composing the patterns of each op family (transforms/lowering/).
#include "transforms/Passes.h"
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATALOWERTOLINALG
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;
using namespace mlir::strata::lowering;
namespace st = mlir::strata;

namespace {

/// Any primitive op whose results all have zero elements => tensor.empty: there is nothing to
/// compute, and the tensor ops' verifiers reject some zero-size slices (an offset equal to a
/// zero-size dimension) that the primitive rules allow.
struct ZeroSizeToEmpty : RewritePattern {
  explicit ZeroSizeToEmpty(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/10, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isa<st::PrimitiveOpInterface>(op) || op->getNumResults() == 0)
      return failure();
    SmallVector<Value> empties;
    for (Value r : op->getResults()) {
      auto t = dyn_cast<RankedTensorType>(r.getType());
      if (!t || !t.hasStaticShape() || t.getNumElements() != 0)
        return failure();
      empties.push_back(makeInit(rewriter, op->getLoc(), t));
    }
    rewriter.replaceOp(op, empties);
    return success();
  }
};

/// A strata op on complex values that no pattern lowered, outside any strata control flow (whose
/// bodies lower once it does), fails the pass with a clear error instead of leaving the op for
/// bufferization to reject. strata.fft lowers later, to the runtime.
LogicalResult rejectUnloweredComplex(Operation *root) {
  auto complexTensor = [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && isa<ComplexType>(rt.getElementType());
  };
  WalkResult r = root->walk([&](Operation *op) {
    if (!isa<st::PrimitiveOpInterface>(op) || isa<st::FftOp, st::FusionOp>(op))
      return WalkResult::advance();
    for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
      if (isa_and_nonnull<st::StrataDialect>(p->getDialect()) && !isa<st::FusionOp>(p))
        return WalkResult::advance();
    if (!llvm::any_of(op->getOperandTypes(), complexTensor) &&
        !llvm::any_of(op->getResultTypes(), complexTensor))
      return WalkResult::advance();
    std::string types;
    llvm::raw_string_ostream os(types);
    llvm::interleaveComma(op->getOperandTypes(), os);
    os << " -> ";
    llvm::interleaveComma(op->getResultTypes(), os);
    op->emitError() << "[jit] " << op->getName().stripDialect()
                    << " is not compiled for complex values (" << types
                    << "); call the function without jit, where every complex primitive runs";
    return WalkResult::interrupt();
  });
  return failure(r.wasInterrupted());
}

struct StrataLowerToLinalgPass : st::impl::StrataLowerToLinalgBase<StrataLowerToLinalgPass> {
  void runOnOperation() override {
    if (failed(lowerHostCallbacks(getOperation())))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    patterns.add<ZeroSizeToEmpty>(&getContext());
    populateElementwiseToLinalgPatterns(patterns);
    populateShapeToTensorPatterns(patterns);
    populateIndexingToLinalgPatterns(patterns);
    populateReductionsToLinalgPatterns(patterns);
    populateSortScanToLinalgPatterns(patterns);
    populateDotToLinalgPatterns(patterns);
    populateConvToLinalgPatterns(patterns); // convolution
    populateWindowToLinalgPatterns(patterns);
    // One walk (fusion bodies included): every pattern creates only upstream ops, so nothing
    // needs revisiting, and unrelated IR is left exactly as it was (no folding).
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    // Then each fusion group, innermost first, becomes fused loop nests in its parent.
    if (failed(lowerFusionGroups(getOperation())))
      return signalPassFailure();
    foldSplatInputs(getOperation());
    if (failed(rejectUnloweredComplex(getOperation())))
      return signalPassFailure();
  }
};

} // namespace
