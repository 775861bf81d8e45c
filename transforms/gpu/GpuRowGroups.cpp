// strata-gpu-kernels' row groups: ops over the same rows planned, then emitted as one kernel.
#include "transforms/gpu/GpuKernelsImpl.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::strata::gpu_kernels {

bool checkGroupAccesses(ArrayRef<linalg::GenericOp> ops, const RowSpace &space) {
  llvm::DenseMap<Value, Access> written;
  for (linalg::GenericOp op : ops)
    for (OpOperand &init : op.getDpsInitsMutable()) {
      Access a = accessOf(op, init.getOperandNumber(), space);
      if (a != Access::RowElement && a != Access::PerRow)
        return false;
      auto [it, inserted] = written.try_emplace(rootOf(init.get()), a);
      if (!inserted && it->second != a)
        return false;
    }
  // A per-row value is stored by one lane of the team, which other warps of the block may
  // not have read yet: an op may not read from memory a per-row root a later op writes.
  llvm::DenseSet<Value> seen;
  for (linalg::GenericOp op : ops) {
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<MemRefType>(operand.get().getType()))
        continue;
      Value root = rootOf(operand.get());
      auto it = written.find(root);
      if (it == written.end())
        continue;
      if (accessOf(op, operand.getOperandNumber(), space) != it->second)
        return false;
      bool isInit = op.isDpsInit(&operand);
      if (it->second == Access::PerRow && !isInit && !seen.contains(root))
        return false;
    }
    for (Value init : op.getDpsInits())
      seen.insert(rootOf(init));
  }
  return true;
}

bool isGroupTemporary(Value root, ArrayRef<linalg::GenericOp> ops) {
  if (!root.getDefiningOp<memref::AllocOp>())
    return false;
  SmallVector<Value> work = {root};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<memref::DeallocOp>(user))
        continue;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user); view && view.getViewSource() == v) {
        for (Value r : user->getResults())
          work.push_back(r);
        continue;
      }
      if (!llvm::is_contained(ops, dyn_cast<linalg::GenericOp>(user)))
        return false;
    }
  }
  return true;
}

namespace {

/// What a row group's kernel is, decided before any IR is made: the chunk width, the launch,
/// each op's kind, which buffers need memory, and the shared-memory slots of the reductions.
struct RowGroupPlan {
  int64_t width;  ///< elements per chunk (a vector access)
  int64_t chunks; ///< chunks per row
  lc::RowLaunch launch;
  /// Each thread's chunks are unrolled (few per thread): row elements stay in registers.
  bool unrolled;
  SmallVector<RowKind> kinds; ///< per op of the group
  /// The last op of the group writing each root.
  llvm::DenseMap<Value, linalg::GenericOp> lastWriter;
  /// Roots only the group uses (isGroupTemporary): they need not reach memory.
  llvm::DenseSet<Value> temporaries;
  /// The workgroup buffers of the block-wide reductions, and the slot of (op, output).
  SmallVector<Type> smemTypes;
  llvm::DenseMap<std::pair<Operation *, unsigned>, unsigned> smemIndex;

  /// Whether `op`'s value of `root` must be stored: the last write of a buffer that outlives
  /// the group.
  bool stores(Value root, linalg::GenericOp op) const {
    return !temporaries.contains(root) && lastWriter.lookup(root) == op;
  }
};

RowGroupPlan planRowGroup(RowGroup &group, MLIRContext *ctx, int64_t blockSize, int64_t maxBlocks) {
  const RowSpace &space = group.space;
  RowGroupPlan plan;
  int64_t bytes = 0;
  for (linalg::GenericOp op : group.ops)
    bytes = std::max(bytes, maxElementBytes(op));
  plan.width = bytes && !space.inner.empty() ? lc::vectorWidth(space.inner.back(), bytes) : 1;
  plan.chunks = space.numInner() / plan.width;
  plan.launch = lc::rowLaunch(space.numRows(), plan.chunks, blockSize, maxBlocks);
  plan.unrolled = plan.launch.chunksPerThread <= lc::kMaxChunksPerThread;
  for (linalg::GenericOp op : group.ops) {
    plan.kinds.push_back(*rowKindOf(op, space));
    for (Value init : op.getDpsInits())
      plan.lastWriter[rootOf(init)] = op;
  }
  for (auto &[root, op] : plan.lastWriter)
    if (isGroupTemporary(root, group.ops))
      plan.temporaries.insert(root);
  if (plan.launch.threadsPerRow > lc::kWarpSize)
    for (auto [op, kind] : llvm::zip(group.ops, plan.kinds))
      if (kind == RowKind::Reduction)
        for (unsigned k = 0; k < op.getNumDpsInits(); ++k) {
          plan.smemIndex[{op, k}] = plan.smemTypes.size();
          plan.smemTypes.push_back(workgroupType(ctx, plan.launch.threadsPerRow / lc::kWarpSize,
                                                 combinerOf(op, k)->getResult(0).getType()));
        }
  return plan;
}

/// Emits the ops of a row group inside its row loop, one row per team: thread `lane` owns
/// chunks lane, lane + team, ... of every op. Holds what the ops pass each other: per-row
/// values and (unrolled) row elements in registers.
class ChunkEmitter {
public:
  ChunkEmitter(KernelBuilder &kb, const RowSpace &space, const RowGroupPlan &plan,
               gpu::LaunchOp launch, Value lane, SmallVector<Value> rowIdx, Value lane0)
      : kb(kb), b(kb.b), loc(kb.loc), space(space), plan(plan), launch(launch), lane(lane),
        rowIdx(std::move(rowIdx)), lane0(lane0), r(space.rows.size()),
        inner(r + space.inner.size() - 1) {}

  /// Emits `op`, of `kind`, after the ops emitted so far.
  void emit(linalg::GenericOp op, RowKind kind) {
    switch (kind) {
    case RowKind::PerRow:
      return emitPerRow(op);
    case RowKind::Elementwise:
      return emitElementwise(op);
    case RowKind::Reduction:
      return emitReduction(op);
    }
  }

private:
  /// A per-row op: every thread computes the row's value; lane 0 stores it.
  void emitPerRow(linalg::GenericOp op) {
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    unsigned numIn = op.getNumDpsInputs(), numOut = op.getNumDpsInits();
    Block *body = op.getBlock();
    SmallVector<Value> loops = rowLoops(op);
    SmallVector<Value> args;
    for (unsigned i = 0; i < numIn + numOut; ++i) {
      if (i >= numIn && body->getArgument(i).use_empty()) {
        args.push_back(Value());
        continue;
      }
      args.push_back(operandLanes(op, i, loops, -1, 1)[0]);
    }
    IRMapping map = kb.cloneBody(op, args, loops, {});
    auto yield = cast<linalg::YieldOp>(body->getTerminator());
    for (unsigned k = 0; k < numOut; ++k) {
      Value out = op.getDpsInits()[k], root = rootOf(out);
      Value v = map.lookupOrDefault(yield.getValues()[k]);
      rowRegs[root] = v;
      if (plan.stores(root, op))
        storeOnLane0(v, out, maps[numIn + k], loops);
    }
  }

  /// An elementwise op over the row: each thread its chunks; unrolled, the results stay in
  /// registers for the later ops.
  void emitElementwise(linalg::GenericOp op) { (void)emitChunks(op, RowKind::Elementwise, {}); }

  /// A row reduction: each thread combines its chunks, then the team combines the threads'
  /// values; every thread gets the row's result.
  void emitReduction(linalg::GenericOp op) {
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    unsigned numIn = op.getNumDpsInputs(), numOut = op.getNumDpsInits();
    SmallVector<Operation *> combiners;
    for (unsigned k = 0; k < numOut; ++k)
      combiners.push_back(combinerOf(op, k));
    SmallVector<Value> acc = emitChunks(op, RowKind::Reduction, combiners);
    const lc::RowLaunch &l = plan.launch;
    for (unsigned k = 0; k < numOut; ++k) {
      Value out = op.getDpsInits()[k], root = rootOf(out);
      Value smem = l.threadsPerRow > lc::kWarpSize
                       ? Value(launch.getWorkgroupAttributions()[plan.smemIndex.lookup({op, k})])
                       : Value();
      SmallVector<Value> loops = rowLoops(op);
      // The initial value is read before the team's barriers: lane 0 overwrites it after.
      Value start;
      if (auto it = rowRegs.find(root); it != rowRegs.end())
        start = it->second;
      else
        start = kb.load(out, maps[numIn + k], loops, inner, 1)[0];
      Value total = kb.teamReduce(combiners[k], acc[k], l.threadsPerRow, lane, smem);
      Value result = kb.combine(combiners[k], start, total);
      rowRegs[root] = result;
      if (plan.stores(root, op))
        storeOnLane0(result, out, maps[numIn + k], loops);
    }
  }

  /// The thread's chunks of `op` (of `kind`, Elementwise or Reduction with `combiners`),
  /// unrolled or in a loop. Returns the thread's accumulators (reductions).
  SmallVector<Value> emitChunks(linalg::GenericOp op, RowKind kind,
                                ArrayRef<Operation *> combiners) {
    SmallVector<Value> acc;
    for (Operation *c : combiners)
      acc.push_back(kb.neutral(c));
    return plan.unrolled ? emitUnrolledChunks(op, kind, std::move(acc), combiners)
                         : emitLoopedChunks(op, kind, acc, combiners);
  }

  /// The chunks as a loop from the thread's lane, stepping by the team: row elements written
  /// here live in memory only.
  SmallVector<Value> emitLoopedChunks(linalg::GenericOp op, RowKind kind, ArrayRef<Value> acc,
                                      ArrayRef<Operation *> combiners) {
    auto loop = scf::ForOp::create(b, loc, lane, kb.idx(plan.chunks),
                                   kb.idx(plan.launch.threadsPerRow), acc);
    {
      OpBuilder::InsertionGuard guard(b);
      // Without accumulators the loop has its (empty) yield already.
      if (acc.empty())
        b.setInsertionPoint(loop.getBody()->getTerminator());
      else
        b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> produced =
          emitChunk(op, kind, chunkLoops(loop.getInductionVar()), -1,
                    SmallVector<Value>(loop.getRegionIterArgs()), combiners);
      if (!acc.empty())
        scf::YieldOp::create(b, loc, produced);
    }
    for (Value init : op.getDpsInits())
      elemRegs.erase(rootOf(init));
    return loop.getResults();
  }

  /// The chunks unrolled, the last one guarded when the row has fewer chunks than the team
  /// covers; elementwise results stay in registers for the later ops of the group.
  SmallVector<Value> emitUnrolledChunks(linalg::GenericOp op, RowKind kind, SmallVector<Value> acc,
                                        ArrayRef<Operation *> combiners) {
    const lc::RowLaunch &l = plan.launch;
    unsigned numOut = op.getNumDpsInits();
    SmallVector<SmallVector<SmallVector<Value>>> outRegs(numOut);
    for (int64_t k = 0; k < l.chunksPerThread; ++k) {
      Value chunk = arith::AddIOp::create(b, loc, lane, kb.idx(k * l.threadsPerRow));
      bool partial = (k + 1) * l.threadsPerRow > plan.chunks;
      SmallVector<Value> produced = partial
                                        ? emitGuardedChunk(op, kind, chunk, k, acc, combiners)
                                        : emitChunk(op, kind, chunkLoops(chunk), k, acc, combiners);
      if (kind == RowKind::Reduction) {
        acc = produced;
        continue;
      }
      for (unsigned k2 = 0; k2 < numOut; ++k2)
        outRegs[k2].push_back(
            SmallVector<Value>(ArrayRef(produced).slice(k2 * plan.width, plan.width)));
    }
    if (kind == RowKind::Elementwise)
      for (unsigned k2 = 0; k2 < numOut; ++k2)
        elemRegs[rootOf(op.getDpsInits()[k2])] = outRegs[k2];
    return acc;
  }

  /// emitChunk for chunk `chunk` (unrolled chunk k) when it may lie past the row's end: the
  /// accumulators pass through, elementwise results are zeros nothing reads.
  SmallVector<Value> emitGuardedChunk(linalg::GenericOp op, RowKind kind, Value chunk, int64_t k,
                                      ArrayRef<Value> acc, ArrayRef<Operation *> combiners) {
    auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
    SmallVector<Type> types;
    if (kind == RowKind::Reduction) {
      for (Value a : acc)
        types.push_back(a.getType());
    } else {
      for (Value y : yield.getValues())
        types.append(plan.width, y.getType());
    }
    Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, chunk, kb.idx(plan.chunks));
    auto ifOp = scf::IfOp::create(b, loc, types, in, true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, loc, emitChunk(op, kind, chunkLoops(chunk), k, acc, combiners));
    b.setInsertionPointToStart(ifOp.elseBlock());
    SmallVector<Value> other;
    if (kind == RowKind::Reduction)
      other.assign(acc.begin(), acc.end());
    else
      for (Type t : types)
        other.push_back(arith::ConstantOp::create(b, loc, b.getZeroAttr(t)));
    scf::YieldOp::create(b, loc, other);
    return ifOp.getResults();
  }

  /// One chunk of `op` at `loops` (unrolled chunk `k`, or -1 in a loop): the output lanes
  /// (elementwise, stored where the buffer needs them) or the accumulators `accIn` updated.
  SmallVector<Value> emitChunk(linalg::GenericOp op, RowKind kind, ArrayRef<Value> loops, int64_t k,
                               ArrayRef<Value> accIn, ArrayRef<Operation *> combiners) {
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    unsigned numIn = op.getNumDpsInputs(), numOut = op.getNumDpsInits();
    Block *body = op.getBlock();
    auto yield = cast<linalg::YieldOp>(body->getTerminator());
    int64_t width = plan.width;
    SmallVector<SmallVector<Value>> lanes;
    for (unsigned i = 0; i < numIn + numOut; ++i) {
      if (i >= numIn && (kind == RowKind::Reduction || body->getArgument(i).use_empty())) {
        lanes.push_back(SmallVector<Value>(width, Value()));
        continue;
      }
      lanes.push_back(operandLanes(op, i, loops, k, width));
    }
    SmallVector<Value> acc(accIn);
    SmallVector<SmallVector<Value>> results(numOut);
    for (int64_t ln = 0; ln < width; ++ln) {
      IRMapping map = kb.cloneLane(op, lanes, loops, inner, width, ln, combiners);
      for (unsigned k2 = 0; k2 < numOut; ++k2) {
        if (kind == RowKind::Reduction) {
          Value other = KernelBuilder::combinedValue(op, combiners[k2], numIn + k2);
          acc[k2] = kb.combine(combiners[k2], acc[k2], map.lookupOrDefault(other));
        } else {
          results[k2].push_back(map.lookupOrDefault(yield.getValues()[k2]));
        }
      }
    }
    if (kind == RowKind::Reduction)
      return acc;
    SmallVector<Value> flatResults;
    for (unsigned k2 = 0; k2 < numOut; ++k2) {
      Value out = op.getDpsInits()[k2], root = rootOf(out);
      // Looping threads read row elements back from memory; unrolled ones from registers.
      if (!plan.unrolled || plan.stores(root, op))
        kb.store(results[k2], out, maps[numIn + k2], loops, inner);
      flatResults.append(results[k2]);
    }
    return flatResults;
  }

  /// Operand `i` of `op` as `w` lanes at `loops`: from the registers of an earlier op of the
  /// group (per-row values; row elements of unrolled chunk `k`), else loaded.
  SmallVector<Value> operandLanes(linalg::GenericOp op, unsigned i, ArrayRef<Value> loops,
                                  int64_t k, int64_t w) {
    Value v = op->getOperand(i);
    if (!isa<MemRefType>(v.getType()))
      return SmallVector<Value>(w, v);
    Value root = rootOf(v);
    Access a = accessOf(op, i, space);
    if (a == Access::PerRow)
      if (auto it = rowRegs.find(root); it != rowRegs.end())
        return SmallVector<Value>(w, it->second);
    if (a == Access::RowElement && k >= 0)
      if (auto it = elemRegs.find(root); it != elemRegs.end())
        return it->second[k];
    return kb.load(v, op.getIndexingMapsArray()[i], loops, inner, w);
  }

  /// `op`'s loop indices for the row's value: the row, unit inner indices.
  SmallVector<Value> rowLoops(linalg::GenericOp op) {
    SmallVector<Value> loops(rowIdx);
    loops.append(op.getNumLoops() - r, kb.idx(0));
    return loops;
  }

  /// The loop indices of chunk `chunk` of the row: (row, chunk start).
  SmallVector<Value> chunkLoops(Value chunk) {
    Value start = plan.width > 1
                      ? arith::MulIOp::create(b, loc, chunk, kb.idx(plan.width)).getResult()
                      : chunk;
    SmallVector<Value> loops(rowIdx);
    loops.append(kb.delinearize(start, space.inner));
    return loops;
  }

  /// Lane 0 of the team stores the row's value `v` to `out`.
  void storeOnLane0(Value v, Value out, AffineMap map, ArrayRef<Value> loops) {
    auto w = scf::IfOp::create(b, loc, lane0, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(w.thenBlock());
    kb.store({v}, out, map, loops, inner);
  }

  KernelBuilder &kb;
  OpBuilder &b;
  Location loc;
  const RowSpace &space;
  const RowGroupPlan &plan;
  gpu::LaunchOp launch;
  Value lane;                ///< the thread's index in its team
  SmallVector<Value> rowIdx; ///< the row's indices
  Value lane0;               ///< lane == 0
  size_t r;                  ///< number of row dimensions
  unsigned inner;            ///< the innermost loop dimension (vector accesses)
  /// Register copies: per-row values by root; row elements by root, chunk k, lane.
  llvm::DenseMap<Value, Value> rowRegs;
  llvm::DenseMap<Value, SmallVector<SmallVector<Value>>> elemRegs;
};

} // namespace

void emitRowGroup(OpBuilder &b, RowGroup &group, int64_t blockSize, int64_t maxBlocks) {
  Location loc = group.ops.back().getLoc();
  const RowSpace &space = group.space;
  RowGroupPlan plan = planRowGroup(group, b.getContext(), blockSize, maxBlocks);
  const lc::RowLaunch &l = plan.launch;
  createLaunch(b, loc, l.blocks, l.blockThreads, plan.smemTypes,
               [&](KernelBuilder &kb, gpu::LaunchOp launch) {
                 auto [lane, rowLoop] = kb.rowLoop(launch, l, space.numRows());
                 OpBuilder::InsertionGuard guard(b);
                 b.setInsertionPointToStart(rowLoop.getBody());
                 SmallVector<Value> rowIdx = kb.delinearize(rowLoop.getInductionVar(), space.rows);
                 Value lane0 =
                     arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, kb.idx(0));
                 ChunkEmitter emitter(kb, space, plan, launch, lane, std::move(rowIdx), lane0);
                 for (auto [op, kind] : llvm::zip(group.ops, plan.kinds))
                   emitter.emit(op, kind);
               });
}

} // namespace mlir::strata::gpu_kernels
