// strata-window-to-runtime: strata.reduce_window_sum => a call of the CPU runtime's windowed-sum
// kernel (libstrata's, shared with the eager primitive) on its buffers.
#include "transforms/Passes.h"
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"
#include "dialects/strata/StrataVerify.h"
#include "strata/internal/window_kernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATAWINDOWTORUNTIME
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;
using namespace mlir::strata::lowering;
namespace st = mlir::strata;

namespace {

constexpr StringLiteral kWindowSumFn = "strata_rt_window_sum";

/// Whether the runtime takes a sum of this type: static shapes of a numeric Strata dtype.
bool takes(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt || !rt.hasStaticShape())
    return false;
  std::optional<::strata::DType> d = st::toDType(rt.getElementType());
  return d && *d != ::strata::DType::Bool;
}

void lowerWindowSum(OpBuilder &b, ModuleOp module, st::ReduceWindowSumOp op) {
  RankedTensorType inType = tensorOf(op.getOperand());
  auto outType = cast<RankedTensorType>(op.getType());
  auto vec = [](ArrayRef<int64_t> a) { return std::vector<int64_t>(a.begin(), a.end()); };
  ::strata::WindowProblem p{vec(inType.getShape()),        vec(outType.getShape()),
                            vec(op.getWindowDimensions()), vec(op.getWindowStrides()),
                            vec(op.getPaddingLow()),       vec(op.getPaddingHigh()),
                            vec(op.getBaseDilation()),     vec(op.getWindowDilation())};
  std::vector<int64_t> table = p.encode();

  b.setInsertionPoint(op);
  RuntimeCallBuilder c{b, op.getLoc()};
  Value out = c.output(outType);
  if (outType.getNumElements() > 0) {
    auto tableType = RankedTensorType::get({static_cast<int64_t>(table.size())}, b.getI64Type());
    Value tableTensor = arith::ConstantOp::create(
        b, c.loc, DenseElementsAttr::get(tableType, ArrayRef<int64_t>(table)));
    Value x = c.input(op.getOperand()), problem = c.input(tableTensor);
    func::CallOp::create(
        b, c.loc, declareRuntimeFn(b, module, kWindowSumFn, 4),
        ValueRange{c.dtype(inType), c.address(x), c.address(out), c.address(problem)});
  }
  op.getResult().replaceAllUsesWith(c.result(out, outType));
  op->erase();
}

struct StrataWindowToRuntimePass : st::impl::StrataWindowToRuntimeBase<StrataWindowToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<st::ReduceWindowSumOp> ops;
    module.walk([&](st::ReduceWindowSumOp op) {
      if (takes(op.getOperand().getType()) && takes(op.getType()))
        ops.push_back(op);
    });
    OpBuilder b(&getContext());
    for (st::ReduceWindowSumOp op : ops)
      lowerWindowSum(b, module, op);
  }
};

} // namespace
