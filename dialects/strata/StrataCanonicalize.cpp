// Folders and canonicalization patterns of the strata dialect.
//
// Only rewrites that are exact: the algebraic identities hold bit for bit in IEEE arithmetic
// (x * 1, x - (+0), x + (-0); never x + (+0), which turns -0 into +0), and constants fold with
// the semantics of libstrata (round to nearest even, integers wrap, float to integer truncates,
// saturates and maps NaN to 0). Constants are `arith.constant`; only splats and small tensors
// fold, so folding never copies large data.
#include "dialects/strata/StrataOps.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/BitVector.h"

using namespace mlir;
using namespace mlir::strata;

namespace {

/// Non-splat constants with more elements than this are left alone.
constexpr int64_t kMaxFoldElements = 16;

/// The element types whose constants fold: those arith.constant holds and libstrata has.
bool isFoldableElementType(Type t) {
  return t.isF32() || t.isF64() || t.isSignlessInteger(32) || t.isSignlessInteger(64);
}

/// `attr` as a dense constant of `type` that is small enough to fold, or null.
DenseElementsAttr smallConstant(Attribute attr, Type type) {
  auto dense = dyn_cast_if_present<DenseElementsAttr>(attr);
  if (!dense || dense.getType() != type || !isFoldableElementType(dense.getElementType()))
    return {};
  if (!dense.isSplat() && dense.getNumElements() > kMaxFoldElements)
    return {};
  return dense;
}

/// Whether `attr` is a splat whose every element satisfies the float or integer predicate.
template <typename FloatPred, typename IntPred>
bool isSplatWhere(Attribute attr, FloatPred floatPred, IntPred intPred) {
  auto splat = dyn_cast_if_present<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  Type element = splat.getElementType();
  if (isa<FloatType>(element))
    return floatPred(splat.getSplatValue<APFloat>());
  if (isa<IntegerType>(element))
    return intPred(splat.getSplatValue<APInt>());
  return false;
}

/// Applies an elementwise function to small constants of one type; null when one is not.
template <typename FloatFn, typename IntFn>
Attribute foldElementwise(ArrayRef<Attribute> operands, Type type, FloatFn floatFn, IntFn intFn) {
  SmallVector<DenseElementsAttr> dense;
  bool allSplat = true;
  for (Attribute operand : operands) {
    dense.push_back(smallConstant(operand, type));
    if (!dense.back())
      return {};
    allSplat &= dense.back().isSplat();
  }
  auto shaped = cast<ShapedType>(type);
  int64_t count = allSplat ? 1 : shaped.getNumElements();
  if (isa<FloatType>(shaped.getElementType())) {
    SmallVector<APFloat> out;
    for (int64_t i = 0; i < count; ++i) {
      SmallVector<APFloat> args;
      for (DenseElementsAttr d : dense)
        args.push_back(d.isSplat() ? d.getSplatValue<APFloat>() : d.getValues<APFloat>()[i]);
      out.push_back(floatFn(args));
    }
    return DenseElementsAttr::get(shaped, out);
  }
  SmallVector<APInt> out;
  for (int64_t i = 0; i < count; ++i) {
    SmallVector<APInt> args;
    for (DenseElementsAttr d : dense)
      args.push_back(d.isSplat() ? d.getSplatValue<APInt>() : d.getValues<APInt>()[i]);
    out.push_back(intFn(args));
  }
  return DenseElementsAttr::get(shaped, out);
}

/// A binary IEEE operation on APFloat, rounding to nearest even as the hardware does.
template <APFloat::opStatus (APFloat::*Op)(const APFloat &, APFloat::roundingMode)>
APFloat floatBinary(ArrayRef<APFloat> args) {
  APFloat result = args[0];
  (result.*Op)(args[1], APFloat::rmNearestTiesToEven);
  return result;
}

/// libstrata's float to integer conversion: truncate toward zero, saturate, NaN to 0.
APInt floatToInt(const APFloat &value, unsigned width) {
  if (value.isNaN())
    return APInt::getZero(width);
  APSInt result(width, /*isUnsigned=*/false);
  bool exact = false;
  if (value.convertToInteger(result, APFloat::rmTowardZero, &exact) == APFloat::opInvalidOp)
    return value.isNegative() ? APInt::getSignedMinValue(width) : APInt::getSignedMaxValue(width);
  return result;
}

/// Folds a convert of one small constant from its element type to `type`'s.
Attribute foldConvert(Attribute operand, Type operandType, Type type) {
  DenseElementsAttr dense = smallConstant(operand, operandType);
  auto shaped = cast<ShapedType>(type);
  Type to = shaped.getElementType();
  if (!dense || !isFoldableElementType(to) || !shaped.hasStaticShape())
    return {};
  Type from = dense.getElementType();
  int64_t count = dense.isSplat() ? 1 : shaped.getNumElements();
  auto floatAt = [&](int64_t i) {
    return dense.isSplat() ? dense.getSplatValue<APFloat>() : dense.getValues<APFloat>()[i];
  };
  auto intAt = [&](int64_t i) {
    return dense.isSplat() ? dense.getSplatValue<APInt>() : dense.getValues<APInt>()[i];
  };
  if (auto toFloat = dyn_cast<FloatType>(to)) {
    SmallVector<APFloat> out;
    for (int64_t i = 0; i < count; ++i) {
      APFloat value(toFloat.getFloatSemantics());
      if (isa<FloatType>(from)) {
        value = floatAt(i);
        bool losesInfo = false;
        value.convert(toFloat.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
      } else {
        value.convertFromAPInt(intAt(i), /*IsSigned=*/true, APFloat::rmNearestTiesToEven);
      }
      out.push_back(value);
    }
    return DenseElementsAttr::get(shaped, out);
  }
  unsigned width = to.getIntOrFloatBitWidth();
  SmallVector<APInt> out;
  for (int64_t i = 0; i < count; ++i)
    out.push_back(isa<FloatType>(from) ? floatToInt(floatAt(i), width)
                                       : intAt(i).sextOrTrunc(width)); // integers wrap
  return DenseElementsAttr::get(shaped, out);
}

/// A small or splat constant of `type` holding the elements of `operand` in the same order.
Attribute foldReshapeConstant(Attribute operand, Type operandType, Type type) {
  DenseElementsAttr dense = smallConstant(operand, operandType);
  if (!dense || !cast<ShapedType>(type).hasStaticShape())
    return {};
  return dense.reshape(cast<ShapedType>(type));
}

bool isIdentity(ArrayRef<int64_t> dims) {
  for (auto [i, d] : llvm::enumerate(dims))
    if (d != static_cast<int64_t>(i))
      return false;
  return true;
}

} // namespace

//===----------------------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------------------===//

Operation *StrataDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type,
                                              Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

//===----------------------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  // -(-x) = x exactly: negation only flips the sign bit (integers: wraps both ways).
  // A folded value must keep the result's type (it may be less static than the operand's).
  if (auto inner = getOperand().getDefiningOp<NegOp>())
    if (inner.getOperand().getType() == getType())
      return inner.getOperand();
  return foldElementwise(
      {adaptor.getOperand()}, getType(),
      [](ArrayRef<APFloat> a) {
        APFloat result = a[0];
        result.changeSign();
        return result;
      },
      [](ArrayRef<APInt> a) { return -a[0]; });
}

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getOperand().getDefiningOp<NotOp>())
    if (inner.getOperand().getType() == getType())
      return inner.getOperand();
  return {};
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  // x + (-0) = x for every float x, and x + 0 = x for integers; x + (+0) is not x for x = -0.
  auto isAdditiveIdentity = [](Attribute a) {
    return isSplatWhere(
        a, [](const APFloat &f) { return f.isNegZero(); },
        [](const APInt &i) { return i.isZero(); });
  };
  if (getType() == getLhs().getType() && isAdditiveIdentity(adaptor.getRhs()))
    return getLhs();
  if (getType() == getRhs().getType() && isAdditiveIdentity(adaptor.getLhs()))
    return getRhs();
  return foldElementwise({adaptor.getLhs(), adaptor.getRhs()}, getType(),
                         floatBinary<&APFloat::add>, [](ArrayRef<APInt> a) { return a[0] + a[1]; });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  // x - (+0) = x for every float x (and -0 - +0 = -0); x - (-0) is not x for x = -0.
  if (getType() == getLhs().getType() &&
      isSplatWhere(
          adaptor.getRhs(), [](const APFloat &f) { return f.isPosZero(); },
          [](const APInt &i) { return i.isZero(); }))
    return getLhs();
  return foldElementwise({adaptor.getLhs(), adaptor.getRhs()}, getType(),
                         floatBinary<&APFloat::subtract>,
                         [](ArrayRef<APInt> a) { return a[0] - a[1]; });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  // x * 1 = x exactly, NaN, infinities and signed zeros included.
  auto isOne = [](Attribute a) {
    return isSplatWhere(
        a, [](const APFloat &f) { return f.isExactlyValue(1.0); },
        [](const APInt &i) { return i.isOne(); });
  };
  if (getType() == getLhs().getType() && isOne(adaptor.getRhs()))
    return getLhs();
  if (getType() == getRhs().getType() && isOne(adaptor.getLhs()))
    return getRhs();
  return foldElementwise({adaptor.getLhs(), adaptor.getRhs()}, getType(),
                         floatBinary<&APFloat::multiply>,
                         [](ArrayRef<APInt> a) { return a[0] * a[1]; });
}

OpFoldResult ConvertElementTypeOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return foldConvert(adaptor.getOperand(), getOperand().getType(), getType());
}

//===----------------------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------------------===//

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  // reshape(reshape(x)) = reshape(x): row-major order is kept by both.
  if (auto inner = getOperand().getDefiningOp<ReshapeOp>()) {
    if (inner.getOperand().getType() == getType())
      return inner.getOperand();
    getOperandMutable().assign(inner.getOperand());
    return getResult();
  }
  return foldReshapeConstant(adaptor.getOperand(), getOperand().getType(), getType());
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  if (isIdentity(getPermutation()) && getOperand().getType() == getType())
    return getOperand();
  // Result dim i of the outer transpose is dim inner[outer[i]] of the inner one's operand.
  if (auto inner = getOperand().getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> innerPerm = inner.getPermutation(), outerPerm = getPermutation();
    if (innerPerm.size() != outerPerm.size())
      return {};
    SmallVector<int64_t> composed;
    for (int64_t d : outerPerm)
      composed.push_back(innerPerm[d]);
    if (isIdentity(composed) && inner.getOperand().getType() == getType())
      return inner.getOperand();
    getOperandMutable().assign(inner.getOperand());
    setPermutation(composed);
    return getResult();
  }
  return {};
}

OpFoldResult BroadcastInDimOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType() && isIdentity(getBroadcastDimensions()))
    return getOperand();
  // Operand dim i goes to middle dim inner[i], which goes to result dim outer[inner[i]].
  if (auto inner = getOperand().getDefiningOp<BroadcastInDimOp>()) {
    ArrayRef<int64_t> innerDims = inner.getBroadcastDimensions(),
                      outerDims = getBroadcastDimensions();
    SmallVector<int64_t> composed;
    for (int64_t d : innerDims) {
      if (d < 0 || d >= static_cast<int64_t>(outerDims.size()))
        return {};
      composed.push_back(outerDims[d]);
    }
    getOperandMutable().assign(inner.getOperand());
    setBroadcastDimensions(composed);
    return getResult();
  }
  // A splat stays a splat of the larger shape.
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getOperand()))
    if (isFoldableElementType(splat.getElementType()) && cast<ShapedType>(getType()).hasStaticShape())
      return SplatElementsAttr::get(cast<ShapedType>(getType()), splat.getSplatValue<Attribute>());
  return {};
}

namespace {

/// A transpose that moves only size-1 dimensions keeps row-major order: it is a reshape.
struct TransposeOfUnitDimsToReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getOperand().getType());
    int64_t last = -1;
    for (int64_t d : op.getPermutation()) {
      if (d < 0 || d >= type.getRank())
        return failure();
      if (type.getDimSize(d) == 1)
        continue;
      if (d < last)
        return failure();
      last = d;
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getOperand());
    return success();
  }
};

/// A broadcast that only inserts size-1 dimensions copies no element: it is a reshape.
struct BroadcastOfUnitDimsToReshape : OpRewritePattern<BroadcastInDimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastInDimOp op, PatternRewriter &rewriter) const override {
    auto from = cast<RankedTensorType>(op.getOperand().getType());
    auto to = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> dims = op.getBroadcastDimensions();
    if (static_cast<int64_t>(dims.size()) != from.getRank())
      return failure();
    SmallVector<bool> mapped(to.getRank(), false);
    for (auto [i, d] : llvm::enumerate(dims)) {
      if (d < 0 || d >= to.getRank() || from.getDimSize(i) != to.getDimSize(d))
        return failure();
      mapped[d] = true;
    }
    for (int64_t j = 0; j < to.getRank(); ++j)
      if (!mapped[j] && to.getDimSize(j) != 1)
        return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getOperand());
    return success();
  }
};

} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<TransposeOfUnitDimsToReshape>(context);
}

void BroadcastInDimOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                   MLIRContext *context) {
  results.add<BroadcastOfUnitDimsToReshape>(context);
}

//===----------------------------------------------------------------------------------===//
// Control flow: constant conditions, dead carries, loop invariants
//===----------------------------------------------------------------------------------===//

namespace {

YieldOp yieldOf(Region &region) { return cast<YieldOp>(region.front().getTerminator()); }

/// Replaces `op` by the ops of `region`'s block, inlined in front of it, and its yield's values.
void inlineRegion(PatternRewriter &rewriter, Operation *op, Region &region) {
  Block &block = region.front();
  YieldOp yield = yieldOf(region);
  SmallVector<Value> values(yield.getValues());
  rewriter.eraseOp(yield);
  rewriter.inlineBlockBefore(&block, op);
  rewriter.replaceOp(op, values);
}

/// cond with a constant index (or a single branch) => the chosen branch, inlined.
struct InlineConstantCond : OpRewritePattern<CondOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CondOp op, PatternRewriter &rewriter) const override {
    int64_t n = op.getBranches().size();
    int64_t k = 0;
    if (n > 1) {
      DenseIntElementsAttr index;
      if (!matchPattern(op.getIndex(), m_Constant(&index)))
        return failure();
      k = std::clamp<int64_t>((*index.begin()).getSExtValue(), 0, n - 1);
    }
    inlineRegion(rewriter, op, op.getBranches()[k]);
    return success();
  }
};

/// Results nothing reads are no longer yielded by any branch.
struct DropUnusedCondResults : OpRewritePattern<CondOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CondOp op, PatternRewriter &rewriter) const override {
    SmallVector<unsigned> kept;
    for (OpResult r : op.getResults())
      if (!r.use_empty())
        kept.push_back(r.getResultNumber());
    if (kept.size() == op.getNumResults())
      return failure();
    SmallVector<Type> types;
    for (unsigned i : kept)
      types.push_back(op.getResult(i).getType());
    auto now = CondOp::create(rewriter, op.getLoc(), types, op.getIndex(),
                              op.getBranches().size());
    for (auto [from, to] : llvm::zip(op.getBranches(), now.getBranches())) {
      rewriter.inlineRegionBefore(from, to, to.end());
      YieldOp yield = yieldOf(to);
      SmallVector<Value> values;
      for (unsigned i : kept)
        values.push_back(yield.getValues()[i]);
      rewriter.modifyOpInPlace(yield, [&] { yield.getValuesMutable().assign(values); });
    }
    SmallVector<Value> results(op.getNumResults());
    for (auto [j, i] : llvm::enumerate(kept))
      results[i] = now.getResult(j);
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// while whose condition is the constant false => its inits.
struct FoldFalseWhile : OpRewritePattern<WhileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WhileOp op, PatternRewriter &rewriter) const override {
    DenseIntElementsAttr p;
    if (!matchPattern(yieldOf(op.getCond()).getValues()[0], m_Constant(&p)) ||
        !p.getSplatValue<APInt>().isZero())
      return failure();
    rewriter.replaceOp(op, op.getInits());
    return success();
  }
};

/// Whether block argument `arg` is read only by `yield` at position `pos` (passed on unchanged),
/// or not at all.
bool onlyPassedOn(BlockArgument arg, YieldOp yield, unsigned pos) {
  return llvm::all_of(arg.getUses(), [&](OpOperand &use) {
    return use.getOwner() == yield.getOperation() && use.getOperandNumber() == pos;
  });
}

/// Moves the regions of `from` into `to` (same region count), then drops the block arguments
/// at `deadArgs` and the yield operands at `deadYields` of region `r` (both per region).
void moveRegionsDropping(PatternRewriter &rewriter, Operation *from, Operation *to,
                         ArrayRef<llvm::BitVector> deadArgs,
                         ArrayRef<llvm::BitVector> deadYields) {
  for (unsigned r = 0; r < from->getNumRegions(); ++r) {
    Region &dst = to->getRegion(r);
    rewriter.inlineRegionBefore(from->getRegion(r), dst, dst.end());
    YieldOp yield = yieldOf(dst);
    SmallVector<Value> values;
    for (auto [i, v] : llvm::enumerate(yield.getValues()))
      if (!deadYields[r].test(i))
        values.push_back(v);
    rewriter.modifyOpInPlace(yield, [&] { yield.getValuesMutable().assign(values); });
    dst.front().eraseArguments(deadArgs[r]);
  }
}

/// A carry whose result is unused and which neither region reads (other than the body passing
/// it on) is dropped.
struct DropDeadWhileCarries : OpRewritePattern<WhileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WhileOp op, PatternRewriter &rewriter) const override {
    unsigned n = op.getInits().size();
    Block &cond = op.getCond().front(), &body = op.getBody().front();
    YieldOp bodyYield = yieldOf(op.getBody());
    llvm::BitVector dead(n);
    for (unsigned i = 0; i < n; ++i)
      dead[i] = op.getResult(i).use_empty() && cond.getArgument(i).use_empty() &&
                onlyPassedOn(body.getArgument(i), bodyYield, i);
    if (dead.none())
      return failure();
    SmallVector<Value> inits;
    for (unsigned i = 0; i < n; ++i)
      if (!dead[i])
        inits.push_back(op.getInits()[i]);
    auto now = WhileOp::create(rewriter, op.getLoc(), ValueRange(inits).getTypes(), inits);
    llvm::BitVector none(1);
    moveRegionsDropping(rewriter, op, now, {dead, dead}, {none, dead});
    SmallVector<Value> results(n);
    for (unsigned i = 0, j = 0; i < n; ++i)
      if (!dead[i])
        results[i] = now.getResult(j++);
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Unused carries (as for while), unused ys and xs the body does not read are dropped.
struct DropDeadScanValues : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScanOp op, PatternRewriter &rewriter) const override {
    unsigned nc = op.getInits().size(), nx = op.getXs().size();
    unsigned ny = op.getNumResults() - nc;
    Block &body = op.getBody().front();
    YieldOp yield = yieldOf(op.getBody());
    llvm::BitVector deadArgs(nc + nx), deadYields(nc + ny);
    for (unsigned i = 0; i < nc; ++i)
      deadArgs[i] = deadYields[i] =
          op.getResult(i).use_empty() && onlyPassedOn(body.getArgument(i), yield, i);
    for (unsigned j = 0; j < nx; ++j)
      deadArgs[nc + j] = body.getArgument(nc + j).use_empty();
    for (unsigned j = 0; j < ny; ++j)
      deadYields[nc + j] = op.getResult(nc + j).use_empty();
    if (deadArgs.none() && deadYields.none())
      return failure();
    SmallVector<Value> inits, xs;
    SmallVector<Type> types;
    for (unsigned i = 0; i < nc; ++i)
      if (!deadArgs[i])
        inits.push_back(op.getInits()[i]);
    for (unsigned j = 0; j < nx; ++j)
      if (!deadArgs[nc + j])
        xs.push_back(op.getXs()[j]);
    for (unsigned i = 0; i < nc + ny; ++i)
      if (!deadYields[i])
        types.push_back(op.getResult(i).getType());
    auto now = ScanOp::create(rewriter, op.getLoc(), types, inits, xs, op.getLength(),
                              op.getReverse());
    moveRegionsDropping(rewriter, op, now, {deadArgs}, {deadYields});
    SmallVector<Value> results(nc + ny);
    for (unsigned i = 0, j = 0; i < nc + ny; ++i)
      if (!deadYields[i])
        results[i] = now.getResult(j++);
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Pure ops of a loop's regions that read nothing defined inside the loop move in front of it.
/// Ops with regions stay (a nested loop is not hoisted whole), and cond's branches are not
/// loops: hoisting out of them would run a branch's work unconditionally.
template <class LoopOp> struct HoistLoopInvariants : OpRewritePattern<LoopOp> {
  using OpRewritePattern<LoopOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(LoopOp op, PatternRewriter &rewriter) const override {
    Operation *loop = op.getOperation();
    auto definedOutside = [&](Value v) {
      return !loop->isAncestor(v.getParentRegion()->getParentOp());
    };
    bool changed = false;
    for (Region &region : loop->getRegions())
      for (Operation &inner : llvm::make_early_inc_range(region.front().without_terminator())) {
        if (inner.getNumRegions() != 0 || !isPure(&inner) ||
            !llvm::all_of(inner.getOperands(), definedOutside))
          continue;
        rewriter.moveOpBefore(&inner, loop);
        changed = true;
      }
    return success(changed);
  }
};

} // namespace

void CondOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<InlineConstantCond, DropUnusedCondResults>(context);
}

void WhileOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<FoldFalseWhile, DropDeadWhileCarries, HoistLoopInvariants<WhileOp>>(context);
}

void ScanOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<DropDeadScanValues, HoistLoopInvariants<ScanOp>>(context);
}
