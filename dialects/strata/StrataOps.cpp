// Generated op definitions and interface methods of the strata dialect.
#include "dialects/strata/StrataOps.h"

#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::strata;

#include "dialects/strata/StrataInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/strata/StrataOps.cpp.inc"
