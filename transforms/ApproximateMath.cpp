// strata-approximate-math: f32 transcendental math ops -> polynomial approximations (MLIR's, and
// sin/cos here), so the loops holding them vectorize (a libm call in a loop body does not). Only
// where they match libm on the whole f32 range: the guards below and the list of ops say where
// that took work.
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATAAPPROXIMATEMATH
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;

namespace {

/// A constant of `type` (f32 or a vector of f32) with every element `value`.
Value f32Constant(OpBuilder &b, Location loc, Type type, float value) {
  FloatAttr attr = b.getF32FloatAttr(value);
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vector, attr));
  return arith::ConstantOp::create(b, loc, attr);
}

bool isF32(Type type) { return getElementTypeOrSelf(type).isF32(); }

/// The approximations of log and log2 read the exponent field, which is zero for a subnormal
/// input, as the smallest normal exponent: log(1e-40) came out as log(2^-126). Such inputs are
/// scaled by 2^24 into the normal range first and 24 log(2) (24 for log2) is subtracted after,
/// with two selects that keep the loop vectorizable (zero and negative inputs come out as
/// before: -inf and NaN).
void guardSubnormalLogs(Operation *root) {
  SmallVector<Operation *> logs;
  root->walk([&](Operation *op) {
    if (isa<math::LogOp, math::Log2Op>(op) && isF32(op->getResult(0).getType()))
      logs.push_back(op);
  });
  for (Operation *op : logs) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value x = op->getOperand(0);
    Type t = x.getType();
    Value smallestNormal = f32Constant(b, loc, t, 0x1p-126f);
    Value tiny = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                       math::AbsFOp::create(b, loc, x), smallestNormal);
    Value scaled = arith::MulFOp::create(b, loc, x, f32Constant(b, loc, t, 0x1p24f));
    Value input = arith::SelectOp::create(b, loc, tiny, scaled, x);
    bool natural = isa<math::LogOp>(op);
    Value log = natural ? math::LogOp::create(b, loc, input).getResult()
                        : math::Log2Op::create(b, loc, input).getResult();
    float shift = natural ? 24.0f * 0.693147180559945309f : 24.0f;
    Value corrected = arith::SubFOp::create(b, loc, log, f32Constant(b, loc, t, shift));
    op->getResult(0).replaceAllUsesWith(
        arith::SelectOp::create(b, loc, tiny, corrected, log).getResult());
    op->erase();
  }
}

/// 4/pi in 192 bits (floor(4/pi 2^191)), least significant word first: Payne-Hanek reads the 96
/// bits that an argument's exponent needs out of it.
constexpr uint64_t kInvPio4[3] = {0xdb6295993c439041ULL, 0xfc2757d1f534ddc0ULL,
                                  0xa2f9836e4e441529ULL};

/// sin(x) or cos(x) of an f32 scalar, exact to about 0.6 ULP over the whole f32 range. The
/// argument is reduced to r in [-pi/4, pi/4] and a quadrant n in double precision: by
/// Cody-Waite with pi/2 in three doubles for |x| < 2^28 (exact there: j pi/2 is formed by fmas
/// and its error is j 2^-160), and by Payne-Hanek for larger |x|: the 24-bit mantissa times the
/// 96 bits of 4/pi that its exponent selects (shifted out of three constants), in integers, as
/// glibc's sinf does with a table. Both run on every element, branch-free, so the loop
/// vectorizes; a select keeps the one that applies. sin or cos of r (odd and even polynomials
/// fitted on [0, pi/4], relative error 4e-9 and 7e-11) and n's sign and swap give the result,
/// rounded once to f32. sin(x) = x below 2^-12 (and keeps -0); infinities and NaN give NaN.
Value sinCos(ImplicitLocOpBuilder &b, Value x, bool cosine) {
  Type f32 = b.getF32Type(), f64 = b.getF64Type(), i32 = b.getI32Type(), i64 = b.getI64Type();
  auto f = [&](double v) -> Value { return arith::ConstantOp::create(b, b.getF64FloatAttr(v)); };
  auto i = [&](int64_t v, Type t) -> Value {
    return arith::ConstantOp::create(b, b.getIntegerAttr(t, v));
  };
  auto fma = [&](Value a, Value m, Value c) -> Value { return math::FmaOp::create(b, a, m, c); };

  // Cody-Waite: j = round(x 2/pi), r = x - j pi/2.
  Value xd = arith::ExtFOp::create(b, f64, x);
  Value j = math::RoundEvenOp::create(b, arith::MulFOp::create(b, xd, f(0x1.45f306dc9c883p-1)));
  Value negJ = arith::NegFOp::create(b, j);
  Value rFast = fma(negJ, f(0x1.921fb54442d18p+0), xd);
  rFast = fma(negJ, f(0x1.1a62633145c07p-54), rFast);
  rFast = fma(negJ, f(-0x1.f1976b7ed8fbcp-110), rFast);
  // j < 2^28 here; elsewhere (large, infinite or NaN x) its conversion is not used.
  Value jSafe = arith::SelectOp::create(
      b, arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, math::AbsFOp::create(b, j), f(0x1p30)),
      j, f(0.0));
  Value nFast = arith::TruncIOp::create(b, i32, arith::FPToSIOp::create(b, i64, jSafe));

  // Payne-Hanek for |x| = m 2^(8 idx - 22) (m the mantissa shifted by the exponent's low 3
  // bits): (m * 4/pi window) >> 32 is |x| 4/pi mod 8 with 61 fraction bits.
  Value bits = arith::BitcastOp::create(b, i32, x);
  Value abits = arith::AndIOp::create(b, bits, i(0x7fffffff, i32));
  Value idx = arith::AndIOp::create(b, arith::ShRUIOp::create(b, abits, i(26, i32)), i(15, i32));
  Value shift = arith::AndIOp::create(b, arith::ShRUIOp::create(b, abits, i(23, i32)), i(7, i32));
  Value mant =
      arith::OrIOp::create(b, arith::AndIOp::create(b, abits, i(0x7fffff, i32)), i(0x800000, i32));
  mant = arith::ShLIOp::create(b, mant, shift);
  // The 64 bits of kInvPio4 from bit t (0 <= t <= 152) on, by shifts and selects (no table read,
  // so nothing but arithmetic once vectorized).
  auto window = [&](Value t) -> Value {
    Value q = arith::ShRUIOp::create(b, t, i(6, i64));
    Value rem = arith::AndIOp::create(b, t, i(63, i64));
    Value q0 = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, q, i(0, i64));
    Value q1 = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, q, i(1, i64));
    auto word = [&](int k) { return i(static_cast<int64_t>(kInvPio4[k]), i64); };
    Value lo =
        arith::SelectOp::create(b, q0, word(0), arith::SelectOp::create(b, q1, word(1), word(2)));
    Value hi =
        arith::SelectOp::create(b, q0, word(1), arith::SelectOp::create(b, q1, word(2), i(0, i64)));
    // hi << (64 - rem) without a shift by 64 (rem may be 0).
    Value up = arith::ShLIOp::create(b, arith::ShLIOp::create(b, hi, i(1, i64)),
                                     arith::SubIOp::create(b, i(63, i64), rem));
    return arith::OrIOp::create(b, arith::ShRUIOp::create(b, lo, rem), up);
  };
  // The window for the exponent: 4/pi bits 8 idx + 7 - 64 .. 8 idx + 71 after the point.
  Value s = arith::SubIOp::create(
      b, i(120, i64), arith::ShLIOp::create(b, arith::ExtUIOp::create(b, i64, idx), i(3, i64)));
  Value low32 = arith::AndIOp::create(b, window(s), i(0xffffffff, i64));
  Value high64 = window(arith::AddIOp::create(b, s, i(32, i64)));
  Value m64 = arith::ExtUIOp::create(b, i64, mant);
  Value res = arith::AddIOp::create(
      b, arith::MulIOp::create(b, m64, high64),
      arith::ShRUIOp::create(b, arith::MulIOp::create(b, m64, low32), i(32, i64)));
  Value nLarge64 =
      arith::ShRUIOp::create(b, arith::AddIOp::create(b, res, i(1LL << 61, i64)), i(62, i64));
  res = arith::SubIOp::create(b, res, arith::ShLIOp::create(b, nLarge64, i(62, i64)));
  Value rLarge =
      arith::MulFOp::create(b, arith::SIToFPOp::create(b, f64, res), f(0x1.921fb54442d18p-62));
  Value nLarge = arith::TruncIOp::create(b, i32, nLarge64);
  // That reduced |x|: for negative x, r and n change sign.
  Value negative = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, bits, i(0, i32));
  rLarge = arith::SelectOp::create(b, negative, arith::NegFOp::create(b, rLarge), rLarge);
  nLarge =
      arith::SelectOp::create(b, negative, arith::SubIOp::create(b, i(0, i32), nLarge), nLarge);

  // Payne-Hanek from 2^28 up to the largest finite f32 (its integer compare leaves NaN and
  // the infinities to Cody-Waite, which turns them into NaN).
  Value large = arith::AndIOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::sge, abits, i(0x4d800000, i32)),
      arith::CmpIOp::create(b, arith::CmpIPredicate::slt, abits, i(0x7f800000, i32)));
  Value r = arith::SelectOp::create(b, large, rLarge, rFast);
  Value n = arith::SelectOp::create(b, large, nLarge, nFast);
  if (cosine)
    n = arith::AddIOp::create(b, n, i(1, i32));

  // sin(r) = r + r^3 (s1 + s2 r^2 + s3 r^4), cos(r) = 1 + c1 r^2 + ... + c4 r^8.
  Value r2 = arith::MulFOp::create(b, r, r);
  Value sp = fma(fma(f(-0x1.993c929f3e6e0p-13), r2, f(0x1.11071ff92d380p-7)), r2,
                 f(-0x1.555544c94b7d9p-3));
  Value sinR = fma(arith::MulFOp::create(b, r2, r), sp, r);
  Value cp = fma(fma(fma(f(0x1.992ec95523400p-16), r2, f(-0x1.6c0863385c940p-10)), r2,
                     f(0x1.55553dba73b27p-5)),
                 r2, f(-0x1.ffffffcf7ff97p-2));
  Value cosR = fma(r2, cp, f(1.0));
  // Quadrant n: sin x = sin r, cos r, -sin r, -cos r.
  Value odd = arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                                    arith::AndIOp::create(b, n, i(1, i32)), i(0, i32));
  Value flip = arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                                     arith::AndIOp::create(b, n, i(2, i32)), i(0, i32));
  Value v = arith::SelectOp::create(b, odd, cosR, sinR);
  v = arith::SelectOp::create(b, flip, arith::NegFOp::create(b, v), v);
  Value out = arith::TruncFOp::create(b, f32, v);
  if (cosine)
    return out;
  Value tiny = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, abits, i(0x39800000, i32));
  return arith::SelectOp::create(b, tiny, x, out);
}

/// Replaces scalar f32 math.sin and math.cos with sinCos, except in GPU modules, where libdevice's
/// sin and cos stay (exact and fast there).
void approximateSinCos(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (!isa<math::SinOp, math::CosOp>(op) || !op->getResult(0).getType().isF32())
      return;
    Operation *symbols = op->getParentWithTrait<OpTrait::SymbolTable>();
    if (!symbols || !symbols->getName().getStringRef().starts_with("gpu."))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    ImplicitLocOpBuilder b(op->getLoc(), op);
    Value v = sinCos(b, op->getOperand(0), isa<math::CosOp>(op));
    op->getResult(0).replaceAllUsesWith(v);
    op->erase();
  }
}

struct StrataApproximateMathPass
    : strata::impl::StrataApproximateMathBase<StrataApproximateMathPass> {
  void runOnOperation() override {
    guardSubnormalLogs(getOperation());
    approximateSinCos(getOperation());
    RewritePatternSet patterns(&getContext());
    // The predicate gets the op's full name ("math.tanh").
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      name.consume_front("math.");
      // Not atan2: its approximation gives NaN for (0, 0) and (inf, inf), where libm (and
      // libstrata) give 0, +-pi/4, +-3pi/4 (found by the random-program test).
      // Not sin and cos: their range reduction overflows for large arguments (sin(1e30) gave
      // -inf, libm -0.791) and loses digits from about 100 on; sinCos replaces them.
      return llvm::is_contained(
          {"exp", "expm1", "log", "log1p", "log2", "tanh", "erf", "atan", "asin", "acos"}, name);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
