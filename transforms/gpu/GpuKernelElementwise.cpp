// strata-gpu-kernels' elementwise kernels: grid-stride loops over vectors of elements, and chains.
#include "transforms/gpu/GpuKernelsImpl.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::strata::gpu_kernels {

int64_t maxElementBytes(linalg::GenericOp op) {
  int64_t bytes = 0;
  for (Value v : op->getOperands())
    if (auto type = dyn_cast<MemRefType>(v.getType()))
      bytes = std::max(bytes, vectorElementBytes(type.getElementType()));
  return bytes;
}

namespace {

/// Whether every operand of `op` is a contiguous buffer of the op's full shape read through the
/// identity map and the body does not use linalg.index: the op is then one flat loop.
bool isFlat(linalg::GenericOp op) {
  if (!op.getBlock()->getOps<linalg::IndexOp>().empty())
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    if (!op.getMatchingIndexingMap(&operand).isIdentity() || !isContiguous(type))
      return false;
  }
  return true;
}

/// The values `op` yields for one chunk of `width` elements at `loops`, per output and lane:
/// operands loaded (an output the body does not read is not), or taken from `cached` (lanes
/// already in registers, null when not), the body cloned per lane.
SmallVector<SmallVector<Value>>
computeElements(KernelBuilder &kb, linalg::GenericOp op, ArrayRef<Value> operands,
                ArrayRef<Value> loops, unsigned inner, int64_t width,
                function_ref<const SmallVector<Value> *(Value)> cached = nullptr) {
  Block *body = op.getBlock();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<SmallVector<Value>> lanes;
  for (auto [i, v] : llvm::enumerate(operands)) {
    if (i >= static_cast<size_t>(op.getNumDpsInputs()) && body->getArgument(i).use_empty()) {
      lanes.push_back(SmallVector<Value>(width, Value()));
      continue;
    }
    if (const SmallVector<Value> *regs = cached ? cached(v) : nullptr) {
      lanes.push_back(*regs);
      continue;
    }
    lanes.push_back(kb.load(v, maps[i], loops, inner, width));
  }
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  SmallVector<SmallVector<Value>> results(op.getNumDpsInits());
  for (int64_t l = 0; l < width; ++l) {
    IRMapping map = kb.cloneLane(op, lanes, loops, inner, width, l, {});
    for (auto [k, y] : llvm::enumerate(yield.getValues()))
      results[k].push_back(map.lookupOrDefault(y));
  }
  return results;
}

/// One element (or `width` lanes) of an all-parallel op at loop indices `loops`: loads, body,
/// stores.
void emitElements(KernelBuilder &kb, linalg::GenericOp op, ArrayRef<Value> operands,
                  ArrayRef<Value> loops, unsigned inner, int64_t width) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<SmallVector<Value>> results = computeElements(kb, op, operands, loops, inner, width);
  for (unsigned k = 0; k < op.getNumDpsInits(); ++k) {
    unsigned i = op.getNumDpsInputs() + k;
    kb.store(results[k], operands[i], maps[i], loops, inner);
  }
}

} // namespace

void emitElementwise(OpBuilder &b, linalg::GenericOp op, int64_t blockSize, int64_t maxBlocks) {
  Location loc = op.getLoc();
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  SmallVector<Value> operands(op->getOperands());
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // A flat op is one loop over its elements, whatever its rank: vectors need no divisible
  // innermost extent, the remainder is a scalar tail.
  bool flat = isFlat(op) && !extents.empty();
  int64_t total = 1;
  for (int64_t e : extents)
    total *= e;
  int64_t bytes = maxElementBytes(op);
  int64_t width = 1, tail = 0;
  linalg::GenericOp target = op;
  if (flat && extents.size() > 1) {
    // One dimension: collapse every operand (views on the host, no copy).
    for (Value &v : operands) {
      auto type = dyn_cast<MemRefType>(v.getType());
      if (!type)
        continue;
      SmallVector<ReassociationIndices> all(1);
      for (int64_t i = 0; i < type.getRank(); ++i)
        all[0].push_back(i);
      v = memref::CollapseShapeOp::create(b, loc, v, all);
    }
  }
  if (flat)
    extents = {total};
  if (bytes > 0 && !extents.empty()) {
    if (flat) {
      width = std::max<int64_t>(1, lc::kMaxVectorBytes / bytes);
      tail = total % width;
    } else {
      width = lc::vectorWidth(extents.back(), bytes);
    }
  }
  unsigned inner = extents.empty() ? 0 : extents.size() - 1;
  AffineMap flatMap = AffineMap::getMultiDimIdentityMap(1, b.getContext());
  auto mapOf = [&](unsigned i) { return flat ? flatMap : maps[i]; };
  // Vectors only when some operand is read or written as one.
  if (width > 1) {
    bool any = false;
    for (auto [i, v] : llvm::enumerate(operands))
      if (auto type = dyn_cast<MemRefType>(v.getType()))
        any |= isVectorizable(type, mapOf(i), inner, width);
    if (!any)
      width = 1, tail = 0;
  }
  int64_t chunks = (total - tail) / width;
  int64_t threads = lc::elementwiseThreads(std::max<int64_t>(chunks, tail), blockSize);
  int64_t blocks = lc::gridBlocks(std::max<int64_t>(chunks, 1), threads, maxBlocks);

  // For a flat op, the body sees 1-D operands through identity maps: a collapsed clone of the
  // op's maps. emitElements reads the maps from the op, so build a flat generic to emit from.
  linalg::GenericOp flatOp;
  if (flat && op.getNumLoops() > 1) {
    SmallVector<AffineMap> flatMaps(op->getNumOperands(), flatMap);
    for (auto [i, v] : llvm::enumerate(operands))
      if (!isa<MemRefType>(v.getType()))
        flatMaps[i] = AffineMap::get(1, 0, {}, b.getContext());
    flatOp = linalg::GenericOp::create(
        b, loc, ValueRange(operands).take_front(op.getNumDpsInputs()),
        ValueRange(operands).drop_front(op.getNumDpsInputs()), flatMaps,
        SmallVector<utils::IteratorType>(1, utils::IteratorType::parallel));
    IRMapping none;
    op.getRegion().cloneInto(&flatOp.getRegion(), none);
    target = flatOp;
  }
  createLaunch(b, loc, blocks, threads, {}, [&](KernelBuilder &kb, gpu::LaunchOp launch) {
    Value gid = kb.globalId(launch, threads);
    if (chunks > 0) {
      auto loop = kb.gridStrideLoop(gid, chunks, blocks * threads);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value base = loop.getInductionVar();
      if (width > 1)
        base = arith::MulIOp::create(b, loc, base, kb.idx(width));
      emitElements(kb, target, operands, kb.delinearize(base, extents), inner, width);
    }
    if (tail > 0) {
      Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, gid, kb.idx(tail));
      auto guardIf = scf::IfOp::create(b, loc, in, false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(guardIf.thenBlock());
      Value e = arith::AddIOp::create(b, loc, gid, kb.idx(chunks * width));
      emitElements(kb, target, operands, kb.delinearize(e, extents), inner, 1);
    }
  });
  if (flatOp)
    flatOp.erase();
}

bool isChainable(linalg::GenericOp op, ArrayRef<int64_t> ranges) {
  return op.getNumParallelLoops() == op.getNumLoops() && op.getNumLoops() > 0 &&
         ArrayRef<int64_t>(op.getStaticLoopRanges()) == ranges;
}

void emitElementwiseChain(OpBuilder &b, ArrayRef<linalg::GenericOp> ops, int64_t blockSize,
                          int64_t maxBlocks) {
  Location loc = linalg::GenericOp(ops.back()).getLoc();
  SmallVector<int64_t> extents = linalg::GenericOp(ops.front()).getStaticLoopRanges();
  int64_t total = 1;
  for (int64_t e : extents)
    total *= e;
  int64_t bytes = 0;
  for (linalg::GenericOp op : ops)
    bytes = std::max(bytes, maxElementBytes(op));
  unsigned inner = extents.size() - 1;
  int64_t width = bytes ? lc::vectorWidth(extents.back(), bytes) : 1;
  if (width > 1) {
    bool any = false;
    for (linalg::GenericOp op : ops)
      for (OpOperand &operand : op->getOpOperands())
        if (auto type = dyn_cast<MemRefType>(operand.get().getType()))
          any |= isVectorizable(type, op.getMatchingIndexingMap(&operand), inner, width);
    if (!any)
      width = 1;
  }
  llvm::DenseMap<Value, linalg::GenericOp> lastWriter;
  for (linalg::GenericOp op : ops)
    for (Value init : op.getDpsInits())
      lastWriter[rootOf(init)] = op;
  llvm::DenseSet<Value> temporaries;
  for (auto &[root, op] : lastWriter)
    if (isGroupTemporary(root, ops))
      temporaries.insert(root);
  int64_t chunks = total / width;
  int64_t threads = lc::elementwiseThreads(chunks, blockSize);
  int64_t blocks = lc::gridBlocks(chunks, threads, maxBlocks);
  createLaunch(b, loc, blocks, threads, {}, [&](KernelBuilder &kb, gpu::LaunchOp launch) {
    Value gid = kb.globalId(launch, threads);
    auto loop = kb.gridStrideLoop(gid, chunks, blocks * threads);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value base = loop.getInductionVar();
    if (width > 1)
      base = arith::MulIOp::create(b, loc, base, kb.idx(width));
    SmallVector<Value> loops = kb.delinearize(base, extents);
    llvm::DenseMap<Value, SmallVector<Value>> regs;
    for (linalg::GenericOp op : ops) {
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      SmallVector<Value> operands(op->getOperands());
      SmallVector<SmallVector<Value>> results = computeElements(
          kb, op, operands, loops, inner, width, [&](Value v) -> const SmallVector<Value> * {
            if (!isa<MemRefType>(v.getType()))
              return nullptr;
            auto it = regs.find(rootOf(v));
            return it == regs.end() ? nullptr : &it->second;
          });
      for (unsigned k = 0; k < op.getNumDpsInits(); ++k) {
        Value out = op.getDpsInits()[k], root = rootOf(out);
        regs[root] = results[k];
        if (!temporaries.contains(root) && lastWriter[root] == op)
          kb.store(results[k], out, maps[op.getNumDpsInputs() + k], loops, inner);
      }
    }
  });
}

bool checkChainAccesses(ArrayRef<linalg::GenericOp> ops) {
  RowSpace space;
  space.inner = linalg::GenericOp(ops.front()).getStaticLoopRanges();
  llvm::DenseSet<Value> written;
  for (linalg::GenericOp op : ops)
    for (OpOperand &init : op.getDpsInitsMutable()) {
      if (accessOf(op, init.getOperandNumber(), space) != Access::RowElement)
        return false;
      written.insert(rootOf(init.get()));
    }
  for (linalg::GenericOp op : ops)
    for (OpOperand &operand : op->getOpOperands())
      if (isa<MemRefType>(operand.get().getType()) && written.contains(rootOf(operand.get())) &&
          accessOf(op, operand.getOperandNumber(), space) != Access::RowElement)
        return false;
  // A body that loads from a written buffer itself (a gather's or a sorting network's
  // memref.load at a computed index) reads elements other threads write in the same kernel.
  for (linalg::GenericOp op : ops) {
    WalkResult r = op.getBlock()->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (isa<MemRefType>(v.getType()) && written.contains(rootOf(v)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return false;
  }
  return true;
}

} // namespace mlir::strata::gpu_kernels
