// Folders and canonicalization patterns of the strata dialect.
//
// Only rewrites that are exact: the algebraic identities hold bit for bit in IEEE arithmetic
// (x * 1, x - (+0), x + (-0); never x + (+0), which turns -0 into +0), and constants fold with
// libstrata's own reference implementation of the primitive (round to nearest even, integers
// wrap, float to integer truncates, saturates and maps NaN to 0). Constants are `arith.constant`;
// only splats and small tensors fold, so folding never copies large data.
#include "dialects/strata/StrataOps.h"
#include "dialects/strata/StrataVerify.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/BitVector.h"

#include "strata/array.h"
#include "strata/primitive.h"

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

/// The elements of `dense` as a host array of `shape` (a splat repeated to fill it).
template <typename T>
::strata::Array toArray(DenseElementsAttr dense, const ::strata::Shape &shape) {
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  std::vector<T> values;
  if (dense.isSplat())
    values.assign(static_cast<size_t>(count), dense.getSplatValue<T>());
  else
    values.assign(dense.getValues<T>().begin(), dense.getValues<T>().end());
  return ::strata::Array::from_vector(values, shape);
}

/// `array`'s elements as a constant of `type`: a splat when `array` has one element.
template <typename T> Attribute toConstant(const ::strata::Array &array, ShapedType type) {
  std::vector<T> values = array.to_vector<T>();
  if (values.size() == 1)
    return DenseElementsAttr::get(type, values[0]);
  return DenseElementsAttr::get(type, ArrayRef<T>(values));
}

/// `f.template operator()<T>()` with T the C++ type of foldable element type `t`.
template <typename F> auto withElementType(Type t, F &&f) {
  if (t.isF32())
    return f.template operator()<float>();
  if (t.isF64())
    return f.template operator()<double>();
  if (t.isSignlessInteger(32))
    return f.template operator()<int32_t>();
  return f.template operator()<int64_t>();
}

/// Folds elementwise `op` on small constant operands by running its primitive's reference
/// implementation (libstrata's eager kernel, through strata::bind) on host arrays, so that a
/// fold computes exactly what the primitive does. All-splat operands fold on one element into a
/// splat. Null when an operand is not such a constant or the primitive rejects the operands.
Attribute foldByPrimitive(Operation *op, ArrayRef<Attribute> operands) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (op->getNumResults() != 1 || !type || !type.hasStaticShape() ||
      !isFoldableElementType(type.getElementType()) || !op->hasTrait<traits::Elementwise>())
    return {};
  SmallVector<DenseElementsAttr> dense;
  bool allSplat = true;
  for (auto [attr, operand] : llvm::zip_equal(operands, op->getOperands())) {
    dense.push_back(smallConstant(attr, operand.getType()));
    if (!dense.back() || cast<ShapedType>(operand.getType()).getShape() != type.getShape())
      return {};
    allSplat &= dense.back().isSplat();
  }
  StringRef name = cast<PrimitiveOpInterface>(op).getPrimitiveName();
  const ::strata::Primitive *prim = ::strata::find_primitive({name.data(), name.size()});
  FailureOr<::strata::Params> params = primitiveParams(op);
  if (!prim || failed(params))
    return {};
  // Elementwise: every element of an all-splat fold is the one computed on a rank-0 array.
  ::strata::Shape shape = allSplat ? ::strata::Shape{} : ::strata::Shape(type.getShape());
  try {
    std::vector<::strata::Array> in;
    for (DenseElementsAttr d : dense)
      in.push_back(
          withElementType(d.getElementType(), [&]<typename T>() { return toArray<T>(d, shape); }));
    std::vector<::strata::Array> out = ::strata::bind(*prim, std::move(in), *params);
    if (out.size() != 1 || out[0].shape() != shape ||
        toDType(type.getElementType()) != out[0].dtype())
      return {};
    return withElementType(type.getElementType(),
                           [&]<typename T>() { return toConstant<T>(out[0], type); });
  } catch (...) {
    // A rejection (strata::Error) leaves the op unfolded; nothing unwinds through MLIR frames.
    return {};
  }
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
  return foldByPrimitive(*this, adaptor.getOperands());
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
  return foldByPrimitive(*this, adaptor.getOperands());
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  // x - (+0) = x for every float x (and -0 - +0 = -0); x - (-0) is not x for x = -0.
  if (getType() == getLhs().getType() &&
      isSplatWhere(
          adaptor.getRhs(), [](const APFloat &f) { return f.isPosZero(); },
          [](const APInt &i) { return i.isZero(); }))
    return getLhs();
  return foldByPrimitive(*this, adaptor.getOperands());
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
  return foldByPrimitive(*this, adaptor.getOperands());
}

OpFoldResult ConvertElementTypeOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return foldByPrimitive(*this, adaptor.getOperands());
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
    if (isFoldableElementType(splat.getElementType()) &&
        cast<ShapedType>(getType()).hasStaticShape())
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
    auto now = CondOp::create(rewriter, op.getLoc(), types, op.getIndex(), op.getBranches().size());
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
                         ArrayRef<llvm::BitVector> deadArgs, ArrayRef<llvm::BitVector> deadYields) {
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
    auto now =
        ScanOp::create(rewriter, op.getLoc(), types, inits, xs, op.getLength(), op.getReverse());
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
