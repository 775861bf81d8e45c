// Reverse mode: the grad level records each primitive applied to its tracers on a tape, with
// the primal inputs and outputs as residuals; the backward pass runs the vjp rules in reverse.
// Rules are written with public ops, so the backward pass is itself traced by any outer level
// (grad of grad, jvp of grad, vmap of grad).
#include <algorithm>
#include <unordered_map>

#include "strata/lax.h"
#include "strata/transforms.h"
#include "trace/transforms_impl.h"

namespace strata {
namespace {

struct Node {
  const Primitive *prim = nullptr;
  Params params;
  std::vector<Array> primals, outs;
  std::vector<int64_t> in_ids, out_ids; // -1: constant input / untracked output
  /// For nodes of a rule that ran the forward pass (FwdVjpRule) and of calls: computes input
  /// cotangents from output cotangents.
  std::function<std::vector<Array>(const std::vector<Array> &)> call_vjp;
  std::string call_name; // what the node applies, for nodes with call_vjp
  std::string name() const { return prim ? prim->name : call_name; }
};

struct Tape {
  std::vector<Node> nodes;
  int64_t next_id = 0;
  bool used = false;
};

class GradLevel;

class GradTracer : public Tracer {
public:
  GradTracer(std::shared_ptr<TraceLevel> l, Array p, int64_t i)
      : Tracer(std::move(l)), primal(std::move(p)), id(i) {}
  Array primal;
  int64_t id;
};

class GradLevel : public TraceLevel {
public:
  std::string name() const override { return name_; }
  explicit GradLevel(std::string name) : name_(std::move(name)) {}

  std::shared_ptr<Tape> tape = std::make_shared<Tape>();

  Array wrap(Array primal) {
    AbstractValue a = abstract_of(primal);
    int64_t id = tape->next_id++;
    return Array::from_tracer(
        std::make_shared<GradTracer>(shared_from_this(), std::move(primal), id), a.shape, a.dtype,
        a.weak_type);
  }

  // Splits inputs into primal values and tape ids (-1 for values constant to this level).
  bool unwrap(std::span<const Array> inputs, std::vector<Array> &primals,
              std::vector<int64_t> &ids) {
    bool any = false;
    for (const Array &x : inputs) {
      if (auto *t = tracer_of<GradTracer>(x, this)) {
        primals.push_back(t->primal);
        ids.push_back(t->id);
        any = true;
      } else {
        primals.push_back(x);
        ids.push_back(-1);
      }
    }
    return any;
  }

  std::vector<Array> record(Node node) {
    std::vector<Array> result;
    for (const Array &o : node.outs) {
      if (is_inexact(o.dtype())) {
        result.push_back(wrap(o));
        node.out_ids.push_back(tape->next_id - 1);
      } else {
        result.push_back(o); // integer and bool outputs have no cotangent
        node.out_ids.push_back(-1);
      }
    }
    tape->nodes.push_back(std::move(node));
    return result;
  }

  std::vector<Array> process(const Primitive &prim, std::span<const Array> inputs,
                             const Params &params) override {
    Node node;
    bool any = unwrap(inputs, node.primals, node.in_ids);
    if (any && prim.fwd_vjp && !prim.has(kNonDifferentiable)) {
      // The rule runs the forward pass one level down and hands back the pullback.
      std::vector<bool> wanted(node.in_ids.size());
      for (size_t i = 0; i < wanted.size(); ++i)
        wanted[i] = node.in_ids[i] >= 0;
      FwdVjp r = prim.fwd_vjp(node.primals, wanted, params);
      node.outs = std::move(r.outs);
      node.call_vjp = std::move(r.pullback);
      node.call_name = prim.name;
      node.prim = &prim;
      node.params = params;
      return record(std::move(node));
    }
    node.outs = bind(prim, node.primals, params);
    if (!any || prim.has(kNonDifferentiable))
      return node.outs;
    if (!prim.vjp)
      fail(prim.name, "has no vjp rule");
    node.prim = &prim;
    node.params = params;
    return record(std::move(node));
  }

private:
  std::string name_;
};

// Runs the tape backwards from the output cotangents to the cotangents of `wanted` ids.
// With `release`, each node's residuals are dropped once used, lowering the backward pass's
// peak memory (single-use pullbacks: grad, value_and_grad).
std::vector<Array> backward(Tape &tape, const std::vector<int64_t> &out_ids,
                            const std::vector<Array> &out_cts, const std::vector<int64_t> &wanted,
                            bool release) {
  std::unordered_map<int64_t, Array> ct;
  auto accumulate = [&](int64_t id, const Array &c) {
    auto it = ct.find(id);
    if (it == ct.end())
      ct.emplace(id, c);
    else
      it->second = lax::add(it->second, c);
  };
  for (size_t i = 0; i < out_ids.size(); ++i)
    if (out_ids[i] >= 0 && out_cts[i].valid())
      accumulate(out_ids[i], out_cts[i]);
  for (auto n = tape.nodes.rbegin(); n != tape.nodes.rend(); ++n) {
    std::vector<Array> cts(n->out_ids.size());
    bool any = false;
    for (size_t i = 0; i < n->out_ids.size(); ++i) {
      auto it = n->out_ids[i] >= 0 ? ct.find(n->out_ids[i]) : ct.end();
      if (it != ct.end()) {
        cts[i] = it->second;
        ct.erase(it);
        any = true;
      }
    }
    if (!any)
      continue;
    std::vector<Array> cin;
    if (n->call_vjp) {
      for (size_t i = 0; i < cts.size(); ++i)
        if (!cts[i].valid() && is_inexact(n->outs[i].dtype()))
          cts[i] = zeros_like(n->outs[i]);
      cin = n->call_vjp(cts);
    } else {
      std::vector<bool> wanted(n->in_ids.size());
      for (size_t i = 0; i < wanted.size(); ++i)
        wanted[i] = n->in_ids[i] >= 0;
      cin = n->prim->vjp(n->primals, n->outs, cts, wanted, n->params);
    }
    cin.resize(n->primals.size());
    for (size_t i = 0; i < n->primals.size(); ++i) {
      if (n->in_ids[i] < 0 || !cin[i].valid())
        continue;
      if (cin[i].shape() != n->primals[i].shape() || cin[i].dtype() != n->primals[i].dtype()) {
        // A call's cotangents come from user code (custom_vjp's bwd); a primitive's from its rule.
        if (n->call_vjp)
          fail(n->call_name, n->call_name == "custom_vjp" ? "bwd" : "backward pass",
               " returned a cotangent of type ", cin[i].type_str(), " for argument ", i,
               " of type ", n->primals[i].type_str());
        throw Error(detail::cat("[", n->name(), "] vjp rule returned ", cin[i].type_str(),
                                " for input ", i, " of type ", n->primals[i].type_str()),
                    ErrorKind::Internal);
      }
      accumulate(n->in_ids[i], cin[i]);
    }
    if (release)
      *n = Node();
  }
  std::vector<Array> result;
  for (int64_t id : wanted) {
    auto it = ct.find(id);
    result.push_back(it == ct.end() ? Array() : it->second);
  }
  return result;
}

} // namespace

VjpResult vjp_flat(const FlatFn &f, const std::vector<Array> &primals, const std::string &name,
                   bool reusable) {
  auto level = std::make_shared<GradLevel>(name);
  std::vector<Array> outs;
  std::vector<int64_t> in_ids;
  {
    LevelGuard guard(level);
    std::vector<Array> in;
    for (const Array &p : primals) {
      if (is_inexact(p.dtype())) {
        in.push_back(level->wrap(p));
        in_ids.push_back(level->tape->next_id - 1);
      } else {
        in.push_back(p);
        in_ids.push_back(-1);
      }
    }
    outs = f(in);
  }
  VjpResult r;
  std::vector<int64_t> out_ids;
  for (const Array &o : outs) {
    if (auto *t = tracer_of<GradTracer>(o, level.get())) {
      r.outputs.push_back(t->primal);
      out_ids.push_back(t->id);
    } else {
      r.outputs.push_back(o);
      out_ids.push_back(-1);
    }
  }
  std::vector<AbstractValue> out_avals, in_avals;
  for (const Array &o : r.outputs)
    out_avals.push_back(abstract_of(o));
  for (const Array &p : primals)
    in_avals.push_back(abstract_of(p));
  std::shared_ptr<Tape> tape = level->tape;
  r.pullback = [tape, out_ids, in_ids, out_avals, in_avals, name,
                reusable](const std::vector<Array> &cts) -> std::vector<Array> {
    if (!reusable && tape->used)
      fail(name, "this pullback was already used once (its residuals are released)");
    if (cts.size() != out_avals.size())
      fail(name, "pullback takes ", out_avals.size(), " cotangents, got ", cts.size());
    for (size_t i = 0; i < cts.size(); ++i)
      if (cts[i].shape() != out_avals[i].shape || cts[i].dtype() != out_avals[i].dtype)
        fail(name, "cotangent ", i, " is ", cts[i].type_str(), " but the output is ",
             out_avals[i].str());
    std::vector<Array> g = backward(*tape, out_ids, cts, in_ids, !reusable);
    tape->used = true;
    for (size_t i = 0; i < g.size(); ++i)
      if (!g[i].valid())
        g[i] = zeros(in_avals[i].shape, in_avals[i].dtype);
    return g;
  };
  return r;
}

// ---- grad: reverse mode of a scalar function, with the checks the typed transforms share ----
namespace detail {
void check_grad_output(const Array &out, std::string_view op) {
  if (out.ndim() != 0)
    fail(op, "the function must return a scalar, got ", out.type_str(),
         " (use vjp or jacrev for non-scalar outputs)");
  if (is_complex(out.dtype()))
    fail_kind(ErrorKind::Type, op, "the function must return a real scalar, got ", out.type_str(),
              " (for holomorphic differentiation, pass holomorphic=True)");
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
    if (!is_inexact(in[i].dtype()))
      fail_kind(ErrorKind::Type, op, "differentiated ", describe_input(i, arg_of_leaf),
                " has type ", in[i].type_str(), "; grad needs floating-point or complex inputs");
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
    if (!is_inexact(args[a].dtype()))
      fail_kind(ErrorKind::Type, "grad", "differentiated argument ", a, " has type ",
                args[a].type_str(), "; grad needs floating-point or complex inputs");
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
