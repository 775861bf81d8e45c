// Control-flow primitives, each with its rules: cond (switch), while, scan, and the trip-count
// bound that reverse mode of while uses. Sub-functions are SubFn parameters, closed (their
// consts are the primitive's leading inputs), so every rule builds new sub-functions from them
// with the flat transforms and binds the primitive again one level down: a loop stays one loop
// at every level.
//
// Inputs and parameters:
//   cond:  [index (int32 scalar)] ++ consts ++ operands; `branches` (each of consts ++
//          operands); the index is clamped into range, as lax.switch does.
//   while: consts ++ carry; `cond_fun` and `body` (each of consts ++ carry) -> [bool scalar]
//          and -> carry.
//   scan:  consts ++ carry ++ xs (leading axis `length`); `body`(consts ++ carry ++ slices of
//          xs) -> carry ++ slices of ys; outputs carry ++ ys (ys stacked along a new axis 0);
//          `num_carry`, `length`, `reverse` (iterate from the last slice), `unroll` (a hint
//          for compiled code).
//   trip_count_bound: [an integer scalar] -> [a concrete upper bound of it over every batch of
//          every level]: how reverse mode of while learns the trip count.
// While and scan also carry `checkpoint_every` and `policy` (lax::LoopGradOptions) for reverse
// mode, and every control-flow primitive its user-facing `name` ("fori_loop", "switch") for
// errors.
//
// Reverse mode of while: a counting while gives the trip count, trip_count_bound makes it
// concrete (its maximum over vmap's batch), and the loop is differentiated as a scan of that
// length whose steps past an example's own trip count keep the carry (so the body runs about
// twice forward: once counting, once recording carries). Per-step residuals
// (LoopGradOptions::policy) reuse checkpoint(f)'s policy levels (lib/trace/checkpoint.cpp):
// the forward scan runs each step under the recording level and returns what it kept as extra
// ys; the backward step replays the body under the substituting level, handed that step's
// slices. Extra ys are ordinary outputs, so jit stages them as more results of strata.scan and
// vmap/jvp batch and differentiate them like any other.
#include <algorithm>
#include <map>
#include <memory>
#include <optional>

#include "primitives/control_flow_impl.h"
#include "primitives/rules_impl.h"
#include "strata/control_flow.h"
#include "strata/lax.h"
#include "strata/ops.h"
#include "trace/closure.h"

namespace strata {
namespace {

using Vec = std::vector<Array>;
using Avals = std::vector<AbstractValue>;

Vec part(std::span<const Array> v, size_t begin, size_t end) {
  return Vec(v.begin() + begin, v.begin() + end);
}
Vec cat(Vec a, const Vec &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
template <class... V> Vec cat(Vec a, const Vec &b, const V &...rest) {
  return cat(cat(std::move(a), b), rest...);
}
bool floating(const Array &x) { return is_inexact(x.dtype()); }
Avals avals(const Vec &xs) {
  Avals out;
  for (const Array &x : xs)
    out.push_back(abstract_of(x));
  return out;
}
/// The avals of one slice of each of xs along axis 0.
Avals slice_avals(const Vec &xs) {
  Avals out = avals(xs);
  for (AbstractValue &a : out)
    a.shape.erase(a.shape.begin());
  return out;
}
Avals cat(Avals a, const Avals &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
Array int_scalar(int64_t v, DType dt = DType::Int32) {
  return lax::convert_element_type(Array(static_cast<int32_t>(v)), dt);
}
/// Slice t of x along axis 0, without that axis.
Array slice_at(const Array &x, int64_t t) {
  std::vector<int64_t> start(x.ndim(), 0), limit = x.shape();
  start[0] = t;
  limit[0] = t + 1;
  Shape s(x.shape().begin() + 1, x.shape().end());
  return lax::reshape(lax::slice(x, start, limit), s);
}
/// Cotangents with the zero ones (empty) made explicit, for outputs of avals `out`.
Vec explicit_zeros(const Vec &cts, const Avals &out) {
  Vec c = cts;
  c.resize(out.size());
  for (size_t i = 0; i < out.size(); ++i)
    if (!c[i].valid())
      c[i] = zeros(out[i].shape, out[i].dtype);
  return c;
}

const std::string &op_name(const Params &p) { return p.get_string("name"); }
/// A sub-function a rule builds (closed by construction), named for its primitive's errors.
SubFnRef sub(const Params &p, std::string name, FlatFn fn, Avals in, size_t num_consts) {
  return closed_fn(op_name(p), std::move(name), std::move(fn), std::move(in), num_consts);
}
Params set_param(Params p, std::string name, ParamValue v) {
  p.set(std::move(name), std::move(v));
  return p;
}

/// f's jvp as one function: (primals ++ tangents of the inputs marked in `with`) -> outputs ++
/// the tangents of every output (zeros where an output has none).
FlatFn jvp_of(FlatFn f, std::vector<bool> with) {
  return [f = std::move(f), with](const Vec &in) {
    size_t n = with.size();
    Vec primals = part(in, 0, n), sel, tan;
    for (size_t i = 0, k = n; i < n; ++i)
      if (with[i]) {
        sel.push_back(primals[i]);
        tan.push_back(in[k++]);
      }
    // The unmarked inputs are constants of the jvp: they are not pushed through f as zeros.
    FlatFn g = [&](const Vec &s) {
      Vec all = primals;
      for (size_t i = 0, k = 0; i < n; ++i)
        if (with[i])
          all[i] = s[k++];
      return f(all);
    };
    auto [p, t] = jvp_flat(g, sel, tan);
    return cat(p, t);
  };
}

/// f's vjp as one function: (primals (n) ++ cotangents of every output) -> cotangents of the
/// primals (zeros for those that are not floating).
FlatFn vjp_of(FlatFn f, size_t n) {
  return [f = std::move(f), n](const Vec &in) {
    VjpResult r = vjp_flat(f, part(in, 0, n), "grad", /*reusable=*/false);
    return r.pullback(part(in, n, in.size()));
  };
}

// The tangents of the inputs in [begin, end) that have one (marked in `with`).
Vec present_tangents(std::span<const Array> primals, std::span<const Array> tangents, size_t begin,
                     size_t end, std::vector<bool> &with) {
  Vec ts;
  for (size_t i = begin; i < end; ++i) {
    with.push_back(tangents[i].valid() && floating(primals[i]));
    if (with.back())
      ts.push_back(tangents[i]);
  }
  return ts;
}
// The tangents of every floating carry, zeros where there is none: a carry's tangent may become
// nonzero in a later iteration even when it starts at zero.
Vec carry_tangents(std::span<const Array> primals, std::span<const Array> tangents, size_t begin,
                   size_t end, std::vector<bool> &with) {
  Vec ts;
  for (size_t i = begin; i < end; ++i) {
    with.push_back(floating(primals[i]));
    if (with.back())
      ts.push_back(tangents[i].valid() ? tangents[i] : zeros_like(primals[i]));
  }
  return ts;
}

extern const Primitive &cond_p, &while_p, &scan_p, &bound_p;

// ---- cond ---------------------------------------------------------------------------------------

Avals cond_shape(std::span<const AbstractValue> in, const Params &p) {
  const std::vector<SubFnRef> &branches = p.get_fns("branches");
  if (branches.empty() || in.size() != branches[0]->in.size() + 1)
    throw Error(detail::cat("[", op_name(p), "] cond takes an index and ",
                            branches.empty() ? 0 : branches[0]->in.size(), " operands, got ",
                            in.size(), " inputs"),
                ErrorKind::Internal);
  return branches[0]->out;
}

Vec cond_impl(std::span<const Array> in, const Params &p, std::span<const AbstractValue>) {
  const std::vector<SubFnRef> &branches = p.get_fns("branches");
  int64_t n = static_cast<int64_t>(branches.size());
  int64_t k = std::clamp<int64_t>(item_as_int(in[0]), 0, n - 1);
  return branches[k]->fn(part(in, 1, in.size()));
}

std::pair<Vec, Vec> cond_jvp(std::span<const Array> primals, std::span<const Array> tangents,
                             const Params &p) {
  size_t n = primals.size() - 1;
  std::vector<bool> with(n);
  Vec ts;
  for (size_t i = 0; i < n; ++i)
    if ((with[i] = tangents[1 + i].valid() && floating(primals[1 + i])))
      ts.push_back(tangents[1 + i]);
  Vec ops = part(primals, 1, primals.size());
  std::vector<SubFnRef> branches;
  for (const SubFnRef &b : p.get_fns("branches"))
    branches.push_back(
        sub(p, b->name, jvp_of(b->fn, with), cat(avals(ops), avals(ts)), b->num_consts));
  Vec all =
      strata::bind(cond_p, cat(part(primals, 0, 1), ops, ts), set_param(p, "branches", branches));
  size_t m = all.size() / 2;
  Vec outs = part(all, 0, m), touts(m);
  for (size_t i = 0; i < m; ++i)
    if (floating(outs[i]))
      touts[i] = all[m + i];
  return {outs, touts};
}

Vec cond_batch(const BatchContext &ctx, std::span<const Array> vals, std::span<const int64_t> dims,
               const Params &p, std::vector<int64_t> &out_dims) {
  int64_t size = ctx.axis_size;
  const std::vector<SubFnRef> &branches = p.get_fns("branches");
  Vec ops = part(vals, 1, vals.size());
  std::vector<int64_t> od(dims.begin() + 1, dims.end());
  bool any_op = std::any_of(od.begin(), od.end(), [](int64_t d) { return d != kNotBatched; });
  if (dims[0] == kNotBatched) {
    // One branch for the whole batch: a cond of the batched branches.
    std::vector<SubFnRef> bs;
    for (const SubFnRef &br : branches)
      bs.push_back(sub(
          p, br->name, [f = br->fn, od](const Vec &in) { return vmap_flat(f, in, od); }, avals(ops),
          br->num_consts));
    Vec outs = strata::bind(cond_p, Vec(vals.begin(), vals.end()), set_param(p, "branches", bs));
    out_dims.assign(outs.size(), 0);
    return outs;
  }
  // A batched predicate: every branch runs on the whole batch and each example takes its own
  // branch's results. Branches have no side effects, so this only costs the extra compute.
  int64_t nb = static_cast<int64_t>(branches.size());
  Array idx =
      lax::clamp(int_scalar(0), rules::batch_to_front(vals[0], dims[0], size), int_scalar(nb - 1));
  std::vector<Vec> res;
  for (const SubFnRef &br : branches) {
    if (any_op) {
      res.push_back(vmap_flat(br->fn, ops, od));
    } else {
      Vec o = br->fn(ops);
      for (Array &x : o)
        x = rules::batch_to_front(x, kNotBatched, size);
      res.push_back(o);
    }
  }
  Vec outs = res[0];
  for (int64_t k = 1; k < nb; ++k) {
    Array is_k = lax::eq(idx, lax::broadcast_in_dim(int_scalar(k), {size}, {}));
    for (size_t j = 0; j < outs.size(); ++j)
      outs[j] = lax::select(lax::broadcast_in_dim(is_k, outs[j].shape(), {0}), res[k][j], outs[j]);
  }
  out_dims.assign(outs.size(), 0);
  return outs;
}

FwdVjp cond_vjp(std::span<const Array> primals, const std::vector<bool> &, const Params &p) {
  Vec in(primals.begin(), primals.end());
  Vec outs = strata::bind(cond_p, in, p);
  // The backward pass is a cond of the branches' vjps: each replays its branch's forward pass.
  Vec ops = part(in, 1, in.size());
  Avals out = avals(outs);
  std::vector<SubFnRef> bs;
  for (const SubFnRef &br : p.get_fns("branches"))
    bs.push_back(sub(p, br->name + " vjp", vjp_of(br->fn, ops.size()), cat(avals(ops), out),
                     br->num_consts));
  Params b = set_param(p, "branches", bs);
  auto pullback = [b, saved = in, out](const Vec &cts) {
    Vec g = strata::bind(cond_p, cat(saved, explicit_zeros(cts, out)), b);
    return cat(Vec{Array()}, g);
  };
  return {outs, pullback};
}

// ---- while --------------------------------------------------------------------------------------

size_t consts_of(const Params &p) { return p.get_fn("body").num_consts; }

Avals while_shape(std::span<const AbstractValue> in, const Params &p) {
  const SubFn &body = p.get_fn("body");
  if (in.size() != body.in.size() || in.size() < body.num_consts)
    throw Error(
        detail::cat("[", op_name(p), "] while takes ", body.in.size(), " inputs, got ", in.size()),
        ErrorKind::Internal);
  return Avals(in.begin() + body.num_consts, in.end());
}

Vec while_impl(std::span<const Array> in, const Params &p, std::span<const AbstractValue>) {
  const SubFn &cond_fun = p.get_fn("cond_fun"), &body = p.get_fn("body");
  Vec consts = part(in, 0, body.num_consts), carry = part(in, body.num_consts, in.size());
  for (;;) {
    Vec pred = cond_fun.fn(cat(consts, carry));
    if (!pred.at(0).item<bool>())
      return carry;
    carry = body.fn(cat(consts, carry));
  }
}

std::pair<Vec, Vec> while_jvp(std::span<const Array> primals, std::span<const Array> tangents,
                              const Params &p) {
  size_t nc = consts_of(p), nk = primals.size() - nc;
  std::vector<bool> cw, kw;
  Vec tc = present_tangents(primals, tangents, 0, nc, cw);
  Vec tk = carry_tangents(primals, tangents, nc, nc + nk, kw);
  size_t ncm = tc.size();
  // Layout: consts ++ const tangents ++ carry ++ carry tangents.
  Vec in = cat(part(primals, 0, nc), tc, part(primals, nc, nc + nk), tk);
  FlatFn cond_fun = [c = p.get_fn("cond_fun").fn, nc, ncm, nk](const Vec &in) {
    return c(cat(part(in, 0, nc), part(in, nc + ncm, nc + ncm + nk)));
  };
  std::vector<bool> with = cw;
  with.insert(with.end(), kw.begin(), kw.end());
  FlatFn body = [jb = jvp_of(p.get_fn("body").fn, with), nc, ncm, nk, kw](const Vec &in) {
    size_t a = nc + ncm;
    Vec all =
        jb(cat(part(in, 0, nc), part(in, a, a + nk), part(in, nc, a), part(in, a + nk, in.size())));
    Vec out = part(all, 0, nk);
    for (size_t i = 0; i < nk; ++i)
      if (kw[i])
        out.push_back(all[nk + i]);
    return out;
  };
  Params j = p;
  j.set("cond_fun", sub(p, "cond_fun", cond_fun, avals(in), nc + ncm));
  j.set("body", sub(p, "body", body, avals(in), nc + ncm));
  Vec res = strata::bind(while_p, in, j);
  Vec outs = part(res, 0, nk), touts(nk);
  for (size_t i = 0, k = nk; i < nk; ++i)
    if (kw[i])
      touts[i] = res[k++];
  return {outs, touts};
}

// A batched while runs while any example's predicate holds; the body's results are selected per
// example, so finished examples keep their carry (the body still runs on them, and its
// discarded results may be anything, NaN included).
Vec while_batch(const BatchContext &ctx, std::span<const Array> vals, std::span<const int64_t> dims,
                const Params &p, std::vector<int64_t> &out_dims) {
  int64_t size = ctx.axis_size;
  size_t nc = consts_of(p), nk = vals.size() - nc;
  Vec in = part(vals, 0, nc);
  std::vector<int64_t> in_dims(dims.begin(), dims.begin() + nc);
  for (size_t i = 0; i < nk; ++i) {
    in.push_back(rules::batch_to_front(vals[nc + i], dims[nc + i], size));
    in_dims.push_back(0);
  }
  FlatFn pred = [c = p.get_fn("cond_fun").fn, in_dims](const Vec &args) {
    return vmap_flat(c, args, in_dims);
  };
  FlatFn cond_fun = [pred](const Vec &args) {
    Array any = lax::reduce_max(lax::convert_element_type(pred(args)[0], DType::Int32), {0});
    return Vec{lax::gt(any, int_scalar(0))};
  };
  FlatFn body = [pred, b = p.get_fn("body").fn, in_dims, nc](const Vec &args) {
    Array keep = pred(args)[0];
    Vec next = vmap_flat(b, args, in_dims);
    for (size_t i = 0; i < next.size(); ++i)
      next[i] =
          lax::select(lax::broadcast_in_dim(keep, next[i].shape(), {0}), next[i], args[nc + i]);
    return next;
  };
  Params w = p;
  w.set("cond_fun", sub(p, "cond_fun", cond_fun, avals(in), nc));
  w.set("body", sub(p, "body", body, avals(in), nc));
  Vec outs = strata::bind(while_p, in, w);
  out_dims.assign(outs.size(), 0);
  return outs;
}

FwdVjp scan_fwd_vjp(const Vec &primals, const Params &p);

// A while runs once to count its trips; then it is differentiated as a scan of that many steps
// (under vmap: of the most steps any example takes, each example's extra steps keeping its
// carry).
FwdVjp while_vjp(std::span<const Array> prim, const std::vector<bool> &, const Params &p) {
  Vec primals(prim.begin(), prim.end());
  size_t nc = consts_of(p), nk = primals.size() - nc;
  FlatFn cond_fun = p.get_fn("cond_fun").fn, body = p.get_fn("body").fn;
  Vec count_in = cat(primals, Vec{int_scalar(0)});
  Params count = p;
  count.set("cond_fun",
            sub(
                p, "cond_fun",
                [cond_fun](const Vec &in) { return cond_fun(part(in, 0, in.size() - 1)); },
                avals(count_in), nc));
  count.set("body", sub(
                        p, "body",
                        [body](const Vec &in) {
                          Vec out = body(part(in, 0, in.size() - 1));
                          out.push_back(lax::add(in.back(), int_scalar(1)));
                          return out;
                        },
                        avals(count_in), nc));
  Array n = strata::bind(while_p, count_in, count).back();
  int64_t steps = item_as_int(bind1(bound_p, {n}));
  int64_t k = p.get_int("checkpoint_every");
  bool exact = !n.tracer() && (k == 1 || steps % k == 0);
  if (k > 1)
    steps = (steps + k - 1) / k * k;
  Vec in = cat(part(primals, 0, nc), Vec{n}, part(primals, nc, nc + nk),
               Vec{lax::iota(DType::Int32, {steps}, 0)});
  FlatFn step = [body, nc, nk, exact](const Vec &in) {
    Vec carry = part(in, nc + 1, nc + 1 + nk);
    Vec next = body(cat(part(in, 0, nc), carry));
    if (exact)
      return next;
    Array active = lax::lt(in.back(), in[nc]);
    for (size_t i = 0; i < nk; ++i)
      next[i] = lax::select(lax::broadcast_in_dim(active, next[i].shape(), {}), next[i], carry[i]);
    return next;
  };
  Params s{{"name", op_name(p)},      {"num_carry", static_cast<int64_t>(nk)},
           {"length", steps},         {"reverse", false},
           {"unroll", int64_t{1}},    {"checkpoint_every", k},
           {"policy", p.at("policy")}};
  s.set("body", sub(p, "body", step, cat(avals(part(in, 0, nc + 1 + nk)), slice_avals({in.back()})),
                    nc + 1));
  FwdVjp r = scan_fwd_vjp(in, s);
  auto pullback = [pb = r.pullback, nc, nk](const Vec &cts) {
    Vec g = pb(cts);
    return cat(part(g, 0, nc), part(g, nc + 1, nc + 1 + nk));
  };
  return {r.outs, pullback};
}

// ---- scan ---------------------------------------------------------------------------------------

Avals scan_shape(std::span<const AbstractValue> in, const Params &p) {
  const SubFn &body = p.get_fn("body");
  size_t nc = body.num_consts, nk = static_cast<size_t>(p.get_int("num_carry"));
  if (in.size() != body.in.size() || in.size() < nc + nk)
    throw Error(
        detail::cat("[", op_name(p), "] scan takes ", body.in.size(), " inputs, got ", in.size()),
        ErrorKind::Internal);
  Avals result(in.begin() + nc, in.begin() + nc + nk);
  for (size_t j = nk; j < body.out.size(); ++j) {
    AbstractValue a = body.out[j];
    a.shape.insert(a.shape.begin(), p.get_int("length"));
    result.push_back(a);
  }
  return result;
}

Vec scan_impl(std::span<const Array> in, const Params &p, std::span<const AbstractValue> out) {
  const SubFn &body = p.get_fn("body");
  size_t nc = body.num_consts, nk = static_cast<size_t>(p.get_int("num_carry"));
  int64_t length = p.get_int("length");
  bool reverse = p.get_bool("reverse");
  Vec consts = part(in, 0, nc), carry = part(in, nc, nc + nk), xs = part(in, nc + nk, in.size());
  std::vector<Vec> ys(out.size() - nk); // [output][step]
  for (int64_t s = 0; s < length; ++s) {
    int64_t t = reverse ? length - 1 - s : s;
    Vec args = cat(consts, carry);
    for (const Array &x : xs)
      args.push_back(slice_at(x, t));
    Vec o = body.fn(args);
    carry.assign(o.begin(), o.begin() + nk);
    for (size_t j = nk; j < o.size(); ++j)
      ys[j - nk].push_back(o[j]);
  }
  Vec result = carry;
  for (size_t j = 0; j < ys.size(); ++j) {
    if (length == 0) {
      result.push_back(zeros(out[nk + j].shape, out[nk + j].dtype));
      continue;
    }
    if (reverse)
      std::reverse(ys[j].begin(), ys[j].end());
    result.push_back(stack(ys[j], 0));
  }
  return result;
}

std::pair<Vec, Vec> scan_jvp(std::span<const Array> primals, std::span<const Array> tangents,
                             const Params &p) {
  size_t nc = consts_of(p), nk = static_cast<size_t>(p.get_int("num_carry"));
  size_t nx = primals.size() - nc - nk;
  std::vector<bool> cw, kw, xw;
  Vec tc = present_tangents(primals, tangents, 0, nc, cw);
  Vec tk = carry_tangents(primals, tangents, nc, nc + nk, kw);
  Vec tx = present_tangents(primals, tangents, nc + nk, nc + nk + nx, xw);
  size_t ncm = tc.size(), nkf = tk.size();
  std::vector<bool> with = cw;
  with.insert(with.end(), kw.begin(), kw.end());
  with.insert(with.end(), xw.begin(), xw.end());
  // Layout: consts, const tangents, carry, carry tangents, xs, xs tangents; outputs: carry,
  // carry tangents, ys, ys tangents.
  FlatFn body = [jb = jvp_of(p.get_fn("body").fn, with), nc, ncm, nk, nkf, nx, kw](const Vec &in) {
    size_t a = nc + ncm, b = a + nk + nkf;
    Vec all = jb(cat(part(in, 0, nc), part(in, a, a + nk), part(in, b, b + nx), part(in, nc, a),
                     part(in, a + nk, b), part(in, b + nx, in.size())));
    size_t half = all.size() / 2;
    Vec out = part(all, 0, nk);
    for (size_t i = 0; i < nk; ++i)
      if (kw[i])
        out.push_back(all[half + i]);
    return cat(out, part(all, nk, half), part(all, half + nk, all.size()));
  };
  Vec head = cat(part(primals, 0, nc), tc, part(primals, nc, nc + nk), tk);
  Vec xs = cat(part(primals, nc + nk, primals.size()), tx);
  Params j = p;
  j.set("num_carry", static_cast<int64_t>(nk + nkf));
  j.set("body", sub(p, "body", body, cat(avals(head), slice_avals(xs)), nc + ncm));
  Vec res = strata::bind(scan_p, cat(head, xs), j);
  size_t m = (res.size() - nk - nkf) / 2;
  Vec outs = cat(part(res, 0, nk), part(res, nk + nkf, nk + nkf + m));
  Vec touts(nk + m);
  for (size_t i = 0, k = nk; i < nk; ++i)
    if (kw[i])
      touts[i] = res[k++];
  for (size_t i = 0; i < m; ++i)
    if (floating(outs[nk + i]))
      touts[nk + i] = res[nk + nkf + m + i];
  return {outs, touts};
}

Vec scan_batch(const BatchContext &ctx, std::span<const Array> vals, std::span<const int64_t> dims,
               const Params &p, std::vector<int64_t> &out_dims) {
  int64_t size = ctx.axis_size;
  size_t nc = consts_of(p), nk = static_cast<size_t>(p.get_int("num_carry"));
  Vec in = part(vals, 0, nc);
  std::vector<int64_t> in_dims(dims.begin(), dims.begin() + nc);
  for (size_t i = nc; i < nc + nk; ++i) {
    in.push_back(rules::batch_to_front(vals[i], dims[i], size));
    in_dims.push_back(0);
  }
  // Batched xs keep the scanned axis first and the batch axis next, so each slice is batched
  // at axis 0.
  Vec xs;
  for (size_t i = nc + nk; i < vals.size(); ++i) {
    bool b = dims[i] != kNotBatched;
    xs.push_back(b ? rules::move_axis(vals[i], dims[i], 1) : vals[i]);
    in_dims.push_back(b ? 0 : kNotBatched);
  }
  FlatFn body = [b = p.get_fn("body").fn, in_dims](const Vec &args) {
    return vmap_flat(b, args, in_dims);
  };
  Params s = set_param(p, "body", sub(p, "body", body, cat(avals(in), slice_avals(xs)), nc));
  Vec outs = strata::bind(scan_p, cat(in, xs), s);
  out_dims.assign(outs.size(), 1); // ys: [length, batch, ...]
  std::fill(out_dims.begin(), out_dims.begin() + nk, 0);
  return outs;
}

// checkpoint_every k: a scan of length/k segments whose step is a scan of k steps. The outer
// scan keeps one carry per segment; its backward pass differentiates a segment by running it
// again under grad (which keeps that segment's k carries).
FwdVjp scan_segments_vjp(const Vec &primals, const Params &p) {
  int64_t k = p.get_int("checkpoint_every"), t = p.get_int("length");
  if (t % k != 0)
    fail(op_name(p), "checkpoint_every (", k, ") must divide the length (", t, ")");
  size_t nc = consts_of(p), nk = static_cast<size_t>(p.get_int("num_carry"));
  Params inner = p;
  inner.set("length", k);
  inner.set("checkpoint_every", int64_t{1});
  Vec in = part(primals, 0, nc + nk);
  for (size_t i = nc + nk; i < primals.size(); ++i) {
    Shape s = primals[i].shape();
    s[0] = k;
    s.insert(s.begin(), t / k);
    in.push_back(lax::reshape(primals[i], s));
  }
  // A segment's body is one scan, inside which a policy level keeps nothing; the inner scan,
  // differentiated when the backward pass recomputes the segment, applies the policy.
  Params outer = p;
  outer.set("length", t / k);
  outer.set("checkpoint_every", int64_t{1});
  outer.set("policy", std::make_shared<const CheckpointPolicy>(CheckpointPolicy::nothing()));
  outer.set("body",
            sub(
                p, "segment", [inner](const Vec &in) { return strata::bind(scan_p, in, inner); },
                cat(avals(part(in, 0, nc + nk)), slice_avals(part(in, nc + nk, in.size()))), nc));
  FwdVjp r = scan_fwd_vjp(in, outer);
  auto merge = [](const Array &y) { // [t/k, k, ...] -> [t, ...]
    Shape s(y.shape().begin() + 1, y.shape().end());
    s[0] *= y.shape()[0];
    return lax::reshape(y, s);
  };
  Vec outs = part(r.outs, 0, nk);
  for (size_t i = nk; i < r.outs.size(); ++i)
    outs.push_back(merge(r.outs[i]));
  auto pullback = [r, nc, nk, t, ys = avals(part(r.outs, nk, r.outs.size()))](const Vec &cts) {
    Vec c = part(cts, 0, nk);
    for (size_t i = nk; i < cts.size(); ++i)
      c.push_back(cts[i].valid() ? lax::reshape(cts[i], ys[i - nk].shape) : Array());
    Vec g = r.pullback(c);
    for (size_t i = nc + nk; i < g.size(); ++i) {
      Shape s(g[i].shape().begin() + 1, g[i].shape().end());
      s[0] = t;
      g[i] = lax::reshape(g[i], s);
    }
    return g;
  };
  return {outs, pullback};
}

// The forward scan also stacks the carry each step starts from, and what the policy keeps of
// the step; the backward pass is a reverse scan whose step replays the body at that carry under
// grad (per-step rematerialization: the body runs twice, and only the carries and the policy's
// values, not the body's other intermediates, are kept), reusing the kept values, and
// accumulates the cotangents of the consts in its carry.
FwdVjp scan_fwd_vjp(const Vec &primals, const Params &p) {
  int64_t k = p.get_int("checkpoint_every"), length = p.get_int("length");
  if (k > 1 && length > k)
    return scan_segments_vjp(primals, p);
  const SubFn &b = p.get_fn("body");
  size_t nc = b.num_consts, nk = static_cast<size_t>(p.get_int("num_carry"));
  size_t nx = primals.size() - nc - nk;
  const CheckpointPolicy &policy = p.get_policy("policy");
  // How many values a step keeps: the body tells when it is traced (closed_fn traces it once).
  auto num_saved = std::make_shared<std::optional<size_t>>();
  Params f = p;
  f.set("checkpoint_every", int64_t{1});
  f.set("body", sub(
                    p, "body",
                    [body_fn = b.fn, policy, num_saved, nc, nk](const Vec &in) {
                      RematForward r = remat_record(policy, body_fn, in);
                      *num_saved = r.saved.size();
                      return cat(r.outputs, part(in, nc, nc + nk), r.saved);
                    },
                    b.in, nc));
  Vec all = strata::bind(scan_p, primals, f);
  if (!*num_saved)
    throw Error(
        detail::cat("[", op_name(p), "] the forward scan of reverse mode never ran its body"),
        ErrorKind::Internal);
  size_t ns = **num_saved, m = all.size() - 2 * nk - ns;
  Vec outs = part(all, 0, nk + m);
  // Layout: consts; carry: carry cotangent, const cotangent sums; xs: carries, xs, kept values,
  // ys cotangents.
  FlatFn step = [body_fn = b.fn, policy, nc, nk, nx, ns](const Vec &in) {
    size_t c = nc + nk + nc, s = c + nk + nx;
    Vec primals = cat(part(in, 0, nc), part(in, c, s));
    Vec cts = cat(part(in, nc, nc + nk), part(in, s + ns, in.size()));
    Vec g = policy.kind == CheckpointPolicy::Kind::Nothing
                ? vjp_flat(body_fn, primals, "grad", /*reusable=*/false).pullback(cts)
                : remat_backward(body_fn, primals, policy, part(in, s, s + ns), cts);
    Vec out = part(g, nc, nc + nk);
    for (size_t i = 0; i < nc; ++i)
      out.push_back(lax::add(in[nc + nk + i], g[i]));
    return cat(out, part(g, nc + nk, g.size()));
  };
  Params r{{"name", op_name(p)},
           {"num_carry", static_cast<int64_t>(nk + nc)},
           {"length", length},
           {"reverse", !p.get_bool("reverse")},
           {"unroll", p.get_int("unroll")},
           {"checkpoint_every", int64_t{1}},
           {"policy", p.at("policy")}};
  Vec consts = part(primals, 0, nc), xs = part(primals, nc + nk, primals.size());
  Vec carries = part(all, nk + m, 2 * nk + m), kept = part(all, 2 * nk + m, all.size());
  auto pullback = [r, step, consts, xs, carries, kept, nc, nk, out = avals(outs)](const Vec &cts) {
    Vec c = explicit_zeros(cts, out);
    Vec acc;
    for (const Array &x : consts)
      acc.push_back(zeros_like(x));
    Vec head = cat(consts, part(c, 0, nk), acc);
    Vec scanned = cat(carries, xs, kept, part(c, nk, c.size()));
    Params q =
        set_param(r, "body", sub(r, "body vjp", step, cat(avals(head), slice_avals(scanned)), nc));
    Vec res = strata::bind(scan_p, cat(head, scanned), q);
    return cat(part(res, nk, nk + nc), part(res, 0, nk), part(res, nk + nc, res.size()));
  };
  return {outs, pullback};
}

FwdVjp scan_vjp(std::span<const Array> primals, const std::vector<bool> &, const Params &p) {
  return scan_fwd_vjp(Vec(primals.begin(), primals.end()), p);
}

// ---- trip_count_bound ---------------------------------------------------------------------------

// The bound of a batched count is its largest element.
Vec bound_batch(const BatchContext &, std::span<const Array> vals, std::span<const int64_t> dims,
                const Params &p, std::vector<int64_t> &out_dims) {
  Array n = dims[0] == kNotBatched ? vals[0] : lax::reduce_max(vals[0], {dims[0]});
  out_dims = {kNotBatched};
  return {bind1(bound_p, {n}, p)};
}

// ---- Registration -------------------------------------------------------------------------------

/// The entry point and summary of each control-flow primitive, for control_flow_primitives().
std::map<const Primitive *, ControlFlowPrimitive> &listings() {
  static std::map<const Primitive *, ControlFlowPrimitive> m;
  return m;
}

const Primitive &make(std::string name, uint32_t traits, ShapeRule shape, ImplRule impl,
                      FwdJvpRule jvp, FwdVjpRule vjp, BatchRule batch,
                      ControlFlowPrimitive listing = {}) {
  Primitive p;
  p.name = std::move(name);
  p.traits = traits;
  p.shape_rule = std::move(shape);
  p.impl = std::move(impl);
  p.fwd_jvp = std::move(jvp);
  p.fwd_vjp = std::move(vjp);
  p.batch = std::move(batch);
  const Primitive &r = register_primitive(std::move(p));
  if (r.has(kControlFlow))
    listings()[&r] = std::move(listing);
  return r;
}

const Primitive &cond_p =
    make("cond", kControlFlow, cond_shape, cond_impl, cond_jvp, cond_vjp, cond_batch,
         {"cond", "cond(pred, true_fn, false_fn, operands) and switch(index, branches, "
                  "operands): one of several sub-functions"});
const Primitive &while_p =
    make("while", kControlFlow, while_shape, while_impl, while_jvp, while_vjp, while_batch,
         {"while_loop", "while_loop(cond_fn, body_fn, init): a loop with a data-dependent "
                        "trip count (fori_loop with traced bounds too)"});
const Primitive &scan_p =
    make("scan", kControlFlow, scan_shape, scan_impl, scan_jvp, scan_vjp, scan_batch,
         {"scan", "scan(f, init, xs, length, reverse, unroll): a loop over the leading axis "
                  "of xs carrying a state, stacking per-step outputs"});
const Primitive &bound_p = make(
    "trip_count_bound", kNonDifferentiable | kConcreteOutput,
    [](std::span<const AbstractValue> in, const Params &) {
      if (in.size() != 1 || !in[0].shape.empty() || !is_integer(in[0].dtype))
        fail("trip_count_bound", "expects one integer scalar, got ", in.size(), " operands");
      return Avals{in[0]};
    },
    [](std::span<const Array> in, const Params &, std::span<const AbstractValue>) {
      return Vec{in[0]};
    },
    nullptr, nullptr, bound_batch);

} // namespace

std::vector<ControlFlowPrimitive> control_flow_primitives() {
  std::vector<ControlFlowPrimitive> out;
  for (const Primitive *p : all_primitives())
    if (p->has(kControlFlow))
      out.push_back(listings().at(p));
  std::sort(out.begin(), out.end(), [](const auto &a, const auto &b) { return a.name < b.name; });
  return out;
}

const Primitive &cond_primitive() { return cond_p; }
const Primitive &while_primitive() { return while_p; }
const Primitive &scan_primitive() { return scan_p; }

} // namespace strata
