// The shape-rule helpers behind verifyPrimitiveOp, for passes that compute types with them
// (strata-infer-shapes). They speak MLIR types only; libstrata's types stay in StrataVerify.cpp.
#pragma once

#include <string>

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace mlir::strata {

/// Whether `type` is an element type Strata has a dtype for (i1, i8, i32, i64, ui8, ui32, f16,
/// bf16, f32, f64).
bool isStrataElementType(Type type);

/// Whether the shape rule of `op`'s primitive can run on `op` as it is: `op` is a strata op,
/// every operand is a static ranked tensor of a Strata element type, and no parameter carried by
/// a result type (a reshape's or broadcast's target shape) has a dynamic dimension.
bool canRunShapeRule(Operation *op);

/// The result types that the shape rule of `op`'s primitive gives for `op`'s current operand
/// types and attributes. Fails, emitting nothing, when the rule cannot run (!canRunShapeRule)
/// or rejects its inputs; `error`, when given, then says why.
FailureOr<SmallVector<RankedTensorType>> inferPrimitiveResultTypes(Operation *op,
                                                                   std::string *error = nullptr);

/// Whether a result of type `have` may stand for a value of type `want`: same rank and element
/// type, and each static dimension of `have` equal to `want`'s (dynamic ones match anything).
bool isCompatibleResultType(RankedTensorType have, RankedTensorType want);

} // namespace mlir::strata
