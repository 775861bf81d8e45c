// The trace stack's internal interface: levels and their tracers. Eval is the bottom; each
// transform (jvp, grad, vmap, abstract, checkpoint, later staging) pushes a level above it for
// the duration of its call. bind() sends a primitive to the highest level among its inputs.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "strata/primitive.h"
#include "strata/transforms.h"

namespace strata {


/// A call of a sub-function that some levels treat specially (checkpoint under grad, jit under
/// vmap, jvp and grad).
struct CallKind {
  std::string name; // "checkpoint", "custom_jvp", "custom_vjp", "jit"
  /// custom_jvp: (primals ++ tangents) -> output tangents.
  FlatFn jvp;
  /// custom_vjp: fwd(primals) -> outputs ++ residuals; bwd(residuals ++ cotangents) -> input
  /// cotangents; num_outputs splits fwd's result.
  FlatFn fwd, bwd;
  size_t num_outputs = 0;
  /// checkpoint: what the forward pass keeps.
  CheckpointPolicy policy;
  /// jit: compiles `derived`, a function built from the call's own (its batched version, its
  /// jvp, its backward pass), as a jitted function of its own, cached under `tag` by the jitted
  /// function (so the next call with the same tag and signature reuses the executable). The tag
  /// must name everything `derived` depends on besides the signature and the call's static
  /// arguments ("vmap:0,-", "jvp:10"); an empty tag means `derived` is the call's own function.
  /// Calling the result with tracers of a lower level binds the call there in turn. It throws
  /// RejitInline when `derived` cannot be compiled on its own.
  std::function<FlatFn(const std::string &tag, FlatFn derived)> rejit;
};

/// Thrown by a function from CallKind::rejit that uses a value traced outside it (a closure over
/// a tracer): it cannot be compiled on its own, and the level traces through the call instead.
struct STRATA_EXPORT RejitInline {};

class TraceLevel : public std::enable_shared_from_this<TraceLevel> {
public:
  virtual ~TraceLevel() = default;
  /// Name of the transform, for error messages ("jvp", "grad", "vmap", ...).
  virtual std::string name() const = 0;
  /// Applies `prim` to inputs of which at least one is a tracer of this level.
  virtual std::vector<Array> process(const Primitive &prim, std::span<const Array> inputs,
                                     const Params &params) = 0;

  /// Applies a call of `f`; by default the level traces straight through f.
  virtual std::vector<Array> process_call(const CallKind &kind, const FlatFn &f,
                                          std::span<const Array> inputs) {
    return f(std::vector<Array>(inputs.begin(), inputs.end()));
  }

  /// True for the dynamic levels that stand in for captured tracers (closure conversion,
  /// lib/transforms/closure.h): top_level then lets a tracer whose transform has ended through to
  /// them, since they replace it before anything reads it.
  virtual bool substitutes_captures() const { return false; }

  /// Position in the stack (eval is 0); higher levels handle a primitive first.
  int depth = 0;
  /// False once the transform has returned: its tracers are then escaped values.
  bool alive = true;
  /// name(), interned once for this level's tracers (which may outlive it).
  const std::string *interned_name = nullptr;
};

class Tracer {
public:
  explicit Tracer(const std::shared_ptr<TraceLevel> &level)
      : level_(level), raw_(level.get()),
        origin_(level->interned_name ? level->interned_name
                                     : (level->interned_name = intern(level->name()))) {}
  virtual ~Tracer() = default;
  /// The level this tracer belongs to; nullptr once its transform has ended.
  TraceLevel *level() const {
    std::shared_ptr<TraceLevel> l = level_.lock();
    return l && l->alive ? l.get() : nullptr;
  }
  /// The transform it came from, for errors about tracers used outside it.
  std::string origin() const { return *origin_; }
  /// True when this tracer belongs to `l`.
  bool belongs_to(const TraceLevel *l) const { return raw_ == l && !level_.expired(); }

private:
  STRATA_EXPORT static const std::string *intern(const std::string &name);
  // Weak: a tape node may hold this level's own tracers (a function that closes over them),
  // and a strong reference back to the level would make a cycle through the tape.
  std::weak_ptr<TraceLevel> level_;
  const TraceLevel *raw_;
  const std::string *origin_;
};

STRATA_EXPORT std::string describe_tracer(const Tracer &t);

/// Pushes a level for the lifetime of the guard; on exit marks it dead and pops it. A dynamic
/// level (jit's staging) also receives every primitive bound while it is live, even one whose
/// inputs are all constants ("omnistaging"): a function staged for jit is staged whole.
class LevelGuard {
public:
  STRATA_EXPORT explicit LevelGuard(std::shared_ptr<TraceLevel> level, bool dynamic = false);
  STRATA_EXPORT ~LevelGuard();
  LevelGuard(const LevelGuard &) = delete;
  LevelGuard &operator=(const LevelGuard &) = delete;
  const std::shared_ptr<TraceLevel> &level() const { return level_; }

private:
  std::shared_ptr<TraceLevel> level_;
  TraceLevel *saved_dynamic_ = nullptr;
  bool dynamic_ = false;
};

/// The innermost live dynamic level on this thread, or nullptr.
STRATA_EXPORT TraceLevel *dynamic_level();

/// The level that handles a primitive or call on `inputs`: the highest live level among their
/// tracers and the dynamic level; nullptr for the eval level. `op` names the caller in the
/// error about an escaped tracer.
STRATA_EXPORT TraceLevel *top_level(std::span<const Array> inputs, std::string_view op);

/// Applies a call of `f` at the highest level among the inputs (or just calls f).
STRATA_EXPORT std::vector<Array> bind_call(const CallKind &kind, const FlatFn &f,
                             const std::vector<Array> &inputs);

/// Makes `level` the innermost dynamic level for its lifetime: a dynamic level that re-binds
/// what it receives does so one dynamic level down.
class DynamicOverride {
public:
  STRATA_EXPORT explicit DynamicOverride(TraceLevel *level);
  STRATA_EXPORT ~DynamicOverride();
  DynamicOverride(const DynamicOverride &) = delete;
  DynamicOverride &operator=(const DynamicOverride &) = delete;

private:
  TraceLevel *saved_;
};

/// Number of live levels on this thread's stack (0 when only eval is live).
STRATA_EXPORT int stack_depth();

/// True when `params` hold a sub-function: the primitive is higher-order (control flow, calls),
/// and a level that keeps values of single primitives (a checkpoint policy) sees through it.
inline bool has_sub_functions(const Params &params) {
  for (const auto &[name, value] : params.items())
    if (std::holds_alternative<SubFnRef>(value) ||
        std::holds_alternative<std::vector<SubFnRef>>(value))
      return true;
  return false;
}

/// The outputs of a kConcreteOutput primitive at a level that has no values (eval_shape,
/// closure tracing): ones of its avals. Such a primitive (a loop's trip-count bound) promises
/// that any positive value gives the same avals downstream; every other level binds it one
/// level down and returns its outputs as they are, never wrapped in a tracer.
STRATA_EXPORT std::vector<Array> concrete_placeholder(const Primitive &prim,
                                                      std::span<const AbstractValue> in,
                                                      const Params &params);

/// The tracer of `x` when it belongs to `level`, else nullptr.
template <class T> T *tracer_of(const Array &x, const TraceLevel *level) {
  const auto &t = x.tracer();
  if (t && t->belongs_to(level))
    return static_cast<T *>(t.get());
  return nullptr;
}

} // namespace strata
