// dot_general => linalg.matmul / linalg.batch_matmul, or a contracting linalg.generic.
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace st = mlir::strata;

namespace mlir::strata::lowering {
namespace {

/// dot_general => linalg.matmul / linalg.batch_matmul for the canonical layouts (one
/// signless element type throughout), else a linalg.generic over (batch, lhs free, rhs free,
/// contracting).
struct DotGeneralToLinalg : OpRewritePattern<st::DotGeneralOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::DotGeneralOp op, PatternRewriter &rewriter) const override {
    if (!hasLowerableTypes(op))
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/integer elements");
    auto lhsType = tensorOf(op.getLhs());
    auto rhsType = tensorOf(op.getRhs());
    auto outType = tensorOf(op.getResult());
    // f16/bf16 products accumulate in f32 and round once at the end, as libstrata's kernel.
    RankedTensorType resultType = outType;
    bool half = outType.getElementType().isF16() || outType.getElementType().isBF16();
    if (half)
      outType = RankedTensorType::get(outType.getShape(), rewriter.getF32Type());
    Type outElem = outType.getElementType();
    Type outSl = signlessOf(outElem);
    Location loc = op.getLoc();
    Value init =
        makeInit(rewriter, loc, outType,
                 fromSignless(rewriter, loc, scalarConst(rewriter, loc, outSl, 0.0, 0), outElem));
    ArrayRef<int64_t> lb = op.getLhsBatch(), rb = op.getRhsBatch();
    ArrayRef<int64_t> lc = op.getLhsContracting(), rc = op.getRhsContracting();
    Value lhs = op.getLhs(), rhs = op.getRhs();

    // Contracting dimensions all of extent 1 (vmap's per-example outer products): no reduction
    // loop at all, so the product is an all-parallel loop nest (vectorized, parallel when
    // large) instead of a gemm with k = 1 per batch.
    bool unitContraction =
        !lc.empty() && llvm::all_of(lc, [&](int64_t d) { return lhsType.getDimSize(d) == 1; });
    bool oneType = lhsType.getElementType() == outElem && rhsType.getElementType() == outElem &&
                   !outElem.isInteger(1) && outElem == outSl && !unitContraction;
    auto is = [](ArrayRef<int64_t> a, std::initializer_list<int64_t> b) {
      return llvm::equal(a, b);
    };
    if (oneType && lhsType.getRank() == 2 && rhsType.getRank() == 2 && lb.empty() && is(lc, {1}) &&
        is(rc, {0})) {
      auto mm = linalg::MatmulOp::create(rewriter, loc, TypeRange{outType}, ValueRange{lhs, rhs},
                                         ValueRange{init});
      rewriter.replaceOp(op, mm->getResults());
      return success();
    }
    if (oneType && lhsType.getRank() == 3 && rhsType.getRank() == 3 && is(lb, {0}) && is(rb, {0}) &&
        is(lc, {2}) && is(rc, {1})) {
      auto mm = linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{outType},
                                              ValueRange{lhs, rhs}, ValueRange{init});
      rewriter.replaceOp(op, mm->getResults());
      return success();
    }

    int64_t nb = lb.size(), nc = lc.size();
    int64_t nlf = lhsType.getRank() - nb - nc, nrf = rhsType.getRank() - nb - nc;
    int64_t nParallel = nb + nlf + nrf, nLoops = nParallel + (unitContraction ? 0 : nc);
    MLIRContext *ctx = rewriter.getContext();
    // Operand dim -> loop: batch k -> k, free j -> freeBase + j, contracting k -> nParallel + k.
    auto operandMap = [&](int64_t rank, ArrayRef<int64_t> batch, ArrayRef<int64_t> contracting,
                          int64_t freeBase) {
      SmallVector<AffineExpr> exprs;
      int64_t j = 0;
      for (int64_t d = 0; d < rank; ++d) {
        const auto *bi = llvm::find(batch, d);
        const auto *ci = llvm::find(contracting, d);
        int64_t loop = bi != batch.end()         ? bi - batch.begin()
                       : ci != contracting.end() ? nParallel + (ci - contracting.begin())
                                                 : freeBase + j++;
        exprs.push_back(unitContraction && ci != contracting.end() ? getAffineConstantExpr(0, ctx)
                                                                   : getAffineDimExpr(loop, ctx));
      }
      return AffineMap::get(nLoops, 0, exprs, ctx);
    };
    SmallVector<AffineExpr> outExprs;
    for (int64_t d = 0; d < nParallel; ++d)
      outExprs.push_back(getAffineDimExpr(d, ctx));
    SmallVector<AffineMap> maps = {operandMap(lhsType.getRank(), lb, lc, nb),
                                   operandMap(rhsType.getRank(), rb, rc, nb + nlf),
                                   AffineMap::get(nLoops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators = parallelIterators(nParallel);
    if (!unitContraction)
      iterators.append(nc, utils::IteratorType::reduction);
    bool lhsUns = lhsType.getElementType().isUnsignedInteger();
    bool outUns = outElem.isUnsignedInteger();
    auto generic =
        makeGeneric(rewriter, loc, ValueRange{lhs, rhs}, ValueRange{init}, maps, iterators,
                    [&](OpBuilder &b, Location l, ValueRange args) {
                      // Accumulate in the result type (preferred_element_type widens it).
                      Value x = emitConvert(b, l, args[0], lhsUns, outSl, outUns);
                      Value y = emitConvert(b, l, args[1], lhsUns, outSl, outUns);
                      return SmallVector<Value>{emitAdd(b, l, args[2], emitMul(b, l, x, y))};
                    });
    Value acc = generic.getResult(0);
    rewriter.replaceOp(op, half ? truncateTensor(rewriter, loc, acc, resultType) : acc);
    return success();
  }
};

} // namespace

void populateDotToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<DotGeneralToLinalg>(patterns.getContext());
}

} // namespace mlir::strata::lowering
