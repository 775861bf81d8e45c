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
      bool parallel = op.getNumLoops() > 0 &&
                      op.getNumLoops() == op.getNumParallelLoops() &&
                      totalIterations(op) >= minIterations;
      FailureOr<linalg::LinalgLoops> loops = parallel
                                                 ? linalg::linalgOpToParallelLoops(rewriter, op)
                                                 : linalg::linalgOpToLoops(rewriter, op);
      if (failed(loops)) {
        op->emitError("strata-parallelize-loops: cannot lower this op to loops");
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
