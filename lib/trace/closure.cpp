// Closure conversion of sub-functions: a capturing level that finds the tracers a function
// closes over, and a substituting level that replaces them by explicit inputs when it runs.
//
// A higher-order primitive (a loop, a branch, a checkpointed or jitted call) carries its
// sub-functions as parameters, and any level must be able to call them with values of its own:
// a grad level with the primal values of the weights an RNN body captured, a backward pass
// after the level that traced those weights has ended. So each function is traced once under a
// CaptureLevel, which notes the tracers of other levels it uses; those become the primitive's
// leading inputs (its "consts"), and the function is wrapped to take them first: while it
// runs, a SubstLevel, a dynamic level, receives every primitive bound and replaces the captured
// tracers by the values passed in. That is the closure conversion a jaxpr would give, done on
// C++ closures.
#include "trace/closure.h"

#include <unordered_map>
#include <unordered_set>

#include "strata/error.h"
#include "strata/internal/trace.h"
#include "strata/ops.h"

namespace strata {

// The tracers the sub-functions of one application close over, in first-use order.
struct Closure::Captures {
  std::vector<Array> consts;
  std::unordered_set<const Tracer *> seen;
  void note(const Array &x, const TraceLevel *own) {
    const auto &t = x.tracer();
    if (t && !t->belongs_to(own) && seen.insert(t.get()).second)
      consts.push_back(x);
  }
};

namespace {

using Captures = Closure::Captures;

class CaptureTracer : public Tracer {
public:
  using Tracer::Tracer;
};

// Traces a sub-function abstractly; dynamic, so it also sees operations on captured values
// alone, and notes every tracer of another level among their inputs.
class CaptureLevel : public TraceLevel {
public:
  CaptureLevel(std::string op, Captures *captures) : op_(std::move(op)), captures_(captures) {}
  std::string name() const override { return op_; }
  bool substitutes_captures() const override { return true; }

  Array make(const AbstractValue &a) {
    return Array::from_tracer(std::make_shared<CaptureTracer>(shared_from_this()), a.shape, a.dtype,
                              a.weak_type);
  }
  std::vector<AbstractValue> note_all(std::span<const Array> inputs) {
    std::vector<AbstractValue> in;
    for (const Array &x : inputs) {
      captures_->note(x, this);
      in.push_back(abstract_of(x));
    }
    return in;
  }
  std::vector<Array> process(const Primitive &prim, std::span<const Array> inputs,
                             const Params &params) override {
    if (prim.has(kCall)) // the call's function is traced here: its captures are noted too
      return call_through(params, inputs);
    std::vector<AbstractValue> in = note_all(inputs);
    if (prim.has(kConcreteOutput))
      return concrete_placeholder(prim, in, params);
    std::vector<Array> out;
    for (const AbstractValue &a : prim.shape_rule(in, params))
      out.push_back(make(a));
    return out;
  }

private:
  std::string op_;
  Captures *captures_;
};

using CaptureMap = std::unordered_map<const Tracer *, Array>;

// Replaces captured tracers by the values a sub-function was called with, for every primitive
// and call bound while the sub-function runs, and re-binds it one dynamic level down (a
// higher-order primitive's own sub-functions substitute their consts, which are among its
// inputs).
class SubstLevel : public TraceLevel {
public:
  SubstLevel(std::shared_ptr<const CaptureMap> map, TraceLevel *below)
      : map_(std::move(map)), below_(below) {}
  std::string name() const override { return "control flow"; }
  bool substitutes_captures() const override { return true; }

  Array replace(const Array &x) const {
    if (const auto &t = x.tracer()) {
      auto it = map_->find(t.get());
      if (it != map_->end())
        return it->second;
    }
    return x;
  }
  std::vector<Array> replace_all(std::span<const Array> xs) const {
    std::vector<Array> out;
    out.reserve(xs.size());
    for (const Array &x : xs)
      out.push_back(replace(x));
    return out;
  }

  std::vector<Array> process(const Primitive &prim, std::span<const Array> inputs,
                             const Params &params) override {
    std::vector<Array> vals = replace_all(inputs);
    DynamicOverride down(below_);
    return bind(prim, std::move(vals), params);
  }

  /// f run under a SubstLevel with `map`.
  static FlatFn wrap(FlatFn f, std::shared_ptr<const CaptureMap> map) {
    return [f = std::move(f), map](const std::vector<Array> &in) {
      auto level = std::make_shared<SubstLevel>(map, dynamic_level());
      std::vector<Array> outs;
      {
        LevelGuard guard(level, /*dynamic=*/true);
        outs = f(in);
      }
      for (Array &o : outs)
        o = level->replace(o);
      return outs;
    };
  }

private:
  std::shared_ptr<const CaptureMap> map_;
  TraceLevel *below_;
};

/// f taking the consts first: (consts ++ args) -> f(args) with `keys` replaced by the consts.
FlatFn close_over(FlatFn f, const std::vector<Array> &keys) {
  if (keys.empty())
    return f;
  size_t n = keys.size();
  // The keys are kept alive (a Tracer's address must not be reused while the map exists).
  return [f = std::move(f), keys, n](const std::vector<Array> &in) {
    auto map = std::make_shared<CaptureMap>();
    for (size_t i = 0; i < n; ++i)
      map->emplace(keys[i].tracer().get(), in[i]);
    return SubstLevel::wrap(f, map)(std::vector<Array>(in.begin() + n, in.end()));
  };
}

} // namespace

Closure::Closure(std::string op) : op_(std::move(op)), captures_(std::make_unique<Captures>()) {}
Closure::~Closure() = default;

std::vector<AbstractValue> Closure::trace(std::string name, FlatFn fn,
                                          std::vector<AbstractValue> in) {
  auto level = std::make_shared<CaptureLevel>(op_, captures_.get());
  std::vector<Array> outs;
  {
    LevelGuard guard(level, /*dynamic=*/true);
    std::vector<Array> args;
    for (const AbstractValue &a : in)
      args.push_back(level->make(a));
    outs = fn(args);
  }
  std::vector<AbstractValue> result;
  for (const Array &o : outs) {
    if (!o.valid())
      fail(op_, "a sub-function returned an empty (default-constructed) Array");
    captures_->note(o, level.get()); // a captured value returned as it is
    result.push_back(abstract_of(o));
  }
  traced_.push_back({std::move(name), std::move(fn), std::move(in), result});
  return result;
}

ClosedFns Closure::close() {
  ClosedFns r;
  r.consts = captures_->consts;
  std::vector<AbstractValue> const_avals;
  for (const Array &c : r.consts)
    const_avals.push_back(abstract_of(c));
  for (Traced &t : traced_) {
    auto sub = std::make_shared<SubFn>();
    sub->name = std::move(t.name);
    sub->fn = close_over(std::move(t.fn), r.consts);
    sub->in = const_avals;
    sub->in.insert(sub->in.end(), t.in.begin(), t.in.end());
    sub->out = std::move(t.out);
    sub->num_consts = r.consts.size();
    r.fns.push_back(std::move(sub));
  }
  traced_.clear();
  return r;
}

std::vector<Array> concrete_placeholder(const Primitive &prim, std::span<const AbstractValue> in,
                                        const Params &params) {
  std::vector<Array> out;
  // Built at the eval level: a dynamic level (this one, often) would stage the ones.
  DynamicOverride eval(nullptr);
  for (const AbstractValue &a : prim.shape_rule(in, params))
    out.push_back(ones(a.shape, a.dtype));
  return out;
}

SubFnRef closed_fn(const std::string &op, std::string name, FlatFn fn,
                   std::vector<AbstractValue> in, size_t num_consts) {
  Closure c(op);
  std::vector<AbstractValue> out = c.trace(name, fn, in);
  if (!c.close().consts.empty())
    throw Error(detail::cat("[", op, "] a sub-function built by a rule captures a tracer"),
                ErrorKind::Internal);
  auto sub = std::make_shared<SubFn>();
  sub->name = std::move(name);
  sub->fn = std::move(fn);
  sub->in = std::move(in);
  sub->out = std::move(out);
  sub->num_consts = num_consts;
  return sub;
}

} // namespace strata
