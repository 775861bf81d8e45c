// Cumulative scans and sort => scf.for and linalg.generic (counting on short lines, a bitonic
// network on long ones): the GPU's lowering (the CPU pipeline calls the runtime's kernels
// instead, strata-sort-scan-to-runtime).
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
namespace st = mlir::strata;

namespace mlir::strata::lowering {
namespace {

/// cumsum/cumprod/cummax/cummin => an scf.for along the axis (reversed when `reverse`)
/// carrying the running value of every other position: each step is one linalg.generic
/// that combines a slice into the carry and writes the slice of the result, in libstrata's
/// order. Floating sums and products carry f64, as libstrata's scans do (complex ones their own
/// type).
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
    if (!hasMovableTypes(op) || axis < 0 || axis >= rank || (isSumOrProd && elem.isInteger(1)))
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

/// The keys a sort compares: each complex key as its real and then its imaginary part (the
/// lexicographic order of numpy, XLA and libstrata), `uns` widened to match.
void splitComplexKeys(OpBuilder &b, Location l, ValueRange keys, ArrayRef<bool> uns,
                      SmallVectorImpl<Value> &parts, SmallVectorImpl<bool> &partUns) {
  for (auto [k, v] : llvm::enumerate(keys)) {
    if (isa<ComplexType>(v.getType())) {
      parts.append({complex::ReOp::create(b, l, v), complex::ImOp::create(b, l, v)});
      partUns.append({false, false});
    } else {
      parts.push_back(v);
      partUns.push_back(uns[k]);
    }
  }
}

/// Whether an element with keys `xs` sorts before one with keys `ys` (lexicographically, NaN
/// after every number and equal to NaN, complex keys by real then imaginary part, unsigned keys
/// where `keyUns` says), or, with all keys equal, `tie`.
Value emitSortsBefore(OpBuilder &b, Location l, ValueRange xs, ValueRange ys, ArrayRef<bool> keyUns,
                      Value tie) {
  SmallVector<Value> x, y;
  SmallVector<bool> uns, unused;
  splitComplexKeys(b, l, xs, keyUns, x, uns);
  splitComplexKeys(b, l, ys, keyUns, y, unused);
  Value before = tie;
  for (int64_t k = static_cast<int64_t>(x.size()) - 1; k >= 0; --k) {
    Value xk = x[k], yk = y[k];
    Value less, equal;
    if (isa<FloatType>(xk.getType())) {
      Value nx = isNan(b, l, xk), ny = isNan(b, l, yk);
      Value ordLess = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, xk, yk);
      Value numBeforeNan = arith::AndIOp::create(
          b, l, ny, arith::XOrIOp::create(b, l, nx, scalarConst(b, l, b.getI1Type(), 0, 1)));
      less = arith::OrIOp::create(b, l, ordLess, numBeforeNan);
      equal =
          arith::OrIOp::create(b, l, arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, xk, yk),
                               arith::AndIOp::create(b, l, nx, ny));
    } else {
      less = emitGreater(b, l, xk, yk, uns[k], /*greater=*/false);
      equal = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, xk, yk);
    }
    before = arith::OrIOp::create(b, l, less, arith::AndIOp::create(b, l, equal, before));
  }
  return before;
}

/// The lines a sort lowered to linalg orders: a match failure (reported) unless its operands are
/// static tensors of float/integer/complex elements of one shape with a valid dimension and
/// num_keys.
FailureOr<SortLines> loweredSortLines(st::SortOp op, PatternRewriter &rewriter) {
  ValueRange inputs = op.getInputs();
  if (inputs.empty() || !hasMovableTypes(op))
    return rewriter.notifyMatchFailure(op, "needs static tensors of float/integer elements");
  std::optional<SortLines> lines =
      sortLines(inputs, op.getDimensionAttr().getInt(), op.getNumKeysAttr().getInt());
  if (!lines)
    return rewriter.notifyMatchFailure(op, "needs one shape, a valid dimension and num_keys");
  return *lines;
}

/// sort => two linalg.generics, without loops over data-dependent positions: the first
/// counts, for each element, the elements that sort before it (lexicographically by the
/// keys, NaN after every number, ties by position: a stable sort), which is its position in
/// the result; the second moves each element of every operand to its position. O(n^2) per
/// sorted line.
struct SortToGeneric : OpRewritePattern<st::SortOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::SortOp op, PatternRewriter &rewriter) const override {
    ValueRange inputs = op.getInputs();
    FailureOr<SortLines> lines = loweredSortLines(op, rewriter);
    if (failed(lines))
      return failure();
    auto [type, dim, numKeys] = *lines;
    int64_t rank = type.getRank();
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
          Value tie = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, j, i);
          SmallVector<Value> mine, theirs;
          for (int64_t k = 0; k < numKeys; ++k) {
            mine.push_back(a[2 * k]);
            theirs.push_back(a[2 * k + 1]);
          }
          Value before = emitSortsBefore(b, l, theirs, mine, keyUns, tie);
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

/// Lines longer than this sort by a bitonic network (SortToBitonic); shorter ones by counting
/// (SortToGeneric: one pass, n^2 comparisons, cheaper than log2(n)^2 / 2 passes when n is small).
constexpr int64_t kBitonicMin = 32;

/// sort of lines longer than kBitonicMin => a bitonic sorting network without data-dependent
/// loops, O(n log^2 n) per line, each step one parallel linalg.generic (a GPU kernel): every
/// operand is padded along the dimension to the next power of two P with an i64 tensor of
/// original positions beside it; for k = 2, 4, ..., P and j = k/2, ..., 1, element i and its
/// partner i ^ j (read through tensor.extract) compare-exchange, ascending when i & k == 0. The
/// order compares padding (positions >= n) after everything, then the keys (NaN last), then
/// the original positions, a total order, so the unstable network gives the stable result.
struct SortToBitonic : OpRewritePattern<st::SortOp> {
  explicit SortToBitonic(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(st::SortOp op, PatternRewriter &rewriter) const override {
    ValueRange inputs = op.getInputs();
    FailureOr<SortLines> lines = loweredSortLines(op, rewriter);
    if (failed(lines))
      return failure();
    auto [type, dim, numKeys] = *lines;
    int64_t rank = type.getRank();
    int64_t n = type.getDimSize(dim);
    if (n <= kBitonicMin || type.getNumElements() == 0)
      return rewriter.notifyMatchFailure(op, "short lines sort by counting");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    int64_t p = static_cast<int64_t>(llvm::PowerOf2Ceil(static_cast<uint64_t>(n)));
    int64_t logP = llvm::Log2_64(static_cast<uint64_t>(p));
    SmallVector<int64_t> padded(type.getShape());
    padded[dim] = p;
    Type i64 = rewriter.getI64Type();
    auto posType = RankedTensorType::get(padded, i64);
    SmallVector<OpFoldResult> zeros(rank, rewriter.getIndexAttr(0)),
        ones(rank, rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(ctx, type.getShape());

    // The working tensors: the operands padded with zeros, then the original positions.
    SmallVector<Value> work;
    SmallVector<bool> uns;
    for (Value in : inputs) {
      Type elem = elementOf(in);
      uns.push_back(elem.isUnsignedInteger());
      Value zero = isa<ComplexType>(elem)
                       ? reductionIdentity(rewriter, loc, elem, false, Monoid::Sum)
                       : fromSignless(rewriter, loc,
                                      scalarConst(rewriter, loc, signlessOf(elem), 0, 0), elem);
      Value init = makeInit(rewriter, loc, RankedTensorType::get(padded, elem), zero);
      work.push_back(tensor::InsertSliceOp::create(rewriter, loc, in, init, zeros, sizes, ones));
    }
    SmallVector<AffineMap> idMaps(1, AffineMap::getMultiDimIdentityMap(rank, ctx));
    work.push_back(makeGeneric(rewriter, loc, ValueRange{},
                               ValueRange{makeInit(rewriter, loc, posType)}, idMaps,
                               parallelIterators(rank),
                               [&](OpBuilder &b, Location l, ValueRange) {
                                 return SmallVector<Value>{arith::IndexCastOp::create(
                                     b, l, b.getI64Type(), linalg::IndexOp::create(b, l, dim))};
                               })
                       .getResult(0));
    int64_t nWork = static_cast<int64_t>(work.size());

    // One compare-exchange step of every element with its partner i ^ j, ascending where
    // i & k == 0 (k and j are i64 loop values).
    // A step reads a snapshot of the loop's tensors and writes into them, so the loop carries
    // the same buffers throughout (one-shot bufferization needs the yielded tensors equivalent
    // to the loop's).
    auto step = [&](OpBuilder &b, Location l, ValueRange loopTensors, Value k, Value j) {
      SmallVector<Value> cur;
      for (Value t : loopTensors) // a copy (an identity generic would fold away)
        cur.push_back(linalg::CopyOp::create(b, l, t, makeInit(b, l, tensorOf(t))).getResult(0));
      SmallVector<AffineMap> maps(2 * cur.size(), AffineMap::getMultiDimIdentityMap(rank, ctx));
      auto g = makeGeneric(
          b, l, cur, loopTensors, maps, parallelIterators(rank),
          [&](OpBuilder &bb, Location bl, ValueRange a) {
            SmallVector<Value> coords;
            for (int64_t d = 0; d < rank; ++d)
              coords.push_back(linalg::IndexOp::create(bb, bl, d));
            Value i = arith::IndexCastOp::create(bb, bl, bb.getI64Type(), coords[dim]);
            Value partner = arith::XOrIOp::create(bb, bl, i, j);
            coords[dim] = arith::IndexCastOp::create(bb, bl, bb.getIndexType(), partner);
            SmallVector<Value> mine(a.begin(), a.begin() + nWork), theirs;
            for (Value t : cur)
              theirs.push_back(toSignless(bb, bl, tensor::ExtractOp::create(bb, bl, t, coords)));
            Value c0 = scalarConst(bb, bl, bb.getI64Type(), 0, 0);
            Value cn = scalarConst(bb, bl, bb.getI64Type(), 0, n);
            Value up = arith::CmpIOp::create(bb, bl, arith::CmpIPredicate::eq,
                                             arith::AndIOp::create(bb, bl, i, k), c0);
            Value lower = arith::CmpIOp::create(bb, bl, arith::CmpIPredicate::ult, i, partner);
            // Mine sorts before theirs: padding last, then the keys, then the positions.
            Value pm = mine.back(), pt = theirs.back();
            Value padM = arith::CmpIOp::create(bb, bl, arith::CmpIPredicate::sge, pm, cn);
            Value padT = arith::CmpIOp::create(bb, bl, arith::CmpIPredicate::sge, pt, cn);
            Value posBefore = arith::CmpIOp::create(bb, bl, arith::CmpIPredicate::slt, pm, pt);
            Value keysBefore =
                emitSortsBefore(bb, bl, ValueRange(mine).take_front(numKeys),
                                ValueRange(theirs).take_front(numKeys), uns, posBefore);
            Value before = arith::SelectOp::create(bb, bl, padM,
                                                   arith::AndIOp::create(bb, bl, padT, posBefore),
                                                   arith::OrIOp::create(bb, bl, padT, keysBefore));
            // The lower position of a pair keeps the first element of its direction.
            Value keepMine = arith::XOrIOp::create(
                bb, bl, before,
                arith::XOrIOp::create(bb, bl, up, lower)); // before == (up == lower)
            SmallVector<Value> out;
            for (int64_t w = 0; w < nWork; ++w)
              out.push_back(arith::SelectOp::create(bb, bl, keepMine, mine[w], theirs[w]));
            return out;
          });
      return SmallVector<Value>(g.getResults());
    };

    // for s in [1, logP]: k = 2^s; for t in [0, s): j = 2^(s-1-t).
    Value c1 = indexConst(rewriter, loc, 1);
    auto outer = scf::ForOp::create(
        rewriter, loc, c1, indexConst(rewriter, loc, logP + 1), c1, work,
        [&](OpBuilder &b, Location l, Value sIv, ValueRange cur) {
          Value s64 = arith::IndexCastOp::create(b, l, b.getI64Type(), sIv);
          Value one64 = scalarConst(b, l, b.getI64Type(), 0, 1);
          Value k = arith::ShLIOp::create(b, l, one64, s64);
          auto inner = scf::ForOp::create(
              b, l, indexConst(b, l, 0), sIv, indexConst(b, l, 1), cur,
              [&](OpBuilder &bi, Location li, Value tIv, ValueRange c) {
                Value t64 = arith::IndexCastOp::create(bi, li, bi.getI64Type(), tIv);
                Value sh =
                    arith::SubIOp::create(bi, li, arith::SubIOp::create(bi, li, s64, one64), t64);
                Value j = arith::ShLIOp::create(bi, li, one64, sh);
                scf::YieldOp::create(bi, li, step(bi, li, c, k, j));
              });
          scf::YieldOp::create(b, l, inner.getResults());
        });
    SmallVector<Value> results;
    for (auto [w, in] : llvm::zip(outer.getResults(), inputs))
      results.push_back(
          tensor::ExtractSliceOp::create(rewriter, loc, tensorOf(in), w, zeros, sizes, ones));
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void populateSortScanToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<CumulativeToLoop<st::CumsumOp>, CumulativeToLoop<st::CumprodOp>,
               CumulativeToLoop<st::CummaxOp>, CumulativeToLoop<st::CumminOp>, SortToGeneric,
               SortToBitonic>(patterns.getContext());
}

} // namespace mlir::strata::lowering
