// Checkpoint policies. The forward pass of a checkpointed call runs under a recording level
// that keeps the outputs of the ops its policy saves (dot_general outputs, values tagged by
// checkpoint_name, everything, or what a callback accepts); the backward pass replays the call
// under a level that hands those values back in the same order instead of recomputing them,
// below the grad level of the replay.
#include <algorithm>

#include "primitives/control_flow_impl.h"
#include "strata/lax.h"
#include "trace/transforms_impl.h"

namespace strata {
namespace {

const Primitive &name_p = []() -> const Primitive & {
  Primitive p;
  p.name = "checkpoint_name";
  p.traits = kElementwise | kFusible | kLinear;
  p.shape_rule = [](std::span<const AbstractValue> in, const Params &) {
    if (in.size() != 1)
      fail("checkpoint_name", "expects 1 operand, got ", in.size());
    return std::vector<AbstractValue>{in[0]};
  };
  p.impl = [](std::span<const Array> in, const Params &, std::span<const AbstractValue>) {
    return std::vector<Array>{in[0]};
  };
  p.jvp = [](std::span<const Array>, std::span<const Array> t, std::span<const Array>,
             const Params &params) -> std::vector<Array> {
    return {rules::is_zero(t[0]) ? Array() : bind1(name_p, {t[0]}, params)};
  };
  p.vjp = [](std::span<const Array>, std::span<const Array>, std::span<const Array> ct,
             const std::vector<bool> &, const Params &) -> std::vector<Array> { return {ct[0]}; };
  p.batch = rules::elementwise_batch_rule();
  return register_primitive(std::move(p));
}();

bool saveable(const CheckpointPolicy &policy, const Primitive &prim, const std::vector<Array> &vals,
              const Params &params) {
  switch (policy.kind) {
  case CheckpointPolicy::Kind::Nothing:
    return false;
  case CheckpointPolicy::Kind::Everything:
    return true;
  case CheckpointPolicy::Kind::Dots:
    return prim.name == "dot_general";
  case CheckpointPolicy::Kind::Names:
    return &prim == &name_p &&
           std::count(policy.names.begin(), policy.names.end(), params.get_string("name")) > 0;
  case CheckpointPolicy::Kind::Callback: {
    if (!policy.saveable)
      throw Error("[checkpoint] a callback policy without a function", ErrorKind::Internal);
    std::vector<AbstractValue> avals;
    avals.reserve(vals.size());
    for (const Array &v : vals)
      avals.push_back(abstract_of(v));
    return policy.saveable(prim, avals, params);
  }
  }
  return false;
}

class PolicyTracer : public Tracer {
public:
  PolicyTracer(std::shared_ptr<TraceLevel> l, Array v) : Tracer(std::move(l)), val(std::move(v)) {}
  Array val;
};

// Records (forward) or substitutes (replay) the values the policy saves.
class PolicyLevel : public TraceLevel {
public:
  PolicyLevel(CheckpointPolicy p, const std::vector<Array> *kept)
      : policy(std::move(p)), replay(kept) {}
  std::string name() const override { return "checkpoint"; }

  CheckpointPolicy policy;
  const std::vector<Array> *replay; // null while recording
  size_t next = 0;
  bool active = true; // off during the backward pass of the replay
  std::vector<Array> recorded;

  Array wrap(Array v) {
    AbstractValue a = abstract_of(v);
    return Array::from_tracer(std::make_shared<PolicyTracer>(shared_from_this(), std::move(v)),
                              a.shape, a.dtype, a.weak_type);
  }
  Array unwrap(const Array &x) {
    auto *t = tracer_of<PolicyTracer>(x, this);
    return t ? t->val : x;
  }

  std::vector<Array> process(const Primitive &prim, std::span<const Array> inputs,
                             const Params &params) override {
    // Inside a call, the policy looks at each operation (the call's outputs are not saved).
    if (prim.has(kCall))
      return call_through(params, inputs);
    std::vector<Array> vals;
    for (const Array &x : inputs)
      vals.push_back(unwrap(x));
    // A trip-count bound stays concrete. Nothing inside a higher-order primitive (control
    // flow) is saved: it runs one level down in the forward pass and in the replay alike, so
    // both see the same saved values.
    if (prim.has(kConcreteOutput))
      return bind(prim, vals, params);
    std::vector<Array> outs;
    bool save = active && !has_sub_functions(params) && saveable(policy, prim, vals, params);
    if (save && replay) {
      size_t n = bind_count(prim, vals, params);
      if (next + n > replay->size())
        throw Error("[checkpoint] the replay saw more saved values than the forward pass "
                    "recorded: the checkpointed function is not deterministic",
                    ErrorKind::Internal);
      outs.assign(replay->begin() + next, replay->begin() + next + n);
      next += n;
    } else {
      outs = bind(prim, vals, params);
      if (save)
        recorded.insert(recorded.end(), outs.begin(), outs.end());
    }
    std::vector<Array> result;
    for (Array &o : outs)
      result.push_back(wrap(o));
    return result;
  }

  // Number of outputs of a primitive application, from its shape rule.
  static size_t bind_count(const Primitive &prim, const std::vector<Array> &vals,
                           const Params &params) {
    std::vector<AbstractValue> in;
    for (const Array &v : vals)
      in.push_back(abstract_of(v));
    return prim.shape_rule(in, params).size();
  }
};

} // namespace

Array checkpoint_name(const Array &x, const std::string &name) {
  return bind1(name_p, {x}, {{"name", name}});
}

RematForward remat_record(const CheckpointPolicy &policy, const FlatFn &f,
                          const std::vector<Array> &primals) {
  if (policy.kind == CheckpointPolicy::Kind::Nothing)
    return {f(primals), {}};
  auto level = std::make_shared<PolicyLevel>(policy, nullptr);
  std::vector<Array> outs;
  {
    LevelGuard guard(level);
    std::vector<Array> in;
    for (const Array &p : primals)
      in.push_back(level->wrap(p));
    outs = f(in);
  }
  RematForward r;
  for (const Array &o : outs)
    r.outputs.push_back(level->unwrap(o));
  r.saved = std::move(level->recorded);
  return r;
}

std::vector<Array> remat_backward(const FlatFn &f, const std::vector<Array> &primals,
                                  const CheckpointPolicy &policy, const std::vector<Array> &kept,
                                  const std::vector<Array> &cts) {
  if (policy.kind == CheckpointPolicy::Kind::Nothing)
    return vjp_flat(f, primals, "checkpoint", /*reusable=*/false).pullback(cts);
  auto level = std::make_shared<PolicyLevel>(policy, &kept);
  std::vector<Array> grads;
  {
    LevelGuard guard(level);
    std::vector<Array> in;
    for (const Array &p : primals)
      in.push_back(level->wrap(p));
    VjpResult r = vjp_flat(f, in, "checkpoint", /*reusable=*/false);
    level->active = false; // the backward pass computes its own products
    grads = r.pullback(cts);
  }
  for (Array &g : grads)
    g = level->unwrap(g);
  return grads;
}

} // namespace strata
