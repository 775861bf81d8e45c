// strata-approximate-math: f32 transcendental math ops -> MLIR's polynomial approximations, so
// the loops holding them vectorize (a libm call in a loop body does not).
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATAAPPROXIMATEMATH
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;

namespace {

struct StrataApproximateMathPass
    : strata::impl::StrataApproximateMathBase<StrataApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // The predicate gets the op's full name ("math.tanh").
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      name.consume_front("math.");
      // Not atan2: its approximation gives NaN for (0, 0) and (inf, inf), where libm (and
      // libstrata) give 0, +-pi/4, +-3pi/4 (found by the random-program test).
      return llvm::is_contained({"exp", "expm1", "log", "log1p", "log2", "tanh", "erf", "sin",
                                 "cos", "atan", "asin", "acos"},
                                name);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
