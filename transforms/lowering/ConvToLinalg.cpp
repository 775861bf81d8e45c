// strata.conv_general_dilated => one linalg.generic over (batch, output feature, output
// position, input feature, window position): the generated-kernel path, which the GPU pipeline
// takes (the CPU pipeline calls libstrata's kernel first, strata-conv-to-runtime).
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace st = mlir::strata;

namespace mlir::strata::lowering {
namespace {

/// The lhs element under a window tap is read with tensor.extract at an index computed from the
/// loop indices (x = q * stride - pad_lo + k * rhs_dilation, in lhs-dilated coordinates), and
/// counts as 0 where x falls in the padding or between dilated elements: padding, negative
/// padding, lhs dilation and groups all stay in the index arithmetic, no padded copy is made.
struct ConvToGeneric : OpRewritePattern<st::ConvGeneralDilatedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::ConvGeneralDilatedOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasLowerableTypes(op))
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/integer elements");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value lhs = op.getLhs(), rhs = op.getRhs();
    RankedTensorType lhsType = tensorOf(lhs), rhsType = tensorOf(rhs);
    RankedTensorType resultType = tensorOf(op.getResult());
    // f16/bf16 accumulate in f32 and round once at the end, as libstrata's kernel.
    RankedTensorType accType = resultType;
    bool half = accType.getElementType().isF16() || accType.getElementType().isBF16();
    if (half)
      accType = RankedTensorType::get(accType.getShape(), rewriter.getF32Type());
    ArrayRef<int64_t> ls = op.getLhsSpec(), rs = op.getRhsSpec(), os = op.getOutSpec();
    ArrayRef<int64_t> strides = op.getWindowStrides(), padding = op.getPadding();
    ArrayRef<int64_t> lhsDil = op.getLhsDilation(), rhsDil = op.getRhsDilation();
    int64_t n = lhsType.getRank() - 2;
    int64_t batch = lhsType.getDimSize(ls[0]);
    int64_t outFeatures = rhsType.getDimSize(rs[0]), cg = rhsType.getDimSize(rs[1]);
    int64_t fg = op.getFeatureGroupCount(), bg = op.getBatchGroupCount();

    // Loops: 0 batch, 1 output feature, 2..2+n output position, 2+n input feature (of the
    // group), 3+n..3+2n window position.
    int64_t nLoops = 3 + 2 * n;
    SmallVector<AffineExpr> rhsExprs(rhsType.getRank()), outExprs(resultType.getRank());
    rhsExprs[rs[0]] = getAffineDimExpr(1, ctx);
    rhsExprs[rs[1]] = getAffineDimExpr(2 + n, ctx);
    outExprs[os[0]] = getAffineDimExpr(0, ctx);
    outExprs[os[1]] = getAffineDimExpr(1, ctx);
    for (int64_t d = 0; d < n; ++d) {
      rhsExprs[rs[2 + d]] = getAffineDimExpr(3 + n + d, ctx);
      outExprs[os[2 + d]] = getAffineDimExpr(2 + d, ctx);
    }
    SmallVector<AffineMap> maps = {AffineMap::get(nLoops, 0, rhsExprs, ctx),
                                   AffineMap::get(nLoops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators = parallelIterators(2 + n);
    iterators.append(1 + n, utils::IteratorType::reduction);

    Type accElem = accType.getElementType();
    bool inUns = lhsType.getElementType().isUnsignedInteger();
    bool outUns = accElem.isUnsignedInteger();
    Type accSl = signlessOf(accElem);
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(accSl));
    Value init = makeInit(rewriter, loc, accType, fromSignless(rewriter, loc, zero, accElem));
    auto generic = makeGeneric(
        rewriter, loc, ValueRange{rhs}, ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          auto idx = [&](int64_t loop) { return linalg::IndexOp::create(b, l, loop).getResult(); };
          auto c = [&](int64_t v) { return indexConst(b, l, v); };
          Value o = idx(1), ci = idx(2 + n);
          Value lb = idx(0), lc = ci;
          if (fg > 1)
            lc = arith::AddIOp::create(
                b, l,
                arith::MulIOp::create(b, l, arith::DivUIOp::create(b, l, o, c(outFeatures / fg)),
                                      c(cg)),
                ci);
          if (bg > 1)
            lb = arith::AddIOp::create(
                b, l,
                arith::MulIOp::create(b, l, arith::DivUIOp::create(b, l, o, c(outFeatures / bg)),
                                      c(batch / bg)),
                lb);
          SmallVector<Value> coords(lhsType.getRank());
          coords[ls[0]] = lb;
          coords[ls[1]] = lc;
          Value valid;
          for (int64_t d = 0; d < n; ++d) {
            Value x =
                arith::AddIOp::create(b, l, arith::MulIOp::create(b, l, idx(2 + d), c(strides[d])),
                                      arith::MulIOp::create(b, l, idx(3 + n + d), c(rhsDil[d])));
            x = arith::SubIOp::create(b, l, x, c(padding[2 * d]));
            int64_t size = lhsType.getDimSize(ls[2 + d]);
            Value ok = arith::AndIOp::create(
                b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, x, c(0)),
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, x,
                                      c((size - 1) * lhsDil[d] + 1)));
            Value xi = x;
            if (lhsDil[d] > 1) {
              ok = arith::AndIOp::create(
                  b, l, ok,
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                        arith::RemSIOp::create(b, l, x, c(lhsDil[d])), c(0)));
              xi = arith::DivSIOp::create(b, l, x, c(lhsDil[d]));
            }
            coords[ls[2 + d]] = arith::SelectOp::create(b, l, ok, xi, c(0));
            valid = valid ? arith::AndIOp::create(b, l, valid, ok).getResult() : ok;
          }
          Value v = toSignless(b, l, tensor::ExtractOp::create(b, l, lhs, coords));
          Value x = emitConvert(b, l, v, inUns, accSl, outUns);
          if (valid)
            x = arith::SelectOp::create(b, l, valid, x, zero);
          Value y = emitConvert(b, l, args[0], inUns, accSl, outUns);
          return SmallVector<Value>{emitAdd(b, l, args[1], emitMul(b, l, x, y))};
        });
    Value acc = generic.getResult(0);
    rewriter.replaceOp(op, half ? truncateTensor(rewriter, loc, acc, resultType) : acc);
    return success();
  }
};

} // namespace

void populateConvToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ConvToGeneric>(patterns.getContext());
}

} // namespace mlir::strata::lowering
