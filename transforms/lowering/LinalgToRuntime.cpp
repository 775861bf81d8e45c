// strata-linalg-to-runtime: the linear-algebra ops => calls of the CPU runtime's LAPACK
// kernels (libstrata's, shared with the eager primitives) or of the CUDA runtime's on buffers.
#include "transforms/Passes.h"
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATALINALGTORUNTIME
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;
using namespace mlir::strata::lowering;
namespace st = mlir::strata;

namespace {

/// A tensor of static shape (any number of elements: the kernels take empty batches and
/// matrices).
bool isStatic(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && rt.hasStaticShape();
}

/// The batch size (product of all but the last two dimensions), rows and columns of a tensor
/// of rank >= 2.
struct MatrixSizes {
  int64_t batch, rows, cols;
};
MatrixSizes sizesOf(RankedTensorType t) {
  ArrayRef<int64_t> s = t.getShape();
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < s.size(); ++i)
    batch *= s[i];
  return {batch, s[s.size() - 2], s[s.size() - 1]};
}

/// Replaces `op` by a call of `fn`: the operands' buffers, fresh buffers for its results, and
/// the arguments that `args` builds from them (inputs, outputs).
LogicalResult lowerToCall(
    OpBuilder &b, ModuleOp module, Operation *op, StringRef prefix, StringRef op_name,
    unsigned numArgs,
    function_ref<SmallVector<Value>(RuntimeCallBuilder &, ArrayRef<Value>, ArrayRef<Value>)> args) {
  if (!llvm::all_of(op->getOperandTypes(), isStatic) ||
      !llvm::all_of(op->getResultTypes(), isStatic))
    return failure();
  b.setInsertionPoint(op);
  RuntimeCallBuilder c{b, op->getLoc()};
  func::FuncOp callee = declareRuntimeFn(b, module, (prefix + op_name).str(), numArgs);
  SmallVector<Value> ins, outs;
  for (Value v : op->getOperands())
    ins.push_back(c.input(v));
  for (Value r : op->getResults())
    outs.push_back(c.output(cast<RankedTensorType>(r.getType())));
  func::CallOp::create(b, c.loc, callee, args(c, ins, outs));
  SmallVector<Value> results;
  for (auto [memref, r] : llvm::zip(outs, op->getResults()))
    results.push_back(c.result(memref, r.getType()));
  op->replaceAllUsesWith(results);
  op->erase();
  return success();
}

/// `prefix` is "strata_rt_" (the CPU runtime) or "strata_rt_cuda_" (the CUDA runtime).
LogicalResult lower(OpBuilder &b, ModuleOp module, Operation *op, StringRef prefix) {
  auto type = [&](unsigned i) { return cast<RankedTensorType>(op->getOperand(i).getType()); };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](st::CholeskyOp o) {
        MatrixSizes s = sizesOf(type(0));
        int64_t sym = o.getSymmetrizeInput() ? 1 : 0;
        return lowerToCall(b, module, op, prefix, "cholesky", 6,
                           [&](RuntimeCallBuilder &c, ArrayRef<Value> in, ArrayRef<Value> out) {
                             return SmallVector<Value>{c.dtype(type(0)),   c.constant(s.batch),
                                                       c.constant(s.cols), c.address(in[0]),
                                                       c.address(out[0]),  c.constant(sym)};
                           });
      })
      .Case([&](st::TriangularSolveOp o) {
        MatrixSizes s = sizesOf(type(1));
        int64_t flags = (o.getLeftSide() ? 1 : 0) | (o.getLower() ? 2 : 0) |
                        (o.getTransposeA() ? 4 : 0) | (o.getUnitDiagonal() ? 8 : 0);
        return lowerToCall(b, module, op, prefix, "triangular_solve", 8,
                           [&](RuntimeCallBuilder &c, ArrayRef<Value> in, ArrayRef<Value> out) {
                             return SmallVector<Value>{c.dtype(type(0)),   c.constant(s.batch),
                                                       c.constant(s.rows), c.constant(s.cols),
                                                       c.address(in[0]),   c.address(in[1]),
                                                       c.address(out[0]),  c.constant(flags)};
                           });
      })
      .Case([&](st::LuOp) {
        MatrixSizes s = sizesOf(type(0));
        return lowerToCall(b, module, op, prefix, "lu", 8,
                           [&](RuntimeCallBuilder &c, ArrayRef<Value> in, ArrayRef<Value> out) {
                             return SmallVector<Value>{c.dtype(type(0)),   c.constant(s.batch),
                                                       c.constant(s.rows), c.constant(s.cols),
                                                       c.address(in[0]),   c.address(out[0]),
                                                       c.address(out[1]),  c.address(out[2])};
                           });
      })
      .Case([&](st::LuPivotsToPermutationOp o) {
        ArrayRef<int64_t> shape = type(0).getShape();
        int64_t k = shape.back(), batch = 1;
        for (size_t i = 0; i + 1 < shape.size(); ++i)
          batch *= shape[i];
        int64_t size = o.getPermutationSize();
        return lowerToCall(b, module, op, prefix, "lu_pivots_to_permutation", 5,
                           [&](RuntimeCallBuilder &c, ArrayRef<Value> in, ArrayRef<Value> out) {
                             return SmallVector<Value>{c.constant(batch), c.constant(k),
                                                       c.constant(size), c.address(in[0]),
                                                       c.address(out[0])};
                           });
      })
      .Case([&](st::QrOp o) {
        MatrixSizes s = sizesOf(type(0));
        int64_t full = o.getFullMatrices() ? 1 : 0;
        return lowerToCall(b, module, op, prefix, "qr", 8,
                           [&](RuntimeCallBuilder &c, ArrayRef<Value> in, ArrayRef<Value> out) {
                             return SmallVector<Value>{c.dtype(type(0)),   c.constant(s.batch),
                                                       c.constant(s.rows), c.constant(s.cols),
                                                       c.address(in[0]),   c.address(out[0]),
                                                       c.address(out[1]),  c.constant(full)};
                           });
      })
      .Case([&](st::EighOp o) {
        MatrixSizes s = sizesOf(type(0));
        int64_t lower = o.getLower() ? 1 : 0;
        return lowerToCall(b, module, op, prefix, "eigh", 7,
                           [&](RuntimeCallBuilder &c, ArrayRef<Value> in, ArrayRef<Value> out) {
                             return SmallVector<Value>{c.dtype(type(0)),   c.constant(s.batch),
                                                       c.constant(s.cols), c.address(in[0]),
                                                       c.address(out[0]),  c.address(out[1]),
                                                       c.constant(lower)};
                           });
      })
      .Case([&](st::SvdOp o) {
        MatrixSizes s = sizesOf(type(0));
        int64_t full = o.getFullMatrices() ? 1 : 0;
        bool uv = o.getComputeUv();
        return lowerToCall(b, module, op, prefix, "svd", 9,
                           [&](RuntimeCallBuilder &c, ArrayRef<Value> in, ArrayRef<Value> out) {
                             return SmallVector<Value>{c.dtype(type(0)),
                                                       c.constant(s.batch),
                                                       c.constant(s.rows),
                                                       c.constant(s.cols),
                                                       c.address(in[0]),
                                                       c.address(out[0]),
                                                       uv ? c.address(out[1]) : c.constant(0),
                                                       uv ? c.address(out[2]) : c.constant(0),
                                                       c.constant(full)};
                           });
      })
      .Case([&](st::EigOp o) {
        MatrixSizes s = sizesOf(type(0));
        bool left = o.getComputeLeftEigenvectors(), right = o.getComputeRightEigenvectors();
        return lowerToCall(b, module, op, prefix, "eig", 7,
                           [&](RuntimeCallBuilder &c, ArrayRef<Value> in, ArrayRef<Value> out) {
                             return SmallVector<Value>{c.dtype(type(0)),
                                                       c.constant(s.batch),
                                                       c.constant(s.cols),
                                                       c.address(in[0]),
                                                       c.address(out[0]),
                                                       left ? c.address(out[1]) : c.constant(0),
                                                       right ? c.address(out[left ? 2 : 1])
                                                             : c.constant(0)};
                           });
      })
      .Case([&](st::SchurOp o) {
        MatrixSizes s = sizesOf(type(0));
        bool vs = o.getComputeSchurVectors();
        return lowerToCall(b, module, op, prefix, "schur", 6,
                           [&](RuntimeCallBuilder &c, ArrayRef<Value> in, ArrayRef<Value> out) {
                             return SmallVector<Value>{
                                 c.dtype(type(0)),   c.constant(s.batch),
                                 c.constant(s.cols), c.address(in[0]),
                                 c.address(out[0]),  vs ? c.address(out[1]) : c.constant(0)};
                           });
      })
      .Case([&](st::HessenbergOp) {
        MatrixSizes s = sizesOf(type(0));
        return lowerToCall(b, module, op, prefix, "hessenberg", 6,
                           [&](RuntimeCallBuilder &c, ArrayRef<Value> in, ArrayRef<Value> out) {
                             return SmallVector<Value>{c.dtype(type(0)),   c.constant(s.batch),
                                                       c.constant(s.cols), c.address(in[0]),
                                                       c.address(out[0]),  c.address(out[1])};
                           });
      })
      .Case([&](st::HouseholderProductOp) {
        MatrixSizes s = sizesOf(type(0));
        int64_t k = type(1).getShape().back();
        return lowerToCall(b, module, op, prefix, "householder_product", 8,
                           [&](RuntimeCallBuilder &c, ArrayRef<Value> in, ArrayRef<Value> out) {
                             return SmallVector<Value>{c.dtype(type(0)),   c.constant(s.batch),
                                                       c.constant(s.rows), c.constant(s.cols),
                                                       c.constant(k),      c.address(in[0]),
                                                       c.address(in[1]),   c.address(out[0])};
                           });
      })
      .Default([](Operation *) { return failure(); });
}

/// The nonsymmetric eigenproblem's ops, which have CPU kernels only (as in JAX).
bool isCpuOnly(Operation *op) {
  return isa<st::EigOp, st::SchurOp, st::HessenbergOp, st::HouseholderProductOp>(op);
}

struct StrataLinalgToRuntimePass : st::impl::StrataLinalgToRuntimeBase<StrataLinalgToRuntimePass> {
  using StrataLinalgToRuntimeBase::StrataLinalgToRuntimeBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<st::CholeskyOp, st::TriangularSolveOp, st::LuOp, st::LuPivotsToPermutationOp,
              st::QrOp, st::EighOp, st::SvdOp>(op) ||
          isCpuOnly(op))
        ops.push_back(op);
    });
    OpBuilder b(&getContext());
    for (Operation *op : ops) {
      if (cuda && isCpuOnly(op)) {
        op->emitError() << "[jit] " << op->getName().stripDialect()
                        << " is compiled for the CPU only (as in JAX): run it eagerly or jit it "
                           "for the CPU";
        return signalPassFailure();
      }
      // cuSOLVER's bodies take real matrices: complex ones stay on the CPU's LAPACK.
      if (cuda && llvm::any_of(op->getOperandTypes(),
                               [](Type t) { return isa<ComplexType>(getElementTypeOrSelf(t)); })) {
        op->emitError() << "[jit] " << op->getName().stripDialect()
                        << " on complex matrices is compiled for the CPU only: run it eagerly or "
                           "jit it for the CPU";
        return signalPassFailure();
      }
      if (failed(lower(b, module, op, cuda ? "strata_rt_cuda_" : "strata_rt_"))) {
        op->emitOpError() << "has a dynamic shape: the runtime's linear-algebra calls need "
                             "static shapes";
        return signalPassFailure();
      }
    }
  }
};

} // namespace
