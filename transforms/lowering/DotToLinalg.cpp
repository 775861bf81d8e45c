// dot_general => linalg.matmul / linalg.batch_matmul, or a contracting linalg.generic, after
// merging runs of adjacent dimensions of one kind (batch, free, contracting) into one.
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace st = mlir::strata;

namespace mlir::strata::lowering {
namespace {

/// A dot_general's operands and dimension numbers.
struct Dot {
  Value lhs, rhs;
  SmallVector<int64_t> lb, rb, lc, rc;
};

/// One dimension of a dot_general seen from the lhs, the rhs and the result (-1 where absent).
struct Entry {
  int64_t l, r, o;
};

/// Dimensions in [0, rank) in neither list, in increasing order.
SmallVector<int64_t> freeDims(int64_t rank, ArrayRef<int64_t> batch,
                              ArrayRef<int64_t> contracting) {
  SmallVector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(batch, d) && !llvm::is_contained(contracting, d))
      out.push_back(d);
  return out;
}

/// The reassociation that collapses each run of `runs` (first dim, count) of a tensor of
/// `rank`, runs that cover every dim once, and each run's new dim number.
std::pair<SmallVector<ReassociationIndices>, DenseMap<int64_t, int64_t>>
reassociate(int64_t rank, ArrayRef<std::pair<int64_t, int64_t>> runs) {
  DenseMap<int64_t, int64_t> count;
  for (auto [first, n] : runs)
    count[first] = n;
  SmallVector<ReassociationIndices> groups;
  DenseMap<int64_t, int64_t> newDim;
  for (int64_t d = 0; d < rank;) {
    int64_t n = count.lookup(d);
    assert(n > 0 && "runs cover every dim");
    newDim[d] = static_cast<int64_t>(groups.size());
    groups.emplace_back(llvm::to_vector(llvm::seq<int64_t>(d, d + n)));
    d += n;
  }
  return {groups, newDim};
}

/// The dot with each run of dims of one kind that are adjacent and in the same order in every
/// tensor holding them (batch: lhs, rhs, result; free: its operand and the result;
/// contracting: both operands) merged into one dim by tensor.collapse_shape, which is free on
/// the identity-layout buffers tensors bufferize to. A dense layer [b, s, d] x [d, f] becomes
/// one matmul with m = b * s, its weight gradient one with k = b * s. Also returns the
/// collapsed result type and the result's reassociation; nullopt when nothing merges.
std::optional<std::tuple<Dot, RankedTensorType, SmallVector<ReassociationIndices>>>
mergeRuns(PatternRewriter &rewriter, Location loc, const Dot &dot, RankedTensorType outType) {
  auto lhsType = tensorOf(dot.lhs), rhsType = tensorOf(dot.rhs);
  int64_t nb = dot.lb.size();
  SmallVector<int64_t> lf = freeDims(lhsType.getRank(), dot.lb, dot.lc);
  SmallVector<int64_t> rf = freeDims(rhsType.getRank(), dot.rb, dot.rc);
  SmallVector<Entry> batch, ms, ns, ks;
  for (int64_t i = 0; i < nb; ++i)
    batch.push_back({dot.lb[i], dot.rb[i], i});
  for (auto [j, d] : llvm::enumerate(lf))
    ms.push_back({d, -1, nb + static_cast<int64_t>(j)});
  for (auto [j, d] : llvm::enumerate(rf))
    ns.push_back({-1, d, nb + static_cast<int64_t>(lf.size() + j)});
  for (auto [l, r] : llvm::zip(dot.lc, dot.rc))
    ks.push_back({l, r, -1});
  // Runs of each kind as (first entry, count).
  auto runsOf = [](ArrayRef<Entry> es) {
    SmallVector<std::pair<Entry, int64_t>> runs;
    for (const Entry &e : es) {
      if (!runs.empty()) {
        const Entry &first = runs.back().first;
        int64_t n = runs.back().second;
        auto next = [n](int64_t f, int64_t d) { return f < 0 || d == f + n; };
        if (next(first.l, e.l) && next(first.r, e.r) && next(first.o, e.o)) {
          ++runs.back().second;
          continue;
        }
      }
      runs.push_back({e, 1});
    }
    return runs;
  };
  auto rb = runsOf(batch), rm = runsOf(ms), rn = runsOf(ns), rk = runsOf(ks);
  if (rb.size() == batch.size() && rm.size() == ms.size() && rn.size() == ns.size() &&
      rk.size() == ks.size())
    return std::nullopt;
  SmallVector<std::pair<int64_t, int64_t>> lruns, rruns, oruns;
  for (const auto *kind : {&rb, &rm, &rn, &rk})
    for (auto [e, n] : *kind) {
      if (e.l >= 0)
        lruns.push_back({e.l, n});
      if (e.r >= 0)
        rruns.push_back({e.r, n});
      if (e.o >= 0)
        oruns.push_back({e.o, n});
    }
  auto [lgroups, lnew] = reassociate(lhsType.getRank(), lruns);
  auto [rgroups, rnew] = reassociate(rhsType.getRank(), rruns);
  auto [ogroups, onew] = reassociate(outType.getRank(), oruns);
  auto collapse = [&](Value v, ArrayRef<ReassociationIndices> groups) -> Value {
    if (groups.size() == static_cast<size_t>(tensorOf(v).getRank()))
      return v;
    return tensor::CollapseShapeOp::create(rewriter, loc, v, groups).getResult();
  };
  Dot merged{collapse(dot.lhs, lgroups), collapse(dot.rhs, rgroups)};
  for (auto [e, n] : rb) {
    merged.lb.push_back(lnew.lookup(e.l));
    merged.rb.push_back(rnew.lookup(e.r));
  }
  for (auto [e, n] : rk) {
    merged.lc.push_back(lnew.lookup(e.l));
    merged.rc.push_back(rnew.lookup(e.r));
  }
  RankedTensorType collapsed = tensor::CollapseShapeOp::inferCollapsedType(outType, ogroups);
  return std::make_tuple(merged, collapsed, SmallVector<ReassociationIndices>(ogroups));
}

/// The contraction of `dot` into a fresh accumulator of `outType`: linalg.matmul /
/// linalg.batch_matmul for the canonical layouts (one signless element type throughout), else
/// a linalg.generic over (batch, lhs free, rhs free, contracting).
Value lowerDot(PatternRewriter &rewriter, Location loc, const Dot &dot, RankedTensorType outType) {
  auto lhsType = tensorOf(dot.lhs), rhsType = tensorOf(dot.rhs);
  Type outElem = outType.getElementType();
  Type outSl = signlessOf(outElem);
  ArrayRef<int64_t> lb = dot.lb, rb = dot.rb, lc = dot.lc, rc = dot.rc;
  Value lhs = dot.lhs, rhs = dot.rhs;

  // Contracting dimensions all of extent 1 (vmap's per-example outer products): no reduction
  // loop at all, so the product is an all-parallel loop nest (vectorized, parallel when
  // large) instead of a gemm with k = 1 per batch.
  bool unitContraction =
      !lc.empty() && llvm::all_of(lc, [&](int64_t d) { return lhsType.getDimSize(d) == 1; });
  // Without contracting dims each result element is one product (as XLA, which rewrites such
  // a dot into a multiply): it is written once into an uninitialized result, where a zero fill
  // and an accumulation would pass over it three times. The per-example weight gradients of
  // jit(vmap(grad)) are such products, and the largest tensors of their program. (Unit
  // contractions keep the sum 0 + x * y of their one term, which turns a -0.0 product into
  // +0.0 as the eager gemm does.)
  bool noReduction = lc.empty();
  // Complex products and sums take the generic loop nest (no BLAS call takes them here).
  bool cx = isa<ComplexType>(outElem);
  Value zero = cx ? reductionIdentity(rewriter, loc, outElem, false, Monoid::Sum)
                  : fromSignless(rewriter, loc, scalarConst(rewriter, loc, outSl, 0.0, 0), outElem);
  Value init =
      noReduction ? makeInit(rewriter, loc, outType) : makeInit(rewriter, loc, outType, zero);
  bool oneType = lhsType.getElementType() == outElem && rhsType.getElementType() == outElem &&
                 !outElem.isInteger(1) && outElem == outSl && !unitContraction && !cx;
  auto is = [](ArrayRef<int64_t> a, std::initializer_list<int64_t> b) { return llvm::equal(a, b); };
  if (oneType && lhsType.getRank() == 2 && rhsType.getRank() == 2 && lb.empty() && is(lc, {1}) &&
      is(rc, {0}))
    return linalg::MatmulOp::create(rewriter, loc, TypeRange{outType}, ValueRange{lhs, rhs},
                                    ValueRange{init})
        ->getResult(0);
  if (oneType && lhsType.getRank() == 3 && rhsType.getRank() == 3 && is(lb, {0}) && is(rb, {0}) &&
      is(lc, {2}) && is(rc, {1}))
    return linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{outType}, ValueRange{lhs, rhs},
                                         ValueRange{init})
        ->getResult(0);

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
  auto generic = makeGeneric(
      rewriter, loc, ValueRange{lhs, rhs}, ValueRange{init}, maps, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        // Accumulate in the result type (preferred_element_type widens it).
        Value x = cx ? args[0] : emitConvert(b, l, args[0], lhsUns, outSl, outUns);
        Value y = cx ? args[1] : emitConvert(b, l, args[1], lhsUns, outSl, outUns);
        Value product = emitMul(b, l, x, y);
        return SmallVector<Value>{noReduction ? product : emitAdd(b, l, args[2], product)};
      });
  return generic.getResult(0);
}

struct DotGeneralToLinalg : OpRewritePattern<st::DotGeneralOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::DotGeneralOp op, PatternRewriter &rewriter) const override {
    // Complex operands and result of one type, or float/integer ones.
    Type cxType = elementOf(op.getResult());
    bool complexDot = isa<ComplexType>(cxType) && hasMovableTypes(op) &&
                      elementOf(op.getLhs()) == cxType && elementOf(op.getRhs()) == cxType;
    if (!hasLowerableTypes(op) && !complexDot)
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/integer elements");
    RankedTensorType resultType = tensorOf(op.getResult());
    // f16/bf16 products accumulate in f32 and round once at the end, as libstrata's kernel.
    RankedTensorType outType = resultType;
    bool half = outType.getElementType().isF16() || outType.getElementType().isBF16();
    if (half)
      outType = RankedTensorType::get(outType.getShape(), rewriter.getF32Type());
    Location loc = op.getLoc();
    Dot dot{op.getLhs(),
            op.getRhs(),
            llvm::to_vector(op.getLhsBatch()),
            llvm::to_vector(op.getRhsBatch()),
            llvm::to_vector(op.getLhsContracting()),
            llvm::to_vector(op.getRhsContracting())};
    Value acc;
    if (auto merged = mergeRuns(rewriter, loc, dot, outType)) {
      auto &[mdot, collapsed, groups] = *merged;
      acc = lowerDot(rewriter, loc, mdot, collapsed);
      if (collapsed != outType)
        acc = tensor::ExpandShapeOp::create(rewriter, loc, outType, acc, groups);
    } else {
      acc = lowerDot(rewriter, loc, dot, outType);
    }
    rewriter.replaceOp(op, half ? truncateTensor(rewriter, loc, acc, resultType) : acc);
    return success();
  }
};

} // namespace

void populateDotToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<DotGeneralToLinalg>(patterns.getContext());
}

} // namespace mlir::strata::lowering
