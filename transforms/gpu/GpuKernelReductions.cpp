// strata-gpu-kernels' reduction kernels: full, one thread per output, argmax/argmin rows.
#include "transforms/gpu/GpuKernelsImpl.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::strata::gpu_kernels {

bool isFullReduction(linalg::GenericOp op) {
  if (op.getNumLoops() == 0 || op.getNumReductionLoops() != op.getNumLoops())
    return false;
  for (unsigned k = 0; k < op.getNumDpsInits(); ++k) {
    if (!combinerOf(op, k))
      return false;
    auto type = dyn_cast<MemRefType>(op.getDpsInits()[k].getType());
    if (!type || type.getNumElements() != 1)
      return false;
  }
  return true;
}

void emitFullReduction(OpBuilder &b, linalg::GenericOp op, Value fillValue, int64_t blockSize,
                       int64_t maxBlocks) {
  Location loc = op.getLoc();
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<Value> operands(op->getOperands());
  unsigned numIn = op.getNumDpsInputs(), numOut = op.getNumDpsInits();
  SmallVector<Operation *> combiners;
  for (unsigned k = 0; k < numOut; ++k)
    combiners.push_back(combinerOf(op, k));
  int64_t total = 1;
  for (int64_t e : extents)
    total *= e;
  int64_t bytes = maxElementBytes(op);
  unsigned inner = extents.size() - 1;
  int64_t width = bytes ? lc::vectorWidth(extents.back(), bytes) : 1;
  if (width > 1) {
    bool any = false;
    for (unsigned i = 0; i < numIn; ++i)
      if (auto type = dyn_cast<MemRefType>(operands[i].getType()))
        any |= isVectorizable(type, maps[i], inner, width);
    if (!any)
      width = 1;
  }
  int64_t chunks = total / width;
  lc::FullReduceLaunch l = lc::fullReduceLaunch(chunks, blockSize, maxBlocks);
  SmallVector<Type> accTypes, smemTypes, smemFinal;
  for (Operation *c : combiners) {
    accTypes.push_back(c->getResult(0).getType());
    if (l.blockThreads > lc::kWarpSize)
      smemTypes.push_back(
          workgroupType(b.getContext(), l.blockThreads / lc::kWarpSize, accTypes.back()));
    if (l.finalThreads > lc::kWarpSize)
      smemFinal.push_back(
          workgroupType(b.getContext(), l.finalThreads / lc::kWarpSize, accTypes.back()));
  }
  SmallVector<Value> partials;
  for (Type t : accTypes)
    partials.push_back(memref::AllocOp::create(b, loc, MemRefType::get({l.blocks}, t)));

  createLaunch(
      b, loc, l.blocks, l.blockThreads, smemTypes, [&](KernelBuilder &kb, gpu::LaunchOp launch) {
        Value tid = launch.getThreadIds().x, bid = launch.getBlockIds().x;
        Value gid = kb.globalId(launch, l.blockThreads);
        SmallVector<Value> init;
        for (Operation *c : combiners)
          init.push_back(kb.neutral(c));
        auto loop = kb.gridStrideLoop(gid, chunks, l.blocks * l.blockThreads, init);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(loop.getBody());
          Value base = loop.getInductionVar();
          if (width > 1)
            base = arith::MulIOp::create(b, loc, base, kb.idx(width));
          SmallVector<Value> loops = kb.delinearize(base, extents);
          SmallVector<SmallVector<Value>> lanes;
          for (unsigned i = 0; i < numIn; ++i)
            lanes.push_back(kb.load(operands[i], maps[i], loops, inner, width));
          SmallVector<Value> acc(loop.getRegionIterArgs());
          for (int64_t ln = 0; ln < width; ++ln) {
            IRMapping map = kb.cloneLane(op, lanes, loops, inner, width, ln, combiners, numOut);
            for (unsigned k = 0; k < numOut; ++k) {
              Value other = KernelBuilder::combinedValue(op, combiners[k], numIn + k);
              acc[k] = kb.combine(combiners[k], acc[k], map.lookupOrDefault(other));
            }
          }
          scf::YieldOp::create(b, loc, acc);
        }
        Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, kb.idx(0));
        SmallVector<Value> sums;
        for (unsigned k = 0; k < numOut; ++k)
          sums.push_back(kb.teamReduce(
              combiners[k], loop.getResult(k), l.blockThreads, tid,
              smemTypes.empty() ? Value() : Value(launch.getWorkgroupAttributions()[k])));
        auto write = scf::IfOp::create(b, loc, first, false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(write.thenBlock());
        for (unsigned k = 0; k < numOut; ++k)
          memref::StoreOp::create(b, loc, sums[k], partials[k], ValueRange{bid});
      });

  createLaunch(b, loc, 1, l.finalThreads, smemFinal, [&](KernelBuilder &kb, gpu::LaunchOp launch) {
    Value tid = launch.getThreadIds().x;
    SmallVector<Value> init;
    for (Operation *c : combiners)
      init.push_back(kb.neutral(c));
    auto loop = scf::ForOp::create(b, loc, tid, kb.idx(l.blocks), kb.idx(l.finalThreads), init);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> acc;
      for (unsigned k = 0; k < numOut; ++k) {
        Value p = memref::LoadOp::create(b, loc, partials[k], loop.getInductionVar());
        acc.push_back(kb.combine(combiners[k], loop.getRegionIterArgs()[k], p));
      }
      scf::YieldOp::create(b, loc, acc);
    }
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, kb.idx(0));
    SmallVector<Value> sums;
    for (unsigned k = 0; k < numOut; ++k)
      sums.push_back(
          kb.teamReduce(combiners[k], loop.getResult(k), l.finalThreads, tid,
                        smemFinal.empty() ? Value() : Value(launch.getWorkgroupAttributions()[k])));
    auto write = scf::IfOp::create(b, loc, first, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(write.thenBlock());
    for (unsigned k = 0; k < numOut; ++k) {
      Value out = operands[numIn + k];
      auto type = cast<MemRefType>(out.getType());
      SmallVector<Value> zeros(type.getRank(), kb.idx(0));
      Value start = fillValue ? fillValue : memref::LoadOp::create(b, loc, out, zeros).getResult();
      Value result = kb.combine(combiners[k], start, sums[k]);
      memref::StoreOp::create(b, loc, result, out, zeros);
    }
  });
  for (Value p : partials)
    memref::DeallocOp::create(b, loc, p);
}

bool hasCombiners(linalg::GenericOp op) {
  for (unsigned k = 0; k < op.getNumDpsInits(); ++k)
    if (!combinerOf(op, k))
      return false;
  return op.getNumReductionLoops() > 0;
}

void emitPerOutputReduction(OpBuilder &b, linalg::GenericOp op, Value fillValue, int64_t blockSize,
                            int64_t maxBlocks) {
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto iters = op.getIteratorTypesArray();
  SmallVector<unsigned> par, red;
  SmallVector<int64_t> parExtents, redExtents;
  for (auto [d, it] : llvm::enumerate(iters)) {
    bool isPar = it == utils::IteratorType::parallel;
    (isPar ? par : red).push_back(d);
    (isPar ? parExtents : redExtents).push_back(ranges[d]);
  }
  int64_t outputs = 1, steps = 1;
  for (int64_t e : parExtents)
    outputs *= e;
  for (int64_t e : redExtents)
    steps *= e;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<Value> operands(op->getOperands());
  unsigned numIn = op.getNumDpsInputs(), numOut = op.getNumDpsInits();
  SmallVector<Operation *> combiners;
  for (unsigned k = 0; k < numOut; ++k)
    combiners.push_back(combinerOf(op, k));
  int64_t threads = lc::elementwiseThreads(outputs, blockSize);
  int64_t blocks = lc::gridBlocks(outputs, threads, maxBlocks);
  Block *body = op.getBlock();
  createLaunch(b, loc, blocks, threads, {}, [&](KernelBuilder &kb, gpu::LaunchOp launch) {
    Value gid = kb.globalId(launch, threads);
    auto outer = kb.gridStrideLoop(gid, outputs, blocks * threads);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(outer.getBody());
    SmallVector<Value> parIdx = kb.delinearize(outer.getInductionVar(), parExtents);
    SmallVector<Value> loops(ranges.size());
    for (auto [d, v] : llvm::zip(par, parIdx))
      loops[d] = v;
    for (unsigned d : red)
      loops[d] = kb.idx(0);
    SmallVector<Value> init;
    for (unsigned k = 0; k < numOut; ++k)
      init.push_back(fillValue ? fillValue
                               : memref::LoadOp::create(b, loc, operands[numIn + k],
                                                        kb.applyMap(maps[numIn + k], loops))
                                     .getResult());
    auto inner = scf::ForOp::create(b, loc, kb.idx(0), kb.idx(steps), kb.idx(1), init);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(inner.getBody());
      SmallVector<Value> redIdx = kb.delinearize(inner.getInductionVar(), redExtents);
      for (auto [d, v] : llvm::zip(red, redIdx))
        loops[d] = v;
      SmallVector<Value> args;
      for (unsigned i = 0; i < numIn; ++i)
        args.push_back(kb.load(operands[i], maps[i], loops, 0, 1)[0]);
      args.append(numOut, Value());
      IRMapping map = kb.cloneBody(op, args, loops, combiners);
      SmallVector<Value> acc;
      for (unsigned k = 0; k < numOut; ++k) {
        Operation *c = combiners[k];
        Value accArg = body->getArgument(numIn + k);
        Value other = KernelBuilder::combinedValue(op, c, numIn + k);
        // Sequential order as the loop nest: acc op value, with acc in its own operand slot.
        IRMapping m;
        m.map(accArg, inner.getRegionIterArgs()[k]);
        m.map(other, map.lookupOrDefault(other));
        acc.push_back(b.clone(*c, m)->getResult(0));
      }
      scf::YieldOp::create(b, loc, acc);
    }
    for (unsigned d : red)
      loops[d] = kb.idx(0);
    for (unsigned k = 0; k < numOut; ++k)
      memref::StoreOp::create(b, loc, inner.getResult(k), operands[numIn + k],
                              kb.applyMap(maps[numIn + k], loops));
  });
}

bool isArgReduction(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 2 || op.getNumReductionLoops() != 1 ||
      op.getIteratorTypesArray().back() != utils::IteratorType::reduction ||
      op.getNumParallelLoops() + 1 != op.getNumLoops())
    return false;
  Block *body = op.getBlock();
  BlockArgument x = body->getArgument(0), best = body->getArgument(1), idx = body->getArgument(2);
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto s1 = yield.getValues()[0].getDefiningOp<arith::SelectOp>();
  auto s2 = yield.getValues()[1].getDefiningOp<arith::SelectOp>();
  if (!s1 || !s2 || s1.getCondition() != s2.getCondition() || s1.getTrueValue() != x ||
      s1.getFalseValue() != best || s2.getFalseValue() != idx || !idx.hasOneUse() ||
      !isa<IntegerType>(idx.getType()))
    return false;
  auto cast = s2.getTrueValue().getDefiningOp<arith::IndexCastOp>();
  auto index = cast ? cast.getIn().getDefiningOp<linalg::IndexOp>() : linalg::IndexOp();
  return index && index.getDim() == op.getNumLoops() - 1;
}

void emitArgReduction(OpBuilder &b, linalg::GenericOp op, int64_t blockSize, int64_t maxBlocks) {
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> rows(ranges.begin(), ranges.end() - 1);
  int64_t n = ranges.back(), numRows = 1;
  for (int64_t r : rows)
    numRows *= r;
  size_t r = rows.size();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  Value input = op.getDpsInputs()[0], outV = op.getDpsInits()[0], outI = op.getDpsInits()[1];
  Type vType = op.getBlock()->getArgument(1).getType(),
       iType = op.getBlock()->getArgument(2).getType();
  lc::RowLaunch l = lc::rowLaunch(numRows, n, blockSize, maxBlocks);
  SmallVector<Type> smem;
  if (l.threadsPerRow > lc::kWarpSize)
    smem = {workgroupType(b.getContext(), l.threadsPerRow / lc::kWarpSize, vType),
            workgroupType(b.getContext(), l.threadsPerRow / lc::kWarpSize, iType)};
  createLaunch(
      b, loc, l.blocks, l.blockThreads, smem, [&](KernelBuilder &kb, gpu::LaunchOp launch) {
        auto [lane, rowLoop] = kb.rowLoop(launch, l, numRows);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(rowLoop.getBody());
        SmallVector<Value> loops = kb.delinearize(rowLoop.getInductionVar(), rows);
        loops.push_back(kb.idx(0));
        Value v0 = memref::LoadOp::create(b, loc, outV, kb.applyMap(maps[1], loops));
        Value i0 = memref::LoadOp::create(b, loc, outI, kb.applyMap(maps[2], loops));
        // (value, index) after the body sees element x at index j with the best so far (v, i).
        auto step = [&](Value x, Value j, Value v, Value i) {
          SmallVector<Value> at(loops);
          at[r] = j;
          IRMapping map = kb.cloneBody(op, {x, v, i}, at, {});
          auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
          return std::make_pair(map.lookupOrDefault(yield.getValues()[0]),
                                map.lookupOrDefault(yield.getValues()[1]));
        };
        auto toIndex = [&](Value i) {
          return arith::IndexCastOp::create(b, loc, b.getIndexType(), i).getResult();
        };
        auto pair = [&](std::pair<Value, Value> a, std::pair<Value, Value> c) {
          auto r1 = step(c.first, toIndex(c.second), a.first, a.second);
          auto r2 = step(a.first, toIndex(a.second), c.first, c.second);
          Value same =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r1.second, r2.second);
          Value aFirst =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, a.second, c.second);
          Value lowV = arith::SelectOp::create(b, loc, aFirst, a.first, c.first);
          Value lowI = arith::SelectOp::create(b, loc, aFirst, a.second, c.second);
          return std::make_pair(arith::SelectOp::create(b, loc, same, r1.first, lowV).getResult(),
                                arith::SelectOp::create(b, loc, same, r1.second, lowI).getResult());
        };
        auto warpCombine = [&](std::pair<Value, Value> p) {
          for (int32_t offset = lc::kWarpSize / 2; offset > 0; offset /= 2)
            p = pair(p, {kb.shuffleXor(p.first, offset), kb.shuffleXor(p.second, offset)});
          return p;
        };
        auto scan = scf::ForOp::create(b, loc, lane, kb.idx(n), kb.idx(l.threadsPerRow),
                                       ValueRange{v0, i0});
        {
          OpBuilder::InsertionGuard g2(b);
          b.setInsertionPointToStart(scan.getBody());
          SmallVector<Value> at(loops);
          at[r] = scan.getInductionVar();
          Value x = memref::LoadOp::create(b, loc, input, kb.applyMap(maps[0], at));
          auto [v, i] = step(x, scan.getInductionVar(), scan.getRegionIterArgs()[0],
                             scan.getRegionIterArgs()[1]);
          scf::YieldOp::create(b, loc, ValueRange{v, i});
        }
        std::pair<Value, Value> p = warpCombine({scan.getResult(0), scan.getResult(1)});
        if (l.threadsPerRow > lc::kWarpSize) {
          Value c32 = kb.idx(lc::kWarpSize);
          Value warp = arith::DivUIOp::create(b, loc, lane, c32);
          Value laneInWarp = arith::RemUIOp::create(b, loc, lane, c32);
          gpu::BarrierOp::create(b, loc);
          Value first =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, laneInWarp, kb.idx(0));
          auto write = scf::IfOp::create(b, loc, first, false);
          {
            OpBuilder::InsertionGuard g2(b);
            b.setInsertionPointToStart(write.thenBlock());
            memref::StoreOp::create(b, loc, p.first, launch.getWorkgroupAttributions()[0],
                                    ValueRange{warp});
            memref::StoreOp::create(b, loc, p.second, launch.getWorkgroupAttributions()[1],
                                    ValueRange{warp});
          }
          gpu::BarrierOp::create(b, loc);
          Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, laneInWarp,
                                                kb.idx(l.threadsPerRow / lc::kWarpSize));
          auto read = scf::IfOp::create(b, loc, TypeRange{vType, iType}, inRange, true);
          {
            OpBuilder::InsertionGuard g2(b);
            b.setInsertionPointToStart(read.thenBlock());
            Value v = memref::LoadOp::create(b, loc, launch.getWorkgroupAttributions()[0],
                                             ValueRange{laneInWarp});
            Value i = memref::LoadOp::create(b, loc, launch.getWorkgroupAttributions()[1],
                                             ValueRange{laneInWarp});
            scf::YieldOp::create(b, loc, ValueRange{v, i});
            b.setInsertionPointToStart(read.elseBlock());
            scf::YieldOp::create(b, loc, ValueRange{v0, i0});
          }
          p = warpCombine({read.getResult(0), read.getResult(1)});
        }
        Value lane0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, kb.idx(0));
        auto write = scf::IfOp::create(b, loc, lane0, false);
        b.setInsertionPointToStart(write.thenBlock());
        memref::StoreOp::create(b, loc, p.first, outV, kb.applyMap(maps[1], loops));
        memref::StoreOp::create(b, loc, p.second, outI, kb.applyMap(maps[2], loops));
      });
}

} // namespace mlir::strata::gpu_kernels
