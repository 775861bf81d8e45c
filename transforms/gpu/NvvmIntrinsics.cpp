// `strata-nvvm-intrinsics`: libdevice calls with an exact LLVM intrinsic become that intrinsic.
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"

#include "llvm/ADT/StringMap.h"

#include "transforms/Passes.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATANVVMINTRINSICS
#include "transforms/Passes.h.inc"

namespace {

/// `strata-nvvm-intrinsics`: after convert-gpu-to-nvvm, turns its libdevice calls that have an
/// exact LLVM intrinsic (floor, ceil, trunc, fabs, fma, sqrt, copysign: one PTX instruction each,
/// IEEE-rounded) back into that intrinsic, and rsqrt into 1 / sqrt (what the CPU computes), so
/// the kernels of strata-approximate-math's polynomials and of layer norm need no libdevice and
/// the PTX does not depend on where (or whether) the CUDA toolkit is found. The intrinsics
/// cannot be made earlier: convert-gpu-to-nvvm marks llvm.intr.floor and llvm.intr.sqrt
/// illegal. Other libdevice calls stay.
struct NvvmIntrinsicsPass : strata::impl::StrataNvvmIntrinsicsBase<NvvmIntrinsicsPass> {

  void runOnOperation() override {
    static const llvm::StringMap<StringRef> intrinsics = {
        {"__nv_floorf", "llvm.intr.floor"},
        {"__nv_floor", "llvm.intr.floor"},
        {"__nv_ceilf", "llvm.intr.ceil"},
        {"__nv_ceil", "llvm.intr.ceil"},
        {"__nv_truncf", "llvm.intr.trunc"},
        {"__nv_trunc", "llvm.intr.trunc"},
        {"__nv_fabsf", "llvm.intr.fabs"},
        {"__nv_fabs", "llvm.intr.fabs"},
        {"__nv_fmaf", "llvm.intr.fma"},
        {"__nv_fma", "llvm.intr.fma"},
        {"__nv_sqrtf", "llvm.intr.sqrt"},
        {"__nv_sqrt", "llvm.intr.sqrt"},
        {"__nv_copysignf", "llvm.intr.copysign"},
        {"__nv_copysign", "llvm.intr.copysign"},
        {"__nv_rsqrtf", ""},
        {"__nv_rsqrt", ""},
    };
    SmallVector<LLVM::CallOp> calls;
    getOperation().walk([&](LLVM::CallOp call) {
      if (auto callee = call.getCallee();
          callee && intrinsics.contains(*callee) && call.getNumResults() == 1)
        calls.push_back(call);
    });
    OpBuilder builder(&getContext());
    for (LLVM::CallOp call : calls) {
      builder.setInsertionPoint(call);
      if (*call.getCallee() == "__nv_rsqrtf" || *call.getCallee() == "__nv_rsqrt") {
        // No rsqrt intrinsic: 1 / sqrt(x), both IEEE-rounded (as the CPU computes it).
        Value x = call.getArgOperands()[0];
        Value root = LLVM::SqrtOp::create(builder, call.getLoc(), x);
        Value one = LLVM::ConstantOp::create(builder, call.getLoc(), x.getType(),
                                             builder.getFloatAttr(x.getType(), 1.0));
        call.replaceAllUsesWith(LLVM::FDivOp::create(builder, call.getLoc(), one, root));
        call.erase();
        continue;
      }
      OperationState state(call.getLoc(), intrinsics.at(*call.getCallee()));
      state.addOperands(call.getArgOperands());
      state.addTypes(call.getResultTypes());
      call.replaceAllUsesWith(builder.create(state));
      call.erase();
    }
    // Declarations left without a call would still appear in the PTX as .extern functions.
    SymbolTable symbols(getOperation());
    for (LLVM::LLVMFuncOp func :
         llvm::make_early_inc_range(getOperation().getOps<LLVM::LLVMFuncOp>()))
      if (func.isExternal() && intrinsics.contains(func.getName()) &&
          SymbolTable::symbolKnownUseEmpty(func, getOperation()))
        func.erase();
  }
};

} // namespace

} // namespace mlir::strata
