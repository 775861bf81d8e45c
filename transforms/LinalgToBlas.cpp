// strata-linalg-to-blas: float contractions on buffers become calls of the runtime's strided
// gemm (BLIS on the CPU), with the operands' strides read from their memref descriptors.
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATALINALGTOBLAS
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;

namespace {

constexpr StringLiteral kGemmFn = "strata_rt_gemm";

/// The position of loop dimension `dim` among `map`'s results, if it is one of them.
std::optional<unsigned> positionOf(AffineMap map, unsigned dim) {
  for (unsigned i = 0; i < map.getNumResults(); ++i)
    if (auto d = dyn_cast<AffineDimExpr>(map.getResult(i)); d && d.getPosition() == dim)
      return i;
  return std::nullopt;
}

/// The private declaration of the runtime's gemm: 20 i64 arguments (dtype, batch, m, n, k, then
/// pointer, offset, batch/row/column strides of a, b and c).
func::FuncOp declareGemm(ModuleOp module, OpBuilder &b) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(kGemmFn))
    return fn;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  SmallVector<Type> args(20, b.getI64Type());
  auto fn = func::FuncOp::create(b, module.getLoc(), kGemmFn, b.getFunctionType(args, {}));
  fn.setPrivate();
  return fn;
}

struct ContractionToGemm : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op, PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
      return rewriter.notifyMatchFailure(op, "not a two-input contraction on buffers");
    if (!linalg::isaContractionOpInterface(op))
      return rewriter.notifyMatchFailure(op, "not a mul-add contraction");
    FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(op);
    if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 || dims->k.size() != 1 ||
        dims->batch.size() > 1)
      return rewriter.notifyMatchFailure(op, "not one m, n and k dimension (and one batch)");
    Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1], c = op.getDpsInits()[0];
    Type et = cast<MemRefType>(c.getType()).getElementType();
    if (!et.isF32() && !et.isF64())
      return rewriter.notifyMatchFailure(op, "BLAS takes f32 and f64");
    for (Value v : {a, b})
      if (cast<MemRefType>(v.getType()).getElementType() != et)
        return rewriter.notifyMatchFailure(op, "mixed element types");
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    for (AffineMap m : maps)
      if (!m.isProjectedPermutation())
        return rewriter.notifyMatchFailure(op, "an operand is not indexed by loop dimensions");
    unsigned m = dims->m[0], n = dims->n[0], k = dims->k[0];
    std::optional<unsigned> batch =
        dims->batch.empty() ? std::nullopt : std::optional<unsigned>(dims->batch[0]);
    // Each operand must hold exactly its two matrix dimensions (and the batch one, if any).
    auto expect = [&](AffineMap map, unsigned r, unsigned col) {
      return map.getNumResults() == (batch ? 3u : 2u) && positionOf(map, r) &&
             positionOf(map, col) && (!batch || positionOf(map, *batch));
    };
    if (!expect(maps[0], m, k) || !expect(maps[1], k, n) || !expect(maps[2], m, n))
      return rewriter.notifyMatchFailure(op, "an operand has broadcast or extra dimensions");

    Location loc = op.getLoc();
    auto i64 = [&](Value index) {
      return arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), index).getResult();
    };
    SmallVector<Value> args;
    args.push_back(arith::ConstantIntOp::create(rewriter, loc, et.isF32() ? 32 : 64, 64));
    SmallVector<Value> operandArgs;
    Value sizes[4]; // batch, m, n, k as index values
    SmallVector<Value, 3> operands = {a, b, c};
    for (auto [idx, v] : llvm::enumerate(operands)) {
      auto meta = memref::ExtractStridedMetadataOp::create(rewriter, loc, v);
      Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, v);
      AffineMap map = maps[idx];
      auto stride = [&](std::optional<unsigned> dim) -> Value {
        if (!dim)
          return arith::ConstantIntOp::create(rewriter, loc, 0, 64);
        return i64(meta.getStrides()[*positionOf(map, *dim)]);
      };
      auto size = [&](unsigned dim) { return meta.getSizes()[*positionOf(map, dim)]; };
      operandArgs.append({i64(ptr), i64(meta.getOffset()), stride(batch)});
      unsigned row = idx == 1 ? k : m, col = idx == 0 ? k : n;
      operandArgs.append({stride(row), stride(col)});
      if (idx == 2) {
        sizes[1] = size(m);
        sizes[2] = size(n);
        if (batch)
          sizes[0] = size(*batch);
      }
      if (idx == 0)
        sizes[3] = size(k);
    }
    args.push_back(batch ? i64(sizes[0]) : arith::ConstantIntOp::create(rewriter, loc, 1, 64));
    args.append({i64(sizes[1]), i64(sizes[2]), i64(sizes[3])});
    args.append(operandArgs);
    func::FuncOp gemm = declareGemm(op->getParentOfType<ModuleOp>(), rewriter);
    func::CallOp::create(rewriter, loc, gemm, args);
    rewriter.eraseOp(op);
    return success();
  }
};

struct StrataLinalgToBlasPass
    : strata::impl::StrataLinalgToBlasBase<StrataLinalgToBlasPass> {
  void runOnOperation() override {
    if (!isa<ModuleOp>(getOperation())) {
      getOperation()->emitError("strata-linalg-to-blas runs on a module");
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<ContractionToGemm>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
