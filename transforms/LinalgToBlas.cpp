// strata-linalg-to-blas: float and complex contractions on buffers become calls of the
// runtime's strided gemm (BLIS on the CPU, cuBLAS on a GPU), with the operands' strides read from
// their memref descriptors.
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATALINALGTOBLAS
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;

namespace {

/// The position of loop dimension `dim` among `map`'s results, if it is one of them.
std::optional<unsigned> positionOf(AffineMap map, unsigned dim) {
  for (unsigned i = 0; i < map.getNumResults(); ++i)
    if (auto d = dyn_cast<AffineDimExpr>(map.getResult(i)); d && d.getPosition() == dim)
      return i;
  return std::nullopt;
}

/// The private declaration of the runtime's gemm `name`: 21 i64 arguments (element bits or type
/// code, batch, m, n, k, then pointer, offset, batch/row/column strides of a, b and c, then
/// accumulate (1: c += ab, 0: c = ab)).
func::FuncOp declareGemm(ModuleOp module, OpBuilder &b, StringRef name) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  SmallVector<Type> args(21, b.getI64Type());
  auto fn = func::FuncOp::create(b, module.getLoc(), name, b.getFunctionType(args, {}));
  fn.setPrivate();
  return fn;
}

/// Whether `v` is the constant +0.0.
bool isPosZero(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  auto f = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
  return f && f.getValue().isPosZero();
}

/// Whether `op` is a linalg.fill of +0.0 (complex: +0.0 in both parts) into `buffer` (a fresh
/// zero accumulator).
bool isZeroFillOf(Operation *op, Value buffer) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(op);
  if (!fill || fill.getDpsInits()[0] != buffer)
    return false;
  Value v = fill.getInputs()[0];
  if (auto create = v.getDefiningOp<complex::CreateOp>())
    return isPosZero(create.getReal()) && isPosZero(create.getImaginary());
  if (auto cst = v.getDefiningOp<complex::ConstantOp>()) {
    ArrayAttr parts = cst.getValue();
    auto re = dyn_cast<FloatAttr>(parts[0]), im = dyn_cast<FloatAttr>(parts[1]);
    return re && im && re.getValue().isPosZero() && im.getValue().isPosZero();
  }
  return isPosZero(v);
}

/// Whether `v` is block argument `arg`, or (with `widened`) `arith.extf` of it.
bool isArgOrExt(Value v, Value arg, bool widened) {
  if (!widened)
    return v == arg;
  auto ext = v.getDefiningOp<arith::ExtFOp>();
  return ext && ext.getIn() == arg;
}

/// Whether the op's body is exactly `yield(acc + a * b)` on its block arguments (a, b inputs,
/// acc the output), or with `widened`, `yield(acc + extf(a) * extf(b))` (the f16/bf16
/// contractions strata-lower-to-linalg makes, accumulating in f32). isaContractionOpInterface
/// also accepts bodies that transform an input first (`acc + exp(a) * b`), which a gemm call
/// would silently drop.
bool isPlainMulAdd(linalg::LinalgOp op, bool widened) {
  Block *body = op.getBlock();
  if (body->getOperations().size() != (widened ? 5u : 3u))
    return false;
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  Operation *add = yield ? yield.getValues()[0].getDefiningOp() : nullptr;
  // Complex contractions (complex.add of complex.mul) are never widened.
  bool cx = isa_and_nonnull<complex::AddOp>(add) && !widened;
  if (!isa_and_nonnull<arith::AddFOp>(add) && !cx)
    return false;
  Value acc = body->getArgument(2);
  Value lhs = add->getOperand(0), rhs = add->getOperand(1);
  Value prod = lhs == acc ? rhs : rhs == acc ? lhs : Value();
  Operation *mul = prod ? prod.getDefiningOp() : nullptr;
  if (!(cx ? isa_and_nonnull<complex::MulOp>(mul) : isa_and_nonnull<arith::MulFOp>(mul)))
    return false;
  Value a = body->getArgument(0), b = body->getArgument(1);
  Value x = mul->getOperand(0), y = mul->getOperand(1);
  return (isArgOrExt(x, a, widened) && isArgOrExt(y, b, widened)) ||
         (isArgOrExt(x, b, widened) && isArgOrExt(y, a, widened));
}

/// The first argument of the gemm call for operands of `in` and an accumulator of `out`:
/// element bits (32, 64; negated for complex: -64, -128) for the CPU's strata_rt_gemm, or with
/// `typeCodes` the type code of strata_rt_cuda_gemm (0: f32, 1: f64, 2: f16 x f16 -> f32, 3: bf16
/// x bf16 -> f32; complex contractions stay loops there); nullopt when the callee takes no such
/// contraction.
std::optional<int64_t> gemmType(Type in, Type out, bool typeCodes) {
  if (in == out && (out.isF32() || out.isF64()))
    return typeCodes ? (out.isF32() ? 0 : 1) : (out.isF32() ? 32 : 64);
  if (auto ct = dyn_cast<ComplexType>(out); ct && in == out && !typeCodes) {
    if (ct.getElementType().isF32())
      return -64;
    if (ct.getElementType().isF64())
      return -128;
  }
  if (typeCodes && out.isF32() && in.isF16())
    return 2;
  if (typeCodes && out.isF32() && in.isBF16())
    return 3;
  return std::nullopt;
}

struct ContractionToGemm : OpInterfaceRewritePattern<linalg::LinalgOp> {
  ContractionToGemm(MLIRContext *ctx, StringRef callee, bool typeCodes)
      : OpInterfaceRewritePattern(ctx), callee(callee.str()), typeCodes(typeCodes) {}

  std::string callee;
  bool typeCodes;

  LogicalResult matchAndRewrite(linalg::LinalgOp op, PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
      return rewriter.notifyMatchFailure(op, "not a two-input contraction on buffers");
    if (!linalg::isaContractionOpInterface(op))
      return rewriter.notifyMatchFailure(op, "not a contraction");
    Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1], c = op.getDpsInits()[0];
    Type et = cast<MemRefType>(c.getType()).getElementType();
    Type inType = cast<MemRefType>(a.getType()).getElementType();
    if (cast<MemRefType>(b.getType()).getElementType() != inType)
      return rewriter.notifyMatchFailure(op, "mixed input element types");
    std::optional<int64_t> type = gemmType(inType, et, typeCodes);
    if (!type)
      return rewriter.notifyMatchFailure(op, "the gemm takes f32, f64, c64 and c128 (and with "
                                             "type codes f16/bf16 inputs with an f32 "
                                             "accumulator)");
    if (!isPlainMulAdd(op, inType != et))
      return rewriter.notifyMatchFailure(op, "not a plain mul-add contraction");
    FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(op);
    if (failed(dims))
      return rewriter.notifyMatchFailure(op, "no contraction dimensions");
    // Loop dimensions of extent 1 carry no data (vmap makes them: [b, 1, k] x [k, n]); the
    // others must be at most one of each kind.
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    auto real = [&](ArrayRef<unsigned> ds) {
      SmallVector<unsigned> out;
      for (unsigned d : ds)
        if (ranges[d] != 1)
          out.push_back(d);
      return out;
    };
    SmallVector<unsigned> ms = real(dims->m), ns = real(dims->n), ks = real(dims->k),
                          bs = real(dims->batch);
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(op, "dynamic loop ranges");
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    for (AffineMap m : maps)
      if (!m.isProjectedPermutation())
        return rewriter.notifyMatchFailure(op, "an operand is not indexed by loop dimensions");
    // A batch of dot products (sum over the row of a * b) is a row reduction, which the loop
    // lowering vectorizes; as a gemm it is one call of a 1x1 product per row.
    if (ms.empty() && ns.empty() && !bs.empty())
      return rewriter.notifyMatchFailure(op, "a batch of dot products");
    // Each operand holds its own kinds of dimension (a: m, k, batch; b: k, n, batch; c: m, n,
    // batch), all of them, and otherwise only unit ones.
    auto holdsExactly = [&](AffineMap map, std::initializer_list<ArrayRef<unsigned>> kinds) {
      auto allowed = [&](unsigned d) {
        return llvm::any_of(kinds, [&](ArrayRef<unsigned> k) { return llvm::is_contained(k, d); });
      };
      for (AffineExpr e : map.getResults()) {
        unsigned d = cast<AffineDimExpr>(e).getPosition();
        if (ranges[d] != 1 && !allowed(d))
          return false;
      }
      return llvm::all_of(kinds, [&](ArrayRef<unsigned> k) {
        return llvm::all_of(k, [&](unsigned d) { return positionOf(map, d).has_value(); });
      });
    };
    if (!holdsExactly(maps[0], {ms, ks, bs}) || !holdsExactly(maps[1], {ks, ns, bs}) ||
        !holdsExactly(maps[2], {ms, ns, bs}))
      return rewriter.notifyMatchFailure(op, "an operand has broadcast or extra dimensions");
    using Dim = std::optional<unsigned>;
    // One dimension of each kind goes to the gemm: for m, n and k the last (innermost in the
    // operands dot_general's lowering makes), for the batch the longest (the runtime spreads
    // a batch of small products over its threads). The others become loops around the call,
    // each moving the offsets of the operands that hold it.
    auto last = [](ArrayRef<unsigned> v) { return v.empty() ? Dim() : Dim(v.back()); };
    Dim m = last(ms), n = last(ns), k = last(ks), batch;
    for (unsigned d : bs)
      if (!batch || ranges[d] > ranges[*batch])
        batch = d;
    SmallVector<unsigned> loops;
    for (ArrayRef<unsigned> kind : {ArrayRef<unsigned>(bs), ArrayRef<unsigned>(ms),
                                    ArrayRef<unsigned>(ns), ArrayRef<unsigned>(ks)})
      for (unsigned d : kind)
        if (Dim(d) != m && Dim(d) != n && Dim(d) != k && Dim(d) != batch)
          loops.push_back(d);
    llvm::sort(loops);
    bool loopsOverK = ks.size() > 1;

    Location loc = op.getLoc();
    auto i64 = [&](Value index) {
      return arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), index).getResult();
    };
    auto constant = [&](int64_t v) {
      return arith::ConstantIntOp::create(rewriter, loc, v, 64).getResult();
    };
    // c starts as zeros (dot_general's lowering fills it just before): BLAS overwrites it
    // instead (beta = 0), one pass over the result fewer. Not when loops over k call the gemm
    // several times on one c: those accumulate into the fill.
    Operation *prev = op->getPrevNode();
    bool overwrite = isZeroFillOf(prev, c) && !loopsOverK;
    SmallVector<Value, 3> operands = {a, b, c};
    SmallVector<Value, 3> ptrs, offsets;
    SmallVector<SmallVector<Value, 3>, 3> matrixArgs; // batch, row and column strides
    SmallVector<memref::ExtractStridedMetadataOp, 3> metas;
    for (auto [idx, v] : llvm::enumerate(operands)) {
      auto meta = memref::ExtractStridedMetadataOp::create(rewriter, loc, v);
      metas.push_back(meta);
      Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, v);
      AffineMap map = maps[idx];
      auto stride = [&](Dim dim) -> Value {
        return i64(meta.getStrides()[*positionOf(map, *dim)]);
      };
      Dim row = idx == 1 ? k : m, col = idx == 0 ? k : n;
      // A missing (extent 1) dimension gets the stride it would have in a packed matrix, which
      // BLIS accepts; its index is always 0.
      Value rs, cs;
      if (row && col) {
        rs = stride(row), cs = stride(col);
      } else if (row) {
        rs = stride(row);
        cs = arith::MulIOp::create(rewriter, loc, rs, constant(ranges[*row]));
      } else if (col) {
        cs = stride(col);
        rs = arith::MulIOp::create(rewriter, loc, cs, constant(ranges[*col]));
      } else {
        rs = cs = constant(1);
      }
      ptrs.push_back(i64(ptr));
      offsets.push_back(i64(meta.getOffset()));
      matrixArgs.push_back({batch ? stride(batch) : constant(0), rs, cs});
    }
    OpBuilder::InsertionGuard guard(rewriter);
    for (unsigned d : loops) {
      // Strides are read before the loop; each iteration only adds them to the offsets.
      SmallVector<Value, 3> steps;
      for (auto [idx, meta] : llvm::enumerate(metas)) {
        std::optional<unsigned> pos = positionOf(maps[idx], d);
        steps.push_back(pos ? i64(meta.getStrides()[*pos]) : Value());
      }
      Value lo = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value hi = arith::ConstantIndexOp::create(rewriter, loc, ranges[d]);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      auto loop = scf::ForOp::create(rewriter, loc, lo, hi, one);
      rewriter.setInsertionPointToStart(loop.getBody());
      Value iv = i64(loop.getInductionVar());
      for (auto [offset, step] : llvm::zip(offsets, steps))
        if (step)
          offset = arith::AddIOp::create(rewriter, loc, offset,
                                         arith::MulIOp::create(rewriter, loc, iv, step));
    }
    SmallVector<Value> args;
    args.push_back(constant(*type));
    auto extent = [&](Dim d) { return constant(d ? ranges[*d] : 1); };
    args.append({extent(batch), extent(m), extent(n), extent(k)});
    for (size_t idx = 0; idx < operands.size(); ++idx) {
      args.append({ptrs[idx], offsets[idx]});
      args.append(matrixArgs[idx].begin(), matrixArgs[idx].end());
    }
    args.push_back(constant(overwrite ? 0 : 1));
    func::FuncOp gemm = declareGemm(op->getParentOfType<ModuleOp>(), rewriter, callee);
    func::CallOp::create(rewriter, loc, gemm, args);
    if (overwrite)
      rewriter.eraseOp(prev);
    rewriter.eraseOp(op);
    return success();
  }
};

struct StrataLinalgToBlasPass : strata::impl::StrataLinalgToBlasBase<StrataLinalgToBlasPass> {
  using StrataLinalgToBlasBase::StrataLinalgToBlasBase;

  void runOnOperation() override {
    if (!isa<ModuleOp>(getOperation())) {
      getOperation()->emitError("strata-linalg-to-blas runs on a module");
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<ContractionToGemm>(&getContext(), callee, typeCodes);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
