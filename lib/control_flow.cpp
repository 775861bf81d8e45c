// Control-flow primitives: building cond/switch, while_loop, fori_loop and scan ops (checks,
// closure conversion), bind_control, and their evaluation on concrete values.
//
// Design (issue 8). A control-flow primitive carries sub-functions, which Params (static data
// only) cannot hold and the primitive registry's ImplRule cannot receive. So these ops are not
// registry Primitives: an application is a ControlFlow (lib/trace_impl.h) holding the
// sub-functions as FlatFn closures plus static options, bound with bind_control() to the
// highest level's TraceLevel::process_control(), as checkpoint and custom_vjp calls are bound
// with bind_call(). control_flow_primitives() lists them for docs and tools.
//
// Traced once. At the call each sub-function runs once abstractly under a CaptureLevel; that
// checks its output structure, shapes and dtypes against the carries (or the other branches)
// and finds the tracers it closes over. Those become explicit leading inputs of the op (its
// "consts") and every sub-function is wrapped to take them first: while it runs, a
// SubstLevel, a dynamic level, receives every primitive bound and replaces the captured tracers
// with the values passed in. That is the closure conversion a jaxpr would give, done on C++
// closures; it is what lets a level call a body with its own values (a grad level, the primal
// values of the weights an RNN body captured) and what lets a backward pass replay a body after
// the level that traced its captures has ended.
//
// The rules (lib/control_flow_rules.cpp) keep a loop a loop at every level: jvp binds a
// while_loop of the jvp'd body, vmap a while_loop of the batched body, grad a scan forward and a
// reverse scan backward. Reverse mode of while_loop: a counting while_loop gives the trip count,
// Kind::Bound makes it concrete (its maximum over vmap's batch), and the loop is
// differentiated as a scan of that length whose steps past an example's own trip count keep
// the carry (so the body runs about twice forward: once counting, once recording carries).
//
// Per-step residuals (LoopGradOptions::policy) reuse checkpoint(f)'s policy levels
// (lib/transforms/checkpoint.cpp): the forward scan runs each step under the recording level and
// returns what it kept as extra ys; the backward step replays the body under the substituting
// level, handed that step's slices. Extra ys are ordinary outputs, so jit stages them as more
// results of strata.scan and vmap/jvp batch and differentiate them like any other.
#include "strata/control_flow.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "control_flow_impl.h"
#include "strata/lax.h"

namespace strata {
namespace {

// ---- Closure conversion -------------------------------------------------------------------------

class CaptureTracer : public Tracer {
public:
  using Tracer::Tracer;
};

/// The tracers the sub-functions of one op close over, in first-use order.
struct Captures {
  std::vector<Array> consts;
  std::unordered_set<const Tracer *> seen;
  void note(const Array &x, const TraceLevel *own) {
    const auto &t = x.tracer();
    if (t && !t->belongs_to(own) && seen.insert(t.get()).second)
      consts.push_back(x);
  }
};

// Traces a sub-function abstractly; dynamic, so it also sees operations on captured values
// alone, and notes every tracer of another level among their inputs.
class CaptureLevel : public TraceLevel {
public:
  CaptureLevel(std::string op, Captures *captures) : op_(std::move(op)), captures_(captures) {}
  std::string name() const override { return op_; }
  bool substitutes_captures() const override { return true; }

  Array make(const AbstractValue &a) {
    return Array::from_tracer(std::make_shared<CaptureTracer>(shared_from_this()), a.shape,
                              a.dtype, a.weak_type);
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
    std::vector<Array> out;
    for (const AbstractValue &a : prim.shape_rule(note_all(inputs), params))
      out.push_back(make(a));
    return out;
  }
  std::vector<Array> process_control(const ControlFlow &cf,
                                     std::span<const Array> inputs) override {
    std::vector<AbstractValue> in = note_all(inputs);
    if (cf.kind == ControlFlow::Kind::Bound)
      return {abstract_bound(inputs[0])};
    std::vector<Array> out;
    for (const AbstractValue &a : control_out_avals(cf, in))
      out.push_back(make(a));
    return out;
  }

private:
  std::string op_;
  Captures *captures_;
};

/// Runs f on abstract inputs of avals `in`, noting its captures; returns its output avals.
std::vector<AbstractValue> trace_sub(const std::string &op, const FlatFn &f,
                                     const std::vector<AbstractValue> &in, Captures &captures) {
  auto level = std::make_shared<CaptureLevel>(op, &captures);
  std::vector<Array> outs;
  {
    LevelGuard guard(level, /*dynamic=*/true);
    std::vector<Array> args;
    for (const AbstractValue &a : in)
      args.push_back(level->make(a));
    outs = f(args);
  }
  std::vector<AbstractValue> result;
  for (const Array &o : outs) {
    if (!o.valid())
      fail(op, "a sub-function returned an empty (default-constructed) Array");
    captures.note(o, level.get()); // a captured value returned as it is
    result.push_back(abstract_of(o));
  }
  return result;
}

using CaptureMap = std::unordered_map<const Tracer *, Array>;

// Replaces captured tracers by the values a sub-function was called with, for every primitive,
// call and control-flow op bound while the sub-function runs, and re-binds it one dynamic level
// down.
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
  // The call runs below this level, so f (and its rules) get a substituting level of their own.
  std::vector<Array> process_call(const CallKind &kind, const FlatFn &f,
                                  std::span<const Array> inputs) override {
    std::vector<Array> vals = replace_all(inputs);
    CallKind k = kind;
    if (k.jvp)
      k.jvp = wrap(k.jvp, map_);
    if (k.fwd)
      k.fwd = wrap(k.fwd, map_);
    if (k.bwd)
      k.bwd = wrap(k.bwd, map_);
    FlatFn wf = wrap(f, map_);
    DynamicOverride down(below_);
    return bind_call(k, wf, vals);
  }
  // The op's own sub-functions substitute their consts, which are among the inputs.
  std::vector<Array> process_control(const ControlFlow &cf,
                                     std::span<const Array> inputs) override {
    std::vector<Array> vals = replace_all(inputs);
    DynamicOverride down(below_);
    return bind_control(cf, vals);
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

std::vector<AbstractValue> avals_of(const std::vector<Array> &xs) {
  std::vector<AbstractValue> out;
  for (const Array &x : xs)
    out.push_back(abstract_of(x));
  return out;
}

std::string type_of(const AbstractValue &a) { return a.str(); }
bool same_type(const AbstractValue &a, const AbstractValue &b) {
  return a.shape == b.shape && a.dtype == b.dtype;
}

/// A loop body's outputs against its carries: one output per carry (more with
/// `extra_outputs`: a scan's ys follow), each of the carry's shape and dtype.
void check_carries(const std::string &op, const std::vector<AbstractValue> &out,
                   std::span<const AbstractValue> carries, bool extra_outputs) {
  if (extra_outputs ? out.size() < carries.size() : out.size() != carries.size())
    fail(op, "body returns ", out.size(), " values for ", carries.size(), " carries");
  for (size_t i = 0; i < carries.size(); ++i)
    if (!same_type(out[i], carries[i]))
      fail(op, "body returns ", type_of(out[i]), " for carry ", i, ", expected ",
           type_of(carries[i]));
}

template <class T> std::vector<T> cat(std::vector<T> a, const std::vector<T> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// Slice t of x along axis 0, without that axis.
Array slice_at(const Array &x, int64_t t) {
  std::vector<int64_t> start(x.ndim(), 0), limit = x.shape();
  start[0] = t;
  limit[0] = t + 1;
  Shape s(x.shape().begin() + 1, x.shape().end());
  return lax::reshape(lax::slice(x, start, limit), s);
}

std::vector<Array> checked_inputs(std::string_view op, const std::vector<Array> &xs) {
  for (const Array &x : xs)
    if (!x.valid())
      fail(op, "an operand is an empty (default-constructed) Array");
  return xs;
}

std::vector<Array> switch_impl(const std::string &op, const Array &index,
                               const std::vector<FlatFn> &branches,
                               const std::vector<Array> &operands,
                               const std::vector<std::string> &branch_names) {
  if (branches.empty())
    fail(op, "needs at least one branch");
  std::vector<AbstractValue> in = avals_of(checked_inputs(op, operands));
  Captures captures;
  std::vector<std::vector<AbstractValue>> outs;
  for (size_t k = 0; k < branches.size(); ++k) {
    outs.push_back(trace_sub(op, branches[k], in, captures));
    const auto &a = outs[0], &b = outs[k];
    if (b.size() != a.size())
      fail(op, branch_names[k], " returns ", b.size(), " values where ", branch_names[0],
           " returns ", a.size());
    for (size_t i = 0; i < a.size(); ++i)
      if (!same_type(a[i], b[i]))
        fail(op, branch_names[k], " returns ", type_of(b[i]), " for output ", i, " where ",
             branch_names[0], " returns ", type_of(a[i]));
  }
  ControlFlow cf;
  cf.kind = ControlFlow::Kind::Cond;
  cf.name = op;
  for (const FlatFn &b : branches)
    cf.branches.push_back(close_over(b, captures.consts));
  std::vector<Array> inputs{lax::convert_element_type(index, DType::Int32)};
  inputs.insert(inputs.end(), captures.consts.begin(), captures.consts.end());
  inputs.insert(inputs.end(), operands.begin(), operands.end());
  return bind_control(cf, inputs);
}

std::vector<Array> while_impl(const std::string &op, const FlatFn &cond_fn, const FlatFn &body,
                              const std::vector<Array> &init, lax::LoopGradOptions options) {
  if (options.checkpoint_every < 1)
    fail(op, "checkpoint_every must be at least 1, got ", options.checkpoint_every);
  std::vector<AbstractValue> in = avals_of(checked_inputs(op, init));
  Captures captures;
  std::vector<AbstractValue> p = trace_sub(op, cond_fn, in, captures);
  if (p.size() != 1 || p[0].dtype != DType::Bool || !p[0].shape.empty())
    fail_kind(ErrorKind::Type, op, "cond_fun must return one boolean scalar, got ",
              p.size() == 1 ? type_of(p[0]) : std::to_string(p.size()) + " values");
  check_carries(op, trace_sub(op, body, in, captures), in, /*extra_outputs=*/false);
  ControlFlow cf;
  cf.kind = ControlFlow::Kind::While;
  cf.name = op;
  cf.cond_fn = close_over(cond_fn, captures.consts);
  cf.body = close_over(body, captures.consts);
  cf.num_consts = captures.consts.size();
  cf.checkpoint_every = options.checkpoint_every;
  cf.policy = options.policy;
  return bind_control(cf, cat(captures.consts, init));
}

std::pair<std::vector<Array>, std::vector<Array>>
scan_impl(const std::string &op, const FlatFn &f, const std::vector<Array> &init,
          const std::vector<Array> &xs, std::optional<int64_t> length, bool reverse,
          int64_t unroll, lax::LoopGradOptions options) {
  checked_inputs(op, init);
  checked_inputs(op, xs);
  int64_t n = -1;
  for (size_t j = 0; j < xs.size(); ++j) {
    if (xs[j].ndim() == 0)
      fail(op, "xs leaf ", j, " is a scalar ", xs[j].type_str(),
           "; scanned values need a leading axis");
    int64_t len = xs[j].shape()[0];
    if (n >= 0 && len != n)
      fail(op, "xs leaf ", j, " (", xs[j].type_str(), ") has length ", len, ", leaf 0 has ", n);
    n = len;
  }
  if (length && n >= 0 && *length != n)
    fail(op, "length is ", *length, " but xs have length ", n);
  if (!length && n < 0)
    fail(op, "needs xs or a length");
  int64_t len = length ? *length : n;
  if (len < 0)
    fail(op, "length must be non-negative, got ", len);
  if (unroll < 1)
    fail(op, "unroll must be at least 1, got ", unroll);
  if (options.checkpoint_every < 1)
    fail(op, "checkpoint_every must be at least 1, got ", options.checkpoint_every);
  std::vector<AbstractValue> in = avals_of(init);
  for (const Array &x : xs) {
    AbstractValue a = abstract_of(x);
    a.shape.erase(a.shape.begin());
    in.push_back(a);
  }
  Captures captures;
  std::vector<AbstractValue> out = trace_sub(op, f, in, captures);
  check_carries(op, out, std::span<const AbstractValue>(in).first(init.size()),
                /*extra_outputs=*/true);
  ControlFlow cf;
  cf.kind = ControlFlow::Kind::Scan;
  cf.name = op;
  cf.body = close_over(f, captures.consts);
  cf.num_consts = captures.consts.size();
  cf.num_carry = init.size();
  cf.length = len;
  cf.reverse = reverse;
  cf.unroll = unroll;
  cf.checkpoint_every = options.checkpoint_every;
  cf.policy = options.policy;
  std::vector<Array> outs = bind_control(cf, cat(cat(captures.consts, init), xs));
  return {std::vector<Array>(outs.begin(), outs.begin() + init.size()),
          std::vector<Array>(outs.begin() + init.size(), outs.end())};
}

void check_index(std::string_view op, const Array &index, bool boolean) {
  if (!index.valid())
    fail(op, "the ", boolean ? "predicate" : "index", " is an empty (default-constructed) Array");
  bool ok = index.ndim() == 0 &&
            (boolean ? index.dtype() == DType::Bool : is_integer(index.dtype()));
  if (!ok)
    fail_kind(ErrorKind::Type, op, boolean ? "the predicate must be a boolean scalar, got "
                                           : "the index must be an integer scalar, got ",
              index.type_str());
}

} // namespace

// ---- Public entry points ----------------------------------------------------------------------

std::vector<ControlFlowPrimitive> control_flow_primitives() {
  return {{"cond", "cond(pred, true_fn, false_fn, operands) and switch(index, branches, "
                   "operands): one of several sub-functions"},
          {"scan", "scan(f, init, xs, length, reverse, unroll): a loop over the leading axis "
                   "of xs carrying a state, stacking per-step outputs"},
          {"while_loop", "while_loop(cond_fn, body_fn, init): a loop with a data-dependent "
                         "trip count (fori_loop with traced bounds too)"}};
}

namespace lax {

std::vector<Array> cond_flat(const Array &pred, const FlatFn &true_fn, const FlatFn &false_fn,
                             const std::vector<Array> &operands) {
  check_index("cond", pred, true);
  return switch_impl("cond", pred, {false_fn, true_fn}, operands, {"false_fn", "true_fn"});
}

std::vector<Array> switch_flat(const Array &index, const std::vector<FlatFn> &branches,
                               const std::vector<Array> &operands) {
  check_index("switch", index, false);
  std::vector<std::string> names;
  for (size_t k = 0; k < branches.size(); ++k)
    names.push_back("branch " + std::to_string(k));
  return switch_impl("switch", index, branches, operands, names);
}

std::vector<Array> while_loop_flat(const FlatFn &cond_fn, const FlatFn &body_fn,
                                   const std::vector<Array> &init, LoopGradOptions options) {
  return while_impl("while_loop", cond_fn, body_fn, init, options);
}

std::vector<Array> fori_loop_flat(int64_t lo, int64_t hi, const FlatFn &body_fn,
                                  const std::vector<Array> &init, LoopGradOptions options) {
  int64_t n = std::max<int64_t>(hi - lo, 0);
  // The index is an xs of the scan: a static trip count makes it reverse-differentiable.
  Array is = lax::add(lax::iota(DType::Int32, {n}, 0),
                      lax::broadcast_in_dim(Array(static_cast<int32_t>(lo)), {n}, {}));
  size_t nc = init.size();
  FlatFn f = [body_fn, nc](const std::vector<Array> &in) {
    std::vector<Array> args{in[nc]};
    args.insert(args.end(), in.begin(), in.begin() + nc);
    return body_fn(args); // the new carry, no ys
  };
  return scan_impl("fori_loop", f, init, {is}, n, false, 1, options).first;
}

std::vector<Array> fori_loop_flat(const Array &lo, const Array &hi, const FlatFn &body_fn,
                                  const std::vector<Array> &init, LoopGradOptions options) {
  check_index("fori_loop", lo, false);
  check_index("fori_loop", hi, false);
  std::vector<Array> carry{lax::convert_element_type(lo, DType::Int32)};
  carry.insert(carry.end(), init.begin(), init.end());
  Array h = lax::convert_element_type(hi, DType::Int32);
  FlatFn c = [h](const std::vector<Array> &in) { return std::vector<Array>{lax::lt(in[0], h)}; };
  FlatFn b = [body_fn](const std::vector<Array> &in) {
    std::vector<Array> next{lax::add(in[0], Array(int32_t{1}))};
    std::vector<Array> out = body_fn(in);
    next.insert(next.end(), out.begin(), out.end());
    return next;
  };
  std::vector<Array> outs = while_impl("fori_loop", c, b, carry, options);
  return {outs.begin() + 1, outs.end()};
}

std::pair<std::vector<Array>, std::vector<Array>>
scan_flat(const FlatFn &f, const std::vector<Array> &init, const std::vector<Array> &xs,
          std::optional<int64_t> length, bool reverse, int64_t unroll, LoopGradOptions options) {
  return scan_impl("scan", f, init, xs, length, reverse, unroll, options);
}

} // namespace lax

// ---- Binding and evaluation -------------------------------------------------------------------

std::vector<Array> bind_control(const ControlFlow &cf, const std::vector<Array> &inputs) {
  TraceLevel *top = top_level(inputs, cf.name);
  if (top)
    return top->process_control(cf, inputs);
  return eval_control(cf, inputs);
}

Array abstract_bound(const Array &n) {
  return lax::convert_element_type(Array(int32_t{1}), n.dtype());
}

std::vector<AbstractValue> control_out_avals(const ControlFlow &cf,
                                             const std::vector<AbstractValue> &in) {
  switch (cf.kind) {
  case ControlFlow::Kind::Cond:
    return eval_shape_flat(cf.branches.at(0), {in.begin() + 1, in.end()});
  case ControlFlow::Kind::While: return {in.begin() + cf.num_consts, in.end()};
  case ControlFlow::Kind::Bound: return {in[0]};
  case ControlFlow::Kind::Scan: break;
  }
  size_t head = cf.num_consts + cf.num_carry;
  std::vector<AbstractValue> args(in.begin(), in.begin() + head);
  for (size_t j = head; j < in.size(); ++j) {
    AbstractValue a = in[j];
    a.shape.erase(a.shape.begin());
    args.push_back(a);
  }
  std::vector<AbstractValue> out = eval_shape_flat(cf.body, args);
  std::vector<AbstractValue> result(in.begin() + cf.num_consts, in.begin() + head);
  for (size_t j = cf.num_carry; j < out.size(); ++j) {
    AbstractValue a = out[j];
    a.shape.insert(a.shape.begin(), cf.length);
    result.push_back(a);
  }
  return result;
}

std::vector<Array> eval_control(const ControlFlow &cf, const std::vector<Array> &in) {
  switch (cf.kind) {
  case ControlFlow::Kind::Bound: return {in[0]};
  case ControlFlow::Kind::Cond: {
    int64_t n = static_cast<int64_t>(cf.branches.size());
    int64_t k = std::clamp<int64_t>(item_as_int(in[0]), 0, n - 1);
    return cf.branches[k]({in.begin() + 1, in.end()});
  }
  case ControlFlow::Kind::While: {
    std::vector<Array> consts(in.begin(), in.begin() + cf.num_consts);
    std::vector<Array> carry(in.begin() + cf.num_consts, in.end());
    for (;;) {
      std::vector<Array> p = cf.cond_fn(cat(consts, carry));
      if (!p.at(0).item<bool>())
        return carry;
      carry = cf.body(cat(consts, carry));
    }
  }
  case ControlFlow::Kind::Scan: break;
  }
  size_t head = cf.num_consts + cf.num_carry;
  std::vector<Array> consts(in.begin(), in.begin() + cf.num_consts);
  std::vector<Array> carry(in.begin() + cf.num_consts, in.begin() + head);
  std::vector<Array> xs(in.begin() + head, in.end());
  std::vector<std::vector<Array>> ys; // [output][step]
  for (int64_t s = 0; s < cf.length; ++s) {
    int64_t t = cf.reverse ? cf.length - 1 - s : s;
    std::vector<Array> args = cat(consts, carry);
    for (const Array &x : xs)
      args.push_back(slice_at(x, t));
    std::vector<Array> out = cf.body(args);
    carry.assign(out.begin(), out.begin() + cf.num_carry);
    ys.resize(out.size() - cf.num_carry);
    for (size_t j = cf.num_carry; j < out.size(); ++j)
      ys[j - cf.num_carry].push_back(out[j]);
  }
  std::vector<Array> result = carry;
  if (cf.length == 0) {
    std::vector<AbstractValue> avals = control_out_avals(cf, avals_of(in));
    for (size_t j = cf.num_carry; j < avals.size(); ++j)
      result.push_back(zeros(avals[j].shape, avals[j].dtype));
    return result;
  }
  for (std::vector<Array> &y : ys) {
    if (cf.reverse)
      std::reverse(y.begin(), y.end());
    result.push_back(stack(y, 0));
  }
  return result;
}

} // namespace strata
