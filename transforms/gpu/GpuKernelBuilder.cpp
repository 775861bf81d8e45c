// KernelBuilder: the code inside a strata-gpu-kernels gpu.launch (indices, lanes, reductions).
#include "transforms/gpu/GpuKernelsImpl.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::strata::gpu_kernels {

SmallVector<Value> KernelBuilder::delinearize(Value linear, ArrayRef<int64_t> extents) {
  SmallVector<Value> out(extents.size());
  Value rest = linear;
  for (int64_t i = static_cast<int64_t>(extents.size()) - 1; i >= 0; --i) {
    if (extents[i] == 1) {
      out[i] = idx(0);
      continue;
    }
    bool first = llvm::all_of(extents.take_front(i), [](int64_t e) { return e == 1; });
    if (first) {
      out[i] = rest;
      break;
    }
    out[i] = arith::RemUIOp::create(b, loc, rest, idx(extents[i]));
    rest = arith::DivUIOp::create(b, loc, rest, idx(extents[i]));
  }
  for (Value &v : out)
    if (!v)
      v = idx(0);
  return out;
}

SmallVector<Value> KernelBuilder::applyMap(AffineMap map, ValueRange loops) {
  SmallVector<Value> out;
  for (AffineExpr e : map.getResults()) {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      out.push_back(loops[d.getPosition()]);
    else if (auto c = dyn_cast<AffineConstantExpr>(e))
      out.push_back(idx(c.getValue()));
    else
      out.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(map.getNumDims(), map.getNumSymbols(), e), loops));
  }
  return out;
}

SmallVector<Value> KernelBuilder::laneIndices(ArrayRef<Value> loops, unsigned inner, int64_t lane) {
  SmallVector<Value> out(loops);
  if (lane != 0)
    out[inner] = arith::AddIOp::create(b, loc, loops[inner], idx(lane));
  return out;
}

SmallVector<Value> KernelBuilder::load(Value v, AffineMap map, ArrayRef<Value> loops,
                                       unsigned inner, int64_t width) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type)
    return SmallVector<Value>(width, v);
  if (width == 1 || map.getNumResults() == 0 || !map.isFunctionOfDim(inner)) {
    Value x = memref::LoadOp::create(b, loc, v, applyMap(map, loops));
    return SmallVector<Value>(width, x);
  }
  if (isVectorizable(type, map, inner, width)) {
    auto vt = VectorType::get({width}, type.getElementType());
    int64_t bytes = width * vectorElementBytes(type.getElementType());
    Value vec =
        vector::LoadOp::create(b, loc, vt, v, applyMap(map, loops), false, llvm::MaybeAlign(bytes));
    SmallVector<Value> out;
    for (int64_t l = 0; l < width; ++l)
      out.push_back(vector::ExtractOp::create(b, loc, vec, l));
    return out;
  }
  SmallVector<Value> out;
  for (int64_t l = 0; l < width; ++l)
    out.push_back(memref::LoadOp::create(b, loc, v, applyMap(map, laneIndices(loops, inner, l))));
  return out;
}

void KernelBuilder::store(ArrayRef<Value> lanes, Value v, AffineMap map, ArrayRef<Value> loops,
                          unsigned inner) {
  auto type = cast<MemRefType>(v.getType());
  int64_t width = lanes.size();
  if (width > 1 && isVectorizable(type, map, inner, width)) {
    auto vt = VectorType::get({width}, type.getElementType());
    Value vec = vector::FromElementsOp::create(b, loc, vt, lanes);
    int64_t bytes = width * vectorElementBytes(type.getElementType());
    vector::StoreOp::create(b, loc, vec, v, applyMap(map, loops), false, llvm::MaybeAlign(bytes));
    return;
  }
  if (width > 1 && map.getNumResults() != 0 && !map.isFunctionOfDim(inner)) {
    // Every lane writes the same element: the last lane's value, as a loop would leave it.
    memref::StoreOp::create(b, loc, lanes.back(), v, applyMap(map, loops));
    return;
  }
  for (int64_t l = 0; l < width; ++l)
    memref::StoreOp::create(
        b, loc, lanes[l], v,
        applyMap(map, width == 1 ? SmallVector<Value>(loops) : laneIndices(loops, inner, l)));
}

IRMapping KernelBuilder::cloneBody(linalg::GenericOp op, ArrayRef<Value> args,
                                   ArrayRef<Value> loops, ArrayRef<Operation *> skip) {
  IRMapping map;
  Block *body = op.getBlock();
  for (auto [arg, v] : llvm::zip(body->getArguments(), args))
    if (v)
      map.map(arg, v);
  for (Operation &inner : body->without_terminator()) {
    if (llvm::is_contained(skip, &inner))
      continue;
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), loops[index.getDim()]);
      continue;
    }
    b.clone(inner, map);
  }
  return map;
}

Value KernelBuilder::globalId(gpu::LaunchOp launch, int64_t threads) {
  Value bid = launch.getBlockIds().x;
  return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, bid, idx(threads)),
                               launch.getThreadIds().x);
}

scf::ForOp KernelBuilder::gridStrideLoop(Value first, int64_t count, int64_t gridThreads,
                                         ValueRange init) {
  return scf::ForOp::create(b, loc, first, idx(count), idx(gridThreads), init);
}

std::pair<Value, scf::ForOp> KernelBuilder::rowLoop(gpu::LaunchOp launch, const lc::RowLaunch &l,
                                                    int64_t numRows) {
  Value tid = launch.getThreadIds().x, bid = launch.getBlockIds().x;
  Value lane = tid, team = idx(0);
  if (l.rowsPerBlock > 1) {
    lane = arith::RemUIOp::create(b, loc, tid, idx(l.threadsPerRow));
    team = arith::DivUIOp::create(b, loc, tid, idx(l.threadsPerRow));
  }
  Value first = arith::MulIOp::create(b, loc, bid, idx(l.rowsPerBlock));
  Value firstRow = arith::AddIOp::create(b, loc, first, team);
  auto loop = scf::ForOp::create(b, loc, firstRow, idx(numRows), idx(l.blocks * l.rowsPerBlock));
  return {lane, loop};
}

IRMapping KernelBuilder::cloneLane(linalg::GenericOp op, ArrayRef<SmallVector<Value>> lanes,
                                   ArrayRef<Value> loops, unsigned inner, int64_t width,
                                   int64_t lane, ArrayRef<Operation *> skip, unsigned trailing) {
  SmallVector<Value> args;
  for (const SmallVector<Value> &ls : lanes)
    args.push_back(ls[lane]);
  args.append(trailing, Value());
  SmallVector<Value> laneLoops =
      width == 1 ? SmallVector<Value>(loops) : laneIndices(loops, inner, lane);
  return cloneBody(op, args, laneLoops, skip);
}

Value KernelBuilder::combinedValue(linalg::GenericOp op, Operation *c, unsigned accIndex) {
  Value accArg = op.getBlock()->getArgument(accIndex);
  return c->getOperand(0) == accArg ? c->getOperand(1) : c->getOperand(0);
}

Value KernelBuilder::combine(Operation *combiner, Value x, Value y) {
  IRMapping map;
  map.map(combiner->getOperand(0), x);
  map.map(combiner->getOperand(1), y);
  return b.clone(*combiner, map)->getResult(0);
}

Value KernelBuilder::neutral(Operation *combiner) {
  TypedAttr attr = *arith::getNeutralElement(combiner);
  return arith::ConstantOp::create(b, loc, attr);
}

Value KernelBuilder::shuffleXor(Value v, int32_t offset) {
  Type t = v.getType();
  unsigned bits = t.getIntOrFloatBitWidth();
  if (bits == 32 || bits == 64)
    return gpu::ShuffleOp::create(b, loc, v, offset, lc::kWarpSize, gpu::ShuffleMode::XOR)
        .getShuffleResult();
  Type it = b.getIntegerType(bits);
  Value i = isa<FloatType>(t) ? arith::BitcastOp::create(b, loc, it, v).getResult() : v;
  Value wide = arith::ExtUIOp::create(b, loc, b.getI32Type(), i);
  Value s = gpu::ShuffleOp::create(b, loc, wide, offset, lc::kWarpSize, gpu::ShuffleMode::XOR)
                .getShuffleResult();
  Value narrow = arith::TruncIOp::create(b, loc, it, s);
  return isa<FloatType>(t) ? arith::BitcastOp::create(b, loc, t, narrow).getResult() : narrow;
}

Value KernelBuilder::warpReduce(Operation *combiner, Value v) {
  for (int32_t offset = lc::kWarpSize / 2; offset > 0; offset /= 2)
    v = combine(combiner, v, shuffleXor(v, offset));
  return v;
}

Value KernelBuilder::teamReduce(Operation *combiner, Value v, int64_t teamThreads, Value lane,
                                Value smem) {
  v = warpReduce(combiner, v);
  if (teamThreads <= lc::kWarpSize)
    return v;
  Value c32 = idx(lc::kWarpSize);
  Value warp = arith::DivUIOp::create(b, loc, lane, c32);
  Value laneInWarp = arith::RemUIOp::create(b, loc, lane, c32);
  // The barrier before the write: the previous row's readers are done with smem.
  gpu::BarrierOp::create(b, loc);
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, laneInWarp, idx(0));
  auto write = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(write.thenBlock());
    memref::StoreOp::create(b, loc, v, smem, ValueRange{warp});
  }
  gpu::BarrierOp::create(b, loc);
  // Each warp combines the per-warp values itself: no second barrier to broadcast a result.
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, laneInWarp,
                                        idx(teamThreads / lc::kWarpSize));
  auto read = scf::IfOp::create(b, loc, TypeRange{v.getType()}, inRange, true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(read.thenBlock());
    Value x = memref::LoadOp::create(b, loc, smem, ValueRange{laneInWarp});
    scf::YieldOp::create(b, loc, x);
    b.setInsertionPointToStart(read.elseBlock());
    scf::YieldOp::create(b, loc, neutral(combiner));
  }
  return warpReduce(combiner, read.getResult(0));
}

MemRefType workgroupType(MLIRContext *ctx, int64_t n, Type element) {
  return MemRefType::get({n}, element, MemRefLayoutAttrInterface(),
                         gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
}

gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, int64_t blocks, int64_t threads,
                           TypeRange workgroup,
                           llvm::function_ref<void(KernelBuilder &, gpu::LaunchOp)> build) {
  Value g = arith::ConstantIndexOp::create(b, loc, blocks);
  Value t = arith::ConstantIndexOp::create(b, loc, threads);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto launch =
      gpu::LaunchOp::create(b, loc, g, one, one, t, one, one, nullptr, nullptr, {}, workgroup);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  KernelBuilder kb{b, loc};
  build(kb, launch);
  gpu::TerminatorOp::create(b, loc);
  return launch;
}

} // namespace mlir::strata::gpu_kernels
