// strata-approximate-math: f32 transcendental math ops -> MLIR's polynomial approximations, so
// the loops holding them vectorize (a libm call in a loop body does not). Only where they match
// libm on the whole f32 range: the guards below and the list of ops say where that took work.
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
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

struct StrataApproximateMathPass
    : strata::impl::StrataApproximateMathBase<StrataApproximateMathPass> {
  void runOnOperation() override {
    guardSubnormalLogs(getOperation());
    RewritePatternSet patterns(&getContext());
    // The predicate gets the op's full name ("math.tanh").
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      name.consume_front("math.");
      // Not atan2: its approximation gives NaN for (0, 0) and (inf, inf), where libm (and
      // libstrata) give 0, +-pi/4, +-3pi/4 (found by the random-program test).
      // Not sin and cos: their range reduction overflows for large arguments (sin(1e30) gave
      // -inf, libm -0.791) and loses digits from about 100 on (4e-6 relative at 709.7); an
      // exact reduction (Payne-Hanek) would have to come with them.
      return llvm::is_contained(
          {"exp", "expm1", "log", "log1p", "log2", "tanh", "erf", "atan", "asin", "acos"}, name);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
