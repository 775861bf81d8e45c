// The strata dialect and its ops: the one header that code using the dialect includes.
#pragma once

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/strata/StrataTraits.h"

#include "dialects/strata/StrataDialect.h.inc"

namespace mlir::strata {
/// Runs the shape rule of `op`'s primitive (libstrata's, the tracer's) on `op`'s operand types
/// and attributes, and checks the result types against it. Every strata op verifies this way.
LogicalResult verifyPrimitiveOp(Operation *op);
/// `{name = <the shape of op's first result>}`: for ops whose result type carries a parameter.
DictionaryAttr resultShapeParam(Operation *op, StringRef name);
} // namespace mlir::strata

#include "dialects/strata/StrataInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialects/strata/StrataOps.h.inc"
