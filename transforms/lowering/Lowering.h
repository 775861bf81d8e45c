// The pieces of strata-lower-to-linalg shared by its files (and by strata-sort-scan-to-runtime):
// tensor, linalg and runtime-call builders used by several op families, and the population
// function of each family's patterns.
#pragma once

#include <optional>

#include "transforms/lowering/ScalarSemantics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::strata::lowering {

/// Float, signless integer (incl. i1) or unsigned integer: the element types Strata uses.
bool isLowerableElement(Type t);
/// Every operand and result is a static ranked tensor of a lowerable element type.
bool hasLowerableTypes(Operation *op);
/// hasLowerableTypes, complex elements allowed too: for the ops that only move elements.
bool hasMovableTypes(Operation *op);
/// The element type and the type of a ranked tensor value.
Type elementOf(Value v);
RankedTensorType tensorOf(Value v);

/// The signless type arith works on: uiN -> iN, anything else unchanged.
Type signlessOf(Type t);
/// arith is signless-only: unsigned scalars cross into and out of a body through unrealized
/// casts, which disappear once both sides lower to LLVM's iN.
Value toSignless(OpBuilder &b, Location loc, Value v);
Value fromSignless(OpBuilder &b, Location loc, Value v, Type to);
/// An index constant.
Value indexConst(OpBuilder &b, Location loc, int64_t i);
/// An empty tensor of `type`, filled with `fill` when given.
Value makeInit(OpBuilder &b, Location loc, RankedTensorType type, Value fill = {});

/// Dimension `d` of a rank-`rank` value normalized into [0, rank), or -1 when out of range.
int64_t normalizeDim(int64_t d, int64_t rank);

/// What a strata.sort sorts: the operands' common type, the dimension (in [0, rank)) and the
/// number of keys.
struct SortLines {
  RankedTensorType type;
  int64_t dim, numKeys;
};
/// The lines of a sort of `inputs` along `dimension` by `numKeys` keys; none unless there are
/// operands, all of one shape, the dimension is valid and 1 <= numKeys <= the operands.
std::optional<SortLines> sortLines(ValueRange inputs, int64_t dimension, int64_t numKeys);

/// `func.func private @name(i64 x numArgs)`, the declaration of a runtime function the lowered
/// code calls, made once in `module`.
func::FuncOp declareRuntimeFn(OpBuilder &b, ModuleOp module, StringRef name, unsigned numArgs);

/// Builds what a call of a runtime function on tensors needs, before bufferization: i64
/// constants, buffer addresses, read-only buffers of operand tensors, fresh result buffers and
/// the tensors read back from them after the call.
struct RuntimeCallBuilder {
  OpBuilder &b;
  Location loc;

  Value constant(int64_t c);
  /// The aligned address of `memref` as an i64.
  Value address(Value memref);
  /// libstrata's DType code of `t`'s element type (which must be one).
  Value dtype(RankedTensorType t);
  /// A read-only buffer of `tensor` (bufferization.to_buffer).
  Value input(Value tensor);
  /// A fresh buffer for a result of type `t`.
  Value output(RankedTensorType t);
  /// The tensor of type `tensorType` that `memref` holds once the runtime has filled it.
  Value result(Value memref, Type tensorType);
};

/// Builds a generic's body from signless scalars (inputs, then outputs).
using BodyFn = function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;
/// A linalg.generic whose body builder sees signless scalars (inputs, then outputs) and
/// returns signless results, cast back to the output element types.
linalg::GenericOp makeGeneric(OpBuilder &b, Location loc, ValueRange inputs, ValueRange inits,
                              ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iterators,
                              BodyFn body);
/// `n` parallel iterators.
SmallVector<utils::IteratorType> parallelIterators(int64_t n);
/// `value` (an f32 tensor) rounded elementwise to `type`'s narrower float element type: the
/// last step of an f16/bf16 op that accumulates in f32.
Value truncateTensor(OpBuilder &b, Location loc, Value value, RankedTensorType type);
/// `shape` without dimension `dim`.
SmallVector<int64_t> dropDim(ArrayRef<int64_t> shape, int64_t dim);
/// The map of `nLoops` loops onto the first `rank` of them, loop `dim` replaced by `with`.
AffineMap mapWithDim(MLIRContext *ctx, int64_t nLoops, int64_t rank, int64_t dim, AffineExpr with);
/// The map of `nLoops` loops onto the first `rank` of them, loop `dim` dropped.
AffineMap mapDroppingDim(MLIRContext *ctx, int64_t nLoops, int64_t rank, int64_t dim);
/// An integer scalar (any width, signless or unsigned) widened to i64 as libstrata widens
/// indices: zero-extended when unsigned, sign-extended otherwise.
Value widenIndex(OpBuilder &b, Location loc, Value v, bool isUnsigned);
/// clamp(v, lo, hi) on i64 (lo <= hi).
Value clampI64(OpBuilder &b, Location loc, Value v, int64_t lo, int64_t hi);
/// An i64 scalar as an index.
Value toIndex(OpBuilder &b, Location loc, Value i64);

/// Elementwise ops (one linalg.generic each) and threefry2x32.
void populateElementwiseToLinalgPatterns(RewritePatternSet &patterns);
/// Shape ops: broadcast, transpose, reshape, slices, pad, concatenate, iota, rev, and the
/// identities stop_gradient and checkpoint_name.
void populateShapeToTensorPatterns(RewritePatternSet &patterns);
/// gather, scatter and scatter_add.
void populateIndexingToLinalgPatterns(RewritePatternSet &patterns);
/// reduce_* and argmax/argmin.
void populateReductionsToLinalgPatterns(RewritePatternSet &patterns);
/// Cumulative scans (scf.for along the axis) and sort (counting on short lines, a bitonic
/// network on long ones: no data-dependent loops, as the GPU needs; the CPU pipeline calls the
/// runtime first).
void populateSortScanToLinalgPatterns(RewritePatternSet &patterns);
/// dot_general.
void populateDotToLinalgPatterns(RewritePatternSet &patterns);
/// conv_general_dilated (one linalg.generic; the GPU's path).
void populateConvToLinalgPatterns(RewritePatternSet &patterns);
/// Windowed reductions: reduce_window_{sum,max,min}, select_and_gather_add and
/// select_and_scatter_add.
void populateWindowToLinalgPatterns(RewritePatternSet &patterns);

/// strata.host_callback => calls of the runtime (before bufferization).
LogicalResult lowerHostCallbacks(Operation *root);
/// Each strata.fusion group under `root`, innermost first, fused into as few loop nests as
/// linalg's elementwise fusion allows and inlined into its parent.
LogicalResult lowerFusionGroups(Operation *root);
/// Splat constants read by linalg.generics become scalar constants in their bodies.
void foldSplatInputs(Operation *root);

} // namespace mlir::strata::lowering
