// Innermost floating-point reductions on buffers lowered to loops over vector accumulators (see
// VectorReduction.h): W lanes fold the row, a masked step takes its tail, halves combine them.
#include "transforms/VectorReduction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

#include <limits>

using namespace mlir;

namespace {

/// Accumulator lanes for an accumulator of `bits` bits: 128 bytes, two AVX-512 registers (four
/// AVX2 ones), enough independent chains to hide the add latency while the temporaries of a
/// fused body (an exp approximation) still fit in the register file.
int64_t lanesFor(unsigned bits) { return 1024 / bits; }

/// Rows shorter than this stay scalar loops: the vector step and the lane combination would
/// cost more than they save.
constexpr int64_t kMinVectorRow = 16;

/// The combining op of one output: `yield`'s operand is `combiner(acc, value)` in either order,
/// where `acc` is the output's block argument.
struct Combiner {
  Operation *op;
  Value value; // the combined element, computed by the body from the inputs only
};

/// The identity of `combiner` in `type`: the value that leaves every element unchanged (-0 for
/// a sum, so that a lane that saw no element does not turn a sum of -0s into +0).
TypedAttr identityOf(Operation *combiner, FloatType type) {
  const llvm::fltSemantics &sem = type.getFloatSemantics();
  APFloat v = APFloat::getZero(sem, /*Negative=*/true);
  if (isa<arith::MulFOp>(combiner))
    v = APFloat::getOne(sem);
  else if (isa<arith::MaximumFOp, arith::MaxNumFOp>(combiner))
    v = APFloat::getInf(sem, /*Negative=*/true);
  else if (isa<arith::MinimumFOp, arith::MinNumFOp>(combiner))
    v = APFloat::getInf(sem, /*Negative=*/false);
  return FloatAttr::get(type, v);
}

/// Whether the body op can run on vectors lane by lane: an elementwise arith/math op on scalars
/// (or a constant), never an integer division, whose padding lanes in the masked tail might
/// trap.
bool isLaneWise(Operation &op) {
  if (isa<arith::ConstantOp>(op))
    return isa<IntegerType, FloatType>(op.getResult(0).getType());
  if (!isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) ||
      !op.hasTrait<OpTrait::Elementwise>() || op.getNumRegions() != 0 || op.getNumResults() != 1)
    return false;
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp, arith::CeilDivSIOp,
          arith::CeilDivUIOp, arith::FloorDivSIOp>(op))
    return false;
  auto scalar = [](Type t) { return isa<IntegerType, FloatType>(t); };
  return llvm::all_of(op.getOperandTypes(), scalar) && llvm::all_of(op.getResultTypes(), scalar);
}

/// Each output's combiner, or failure when an output is not a reduction of that form: its block
/// argument has one use, the combiner, whose result only the yield reads (so no other value of
/// the body depends on an accumulator).
FailureOr<SmallVector<Combiner>> combinersOf(linalg::GenericOp op) {
  Block *body = op.getBody();
  Operation *yield = body->getTerminator();
  SmallVector<Combiner> out;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    BlockArgument acc = op.getMatchingBlockArgument(&init);
    Value yielded = yield->getOperand(init.getOperandNumber() - op.getNumDpsInputs());
    Operation *c = yielded.getDefiningOp();
    if (!c || c->getBlock() != body || !acc.hasOneUse() || !yielded.hasOneUse() ||
        !isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
             arith::MinNumFOp>(c))
      return failure();
    Value value;
    if (c->getOperand(0) == acc)
      value = c->getOperand(1);
    else if (c->getOperand(1) == acc)
      value = c->getOperand(0);
    if (!value || value == acc)
      return failure();
    auto type = dyn_cast<FloatType>(acc.getType());
    if (!type || !(type.isF32() || type.isF64()))
      return failure();
    out.push_back({c, value});
  }
  return out;
}

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The indices `map` gives from the loop indices `ivs` (its results are dims or constants).
SmallVector<Value> indicesOf(OpBuilder &b, Location loc, AffineMap map, ArrayRef<Value> ivs) {
  SmallVector<Value> idx;
  for (AffineExpr e : map.getResults()) {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      idx.push_back(ivs[d.getPosition()]);
    else
      idx.push_back(indexConst(b, loc, cast<AffineConstantExpr>(e).getValue()));
  }
  return idx;
}

/// Combines the lanes of `v` by halves, down to one scalar (the order the eager kernels use).
Value combineLanes(OpBuilder &b, Location loc, Operation *combiner, Value v) {
  int64_t w = cast<VectorType>(v.getType()).getNumElements();
  for (; w > 1; w /= 2) {
    SmallVector<int64_t> lo, hi;
    for (int64_t k = 0; k < w / 2; ++k) {
      lo.push_back(k);
      hi.push_back(k + w / 2);
    }
    Value a = vector::ShuffleOp::create(b, loc, v, v, lo);
    Value c = vector::ShuffleOp::create(b, loc, v, v, hi);
    IRMapping m;
    m.map(combiner->getOperand(0), a);
    m.map(combiner->getOperand(1), c);
    Operation *step = b.clone(*combiner, m);
    step->getResult(0).setType(a.getType());
    v = step->getResult(0);
  }
  return vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{0});
}

} // namespace

namespace mlir::strata {

FailureOr<SmallVector<Operation *>> lowerVectorReduction(RewriterBase &rewriter,
                                                         linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() < 1 || op.getNumReductionLoops() != 1 ||
      op.getIteratorTypesArray().back() != utils::IteratorType::reduction)
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return failure();
  unsigned nLoops = op.getNumLoops(), red = nLoops - 1;
  int64_t n = ranges[red];
  if (n < kMinVectorRow)
    return failure();
  FailureOr<SmallVector<Combiner>> combiners = combinersOf(op);
  if (failed(combiners))
    return failure();
  Block *body = op.getBody();
  for (Operation &o : body->without_terminator())
    if (!isLaneWise(o) && !llvm::any_of(*combiners, [&](const Combiner &c) { return c.op == &o; }))
      return failure();
  unsigned bits = 0;
  for (const Combiner &c : *combiners)
    bits = std::max(bits, c.op->getResult(0).getType().getIntOrFloatBitWidth());
  int64_t w = lanesFor(bits);
  // Inputs read along the row need it contiguous; the others are one value per row; outputs
  // do not move along the row.
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return failure();
    bool alongRow = map.isFunctionOfDim(red);
    if (!alongRow)
      continue;
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (op.isDpsInit(&operand) || !type ||
        map.getResults().back() != getAffineDimExpr(red, op.getContext()) ||
        failed(type.getStridesAndOffset(strides, offset)) || strides.back() != 1)
      return failure();
  }

  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  // The parallel loops, outermost first.
  SmallVector<Operation *> loops;
  SmallVector<Value> ivs;
  for (unsigned d = 0; d < red; ++d) {
    auto loop =
        scf::ForOp::create(rewriter, loc, indexConst(rewriter, loc, 0),
                           indexConst(rewriter, loc, ranges[d]), indexConst(rewriter, loc, 1));
    loops.push_back(loop);
    ivs.push_back(loop.getInductionVar());
    rewriter.setInsertionPoint(loop.getBody()->getTerminator());
  }

  // Inputs that do not move along the row, loaded once per row.
  IRMapping rowValues;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    BlockArgument arg = op.getMatchingBlockArgument(in);
    if (map.isFunctionOfDim(red) || arg.use_empty())
      continue;
    Value v = in->get();
    if (isa<MemRefType>(v.getType()))
      v = memref::LoadOp::create(rewriter, loc, v, indicesOf(rewriter, loc, map, ivs));
    rowValues.map(arg, v);
  }

  auto vecOf = [&](Type t) { return VectorType::get({w}, t); };
  // One step over `lanes` consecutive row elements from `j` (a masked one when `mask` is set):
  // the body on vectors, folded into the accumulators `accs`.
  auto step = [&](OpBuilder &b, Value j, ValueRange accs, Value mask) {
    IRMapping m;
    SmallVector<Value> rowIvs(ivs);
    rowIvs.push_back(j);
    for (OpOperand *in : op.getDpsInputOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(in);
      if (arg.use_empty())
        continue;
      AffineMap map = op.getMatchingIndexingMap(in);
      if (!map.isFunctionOfDim(red)) {
        m.map(arg,
              vector::BroadcastOp::create(b, loc, vecOf(arg.getType()), rowValues.lookup(arg)));
        continue;
      }
      SmallVector<Value> idx = indicesOf(b, loc, map, rowIvs);
      VectorType vt = vecOf(arg.getType());
      Value v;
      if (mask) {
        Value zero = arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(vt, b.getZeroAttr(arg.getType())));
        v = vector::MaskedLoadOp::create(b, loc, vt, in->get(), idx, mask, zero);
      } else {
        v = vector::LoadOp::create(b, loc, vt, in->get(), idx);
      }
      m.map(arg, v);
    }
    auto vectorOf = [&](Value s) -> Value {
      if (Value v = m.lookupOrNull(s))
        return v;
      return vector::BroadcastOp::create(b, loc, vecOf(s.getType()), s);
    };
    for (Operation &o : body->without_terminator()) {
      if (llvm::any_of(*combiners, [&](const Combiner &c) { return c.op == &o; }))
        continue;
      if (isa<arith::ConstantOp>(o)) {
        Value s = b.clone(o)->getResult(0);
        m.map(o.getResult(0), vector::BroadcastOp::create(b, loc, vecOf(s.getType()), s));
        continue;
      }
      SmallVector<Value> operands;
      for (Value v : o.getOperands())
        operands.push_back(vectorOf(v));
      OperationState state(o.getLoc(), o.getName());
      state.addOperands(operands);
      state.addTypes(vecOf(o.getResult(0).getType()));
      state.addAttributes(o.getAttrs());
      m.map(o.getResult(0), b.create(state)->getResult(0));
    }
    SmallVector<Value> next;
    for (auto [c, acc] : llvm::zip(*combiners, accs)) {
      Value v = vectorOf(c.value);
      if (mask) {
        Value id = arith::ConstantOp::create(
            b, loc,
            DenseElementsAttr::get(cast<ShapedType>(v.getType()),
                                   identityOf(c.op, cast<FloatType>(c.value.getType()))));
        v = arith::SelectOp::create(b, loc, mask, v, id);
      }
      IRMapping cm;
      cm.map(c.op->getOperand(0), c.op->getOperand(0) == c.value ? v : acc);
      cm.map(c.op->getOperand(1), c.op->getOperand(1) == c.value ? v : acc);
      Operation *folded = b.clone(*c.op, cm);
      folded->getResult(0).setType(v.getType());
      next.push_back(folded->getResult(0));
    }
    return next;
  };

  SmallVector<Value> inits;
  for (const Combiner &c : *combiners) {
    auto t = cast<FloatType>(c.value.getType());
    inits.push_back(arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(vecOf(t), identityOf(c.op, t))));
  }
  int64_t full = n / w * w;
  SmallVector<Value> accs = inits;
  if (full > 0) {
    auto loop = scf::ForOp::create(rewriter, loc, indexConst(rewriter, loc, 0),
                                   indexConst(rewriter, loc, full), indexConst(rewriter, loc, w),
                                   inits, [&](OpBuilder &b, Location l, Value j, ValueRange iter) {
                                     scf::YieldOp::create(b, l, step(b, j, iter, Value()));
                                   });
    accs = loop.getResults();
    if (loops.empty())
      loops.push_back(loop);
  }
  if (full < n) {
    Value mask =
        vector::CreateMaskOp::create(rewriter, loc, VectorType::get({w}, rewriter.getI1Type()),
                                     ValueRange{indexConst(rewriter, loc, n - full)});
    accs = step(rewriter, indexConst(rewriter, loc, full), accs, mask);
  }
  for (auto [k, c] : llvm::enumerate(*combiners)) {
    OpOperand *init = op.getDpsInitOperand(k);
    SmallVector<Value> idx = indicesOf(rewriter, loc, op.getMatchingIndexingMap(init), ivs);
    Value old = memref::LoadOp::create(rewriter, loc, init->get(), idx);
    Value r = combineLanes(rewriter, loc, c.op, accs[k]);
    IRMapping cm;
    BlockArgument acc = op.getMatchingBlockArgument(init);
    cm.map(c.op->getOperand(0), c.op->getOperand(0) == acc ? old : r);
    cm.map(c.op->getOperand(1), c.op->getOperand(1) == acc ? old : r);
    Value result = rewriter.clone(*c.op, cm)->getResult(0);
    memref::StoreOp::create(rewriter, loc, result, init->get(), idx);
  }
  rewriter.eraseOp(op);
  return loops;
}

} // namespace mlir::strata
