// The strata dialect: registration of its ops and interfaces.
#include "dialects/strata/StrataOps.h"

using namespace mlir;
using namespace mlir::strata;

#include "dialects/strata/StrataDialect.cpp.inc"

void StrataDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/strata/StrataOps.cpp.inc"
      >();
}
