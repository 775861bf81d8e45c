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
// Traced once. At the call each sub-function runs once abstractly under a Closure
// (lib/transforms/closure.h); that checks its output structure, shapes and dtypes against the
// carries (or the other branches) and finds the tracers it closes over, which become explicit
// leading inputs of the op (its "consts") that every sub-function takes first.
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

#include "control_flow_impl.h"
#include "strata/lax.h"
#include "transforms/closure.h"

namespace strata {
namespace {

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
  Closure closure(op);
  std::vector<std::vector<AbstractValue>> outs;
  for (size_t k = 0; k < branches.size(); ++k) {
    outs.push_back(closure.trace("branch" + std::to_string(k), branches[k], in));
    const auto &a = outs[0], &b = outs[k];
    if (b.size() != a.size())
      fail(op, branch_names[k], " returns ", b.size(), " values where ", branch_names[0],
           " returns ", a.size());
    for (size_t i = 0; i < a.size(); ++i)
      if (!same_type(a[i], b[i]))
        fail(op, branch_names[k], " returns ", type_of(b[i]), " for output ", i, " where ",
             branch_names[0], " returns ", type_of(a[i]));
  }
  ClosedFns closed = closure.close();
  ControlFlow cf;
  cf.kind = ControlFlow::Kind::Cond;
  cf.name = op;
  for (const SubFnRef &b : closed.fns)
    cf.branches.push_back(b->fn);
  std::vector<Array> inputs{lax::convert_element_type(index, DType::Int32)};
  inputs.insert(inputs.end(), closed.consts.begin(), closed.consts.end());
  inputs.insert(inputs.end(), operands.begin(), operands.end());
  return bind_control(cf, inputs);
}

std::vector<Array> while_impl(const std::string &op, const FlatFn &cond_fn, const FlatFn &body,
                              const std::vector<Array> &init, lax::LoopGradOptions options) {
  if (options.checkpoint_every < 1)
    fail(op, "checkpoint_every must be at least 1, got ", options.checkpoint_every);
  std::vector<AbstractValue> in = avals_of(checked_inputs(op, init));
  Closure closure(op);
  std::vector<AbstractValue> p = closure.trace("cond_fun", cond_fn, in);
  if (p.size() != 1 || p[0].dtype != DType::Bool || !p[0].shape.empty())
    fail_kind(ErrorKind::Type, op, "cond_fun must return one boolean scalar, got ",
              p.size() == 1 ? type_of(p[0]) : std::to_string(p.size()) + " values");
  check_carries(op, closure.trace("body", body, in), in, /*extra_outputs=*/false);
  ClosedFns closed = closure.close();
  ControlFlow cf;
  cf.kind = ControlFlow::Kind::While;
  cf.name = op;
  cf.cond_fn = closed.fns[0]->fn;
  cf.body = closed.fns[1]->fn;
  cf.num_consts = closed.consts.size();
  cf.checkpoint_every = options.checkpoint_every;
  cf.policy = options.policy;
  return bind_control(cf, cat(closed.consts, init));
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
  Closure closure(op);
  std::vector<AbstractValue> out = closure.trace("body", f, in);
  check_carries(op, out, std::span<const AbstractValue>(in).first(init.size()),
                /*extra_outputs=*/true);
  ClosedFns closed = closure.close();
  ControlFlow cf;
  cf.kind = ControlFlow::Kind::Scan;
  cf.name = op;
  cf.body = closed.fns[0]->fn;
  cf.num_consts = closed.consts.size();
  cf.num_carry = init.size();
  cf.length = len;
  cf.reverse = reverse;
  cf.unroll = unroll;
  cf.checkpoint_every = options.checkpoint_every;
  cf.policy = options.policy;
  std::vector<Array> outs = bind_control(cf, cat(cat(closed.consts, init), xs));
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
