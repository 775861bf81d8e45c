// `strata-gpu-kernels`: linalg ops on buffers -> GPU kernels shaped for their access pattern.
#include "transforms/LaunchConfig.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATAGPUKERNELS
#include "transforms/Passes.h.inc"

namespace {

namespace lc = ::strata::gpu;

//===----------------------------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------------------------===//

/// The buffer a view (expand/collapse_shape, subview, cast) is a view of; the value itself when
/// it is no view.
Value rootOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// Element size in bytes of a memref operand that a kernel may access with vectors; 0 for
/// other element types (i1 is stored as bytes but not vectorized, index has no fixed size).
int64_t vectorElementBytes(Type t) {
  if (!t.isIntOrFloat() || isa<IndexType>(t))
    return 0;
  unsigned bits = t.getIntOrFloatBitWidth();
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
    return 0;
  return bits / 8;
}

/// Whether memref `type` is row-major contiguous with offset 0 (its linear element index is the
/// row-major linearization of its indices).
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

/// Whether an access of `type` through `map` may load `width` consecutive elements along loop
/// dimension `inner` as one aligned vector: the map's last result is that dimension, no other
/// result uses it, the last memref dimension has unit stride and every other stride and the
/// offset are multiples of `width` (with an innermost index that is a multiple of `width`, the
/// vector then starts at a multiple of width * element size bytes from the buffer's base, which
/// the runtime and memref.alloc align to at least 16 bytes).
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

/// The body op combining output `k`'s block argument with a value of the inputs (`acc + f(in)`),
/// for a reduction whose combiner is associative and commutative with a neutral element
/// (arith add, mul, min, max, and, or, xor); null when the body is not of that form (argmax
/// compares and selects: it stays a loop nest).
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

/// How an op of a row group reaches one of its operands.
enum class Access {
  Scalar,     ///< not a buffer (linalg.fill's value)
  RowElement, ///< element (row, column) of a row-major buffer of rows x columns
  PerRow,     ///< element `row` of a row-major buffer of one value per row
  Other,      ///< anything else (a broadcast weight, a transposed read): read-only
};

/// The iteration space of a row group: `rows` leading parallel dimensions, then `inner`.
struct RowSpace {
  SmallVector<int64_t> rows, inner;
  int64_t numRows() const {
    int64_t n = 1;
    for (int64_t r : rows)
      n *= r;
    return n;
  }
  int64_t numInner() const {
    int64_t n = 1;
    for (int64_t r : inner)
      n *= r;
    return n;
  }
};

/// What an op of a row group does per row.
enum class RowKind {
  Elementwise, ///< all parallel over rows x inner
  Reduction,   ///< parallel rows, reduction over all of inner, one result per row
  PerRow,      ///< parallel over rows (and unit dimensions): one value per row
};

/// Classifies `op` in `space`, or nullopt when it does not fit.
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

/// How `op` (of kind `kind` in `space`) accesses operand `i`.
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

//===----------------------------------------------------------------------------------------===//
// Code generation inside a gpu.launch
//===----------------------------------------------------------------------------------------===//

/// Builds the body of one kernel: index arithmetic, loads and stores of lanes, the cloned
/// linalg body, warp and block reductions.
struct KernelBuilder {
  OpBuilder &b;
  Location loc;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// Row-major indices of `linear` in `extents` (unit dimensions get constant 0).
  SmallVector<Value> delinearize(Value linear, ArrayRef<int64_t> extents) {
    SmallVector<Value> out(extents.size());
    Value rest = linear;
    for (int64_t i = static_cast<int64_t>(extents.size()) - 1; i >= 0; --i) {
      if (extents[i] == 1) {
        out[i] = idx(0);
        continue;
      }
      bool first = llvm::all_of(extents.take_front(i), [](int64_t e) { return e == 1; });
      if (first) {
        out[i] = rest;
        break;
      }
      out[i] = arith::RemUIOp::create(b, loc, rest, idx(extents[i]));
      rest = arith::DivUIOp::create(b, loc, rest, idx(extents[i]));
    }
    for (Value &v : out)
      if (!v)
        v = idx(0);
    return out;
  }

  /// The memref indices `map` gives for loop indices `loops`.
  SmallVector<Value> applyMap(AffineMap map, ValueRange loops) {
    SmallVector<Value> out;
    for (AffineExpr e : map.getResults()) {
      if (auto d = dyn_cast<AffineDimExpr>(e))
        out.push_back(loops[d.getPosition()]);
      else if (auto c = dyn_cast<AffineConstantExpr>(e))
        out.push_back(idx(c.getValue()));
      else
        out.push_back(affine::AffineApplyOp::create(
            b, loc, AffineMap::get(map.getNumDims(), map.getNumSymbols(), e), loops));
    }
    return out;
  }

  /// Loop indices of lane `lane`: `loops` with `inner` advanced by `lane`.
  SmallVector<Value> laneIndices(ArrayRef<Value> loops, unsigned inner, int64_t lane) {
    SmallVector<Value> out(loops);
    if (lane != 0)
      out[inner] = arith::AddIOp::create(b, loc, loops[inner], idx(lane));
    return out;
  }

  /// The `width` lane values of operand `v` (accessed through `map`) at loop indices `loops`
  /// (lane l at loops[inner] + l): one vector load when the access allows it, one load when
  /// the operand does not depend on `inner`, otherwise one load per lane.
  SmallVector<Value> load(Value v, AffineMap map, ArrayRef<Value> loops, unsigned inner,
                          int64_t width) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type)
      return SmallVector<Value>(width, v);
    if (width == 1 || map.getNumResults() == 0 || !map.isFunctionOfDim(inner)) {
      Value x = memref::LoadOp::create(b, loc, v, applyMap(map, loops));
      return SmallVector<Value>(width, x);
    }
    if (isVectorizable(type, map, inner, width)) {
      auto vt = VectorType::get({width}, type.getElementType());
      int64_t bytes = width * vectorElementBytes(type.getElementType());
      Value vec = vector::LoadOp::create(b, loc, vt, v, applyMap(map, loops), false,
                                         llvm::MaybeAlign(bytes));
      SmallVector<Value> out;
      for (int64_t l = 0; l < width; ++l)
        out.push_back(vector::ExtractOp::create(b, loc, vec, l));
      return out;
    }
    SmallVector<Value> out;
    for (int64_t l = 0; l < width; ++l)
      out.push_back(memref::LoadOp::create(b, loc, v, applyMap(map, laneIndices(loops, inner, l))));
    return out;
  }

  /// Stores `lanes` into `v` like `load` reads them.
  void store(ArrayRef<Value> lanes, Value v, AffineMap map, ArrayRef<Value> loops, unsigned inner) {
    auto type = cast<MemRefType>(v.getType());
    int64_t width = lanes.size();
    if (width > 1 && isVectorizable(type, map, inner, width)) {
      auto vt = VectorType::get({width}, type.getElementType());
      Value vec = vector::FromElementsOp::create(b, loc, vt, lanes);
      int64_t bytes = width * vectorElementBytes(type.getElementType());
      vector::StoreOp::create(b, loc, vec, v, applyMap(map, loops), false, llvm::MaybeAlign(bytes));
      return;
    }
    if (width > 1 && map.getNumResults() != 0 && !map.isFunctionOfDim(inner)) {
      // Every lane writes the same element: the last lane's value, as a loop would leave it.
      memref::StoreOp::create(b, loc, lanes.back(), v, applyMap(map, loops));
      return;
    }
    for (int64_t l = 0; l < width; ++l)
      memref::StoreOp::create(
          b, loc, lanes[l], v,
          applyMap(map, width == 1 ? SmallVector<Value>(loops) : laneIndices(loops, inner, l)));
  }

  /// Clones `op`'s body for one element: block arguments from `args` (null for unused
  /// outputs), linalg.index from `loops`; ops in `skip` (reduction combiners) are left out.
  /// Returns the mapping, from which the yielded values are read.
  IRMapping cloneBody(linalg::GenericOp op, ArrayRef<Value> args, ArrayRef<Value> loops,
                      ArrayRef<Operation *> skip) {
    IRMapping map;
    Block *body = op.getBlock();
    for (auto [arg, v] : llvm::zip(body->getArguments(), args))
      if (v)
        map.map(arg, v);
    for (Operation &inner : body->without_terminator()) {
      if (llvm::is_contained(skip, &inner))
        continue;
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        map.map(index.getResult(), loops[index.getDim()]);
        continue;
      }
      b.clone(inner, map);
    }
    return map;
  }

  /// The thread's index in the whole grid of 1-D blocks of `threads` threads.
  Value globalId(gpu::LaunchOp launch, int64_t threads) {
    Value bid = launch.getBlockIds().x;
    return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, bid, idx(threads)),
                                 launch.getThreadIds().x);
  }

  /// The grid-stride loop of a kernel of `gridThreads` threads: from the thread's global id
  /// `first` (globalId) to `count`, with loop-carried `init`.
  scf::ForOp gridStrideLoop(Value first, int64_t count, int64_t gridThreads, ValueRange init = {}) {
    return scf::ForOp::create(b, loc, first, idx(count), idx(gridThreads), init);
  }

  /// The loop over the rows of a row kernel launched with `l`: each block holds
  /// `l.rowsPerBlock` teams of `l.threadsPerRow` threads, a team takes one row per iteration
  /// (grid-stride over rows). Returns the thread's lane in its team and the loop.
  std::pair<Value, scf::ForOp> rowLoop(gpu::LaunchOp launch, const lc::RowLaunch &l,
                                       int64_t numRows) {
    Value tid = launch.getThreadIds().x, bid = launch.getBlockIds().x;
    Value lane = tid, team = idx(0);
    if (l.rowsPerBlock > 1) {
      lane = arith::RemUIOp::create(b, loc, tid, idx(l.threadsPerRow));
      team = arith::DivUIOp::create(b, loc, tid, idx(l.threadsPerRow));
    }
    Value first = arith::MulIOp::create(b, loc, bid, idx(l.rowsPerBlock));
    Value firstRow = arith::AddIOp::create(b, loc, first, team);
    auto loop = scf::ForOp::create(b, loc, firstRow, idx(numRows), idx(l.blocks * l.rowsPerBlock));
    return {lane, loop};
  }

  /// cloneBody for lane `lane` of `width`: each operand's value for that lane from `lanes`
  /// (then `trailing` null arguments, for outputs the body does not read), the loop indices
  /// shifted to the lane.
  IRMapping cloneLane(linalg::GenericOp op, ArrayRef<SmallVector<Value>> lanes,
                      ArrayRef<Value> loops, unsigned inner, int64_t width, int64_t lane,
                      ArrayRef<Operation *> skip, unsigned trailing = 0) {
    SmallVector<Value> args;
    for (const SmallVector<Value> &ls : lanes)
      args.push_back(ls[lane]);
    args.append(trailing, Value());
    SmallVector<Value> laneLoops =
        width == 1 ? SmallVector<Value>(loops) : laneIndices(loops, inner, lane);
    return cloneBody(op, args, laneLoops, skip);
  }

  /// The operand of reduction combiner `c` that is not the accumulator (block argument
  /// `accIndex` of `op`'s body).
  static Value combinedValue(linalg::GenericOp op, Operation *c, unsigned accIndex) {
    Value accArg = op.getBlock()->getArgument(accIndex);
    return c->getOperand(0) == accArg ? c->getOperand(1) : c->getOperand(0);
  }

  /// `combiner` (an `acc op value` of the linalg body) applied to `x` and `y`.
  Value combine(Operation *combiner, Value x, Value y) {
    IRMapping map;
    map.map(combiner->getOperand(0), x);
    map.map(combiner->getOperand(1), y);
    return b.clone(*combiner, map)->getResult(0);
  }

  /// The neutral element of `combiner`.
  Value neutral(Operation *combiner) {
    TypedAttr attr = *arith::getNeutralElement(combiner);
    return arith::ConstantOp::create(b, loc, attr);
  }

  /// A butterfly shuffle across the warp: 32- and 64-bit values directly (convert-gpu-to-nvvm
  /// splits 64-bit ones), narrower ones through i32.
  Value shuffleXor(Value v, int32_t offset) {
    Type t = v.getType();
    unsigned bits = t.getIntOrFloatBitWidth();
    if (bits == 32 || bits == 64)
      return gpu::ShuffleOp::create(b, loc, v, offset, lc::kWarpSize, gpu::ShuffleMode::XOR)
          .getShuffleResult();
    Type it = b.getIntegerType(bits);
    Value i = isa<FloatType>(t) ? arith::BitcastOp::create(b, loc, it, v).getResult() : v;
    Value wide = arith::ExtUIOp::create(b, loc, b.getI32Type(), i);
    Value s = gpu::ShuffleOp::create(b, loc, wide, offset, lc::kWarpSize, gpu::ShuffleMode::XOR)
                  .getShuffleResult();
    Value narrow = arith::TruncIOp::create(b, loc, it, s);
    return isa<FloatType>(t) ? arith::BitcastOp::create(b, loc, t, narrow).getResult() : narrow;
  }

  /// Every lane of the warp gets the combination of all 32 lanes' `v` (a butterfly: the
  /// association order differs from a sequential loop, which float sums may show).
  Value warpReduce(Operation *combiner, Value v) {
    for (int32_t offset = lc::kWarpSize / 2; offset > 0; offset /= 2)
      v = combine(combiner, v, shuffleXor(v, offset));
    return v;
  }

  /// Every thread of a team of `teamThreads` (a warp, or a whole block with `smem` holding one
  /// value per warp) gets the combination of all the team's `v`. Called by every thread of the
  /// block in uniform control flow when the team is a block (it has barriers).
  Value teamReduce(Operation *combiner, Value v, int64_t teamThreads, Value lane, Value smem) {
    v = warpReduce(combiner, v);
    if (teamThreads <= lc::kWarpSize)
      return v;
    Value c32 = idx(lc::kWarpSize);
    Value warp = arith::DivUIOp::create(b, loc, lane, c32);
    Value laneInWarp = arith::RemUIOp::create(b, loc, lane, c32);
    // The barrier before the write: the previous row's readers are done with smem.
    gpu::BarrierOp::create(b, loc);
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, laneInWarp, idx(0));
    auto write = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(write.thenBlock());
      memref::StoreOp::create(b, loc, v, smem, ValueRange{warp});
    }
    gpu::BarrierOp::create(b, loc);
    // Each warp combines the per-warp values itself: no second barrier to broadcast a result.
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, laneInWarp,
                                          idx(teamThreads / lc::kWarpSize));
    auto read = scf::IfOp::create(b, loc, TypeRange{v.getType()}, inRange, true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(read.thenBlock());
      Value x = memref::LoadOp::create(b, loc, smem, ValueRange{laneInWarp});
      scf::YieldOp::create(b, loc, x);
      b.setInsertionPointToStart(read.elseBlock());
      scf::YieldOp::create(b, loc, neutral(combiner));
    }
    return warpReduce(combiner, read.getResult(0));
  }
};

/// A workgroup (shared memory) buffer type of `n` elements.
MemRefType workgroupType(MLIRContext *ctx, int64_t n, Type element) {
  return MemRefType::get({n}, element, MemRefLayoutAttrInterface(),
                         gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
}

/// A gpu.launch of `blocks` x `threads` (1-D) before `at`, its body left to `build` (which
/// gets the block id and thread id; the terminator is added here).
gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, int64_t blocks, int64_t threads,
                           TypeRange workgroup,
                           llvm::function_ref<void(KernelBuilder &, gpu::LaunchOp)> build) {
  Value g = arith::ConstantIndexOp::create(b, loc, blocks);
  Value t = arith::ConstantIndexOp::create(b, loc, threads);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto launch =
      gpu::LaunchOp::create(b, loc, g, one, one, t, one, one, nullptr, nullptr, {}, workgroup);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  KernelBuilder kb{b, loc};
  build(kb, launch);
  gpu::TerminatorOp::create(b, loc);
  return launch;
}

//===----------------------------------------------------------------------------------------===//
// Elementwise kernels
//===----------------------------------------------------------------------------------------===//

/// Whether every operand of `op` is a contiguous buffer of the op's full shape read through the
/// identity map and the body does not use linalg.index: the op is then one flat loop.
bool isFlat(linalg::GenericOp op) {
  if (!op.getBlock()->getOps<linalg::IndexOp>().empty())
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    if (!op.getMatchingIndexingMap(&operand).isIdentity() || !isContiguous(type))
      return false;
  }
  return true;
}

/// Largest element size among `op`'s vectorizable buffer operands (0 when none).
int64_t maxElementBytes(linalg::GenericOp op) {
  int64_t bytes = 0;
  for (Value v : op->getOperands())
    if (auto type = dyn_cast<MemRefType>(v.getType()))
      bytes = std::max(bytes, vectorElementBytes(type.getElementType()));
  return bytes;
}

/// The values `op` yields for one chunk of `width` elements at `loops`, per output and lane:
/// operands loaded (an output the body does not read is not), or taken from `cached` (lanes
/// already in registers, null when not), the body cloned per lane.
SmallVector<SmallVector<Value>>
computeElements(KernelBuilder &kb, linalg::GenericOp op, ArrayRef<Value> operands,
                ArrayRef<Value> loops, unsigned inner, int64_t width,
                function_ref<const SmallVector<Value> *(Value)> cached = nullptr) {
  Block *body = op.getBlock();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<SmallVector<Value>> lanes;
  for (auto [i, v] : llvm::enumerate(operands)) {
    if (i >= static_cast<size_t>(op.getNumDpsInputs()) && body->getArgument(i).use_empty()) {
      lanes.push_back(SmallVector<Value>(width, Value()));
      continue;
    }
    if (const SmallVector<Value> *regs = cached ? cached(v) : nullptr) {
      lanes.push_back(*regs);
      continue;
    }
    lanes.push_back(kb.load(v, maps[i], loops, inner, width));
  }
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  SmallVector<SmallVector<Value>> results(op.getNumDpsInits());
  for (int64_t l = 0; l < width; ++l) {
    IRMapping map = kb.cloneLane(op, lanes, loops, inner, width, l, {});
    for (auto [k, y] : llvm::enumerate(yield.getValues()))
      results[k].push_back(map.lookupOrDefault(y));
  }
  return results;
}

/// One element (or `width` lanes) of an all-parallel op at loop indices `loops`: loads, body,
/// stores.
void emitElements(KernelBuilder &kb, linalg::GenericOp op, ArrayRef<Value> operands,
                  ArrayRef<Value> loops, unsigned inner, int64_t width) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<SmallVector<Value>> results = computeElements(kb, op, operands, loops, inner, width);
  for (unsigned k = 0; k < op.getNumDpsInits(); ++k) {
    unsigned i = op.getNumDpsInputs() + k;
    kb.store(results[k], operands[i], maps[i], loops, inner);
  }
}

/// An all-parallel op as one grid-stride kernel: each thread takes chunks of `width`
/// consecutive innermost elements (one vector access per operand where the layout allows),
/// chunk c, c + grid threads, ...; a flat op whose size is no multiple of the vector width
/// does its last elements one per thread after the loop.
void emitElementwise(OpBuilder &b, linalg::GenericOp op, int64_t blockSize, int64_t maxBlocks) {
  Location loc = op.getLoc();
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  SmallVector<Value> operands(op->getOperands());
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // A flat op is one loop over its elements, whatever its rank: vectors need no divisible
  // innermost extent, the remainder is a scalar tail.
  bool flat = isFlat(op) && !extents.empty();
  int64_t total = 1;
  for (int64_t e : extents)
    total *= e;
  int64_t bytes = maxElementBytes(op);
  int64_t width = 1, tail = 0;
  linalg::GenericOp target = op;
  if (flat && extents.size() > 1) {
    // One dimension: collapse every operand (views on the host, no copy).
    for (Value &v : operands) {
      auto type = dyn_cast<MemRefType>(v.getType());
      if (!type)
        continue;
      SmallVector<ReassociationIndices> all(1);
      for (int64_t i = 0; i < type.getRank(); ++i)
        all[0].push_back(i);
      v = memref::CollapseShapeOp::create(b, loc, v, all);
    }
  }
  if (flat)
    extents = {total};
  if (bytes > 0 && !extents.empty()) {
    if (flat) {
      width = std::max<int64_t>(1, lc::kMaxVectorBytes / bytes);
      tail = total % width;
    } else {
      width = lc::vectorWidth(extents.back(), bytes);
    }
  }
  unsigned inner = extents.empty() ? 0 : extents.size() - 1;
  AffineMap flatMap = AffineMap::getMultiDimIdentityMap(1, b.getContext());
  auto mapOf = [&](unsigned i) { return flat ? flatMap : maps[i]; };
  // Vectors only when some operand is read or written as one.
  if (width > 1) {
    bool any = false;
    for (auto [i, v] : llvm::enumerate(operands))
      if (auto type = dyn_cast<MemRefType>(v.getType()))
        any |= isVectorizable(type, mapOf(i), inner, width);
    if (!any)
      width = 1, tail = 0;
  }
  int64_t chunks = (total - tail) / width;
  int64_t threads = lc::elementwiseThreads(std::max<int64_t>(chunks, tail), blockSize);
  int64_t blocks = lc::gridBlocks(std::max<int64_t>(chunks, 1), threads, maxBlocks);

  // For a flat op, the body sees 1-D operands through identity maps: a collapsed clone of the
  // op's maps. emitElements reads the maps from the op, so build a flat generic to emit from.
  linalg::GenericOp flatOp;
  if (flat && op.getNumLoops() > 1) {
    SmallVector<AffineMap> flatMaps(op->getNumOperands(), flatMap);
    for (auto [i, v] : llvm::enumerate(operands))
      if (!isa<MemRefType>(v.getType()))
        flatMaps[i] = AffineMap::get(1, 0, {}, b.getContext());
    flatOp = linalg::GenericOp::create(
        b, loc, ValueRange(operands).take_front(op.getNumDpsInputs()),
        ValueRange(operands).drop_front(op.getNumDpsInputs()), flatMaps,
        SmallVector<utils::IteratorType>(1, utils::IteratorType::parallel));
    IRMapping none;
    op.getRegion().cloneInto(&flatOp.getRegion(), none);
    target = flatOp;
  }
  createLaunch(b, loc, blocks, threads, {}, [&](KernelBuilder &kb, gpu::LaunchOp launch) {
    Value gid = kb.globalId(launch, threads);
    if (chunks > 0) {
      auto loop = kb.gridStrideLoop(gid, chunks, blocks * threads);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value base = loop.getInductionVar();
      if (width > 1)
        base = arith::MulIOp::create(b, loc, base, kb.idx(width));
      emitElements(kb, target, operands, kb.delinearize(base, extents), inner, width);
    }
    if (tail > 0) {
      Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, gid, kb.idx(tail));
      auto guardIf = scf::IfOp::create(b, loc, in, false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(guardIf.thenBlock());
      Value e = arith::AddIOp::create(b, loc, gid, kb.idx(chunks * width));
      emitElements(kb, target, operands, kb.delinearize(e, extents), inner, 1);
    }
  });
  if (flatOp)
    flatOp.erase();
}

/// Whether `op` may join an elementwise chain over `ranges`: all parallel over exactly those
/// ranges.
bool isChainable(linalg::GenericOp op, ArrayRef<int64_t> ranges) {
  return op.getNumParallelLoops() == op.getNumLoops() && op.getNumLoops() > 0 &&
         ArrayRef<int64_t>(op.getStaticLoopRanges()) == ranges;
}

bool isGroupTemporary(Value root, ArrayRef<linalg::GenericOp> ops);

/// Adjacent all-parallel ops over the same iteration space (the ops of one strata.fusion
/// group with several results, such as a bias add and its relu) as ONE grid-stride kernel:
/// each thread runs every op on its chunk in order, a buffer one op writes and a later one
/// reads at the same element is a register, and one nothing outside the chain reads is never
/// written. Every access to a buffer the chain writes must be that same element (checked by
/// the caller), so no chunk needs another thread's result.
void emitElementwiseChain(OpBuilder &b, ArrayRef<linalg::GenericOp> ops, int64_t blockSize,
                          int64_t maxBlocks) {
  Location loc = linalg::GenericOp(ops.back()).getLoc();
  SmallVector<int64_t> extents = linalg::GenericOp(ops.front()).getStaticLoopRanges();
  int64_t total = 1;
  for (int64_t e : extents)
    total *= e;
  int64_t bytes = 0;
  for (linalg::GenericOp op : ops)
    bytes = std::max(bytes, maxElementBytes(op));
  unsigned inner = extents.size() - 1;
  int64_t width = bytes ? lc::vectorWidth(extents.back(), bytes) : 1;
  if (width > 1) {
    bool any = false;
    for (linalg::GenericOp op : ops)
      for (OpOperand &operand : op->getOpOperands())
        if (auto type = dyn_cast<MemRefType>(operand.get().getType()))
          any |= isVectorizable(type, op.getMatchingIndexingMap(&operand), inner, width);
    if (!any)
      width = 1;
  }
  llvm::DenseMap<Value, linalg::GenericOp> lastWriter;
  for (linalg::GenericOp op : ops)
    for (Value init : op.getDpsInits())
      lastWriter[rootOf(init)] = op;
  llvm::DenseSet<Value> temporaries;
  for (auto &[root, op] : lastWriter)
    if (isGroupTemporary(root, ops))
      temporaries.insert(root);
  int64_t chunks = total / width;
  int64_t threads = lc::elementwiseThreads(chunks, blockSize);
  int64_t blocks = lc::gridBlocks(chunks, threads, maxBlocks);
  createLaunch(b, loc, blocks, threads, {}, [&](KernelBuilder &kb, gpu::LaunchOp launch) {
    Value gid = kb.globalId(launch, threads);
    auto loop = kb.gridStrideLoop(gid, chunks, blocks * threads);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value base = loop.getInductionVar();
    if (width > 1)
      base = arith::MulIOp::create(b, loc, base, kb.idx(width));
    SmallVector<Value> loops = kb.delinearize(base, extents);
    llvm::DenseMap<Value, SmallVector<Value>> regs;
    for (linalg::GenericOp op : ops) {
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      SmallVector<Value> operands(op->getOperands());
      SmallVector<SmallVector<Value>> results = computeElements(
          kb, op, operands, loops, inner, width, [&](Value v) -> const SmallVector<Value> * {
            if (!isa<MemRefType>(v.getType()))
              return nullptr;
            auto it = regs.find(rootOf(v));
            return it == regs.end() ? nullptr : &it->second;
          });
      for (unsigned k = 0; k < op.getNumDpsInits(); ++k) {
        Value out = op.getDpsInits()[k], root = rootOf(out);
        regs[root] = results[k];
        if (!temporaries.contains(root) && lastWriter[root] == op)
          kb.store(results[k], out, maps[op.getNumDpsInputs() + k], loops, inner);
      }
    }
  });
}

/// Whether `ops` (all chainable over one iteration space) touch every buffer any of them
/// writes only at the element being computed.
bool checkChainAccesses(ArrayRef<linalg::GenericOp> ops) {
  RowSpace space;
  space.inner = linalg::GenericOp(ops.front()).getStaticLoopRanges();
  llvm::DenseSet<Value> written;
  for (linalg::GenericOp op : ops)
    for (OpOperand &init : op.getDpsInitsMutable()) {
      if (accessOf(op, init.getOperandNumber(), space) != Access::RowElement)
        return false;
      written.insert(rootOf(init.get()));
    }
  for (linalg::GenericOp op : ops)
    for (OpOperand &operand : op->getOpOperands())
      if (isa<MemRefType>(operand.get().getType()) && written.contains(rootOf(operand.get())) &&
          accessOf(op, operand.getOperandNumber(), space) != Access::RowElement)
        return false;
  return true;
}

//===----------------------------------------------------------------------------------------===//
// Full reductions
//===----------------------------------------------------------------------------------------===//

/// Whether `op` reduces all of its (at least one) dimensions into 0-d-like outputs.
bool isFullReduction(linalg::GenericOp op) {
  if (op.getNumLoops() == 0 || op.getNumReductionLoops() != op.getNumLoops())
    return false;
  for (unsigned k = 0; k < op.getNumDpsInits(); ++k) {
    if (!combinerOf(op, k))
      return false;
    auto type = dyn_cast<MemRefType>(op.getDpsInits()[k].getType());
    if (!type || type.getNumElements() != 1)
      return false;
  }
  return true;
}

/// A full reduction as two kernels: `blocks` blocks stride over the elements (vector loads
/// where the layout allows), reduce their partials in the block (warp shuffles, then shared
/// memory) and write one partial per block to a temporary; one block then combines the
/// partials in a fixed order with the output's initial value (the preceding fill's constant
/// when there is one, else the output's content). The same sizes give the same association
/// order on every run: deterministic, unlike atomics.
void emitFullReduction(OpBuilder &b, linalg::GenericOp op, Value fillValue, int64_t blockSize,
                       int64_t maxBlocks) {
  Location loc = op.getLoc();
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<Value> operands(op->getOperands());
  unsigned numIn = op.getNumDpsInputs(), numOut = op.getNumDpsInits();
  SmallVector<Operation *> combiners;
  for (unsigned k = 0; k < numOut; ++k)
    combiners.push_back(combinerOf(op, k));
  int64_t total = 1;
  for (int64_t e : extents)
    total *= e;
  int64_t bytes = maxElementBytes(op);
  unsigned inner = extents.size() - 1;
  int64_t width = bytes ? lc::vectorWidth(extents.back(), bytes) : 1;
  if (width > 1) {
    bool any = false;
    for (unsigned i = 0; i < numIn; ++i)
      if (auto type = dyn_cast<MemRefType>(operands[i].getType()))
        any |= isVectorizable(type, maps[i], inner, width);
    if (!any)
      width = 1;
  }
  int64_t chunks = total / width;
  lc::FullReduceLaunch l = lc::fullReduceLaunch(chunks, blockSize, maxBlocks);
  SmallVector<Type> accTypes, smemTypes, smemFinal;
  for (Operation *c : combiners) {
    accTypes.push_back(c->getResult(0).getType());
    if (l.blockThreads > lc::kWarpSize)
      smemTypes.push_back(
          workgroupType(b.getContext(), l.blockThreads / lc::kWarpSize, accTypes.back()));
    if (l.finalThreads > lc::kWarpSize)
      smemFinal.push_back(
          workgroupType(b.getContext(), l.finalThreads / lc::kWarpSize, accTypes.back()));
  }
  SmallVector<Value> partials;
  for (Type t : accTypes)
    partials.push_back(memref::AllocOp::create(b, loc, MemRefType::get({l.blocks}, t)));

  createLaunch(
      b, loc, l.blocks, l.blockThreads, smemTypes, [&](KernelBuilder &kb, gpu::LaunchOp launch) {
        Value tid = launch.getThreadIds().x, bid = launch.getBlockIds().x;
        Value gid = kb.globalId(launch, l.blockThreads);
        SmallVector<Value> init;
        for (Operation *c : combiners)
          init.push_back(kb.neutral(c));
        auto loop = kb.gridStrideLoop(gid, chunks, l.blocks * l.blockThreads, init);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(loop.getBody());
          Value base = loop.getInductionVar();
          if (width > 1)
            base = arith::MulIOp::create(b, loc, base, kb.idx(width));
          SmallVector<Value> loops = kb.delinearize(base, extents);
          SmallVector<SmallVector<Value>> lanes;
          for (unsigned i = 0; i < numIn; ++i)
            lanes.push_back(kb.load(operands[i], maps[i], loops, inner, width));
          SmallVector<Value> acc(loop.getRegionIterArgs());
          for (int64_t ln = 0; ln < width; ++ln) {
            IRMapping map = kb.cloneLane(op, lanes, loops, inner, width, ln, combiners, numOut);
            for (unsigned k = 0; k < numOut; ++k) {
              Value other = KernelBuilder::combinedValue(op, combiners[k], numIn + k);
              acc[k] = kb.combine(combiners[k], acc[k], map.lookupOrDefault(other));
            }
          }
          scf::YieldOp::create(b, loc, acc);
        }
        Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, kb.idx(0));
        SmallVector<Value> sums;
        for (unsigned k = 0; k < numOut; ++k)
          sums.push_back(kb.teamReduce(
              combiners[k], loop.getResult(k), l.blockThreads, tid,
              smemTypes.empty() ? Value() : Value(launch.getWorkgroupAttributions()[k])));
        auto write = scf::IfOp::create(b, loc, first, false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(write.thenBlock());
        for (unsigned k = 0; k < numOut; ++k)
          memref::StoreOp::create(b, loc, sums[k], partials[k], ValueRange{bid});
      });

  createLaunch(b, loc, 1, l.finalThreads, smemFinal, [&](KernelBuilder &kb, gpu::LaunchOp launch) {
    Value tid = launch.getThreadIds().x;
    SmallVector<Value> init;
    for (Operation *c : combiners)
      init.push_back(kb.neutral(c));
    auto loop = scf::ForOp::create(b, loc, tid, kb.idx(l.blocks), kb.idx(l.finalThreads), init);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> acc;
      for (unsigned k = 0; k < numOut; ++k) {
        Value p = memref::LoadOp::create(b, loc, partials[k], loop.getInductionVar());
        acc.push_back(kb.combine(combiners[k], loop.getRegionIterArgs()[k], p));
      }
      scf::YieldOp::create(b, loc, acc);
    }
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, kb.idx(0));
    SmallVector<Value> sums;
    for (unsigned k = 0; k < numOut; ++k)
      sums.push_back(
          kb.teamReduce(combiners[k], loop.getResult(k), l.finalThreads, tid,
                        smemFinal.empty() ? Value() : Value(launch.getWorkgroupAttributions()[k])));
    auto write = scf::IfOp::create(b, loc, first, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(write.thenBlock());
    for (unsigned k = 0; k < numOut; ++k) {
      Value out = operands[numIn + k];
      auto type = cast<MemRefType>(out.getType());
      SmallVector<Value> zeros(type.getRank(), kb.idx(0));
      Value start = fillValue ? fillValue : memref::LoadOp::create(b, loc, out, zeros).getResult();
      Value result = kb.combine(combiners[k], start, sums[k]);
      memref::StoreOp::create(b, loc, result, out, zeros);
    }
  });
  for (Value p : partials)
    memref::DeallocOp::create(b, loc, p);
}

/// Whether every output of `op` has a combiner (a reduction the kernels here can split).
bool hasCombiners(linalg::GenericOp op) {
  for (unsigned k = 0; k < op.getNumDpsInits(); ++k)
    if (!combinerOf(op, k))
      return false;
  return op.getNumReductionLoops() > 0;
}

/// A reduction that is neither a row reduction nor a full one (a column sum: reduction
/// dimensions before parallel ones) as one grid-stride kernel of one thread per output element,
/// each looping over the reduction dimensions in order (no reassociation). Adjacent threads
/// take adjacent output elements, so a column sum of a row-major matrix reads coalesced rows.
void emitPerOutputReduction(OpBuilder &b, linalg::GenericOp op, Value fillValue, int64_t blockSize,
                            int64_t maxBlocks) {
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto iters = op.getIteratorTypesArray();
  SmallVector<unsigned> par, red;
  SmallVector<int64_t> parExtents, redExtents;
  for (auto [d, it] : llvm::enumerate(iters)) {
    bool isPar = it == utils::IteratorType::parallel;
    (isPar ? par : red).push_back(d);
    (isPar ? parExtents : redExtents).push_back(ranges[d]);
  }
  int64_t outputs = 1, steps = 1;
  for (int64_t e : parExtents)
    outputs *= e;
  for (int64_t e : redExtents)
    steps *= e;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<Value> operands(op->getOperands());
  unsigned numIn = op.getNumDpsInputs(), numOut = op.getNumDpsInits();
  SmallVector<Operation *> combiners;
  for (unsigned k = 0; k < numOut; ++k)
    combiners.push_back(combinerOf(op, k));
  int64_t threads = lc::elementwiseThreads(outputs, blockSize);
  int64_t blocks = lc::gridBlocks(outputs, threads, maxBlocks);
  Block *body = op.getBlock();
  createLaunch(b, loc, blocks, threads, {}, [&](KernelBuilder &kb, gpu::LaunchOp launch) {
    Value gid = kb.globalId(launch, threads);
    auto outer = kb.gridStrideLoop(gid, outputs, blocks * threads);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(outer.getBody());
    SmallVector<Value> parIdx = kb.delinearize(outer.getInductionVar(), parExtents);
    SmallVector<Value> loops(ranges.size());
    for (auto [d, v] : llvm::zip(par, parIdx))
      loops[d] = v;
    for (unsigned d : red)
      loops[d] = kb.idx(0);
    SmallVector<Value> init;
    for (unsigned k = 0; k < numOut; ++k)
      init.push_back(fillValue ? fillValue
                               : memref::LoadOp::create(b, loc, operands[numIn + k],
                                                        kb.applyMap(maps[numIn + k], loops))
                                     .getResult());
    auto inner = scf::ForOp::create(b, loc, kb.idx(0), kb.idx(steps), kb.idx(1), init);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(inner.getBody());
      SmallVector<Value> redIdx = kb.delinearize(inner.getInductionVar(), redExtents);
      for (auto [d, v] : llvm::zip(red, redIdx))
        loops[d] = v;
      SmallVector<Value> args;
      for (unsigned i = 0; i < numIn; ++i)
        args.push_back(kb.load(operands[i], maps[i], loops, 0, 1)[0]);
      args.append(numOut, Value());
      IRMapping map = kb.cloneBody(op, args, loops, combiners);
      SmallVector<Value> acc;
      for (unsigned k = 0; k < numOut; ++k) {
        Operation *c = combiners[k];
        Value accArg = body->getArgument(numIn + k);
        Value other = KernelBuilder::combinedValue(op, c, numIn + k);
        // Sequential order as the loop nest: acc op value, with acc in its own operand slot.
        IRMapping m;
        m.map(accArg, inner.getRegionIterArgs()[k]);
        m.map(other, map.lookupOrDefault(other));
        acc.push_back(b.clone(*c, m)->getResult(0));
      }
      scf::YieldOp::create(b, loc, acc);
    }
    for (unsigned d : red)
      loops[d] = kb.idx(0);
    for (unsigned k = 0; k < numOut; ++k)
      memref::StoreOp::create(b, loc, inner.getResult(k), operands[numIn + k],
                              kb.applyMap(maps[numIn + k], loops));
  });
}

//===----------------------------------------------------------------------------------------===//
// Arg reductions (argmax, argmin)
//===----------------------------------------------------------------------------------------===//

/// Whether `op` is the argmax/argmin generic of strata-lower-to-linalg over its last dimension:
/// one input, outputs (best value, index) per row, body `c = better(x, best); yield select(c,
/// x, best), select(c, index_cast(linalg.index), idx)` with `c` not reading the index.
bool isArgReduction(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 2 || op.getNumReductionLoops() != 1 ||
      op.getIteratorTypesArray().back() != utils::IteratorType::reduction ||
      op.getNumParallelLoops() + 1 != op.getNumLoops())
    return false;
  Block *body = op.getBlock();
  BlockArgument x = body->getArgument(0), best = body->getArgument(1), idx = body->getArgument(2);
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto s1 = yield.getValues()[0].getDefiningOp<arith::SelectOp>();
  auto s2 = yield.getValues()[1].getDefiningOp<arith::SelectOp>();
  if (!s1 || !s2 || s1.getCondition() != s2.getCondition() || s1.getTrueValue() != x ||
      s1.getFalseValue() != best || s2.getFalseValue() != idx || !idx.hasOneUse() ||
      !isa<IntegerType>(idx.getType()))
    return false;
  auto cast = s2.getTrueValue().getDefiningOp<arith::IndexCastOp>();
  auto index = cast ? cast.getIn().getDefiningOp<linalg::IndexOp>() : linalg::IndexOp();
  return index && index.getDim() == op.getNumLoops() - 1;
}

/// An argmax/argmin over the last dimension as one kernel of one team (warp or block) per row,
/// like a row reduction: each thread scans its elements in order with the op's own body,
/// starting from the row's initial (value, index) (the first element, 0); teams then combine
/// (value, index) pairs by shuffles and shared memory. Two partial results a and b combine to
/// the one the body prefers in both argument orders, or, when it prefers neither (a tie, two
/// NaNs), the one with the lower index: the sequential scan's first extremum (first NaN). The
/// combination is idempotent, so the initial pair is also what lanes without data contribute.
void emitArgReduction(OpBuilder &b, linalg::GenericOp op, int64_t blockSize, int64_t maxBlocks) {
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> rows(ranges.begin(), ranges.end() - 1);
  int64_t n = ranges.back(), numRows = 1;
  for (int64_t r : rows)
    numRows *= r;
  size_t r = rows.size();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  Value input = op.getDpsInputs()[0], outV = op.getDpsInits()[0], outI = op.getDpsInits()[1];
  Type vType = op.getBlock()->getArgument(1).getType(),
       iType = op.getBlock()->getArgument(2).getType();
  lc::RowLaunch l = lc::rowLaunch(numRows, n, blockSize, maxBlocks);
  SmallVector<Type> smem;
  if (l.threadsPerRow > lc::kWarpSize)
    smem = {workgroupType(b.getContext(), l.threadsPerRow / lc::kWarpSize, vType),
            workgroupType(b.getContext(), l.threadsPerRow / lc::kWarpSize, iType)};
  createLaunch(
      b, loc, l.blocks, l.blockThreads, smem, [&](KernelBuilder &kb, gpu::LaunchOp launch) {
        auto [lane, rowLoop] = kb.rowLoop(launch, l, numRows);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(rowLoop.getBody());
        SmallVector<Value> loops = kb.delinearize(rowLoop.getInductionVar(), rows);
        loops.push_back(kb.idx(0));
        Value v0 = memref::LoadOp::create(b, loc, outV, kb.applyMap(maps[1], loops));
        Value i0 = memref::LoadOp::create(b, loc, outI, kb.applyMap(maps[2], loops));
        // (value, index) after the body sees element x at index j with the best so far (v, i).
        auto step = [&](Value x, Value j, Value v, Value i) {
          SmallVector<Value> at(loops);
          at[r] = j;
          IRMapping map = kb.cloneBody(op, {x, v, i}, at, {});
          auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
          return std::make_pair(map.lookupOrDefault(yield.getValues()[0]),
                                map.lookupOrDefault(yield.getValues()[1]));
        };
        auto toIndex = [&](Value i) {
          return arith::IndexCastOp::create(b, loc, b.getIndexType(), i).getResult();
        };
        auto pair = [&](std::pair<Value, Value> a, std::pair<Value, Value> c) {
          auto r1 = step(c.first, toIndex(c.second), a.first, a.second);
          auto r2 = step(a.first, toIndex(a.second), c.first, c.second);
          Value same =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r1.second, r2.second);
          Value aFirst =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, a.second, c.second);
          Value lowV = arith::SelectOp::create(b, loc, aFirst, a.first, c.first);
          Value lowI = arith::SelectOp::create(b, loc, aFirst, a.second, c.second);
          return std::make_pair(arith::SelectOp::create(b, loc, same, r1.first, lowV).getResult(),
                                arith::SelectOp::create(b, loc, same, r1.second, lowI).getResult());
        };
        auto warpCombine = [&](std::pair<Value, Value> p) {
          for (int32_t offset = lc::kWarpSize / 2; offset > 0; offset /= 2)
            p = pair(p, {kb.shuffleXor(p.first, offset), kb.shuffleXor(p.second, offset)});
          return p;
        };
        auto scan = scf::ForOp::create(b, loc, lane, kb.idx(n), kb.idx(l.threadsPerRow),
                                       ValueRange{v0, i0});
        {
          OpBuilder::InsertionGuard g2(b);
          b.setInsertionPointToStart(scan.getBody());
          SmallVector<Value> at(loops);
          at[r] = scan.getInductionVar();
          Value x = memref::LoadOp::create(b, loc, input, kb.applyMap(maps[0], at));
          auto [v, i] = step(x, scan.getInductionVar(), scan.getRegionIterArgs()[0],
                             scan.getRegionIterArgs()[1]);
          scf::YieldOp::create(b, loc, ValueRange{v, i});
        }
        std::pair<Value, Value> p = warpCombine({scan.getResult(0), scan.getResult(1)});
        if (l.threadsPerRow > lc::kWarpSize) {
          Value c32 = kb.idx(lc::kWarpSize);
          Value warp = arith::DivUIOp::create(b, loc, lane, c32);
          Value laneInWarp = arith::RemUIOp::create(b, loc, lane, c32);
          gpu::BarrierOp::create(b, loc);
          Value first =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, laneInWarp, kb.idx(0));
          auto write = scf::IfOp::create(b, loc, first, false);
          {
            OpBuilder::InsertionGuard g2(b);
            b.setInsertionPointToStart(write.thenBlock());
            memref::StoreOp::create(b, loc, p.first, launch.getWorkgroupAttributions()[0],
                                    ValueRange{warp});
            memref::StoreOp::create(b, loc, p.second, launch.getWorkgroupAttributions()[1],
                                    ValueRange{warp});
          }
          gpu::BarrierOp::create(b, loc);
          Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, laneInWarp,
                                                kb.idx(l.threadsPerRow / lc::kWarpSize));
          auto read = scf::IfOp::create(b, loc, TypeRange{vType, iType}, inRange, true);
          {
            OpBuilder::InsertionGuard g2(b);
            b.setInsertionPointToStart(read.thenBlock());
            Value v = memref::LoadOp::create(b, loc, launch.getWorkgroupAttributions()[0],
                                             ValueRange{laneInWarp});
            Value i = memref::LoadOp::create(b, loc, launch.getWorkgroupAttributions()[1],
                                             ValueRange{laneInWarp});
            scf::YieldOp::create(b, loc, ValueRange{v, i});
            b.setInsertionPointToStart(read.elseBlock());
            scf::YieldOp::create(b, loc, ValueRange{v0, i0});
          }
          p = warpCombine({read.getResult(0), read.getResult(1)});
        }
        Value lane0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, kb.idx(0));
        auto write = scf::IfOp::create(b, loc, lane0, false);
        b.setInsertionPointToStart(write.thenBlock());
        memref::StoreOp::create(b, loc, p.first, outV, kb.applyMap(maps[1], loops));
        memref::StoreOp::create(b, loc, p.second, outI, kb.applyMap(maps[2], loops));
      });
}

//===----------------------------------------------------------------------------------------===//
// Row groups
//===----------------------------------------------------------------------------------------===//

/// Consecutive ops over the same rows, with at least one row reduction, run as one kernel.
struct RowGroup {
  RowSpace space;
  SmallVector<linalg::GenericOp> ops;
};

/// Roots written by the ops of `group` and how (RowElement or PerRow); fails when an access
/// of a written root disagrees (a transposed read of a row temporary would need another
/// thread's element).
bool checkGroupAccesses(ArrayRef<linalg::GenericOp> ops, const RowSpace &space) {
  llvm::DenseMap<Value, Access> written;
  for (linalg::GenericOp op : ops)
    for (OpOperand &init : op.getDpsInitsMutable()) {
      Access a = accessOf(op, init.getOperandNumber(), space);
      if (a != Access::RowElement && a != Access::PerRow)
        return false;
      auto [it, inserted] = written.try_emplace(rootOf(init.get()), a);
      if (!inserted && it->second != a)
        return false;
    }
  // A per-row value is stored by one lane of the team, which other warps of the block may
  // not have read yet: an op may not read from memory a per-row root a later op writes.
  llvm::DenseSet<Value> seen;
  for (linalg::GenericOp op : ops) {
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<MemRefType>(operand.get().getType()))
        continue;
      Value root = rootOf(operand.get());
      auto it = written.find(root);
      if (it == written.end())
        continue;
      if (accessOf(op, operand.getOperandNumber(), space) != it->second)
        return false;
      bool isInit = op.isDpsInit(&operand);
      if (it->second == Access::PerRow && !isInit && !seen.contains(root))
        return false;
    }
    for (Value init : op.getDpsInits())
      seen.insert(rootOf(init));
  }
  return true;
}

/// Whether `root` is a memref.alloc whose every use (through views) is an op of `ops` or its
/// dealloc: a temporary of the group that need not reach memory.
bool isGroupTemporary(Value root, ArrayRef<linalg::GenericOp> ops) {
  if (!root.getDefiningOp<memref::AllocOp>())
    return false;
  SmallVector<Value> work = {root};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<memref::DeallocOp>(user))
        continue;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user); view && view.getViewSource() == v) {
        for (Value r : user->getResults())
          work.push_back(r);
        continue;
      }
      if (!llvm::is_contained(ops, dyn_cast<linalg::GenericOp>(user)))
        return false;
    }
  }
  return true;
}

/// What a row group's kernel is, decided before any IR is made: the chunk width, the launch,
/// each op's kind, which buffers need memory, and the shared-memory slots of the reductions.
struct RowGroupPlan {
  int64_t width;  ///< elements per chunk (a vector access)
  int64_t chunks; ///< chunks per row
  lc::RowLaunch launch;
  /// Each thread's chunks are unrolled (few per thread): row elements stay in registers.
  bool unrolled;
  SmallVector<RowKind> kinds; ///< per op of the group
  /// The last op of the group writing each root.
  llvm::DenseMap<Value, linalg::GenericOp> lastWriter;
  /// Roots only the group uses (isGroupTemporary): they need not reach memory.
  llvm::DenseSet<Value> temporaries;
  /// The workgroup buffers of the block-wide reductions, and the slot of (op, output).
  SmallVector<Type> smemTypes;
  llvm::DenseMap<std::pair<Operation *, unsigned>, unsigned> smemIndex;

  /// Whether `op`'s value of `root` must be stored: the last write of a buffer that outlives
  /// the group.
  bool stores(Value root, linalg::GenericOp op) const {
    return !temporaries.contains(root) && lastWriter.lookup(root) == op;
  }
};

RowGroupPlan planRowGroup(RowGroup &group, MLIRContext *ctx, int64_t blockSize, int64_t maxBlocks) {
  const RowSpace &space = group.space;
  RowGroupPlan plan;
  int64_t bytes = 0;
  for (linalg::GenericOp op : group.ops)
    bytes = std::max(bytes, maxElementBytes(op));
  plan.width = bytes && !space.inner.empty() ? lc::vectorWidth(space.inner.back(), bytes) : 1;
  plan.chunks = space.numInner() / plan.width;
  plan.launch = lc::rowLaunch(space.numRows(), plan.chunks, blockSize, maxBlocks);
  plan.unrolled = plan.launch.chunksPerThread <= lc::kMaxChunksPerThread;
  for (linalg::GenericOp op : group.ops) {
    plan.kinds.push_back(*rowKindOf(op, space));
    for (Value init : op.getDpsInits())
      plan.lastWriter[rootOf(init)] = op;
  }
  for (auto &[root, op] : plan.lastWriter)
    if (isGroupTemporary(root, group.ops))
      plan.temporaries.insert(root);
  if (plan.launch.threadsPerRow > lc::kWarpSize)
    for (auto [op, kind] : llvm::zip(group.ops, plan.kinds))
      if (kind == RowKind::Reduction)
        for (unsigned k = 0; k < op.getNumDpsInits(); ++k) {
          plan.smemIndex[{op, k}] = plan.smemTypes.size();
          plan.smemTypes.push_back(workgroupType(ctx, plan.launch.threadsPerRow / lc::kWarpSize,
                                                 combinerOf(op, k)->getResult(0).getType()));
        }
  return plan;
}

/// Emits the ops of a row group inside its row loop, one row per team: thread `lane` owns
/// chunks lane, lane + team, ... of every op. Holds what the ops pass each other: per-row
/// values and (unrolled) row elements in registers.
class ChunkEmitter {
public:
  ChunkEmitter(KernelBuilder &kb, const RowSpace &space, const RowGroupPlan &plan,
               gpu::LaunchOp launch, Value lane, SmallVector<Value> rowIdx, Value lane0)
      : kb(kb), b(kb.b), loc(kb.loc), space(space), plan(plan), launch(launch), lane(lane),
        rowIdx(std::move(rowIdx)), lane0(lane0), r(space.rows.size()),
        inner(r + space.inner.size() - 1) {}

  /// Emits `op`, of `kind`, after the ops emitted so far.
  void emit(linalg::GenericOp op, RowKind kind) {
    switch (kind) {
    case RowKind::PerRow:
      return emitPerRow(op);
    case RowKind::Elementwise:
      return emitElementwise(op);
    case RowKind::Reduction:
      return emitReduction(op);
    }
  }

private:
  /// A per-row op: every thread computes the row's value; lane 0 stores it.
  void emitPerRow(linalg::GenericOp op) {
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    unsigned numIn = op.getNumDpsInputs(), numOut = op.getNumDpsInits();
    Block *body = op.getBlock();
    SmallVector<Value> loops = rowLoops(op);
    SmallVector<Value> args;
    for (unsigned i = 0; i < numIn + numOut; ++i) {
      if (i >= numIn && body->getArgument(i).use_empty()) {
        args.push_back(Value());
        continue;
      }
      args.push_back(operandLanes(op, i, loops, -1, 1)[0]);
    }
    IRMapping map = kb.cloneBody(op, args, loops, {});
    auto yield = cast<linalg::YieldOp>(body->getTerminator());
    for (unsigned k = 0; k < numOut; ++k) {
      Value out = op.getDpsInits()[k], root = rootOf(out);
      Value v = map.lookupOrDefault(yield.getValues()[k]);
      rowRegs[root] = v;
      if (plan.stores(root, op))
        storeOnLane0(v, out, maps[numIn + k], loops);
    }
  }

  /// An elementwise op over the row: each thread its chunks; unrolled, the results stay in
  /// registers for the later ops.
  void emitElementwise(linalg::GenericOp op) { (void)emitChunks(op, RowKind::Elementwise, {}); }

  /// A row reduction: each thread combines its chunks, then the team combines the threads'
  /// values; every thread gets the row's result.
  void emitReduction(linalg::GenericOp op) {
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    unsigned numIn = op.getNumDpsInputs(), numOut = op.getNumDpsInits();
    SmallVector<Operation *> combiners;
    for (unsigned k = 0; k < numOut; ++k)
      combiners.push_back(combinerOf(op, k));
    SmallVector<Value> acc = emitChunks(op, RowKind::Reduction, combiners);
    const lc::RowLaunch &l = plan.launch;
    for (unsigned k = 0; k < numOut; ++k) {
      Value out = op.getDpsInits()[k], root = rootOf(out);
      Value smem = l.threadsPerRow > lc::kWarpSize
                       ? Value(launch.getWorkgroupAttributions()[plan.smemIndex.lookup({op, k})])
                       : Value();
      SmallVector<Value> loops = rowLoops(op);
      // The initial value is read before the team's barriers: lane 0 overwrites it after.
      Value start;
      if (auto it = rowRegs.find(root); it != rowRegs.end())
        start = it->second;
      else
        start = kb.load(out, maps[numIn + k], loops, inner, 1)[0];
      Value total = kb.teamReduce(combiners[k], acc[k], l.threadsPerRow, lane, smem);
      Value result = kb.combine(combiners[k], start, total);
      rowRegs[root] = result;
      if (plan.stores(root, op))
        storeOnLane0(result, out, maps[numIn + k], loops);
    }
  }

  /// The thread's chunks of `op` (of `kind`, Elementwise or Reduction with `combiners`):
  /// unrolled, the last one guarded when the row has fewer chunks than the team covers, or a
  /// loop. Returns the thread's accumulators (reductions).
  SmallVector<Value> emitChunks(linalg::GenericOp op, RowKind kind,
                                ArrayRef<Operation *> combiners) {
    const lc::RowLaunch &l = plan.launch;
    unsigned numOut = op.getNumDpsInits();
    SmallVector<Value> acc;
    for (Operation *c : combiners)
      acc.push_back(kb.neutral(c));
    if (!plan.unrolled) {
      auto loop =
          scf::ForOp::create(b, loc, lane, kb.idx(plan.chunks), kb.idx(l.threadsPerRow), acc);
      {
        OpBuilder::InsertionGuard guard(b);
        // Without accumulators the loop has its (empty) yield already.
        if (acc.empty())
          b.setInsertionPoint(loop.getBody()->getTerminator());
        else
          b.setInsertionPointToStart(loop.getBody());
        SmallVector<Value> produced =
            emitChunk(op, kind, chunkLoops(loop.getInductionVar()), -1,
                      SmallVector<Value>(loop.getRegionIterArgs()), combiners);
        if (!acc.empty())
          scf::YieldOp::create(b, loc, produced);
      }
      // Row elements written here live in memory only.
      for (Value init : op.getDpsInits())
        elemRegs.erase(rootOf(init));
      return loop.getResults();
    }
    SmallVector<SmallVector<SmallVector<Value>>> outRegs(numOut);
    for (int64_t k = 0; k < l.chunksPerThread; ++k) {
      Value chunk = arith::AddIOp::create(b, loc, lane, kb.idx(k * l.threadsPerRow));
      bool partial = (k + 1) * l.threadsPerRow > plan.chunks;
      SmallVector<Value> produced = partial
                                        ? emitGuardedChunk(op, kind, chunk, k, acc, combiners)
                                        : emitChunk(op, kind, chunkLoops(chunk), k, acc, combiners);
      if (kind == RowKind::Reduction) {
        acc = produced;
        continue;
      }
      for (unsigned k2 = 0; k2 < numOut; ++k2)
        outRegs[k2].push_back(
            SmallVector<Value>(ArrayRef(produced).slice(k2 * plan.width, plan.width)));
    }
    if (kind == RowKind::Elementwise)
      for (unsigned k2 = 0; k2 < numOut; ++k2)
        elemRegs[rootOf(op.getDpsInits()[k2])] = outRegs[k2];
    return acc;
  }

  /// emitChunk for chunk `chunk` (unrolled chunk k) when it may lie past the row's end: the
  /// accumulators pass through, elementwise results are zeros nothing reads.
  SmallVector<Value> emitGuardedChunk(linalg::GenericOp op, RowKind kind, Value chunk, int64_t k,
                                      ArrayRef<Value> acc, ArrayRef<Operation *> combiners) {
    auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
    SmallVector<Type> types;
    if (kind == RowKind::Reduction) {
      for (Value a : acc)
        types.push_back(a.getType());
    } else {
      for (Value y : yield.getValues())
        types.append(plan.width, y.getType());
    }
    Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, chunk, kb.idx(plan.chunks));
    auto ifOp = scf::IfOp::create(b, loc, types, in, true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, loc, emitChunk(op, kind, chunkLoops(chunk), k, acc, combiners));
    b.setInsertionPointToStart(ifOp.elseBlock());
    SmallVector<Value> other;
    if (kind == RowKind::Reduction)
      other.assign(acc.begin(), acc.end());
    else
      for (Type t : types)
        other.push_back(arith::ConstantOp::create(b, loc, b.getZeroAttr(t)));
    scf::YieldOp::create(b, loc, other);
    return ifOp.getResults();
  }

  /// One chunk of `op` at `loops` (unrolled chunk `k`, or -1 in a loop): the output lanes
  /// (elementwise, stored where the buffer needs them) or the accumulators `accIn` updated.
  SmallVector<Value> emitChunk(linalg::GenericOp op, RowKind kind, ArrayRef<Value> loops, int64_t k,
                               ArrayRef<Value> accIn, ArrayRef<Operation *> combiners) {
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    unsigned numIn = op.getNumDpsInputs(), numOut = op.getNumDpsInits();
    Block *body = op.getBlock();
    auto yield = cast<linalg::YieldOp>(body->getTerminator());
    int64_t width = plan.width;
    SmallVector<SmallVector<Value>> lanes;
    for (unsigned i = 0; i < numIn + numOut; ++i) {
      if (i >= numIn && (kind == RowKind::Reduction || body->getArgument(i).use_empty())) {
        lanes.push_back(SmallVector<Value>(width, Value()));
        continue;
      }
      lanes.push_back(operandLanes(op, i, loops, k, width));
    }
    SmallVector<Value> acc(accIn);
    SmallVector<SmallVector<Value>> results(numOut);
    for (int64_t ln = 0; ln < width; ++ln) {
      IRMapping map = kb.cloneLane(op, lanes, loops, inner, width, ln, combiners);
      for (unsigned k2 = 0; k2 < numOut; ++k2) {
        if (kind == RowKind::Reduction) {
          Value other = KernelBuilder::combinedValue(op, combiners[k2], numIn + k2);
          acc[k2] = kb.combine(combiners[k2], acc[k2], map.lookupOrDefault(other));
        } else {
          results[k2].push_back(map.lookupOrDefault(yield.getValues()[k2]));
        }
      }
    }
    if (kind == RowKind::Reduction)
      return acc;
    SmallVector<Value> flatResults;
    for (unsigned k2 = 0; k2 < numOut; ++k2) {
      Value out = op.getDpsInits()[k2], root = rootOf(out);
      // Looping threads read row elements back from memory; unrolled ones from registers.
      if (!plan.unrolled || plan.stores(root, op))
        kb.store(results[k2], out, maps[numIn + k2], loops, inner);
      flatResults.append(results[k2]);
    }
    return flatResults;
  }

  /// Operand `i` of `op` as `w` lanes at `loops`: from the registers of an earlier op of the
  /// group (per-row values; row elements of unrolled chunk `k`), else loaded.
  SmallVector<Value> operandLanes(linalg::GenericOp op, unsigned i, ArrayRef<Value> loops,
                                  int64_t k, int64_t w) {
    Value v = op->getOperand(i);
    if (!isa<MemRefType>(v.getType()))
      return SmallVector<Value>(w, v);
    Value root = rootOf(v);
    Access a = accessOf(op, i, space);
    if (a == Access::PerRow)
      if (auto it = rowRegs.find(root); it != rowRegs.end())
        return SmallVector<Value>(w, it->second);
    if (a == Access::RowElement && k >= 0)
      if (auto it = elemRegs.find(root); it != elemRegs.end())
        return it->second[k];
    return kb.load(v, op.getIndexingMapsArray()[i], loops, inner, w);
  }

  /// `op`'s loop indices for the row's value: the row, unit inner indices.
  SmallVector<Value> rowLoops(linalg::GenericOp op) {
    SmallVector<Value> loops(rowIdx);
    loops.append(op.getNumLoops() - r, kb.idx(0));
    return loops;
  }

  /// The loop indices of chunk `chunk` of the row: (row, chunk start).
  SmallVector<Value> chunkLoops(Value chunk) {
    Value start = plan.width > 1
                      ? arith::MulIOp::create(b, loc, chunk, kb.idx(plan.width)).getResult()
                      : chunk;
    SmallVector<Value> loops(rowIdx);
    loops.append(kb.delinearize(start, space.inner));
    return loops;
  }

  /// Lane 0 of the team stores the row's value `v` to `out`.
  void storeOnLane0(Value v, Value out, AffineMap map, ArrayRef<Value> loops) {
    auto w = scf::IfOp::create(b, loc, lane0, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(w.thenBlock());
    kb.store({v}, out, map, loops, inner);
  }

  KernelBuilder &kb;
  OpBuilder &b;
  Location loc;
  const RowSpace &space;
  const RowGroupPlan &plan;
  gpu::LaunchOp launch;
  Value lane;                ///< the thread's index in its team
  SmallVector<Value> rowIdx; ///< the row's indices
  Value lane0;               ///< lane == 0
  size_t r;                  ///< number of row dimensions
  unsigned inner;            ///< the innermost loop dimension (vector accesses)
  /// Register copies: per-row values by root; row elements by root, chunk k, lane.
  llvm::DenseMap<Value, Value> rowRegs;
  llvm::DenseMap<Value, SmallVector<SmallVector<Value>>> elemRegs;
};

/// One kernel for a row group: a team (a warp for short rows, else the block) per row, rows
/// strided over the grid. Within a row, thread `lane` owns chunks lane, lane + team, ... of
/// `width` consecutive elements in every op, so a row temporary one op writes and a later op
/// reads never crosses threads: with few chunks per thread it stays in registers (no global
/// buffer), otherwise the thread reads back what it wrote itself. Row reductions combine each
/// thread's chunks, then the team (warp shuffles; shared memory across warps); the per-row
/// result is a register every thread holds. Buffers that outlive the group get the last value
/// written to them.
void emitRowGroup(OpBuilder &b, RowGroup &group, int64_t blockSize, int64_t maxBlocks) {
  Location loc = group.ops.back().getLoc();
  const RowSpace &space = group.space;
  RowGroupPlan plan = planRowGroup(group, b.getContext(), blockSize, maxBlocks);
  const lc::RowLaunch &l = plan.launch;
  createLaunch(b, loc, l.blocks, l.blockThreads, plan.smemTypes,
               [&](KernelBuilder &kb, gpu::LaunchOp launch) {
                 auto [lane, rowLoop] = kb.rowLoop(launch, l, space.numRows());
                 OpBuilder::InsertionGuard guard(b);
                 b.setInsertionPointToStart(rowLoop.getBody());
                 SmallVector<Value> rowIdx = kb.delinearize(rowLoop.getInductionVar(), space.rows);
                 Value lane0 =
                     arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, kb.idx(0));
                 ChunkEmitter emitter(kb, space, plan, launch, lane, std::move(rowIdx), lane0);
                 for (auto [op, kind] : llvm::zip(group.ops, plan.kinds))
                   emitter.emit(op, kind);
               });
}

//===----------------------------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------------------------===//

/// Ops a row group may span (no memory effect a kernel could reorder).
bool isTransparent(Operation *op) {
  return isa<memref::AllocOp, memref::ExpandShapeOp, memref::CollapseShapeOp, arith::ConstantOp>(
      op);
}

/// A linalg op the pass can turn into a kernel: buffers with static shapes.
bool isCandidate(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics())
    return false;
  for (Value v : op->getOperands())
    if (auto type = dyn_cast<MemRefType>(v.getType()); type && !type.hasStaticShape())
      return false;
    else if (!type && !v.getType().isIntOrFloat())
      return false;
  return true;
}

/// The row space of a row reduction seed: leading parallel rows, trailing reduction columns.
std::optional<RowSpace> seedSpace(linalg::GenericOp op) {
  auto iters = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  size_t r = 0;
  while (r < iters.size() && iters[r] == utils::IteratorType::parallel)
    ++r;
  if (r == 0 || r == iters.size())
    return std::nullopt;
  RowSpace space;
  space.rows.assign(ranges.begin(), ranges.begin() + r);
  space.inner.assign(ranges.begin() + r, ranges.end());
  if (space.numInner() < 2 || rowKindOf(op, space) != RowKind::Reduction)
    return std::nullopt;
  return space;
}

/// The kernels of one block's linalg ops, made in phases: the copies and named ops become
/// generics, row groups take the row reductions and their neighbours, a fill folds into the
/// reduction after it, adjacent elementwise ops chain, and each op left gets its own kernel.
class BlockKernels {
public:
  BlockKernels(Block &block, IRRewriter &rewriter, int64_t blockSize, int64_t maxBlocks)
      : block(block), rewriter(rewriter), blockSize(blockSize), maxBlocks(maxBlocks) {}

  void run() {
    copiesBetweenViewsToLinalg();
    generalizeNamedOps();
    for (auto op : block.getOps<linalg::GenericOp>())
      if (isCandidate(op))
        ops.push_back(op);
    for (RowGroup &group : groupRows()) {
      rewriter.setInsertionPoint(group.ops.back());
      emitRowGroup(rewriter, group, blockSize, maxBlocks);
      replaceByKernel(group.ops);
    }
    foldFills();
    chainElementwise();
    emitSingles();
  }

private:
  /// A copy between views (a strided slice, an offset) is no single gpu.memcpy: it becomes a
  /// linalg.copy, so an elementwise kernel (all threads, vector accesses on the contiguous
  /// side) rather than strata-gpu-map-loops' one-thread loop.
  void copiesBetweenViewsToLinalg() {
    for (auto copy : llvm::make_early_inc_range(block.getOps<memref::CopyOp>())) {
      auto source = cast<MemRefType>(copy.getSource().getType());
      auto target = cast<MemRefType>(copy.getTarget().getType());
      // gpu.memcpy (gpu-to-llvm) takes identity layouts only: a view with an offset is a
      // kernel too.
      if (!source.hasStaticShape() || !target.hasStaticShape() ||
          (source.getLayout().isIdentity() && target.getLayout().isIdentity()))
        continue;
      rewriter.setInsertionPoint(copy);
      linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(), copy.getTarget());
      rewriter.eraseOp(copy);
    }
  }

  /// Named ops (fill, copy, transpose, matmul left by strata-linalg-to-blas) as generics.
  void generalizeNamedOps() {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      if (!linalgOp || isa<linalg::GenericOp>(op) || !linalgOp.hasPureBufferSemantics())
        continue;
      rewriter.setInsertionPoint(&op);
      (void)linalg::generalizeNamedOp(rewriter, linalgOp);
    }
  }

  /// Row groups, seeded by row reductions and grown over adjacent compatible ops.
  SmallVector<RowGroup> groupRows() {
    SmallVector<RowGroup> groups;
    for (size_t s = 0; s < ops.size(); ++s) {
      if (done.contains(ops[s]))
        continue;
      std::optional<RowSpace> space = seedSpace(ops[s]);
      if (!space)
        continue;
      auto fits = [&](size_t first, size_t last) {
        SmallVector<linalg::GenericOp> span(ops.begin() + first, ops.begin() + last + 1);
        for (linalg::GenericOp op : span)
          if (!rowKindOf(op, *space))
            return false;
        return checkGroupAccesses(span, *space);
      };
      if (!fits(s, s))
        continue;
      size_t lo = s, hi = s;
      while (lo > 0 && !done.contains(ops[lo - 1]) && adjacent(ops[lo - 1], ops[lo]) &&
             fits(lo - 1, hi))
        --lo;
      while (hi + 1 < ops.size() && adjacent(ops[hi], ops[hi + 1]) && fits(lo, hi + 1))
        ++hi;
      RowGroup group{*space,
                     SmallVector<linalg::GenericOp>(ops.begin() + lo, ops.begin() + hi + 1)};
      for (linalg::GenericOp op : group.ops)
        done.insert(op);
      groups.push_back(std::move(group));
    }
    return groups;
  }

  /// A fill just before a single-output reduction (outside a row group) of the same buffer
  /// folds into its kernel (the fill's value is the initial value): one launch fewer.
  void foldFills() {
    for (size_t i = 0; i + 1 < ops.size(); ++i) {
      linalg::GenericOp fill = ops[i], red = ops[i + 1];
      if (done.contains(fill) || done.contains(red) || !hasCombiners(red) ||
          red.getNumDpsInits() != 1 || !adjacent(fill, red) || fill.getNumDpsInputs() != 1 ||
          fill.getNumDpsInits() != 1 || fill.getDpsInits()[0] != red.getDpsInits()[0] ||
          isa<MemRefType>(fill.getDpsInputs()[0].getType()))
        continue;
      auto yield = cast<linalg::YieldOp>(fill.getBlock()->getTerminator());
      if (yield.getValues()[0] != fill.getBlock()->getArgument(0) ||
          !fill.getIndexingMapsArray()[1].isIdentity())
        continue;
      folded[red] = fill.getDpsInputs()[0];
      done.insert(fill);
      rewriter.eraseOp(fill);
    }
  }

  /// Elementwise chains: adjacent all-parallel ops over the same iteration space, one kernel.
  void chainElementwise() {
    for (size_t s = 0; s < ops.size(); ++s) {
      if (done.contains(ops[s]) || !isChainable(ops[s], ops[s].getStaticLoopRanges()))
        continue;
      SmallVector<int64_t> ranges = ops[s].getStaticLoopRanges();
      size_t hi = s;
      while (hi + 1 < ops.size() && !done.contains(ops[hi + 1]) && adjacent(ops[hi], ops[hi + 1]) &&
             isChainable(ops[hi + 1], ranges) &&
             checkChainAccesses(ArrayRef(ops).slice(s, hi + 2 - s)))
        ++hi;
      if (hi == s)
        continue;
      SmallVector<linalg::GenericOp> chain(ops.begin() + s, ops.begin() + hi + 1);
      rewriter.setInsertionPoint(chain.back());
      emitElementwiseChain(rewriter, chain, blockSize, maxBlocks);
      for (linalg::GenericOp op : chain)
        done.insert(op);
      replaceByKernel(chain);
      s = hi;
    }
  }

  /// One kernel per op left, by its shape; anything else (an argmax over a leading axis) stays
  /// for strata-gpu-map-loops.
  void emitSingles() {
    for (linalg::GenericOp op : ops) {
      if (done.contains(op))
        continue;
      rewriter.setInsertionPoint(op);
      Value fillValue = folded.lookup(op);
      if (op.getNumParallelLoops() == op.getNumLoops())
        emitElementwise(rewriter, op, blockSize, maxBlocks);
      else if (isFullReduction(op))
        emitFullReduction(rewriter, op, fillValue, blockSize, maxBlocks);
      else if (hasCombiners(op))
        emitPerOutputReduction(rewriter, op, fillValue, blockSize, maxBlocks);
      else if (isArgReduction(op))
        emitArgReduction(rewriter, op, blockSize, maxBlocks);
      else
        continue;
      rewriter.eraseOp(op);
    }
  }

  /// Whether only transparent ops separate two candidates.
  static bool adjacent(linalg::GenericOp a, linalg::GenericOp b) {
    for (Operation *op = a->getNextNode(); op && op != b.getOperation(); op = op->getNextNode())
      if (!isTransparent(op))
        return false;
    return true;
  }

  /// Erases `kernelOps` (now one kernel), then the temporaries nothing reads any more.
  void replaceByKernel(ArrayRef<linalg::GenericOp> kernelOps) {
    llvm::SetVector<Value> roots;
    for (linalg::GenericOp op : kernelOps)
      for (Value init : op.getDpsInits())
        roots.insert(rootOf(init));
    for (linalg::GenericOp op : llvm::reverse(kernelOps))
      rewriter.eraseOp(op);
    for (Value root : roots)
      eraseIfDead(root);
  }

  /// Erases a group temporary nothing reads any more: its views, dealloc and alloc.
  void eraseIfDead(Value root) {
    auto alloc = root.getDefiningOp<memref::AllocOp>();
    if (!alloc)
      return;
    llvm::SetVector<Operation *> dead;
    SmallVector<Value> work = {root};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (isa<memref::DeallocOp>(user)) {
          dead.insert(user);
          continue;
        }
        if (auto view = dyn_cast<ViewLikeOpInterface>(user); view && view.getViewSource() == v) {
          dead.insert(user);
          for (Value r : user->getResults())
            work.push_back(r);
          continue;
        }
        return;
      }
    }
    // Users first: a dealloc or view may use a view.
    while (!dead.empty()) {
      Operation *op = *llvm::find_if(dead, [](Operation *o) { return o->use_empty(); });
      dead.remove(op);
      rewriter.eraseOp(op);
    }
    rewriter.eraseOp(alloc);
  }

  Block &block;
  IRRewriter &rewriter;
  int64_t blockSize, maxBlocks;
  /// The block's candidate generics, in order.
  SmallVector<linalg::GenericOp> ops;
  /// Candidates already in a kernel (or folded into one): erased, never looked into again.
  llvm::DenseSet<Operation *> done;
  /// The fill value folded into a reduction's kernel (foldFills).
  llvm::DenseMap<Operation *, Value> folded;
};

struct GpuKernelsPass : strata::impl::StrataGpuKernelsBase<GpuKernelsPass> {
  using StrataGpuKernelsBase::StrataGpuKernelsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (blockSize < lc::kWarpSize || blockSize > 1024 || blockSize % lc::kWarpSize != 0) {
      func.emitError("strata-gpu-kernels: block-size must be a multiple of 32 in [32, 1024], got ")
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    if (maxBlocks < 1) {
      func.emitError("strata-gpu-kernels: max-blocks must be positive");
      return signalPassFailure();
    }
    if (func.isExternal())
      return;
    IRRewriter rewriter(&getContext());
    // The function's block and the blocks of the control flow that stays on the host (the
    // bodies of lowered while_loops, scans and conds): a kernel never contains linalg ops.
    SmallVector<Block *> blocks;
    func.walk([&](Block *block) {
      if (!isa<linalg::LinalgOp, gpu::LaunchOp>(block->getParentOp()))
        blocks.push_back(block);
    });
    for (Block *block : blocks)
      BlockKernels(*block, rewriter, blockSize, maxBlocks).run();
  }
};

} // namespace
} // namespace mlir::strata
