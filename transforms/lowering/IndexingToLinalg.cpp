// gather => a linalg.generic reading through tensor.extract; scatter/scatter_add => an scf.for of
// slice updates (real and complex elements alike).
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace st = mlir::strata;

namespace mlir::strata::lowering {
namespace {

/// Indices are an integer tensor of rank >= 1 (the index vector is the last dimension).
bool validIndices(Value indices) {
  auto t = tensorOf(indices);
  return t.getRank() >= 1 && isa<IntegerType>(t.getElementType()) &&
         !t.getElementType().isInteger(1);
}

/// indices[batch..., k] widened to i64 (inside a body or loop).
Value loadIndex(OpBuilder &b, Location loc, Value indices, ArrayRef<Value> batch, int64_t k) {
  SmallVector<Value> at(batch);
  at.push_back(indexConst(b, loc, k));
  Value v = tensor::ExtractOp::create(b, loc, indices, at);
  return widenIndex(b, loc, v, elementOf(indices).isUnsignedInteger());
}

/// gather => one linalg.generic over the result with tensor.extract in its body: each result
/// element reads the operand at the start its index vector names (clamped so the slice lies
/// in bounds, as libstrata and XLA do) plus its offset in the slice.
struct GatherToGeneric : OpRewritePattern<st::GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::GatherOp op, PatternRewriter &rewriter) const override {
    auto opType = tensorOf(op.getOperand());
    auto type = tensorOf(op.getResult());
    ArrayRef<int64_t> offsetDims = op.getOffsetDims(), collapsed = op.getCollapsedSliceDims();
    ArrayRef<int64_t> startMap = op.getStartIndexMap(), sizes = op.getSliceSizes();
    int64_t rank = opType.getRank(), outRank = type.getRank();
    if (!hasMovableTypes(op) || !validIndices(op.getIndices()) ||
        static_cast<int64_t>(sizes.size()) != rank ||
        static_cast<int64_t>(startMap.size()) != tensorOf(op.getIndices()).getShape().back() ||
        static_cast<int64_t>(offsetDims.size() + collapsed.size()) != rank)
      return rewriter.notifyMatchFailure(op, "needs static tensors and valid dimension numbers");
    Location loc = op.getLoc();
    Value operand = op.getOperand(), indices = op.getIndices();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{makeInit(rewriter, loc, type)},
        {AffineMap::getMultiDimIdentityMap(outRank, getContext())}, parallelIterators(outRank),
        [&](OpBuilder &b, Location l, ValueRange) {
          // Batch coordinates are the result dims outside offset_dims; the slice offset of
          // operand dim d (not collapsed) is the next result dim in offset_dims.
          SmallVector<Value> batch;
          SmallVector<Value> window;
          for (int64_t i = 0; i < outRank; ++i) {
            Value idx = linalg::IndexOp::create(b, l, i);
            (llvm::is_contained(offsetDims, i) ? window : batch).push_back(idx);
          }
          SmallVector<Value> coords(rank);
          for (int64_t d = 0, w = 0; d < rank; ++d)
            coords[d] = llvm::is_contained(collapsed, d) ? indexConst(b, l, 0) : window[w++];
          for (auto [k, d] : llvm::enumerate(startMap)) {
            Value s = clampI64(b, l, loadIndex(b, l, indices, batch, k), 0,
                               opType.getDimSize(d) - sizes[d]);
            coords[d] = arith::AddIOp::create(b, l, coords[d], toIndex(b, l, s));
          }
          linalg::YieldOp::create(b, l, Value(tensor::ExtractOp::create(b, l, operand, coords)));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// scatter / scatter_add => an scf.for over the index vectors in row-major order (so that the
/// last duplicate wins and sums accumulate in libstrata's order): a window that lies wholly in
/// bounds is inserted (scatter) or added (scatter_add) with tensor.insert_slice; others are
/// dropped.
template <typename OpTy> struct ScatterToLoop : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    constexpr bool isAdd = std::is_same_v<OpTy, st::ScatterAddOp>;
    auto type = tensorOf(op.getOperand());
    auto idxType = tensorOf(op.getIndices());
    auto upType = tensorOf(op.getUpdates());
    ArrayRef<int64_t> windowDims = op.getUpdateWindowDims(), inserted = op.getInsertedWindowDims();
    ArrayRef<int64_t> toOperand = op.getScatterDimsToOperandDims();
    int64_t rank = type.getRank();
    if (!hasMovableTypes(op) || !validIndices(op.getIndices()) ||
        static_cast<int64_t>(toOperand.size()) != idxType.getShape().back() ||
        static_cast<int64_t>(windowDims.size() + inserted.size()) != rank ||
        upType.getRank() != idxType.getRank() - 1 + static_cast<int64_t>(windowDims.size()) ||
        (isAdd && type.getElementType().isInteger(1)))
      return rewriter.notifyMatchFailure(op, "needs static tensors and valid dimension numbers");
    Location loc = op.getLoc();
    // The window in operand coordinates (1 in inserted dims) and its element type.
    SmallVector<int64_t> window(rank, 1), windowShape, batchShape(idxType.getShape().drop_back());
    for (int64_t d = 0, j = 0; d < rank; ++d)
      if (!llvm::is_contained(inserted, d))
        window[d] = upType.getDimSize(windowDims[j++]);
    for (int64_t w : windowDims)
      windowShape.push_back(upType.getDimSize(w));
    int64_t batch = 1;
    for (int64_t s : batchShape)
      batch *= s;
    if (batch == 0 || upType.getNumElements() == 0) {
      rewriter.replaceOp(op, op.getOperand());
      return success();
    }
    auto windowType = RankedTensorType::get(windowShape, type.getElementType());
    Value indices = op.getIndices(), updates = op.getUpdates();
    auto loop = scf::ForOp::create(
        rewriter, loc, indexConst(rewriter, loc, 0), indexConst(rewriter, loc, batch),
        indexConst(rewriter, loc, 1), ValueRange{op.getOperand()},
        [&](OpBuilder &b, Location l, Value g, ValueRange iter) {
          // Row-major batch coordinates of g.
          SmallVector<Value> coords(batchShape.size());
          Value rest = g;
          for (int64_t i = static_cast<int64_t>(batchShape.size()) - 1; i >= 0; --i) {
            Value n = indexConst(b, l, batchShape[i]);
            coords[i] = arith::RemUIOp::create(b, l, rest, n);
            rest = arith::DivUIOp::create(b, l, rest, n);
          }
          Value inBounds = arith::ConstantOp::create(b, l, b.getBoolAttr(true));
          SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
          for (auto [k, d] : llvm::enumerate(toOperand)) {
            Value s = loadIndex(b, l, indices, coords, k);
            Type i64 = b.getI64Type();
            Value ok = arith::AndIOp::create(
                b, l,
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, s,
                                      scalarConst(b, l, i64, 0, 0)),
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::sle, s,
                                      scalarConst(b, l, i64, 0, type.getDimSize(d) - window[d])));
            inBounds = arith::AndIOp::create(b, l, inBounds, ok);
            offsets[d] = toIndex(b, l, clampI64(b, l, s, 0, type.getDimSize(d) - window[d]));
          }
          SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(b.getContext(), window);
          SmallVector<OpFoldResult> ones(rank, b.getIndexAttr(1));
          Value acc = iter[0];
          auto ifOp = scf::IfOp::create(
              b, l, inBounds,
              [&](OpBuilder &tb, Location tl) {
                // updates[coords..., window...], rank-reduced to the window dims.
                SmallVector<OpFoldResult> uOff, uSize;
                for (int64_t i = 0, j = 0; i < upType.getRank(); ++i) {
                  bool isWindow = llvm::is_contained(windowDims, i);
                  uOff.push_back(isWindow ? OpFoldResult(tb.getIndexAttr(0))
                                          : OpFoldResult(coords[j++]));
                  uSize.push_back(tb.getIndexAttr(isWindow ? upType.getDimSize(i) : 1));
                }
                SmallVector<OpFoldResult> uOnes(upType.getRank(), tb.getIndexAttr(1));
                Value win =
                    tensor::ExtractSliceOp::create(tb, tl, windowType, updates, uOff, uSize, uOnes);
                if (isAdd) {
                  Value old =
                      tensor::ExtractSliceOp::create(tb, tl, windowType, acc, offsets, sizes, ones);
                  int64_t wr = windowType.getRank();
                  SmallVector<AffineMap> maps(
                      3, AffineMap::getMultiDimIdentityMap(wr, tb.getContext()));
                  win = makeGeneric(tb, tl, ValueRange{old, win}, ValueRange{old}, maps,
                                    parallelIterators(wr),
                                    [&](OpBuilder &bb, Location bl, ValueRange a) {
                                      return SmallVector<Value>{emitAdd(bb, bl, a[0], a[1])};
                                    })
                            .getResult(0);
                }
                Value next = tensor::InsertSliceOp::create(tb, tl, win, acc, offsets, sizes, ones);
                scf::YieldOp::create(tb, tl, next);
              },
              [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, acc); });
          scf::YieldOp::create(b, l, ifOp.getResults());
        });
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

} // namespace

void populateIndexingToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<GatherToGeneric, ScatterToLoop<st::ScatterOp>, ScatterToLoop<st::ScatterAddOp>>(
      patterns.getContext());
}

} // namespace mlir::strata::lowering
