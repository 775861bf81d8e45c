// Control flow's entry points (cond, switch, while_loop, fori_loop, scan): the checks of their
// arguments and the closure conversion of their sub-functions, before they bind the cond, while
// and scan primitives (lib/primitives/control_flow.cpp, where every rule lives).
//
// Traced once. At the call each sub-function runs once abstractly under a Closure
// (lib/trace/closure.h); that checks its output structure, shapes and dtypes against the
// carries (or the other branches) and finds the tracers it closes over, which become explicit
// leading inputs of the primitive (its "consts") that every sub-function takes first.
#include "strata/control_flow.h"

#include <algorithm>

#include "primitives/control_flow_impl.h"
#include "strata/lax.h"
#include "trace/closure.h"

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
  std::vector<Array> inputs{lax::convert_element_type(index, DType::Int32)};
  inputs.insert(inputs.end(), closed.consts.begin(), closed.consts.end());
  inputs.insert(inputs.end(), operands.begin(), operands.end());
  return strata::bind(cond_primitive(), inputs, Params{{"name", op}, {"branches", closed.fns}});
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
  Params params{{"name", op},
                {"cond_fun", closed.fns[0]},
                {"body", closed.fns[1]},
                {"checkpoint_every", options.checkpoint_every},
                {"policy", std::make_shared<const CheckpointPolicy>(options.policy)}};
  return strata::bind(while_primitive(), cat(closed.consts, init), params);
}

std::pair<std::vector<Array>, std::vector<Array>>
scan_impl(const std::string &op, const FlatFn &f, const std::vector<Array> &init,
          const std::vector<Array> &xs, std::optional<int64_t> length, bool reverse, int64_t unroll,
          lax::LoopGradOptions options) {
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
  Params params{{"name", op},
                {"body", closed.fns[0]},
                {"num_carry", static_cast<int64_t>(init.size())},
                {"length", len},
                {"reverse", reverse},
                {"unroll", unroll},
                {"checkpoint_every", options.checkpoint_every},
                {"policy", std::make_shared<const CheckpointPolicy>(options.policy)}};
  std::vector<Array> outs =
      strata::bind(scan_primitive(), cat(cat(closed.consts, init), xs), params);
  return {std::vector<Array>(outs.begin(), outs.begin() + init.size()),
          std::vector<Array>(outs.begin() + init.size(), outs.end())};
}

void check_index(std::string_view op, const Array &index, bool boolean) {
  if (!index.valid())
    fail(op, "the ", boolean ? "predicate" : "index", " is an empty (default-constructed) Array");
  bool ok =
      index.ndim() == 0 && (boolean ? index.dtype() == DType::Bool : is_integer(index.dtype()));
  if (!ok)
    fail_kind(ErrorKind::Type, op,
              boolean ? "the predicate must be a boolean scalar, got "
                      : "the index must be an integer scalar, got ",
              index.type_str());
}

} // namespace

// ---- Public entry points ----------------------------------------------------------------------

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

} // namespace strata
