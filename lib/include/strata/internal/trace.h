// The trace stack's internal interface: levels and their tracers. Eval is the bottom; each
// transform (jvp, grad, vmap, abstract, checkpoint, jit's staging) pushes a level above it for
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

class TraceLevel : public std::enable_shared_from_this<TraceLevel> {
public:
  virtual ~TraceLevel() = default;
  /// Name of the transform, for error messages ("jvp", "grad", "vmap", ...).
  virtual std::string name() const = 0;
  /// Applies `prim` to inputs of which at least one is a tracer of this level.
  virtual std::vector<Array> process(const Primitive &prim, std::span<const Array> inputs,
                                     const Params &params) = 0;

  /// True for the dynamic levels that stand in for captured tracers (closure conversion,
  /// lib/trace/closure.h): top_level then lets a tracer whose transform has ended through to
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

/// Applies a call primitive (Trait kCall) by running its sub-function "fn" on `inputs` at the
/// current level: what a level without a rule of its own for calls does (jit's staging inlines
/// it; checkpoint's policy levels look at the operations inside it).
STRATA_EXPORT std::vector<Array> call_through(const Params &params, std::span<const Array> inputs);

/// How the jit_call primitive (lib/primitives/calls.cpp) reaches the compiler, which libstrata
/// does not link: libstrata_jit installs these when it loads (jit/Jit.cpp). A target is the
/// executable cache of one jitted function or of one of its jitted transforms, named by an id;
/// executables are found there by the target, the static key and the input signature, so a
/// transform of a jitted function compiles once and hits on later calls.
struct JitHooks {
  /// The output avals of `fn` for inputs of avals `in`: compiles it through target `id`'s cache
  /// (the run that follows finds the executable) or traces it when it cannot compile alone.
  std::function<std::vector<AbstractValue>(int64_t id, const std::string &static_key,
                                           const SubFn &fn, std::span<const AbstractValue> in)>
      out_avals;
  /// Runs `fn` on concrete inputs: target `id`'s executable for their signature (compiled on a
  /// miss), or op by op when it cannot compile alone.
  std::function<std::vector<Array>(int64_t id, const std::string &static_key, const SubFn &fn,
                                   std::span<const Array> in)>
      run;
  /// The target of `id`'s jitted transform `tag` ("vmap:0,-", "jvp:10", "grad-bwd:01"), made on
  /// first use and owned by target `id`: `tag` names everything the transform depends on
  /// besides the signature and the static key.
  std::function<int64_t(int64_t id, const std::string &tag)> derive;
};
STRATA_EXPORT void install_jit_hooks(JitHooks hooks);

/// Applies the jitted function `f` to `inputs` at the highest level among them: the jit_call
/// primitive, compiled through target `id` with `static_key`. `f` is first closed over the
/// tracers it captures, which become leading inputs (a level then transforms the function with
/// respect to them too, and it compiles alone); a closed function has inputs of its own, so it
/// compiles as target id's transform "closed:N".
STRATA_EXPORT std::vector<Array> bind_jit_call(const std::string &name, FlatFn f, int64_t id,
                                               const std::string &static_key,
                                               std::vector<Array> inputs);

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
