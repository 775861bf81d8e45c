// The MLIR context jit stages into and compiles in: every dialect, pass and pipeline registered.
#include "jit/Context.h"

#include "dialects/strata/StrataOps.h"
#include "transforms/InitStrata.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/TargetSelect.h"
#include <omp.h>

namespace strata::rt {

std::recursive_mutex &context_mutex() {
  static std::recursive_mutex mu;
  return mu;
}

mlir::MLIRContext &jit_context() {
  static mlir::MLIRContext *ctx = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    mlir::DialectRegistry registry;
    mlir::strata::registerStrataEverything(registry);
    // Parallel loops run on libomp's team; its workers sleep as soon as a loop ends instead of
    // spinning for 200 ms, which would take the cores from BLIS's threads and libstrata's pool.
    kmp_set_blocktime(0);
    auto *c = new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    c->loadDialect<mlir::strata::StrataDialect>();
    c->loadAllAvailableDialects();
    return c;
  }();
  return *ctx;
}

} // namespace strata::rt
