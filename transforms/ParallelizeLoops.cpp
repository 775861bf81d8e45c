// strata-parallelize-loops: linalg ops on buffers become loops; consecutive ops that work row by
// row on the same rows become one loop over the rows (with row-rows parallel), the large
// all-parallel ones scf.parallel over their leading parallel dimension (OpenMP splits them
// across the cores), the small ones plain scf.for, so small loops pay no fork and add no code.
// Innermost float reductions fold into vector accumulators (VectorReduction.h).
#include "transforms/Passes.h"
#include "transforms/VectorReduction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallBitVector.h"

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
void parallelizeOuterLoop(RewriterBase &rewriter, ArrayRef<Operation *> loops) {
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

// ---- Row loops -----------------------------------------------------------------------------
// A run of linalg ops whose every operand is indexed by loop 0 in its dimension 0, over the same
// rows, touches row i of each buffer only in iteration i of each op: the run can execute row by
// row, all its ops on row i before any on row i + 1, and a row's intermediates are still in the
// cache when the next op reads them (softmax's max, exp-sum and divide make one pass).

/// The buffer `v` is a view of, when dimension 0 of `v` is dimension 0 of that buffer (a
/// function argument or an allocation, possibly through reshapes that keep dimension 0); null
/// otherwise. Distinct roots do not overlap (the runtime gives every argument its own buffer,
/// and one buffer passed twice is read the same way through both).
Value rowRoot(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type || type.getRank() == 0 || !type.hasStaticShape())
    return nullptr;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Block *owner = arg.getOwner();
    return owner->isEntryBlock() && isa<FunctionOpInterface>(owner->getParentOp()) ? v : nullptr;
  }
  Operation *def = v.getDefiningOp();
  if (isa<memref::AllocOp, memref::AllocaOp>(def))
    return v;
  // The dimensions grouped with dimension 0 (of the reshape's larger side) all have size 1.
  auto keepsRows = [](MemRefType big, ArrayRef<int64_t> group) {
    return !group.empty() && group[0] == 0 &&
           llvm::all_of(group.drop_front(), [&](int64_t d) { return big.getDimSize(d) == 1; });
  };
  if (auto e = dyn_cast<memref::ExpandShapeOp>(def)) {
    if (!keepsRows(e.getResultType(), e.getReassociationIndices()[0]))
      return nullptr;
    return rowRoot(e.getSrc());
  }
  if (auto c = dyn_cast<memref::CollapseShapeOp>(def)) {
    if (!keepsRows(c.getSrcType(), c.getReassociationIndices()[0]))
      return nullptr;
    return rowRoot(c.getSrc());
  }
  return nullptr;
}

/// How an op of a row run reads or writes its operands: by row (loop 0 is dimension 0), or,
/// for an input, the same in every row (loop 0 indexes nothing).
struct RowOperands {
  int64_t rows = 0;
  SmallVector<Value> written, rowInvariantReads; // roots
};

/// The op's rows and the roots it touches, when it can join a row run.
std::optional<RowOperands> rowOperandsOf(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() < 1 || op.hasIndexSemantics() ||
      op.getIteratorTypesArray()[0] != utils::IteratorType::parallel)
    return std::nullopt;
  RowOperands r;
  r.rows = op.getStaticLoopRanges()[0];
  if (ShapedType::isDynamic(r.rows) || r.rows < 2)
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    bool isMemRef = isa<MemRefType>(operand.get().getType());
    if (!map.isFunctionOfDim(0)) {
      if (op.isDpsInit(&operand))
        return std::nullopt;
      if (isMemRef) {
        // Read the same in every row: a reshape of a buffer others write by row is fine as
        // long as no op of the run writes it (checked by the run).
        Value root = operand.get();
        while (auto view = root.getDefiningOp<ViewLikeOpInterface>())
          root = view.getViewSource();
        r.rowInvariantReads.push_back(root);
      }
      continue;
    }
    if (!isMemRef || map.getResult(0) != getAffineDimExpr(0, op.getContext()) ||
        llvm::any_of(map.getResults().drop_front(),
                     [](AffineExpr e) { return e.isFunctionOfDim(0); }))
      return std::nullopt;
    Value root = rowRoot(operand.get());
    if (!root || cast<MemRefType>(operand.get().getType()).getDimSize(0) != r.rows)
      return std::nullopt;
    if (op.isDpsInit(&operand))
      r.written.push_back(root);
  }
  return r;
}

/// Ops that may sit between the ops of a run: they move before it.
bool isMovableBetween(Operation &op) {
  if (isa<arith::ConstantOp>(op))
    return true;
  if (auto a = dyn_cast<memref::AllocOp>(op))
    return a->getNumOperands() == 0;
  return isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(op);
}

struct RowRun {
  SmallVector<linalg::LinalgOp> ops;
  SmallVector<Operation *> between; // movable ops that sat between them
  int64_t rows = 0;
};

/// The row runs of `block` worth making: with a reduction among them (a run of elementwise ops
/// is already one loop nest each, which LLVM vectorizes as it is).
SmallVector<RowRun> findRowRuns(Block &block) {
  SmallVector<RowRun> runs;
  RowRun cur;
  SmallVector<Operation *> pending;
  llvm::SmallPtrSet<Value, 8> written, invariant;
  auto close = [&]() {
    bool reduces = llvm::any_of(cur.ops, [](linalg::LinalgOp o) {
      return o.getNumReductionLoops() > 0 && o.getNumLoops() > 1;
    });
    bool clash = llvm::any_of(invariant, [&](Value v) { return written.contains(v); });
    if (reduces && !clash)
      runs.push_back(std::move(cur));
    cur = RowRun();
    pending.clear();
    written.clear();
    invariant.clear();
  };
  for (Operation &op : block) {
    auto l = dyn_cast<linalg::LinalgOp>(op);
    std::optional<RowOperands> r = l ? rowOperandsOf(l) : std::nullopt;
    if (r) {
      if (!cur.ops.empty() && cur.rows != r->rows)
        close();
      cur.rows = r->rows;
      cur.ops.push_back(l);
      cur.between.append(pending);
      pending.clear();
      written.insert(r->written.begin(), r->written.end());
      invariant.insert(r->rowInvariantReads.begin(), r->rowInvariantReads.end());
      continue;
    }
    if (!cur.ops.empty() && isMovableBetween(op)) {
      pending.push_back(&op);
      continue;
    }
    if (!cur.ops.empty())
      close();
  }
  if (!cur.ops.empty())
    close();
  return runs;
}

/// `v` at row `i`: its dimension 0 dropped (a rank-reducing subview).
Value rowOf(OpBuilder &b, Location loc, Value v, Value i) {
  auto type = cast<MemRefType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), strides(rank, b.getIndexAttr(1));
  offsets[0] = i;
  SmallVector<OpFoldResult> sizes;
  sizes.push_back(b.getIndexAttr(1));
  for (int64_t d = 1; d < rank; ++d)
    sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
  auto rowType = memref::SubViewOp::inferRankReducedResultType(type.getShape().drop_front(), type,
                                                               offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, rowType, v, offsets, sizes, strides);
}

/// Rows per parallel iteration: enough work that the scratch buffers' allocation is paid
/// rarely, and at least 32 iterations so that the cores share the rows evenly.
int64_t rowsPerChunk(int64_t rows, int64_t workPerRow) {
  constexpr int64_t kChunkWork = 1 << 15, kMinChunks = 32;
  int64_t r = std::max<int64_t>(1, kChunkWork / std::max<int64_t>(1, workPerRow));
  return std::clamp<int64_t>(std::min(r, rows / kMinChunks), 1, rows);
}

/// Allocations of the run that only its row loop reads and writes (row by row, then freed):
/// each becomes one row of scratch per parallel iteration (per loop when serial), so the
/// intermediate rows (softmax's exponentials) stay in the cache and are never written back
/// to a full-size buffer, which costs its page faults at every call too.
void useRowScratch(RewriterBase &rewriter, scf::ForOp rowLoop) {
  Block &rowBody = *rowLoop.getBody();
  llvm::SetVector<memref::AllocOp> allocs;
  for (Operation &op : rowBody)
    if (auto sv = dyn_cast<memref::SubViewOp>(op))
      if (auto a = sv.getSource().getDefiningOp<memref::AllocOp>())
        if (a.getType().getRank() >= 2)
          allocs.insert(a);
  for (memref::AllocOp a : allocs) {
    bool local = llvm::all_of(a->getUsers(), [&](Operation *u) {
      return isa<memref::DeallocOp>(u) || (isa<memref::SubViewOp>(u) && u->getBlock() == &rowBody);
    });
    if (!local)
      continue;
    MemRefType type = a.getType();
    auto rowType = MemRefType::get(type.getShape().drop_front(), type.getElementType());
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(rowLoop);
    auto scratch = memref::AllocOp::create(rewriter, a.getLoc(), rowType, a.getAlignmentAttr());
    rewriter.setInsertionPointAfter(rowLoop);
    memref::DeallocOp::create(rewriter, a.getLoc(), scratch);
    for (Operation *u : llvm::make_early_inc_range(a->getUsers())) {
      if (isa<memref::DeallocOp>(u)) {
        rewriter.eraseOp(u);
        continue;
      }
      rewriter.setInsertionPoint(u);
      rewriter.replaceOpWithNewOp<memref::CastOp>(u, u->getResult(0).getType(), scratch);
    }
    rewriter.eraseOp(a);
  }
}

/// Replaces the run by one loop over its rows whose body holds each op restricted to row i
/// (loop 0 dropped); when parallel, an scf.parallel over chunks of rows around an scf.for over
/// a chunk's rows. Returns the outer loop.
FailureOr<Operation *> makeRowLoop(RewriterBase &rewriter, RowRun &run, bool parallel,
                                   int64_t workPerRow) {
  Operation *first = run.ops.front();
  for (Operation *op : run.between)
    rewriter.moveOpBefore(op, first);
  Location loc = first->getLoc();
  rewriter.setInsertionPoint(first);
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
  Value zero = index(0), rows = index(run.rows), one = index(1);
  Operation *loop;
  scf::ForOp rowLoop;
  if (parallel) {
    int64_t chunk = rowsPerChunk(run.rows, workPerRow);
    Value chunks = index((run.rows + chunk - 1) / chunk), chunkRows = index(chunk);
    auto par = scf::ParallelOp::create(rewriter, loc, ValueRange{zero}, ValueRange{chunks},
                                       ValueRange{one});
    rewriter.setInsertionPoint(par.getBody()->getTerminator());
    Value lo = arith::MulIOp::create(rewriter, loc, par.getInductionVars()[0], chunkRows);
    Value hi = arith::MinSIOp::create(rewriter, loc,
                                      arith::AddIOp::create(rewriter, loc, lo, chunkRows), rows);
    rowLoop = scf::ForOp::create(rewriter, loc, lo, hi, one);
    loop = par;
  } else {
    rowLoop = scf::ForOp::create(rewriter, loc, zero, rows, one);
    loop = rowLoop;
  }
  Value i = rowLoop.getInductionVar();
  Block *rowBody = rowLoop.getBody();
  llvm::SmallBitVector dim0(1, true);
  for (linalg::LinalgOp l : run.ops) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(l);
    linalg::GenericOp g = dyn_cast<linalg::GenericOp>(l.getOperation());
    if (!g) {
      FailureOr<linalg::GenericOp> gen = linalg::generalizeNamedOp(rewriter, l);
      if (failed(gen))
        return l->emitError("strata-parallelize-loops: cannot generalize this op");
      g = *gen;
    }
    rewriter.setInsertionPoint(rowBody->getTerminator());
    SmallVector<Value> ins, outs;
    SmallVector<AffineMap> maps;
    for (OpOperand &operand : g->getOpOperands()) {
      AffineMap map = g.getMatchingIndexingMap(&operand);
      Value v = operand.get();
      if (map.isFunctionOfDim(0)) {
        v = rowOf(rewriter, loc, v, i);
        map = map.dropResult(0);
      }
      dim0.resize(map.getNumDims());
      dim0.reset();
      dim0.set(0);
      maps.push_back(compressDims(map, dim0));
      (g.isDpsInit(&operand) ? outs : ins).push_back(v);
    }
    SmallVector<utils::IteratorType> iters = g.getIteratorTypesArray();
    iters.erase(iters.begin());
    auto row = linalg::GenericOp::create(rewriter, g.getLoc(), TypeRange{}, ins, outs, maps, iters);
    rewriter.inlineRegionBefore(g.getRegion(), row.getRegion(), row.getRegion().end());
    rewriter.eraseOp(g);
  }
  useRowScratch(rewriter, rowLoop);
  return loop;
}

struct StrataParallelizeLoopsPass
    : strata::impl::StrataParallelizeLoopsBase<StrataParallelizeLoopsPass> {
  using StrataParallelizeLoopsBase::StrataParallelizeLoopsBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    if (rowLoops) {
      SmallVector<Block *> blocks;
      getOperation()->walk([&](Block *b) {
        if (!isa<linalg::LinalgOp>(b->getParentOp()))
          blocks.push_back(b);
      });
      for (Block *b : blocks) {
        for (RowRun &run : findRowRuns(*b)) {
          int64_t work = 0;
          for (linalg::LinalgOp l : run.ops)
            work += totalIterations(l);
          if (failed(makeRowLoop(rewriter, run, work >= minIterations, work / run.rows)))
            return signalPassFailure();
        }
      }
    }
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics())
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      // Never inside a row loop that already runs in parallel; else only all-parallel nests:
      // an scf.parallel with a reduction loop becomes an OpenMP reduction, which the
      // scf-to-cf lowering cannot handle inside its alloca scope.
      bool nested = op->getParentOfType<scf::ParallelOp>() != nullptr;
      bool parallel = !nested && op.getNumLoops() > 0 &&
                      op.getNumLoops() == op.getNumParallelLoops() &&
                      totalIterations(op) >= minIterations;
      if (rowLoops) {
        if (auto g = dyn_cast<linalg::GenericOp>(op.getOperation())) {
          bool big = !nested && totalIterations(op) >= minIterations;
          FailureOr<SmallVector<Operation *>> loops = strata::lowerVectorReduction(rewriter, g);
          if (succeeded(loops)) {
            // Its outer loops are parallel dimensions with no carried value.
            if (big)
              parallelizeOuterLoop(rewriter, *loops);
            continue;
          }
        } else if (op.getNumReductionLoops() == 1 &&
                   op.getIteratorTypesArray().back() == utils::IteratorType::reduction) {
          FailureOr<linalg::GenericOp> g = linalg::generalizeNamedOp(rewriter, op);
          if (succeeded(g)) {
            bool big = !nested && totalIterations(*g) >= minIterations;
            rewriter.setInsertionPoint(*g);
            FailureOr<SmallVector<Operation *>> loops = strata::lowerVectorReduction(rewriter, *g);
            if (succeeded(loops)) {
              if (big)
                parallelizeOuterLoop(rewriter, *loops);
              continue;
            }
            op = *g;
            rewriter.setInsertionPoint(op);
          }
        }
      }
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
