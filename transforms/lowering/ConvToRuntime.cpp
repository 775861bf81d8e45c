// strata-conv-to-runtime: strata.conv_general_dilated => a call of the CPU runtime's convolution
// kernel (libstrata's, shared with the eager primitive) on its buffers.
#include "transforms/Passes.h"
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"
#include "dialects/strata/StrataVerify.h"
#include "strata/internal/conv_kernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATACONVTORUNTIME
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;
using namespace mlir::strata::lowering;
namespace st = mlir::strata;

namespace {

constexpr StringLiteral kConvFn = "strata_rt_conv";

bool isStaticStrataTensor(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && rt.hasStaticShape() && st::toDType(rt.getElementType()).has_value();
}

LogicalResult lowerConv(OpBuilder &b, ModuleOp module, st::ConvGeneralDilatedOp op) {
  if (!isStaticStrataTensor(op.getLhs().getType()) ||
      !isStaticStrataTensor(op.getRhs().getType()) || !isStaticStrataTensor(op.getType()))
    return failure();
  RankedTensorType lhsType = tensorOf(op.getLhs()), rhsType = tensorOf(op.getRhs());
  RankedTensorType outType = cast<RankedTensorType>(op.getType());
  FailureOr<::strata::Params> params = st::primitiveParams(op);
  if (failed(params))
    return failure();
  ::strata::Shape ls(lhsType.getShape()), rs(rhsType.getShape()), os(outType.getShape());
  std::vector<int64_t> table = ::strata::conv_problem(ls, rs, os, *params).encode();

  b.setInsertionPoint(op);
  RuntimeCallBuilder c{b, op.getLoc()};
  func::FuncOp convFn = declareRuntimeFn(b, module, kConvFn, 6);
  auto tableType = RankedTensorType::get({static_cast<int64_t>(table.size())}, b.getI64Type());
  Value tableTensor = arith::ConstantOp::create(
      b, c.loc, DenseElementsAttr::get(tableType, ArrayRef<int64_t>(table)));
  Value out = c.output(outType);
  if (outType.getNumElements() > 0) {
    Value lhs = c.input(op.getLhs()), rhs = c.input(op.getRhs());
    Value problem = c.input(tableTensor);
    func::CallOp::create(b, c.loc, convFn,
                         ValueRange{c.dtype(lhsType), c.dtype(outType), c.address(lhs),
                                    c.address(rhs), c.address(out), c.address(problem)});
  }
  op.getResult().replaceAllUsesWith(c.result(out, outType));
  op->erase();
  return success();
}

struct StrataConvToRuntimePass : st::impl::StrataConvToRuntimeBase<StrataConvToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<st::ConvGeneralDilatedOp> ops;
    module.walk([&](st::ConvGeneralDilatedOp op) { ops.push_back(op); });
    OpBuilder b(&getContext());
    for (st::ConvGeneralDilatedOp op : ops)
      if (failed(lowerConv(b, module, op))) {
        op.emitOpError("needs static shapes of Strata element types to become a runtime call");
        return signalPassFailure();
      }
  }
};

} // namespace
