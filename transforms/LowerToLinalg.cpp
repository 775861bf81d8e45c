// strata-lower-to-linalg: rewrites strata ops on static tensors to linalg/tensor/arith/math/scf.
#include "transforms/Passes.h"

#include "dialects/strata/StrataOps.h"
#include "dialects/strata/StrataVerify.h"
#include "lib/bessel_coefficients.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

namespace mlir::strata {
#define GEN_PASS_DEF_STRATALOWERTOLINALG
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;
namespace st = mlir::strata;

namespace {

//===----------------------------------------------------------------------------------===//
// Helpers: types, scalars, generic bodies
//===----------------------------------------------------------------------------------===//

/// Float, signless integer (incl. i1) or unsigned integer: the element types Strata uses.
bool isLowerableElement(Type t) {
  auto it = dyn_cast<IntegerType>(t);
  return isa<FloatType>(t) || (it && !it.isSigned());
}

/// Every operand and result is a static ranked tensor of a lowerable element type.
bool hasLowerableTypes(Operation *op) {
  auto ok = [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && rt.hasStaticShape() && isLowerableElement(rt.getElementType());
  };
  return llvm::all_of(op->getOperandTypes(), ok) && llvm::all_of(op->getResultTypes(), ok);
}

Type elementOf(Value v) { return cast<RankedTensorType>(v.getType()).getElementType(); }
RankedTensorType tensorOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// The signless type arith works on: uiN -> iN, anything else unchanged.
Type signlessOf(Type t) {
  if (t.isUnsignedInteger())
    return IntegerType::get(t.getContext(), t.getIntOrFloatBitWidth());
  return t;
}

/// arith is signless-only: unsigned scalars cross into and out of a body through
/// unrealized casts, which disappear once both sides lower to LLVM's iN.
Value toSignless(OpBuilder &b, Location loc, Value v) {
  Type t = signlessOf(v.getType());
  if (t == v.getType())
    return v;
  return UnrealizedConversionCastOp::create(b, loc, t, v).getResult(0);
}
Value fromSignless(OpBuilder &b, Location loc, Value v, Type to) {
  if (v.getType() == to)
    return v;
  return UnrealizedConversionCastOp::create(b, loc, to, v).getResult(0);
}

Value scalarConst(OpBuilder &b, Location loc, Type t, double f, int64_t i) {
  if (auto ft = dyn_cast<FloatType>(t))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, f));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, i));
}
Value indexConst(OpBuilder &b, Location loc, int64_t i) {
  return arith::ConstantIndexOp::create(b, loc, i);
}

/// An empty tensor of `type`, filled with `fill` when given.
Value makeInit(OpBuilder &b, Location loc, RankedTensorType type, Value fill = {}) {
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  if (!fill)
    return init;
  return linalg::FillOp::create(b, loc, ValueRange{fill}, ValueRange{init}).getResult(0);
}

using BodyFn = function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

/// A linalg.generic whose body builder sees signless scalars (inputs, then outputs) and
/// returns signless results, cast back to the output element types.
linalg::GenericOp makeGeneric(OpBuilder &b, Location loc, ValueRange inputs, ValueRange inits,
                              ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iterators,
                              BodyFn body) {
  return linalg::GenericOp::create(
      b, loc, inits.getTypes(), inputs, inits, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        SmallVector<Value> in;
        for (Value a : args)
          in.push_back(toSignless(nb, l, a));
        SmallVector<Value> out = body(nb, l, in);
        for (size_t i = 0; i < out.size(); ++i)
          out[i] = fromSignless(nb, l, out[i], elementOf(inits[i]));
        linalg::YieldOp::create(nb, l, out);
        for (auto [a, v] : llvm::zip(args, in)) // casts of arguments the body did not read
          if (a != v && v.use_empty())
            v.getDefiningOp()->erase();
      });
}

SmallVector<utils::IteratorType> parallelIterators(int64_t n) {
  return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
}

/// `value` (an f32 tensor) rounded elementwise to `type`'s narrower float element type: the
/// last step of an f16/bf16 op that accumulates in f32.
Value truncateTensor(OpBuilder &b, Location loc, Value value, RankedTensorType type) {
  int64_t rank = type.getRank();
  SmallVector<AffineMap> ids(2, AffineMap::getMultiDimIdentityMap(rank, b.getContext()));
  return makeGeneric(b, loc, ValueRange{value}, ValueRange{makeInit(b, loc, type)}, ids,
                     parallelIterators(rank),
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       return SmallVector<Value>{
                           arith::TruncFOp::create(nb, l, type.getElementType(), args[0])};
                     })
      .getResult(0);
}

/// `shape` without dimension `dim`.
SmallVector<int64_t> dropDim(ArrayRef<int64_t> shape, int64_t dim) {
  SmallVector<int64_t> out(shape);
  out.erase(out.begin() + dim);
  return out;
}

/// The map of `nLoops` loops onto the first `rank` of them, loop `dim` replaced by `with`.
AffineMap mapWithDim(MLIRContext *ctx, int64_t nLoops, int64_t rank, int64_t dim, AffineExpr with) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    exprs.push_back(d == dim ? with : getAffineDimExpr(d, ctx));
  return AffineMap::get(nLoops, 0, exprs, ctx);
}

/// The map of `nLoops` loops onto the first `rank` of them, loop `dim` dropped.
AffineMap mapDroppingDim(MLIRContext *ctx, int64_t nLoops, int64_t rank, int64_t dim) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(nLoops, 0, exprs, ctx);
}

/// An integer scalar (any width, signless or unsigned) widened to i64 as libstrata widens
/// indices: zero-extended when unsigned, sign-extended otherwise.
Value widenIndex(OpBuilder &b, Location loc, Value v, bool isUnsigned) {
  v = toSignless(b, loc, v);
  unsigned w = v.getType().getIntOrFloatBitWidth();
  if (w == 64)
    return v;
  if (isUnsigned)
    return arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
  return arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
}

/// clamp(v, lo, hi) on i64 (lo <= hi).
Value clampI64(OpBuilder &b, Location loc, Value v, int64_t lo, int64_t hi) {
  Value c = arith::MaxSIOp::create(b, loc, v, scalarConst(b, loc, b.getI64Type(), 0, lo));
  return arith::MinSIOp::create(b, loc, c, scalarConst(b, loc, b.getI64Type(), 0, hi));
}

Value toIndex(OpBuilder &b, Location loc, Value i64) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), i64);
}

//===----------------------------------------------------------------------------------===//
// Scalar arithmetic shared by the bodies (signless values; `uns` says unsigned)
//===----------------------------------------------------------------------------------===//

/// atan2(y, x) as libm computes it. math.atan2 alone is not enough: its folder turns
/// atan2(0, 0) into NaN (libm: +-0 or +-pi by the signs), so both zeros are handled here.
Value emitAtan2(OpBuilder &b, Location loc, Value y, Value x) {
  Type t = y.getType();
  auto bits = b.getIntegerType(cast<FloatType>(t).getWidth());
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(t, 0.0));
  Value pi = arith::ConstantOp::create(b, loc, b.getFloatAttr(t, 3.14159265358979323846));
  Value bothZero = arith::AndIOp::create(
      b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, y, zero),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, zero));
  // x = -0 gives +-pi, x = +0 gives +-0, the sign taken from y.
  Value xNegative = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::slt,
      arith::BitcastOp::create(b, loc, bits, x),
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(bits, 0)));
  Value magnitude = arith::SelectOp::create(b, loc, xNegative, pi, zero);
  Value atZero = math::CopySignOp::create(b, loc, magnitude, y);
  return arith::SelectOp::create(b, loc, bothZero, atZero, math::Atan2Op::create(b, loc, y, x));
}

/// The identity of a reduction: 0 (sum), 1 (prod), the lowest (max) or highest (min) value.
Value reductionIdentity(OpBuilder &b, Location loc, Type t, bool uns, bool isSum, bool isProd,
                        bool isMax) {
  if (isSum || isProd)
    return scalarConst(b, loc, t, isProd ? 1.0 : 0.0, isProd ? 1 : 0);
  if (auto ft = dyn_cast<FloatType>(t))
    return arith::ConstantOp::create(
        b, loc, b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/isMax)));
  unsigned w = t.getIntOrFloatBitWidth();
  // Bool and unsigned: 0 is the lowest value; i1 is bool (false < true), as emitMax/emitMin
  // compare it.
  uns = uns || t.isInteger(1);
  APInt v = uns ? (isMax ? APInt::getMinValue(w) : APInt::getMaxValue(w))
                : (isMax ? APInt::getSignedMinValue(w) : APInt::getSignedMaxValue(w));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v));
}

/// Max/min of two scalars: NaN-propagating for floats; unsigned for bool and uiN.
Value emitMax(OpBuilder &b, Location loc, Value x, Value y, bool uns) {
  Type t = x.getType();
  if (isa<FloatType>(t))
    return arith::MaximumFOp::create(b, loc, x, y);
  if (uns || t.isInteger(1))
    return arith::MaxUIOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}
Value emitMin(OpBuilder &b, Location loc, Value x, Value y, bool uns) {
  Type t = x.getType();
  if (isa<FloatType>(t))
    return arith::MinimumFOp::create(b, loc, x, y);
  if (uns || t.isInteger(1))
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

/// `a > b` (or `a < b` when !greater): ordered for floats, unsigned for bool and uiN.
Value emitGreater(OpBuilder &b, Location loc, Value a, Value c, bool uns, bool greater) {
  if (isa<FloatType>(a.getType()))
    return arith::CmpFOp::create(
        b, loc, greater ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, a, c);
  using P = arith::CmpIPredicate;
  bool u = uns || a.getType().isInteger(1);
  return arith::CmpIOp::create(b, loc, greater ? (u ? P::ugt : P::sgt) : (u ? P::ult : P::slt), a,
                               c);
}

Value isNan(OpBuilder &b, Location loc, Value x) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
}

/// libstrata's running max/min step (reduce.cpp's MaxOp/MinOp): keeps `acc` when it is
/// strictly better or NaN, else takes `v` (so NaN propagates and ties take the newer value).
Value emitScanExtremum(OpBuilder &b, Location loc, Value acc, Value v, bool uns, bool isMax) {
  Value keep = emitGreater(b, loc, acc, v, uns, isMax);
  if (isa<FloatType>(acc.getType()))
    keep = arith::OrIOp::create(b, loc, keep, isNan(b, loc, acc));
  return arith::SelectOp::create(b, loc, keep, acc, v);
}

/// The float value of integer `v` (w bits, signed or not) rounded to nearest-even in `ft`.
double intAsFloat(FloatType ft, const APInt &v, bool isSigned) {
  APFloat f(ft.getFloatSemantics());
  f.convertFromAPInt(v, isSigned, APFloat::rmNearestTiesToEven);
  bool lost = false;
  f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return f.convertToDouble();
}

/// Converts scalar `x` (signless; unsigned when `fromUns`) to signless `to` (unsigned when
/// `toUns`) as libstrata does: bool is 0/1, x != 0 to bool, float -> int truncates toward
/// zero and saturates, NaN -> 0.
Value emitConvert(OpBuilder &b, Location loc, Value x, bool fromUns, Type to, bool toUns) {
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
    if (fromUns || from.isInteger(1))
      return arith::UIToFPOp::create(b, loc, ft, x);
    return arith::SIToFPOp::create(b, loc, ft, x);
  }
  if (ff) {
    // libstrata: NaN -> 0, v <= (From)MIN -> MIN, v >= (From)MAX -> MAX, else truncate.
    // fptosi/fptoui alone would give poison out of range, so those lanes select instead.
    unsigned w = to.getIntOrFloatBitWidth();
    APInt maxV = toUns ? APInt::getMaxValue(w) : APInt::getSignedMaxValue(w);
    APInt minV = toUns ? APInt::getMinValue(w) : APInt::getSignedMinValue(w);
    Value hiF = scalarConst(b, loc, from, intAsFloat(ff, maxV, !toUns), 0);
    Value loF = scalarConst(b, loc, from, intAsFloat(ff, minV, !toUns), 0);
    Value r = toUns ? Value(arith::FPToUIOp::create(b, loc, to, x))
                    : Value(arith::FPToSIOp::create(b, loc, to, x));
    Value hi = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, hiF);
    r = arith::SelectOp::create(b, loc, hi,
                                arith::ConstantOp::create(b, loc, b.getIntegerAttr(to, maxV)), r);
    Value lo = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, x, loF);
    r = arith::SelectOp::create(b, loc, lo,
                                arith::ConstantOp::create(b, loc, b.getIntegerAttr(to, minV)), r);
    return arith::SelectOp::create(b, loc, isNan(b, loc, x), scalarConst(b, loc, to, 0, 0), r);
  }
  unsigned wf = from.getIntOrFloatBitWidth(), wt = to.getIntOrFloatBitWidth();
  if (wf == wt)
    return x; // iN <-> uiN: the same bits
  if (wf < wt) {
    if (fromUns || from.isInteger(1))
      return arith::ExtUIOp::create(b, loc, to, x);
    return arith::ExtSIOp::create(b, loc, to, x);
  }
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

/// erf^-1 as libstrata computes it (elementwise.cpp's erf_inv_f64), in f64: Giles'
/// approximation, then two Newton steps on erf (|x| <= 0.5) or up to six on log(erfc) (tail,
/// stopping once a step is below 1e-17 y, as the reference loop breaks).
Value emitErfInv(OpBuilder &b, Location loc, Value x0) {
  Type t = x0.getType();
  Type f64 = b.getF64Type();
  Value x = t == f64 ? x0 : Value(arith::ExtFOp::create(b, loc, f64, x0));
  auto c = [&](double v) { return scalarConst(b, loc, f64, v, 0); };
  auto add = [&](Value p, Value q) { return Value(arith::AddFOp::create(b, loc, p, q)); };
  auto sub = [&](Value p, Value q) { return Value(arith::SubFOp::create(b, loc, p, q)); };
  auto mul = [&](Value p, Value q) { return Value(arith::MulFOp::create(b, loc, p, q)); };
  auto div = [&](Value p, Value q) { return Value(arith::DivFOp::create(b, loc, p, q)); };
  auto cmp = [&](arith::CmpFPredicate pr, Value p, Value q) {
    return Value(arith::CmpFOp::create(b, loc, pr, p, q));
  };
  auto sel = [&](Value cnd, Value p, Value q) {
    return Value(arith::SelectOp::create(b, loc, cnd, p, q));
  };
  auto horner = [&](ArrayRef<double> coeffs, Value w) {
    Value p = c(coeffs[0]);
    for (double k : coeffs.drop_front())
      p = add(c(k), mul(p, w));
    return p;
  };
  Value one = c(1.0);
  Value w =
      arith::NegFOp::create(b, loc, math::LogOp::create(b, loc, mul(sub(one, x), add(one, x))));
  Value pCentral = horner({2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                           0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941},
                          sub(w, c(2.5)));
  Value pTail = horner({-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                        0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682},
                       sub(math::SqrtOp::create(b, loc, w), c(3.0)));
  Value p = sel(cmp(arith::CmpFPredicate::OLT, w, c(5.0)), pCentral, pTail);
  Value ax = math::AbsFOp::create(b, loc, x);
  Value y0 = mul(p, ax);
  Value twoOverSqrtPi = c(1.1283791670955126);
  auto gauss = [&](Value y) { // 2/sqrt(pi) exp(-y^2)
    return mul(twoOverSqrtPi,
               math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, mul(y, y))));
  };
  // |x| <= 0.5: y -= (erf(y) - |x|) / (2/sqrt(pi) exp(-y^2)), twice.
  Value yc = y0;
  for (int i = 0; i < 2; ++i)
    yc = sub(yc, div(sub(math::ErfOp::create(b, loc, yc), ax), gauss(yc)));
  // Tail: Newton on log(erfc(y)) = log(1 - |x|).
  Value target = math::LogOp::create(b, loc, sub(one, ax));
  Value yt = y0;
  Value done = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  for (int i = 0; i < 6; ++i) {
    Value e = math::ErfcOp::create(b, loc, yt);
    Value step = div(mul(sub(math::LogOp::create(b, loc, e), target), e),
                     arith::NegFOp::create(b, loc, gauss(yt)));
    Value next = sub(yt, step);
    Value small =
        cmp(arith::CmpFPredicate::OLE, math::AbsFOp::create(b, loc, step), mul(c(1e-17), next));
    yt = sel(done, yt, next);
    done = arith::OrIOp::create(b, loc, done, small);
  }
  Value y = sel(cmp(arith::CmpFPredicate::OLE, ax, c(0.5)), yc, yt);
  y = math::CopySignOp::create(b, loc, y, x);
  // Edges: +-1 -> +-inf, beyond -> NaN, NaN -> itself.
  Value inf = c(std::numeric_limits<double>::infinity());
  Value nan = c(std::numeric_limits<double>::quiet_NaN());
  y = sel(cmp(arith::CmpFPredicate::OGT, ax, one), nan, y);
  y = sel(cmp(arith::CmpFPredicate::OEQ, ax, one), math::CopySignOp::create(b, loc, inf, x), y);
  y = sel(isNan(b, loc, x), x, y);
  return t == f64 ? y : Value(arith::TruncFOp::create(b, loc, t, y));
}

//===----------------------------------------------------------------------------------===//
// Special functions: libstrata's f64 algorithms (lib/primitives/elementwise.cpp)
//===----------------------------------------------------------------------------------===//

/// f64 scalar arithmetic at one insertion point.
struct F64Ops {
  OpBuilder &b;
  Location loc;
  Type f() const { return b.getF64Type(); }
  Value c(double v) const { return scalarConst(b, loc, f(), v, 0); }
  Value boolean(bool v) const { return arith::ConstantOp::create(b, loc, b.getBoolAttr(v)); }
  Value add(Value p, Value q) const { return arith::AddFOp::create(b, loc, p, q); }
  Value sub(Value p, Value q) const { return arith::SubFOp::create(b, loc, p, q); }
  Value mul(Value p, Value q) const { return arith::MulFOp::create(b, loc, p, q); }
  Value div(Value p, Value q) const { return arith::DivFOp::create(b, loc, p, q); }
  Value neg(Value p) const { return arith::NegFOp::create(b, loc, p); }
  Value cmp(arith::CmpFPredicate pr, Value p, Value q) const {
    return arith::CmpFOp::create(b, loc, pr, p, q);
  }
  Value lt(Value p, Value q) const { return cmp(arith::CmpFPredicate::OLT, p, q); }
  Value le(Value p, Value q) const { return cmp(arith::CmpFPredicate::OLE, p, q); }
  Value gt(Value p, Value q) const { return cmp(arith::CmpFPredicate::OGT, p, q); }
  Value ge(Value p, Value q) const { return cmp(arith::CmpFPredicate::OGE, p, q); }
  Value eq(Value p, Value q) const { return cmp(arith::CmpFPredicate::OEQ, p, q); }
  Value ne(Value p, Value q) const { return cmp(arith::CmpFPredicate::UNE, p, q); }
  Value sel(Value cnd, Value p, Value q) const { return arith::SelectOp::create(b, loc, cnd, p, q); }
  Value all(Value p, Value q) const { return arith::AndIOp::create(b, loc, p, q); }
  Value any(Value p, Value q) const { return arith::OrIOp::create(b, loc, p, q); }
  Value no(Value p) const { return arith::XOrIOp::create(b, loc, p, boolean(true)); }
  Value nan(Value p) const { return isNan(b, loc, p); }
  Value isInf(Value p) const { return eq(abs(p), c(std::numeric_limits<double>::infinity())); }
  Value abs(Value p) const { return math::AbsFOp::create(b, loc, p); }
  Value log(Value p) const { return math::LogOp::create(b, loc, p); }
  Value exp(Value p) const { return math::ExpOp::create(b, loc, p); }
  Value sin(Value p) const { return math::SinOp::create(b, loc, p); }
  Value tan(Value p) const { return math::TanOp::create(b, loc, p); }
  Value pow(Value p, Value q) const { return math::PowFOp::create(b, loc, p, q); }
  Value floor(Value p) const { return math::FloorOp::create(b, loc, p); }
  Value roundEven(Value p) const { return math::RoundEvenOp::create(b, loc, p); }
  Value isInteger(Value p) const { return eq(p, floor(p)); }
};

constexpr double kPiD = 3.14159265358979323846;
constexpr double kEpsD = std::numeric_limits<double>::epsilon();
constexpr double kNaND = std::numeric_limits<double>::quiet_NaN();
constexpr double kInfD = std::numeric_limits<double>::infinity();

/// scf.while over `init`: `body` maps the state to the next one while `cont` holds.
SmallVector<Value> emitWhile(F64Ops &e, ValueRange init,
                             function_ref<Value(F64Ops &, ValueRange)> cont,
                             function_ref<SmallVector<Value>(F64Ops &, ValueRange)> body) {
  SmallVector<Type> types(init.getTypes());
  auto loop = scf::WhileOp::create(
      e.b, e.loc, types, init,
      [&](OpBuilder &b, Location l, ValueRange args) {
        F64Ops in{b, l};
        scf::ConditionOp::create(b, l, cont(in, args), args);
      },
      [&](OpBuilder &b, Location l, ValueRange args) {
        F64Ops in{b, l};
        scf::YieldOp::create(b, l, body(in, args));
      });
  return SmallVector<Value>(loop.getResults());
}

/// log |Gamma(x)|: Lanczos' approximation (g = 7, 9 terms) for x >= 1/2, the reflection
/// log(pi / |sin(pi x)|) - lgamma(1 - x) below (sin's argument reduced exactly). libstrata
/// calls libm's lgamma, to which this agrees within about 1e-15 (absolute near the zeros at 1
/// and 2, relative elsewhere).
Value emitLgammaF64(F64Ops &e, Value x) {
  static const double p[] = {0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
                             771.32342877765313,   -176.61502916214059,   12.507343278686905,
                             -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
  Value small = e.lt(x, e.c(0.5));
  Value y = e.sel(small, e.sub(e.c(1), x), x);
  Value z = e.sub(y, e.c(1));
  Value sum = e.c(p[0]);
  for (int k = 1; k < 9; ++k)
    sum = e.add(sum, e.div(e.c(p[k]), e.add(z, e.c(k))));
  Value t = e.add(z, e.c(7.5));
  Value lg = e.add(e.sub(e.add(e.c(0.91893853320467274178), e.mul(e.add(z, e.c(0.5)), e.log(t))), t),
                   e.log(sum));
  Value r = e.sub(x, e.mul(e.c(2), e.roundEven(e.mul(x, e.c(0.5)))));
  Value s = e.abs(e.sin(e.mul(e.c(kPiD), r)));
  Value refl = e.sub(e.log(e.div(e.c(kPiD), s)), lg);
  Value out = e.sel(small, refl, lg);
  // Below 1e-300, pi x loses bits (it is subnormal) and pi / s overflows; there lgamma(x) is
  // -log|x| to double precision (the next term, -0.5772 x, is below 1e-300).
  Value ax = e.abs(x);
  out = e.sel(e.lt(ax, e.c(1e-300)), e.sub(e.c(0), e.log(ax)), out);
  return e.sel(e.isInf(x), e.c(kInfD), out);
}

/// digamma_f64: reflection, ten recurrence steps (unrolled), the asymptotic series.
Value emitDigammaF64(F64Ops &e, Value x) {
  Value bad = e.any(e.nan(x), e.all(e.le(x, e.c(0)), e.isInteger(x)));
  Value small = e.lt(x, e.c(0.5));
  Value refl = e.div(e.c(-kPiD), e.tan(e.mul(e.c(kPiD), e.sub(x, e.roundEven(x)))));
  Value acc = e.sel(small, refl, e.c(0));
  Value y = e.sel(small, e.sub(e.c(1), x), x);
  for (int i = 0; i < 10; ++i) {
    Value below = e.lt(y, e.c(10));
    acc = e.sel(below, e.sub(acc, e.div(e.c(1), y)), acc);
    y = e.sel(below, e.add(y, e.c(1)), y);
  }
  Value z = e.div(e.c(1), e.mul(y, y));
  Value series = e.sub(e.c(691.0 / 32760), e.mul(z, e.c(1.0 / 12)));
  for (double k : {1.0 / 132, 1.0 / 240, 1.0 / 252, 1.0 / 120, 1.0 / 12})
    series = e.sub(e.c(k), e.mul(z, series));
  series = e.mul(z, series);
  Value out = e.sub(e.sub(e.add(acc, e.log(y)), e.div(e.c(0.5), y)), series);
  return e.sel(bad, e.c(kNaND), out);
}

/// zeta_f64: Euler-Maclaurin summation (the direct terms in an scf.while, the 12 Bernoulli
/// corrections unrolled).
Value emitZetaF64(F64Ops &e, Value s, Value q) {
  static const double bern[12] = {12.0,
                                  -720.0,
                                  30240.0,
                                  -1209600.0,
                                  47900160.0,
                                  -1.8924375803183791606e9,
                                  7.47242496e10,
                                  -2.950130727918164224e12,
                                  1.1646782814350067249e14,
                                  -4.5979787224074726105e15,
                                  1.8152105401943546773e17,
                                  -7.1661652561756670113e18};
  Value anyNan = e.any(e.nan(s), e.nan(q));
  Value sIsOne = e.eq(s, e.c(1));
  Value sBelow = e.lt(s, e.c(1));
  Value qNonPos = e.le(q, e.c(0));
  Value qPole = e.all(qNonPos, e.isInteger(q));
  Value sFrac = e.all(qNonPos, e.no(e.isInteger(s)));
  Value bad = e.any(e.any(anyNan, sIsOne), e.any(sBelow, e.any(qPole, sFrac)));
  Value negS = e.neg(s);
  // state: i, a, term, sum, done
  SmallVector<Value> init = {e.c(0), q, e.c(0), e.pow(q, negS), bad};
  SmallVector<Value> st = emitWhile(
      e, init,
      [&](F64Ops &in, ValueRange v) {
        Value more = in.any(in.lt(v[0], in.c(9)), in.le(v[1], in.c(9)));
        return in.all(in.all(in.no(v[4]), in.lt(v[0], in.c(100000))), more);
      },
      [&](F64Ops &in, ValueRange v) {
        Value a = in.add(v[1], in.c(1));
        Value term = in.pow(a, negS);
        Value sum = in.add(v[3], term);
        Value done = in.lt(in.abs(in.div(term, sum)), in.c(kEpsD));
        return SmallVector<Value>{in.add(v[0], in.c(1)), a, term, sum, done};
      });
  Value w = st[1], term = st[2], sum = st[3], done = st[4];
  Value tail = e.sub(e.add(sum, e.div(e.mul(term, w), e.sub(s, e.c(1)))), e.mul(e.c(0.5), term));
  Value fac = e.c(1), stop = e.boolean(false);
  for (int i = 0; i < 12; ++i) {
    fac = e.mul(fac, e.add(s, e.c(2 * i)));
    term = e.div(term, w);
    Value t = e.div(e.mul(fac, term), e.c(bern[i]));
    Value next = e.add(tail, t);
    Value small = e.lt(e.abs(e.div(t, next)), e.c(kEpsD));
    tail = e.sel(stop, tail, next);
    stop = e.any(stop, small);
    fac = e.mul(fac, e.add(s, e.c(2 * i + 1)));
    term = e.div(term, w);
  }
  Value out = e.sel(done, sum, tail);
  out = e.sel(sFrac, e.c(kNaND), out);
  out = e.sel(qPole, e.c(kInfD), out);
  out = e.sel(sBelow, e.c(kNaND), out);
  out = e.sel(sIsOne, e.c(kInfD), out);
  return e.sel(anyNan, e.c(kNaND), out);
}

/// polygamma_f64: digamma for n = 0, else (-1)^(n+1) n! zeta(n + 1, x).
Value emitPolygammaF64(F64Ops &e, Value n, Value x) {
  Value bad = e.any(e.any(e.nan(n), e.nan(x)), e.any(e.lt(n, e.c(0)), e.no(e.isInteger(n))));
  Value odd = e.eq(e.sub(n, e.mul(e.c(2), e.floor(e.mul(n, e.c(0.5))))), e.c(1));
  Value sign = e.sel(odd, e.c(1), e.c(-1));
  Value n1 = e.add(n, e.c(1));
  Value fact = e.exp(emitLgammaF64(e, n1));
  Value out = e.mul(e.mul(sign, fact), emitZetaF64(e, n1, x));
  out = e.sel(e.eq(n, e.c(0)), emitDigammaF64(e, x), out);
  return e.sel(bad, e.c(kNaND), out);
}

enum class IgammaMode { Value, Derivative, SampleDerivative };
constexpr double kIgammaMaxIterations = 2000;

/// igamma_series: the power series and its derivative in a (state r, c, ans, dc, dans, i, on).
std::pair<Value, Value> emitIgammaSeries(F64Ops &e, Value a, Value x, Value enabled,
                                         IgammaMode mode) {
  SmallVector<Value> init = {a, e.c(1), e.c(1), e.c(0), e.c(0), e.c(0), enabled};
  SmallVector<Value> st = emitWhile(
      e, init,
      [&](F64Ops &in, ValueRange v) {
        return in.all(v[6], in.lt(v[5], in.c(kIgammaMaxIterations)));
      },
      [&](F64Ops &in, ValueRange v) {
        Value r = in.add(v[0], in.c(1));
        Value xr = in.div(x, r);
        Value dc = in.sub(in.mul(v[3], xr), in.div(in.mul(v[1], x), in.mul(r, r)));
        Value dans = in.add(v[4], dc);
        Value c = in.mul(v[1], xr);
        Value ans = in.add(v[2], c);
        Value on = mode == IgammaMode::Value ? in.gt(in.div(c, ans), in.c(kEpsD))
                                             : in.gt(in.abs(in.div(dc, dans)), in.c(kEpsD));
        return SmallVector<Value>{r, c, ans, dc, dans, in.add(v[5], in.c(1)), on};
      });
  return {st[2], st[4]};
}

/// igammac_fraction: Q's continued fraction and its derivative in a.
std::pair<Value, Value> emitIgammacFraction(F64Ops &e, Value a, Value x, Value enabled,
                                            IgammaMode mode) {
  Value y0 = e.sub(e.c(1), a);
  Value z0 = e.add(e.add(x, y0), e.c(1));
  Value pkm1 = e.add(x, e.c(1)), qkm1 = e.mul(z0, x);
  Value ans0 = e.div(pkm1, qkm1);
  Value dqkm1 = e.neg(x);
  Value dans0 = e.div(e.sub(e.c(0), e.mul(ans0, dqkm1)), qkm1);
  // state: c, y, z, pkm2, qkm2, pkm1, qkm1, ans, dpkm2, dqkm2, dpkm1, dqkm1, dans, on
  SmallVector<Value> init = {e.c(0), y0,     z0,     e.c(1), x,     pkm1, qkm1,
                             ans0,   e.c(0), e.c(0), e.c(0), dqkm1, dans0, enabled};
  SmallVector<Value> st = emitWhile(
      e, init,
      [&](F64Ops &in, ValueRange v) {
        return in.all(v[13], in.lt(v[0], in.c(kIgammaMaxIterations)));
      },
      [&](F64Ops &in, ValueRange v) {
        Value c = in.add(v[0], in.c(1)), y = in.add(v[1], in.c(1)), z = in.add(v[2], in.c(2));
        Value yc = in.mul(y, c);
        Value pk = in.sub(in.mul(v[5], z), in.mul(v[3], yc));
        Value qk = in.sub(in.mul(v[6], z), in.mul(v[4], yc));
        Value dpk = in.add(in.sub(in.sub(in.mul(v[10], z), v[5]), in.mul(v[8], yc)),
                           in.mul(v[3], c));
        Value dqk = in.add(in.sub(in.sub(in.mul(v[11], z), v[6]), in.mul(v[9], yc)),
                           in.mul(v[4], c));
        Value nonzero = in.ne(qk, in.c(0));
        Value r = in.div(pk, qk);
        Value t = in.sel(nonzero, in.abs(in.div(in.sub(v[7], r), r)), in.c(1));
        Value ans = in.sel(nonzero, r, v[7]);
        Value nextD = in.div(in.sub(dpk, in.mul(ans, dqk)), qk);
        Value dt = in.sel(nonzero, in.abs(in.sub(nextD, v[12])), in.c(1));
        Value dans = in.sel(nonzero, nextD, v[12]);
        Value rescale = in.gt(in.abs(pk), in.c(1 / kEpsD));
        auto scaled = [&](Value p) { return in.sel(rescale, in.mul(p, in.c(kEpsD)), p); };
        Value on = in.gt(mode == IgammaMode::Value ? t : dt, in.c(kEpsD));
        return SmallVector<Value>{c,          y,          z,          scaled(v[5]),
                                  scaled(v[6]), scaled(pk), scaled(qk), ans,
                                  scaled(v[10]), scaled(v[11]), scaled(dpk), scaled(dqk),
                                  dans,       on};
      });
  return {st[7], st[12]};
}

/// igamma_f64 (P, dP/da or the sample derivative) and igammac_f64.
Value emitIgammaF64(F64Ops &e, Value a, Value x, IgammaMode mode) {
  Value anyNan = e.any(e.nan(a), e.nan(x));
  Value zero = e.c(0);
  Value logAx = e.sub(e.sub(e.mul(a, e.log(x)), x), emitLgammaF64(e, a));
  Value underflow = e.lt(logAx, e.c(-std::log(std::numeric_limits<double>::max())));
  Value ax = e.exp(logAx);
  Value useFraction = mode == IgammaMode::Value ? e.all(e.ge(x, e.c(1)), e.gt(x, a))
                                                : e.all(e.gt(x, e.c(1)), e.gt(x, a));
  Value on = e.no(underflow);
  auto [h, dh] = emitIgammacFraction(e, a, x, e.all(on, useFraction), mode);
  auto [sr, ds] = emitIgammaSeries(e, a, x, e.all(on, e.no(useFraction)), mode);
  Value fromFraction, fromSeries;
  if (mode == IgammaMode::Value) {
    fromFraction = e.sub(e.c(1), e.mul(h, ax));
    fromSeries = e.div(e.mul(sr, ax), a);
  } else {
    Value dlogF = e.sub(e.log(x), emitDigammaF64(e, a));
    Value dlogS = e.sub(e.log(x), emitDigammaF64(e, e.add(a, e.c(1))));
    if (mode == IgammaMode::Derivative) {
      fromFraction = e.neg(e.mul(ax, e.add(e.mul(h, dlogF), dh)));
      fromSeries = e.div(e.mul(ax, e.add(e.mul(sr, dlogS), ds)), a);
    } else {
      fromFraction = e.mul(e.add(dh, e.mul(h, dlogF)), x);
      fromSeries = e.div(e.mul(e.neg(e.add(ds, e.mul(sr, dlogS))), x), a);
    }
  }
  Value out = e.sel(useFraction, fromFraction, fromSeries);
  Value xZero = e.eq(x, zero);
  if (mode == IgammaMode::Value) {
    out = e.sel(e.eq(a, zero), e.c(1), out);
    out = e.sel(e.isInf(x), e.c(1), out);
    out = e.sel(xZero, zero, out);
    Value domain = e.any(e.any(anyNan, e.lt(x, zero)), e.any(e.lt(a, zero), e.all(e.eq(a, zero), xZero)));
    return e.sel(domain, e.c(kNaND), out);
  }
  out = e.sel(xZero, zero, out);
  Value domain = e.any(anyNan, e.any(e.lt(x, zero), e.le(a, zero)));
  return e.sel(domain, e.c(kNaND), out);
}

Value emitIgammacF64(F64Ops &e, Value a, Value x) {
  Value zero = e.c(0);
  Value logAx = e.sub(e.sub(e.mul(a, e.log(x)), x), emitLgammaF64(e, a));
  Value underflow = e.lt(logAx, e.c(-std::log(std::numeric_limits<double>::max())));
  Value ax = e.exp(logAx);
  Value useSeries = e.any(e.lt(x, e.c(1)), e.lt(x, a));
  Value on = e.no(underflow);
  auto [sr, ds] = emitIgammaSeries(e, a, x, e.all(on, useSeries), IgammaMode::Value);
  auto [h, dh] = emitIgammacFraction(e, a, x, e.all(on, e.no(useSeries)), IgammaMode::Value);
  Value out = e.sel(useSeries, e.sub(e.c(1), e.div(e.mul(sr, ax), a)), e.mul(h, ax));
  out = e.sel(e.isInf(a), e.c(1), out);
  out = e.sel(e.any(e.isInf(x), e.eq(a, zero)), zero, out);
  Value domain = e.any(e.any(e.any(e.nan(a), e.nan(x)), e.lt(x, zero)),
                       e.any(e.any(e.lt(a, zero), e.all(e.eq(a, zero), e.eq(x, zero))),
                             e.all(e.isInf(a), e.isInf(x))));
  return e.sel(domain, e.c(kNaND), out);
}

/// nextafter as libstrata steps it: on the storage bits of x's own format.
Value emitNextafter(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = x.getType();
  unsigned w = t.getIntOrFloatBitWidth();
  Type it = b.getIntegerType(w);
  auto ic = [&](uint64_t v) {
    return Value(arith::ConstantOp::create(b, loc, b.getIntegerAttr(it, APInt(w, v))));
  };
  auto fcmp = [&](arith::CmpFPredicate pr, Value p, Value q) {
    return Value(arith::CmpFOp::create(b, loc, pr, p, q));
  };
  Value zero = scalarConst(b, loc, t, 0, 0);
  Value bx = arith::BitcastOp::create(b, loc, it, x);
  Value by = arith::BitcastOp::create(b, loc, it, y);
  Value away = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                     fcmp(arith::CmpFPredicate::OLT, x, y),
                                     fcmp(arith::CmpFPredicate::OGT, x, zero));
  Value stepped = arith::SelectOp::create(b, loc, away, arith::AddIOp::create(b, loc, bx, ic(1)),
                                          arith::SubIOp::create(b, loc, bx, ic(1)));
  Value tiny = arith::OrIOp::create(
      b, loc, arith::AndIOp::create(b, loc, by, ic(uint64_t{1} << (w - 1))), ic(1));
  Value bits = arith::SelectOp::create(b, loc, fcmp(arith::CmpFPredicate::OEQ, x, zero), tiny,
                                       stepped);
  Value r = arith::BitcastOp::create(b, loc, t, bits);
  r = arith::SelectOp::create(b, loc, fcmp(arith::CmpFPredicate::OEQ, x, y), y, r);
  Value anyNan = arith::OrIOp::create(b, loc, isNan(b, loc, x), isNan(b, loc, y));
  return arith::SelectOp::create(b, loc, anyNan, arith::AddFOp::create(b, loc, x, y), r);
}

/// Cephes' chbevl (elementwise.cpp's chebyshev), unrolled.
Value emitChebyshev(F64Ops &e, ArrayRef<double> c, Value t) {
  Value b0 = e.c(c[0]), b1 = e.c(0), b2 = e.c(0);
  for (double k : c.drop_front()) {
    b2 = b1;
    b1 = b0;
    b0 = e.add(e.sub(e.mul(t, b1), b2), e.c(k));
  }
  return e.mul(e.c(0.5), e.sub(b0, b2));
}

/// bessel_i0e_f64 / bessel_i1e_f64: both series, selected on |x| <= 8 (the large one's
/// argument kept >= 8).
Value emitBesselF64(F64Ops &e, Value x, bool order1) {
  Value y = e.abs(x);
  Value small = e.le(y, e.c(8));
  Value yl = arith::MaximumFOp::create(e.b, e.loc, y, e.c(8));
  Value tSmall = e.sub(e.mul(y, e.c(0.5)), e.c(2));
  Value tLarge = e.sub(e.div(e.c(32), yl), e.c(2));
  Value root = math::SqrtOp::create(e.b, e.loc, yl);
  Value r;
  if (!order1) {
    r = e.sel(small, emitChebyshev(e, ::strata::bessel::kI0eSmall, tSmall),
              e.div(emitChebyshev(e, ::strata::bessel::kI0eLarge, tLarge), root));
    return e.sel(e.nan(x), x, r);
  }
  r = e.sel(small, e.mul(emitChebyshev(e, ::strata::bessel::kI1eSmall, tSmall), y),
            e.div(emitChebyshev(e, ::strata::bessel::kI1eLarge, tLarge), root));
  r = e.sel(e.lt(x, e.c(0)), e.neg(r), r);
  return e.sel(e.nan(x), x, r);
}

/// betainc_f64: the edge cases, the symmetry flip and the Lentz continued fraction (an
/// scf.while of at most 600 terms).
Value emitBetaincF64(F64Ops &e, Value a0, Value b0, Value x0) {
  constexpr double tiny = 1e-300;
  Value zero = e.c(0), one = e.c(1);
  Value anyNan = e.any(e.any(e.nan(a0), e.nan(b0)), e.nan(x0));
  Value aZero = e.any(e.eq(a0, zero), e.isInf(b0));
  Value bZero = e.any(e.eq(b0, zero), e.isInf(a0));
  Value domain = e.any(e.any(e.any(e.lt(a0, zero), e.lt(b0, zero)),
                             e.any(e.lt(x0, zero), e.gt(x0, one))),
                       e.all(aZero, bZero));
  Value isZero = e.any(e.all(bZero, e.ne(x0, one)), e.all(aZero, e.eq(x0, zero)));
  Value isOne = e.any(e.all(aZero, e.ne(x0, zero)), e.all(bZero, e.eq(x0, one)));
  Value flip = e.no(e.lt(x0, e.div(e.add(a0, one), e.add(e.add(a0, b0), e.c(2)))));
  Value a = e.sel(flip, b0, a0), b = e.sel(flip, a0, b0);
  Value x = e.sel(flip, e.sub(one, x0), x0);
  Value skip = e.any(e.any(anyNan, domain), e.any(isZero, isOne));
  // state: n, c, d, h, on
  SmallVector<Value> init = {e.c(1), e.c(tiny), zero, e.c(tiny), e.no(skip)};
  SmallVector<Value> st = emitWhile(
      e, init,
      [&](F64Ops &in, ValueRange v) { return in.all(v[4], in.lt(v[0], in.c(600))); },
      [&](F64Ops &in, ValueRange v) {
        Value n = v[0];
        Value m = in.floor(in.mul(in.sub(n, in.c(1)), in.c(0.5)));
        Value even = in.eq(in.sub(n, in.mul(in.c(2), in.floor(in.mul(n, in.c(0.5))))), in.c(0));
        Value a2m = in.add(a, in.mul(in.c(2), m));
        Value zeroNum = in.div(in.neg(in.mul(in.add(a, b), x)), in.add(a, in.c(1)));
        Value evenNum = in.div(in.neg(in.mul(in.mul(in.add(a, m), in.add(in.add(a, b), m)), x)),
                               in.mul(a2m, in.add(a2m, in.c(1))));
        evenNum = in.sel(in.eq(m, in.c(0)), zeroNum, evenNum);
        Value oddNum = in.div(in.mul(in.mul(m, in.sub(b, m)), x),
                              in.mul(in.sub(a2m, in.c(1)), a2m));
        Value num = in.sel(in.eq(n, in.c(1)), in.c(1), in.sel(even, evenNum, oddNum));
        Value t = in.c(tiny);
        Value c = in.add(in.c(1), in.div(num, v[1]));
        c = in.sel(in.lt(in.abs(c), t), t, c);
        Value d = in.add(in.c(1), in.mul(num, v[2]));
        d = in.sel(in.lt(in.abs(d), t), t, d);
        d = in.div(in.c(1), d);
        Value delta = in.mul(c, d);
        Value h = in.mul(v[3], delta);
        Value on = in.gt(in.abs(in.sub(delta, in.c(1))), in.c(kEpsD));
        return SmallVector<Value>{in.add(n, in.c(1)), c, d, h, on};
      });
  Value lgb = emitLgammaF64(e, b), lgab = emitLgammaF64(e, e.add(a, b)), lga = emitLgammaF64(e, a);
  Value l1x = math::Log1pOp::create(e.b, e.loc, e.neg(x));
  Value lbetaSmall = e.sub(lgb, lgab);
  Value smallFactor = e.exp(e.sub(e.mul(l1x, b), lbetaSmall));
  Value factor = e.div(e.exp(e.sub(e.sub(e.add(e.mul(e.log(x), a), e.mul(l1x, b)), lbetaSmall), lga)), a);
  factor = e.sel(e.lt(a, e.c(2 * std::numeric_limits<double>::min())), smallFactor, factor);
  Value r = e.mul(st[3], factor);
  r = e.sel(flip, e.sub(one, r), r);
  r = e.sel(isOne, one, r);
  r = e.sel(isZero, zero, r);
  r = e.sel(domain, e.c(kNaND), r);
  return e.sel(anyNan, e.c(kNaND), r);
}

/// Runs `f` on the operands extended to f64 and rounds its result back to their type.
Value inF64(OpBuilder &b, Location loc, ValueRange xs,
            function_ref<Value(F64Ops &, ArrayRef<Value>)> f) {
  Type t = xs[0].getType();
  Type f64 = b.getF64Type();
  SmallVector<Value> wide;
  for (Value v : xs)
    wide.push_back(t == f64 ? v : Value(arith::ExtFOp::create(b, loc, f64, v)));
  F64Ops e{b, loc};
  Value y = f(e, wide);
  return t == f64 ? y : Value(arith::TruncFOp::create(b, loc, t, y));
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

/// Signed predicates for signed integers, unsigned for bool (false < true) and uiN.
arith::CmpIPredicate intPredicate(Operation *op, bool uns) {
  using P = arith::CmpIPredicate;
  return llvm::TypeSwitch<Operation *, P>(op)
      .Case<st::EqOp>([](auto) { return P::eq; })
      .Case<st::NeOp>([](auto) { return P::ne; })
      .Case<st::LtOp>([&](auto) { return uns ? P::ult : P::slt; })
      .Case<st::LeOp>([&](auto) { return uns ? P::ule : P::sle; })
      .Case<st::GtOp>([&](auto) { return uns ? P::ugt : P::sgt; })
      .Default([&](auto) { return uns ? P::uge : P::sge; });
}

/// The scalar body of elementwise `op` on signless block arguments `a` (one per operand);
/// `uns`: the (last) operand's element type is unsigned; `outType` the result's element type.
Value emitElementwise(OpBuilder &b, Location loc, Operation *op, ValueRange a, bool uns,
                      Type outType) {
  Value x = a[0];
  Type t = x.getType();
  bool isFloat = isa<FloatType>(t);
  bool unsOrBool = uns || t.isInteger(1);
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
        if (uns)
          return x;
        return math::AbsIOp::create(b, loc, x);
      })
      .Case<st::SignOp>([&](auto) -> Value {
        if (isFloat) {
          // NaN and both zeros map to themselves; others to +-1 with x's sign.
          Value nonzero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, x, c(0, 0));
          Value one = math::CopySignOp::create(b, loc, c(1, 1), x);
          return arith::SelectOp::create(b, loc, nonzero, one, x);
        }
        if (uns) {
          Value nonzero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, c(0, 0));
          return arith::SelectOp::create(b, loc, nonzero, c(1, 1), x);
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
      .Case<st::ErfInvOp>([&](auto) { return emitErfInv(b, loc, x); })
      .Case<st::SinhOp>([&](auto) { return math::SinhOp::create(b, loc, x); })
      .Case<st::CoshOp>([&](auto) { return math::CoshOp::create(b, loc, x); })
      .Case<st::AsinOp>([&](auto) { return math::AsinOp::create(b, loc, x); })
      .Case<st::AcosOp>([&](auto) { return math::AcosOp::create(b, loc, x); })
      .Case<st::AtanOp>([&](auto) { return math::AtanOp::create(b, loc, x); })
      .Case<st::AsinhOp>([&](auto) { return math::AsinhOp::create(b, loc, x); })
      .Case<st::AcoshOp>([&](auto) { return math::AcoshOp::create(b, loc, x); })
      .Case<st::AtanhOp>([&](auto) { return math::AtanhOp::create(b, loc, x); })
      .Case<st::CbrtOp>([&](auto) { return math::CbrtOp::create(b, loc, x); })
      .Case<st::Exp2Op>([&](auto) { return math::Exp2Op::create(b, loc, x); })
      .Case<st::ErfcOp>([&](auto) { return math::ErfcOp::create(b, loc, x); })
      .Case<st::BesselI0eOp>([&](auto) {
        return inF64(b, loc, a,
                     [](F64Ops &e, ArrayRef<Value> v) { return emitBesselF64(e, v[0], false); });
      })
      .Case<st::BesselI1eOp>([&](auto) {
        return inF64(b, loc, a,
                     [](F64Ops &e, ArrayRef<Value> v) { return emitBesselF64(e, v[0], true); });
      })
      .Case<st::PopulationCountOp>([&](auto) { return math::CtPopOp::create(b, loc, x); })
      .Case<st::ClzOp>([&](auto) { return math::CountLeadingZerosOp::create(b, loc, x); })
      .Case<st::LgammaOp>([&](auto) {
        return inF64(b, loc, a, [](F64Ops &e, ArrayRef<Value> v) { return emitLgammaF64(e, v[0]); });
      })
      .Case<st::DigammaOp>([&](auto) {
        return inF64(b, loc, a, [](F64Ops &e, ArrayRef<Value> v) { return emitDigammaF64(e, v[0]); });
      })
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
        Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, c(0, 0));
        if (uns) {
          // x/0 = all ones (static_cast<C>(-1)), x%0 = x.
          Value safeY = arith::SelectOp::create(b, loc, isZero, c(1, 1), y);
          if (isDiv)
            return arith::SelectOp::create(b, loc, isZero, c(-1, -1),
                                           arith::DivUIOp::create(b, loc, x, safeY));
          return arith::SelectOp::create(b, loc, isZero, x,
                                         arith::RemUIOp::create(b, loc, x, safeY));
        }
        // XLA's integer semantics without UB: x/0 = -1, x%0 = x, MIN/-1 = MIN, MIN%-1 = 0.
        // Dividing by 1 instead of 0 or -1 gives x (div) and 0 (rem); fix up the rest.
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
      .Case<st::MaxOp>([&](auto) { return emitMax(b, loc, x, a[1], uns); })
      .Case<st::MinOp>([&](auto) { return emitMin(b, loc, x, a[1], uns); })
      .Case<st::Atan2Op>([&](auto) { return emitAtan2(b, loc, x, a[1]); })
      .Case<st::NextafterOp>([&](auto) { return emitNextafter(b, loc, x, a[1]); })
      .Case<st::RegularizedIncompleteBetaOp>([&](auto) {
        return inF64(b, loc, a, [](F64Ops &e, ArrayRef<Value> v) {
          return emitBetaincF64(e, v[0], v[1], v[2]);
        });
      })
      .Case<st::IgammaOp>([&](auto) {
        return inF64(b, loc, a, [](F64Ops &e, ArrayRef<Value> v) {
          return emitIgammaF64(e, v[0], v[1], IgammaMode::Value);
        });
      })
      .Case<st::IgammacOp>([&](auto) {
        return inF64(b, loc, a,
                     [](F64Ops &e, ArrayRef<Value> v) { return emitIgammacF64(e, v[0], v[1]); });
      })
      .Case<st::IgammaGradAOp>([&](auto) {
        return inF64(b, loc, a, [](F64Ops &e, ArrayRef<Value> v) {
          return emitIgammaF64(e, v[0], v[1], IgammaMode::Derivative);
        });
      })
      .Case<st::RandomGammaGradOp>([&](auto) {
        return inF64(b, loc, a, [](F64Ops &e, ArrayRef<Value> v) {
          return emitIgammaF64(e, v[0], v[1], IgammaMode::SampleDerivative);
        });
      })
      .Case<st::PolygammaOp>([&](auto) {
        return inF64(b, loc, a,
                     [](F64Ops &e, ArrayRef<Value> v) { return emitPolygammaF64(e, v[0], v[1]); });
      })
      .Case<st::ZetaOp>([&](auto) {
        return inF64(b, loc, a,
                     [](F64Ops &e, ArrayRef<Value> v) { return emitZetaF64(e, v[0], v[1]); });
      })
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
      .Case<st::ShiftRightArithmeticOp>([&](auto) -> Value {
        // Amounts outside [0, width) give all sign bits.
        Value y = a[1];
        Value width = c(0, t.getIntOrFloatBitWidth());
        Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, y, width);
        Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, c(0, 0));
        Value fill = arith::SelectOp::create(b, loc, negative, c(-1, -1), c(0, 0));
        return arith::SelectOp::create(b, loc, inRange, arith::ShRSIOp::create(b, loc, x, y),
                                       fill);
      })
      // ---- comparisons
      .Case<st::EqOp, st::NeOp, st::LtOp, st::LeOp, st::GtOp, st::GeOp>([&](auto) -> Value {
        if (isFloat)
          return arith::CmpFOp::create(b, loc, floatPredicate(op), x, a[1]);
        return arith::CmpIOp::create(b, loc, intPredicate(op, unsOrBool), x, a[1]);
      })
      // ---- selection, conversion, bits
      .Case<st::SelectOp>([&](auto) { return arith::SelectOp::create(b, loc, a[0], a[1], a[2]); })
      .Case<st::ClampOp>([&](auto) {
        // min(max(x, lo), hi): NaN propagates and lo > hi gives hi.
        return emitMin(b, loc, emitMax(b, loc, a[1], a[0], uns), a[2], uns);
      })
      .Case<st::ConvertElementTypeOp>([&](auto) {
        return emitConvert(b, loc, x, uns, signlessOf(outType), outType.isUnsignedInteger());
      })
      .Case<st::BitcastConvertTypeOp>([&](auto) -> Value {
        Type to = signlessOf(outType);
        if (to == t)
          return x;
        return arith::BitcastOp::create(b, loc, to, x);
      })
      .Default([](Operation *) { return Value(); });
}

/// Float-only ops on a float operand, integer-only ops on an integer one (the verifier
/// already checks this; re-checked so a body never meets a type it cannot build).
bool bodyAccepts(Operation *op) {
  Type t =
      cast<RankedTensorType>(op->getOperand(op->getNumOperands() - 1).getType()).getElementType();
  Type out = elementOf(op->getResult(0));
  bool isFloat = isa<FloatType>(t);
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case<st::FloorOp, st::CeilOp, st::RoundOp, st::ExpOp, st::LogOp, st::Log1pOp, st::Expm1Op,
            st::SqrtOp, st::RsqrtOp, st::SinOp, st::CosOp, st::TanOp, st::TanhOp, st::ErfOp,
            st::ErfInvOp, st::IsFiniteOp, st::LogisticOp, st::PowOp, st::Atan2Op, st::SinhOp,
            st::CoshOp, st::AsinOp, st::AcosOp, st::AtanOp, st::AsinhOp, st::AcoshOp,
            st::AtanhOp, st::CbrtOp, st::Exp2Op, st::ErfcOp,
            st::LgammaOp, st::DigammaOp, st::IgammaOp, st::IgammacOp, st::IgammaGradAOp,
            st::RandomGammaGradOp, st::PolygammaOp, st::ZetaOp, st::NextafterOp,
            st::BesselI0eOp, st::BesselI1eOp, st::RegularizedIncompleteBetaOp>(
          [&](auto) { return isFloat; })
      .Case<st::PopulationCountOp, st::ClzOp>(
          [&](auto) { return !isFloat && !t.isInteger(1); })
      .Case<st::NotOp, st::AndOp, st::OrOp, st::XorOp, st::ShiftLeftOp, st::ShiftRightLogicalOp,
            st::ShiftRightArithmeticOp>([&](auto) { return !isFloat; })
      .Case<st::IntegerPowOp>(
          [&](st::IntegerPowOp p) { return isFloat || p.getYAttr().getInt() >= 0; })
      .Case<st::NegOp, st::AbsOp, st::SignOp, st::DivOp, st::RemOp>(
          [&](auto) { return !t.isInteger(1); })
      .Case<st::BitcastConvertTypeOp>([&](auto) {
        return !t.isInteger(1) && !out.isInteger(1) &&
               t.getIntOrFloatBitWidth() == out.getIntOrFloatBitWidth();
      })
      .Default([](Operation *) { return true; });
}

/// Any elementwise strata op => linalg.generic; rank-0 operands (scalar select predicates,
/// clamp bounds) broadcast through an empty indexing map.
template <typename OpTy> struct ElementwiseToGeneric : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    Operation *o = op.getOperation();
    if (!hasLowerableTypes(o) || !bodyAccepts(o))
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/integer elements");
    auto resultType = cast<RankedTensorType>(o->getResult(0).getType());
    int64_t rank = resultType.getRank();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps;
    for (Type t : o->getOperandTypes())
      maps.push_back(cast<RankedTensorType>(t).getRank() == rank
                         ? AffineMap::getMultiDimIdentityMap(rank, ctx)
                         : AffineMap::get(rank, 0, ctx));
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    bool uns = elementOf(o->getOperand(o->getNumOperands() - 1)).isUnsignedInteger();
    Location loc = op.getLoc();
    auto generic = makeGeneric(
        rewriter, loc, o->getOperands(), ValueRange{makeInit(rewriter, loc, resultType)}, maps,
        parallelIterators(rank), [&](OpBuilder &b, Location l, ValueRange args) {
          return SmallVector<Value>{
              emitElementwise(b, l, o, args.drop_back(), uns, resultType.getElementType())};
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// threefry2x32 => one linalg.generic with two results: JAX's 20-round Threefry-2x32
/// (random_bits.cpp's threefry_block), fully unrolled on i32.
struct Threefry2x32ToGeneric : OpRewritePattern<st::Threefry2x32Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::Threefry2x32Op op, PatternRewriter &rewriter) const override {
    if (!hasLowerableTypes(op) || !elementOf(op.getKey0()).isInteger(32))
      return rewriter.notifyMatchFailure(op, "needs static tensors of 32-bit integers");
    auto type = tensorOf(op.getOut0());
    int64_t rank = type.getRank();
    Location loc = op.getLoc();
    SmallVector<AffineMap> maps(6, AffineMap::getMultiDimIdentityMap(rank, getContext()));
    Value init = makeInit(rewriter, loc, type);
    auto generic = makeGeneric(
        rewriter, loc, op->getOperands(), ValueRange{init, init}, maps, parallelIterators(rank),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Type i32 = b.getI32Type();
          auto k = [&](int64_t v) { return scalarConst(b, l, i32, 0, v); };
          auto add = [&](Value p, Value q) { return Value(arith::AddIOp::create(b, l, p, q)); };
          auto rotl = [&](Value v, int r) {
            return Value(arith::OrIOp::create(b, l, arith::ShLIOp::create(b, l, v, k(r)),
                                              arith::ShRUIOp::create(b, l, v, k(32 - r))));
          };
          Value ks[3] = {
              a[0], a[1],
              arith::XOrIOp::create(b, l, arith::XOrIOp::create(b, l, a[0], a[1]), k(0x1BD11BDA))};
          static constexpr int kRot[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
          Value x0 = add(a[2], ks[0]), x1 = add(a[3], ks[1]);
          for (int i = 0; i < 5; ++i) {
            for (int r : kRot[i % 2]) {
              x0 = add(x0, x1);
              x1 = arith::XOrIOp::create(b, l, rotl(x1, r), x0);
            }
            x0 = add(x0, ks[(i + 1) % 3]);
            x1 = add(x1, add(ks[(i + 2) % 3], k(i + 1)));
          }
          return SmallVector<Value>{x0, x1};
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------------------===//

/// stop_gradient and checkpoint_name are the identity once differentiation is done.
template <typename OpTy> struct IdentityToOperand : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
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
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/integer elements");
    auto inType = tensorOf(op.getOperand());
    auto outType = tensorOf(op.getResult());
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
    Location loc = op.getLoc();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{outType}, ValueRange{op.getOperand()},
        ValueRange{makeInit(rewriter, loc, outType)}, maps, parallelIterators(rank),
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
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/integer elements");
    Location loc = op.getLoc();
    auto t = linalg::TransposeOp::create(rewriter, loc, op.getOperand(),
                                         makeInit(rewriter, loc, tensorOf(op.getResult())),
                                         op.getPermutation());
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
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/integer elements");
    auto inType = tensorOf(op.getOperand());
    auto outType = tensorOf(op.getResult());
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

/// iota => linalg.generic writing linalg.index(dimension), converted to the element type.
struct IotaToGeneric : OpRewritePattern<st::IotaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::IotaOp op, PatternRewriter &rewriter) const override {
    auto type = tensorOf(op.getResult());
    int64_t dim = op.getDimensionAttr().getInt();
    if (!hasLowerableTypes(op) || dim < 0 || dim >= type.getRank() ||
        type.getElementType().isInteger(1))
      return rewriter.notifyMatchFailure(op, "needs a static numeric tensor and a valid dim");
    Location loc = op.getLoc();
    Type elem = type.getElementType();
    auto generic =
        makeGeneric(rewriter, loc, ValueRange{}, ValueRange{makeInit(rewriter, loc, type)},
                    {AffineMap::getMultiDimIdentityMap(type.getRank(), getContext())},
                    parallelIterators(type.getRank()), [&](OpBuilder &b, Location l, ValueRange) {
                      Value i = arith::IndexCastOp::create(b, l, b.getI64Type(),
                                                           linalg::IndexOp::create(b, l, dim));
                      return SmallVector<Value>{
                          emitConvert(b, l, i, false, signlessOf(elem), elem.isUnsignedInteger())};
                    });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// rev => linalg.generic reading (size - 1 - i) in the reversed dimensions.
struct RevToGeneric : OpRewritePattern<st::RevOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::RevOp op, PatternRewriter &rewriter) const override {
    if (!hasLowerableTypes(op))
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/integer elements");
    auto type = tensorOf(op.getResult());
    int64_t rank = type.getRank();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d) {
      AffineExpr e = getAffineDimExpr(d, ctx);
      if (llvm::is_contained(op.getDimensions(), d))
        e = getAffineConstantExpr(type.getDimSize(d) - 1, ctx) - e;
      exprs.push_back(e);
    }
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                   AffineMap::getMultiDimIdentityMap(rank, ctx)};
    Location loc = op.getLoc();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{op.getOperand()},
        ValueRange{makeInit(rewriter, loc, type)}, maps, parallelIterators(rank),
        [](OpBuilder &b, Location l, ValueRange args) { linalg::YieldOp::create(b, l, args[0]); });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// slice => tensor.extract_slice with static offsets, sizes and strides.
struct SliceToTensor : OpRewritePattern<st::SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::SliceOp op, PatternRewriter &rewriter) const override {
    auto type = tensorOf(op.getResult());
    int64_t rank = type.getRank();
    SmallVector<int64_t> strides(op.getStrides());
    if (strides.empty())
      strides.assign(rank, 1);
    if (!hasLowerableTypes(op) || static_cast<int64_t>(op.getStart().size()) != rank ||
        static_cast<int64_t>(strides.size()) != rank)
      return rewriter.notifyMatchFailure(op, "needs static tensors and one start per dim");
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(op, type, op.getOperand(), ValueRange{},
                                                        ValueRange{}, ValueRange{}, op.getStart(),
                                                        type.getShape(), strides);
    return success();
  }
};

/// pad => a linalg.fill of the padding value, then the kept part of the operand (cropped by
/// negative low/high with tensor.extract_slice) inserted with stride interior + 1.
struct PadToTensor : OpRewritePattern<st::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::PadOp op, PatternRewriter &rewriter) const override {
    auto inType = tensorOf(op.getOperand());
    auto outType = tensorOf(op.getResult());
    int64_t rank = inType.getRank();
    ArrayRef<int64_t> low = op.getLow(), interior = op.getInterior();
    if (!hasLowerableTypes(op) || static_cast<int64_t>(low.size()) != rank ||
        static_cast<int64_t>(interior.size()) != rank || tensorOf(op.getPaddingValue()).getRank())
      return rewriter.notifyMatchFailure(op, "needs static tensors and a scalar padding value");
    Location loc = op.getLoc();
    Value pad = tensor::ExtractOp::create(rewriter, loc, op.getPaddingValue(), ValueRange{});
    Value result = makeInit(rewriter, loc, outType, pad);
    // As libstrata's pad_keep: element i lands at low + i * (interior + 1); those landing
    // outside [0, out) are cropped.
    SmallVector<int64_t> first, count, outPos, step;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t d = inType.getDimSize(i), s = interior[i] + 1, out = outType.getDimSize(i);
      int64_t f = low[i] >= 0 ? 0 : (-low[i] + s - 1) / s;
      int64_t end = out - low[i] <= 0 ? 0 : std::min(d, (out - low[i] + s - 1) / s);
      first.push_back(f);
      count.push_back(std::max<int64_t>(0, end - f));
      outPos.push_back(low[i] + f * s);
      step.push_back(s);
    }
    if (llvm::all_of(count, [](int64_t c) { return c > 0; })) {
      Value src = op.getOperand();
      if (ArrayRef<int64_t>(count) != inType.getShape())
        src = tensor::ExtractSliceOp::create(
            rewriter, loc, RankedTensorType::get(count, inType.getElementType()), src, ValueRange{},
            ValueRange{}, ValueRange{}, first, count, SmallVector<int64_t>(rank, 1));
      result = tensor::InsertSliceOp::create(rewriter, loc, src, result, ValueRange{}, ValueRange{},
                                             ValueRange{}, outPos, count, step);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// concatenate => tensor.insert_slice of each input into an empty tensor.
struct ConcatenateToTensor : OpRewritePattern<st::ConcatenateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::ConcatenateOp op, PatternRewriter &rewriter) const override {
    auto type = tensorOf(op.getResult());
    int64_t rank = type.getRank();
    int64_t dim = op.getDimensionAttr().getInt();
    if (!hasLowerableTypes(op) || dim < 0 || dim >= rank)
      return rewriter.notifyMatchFailure(op, "needs static tensors and a valid dimension");
    Location loc = op.getLoc();
    Value result = makeInit(rewriter, loc, type);
    int64_t offset = 0;
    for (Value in : op.getInputs()) {
      auto inType = tensorOf(in);
      if (inType.getNumElements() > 0) {
        SmallVector<int64_t> offsets(rank, 0);
        offsets[dim] = offset;
        result = tensor::InsertSliceOp::create(rewriter, loc, in, result, ValueRange{},
                                               ValueRange{}, ValueRange{}, offsets,
                                               inType.getShape(), SmallVector<int64_t>(rank, 1));
      }
      offset += inType.getDimSize(dim);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Start indices (rank-0 integer tensors) clamped, as libstrata's clamped_starts, into
/// [0, dims - sizes]; as index values.
SmallVector<OpFoldResult> clampedStarts(OpBuilder &b, Location loc, ValueRange starts,
                                        ArrayRef<int64_t> dims, ArrayRef<int64_t> sizes) {
  SmallVector<OpFoldResult> out;
  for (auto [i, s] : llvm::enumerate(starts)) {
    Value v = tensor::ExtractOp::create(b, loc, s, ValueRange{});
    v = widenIndex(b, loc, v, elementOf(s).isUnsignedInteger());
    out.push_back(toIndex(b, loc, clampI64(b, loc, v, 0, dims[i] - sizes[i])));
  }
  return out;
}

/// Start indices are integer scalars, one per operand dimension.
bool validStarts(ValueRange starts, int64_t rank) {
  return static_cast<int64_t>(starts.size()) == rank && llvm::all_of(starts, [](Value s) {
           auto t = tensorOf(s);
           return t.getRank() == 0 && isa<IntegerType>(t.getElementType()) &&
                  !t.getElementType().isInteger(1);
         });
}

/// dynamic_slice => tensor.extract_slice at the clamped starts.
struct DynamicSliceToTensor : OpRewritePattern<st::DynamicSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::DynamicSliceOp op, PatternRewriter &rewriter) const override {
    auto inType = tensorOf(op.getOperand());
    auto type = tensorOf(op.getResult());
    if (!hasLowerableTypes(op) || !validStarts(op.getStartIndices(), inType.getRank()) ||
        type.getRank() != inType.getRank())
      return rewriter.notifyMatchFailure(op, "needs static tensors and scalar integer starts");
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> offsets =
        clampedStarts(rewriter, loc, op.getStartIndices(), inType.getShape(), type.getShape());
    SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(getContext(), type.getShape());
    SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(op, type, op.getOperand(), offsets, sizes,
                                                        strides);
    return success();
  }
};

/// dynamic_update_slice => tensor.insert_slice at the clamped starts.
struct DynamicUpdateSliceToTensor : OpRewritePattern<st::DynamicUpdateSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::DynamicUpdateSliceOp op,
                                PatternRewriter &rewriter) const override {
    auto type = tensorOf(op.getOperand());
    auto upType = tensorOf(op.getUpdate());
    if (!hasLowerableTypes(op) || !validStarts(op.getStartIndices(), type.getRank()) ||
        upType.getRank() != type.getRank())
      return rewriter.notifyMatchFailure(op, "needs static tensors and scalar integer starts");
    if (upType.getNumElements() == 0) {
      rewriter.replaceOp(op, op.getOperand());
      return success();
    }
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> offsets =
        clampedStarts(rewriter, loc, op.getStartIndices(), type.getShape(), upType.getShape());
    SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(getContext(), upType.getShape());
    SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(op, op.getUpdate(), op.getOperand(), offsets,
                                                       sizes, strides);
    return success();
  }
};

//===----------------------------------------------------------------------------------===//
// Indexing ops: gather, scatter, scatter_add
//===----------------------------------------------------------------------------------===//

/// Indices are an integer tensor of rank >= 1 (the index vector is the last dimension).
bool validIndices(Value indices) {
  auto t = tensorOf(indices);
  return t.getRank() >= 1 && isa<IntegerType>(t.getElementType()) &&
         !t.getElementType().isInteger(1);
}

/// indices[batch..., k] widened to i64 (inside a body or loop).
Value loadIndex(OpBuilder &b, Location loc, Value indices, ArrayRef<Value> batch, int64_t k) {
  SmallVector<Value> at(batch);
  at.push_back(indexConst(b, loc, k));
  Value v = tensor::ExtractOp::create(b, loc, indices, at);
  return widenIndex(b, loc, v, elementOf(indices).isUnsignedInteger());
}

/// gather => one linalg.generic over the result with tensor.extract in its body: each result
/// element reads the operand at the start its index vector names (clamped so the slice lies
/// in bounds, as libstrata and XLA do) plus its offset in the slice.
struct GatherToGeneric : OpRewritePattern<st::GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::GatherOp op, PatternRewriter &rewriter) const override {
    auto opType = tensorOf(op.getOperand());
    auto type = tensorOf(op.getResult());
    ArrayRef<int64_t> offsetDims = op.getOffsetDims(), collapsed = op.getCollapsedSliceDims();
    ArrayRef<int64_t> startMap = op.getStartIndexMap(), sizes = op.getSliceSizes();
    int64_t rank = opType.getRank(), outRank = type.getRank();
    if (!hasLowerableTypes(op) || !validIndices(op.getIndices()) ||
        static_cast<int64_t>(sizes.size()) != rank ||
        static_cast<int64_t>(startMap.size()) != tensorOf(op.getIndices()).getShape().back() ||
        static_cast<int64_t>(offsetDims.size() + collapsed.size()) != rank)
      return rewriter.notifyMatchFailure(op, "needs static tensors and valid dimension numbers");
    Location loc = op.getLoc();
    Value operand = op.getOperand(), indices = op.getIndices();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{makeInit(rewriter, loc, type)},
        {AffineMap::getMultiDimIdentityMap(outRank, getContext())}, parallelIterators(outRank),
        [&](OpBuilder &b, Location l, ValueRange) {
          // Batch coordinates are the result dims outside offset_dims; the slice offset of
          // operand dim d (not collapsed) is the next result dim in offset_dims.
          SmallVector<Value> batch;
          SmallVector<Value> window;
          for (int64_t i = 0; i < outRank; ++i) {
            Value idx = linalg::IndexOp::create(b, l, i);
            (llvm::is_contained(offsetDims, i) ? window : batch).push_back(idx);
          }
          SmallVector<Value> coords(rank);
          for (int64_t d = 0, w = 0; d < rank; ++d)
            coords[d] = llvm::is_contained(collapsed, d) ? indexConst(b, l, 0) : window[w++];
          for (auto [k, d] : llvm::enumerate(startMap)) {
            Value s = clampI64(b, l, loadIndex(b, l, indices, batch, k), 0,
                               opType.getDimSize(d) - sizes[d]);
            coords[d] = arith::AddIOp::create(b, l, coords[d], toIndex(b, l, s));
          }
          linalg::YieldOp::create(b, l, Value(tensor::ExtractOp::create(b, l, operand, coords)));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// scatter / scatter_add => an scf.for over the index vectors in row-major order (so that the
/// last duplicate wins and sums accumulate in libstrata's order): a window that lies wholly in
/// bounds is inserted (scatter) or added (scatter_add) with tensor.insert_slice; others are
/// dropped.
template <typename OpTy> struct ScatterToLoop : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    constexpr bool isAdd = std::is_same_v<OpTy, st::ScatterAddOp>;
    auto type = tensorOf(op.getOperand());
    auto idxType = tensorOf(op.getIndices());
    auto upType = tensorOf(op.getUpdates());
    ArrayRef<int64_t> windowDims = op.getUpdateWindowDims(), inserted = op.getInsertedWindowDims();
    ArrayRef<int64_t> toOperand = op.getScatterDimsToOperandDims();
    int64_t rank = type.getRank();
    if (!hasLowerableTypes(op) || !validIndices(op.getIndices()) ||
        static_cast<int64_t>(toOperand.size()) != idxType.getShape().back() ||
        static_cast<int64_t>(windowDims.size() + inserted.size()) != rank ||
        upType.getRank() != idxType.getRank() - 1 + static_cast<int64_t>(windowDims.size()) ||
        (isAdd && type.getElementType().isInteger(1)))
      return rewriter.notifyMatchFailure(op, "needs static tensors and valid dimension numbers");
    Location loc = op.getLoc();
    // The window in operand coordinates (1 in inserted dims) and its element type.
    SmallVector<int64_t> window(rank, 1), windowShape, batchShape(idxType.getShape().drop_back());
    for (int64_t d = 0, j = 0; d < rank; ++d)
      if (!llvm::is_contained(inserted, d))
        window[d] = upType.getDimSize(windowDims[j++]);
    for (int64_t w : windowDims)
      windowShape.push_back(upType.getDimSize(w));
    int64_t batch = 1;
    for (int64_t s : batchShape)
      batch *= s;
    if (batch == 0 || upType.getNumElements() == 0) {
      rewriter.replaceOp(op, op.getOperand());
      return success();
    }
    auto windowType = RankedTensorType::get(windowShape, type.getElementType());
    Value indices = op.getIndices(), updates = op.getUpdates();
    auto loop = scf::ForOp::create(
        rewriter, loc, indexConst(rewriter, loc, 0), indexConst(rewriter, loc, batch),
        indexConst(rewriter, loc, 1), ValueRange{op.getOperand()},
        [&](OpBuilder &b, Location l, Value g, ValueRange iter) {
          // Row-major batch coordinates of g.
          SmallVector<Value> coords(batchShape.size());
          Value rest = g;
          for (int64_t i = static_cast<int64_t>(batchShape.size()) - 1; i >= 0; --i) {
            Value n = indexConst(b, l, batchShape[i]);
            coords[i] = arith::RemUIOp::create(b, l, rest, n);
            rest = arith::DivUIOp::create(b, l, rest, n);
          }
          Value inBounds = arith::ConstantOp::create(b, l, b.getBoolAttr(true));
          SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
          for (auto [k, d] : llvm::enumerate(toOperand)) {
            Value s = loadIndex(b, l, indices, coords, k);
            Type i64 = b.getI64Type();
            Value ok = arith::AndIOp::create(
                b, l,
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, s,
                                      scalarConst(b, l, i64, 0, 0)),
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::sle, s,
                                      scalarConst(b, l, i64, 0, type.getDimSize(d) - window[d])));
            inBounds = arith::AndIOp::create(b, l, inBounds, ok);
            offsets[d] = toIndex(b, l, clampI64(b, l, s, 0, type.getDimSize(d) - window[d]));
          }
          SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(b.getContext(), window);
          SmallVector<OpFoldResult> ones(rank, b.getIndexAttr(1));
          Value acc = iter[0];
          auto ifOp = scf::IfOp::create(
              b, l, inBounds,
              [&](OpBuilder &tb, Location tl) {
                // updates[coords..., window...], rank-reduced to the window dims.
                SmallVector<OpFoldResult> uOff, uSize;
                for (int64_t i = 0, j = 0; i < upType.getRank(); ++i) {
                  bool isWindow = llvm::is_contained(windowDims, i);
                  uOff.push_back(isWindow ? OpFoldResult(tb.getIndexAttr(0))
                                          : OpFoldResult(coords[j++]));
                  uSize.push_back(tb.getIndexAttr(isWindow ? upType.getDimSize(i) : 1));
                }
                SmallVector<OpFoldResult> uOnes(upType.getRank(), tb.getIndexAttr(1));
                Value win =
                    tensor::ExtractSliceOp::create(tb, tl, windowType, updates, uOff, uSize, uOnes);
                if (isAdd) {
                  Value old =
                      tensor::ExtractSliceOp::create(tb, tl, windowType, acc, offsets, sizes, ones);
                  int64_t wr = windowType.getRank();
                  SmallVector<AffineMap> maps(
                      3, AffineMap::getMultiDimIdentityMap(wr, tb.getContext()));
                  win = makeGeneric(tb, tl, ValueRange{old, win}, ValueRange{old}, maps,
                                    parallelIterators(wr),
                                    [&](OpBuilder &bb, Location bl, ValueRange a) {
                                      return SmallVector<Value>{emitAdd(bb, bl, a[0], a[1])};
                                    })
                            .getResult(0);
                }
                Value next = tensor::InsertSliceOp::create(tb, tl, win, acc, offsets, sizes, ones);
                scf::YieldOp::create(tb, tl, next);
              },
              [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, acc); });
          scf::YieldOp::create(b, l, ifOp.getResults());
        });
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------------------===//
// Reductions, scans and contractions
//===----------------------------------------------------------------------------------===//

/// reduce_{sum,max,min,prod} => linalg.reduce into an init filled with the identity.
template <typename OpTy> struct ReduceToLinalg : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    Operation *o = op.getOperation();
    if (!hasLowerableTypes(o))
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/integer elements");
    if (op.getAxes().empty()) {
      rewriter.replaceOp(op, op.getOperand());
      return success();
    }
    auto resultType = tensorOf(op.getResult());
    Type resultElem = resultType.getElementType();
    bool isSum = isa<st::ReduceSumOp>(o), isProd = isa<st::ReduceProdOp>(o);
    bool isMax = isa<st::ReduceMaxOp>(o);
    // f16/bf16 sums and products accumulate in f32 and round once, as libstrata's kernels
    // (max/min are exact in any type).
    bool half = (isSum || isProd) && (resultElem.isF16() || resultElem.isBF16());
    auto outType = half ? RankedTensorType::get(resultType.getShape(), rewriter.getF32Type())
                        : resultType;
    Type elem = outType.getElementType();
    bool uns = elem.isUnsignedInteger();
    Location loc = op.getLoc();
    Value identity = fromSignless(
        rewriter, loc,
        reductionIdentity(rewriter, loc, signlessOf(elem), uns, isSum, isProd, isMax), elem);
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
                                   Value v = isSum    ? emitAdd(b, l, x, acc)
                                             : isProd ? emitMul(b, l, x, acc)
                                             : isMax  ? emitMax(b, l, x, acc, uns)
                                                      : emitMin(b, l, x, acc, uns);
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

/// cumsum/cumprod/cummax/cummin => an scf.for along the axis (reversed when `reverse`)
/// carrying the running value of every other position: each step is one linalg.generic
/// that combines a slice into the carry and writes the slice of the result, in libstrata's
/// order. Floating sums and products carry f64, as libstrata's scans do.
template <typename OpTy> struct CumulativeToLoop : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    constexpr bool isSum = std::is_same_v<OpTy, st::CumsumOp>;
    constexpr bool isProd = std::is_same_v<OpTy, st::CumprodOp>;
    constexpr bool isMax = std::is_same_v<OpTy, st::CummaxOp>;
    auto type = tensorOf(op.getOperand());
    int64_t rank = type.getRank(), axis = op.getAxisAttr().getInt();
    if (axis < 0)
      axis += rank;
    Type elem = type.getElementType();
    if (!hasLowerableTypes(op) || axis < 0 || axis >= rank ||
        ((isSum || isProd) && elem.isInteger(1)))
      return rewriter.notifyMatchFailure(op, "needs static tensors and a valid axis");
    int64_t n = type.getDimSize(axis);
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, op.getOperand());
      return success();
    }
    Location loc = op.getLoc();
    bool uns = elem.isUnsignedInteger();
    Type sl = signlessOf(elem);
    Type accElem = (isSum || isProd) && isa<FloatType>(elem) ? rewriter.getF64Type() : sl;
    // One step's slice keeps the axis as a unit dimension: a rank-reducing slice is ambiguous
    // when other dimensions have size 1 too (the canonicalizer then picks the wrong one).
    SmallVector<int64_t> restShape(type.getShape());
    restShape[axis] = 1;
    auto accType = RankedTensorType::get(restShape, accElem);
    auto sliceType = RankedTensorType::get(restShape, elem);
    Value acc0 = makeInit(rewriter, loc, accType,
                          reductionIdentity(rewriter, loc, accElem, uns, isSum, isProd, isMax));
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
                Value next = isSum    ? emitAdd(bb, bl, acc, v)
                             : isProd ? emitMul(bb, bl, acc, v)
                                      : emitScanExtremum(bb, bl, acc, v, uns, isMax);
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
    bool unitContraction = !lc.empty() && llvm::all_of(lc, [&](int64_t d) {
      return lhsType.getDimSize(d) == 1;
    });
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

//===----------------------------------------------------------------------------------===//
// Fusion groups
//===----------------------------------------------------------------------------------===//

/// Fuses the (already lowered) ops of one strata.fusion group into as few loop nests as
/// linalg's elementwise fusion allows, then inlines the group into its parent. The region
/// is isolated from above, so fusing inside it never crosses groups.
LogicalResult fuseAndInlineGroup(st::FusionOp fusion) {
  MLIRContext *ctx = fusion.getContext();
  IRRewriter rewriter(ctx);
  // Elementwise fusion works on linalg.generic: generalize the named data-movement and
  // reduction ops so that all-parallel producers fuse into them too (softmax's exp into
  // its reduce_sum).
  SmallVector<linalg::LinalgOp> named;
  fusion.getBlock().walk([&](linalg::LinalgOp l) {
    if (isa<linalg::ReduceOp, linalg::TransposeOp, linalg::BroadcastOp>(l.getOperation()))
      named.push_back(l);
  });
  for (linalg::LinalgOp l : named) {
    rewriter.setInsertionPoint(l);
    if (failed(linalg::generalizeNamedOp(rewriter, l)))
      return fusion.emitError("could not generalize ") << l->getName() << " in the group";
  }
  RewritePatternSet patterns(ctx);
  // A producer fuses into a consumer when the consumer is its only user, or when it only
  // moves data (a broadcast: its body is a bare yield). Fusing a computing producer with
  // several users would recompute it in each, and through chains of diamonds (integer power
  // squares a base that two ops read, 32 times) the recomputation grows exponentially.
  linalg::populateElementwiseOpsFusionPatterns(patterns, [](OpOperand *operand) {
    Value v = operand->get();
    Operation *producer = v.getDefiningOp();
    auto generic = dyn_cast_or_null<linalg::GenericOp>(producer);
    if (generic && generic.getBody()->getOperations().size() == 1)
      return true;
    return llvm::all_of(v.getUsers(), [&](Operation *u) { return u == operand->getOwner(); });
  });
  // Each fusion removes a producer, so the driver ends; its default of 10 sweeps is too few
  // for long dependent chains (20 Threefry rounds in a loop body fuse one step per sweep).
  GreedyRewriteConfig config;
  config.setMaxIterations(GreedyRewriteConfig::kNoLimit);
  if (failed(applyPatternsGreedily(fusion.getRegion(), std::move(patterns), config)))
    return fusion.emitError("elementwise fusion of the group did not converge");

  Block &block = fusion.getBlock();
  Operation *yield = block.getTerminator();
  SmallVector<Value> results(yield->getOperands());
  // A group may yield one of its arguments (its op lowered to a forward, as stop_gradient
  // does): that value is the fusion's input, since the block's arguments vanish on inlining.
  for (Value &r : results)
    if (auto arg = dyn_cast<BlockArgument>(r); arg && arg.getOwner() == &block)
      r = fusion.getInputs()[arg.getArgNumber()];
  rewriter.eraseOp(yield);
  rewriter.inlineBlockBefore(&block, fusion, fusion.getInputs());
  rewriter.replaceOp(fusion, results);
  return success();
}

//===----------------------------------------------------------------------------------===//
// Control flow: strata.cond/while/scan => scf.if/index_switch, scf.while, scf.for
//===----------------------------------------------------------------------------------===//

/// Moves `from`'s block into the empty region `to` and replaces its strata.yield by what
/// `terminate` builds in front of it from the yielded values.
void moveRegion(IRRewriter &rewriter, Region &from, Region &to,
                function_ref<void(OpBuilder &, Location, ValueRange)> terminate) {
  rewriter.inlineRegionBefore(from, to, to.end());
  auto yield = cast<st::YieldOp>(to.front().getTerminator());
  rewriter.setInsertionPoint(yield);
  terminate(rewriter, yield.getLoc(), yield.getValues());
  rewriter.eraseOp(yield);
}

auto scfYield = [](OpBuilder &b, Location loc, ValueRange values) {
  scf::YieldOp::create(b, loc, values);
};

/// When the next value of a carry is an elementwise generic that reads the current carry only
/// at the element it writes (`x * 0.99 + 0.01`), makes the carry that generic's destination:
/// bufferized, it updates the carry's buffer in place (one pass, no temporary, no copy).
/// Needs: `next` used only by the yield being replaced, one result, all-parallel loops, an init the body does not
/// read, and every use of `carry` an input of the generic with the output's indexing map.
bool writeIntoCarry(Value next, Value carry) {
  auto op = next.getDefiningOp<linalg::GenericOp>();
  // The strata.yield being replaced may still use it.
  bool onlyYielded = llvm::all_of(next.getUsers(), [](Operation *u) { return isa<st::YieldOp>(u); });
  if (!op || !onlyYielded || op->getNumResults() != 1 || next.getType() != carry.getType() ||
      op.getNumParallelLoops() != op.getNumLoops())
    return false;
  OpOperand &init = op.getDpsInitsMutable()[0];
  if (op.payloadUsesValueFromOperand(&init))
    return false;
  AffineMap outMap = op.getMatchingIndexingMap(&init);
  if (!outMap.isPermutation())
    return false;
  for (OpOperand &use : carry.getUses())
    if (use.getOwner() != op.getOperation() || !op.isDpsInput(&use) ||
        op.getMatchingIndexingMap(&use) != outMap)
      return false;
  init.set(carry);
  return true;
}

/// The next carries of a loop written into the buffers of the current ones (`iterArgs`), so
/// that one-shot bufferization finds each yielded value equivalent to its block argument and
/// keeps one buffer per carry for the whole loop (otherwise it allocates and copies a new one
/// every iteration and tracks its ownership at run time).
/// These copies come last in the body, after every read of the current carries; a next value
/// that may alias a carry (a carry itself, as when two carries swap, or a view of one) is
/// first copied to a fresh tensor, since an in-place copy could overwrite it before it is read.
SmallVector<Value> inPlaceCarries(OpBuilder &b, Location loc, ValueRange next,
                                  ValueRange iterArgs) {
  Region *body = iterArgs.empty() ? nullptr : cast<BlockArgument>(iterArgs[0]).getParentRegion();
  SmallVector<Value> staged(next);
  for (auto [v, arg] : llvm::zip(staged, iterArgs)) {
    Operation *def = v.getDefiningOp();
    bool fresh = def && isa<linalg::LinalgOp>(def) && body->isAncestor(def->getParentRegion());
    if (v != arg && !fresh && body->isAncestor(v.getParentRegion()))
      v = linalg::CopyOp::create(b, loc, v, makeInit(b, loc, tensorOf(v))).getResult(0);
  }
  SmallVector<Value> out;
  for (auto [v, arg] : llvm::zip(staged, iterArgs)) {
    if (v == arg)
      out.push_back(v);
    else if (writeIntoCarry(v, arg))
      out.push_back(v);
    else
      out.push_back(linalg::CopyOp::create(b, loc, v, arg).getResult(0));
  }
  return out;
}

/// cond => scf.if (two branches: index > 0 takes branch 1, as the clamp does) or
/// scf.index_switch on the clamped index (the last branch is the default).
void lowerCond(IRRewriter &rewriter, st::CondOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  int64_t n = op.getBranches().size();
  if (n == 1) {
    Block &block = op.getBranches()[0].front();
    auto yield = cast<st::YieldOp>(block.getTerminator());
    SmallVector<Value> values(yield.getValues());
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&block, op);
    rewriter.replaceOp(op, values);
    return;
  }
  Value index = tensor::ExtractOp::create(rewriter, loc, op.getIndex(), ValueRange{});
  Type i32 = rewriter.getI32Type();
  auto c = [&](int64_t v) { return arith::ConstantIntOp::create(rewriter, loc, i32, v); };
  if (n == 2) {
    Value pred = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt, index, c(0));
    auto ifOp = scf::IfOp::create(rewriter, loc, op.getResultTypes(), pred,
                                  /*addThenBlock=*/false, /*addElseBlock=*/false);
    moveRegion(rewriter, op.getBranches()[1], ifOp.getThenRegion(), scfYield);
    moveRegion(rewriter, op.getBranches()[0], ifOp.getElseRegion(), scfYield);
    rewriter.replaceOp(op, ifOp.getResults());
    return;
  }
  Value clamped = arith::MaxSIOp::create(rewriter, loc, arith::MinSIOp::create(rewriter, loc,
                                                                               index, c(n - 1)),
                                         c(0));
  Value k = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), clamped);
  SmallVector<int64_t> cases(n - 1);
  std::iota(cases.begin(), cases.end(), 0);
  auto sw = scf::IndexSwitchOp::create(rewriter, loc, op.getResultTypes(), k, cases, n - 1);
  for (int64_t i = 0; i + 1 < n; ++i)
    moveRegion(rewriter, op.getBranches()[i], sw.getCaseRegions()[i], scfYield);
  moveRegion(rewriter, op.getBranches()[n - 1], sw.getDefaultRegion(), scfYield);
  rewriter.replaceOp(op, sw.getResults());
}

/// while => scf.while: the cond region becomes `before` (its i1 tensor read as a scalar for
/// scf.condition, which forwards the carries), the body `after`.
void lowerWhile(IRRewriter &rewriter, st::WhileOp op) {
  rewriter.setInsertionPoint(op);
  auto loop = scf::WhileOp::create(rewriter, op.getLoc(), op.getResultTypes(), op.getInits());
  Block *before = &op.getCond().front();
  moveRegion(rewriter, op.getCond(), loop.getBefore(),
             [&](OpBuilder &b, Location loc, ValueRange values) {
               Value p = tensor::ExtractOp::create(b, loc, values[0], ValueRange{});
               scf::ConditionOp::create(b, loc, p, before->getArguments());
             });
  Block *after = &op.getBody().front();
  moveRegion(rewriter, op.getBody(), loop.getAfter(),
             [&](OpBuilder &b, Location loc, ValueRange values) {
               scf::YieldOp::create(b, loc, inPlaceCarries(b, loc, values, after->getArguments()));
             });
  rewriter.replaceOp(op, loop.getResults());
}

/// scan => scf.for over the steps, carrying the carries and the stacked ys: step i works on
/// slice t = i (or length - 1 - i in reverse) of each xs (a rank-reducing extract_slice) and
/// writes slice t of each ys (insert_slice into the carried tensor, in place once bufferized).
void lowerScan(IRRewriter &rewriter, st::ScanOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  int64_t length = op.getLength();
  SmallVector<Value> inits(op.getInits());
  for (Value y : op.getYsResults())
    inits.push_back(makeInit(rewriter, loc, tensorOf(y)));
  if (length == 0) { // no step runs: the inits and empty ys
    rewriter.replaceOp(op, inits);
    return;
  }
  auto loop = scf::ForOp::create(rewriter, loc, indexConst(rewriter, loc, 0),
                                 indexConst(rewriter, loc, length), indexConst(rewriter, loc, 1),
                                 inits);
  Block *body = loop.getBody();
  rewriter.setInsertionPointToStart(body);
  Value t = loop.getInductionVar();
  if (op.getReverse())
    t = arith::SubIOp::create(rewriter, loc, indexConst(rewriter, loc, length - 1), t);
  // The offsets, sizes and strides of slice t of a tensor of `type`.
  auto sliceAt = [&](RankedTensorType type, SmallVector<OpFoldResult> &offsets,
                     SmallVector<OpFoldResult> &sizes, SmallVector<OpFoldResult> &strides) {
    offsets.assign(type.getRank(), rewriter.getIndexAttr(0));
    offsets[0] = t;
    sizes.clear();
    sizes.push_back(rewriter.getIndexAttr(1));
    for (int64_t d : type.getShape().drop_front())
      sizes.push_back(rewriter.getIndexAttr(d));
    strides.assign(type.getRank(), rewriter.getIndexAttr(1));
  };
  size_t nc = op.getInits().size();
  SmallVector<Value> args(loop.getRegionIterArgs().take_front(nc));
  for (Value x : op.getXs()) {
    auto type = tensorOf(x);
    SmallVector<OpFoldResult> offsets, sizes, strides;
    sliceAt(type, offsets, sizes, strides);
    auto sliceType = RankedTensorType::get(type.getShape().drop_front(), type.getElementType());
    args.push_back(tensor::ExtractSliceOp::create(rewriter, loc, sliceType, x, offsets, sizes,
                                                  strides));
  }
  Block &scanBody = op.getBody().front();
  auto yield = cast<st::YieldOp>(scanBody.getTerminator());
  rewriter.inlineBlockBefore(&scanBody, body, body->end(), args);
  rewriter.setInsertionPoint(yield);
  // The ys first: they may read the current carries, which the carry copies overwrite.
  SmallVector<Value> ys;
  for (auto [y, acc] : llvm::zip(yield.getValues().drop_front(nc),
                                 loop.getRegionIterArgs().drop_front(nc))) {
    SmallVector<OpFoldResult> offsets, sizes, strides;
    sliceAt(tensorOf(acc), offsets, sizes, strides);
    ys.push_back(tensor::InsertSliceOp::create(rewriter, loc, y, acc, offsets, sizes, strides));
  }
  SmallVector<Value> next = inPlaceCarries(rewriter, loc, yield.getValues().take_front(nc),
                                           loop.getRegionIterArgs().take_front(nc));
  next.append(ys);
  scf::YieldOp::create(rewriter, yield.getLoc(), next);
  rewriter.eraseOp(yield);
  rewriter.replaceOp(op, loop.getResults());
}

/// Lowers every control-flow op under `root`, innermost first (their regions' strata ops are
/// already lowered).
void lowerControlFlow(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<st::CondOp, st::WhileOp, st::ScanOp>(op))
      ops.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  for (Operation *op : ops)
    TypeSwitch<Operation *>(op)
        .Case([&](st::CondOp c) { lowerCond(rewriter, c); })
        .Case([&](st::WhileOp w) { lowerWhile(rewriter, w); })
        .Case([&](st::ScanOp s) { lowerScan(rewriter, s); });
}

//===----------------------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------------------===//

template <typename... OpTys> void addElementwise(RewritePatternSet &patterns, MLIRContext *ctx) {
  patterns.add<ElementwiseToGeneric<OpTys>...>(ctx);
}

/// Any primitive op whose results all have zero elements => tensor.empty: there is nothing to
/// compute, and the tensor ops' verifiers reject some zero-size slices (an offset equal to a
/// zero-size dimension) that the primitive rules allow.
struct ZeroSizeToEmpty : RewritePattern {
  explicit ZeroSizeToEmpty(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/10, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isa<st::PrimitiveOpInterface>(op) || op->getNumResults() == 0)
      return failure();
    SmallVector<Value> empties;
    for (Value r : op->getResults()) {
      auto t = dyn_cast<RankedTensorType>(r.getType());
      if (!t || !t.hasStaticShape() || t.getNumElements() != 0)
        return failure();
      empties.push_back(makeInit(rewriter, op->getLoc(), t));
    }
    rewriter.replaceOp(op, empties);
    return success();
  }
};

/// A splat constant read by a linalg.generic (a broadcast scalar that folding turned into a
/// dense tensor, e.g. `x * 0.99` hoisted out of a loop body) becomes a scalar constant in the
/// body, and the operand goes: otherwise bufferization makes it a global array that every
/// iteration reads like a real operand (a 1000-step fori_loop read three arrays per step
/// instead of one).
void foldSplatInputs(Operation *root) {
  SmallVector<Operation *> changed;
  root->walk([&](linalg::GenericOp op) {
    Block *body = op.getBlock();
    for (OpOperand *in : op.getDpsInputOperands()) {
      auto cst = in->get().getDefiningOp<arith::ConstantOp>();
      auto splat = cst ? dyn_cast<SplatElementsAttr>(cst.getValue()) : nullptr;
      BlockArgument arg = body->getArgument(in->getOperandNumber());
      if (!splat || arg.use_empty() || arg.getType() != splat.getElementType())
        continue;
      OpBuilder b = OpBuilder::atBlockBegin(body);
      Value scalar =
          arith::ConstantOp::create(b, cst.getLoc(), cast<TypedAttr>(splat.getSplatValue<Attribute>()));
      arg.replaceAllUsesWith(scalar);
      if (changed.empty() || changed.back() != op.getOperation())
        changed.push_back(op);
    }
  });
  if (changed.empty())
    return;
  // Only the generics changed here: other IR stays exactly as lowered.
  RewritePatternSet erase(root->getContext());
  linalg::populateEraseUnusedOperandsAndResultsPatterns(erase);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingOps);
  (void)applyOpPatternsGreedily(changed, std::move(erase), config);
}

//===----------------------------------------------------------------------------------===//
// Host callbacks
//===----------------------------------------------------------------------------------===//

constexpr StringLiteral kHostCallbackFn = "strata_rt_host_callback";
constexpr StringLiteral kHostCallbackBufferFn = "strata_rt_host_callback_buffer";
constexpr StringLiteral kHostCallbackDimFn = "strata_rt_host_callback_dim";

/// `func.func private @name(i64 x n)`, declared once in `module`.
func::FuncOp runtimeDecl(RewriterBase &rewriter, ModuleOp module, StringRef name, unsigned n) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToEnd(module.getBody());
  SmallVector<Type> args(n, rewriter.getI64Type());
  auto fn =
      func::FuncOp::create(rewriter, module.getLoc(), name, rewriter.getFunctionType(args, {}));
  fn.setPrivate();
  return fn;
}

/// strata.host_callback => calls of the runtime, before bufferization and with scalar
/// arguments only (so host code stays free of stores, which the GPU pipeline would move into
/// kernels): `strata_rt_host_callback_buffer(address, dtype code, rank)` and one
/// `strata_rt_host_callback_dim(size)` per dimension for each operand buffer
/// (`bufferization.to_buffer`) and then each result buffer (a fresh allocation the runtime
/// fills, read back with `bufferization.to_tensor`), then `strata_rt_host_callback(callback_id,
/// n_in, n_out)`. The calls have unknown effects, so they keep their places among the other
/// calls; the buffers they name live to the end of their block, after them.
LogicalResult lowerHostCallback(IRRewriter &rewriter, st::HostCallbackOp op) {
  auto module = op->getParentOfType<ModuleOp>();
  auto strataType = [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && rt.hasStaticShape() && st::toDType(rt.getElementType()).has_value();
  };
  if (!module || !llvm::all_of(op->getOperandTypes(), strataType) ||
      !llvm::all_of(op->getResultTypes(), strataType))
    return op.emitOpError("needs static tensors of Strata element types inside a module to be "
                          "lowered");
  func::FuncOp call = runtimeDecl(rewriter, module, kHostCallbackFn, 3);
  func::FuncOp buffer = runtimeDecl(rewriter, module, kHostCallbackBufferFn, 3);
  func::FuncOp dim = runtimeDecl(rewriter, module, kHostCallbackDimFn, 1);
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Type i64 = rewriter.getI64Type();
  auto constant = [&](int64_t c) { return arith::ConstantIntOp::create(rewriter, loc, i64, c); };
  auto describe = [&](Value memref, RankedTensorType t) {
    Value address = arith::IndexCastOp::create(
        rewriter, loc, i64, memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, memref));
    func::CallOp::create(
        rewriter, loc, buffer,
        ValueRange{address, constant(static_cast<int64_t>(*st::toDType(t.getElementType()))),
                   constant(t.getRank())});
    for (int64_t d : t.getShape())
      func::CallOp::create(rewriter, loc, dim, ValueRange{constant(d)});
  };
  for (Value in : op.getInputs()) {
    RankedTensorType t = tensorOf(in);
    describe(bufferization::ToBufferOp::create(
                 rewriter, loc, MemRefType::get(t.getShape(), t.getElementType()), in,
                 /*read_only=*/true),
             t);
  }
  SmallVector<Value> buffers;
  for (Value r : op.getResults()) {
    RankedTensorType t = tensorOf(r);
    buffers.push_back(
        memref::AllocOp::create(rewriter, loc, MemRefType::get(t.getShape(), t.getElementType())));
    describe(buffers.back(), t);
  }
  func::CallOp::create(rewriter, loc, call,
                       ValueRange{constant(static_cast<int64_t>(op.getCallbackId())),
                                  constant(op.getInputs().size()),
                                  constant(op.getResults().size())});
  SmallVector<Value> results;
  for (auto [memref, r] : llvm::zip(buffers, op.getResults()))
    results.push_back(bufferization::ToTensorOp::create(rewriter, loc, r.getType(), memref,
                                                        /*restrict=*/true, /*writable=*/true));
  rewriter.replaceOp(op, results);
  return success();
}

LogicalResult lowerHostCallbacks(Operation *root) {
  SmallVector<st::HostCallbackOp> ops;
  root->walk([&](st::HostCallbackOp op) { ops.push_back(op); });
  IRRewriter rewriter(root->getContext());
  for (st::HostCallbackOp op : ops)
    if (failed(lowerHostCallback(rewriter, op)))
      return failure();
  return success();
}

struct StrataLowerToLinalgPass : st::impl::StrataLowerToLinalgBase<StrataLowerToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    if (failed(lowerHostCallbacks(getOperation())))
      return signalPassFailure();
    RewritePatternSet patterns(ctx);
    addElementwise<st::NegOp, st::AbsOp, st::SignOp, st::FloorOp, st::CeilOp, st::RoundOp,
                   st::ExpOp, st::LogOp, st::Log1pOp, st::Expm1Op, st::SqrtOp, st::RsqrtOp,
                   st::SinOp, st::CosOp, st::TanOp, st::TanhOp, st::LogisticOp, st::ErfOp,
                   st::ErfInvOp, st::IsFiniteOp, st::NotOp, st::IntegerPowOp, st::AddOp, st::SubOp,
                   st::MulOp, st::DivOp, st::RemOp, st::PowOp, st::MaxOp, st::MinOp, st::Atan2Op,
                   st::AndOp, st::OrOp, st::XorOp, st::ShiftLeftOp, st::ShiftRightLogicalOp,
                   st::EqOp, st::NeOp, st::LtOp, st::LeOp, st::GtOp, st::GeOp, st::SelectOp,
                   st::ClampOp, st::ConvertElementTypeOp, st::BitcastConvertTypeOp>(patterns, ctx);
    addElementwise<st::SinhOp, st::CoshOp, st::AsinOp, st::AcosOp, st::AtanOp, st::AsinhOp,
                   st::AcoshOp, st::AtanhOp, st::CbrtOp, st::Exp2Op>(patterns, ctx);
    addElementwise<st::ErfcOp, st::LgammaOp, st::DigammaOp, st::IgammaOp, st::IgammacOp,
                   st::IgammaGradAOp, st::RandomGammaGradOp, st::PolygammaOp, st::ZetaOp>(patterns,
                                                                                         ctx);
    addElementwise<st::PopulationCountOp, st::ClzOp, st::NextafterOp, st::BesselI0eOp,
                   st::BesselI1eOp, st::RegularizedIncompleteBetaOp, st::ShiftRightArithmeticOp>(
        patterns, ctx);
    patterns.add<ZeroSizeToEmpty, Threefry2x32ToGeneric>(ctx);
    patterns.add<IdentityToOperand<st::StopGradientOp>, IdentityToOperand<st::CheckpointNameOp>,
                 BroadcastInDimToGeneric, TransposeToLinalg, ReshapeToTensor, IotaToGeneric,
                 RevToGeneric, SliceToTensor, PadToTensor, ConcatenateToTensor,
                 DynamicSliceToTensor, DynamicUpdateSliceToTensor>(ctx);
    patterns.add<GatherToGeneric, ScatterToLoop<st::ScatterOp>, ScatterToLoop<st::ScatterAddOp>>(
        ctx);
    patterns.add<ReduceToLinalg<st::ReduceSumOp>, ReduceToLinalg<st::ReduceMaxOp>,
                 ReduceToLinalg<st::ReduceMinOp>, ReduceToLinalg<st::ReduceProdOp>,
                 ArgReduceToGeneric<st::ArgmaxOp>, ArgReduceToGeneric<st::ArgminOp>,
                 CumulativeToLoop<st::CumsumOp>, CumulativeToLoop<st::CumprodOp>,
                 CumulativeToLoop<st::CummaxOp>, CumulativeToLoop<st::CumminOp>, SortToGeneric,
                 DotGeneralToLinalg>(ctx);
    // One walk (fusion bodies included): every pattern creates only upstream ops, so nothing
    // needs revisiting, and unrelated IR is left exactly as it was (no folding).
    walkAndApplyPatterns(getOperation(), std::move(patterns));

    // Then each fusion group, innermost first, becomes fused loop nests in its parent.
    SmallVector<st::FusionOp> groups;
    getOperation()->walk([&](st::FusionOp f) { groups.push_back(f); });
    for (st::FusionOp f : groups)
      if (failed(fuseAndInlineGroup(f)))
        return signalPassFailure();
    lowerControlFlow(getOperation());
    foldSplatInputs(getOperation());
  }
};

} // namespace
