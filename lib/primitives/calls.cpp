// The call primitives: remat (checkpoint), custom_jvp_call, custom_vjp_call and jit_call, each
// applying a sub-function "fn" to its inputs, with every rule beside it (JAX's remat_p,
// custom_jvp_call_p, custom_vjp_call_p, pjit_p), and the public wrappers that bind them.
//
// Binding closes the function over the tracers it captures (lib/transforms/closure.h): those
// become the primitive's leading inputs, its consts, and every sub-function takes them first,
// so any level may call them with values of its own (a rule is not traced when bound: see
// rule_fn). A rule rebinds the primitive with
// sub-functions it builds from the closed ones (the batched function and rules under vmap, the
// jvp of the function under jvp), so an outer level still sees the call and applies its own
// rule to it: the custom derivative, or the rematerialization, survives every composition.
#include <algorithm>

#include "primitives/control_flow_impl.h"
#include "strata/internal/trace.h"
#include "strata/lax.h"
#include "strata/ops.h"
#include "strata/transforms.h"
#include "trace/closure.h"
#include "trace/transforms_impl.h"

namespace strata {
namespace {

using Vec = std::vector<Array>;

Vec part(std::span<const Array> xs, size_t begin, size_t end) {
  return Vec(xs.begin() + begin, xs.begin() + end);
}
Vec cat(Vec a, const Vec &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
std::vector<AbstractValue> avals_of(std::span<const Array> xs) {
  std::vector<AbstractValue> out;
  for (const Array &x : xs)
    out.push_back(abstract_of(x));
  return out;
}
const SubFnRef &fn_ref(const Params &params, std::string_view name) {
  return std::get<SubFnRef>(params.at(name));
}
// A tangent argument: an absent (symbolically zero) tangent as zeros of its primal's type.
Array instantiate(const Array &tangent, const Array &primal) {
  return tangent.valid() ? tangent : zeros_like(primal);
}
// A cotangent argument: an absent one as zeros of its output's type.
Vec instantiate_all(std::span<const Array> xs, std::span<const Array> like) {
  Vec out;
  for (size_t i = 0; i < xs.size(); ++i)
    out.push_back(instantiate(xs[i], like[i]));
  return out;
}

/// The aval of a value batched at `dim` (kNotBatched: as it is) with `size` examples.
AbstractValue batched(AbstractValue a, int64_t dim, int64_t size) {
  if (dim != kNotBatched)
    a.shape.insert(a.shape.begin() + dim, size);
  return a;
}

/// The call's own output avals: the ones its function was traced at, for inputs of the avals
/// it was traced at.
std::vector<AbstractValue> call_shape(const std::string &op, std::span<const AbstractValue> in,
                                      const Params &params) {
  const SubFn &fn = params.get_fn("fn");
  if (in.size() != fn.in.size())
    fail(op, "expects ", fn.in.size(), " operands (", fn.num_consts,
         " captured values first), got ", in.size());
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i].shape != fn.in[i].shape || in[i].dtype != fn.in[i].dtype)
      fail(op, "operand ", i, " is ", in[i].str(), " but the function was traced at ",
           fn.in[i].str());
  return fn.out;
}

Primitive call_primitive(std::string name) {
  Primitive p;
  p.name = name;
  p.traits = kCall;
  p.shape_rule = [name](std::span<const AbstractValue> in, const Params &params) {
    return call_shape(name, in, params);
  };
  p.impl = [](std::span<const Array> in, const Params &params, std::span<const AbstractValue>) {
    return call_through(params, in);
  };
  return p;
}

/// Sub-function `fn` batched over `dims` of its inputs (outputs on axis 0), closed like the
/// original (its consts stay its leading inputs).
SubFnRef batched_fn(const std::string &op, const SubFnRef &fn, std::vector<int64_t> dims,
                    std::vector<AbstractValue> in, int64_t size) {
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = batched(in[i], dims[i], size);
  return closed_fn(
      op, fn->name,
      [fn, dims](const Vec &args) {
        return std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d == kNotBatched; })
                   ? fn->fn(args)
                   : vmap_flat(fn->fn, args, dims);
      },
      std::move(in), fn->num_consts);
}

/// A rule of a call (a jvp, fwd or bwd) as a sub-function that takes the call's consts first and
/// does not read them: the rule is the user's closure and reaches what it captured directly. It
/// is not traced when bound, because a rule may call the very function it is the rule of (as
/// JAX's rules do; tracing it would bind the call again, without end), so it records no avals.
SubFnRef rule_fn(std::string name, std::function<Vec(const Vec &)> rule, size_t num_consts) {
  auto sub = std::make_shared<SubFn>();
  sub->name = std::move(name);
  sub->fn = [rule = std::move(rule), num_consts](const Vec &args) {
    return rule(part(args, num_consts, args.size()));
  };
  sub->num_consts = num_consts;
  return sub;
}

/// A rule batched: its leading inputs at `dims`, any inputs past them at `rest`; its outputs on
/// axis 0.
SubFnRef batched_rule(const SubFnRef &rule, std::vector<int64_t> dims, int64_t rest) {
  auto sub = std::make_shared<SubFn>();
  sub->name = rule->name;
  sub->num_consts = rule->num_consts;
  sub->fn = [rule, leading = std::move(dims), rest](const Vec &args) {
    std::vector<int64_t> dims = leading;
    dims.resize(args.size(), rest);
    return vmap_flat(rule->fn, args, dims);
  };
  return sub;
}

// ---- remat --------------------------------------------------------------------------------------
//
// The "policy" parameter is a PolicyRef (as a loop's): made once per checkpoint_flat wrapper,
// so every call of one wrapper has equal parameters, and freed with the last call that names it.

extern const Primitive &remat_p;

Params remat_params(SubFnRef fn, const Params &of) {
  return Params{{"fn", std::move(fn)}, {"policy", of.at("policy")}};
}

const Primitive &remat_p = []() -> const Primitive & {
  Primitive p = call_primitive("remat");
  // Forward mode has nothing to rematerialize: the tangents are a remat of the function's jvp,
  // so an outer grad still replays it.
  p.jvp = [](std::span<const Array> primals, std::span<const Array> tangents,
             std::span<const Array>, const Params &params) -> Vec {
    const SubFnRef &fn = fn_ref(params, "fn");
    size_t n = primals.size();
    std::vector<AbstractValue> in = fn->in;
    in.insert(in.end(), fn->in.begin(), fn->in.end());
    SubFnRef jf = closed_fn(
        "remat", "jvp",
        [fn, n](const Vec &args) {
          return jvp_flat(fn->fn, part(args, 0, n), part(args, n, 2 * n)).second;
        },
        std::move(in), 0);
    Vec args(primals.begin(), primals.end());
    for (size_t i = 0; i < n; ++i)
      args.push_back(instantiate(tangents[i], primals[i]));
    return strata::bind(remat_p, args, remat_params(jf, params));
  };
  // Without a forward pass of its own to keep values from, the backward pass replays the whole
  // function.
  p.vjp = [](std::span<const Array> primals, std::span<const Array> outs,
             std::span<const Array> cts, const std::vector<bool> &, const Params &params) -> Vec {
    return remat_backward(params.get_fn("fn").fn, Vec(primals.begin(), primals.end()),
                          CheckpointPolicy::nothing(), {}, instantiate_all(cts, outs));
  };
  // The forward pass runs under the policy's recording level (the call bound again below it, so
  // outer levels see it) and keeps the inputs and what the policy saves; nothing inside the call
  // is recorded on the grad level's tape. The backward pass replays it with those values.
  p.fwd_vjp = [](std::span<const Array> primals, const std::vector<bool> &,
                 const Params &params) -> FwdVjp {
    const CheckpointPolicy &policy = params.get_policy("policy");
    Vec saved(primals.begin(), primals.end());
    RematForward r = remat_record(
        policy, [&](const Vec &in) { return strata::bind(remat_p, in, params); }, saved);
    FwdVjp out;
    out.outs = std::move(r.outputs);
    out.pullback = [fn = fn_ref(params, "fn"), saved, policy, kept = std::move(r.saved)](
                       const Vec &cts) { return remat_backward(fn->fn, saved, policy, kept, cts); };
    return out;
  };
  // A remat of the batched function.
  p.batch = [](const BatchContext &ctx, std::span<const Array> vals, std::span<const int64_t> dims,
               const Params &params, std::vector<int64_t> &out_dims) -> Vec {
    const SubFnRef &fn = fn_ref(params, "fn");
    SubFnRef bf = batched_fn("remat", fn, {dims.begin(), dims.end()}, fn->in, ctx.axis_size);
    Vec outs = strata::bind(remat_p, Vec(vals.begin(), vals.end()), remat_params(bf, params));
    out_dims.assign(outs.size(), 0);
    return outs;
  };
  return register_primitive(std::move(p));
}();

// ---- custom_jvp_call ----------------------------------------------------------------------------
//
// "fn" takes consts ++ args; "jvp" takes consts ++ primals ++ tangents of the args and returns
// the output tangents. The rule is the derivative with respect to the arguments; a captured value
// that the differentiating level traces is differentiated through the function itself.

extern const Primitive &custom_jvp_p;

/// The output tangents: the rule's for the arguments' tangents, plus the function's own
/// derivative along the tangents of the consts that have one.
Vec custom_jvp_tangents(std::span<const Array> primals, std::span<const Array> tangents,
                        const Params &params) {
  const SubFn &fn = params.get_fn("fn");
  const SubFn &rule = params.get_fn("jvp");
  size_t nc = fn.num_consts, n = primals.size();
  Vec args(primals.begin(), primals.end());
  for (size_t i = nc; i < n; ++i)
    args.push_back(instantiate(tangents[i], primals[i]));
  Vec touts = rule.fn(args);
  if (touts.size() != fn.out.size())
    fail("custom_jvp", "rule returned ", touts.size(), " tangents for ", fn.out.size(), " outputs");
  for (size_t i = 0; i < touts.size(); ++i)
    if (touts[i].shape() != fn.out[i].shape || touts[i].dtype() != fn.out[i].dtype)
      fail("custom_jvp", "rule returned tangent ", touts[i].type_str(), " for output ",
           fn.out[i].str());
  bool const_tangents = false;
  for (size_t i = 0; i < nc; ++i)
    const_tangents |= tangents[i].valid();
  if (const_tangents) {
    Vec rest = part(primals, nc, n);
    FlatFn of_consts = [&](const Vec &c) { return fn.fn(cat(c, rest)); };
    Vec ct;
    for (size_t i = 0; i < nc; ++i)
      ct.push_back(instantiate(tangents[i], primals[i]));
    Vec extra = jvp_flat(of_consts, part(primals, 0, nc), ct).second;
    for (size_t i = 0; i < touts.size(); ++i)
      if (is_inexact(touts[i].dtype()))
        touts[i] = lax::add(touts[i], extra[i]);
  }
  return touts;
}

const Primitive &custom_jvp_p = []() -> const Primitive & {
  Primitive p = call_primitive("custom_jvp_call");
  p.jvp = [](std::span<const Array> primals, std::span<const Array> tangents,
             std::span<const Array>,
             const Params &params) { return custom_jvp_tangents(primals, tangents, params); };
  // The tangent map is linear, so its vjp at zero tangents is its transpose.
  p.vjp = [](std::span<const Array> primals, std::span<const Array> outs,
             std::span<const Array> cts, const std::vector<bool> &, const Params &params) -> Vec {
    Vec saved(primals.begin(), primals.end()), zero;
    for (const Array &x : saved)
      zero.push_back(zeros_like(x));
    FlatFn lin = [&](const Vec &t) { return custom_jvp_tangents(saved, t, params); };
    return vjp_flat(lin, zero, "custom_jvp").pullback(instantiate_all(cts, outs));
  };
  // The function and the rule batched (tangents like their primals).
  p.batch = [](const BatchContext &ctx, std::span<const Array> vals, std::span<const int64_t> dims,
               const Params &params, std::vector<int64_t> &out_dims) -> Vec {
    const SubFnRef &fn = fn_ref(params, "fn"), &rule = fn_ref(params, "jvp");
    std::vector<int64_t> d(dims.begin(), dims.end()), rd = d;
    rd.insert(rd.end(), d.begin() + static_cast<std::ptrdiff_t>(fn->num_consts), d.end());
    Params batched_params{{"fn", batched_fn("custom_jvp", fn, d, fn->in, ctx.axis_size)},
                          {"jvp", batched_rule(rule, rd, 0)}};
    Vec outs = strata::bind(custom_jvp_p, Vec(vals.begin(), vals.end()), batched_params);
    out_dims.assign(outs.size(), 0);
    return outs;
  };
  return register_primitive(std::move(p));
}();

// ---- custom_vjp_call ----------------------------------------------------------------------------
//
// "fn" and "fwd" take consts ++ args; fwd returns the outputs ("num_outputs" of them) followed by
// residuals; "bwd" takes consts ++ residuals ++ output cotangents (empty for outputs that are not
// floating) and returns the cotangents of the args. A captured value that the differentiating
// level traces gets its cotangent through the function itself.

extern const Primitive &custom_vjp_p;

struct FwdResult {
  Vec outs, residuals;
};
FwdResult run_fwd(std::span<const Array> primals, const Params &params) {
  Vec all = params.get_fn("fwd").fn(Vec(primals.begin(), primals.end()));
  size_t n = static_cast<size_t>(params.get_int("num_outputs"));
  if (all.size() < n)
    fail("custom_vjp", "fwd returned ", all.size(), " values, expected at least ", n, " outputs");
  return {part(all, 0, n), part(all, n, all.size())};
}

/// Cotangents of every input (consts first) from the output cotangents (empty where an output
/// is not floating): bwd's for the args, the function's own vjp for the `wanted` consts.
Vec custom_vjp_cotangents(std::span<const Array> primals, const Vec &residuals, const Vec &cts,
                          const std::vector<bool> &wanted, const Params &params) {
  const SubFn &fn = params.get_fn("fn");
  size_t nc = fn.num_consts, n = primals.size();
  Vec consts = part(primals, 0, nc);
  Vec g = params.get_fn("bwd").fn(cat(cat(consts, residuals), cts));
  if (g.size() != n - nc)
    fail("custom_vjp", "bwd returned ", g.size(), " cotangents for ", n - nc, " inputs");
  for (size_t i = 0; i < g.size(); ++i) {
    const Array &x = primals[nc + i];
    if (g[i].valid() && is_inexact(x.dtype()) &&
        (g[i].shape() != x.shape() || g[i].dtype() != x.dtype()))
      fail("custom_vjp", "bwd returned a cotangent of type ", g[i].type_str(), " for argument ", i,
           " of type ", x.type_str());
  }
  Vec cin(nc);
  if (std::any_of(wanted.begin(), wanted.begin() + static_cast<std::ptrdiff_t>(nc),
                  [](bool w) { return w; })) {
    Vec rest = part(primals, nc, n), full;
    FlatFn of_consts = [&](const Vec &c) { return fn.fn(cat(c, rest)); };
    for (size_t i = 0; i < cts.size(); ++i)
      full.push_back(cts[i].valid() ? cts[i] : zeros(fn.out[i].shape, fn.out[i].dtype));
    cin = vjp_flat(of_consts, consts, "custom_vjp").pullback(full);
  }
  return cat(cin, g);
}

// Output cotangents as bwd receives them: zeros for floating outputs without one, empty for
// the others.
Vec bwd_cotangents(std::span<const Array> cts, const SubFn &fn) {
  Vec out;
  for (size_t i = 0; i < fn.out.size(); ++i) {
    bool floating = is_inexact(fn.out[i].dtype);
    Array c = i < cts.size() ? cts[i] : Array();
    out.push_back(!floating ? Array() : c.valid() ? c : zeros(fn.out[i].shape, fn.out[i].dtype));
  }
  return out;
}

const Primitive &custom_vjp_p = []() -> const Primitive & {
  Primitive p = call_primitive("custom_vjp_call");
  // Forward mode through the rule (JAX refuses it): bwd is linear in its cotangents, ct -> bwd(res,
  // ct) is the transpose J^T of the Jacobian the rule stands for, and the output tangents are J t:
  // the vjp of that linear map (taken at ct = 0) applied to the tangents.
  p.jvp = [](std::span<const Array> primals, std::span<const Array> tangents,
             std::span<const Array> outs, const Params &params) -> Vec {
    const SubFn &fn = params.get_fn("fn");
    size_t nc = fn.num_consts, n = primals.size();
    FwdResult f = run_fwd(primals, params);
    Vec zero_cts; // one per floating output; the others have none
    for (const AbstractValue &a : fn.out)
      if (is_inexact(a.dtype))
        zero_cts.push_back(zeros(a.shape, a.dtype));
    std::vector<bool> wanted(n, false);
    for (size_t i = 0; i < nc; ++i)
      wanted[i] = tangents[i].valid();
    FlatFn transposed = [&](const Vec &cts) {
      Vec all;
      size_t k = 0;
      for (const AbstractValue &a : fn.out)
        all.push_back(is_inexact(a.dtype) ? cts[k++] : Array());
      Vec g = custom_vjp_cotangents(primals, f.residuals, all, wanted, params);
      for (size_t i = 0; i < n; ++i) {
        if (!g[i].valid() || !is_inexact(primals[i].dtype()))
          g[i] = zeros_like(primals[i]); // no cotangent: the output ignores this input
        else if (g[i].shape() != primals[i].shape() || g[i].dtype() != primals[i].dtype())
          fail("custom_vjp", "bwd returned a cotangent of type ", g[i].type_str(), " for argument ",
               i - nc, " of type ", primals[i].type_str());
      }
      return g;
    };
    Vec t;
    for (size_t i = 0; i < n; ++i)
      t.push_back(instantiate(tangents[i], primals[i]));
    Vec lin = vjp_flat(transposed, zero_cts, "custom_vjp").pullback(t);
    Vec touts;
    size_t k = 0;
    for (const Array &o : outs)
      touts.push_back(is_inexact(o.dtype()) ? lin[k++] : Array());
    return touts;
  };
  p.vjp = [](std::span<const Array> primals, std::span<const Array>, std::span<const Array> cts,
             const std::vector<bool> &wanted, const Params &params) -> Vec {
    FwdResult f = run_fwd(primals, params);
    return custom_vjp_cotangents(primals, f.residuals, bwd_cotangents(cts, params.get_fn("fn")),
                                 wanted, params);
  };
  // The forward pass is fwd on the primals; the backward pass bwd on its residuals.
  p.fwd_vjp = [](std::span<const Array> primals, const std::vector<bool> &wanted,
                 const Params &params) -> FwdVjp {
    FwdResult f = run_fwd(primals, params);
    FwdVjp out;
    out.outs = std::move(f.outs);
    out.pullback = [saved = Vec(primals.begin(), primals.end()), residuals = std::move(f.residuals),
                    wanted, params](const Vec &cts) {
      return custom_vjp_cotangents(saved, residuals, bwd_cotangents(cts, params.get_fn("fn")),
                                   wanted, params);
    };
    return out;
  };
  // fn, fwd and bwd batched: fn's and fwd's outputs (so bwd's residuals and cotangents) on axis
  // 0; each input's cotangent goes to its batch axis, and an unbatched input, shared by every
  // example, gets their sum.
  p.batch = [](const BatchContext &ctx, std::span<const Array> vals, std::span<const int64_t> dims,
               const Params &params, std::vector<int64_t> &out_dims) -> Vec {
    const SubFnRef &fn = fn_ref(params, "fn"), &fwd = fn_ref(params, "fwd"),
                   &bwd = fn_ref(params, "bwd");
    size_t nc = fn->num_consts;
    std::vector<int64_t> d(dims.begin(), dims.end());
    std::vector<int64_t> const_dims(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(nc));
    std::vector<int64_t> arg_dims(d.begin() + static_cast<std::ptrdiff_t>(nc), d.end());
    auto bb = std::make_shared<SubFn>(*bwd);
    bb->fn = [bwd, const_dims, arg_dims](const Vec &args) {
      std::vector<int64_t> axes = const_dims;
      axes.resize(args.size(), 0);
      for (size_t i = 0; i < args.size(); ++i)
        if (!args[i].valid())
          axes[i] = kNotBatched; // the cotangent of an output that is not floating
      Vec g = vmap_flat(bwd->fn, args, axes);
      for (size_t i = 0; i < g.size() && i < arg_dims.size(); ++i)
        g[i] = arg_dims[i] == kNotBatched ? lax::reduce_sum(g[i], {0})
                                          : move_axis(g[i], 0, arg_dims[i]);
      return g;
    };
    Params batched_params{{"fn", batched_fn("custom_vjp", fn, d, fn->in, ctx.axis_size)},
                          {"fwd", batched_rule(fwd, d, 0)},
                          {"bwd", SubFnRef(bb)},
                          {"num_outputs", params.get_int("num_outputs")}};
    Vec outs = strata::bind(custom_vjp_p, Vec(vals.begin(), vals.end()), batched_params);
    out_dims.assign(outs.size(), 0);
    return outs;
  };
  return register_primitive(std::move(p));
}();

// ---- jit_call -----------------------------------------------------------------------------------
//
// "fn" is the jitted function (or a transform of it), "jit" the id of the executable cache it
// compiles through (JitHooks), "static_key" its static arguments. Its impl runs the compiled
// function; its shape rule compiles it. Its rules build the jitted transform of fn (its batched
// function, its jvp, its backward pass) as a target of its own and bind jit_call again, so
// vmap, jvp and grad of a jitted function are compiled, and cached under the function.

JitHooks &jit_hooks() {
  static auto *h = new JitHooks();
  return *h;
}
const JitHooks &installed_hooks() {
  const JitHooks &h = jit_hooks();
  if (!h.run)
    throw Error("[jit_call] the compiler is not linked (libstrata_jit installs it)",
                ErrorKind::Internal);
  return h;
}

const Primitive &jit_call_p();

/// jit_call of `fn` (closed), compiled through target `id`.
Vec bind_jit(SubFnRef fn, int64_t id, const std::string &static_key, Vec inputs) {
  return strata::bind(jit_call_p(), std::move(inputs),
                      {{"fn", std::move(fn)}, {"jit", id}, {"static_key", static_key}});
}

/// A jitted transform of the call's function: `fn` bound as jit_call through the target `tag`
/// names.
Vec bind_derived(const Params &params, const std::string &tag, FlatFn fn, Vec inputs) {
  auto sub = std::make_shared<SubFn>();
  sub->name = params.get_fn("fn").name + "." + tag;
  sub->fn = std::move(fn);
  sub->in = avals_of(inputs);
  int64_t id = installed_hooks().derive(params.get_int("jit"), tag);
  return bind_jit(sub, id, params.get_string("static_key"), std::move(inputs));
}

/// (primals ++ cotangents of the floating outputs) -> cotangents of the `wanted` primals.
Vec jit_backward(const FlatFn &f, const std::vector<bool> &wanted,
                 const std::vector<bool> &float_out, const Vec &args) {
  size_t n = wanted.size();
  Vec primals = part(args, 0, n), diff;
  for (size_t i = 0; i < n; ++i)
    if (wanted[i])
      diff.push_back(primals[i]);
  FlatFn g = [&](const Vec &in) {
    Vec all = primals;
    for (size_t i = 0, k = 0; i < n; ++i)
      if (wanted[i])
        all[i] = in[k++];
    return f(all);
  };
  VjpResult r = vjp_flat(g, diff, "jit", /*reusable=*/false);
  Vec cts;
  for (size_t i = 0, k = n; i < float_out.size(); ++i)
    cts.push_back(float_out[i] ? args[k++] : zeros_like(r.outputs[i]));
  return r.pullback(cts);
}

/// The pullback of a jitted call at `primals` with outputs `outs`: a second compiled function,
/// (primals ++ output cotangents) -> cotangents of the `wanted` inputs, which recomputes the
/// forward pass inside it. The tag names the wanted inputs; which outputs take a cotangent (the
/// floating ones) follows from the signature.
std::function<Vec(const Vec &)> jit_pullback(const Params &params, Vec primals, const Vec &outs,
                                             std::vector<bool> wanted) {
  std::vector<bool> float_out;
  for (const Array &o : outs)
    float_out.push_back(is_inexact(o.dtype()));
  std::string tag = "grad-bwd:";
  for (bool w : wanted)
    tag += w ? '1' : '0';
  return [params, primals = std::move(primals), outs, wanted = std::move(wanted), float_out,
          tag](const Vec &cts) {
    const SubFnRef &fn = fn_ref(params, "fn");
    Vec args = primals;
    for (size_t i = 0; i < cts.size(); ++i)
      if (float_out[i])
        args.push_back(cts[i].valid() ? cts[i] : zeros_like(outs[i]));
    FlatFn bwd = [fn, wanted, float_out](const Vec &a) {
      return jit_backward(fn->fn, wanted, float_out, a);
    };
    Vec g = bind_derived(params, tag, bwd, args);
    Vec cin(primals.size());
    for (size_t i = 0, k = 0; i < primals.size(); ++i)
      if (wanted[i])
        cin[i] = g[k++];
    return cin;
  };
}

/// (primals ++ tangents of the inputs in `mask`) -> (outputs ++ output tangents, zeros where an
/// output does not depend on the tangents).
Vec jvp_masked(const FlatFn &f, const std::vector<bool> &mask, const Vec &in) {
  size_t n = mask.size();
  Vec primals = part(in, 0, n), diff, tangents = part(in, n, in.size());
  for (size_t i = 0; i < n; ++i)
    if (mask[i])
      diff.push_back(primals[i]);
  FlatFn g = [&](const Vec &d) {
    Vec all = primals;
    for (size_t i = 0, k = 0; i < n; ++i)
      if (mask[i])
        all[i] = d[k++];
    return f(all);
  };
  auto [outs, touts] = jvp_flat(g, diff, tangents);
  return cat(outs, touts);
}

// jvp of a jitted function is jitted: (primals ++ the tangents present) -> (outputs ++ output
// tangents), compiled once per pattern of present tangents. Symbolically zero tangents are
// neither passed nor pushed through the function.
const FwdJvpRule jit_fwd_jvp = [](std::span<const Array> primals, std::span<const Array> tangents,
                                  const Params &params) -> std::pair<Vec, Vec> {
  Vec args(primals.begin(), primals.end());
  std::vector<bool> mask;
  std::string tag = "jvp:";
  for (const Array &t : tangents) {
    mask.push_back(t.valid());
    tag += t.valid() ? '1' : '0';
    if (t.valid())
      args.push_back(t);
  }
  FlatFn jf = [fn = fn_ref(params, "fn"), mask](const Vec &in) {
    return jvp_masked(fn->fn, mask, in);
  };
  Vec all = bind_derived(params, tag, jf, args);
  size_t n = all.size() / 2;
  return {part(all, 0, n), part(all, n, all.size())};
};

// Registered when libstrata_jit installs the compiler (install_jit_hooks): without it a
// jit_call could not run.
Primitive make_jit_call() {
  Primitive p;
  p.name = "jit_call";
  p.traits = kCall;
  p.shape_rule = [](std::span<const AbstractValue> in, const Params &params) {
    return installed_hooks().out_avals(params.get_int("jit"), params.get_string("static_key"),
                                       params.get_fn("fn"), in);
  };
  p.impl = [](std::span<const Array> in, const Params &params, std::span<const AbstractValue>) {
    return installed_hooks().run(params.get_int("jit"), params.get_string("static_key"),
                                 params.get_fn("fn"), in);
  };
  p.jvp = [](std::span<const Array> primals, std::span<const Array> tangents,
             std::span<const Array>,
             const Params &params) { return jit_fwd_jvp(primals, tangents, params).second; };
  // Outputs and tangents from one compiled call of jit(jvp(f)), so f runs once.
  p.fwd_jvp = jit_fwd_jvp;
  // grad of a jitted function is jitted: the forward pass is the compiled function on the
  // primals (nothing inside it is recorded on the tape), the backward pass a second compiled
  // function.
  p.fwd_vjp = [](std::span<const Array> primals, const std::vector<bool> &wanted,
                 const Params &params) -> FwdVjp {
    Vec saved(primals.begin(), primals.end());
    FwdVjp r;
    r.outs = strata::bind(jit_call_p(), saved, params);
    r.pullback = jit_pullback(params, saved, r.outs, wanted);
    return r;
  };
  p.vjp = [](std::span<const Array> primals, std::span<const Array> outs,
             std::span<const Array> cts, const std::vector<bool> &wanted,
             const Params &params) -> Vec {
    std::vector<bool> floating(primals.size());
    for (size_t i = 0; i < floating.size(); ++i)
      floating[i] = wanted[i] && is_inexact(primals[i].dtype());
    return jit_pullback(params, Vec(primals.begin(), primals.end()), Vec(outs.begin(), outs.end()),
                        floating)(Vec(cts.begin(), cts.end()));
  };
  // vmap of a jitted function is jitted: the batched function (outputs on axis 0), compiled once
  // per pattern of batch axes.
  p.batch = [](const BatchContext &, std::span<const Array> vals, std::span<const int64_t> dims,
               const Params &params, std::vector<int64_t> &out_dims) -> Vec {
    std::vector<int64_t> d(dims.begin(), dims.end());
    std::string tag = "vmap:";
    for (size_t i = 0; i < d.size(); ++i)
      tag += (i ? "," : "") + (d[i] == kNotBatched ? std::string("-") : std::to_string(d[i]));
    FlatFn bf = [fn = fn_ref(params, "fn"), d](const Vec &in) { return vmap_flat(fn->fn, in, d); };
    Vec outs = bind_derived(params, tag, bf, Vec(vals.begin(), vals.end()));
    out_dims.assign(outs.size(), 0);
    return outs;
  };
  return p;
}

const Primitive &jit_call_p() {
  static const Primitive &p = register_primitive(make_jit_call());
  return p;
}

} // namespace

void install_jit_hooks(JitHooks hooks) {
  jit_hooks() = std::move(hooks);
  jit_call_p();
}

std::vector<Array> bind_jit_call(const std::string &name, FlatFn f, int64_t id,
                                 const std::string &static_key, std::vector<Array> inputs) {
  Closure c(name);
  c.trace(name, std::move(f), avals_of(inputs));
  ClosedFns closed = c.close();
  if (!closed.consts.empty())
    id = installed_hooks().derive(id, detail::cat("closed:", closed.consts.size()));
  return bind_jit(closed.fns[0], id, static_key, cat(closed.consts, inputs));
}

std::vector<Array> call_through(const Params &params, std::span<const Array> inputs) {
  return params.get_fn("fn").fn(Vec(inputs.begin(), inputs.end()));
}

FlatFn checkpoint_flat(FlatFn f, CheckpointPolicy policy) {
  auto shared = std::make_shared<const CheckpointPolicy>(std::move(policy));
  return [f = std::move(f), shared](const Vec &in) {
    Closure c("checkpoint");
    try {
      c.trace("fn", f, avals_of(in));
    } catch (const Error &) {
      // f cannot be traced on abstract values (it reads a concrete value of its inputs): it
      // runs as a plain call, without rematerialization, as JAX's checkpoint cannot take it at
      // all. A genuine error of f raises again from that call.
      return f(in);
    }
    ClosedFns closed = c.close();
    return strata::bind(remat_p, cat(closed.consts, in),
                        Params{{"fn", closed.fns[0]}, {"policy", PolicyRef(shared)}});
  };
}

FlatFn custom_jvp_flat(FlatFn f, std::function<Vec(const Vec &, const Vec &)> rule) {
  std::function<Vec(const Vec &)> flat_rule = [rule = std::move(rule)](const Vec &args) {
    size_t n = args.size() / 2;
    return rule(part(args, 0, n), part(args, n, args.size()));
  };
  return [f = std::move(f), flat_rule](const Vec &in) {
    Closure c("custom_jvp");
    c.trace("fn", f, avals_of(in));
    ClosedFns closed = c.close();
    SubFnRef jvp = rule_fn("jvp", flat_rule, closed.consts.size());
    return strata::bind(custom_jvp_p, cat(closed.consts, in),
                        {{"fn", closed.fns[0]}, {"jvp", jvp}});
  };
}

FlatFn custom_vjp_flat(FlatFn f, FlatFn fwd, size_t num_outputs,
                       std::function<Vec(const Vec &, const Vec &)> bwd) {
  return [f = std::move(f), fwd = std::move(fwd), bwd, num_outputs](const Vec &in) {
    Closure c("custom_vjp");
    std::vector<AbstractValue> a = avals_of(in);
    c.trace("fn", f, a);
    ClosedFns closed = c.close();
    size_t nc = closed.consts.size();
    // A cotangent bwd leaves out (an empty Array) is zero, as a value of its argument's type,
    // so that a batched bwd has an output to batch.
    SubFnRef flat_bwd = rule_fn(
        "bwd",
        [bwd, num_outputs, a](const Vec &args) {
          size_t nres = args.size() - num_outputs;
          Vec g = bwd(part(args, 0, nres), part(args, nres, args.size()));
          for (size_t i = 0; i < g.size() && i < a.size(); ++i)
            if (!g[i].valid())
              g[i] = zeros(a[i].shape, a[i].dtype);
          return g;
        },
        nc);
    return strata::bind(custom_vjp_p, cat(closed.consts, in),
                        {{"fn", closed.fns[0]},
                         {"fwd", rule_fn("fwd", fwd, nc)},
                         {"bwd", flat_bwd},
                         {"num_outputs", static_cast<int64_t>(num_outputs)}});
  };
}

} // namespace strata
