// strata-sort-scan-to-runtime: strata.sort and the cumulative scans => calls of the CPU
// runtime's line kernels (libstrata's, shared with the eager primitives) on their buffers.
#include "transforms/Passes.h"
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"
#include "dialects/strata/StrataVerify.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATASORTSCANTORUNTIME
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;
using namespace mlir::strata::lowering;
namespace st = mlir::strata;

namespace {

constexpr StringLiteral kSortOperandFn = "strata_rt_sort_operand";
constexpr StringLiteral kSortFn = "strata_rt_sort";
constexpr StringLiteral kScanFn = "strata_rt_scan";

/// A static tensor of a Strata element type with at least one element.
bool isRuntimeTensor(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && rt.hasStaticShape() && rt.getNumElements() > 0 &&
         st::toDType(rt.getElementType()).has_value();
}

/// The constants outer, n and inner of a shape around dimension `dim`.
SmallVector<Value> lineSizes(RuntimeCallBuilder &c, ArrayRef<int64_t> shape, int64_t dim) {
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i)
    if (i != dim)
      (i < dim ? outer : inner) *= shape[i];
  return {c.constant(outer), c.constant(shape[dim]), c.constant(inner)};
}

/// strata.sort => strata_rt_sort_operand per operand, then strata_rt_sort.
LogicalResult lowerSort(OpBuilder &b, ModuleOp module, st::SortOp op) {
  ValueRange inputs = op.getInputs();
  if (!llvm::all_of(op->getOperandTypes(), isRuntimeTensor))
    return failure();
  std::optional<SortLines> lines =
      sortLines(inputs, op.getDimensionAttr().getInt(), op.getNumKeysAttr().getInt());
  if (!lines || lines->type.getDimSize(lines->dim) <= 1)
    return failure();
  auto [type, dim, numKeys] = *lines;
  b.setInsertionPoint(op);
  RuntimeCallBuilder c{b, op.getLoc()};
  func::FuncOp operandFn = declareRuntimeFn(b, module, kSortOperandFn, 3);
  func::FuncOp sortFn = declareRuntimeFn(b, module, kSortFn, 4);
  SmallVector<Value> outs;
  for (Value in : inputs) {
    RankedTensorType t = tensorOf(in);
    Value src = c.input(in);
    outs.push_back(c.output(t));
    func::CallOp::create(b, c.loc, operandFn,
                         ValueRange{c.dtype(t), c.address(src), c.address(outs.back())});
  }
  SmallVector<Value> args = {c.constant(numKeys)};
  args.append(lineSizes(c, type.getShape(), dim));
  func::CallOp::create(b, c.loc, sortFn, args);
  SmallVector<Value> results;
  for (auto [memref, r] : llvm::zip(outs, op.getResults()))
    results.push_back(c.result(memref, r.getType()));
  op->replaceAllUsesWith(results);
  op->erase();
  return success();
}

/// A cumulative op => strata_rt_scan.
template <typename OpTy> LogicalResult lowerScan(OpBuilder &b, ModuleOp module, OpTy op) {
  constexpr int64_t kind = std::is_same_v<OpTy, st::CumsumOp>    ? 0
                           : std::is_same_v<OpTy, st::CumprodOp> ? 1
                           : std::is_same_v<OpTy, st::CummaxOp>  ? 2
                                                                 : 3;
  Value x = op.getOperand();
  if (!isRuntimeTensor(x.getType()) || x.getType() != op.getResult().getType())
    return failure();
  RankedTensorType type = tensorOf(x);
  int64_t axis = normalizeDim(op.getAxisAttr().getInt(), type.getRank());
  if (axis < 0 || (kind < 2 && type.getElementType().isInteger(1)))
    return failure();
  b.setInsertionPoint(op);
  RuntimeCallBuilder c{b, op.getLoc()};
  func::FuncOp scanFn = declareRuntimeFn(b, module, kScanFn, 8);
  Value src = c.input(x), dst = c.output(type);
  SmallVector<Value> args = {c.constant(kind), c.dtype(type), c.address(src), c.address(dst)};
  args.append(lineSizes(c, type.getShape(), axis));
  args.push_back(c.constant(op.getReverse() ? 1 : 0));
  func::CallOp::create(b, c.loc, scanFn, args);
  op.getResult().replaceAllUsesWith(c.result(dst, type));
  op->erase();
  return success();
}

struct StrataSortScanToRuntimePass
    : st::impl::StrataSortScanToRuntimeBase<StrataSortScanToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<st::SortOp, st::CumsumOp, st::CumprodOp, st::CummaxOp, st::CumminOp>(op))
        ops.push_back(op);
    });
    OpBuilder b(&getContext());
    for (Operation *op : ops) {
      // What does not match (empty, one-element lines) is left to strata-lower-to-linalg.
      (void)llvm::TypeSwitch<Operation *, LogicalResult>(op)
          .Case([&](st::SortOp o) { return lowerSort(b, module, o); })
          .Case([&](st::CumsumOp o) { return lowerScan(b, module, o); })
          .Case([&](st::CumprodOp o) { return lowerScan(b, module, o); })
          .Case([&](st::CummaxOp o) { return lowerScan(b, module, o); })
          .Case([&](st::CumminOp o) { return lowerScan(b, module, o); })
          .Default([](Operation *) { return failure(); });
    }
  }
};

} // namespace
