// strata-approximate-math: f32 transcendental math ops -> polynomial approximations (MLIR's, and
// sin/cos here), so the loops holding them vectorize (a libm call in a loop body does not). Only
// where they match libm on the whole f32 range: the guards below and the list of ops say where
// that took work.
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
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

/// 4/pi in 8-bit steps: entry k holds bits 8k-24 .. 8k+7 after the point (zeros before the
/// first), so any 96-bit window that an f32 exponent needs is three entries 4 apart.
constexpr uint32_t kInvPio4[24] = {
    0x000000a2, 0x0000a2f9, 0x00a2f983, 0xa2f9836e, 0xf9836e4e, 0x836e4e44, 0x6e4e4415, 0x4e441529,
    0x441529fc, 0x1529fc27, 0x29fc2757, 0xfc2757d1, 0x2757d1f5, 0x57d1f534, 0xd1f534dd, 0xf534ddc0,
    0x34ddc0db, 0xddc0db62, 0xc0db6295, 0xdb629599, 0x6295993c, 0x95993c43, 0x993c4390, 0x3c439041};
constexpr llvm::StringLiteral kInvPio4Name = "__strata_inv_pio4";

/// The constant global holding kInvPio4 in the module around `op` (made once).
Value invPio4Table(ImplicitLocOpBuilder &b, Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  auto type = MemRefType::get({24}, b.getI32Type());
  if (!SymbolTable::lookupSymbolIn(module, kInvPio4Name)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    SmallVector<int32_t> words;
    for (uint32_t w : kInvPio4)
      words.push_back(static_cast<int32_t>(w));
    auto init = DenseElementsAttr::get(RankedTensorType::get({24}, b.getI32Type()),
                                       ArrayRef<int32_t>(words));
    memref::GlobalOp::create(b, kInvPio4Name, b.getStringAttr("private"), type, init,
                             /*constant=*/true, /*alignment=*/IntegerAttr());
  }
  return memref::GetGlobalOp::create(b, type, kInvPio4Name);
}

/// sin(x) or cos(x) of an f32 scalar, exact to about 0.6 ULP over the whole f32 range. The
/// argument is reduced to r in [-pi/4, pi/4] and a quadrant n in double precision: by
/// Cody-Waite with pi/2 in three doubles for |x| < 2^28 (exact there: j pi/2 is formed by fmas
/// and its error is j 2^-160), and by Payne-Hanek for larger |x|: the 24-bit mantissa times the
/// 96 bits of 4/pi that its exponent selects (a table read, a gather once vectorized), in
/// integers, as glibc's sinf does. Both run on every element, branch-free, so the loop
/// vectorizes; a select keeps the one that applies. sin or cos of r (odd and even polynomials
/// fitted on [0, pi/4], relative error 4e-9 and 7e-11) and n's sign and swap give the result,
/// rounded once to f32. sin(x) = x below 2^-12 (and keeps -0); infinities and NaN give NaN.
Value sinCos(ImplicitLocOpBuilder &b, Operation *op, Value x, bool cosine) {
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
  Value table = invPio4Table(b, op);
  auto word = [&](int64_t offset) -> Value {
    Value k = arith::IndexCastUIOp::create(b, b.getIndexType(),
                                           arith::AddIOp::create(b, idx, i(offset, i32)));
    return memref::LoadOp::create(b, table, ValueRange{k});
  };
  Value w0 = word(0), w1 = word(4), w2 = word(8);
  Value m64 = arith::ExtUIOp::create(b, i64, mant);
  Value p0 = arith::ShLIOp::create(
      b, arith::ExtUIOp::create(b, i64, arith::MulIOp::create(b, mant, w0)), i(32, i64));
  Value p1 = arith::MulIOp::create(b, m64, arith::ExtUIOp::create(b, i64, w1));
  Value p2 = arith::MulIOp::create(b, m64, arith::ExtUIOp::create(b, i64, w2));
  Value res = arith::AddIOp::create(
      b, arith::OrIOp::create(b, arith::ShRUIOp::create(b, p2, i(32, i64)), p0), p1);
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
/// sin and cos stay (exact, and fast without a table read per element).
void approximateSinCos(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<math::SinOp, math::CosOp>(op) && op->getResult(0).getType().isF32() &&
        op->getParentOfType<ModuleOp>() &&
        !op->getParentWithTrait<OpTrait::SymbolTable>()->getName().getStringRef().starts_with(
            "gpu."))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    ImplicitLocOpBuilder b(op->getLoc(), op);
    Value v = sinCos(b, op, op->getOperand(0), isa<math::CosOp>(op));
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
