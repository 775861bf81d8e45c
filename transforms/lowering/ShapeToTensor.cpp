// Shape ops (broadcast, transpose, reshape, slices, pad, concatenate, iota, rev) => linalg and
// tensor ops.
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

using namespace mlir;
namespace st = mlir::strata;

namespace mlir::strata::lowering {
namespace {

/// stop_gradient and checkpoint_name (the Identity trait) are the identity once
/// differentiation is done.
struct IdentityToOperand : OpTraitRewritePattern<st::traits::Identity> {
  using OpTraitRewritePattern::OpTraitRewritePattern;
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (op->getNumOperands() != 1 || op->getNumResults() != 1 ||
        op->getOperand(0).getType() != op->getResult(0).getType())
      return failure();
    rewriter.replaceOp(op, op->getOperand(0));
    return success();
  }
};

/// broadcast_in_dim => linalg.generic reading operand dim i at result dim
/// broadcast_dimensions[i] (or at 0 where a size-1 dim is expanded).
struct BroadcastInDimToGeneric : OpRewritePattern<st::BroadcastInDimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::BroadcastInDimOp op, PatternRewriter &rewriter) const override {
    if (!hasMovableTypes(op))
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/integer elements");
    auto inType = tensorOf(op.getOperand());
    auto outType = tensorOf(op.getResult());
    ArrayRef<int64_t> dims = op.getBroadcastDimensions();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> exprs;
    for (auto [i, d] : llvm::enumerate(dims))
      exprs.push_back(inType.getDimSize(i) == 1 && outType.getDimSize(d) != 1
                          ? getAffineConstantExpr(0, ctx)
                          : getAffineDimExpr(d, ctx));
    int64_t rank = outType.getRank();
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                   AffineMap::getMultiDimIdentityMap(rank, ctx)};
    Location loc = op.getLoc();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{outType}, ValueRange{op.getOperand()},
        ValueRange{makeInit(rewriter, loc, outType)}, maps, parallelIterators(rank),
        [](OpBuilder &b, Location l, ValueRange args) { linalg::YieldOp::create(b, l, args[0]); });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// transpose => linalg.transpose.
struct TransposeToLinalg : OpRewritePattern<st::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::TransposeOp op, PatternRewriter &rewriter) const override {
    if (!hasMovableTypes(op))
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/integer elements");
    Location loc = op.getLoc();
    auto t = linalg::TransposeOp::create(rewriter, loc, op.getOperand(),
                                         makeInit(rewriter, loc, tensorOf(op.getResult())),
                                         op.getPermutation());
    rewriter.replaceOp(op, t.getResult());
    return success();
  }
};

/// reshape => tensor.collapse_shape / tensor.expand_shape when the shapes nest, else
/// tensor.reshape with a constant shape.
struct ReshapeToTensor : OpRewritePattern<st::ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::ReshapeOp op, PatternRewriter &rewriter) const override {
    if (!hasMovableTypes(op))
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/integer elements");
    auto inType = tensorOf(op.getOperand());
    auto outType = tensorOf(op.getResult());
    Location loc = op.getLoc();
    if (inType == outType) {
      rewriter.replaceOp(op, op.getOperand());
      return success();
    }
    if (inType.getRank() > outType.getRank()) {
      if (auto re = getReassociationIndicesForCollapse(inType.getShape(), outType.getShape())) {
        rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, outType, op.getOperand(), *re);
        return success();
      }
    } else if (inType.getRank() < outType.getRank()) {
      if (auto re = getReassociationIndicesForCollapse(outType.getShape(), inType.getShape())) {
        rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, outType, op.getOperand(), *re);
        return success();
      }
    }
    auto shapeType = RankedTensorType::get({outType.getRank()}, rewriter.getI64Type());
    Value shape = arith::ConstantOp::create(
        rewriter, loc, DenseIntElementsAttr::get(shapeType, outType.getShape()));
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, outType, op.getOperand(), shape);
    return success();
  }
};

/// iota => linalg.generic writing linalg.index(dimension), converted to the element type.
struct IotaToGeneric : OpRewritePattern<st::IotaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::IotaOp op, PatternRewriter &rewriter) const override {
    auto type = tensorOf(op.getResult());
    int64_t dim = op.getDimensionAttr().getInt();
    if (!hasLowerableTypes(op) || dim < 0 || dim >= type.getRank() ||
        type.getElementType().isInteger(1))
      return rewriter.notifyMatchFailure(op, "needs a static numeric tensor and a valid dim");
    Location loc = op.getLoc();
    Type elem = type.getElementType();
    auto generic =
        makeGeneric(rewriter, loc, ValueRange{}, ValueRange{makeInit(rewriter, loc, type)},
                    {AffineMap::getMultiDimIdentityMap(type.getRank(), getContext())},
                    parallelIterators(type.getRank()), [&](OpBuilder &b, Location l, ValueRange) {
                      Value i = arith::IndexCastOp::create(b, l, b.getI64Type(),
                                                           linalg::IndexOp::create(b, l, dim));
                      return SmallVector<Value>{
                          emitConvert(b, l, i, false, signlessOf(elem), elem.isUnsignedInteger())};
                    });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// rev => linalg.generic reading (size - 1 - i) in the reversed dimensions.
struct RevToGeneric : OpRewritePattern<st::RevOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::RevOp op, PatternRewriter &rewriter) const override {
    if (!hasMovableTypes(op))
      return rewriter.notifyMatchFailure(op, "needs static tensors of float/integer elements");
    auto type = tensorOf(op.getResult());
    int64_t rank = type.getRank();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d) {
      AffineExpr e = getAffineDimExpr(d, ctx);
      if (llvm::is_contained(op.getDimensions(), d))
        e = getAffineConstantExpr(type.getDimSize(d) - 1, ctx) - e;
      exprs.push_back(e);
    }
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                   AffineMap::getMultiDimIdentityMap(rank, ctx)};
    Location loc = op.getLoc();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{op.getOperand()},
        ValueRange{makeInit(rewriter, loc, type)}, maps, parallelIterators(rank),
        [](OpBuilder &b, Location l, ValueRange args) { linalg::YieldOp::create(b, l, args[0]); });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// slice => tensor.extract_slice with static offsets, sizes and strides.
struct SliceToTensor : OpRewritePattern<st::SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::SliceOp op, PatternRewriter &rewriter) const override {
    auto type = tensorOf(op.getResult());
    int64_t rank = type.getRank();
    SmallVector<int64_t> strides(op.getStrides());
    if (strides.empty())
      strides.assign(rank, 1);
    if (!hasMovableTypes(op) || static_cast<int64_t>(op.getStart().size()) != rank ||
        static_cast<int64_t>(strides.size()) != rank)
      return rewriter.notifyMatchFailure(op, "needs static tensors and one start per dim");
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(op, type, op.getOperand(), ValueRange{},
                                                        ValueRange{}, ValueRange{}, op.getStart(),
                                                        type.getShape(), strides);
    return success();
  }
};

/// pad => a linalg.fill of the padding value, then the kept part of the operand (cropped by
/// negative low/high with tensor.extract_slice) inserted with stride interior + 1.
struct PadToTensor : OpRewritePattern<st::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::PadOp op, PatternRewriter &rewriter) const override {
    auto inType = tensorOf(op.getOperand());
    auto outType = tensorOf(op.getResult());
    int64_t rank = inType.getRank();
    ArrayRef<int64_t> low = op.getLow(), interior = op.getInterior();
    if (!hasMovableTypes(op) || static_cast<int64_t>(low.size()) != rank ||
        static_cast<int64_t>(interior.size()) != rank || tensorOf(op.getPaddingValue()).getRank())
      return rewriter.notifyMatchFailure(op, "needs static tensors and a scalar padding value");
    Location loc = op.getLoc();
    Value pad = tensor::ExtractOp::create(rewriter, loc, op.getPaddingValue(), ValueRange{});
    Value result = makeInit(rewriter, loc, outType, pad);
    // As libstrata's pad_keep: element i lands at low + i * (interior + 1); those landing
    // outside [0, out) are cropped.
    SmallVector<int64_t> first, count, outPos, step;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t d = inType.getDimSize(i), s = interior[i] + 1, out = outType.getDimSize(i);
      int64_t f = low[i] >= 0 ? 0 : (-low[i] + s - 1) / s;
      int64_t end = out - low[i] <= 0 ? 0 : std::min(d, (out - low[i] + s - 1) / s);
      first.push_back(f);
      count.push_back(std::max<int64_t>(0, end - f));
      outPos.push_back(low[i] + f * s);
      step.push_back(s);
    }
    if (llvm::all_of(count, [](int64_t c) { return c > 0; })) {
      Value src = op.getOperand();
      if (ArrayRef<int64_t>(count) != inType.getShape())
        src = tensor::ExtractSliceOp::create(
            rewriter, loc, RankedTensorType::get(count, inType.getElementType()), src, ValueRange{},
            ValueRange{}, ValueRange{}, first, count, SmallVector<int64_t>(rank, 1));
      result = tensor::InsertSliceOp::create(rewriter, loc, src, result, ValueRange{}, ValueRange{},
                                             ValueRange{}, outPos, count, step);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// concatenate => tensor.insert_slice of each input into an empty tensor.
struct ConcatenateToTensor : OpRewritePattern<st::ConcatenateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::ConcatenateOp op, PatternRewriter &rewriter) const override {
    auto type = tensorOf(op.getResult());
    int64_t rank = type.getRank();
    int64_t dim = op.getDimensionAttr().getInt();
    if (!hasMovableTypes(op) || dim < 0 || dim >= rank)
      return rewriter.notifyMatchFailure(op, "needs static tensors and a valid dimension");
    Location loc = op.getLoc();
    Value result = makeInit(rewriter, loc, type);
    int64_t offset = 0;
    for (Value in : op.getInputs()) {
      auto inType = tensorOf(in);
      if (inType.getNumElements() > 0) {
        SmallVector<int64_t> offsets(rank, 0);
        offsets[dim] = offset;
        result = tensor::InsertSliceOp::create(rewriter, loc, in, result, ValueRange{},
                                               ValueRange{}, ValueRange{}, offsets,
                                               inType.getShape(), SmallVector<int64_t>(rank, 1));
      }
      offset += inType.getDimSize(dim);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Start indices (rank-0 integer tensors) clamped, as libstrata's clamped_starts, into
/// [0, dims - sizes]; as index values.
SmallVector<OpFoldResult> clampedStarts(OpBuilder &b, Location loc, ValueRange starts,
                                        ArrayRef<int64_t> dims, ArrayRef<int64_t> sizes) {
  SmallVector<OpFoldResult> out;
  for (auto [i, s] : llvm::enumerate(starts)) {
    Value v = tensor::ExtractOp::create(b, loc, s, ValueRange{});
    v = widenIndex(b, loc, v, elementOf(s).isUnsignedInteger());
    out.push_back(toIndex(b, loc, clampI64(b, loc, v, 0, dims[i] - sizes[i])));
  }
  return out;
}

/// Start indices are integer scalars, one per operand dimension.
bool validStarts(ValueRange starts, int64_t rank) {
  return static_cast<int64_t>(starts.size()) == rank && llvm::all_of(starts, [](Value s) {
           auto t = tensorOf(s);
           return t.getRank() == 0 && isa<IntegerType>(t.getElementType()) &&
                  !t.getElementType().isInteger(1);
         });
}

/// dynamic_slice => tensor.extract_slice at the clamped starts.
struct DynamicSliceToTensor : OpRewritePattern<st::DynamicSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::DynamicSliceOp op, PatternRewriter &rewriter) const override {
    auto inType = tensorOf(op.getOperand());
    auto type = tensorOf(op.getResult());
    if (!hasMovableTypes(op) || !validStarts(op.getStartIndices(), inType.getRank()) ||
        type.getRank() != inType.getRank())
      return rewriter.notifyMatchFailure(op, "needs static tensors and scalar integer starts");
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> offsets =
        clampedStarts(rewriter, loc, op.getStartIndices(), inType.getShape(), type.getShape());
    SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(getContext(), type.getShape());
    SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(op, type, op.getOperand(), offsets, sizes,
                                                        strides);
    return success();
  }
};

/// dynamic_update_slice => tensor.insert_slice at the clamped starts.
struct DynamicUpdateSliceToTensor : OpRewritePattern<st::DynamicUpdateSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(st::DynamicUpdateSliceOp op,
                                PatternRewriter &rewriter) const override {
    auto type = tensorOf(op.getOperand());
    auto upType = tensorOf(op.getUpdate());
    if (!hasMovableTypes(op) || !validStarts(op.getStartIndices(), type.getRank()) ||
        upType.getRank() != type.getRank())
      return rewriter.notifyMatchFailure(op, "needs static tensors and scalar integer starts");
    if (upType.getNumElements() == 0) {
      rewriter.replaceOp(op, op.getOperand());
      return success();
    }
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> offsets =
        clampedStarts(rewriter, loc, op.getStartIndices(), type.getShape(), upType.getShape());
    SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(getContext(), upType.getShape());
    SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(op, op.getUpdate(), op.getOperand(), offsets,
                                                       sizes, strides);
    return success();
  }
};

} // namespace

void populateShapeToTensorPatterns(RewritePatternSet &patterns) {
  patterns.add<IdentityToOperand, BroadcastInDimToGeneric, TransposeToLinalg, ReshapeToTensor,
               IotaToGeneric, RevToGeneric, SliceToTensor, PadToTensor, ConcatenateToTensor,
               DynamicSliceToTensor, DynamicUpdateSliceToTensor>(patterns.getContext());
}

} // namespace mlir::strata::lowering
