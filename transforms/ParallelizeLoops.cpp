// strata-parallelize-loops: linalg ops on buffers become loops; the large ones become
// scf.parallel over their leading parallel dimensions (OpenMP splits them across the cores),
// the small ones plain scf.for, so small loops pay no fork and add no code.
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATAPARALLELIZELOOPS
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;

namespace {

/// Iterations of the whole loop nest, or 0 when a bound is dynamic.
int64_t totalIterations(linalg::LinalgOp op) {
  int64_t n = 1;
  for (int64_t r : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(r))
      return 0;
    n *= r;
  }
  return n;
}

/// Turns the outermost loop with at least two iterations into a one-dimensional scf.parallel.
/// Only one dimension: a multi-dimensional one becomes a collapsed OpenMP loop whose single
/// induction variable is divided back into indices every iteration, which stops LLVM from
/// vectorizing the innermost loop (a [128, 784, 256] outer product ran 7x slower).
void parallelizeOuterLoop(IRRewriter &rewriter, ArrayRef<Operation *> loops) {
  for (Operation *l : loops) {
    auto forOp = dyn_cast<scf::ForOp>(l);
    if (!forOp || !forOp.getInitArgs().empty())
      return;
    std::optional<APInt> trips = forOp.getStaticTripCount();
    if (!trips || trips->getSExtValue() < 2)
      continue;
    rewriter.setInsertionPoint(forOp);
    auto par =
        scf::ParallelOp::create(rewriter, forOp.getLoc(), ValueRange{forOp.getLowerBound()},
                                ValueRange{forOp.getUpperBound()}, ValueRange{forOp.getStep()});
    Block *body = forOp.getBody();
    rewriter.eraseOp(body->getTerminator());
    rewriter.inlineBlockBefore(body, par.getBody()->getTerminator(), par.getInductionVars());
    rewriter.eraseOp(forOp);
    return;
  }
}

struct StrataParallelizeLoopsPass
    : strata::impl::StrataParallelizeLoopsBase<StrataParallelizeLoopsPass> {
  using StrataParallelizeLoopsBase::StrataParallelizeLoopsBase;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      // Only all-parallel nests: a reduction loop inside scf.parallel becomes an OpenMP
      // reduction, which the scf-to-cf lowering cannot handle inside its alloca scope.
      bool parallel = op.getNumLoops() > 0 && op.getNumLoops() == op.getNumParallelLoops() &&
                      totalIterations(op) >= minIterations;
      FailureOr<linalg::LinalgLoops> loops = linalg::linalgOpToLoops(rewriter, op);
      if (failed(loops)) {
        op->emitError("strata-parallelize-loops: cannot lower this op to loops");
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
      if (parallel)
        parallelizeOuterLoop(rewriter, *loops);
    }
  }
};

} // namespace
