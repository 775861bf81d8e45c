// What strata-gpu-kernels' files share: access analysis, KernelBuilder, each kernel's emitter.
#pragma once

#include "transforms/gpu/LaunchConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <optional>

namespace mlir::strata::gpu_kernels {

namespace lc = ::strata::gpu;

// Analysis (GpuKernelAnalysis.cpp).

/// The buffer a view (expand/collapse_shape, subview, cast) is a view of; the value itself when
/// it is no view.
Value rootOf(Value v);

/// Element size in bytes of a memref operand that a kernel may access with vectors; 0 for
/// other element types (i1 is stored as bytes but not vectorized, index has no fixed size).
int64_t vectorElementBytes(Type t);

/// Whether memref `type` is row-major contiguous with offset 0 (its linear element index is the
/// row-major linearization of its indices).
bool isContiguous(MemRefType type);

/// Whether an access of `type` through `map` may load `width` consecutive elements along loop
/// dimension `inner` as one aligned vector: the map's last result is that dimension, no other
/// result uses it, the last memref dimension has unit stride and every other stride and the
/// offset are multiples of `width` (with an innermost index that is a multiple of `width`, the
/// vector then starts at a multiple of width * element size bytes from the buffer's base, which
/// the runtime and memref.alloc align to at least 16 bytes).
bool isVectorizable(MemRefType type, AffineMap map, unsigned inner, int64_t width);

/// The body op combining output `k`'s block argument with a value of the inputs (`acc + f(in)`),
/// for a reduction whose combiner is associative and commutative with a neutral element
/// (arith add, mul, min, max, and, or, xor); null when the body is not of that form (argmax
/// compares and selects: it stays a loop nest).
Operation *combinerOf(linalg::GenericOp op, unsigned k);

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
std::optional<RowKind> rowKindOf(linalg::GenericOp op, const RowSpace &space);

/// How `op` (of kind `kind` in `space`) accesses operand `i`.
Access accessOf(linalg::GenericOp op, unsigned i, const RowSpace &space);

// Code generation inside a gpu.launch (GpuKernelBuilder.cpp).

/// Builds the body of one kernel: index arithmetic, loads and stores of lanes, the cloned
/// linalg body, warp and block reductions.
struct KernelBuilder {
  OpBuilder &b;
  Location loc;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// Row-major indices of `linear` in `extents` (unit dimensions get constant 0).
  SmallVector<Value> delinearize(Value linear, ArrayRef<int64_t> extents);

  /// The memref indices `map` gives for loop indices `loops`.
  SmallVector<Value> applyMap(AffineMap map, ValueRange loops);

  /// Loop indices of lane `lane`: `loops` with `inner` advanced by `lane`.
  SmallVector<Value> laneIndices(ArrayRef<Value> loops, unsigned inner, int64_t lane);

  /// The `width` lane values of operand `v` (accessed through `map`) at loop indices `loops`
  /// (lane l at loops[inner] + l): one vector load when the access allows it, one load when
  /// the operand does not depend on `inner`, otherwise one load per lane.
  SmallVector<Value> load(Value v, AffineMap map, ArrayRef<Value> loops, unsigned inner,
                          int64_t width);

  /// Stores `lanes` into `v` like `load` reads them.
  void store(ArrayRef<Value> lanes, Value v, AffineMap map, ArrayRef<Value> loops, unsigned inner);

  /// Clones `op`'s body for one element: block arguments from `args` (null for unused
  /// outputs), linalg.index from `loops`; ops in `skip` (reduction combiners) are left out.
  /// Returns the mapping, from which the yielded values are read.
  IRMapping cloneBody(linalg::GenericOp op, ArrayRef<Value> args, ArrayRef<Value> loops,
                      ArrayRef<Operation *> skip);

  /// The thread's index in the whole grid of 1-D blocks of `threads` threads.
  Value globalId(gpu::LaunchOp launch, int64_t threads);

  /// The grid-stride loop of a kernel of `gridThreads` threads: from the thread's global id
  /// `first` (globalId) to `count`, with loop-carried `init`.
  scf::ForOp gridStrideLoop(Value first, int64_t count, int64_t gridThreads, ValueRange init = {});

  /// The loop over the rows of a row kernel launched with `l`: each block holds
  /// `l.rowsPerBlock` teams of `l.threadsPerRow` threads, a team takes one row per iteration
  /// (grid-stride over rows). Returns the thread's lane in its team and the loop.
  std::pair<Value, scf::ForOp> rowLoop(gpu::LaunchOp launch, const lc::RowLaunch &l,
                                       int64_t numRows);

  /// cloneBody for lane `lane` of `width`: each operand's value for that lane from `lanes`
  /// (then `trailing` null arguments, for outputs the body does not read), the loop indices
  /// shifted to the lane.
  IRMapping cloneLane(linalg::GenericOp op, ArrayRef<SmallVector<Value>> lanes,
                      ArrayRef<Value> loops, unsigned inner, int64_t width, int64_t lane,
                      ArrayRef<Operation *> skip, unsigned trailing = 0);

  /// The operand of reduction combiner `c` that is not the accumulator (block argument
  /// `accIndex` of `op`'s body).
  static Value combinedValue(linalg::GenericOp op, Operation *c, unsigned accIndex);

  /// `combiner` (an `acc op value` of the linalg body) applied to `x` and `y`.
  Value combine(Operation *combiner, Value x, Value y);

  /// The neutral element of `combiner`.
  Value neutral(Operation *combiner);

  /// A butterfly shuffle across the warp: 32- and 64-bit values directly (convert-gpu-to-nvvm
  /// splits 64-bit ones), narrower ones through i32.
  Value shuffleXor(Value v, int32_t offset);

  /// Every lane of the warp gets the combination of all 32 lanes' `v` (a butterfly: the
  /// association order differs from a sequential loop, which float sums may show).
  Value warpReduce(Operation *combiner, Value v);

  /// Every thread of a team of `teamThreads` (a warp, or a whole block with `smem` holding one
  /// value per warp) gets the combination of all the team's `v`. Called by every thread of the
  /// block in uniform control flow when the team is a block (it has barriers).
  Value teamReduce(Operation *combiner, Value v, int64_t teamThreads, Value lane, Value smem);
};

/// A workgroup (shared memory) buffer type of `n` elements.
MemRefType workgroupType(MLIRContext *ctx, int64_t n, Type element);

/// A gpu.launch of `blocks` x `threads` (1-D) before `at`, its body left to `build` (which
/// gets the block id and thread id; the terminator is added here).
gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, int64_t blocks, int64_t threads,
                           TypeRange workgroup,
                           llvm::function_ref<void(KernelBuilder &, gpu::LaunchOp)> build);

// Elementwise kernels and chains (GpuKernelElementwise.cpp).

/// Largest element size among `op`'s vectorizable buffer operands (0 when none).
int64_t maxElementBytes(linalg::GenericOp op);

/// An all-parallel op as one grid-stride kernel: each thread takes chunks of `width`
/// consecutive innermost elements (one vector access per operand where the layout allows),
/// chunk c, c + grid threads, ...; a flat op whose size is no multiple of the vector width
/// does its last elements one per thread after the loop.
void emitElementwise(OpBuilder &b, linalg::GenericOp op, int64_t blockSize, int64_t maxBlocks);

/// Whether `op` may join an elementwise chain over `ranges`: all parallel over exactly those
/// ranges.
bool isChainable(linalg::GenericOp op, ArrayRef<int64_t> ranges);

/// Adjacent all-parallel ops over the same iteration space (the ops of one strata.fusion
/// group with several results, such as a bias add and its relu) as ONE grid-stride kernel:
/// each thread runs every op on its chunk in order, a buffer one op writes and a later one
/// reads at the same element is a register, and one nothing outside the chain reads is never
/// written. Every access to a buffer the chain writes must be that same element (checked by
/// the caller), so no chunk needs another thread's result.
void emitElementwiseChain(OpBuilder &b, ArrayRef<linalg::GenericOp> ops, int64_t blockSize,
                          int64_t maxBlocks);

/// Whether `ops` (all chainable over one iteration space) touch every buffer any of them
/// writes only at the element being computed.
bool checkChainAccesses(ArrayRef<linalg::GenericOp> ops);

// Full, per-output and arg reductions (GpuKernelReductions.cpp).

/// Whether `op` reduces all of its (at least one) dimensions into 0-d-like outputs.
bool isFullReduction(linalg::GenericOp op);

/// A full reduction as two kernels: `blocks` blocks stride over the elements (vector loads
/// where the layout allows), reduce their partials in the block (warp shuffles, then shared
/// memory) and write one partial per block to a temporary; one block then combines the
/// partials in a fixed order with the output's initial value (the preceding fill's constant
/// when there is one, else the output's content). The same sizes give the same association
/// order on every run: deterministic, unlike atomics.
void emitFullReduction(OpBuilder &b, linalg::GenericOp op, Value fillValue, int64_t blockSize,
                       int64_t maxBlocks);

/// Whether every output of `op` has a combiner (a reduction the kernels here can split).
bool hasCombiners(linalg::GenericOp op);

/// A reduction that is neither a row reduction nor a full one (a column sum: reduction
/// dimensions before parallel ones) as one grid-stride kernel of one thread per output element,
/// each looping over the reduction dimensions in order (no reassociation). Adjacent threads
/// take adjacent output elements, so a column sum of a row-major matrix reads coalesced rows.
void emitPerOutputReduction(OpBuilder &b, linalg::GenericOp op, Value fillValue, int64_t blockSize,
                            int64_t maxBlocks);

/// Whether `op` is the argmax/argmin generic of strata-lower-to-linalg over its last dimension:
/// one input, outputs (best value, index) per row, body `c = better(x, best); yield select(c,
/// x, best), select(c, index_cast(linalg.index), idx)` with `c` not reading the index.
bool isArgReduction(linalg::GenericOp op);

/// An argmax/argmin over the last dimension as one kernel of one team (warp or block) per row,
/// like a row reduction: each thread scans its elements in order with the op's own body,
/// starting from the row's initial (value, index) (the first element, 0); teams then combine
/// (value, index) pairs by shuffles and shared memory. Two partial results a and b combine to
/// the one the body prefers in both argument orders, or, when it prefers neither (a tie, two
/// NaNs), the one with the lower index: the sequential scan's first extremum (first NaN). The
/// combination is idempotent, so the initial pair is also what lanes without data contribute.
void emitArgReduction(OpBuilder &b, linalg::GenericOp op, int64_t blockSize, int64_t maxBlocks);

// Row groups (GpuRowGroups.cpp).

/// Consecutive ops over the same rows, with at least one row reduction, run as one kernel.
struct RowGroup {
  RowSpace space;
  SmallVector<linalg::GenericOp> ops;
};

/// Roots written by the ops of `group` and how (RowElement or PerRow); fails when an access
/// of a written root disagrees (a transposed read of a row temporary would need another
/// thread's element).
bool checkGroupAccesses(ArrayRef<linalg::GenericOp> ops, const RowSpace &space);

/// Whether `root` is a memref.alloc whose every use (through views) is an op of `ops` or its
/// dealloc: a temporary of the group that need not reach memory.
bool isGroupTemporary(Value root, ArrayRef<linalg::GenericOp> ops);

/// One kernel for a row group: a team (a warp for short rows, else the block) per row, rows
/// strided over the grid. Within a row, thread `lane` owns chunks lane, lane + team, ... of
/// `width` consecutive elements in every op, so a row temporary one op writes and a later op
/// reads never crosses threads: with few chunks per thread it stays in registers (no global
/// buffer), otherwise the thread reads back what it wrote itself. Row reductions combine each
/// thread's chunks, then the team (warp shuffles; shared memory across warps); the per-row
/// result is a register every thread holds. Buffers that outlive the group get the last value
/// written to them.
void emitRowGroup(OpBuilder &b, RowGroup &group, int64_t blockSize, int64_t maxBlocks);

} // namespace mlir::strata::gpu_kernels
