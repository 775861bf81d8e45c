// strata-fft-to-runtime: strata.fft => a call of the CPU runtime's FFT (libstrata's FFTW
// kernel, shared with the eager primitive) or of the CUDA runtime's (cuFFT) on its buffers.
#include "transforms/Passes.h"
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"
#include "dialects/strata/StrataVerify.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/ADT/StringSwitch.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATAFFTTORUNTIME
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;
using namespace mlir::strata::lowering;
namespace st = mlir::strata;

namespace {

constexpr StringLiteral kFftFn = "strata_rt_fft";
constexpr StringLiteral kCudaFftFn = "strata_rt_cuda_fft";

/// fft_type's code in strata::FftKind's order, or -1.
int64_t kindCode(StringRef type) {
  return llvm::StringSwitch<int64_t>(type)
      .Case("FFT", 0)
      .Case("IFFT", 1)
      .Case("RFFT", 2)
      .Case("IRFFT", 3)
      .Default(-1);
}

/// The real element type a transform computes in: the operand's, or its parts'.
Type realElementType(Type t) {
  if (auto c = dyn_cast<ComplexType>(t))
    return c.getElementType();
  return t;
}

/// strata.fft on static tensors => strata_rt_fft (or strata_rt_cuda_fft)(kind, real dtype,
/// rank, n0, n1, n2, batch, in, out).
LogicalResult lowerFft(OpBuilder &b, ModuleOp module, st::FftOp op, StringRef callee) {
  auto inType = dyn_cast<RankedTensorType>(op.getOperand().getType());
  auto outType = dyn_cast<RankedTensorType>(op.getResult().getType());
  ArrayRef<int64_t> lengths = op.getFftLengths();
  int64_t kind = kindCode(op.getFftType());
  if (!inType || !outType || !inType.hasStaticShape() || !outType.hasStaticShape() || kind < 0 ||
      lengths.empty() || lengths.size() > 3)
    return op.emitOpError("has no runtime lowering for these operand types"), failure();
  std::optional<::strata::DType> real = st::toDType(realElementType(inType.getElementType()));
  if (!real)
    return op.emitOpError("has an element type libstrata lacks"), failure();
  int64_t batch = 1;
  for (int64_t i = 0; i + static_cast<int64_t>(lengths.size()) < inType.getRank(); ++i)
    batch *= inType.getDimSize(i);
  b.setInsertionPoint(op);
  RuntimeCallBuilder c{b, op.getLoc()};
  func::FuncOp fn = declareRuntimeFn(b, module, callee, 9);
  Value src = c.input(op.getOperand()), dst = c.output(outType);
  SmallVector<Value> args = {c.constant(kind), c.constant(static_cast<int64_t>(*real)),
                             c.constant(static_cast<int64_t>(lengths.size()))};
  for (size_t i = 0; i < 3; ++i)
    args.push_back(c.constant(i < lengths.size() ? lengths[i] : 1));
  args.append({c.constant(batch), c.address(src), c.address(dst)});
  func::CallOp::create(b, c.loc, fn, args);
  op.getResult().replaceAllUsesWith(c.result(dst, outType));
  op->erase();
  return success();
}

struct StrataFftToRuntimePass : st::impl::StrataFftToRuntimeBase<StrataFftToRuntimePass> {
  using StrataFftToRuntimeBase::StrataFftToRuntimeBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<st::FftOp> ops;
    module.walk([&](st::FftOp op) { ops.push_back(op); });
    OpBuilder b(&getContext());
    for (st::FftOp op : ops)
      if (failed(lowerFft(b, module, op, cuda ? kCudaFftFn : kFftFn)))
        return signalPassFailure();
  }
};

} // namespace
