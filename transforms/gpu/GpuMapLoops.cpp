// `strata-gpu-map-loops`: every outermost loop nest of a host function mapped to one kernel.
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

#include <numeric>

#include "transforms/Passes.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATAGPUMAPLOOPS
#include "transforms/Passes.h.inc"

namespace {

/// Whether `op` is structured control flow that must stay on the host: a loop or branch whose
/// body launches work (loop nests, kernels, runtime calls) or manages buffers, as the lowered
/// strata.while/scan/cond bodies do. A sequential loop nest of scalar code (a scatter, a
/// cumulative scan, a full reduction) is not: it becomes a kernel of its own.
bool isHostControlFlow(Operation *op) {
  if (!isa<scf::ForOp, scf::WhileOp, scf::IfOp, scf::IndexSwitchOp>(op))
    return false;
  return op
      ->walk([](Operation *inner) {
        return isa<scf::ParallelOp, gpu::LaunchOp, gpu::LaunchFuncOp, func::CallOp, memref::AllocOp,
                   memref::DeallocOp, linalg::LinalgOp>(inner)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// `strata-gpu-map-loops`: gives every outermost loop nest of a host function a GPU mapping
/// that `convert-parallel-loops-to-gpu` turns into one kernel launch. An `scf.parallel` is
/// collapsed to one dimension (so any rank maps, and the grid's y/z limits never bind), then
/// tiled into 1-D blocks of `block-size` threads with a bounds check (no min/max bounds, so the
/// block size is a constant); the outer loop maps to block x, the inner one to thread x. A
/// sequential `scf.for` nest outside any parallel loop (a full reduction) is wrapped in a
/// one-iteration `scf.parallel` on block x: one thread runs it on the device, so no loop is
/// left on the host touching device buffers; so is a lone `memref.store` (a 0-d fill). Host
/// control flow (isHostControlFlow: a lowered while_loop, scan or cond) stays on the host and
/// the loop nests of its body are mapped in turn, so each step launches kernels.
struct GpuMapLoopsPass : strata::impl::StrataGpuMapLoopsBase<GpuMapLoopsPass> {
  using StrataGpuMapLoopsBase::StrataGpuMapLoopsBase;

  void runOnOperation() override {
    if (blockSize <= 0 || blockSize > 1024) {
      getOperation().emitError("strata-gpu-map-loops: block-size must be in [1, 1024], got ")
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    // Control flow that stays on the host (a while_loop, a scan, a cond) runs kernels: its
    // loop is no kernel of its own, and the loop nests in its body are mapped one by one.
    llvm::DenseSet<Operation *> host;
    getOperation().walk([&](Operation *op) {
      if (isHostControlFlow(op))
        host.insert(op);
    });
    // Whether `op` will run inside a kernel: some loop around it is not host control flow.
    auto inKernel = [&](Operation *op) {
      for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
        if (isa<scf::ForOp, scf::ParallelOp, scf::WhileOp>(p) && !host.contains(p))
          return true;
      return false;
    };
    // A memref.copy inside a kernel's loop would run in the kernel, where there is no
    // memrefCopy runtime function: it becomes its own loop nest.
    SmallVector<memref::CopyOp> nestedCopies;
    getOperation().walk([&](memref::CopyOp copy) {
      // So does a copy between views (a strided slice, an offset): gpu.memcpy moves one
      // contiguous range and gpu-to-llvm takes identity layouts only (strata-gpu-host-memory
      // relies on this).
      auto contiguous = [](Value v) {
        auto type = cast<MemRefType>(v.getType());
        return type.hasStaticShape() && type.getLayout().isIdentity();
      };
      if (inKernel(copy) || !contiguous(copy.getSource()) || !contiguous(copy.getTarget()))
        nestedCopies.push_back(copy);
    });
    IRRewriter copyRewriter(&getContext());
    for (memref::CopyOp copy : nestedCopies) {
      copyRewriter.setInsertionPoint(copy);
      auto linalgCopy =
          linalg::CopyOp::create(copyRewriter, copy.getLoc(), copy.getSource(), copy.getTarget());
      copyRewriter.eraseOp(copy);
      copyRewriter.setInsertionPoint(linalgCopy);
      if (failed(linalg::linalgOpToLoops(copyRewriter, linalgCopy))) {
        linalgCopy->emitError("strata-gpu-map-loops: cannot lower this copy to loops");
        return signalPassFailure();
      }
      copyRewriter.eraseOp(linalgCopy);
    }

    // Outermost loops only: nested ones run sequentially inside the thread that owns them.
    SmallVector<Operation *> roots;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (host.contains(op))
        return WalkResult::advance();
      if (isa<scf::ParallelOp, scf::ForOp, memref::StoreOp>(op)) {
        roots.push_back(op);
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });

    MLIRContext *ctx = &getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
    auto dim = [&](gpu::Processor p) {
      return gpu::ParallelLoopDimMappingAttr::get(ctx, p, id, id);
    };
    IRRewriter rewriter(ctx);
    for (Operation *root : roots) {
      Location loc = root->getLoc();
      if (isa<scf::ForOp, memref::StoreOp>(root)) {
        // A sequential nest that yields values cannot move into a kernel (its results would
        // live on the device); the bufferized linalg lowering never makes one.
        if (root->getNumResults() != 0) {
          root->emitError("strata-gpu-map-loops: cannot map an scf.for with results");
          return signalPassFailure();
        }
        rewriter.setInsertionPoint(root);
        Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
        Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
        auto par =
            scf::ParallelOp::create(rewriter, loc, ValueRange{c0}, ValueRange{c1}, ValueRange{c1});
        rewriter.moveOpBefore(root, par.getBody()->getTerminator());
        if (failed(gpu::setMappingAttr(par, {dim(gpu::Processor::BlockX)}))) {
          par.emitError("strata-gpu-map-loops: cannot set the mapping");
          return signalPassFailure();
        }
        continue;
      }
      auto par = cast<scf::ParallelOp>(root);
      if (par.getNumReductions() != 0) {
        par.emitError("strata-gpu-map-loops: scf.parallel with reductions is not mapped yet");
        return signalPassFailure();
      }
      // A small static loop gets one block just large enough (whole warps); the trip count is
      // taken before collapsing, which leaves the collapsed bound as unfolded arith.
      std::optional<int64_t> trips = 1;
      for (auto [lbv, ubv, stv] :
           llvm::zip(par.getLowerBound(), par.getUpperBound(), par.getStep())) {
        std::optional<int64_t> lb = getConstantIntValue(lbv), ub = getConstantIntValue(ubv),
                               st = getConstantIntValue(stv);
        if (!trips || !lb || !ub || !st || *st <= 0)
          trips = std::nullopt;
        else
          *trips *= std::max<int64_t>(0, (*ub - *lb + *st - 1) / *st);
      }
      int64_t tile = blockSize;
      if (trips)
        tile = std::max<int64_t>(1, std::min<int64_t>(blockSize, (*trips + 31) / 32 * 32));
      if (par.getNumLoops() > 1) {
        std::vector<unsigned> all(par.getNumLoops());
        std::iota(all.begin(), all.end(), 0u);
        // collapseParallelLoops replaces the loop in place (index constants may come first):
        // the new loop is the first scf.parallel after the old one's predecessor.
        Block *block = par->getBlock();
        Operation *prev = par->getPrevNode();
        rewriter.setInsertionPoint(par);
        collapseParallelLoops(rewriter, par, {all});
        par = nullptr;
        for (Operation *op = prev ? prev->getNextNode() : &block->front(); op && !par;
             op = op->getNextNode())
          par = dyn_cast<scf::ParallelOp>(op);
        if (!par) {
          block->getParentOp()->emitError("strata-gpu-map-loops: collapsing failed");
          return signalPassFailure();
        }
      }
      auto [outer, inner] = scf::tileParallelLoop(par, {tile}, /*noMinMaxBounds=*/true);
      if (failed(gpu::setMappingAttr(outer, {dim(gpu::Processor::BlockX)})) ||
          failed(gpu::setMappingAttr(inner, {dim(gpu::Processor::ThreadX)}))) {
        outer.emitError("strata-gpu-map-loops: cannot set the mapping");
        return signalPassFailure();
      }
    }
  }
};

} // namespace

} // namespace mlir::strata
