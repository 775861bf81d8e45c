// Closure conversion: turning C++ closures that may capture tracers into closed sub-functions
// (SubFn) that a higher-order primitive carries as parameters.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "strata/primitive.h"

namespace strata {

/// Sub-functions closed jointly, and the tracers they captured.
struct ClosedFns {
  /// One per traced function, in trace order. Each takes `consts` first, then its own inputs
  /// (SubFn::in holds the consts' avals first); SubFn::out holds its output avals.
  std::vector<SubFnRef> fns;
  /// The tracers of enclosing levels the functions used, in first-use order: the leading
  /// inputs of the primitive that carries the functions.
  std::vector<Array> consts;
};

/// Closes the sub-functions of one primitive application jointly. Each function is traced
/// once, abstractly, by `trace` (under a dynamic level that sees every primitive, constants
/// included, and notes the tracers of other levels among their inputs), so a caller can check
/// the output avals of one before tracing the next; `close` then turns every function into one
/// that takes the captured tracers as explicit leading inputs, shared by all of them. When a
/// closed function runs, a substituting dynamic level replaces the captured tracers by the
/// values passed in, which is what lets any level (or a backward pass after the capturing
/// level has ended) call it with values of its own.
class Closure {
public:
  /// `op` names errors ("[scan] ...") and the tracing level.
  explicit Closure(std::string op);
  ~Closure();
  Closure(const Closure &) = delete;
  Closure &operator=(const Closure &) = delete;

  /// Traces `fn` on abstract inputs of avals `in`; returns its output avals. `name` is what
  /// the function is to its primitive ("body", "branch1").
  std::vector<AbstractValue> trace(std::string name, FlatFn fn, std::vector<AbstractValue> in);
  /// The traced functions closed over the captures of all of them.
  ClosedFns close();

  struct Captures;

private:
  std::string op_;
  std::unique_ptr<Captures> captures_;
  struct Traced {
    std::string name;
    FlatFn fn;
    std::vector<AbstractValue> in, out;
  };
  std::vector<Traced> traced_;
};

/// A sub-function that a rule builds from closed ones (the jvp of a body, a batched branch):
/// it captures no tracer, so it needs no conversion. It is traced once abstractly for its
/// output avals; `in` are its input avals, its leading `num_consts` inputs its consts.
/// Capturing a tracer is an internal error, named after `op`.
SubFnRef closed_fn(const std::string &op, std::string name, FlatFn fn,
                   std::vector<AbstractValue> in, size_t num_consts);

} // namespace strata
