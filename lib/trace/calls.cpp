// The abstract level (eval_shape) and the checks the typed transforms share.
#include <algorithm>
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
    LevelGuard guard(level);
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

namespace detail {
void check_grad_output(const Array &out, std::string_view op) {
  if (out.ndim() != 0)
    fail(op, "the function must return a scalar, got ", out.type_str(),
         " (use vjp or jacrev for non-scalar outputs)");
  if (!is_floating(out.dtype()))
    fail_kind(ErrorKind::Type, op, "the function must return a floating-point scalar, got ",
              out.type_str());
}
std::string describe_input(size_t leaf, const std::vector<int> &arg_of_leaf) {
  if (leaf >= arg_of_leaf.size())
    return "argument " + std::to_string(leaf);
  int arg = arg_of_leaf[leaf];
  size_t first = std::find(arg_of_leaf.begin(), arg_of_leaf.end(), arg) - arg_of_leaf.begin();
  bool tree = std::count(arg_of_leaf.begin(), arg_of_leaf.end(), arg) > 1;
  return "argument " + std::to_string(arg) +
         (tree ? " (leaf " + std::to_string(leaf - first) + ")" : std::string());
}
void check_grad_inputs(const std::vector<Array> &in, std::string_view op,
                       const std::vector<int> &arg_of_leaf) {
  for (size_t i = 0; i < in.size(); ++i)
    if (!is_floating(in[i].dtype()))
      fail_kind(ErrorKind::Type, op, "differentiated ", describe_input(i, arg_of_leaf),
                " has type ", in[i].type_str(), "; grad needs floating-point inputs");
}
} // namespace detail

std::vector<Array> grad_flat(const FlatFn &f, const std::vector<Array> &args,
                             const std::vector<int> &argnums) {
  for (int a : argnums)
    if (a < 0 || a >= static_cast<int>(args.size()))
      fail("grad", "argnums entry ", a, " is out of range for a function of ", args.size(),
           " arguments");
  std::vector<Array> diff;
  for (int a : argnums) {
    // Named by argument position: an index into `diff` would not say which argument is bad.
    if (!is_floating(args[a].dtype()))
      fail_kind(ErrorKind::Type, "grad", "differentiated argument ", a, " has type ",
                args[a].type_str(), "; grad needs floating-point inputs");
    diff.push_back(args[a]);
  }
  FlatFn g = [&](const std::vector<Array> &in) {
    std::vector<Array> all = args;
    for (size_t i = 0; i < argnums.size(); ++i)
      all[argnums[i]] = in[i];
    std::vector<Array> out = f(all);
    if (out.size() != 1)
      fail("grad", "the function must return one scalar, got ", out.size(), " outputs");
    detail::check_grad_output(out[0], "grad");
    return out;
  };
  VjpResult r = vjp_flat(g, diff, "grad", /*reusable=*/false);
  return r.pullback({ones_like(r.outputs[0])});
}

} // namespace strata
