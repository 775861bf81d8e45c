// strata.fusion groups => fused linalg loop nests inlined into their parents; splat inputs folded
// into generic bodies.
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
namespace st = mlir::strata;

namespace mlir::strata::lowering {
namespace {

/// Fuses the (already lowered) ops of one strata.fusion group into as few loop nests as
/// linalg's elementwise fusion allows, then inlines the group into its parent. The region
/// is isolated from above, so fusing inside it never crosses groups.
LogicalResult fuseAndInlineGroup(st::FusionOp fusion) {
  MLIRContext *ctx = fusion.getContext();
  IRRewriter rewriter(ctx);
  // Elementwise fusion works on linalg.generic: generalize the named data-movement and
  // reduction ops so that all-parallel producers fuse into them too (softmax's exp into
  // its reduce_sum).
  SmallVector<linalg::LinalgOp> named;
  fusion.getBlock().walk([&](linalg::LinalgOp l) {
    if (isa<linalg::ReduceOp, linalg::TransposeOp, linalg::BroadcastOp>(l.getOperation()))
      named.push_back(l);
  });
  for (linalg::LinalgOp l : named) {
    rewriter.setInsertionPoint(l);
    if (failed(linalg::generalizeNamedOp(rewriter, l)))
      return fusion.emitError("could not generalize ") << l->getName() << " in the group";
  }
  RewritePatternSet patterns(ctx);
  // A producer fuses into a consumer when the consumer is its only user, or when it only
  // moves data (a broadcast: its body is a bare yield). Fusing a computing producer with
  // several users would recompute it in each, and through chains of diamonds (integer power
  // squares a base that two ops read, 32 times) the recomputation grows exponentially.
  linalg::populateElementwiseOpsFusionPatterns(patterns, [](OpOperand *operand) {
    Value v = operand->get();
    Operation *producer = v.getDefiningOp();
    auto generic = dyn_cast_or_null<linalg::GenericOp>(producer);
    if (generic && generic.getBody()->getOperations().size() == 1)
      return true;
    return llvm::all_of(v.getUsers(), [&](Operation *u) { return u == operand->getOwner(); });
  });
  // Each fusion removes a producer, so the driver ends; its default of 10 sweeps is too few
  // for long dependent chains (20 Threefry rounds in a loop body fuse one step per sweep).
  GreedyRewriteConfig config;
  config.setMaxIterations(GreedyRewriteConfig::kNoLimit);
  if (failed(applyPatternsGreedily(fusion.getRegion(), std::move(patterns), config)))
    return fusion.emitError("elementwise fusion of the group did not converge");

  Block &block = fusion.getBlock();
  Operation *yield = block.getTerminator();
  SmallVector<Value> results(yield->getOperands());
  // A group may yield one of its arguments (its op lowered to a forward, as stop_gradient
  // does): that value is the fusion's input, since the block's arguments vanish on inlining.
  for (Value &r : results)
    if (auto arg = dyn_cast<BlockArgument>(r); arg && arg.getOwner() == &block)
      r = fusion.getInputs()[arg.getArgNumber()];
  rewriter.eraseOp(yield);
  rewriter.inlineBlockBefore(&block, fusion, fusion.getInputs());
  rewriter.replaceOp(fusion, results);
  return success();
}

} // namespace

LogicalResult lowerFusionGroups(Operation *root) {
  SmallVector<st::FusionOp> groups;
  root->walk([&](st::FusionOp f) { groups.push_back(f); });
  for (st::FusionOp f : groups)
    if (failed(fuseAndInlineGroup(f)))
      return failure();
  return success();
}

/// A splat constant read by a linalg.generic (a broadcast scalar that folding turned into a
/// dense tensor, e.g. `x * 0.99` hoisted out of a loop body) becomes a scalar constant in the
/// body, and the operand goes: otherwise bufferization makes it a global array that every
/// iteration reads like a real operand (a 1000-step fori_loop read three arrays per step
/// instead of one).
void foldSplatInputs(Operation *root) {
  SmallVector<Operation *> changed;
  root->walk([&](linalg::GenericOp op) {
    Block *body = op.getBlock();
    for (OpOperand *in : op.getDpsInputOperands()) {
      auto cst = in->get().getDefiningOp<arith::ConstantOp>();
      auto splat = cst ? dyn_cast<SplatElementsAttr>(cst.getValue()) : nullptr;
      BlockArgument arg = body->getArgument(in->getOperandNumber());
      if (!splat || arg.use_empty() || arg.getType() != splat.getElementType())
        continue;
      OpBuilder b = OpBuilder::atBlockBegin(body);
      Value scalar = arith::ConstantOp::create(b, cst.getLoc(),
                                               cast<TypedAttr>(splat.getSplatValue<Attribute>()));
      arg.replaceAllUsesWith(scalar);
      if (changed.empty() || changed.back() != op.getOperation())
        changed.push_back(op);
    }
  });
  if (changed.empty())
    return;
  // Only the generics changed here: other IR stays exactly as lowered.
  RewritePatternSet erase(root->getContext());
  linalg::populateEraseUnusedOperandsAndResultsPatterns(erase);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingOps);
  (void)applyOpPatternsGreedily(changed, std::move(erase), config);
}

} // namespace mlir::strata::lowering
