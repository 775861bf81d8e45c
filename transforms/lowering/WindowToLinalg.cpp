// Windowed reductions => linalg.generic over (output, window) loops reading the padded operand;
// select_and_scatter_add => the picks as such a generic, then an scf.for adding the source at
// them.
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

/// A window op's attributes, one entry per operand dimension.
struct Window {
  SmallVector<int64_t> win, stride, lo, hi, base, wdil;
  size_t rank() const { return win.size(); }
};
template <typename OpTy> Window windowOf(OpTy op) {
  return {
      SmallVector<int64_t>(op.getWindowDimensions()), SmallVector<int64_t>(op.getWindowStrides()),
      SmallVector<int64_t>(op.getPaddingLow()),       SmallVector<int64_t>(op.getPaddingHigh()),
      SmallVector<int64_t>(op.getBaseDilation()),     SmallVector<int64_t>(op.getWindowDilation())};
}

/// The operand in a tensor holding its base dilation and the positive part of its padding,
/// everything else `fill`; negative padding crops through the read maps (windowMaps).
Value padOperand(OpBuilder &b, Location loc, Value x, const Window &w, Value fill) {
  auto type = tensorOf(x);
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> offsets, sizes, strides;
  bool same = true;
  for (size_t d = 0; d < w.rank(); ++d) {
    int64_t n = type.getDimSize(d), lo = std::max<int64_t>(w.lo[d], 0);
    shape.push_back((n - 1) * w.base[d] + 1 + lo + std::max<int64_t>(w.hi[d], 0));
    same = same && shape.back() == n;
    offsets.push_back(b.getIndexAttr(lo));
    sizes.push_back(b.getIndexAttr(n));
    strides.push_back(b.getIndexAttr(w.base[d]));
  }
  if (same)
    return x;
  Value init = makeInit(b, loc, RankedTensorType::get(shape, type.getElementType()), fill);
  return tensor::InsertSliceOp::create(b, loc, x, init, offsets, sizes, strides);
}

/// The loops (output dims, then window dims) onto the padded operand, a window-shaped tensor
/// (which gives the window loops their bounds) and the output.
SmallVector<AffineMap> windowMaps(MLIRContext *ctx, const Window &w) {
  int64_t r = static_cast<int64_t>(w.rank());
  SmallVector<AffineExpr> in, win, out;
  for (int64_t d = 0; d < r; ++d) {
    int64_t crop = std::max<int64_t>(-w.lo[d], 0);
    in.push_back(getAffineDimExpr(d, ctx) * w.stride[d] + getAffineDimExpr(r + d, ctx) * w.wdil[d] +
                 crop);
    win.push_back(getAffineDimExpr(r + d, ctx));
    out.push_back(getAffineDimExpr(d, ctx));
  }
  return {AffineMap::get(2 * r, 0, in, ctx), AffineMap::get(2 * r, 0, win, ctx),
          AffineMap::get(2 * r, 0, out, ctx)};
}
SmallVector<utils::IteratorType> windowIterators(const Window &w) {
  SmallVector<utils::IteratorType> it = parallelIterators(static_cast<int64_t>(w.rank()));
  it.append(w.rank(), utils::IteratorType::reduction);
  return it;
}
Value windowShaped(OpBuilder &b, Location loc, const Window &w, Type elem) {
  return tensor::EmptyOp::create(b, loc, w.win, elem);
}

/// Whether the op can be lowered: static lowerable tensors, one window entry per dimension.
bool lowerable(Operation *op, const Window &w, Value operand) {
  auto t = tensorOf(operand);
  if (!hasLowerableTypes(op) || static_cast<int64_t>(w.rank()) != t.getRank())
    return false;
  for (size_t d = 0; d < w.rank(); ++d)
    if (w.win[d] < 1 || w.stride[d] < 1 || w.base[d] < 1 || w.wdil[d] < 1)
      return false;
  return true;
}

/// reduce_window_{sum,max,min} => one linalg.generic accumulating each window into an init of
/// the monoid's identity; the padding is the identity too. f16/bf16 sums accumulate in f32 and
/// round once, as libstrata's kernel does.
template <typename OpTy, Monoid M> struct MonoidWindowToGeneric : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    Window w = windowOf(op);
    if (!lowerable(op, w, op.getOperand()))
      return rewriter.notifyMatchFailure(op, "needs static tensors and a valid window");
    Location loc = op.getLoc();
    auto inType = tensorOf(op.getOperand());
    auto resultType = tensorOf(op.getResult());
    Type inElem = inType.getElementType();
    bool uns = inElem.isUnsignedInteger();
    Value id = fromSignless(rewriter, loc,
                            reductionIdentity(rewriter, loc, signlessOf(inElem), uns, M), inElem);
    if (w.rank() == 0) {
      rewriter.replaceOp(op, op.getOperand());
      return success();
    }
    if (resultType.getNumElements() == 0 || inType.getNumElements() == 0) {
      rewriter.replaceOp(op, makeInit(rewriter, loc, resultType, id));
      return success();
    }
    bool half = M == Monoid::Sum && (inElem.isF16() || inElem.isBF16());
    auto accType =
        half ? RankedTensorType::get(resultType.getShape(), rewriter.getF32Type()) : resultType;
    Type accElem = accType.getElementType();
    Value accId = half ? scalarConst(rewriter, loc, accElem, 0, 0) : id;
    Value padded = padOperand(rewriter, loc, op.getOperand(), w, id);
    auto generic = makeGeneric(
        rewriter, loc, ValueRange{padded, windowShaped(rewriter, loc, w, inElem)},
        ValueRange{makeInit(rewriter, loc, accType, accId)}, windowMaps(rewriter.getContext(), w),
        windowIterators(w), [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = a[0];
          if (half)
            x = arith::ExtFOp::create(b, l, accElem, x);
          return SmallVector<Value>{emitMonoid(b, l, M, x, a[2], uns)};
        });
    Value result = generic.getResult(0);
    if (half)
      result = truncateTensor(rewriter, loc, result, resultType);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Whether the current pick `cur` stays against a later element `x`: cur >= x ("ge") or
/// cur <= x ("le"), false when either is NaN (as libstrata's kernel compares).
Value keeps(OpBuilder &b, Location l, Value cur, Value x, bool ge, bool uns) {
  if (isa<FloatType>(x.getType()))
    return arith::CmpFOp::create(b, l, ge ? arith::CmpFPredicate::OGE : arith::CmpFPredicate::OLE,
                                 cur, x);
  arith::CmpIPredicate p = ge ? (uns ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge)
                              : (uns ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle);
  return arith::CmpIOp::create(b, l, p, cur, x);
}

/// Where operand elements are (true) among the padding (false) of padOperand.
Value paddedMask(OpBuilder &b, Location loc, Value operand, const Window &w) {
  auto i1 = b.getI1Type();
  auto type = RankedTensorType::get(tensorOf(operand).getShape(), i1);
  Value ones = makeInit(b, loc, type, arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
  return padOperand(b, loc, ones, w, arith::ConstantOp::create(b, loc, b.getBoolAttr(false)));
}

/// Whether a select op lowers: static lowerable tensors, a valid window, "ge" or "le".
template <typename OpTy> bool lowerableSelect(OpTy op, const Window &w) {
  StringRef sel = op.getSelectPrim();
  return lowerable(op, w, op.getOperand()) && (sel == "ge" || sel == "le");
}

/// The zero of a Strata element type (unsigned ones through their signless form).
Value zeroOf(OpBuilder &b, Location loc, Type elem) {
  return fromSignless(b, loc, scalarConst(b, loc, signlessOf(elem), 0, 0), elem);
}

/// Whether window element `v` (`valid`: not padding) becomes the pick: there is no pick yet
/// (`has` false), or the current one `cur` does not keep its place against it.
Value takes(OpBuilder &b, Location l, Value valid, Value has, Value cur, Value v, bool ge,
            bool uns) {
  Value yes = arith::ConstantOp::create(b, l, b.getBoolAttr(true));
  Value stay = arith::AndIOp::create(b, l, has, keeps(b, l, cur, v, ge, uns));
  return arith::AndIOp::create(b, l, valid, arith::XOrIOp::create(b, l, stay, yes));
}

/// select_and_gather_add => one linalg.generic carrying (picked value, its tangent, whether a
/// pick exists) through each window in row-major order; the mask keeps padding from being
/// picked.
struct SelectAndGatherToGeneric : OpRewritePattern<st::SelectAndGatherAddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::SelectAndGatherAddOp op,
                                PatternRewriter &rewriter) const override {
    Window w = windowOf(op);
    if (!lowerableSelect(op, w))
      return rewriter.notifyMatchFailure(op, "needs static tensors and a valid window");
    Location loc = op.getLoc();
    auto inType = tensorOf(op.getOperand());
    auto resultType = tensorOf(op.getResult());
    Type elem = inType.getElementType();
    bool uns = elem.isUnsignedInteger(), ge = op.getSelectPrim() == "ge";
    Value zero = zeroOf(rewriter, loc, elem);
    if (w.rank() == 0) {
      rewriter.replaceOp(op, op.getTangents());
      return success();
    }
    if (resultType.getNumElements() == 0 || inType.getNumElements() == 0) {
      rewriter.replaceOp(op, makeInit(rewriter, loc, resultType, zero));
      return success();
    }
    Value x = padOperand(rewriter, loc, op.getOperand(), w, zero);
    Value t = padOperand(rewriter, loc, op.getTangents(), w, zero);
    Value mask = paddedMask(rewriter, loc, op.getOperand(), w);
    auto flagType = RankedTensorType::get(resultType.getShape(), rewriter.getI1Type());
    Value no = arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(false));
    SmallVector<AffineMap> m = windowMaps(rewriter.getContext(), w);
    auto generic =
        makeGeneric(rewriter, loc, ValueRange{x, t, mask, windowShaped(rewriter, loc, w, elem)},
                    ValueRange{makeInit(rewriter, loc, resultType, zero),
                               makeInit(rewriter, loc, resultType, zero),
                               makeInit(rewriter, loc, flagType, no)},
                    {m[0], m[0], m[0], m[1], m[2], m[2], m[2]}, windowIterators(w),
                    [&](OpBuilder &b, Location l, ValueRange a) {
                      Value v = a[0], tv = a[1], valid = a[2], cur = a[4], curT = a[5], has = a[6];
                      Value take = takes(b, l, valid, has, cur, v, ge, uns);
                      return SmallVector<Value>{arith::SelectOp::create(b, l, take, v, cur),
                                                arith::SelectOp::create(b, l, take, tv, curT),
                                                arith::OrIOp::create(b, l, has, valid)};
                    });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

/// select_and_scatter_add => a linalg.generic picking each window's operand offset (-1: none),
/// then an scf.for over the windows in row-major order adding the source at the picks (the
/// order libstrata's kernel adds in).
struct SelectAndScatterToLoop : OpRewritePattern<st::SelectAndScatterAddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::SelectAndScatterAddOp op,
                                PatternRewriter &rewriter) const override {
    Window w = windowOf(op);
    if (!lowerableSelect(op, w))
      return rewriter.notifyMatchFailure(op, "needs static tensors and a valid window");
    Location loc = op.getLoc();
    auto inType = tensorOf(op.getOperand());
    auto srcType = tensorOf(op.getSource());
    auto resultType = tensorOf(op.getResult());
    Type elem = inType.getElementType();
    bool uns = elem.isUnsignedInteger(), ge = op.getSelectPrim() == "ge";
    int64_t r = static_cast<int64_t>(w.rank());
    Value zero = zeroOf(rewriter, loc, elem);
    if (r == 0) {
      rewriter.replaceOp(op, op.getSource());
      return success();
    }
    if (srcType.getNumElements() == 0 || inType.getNumElements() == 0) {
      rewriter.replaceOp(op, makeInit(rewriter, loc, resultType, zero));
      return success();
    }
    Value x = padOperand(rewriter, loc, op.getOperand(), w, zero);
    Value mask = paddedMask(rewriter, loc, op.getOperand(), w);
    Type i64 = rewriter.getI64Type();
    auto idxType = RankedTensorType::get(srcType.getShape(), i64);
    SmallVector<AffineMap> m = windowMaps(rewriter.getContext(), w);
    SmallVector<int64_t> strides(r);
    for (int64_t d = r - 1, acc = 1; d >= 0; --d) {
      strides[d] = acc;
      acc *= inType.getDimSize(d);
    }
    auto picks = makeGeneric(
        rewriter, loc, ValueRange{x, mask, windowShaped(rewriter, loc, w, elem)},
        ValueRange{makeInit(rewriter, loc, srcType, zero),
                   makeInit(rewriter, loc, idxType, scalarConst(rewriter, loc, i64, 0, -1))},
        {m[0], m[0], m[1], m[2], m[2]}, windowIterators(w),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value v = a[0], valid = a[1], cur = a[3], curIdx = a[4];
          // The operand offset this loop reads: q_d = (o_d * stride + k_d * wdil - lo) / base.
          Value flat = indexConst(b, l, 0);
          for (int64_t d = 0; d < r; ++d) {
            Value p = arith::AddIOp::create(
                b, l,
                arith::MulIOp::create(b, l, linalg::IndexOp::create(b, l, d),
                                      indexConst(b, l, w.stride[d])),
                arith::MulIOp::create(b, l, linalg::IndexOp::create(b, l, r + d),
                                      indexConst(b, l, w.wdil[d])));
            p = arith::SubIOp::create(b, l, p, indexConst(b, l, w.lo[d]));
            Value q = arith::DivSIOp::create(b, l, p, indexConst(b, l, w.base[d]));
            flat = arith::AddIOp::create(
                b, l, flat, arith::MulIOp::create(b, l, q, indexConst(b, l, strides[d])));
          }
          Value flat64 = arith::IndexCastOp::create(b, l, i64, flat);
          Value has = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, curIdx,
                                            scalarConst(b, l, i64, 0, 0));
          Value take = takes(b, l, valid, has, cur, v, ge, uns);
          return SmallVector<Value>{arith::SelectOp::create(b, l, take, v, cur),
                                    arith::SelectOp::create(b, l, take, flat64, curIdx)};
        });
    // Flat views: windows, and the operand-shaped result.
    int64_t nWin = srcType.getNumElements(), nOut = inType.getNumElements();
    auto flatten = [&](Value v, Type e, int64_t n) -> Value {
      auto t = tensorOf(v);
      if (t.getRank() == 1)
        return v;
      SmallVector<ReassociationIndices> all(1);
      for (int64_t d = 0; d < t.getRank(); ++d)
        all[0].push_back(d);
      return tensor::CollapseShapeOp::create(rewriter, loc, RankedTensorType::get({n}, e), v, all);
    };
    Value idx = flatten(picks.getResult(1), i64, nWin);
    Value src = flatten(op.getSource(), elem, nWin);
    Value acc0 = makeInit(rewriter, loc, RankedTensorType::get({nOut}, elem), zero);
    auto loop = scf::ForOp::create(
        rewriter, loc, indexConst(rewriter, loc, 0), indexConst(rewriter, loc, nWin),
        indexConst(rewriter, loc, 1), ValueRange{acc0},
        [&](OpBuilder &b, Location l, Value i, ValueRange iter) {
          Value at = tensor::ExtractOp::create(b, l, idx, ValueRange{i});
          Value picked = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, at,
                                               scalarConst(b, l, i64, 0, 0));
          Value acc = iter[0];
          auto ifOp = scf::IfOp::create(
              b, l, picked,
              [&](OpBuilder &tb, Location tl) {
                Value pos = arith::IndexCastOp::create(tb, tl, tb.getIndexType(), at);
                Value old =
                    toSignless(tb, tl, tensor::ExtractOp::create(tb, tl, acc, ValueRange{pos}));
                Value add =
                    toSignless(tb, tl, tensor::ExtractOp::create(tb, tl, src, ValueRange{i}));
                Value sum = fromSignless(tb, tl, emitAdd(tb, tl, old, add), elem);
                scf::YieldOp::create(
                    tb, tl, Value(tensor::InsertOp::create(tb, tl, sum, acc, ValueRange{pos})));
              },
              [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, acc); });
          scf::YieldOp::create(b, l, ifOp.getResults());
        });
    Value result = loop.getResult(0);
    if (r != 1) {
      SmallVector<ReassociationIndices> all(1);
      for (int64_t d = 0; d < r; ++d)
        all[0].push_back(d);
      result = tensor::ExpandShapeOp::create(rewriter, loc, resultType, result, all);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateWindowToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<MonoidWindowToGeneric<st::ReduceWindowSumOp, Monoid::Sum>,
               MonoidWindowToGeneric<st::ReduceWindowMaxOp, Monoid::Max>,
               MonoidWindowToGeneric<st::ReduceWindowMinOp, Monoid::Min>, SelectAndGatherToGeneric,
               SelectAndScatterToLoop>(patterns.getContext());
}

} // namespace mlir::strata::lowering
