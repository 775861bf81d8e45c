// strata-layout: folds strata.transpose into the dot_general and reductions that read or
// produce it, and sinks transposes through elementwise ops so that pairs meet and cancel.
//
// Every rewrite is exact: it changes which dimension of which tensor an op indexes, never the
// values it combines or the order in which it combines them (float sums and products keep the
// order of their reduced axes; contracting dimensions keep their list order). What the pass
// does and does not do is in Passes.td.
#include "dialects/strata/StrataOps.h"
#include "transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATALAYOUT
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;
using namespace mlir::strata;

namespace {

/// Whether `perm` is a permutation of [0, rank).
bool isPermutation(ArrayRef<int64_t> perm, int64_t rank) {
  if (static_cast<int64_t>(perm.size()) != rank)
    return false;
  SmallVector<bool> seen(rank, false);
  for (int64_t d : perm) {
    if (d < 0 || d >= rank || seen[d])
      return false;
    seen[d] = true;
  }
  return true;
}

bool isStrictlyIncreasing(ArrayRef<int64_t> values) {
  return llvm::all_of(llvm::seq<size_t>(1, std::max<size_t>(values.size(), 1)),
                      [&](size_t i) { return values[i - 1] < values[i]; });
}

/// The valid permutation of a transpose, or failure (the verifier normally guarantees it).
FailureOr<ArrayRef<int64_t>> permutationOf(TransposeOp t) {
  ArrayRef<int64_t> perm = t.getPermutation();
  auto type = dyn_cast<RankedTensorType>(t.getOperand().getType());
  if (!type || !isPermutation(perm, type.getRank()))
    return failure();
  return perm;
}

/// `values[i]` replaced by `perm[values[i]]`: dimension numbers of a transpose's result as
/// dimension numbers of its operand (result dim i is operand dim perm[i]).
SmallVector<int64_t> mapThrough(ArrayRef<int64_t> perm, ArrayRef<int64_t> values) {
  return llvm::map_to_vector(values, [&](int64_t d) { return perm[d]; });
}

/// Dimensions in [0, rank) that are in neither list, in increasing order.
SmallVector<int64_t> otherDims(int64_t rank, ArrayRef<int64_t> a, ArrayRef<int64_t> b = {}) {
  SmallVector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(a, d) && !llvm::is_contained(b, d))
      out.push_back(d);
  return out;
}

/// Whether dims are unique and in [0, rank).
bool areValidDims(ArrayRef<int64_t> dims, int64_t rank) {
  SmallVector<bool> seen(rank, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[d])
      return false;
    seen[d] = true;
  }
  return true;
}

/// The position of each value of `values` in its sorted order: the permutation that takes
/// sorted(values) to values.
SmallVector<int64_t> ranks(ArrayRef<int64_t> values) {
  SmallVector<int64_t> out;
  for (int64_t v : values)
    out.push_back(llvm::count_if(values, [&](int64_t w) { return w < v; }));
  return out;
}

//===----------------------------------------------------------------------------------===//
// transpose -> dot_general operand
//===----------------------------------------------------------------------------------===//

/// dot_general(transpose(x, p), y) => dot_general(x, y) with that side's batch and contracting
/// dims mapped through p, when p keeps the side's free dims in order (the result's dimension
/// order is then unchanged). Either side, or both.
struct FoldTransposeIntoDotGeneral : OpRewritePattern<DotGeneralOp> {
  using OpRewritePattern::OpRewritePattern;

  /// One side of a dot_general: its operand and dimension numbers.
  struct Side {
    Value operand;
    SmallVector<int64_t> batch, contracting;
  };

  /// The side's new operand and dimension numbers, or failure when the transpose does not fold.
  static FailureOr<Side> foldSide(Value operand, ArrayRef<int64_t> batch,
                                  ArrayRef<int64_t> contracting) {
    auto t = operand.getDefiningOp<TransposeOp>();
    if (!t)
      return failure();
    FailureOr<ArrayRef<int64_t>> perm = permutationOf(t);
    if (failed(perm))
      return failure();
    int64_t rank = perm->size();
    SmallVector<int64_t> both(batch);
    both.append(contracting.begin(), contracting.end());
    if (!areValidDims(both, rank))
      return failure();
    // The free dims appear in the result in increasing order: p must keep that order.
    if (!isStrictlyIncreasing(mapThrough(*perm, otherDims(rank, batch, contracting))))
      return failure();
    return Side{t.getOperand(), mapThrough(*perm, batch), mapThrough(*perm, contracting)};
  }

  LogicalResult matchAndRewrite(DotGeneralOp op, PatternRewriter &rewriter) const override {
    auto lhs = foldSide(op.getLhs(), op.getLhsBatch(), op.getLhsContracting());
    auto rhs = foldSide(op.getRhs(), op.getRhsBatch(), op.getRhsContracting());
    if (failed(lhs) && failed(rhs))
      return rewriter.notifyMatchFailure(op, "no operand is a transpose that keeps its free "
                                             "dims in order");
    rewriter.modifyOpInPlace(op, [&] {
      if (succeeded(lhs)) {
        op.getLhsMutable().assign(lhs->operand);
        op.setLhsBatch(lhs->batch);
        op.setLhsContracting(lhs->contracting);
      }
      if (succeeded(rhs)) {
        op.getRhsMutable().assign(rhs->operand);
        op.setRhsBatch(rhs->batch);
        op.setRhsContracting(rhs->contracting);
      }
    });
    return success();
  }
};

//===----------------------------------------------------------------------------------===//
// transpose(dot_general) -> dot_general
//===----------------------------------------------------------------------------------===//

/// transpose(dot_general(a, b), p) => dot_general with its batch pairs reordered and, when p
/// puts b's free dims before a's, its operands swapped: p must permute the batch dims among
/// themselves and keep each operand's free dims together and in order. The dot must have no
/// other user (it would be computed twice).
struct FoldTransposeOfDotGeneral : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    auto dot = op.getOperand().getDefiningOp<DotGeneralOp>();
    if (!dot || !dot->hasOneUse())
      return rewriter.notifyMatchFailure(op, "operand is not a dot_general used only here");
    FailureOr<ArrayRef<int64_t>> permOr = permutationOf(op);
    auto lhsType = dyn_cast<RankedTensorType>(dot.getLhs().getType());
    auto rhsType = dyn_cast<RankedTensorType>(dot.getRhs().getType());
    if (failed(permOr) || !lhsType || !rhsType)
      return failure();
    ArrayRef<int64_t> perm = *permOr;
    ArrayRef<int64_t> lb = dot.getLhsBatch(), rb = dot.getRhsBatch();
    ArrayRef<int64_t> lc = dot.getLhsContracting(), rc = dot.getRhsContracting();
    int64_t nb = lb.size();
    int64_t nl = lhsType.getRank() - nb - static_cast<int64_t>(lc.size());
    int64_t nr = rhsType.getRank() - nb - static_cast<int64_t>(rc.size());
    if (nb != static_cast<int64_t>(rb.size()) || nl < 0 || nr < 0 ||
        static_cast<int64_t>(perm.size()) != nb + nl + nr)
      return failure();
    // Batch dims first, in any order among themselves.
    if (!isPermutation(perm.take_front(nb), nb))
      return rewriter.notifyMatchFailure(op, "moves a batch dim after a free dim");
    // Then the free dims of one operand, then the other's, each in order.
    SmallVector<int64_t> keep = llvm::to_vector(llvm::seq<int64_t>(nb, nb + nl + nr));
    SmallVector<int64_t> swap = llvm::to_vector(llvm::seq<int64_t>(nb + nl, nb + nl + nr));
    llvm::append_range(swap, llvm::seq<int64_t>(nb, nb + nl));
    ArrayRef<int64_t> rest = perm.drop_front(nb);
    bool swapped = rest != ArrayRef<int64_t>(keep);
    if (swapped && rest != ArrayRef<int64_t>(swap))
      return rewriter.notifyMatchFailure(op, "reorders the free dims of one operand");

    SmallVector<int64_t> newLb = mapThrough(lb, perm.take_front(nb));
    SmallVector<int64_t> newRb = mapThrough(rb, perm.take_front(nb));
    Value a = dot.getLhs(), b = dot.getRhs();
    ArrayRef<int64_t> ac = lc, bc = rc;
    if (swapped) {
      std::swap(a, b);
      std::swap(newLb, newRb);
      std::swap(ac, bc);
    }
    auto fused = DotGeneralOp::create(rewriter, dot.getLoc(), op.getType(), a, b, newLb, newRb, ac,
                                      bc, dot.getPreferredElementTypeAttr());
    fused->setDiscardableAttrs(dot->getDiscardableAttrDictionary());
    rewriter.replaceOp(op, fused.getResult());
    rewriter.eraseOp(dot);
    return success();
  }
};

//===----------------------------------------------------------------------------------===//
// transpose -> reduction
//===----------------------------------------------------------------------------------===//

/// Whether reordering the reduced axes may change the result: float sums and products round
/// differently when their terms are combined in another order; max, min and integer (wrapping)
/// arithmetic do not.
template <typename OpTy> bool orderMatters(Type elementType) {
  return isa<FloatType>(elementType) &&
         (std::is_same_v<OpTy, ReduceSumOp> || std::is_same_v<OpTy, ReduceProdOp>);
}

/// The shape of `type` without the dimensions in `dropped`.
RankedTensorType dropDims(RankedTensorType type, ArrayRef<int64_t> dropped, Type elementType) {
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!llvm::is_contained(dropped, d))
      shape.push_back(type.getDimSize(d));
  return RankedTensorType::get(shape, elementType);
}

/// reduce(transpose(x, p), axes) => reduce(x, p[axes]). The kept dims come out in x's order:
/// when p keeps them in order nothing else is needed; otherwise, when the transpose has no
/// other user and the reduction makes the tensor strictly smaller, the (smaller) result is
/// transposed instead. Float sum/prod need p to keep the reduced axes in order too, so the
/// terms are combined in the same order.
template <typename OpTy> struct FoldTransposeIntoReduce : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  static SmallVector<int64_t> axesOf(OpTy op) {
    if constexpr (std::is_same_v<OpTy, ArgmaxOp> || std::is_same_v<OpTy, ArgminOp>)
      return {static_cast<int64_t>(op.getAxis())}; // stored as I64Attr; may be negative
    else
      return llvm::to_vector(op.getAxes());
  }

  static OpTy rebuild(PatternRewriter &rewriter, OpTy op, Type type, Value x,
                      ArrayRef<int64_t> axes) {
    OpTy made;
    if constexpr (std::is_same_v<OpTy, ArgmaxOp> || std::is_same_v<OpTy, ArgminOp>)
      made = OpTy::create(rewriter, op.getLoc(), type, x, axes.front());
    else
      made = OpTy::create(rewriter, op.getLoc(), type, x, axes);
    made->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    return made;
  }

  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    auto t = op.getOperand().template getDefiningOp<TransposeOp>();
    if (!t)
      return rewriter.notifyMatchFailure(op, "operand is not a transpose");
    FailureOr<ArrayRef<int64_t>> perm = permutationOf(t);
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (failed(perm) || !resultType)
      return failure();
    int64_t rank = perm->size();
    SmallVector<int64_t> axes = axesOf(op);
    for (int64_t &a : axes)
      if (a < 0)
        a += rank;
    if (!areValidDims(axes, rank))
      return failure();
    llvm::sort(axes);
    SmallVector<int64_t> newAxes = mapThrough(*perm, axes);
    if (orderMatters<OpTy>(resultType.getElementType()) && !isStrictlyIncreasing(newAxes))
      return rewriter.notifyMatchFailure(op, "float sum/prod whose reduced axes would reorder");
    SmallVector<int64_t> kept = mapThrough(*perm, otherDims(rank, axes));
    llvm::sort(newAxes);
    if (isStrictlyIncreasing(kept)) {
      rewriter.replaceOp(op, rebuild(rewriter, op, resultType, t.getOperand(), newAxes));
      return success();
    }
    auto source = cast<RankedTensorType>(t.getOperand().getType());
    if (!t->hasOneUse() || !source.hasStaticShape() || !resultType.hasStaticShape() ||
        resultType.getNumElements() >= source.getNumElements())
      return rewriter.notifyMatchFailure(op, "the kept dims would need a transpose that is "
                                             "not smaller than the one it replaces");
    RankedTensorType reducedType = dropDims(source, newAxes, resultType.getElementType());
    OpTy reduced = rebuild(rewriter, op, reducedType, t.getOperand(), newAxes);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, resultType, reduced.getResult(), ranks(kept));
    return success();
  }
};

//===----------------------------------------------------------------------------------===//
// Sinking through elementwise ops
//===----------------------------------------------------------------------------------===//

/// The bit width of an int or float element type, 0 for others.
unsigned bitWidthOf(Type type) {
  Type element = cast<ShapedType>(type).getElementType();
  return element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 0;
}

/// f(transpose(a, p), transpose(b, p), ...) => transpose(f(a, b, ...), p) for an elementwise
/// op whose operands are transposes with one permutation (read only by this op) or splat
/// constants, so that transposes move down to meet a dot_general, a reduction or another
/// transpose. Not when the result's elements are wider than the operands' (the transpose would
/// move more bytes).
struct SinkTransposeThroughElementwise : RewritePattern {
  SinkTransposeThroughElementwise(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isElementwisePrimitive(op) || op->getNumResults() != 1 || op->getNumOperands() == 0)
      return failure();
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType)
      return failure();
    std::optional<SmallVector<int64_t>> perm;
    unsigned widest = 0;
    for (Value v : op->getOperands()) {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type || type.getShape() != resultType.getShape())
        return rewriter.notifyMatchFailure(op, "an operand's shape differs from the result's");
      widest = std::max(widest, bitWidthOf(type));
      if (matchPattern(v, m_Constant()))
        continue;
      auto t = v.getDefiningOp<TransposeOp>();
      if (!t || llvm::any_of(t->getUsers(), [&](Operation *u) { return u != op; }))
        return rewriter.notifyMatchFailure(op, "an operand is not a transpose read only here");
      FailureOr<ArrayRef<int64_t>> p = permutationOf(t);
      if (failed(p) || (perm && ArrayRef<int64_t>(*perm) != *p))
        return rewriter.notifyMatchFailure(op, "the transposes differ");
      perm = llvm::to_vector(*p);
    }
    if (!perm || bitWidthOf(resultType) > widest)
      return failure();

    // Result dim i of the transpose is dim perm[i] of its operand.
    int64_t rank = resultType.getRank();
    SmallVector<int64_t> shape(rank);
    for (int64_t i = 0; i < rank; ++i)
      shape[(*perm)[i]] = resultType.getDimSize(i);
    // Check every operand before creating anything: a failed match must leave the IR as it was.
    SmallVector<RankedTensorType> sourceTypes;
    SmallVector<SplatElementsAttr> splats;
    for (Value v : op->getOperands()) {
      auto type = cast<RankedTensorType>(v.getType());
      sourceTypes.push_back(RankedTensorType::get(shape, type.getElementType()));
      SplatElementsAttr splat;
      if (auto t = v.getDefiningOp<TransposeOp>()) {
        if (t.getOperand().getType() != sourceTypes.back())
          return rewriter.notifyMatchFailure(op, "a transposed operand has another type");
      } else if (!matchPattern(v, m_Constant(&splat)) || !sourceTypes.back().hasStaticShape()) {
        return rewriter.notifyMatchFailure(op, "a constant operand is not a static splat");
      }
      splats.push_back(splat);
    }
    SmallVector<Value> operands;
    for (auto [v, sourceType, splat] : llvm::zip(op->getOperands(), sourceTypes, splats)) {
      if (!splat) {
        operands.push_back(v.getDefiningOp<TransposeOp>().getOperand());
        continue;
      }
      operands.push_back(arith::ConstantOp::create(
          rewriter, v.getLoc(), sourceType,
          SplatElementsAttr::get(sourceType, splat.getSplatValue<Attribute>())));
    }
    OperationState state(op->getLoc(), op->getName(), operands,
                         TypeRange{RankedTensorType::get(shape, resultType.getElementType())},
                         op->getAttrs());
    Operation *sunk = rewriter.create(state);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, resultType, sunk->getResult(0), *perm);
    return success();
  }
};

struct StrataLayoutPass : mlir::strata::impl::StrataLayoutBase<StrataLayoutPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<FoldTransposeIntoDotGeneral, FoldTransposeOfDotGeneral,
                 FoldTransposeIntoReduce<ReduceSumOp>, FoldTransposeIntoReduce<ReduceMaxOp>,
                 FoldTransposeIntoReduce<ReduceMinOp>, FoldTransposeIntoReduce<ReduceProdOp>,
                 FoldTransposeIntoReduce<ArgmaxOp>, FoldTransposeIntoReduce<ArgminOp>,
                 SinkTransposeThroughElementwise>(context);
    // The transpose folders (identity, transpose of transpose) and its canonical patterns run
    // with them, so sunk transposes that meet cancel at once.
    TransposeOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
