// strata-interchange-elementwise-loops: a counted loop of elementwise updates becomes one
// elementwise linalg.generic whose body runs the loop on scalars.
#include "transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATAINTERCHANGEELEMENTWISELOOPS
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;

namespace {

/// What a tensor value of the loop body is, seen from one element of the carries' shape.
enum class Kind {
  /// One scalar per element, computed in the body (a carry, a generic's or a copy's result).
  Element,
  /// One scalar per step, the same for every element: a 0-d value computed in the body from
  /// the step (a fori_loop's index times a constant). The new body computes it per element.
  Step,
  /// A `tensor.empty`: a destination whose contents nobody reads.
  Empty,
  /// A slice of a loop-invariant tensor at offsets that vary per step only (a scan's xs):
  /// read with `tensor.extract` at the step's offsets and the element's indices.
  Slice,
};

/// The interchange of one scf.for: analysis first (nothing changes when it fails), then the
/// rewrite.
class Interchange {
public:
  explicit Interchange(scf::ForOp loop) : loop(loop) {}

  /// Whether the loop is a counted loop of elementwise updates of carries of one shape (the
  /// conditions in the pass description); records the loop-invariant reads on the way.
  bool analyze();
  /// Replaces the loop by one linalg.generic over the carries' shape running it per element.
  void rewrite(OpBuilder &b);

private:
  bool isInvariant(Value v) const { return loop.isDefinedOutsideOfLoop(v); }
  std::optional<Kind> kindOf(Value v) const {
    auto it = kinds.find(v);
    return it == kinds.end() ? std::nullopt : std::optional<Kind>(it->second);
  }
  /// Records a read of loop-invariant `v` through `map` (an input of the new generic).
  void addRead(Value v, AffineMap map) {
    reads.insert({{v, map}, static_cast<unsigned>(reads.size())});
  }
  /// Whether the ops of `op`'s payload read, from outside it, only loop-invariant values, the
  /// induction variable and the body's scalars, and use linalg.index only at the top.
  bool capturesOnlyScalars(linalg::GenericOp op) const;
  bool analyzeGeneric(linalg::GenericOp op);
  /// The map through which the new generic reads `operand` of `op` when it is loop-invariant:
  /// its own, or none of the element's dims for a generic over 0-d per-step values.
  AffineMap readMap(linalg::GenericOp op, OpOperand &operand) const {
    if (op.getNumLoops() == shape.getRank())
      return op.getMatchingIndexingMap(&operand);
    return AffineMap::get(shape.getRank(), 0, op.getContext());
  }
  bool analyzeSlice(tensor::ExtractSliceOp op);

  /// The element's index along dimension `d`: one linalg.index at the top of the new generic's
  /// body, outside the step loop (the GPU kernels map only those of a generic's own block).
  Value indexOf(int64_t d, Location loc) {
    if (!indices[d]) {
      // Not OpBuilder::atBlockBegin: the generic is still being built, so its block has no
      // parent op to take the context from.
      OpBuilder b(loc.getContext());
      b.setInsertionPointToStart(outerBody);
      indices[d] = linalg::IndexOp::create(b, loc, d);
    }
    return indices[d];
  }
  /// The scalar of `v` read at the element through `map` (identity for Element values).
  Value scalarOf(OpBuilder &b, Location loc, Value v, AffineMap map);

  // Op handles' accessors are not const.
  mutable scf::ForOp loop;
  RankedTensorType shape;
  llvm::DenseMap<Value, Kind> kinds;
  /// Loop-invariant tensors read per element, with the map of the read: the new generic's
  /// inputs after the carries' inits, in this order.
  llvm::MapVector<std::pair<Value, AffineMap>, unsigned> reads;

  // While rewriting: the block of the new generic, its linalg.index per dimension, the
  // scalars of the body's Element values and of its scalar ops.
  Block *outerBody = nullptr;
  SmallVector<Value> indices;
  llvm::DenseMap<Value, Value> scalars;
  IRMapping mapping;
};

/// An op the interchanged loop computes as it is, once per element and step: no tensors, no
/// regions, no side effects (index arithmetic for a reversed scan's slice, constants).
bool isScalarOp(Operation &op) {
  auto scalar = [](Type t) { return !isa<ShapedType>(t); };
  return op.getNumRegions() == 0 && isMemoryEffectFree(&op) &&
         llvm::all_of(op.getOperandTypes(), scalar) && llvm::all_of(op.getResultTypes(), scalar);
}

bool Interchange::capturesOnlyScalars(linalg::GenericOp op) const {
  Region &payload = op.getRegion();
  return !payload
              .walk([&](Operation *inner) {
                if ((isa<linalg::IndexOp>(inner) && inner->getParentRegion() != &payload) ||
                    !isMemoryEffectFree(inner))
                  return WalkResult::interrupt();
                for (Value v : inner->getOperands()) {
                  if (payload.isAncestor(v.getParentRegion()) || isInvariant(v) ||
                      v == loop.getInductionVar())
                    continue;
                  // Defined in the loop body: only a scalar op's result, which the new body
                  // computes too (a tensor would be one per step, not per element).
                  Operation *def = v.getDefiningOp();
                  if (!def || def->getBlock() != loop.getBody() || !isScalarOp(*def))
                    return WalkResult::interrupt();
                }
                return WalkResult::advance();
              })
              .wasInterrupted();
}

bool Interchange::analyzeSlice(tensor::ExtractSliceOp op) {
  // Dropped unit dims at any offsets (the step), the kept dims whole: element e of the slice
  // is source[offsets with the kept dims replaced by e's indices].
  RankedTensorType source = op.getSourceType();
  if (!isInvariant(op.getSource()) || !source.hasStaticShape() || !op.hasUnitStride())
    return false;
  llvm::SmallBitVector dropped = op.getDroppedDims();
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < source.getRank(); ++d) {
    std::optional<int64_t> size = getConstantIntValue(op.getMixedSizes()[d]);
    if (dropped.test(d))
      continue;
    std::optional<int64_t> offset = getConstantIntValue(op.getMixedOffsets()[d]);
    if (!offset || *offset != 0 || !size || *size != source.getDimSize(d))
      return false;
    kept.push_back(*size);
  }
  if (ArrayRef<int64_t>(kept) != op.getResultType().getShape())
    return false;
  kinds[op.getResult()] = Kind::Slice;
  return true;
}

bool Interchange::analyzeGeneric(linalg::GenericOp op) {
  // Over the carries' shape, or over 0-d values of the step.
  bool step = op.getNumLoops() == 0 && shape.getRank() != 0;
  if (op.getNumParallelLoops() != op.getNumLoops() ||
      (op.getNumLoops() != shape.getRank() && !step) || !capturesOnlyScalars(op))
    return false;
  AffineMap id = AffineMap::getMultiDimIdentityMap(op.getNumLoops(), op.getContext());
  ArrayRef<int64_t> resultShape = step ? ArrayRef<int64_t>() : shape.getShape();
  for (OpOperand &init : op.getDpsInitsMutable()) {
    auto type = dyn_cast<RankedTensorType>(init.get().getType());
    if (!type || type.getShape() != resultShape || op.getMatchingIndexingMap(&init) != id)
      return false;
    if (!op.payloadUsesValueFromOperand(&init))
      continue;
    // A destination the body reads: the value there before, at the same element.
    if (isInvariant(init.get()))
      addRead(init.get(), readMap(op, init));
    else if (kindOf(init.get()) != Kind::Element && kindOf(init.get()) != Kind::Step)
      return false;
  }
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    if (isInvariant(in->get())) {
      if (op.payloadUsesValueFromOperand(in))
        addRead(in->get(), readMap(op, *in));
      continue;
    }
    std::optional<Kind> kind = kindOf(in->get());
    // Another element of a value of this step (a shifted slice of a carry) would need the
    // other elements' trajectories.
    if (kind == Kind::Element && map != id)
      return false;
    if (kind == Kind::Slice && !map.isProjectedPermutation())
      return false;
    if (!kind || kind == Kind::Empty)
      return false;
  }
  for (Value r : op.getResults())
    kinds[r] = step ? Kind::Step : Kind::Element;
  return true;
}

bool Interchange::analyze() {
  if (loop.getNumRegionIterArgs() == 0)
    return false;
  for (Type t : loop.getResultTypes()) {
    auto type = dyn_cast<RankedTensorType>(t);
    if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrIndexOrFloat())
      return false;
    if (!shape)
      shape = type;
    else if (type.getShape() != shape.getShape())
      return false;
  }
  for (Value arg : loop.getRegionIterArgs())
    kinds[arg] = Kind::Element;
  AffineMap id = AffineMap::getMultiDimIdentityMap(shape.getRank(), loop.getContext());
  // Element or loop-invariant values of the carries' shape, read at the element.
  auto elementOrInvariant = [&](Value v) {
    if (isInvariant(v)) {
      if (auto type = dyn_cast<RankedTensorType>(v.getType());
          !type || type.getShape() != shape.getShape())
        return false;
      addRead(v, id);
      return true;
    }
    return kindOf(v) == Kind::Element;
  };
  for (Operation &op : loop.getBody()->getOperations()) {
    bool ok =
        TypeSwitch<Operation *, bool>(&op)
            .Case([&](linalg::GenericOp g) { return analyzeGeneric(g); })
            .Case([&](linalg::CopyOp copy) {
              // The in-place write of a next carry: the value itself at every element.
              Value init = copy.getOutputs()[0];
              if (!elementOrInvariant(copy.getInputs()[0]) || (!kindOf(init) && !isInvariant(init)))
                return false;
              kinds[copy.getResult(0)] = Kind::Element;
              return true;
            })
            .Case([&](tensor::EmptyOp empty) {
              kinds[empty.getResult()] = Kind::Empty;
              return empty.getType().getShape() == shape.getShape() ||
                     empty.getType().getRank() == 0;
            })
            .Case([&](tensor::ExtractSliceOp slice) { return analyzeSlice(slice); })
            .Case([&](tensor::ExtractOp extract) { return isInvariant(extract.getTensor()); })
            .Case([&](scf::YieldOp yield) {
              return llvm::all_of(yield.getOperands(), elementOrInvariant);
            })
            .Default([&](Operation *other) { return isScalarOp(*other); });
    if (!ok)
      return false;
  }
  return true;
}

Value Interchange::scalarOf(OpBuilder &b, Location loc, Value v, AffineMap map) {
  if (isInvariant(v))
    return outerBody->getArgument(loop.getNumRegionIterArgs() + reads.lookup({v, map}));
  if (kindOf(v) == Kind::Element || kindOf(v) == Kind::Step)
    return scalars.lookup(v);
  // A slice: the step's offsets in the dropped dims, the element's indices (through `map`)
  // in the kept ones.
  auto slice = v.getDefiningOp<tensor::ExtractSliceOp>();
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  SmallVector<Value> at;
  unsigned kept = 0;
  for (auto [d, offset] : llvm::enumerate(slice.getMixedOffsets())) {
    if (!dropped.test(d)) {
      at.push_back(indexOf(map.getDimPosition(kept++), loc));
      continue;
    }
    if (auto value = dyn_cast<Value>(offset))
      at.push_back(mapping.lookupOrDefault(value));
    else
      at.push_back(arith::ConstantIndexOp::create(b, loc, *getConstantIntValue(offset)));
  }
  return tensor::ExtractOp::create(b, loc, slice.getSource(), at);
}

void Interchange::rewrite(OpBuilder &b) {
  Location loc = loop.getLoc();
  MLIRContext *ctx = loop.getContext();
  int64_t rank = shape.getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  indices.assign(rank, Value());
  b.setInsertionPoint(loop);
  SmallVector<Value> inputs(loop.getInitArgs()), inits;
  SmallVector<AffineMap> maps(inputs.size(), id);
  for (const auto &[read, index] : reads) {
    inputs.push_back(read.first);
    maps.push_back(read.second);
  }
  for (Type t : loop.getResultTypes()) {
    inits.push_back(
        tensor::EmptyOp::create(b, loc, shape.getShape(), cast<ShapedType>(t).getElementType()));
    maps.push_back(id);
  }
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  auto outer = linalg::GenericOp::create(
      b, loc, loop.getResultTypes(), inputs, inits, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        outerBody = nb.getInsertionBlock();
        auto inner = scf::ForOp::create(
            nb, l, loop.getLowerBound(), loop.getUpperBound(), loop.getStep(),
            args.take_front(loop.getNumRegionIterArgs()),
            [&](OpBuilder &ib, Location il, Value iv, ValueRange iterArgs) {
              mapping.map(loop.getInductionVar(), iv);
              for (auto [arg, s] : llvm::zip(loop.getRegionIterArgs(), iterArgs))
                scalars[arg] = s;
              for (Operation &op : loop.getBody()->getOperations()) {
                if (auto g = dyn_cast<linalg::GenericOp>(op)) {
                  Block *payload = g.getBlock();
                  for (OpOperand &operand : g->getOpOperands()) {
                    BlockArgument arg = payload->getArgument(operand.getOperandNumber());
                    if (!arg.use_empty())
                      mapping.map(arg, scalarOf(ib, il, operand.get(), readMap(g, operand)));
                  }
                  for (Operation &inner : payload->without_terminator()) {
                    if (auto index = dyn_cast<linalg::IndexOp>(inner))
                      mapping.map(index.getResult(), indexOf(index.getDim(), il));
                    else
                      ib.clone(inner, mapping);
                  }
                  for (auto [r, y] :
                       llvm::zip(g.getResults(), payload->getTerminator()->getOperands()))
                    scalars[r] = mapping.lookupOrDefault(y);
                } else if (auto copy = dyn_cast<linalg::CopyOp>(op)) {
                  scalars[copy.getResult(0)] = scalarOf(ib, il, copy.getInputs()[0], id);
                } else if (auto yield = dyn_cast<scf::YieldOp>(op)) {
                  SmallVector<Value> next;
                  for (Value v : yield.getOperands())
                    next.push_back(scalarOf(ib, il, v, id));
                  scf::YieldOp::create(ib, il, next);
                } else if (!isa<tensor::EmptyOp, tensor::ExtractSliceOp>(op)) {
                  ib.clone(op, mapping); // scalar ops and reads of invariant tensors
                }
              }
            });
        linalg::YieldOp::create(nb, l, inner.getResults());
      });
  loop.replaceAllUsesWith(outer.getResults());
  loop.erase();
}

struct InterchangeElementwiseLoopsPass
    : strata::impl::StrataInterchangeElementwiseLoopsBase<InterchangeElementwiseLoopsPass> {
  void runOnOperation() override {
    // Innermost first: an interchanged inner loop is an elementwise generic, which may make
    // its enclosing loop interchangeable in turn.
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    OpBuilder b(&getContext());
    for (scf::ForOp loop : loops) {
      Interchange interchange(loop);
      if (interchange.analyze())
        interchange.rewrite(b);
    }
  }
};

} // namespace
