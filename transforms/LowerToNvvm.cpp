// `strata-lower-to-nvvm`: strata IR -> gpu.func kernels -> NVVM -> PTX, for sm_90, sm_120, ...
#include "transforms/LowerToNvvm.h"

#include "transforms/LowerToCpu.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/StringMap.h"

#include <numeric>

#include "transforms/Passes.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATAGPUMAPLOOPS
#define GEN_PASS_DEF_STRATANVVMINTRINSICS
#include "transforms/Passes.h.inc"

namespace {

/// Whether `op` is structured control flow that must stay on the host: a loop or branch whose
/// body launches work (loop nests, kernels, runtime calls) or manages buffers, as the lowered
/// strata.while/scan/cond bodies do. A sequential loop nest of scalar code (a scatter, a
/// cumulative scan, a full reduction) is not: it becomes a kernel of its own.
bool isHostControlFlow(Operation *op) {
  if (!isa<scf::ForOp, scf::WhileOp, scf::IfOp, scf::IndexSwitchOp>(op))
    return false;
  return op
      ->walk([](Operation *inner) {
        return isa<scf::ParallelOp, gpu::LaunchOp, gpu::LaunchFuncOp, func::CallOp,
                   memref::AllocOp, memref::DeallocOp, linalg::LinalgOp>(inner)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// `strata-gpu-map-loops`: gives every outermost loop nest of a host function a GPU mapping
/// that `convert-parallel-loops-to-gpu` turns into one kernel launch. An `scf.parallel` is
/// collapsed to one dimension (so any rank maps, and the grid's y/z limits never bind), then
/// tiled into 1-D blocks of `block-size` threads with a bounds check (no min/max bounds, so the
/// block size is a constant); the outer loop maps to block x, the inner one to thread x. A
/// sequential `scf.for` nest outside any parallel loop (a full reduction) is wrapped in a
/// one-iteration `scf.parallel` on block x: one thread runs it on the device, so no loop is
/// left on the host touching device buffers; so is a lone `memref.store` (a 0-d fill). Host
/// control flow (isHostControlFlow: a lowered while_loop, scan or cond) stays on the host and
/// the loop nests of its body are mapped in turn, so each step launches kernels.
struct GpuMapLoopsPass : strata::impl::StrataGpuMapLoopsBase<GpuMapLoopsPass> {
  using StrataGpuMapLoopsBase::StrataGpuMapLoopsBase;

  void runOnOperation() override {
    if (blockSize <= 0 || blockSize > 1024) {
      getOperation().emitError("strata-gpu-map-loops: block-size must be in [1, 1024], got ")
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    // Control flow that stays on the host (a while_loop, a scan, a cond) runs kernels: its
    // loop is no kernel of its own, and the loop nests in its body are mapped one by one.
    llvm::DenseSet<Operation *> host;
    getOperation().walk([&](Operation *op) {
      if (isHostControlFlow(op))
        host.insert(op);
    });
    // Whether `op` will run inside a kernel: some loop around it is not host control flow.
    auto inKernel = [&](Operation *op) {
      for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
        if (isa<scf::ForOp, scf::ParallelOp, scf::WhileOp>(p) && !host.contains(p))
          return true;
      return false;
    };
    // A memref.copy inside a kernel's loop would run in the kernel, where there is no
    // memrefCopy runtime function: it becomes its own loop nest.
    SmallVector<memref::CopyOp> nestedCopies;
    getOperation().walk([&](memref::CopyOp copy) {
      // So does a copy between views (a strided slice, an offset): gpu.memcpy moves one
      // contiguous range and gpu-to-llvm takes identity layouts only (strata-gpu-host-memory
      // relies on this).
      auto contiguous = [](Value v) {
        auto type = cast<MemRefType>(v.getType());
        return type.hasStaticShape() && type.getLayout().isIdentity();
      };
      if (inKernel(copy) || !contiguous(copy.getSource()) || !contiguous(copy.getTarget()))
        nestedCopies.push_back(copy);
    });
    IRRewriter copyRewriter(&getContext());
    for (memref::CopyOp copy : nestedCopies) {
      copyRewriter.setInsertionPoint(copy);
      auto linalgCopy =
          linalg::CopyOp::create(copyRewriter, copy.getLoc(), copy.getSource(), copy.getTarget());
      copyRewriter.eraseOp(copy);
      copyRewriter.setInsertionPoint(linalgCopy);
      if (failed(linalg::linalgOpToLoops(copyRewriter, linalgCopy))) {
        linalgCopy->emitError("strata-gpu-map-loops: cannot lower this copy to loops");
        return signalPassFailure();
      }
      copyRewriter.eraseOp(linalgCopy);
    }

    // Outermost loops only: nested ones run sequentially inside the thread that owns them.
    SmallVector<Operation *> roots;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (host.contains(op))
        return WalkResult::advance();
      if (isa<scf::ParallelOp, scf::ForOp, memref::StoreOp>(op)) {
        roots.push_back(op);
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });

    MLIRContext *ctx = &getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
    auto dim = [&](gpu::Processor p) {
      return gpu::ParallelLoopDimMappingAttr::get(ctx, p, id, id);
    };
    IRRewriter rewriter(ctx);
    for (Operation *root : roots) {
      Location loc = root->getLoc();
      if (isa<scf::ForOp, memref::StoreOp>(root)) {
        // A sequential nest that yields values cannot move into a kernel (its results would
        // live on the device); the bufferized linalg lowering never makes one.
        if (root->getNumResults() != 0) {
          root->emitError("strata-gpu-map-loops: cannot map an scf.for with results");
          return signalPassFailure();
        }
        rewriter.setInsertionPoint(root);
        Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
        Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
        auto par =
            scf::ParallelOp::create(rewriter, loc, ValueRange{c0}, ValueRange{c1}, ValueRange{c1});
        rewriter.moveOpBefore(root, par.getBody()->getTerminator());
        if (failed(gpu::setMappingAttr(par, {dim(gpu::Processor::BlockX)}))) {
          par.emitError("strata-gpu-map-loops: cannot set the mapping");
          return signalPassFailure();
        }
        continue;
      }
      auto par = cast<scf::ParallelOp>(root);
      if (par.getNumReductions() != 0) {
        par.emitError("strata-gpu-map-loops: scf.parallel with reductions is not mapped yet");
        return signalPassFailure();
      }
      // A small static loop gets one block just large enough (whole warps); the trip count is
      // taken before collapsing, which leaves the collapsed bound as unfolded arith.
      std::optional<int64_t> trips = 1;
      for (auto [lbv, ubv, stv] :
           llvm::zip(par.getLowerBound(), par.getUpperBound(), par.getStep())) {
        std::optional<int64_t> lb = getConstantIntValue(lbv), ub = getConstantIntValue(ubv),
                               st = getConstantIntValue(stv);
        if (!trips || !lb || !ub || !st || *st <= 0)
          trips = std::nullopt;
        else
          *trips *= std::max<int64_t>(0, (*ub - *lb + *st - 1) / *st);
      }
      int64_t tile = blockSize;
      if (trips)
        tile = std::max<int64_t>(1, std::min<int64_t>(blockSize, (*trips + 31) / 32 * 32));
      if (par.getNumLoops() > 1) {
        std::vector<unsigned> all(par.getNumLoops());
        std::iota(all.begin(), all.end(), 0u);
        // collapseParallelLoops replaces the loop in place (index constants may come first):
        // the new loop is the first scf.parallel after the old one's predecessor.
        Block *block = par->getBlock();
        Operation *prev = par->getPrevNode();
        rewriter.setInsertionPoint(par);
        collapseParallelLoops(rewriter, par, {all});
        par = nullptr;
        for (Operation *op = prev ? prev->getNextNode() : &block->front(); op && !par;
             op = op->getNextNode())
          par = dyn_cast<scf::ParallelOp>(op);
        if (!par) {
          block->getParentOp()->emitError("strata-gpu-map-loops: collapsing failed");
          return signalPassFailure();
        }
      }
      auto [outer, inner] = scf::tileParallelLoop(par, {tile}, /*noMinMaxBounds=*/true);
      if (failed(gpu::setMappingAttr(outer, {dim(gpu::Processor::BlockX)})) ||
          failed(gpu::setMappingAttr(inner, {dim(gpu::Processor::ThreadX)}))) {
        outer.emitError("strata-gpu-map-loops: cannot set the mapping");
        return signalPassFailure();
      }
    }
  }
};

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

std::vector<std::pair<std::string, std::string>>
nvvmLoweringStages(const std::string &chip, int64_t blockSize, int64_t maxBlocks) {
  const auto &cpu = cpuLoweringStages();
  // The CPU's first stages, plus strata-interchange-elementwise-loops after canonicalize (which
  // hoists a loop body's invariant ops): an elementwise loop becomes one generic running the
  // steps per element, so one kernel with the loop inside each thread instead of a host loop
  // launching kernels. Not on the CPU: there the element loop is the one to vectorize, and a
  // per-element chain of dependent steps ran 45x slower than step-by-step vector loops.
  std::vector<std::pair<std::string, std::string>> stages = {
      cpu[0], {"linalg", "strata-lower-to-linalg,strata-lower-control-flow,canonicalize,"
                         "strata-interchange-elementwise-loops,strata-unique-results"}};
  // As on the CPU: results become out-params, inputs are read-only; f32/f64 contractions and
  // the f16/bf16 ones with an f32 accumulator become host calls of the runtime's cuBLAS gemm
  // (device pointers), between the kernels.
  stages.emplace_back("bufferized",
                      "one-shot-bufferize{bufferize-function-boundaries "
                      "function-boundary-type-conversion=identity-layout-map},"
                      "buffer-results-to-out-params{hoist-static-allocs modify-public-functions},"
                      "buffer-deallocation-pipeline,canonicalize,"
                      "strata-linalg-to-blas{callee=strata_rt_cuda_gemm type-codes=1}");
  // strata-gpu-kernels makes the kernels of the linalg ops it knows (grid-stride elementwise,
  // row groups, full reductions); every outermost loop nest left becomes one kernel of
  // strata-gpu-map-loops. Canonicalize before outlining so that constants are sunk into the
  // kernels rather than passed as arguments.
  std::string sizes = "block-size=" + std::to_string(blockSize);
  stages.emplace_back(
      "gpu", "func.func(strata-gpu-kernels{" + sizes + " max-blocks=" + std::to_string(maxBlocks) +
                 "},convert-linalg-to-parallel-loops,strata-gpu-map-loops{" + sizes +
                 "},convert-parallel-loops-to-gpu,canonicalize),"
                 "gpu-launch-sink-index-computations,gpu-kernel-outlining,cse");
  // f16/bf16 math in f32 and f32 math approximated, as on the CPU. convert-gpu-to-nvvm makes
  // libdevice calls of the math left (the approximations' fma, floor, fabs): the ones with an
  // exact intrinsic become that intrinsic again (strata-nvvm-intrinsics), the rest (f64 exp,
  // pow, ...) need libdevice, which gpu-module-to-binary links from the toolkit it finds.
  // convert-scf-to-cf first: the NVVM translation does not take scf.if.
  stages.emplace_back(
      "nvvm", "nvvm-attach-target{chip=" + chip +
                  " features=+ptx88 O=3},gpu.module(expand-strided-metadata,lower-affine,"
                  "convert-scf-to-cf,arith-emulate-unsupported-floats{source-types=bf16,f16 "
                  "target-type=f32},math-extend-to-supported-types,strata-approximate-math,"
                  "convert-gpu-to-nvvm,convert-math-to-llvm,strata-nvvm-intrinsics,"
                  "canonicalize,cse),"
                  "reconcile-unrealized-casts");
  stages.emplace_back("ptx", "gpu-module-to-binary{format=isa}");
  return stages;
}

LogicalResult buildStrataLowerToNvvmPipeline(OpPassManager &pm, const std::string &chip,
                                             int64_t blockSize, int64_t maxBlocks) {
  for (const auto &[name, text] : nvvmLoweringStages(chip, blockSize, maxBlocks))
    if (failed(parsePassPipeline(text, pm)))
      return failure();
  return success();
}

namespace {
/// The options of `strata-lower-to-nvvm`.
struct NvvmPipelineOptions : PassPipelineOptions<NvvmPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("NVVM target chip (sm_90, sm_120, ...)"),
                           llvm::cl::init("sm_90")};
  Option<int64_t> blockSize{*this, "block-size", llvm::cl::desc("Most threads per block"),
                            llvm::cl::init(256)};
  Option<int64_t> maxBlocks{*this, "max-blocks",
                            llvm::cl::desc("Most blocks per grid (the runtime: 8 x SMs)"),
                            llvm::cl::init(1056)};
};
} // namespace

void registerStrataNvvmPipeline() {
  PassPipelineRegistration<NvvmPipelineOptions>(
      "strata-lower-to-nvvm",
      "Lowers strata IR to PTX for an NVIDIA GPU: the CPU pipeline's first stages, one-shot "
      "bufferization with out-params, linalg ops to kernels (grid-stride, row reductions and "
      "fused row groups with warp shuffles and shared memory, full reductions), NVVM, "
      "gpu.binary with PTX",
      [](OpPassManager &pm, const NvvmPipelineOptions &options) {
        (void)buildStrataLowerToNvvmPipeline(pm, options.chip, options.blockSize,
                                             options.maxBlocks);
      });
}

} // namespace mlir::strata
