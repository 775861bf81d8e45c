// strata-outline-kernels: every loop nest (a linalg op on buffers, or a top-level scf.for or
// scf.parallel) becomes a call of a private function (one per distinct computation), so that
// LLVM compiles a few small functions, not one huge one.
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::strata {
#define GEN_PASS_DEF_STRATAOUTLINEKERNELS
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;

namespace {

/// Outlines loop nests of the functions of one module, sharing a function between ops that are
/// the same computation (a deep network's layers of one shape, a chain's repeated pattern): LLVM
/// then compiles each distinct loop nest once.
class Outliner {
public:
  explicit Outliner(ModuleOp module) : symbols(module) {}

  /// Replaces `op` (in `fn`) by a call of a private function holding a copy of it, whose
  /// arguments are the op's operands and the values its body reads from outside. Constants the
  /// body reads are cloned into the function (LLVM folds them there) rather than passed.
  void outline(func::FuncOp fn, Operation *op) {
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(op->getRegions(), captured);
    // Constant operands (a loop's bounds and step) are cloned too, so that LLVM sees the trip
    // counts. Every other operand is an argument, repeated ones too (distinctBuffers sees them
    // all); a captured value only once.
    SmallVector<Value> args;
    SmallVector<Operation *> constants;
    auto take = [&](Value v, bool repeat) {
      Operation *def = v.getDefiningOp();
      if (def && isa<arith::ConstantOp>(def)) {
        if (!llvm::is_contained(constants, def))
          constants.push_back(def);
      } else if (repeat || !llvm::is_contained(args, v)) {
        args.push_back(v);
      }
    };
    for (Value v : op->getOperands())
      take(v, /*repeat=*/true);
    for (Value v : captured)
      take(v, /*repeat=*/false);
    OpBuilder b(fn->getContext());
    Location loc = op->getLoc();
    auto type = b.getFunctionType(ValueRange(args).getTypes(), {});
    auto kernel = func::FuncOp::create(loc, "kernel", type);
    kernel.setPrivate();
    // The O2 inliner would put a function with one call site back into its caller (LLVM's
    // noinline, which func-to-llvm passes through). When no two buffer arguments share an
    // allocation, "strata-noalias-buffers" tells the jit to mark the buffers' pointers
    // noalias: LLVM then vectorizes without run-time overlap checks and the scalar copy of
    // each loop they guard (func-to-llvm drops llvm.noalias on a memref argument).
    SmallVector<Attribute> passthrough = {b.getStringAttr("noinline")};
    if (distinctBuffers(args))
      passthrough.push_back(b.getStringAttr("strata-noalias-buffers"));
    kernel->setAttr("passthrough", b.getArrayAttr(passthrough));
    Block *body = kernel.addEntryBlock();
    IRMapping map;
    for (auto [v, arg] : llvm::zip(args, body->getArguments()))
      map.map(v, arg);
    b.setInsertionPointToStart(body);
    for (Operation *c : constants)
      b.clone(*c, map);
    b.clone(*op, map);
    func::ReturnOp::create(b, loc);

    // The same text is the same computation (locations aside, which are not printed).
    std::string text;
    llvm::raw_string_ostream os(text);
    kernel->print(os, OpPrintingFlags().useLocalScope().enableDebugInfo(false));
    auto [it, inserted] = kernels.try_emplace(text, kernel);
    if (inserted) {
      // Named apart from the functions it comes from ("main" is not a prefix: a reader
      // searching for @main finds main).
      kernel.setSymName(("kernel" + Twine(kernels.size() - 1)).str());
      // After the function they came from, in the order they are made.
      Operation *&after = lastKernel[fn];
      if (!after)
        after = fn;
      symbols.insert(kernel, std::next(Block::iterator(after)));
      after = kernel;
    } else {
      kernel->erase();
    }
    b.setInsertionPoint(op);
    func::CallOp::create(b, loc, it->second, args);
    op->erase();
  }

private:
  /// The allocation `v` is a view of: a memref.alloc/alloca, a function argument or a global;
  /// null when it cannot tell (a buffer passed through a loop or a branch).
  static Operation *allocationOf(Value v, Value &argument, StringRef &global) {
    while (true) {
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        if (!arg.getOwner()->isEntryBlock() || !isa<func::FuncOp>(arg.getOwner()->getParentOp()))
          return nullptr;
        argument = v;
        return arg.getOwner()->getParentOp();
      }
      Operation *def = v.getDefiningOp();
      if (isa<memref::AllocOp, memref::AllocaOp>(def))
        return def;
      if (auto g = dyn_cast<memref::GetGlobalOp>(def)) {
        global = g.getName();
        return def;
      }
      auto view = dyn_cast<ViewLikeOpInterface>(def);
      if (!view)
        return nullptr;
      v = view.getViewSource();
    }
  }

  /// Whether the memref values of `args` are views of pairwise different allocations (the
  /// function's arguments count as different: inputs are never written and the runtime
  /// allocates every output).
  static bool distinctBuffers(ArrayRef<Value> args) {
    SmallVector<std::tuple<Operation *, Value, StringRef>> roots;
    for (Value v : args) {
      if (!isa<MemRefType>(v.getType()))
        continue;
      Value argument;
      StringRef global;
      Operation *root = allocationOf(v, argument, global);
      if (!root)
        return false;
      for (auto [r, a, g] : roots)
        if (global.empty() ? (r == root && a == argument) : g == global)
          return false;
      roots.emplace_back(root, argument, global);
    }
    return true;
  }

  SymbolTable symbols;
  /// The functions made so far, by their text under the placeholder name.
  llvm::StringMap<func::FuncOp> kernels;
  /// The last function made from each function.
  DenseMap<Operation *, Operation *> lastKernel;
};

/// The operations inside `nests`, a math op counting as kMathWeight: what LLVM will compile, in
/// the units of its cost, since strata-approximate-math expands each f32 transcendental to a
/// polynomial with its range reduction.
int64_t codeWeight(ArrayRef<Operation *> nests) {
  constexpr int64_t kMathWeight = 32;
  int64_t weight = 0;
  for (Operation *nest : nests)
    nest->walk([&](Operation *op) {
      weight += op->getDialect() && op->getDialect()->getNamespace() == "math" ? kMathWeight : 1;
    });
  return weight;
}

struct StrataOutlineKernelsPass : strata::impl::StrataOutlineKernelsBase<StrataOutlineKernelsPass> {
  using StrataOutlineKernelsBase::StrataOutlineKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Outliner outliner(module);
    for (func::FuncOp fn : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (fn.isExternal())
        continue;
      // Linalg ops on buffers anywhere (their bodies hold none), and the loops that
      // strata-parallelize-loops made of them: those directly in the function's body (a loop
      // inside another is part of its nest; loops of the program's control flow sit in their
      // own regions and stay).
      SmallVector<Operation *> ops;
      fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
            linalgOp && linalgOp.hasPureBufferSemantics()) {
          ops.push_back(op);
          return WalkResult::skip();
        }
        if (isa<scf::ForOp, scf::ParallelOp>(op) && op->getParentOp() == fn &&
            op->getNumResults() == 0) {
          ops.push_back(op);
          return WalkResult::skip();
        }
        return WalkResult::advance();
      });
      if (static_cast<int64_t>(ops.size()) < minKernels &&
          (minOps <= 0 || codeWeight(ops) < minOps))
        continue;
      for (Operation *op : ops)
        outliner.outline(fn, op);
    }
  }
};

} // namespace
