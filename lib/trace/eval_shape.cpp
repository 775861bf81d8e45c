// The abstract level: eval_shape traces a function on shapes and dtypes alone.
#include "strata/lax.h"
#include "strata/transforms.h"
#include "trace/transforms_impl.h"

namespace strata {
namespace {

class AbstractTracer : public Tracer {
public:
  using Tracer::Tracer;
};

class AbstractLevel : public TraceLevel {
public:
  std::string name() const override { return "eval_shape"; }
  Array make(const AbstractValue &a) {
    return Array::from_tracer(std::make_shared<AbstractTracer>(shared_from_this()), a.shape,
                              a.dtype, a.weak_type);
  }
  std::vector<Array> process(const Primitive &prim, std::span<const Array> inputs,
                             const Params &params) override {
    if (prim.has(kCall)) // traced through: a jitted call is not compiled to learn its shapes
      return call_through(params, inputs);
    std::vector<AbstractValue> in;
    for (const Array &x : inputs)
      in.push_back(abstract_of(x));
    if (prim.has(kConcreteOutput)) // a trip-count bound: any value gives the same shapes
      return concrete_placeholder(prim, in, params);
    std::vector<Array> out;
    for (const AbstractValue &a : prim.shape_rule(in, params))
      out.push_back(make(a));
    return out;
  }
};

} // namespace

std::vector<AbstractValue> eval_shape_flat(const FlatFn &f, const std::vector<AbstractValue> &in) {
  auto level = std::make_shared<AbstractLevel>();
  std::vector<Array> outs;
  {
    // Dynamic, as JAX stages eval_shape: ops without traced inputs (zeros, iota) stay
    // abstract too, so a shape too large to allocate still evaluates.
    LevelGuard guard(level, /*dynamic=*/true);
    std::vector<Array> args;
    for (const AbstractValue &a : in)
      args.push_back(level->make(a));
    outs = f(args);
  }
  std::vector<AbstractValue> result;
  for (const Array &o : outs)
    result.push_back(abstract_of(o));
  return result;
}

} // namespace strata
