// strata-lower-control-flow: strata.cond/while/scan => scf.if/index_switch, scf.while, scf.for,
// with each loop's next carries written into the buffers of its current ones.
#include "transforms/Passes.h"
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATALOWERCONTROLFLOW
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;
using namespace mlir::strata::lowering;
namespace st = mlir::strata;

namespace {

/// Moves `from`'s block into the empty region `to` and replaces its strata.yield by what
/// `terminate` builds in front of it from the yielded values.
void moveRegion(IRRewriter &rewriter, Region &from, Region &to,
                function_ref<void(OpBuilder &, Location, ValueRange)> terminate) {
  rewriter.inlineRegionBefore(from, to, to.end());
  auto yield = cast<st::YieldOp>(to.front().getTerminator());
  rewriter.setInsertionPoint(yield);
  terminate(rewriter, yield.getLoc(), yield.getValues());
  rewriter.eraseOp(yield);
}

auto scfYield = [](OpBuilder &b, Location loc, ValueRange values) {
  scf::YieldOp::create(b, loc, values);
};

/// When the next value of a carry is an elementwise generic that reads the current carry only
/// at the element it writes (`x * 0.99 + 0.01`), makes the carry that generic's destination:
/// bufferized, it updates the carry's buffer in place (one pass, no temporary, no copy).
/// Needs: `next` used only by the yield being replaced, one result, all-parallel loops, an init the
/// body does not read, and every use of `carry` an input of the generic with the output's indexing
/// map.
bool writeIntoCarry(Value next, Value carry) {
  auto op = next.getDefiningOp<linalg::GenericOp>();
  // The strata.yield being replaced may still use it.
  bool onlyYielded =
      llvm::all_of(next.getUsers(), [](Operation *u) { return isa<st::YieldOp>(u); });
  if (!op || !onlyYielded || op->getNumResults() != 1 || next.getType() != carry.getType() ||
      op.getNumParallelLoops() != op.getNumLoops())
    return false;
  OpOperand &init = op.getDpsInitsMutable()[0];
  if (op.payloadUsesValueFromOperand(&init))
    return false;
  AffineMap outMap = op.getMatchingIndexingMap(&init);
  if (!outMap.isPermutation())
    return false;
  for (OpOperand &use : carry.getUses())
    if (use.getOwner() != op.getOperation() || !op.isDpsInput(&use) ||
        op.getMatchingIndexingMap(&use) != outMap)
      return false;
  init.set(carry);
  return true;
}

/// The next carries of a loop written into the buffers of the current ones (`iterArgs`), so
/// that one-shot bufferization finds each yielded value equivalent to its block argument and
/// keeps one buffer per carry for the whole loop (otherwise it allocates and copies a new one
/// every iteration and tracks its ownership at run time).
/// These copies come last in the body, after every read of the current carries; a next value
/// that may alias a carry (a carry itself, as when two carries swap, or a view of one) is
/// first copied to a fresh tensor, since an in-place copy could overwrite it before it is read.
SmallVector<Value> inPlaceCarries(OpBuilder &b, Location loc, ValueRange next,
                                  ValueRange iterArgs) {
  Region *body = iterArgs.empty() ? nullptr : cast<BlockArgument>(iterArgs[0]).getParentRegion();
  SmallVector<Value> staged(next);
  for (auto [v, arg] : llvm::zip(staged, iterArgs)) {
    Operation *def = v.getDefiningOp();
    bool fresh = def && isa<linalg::LinalgOp>(def) && body->isAncestor(def->getParentRegion());
    if (v != arg && !fresh && body->isAncestor(v.getParentRegion()))
      v = linalg::CopyOp::create(b, loc, v, makeInit(b, loc, tensorOf(v))).getResult(0);
  }
  SmallVector<Value> out;
  for (auto [v, arg] : llvm::zip(staged, iterArgs)) {
    if (v == arg)
      out.push_back(v);
    else if (writeIntoCarry(v, arg))
      out.push_back(v);
    else
      out.push_back(linalg::CopyOp::create(b, loc, v, arg).getResult(0));
  }
  return out;
}

/// cond => scf.if (two branches: index > 0 takes branch 1, as the clamp does) or
/// scf.index_switch on the clamped index (the last branch is the default).
void lowerCond(IRRewriter &rewriter, st::CondOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  int64_t n = op.getBranches().size();
  if (n == 1) {
    Block &block = op.getBranches()[0].front();
    auto yield = cast<st::YieldOp>(block.getTerminator());
    SmallVector<Value> values(yield.getValues());
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&block, op);
    rewriter.replaceOp(op, values);
    return;
  }
  Value index = tensor::ExtractOp::create(rewriter, loc, op.getIndex(), ValueRange{});
  Type i32 = rewriter.getI32Type();
  auto c = [&](int64_t v) { return arith::ConstantIntOp::create(rewriter, loc, i32, v); };
  if (n == 2) {
    Value pred = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt, index, c(0));
    auto ifOp = scf::IfOp::create(rewriter, loc, op.getResultTypes(), pred,
                                  /*addThenBlock=*/false, /*addElseBlock=*/false);
    moveRegion(rewriter, op.getBranches()[1], ifOp.getThenRegion(), scfYield);
    moveRegion(rewriter, op.getBranches()[0], ifOp.getElseRegion(), scfYield);
    rewriter.replaceOp(op, ifOp.getResults());
    return;
  }
  Value clamped = arith::MaxSIOp::create(
      rewriter, loc, arith::MinSIOp::create(rewriter, loc, index, c(n - 1)), c(0));
  Value k = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), clamped);
  SmallVector<int64_t> cases(n - 1);
  std::iota(cases.begin(), cases.end(), 0);
  auto sw = scf::IndexSwitchOp::create(rewriter, loc, op.getResultTypes(), k, cases, n - 1);
  for (int64_t i = 0; i + 1 < n; ++i)
    moveRegion(rewriter, op.getBranches()[i], sw.getCaseRegions()[i], scfYield);
  moveRegion(rewriter, op.getBranches()[n - 1], sw.getDefaultRegion(), scfYield);
  rewriter.replaceOp(op, sw.getResults());
}

/// while => scf.while: the cond region becomes `before` (its i1 tensor read as a scalar for
/// scf.condition, which forwards the carries), the body `after`.
void lowerWhile(IRRewriter &rewriter, st::WhileOp op) {
  rewriter.setInsertionPoint(op);
  auto loop = scf::WhileOp::create(rewriter, op.getLoc(), op.getResultTypes(), op.getInits());
  Block *before = &op.getCond().front();
  moveRegion(rewriter, op.getCond(), loop.getBefore(),
             [&](OpBuilder &b, Location loc, ValueRange values) {
               Value p = tensor::ExtractOp::create(b, loc, values[0], ValueRange{});
               scf::ConditionOp::create(b, loc, p, before->getArguments());
             });
  Block *after = &op.getBody().front();
  moveRegion(rewriter, op.getBody(), loop.getAfter(),
             [&](OpBuilder &b, Location loc, ValueRange values) {
               scf::YieldOp::create(b, loc, inPlaceCarries(b, loc, values, after->getArguments()));
             });
  rewriter.replaceOp(op, loop.getResults());
}

/// scan => scf.for over the steps, carrying the carries and the stacked ys: step i works on
/// slice t = i (or length - 1 - i in reverse) of each xs (a rank-reducing extract_slice) and
/// writes slice t of each ys (insert_slice into the carried tensor, in place once bufferized).
void lowerScan(IRRewriter &rewriter, st::ScanOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  int64_t length = op.getLength();
  SmallVector<Value> inits(op.getInits());
  for (Value y : op.getYsResults())
    inits.push_back(makeInit(rewriter, loc, tensorOf(y)));
  if (length == 0) { // no step runs: the inits and empty ys
    rewriter.replaceOp(op, inits);
    return;
  }
  auto loop =
      scf::ForOp::create(rewriter, loc, indexConst(rewriter, loc, 0),
                         indexConst(rewriter, loc, length), indexConst(rewriter, loc, 1), inits);
  Block *body = loop.getBody();
  rewriter.setInsertionPointToStart(body);
  Value t = loop.getInductionVar();
  if (op.getReverse())
    t = arith::SubIOp::create(rewriter, loc, indexConst(rewriter, loc, length - 1), t);
  // The offsets, sizes and strides of slice t of a tensor of `type`.
  auto sliceAt = [&](RankedTensorType type, SmallVector<OpFoldResult> &offsets,
                     SmallVector<OpFoldResult> &sizes, SmallVector<OpFoldResult> &strides) {
    offsets.assign(type.getRank(), rewriter.getIndexAttr(0));
    offsets[0] = t;
    sizes.clear();
    sizes.push_back(rewriter.getIndexAttr(1));
    for (int64_t d : type.getShape().drop_front())
      sizes.push_back(rewriter.getIndexAttr(d));
    strides.assign(type.getRank(), rewriter.getIndexAttr(1));
  };
  size_t nc = op.getInits().size();
  SmallVector<Value> args(loop.getRegionIterArgs().take_front(nc));
  for (Value x : op.getXs()) {
    auto type = tensorOf(x);
    SmallVector<OpFoldResult> offsets, sizes, strides;
    sliceAt(type, offsets, sizes, strides);
    auto sliceType = RankedTensorType::get(type.getShape().drop_front(), type.getElementType());
    args.push_back(
        tensor::ExtractSliceOp::create(rewriter, loc, sliceType, x, offsets, sizes, strides));
  }
  Block &scanBody = op.getBody().front();
  auto yield = cast<st::YieldOp>(scanBody.getTerminator());
  rewriter.inlineBlockBefore(&scanBody, body, body->end(), args);
  rewriter.setInsertionPoint(yield);
  // The ys first: they may read the current carries, which the carry copies overwrite.
  SmallVector<Value> ys;
  for (auto [y, acc] :
       llvm::zip(yield.getValues().drop_front(nc), loop.getRegionIterArgs().drop_front(nc))) {
    SmallVector<OpFoldResult> offsets, sizes, strides;
    sliceAt(tensorOf(acc), offsets, sizes, strides);
    ys.push_back(tensor::InsertSliceOp::create(rewriter, loc, y, acc, offsets, sizes, strides));
  }
  SmallVector<Value> next = inPlaceCarries(rewriter, loc, yield.getValues().take_front(nc),
                                           loop.getRegionIterArgs().take_front(nc));
  next.append(ys);
  scf::YieldOp::create(rewriter, yield.getLoc(), next);
  rewriter.eraseOp(yield);
  rewriter.replaceOp(op, loop.getResults());
}

/// Lowers every control-flow op under `root`, innermost first (their regions' strata ops are
/// already lowered).
void lowerControlFlow(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<st::CondOp, st::WhileOp, st::ScanOp>(op))
      ops.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  for (Operation *op : ops)
    TypeSwitch<Operation *>(op)
        .Case([&](st::CondOp c) { lowerCond(rewriter, c); })
        .Case([&](st::WhileOp w) { lowerWhile(rewriter, w); })
        .Case([&](st::ScanOp s) { lowerScan(rewriter, s); });
}

struct StrataLowerControlFlowPass
    : st::impl::StrataLowerControlFlowBase<StrataLowerControlFlowPass> {
  void runOnOperation() override { lowerControlFlow(getOperation()); }
};

} // namespace
