// strata-lower-to-linalg: rewrites strata ops on static tensors to linalg/tensor/arith/math.
#include "transforms/Passes.h"

#include "dialects/strata/StrataOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace mlir::strata {
#define GEN_PASS_DEF_STRATALOWERTOLINALG
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;
namespace st = mlir::strata;

namespace {

//===----------------------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------------------===//

/// Float or signless integer (incl. i1): the element types arith and math accept.
bool isLowerableElement(Type t) { return isa<FloatType>(t) || t.isSignlessInteger(); }

/// Every operand and result is a static ranked tensor of a lowerable element type.
bool hasLowerableTypes(Operation *op) {
  auto ok = [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && rt.hasStaticShape() && isLowerableElement(rt.getElementType());
  };
  return llvm::all_of(op->getOperandTypes(), ok) && llvm::all_of(op->getResultTypes(), ok);
}

Value scalarConst(OpBuilder &b, Location loc, Type t, double f, int64_t i) {
  if (auto ft = dyn_cast<FloatType>(t))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, f));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, i));
}

/// An empty tensor of `type`, filled with `fill` when given.
Value makeInit(OpBuilder &b, Location loc, RankedTensorType type, Value fill = {}) {
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  if (!fill)
    return init;
  return linalg::FillOp::create(b, loc, ValueRange{fill}, ValueRange{init}).getResult(0);
}

/// The identity of a reduction: 0 (sum), 1 (prod), the lowest (max) or highest (min) value.
Value reductionIdentity(OpBuilder &b, Location loc, Type t, Operation *op) {
  bool isMax = isa<st::ReduceMaxOp>(op), isMin = isa<st::ReduceMinOp>(op);
  if (!isMax && !isMin)
    return scalarConst(b, loc, t, isa<st::ReduceProdOp>(op) ? 1.0 : 0.0,
                       isa<st::ReduceProdOp>(op) ? 1 : 0);
  if (auto ft = dyn_cast<FloatType>(t))
    return arith::ConstantOp::create(
        b, loc, b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/isMax)));
  unsigned w = t.getIntOrFloatBitWidth();
  // i1 is bool: false < true.
  APInt v = w == 1 ? (isMax ? APInt(1, 0) : APInt(1, 1))
                   : (isMax ? APInt::getSignedMinValue(w) : APInt::getSignedMaxValue(w));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v));
}

/// Max/min of two scalars: NaN-propagating for floats; unsigned for bool.
Value emitMax(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = x.getType();
  if (isa<FloatType>(t))
    return arith::MaximumFOp::create(b, loc, x, y);
  if (t.isInteger(1))
    return arith::MaxUIOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}
Value emitMin(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = x.getType();
  if (isa<FloatType>(t))
    return arith::MinimumFOp::create(b, loc, x, y);
  if (t.isInteger(1))
    return arith::MinUIOp::create(b, loc, x, y);
  return arith::MinSIOp::create(b, loc, x, y);
}
Value emitAdd(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  if (x.getType().isInteger(1))
    return arith::OrIOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}
Value emitMul(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, loc, x, y);
  if (x.getType().isInteger(1))
    return arith::AndIOp::create(b, loc, x, y);
  return arith::MulIOp::create(b, loc, x, y);
}

/// Converts scalar `x` to element type `to` as libstrata does (bool is 0/1; x != 0 to bool).
Value emitConvert(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  auto ff = dyn_cast<FloatType>(from), ft = dyn_cast<FloatType>(to);
  if (ff && ft) {
    if (ff.getWidth() < ft.getWidth())
      return arith::ExtFOp::create(b, loc, ft, x);
    if (ff.getWidth() > ft.getWidth())
      return arith::TruncFOp::create(b, loc, ft, x);
    // Same width, other format (f16 <-> bf16): through f32, which holds both exactly.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    return arith::TruncFOp::create(b, loc, ft, wide);
  }
  if (to.isInteger(1)) {
    Value zero = scalarConst(b, loc, from, 0.0, 0);
    if (ff)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  if (ft) {
    if (from.isInteger(1))
      return arith::UIToFPOp::create(b, loc, ft, x);
    return arith::SIToFPOp::create(b, loc, ft, x);
  }
  if (ff) {
    // libstrata truncates toward zero, saturates and maps NaN to 0; fptosi alone would give
    // poison out of range, so the out-of-range lanes select the saturated value instead.
    unsigned w = to.getIntOrFloatBitWidth();
    double limit = std::ldexp(1.0, static_cast<int>(w) - 1); // 2^(w-1), exact in any float
    int64_t max = w >= 64 ? INT64_MAX : (int64_t{1} << (w - 1)) - 1;
    Value r = arith::FPToSIOp::create(b, loc, to, x);
    Value hi = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x,
                                     scalarConst(b, loc, from, limit, 0));
    r = arith::SelectOp::create(b, loc, hi, scalarConst(b, loc, to, 0, max), r);
    Value lo = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                     scalarConst(b, loc, from, -limit, 0));
    r = arith::SelectOp::create(b, loc, lo, scalarConst(b, loc, to, 0, -max - 1), r);
    Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    return arith::SelectOp::create(b, loc, nan, scalarConst(b, loc, to, 0, 0), r);
  }
  unsigned wf = from.getIntOrFloatBitWidth(), wt = to.getIntOrFloatBitWidth();
  if (from.isInteger(1))
    return arith::ExtUIOp::create(b, loc, to, x);
  if (wf < wt)
    return arith::ExtSIOp::create(b, loc, to, x);
  return arith::TruncIOp::create(b, loc, to, x);
}

/// `x^n` by square-and-multiply (n >= 0).
Value emitPow(OpBuilder &b, Location loc, Value x, uint64_t n) {
  Value result;
  Value base = x;
  while (n) {
    if (n & 1)
      result = result ? emitMul(b, loc, result, base) : base;
    n >>= 1;
    if (n)
      base = emitMul(b, loc, base, base);
  }
  return result ? result : scalarConst(b, loc, x.getType(), 1.0, 1);
}

//===----------------------------------------------------------------------------------===//
// Elementwise ops: one linalg.generic each
//===----------------------------------------------------------------------------------===//

arith::CmpFPredicate floatPredicate(Operation *op) {
  return llvm::TypeSwitch<Operation *, arith::CmpFPredicate>(op)
      .Case<st::EqOp>([](auto) { return arith::CmpFPredicate::OEQ; })
      .Case<st::NeOp>([](auto) { return arith::CmpFPredicate::UNE; })
      .Case<st::LtOp>([](auto) { return arith::CmpFPredicate::OLT; })
      .Case<st::LeOp>([](auto) { return arith::CmpFPredicate::OLE; })
      .Case<st::GtOp>([](auto) { return arith::CmpFPredicate::OGT; })
      .Default([](auto) { return arith::CmpFPredicate::OGE; });
}

/// Signed predicates for integers, unsigned for bool (false < true).
arith::CmpIPredicate intPredicate(Operation *op, bool isBool) {
  using P = arith::CmpIPredicate;
  return llvm::TypeSwitch<Operation *, P>(op)
      .Case<st::EqOp>([](auto) { return P::eq; })
      .Case<st::NeOp>([](auto) { return P::ne; })
      .Case<st::LtOp>([&](auto) { return isBool ? P::ult : P::slt; })
      .Case<st::LeOp>([&](auto) { return isBool ? P::ule : P::sle; })
      .Case<st::GtOp>([&](auto) { return isBool ? P::ugt : P::sgt; })
      .Default([&](auto) { return isBool ? P::uge : P::sge; });
}

/// The scalar body of elementwise `op` on block arguments `a` (one per operand).
Value emitElementwise(OpBuilder &b, Location loc, Operation *op, ValueRange a, Type outType) {
  Value x = a[0];
  Type t = x.getType();
  bool isFloat = isa<FloatType>(t);
  auto c = [&](double f, int64_t i) { return scalarConst(b, loc, t, f, i); };
  return llvm::TypeSwitch<Operation *, Value>(op)
      // ---- unary
      .Case<st::NegOp>([&](auto) -> Value {
        if (isFloat)
          return arith::NegFOp::create(b, loc, x);
        return arith::SubIOp::create(b, loc, c(0, 0), x);
      })
      .Case<st::AbsOp>([&](auto) -> Value {
        if (isFloat)
          return math::AbsFOp::create(b, loc, x);
        return math::AbsIOp::create(b, loc, x);
      })
      .Case<st::SignOp>([&](auto) -> Value {
        if (isFloat) {
          // NaN and both zeros map to themselves; others to +-1 with x's sign.
          Value nonzero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, x, c(0, 0));
          Value one = math::CopySignOp::create(b, loc, c(1, 1), x);
          return arith::SelectOp::create(b, loc, nonzero, one, x);
        }
        Value pos = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, x, c(0, 0));
        Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, c(0, 0));
        Value negOrZero = arith::SelectOp::create(b, loc, neg, c(-1, -1), c(0, 0));
        return arith::SelectOp::create(b, loc, pos, c(1, 1), negOrZero);
      })
      .Case<st::FloorOp>([&](auto) { return math::FloorOp::create(b, loc, x); })
      .Case<st::CeilOp>([&](auto) { return math::CeilOp::create(b, loc, x); })
      .Case<st::RoundOp>([&](auto) { return math::RoundEvenOp::create(b, loc, x); })
      .Case<st::ExpOp>([&](auto) { return math::ExpOp::create(b, loc, x); })
      .Case<st::LogOp>([&](auto) { return math::LogOp::create(b, loc, x); })
      .Case<st::Log1pOp>([&](auto) { return math::Log1pOp::create(b, loc, x); })
      .Case<st::Expm1Op>([&](auto) { return math::ExpM1Op::create(b, loc, x); })
      .Case<st::SqrtOp>([&](auto) { return math::SqrtOp::create(b, loc, x); })
      .Case<st::RsqrtOp>([&](auto) { return math::RsqrtOp::create(b, loc, x); })
      .Case<st::SinOp>([&](auto) { return math::SinOp::create(b, loc, x); })
      .Case<st::CosOp>([&](auto) { return math::CosOp::create(b, loc, x); })
      .Case<st::TanOp>([&](auto) { return math::TanOp::create(b, loc, x); })
      .Case<st::TanhOp>([&](auto) { return math::TanhOp::create(b, loc, x); })
      .Case<st::ErfOp>([&](auto) { return math::ErfOp::create(b, loc, x); })
      .Case<st::IsFiniteOp>([&](auto) { return math::IsFiniteOp::create(b, loc, x); })
      .Case<st::LogisticOp>([&](auto) -> Value {
        // 1 / (1 + exp(-x))
        Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
        Value one = c(1, 1);
        return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e));
      })
      .Case<st::NotOp>([&](auto) { return arith::XOrIOp::create(b, loc, x, c(0, -1)); })
      .Case<st::IntegerPowOp>([&](st::IntegerPowOp p) -> Value {
        int64_t n = p.getYAttr().getInt();
        uint64_t mag = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
        Value pos = emitPow(b, loc, x, mag);
        if (n >= 0)
          return pos;
        return arith::DivFOp::create(b, loc, c(1, 1), pos);
      })
      // ---- binary
      .Case<st::AddOp>([&](auto) { return emitAdd(b, loc, x, a[1]); })
      .Case<st::SubOp>([&](auto) -> Value {
        if (isFloat)
          return arith::SubFOp::create(b, loc, x, a[1]);
        return arith::SubIOp::create(b, loc, x, a[1]);
      })
      .Case<st::MulOp>([&](auto) { return emitMul(b, loc, x, a[1]); })
      .Case<st::DivOp, st::RemOp>([&](auto) -> Value {
        Value y = a[1];
        bool isDiv = isa<st::DivOp>(op);
        if (isFloat)
          return isDiv ? Value(arith::DivFOp::create(b, loc, x, y))
                       : Value(arith::RemFOp::create(b, loc, x, y));
        // XLA's integer semantics without UB: x/0 = -1, x%0 = x, MIN/-1 = MIN, MIN%-1 = 0.
        // Dividing by 1 instead of 0 or -1 gives x (div) and 0 (rem); fix up the rest.
        Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, c(0, 0));
        Value isMinusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, c(-1, -1));
        Value unsafe = arith::OrIOp::create(b, loc, isZero, isMinusOne);
        Value safeY = arith::SelectOp::create(b, loc, unsafe, c(1, 1), y);
        if (isDiv) {
          Value q = arith::DivSIOp::create(b, loc, x, safeY);
          Value negX = arith::SubIOp::create(b, loc, c(0, 0), x); // x / -1 (wraps for MIN)
          q = arith::SelectOp::create(b, loc, isMinusOne, negX, q);
          return arith::SelectOp::create(b, loc, isZero, c(-1, -1), q);
        }
        Value r = arith::RemSIOp::create(b, loc, x, safeY);
        return arith::SelectOp::create(b, loc, isZero, x, r);
      })
      .Case<st::PowOp>([&](auto) { return math::PowFOp::create(b, loc, x, a[1]); })
      .Case<st::MaxOp>([&](auto) { return emitMax(b, loc, x, a[1]); })
      .Case<st::MinOp>([&](auto) { return emitMin(b, loc, x, a[1]); })
      .Case<st::Atan2Op>([&](auto) { return math::Atan2Op::create(b, loc, x, a[1]); })
      .Case<st::AndOp>([&](auto) { return arith::AndIOp::create(b, loc, x, a[1]); })
      .Case<st::OrOp>([&](auto) { return arith::OrIOp::create(b, loc, x, a[1]); })
      .Case<st::XorOp>([&](auto) { return arith::XOrIOp::create(b, loc, x, a[1]); })
      .Case<st::ShiftLeftOp, st::ShiftRightLogicalOp>([&](auto) -> Value {
        // Amounts outside [0, width) give 0 (unsigned compare catches negatives).
        Value y = a[1];
        Value width = c(0, t.getIntOrFloatBitWidth());
        Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, y, width);
        Value shifted = isa<st::ShiftLeftOp>(op) ? Value(arith::ShLIOp::create(b, loc, x, y))
                                                 : Value(arith::ShRUIOp::create(b, loc, x, y));
        return arith::SelectOp::create(b, loc, inRange, shifted, c(0, 0));
      })
      // ---- comparisons
      .Case<st::EqOp, st::NeOp, st::LtOp, st::LeOp, st::GtOp, st::GeOp>([&](auto) -> Value {
        if (isFloat)
          return arith::CmpFOp::create(b, loc, floatPredicate(op), x, a[1]);
        return arith::CmpIOp::create(b, loc, intPredicate(op, t.isInteger(1)), x, a[1]);
      })
      // ---- selection and conversion
      .Case<st::SelectOp>([&](auto) { return arith::SelectOp::create(b, loc, a[0], a[1], a[2]); })
      .Case<st::ClampOp>([&](auto) {
        // min(max(x, lo), hi): NaN propagates and lo > hi gives hi.
        return emitMin(b, loc, emitMax(b, loc, a[1], a[0]), a[2]);
      })
      .Case<st::ConvertElementTypeOp>([&](auto) { return emitConvert(b, loc, x, outType); })
      .Default([](Operation *) { return Value(); });
}

/// Float-only ops on a float operand, integer-only ops on an integer one (the verifier
/// already checks this; re-checked so a body never meets a type it cannot build).
bool bodyAccepts(Operation *op) {
  Type t =
      cast<RankedTensorType>(op->getOperand(op->getNumOperands() - 1).getType()).getElementType();
  bool isFloat = isa<FloatType>(t);
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case<st::FloorOp, st::CeilOp, st::RoundOp, st::ExpOp, st::LogOp, st::Log1pOp, st::Expm1Op,
            st::SqrtOp, st::RsqrtOp, st::SinOp, st::CosOp, st::TanOp, st::TanhOp, st::ErfOp,
            st::IsFiniteOp, st::LogisticOp, st::PowOp, st::Atan2Op>([&](auto) { return isFloat; })
      .Case<st::NotOp, st::AndOp, st::OrOp, st::XorOp, st::ShiftLeftOp, st::ShiftRightLogicalOp>(
          [&](auto) { return !isFloat; })
      .Case<st::IntegerPowOp>(
          [&](st::IntegerPowOp p) { return isFloat || p.getYAttr().getInt() >= 0; })
      .Case<st::NegOp, st::AbsOp, st::SignOp, st::DivOp, st::RemOp>(
          [&](auto) { return !t.isInteger(1); })
      .Default([](Operation *) { return true; });
}

/// Any elementwise strata op => linalg.generic; rank-0 operands (scalar select predicates,
/// clamp bounds) broadcast through an empty indexing map.
template <typename OpTy> struct ElementwiseToGeneric : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    Operation *o = op.getOperation();
    if (!hasLowerableTypes(o) || !bodyAccepts(o))
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/signless elements");
    auto resultType = cast<RankedTensorType>(o->getResult(0).getType());
    int64_t rank = resultType.getRank();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps;
    for (Type t : o->getOperandTypes())
      maps.push_back(cast<RankedTensorType>(t).getRank() == rank
                         ? AffineMap::getMultiDimIdentityMap(rank, ctx)
                         : AffineMap::get(rank, 0, ctx));
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    Location loc = op.getLoc();
    Value init = makeInit(rewriter, loc, resultType);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, o->getOperands(), ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value v = emitElementwise(b, l, o, args.drop_back(), resultType.getElementType());
          linalg::YieldOp::create(b, l, v);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------------------===//

/// stop_gradient is the identity once differentiation is done.
struct StopGradientToOperand : OpRewritePattern<st::StopGradientOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::StopGradientOp op, PatternRewriter &rewriter) const override {
    if (op.getOperand().getType() != op.getResult().getType())
      return failure();
    rewriter.replaceOp(op, op.getOperand());
    return success();
  }
};

/// broadcast_in_dim => linalg.generic reading operand dim i at result dim
/// broadcast_dimensions[i] (or at 0 where a size-1 dim is expanded).
struct BroadcastInDimToGeneric : OpRewritePattern<st::BroadcastInDimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::BroadcastInDimOp op, PatternRewriter &rewriter) const override {
    if (!hasLowerableTypes(op))
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/signless elements");
    auto inType = cast<RankedTensorType>(op.getOperand().getType());
    auto outType = cast<RankedTensorType>(op.getResult().getType());
    ArrayRef<int64_t> dims = op.getBroadcastDimensions();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> exprs;
    for (auto [i, d] : llvm::enumerate(dims))
      exprs.push_back(inType.getDimSize(i) == 1 && outType.getDimSize(d) != 1
                          ? getAffineConstantExpr(0, ctx)
                          : getAffineDimExpr(d, ctx));
    int64_t rank = outType.getRank();
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                   AffineMap::getMultiDimIdentityMap(rank, ctx)};
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    Location loc = op.getLoc();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{outType}, ValueRange{op.getOperand()},
        ValueRange{makeInit(rewriter, loc, outType)}, maps, iterators,
        [](OpBuilder &b, Location l, ValueRange args) { linalg::YieldOp::create(b, l, args[0]); });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// transpose => linalg.transpose.
struct TransposeToLinalg : OpRewritePattern<st::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::TransposeOp op, PatternRewriter &rewriter) const override {
    if (!hasLowerableTypes(op))
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/signless elements");
    auto outType = cast<RankedTensorType>(op.getResult().getType());
    Location loc = op.getLoc();
    auto t = linalg::TransposeOp::create(rewriter, loc, op.getOperand(),
                                         makeInit(rewriter, loc, outType), op.getPermutation());
    rewriter.replaceOp(op, t.getResult());
    return success();
  }
};

/// reshape => tensor.collapse_shape / tensor.expand_shape when the shapes nest, else
/// tensor.reshape with a constant shape.
struct ReshapeToTensor : OpRewritePattern<st::ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::ReshapeOp op, PatternRewriter &rewriter) const override {
    if (!hasLowerableTypes(op))
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/signless elements");
    auto inType = cast<RankedTensorType>(op.getOperand().getType());
    auto outType = cast<RankedTensorType>(op.getResult().getType());
    Location loc = op.getLoc();
    if (inType == outType) {
      rewriter.replaceOp(op, op.getOperand());
      return success();
    }
    if (inType.getRank() > outType.getRank()) {
      if (auto re = getReassociationIndicesForCollapse(inType.getShape(), outType.getShape())) {
        rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, outType, op.getOperand(), *re);
        return success();
      }
    } else if (inType.getRank() < outType.getRank()) {
      if (auto re = getReassociationIndicesForCollapse(outType.getShape(), inType.getShape())) {
        rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, outType, op.getOperand(), *re);
        return success();
      }
    }
    auto shapeType = RankedTensorType::get({outType.getRank()}, rewriter.getI64Type());
    Value shape = arith::ConstantOp::create(
        rewriter, loc, DenseIntElementsAttr::get(shapeType, outType.getShape()));
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, outType, op.getOperand(), shape);
    return success();
  }
};

//===----------------------------------------------------------------------------------===//
// Reductions and contractions
//===----------------------------------------------------------------------------------===//

/// reduce_{sum,max,min,prod} => linalg.reduce into an init filled with the identity.
template <typename OpTy> struct ReduceToLinalg : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    Operation *o = op.getOperation();
    if (!hasLowerableTypes(o))
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/signless elements");
    if (op.getAxes().empty()) {
      rewriter.replaceOp(op, op.getOperand());
      return success();
    }
    auto outType = cast<RankedTensorType>(op.getResult().getType());
    Type elem = outType.getElementType();
    Location loc = op.getLoc();
    Value init = makeInit(rewriter, loc, outType, reductionIdentity(rewriter, loc, elem, o));
    SmallVector<int64_t> axes(op.getAxes());
    llvm::sort(axes);
    auto reduce = linalg::ReduceOp::create(
        rewriter, loc, ValueRange{op.getOperand()}, ValueRange{init}, axes,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], acc = args[1];
          Value v =
              llvm::TypeSwitch<Operation *, Value>(o)
                  .template Case<st::ReduceSumOp>([&](auto) { return emitAdd(b, l, x, acc); })
                  .template Case<st::ReduceProdOp>([&](auto) { return emitMul(b, l, x, acc); })
                  .template Case<st::ReduceMaxOp>([&](auto) { return emitMax(b, l, x, acc); })
                  .Default([&](Operation *) { return emitMin(b, l, x, acc); });
          linalg::YieldOp::create(b, l, v);
        });
    rewriter.replaceOp(op, reduce.getResults());
    return success();
  }
};

/// dot_general => linalg.matmul / linalg.batch_matmul for the canonical layouts (one element
/// type throughout), else a linalg.generic over (batch, lhs free, rhs free, contracting).
struct DotGeneralToLinalg : OpRewritePattern<st::DotGeneralOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::DotGeneralOp op, PatternRewriter &rewriter) const override {
    if (!hasLowerableTypes(op))
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/signless elements");
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
    auto outType = cast<RankedTensorType>(op.getResult().getType());
    Type outElem = outType.getElementType();
    Location loc = op.getLoc();
    Value init = makeInit(rewriter, loc, outType, scalarConst(rewriter, loc, outElem, 0.0, 0));
    ArrayRef<int64_t> lb = op.getLhsBatch(), rb = op.getRhsBatch();
    ArrayRef<int64_t> lc = op.getLhsContracting(), rc = op.getRhsContracting();
    Value lhs = op.getLhs(), rhs = op.getRhs();

    bool oneType = lhsType.getElementType() == outElem && rhsType.getElementType() == outElem &&
                   !outElem.isInteger(1);
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
    int64_t nParallel = nb + nlf + nrf, nLoops = nParallel + nc;
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
        exprs.push_back(getAffineDimExpr(loop, ctx));
      }
      return AffineMap::get(nLoops, 0, exprs, ctx);
    };
    SmallVector<AffineExpr> outExprs;
    for (int64_t d = 0; d < nParallel; ++d)
      outExprs.push_back(getAffineDimExpr(d, ctx));
    SmallVector<AffineMap> maps = {operandMap(lhsType.getRank(), lb, lc, nb),
                                   operandMap(rhsType.getRank(), rb, rc, nb + nlf),
                                   AffineMap::get(nLoops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(nParallel, utils::IteratorType::parallel);
    iterators.append(nc, utils::IteratorType::reduction);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{outType}, ValueRange{lhs, rhs}, ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          // Accumulate in the result type (preferred_element_type widens it).
          Value x = emitConvert(b, l, args[0], outElem);
          Value y = emitConvert(b, l, args[1], outElem);
          linalg::YieldOp::create(b, l, emitAdd(b, l, args[2], emitMul(b, l, x, y)));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------------------===//

struct StrataLowerToLinalgPass : st::impl::StrataLowerToLinalgBase<StrataLowerToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns
        .add<ElementwiseToGeneric<st::NegOp>, ElementwiseToGeneric<st::AbsOp>,
             ElementwiseToGeneric<st::SignOp>, ElementwiseToGeneric<st::FloorOp>,
             ElementwiseToGeneric<st::CeilOp>, ElementwiseToGeneric<st::RoundOp>,
             ElementwiseToGeneric<st::ExpOp>, ElementwiseToGeneric<st::LogOp>,
             ElementwiseToGeneric<st::Log1pOp>, ElementwiseToGeneric<st::Expm1Op>,
             ElementwiseToGeneric<st::SqrtOp>, ElementwiseToGeneric<st::RsqrtOp>,
             ElementwiseToGeneric<st::SinOp>, ElementwiseToGeneric<st::CosOp>,
             ElementwiseToGeneric<st::TanOp>, ElementwiseToGeneric<st::TanhOp>,
             ElementwiseToGeneric<st::LogisticOp>, ElementwiseToGeneric<st::ErfOp>,
             ElementwiseToGeneric<st::IsFiniteOp>, ElementwiseToGeneric<st::NotOp>,
             ElementwiseToGeneric<st::IntegerPowOp>, ElementwiseToGeneric<st::AddOp>,
             ElementwiseToGeneric<st::SubOp>, ElementwiseToGeneric<st::MulOp>,
             ElementwiseToGeneric<st::DivOp>, ElementwiseToGeneric<st::RemOp>,
             ElementwiseToGeneric<st::PowOp>, ElementwiseToGeneric<st::MaxOp>,
             ElementwiseToGeneric<st::MinOp>, ElementwiseToGeneric<st::Atan2Op>,
             ElementwiseToGeneric<st::AndOp>, ElementwiseToGeneric<st::OrOp>,
             ElementwiseToGeneric<st::XorOp>, ElementwiseToGeneric<st::ShiftLeftOp>,
             ElementwiseToGeneric<st::ShiftRightLogicalOp>, ElementwiseToGeneric<st::EqOp>,
             ElementwiseToGeneric<st::NeOp>, ElementwiseToGeneric<st::LtOp>,
             ElementwiseToGeneric<st::LeOp>, ElementwiseToGeneric<st::GtOp>,
             ElementwiseToGeneric<st::GeOp>, ElementwiseToGeneric<st::SelectOp>,
             ElementwiseToGeneric<st::ClampOp>, ElementwiseToGeneric<st::ConvertElementTypeOp>,
             StopGradientToOperand, BroadcastInDimToGeneric, TransposeToLinalg, ReshapeToTensor,
             ReduceToLinalg<st::ReduceSumOp>, ReduceToLinalg<st::ReduceMaxOp>,
             ReduceToLinalg<st::ReduceMinOp>, ReduceToLinalg<st::ReduceProdOp>, DotGeneralToLinalg>(
            ctx);
    // One walk: every pattern creates only upstream ops, so nothing needs revisiting, and
    // unrelated IR is left exactly as it was (no folding).
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
