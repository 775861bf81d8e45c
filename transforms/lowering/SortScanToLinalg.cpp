// Cumulative scans and sort => scf.for and linalg.generic: the lowering every target takes
// (the CPU pipeline calls the runtime's kernels instead, strata-sort-scan-to-runtime).
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

/// cumsum/cumprod/cummax/cummin => an scf.for along the axis (reversed when `reverse`)
/// carrying the running value of every other position: each step is one linalg.generic
/// that combines a slice into the carry and writes the slice of the result, in libstrata's
/// order. Floating sums and products carry f64, as libstrata's scans do.
template <typename OpTy> struct CumulativeToLoop : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    Monoid m = *monoidOf(op);
    bool isSumOrProd = m == Monoid::Sum || m == Monoid::Prod;
    auto type = tensorOf(op.getOperand());
    int64_t rank = type.getRank(), axis = op.getAxisAttr().getInt();
    if (axis < 0)
      axis += rank;
    Type elem = type.getElementType();
    if (!hasLowerableTypes(op) || axis < 0 || axis >= rank || (isSumOrProd && elem.isInteger(1)))
      return rewriter.notifyMatchFailure(op, "needs static tensors and a valid axis");
    int64_t n = type.getDimSize(axis);
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, op.getOperand());
      return success();
    }
    Location loc = op.getLoc();
    bool uns = elem.isUnsignedInteger();
    Type sl = signlessOf(elem);
    Type accElem = isSumOrProd && isa<FloatType>(elem) ? rewriter.getF64Type() : sl;
    // One step's slice keeps the axis as a unit dimension: a rank-reducing slice is ambiguous
    // when other dimensions have size 1 too (the canonicalizer then picks the wrong one).
    SmallVector<int64_t> restShape(type.getShape());
    restShape[axis] = 1;
    auto accType = RankedTensorType::get(restShape, accElem);
    auto sliceType = RankedTensorType::get(restShape, elem);
    Value acc0 =
        makeInit(rewriter, loc, accType, reductionIdentity(rewriter, loc, accElem, uns, m));
    bool reverse = op.getReverse();
    Value x = op.getOperand();
    int64_t restRank = rank;
    auto loop = scf::ForOp::create(
        rewriter, loc, indexConst(rewriter, loc, 0), indexConst(rewriter, loc, n),
        indexConst(rewriter, loc, 1), ValueRange{makeInit(rewriter, loc, type), acc0},
        [&](OpBuilder &b, Location l, Value q, ValueRange iter) {
          Value pos = reverse ? Value(arith::SubIOp::create(b, l, indexConst(b, l, n - 1), q)) : q;
          SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
          offsets[axis] = pos;
          SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(b.getContext(), type.getShape());
          sizes[axis] = b.getIndexAttr(1);
          SmallVector<OpFoldResult> ones(rank, b.getIndexAttr(1));
          Value slice = tensor::ExtractSliceOp::create(b, l, sliceType, x, offsets, sizes, ones);
          SmallVector<AffineMap> maps(3,
                                      AffineMap::getMultiDimIdentityMap(restRank, b.getContext()));
          auto step = makeGeneric(
              b, l, ValueRange{slice}, ValueRange{iter[1], makeInit(b, l, sliceType)}, maps,
              parallelIterators(restRank), [&](OpBuilder &bb, Location bl, ValueRange a) {
                Value v = emitConvert(bb, bl, a[0], uns, accElem, false);
                Value acc = a[1];
                Value next = isSumOrProd ? emitMonoid(bb, bl, m, acc, v, uns)
                                         : emitScanExtremum(bb, bl, acc, v, uns, m == Monoid::Max);
                return SmallVector<Value>{next, emitConvert(bb, bl, next, false, sl, uns)};
              });
          Value y =
              tensor::InsertSliceOp::create(b, l, step.getResult(1), iter[0], offsets, sizes, ones);
          scf::YieldOp::create(b, l, ValueRange{y, step.getResult(0)});
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

/// sort => two linalg.generics, without loops over data-dependent positions: the first
/// counts, for each element, the elements that sort before it (lexicographically by the
/// keys, NaN after every number, ties by position: a stable sort), which is its position in
/// the result; the second moves each element of every operand to its position. O(n^2) per
/// sorted line.
struct SortToGeneric : OpRewritePattern<st::SortOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::SortOp op, PatternRewriter &rewriter) const override {
    ValueRange inputs = op.getInputs();
    if (inputs.empty() || !hasLowerableTypes(op))
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/integer elements");
    auto type = tensorOf(inputs[0]);
    int64_t rank = type.getRank(), dim = op.getDimensionAttr().getInt();
    int64_t numKeys = op.getNumKeysAttr().getInt();
    if (dim < 0)
      dim += rank;
    if (dim < 0 || dim >= rank || numKeys < 1 || numKeys > static_cast<int64_t>(inputs.size()) ||
        llvm::any_of(inputs, [&](Value v) { return tensorOf(v).getShape() != type.getShape(); }))
      return rewriter.notifyMatchFailure(op, "needs one shape, a valid dimension and num_keys");
    if (type.getDimSize(dim) <= 1 || type.getNumElements() == 0) {
      rewriter.replaceOp(op, inputs);
      return success();
    }
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    int64_t nLoops = rank + 1; // the operand's dims (dim = this element), then the other one
    AffineExpr other = getAffineDimExpr(rank, ctx);
    AffineMap self = mapWithDim(ctx, nLoops, rank, dim, getAffineDimExpr(dim, ctx));
    AffineMap atOther = mapWithDim(ctx, nLoops, rank, dim, other);
    SmallVector<utils::IteratorType> iters = parallelIterators(rank);
    iters.push_back(utils::IteratorType::reduction);

    // 1. position[..., i, ...] = #{j : key(j) < key(i), or key(j) == key(i) and j < i}.
    Type i64 = rewriter.getI64Type();
    auto posType = RankedTensorType::get(type.getShape(), i64);
    SmallVector<Value> keyIns;
    SmallVector<AffineMap> maps;
    SmallVector<bool> keyUns;
    for (int64_t k = 0; k < numKeys; ++k) {
      keyIns.append({inputs[k], inputs[k]});
      maps.append({self, atOther});
      keyUns.push_back(elementOf(inputs[k]).isUnsignedInteger());
    }
    maps.push_back(self);
    auto position = makeGeneric(
        rewriter, loc, keyIns,
        ValueRange{makeInit(rewriter, loc, posType, scalarConst(rewriter, loc, i64, 0, 0))}, maps,
        iters, [&](OpBuilder &b, Location l, ValueRange a) {
          Value i = linalg::IndexOp::create(b, l, dim), j = linalg::IndexOp::create(b, l, rank);
          Value before = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, j, i);
          for (int64_t k = numKeys - 1; k >= 0; --k) {
            Value mine = a[2 * k], theirs = a[2 * k + 1];
            Value less, equal;
            if (isa<FloatType>(mine.getType())) {
              Value nm = isNan(b, l, mine), nt = isNan(b, l, theirs);
              Value ordLess = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, theirs, mine);
              Value numBeforeNan = arith::AndIOp::create(
                  b, l, nm,
                  arith::XOrIOp::create(b, l, nt, scalarConst(b, l, b.getI1Type(), 0, 1)));
              less = arith::OrIOp::create(b, l, ordLess, numBeforeNan);
              equal = arith::OrIOp::create(
                  b, l, arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, theirs, mine),
                  arith::AndIOp::create(b, l, nm, nt));
            } else {
              less = emitGreater(b, l, theirs, mine, keyUns[k], /*greater=*/false);
              equal = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, theirs, mine);
            }
            before = arith::OrIOp::create(b, l, less, arith::AndIOp::create(b, l, equal, before));
          }
          Value inc = arith::ExtUIOp::create(b, l, i64, before);
          return SmallVector<Value>{arith::AddIOp::create(b, l, a.back(), inc)};
        });

    // 2. result[..., p, ...] = input[..., i, ...] where position[..., i, ...] == p.
    SmallVector<Value> moveIns = {position.getResult(0)};
    SmallVector<AffineMap> moveMaps = {atOther};
    SmallVector<Value> inits;
    for (Value in : inputs) {
      moveIns.push_back(in);
      moveMaps.push_back(atOther);
      inits.push_back(makeInit(rewriter, loc, tensorOf(in)));
    }
    for (size_t k = 0; k < inputs.size(); ++k)
      moveMaps.push_back(self);
    int64_t nIn = static_cast<int64_t>(inputs.size());
    auto move = linalg::GenericOp::create(
        rewriter, loc, ValueRange(inits).getTypes(), moveIns, inits, moveMaps, iters,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value p = arith::IndexCastOp::create(b, l, i64, linalg::IndexOp::create(b, l, dim));
          Value here = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, a[0], p);
          SmallVector<Value> out;
          for (int64_t k = 0; k < nIn; ++k)
            out.push_back(arith::SelectOp::create(b, l, here, a[1 + k], a[1 + nIn + k]));
          linalg::YieldOp::create(b, l, out);
        });
    rewriter.replaceOp(op, move.getResults());
    return success();
  }
};

} // namespace

void populateSortScanToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<CumulativeToLoop<st::CumsumOp>, CumulativeToLoop<st::CumprodOp>,
               CumulativeToLoop<st::CummaxOp>, CumulativeToLoop<st::CumminOp>, SortToGeneric>(
      patterns.getContext());
}

} // namespace mlir::strata::lowering
