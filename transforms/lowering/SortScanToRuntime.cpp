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

/// Builds the calls of one op: the operand buffers (read-only views of the tensors), fresh
/// result buffers, and the tensors read back from those after the calls.
struct CallBuilder {
  OpBuilder &b;
  Location loc;

  Value constant(int64_t c) { return arith::ConstantIntOp::create(b, loc, b.getI64Type(), c); }
  Value address(Value memref) {
    return arith::IndexCastOp::create(
        b, loc, b.getI64Type(), memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref));
  }
  Value dtype(RankedTensorType t) {
    return constant(static_cast<int64_t>(*st::toDType(t.getElementType())));
  }
  MemRefType bufferType(RankedTensorType t) {
    return MemRefType::get(t.getShape(), t.getElementType());
  }
  Value input(Value tensor) {
    return bufferization::ToBufferOp::create(b, loc, bufferType(tensorOf(tensor)), tensor,
                                             /*read_only=*/true);
  }
  Value output(RankedTensorType t) { return memref::AllocOp::create(b, loc, bufferType(t)); }
  Value result(Value memref, Type tensorType) {
    return bufferization::ToTensorOp::create(b, loc, tensorType, memref, /*restrict=*/true,
                                             /*writable=*/true);
  }
  /// The constants outer, n and inner of a shape around dimension `dim`.
  SmallVector<Value> lineSizes(ArrayRef<int64_t> shape, int64_t dim) {
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i)
      if (i != dim)
        (i < dim ? outer : inner) *= shape[i];
    return {constant(outer), constant(shape[dim]), constant(inner)};
  }
};

/// The dimension `d` of a rank-`rank` op normalized into [0, rank), or -1 when out of range.
int64_t normalizeDim(int64_t d, int64_t rank) {
  if (d < 0)
    d += rank;
  return d >= 0 && d < rank ? d : -1;
}

/// strata.sort => strata_rt_sort_operand per operand, then strata_rt_sort.
LogicalResult lowerSort(OpBuilder &b, ModuleOp module, st::SortOp op) {
  ValueRange inputs = op.getInputs();
  if (inputs.empty() || !llvm::all_of(op->getOperandTypes(), isRuntimeTensor))
    return failure();
  RankedTensorType type = tensorOf(inputs[0]);
  int64_t dim = normalizeDim(op.getDimensionAttr().getInt(), type.getRank());
  int64_t numKeys = op.getNumKeysAttr().getInt();
  if (dim < 0 || type.getDimSize(dim) <= 1 || numKeys < 1 ||
      numKeys > static_cast<int64_t>(inputs.size()) ||
      llvm::any_of(inputs, [&](Value v) { return tensorOf(v).getShape() != type.getShape(); }))
    return failure();
  b.setInsertionPoint(op);
  CallBuilder c{b, op.getLoc()};
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
  args.append(c.lineSizes(type.getShape(), dim));
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
  CallBuilder c{b, op.getLoc()};
  func::FuncOp scanFn = declareRuntimeFn(b, module, kScanFn, 8);
  Value src = c.input(x), dst = c.output(type);
  SmallVector<Value> args = {c.constant(kind), c.dtype(type), c.address(src), c.address(dst)};
  args.append(c.lineSizes(type.getShape(), axis));
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
