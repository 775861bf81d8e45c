// The scalar semantics of Strata's primitives as arith/math/scf ops (ScalarSemantics.h).
#include "transforms/lowering/ScalarSemantics.h"

#include "lib/primitives/bessel_coefficients.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>
#include <cstdint>
#include <limits>

using namespace mlir;

namespace mlir::strata::lowering {

Value scalarConst(OpBuilder &b, Location loc, Type t, double f, int64_t i) {
  if (auto ft = dyn_cast<FloatType>(t))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, f));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, i));
}

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
      b, loc, arith::CmpIPredicate::slt, arith::BitcastOp::create(b, loc, bits, x),
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(bits, 0)));
  Value magnitude = arith::SelectOp::create(b, loc, xNegative, pi, zero);
  Value atZero = math::CopySignOp::create(b, loc, magnitude, y);
  return arith::SelectOp::create(b, loc, bothZero, atZero, math::Atan2Op::create(b, loc, y, x));
}

Value reductionIdentity(OpBuilder &b, Location loc, Type t, bool uns, Monoid m) {
  if (auto ct = dyn_cast<ComplexType>(t)) {
    Type part = ct.getElementType();
    return complex::CreateOp::create(b, loc, ct, reductionIdentity(b, loc, part, false, m),
                                     scalarConst(b, loc, part, 0, 0));
  }
  if (m == Monoid::Sum || m == Monoid::Prod)
    return scalarConst(b, loc, t, m == Monoid::Prod ? 1.0 : 0.0, m == Monoid::Prod ? 1 : 0);
  bool isMax = m == Monoid::Max;
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

namespace {

/// Whether complex `z` has a NaN part (libstrata's is_nan of a complex number).
Value complexIsNan(OpBuilder &b, Location loc, Value z) {
  return arith::OrIOp::create(b, loc, isNan(b, loc, complex::ReOp::create(b, loc, z)),
                              isNan(b, loc, complex::ImOp::create(b, loc, z)));
}

/// `a > c` (or `a < c`) on complex numbers in XLA's lexicographic order: by real part, then by
/// imaginary part; false when a part is NaN.
Value complexGreater(OpBuilder &b, Location loc, Value a, Value c, bool greater) {
  Value ar = complex::ReOp::create(b, loc, a), ai = complex::ImOp::create(b, loc, a);
  Value cr = complex::ReOp::create(b, loc, c), ci = complex::ImOp::create(b, loc, c);
  auto pred = greater ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT;
  Value reBetter = arith::CmpFOp::create(b, loc, pred, ar, cr);
  Value reEqual = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, ar, cr);
  Value imBetter = arith::CmpFOp::create(b, loc, pred, ai, ci);
  return arith::OrIOp::create(b, loc, reBetter, arith::AndIOp::create(b, loc, reEqual, imBetter));
}

/// libstrata's complex max (min): x if it has a NaN part, else y if it has one, else the
/// lexicographically greater (smaller), y on ties.
Value complexExtremum(OpBuilder &b, Location loc, Value x, Value y, bool isMax) {
  Value takeX = arith::OrIOp::create(
      b, loc, complexIsNan(b, loc, x),
      arith::AndIOp::create(
          b, loc,
          arith::XOrIOp::create(b, loc, complexIsNan(b, loc, y),
                                arith::ConstantOp::create(b, loc, b.getBoolAttr(true))),
          complexGreater(b, loc, x, y, isMax)));
  return arith::SelectOp::create(b, loc, takeX, x, y);
}

} // namespace

/// Max/min of two scalars: NaN-propagating for floats (and complex numbers, ordered
/// lexicographically); unsigned for bool and uiN.
Value emitMax(OpBuilder &b, Location loc, Value x, Value y, bool uns) {
  Type t = x.getType();
  if (isa<ComplexType>(t))
    return complexExtremum(b, loc, x, y, /*isMax=*/true);
  if (isa<FloatType>(t))
    return arith::MaximumFOp::create(b, loc, x, y);
  if (uns || t.isInteger(1))
    return arith::MaxUIOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}
Value emitMin(OpBuilder &b, Location loc, Value x, Value y, bool uns) {
  Type t = x.getType();
  if (isa<ComplexType>(t))
    return complexExtremum(b, loc, x, y, /*isMax=*/false);
  if (isa<FloatType>(t))
    return arith::MinimumFOp::create(b, loc, x, y);
  if (uns || t.isInteger(1))
    return arith::MinUIOp::create(b, loc, x, y);
  return arith::MinSIOp::create(b, loc, x, y);
}
Value emitAdd(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<ComplexType>(x.getType()))
    return complex::AddOp::create(b, loc, x, y);
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  if (x.getType().isInteger(1))
    return arith::OrIOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}
Value emitMul(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<ComplexType>(x.getType()))
    return complex::MulOp::create(b, loc, x, y);
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, loc, x, y);
  if (x.getType().isInteger(1))
    return arith::AndIOp::create(b, loc, x, y);
  return arith::MulIOp::create(b, loc, x, y);
}

Value emitMonoid(OpBuilder &b, Location loc, Monoid m, Value x, Value y, bool uns) {
  switch (m) {
  case Monoid::Sum:
    return emitAdd(b, loc, x, y);
  case Monoid::Prod:
    return emitMul(b, loc, x, y);
  case Monoid::Max:
    return emitMax(b, loc, x, y, uns);
  case Monoid::Min:
    return emitMin(b, loc, x, y, uns);
  }
  llvm_unreachable("unknown monoid");
}

/// `a > b` (or `a < b` when !greater): ordered for floats, unsigned for bool and uiN.
Value emitGreater(OpBuilder &b, Location loc, Value a, Value c, bool uns, bool greater) {
  if (isa<ComplexType>(a.getType()))
    return complexGreater(b, loc, a, c, greater);
  if (isa<FloatType>(a.getType()))
    return arith::CmpFOp::create(
        b, loc, greater ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, a, c);
  using P = arith::CmpIPredicate;
  bool u = uns || a.getType().isInteger(1);
  return arith::CmpIOp::create(b, loc, greater ? (u ? P::ugt : P::sgt) : (u ? P::ult : P::slt), a,
                               c);
}

Value isNan(OpBuilder &b, Location loc, Value x) {
  if (isa<ComplexType>(x.getType()))
    return complexIsNan(b, loc, x);
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
}

/// libstrata's running max/min step (reduce.cpp's MaxOp/MinOp): keeps `acc` when it is
/// strictly better or NaN, else takes `v` (so NaN propagates and ties take the newer value).
Value emitScanExtremum(OpBuilder &b, Location loc, Value acc, Value v, bool uns, bool isMax) {
  Value keep = emitGreater(b, loc, acc, v, uns, isMax);
  if (isa<FloatType, ComplexType>(acc.getType()))
    keep = arith::OrIOp::create(b, loc, keep, isNan(b, loc, acc));
  return arith::SelectOp::create(b, loc, keep, acc, v);
}

namespace {

/// The float value of integer `v` (w bits, signed or not) rounded to nearest-even in `ft`.
double intAsFloat(FloatType ft, const APInt &v, bool isSigned) {
  APFloat f(ft.getFloatSemantics());
  f.convertFromAPInt(v, isSigned, APFloat::rmNearestTiesToEven);
  bool lost = false;
  f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return f.convertToDouble();
}

} // namespace

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
  Value away =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, fcmp(arith::CmpFPredicate::OLT, x, y),
                            fcmp(arith::CmpFPredicate::OGT, x, zero));
  Value stepped = arith::SelectOp::create(b, loc, away, arith::AddIOp::create(b, loc, bx, ic(1)),
                                          arith::SubIOp::create(b, loc, bx, ic(1)));
  Value tiny = arith::OrIOp::create(
      b, loc, arith::AndIOp::create(b, loc, by, ic(uint64_t{1} << (w - 1))), ic(1));
  Value bits =
      arith::SelectOp::create(b, loc, fcmp(arith::CmpFPredicate::OEQ, x, zero), tiny, stepped);
  Value r = arith::BitcastOp::create(b, loc, t, bits);
  r = arith::SelectOp::create(b, loc, fcmp(arith::CmpFPredicate::OEQ, x, y), y, r);
  Value anyNan = arith::OrIOp::create(b, loc, isNan(b, loc, x), isNan(b, loc, y));
  return arith::SelectOp::create(b, loc, anyNan, arith::AddFOp::create(b, loc, x, y), r);
}

//===----------------------------------------------------------------------------------===//
// Special functions: libstrata's f64 algorithms (lib/primitives/elementwise.cpp)
//===----------------------------------------------------------------------------------===//

namespace {

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
  Value sel(Value cnd, Value p, Value q) const {
    return arith::SelectOp::create(b, loc, cnd, p, q);
  }
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
  Value lg =
      e.add(e.sub(e.add(e.c(0.91893853320467274178), e.mul(e.add(z, e.c(0.5)), e.log(t))), t),
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
  SmallVector<Value> init = {e.c(0), y0,     z0,     e.c(1), x,     pkm1,  qkm1,
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
        Value dpk =
            in.add(in.sub(in.sub(in.mul(v[10], z), v[5]), in.mul(v[8], yc)), in.mul(v[3], c));
        Value dqk =
            in.add(in.sub(in.sub(in.mul(v[11], z), v[6]), in.mul(v[9], yc)), in.mul(v[4], c));
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
        return SmallVector<Value>{c,
                                  y,
                                  z,
                                  scaled(v[5]),
                                  scaled(v[6]),
                                  scaled(pk),
                                  scaled(qk),
                                  ans,
                                  scaled(v[10]),
                                  scaled(v[11]),
                                  scaled(dpk),
                                  scaled(dqk),
                                  dans,
                                  on};
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
    Value domain =
        e.any(e.any(anyNan, e.lt(x, zero)), e.any(e.lt(a, zero), e.all(e.eq(a, zero), xZero)));
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
  Value domain =
      e.any(e.any(e.any(e.lt(a0, zero), e.lt(b0, zero)), e.any(e.lt(x0, zero), e.gt(x0, one))),
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
      e, init, [&](F64Ops &in, ValueRange v) { return in.all(v[4], in.lt(v[0], in.c(600))); },
      [&](F64Ops &in, ValueRange v) {
        Value n = v[0];
        Value m = in.floor(in.mul(in.sub(n, in.c(1)), in.c(0.5)));
        Value even = in.eq(in.sub(n, in.mul(in.c(2), in.floor(in.mul(n, in.c(0.5))))), in.c(0));
        Value a2m = in.add(a, in.mul(in.c(2), m));
        Value zeroNum = in.div(in.neg(in.mul(in.add(a, b), x)), in.add(a, in.c(1)));
        Value evenNum = in.div(in.neg(in.mul(in.mul(in.add(a, m), in.add(in.add(a, b), m)), x)),
                               in.mul(a2m, in.add(a2m, in.c(1))));
        evenNum = in.sel(in.eq(m, in.c(0)), zeroNum, evenNum);
        Value oddNum =
            in.div(in.mul(in.mul(m, in.sub(b, m)), x), in.mul(in.sub(a2m, in.c(1)), a2m));
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
  Value factor =
      e.div(e.exp(e.sub(e.sub(e.add(e.mul(e.log(x), a), e.mul(l1x, b)), lbetaSmall), lga)), a);
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

} // namespace

Value emitLgamma(OpBuilder &b, Location loc, Value x) {
  return inF64(b, loc, x, [](F64Ops &e, ArrayRef<Value> v) { return emitLgammaF64(e, v[0]); });
}

Value emitDigamma(OpBuilder &b, Location loc, Value x) {
  return inF64(b, loc, x, [](F64Ops &e, ArrayRef<Value> v) { return emitDigammaF64(e, v[0]); });
}

Value emitZeta(OpBuilder &b, Location loc, Value s, Value q) {
  return inF64(b, loc, {s, q},
               [](F64Ops &e, ArrayRef<Value> v) { return emitZetaF64(e, v[0], v[1]); });
}

Value emitPolygamma(OpBuilder &b, Location loc, Value n, Value x) {
  return inF64(b, loc, {n, x},
               [](F64Ops &e, ArrayRef<Value> v) { return emitPolygammaF64(e, v[0], v[1]); });
}

Value emitIgamma(OpBuilder &b, Location loc, Value a, Value x, IgammaMode mode) {
  return inF64(b, loc, {a, x},
               [&](F64Ops &e, ArrayRef<Value> v) { return emitIgammaF64(e, v[0], v[1], mode); });
}

Value emitIgammac(OpBuilder &b, Location loc, Value a, Value x) {
  return inF64(b, loc, {a, x},
               [](F64Ops &e, ArrayRef<Value> v) { return emitIgammacF64(e, v[0], v[1]); });
}

Value emitBesselExp(OpBuilder &b, Location loc, Value x, bool order1) {
  return inF64(b, loc, x,
               [&](F64Ops &e, ArrayRef<Value> v) { return emitBesselF64(e, v[0], order1); });
}

Value emitBetainc(OpBuilder &b, Location loc, Value a, Value bb, Value x) {
  return inF64(b, loc, {a, bb, x},
               [](F64Ops &e, ArrayRef<Value> v) { return emitBetaincF64(e, v[0], v[1], v[2]); });
}

std::pair<Value, Value> emitThreefry2x32(OpBuilder &b, Location l, Value k0, Value k1, Value x0,
                                         Value x1) {
  Type i32 = b.getI32Type();
  auto k = [&](int64_t v) { return scalarConst(b, l, i32, 0, v); };
  auto add = [&](Value p, Value q) { return Value(arith::AddIOp::create(b, l, p, q)); };
  auto rotl = [&](Value v, int r) {
    return Value(arith::OrIOp::create(b, l, arith::ShLIOp::create(b, l, v, k(r)),
                                      arith::ShRUIOp::create(b, l, v, k(32 - r))));
  };
  Value ks[3] = {k0, k1,
                 arith::XOrIOp::create(b, l, arith::XOrIOp::create(b, l, k0, k1), k(0x1BD11BDA))};
  static constexpr int kRot[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  x0 = add(x0, ks[0]);
  x1 = add(x1, ks[1]);
  for (int i = 0; i < 5; ++i) {
    for (int r : kRot[i % 2]) {
      x0 = add(x0, x1);
      x1 = arith::XOrIOp::create(b, l, rotl(x1, r), x0);
    }
    x0 = add(x0, ks[(i + 1) % 3]);
    x1 = add(x1, add(ks[(i + 2) % 3], k(i + 1)));
  }
  return {x0, x1};
}

} // namespace mlir::strata::lowering
