// Innermost floating-point reductions on buffers lowered to loops over vector accumulators.
#ifndef STRATA_TRANSFORMS_VECTORREDUCTION_H
#define STRATA_TRANSFORMS_VECTORREDUCTION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::strata {

/// Lowers `op` (a linalg.generic on buffers whose only reduction loop is the innermost one, each
/// output a float sum, product, max or min of an elementwise arith/math body) to scf.for loops
/// over its parallel dimensions around a loop that folds the row into a vector of accumulator
/// lanes, then combines the lanes by halves. LLVM does not reassociate a scalar float
/// reduction, so the scalar loop nest runs one dependent add per element; lane k here takes
/// the elements at positions k mod W, in order. Returns the loops it made (outermost first),
/// or failure, leaving `op` unchanged, when the op is not of that form. `op` is erased on
/// success.
FailureOr<SmallVector<Operation *>> lowerVectorReduction(RewriterBase &rewriter,
                                                         linalg::GenericOp op);

} // namespace mlir::strata

#endif
