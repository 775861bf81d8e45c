// The shape-rule helpers behind verifyPrimitiveOp, for passes that compute types with them
// (strata-infer-shapes), and the builder that turns a primitive application into its op (jit's
// staging level). libstrata's primitive.h (Params, DType) comes in here.
#pragma once

#include <optional>
#include <string>

#include "strata/primitive.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace mlir::strata {

/// Whether `type` is an element type Strata has a dtype for (i1, i8, i16, i32, i64, ui8, ui16,
/// ui32, ui64, f16, bf16, f32, f64).
bool isStrataElementType(Type type);

/// Whether the shape rule of `op`'s primitive can run on `op` as it is: `op` is a strata op,
/// every operand is a static ranked tensor of a Strata element type, and no parameter carried by
/// a result type (a reshape's or broadcast's target shape) has a dynamic dimension.
bool canRunShapeRule(Operation *op);
/// The parameters of `op`'s primitive: its inherent attributes, then the ones its result types
/// carry; fails when a carried shape is dynamic or an attribute is of a kind no primitive takes.
FailureOr<::strata::Params> primitiveParams(Operation *op);

/// The result types that the shape rule of `op`'s primitive gives for `op`'s current operand
/// types and attributes. Fails, emitting nothing, when the rule cannot run (!canRunShapeRule)
/// or rejects its inputs; `error`, when given, then says why.
FailureOr<SmallVector<RankedTensorType>> inferPrimitiveResultTypes(Operation *op,
                                                                   std::string *error = nullptr);

/// Whether a result of type `have` may stand for a value of type `want`: same rank and element
/// type, and each static dimension of `have` equal to `want`'s (dynamic ones match anything).
bool isCompatibleResultType(RankedTensorType have, RankedTensorType want);

/// The builtin element type of a dtype (i1, i8, i16, i32, i64, ui8, ui16, ui32, ui64, f16, bf16,
/// f32, f64).
Type toElementType(MLIRContext *ctx, ::strata::DType dtype);

/// The dtype of a builtin element type, or nothing when Strata has none for it.
std::optional<::strata::DType> toDType(Type type);

/// Creates the op of primitive `primitive` at `builder`'s insertion point: `operands`, result
/// `types`, and `params` as the op's attributes (parameters that the result types carry, such as
/// a reshape's target shape, are skipped). The new op is verified, so a parameter of the wrong
/// kind or a shape disagreement is caught here. On failure, erases what it made, sets `error`
/// and returns nullptr.
Operation *buildPrimitiveOp(OpBuilder &builder, Location loc, StringRef primitive,
                            ValueRange operands, TypeRange types, const ::strata::Params &params,
                            std::string &error);

} // namespace mlir::strata
