// jit's staging level: traces a function of arrays into a `func.func @main` of strata ops.
#pragma once

#include <string>
#include <vector>

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "strata/primitive.h"
#include "strata/transforms.h"

namespace strata::rt {

/// Where each output of a staged function comes from.
struct StagedOutput {
  enum class Kind { Result, Input, Constant };
  Kind kind;
  /// Kind::Result: index among @main's results; Kind::Input: index of the input.
  size_t index;
  AbstractValue aval;
  /// Kind::Constant: the value (an array the function returned without computing it).
  Array value;
};

/// A traced function: `@main(inputs..., constants...) -> results`, plus how to assemble the
/// user's outputs (an output that is an input or a constant is passed through, not computed).
struct StagedFunction {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<AbstractValue> inputs;
  /// Arrays the function closed over, too large to embed: @main's trailing arguments.
  std::vector<Array> constants;
  std::vector<AbstractValue> results;
  std::vector<StagedOutput> outputs;
  /// Why the function cannot be compiled alone (it uses a value traced by an enclosing
  /// transform, or needs a concrete while_loop trip count); empty when it can. jit then runs it
  /// op by op, and the other fields are unset.
  std::string op_by_op;
};

/// Traces `f` on abstract inputs into a fresh module in `ctx`. Strata errors from `f` (shape
/// mismatches, concretization of a traced value) propagate as strata::Error, unless the
/// function cannot be compiled alone anyway (StagedFunction::op_by_op).
STRATA_EXPORT StagedFunction stage(mlir::MLIRContext &ctx, const FlatFn &f,
                                   const std::vector<AbstractValue> &inputs,
                                   const std::string &name);

/// The number of operations in `staged`'s module, nested ones included (its size, which
/// STRATA_TIMING reports next to the compile's phases).
int64_t staged_op_count(const StagedFunction &staged);

} // namespace strata::rt
