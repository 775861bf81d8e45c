// strata-fuse: greedy producer-into-consumer grouping of elementwise chains, their broadcasts
// and constants, and reductions with their prologues and epilogues, into strata.fusion ops. The
// cost model is in Passes.td.
#include "dialects/strata/StrataOps.h"
#include "transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATAFUSE
#include "transforms/Passes.h.inc"

bool isElementwisePrimitive(Operation *op) {
  return op->hasTrait<traits::Elementwise>() && op->hasTrait<traits::Fusible>() &&
         isMemoryEffectFree(op);
}
} // namespace mlir::strata

using namespace mlir;
using namespace mlir::strata;

namespace {

/// A broadcast of at most this many elements is cheap enough to recompute in every group.
constexpr int64_t kSmallBroadcastOperand = 1 << 16;

/// A group stops growing at this many members: linalg's fusion of a group's loop nests and
/// LLVM's register allocation of the fused loop body both cost more than linearly in the size
/// of one body, while a long chain cut into groups this size costs only one more pass over
/// memory per group.
constexpr size_t kMaxGroupMembers = 64;

/// The reductions a group may hold (their lowering is a linalg reduction over the operand).
bool isReduction(Operation *op) { return op->hasTrait<traits::Reduction>(); }

/// arith.constant by its op class: OpTrait::ConstantLike, a template trait, is not reliable
/// across the clang-built libMLIR and a GCC-built pass (see StrataOps.cpp).
bool isConstant(Operation *op) {
  return isa<arith::ConstantOp>(op) ||
         (op->hasTrait<OpTrait::ConstantLike>() && op->getNumOperands() == 0 &&
          op->getNumRegions() == 0 && op->getNumResults() == 1);
}

/// Ops that may join a group as producers (subject to where they sit, see BlockFuser::admits).
bool isFusibleProducer(Operation *op) {
  return isElementwisePrimitive(op) || isReduction(op) || isa<BroadcastInDimOp>(op) ||
         isConstant(op);
}

/// Producers cheap enough to duplicate into a group while their original stays.
bool isCheapToDuplicate(Operation *op) {
  if (isConstant(op))
    return true;
  if (auto b = dyn_cast<BroadcastInDimOp>(op)) {
    auto type = dyn_cast<RankedTensorType>(b->getOperand(0).getType());
    return type && type.hasStaticShape() && type.getNumElements() <= kSmallBroadcastOperand;
  }
  return false;
}

struct Group {
  Operation *root;
  SmallVector<Operation *> members;    // moved into the fusion (root first)
  llvm::SetVector<Operation *> clones; // duplicated into the fusion; originals stay
  /// Elementwise members behind a broadcast: they compute on a reduction's result (the
  /// epilogue of a reduction, before it is broadcast back), see BlockFuser::admits.
  DenseSet<Operation *> reducedSide;
};

class BlockFuser {
public:
  explicit BlockFuser(Block &block) : block(block) {}

  void run() {
    for (Operation &op : llvm::reverse(block))
      if (!groupOf.count(&op) && (isElementwisePrimitive(&op) || isReduction(&op)))
        grow(&op);
    DenseSet<Operation *> moved;
    llvm::SetVector<Operation *> cloned;
    for (Group &g : groups) {
      if (g.members.size() + g.clones.size() < 2)
        continue;
      moved.insert(g.members.begin(), g.members.end());
      cloned.insert(g.clones.begin(), g.clones.end());
      materialize(g);
    }
    // Originals of duplicated producers that no one reads any more.
    for (Operation *op : llvm::reverse(cloned))
      if (!moved.contains(op) && op->use_empty())
        op->erase();
  }

private:
  /// Where `user` will sit in the block once the groups are built: its ancestor in the block,
  /// or the root of the group that ancestor belongs to; null if it is not in this block.
  Operation *placeOf(Operation *user) {
    Operation *anc = block.findAncestorOpInBlock(*user);
    if (!anc)
      return nullptr;
    auto it = groupOf.find(anc);
    return it == groupOf.end() ? anc : groups[it->second].root;
  }

  /// Whether `def` can move into group `id`: each user is in the group or will sit after its
  /// root (where the fusion's result replaces `def`'s value).
  bool canMove(Operation *def, unsigned id) {
    Operation *root = groups[id].root;
    for (Operation *user : def->getUsers()) {
      auto it = groupOf.find(user);
      if (it != groupOf.end() && it->second == id)
        continue;
      Operation *place = placeOf(user);
      if (!place || place == root || !root->isBeforeInBlock(place))
        return false;
    }
    return true;
  }

  /// Whether `op` computes on a reduction's result: a reduction that no other group holds, or
  /// an elementwise op with such an operand (in this block). Memoized.
  bool isReducedChain(Operation *op) {
    auto [it, inserted] = reducedChain.try_emplace(op, false);
    if (!inserted)
      return it->second;
    bool result = false;
    if (isReduction(op)) {
      result = !groupOf.count(op);
    } else if (isElementwisePrimitive(op)) {
      result = llvm::any_of(op->getOperands(), [&](Value v) {
        Operation *def = v.getDefiningOp();
        return def && def->getBlock() == &block && isReducedChain(def);
      });
    }
    reducedChain[op] = result;
    return result;
  }

  /// Whether producer `def` may join group `id` through an operand of `member`, and if so
  /// whether it sits on the reduced side. Behind a broadcast (or on the reduced side) only a
  /// reduction and the elementwise chain computing on one may join: the broadcast's operand
  /// is computed once per reduced element, never recomputed per broadcast element from a
  /// producer that is not part of the reduction's epilogue.
  std::optional<bool> admits(Operation *member, Operation *def, unsigned id) {
    bool behindBroadcast = isa<BroadcastInDimOp>(member);
    bool onReducedSide = groups[id].reducedSide.contains(member);
    if (isReduction(def))
      return false;
    if (!behindBroadcast && !onReducedSide)
      return false; // elementwise, broadcast or constant: the ordinary rules
    if (isElementwisePrimitive(def) && isReducedChain(def))
      return true;
    if (onReducedSide && (isa<BroadcastInDimOp>(def) || isConstant(def)))
      return false;
    return std::nullopt;
  }

  void grow(Operation *root) {
    unsigned id = groups.size();
    groups.push_back(Group{root, {root}, {}, {}});
    reducedChain.clear(); // other groups have taken reductions since it was filled
    groupOf[root] = id;
    // Fixed point: a producer rejected now may qualify once more of its users have joined.
    for (bool changed = true; changed && groups[id].members.size() < kMaxGroupMembers;) {
      changed = false;
      for (size_t i = 0;
           i < groups[id].members.size() && groups[id].members.size() < kMaxGroupMembers; ++i) {
        Operation *member = groups[id].members[i];
        for (Value v : member->getOperands()) {
          Operation *def = v.getDefiningOp();
          if (!def || def->getBlock() != &block || groupOf.count(def) || !isFusibleProducer(def))
            continue;
          std::optional<bool> reducedSide = admits(member, def, id);
          if (!reducedSide || !canMove(def, id))
            continue;
          groups[id].members.push_back(def);
          if (*reducedSide)
            groups[id].reducedSide.insert(def);
          groupOf[def] = id;
          changed = true;
        }
      }
    }
    // What stayed outside but is cheap to recompute comes in as a copy.
    for (Operation *member : groups[id].members) {
      if (isa<BroadcastInDimOp>(member))
        continue;
      for (Value v : member->getOperands()) {
        Operation *def = v.getDefiningOp();
        if (def && def->getBlock() == &block && !groupOf.count(def) && isCheapToDuplicate(def))
          groups[id].clones.insert(def);
      }
    }
  }

  void materialize(Group &g) {
    SmallVector<Operation *> ops(g.members.begin(), g.members.end());
    ops.append(g.clones.begin(), g.clones.end());
    llvm::sort(ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    DenseSet<Operation *> inGroup(ops.begin(), ops.end());
    DenseSet<Operation *> members(g.members.begin(), g.members.end());

    llvm::SetVector<Value> inputs;
    SmallVector<Value> outputs;
    for (Operation *op : ops) {
      for (Value v : op->getOperands()) {
        Operation *def = v.getDefiningOp();
        if (!def || !inGroup.contains(def))
          inputs.insert(v);
      }
      if (!members.contains(op))
        continue;
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(), [&](Operation *u) { return !members.contains(u); }))
          outputs.push_back(r);
    }

    OpBuilder builder(g.root);
    Location loc = g.root->getLoc();
    auto fusion =
        FusionOp::create(builder, loc, ValueRange(outputs).getTypes(), inputs.getArrayRef());
    Block *body = new Block();
    fusion.getRegion().push_back(body);
    IRMapping map;
    for (Value v : inputs)
      map.map(v, body->addArgument(v.getType(), v.getLoc()));
    OpBuilder inner = OpBuilder::atBlockEnd(body);
    for (Operation *op : ops)
      inner.clone(*op, map);
    SmallVector<Value> yielded;
    for (Value v : outputs)
      yielded.push_back(map.lookup(v));
    YieldOp::create(inner, loc, yielded);

    for (auto [old, now] : llvm::zip(outputs, fusion.getResults()))
      old.replaceUsesWithIf(now, [&](OpOperand &use) { return !members.contains(use.getOwner()); });
    for (Operation *op : llvm::reverse(ops))
      if (members.contains(op))
        op->erase();
  }

  Block &block;
  SmallVector<Group> groups;
  DenseMap<Operation *, unsigned> groupOf;
  DenseMap<Operation *, bool> reducedChain;
};

struct StrataFusePass : mlir::strata::impl::StrataFuseBase<StrataFusePass> {
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) {
      if (!isa_and_nonnull<FusionOp>(block->getParentOp()))
        blocks.push_back(block);
    });
    for (Block *block : blocks)
      BlockFuser(*block).run();
  }
};

} // namespace
