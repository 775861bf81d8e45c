// strata-gpu-kernels' analysis: buffer roots, vector accesses, combiners, row kinds and accesses.
#include "transforms/gpu/GpuKernelsImpl.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::strata::gpu_kernels {

Value rootOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

int64_t vectorElementBytes(Type t) {
  if (!t.isIntOrFloat() || isa<IndexType>(t))
    return 0;
  unsigned bits = t.getIntOrFloatBitWidth();
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
    return 0;
  return bits / 8;
}

bool isContiguous(MemRefType type) {
  if (!type.hasStaticShape())
    return false;
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || offset != 0)
    return false;
  int64_t expect = 1;
  for (int64_t i = type.getRank() - 1; i >= 0; --i) {
    if (type.getDimSize(i) != 1 && strides[i] != expect)
      return false;
    expect *= type.getDimSize(i);
  }
  return true;
}

bool isVectorizable(MemRefType type, AffineMap map, unsigned inner, int64_t width) {
  if (width <= 1 || map.getNumResults() == 0 || !vectorElementBytes(type.getElementType()))
    return false;
  auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!last || last.getPosition() != inner)
    return false;
  for (AffineExpr e : map.getResults().drop_back())
    if (e.isFunctionOfDim(inner))
      return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || ShapedType::isDynamic(offset) ||
      offset % width != 0 || strides.back() != 1)
    return false;
  for (int64_t s : ArrayRef<int64_t>(strides).drop_back())
    if (ShapedType::isDynamic(s) || s % width != 0)
      return false;
  return true;
}

Operation *combinerOf(linalg::GenericOp op, unsigned k) {
  Block *body = op.getBlock();
  BlockArgument acc = body->getArgument(op.getNumDpsInputs() + k);
  if (!acc.hasOneUse())
    return nullptr;
  Operation *c = *acc.user_begin();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  if (c->getNumOperands() != 2 || c->getNumResults() != 1 || c->getBlock() != body ||
      yield.getValues()[k] != c->getResult(0) || !c->getResult(0).hasOneUse() ||
      !arith::getNeutralElement(c))
    return nullptr;
  if (c->getOperand(0) == c->getOperand(1))
    return nullptr;
  return c;
}

std::optional<RowKind> rowKindOf(linalg::GenericOp op, const RowSpace &space) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto iters = op.getIteratorTypesArray();
  size_t r = space.rows.size();
  if (ranges.size() < r || ArrayRef<int64_t>(ranges).take_front(r) != ArrayRef(space.rows))
    return std::nullopt;
  for (size_t i = 0; i < r; ++i)
    if (iters[i] != utils::IteratorType::parallel)
      return std::nullopt;
  ArrayRef<int64_t> rest = ArrayRef<int64_t>(ranges).drop_front(r);
  bool allParallel = llvm::all_of(ArrayRef(iters).drop_front(r), [](utils::IteratorType t) {
    return t == utils::IteratorType::parallel;
  });
  bool allReduction = llvm::all_of(ArrayRef(iters).drop_front(r), [](utils::IteratorType t) {
    return t == utils::IteratorType::reduction;
  });
  if (allParallel && llvm::all_of(rest, [](int64_t e) { return e == 1; }))
    return RowKind::PerRow;
  if (rest != ArrayRef(space.inner))
    return std::nullopt;
  if (allParallel)
    return RowKind::Elementwise;
  if (allReduction && !rest.empty()) {
    for (unsigned k = 0; k < op.getNumDpsInits(); ++k)
      if (!combinerOf(op, k))
        return std::nullopt;
    return RowKind::Reduction;
  }
  return std::nullopt;
}

Access accessOf(linalg::GenericOp op, unsigned i, const RowSpace &space) {
  OpOperand &operand = op->getOpOperand(i);
  auto type = dyn_cast<MemRefType>(operand.get().getType());
  if (!type)
    return Access::Scalar;
  if (!isContiguous(type))
    return Access::Other;
  AffineMap map = op.getMatchingIndexingMap(&operand);
  size_t r = space.rows.size();
  // The results, skipping constant-0 results on unit memref dimensions, must be d0, d1, ...
  SmallVector<unsigned> dims;
  for (auto [e, size] : llvm::zip(map.getResults(), type.getShape())) {
    if (auto c = dyn_cast<AffineConstantExpr>(e); c && c.getValue() == 0 && size == 1)
      continue;
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d)
      return Access::Other;
    dims.push_back(d.getPosition());
  }
  for (auto [i, d] : llvm::enumerate(dims))
    if (d != i)
      return Access::Other;
  int64_t numel = type.getNumElements();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // Dimensions past the rows may appear only with extent 1 (a [rows, 1] view of a per-row
  // buffer).
  if (numel == space.numRows() &&
      llvm::all_of(dims, [&](unsigned d) { return d < r || ranges[d] == 1; }))
    return Access::PerRow;
  // Row elements: the op's whole iteration space is rows x inner (an op over [rows, 1] that
  // reads column 0 of a [rows, inner] buffer reads another thread's element).
  SmallVector<int64_t> full(space.rows);
  full.append(space.inner);
  if (numel == space.numRows() * space.numInner() && dims.size() == op.getNumLoops() &&
      ArrayRef<int64_t>(ranges) == ArrayRef<int64_t>(full))
    return Access::RowElement;
  return Access::Other;
}

} // namespace mlir::strata::gpu_kernels
