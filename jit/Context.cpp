// The MLIR context jit stages into and compiles in: every dialect, pass and pipeline registered.
#include "jit/Context.h"

#include "dialects/strata/StrataOps.h"
#include "transforms/GpuHost.h"
#include "transforms/LowerToCpu.h"
#include "transforms/LowerToNvvm.h"
#include "transforms/Passes.h"

#include "llvm/Support/TargetSelect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include <omp.h>

namespace strata::rt {

std::recursive_mutex &context_mutex() {
  static std::recursive_mutex mu;
  return mu;
}

mlir::MLIRContext &jit_context() {
  static mlir::MLIRContext *ctx = [] {
    mlir::registerAllPasses();
    mlir::strata::registerStrataPasses();
    mlir::strata::registerStrataPipelines();
    mlir::strata::registerStrataCpuPipeline();
    mlir::strata::registerStrataNvvmPipeline();
    mlir::strata::registerStrataGpuHostPipeline();
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    mlir::DialectRegistry registry;
    registry.insert<mlir::strata::StrataDialect>();
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
    // Every dialect's translation: the CPU path needs builtin, LLVM and OpenMP; the GPU path's
    // gpu-module-to-binary and gpu.binary/launch_func translation need GPU and NVVM.
    mlir::registerAllToLLVMIRTranslations(registry);
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
