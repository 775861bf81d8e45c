// strata-conv-to-runtime: strata.conv_general_dilated => a call of the CPU runtime's convolution
// kernel (libstrata's, shared with the eager primitive) on its buffers, with the bias and
// activation that the fusion reading its result starts with folded into the call; or with
// cuda=true a call of the CUDA runtime's cuDNN convolution where cuDNN takes it.
#include "transforms/Passes.h"
#include "transforms/lowering/Lowering.h"

#include "dialects/strata/StrataOps.h"
#include "dialects/strata/StrataVerify.h"
#include "runtime/cuda/DnnSupport.h"
#include "strata/internal/conv_kernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cmath>
#include <limits>

namespace mlir::strata {
#define GEN_PASS_DEF_STRATACONVTORUNTIME
#include "transforms/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;
using namespace mlir::strata::lowering;
namespace st = mlir::strata;

namespace {

constexpr StringLiteral kConvFn = "strata_rt_conv";
constexpr StringLiteral kConvEpilogueFn = "strata_rt_conv_epilogue";
constexpr StringLiteral kCudaConvFn = "strata_rt_cuda_conv";

bool isStaticStrataTensor(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && rt.hasStaticShape() && st::toDType(rt.getElementType()).has_value();
}

bool isStaticConv(st::ConvGeneralDilatedOp op) {
  return isStaticStrataTensor(op.getLhs().getType()) &&
         isStaticStrataTensor(op.getRhs().getType()) && isStaticStrataTensor(op.getType());
}

using Act = ::strata::ConvEpilogue::Act;

/// An epilogue of a convolution found at the start of the fusion that reads its result: the
/// body value `result` = act(arg + bias) that the runtime call computes instead.
struct Epilogue {
  st::FusionOp fusion;
  BlockArgument arg; // the convolution's result in the fusion's body
  Value bias;        // the fusion operand holding the bias (null: none)
  Act act = Act::None;
  double alpha = 0, beta = 0;
  Value result;                    // what the call computes, in the body
  SmallVector<Operation *> folded; // the body ops computing it from arg (and the bias)
};

/// The value of a splat float constant.
std::optional<double> splat(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

/// The one op using v (null if v has no user or several).
Operation *soleUser(Value v) {
  if (!v.hasOneUse())
    return nullptr;
  return *v.getUsers().begin();
}

/// The operand of binary `op` that is not `x` (null when neither or both are x).
Value other(Operation *op, Value x) {
  if (!op || op->getNumOperands() != 2)
    return nullptr;
  Value a = op->getOperand(0), c = op->getOperand(1);
  if (a == x && c != x)
    return c;
  if (c == x && a != x)
    return a;
  return nullptr;
}

/// The splat constant that `op` (of class OpT) combines x with.
template <class OpT> std::optional<double> withConstant(Operation *op, Value x) {
  if (!isa_and_nonnull<OpT>(op))
    return std::nullopt;
  return splat(other(op, x));
}

/// The bias operand (a fusion operand) of `add`, an add of x and the broadcast of a bias along
/// the convolution's output feature dimension `featureDim` of size `features`.
Value biasOf(st::FusionOp fusion, Operation *add, Value x, int64_t featureDim, int64_t features) {
  if (!isa_and_nonnull<st::AddOp>(add))
    return nullptr;
  auto bc = other(add, x).getDefiningOp<st::BroadcastInDimOp>();
  if (!bc)
    return nullptr;
  auto arg = dyn_cast<BlockArgument>(bc.getOperand());
  auto type = dyn_cast<RankedTensorType>(bc.getOperand().getType());
  if (!arg || arg.getOwner() != &fusion.getRegion().front() || !type || !type.hasStaticShape() ||
      type.getNumElements() != features ||
      type.getElementType() != cast<RankedTensorType>(x.getType()).getElementType())
    return nullptr;
  ArrayRef<int64_t> dims = bc.getBroadcastDimensions();
  for (auto [i, size] : llvm::enumerate(type.getShape()))
    if (size != 1 && dims[i] != featureDim)
      return nullptr;
  return fusion.getOperand(arg.getArgNumber());
}

/// Matches an activation of x, filling e.act/alpha/beta, e.folded and e.result.
bool matchActivation(Value x, Epilogue &e) {
  SmallVector<Operation *> users(x.getUsers().begin(), x.getUsers().end());
  llvm::SmallPtrSet<Operation *, 4> userSet(users.begin(), users.end());
  auto done = [&](Act act, std::initializer_list<Operation *> ops, double alpha = 0,
                  double beta = 0) {
    e.act = act;
    e.alpha = alpha;
    e.beta = beta;
    e.folded.append(ops.begin(), ops.end());
    e.result = (*(ops.end() - 1))->getResult(0);
    return true;
  };
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (userSet.size() == 1) {
    Operation *u = users.front();
    if (isa<st::TanhOp>(u))
      return done(Act::Tanh, {u});
    if (isa<st::LogisticOp>(u)) {
      return done(Act::Logistic, {u});
    }
    // max(x, lo), optionally then min(., hi); min(x, hi), optionally then max(., lo).
    if (std::optional<double> lo = withConstant<st::MaxOp>(u, x)) {
      Operation *v = soleUser(u->getResult(0));
      std::optional<double> hi = withConstant<st::MinOp>(v, u->getResult(0));
      if (hi && *lo <= *hi)
        return done(Act::Clamp, {u, v}, *lo, *hi);
      return *lo == 0 ? done(Act::Relu, {u}) : done(Act::Clamp, {u}, *lo, inf);
    }
    if (std::optional<double> hi = withConstant<st::MinOp>(u, x)) {
      Operation *v = soleUser(u->getResult(0));
      std::optional<double> lo = withConstant<st::MaxOp>(v, u->getResult(0));
      if (lo && *lo <= *hi)
        return done(Act::Clamp, {u, v}, *lo, *hi);
      return done(Act::Clamp, {u}, -inf, *hi);
    }
    return false;
  }
  if (userSet.size() == 2) {
    // silu: x * logistic(x).
    for (Operation *l : userSet)
      if (isa<st::LogisticOp>(l)) {
        Operation *m = soleUser(l->getResult(0));
        if (isa_and_nonnull<st::MulOp>(m) && userSet.contains(m) && other(m, x) == l->getResult(0))
          return done(Act::Silu, {l, m});
      }
    return false;
  }
  if (userSet.size() == 3) {
    // leaky relu: select(x >= 0, x, x * slope).
    for (Operation *s : userSet) {
      auto sel = dyn_cast<st::SelectOp>(s);
      if (!sel || sel->getOperand(1) != x)
        continue;
      Operation *ge = sel->getOperand(0).getDefiningOp(), *mul = sel->getOperand(2).getDefiningOp();
      std::optional<double> zero = withConstant<st::GeOp>(ge, x);
      std::optional<double> slope = withConstant<st::MulOp>(mul, x);
      if (zero && *zero == 0 && slope && ge->getOperand(0) == x && userSet.contains(ge) &&
          userSet.contains(mul) && soleUser(ge->getResult(0)) == s &&
          soleUser(mul->getResult(0)) == s)
        return done(Act::LeakyRelu, {ge, mul, s}, *slope);
    }
    // gelu (tanh): x * (0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))).
    for (Operation *p : userSet) {
      auto pow = dyn_cast<st::IntegerPowOp>(p);
      if (!pow || pow.getY() != 3)
        continue;
      auto near = [](std::optional<double> v, double want) {
        return v && std::abs(*v - want) <= 1e-6 * std::abs(want);
      };
      Operation *m1 = soleUser(pow.getResult());
      if (!near(withConstant<st::MulOp>(m1, pow.getResult()), 0.044715))
        continue;
      Operation *a1 = soleUser(m1->getResult(0));
      if (!isa_and_nonnull<st::AddOp>(a1) || other(a1, m1->getResult(0)) != x)
        continue;
      Operation *m2 = soleUser(a1->getResult(0));
      if (!near(withConstant<st::MulOp>(m2, a1->getResult(0)), 0.7978845608028654))
        continue;
      Operation *t = soleUser(m2->getResult(0));
      if (!isa_and_nonnull<st::TanhOp>(t))
        continue;
      Operation *a2 = soleUser(t->getResult(0));
      if (!near(withConstant<st::AddOp>(a2, t->getResult(0)), 1.0))
        continue;
      Operation *m3 = soleUser(a2->getResult(0));
      if (!near(withConstant<st::MulOp>(m3, a2->getResult(0)), 0.5))
        continue;
      Operation *m4 = soleUser(m3->getResult(0));
      if (!isa_and_nonnull<st::MulOp>(m4) || other(m4, m3->getResult(0)) != x ||
          !userSet.contains(a1) || !userSet.contains(m4))
        continue;
      return done(Act::GeluTanh, {p, m1, a1, m2, t, a2, m3, m4});
    }
  }
  return false;
}

/// The epilogue that the fusion reading conv's result (its only user) starts with: an add of a
/// bias along the output features, an activation, or both. Float32 and float64 results only,
/// the dtypes whose kernels apply it in their own precision.
std::optional<Epilogue> findEpilogue(st::ConvGeneralDilatedOp op) {
  auto outType = cast<RankedTensorType>(op.getType());
  if (!outType.getElementType().isF32() && !outType.getElementType().isF64())
    return std::nullopt;
  if (!op.getResult().hasOneUse())
    return std::nullopt;
  OpOperand &use = *op.getResult().getUses().begin();
  auto fusion = dyn_cast<st::FusionOp>(use.getOwner());
  if (!fusion)
    return std::nullopt;
  Epilogue e;
  e.fusion = fusion;
  e.arg = fusion.getRegion().front().getArgument(use.getOperandNumber());
  int64_t featureDim = op.getOutSpec()[1];
  Value x = e.arg;
  if (Operation *add = soleUser(x)) {
    if (Value bias = biasOf(fusion, add, x, featureDim, outType.getDimSize(featureDim))) {
      e.bias = bias;
      e.folded.push_back(add);
      x = add->getResult(0);
    }
  }
  if (!x.use_empty()) {
    Epilogue withAct = e;
    if (matchActivation(x, withAct)) {
      // Every value between x and the result must be read only inside the activation.
      llvm::SmallPtrSet<Operation *, 8> inside(withAct.folded.begin(), withAct.folded.end());
      bool closed = llvm::all_of(x.getUsers(), [&](Operation *u) { return inside.contains(u); });
      for (Operation *f : withAct.folded)
        if (f->getResult(0) != withAct.result)
          closed = closed &&
                   llvm::all_of(f->getUsers(), [&](Operation *u) { return inside.contains(u); });
      if (closed)
        return withAct;
    }
  }
  if (!e.bias)
    return std::nullopt;
  e.result = x;
  return e;
}

/// The fusion with its results that only pass a block argument through replaced by the operand
/// (a folded epilogue leaves them): they would be copies.
void dropPassThroughResults(st::FusionOp fusion) {
  Block &body = fusion.getRegion().front();
  Operation *yield = body.getTerminator();
  SmallVector<unsigned> kept;
  for (auto [i, v] : llvm::enumerate(yield->getOperands())) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (arg && arg.getOwner() == &body)
      fusion.getResult(i).replaceAllUsesWith(fusion.getOperand(arg.getArgNumber()));
    else
      kept.push_back(i);
  }
  if (kept.size() == fusion.getNumResults())
    return;
  if (kept.empty()) {
    fusion->erase();
    return;
  }
  OpBuilder b(fusion);
  SmallVector<Type> types;
  SmallVector<Value> yielded;
  for (unsigned i : kept) {
    types.push_back(fusion.getResult(i).getType());
    yielded.push_back(yield->getOperand(i));
  }
  auto fresh = st::FusionOp::create(b, fusion.getLoc(), types, fusion.getOperands());
  fresh.getRegion().takeBody(fusion.getRegion());
  yield->setOperands(yielded);
  for (auto [n, i] : llvm::enumerate(kept))
    fusion.getResult(i).replaceAllUsesWith(fresh.getResult(n));
  fusion->erase();
}

/// Removes the body ops that a folded epilogue left unread.
void eraseDeadOps(Block &body) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (&op != body.getTerminator() && op.use_empty() && isMemoryEffectFree(&op))
      op.erase();
}

/// `cuda`: the CUDA runtime's cuDNN call (no folded epilogue), only for what cuDNN takes
/// (cudnn_takes); the other convolutions stay, for strata-lower-to-linalg's generated kernels.
LogicalResult lowerConv(OpBuilder &b, ModuleOp module, st::ConvGeneralDilatedOp op, bool cuda) {
  if (!isStaticConv(op))
    return failure();
  RankedTensorType lhsType = tensorOf(op.getLhs()), rhsType = tensorOf(op.getRhs());
  RankedTensorType outType = cast<RankedTensorType>(op.getType());
  FailureOr<::strata::Params> params = st::primitiveParams(op);
  if (failed(params))
    return failure();
  ::strata::Shape ls(lhsType.getShape()), rs(rhsType.getShape()), os(outType.getShape());
  ::strata::ConvProblem problem = ::strata::conv_problem(ls, rs, os, *params);
  std::vector<int64_t> table = problem.encode();
  if (cuda) {
    std::optional<::strata::DType> in = st::toDType(lhsType.getElementType()),
                                   out = st::toDType(outType.getElementType());
    if (!::strata::cuda::cudnn_takes(problem, static_cast<int64_t>(*in),
                                     static_cast<int64_t>(*out)))
      return success();
  }
  std::optional<Epilogue> epilogue;
  if (!cuda && outType.getNumElements() > 0)
    epilogue = findEpilogue(op);

  // A folded bias is a fusion operand, which may be defined after the convolution.
  b.setInsertionPoint(epilogue ? epilogue->fusion.getOperation() : op.getOperation());
  RuntimeCallBuilder c{b, op.getLoc()};
  auto tableType = RankedTensorType::get({static_cast<int64_t>(table.size())}, b.getI64Type());
  Value tableTensor = arith::ConstantOp::create(
      b, c.loc, DenseElementsAttr::get(tableType, ArrayRef<int64_t>(table)));
  Value out = c.output(outType);
  if (outType.getNumElements() > 0) {
    Value lhs = c.input(op.getLhs()), rhs = c.input(op.getRhs());
    Value tableBuffer = c.input(tableTensor);
    SmallVector<Value> args{c.dtype(lhsType), c.dtype(outType), c.address(lhs),
                            c.address(rhs),   c.address(out),   c.address(tableBuffer)};
    if (!epilogue) {
      func::CallOp::create(b, c.loc, declareRuntimeFn(b, module, cuda ? kCudaConvFn : kConvFn, 6),
                           args);
    } else {
      std::array<double, 3> code = {static_cast<double>(epilogue->act), epilogue->alpha,
                                    epilogue->beta};
      auto codeType = RankedTensorType::get({3}, b.getF64Type());
      Value codeTensor = arith::ConstantOp::create(
          b, c.loc, DenseElementsAttr::get(codeType, ArrayRef<double>(code)));
      args.push_back(epilogue->bias ? c.address(c.input(epilogue->bias)) : c.constant(0));
      args.push_back(c.address(c.input(codeTensor)));
      func::CallOp::create(b, c.loc, declareRuntimeFn(b, module, kConvEpilogueFn, 8), args);
    }
  }
  Value result = c.result(out, outType);
  if (epilogue) {
    // The fusion reads the call's result where it computed the epilogue.
    epilogue->fusion->setOperand(epilogue->arg.getArgNumber(), result);
    epilogue->result.replaceAllUsesWith(epilogue->arg);
    eraseDeadOps(epilogue->fusion.getRegion().front());
    dropPassThroughResults(epilogue->fusion);
  } else {
    op.getResult().replaceAllUsesWith(result);
  }
  op->erase();
  return success();
}

struct StrataConvToRuntimePass : st::impl::StrataConvToRuntimeBase<StrataConvToRuntimePass> {
  using StrataConvToRuntimeBase::StrataConvToRuntimeBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<st::ConvGeneralDilatedOp> ops;
    module.walk([&](st::ConvGeneralDilatedOp op) { ops.push_back(op); });
    OpBuilder b(&getContext());
    for (st::ConvGeneralDilatedOp op : ops) {
      if (cuda && !isStaticConv(op))
        continue; // the generated kernels' to handle (or to reject)
      if (failed(lowerConv(b, module, op, cuda))) {
        op.emitOpError("needs static shapes of Strata element types to become a runtime call");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
