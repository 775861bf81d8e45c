// strata-conv-to-runtime: strata.conv_general_dilated => a call of the CPU runtime's convolution
// kernel (libstrata's, shared with the eager primitive) on its buffers, or with cuda=true of the
// CUDA runtime's cuDNN convolution where cuDNN takes it.
#include "transforms/Passes.h"
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"
#include "dialects/strata/StrataVerify.h"
#include "runtime/cuda/DnnSupport.h"
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
constexpr StringLiteral kCudaConvFn = "strata_rt_cuda_conv";

bool isStaticStrataTensor(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && rt.hasStaticShape() && st::toDType(rt.getElementType()).has_value();
}

bool isStaticConv(st::ConvGeneralDilatedOp op) {
  return isStaticStrataTensor(op.getLhs().getType()) &&
         isStaticStrataTensor(op.getRhs().getType()) && isStaticStrataTensor(op.getType());
}

/// `cuda`: the CUDA runtime's cuDNN call, only for what cuDNN takes (cudnn_takes); the other
/// convolutions stay, for strata-lower-to-linalg's generated kernels.
LogicalResult lowerConv(OpBuilder &b, ModuleOp module, st::ConvGeneralDilatedOp op, bool cuda) {
  if (!isStaticConv(op))
    return failure();
  RankedTensorType lhsType = tensorOf(op.getLhs()), rhsType = tensorOf(op.getRhs());
  RankedTensorType outType = cast<RankedTensorType>(op.getType());
  FailureOr<::strata::Params> params = st::primitiveParams(op);
  if (failed(params))
    return failure();
  ::strata::Shape ls(lhsType.getShape()), rs(rhsType.getShape()), os(outType.getShape());
  ::strata::ConvProblem problem = ::strata::conv_problem(ls, rs, os, *params);
  std::vector<int64_t> table = problem.encode();
  if (cuda) {
    std::optional<::strata::DType> in = st::toDType(lhsType.getElementType()),
                                   out = st::toDType(outType.getElementType());
    if (!::strata::cuda::cudnn_takes(problem, static_cast<int64_t>(*in),
                                     static_cast<int64_t>(*out)))
      return success();
  }

  b.setInsertionPoint(op);
  RuntimeCallBuilder c{b, op.getLoc()};
  func::FuncOp convFn = declareRuntimeFn(b, module, cuda ? kCudaConvFn : kConvFn, 6);
  auto tableType = RankedTensorType::get({static_cast<int64_t>(table.size())}, b.getI64Type());
  Value tableTensor = arith::ConstantOp::create(
      b, c.loc, DenseElementsAttr::get(tableType, ArrayRef<int64_t>(table)));
  Value out = c.output(outType);
  if (outType.getNumElements() > 0) {
    Value lhs = c.input(op.getLhs()), rhs = c.input(op.getRhs());
    Value tableBuffer = c.input(tableTensor);
    func::CallOp::create(b, c.loc, convFn,
                         ValueRange{c.dtype(lhsType), c.dtype(outType), c.address(lhs),
                                    c.address(rhs), c.address(out), c.address(tableBuffer)});
  }
  op.getResult().replaceAllUsesWith(c.result(out, outType));
  op->erase();
  return success();
}

struct StrataConvToRuntimePass : st::impl::StrataConvToRuntimeBase<StrataConvToRuntimePass> {
  using StrataConvToRuntimeBase::StrataConvToRuntimeBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<st::ConvGeneralDilatedOp> ops;
    module.walk([&](st::ConvGeneralDilatedOp op) { ops.push_back(op); });
    OpBuilder b(&getContext());
    for (st::ConvGeneralDilatedOp op : ops) {
      if (cuda && !isStaticConv(op))
        continue; // the generated kernels' to handle (or to reject)
      if (failed(lowerConv(b, module, op, cuda))) {
        op.emitOpError("needs static shapes of Strata element types to become a runtime call");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
