// jit's staging level: every primitive bound while it is live becomes a strata op.
#include "jit/Staging.h"

#include <memory>
#include <unordered_map>

#include "dialects/strata/StrataOps.h"
#include "dialects/strata/StrataVerify.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "strata/error.h"
#include "strata/internal/trace.h"
#include "strata/lax.h"
#include "strata/sizes.h"

namespace strata::rt {
namespace {

mlir::RankedTensorType tensorType(mlir::MLIRContext &ctx, const AbstractValue &a) {
  return mlir::RankedTensorType::get(a.shape, mlir::strata::toElementType(&ctx, a.dtype));
}

class StagingTracer : public Tracer {
public:
  StagingTracer(const std::shared_ptr<TraceLevel> &level, mlir::Value value)
      : Tracer(level), value(value) {}
  mlir::Value value;
};

/// Closed-over arrays with at most this many elements become `arith.constant`s in the IR (the
/// folders see them); larger ones become trailing arguments of @main.
constexpr int64_t kMaxEmbeddedElements = 16;

class StagingLevel : public TraceLevel {
public:
  StagingLevel(mlir::MLIRContext &ctx, std::string fn_name)
      : ctx_(ctx), builder_(&ctx), fn_name_(std::move(fn_name)) {}
  std::string name() const override { return "jit"; }

  std::vector<Array> process(const Primitive &prim, std::span<const Array> inputs,
                             const Params &params) override {
    if (prim.has(kConcreteOutput)) {
      // The trip count of a while_loop as a concrete number (reverse mode) exists only once
      // the loop has run: the function cannot be compiled alone, and jit runs it op by op.
      // Staging goes on with a stand-in (any count gives the same avals).
      op_by_op = "it needs a concrete while_loop trip count";
      std::vector<AbstractValue> in;
      for (const Array &x : inputs)
        in.push_back(abstract_of(x));
      return concrete_placeholder(prim, in, params);
    }
    if (prim.has(kCall)) // inlined: its operations are staged here
      return call_through(params, inputs);
    if (prim.has(kControlFlow))
      return stage_with_regions(prim, inputs, params);
    std::vector<AbstractValue> in;
    llvm::SmallVector<mlir::Value> operands;
    for (const Array &x : inputs) {
      in.push_back(abstract_of(x));
      operands.push_back(value_of(x));
    }
    std::vector<AbstractValue> out = prim.shape_rule(in, params);
    llvm::SmallVector<mlir::Type> types;
    for (const AbstractValue &a : out) {
      // Compiled code sizes its buffers in i64 bytes: a value past PTRDIFF_MAX cannot exist.
      (void)checked_byte_size(a.dtype, a.shape, prim.name);
      types.push_back(tensorType(ctx_, a));
    }
    std::string error;
    mlir::Operation *op = mlir::strata::buildPrimitiveOp(builder_, next_loc(prim.name), prim.name,
                                                         operands, types, params, error);
    if (!op)
      throw Error(detail::cat("[jit] staging ", prim.name, " failed: ", error),
                  ErrorKind::Internal);
    std::vector<Array> results;
    for (size_t i = 0; i < out.size(); ++i)
      results.push_back(wrap(op->getResult(i), out[i]));
    return results;
  }

  /// Where the regions of a control-flow op take their inputs from: the sub-functions, in the
  /// order of the op's regions; the op inputs every region reads as enclosing values (each
  /// sub-function's leading inputs); and the op's operands.
  struct RegionLayout {
    std::vector<SubFnRef> fns;
    std::vector<Array> outer;
    llvm::SmallVector<mlir::Value> operands;
    size_t num_inits = 0; // scan: the operands before the xs
  };
  RegionLayout region_layout(const Primitive &prim, const std::vector<Array> &in,
                             const Params &params) {
    RegionLayout l;
    size_t first = 0, num_outer = 0;
    if (prim.name == "cond") { // branches read the index's operands directly
      l.fns = params.get_fns("branches");
      first = 1;
      num_outer = in.size() - 1;
    } else if (prim.name == "while") {
      l.fns = {std::get<SubFnRef>(params.at("cond_fun")), std::get<SubFnRef>(params.at("body"))};
      num_outer = l.fns[1]->num_consts;
    } else if (prim.name == "scan") {
      l.fns = {std::get<SubFnRef>(params.at("body"))};
      num_outer = l.fns[0]->num_consts;
      l.num_inits = static_cast<size_t>(params.get_int("num_carry"));
    } else {
      throw Error(detail::cat("[jit] no region layout for control-flow primitive ", prim.name),
                  ErrorKind::Internal);
    }
    l.outer.assign(in.begin() + first, in.begin() + first + num_outer);
    for (size_t i = 0; i < in.size(); ++i)
      if (i < first || i >= first + num_outer)
        l.operands.push_back(value_of(in[i]));
    return l;
  }

  /// A control-flow primitive becomes strata.cond/while/scan: each sub-function is traced once,
  /// with this level's tracers, into its region (its ops staged there, not unrolled). A
  /// sub-function's leading inputs that the op passes as they are (the consts, a cond's
  /// operands) are the enclosing values, since regions read those directly; its other inputs
  /// (the carries, one slice of each xs) are the region's block arguments.
  std::vector<Array> stage_with_regions(const Primitive &prim, std::span<const Array> inputs,
                                        const Params &params) {
    std::vector<Array> in(inputs.begin(), inputs.end());
    std::vector<AbstractValue> avals;
    for (const Array &x : in)
      avals.push_back(abstract_of(x));
    std::vector<AbstractValue> out = prim.shape_rule(avals, params);
    mlir::Location loc = next_loc(params.has("name") ? params.get_string("name") : prim.name);
    RegionLayout l = region_layout(prim, in, params);
    std::vector<std::unique_ptr<mlir::Block>> blocks;
    for (const SubFnRef &f : l.fns) {
      blocks.push_back(std::make_unique<mlir::Block>());
      std::vector<AbstractValue> args(f->in.begin() + l.outer.size(), f->in.end());
      trace_region(*blocks.back(), f->fn, l.outer, args);
    }
    mlir::Operation *op = nullptr;
    llvm::SmallVector<mlir::Type> types = types_of(out);
    if (prim.name == "cond")
      op = mlir::strata::CondOp::create(builder_, loc, types, l.operands[0],
                                        static_cast<unsigned>(blocks.size()));
    else if (prim.name == "while")
      op = mlir::strata::WhileOp::create(builder_, loc, types, l.operands);
    else
      op = mlir::strata::ScanOp::create(builder_, loc, types,
                                        mlir::ValueRange(l.operands).take_front(l.num_inits),
                                        mlir::ValueRange(l.operands).drop_front(l.num_inits),
                                        params.get_int("length"), params.get_bool("reverse"));
    for (size_t k = 0; k < blocks.size(); ++k)
      op->getRegion(static_cast<unsigned>(k)).push_back(blocks[k].release());
    return wrap_all(op->getResults(), out);
  }

  Array wrap(mlir::Value v, const AbstractValue &a) {
    return Array::from_tracer(std::make_shared<StagingTracer>(shared_from_this(), v), a.shape,
                              a.dtype, a.weak_type);
  }

  /// The IR value of an input of a primitive: a tracer of this level, or a constant.
  mlir::Value value_of(const Array &x) {
    if (auto *t = tracer_of<StagingTracer>(x, this))
      return t->value;
    if (x.tracer())
      return stand_in(x);
    return constant(x);
  }

  /// A tracer of an enclosing transform that the function closed over (not an input): the
  /// function cannot be compiled alone, and jit runs it op by op. A stand-in argument of @main
  /// lets staging finish.
  mlir::Value stand_in(const Array &x) {
    op_by_op = "it uses a value traced by " + x.tracer()->origin() + " outside it";
    auto it = constants_.find(x.impl().get());
    if (it != constants_.end())
      return it->second.second;
    mlir::OpBuilder::InsertionGuard guard(builder_);
    builder_.setInsertionPointToStart(entry);
    mlir::Value v = entry->addArgument(tensorType(ctx_, abstract_of(x)), builder_.getUnknownLoc());
    constants_.emplace(x.impl().get(), std::make_pair(x, v));
    return v;
  }

  mlir::Value constant(const Array &x) {
    auto it = constants_.find(x.impl().get());
    if (it != constants_.end())
      return it->second.second;
    mlir::Value v;
    mlir::OpBuilder::InsertionGuard guard(builder_);
    builder_.setInsertionPointToStart(entry);
    mlir::RankedTensorType type = tensorType(ctx_, abstract_of(x));
    if (mlir::DenseElementsAttr attr = embeddable(x, type)) {
      v = mlir::arith::ConstantOp::create(builder_, builder_.getUnknownLoc(), attr);
    } else {
      v = entry->addArgument(type, builder_.getUnknownLoc());
      hoisted.push_back(x);
    }
    // Keep x alive: the map is keyed by its address.
    constants_.emplace(x.impl().get(), std::make_pair(x, v));
    return v;
  }

  mlir::OpBuilder &builder() { return builder_; }

  /// Traces `f(leading ++ block arguments of avals args)` into `block`, ending it with a
  /// strata.yield of the outputs; returns the outputs.
  std::vector<Array> trace_region(mlir::Block &block, const FlatFn &f,
                                  const std::vector<Array> &leading,
                                  const std::vector<AbstractValue> &args = {}) {
    mlir::OpBuilder::InsertionGuard guard(builder_);
    builder_.setInsertionPointToEnd(&block);
    std::vector<Array> inputs = leading;
    for (const AbstractValue &a : args)
      inputs.push_back(wrap(block.addArgument(tensorType(ctx_, a), builder_.getUnknownLoc()), a));
    std::vector<Array> outs = f(inputs);
    llvm::SmallVector<mlir::Value> values;
    for (const Array &o : outs)
      values.push_back(value_of(o));
    mlir::strata::YieldOp::create(builder_, builder_.getUnknownLoc(), values);
    return outs;
  }

  llvm::SmallVector<mlir::Type> types_of(const std::vector<AbstractValue> &avals) {
    llvm::SmallVector<mlir::Type> types;
    for (const AbstractValue &a : avals)
      types.push_back(tensorType(ctx_, a));
    return types;
  }

  std::vector<Array> wrap_all(mlir::ResultRange results, const std::vector<AbstractValue> &avals) {
    std::vector<Array> out;
    for (size_t i = 0; i < avals.size(); ++i)
      out.push_back(wrap(results[i], avals[i]));
    return out;
  }
  mlir::Block *entry = nullptr;
  std::vector<Array> hoisted;
  /// Why the function cannot be compiled alone; empty when it can.
  std::string op_by_op;

private:
  mlir::Location next_loc(const std::string &prim) {
    // "fn":k:0 where k counts staged ops: compile errors point at the k-th primitive.
    return mlir::FileLineColLoc::get(&ctx_, fn_name_ + "/" + prim, ++op_count_, 0);
  }

  /// A small constant of a signless element type as a dense attribute, else null.
  /// Complex constants are arguments: their dense attributes take std::complex values, and the
  /// lowerings fold none of them.
  mlir::DenseElementsAttr embeddable(const Array &x, mlir::RankedTensorType type) {
    if (x.size() > kMaxEmbeddedElements || is_unsigned_integer(x.dtype()) || is_complex(x.dtype()))
      return {};
    std::vector<uint8_t> bytes(static_cast<size_t>(x.nbytes()));
    x.copy_to(bytes.data());
    int64_t width = x.size() ? x.nbytes() / x.size() : 1;
    mlir::Type et = type.getElementType();
    auto element_bits = [&](int64_t i) {
      uint64_t raw = 0;
      std::memcpy(&raw, bytes.data() + i * width, static_cast<size_t>(width));
      return raw;
    };
    if (auto ft = llvm::dyn_cast<mlir::FloatType>(et)) {
      llvm::SmallVector<llvm::APFloat> values;
      for (int64_t i = 0; i < x.size(); ++i)
        values.emplace_back(ft.getFloatSemantics(), llvm::APInt(ft.getWidth(), element_bits(i)));
      return mlir::DenseElementsAttr::get(type, values);
    }
    unsigned bits = et.getIntOrFloatBitWidth();
    llvm::SmallVector<llvm::APInt> values;
    for (int64_t i = 0; i < x.size(); ++i)
      values.emplace_back(bits, bits == 1 ? (element_bits(i) != 0) : element_bits(i));
    return mlir::DenseElementsAttr::get(type, values);
  }

  mlir::MLIRContext &ctx_;
  mlir::OpBuilder builder_;
  std::string fn_name_;
  int op_count_ = 0;
  std::unordered_map<const void *, std::pair<Array, mlir::Value>> constants_;
};

} // namespace

StagedFunction stage(mlir::MLIRContext &ctx, const FlatFn &f,
                     const std::vector<AbstractValue> &inputs, const std::string &name) {
  StagedFunction staged;
  staged.inputs = inputs;
  mlir::OpBuilder top(&ctx);
  mlir::Location loc = mlir::FileLineColLoc::get(&ctx, name, 0, 0);
  staged.module = mlir::ModuleOp::create(loc);
  top.setInsertionPointToEnd(staged.module->getBody());
  llvm::SmallVector<mlir::Type> in_types;
  for (const AbstractValue &a : inputs)
    in_types.push_back(tensorType(ctx, a));
  auto fn = mlir::func::FuncOp::create(top, loc, "main", top.getFunctionType(in_types, {}));
  fn->setAttr("llvm.emit_c_interface", top.getUnitAttr());

  auto level = std::make_shared<StagingLevel>(ctx, name);
  level->entry = fn.addEntryBlock();
  level->builder().setInsertionPointToEnd(level->entry);
  std::vector<Array> outs;
  {
    LevelGuard guard(level, /*dynamic=*/true);
    std::vector<Array> args;
    for (size_t i = 0; i < inputs.size(); ++i)
      args.push_back(level->wrap(level->entry->getArgument(i), inputs[i]));
    try {
      outs = f(args);
    } catch (...) {
      // Past a stand-in the trace may fail where running op by op does not (a concrete value
      // read after the function used an enclosing transform's tracer): it runs op by op.
      if (level->op_by_op.empty())
        throw;
      staged.op_by_op = level->op_by_op;
      return staged;
    }
    if (!level->op_by_op.empty()) {
      staged.op_by_op = level->op_by_op;
      return staged;
    }
    // Outputs: pass inputs and constants through; each distinct computed value is one result.
    llvm::SmallVector<mlir::Value> results;
    for (const Array &o : outs) {
      StagedOutput so{StagedOutput::Kind::Result, 0, abstract_of(o), Array()};
      mlir::Value v;
      if (auto *t = tracer_of<StagingTracer>(o, level.get()))
        v = t->value;
      else if (o.tracer())
        v = level->stand_in(o);
      if (!v) {
        so.kind = StagedOutput::Kind::Constant;
        so.value = o;
      } else if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(v);
                 arg && arg.getArgNumber() < inputs.size()) {
        so.kind = StagedOutput::Kind::Input;
        so.index = arg.getArgNumber();
      } else {
        auto it = llvm::find(results, v);
        so.index = it - results.begin();
        if (it == results.end()) {
          results.push_back(v);
          staged.results.push_back(so.aval);
        }
      }
      staged.outputs.push_back(so);
    }
    mlir::func::ReturnOp::create(level->builder(), loc, results);
  }
  staged.constants = level->hoisted;
  llvm::SmallVector<mlir::Type> result_types;
  for (const AbstractValue &a : staged.results)
    result_types.push_back(tensorType(ctx, a));
  fn.setType(top.getFunctionType(level->entry->getArgumentTypes(), result_types));
  // The runtime shares input buffers with the caller: never written in place.
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    fn.setArgAttr(i, "bufferization.writable", top.getBoolAttr(false));
  return staged;
}

int64_t staged_op_count(const StagedFunction &staged) {
  int64_t n = 0;
  staged.module.get().walk([&](mlir::Operation *) { ++n; });
  return n;
}

} // namespace strata::rt
