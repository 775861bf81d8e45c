// Tensor, linalg and runtime-call builders shared by the lowerings of strata-lower-to-linalg
// and strata-sort-scan-to-runtime.
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataVerify.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace st = mlir::strata;

namespace mlir::strata::lowering {

/// Float, signless integer (incl. i1) or unsigned integer: the element types Strata uses.
bool isLowerableElement(Type t) {
  auto it = dyn_cast<IntegerType>(t);
  return isa<FloatType>(t) || (it && !it.isSigned());
}

/// Every operand and result is a static ranked tensor of a lowerable element type.
bool hasLowerableTypes(Operation *op) {
  auto ok = [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && rt.hasStaticShape() && isLowerableElement(rt.getElementType());
  };
  return llvm::all_of(op->getOperandTypes(), ok) && llvm::all_of(op->getResultTypes(), ok);
}

bool hasMovableTypes(Operation *op) {
  auto ok = [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && rt.hasStaticShape() &&
           (isLowerableElement(rt.getElementType()) || isa<ComplexType>(rt.getElementType()));
  };
  return llvm::all_of(op->getOperandTypes(), ok) && llvm::all_of(op->getResultTypes(), ok);
}

Type elementOf(Value v) { return cast<RankedTensorType>(v.getType()).getElementType(); }
RankedTensorType tensorOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// The signless type arith works on: uiN -> iN, anything else unchanged.
Type signlessOf(Type t) {
  if (t.isUnsignedInteger())
    return IntegerType::get(t.getContext(), t.getIntOrFloatBitWidth());
  return t;
}

/// arith is signless-only: unsigned scalars cross into and out of a body through
/// unrealized casts, which disappear once both sides lower to LLVM's iN.
Value toSignless(OpBuilder &b, Location loc, Value v) {
  Type t = signlessOf(v.getType());
  if (t == v.getType())
    return v;
  return UnrealizedConversionCastOp::create(b, loc, t, v).getResult(0);
}
Value fromSignless(OpBuilder &b, Location loc, Value v, Type to) {
  if (v.getType() == to)
    return v;
  return UnrealizedConversionCastOp::create(b, loc, to, v).getResult(0);
}

Value indexConst(OpBuilder &b, Location loc, int64_t i) {
  return arith::ConstantIndexOp::create(b, loc, i);
}

/// An empty tensor of `type`, filled with `fill` when given.
Value makeInit(OpBuilder &b, Location loc, RankedTensorType type, Value fill) {
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  if (!fill)
    return init;
  return linalg::FillOp::create(b, loc, ValueRange{fill}, ValueRange{init}).getResult(0);
}

/// A linalg.generic whose body builder sees signless scalars (inputs, then outputs) and
/// returns signless results, cast back to the output element types.
linalg::GenericOp makeGeneric(OpBuilder &b, Location loc, ValueRange inputs, ValueRange inits,
                              ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iterators,
                              BodyFn body) {
  return linalg::GenericOp::create(
      b, loc, inits.getTypes(), inputs, inits, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        SmallVector<Value> in;
        for (Value a : args)
          in.push_back(toSignless(nb, l, a));
        SmallVector<Value> out = body(nb, l, in);
        for (size_t i = 0; i < out.size(); ++i)
          out[i] = fromSignless(nb, l, out[i], elementOf(inits[i]));
        linalg::YieldOp::create(nb, l, out);
        for (auto [a, v] : llvm::zip(args, in)) // casts of arguments the body did not read
          if (a != v && v.use_empty())
            v.getDefiningOp()->erase();
      });
}

SmallVector<utils::IteratorType> parallelIterators(int64_t n) {
  return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
}

/// `value` (an f32 tensor) rounded elementwise to `type`'s narrower float element type: the
/// last step of an f16/bf16 op that accumulates in f32.
Value truncateTensor(OpBuilder &b, Location loc, Value value, RankedTensorType type) {
  int64_t rank = type.getRank();
  SmallVector<AffineMap> ids(2, AffineMap::getMultiDimIdentityMap(rank, b.getContext()));
  return makeGeneric(b, loc, ValueRange{value}, ValueRange{makeInit(b, loc, type)}, ids,
                     parallelIterators(rank),
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       return SmallVector<Value>{
                           arith::TruncFOp::create(nb, l, type.getElementType(), args[0])};
                     })
      .getResult(0);
}

/// `shape` without dimension `dim`.
SmallVector<int64_t> dropDim(ArrayRef<int64_t> shape, int64_t dim) {
  SmallVector<int64_t> out(shape);
  out.erase(out.begin() + dim);
  return out;
}

/// The map of `nLoops` loops onto the first `rank` of them, loop `dim` replaced by `with`.
AffineMap mapWithDim(MLIRContext *ctx, int64_t nLoops, int64_t rank, int64_t dim, AffineExpr with) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    exprs.push_back(d == dim ? with : getAffineDimExpr(d, ctx));
  return AffineMap::get(nLoops, 0, exprs, ctx);
}

/// The map of `nLoops` loops onto the first `rank` of them, loop `dim` dropped.
AffineMap mapDroppingDim(MLIRContext *ctx, int64_t nLoops, int64_t rank, int64_t dim) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(nLoops, 0, exprs, ctx);
}

/// An integer scalar (any width, signless or unsigned) widened to i64 as libstrata widens
/// indices: zero-extended when unsigned, sign-extended otherwise.
Value widenIndex(OpBuilder &b, Location loc, Value v, bool isUnsigned) {
  v = toSignless(b, loc, v);
  unsigned w = v.getType().getIntOrFloatBitWidth();
  if (w == 64)
    return v;
  if (isUnsigned)
    return arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
  return arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
}

/// clamp(v, lo, hi) on i64 (lo <= hi).
Value clampI64(OpBuilder &b, Location loc, Value v, int64_t lo, int64_t hi) {
  Value c = arith::MaxSIOp::create(b, loc, v, scalarConst(b, loc, b.getI64Type(), 0, lo));
  return arith::MinSIOp::create(b, loc, c, scalarConst(b, loc, b.getI64Type(), 0, hi));
}

Value toIndex(OpBuilder &b, Location loc, Value i64) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), i64);
}

func::FuncOp declareRuntimeFn(OpBuilder &b, ModuleOp module, StringRef name, unsigned numArgs) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  SmallVector<Type> args(numArgs, b.getI64Type());
  auto fn = func::FuncOp::create(b, module.getLoc(), name, b.getFunctionType(args, {}));
  fn.setPrivate();
  return fn;
}

int64_t normalizeDim(int64_t d, int64_t rank) {
  if (d < 0)
    d += rank;
  return d >= 0 && d < rank ? d : -1;
}

std::optional<SortLines> sortLines(ValueRange inputs, int64_t dimension, int64_t numKeys) {
  if (inputs.empty())
    return std::nullopt;
  RankedTensorType type = tensorOf(inputs[0]);
  int64_t dim = normalizeDim(dimension, type.getRank());
  if (dim < 0 || numKeys < 1 || numKeys > static_cast<int64_t>(inputs.size()) ||
      llvm::any_of(inputs, [&](Value v) { return tensorOf(v).getShape() != type.getShape(); }))
    return std::nullopt;
  return SortLines{type, dim, numKeys};
}

Value RuntimeCallBuilder::constant(int64_t c) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), c);
}
Value RuntimeCallBuilder::address(Value memref) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                    memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref));
}
Value RuntimeCallBuilder::dtype(RankedTensorType t) {
  return constant(static_cast<int64_t>(*st::toDType(t.getElementType())));
}
Value RuntimeCallBuilder::input(Value tensor) {
  RankedTensorType t = tensorOf(tensor);
  return bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(t.getShape(), t.getElementType()), tensor, /*read_only=*/true);
}
Value RuntimeCallBuilder::output(RankedTensorType t) {
  return memref::AllocOp::create(b, loc, MemRefType::get(t.getShape(), t.getElementType()));
}
Value RuntimeCallBuilder::result(Value memref, Type tensorType) {
  return bufferization::ToTensorOp::create(b, loc, tensorType, memref, /*restrict=*/true,
                                           /*writable=*/true);
}

} // namespace mlir::strata::lowering
