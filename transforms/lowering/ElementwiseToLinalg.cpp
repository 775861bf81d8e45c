// Elementwise strata ops => one linalg.generic each, whose body is the op's scalar semantics.
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numbers>

using namespace mlir;
namespace st = mlir::strata;

namespace mlir::strata::lowering {
namespace {

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

/// The unary ops (integer_pow included); null for any other op.
Value emitUnary(OpBuilder &b, Location loc, Operation *op, ValueRange a, bool uns, Type outType) {
  Value x = a[0];
  Type t = x.getType();
  bool isFloat = isa<FloatType>(t);
  auto c = [&](double f, int64_t i) { return scalarConst(b, loc, t, f, i); };
  return llvm::TypeSwitch<Operation *, Value>(op)
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
      .Case<st::BesselI0eOp>([&](auto) { return emitBesselExp(b, loc, x, /*order1=*/false); })
      .Case<st::BesselI1eOp>([&](auto) { return emitBesselExp(b, loc, x, /*order1=*/true); })
      .Case<st::PopulationCountOp>([&](auto) { return math::CtPopOp::create(b, loc, x); })
      .Case<st::ClzOp>([&](auto) { return math::CountLeadingZerosOp::create(b, loc, x); })
      .Case<st::LgammaOp>([&](auto) { return emitLgamma(b, loc, x); })
      .Case<st::DigammaOp>([&](auto) { return emitDigamma(b, loc, x); })
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
      .Default([](Operation *) { return Value(); });
}

/// The binary arithmetic, bitwise and shift ops; null for any other op.
Value emitBinary(OpBuilder &b, Location loc, Operation *op, ValueRange a, bool uns, Type outType) {
  Value x = a[0];
  Type t = x.getType();
  bool isFloat = isa<FloatType>(t);
  auto c = [&](double f, int64_t i) { return scalarConst(b, loc, t, f, i); };
  return llvm::TypeSwitch<Operation *, Value>(op)
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
      .Case<st::RegularizedIncompleteBetaOp>(
          [&](auto) { return emitBetainc(b, loc, a[0], a[1], a[2]); })
      .Case<st::IgammaOp>([&](auto) { return emitIgamma(b, loc, a[0], a[1], IgammaMode::Value); })
      .Case<st::IgammacOp>([&](auto) { return emitIgammac(b, loc, a[0], a[1]); })
      .Case<st::IgammaGradAOp>(
          [&](auto) { return emitIgamma(b, loc, a[0], a[1], IgammaMode::Derivative); })
      .Case<st::RandomGammaGradOp>(
          [&](auto) { return emitIgamma(b, loc, a[0], a[1], IgammaMode::SampleDerivative); })
      .Case<st::PolygammaOp>([&](auto) { return emitPolygamma(b, loc, a[0], a[1]); })
      .Case<st::ZetaOp>([&](auto) { return emitZeta(b, loc, a[0], a[1]); })
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
        return arith::SelectOp::create(b, loc, inRange, arith::ShRSIOp::create(b, loc, x, y), fill);
      })
      .Default([](Operation *) { return Value(); });
}

/// Comparisons, select, clamp and the conversions; null for any other op.
Value emitCompareSelectConvert(OpBuilder &b, Location loc, Operation *op, ValueRange a, bool uns,
                               Type outType) {
  Value x = a[0];
  Type t = x.getType();
  bool isFloat = isa<FloatType>(t);
  bool unsOrBool = uns || t.isInteger(1);
  return llvm::TypeSwitch<Operation *, Value>(op)
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

/// Whether `t` is a complex element type.
bool isComplex(Type t) { return isa<ComplexType>(t); }

/// `x^n` by square-and-multiply on complex `x` (n >= 0), as libstrata's integer_pow.
Value emitComplexPow(OpBuilder &b, Location loc, Value x, uint64_t n) {
  auto ct = cast<ComplexType>(x.getType());
  Value zero = scalarConst(b, loc, ct.getElementType(), 0, 0);
  Value one = scalarConst(b, loc, ct.getElementType(), 1, 1);
  Value acc = complex::CreateOp::create(b, loc, ct, one, zero);
  Value base = x;
  for (; n; n >>= 1) {
    if (n & 1)
      acc = complex::MulOp::create(b, loc, acc, base);
    if (n > 1)
      base = complex::MulOp::create(b, loc, base, base);
  }
  return acc;
}

/// Scalar `x` (real of any Strata type, or complex) as complex type `to`: real values take a
/// zero imaginary part.
Value toComplex(OpBuilder &b, Location loc, Value x, bool uns, ComplexType to) {
  Type part = to.getElementType();
  if (auto from = dyn_cast<ComplexType>(x.getType())) {
    if (from == to)
      return x;
    Value re = complex::ReOp::create(b, loc, x), im = complex::ImOp::create(b, loc, x);
    return complex::CreateOp::create(b, loc, to, emitConvert(b, loc, re, false, part, false),
                                     emitConvert(b, loc, im, false, part, false));
  }
  return complex::CreateOp::create(b, loc, to, emitConvert(b, loc, x, uns, part, false),
                                   scalarConst(b, loc, part, 0, 0));
}

/// i * z: (-im z, re z), exact.
Value timesI(OpBuilder &b, Location loc, Value z) {
  Value re = complex::ReOp::create(b, loc, z), im = complex::ImOp::create(b, loc, z);
  return complex::CreateOp::create(b, loc, z.getType(), arith::NegFOp::create(b, loc, im), re);
}

/// -i * z: (im z, -re z), exact.
Value timesMinusI(OpBuilder &b, Location loc, Value z) {
  Value re = complex::ReOp::create(b, loc, z), im = complex::ImOp::create(b, loc, z);
  return complex::CreateOp::create(b, loc, z.getType(), im, arith::NegFOp::create(b, loc, re));
}

/// The complex constant `re + 0i` of z's type.
Value complexConst(OpBuilder &b, Location loc, Value z, double re) {
  auto ct = cast<ComplexType>(z.getType());
  Type part = ct.getElementType();
  return complex::CreateOp::create(b, loc, ct, scalarConst(b, loc, part, re, 0),
                                   scalarConst(b, loc, part, 0, 0));
}

/// sinh (or cosh) of x + iy on the parts: sinh x cos y + i cosh x sin y (cosh x cos y +
/// i sinh x sin y).
Value emitComplexSinhCosh(OpBuilder &b, Location loc, Value z, bool cosh) {
  Value x = complex::ReOp::create(b, loc, z), y = complex::ImOp::create(b, loc, z);
  Value sh = math::SinhOp::create(b, loc, x), ch = math::CoshOp::create(b, loc, x);
  Value re = arith::MulFOp::create(b, loc, cosh ? ch : sh, math::CosOp::create(b, loc, y));
  Value im = arith::MulFOp::create(b, loc, cosh ? sh : ch, math::SinOp::create(b, loc, y));
  return complex::CreateOp::create(b, loc, z.getType(), re, im);
}

/// r with the signs of z's parts where `re` / `im`: the principal asinh, atanh and (imaginary
/// part) acosh are odd in each part of z, which rounding in the formulas below can flip on the
/// axes and branch cuts.
Value withSignsOf(OpBuilder &b, Location loc, Value r, Value z, bool re, bool im) {
  Value rr = complex::ReOp::create(b, loc, r), ri = complex::ImOp::create(b, loc, r);
  if (re)
    rr = math::CopySignOp::create(b, loc, rr, complex::ReOp::create(b, loc, z));
  if (im)
    ri = math::CopySignOp::create(b, loc, ri, complex::ImOp::create(b, loc, z));
  return complex::CreateOp::create(b, loc, r.getType(), rr, ri);
}

/// asinh z = log(z + sqrt(z^2 + 1)), on the half plane re z >= 0 (asinh is odd, so the other
/// half takes -asinh(-z)) where the sum does not cancel.
Value emitComplexAsinh(OpBuilder &b, Location loc, Value z) {
  Value re = complex::ReOp::create(b, loc, z);
  Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, re,
                                    scalarConst(b, loc, re.getType(), 0, 0));
  Value w = arith::SelectOp::create(b, loc, neg, complex::NegOp::create(b, loc, z), z);
  Value root =
      complex::SqrtOp::create(b, loc,
                              complex::AddOp::create(b, loc, complex::MulOp::create(b, loc, w, w),
                                                     complexConst(b, loc, z, 1)));
  Value r = complex::LogOp::create(b, loc, complex::AddOp::create(b, loc, w, root));
  r = arith::SelectOp::create(b, loc, neg, complex::NegOp::create(b, loc, r), r);
  return withSignsOf(b, loc, r, z, true, true);
}

/// acosh z = log(z + sqrt(z + 1) sqrt(z - 1)) (Kahan's branch cuts).
Value emitComplexAcosh(OpBuilder &b, Location loc, Value z) {
  Value one = complexConst(b, loc, z, 1);
  Value p = complex::SqrtOp::create(b, loc, complex::AddOp::create(b, loc, z, one));
  Value m = complex::SqrtOp::create(b, loc, complex::SubOp::create(b, loc, z, one));
  Value r = complex::LogOp::create(
      b, loc, complex::AddOp::create(b, loc, z, complex::MulOp::create(b, loc, p, m)));
  return withSignsOf(b, loc, r, z, false, true);
}

/// atanh z = (log1p(z) - log1p(-z)) / 2.
Value emitComplexAtanh(OpBuilder &b, Location loc, Value z) {
  Value d =
      complex::SubOp::create(b, loc, complex::Log1pOp::create(b, loc, z),
                             complex::Log1pOp::create(b, loc, complex::NegOp::create(b, loc, z)));
  return withSignsOf(b, loc, complex::MulOp::create(b, loc, d, complexConst(b, loc, z, 0.5)), z,
                     true, true);
}

/// The elementwise ops on complex operands or results (through MLIR's complex dialect); null
/// for an op with no complex lowering, which then stays unlowered and fails to compile.
Value emitComplex(OpBuilder &b, Location loc, Operation *op, ValueRange a, bool uns, Type outType) {
  Value x = a[0];
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<st::ComplexOp>(
          [&](auto) -> Value { return complex::CreateOp::create(b, loc, outType, a[0], a[1]); })
      .Case<st::RealOp>([&](auto) { return complex::ReOp::create(b, loc, x); })
      .Case<st::ImagOp>([&](auto) { return complex::ImOp::create(b, loc, x); })
      .Case<st::ConjOp>([&](auto) -> Value {
        return complex::ConjOp::create(b, loc,
                                       toComplex(b, loc, x, uns, cast<ComplexType>(outType)));
      })
      .Case<st::ConvertElementTypeOp>([&](auto) -> Value {
        if (auto to = dyn_cast<ComplexType>(outType))
          return toComplex(b, loc, x, uns, to);
        // complex -> real keeps the real part, as JAX does.
        Value re = complex::ReOp::create(b, loc, x);
        return emitConvert(b, loc, re, false, signlessOf(outType), outType.isUnsignedInteger());
      })
      .Case<st::AddOp>([&](auto) { return complex::AddOp::create(b, loc, x, a[1]); })
      .Case<st::SubOp>([&](auto) { return complex::SubOp::create(b, loc, x, a[1]); })
      .Case<st::MulOp>([&](auto) { return complex::MulOp::create(b, loc, x, a[1]); })
      .Case<st::DivOp>([&](auto) { return complex::DivOp::create(b, loc, x, a[1]); })
      .Case<st::PowOp>([&](auto) { return complex::PowOp::create(b, loc, x, a[1]); })
      .Case<st::EqOp>([&](auto) { return complex::EqualOp::create(b, loc, x, a[1]); })
      .Case<st::NeOp>([&](auto) { return complex::NotEqualOp::create(b, loc, x, a[1]); })
      .Case<st::SelectOp>([&](auto) { return arith::SelectOp::create(b, loc, a[0], a[1], a[2]); })
      // Lexicographic and NaN-propagating, as libstrata's (ScalarSemantics.cpp).
      .Case<st::MaxOp>([&](auto) { return emitMax(b, loc, x, a[1], false); })
      .Case<st::MinOp>([&](auto) { return emitMin(b, loc, x, a[1], false); })
      .Case<st::ClampOp>(
          [&](auto) { return emitMin(b, loc, emitMax(b, loc, a[1], a[0], false), a[2], false); })
      .Case<st::NegOp>([&](auto) { return complex::NegOp::create(b, loc, x); })
      .Case<st::AbsOp>([&](auto) { return complex::AbsOp::create(b, loc, x); })
      .Case<st::SignOp>([&](auto) { return complex::SignOp::create(b, loc, x); })
      .Case<st::ExpOp>([&](auto) { return complex::ExpOp::create(b, loc, x); })
      .Case<st::LogOp>([&](auto) { return complex::LogOp::create(b, loc, x); })
      .Case<st::Log1pOp>([&](auto) { return complex::Log1pOp::create(b, loc, x); })
      .Case<st::Expm1Op>([&](auto) { return complex::Expm1Op::create(b, loc, x); })
      .Case<st::SqrtOp>([&](auto) { return complex::SqrtOp::create(b, loc, x); })
      .Case<st::RsqrtOp>([&](auto) { return complex::RsqrtOp::create(b, loc, x); })
      .Case<st::SinOp>([&](auto) { return complex::SinOp::create(b, loc, x); })
      .Case<st::CosOp>([&](auto) { return complex::CosOp::create(b, loc, x); })
      .Case<st::TanOp>([&](auto) { return complex::TanOp::create(b, loc, x); })
      .Case<st::TanhOp>([&](auto) { return complex::TanhOp::create(b, loc, x); })
      .Case<st::SinhOp>([&](auto) { return emitComplexSinhCosh(b, loc, x, /*cosh=*/false); })
      .Case<st::CoshOp>([&](auto) { return emitComplexSinhCosh(b, loc, x, /*cosh=*/true); })
      .Case<st::AsinhOp>([&](auto) { return emitComplexAsinh(b, loc, x); })
      .Case<st::AcoshOp>([&](auto) { return emitComplexAcosh(b, loc, x); })
      .Case<st::AtanhOp>([&](auto) { return emitComplexAtanh(b, loc, x); })
      // asin z = -i asinh(iz), atan z = -i atanh(iz), acos z = pi/2 - asin z.
      .Case<st::AsinOp>(
          [&](auto) { return timesMinusI(b, loc, emitComplexAsinh(b, loc, timesI(b, loc, x))); })
      .Case<st::AtanOp>(
          [&](auto) { return timesMinusI(b, loc, emitComplexAtanh(b, loc, timesI(b, loc, x))); })
      .Case<st::AcosOp>([&](auto) -> Value {
        Value asin = timesMinusI(b, loc, emitComplexAsinh(b, loc, timesI(b, loc, x)));
        return complex::SubOp::create(b, loc, complexConst(b, loc, x, std::numbers::pi / 2), asin);
      })
      .Case<st::IntegerPowOp>([&](st::IntegerPowOp p) -> Value {
        int64_t n = p.getYAttr().getInt();
        uint64_t mag = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
        Value pos = emitComplexPow(b, loc, x, mag);
        if (n >= 0)
          return pos;
        return complex::DivOp::create(b, loc, emitComplexPow(b, loc, x, 0), pos);
      })
      .Default([](Operation *) { return Value(); });
}

/// Whether op touches complex values (an operand or its result).
bool touchesComplex(Operation *op) {
  auto cx = [](Type t) { return isComplex(cast<RankedTensorType>(t).getElementType()); };
  return llvm::any_of(op->getOperandTypes(), cx) || llvm::any_of(op->getResultTypes(), cx);
}

/// The scalar body of elementwise `op` on signless block arguments `a` (one per operand);
/// `uns`: the (last) operand's element type is unsigned; `outType` the result's element type.
Value emitElementwise(OpBuilder &b, Location loc, Operation *op, ValueRange a, bool uns,
                      Type outType) {
  if (touchesComplex(op))
    return emitComplex(b, loc, op, a, uns, outType);
  if (Value v = emitUnary(b, loc, op, a, uns, outType))
    return v;
  if (Value v = emitBinary(b, loc, op, a, uns, outType))
    return v;
  return emitCompareSelectConvert(b, loc, op, a, uns, outType);
}

/// Float-only ops on a float operand, integer-only ops on an integer one (the verifier
/// already checks this; re-checked so a body never meets a type it cannot build).
bool bodyAccepts(Operation *op) {
  if (touchesComplex(op)) {
    // Probe the complex emitter on a scratch block: exactly the ops it builds are accepted.
    OpBuilder scratch(op->getContext());
    Block block;
    SmallVector<Value> args;
    for (Type t : op->getOperandTypes())
      args.push_back(block.addArgument(cast<RankedTensorType>(t).getElementType(), op->getLoc()));
    scratch.setInsertionPointToEnd(&block);
    bool uns = elementOf(op->getOperand(op->getNumOperands() - 1)).isUnsignedInteger();
    bool ok = static_cast<bool>(
        emitComplex(scratch, op->getLoc(), op, args, uns, elementOf(op->getResult(0))));
    while (!block.empty())
      block.back().erase();
    return ok;
  }
  Type t =
      cast<RankedTensorType>(op->getOperand(op->getNumOperands() - 1).getType()).getElementType();
  Type out = elementOf(op->getResult(0));
  bool isFloat = isa<FloatType>(t);
  if ((op->hasTrait<st::traits::FloatOnly>() && !isFloat) ||
      (op->hasTrait<st::traits::IntegerOnly>() && isFloat) ||
      (op->hasTrait<st::traits::NotBool>() && t.isInteger(1)))
    return false;
  // Constraints that depend on an attribute or the result type.
  if (auto p = dyn_cast<st::IntegerPowOp>(op))
    return isFloat || p.getYAttr().getInt() >= 0;
  if (isa<st::BitcastConvertTypeOp>(op))
    return !t.isInteger(1) && !out.isInteger(1) &&
           t.getIntOrFloatBitWidth() == out.getIntOrFloatBitWidth();
  return true;
}

/// Every operand and result is a static ranked tensor of a lowerable or complex element type.
bool hasLowerableOrComplexTypes(Operation *op) {
  auto ok = [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && rt.hasStaticShape() &&
           (isLowerableElement(rt.getElementType()) || isComplex(rt.getElementType()));
  };
  return llvm::all_of(op->getOperandTypes(), ok) && llvm::all_of(op->getResultTypes(), ok);
}

/// Any elementwise strata op (the Elementwise trait) => linalg.generic; rank-0 operands (scalar
/// select predicates, clamp bounds) broadcast through an empty indexing map. Identities
/// (stop_gradient, checkpoint_name) are forwarded instead (ShapeToTensor.cpp).
struct ElementwiseToGeneric : OpTraitRewritePattern<st::traits::Elementwise> {
  using OpTraitRewritePattern::OpTraitRewritePattern;
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    Operation *o = op;
    if (op->hasTrait<st::traits::Identity>())
      return failure();
    if (!hasLowerableOrComplexTypes(o) || !bodyAccepts(o))
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
    Location loc = op->getLoc();
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
    auto generic =
        makeGeneric(rewriter, loc, op->getOperands(), ValueRange{init, init}, maps,
                    parallelIterators(rank), [&](OpBuilder &b, Location l, ValueRange a) {
                      auto [y0, y1] = emitThreefry2x32(b, l, a[0], a[1], a[2], a[3]);
                      return SmallVector<Value>{y0, y1};
                    });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void populateElementwiseToLinalgPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ElementwiseToGeneric>(ctx);
  patterns.add<Threefry2x32ToGeneric>(ctx);
}

} // namespace mlir::strata::lowering
