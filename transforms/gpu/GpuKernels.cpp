// `strata-gpu-kernels`: linalg ops on buffers -> GPU kernels shaped for their access pattern.
#include "transforms/Passes.h"
#include "transforms/gpu/GpuKernelsImpl.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATAGPUKERNELS
#include "transforms/Passes.h.inc"

using namespace gpu_kernels;

namespace {

/// Ops a row group may span (no memory effect a kernel could reorder).
bool isTransparent(Operation *op) {
  return isa<memref::AllocOp, memref::ExpandShapeOp, memref::CollapseShapeOp, arith::ConstantOp>(
      op);
}

/// A linalg op the pass can turn into a kernel: buffers with static shapes.
bool isCandidate(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics())
    return false;
  for (Value v : op->getOperands())
    if (auto type = dyn_cast<MemRefType>(v.getType()); type && !type.hasStaticShape())
      return false;
    else if (!type && !v.getType().isIntOrFloat())
      return false;
  return true;
}

/// The row space of a row reduction seed: leading parallel rows, trailing reduction columns.
std::optional<RowSpace> seedSpace(linalg::GenericOp op) {
  auto iters = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  size_t r = 0;
  while (r < iters.size() && iters[r] == utils::IteratorType::parallel)
    ++r;
  if (r == 0 || r == iters.size())
    return std::nullopt;
  RowSpace space;
  space.rows.assign(ranges.begin(), ranges.begin() + r);
  space.inner.assign(ranges.begin() + r, ranges.end());
  if (space.numInner() < 2 || rowKindOf(op, space) != RowKind::Reduction)
    return std::nullopt;
  return space;
}

/// The kernels of one block's linalg ops, made in phases: the copies and named ops become
/// generics, row groups take the row reductions and their neighbours, a fill folds into the
/// reduction after it, adjacent elementwise ops chain, and each op left gets its own kernel.
class BlockKernels {
public:
  BlockKernels(Block &block, IRRewriter &rewriter, int64_t blockSize, int64_t maxBlocks)
      : block(block), rewriter(rewriter), blockSize(blockSize), maxBlocks(maxBlocks) {}

  void run() {
    copiesBetweenViewsToLinalg();
    generalizeNamedOps();
    for (auto op : block.getOps<linalg::GenericOp>())
      if (isCandidate(op))
        ops.push_back(op);
    for (RowGroup &group : groupRows()) {
      rewriter.setInsertionPoint(group.ops.back());
      emitRowGroup(rewriter, group, blockSize, maxBlocks);
      replaceByKernel(group.ops);
    }
    foldFills();
    chainElementwise();
    emitSingles();
  }

private:
  /// A copy between views (a strided slice, an offset) is no single gpu.memcpy: it becomes a
  /// linalg.copy, so an elementwise kernel (all threads, vector accesses on the contiguous
  /// side) rather than strata-gpu-map-loops' one-thread loop.
  void copiesBetweenViewsToLinalg() {
    for (auto copy : llvm::make_early_inc_range(block.getOps<memref::CopyOp>())) {
      auto source = cast<MemRefType>(copy.getSource().getType());
      auto target = cast<MemRefType>(copy.getTarget().getType());
      // gpu.memcpy (gpu-to-llvm) takes identity layouts only: a view with an offset is a
      // kernel too.
      if (!source.hasStaticShape() || !target.hasStaticShape() ||
          (source.getLayout().isIdentity() && target.getLayout().isIdentity()))
        continue;
      rewriter.setInsertionPoint(copy);
      linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(), copy.getTarget());
      rewriter.eraseOp(copy);
    }
  }

  /// Named ops (fill, copy, transpose, matmul left by strata-linalg-to-blas) as generics.
  void generalizeNamedOps() {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      if (!linalgOp || isa<linalg::GenericOp>(op) || !linalgOp.hasPureBufferSemantics())
        continue;
      rewriter.setInsertionPoint(&op);
      (void)linalg::generalizeNamedOp(rewriter, linalgOp);
    }
  }

  /// Row groups, seeded by row reductions and grown over adjacent compatible ops.
  SmallVector<RowGroup> groupRows() {
    SmallVector<RowGroup> groups;
    for (size_t s = 0; s < ops.size(); ++s) {
      if (done.contains(ops[s]))
        continue;
      std::optional<RowSpace> space = seedSpace(ops[s]);
      if (!space)
        continue;
      auto fits = [&](size_t first, size_t last) {
        SmallVector<linalg::GenericOp> span(ops.begin() + first, ops.begin() + last + 1);
        for (linalg::GenericOp op : span)
          if (!rowKindOf(op, *space))
            return false;
        return checkGroupAccesses(span, *space);
      };
      if (!fits(s, s))
        continue;
      size_t lo = s, hi = s;
      while (lo > 0 && !done.contains(ops[lo - 1]) && adjacent(ops[lo - 1], ops[lo]) &&
             fits(lo - 1, hi))
        --lo;
      while (hi + 1 < ops.size() && adjacent(ops[hi], ops[hi + 1]) && fits(lo, hi + 1))
        ++hi;
      RowGroup group{*space,
                     SmallVector<linalg::GenericOp>(ops.begin() + lo, ops.begin() + hi + 1)};
      for (linalg::GenericOp op : group.ops)
        done.insert(op);
      groups.push_back(std::move(group));
    }
    return groups;
  }

  /// A fill just before a single-output reduction (outside a row group) of the same buffer
  /// folds into its kernel (the fill's value is the initial value): one launch fewer.
  void foldFills() {
    for (size_t i = 0; i + 1 < ops.size(); ++i) {
      linalg::GenericOp fill = ops[i], red = ops[i + 1];
      if (done.contains(fill) || done.contains(red) || !hasCombiners(red) ||
          red.getNumDpsInits() != 1 || !adjacent(fill, red) || fill.getNumDpsInputs() != 1 ||
          fill.getNumDpsInits() != 1 || fill.getDpsInits()[0] != red.getDpsInits()[0] ||
          isa<MemRefType>(fill.getDpsInputs()[0].getType()))
        continue;
      auto yield = cast<linalg::YieldOp>(fill.getBlock()->getTerminator());
      if (yield.getValues()[0] != fill.getBlock()->getArgument(0) ||
          !fill.getIndexingMapsArray()[1].isIdentity())
        continue;
      folded[red] = fill.getDpsInputs()[0];
      done.insert(fill);
      rewriter.eraseOp(fill);
    }
  }

  /// Elementwise chains: adjacent all-parallel ops over the same iteration space, one kernel.
  void chainElementwise() {
    for (size_t s = 0; s < ops.size(); ++s) {
      if (done.contains(ops[s]) || !isChainable(ops[s], ops[s].getStaticLoopRanges()))
        continue;
      SmallVector<int64_t> ranges = ops[s].getStaticLoopRanges();
      size_t hi = s;
      while (hi + 1 < ops.size() && !done.contains(ops[hi + 1]) && adjacent(ops[hi], ops[hi + 1]) &&
             isChainable(ops[hi + 1], ranges) &&
             checkChainAccesses(ArrayRef(ops).slice(s, hi + 2 - s)))
        ++hi;
      if (hi == s)
        continue;
      SmallVector<linalg::GenericOp> chain(ops.begin() + s, ops.begin() + hi + 1);
      rewriter.setInsertionPoint(chain.back());
      emitElementwiseChain(rewriter, chain, blockSize, maxBlocks);
      for (linalg::GenericOp op : chain)
        done.insert(op);
      replaceByKernel(chain);
      s = hi;
    }
  }

  /// One kernel per op left, by its shape; anything else (an argmax over a leading axis) stays
  /// for strata-gpu-map-loops.
  void emitSingles() {
    for (linalg::GenericOp op : ops) {
      if (done.contains(op))
        continue;
      rewriter.setInsertionPoint(op);
      Value fillValue = folded.lookup(op);
      if (op.getNumParallelLoops() == op.getNumLoops())
        emitElementwise(rewriter, op, blockSize, maxBlocks);
      else if (isFullReduction(op))
        emitFullReduction(rewriter, op, fillValue, blockSize, maxBlocks);
      else if (hasCombiners(op))
        emitPerOutputReduction(rewriter, op, fillValue, blockSize, maxBlocks);
      else if (isArgReduction(op))
        emitArgReduction(rewriter, op, blockSize, maxBlocks);
      else
        continue;
      rewriter.eraseOp(op);
    }
  }

  /// Whether only transparent ops separate two candidates.
  static bool adjacent(linalg::GenericOp a, linalg::GenericOp b) {
    for (Operation *op = a->getNextNode(); op && op != b.getOperation(); op = op->getNextNode())
      if (!isTransparent(op))
        return false;
    return true;
  }

  /// Erases `kernelOps` (now one kernel), then the temporaries nothing reads any more.
  void replaceByKernel(ArrayRef<linalg::GenericOp> kernelOps) {
    llvm::SetVector<Value> roots;
    for (linalg::GenericOp op : kernelOps)
      for (Value init : op.getDpsInits())
        roots.insert(rootOf(init));
    for (linalg::GenericOp op : llvm::reverse(kernelOps))
      rewriter.eraseOp(op);
    for (Value root : roots)
      eraseIfDead(root);
  }

  /// Erases a group temporary nothing reads any more: its views, dealloc and alloc.
  void eraseIfDead(Value root) {
    auto alloc = root.getDefiningOp<memref::AllocOp>();
    if (!alloc)
      return;
    llvm::SetVector<Operation *> dead;
    SmallVector<Value> work = {root};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (isa<memref::DeallocOp>(user)) {
          dead.insert(user);
          continue;
        }
        if (auto view = dyn_cast<ViewLikeOpInterface>(user); view && view.getViewSource() == v) {
          dead.insert(user);
          for (Value r : user->getResults())
            work.push_back(r);
          continue;
        }
        return;
      }
    }
    // Users first: a dealloc or view may use a view.
    while (!dead.empty()) {
      Operation *op = *llvm::find_if(dead, [](Operation *o) { return o->use_empty(); });
      dead.remove(op);
      rewriter.eraseOp(op);
    }
    rewriter.eraseOp(alloc);
  }

  Block &block;
  IRRewriter &rewriter;
  int64_t blockSize, maxBlocks;
  /// The block's candidate generics, in order.
  SmallVector<linalg::GenericOp> ops;
  /// Candidates already in a kernel (or folded into one): erased, never looked into again.
  llvm::DenseSet<Operation *> done;
  /// The fill value folded into a reduction's kernel (foldFills).
  llvm::DenseMap<Operation *, Value> folded;
};

struct GpuKernelsPass : strata::impl::StrataGpuKernelsBase<GpuKernelsPass> {
  using StrataGpuKernelsBase::StrataGpuKernelsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (blockSize < lc::kWarpSize || blockSize > 1024 || blockSize % lc::kWarpSize != 0) {
      func.emitError("strata-gpu-kernels: block-size must be a multiple of 32 in [32, 1024], got ")
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    if (maxBlocks < 1) {
      func.emitError("strata-gpu-kernels: max-blocks must be positive");
      return signalPassFailure();
    }
    if (func.isExternal())
      return;
    IRRewriter rewriter(&getContext());
    // The function's block and the blocks of the control flow that stays on the host (the
    // bodies of lowered while_loops, scans and conds): a kernel never contains linalg ops.
    SmallVector<Block *> blocks;
    func.walk([&](Block *block) {
      if (!isa<linalg::LinalgOp, gpu::LaunchOp>(block->getParentOp()))
        blocks.push_back(block);
    });
    for (Block *block : blocks)
      BlockKernels(*block, rewriter, blockSize, maxBlocks).run();
  }
};

} // namespace

} // namespace mlir::strata
