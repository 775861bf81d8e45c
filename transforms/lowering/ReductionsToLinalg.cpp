// Reductions and arg reductions => linalg.reduce and linalg.generic.
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace st = mlir::strata;

namespace mlir::strata::lowering {
namespace {

/// reduce_{sum,max,min,prod} => linalg.reduce into an init filled with the identity of the
/// op's monoid.
template <typename OpTy> struct ReduceToLinalg : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    Operation *o = op.getOperation();
    // Complex values have sums and products, and max/min in libstrata's lexicographic order
    // (emitMax/emitMin).
    if (!hasLowerableTypes(o) && !hasMovableTypes(o))
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/integer elements");
    if (op.getAxes().empty()) {
      rewriter.replaceOp(op, op.getOperand());
      return success();
    }
    auto resultType = tensorOf(op.getResult());
    Type resultElem = resultType.getElementType();
    Monoid m = *monoidOf(o);
    bool isSumOrProd = m == Monoid::Sum || m == Monoid::Prod;
    // f16/bf16 sums and products accumulate in f32 and round once, as libstrata's kernels
    // (max/min are exact in any type).
    bool half = isSumOrProd && (resultElem.isF16() || resultElem.isBF16());
    auto outType =
        half ? RankedTensorType::get(resultType.getShape(), rewriter.getF32Type()) : resultType;
    Type elem = outType.getElementType();
    bool uns = elem.isUnsignedInteger();
    Location loc = op.getLoc();
    Value identity = fromSignless(rewriter, loc,
                                  reductionIdentity(rewriter, loc, signlessOf(elem), uns, m), elem);
    Value init = makeInit(rewriter, loc, outType, identity);
    SmallVector<int64_t> axes(op.getAxes());
    llvm::sort(axes);
    auto reduce =
        linalg::ReduceOp::create(rewriter, loc, ValueRange{op.getOperand()}, ValueRange{init}, axes,
                                 [&](OpBuilder &b, Location l, ValueRange args) {
                                   Value x = toSignless(b, l, args[0]),
                                         acc = toSignless(b, l, args[1]);
                                   if (half)
                                     x = arith::ExtFOp::create(b, l, elem, x);
                                   Value v = emitMonoid(b, l, m, x, acc, uns);
                                   linalg::YieldOp::create(b, l, fromSignless(b, l, v, elem));
                                 });
    Value result = reduce.getResult(0);
    if (half)
      result = truncateTensor(rewriter, loc, result, resultType);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// argmax/argmin => one linalg.generic reducing over `axis` into (best value, index),
/// starting from the first element: an element replaces the best when strictly better or
/// the first NaN, so ties keep the first index and NaN counts as the extremum (reduce.cpp).
template <typename OpTy> struct ArgReduceToGeneric : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    constexpr bool isMax = std::is_same_v<OpTy, st::ArgmaxOp>;
    auto inType = tensorOf(op.getOperand());
    auto outType = tensorOf(op.getResult());
    int64_t rank = inType.getRank(), axis = op.getAxisAttr().getInt();
    if (axis < 0)
      axis += rank;
    if (!hasLowerableTypes(op) || axis < 0 || axis >= rank || inType.getDimSize(axis) == 0 ||
        !outType.getElementType().isSignlessInteger() || outType.getElementType().isInteger(1))
      return rewriter.notifyMatchFailure(op, "needs static tensors, a valid non-empty axis");
    Location loc = op.getLoc();
    Type elem = inType.getElementType();
    bool uns = elem.isUnsignedInteger();
    SmallVector<int64_t> restShape = dropDim(inType.getShape(), axis);
    // The best value starts as the first element along the axis.
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)), ones = offsets;
    SmallVector<OpFoldResult> sizes =
        getAsIndexOpFoldResult(rewriter.getContext(), inType.getShape());
    sizes[axis] = rewriter.getIndexAttr(1);
    for (auto &o : ones)
      o = rewriter.getIndexAttr(1);
    Value first =
        tensor::ExtractSliceOp::create(rewriter, loc, RankedTensorType::get(restShape, elem),
                                       op.getOperand(), offsets, sizes, ones);
    Value idxInit = makeInit(rewriter, loc, outType,
                             scalarConst(rewriter, loc, outType.getElementType(), 0, 0));
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                   mapDroppingDim(ctx, rank, rank, axis),
                                   mapDroppingDim(ctx, rank, rank, axis)};
    SmallVector<utils::IteratorType> iters = parallelIterators(rank);
    iters[axis] = utils::IteratorType::reduction;
    auto generic = makeGeneric(
        rewriter, loc, ValueRange{op.getOperand()}, ValueRange{first, idxInit}, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = a[0], best = a[1], idx = a[2];
          Value better = emitGreater(b, l, x, best, uns, isMax);
          if (isa<FloatType>(x.getType()))
            better = arith::AndIOp::create(
                b, l, arith::CmpFOp::create(b, l, arith::CmpFPredicate::ORD, best, best),
                arith::OrIOp::create(b, l, isNan(b, l, x), better));
          Value r =
              arith::IndexCastOp::create(b, l, idx.getType(), linalg::IndexOp::create(b, l, axis));
          return SmallVector<Value>{arith::SelectOp::create(b, l, better, x, best),
                                    arith::SelectOp::create(b, l, better, r, idx)};
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

} // namespace

void populateReductionsToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ReduceToLinalg<st::ReduceSumOp>, ReduceToLinalg<st::ReduceMaxOp>,
               ReduceToLinalg<st::ReduceMinOp>, ReduceToLinalg<st::ReduceProdOp>,
               ArgReduceToGeneric<st::ArgmaxOp>, ArgReduceToGeneric<st::ArgminOp>>(
      patterns.getContext());
}

} // namespace mlir::strata::lowering
