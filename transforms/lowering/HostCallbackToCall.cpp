// strata.host_callback => calls of the runtime's host-callback entry points on the operand and
// result buffers.
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"
#include "dialects/strata/StrataVerify.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
namespace st = mlir::strata;

namespace mlir::strata::lowering {
namespace {

constexpr StringLiteral kHostCallbackFn = "strata_rt_host_callback";
constexpr StringLiteral kHostCallbackBufferFn = "strata_rt_host_callback_buffer";
constexpr StringLiteral kHostCallbackDimFn = "strata_rt_host_callback_dim";

/// strata.host_callback => calls of the runtime, before bufferization and with scalar
/// arguments only (so host code stays free of stores, which the GPU pipeline would move into
/// kernels): `strata_rt_host_callback_buffer(address, dtype code, rank)` and one
/// `strata_rt_host_callback_dim(size)` per dimension for each operand buffer
/// (`bufferization.to_buffer`) and then each result buffer (a fresh allocation the runtime
/// fills, read back with `bufferization.to_tensor`), then `strata_rt_host_callback(callback_id,
/// n_in, n_out)`. The calls have unknown effects, so they keep their places among the other
/// calls; the buffers they name live to the end of their block, after them.
LogicalResult lowerHostCallback(IRRewriter &rewriter, st::HostCallbackOp op) {
  auto module = op->getParentOfType<ModuleOp>();
  auto strataType = [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && rt.hasStaticShape() && st::toDType(rt.getElementType()).has_value();
  };
  if (!module || !llvm::all_of(op->getOperandTypes(), strataType) ||
      !llvm::all_of(op->getResultTypes(), strataType))
    return op.emitOpError("needs static tensors of Strata element types inside a module to be "
                          "lowered");
  func::FuncOp call = declareRuntimeFn(rewriter, module, kHostCallbackFn, 3);
  func::FuncOp buffer = declareRuntimeFn(rewriter, module, kHostCallbackBufferFn, 3);
  func::FuncOp dim = declareRuntimeFn(rewriter, module, kHostCallbackDimFn, 1);
  rewriter.setInsertionPoint(op);
  RuntimeCallBuilder c{rewriter, op.getLoc()};
  auto describe = [&](Value memref, RankedTensorType t) {
    func::CallOp::create(rewriter, c.loc, buffer,
                         ValueRange{c.address(memref), c.dtype(t), c.constant(t.getRank())});
    for (int64_t d : t.getShape())
      func::CallOp::create(rewriter, c.loc, dim, ValueRange{c.constant(d)});
  };
  for (Value in : op.getInputs())
    describe(c.input(in), tensorOf(in));
  SmallVector<Value> buffers;
  for (Value r : op.getResults()) {
    RankedTensorType t = tensorOf(r);
    buffers.push_back(c.output(t));
    describe(buffers.back(), t);
  }
  func::CallOp::create(rewriter, c.loc, call,
                       ValueRange{c.constant(static_cast<int64_t>(op.getCallbackId())),
                                  c.constant(op.getInputs().size()),
                                  c.constant(op.getResults().size())});
  SmallVector<Value> results;
  for (auto [memref, r] : llvm::zip(buffers, op.getResults()))
    results.push_back(c.result(memref, r.getType()));
  rewriter.replaceOp(op, results);
  return success();
}

} // namespace

LogicalResult lowerHostCallbacks(Operation *root) {
  SmallVector<st::HostCallbackOp> ops;
  root->walk([&](st::HostCallbackOp op) { ops.push_back(op); });
  IRRewriter rewriter(root->getContext());
  for (st::HostCallbackOp op : ops)
    if (failed(lowerHostCallback(rewriter, op)))
      return failure();
  return success();
}

} // namespace mlir::strata::lowering
