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
    return Array::from_tracer(
        std::make_shared<JvpTracer>(shared_from_this(), std::move(primal), std::move(tangent)),
        a.shape, a.dtype, a.weak_type);
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
      if (touts[i].valid() && is_inexact(outs[i].dtype()))
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
      in.push_back(is_inexact(primals[i].dtype()) ? level->wrap(primals[i], tangents[i])
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
