// `strata-gpu-host-memory`: the buffers of host functions live in device memory.
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

#include "transforms/Passes.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATAGPUHOSTMEMORY
#include "transforms/Passes.h.inc"

namespace {

constexpr StringLiteral kToHostFn = "strata_rt_cuda_to_host";

/// `void strata_rt_cuda_to_host(i64 dst, i64 src, i64 bytes)`: waits for the current device's
/// stream, then copies device memory at `src` to host memory at `dst`.
func::FuncOp toHostDecl(ModuleOp module) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(kToHostFn))
    return fn;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Type i64 = b.getI64Type();
  auto fn =
      func::FuncOp::create(b, module.getLoc(), kToHostFn, b.getFunctionType({i64, i64, i64}, {}));
  fn.setPrivate();
  return fn;
}

/// `memref.load %m[%i...]` on the host => a host scalar filled by strata_rt_cuda_to_host from
/// the element's device address (aligned pointer + (offset + sum i*stride) * element bytes).
LogicalResult readThroughRuntime(IRRewriter &rewriter, memref::LoadOp load) {
  auto type = cast<MemRefType>(load.getMemRefType());
  Type elem = type.getElementType();
  if (!elem.isIntOrFloat()) {
    load.emitError("strata-gpu-host-memory: cannot read a ") << elem << " on the host";
    return failure();
  }
  Location loc = load.getLoc();
  rewriter.setInsertionPoint(load);
  Type i64 = rewriter.getI64Type();
  auto meta = memref::ExtractStridedMetadataOp::create(rewriter, loc, load.getMemRef());
  Value linear = meta.getOffset();
  for (auto [index, stride] : llvm::zip(load.getIndices(), meta.getStrides()))
    linear = arith::AddIOp::create(rewriter, loc, linear,
                                   arith::MulIOp::create(rewriter, loc, index, stride));
  int64_t bytes = (elem.getIntOrFloatBitWidth() + 7) / 8;
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, load.getMemRef());
  Value src = arith::AddIOp::create(
      rewriter, loc, base,
      arith::MulIOp::create(rewriter, loc, linear,
                            arith::ConstantIndexOp::create(rewriter, loc, bytes)));
  auto host = memref::AllocaOp::create(rewriter, loc, MemRefType::get({}, elem));
  Value dst = memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, host);
  auto toI64 = [&](Value v) { return arith::IndexCastOp::create(rewriter, loc, i64, v); };
  func::FuncOp fn = toHostDecl(load->getParentOfType<ModuleOp>());
  func::CallOp::create(
      rewriter, loc, fn,
      ValueRange{toI64(dst), toI64(src), arith::ConstantIntOp::create(rewriter, loc, i64, bytes)});
  rewriter.replaceOpWithNewOp<memref::LoadOp>(load, host, ValueRange{});
  return success();
}

/// strata.host_callback's final call (strata-lower-to-linalg) => the GPU runtime's, which copies
/// the buffers it was given (device memory) to the host for the callback and its results back.
void renameHostCallback(func::CallOp call) {
  if (call.getCallee() != "strata_rt_host_callback")
    return;
  auto module = call->getParentOfType<ModuleOp>();
  auto cpu = module.lookupSymbol<func::FuncOp>("strata_rt_host_callback");
  auto gpu = module.lookupSymbol<func::FuncOp>("strata_rt_cuda_host_callback");
  if (!gpu) {
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    gpu = func::FuncOp::create(b, module.getLoc(), "strata_rt_cuda_host_callback",
                               cpu.getFunctionType());
    gpu.setPrivate();
  }
  call.setCallee("strata_rt_cuda_host_callback");
}

struct GpuHostMemoryPass : impl::StrataGpuHostMemoryBase<GpuHostMemoryPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<func::FuncOp> funcs(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal())
        continue;
      // Host code must not write buffer data: the pointers are device addresses. A scalar the
      // host needs (a dynamic_slice index, a pad value) is read through the runtime, which
      // waits for the stream first.
      SmallVector<memref::LoadOp> loads;
      WalkResult hostAccess = func.walk([&](Operation *op) {
        if (auto call = dyn_cast<func::CallOp>(op))
          renameHostCallback(call);
        if (isa<memref::StoreOp>(op)) {
          op->emitError("strata-gpu-host-memory: host code writes a device buffer; this "
                        "access must be inside a kernel");
          return WalkResult::interrupt();
        }
        if (auto load = dyn_cast<memref::LoadOp>(op))
          loads.push_back(load);
        return WalkResult::advance();
      });
      if (hostAccess.wasInterrupted())
        return signalPassFailure();
      for (memref::LoadOp load : loads)
        if (failed(readThroughRuntime(rewriter, load)))
          return signalPassFailure();

      SmallVector<Operation *> ops;
      func.walk([&](Operation *op) {
        if (isa<memref::AllocOp, memref::DeallocOp, memref::CopyOp, memref::GetGlobalOp>(op))
          ops.push_back(op);
      });
      for (Operation *op : ops) {
        rewriter.setInsertionPoint(op);
        Location loc = op->getLoc();
        if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
          auto gpuAlloc = gpu::AllocOp::create(
              rewriter, loc, alloc.getType(), /*asyncToken=*/Type(), /*asyncDeps=*/ValueRange{},
              alloc.getDynamicSizes(), alloc.getSymbolOperands(), /*hostShared=*/false);
          rewriter.replaceOp(alloc, gpuAlloc.getMemref());
        } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
          gpu::DeallocOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange{},
                                 dealloc.getMemref());
          rewriter.eraseOp(dealloc);
        } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
          gpu::MemcpyOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange{},
                                copy.getTarget(), copy.getSource());
          rewriter.eraseOp(copy);
        } else if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
          // The global is host memory: a device copy, made where it is read, freed at the end.
          auto type = cast<MemRefType>(global.getType());
          if (!type.hasStaticShape() || !type.getLayout().isIdentity()) {
            global.emitError("strata-gpu-host-memory: a constant must have a static identity "
                             "layout to be copied to the device, got ")
                << type;
            return signalPassFailure();
          }
          rewriter.setInsertionPointAfter(global);
          auto gpuAlloc = gpu::AllocOp::create(rewriter, loc, type, Type(), ValueRange{},
                                               ValueRange{}, ValueRange{}, false);
          Value device = gpuAlloc.getMemref();
          rewriter.replaceAllUsesExcept(global.getResult(), device, gpuAlloc);
          gpu::MemcpyOp::create(rewriter, loc, Type(), ValueRange{}, device, global.getResult());
          Block &body = func.getBody().back();
          rewriter.setInsertionPoint(body.getTerminator());
          gpu::DeallocOp::create(rewriter, loc, Type(), ValueRange{}, device);
        }
      }
    }
  }
};

} // namespace

} // namespace mlir::strata
