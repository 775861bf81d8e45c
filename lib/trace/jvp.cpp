// Forward mode: the jvp level carries (primal, tangent) pairs and applies jvp rules.
#include "strata/transforms.h"
#include "trace/transforms_impl.h"

namespace strata {
namespace {

class JvpLevel;

class JvpTracer : public Tracer {
public:
  JvpTracer(std::shared_ptr<TraceLevel> l, Array p, Array t)
      : Tracer(std::move(l)), primal(std::move(p)), tangent(std::move(t)) {}
  Array primal;
  Array tangent; // empty: symbolically zero
};

class JvpLevel : public TraceLevel {
public:
  std::string name() const override { return "jvp"; }

  Array wrap(Array primal, Array tangent) {
    AbstractValue a = abstract_of(primal);
    return Array::from_tracer(std::make_shared<JvpTracer>(shared_from_this(), std::move(primal),
                                                          std::move(tangent)),
                              a.shape, a.dtype, a.weak_type);
  }

  std::vector<Array> process_call(const CallKind &kind, const FlatFn &f,
                                  std::span<const Array> inputs) override {
    if (kind.name == "jit" && kind.rejit)
      return process_jit(kind, f, inputs);
    if (kind.name != "custom_jvp" && kind.name != "custom_vjp")
      return TraceLevel::process_call(kind, f, inputs);
    std::vector<Array> primals, tangents;
    bool any = false;
    for (const Array &x : inputs) {
      auto *t = tracer_of<JvpTracer>(x, this);
      primals.push_back(t ? t->primal : x);
      tangents.push_back(t && t->tangent.valid() ? t->tangent : zeros_like(primals.back()));
      any |= t != nullptr;
    }
    if (!any)
      return bind_call(kind, f, primals);
    if (kind.name == "custom_vjp")
      return custom_vjp_jvp(kind, f, primals, tangents);
    std::vector<Array> outs = bind_call(kind, f, primals);
    std::vector<Array> args = primals;
    args.insert(args.end(), tangents.begin(), tangents.end());
    std::vector<Array> touts = kind.jvp(args);
    if (touts.size() != outs.size())
      fail("custom_jvp", "rule returned ", touts.size(), " tangents for ", outs.size(),
           " outputs");
    std::vector<Array> result;
    for (size_t i = 0; i < outs.size(); ++i) {
      if (touts[i].shape() != outs[i].shape() || touts[i].dtype() != outs[i].dtype())
        fail("custom_jvp", "rule returned tangent ", touts[i].type_str(), " for output ",
             outs[i].type_str());
      result.push_back(is_floating(outs[i].dtype()) ? wrap(outs[i], touts[i]) : outs[i]);
    }
    return result;
  }

  // Forward mode through a custom_vjp rule (JAX refuses it): bwd is linear in its cotangents,
  // ct -> bwd(res, ct) is the transpose J^T of the Jacobian the rule stands for, and the output
  // tangents are J t: the vjp of that linear map (taken at ct = 0) applied to the tangents.
  std::vector<Array> custom_vjp_jvp(const CallKind &kind, const FlatFn &f,
                                    const std::vector<Array> &primals,
                                    const std::vector<Array> &tangents) {
    std::vector<Array> all = kind.fwd(primals);
    if (all.size() < kind.num_outputs)
      fail("custom_vjp", "fwd returned ", all.size(), " values, expected at least ",
           kind.num_outputs, " outputs");
    std::vector<Array> outs(all.begin(), all.begin() + kind.num_outputs);
    std::vector<Array> res(all.begin() + kind.num_outputs, all.end());
    std::vector<Array> zero_cts; // one per floating output; integer outputs have none
    for (const Array &o : outs)
      if (is_floating(o.dtype()))
        zero_cts.push_back(zeros_like(o));
    FlatFn bwd = kind.bwd;
    FlatFn transposed = [&](const std::vector<Array> &cts) {
      std::vector<Array> args = res;
      size_t k = 0;
      for (const Array &o : outs)
        args.push_back(is_floating(o.dtype()) ? cts[k++] : Array());
      std::vector<Array> g = bwd(args);
      if (g.size() != primals.size())
        fail("custom_vjp", "bwd returned ", g.size(), " cotangents for ", primals.size(),
             " inputs");
      for (size_t i = 0; i < g.size(); ++i) {
        if (!g[i].valid() || !is_floating(primals[i].dtype()))
          g[i] = zeros_like(primals[i]); // no cotangent: the output ignores this input
        else if (g[i].shape() != primals[i].shape() || g[i].dtype() != primals[i].dtype())
          fail("custom_vjp", "bwd returned a cotangent of type ", g[i].type_str(), " for argument ",
               i, " of type ", primals[i].type_str());
      }
      return g;
    };
    std::vector<Array> touts = vjp_flat(transposed, zero_cts, "custom_vjp").pullback(tangents);
    // The primal outputs come from the call bound one level down, so that an outer derivative
    // of them uses the rule too (jvp of jvp); at the bottom fwd's outputs are the same values.
    if (top_level(primals, kind.name))
      outs = bind_call(kind, f, primals);
    std::vector<Array> result;
    size_t k = 0;
    for (const Array &o : outs)
      result.push_back(is_floating(o.dtype()) ? wrap(o, touts[k++]) : o);
    return result;
  }

  // jvp of a jitted function is jitted: (primals ++ the tangents present) -> (outputs ++ output
  // tangents), compiled once per pattern of present tangents. Symbolically zero tangents are
  // neither passed nor pushed through f.
  std::vector<Array> process_jit(const CallKind &kind, const FlatFn &f,
                                 std::span<const Array> inputs) {
    std::vector<Array> args, tangents;
    std::vector<bool> mask;
    std::string tag = "jvp:";
    for (const Array &x : inputs) {
      auto *t = tracer_of<JvpTracer>(x, this);
      bool has = t && t->tangent.valid();
      args.push_back(t ? t->primal : x);
      if (has)
        tangents.push_back(t->tangent);
      mask.push_back(has);
      tag += has ? '1' : '0';
    }
    if (tangents.empty())
      return bind_call(kind, f, args);
    args.insert(args.end(), tangents.begin(), tangents.end());
    FlatFn jf = [f, mask](const std::vector<Array> &in) { return jvp_masked(f, mask, in); };
    std::vector<Array> all;
    try {
      all = kind.rejit(tag, jf)(args);
    } catch (const RejitInline &) {
      return TraceLevel::process_call(kind, f, inputs);
    }
    size_t n = all.size() / 2;
    std::vector<Array> result;
    for (size_t i = 0; i < n; ++i)
      result.push_back(is_floating(all[i].dtype()) ? wrap(all[i], all[n + i]) : all[i]);
    return result;
  }

  // (primals ++ tangents of the inputs in `mask`) -> (outputs ++ output tangents, zeros where
  // an output does not depend on the tangents).
  static std::vector<Array> jvp_masked(const FlatFn &f, const std::vector<bool> &mask,
                                       const std::vector<Array> &in) {
    auto level = std::make_shared<JvpLevel>();
    std::vector<Array> outs;
    {
      LevelGuard guard(level);
      std::vector<Array> args;
      size_t k = mask.size();
      for (size_t i = 0; i < mask.size(); ++i)
        args.push_back(mask[i] ? level->wrap(in[i], in[k++]) : in[i]);
      outs = f(args);
    }
    std::vector<Array> p, t;
    for (const Array &o : outs) {
      auto *tr = tracer_of<JvpTracer>(o, level.get());
      p.push_back(tr ? tr->primal : o);
      t.push_back(tr && tr->tangent.valid() ? tr->tangent : zeros_like(p.back()));
    }
    p.insert(p.end(), t.begin(), t.end());
    return p;
  }

  std::vector<Array> process(const Primitive &prim, std::span<const Array> inputs,
                             const Params &params) override {
    std::vector<Array> primals, tangents;
    primals.reserve(inputs.size());
    tangents.reserve(inputs.size());
    bool any_tangent = false;
    for (const Array &x : inputs) {
      if (auto *t = tracer_of<JvpTracer>(x, this)) {
        primals.push_back(t->primal);
        tangents.push_back(t->tangent);
        any_tangent |= t->tangent.valid();
      } else {
        primals.push_back(x);
        tangents.emplace_back();
      }
    }
    std::vector<Array> outs, touts;
    bool fused = any_tangent && prim.fwd_jvp && !prim.has(kNonDifferentiable);
    if (fused) {
      std::tie(outs, touts) = prim.fwd_jvp(primals, tangents, params);
    } else {
      outs = bind(prim, primals, params);
      if (!any_tangent)
        return outs;
    }
    if (!fused && !prim.has(kNonDifferentiable)) {
      if (!prim.jvp)
        fail(prim.name, "has no jvp rule");
      touts = prim.jvp(primals, tangents, outs, params);
    }
    touts.resize(outs.size());
    std::vector<Array> result;
    result.reserve(outs.size());
    for (size_t i = 0; i < outs.size(); ++i) {
      if (touts[i].valid() && is_floating(outs[i].dtype()))
        result.push_back(wrap(outs[i], touts[i]));
      else
        result.push_back(outs[i]); // zero tangent: a constant to this level
    }
    return result;
  }
};

} // namespace

std::pair<std::vector<Array>, std::vector<Array>>
jvp_flat(const FlatFn &f, const std::vector<Array> &primals, const std::vector<Array> &tangents) {
  if (primals.size() != tangents.size())
    fail("jvp", "got ", primals.size(), " primals and ", tangents.size(), " tangents");
  for (size_t i = 0; i < primals.size(); ++i) {
    if (abstract_of(primals[i]).shape != tangents[i].shape() ||
        primals[i].dtype() != tangents[i].dtype())
      fail("jvp", "tangent ", i, " is ", tangents[i].type_str(), " but its primal is ",
           primals[i].type_str());
  }
  auto level = std::make_shared<JvpLevel>();
  std::vector<Array> outs;
  {
    LevelGuard guard(level);
    std::vector<Array> in;
    for (size_t i = 0; i < primals.size(); ++i)
      in.push_back(is_floating(primals[i].dtype()) ? level->wrap(primals[i], tangents[i])
                                                   : primals[i]);
    outs = f(in);
  }
  std::vector<Array> p, t;
  for (const Array &o : outs) {
    if (auto *tr = tracer_of<JvpTracer>(o, level.get())) {
      p.push_back(tr->primal);
      t.push_back(tr->tangent.valid() ? tr->tangent : zeros_like(tr->primal));
    } else {
      p.push_back(o);
      t.push_back(zeros_like(o));
    }
  }
  return {p, t};
}

} // namespace strata
