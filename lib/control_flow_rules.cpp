// The jvp, batching and reverse-mode rules of cond, while_loop and scan. Each builds new
// sub-functions from the op's own with the flat transforms and binds the new op one level down,
// so a loop stays one loop at every level.
#include <memory>
#include <numeric>
#include <optional>

#include "control_flow_impl.h"
#include "strata/lax.h"
#include "strata/ops.h"
#include "transforms/rules_impl.h"

namespace strata {
namespace {

using Vec = std::vector<Array>;
using Kind = ControlFlow::Kind;

Vec part(const Vec &v, size_t begin, size_t end) { return Vec(v.begin() + begin, v.begin() + end); }
Vec cat(Vec a, const Vec &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
template <class... V> Vec cat(Vec a, const Vec &b, const V &...rest) {
  return cat(cat(std::move(a), b), rest...);
}
bool floating(const Array &x) { return is_floating(x.dtype()); }

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

/// Cotangents with the zero ones (empty) made explicit, for outputs of avals `out`.
Vec explicit_zeros(const Vec &cts, const std::vector<AbstractValue> &out) {
  Vec c = cts;
  c.resize(out.size());
  for (size_t i = 0; i < out.size(); ++i)
    if (!c[i].valid())
      c[i] = zeros(out[i].shape, out[i].dtype);
  return c;
}
std::vector<AbstractValue> avals(const Vec &xs) {
  std::vector<AbstractValue> out;
  for (const Array &x : xs)
    out.push_back(abstract_of(x));
  return out;
}
Array int_scalar(int64_t v, DType dt = DType::Int32) {
  return lax::convert_element_type(Array(static_cast<int32_t>(v)), dt);
}

// ---- jvp ----------------------------------------------------------------------------------------

std::pair<Vec, Vec> jvp_cond(const ControlFlow &cf, const Vec &primals, const Vec &tangents) {
  size_t n = primals.size() - 1;
  std::vector<bool> with(n);
  Vec ts;
  for (size_t i = 0; i < n; ++i)
    if ((with[i] = tangents[1 + i].valid() && floating(primals[1 + i])))
      ts.push_back(tangents[1 + i]);
  ControlFlow j = cf;
  j.branches.clear();
  for (const FlatFn &b : cf.branches)
    j.branches.push_back(jvp_of(b, with));
  Vec all = bind_control(j, cat(primals, ts));
  size_t m = all.size() / 2;
  Vec outs = part(all, 0, m), touts(m);
  for (size_t i = 0; i < m; ++i)
    if (floating(outs[i]))
      touts[i] = all[m + i];
  return {outs, touts};
}

// The tangents of the consts (marked in `with`) that have one.
Vec present_tangents(const Vec &primals, const Vec &tangents, size_t begin, size_t end,
                     std::vector<bool> &with) {
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
Vec carry_tangents(const Vec &primals, const Vec &tangents, size_t begin, size_t end,
                   std::vector<bool> &with) {
  Vec ts;
  for (size_t i = begin; i < end; ++i) {
    with.push_back(floating(primals[i]));
    if (with.back())
      ts.push_back(tangents[i].valid() ? tangents[i] : zeros_like(primals[i]));
  }
  return ts;
}

std::pair<Vec, Vec> jvp_while(const ControlFlow &cf, const Vec &primals, const Vec &tangents) {
  size_t nc = cf.num_consts, nk = primals.size() - nc;
  std::vector<bool> cw, kw;
  Vec tc = present_tangents(primals, tangents, 0, nc, cw);
  Vec tk = carry_tangents(primals, tangents, nc, nc + nk, kw);
  size_t ncm = tc.size();
  ControlFlow j = cf;
  j.num_consts = nc + ncm;
  // Layout: consts ++ const tangents ++ carry ++ carry tangents.
  j.cond_fn = [c = cf.cond_fn, nc, ncm, nk](const Vec &in) {
    return c(cat(part(in, 0, nc), part(in, nc + ncm, nc + ncm + nk)));
  };
  std::vector<bool> with = cw;
  with.insert(with.end(), kw.begin(), kw.end());
  j.body = [jb = jvp_of(cf.body, with), nc, ncm, nk, kw](const Vec &in) {
    size_t a = nc + ncm;
    Vec all = jb(cat(part(in, 0, nc), part(in, a, a + nk), part(in, nc, a),
                     part(in, a + nk, in.size())));
    Vec out = part(all, 0, nk);
    for (size_t i = 0; i < nk; ++i)
      if (kw[i])
        out.push_back(all[nk + i]);
    return out;
  };
  Vec res = bind_control(j, cat(part(primals, 0, nc), tc, part(primals, nc, nc + nk), tk));
  Vec outs = part(res, 0, nk), touts(nk);
  for (size_t i = 0, k = nk; i < nk; ++i)
    if (kw[i])
      touts[i] = res[k++];
  return {outs, touts};
}

std::pair<Vec, Vec> jvp_scan(const ControlFlow &cf, const Vec &primals, const Vec &tangents) {
  size_t nc = cf.num_consts, nk = cf.num_carry, nx = primals.size() - nc - nk;
  std::vector<bool> cw, kw, xw;
  Vec tc = present_tangents(primals, tangents, 0, nc, cw);
  Vec tk = carry_tangents(primals, tangents, nc, nc + nk, kw);
  Vec tx = present_tangents(primals, tangents, nc + nk, nc + nk + nx, xw);
  size_t ncm = tc.size(), nkf = tk.size();
  std::vector<bool> with = cw;
  with.insert(with.end(), kw.begin(), kw.end());
  with.insert(with.end(), xw.begin(), xw.end());
  ControlFlow j = cf;
  j.num_consts = nc + ncm;
  j.num_carry = nk + nkf;
  // Layout: consts, const tangents, carry, carry tangents, xs, xs tangents; outputs: carry,
  // carry tangents, ys, ys tangents.
  j.body = [jb = jvp_of(cf.body, with), nc, ncm, nk, nkf, nx, kw](const Vec &in) {
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
  Vec res = bind_control(j, cat(part(primals, 0, nc), tc, part(primals, nc, nc + nk), tk,
                                part(primals, nc + nk, primals.size()), tx));
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

// ---- vmap ---------------------------------------------------------------------------------------

Vec batch_cond(const ControlFlow &cf, int64_t size, const Vec &vals,
               const std::vector<int64_t> &dims, std::vector<int64_t> &out_dims) {
  Vec ops = part(vals, 1, vals.size());
  std::vector<int64_t> od(dims.begin() + 1, dims.end());
  bool any_op = std::any_of(od.begin(), od.end(), [](int64_t d) { return d != kNotBatched; });
  if (dims[0] == kNotBatched) {
    // One branch for the whole batch: a cond of the batched branches.
    ControlFlow b = cf;
    b.branches.clear();
    for (const FlatFn &br : cf.branches)
      b.branches.push_back([br, od](const Vec &in) { return vmap_flat(br, in, od); });
    Vec outs = bind_control(b, vals);
    out_dims.assign(outs.size(), 0);
    return outs;
  }
  // A batched predicate: every branch runs on the whole batch and each example takes its own
  // branch's results. Branches have no side effects, so this only costs the extra compute.
  int64_t nb = static_cast<int64_t>(cf.branches.size());
  Array idx = lax::clamp(int_scalar(0), rules::batch_to_front(vals[0], dims[0], size),
                         int_scalar(nb - 1));
  std::vector<Vec> res;
  for (const FlatFn &br : cf.branches) {
    if (any_op) {
      res.push_back(vmap_flat(br, ops, od));
    } else {
      Vec o = br(ops);
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

// A batched while_loop runs while any example's predicate holds; the body's results are
// selected per example, so finished examples keep their carry (the body still runs on them,
// and its discarded results may be anything, NaN included).
Vec batch_while(const ControlFlow &cf, int64_t size, const Vec &vals,
                const std::vector<int64_t> &dims, std::vector<int64_t> &out_dims) {
  size_t nc = cf.num_consts, nk = vals.size() - nc;
  Vec in = part(vals, 0, nc);
  std::vector<int64_t> in_dims(dims.begin(), dims.begin() + nc);
  for (size_t i = 0; i < nk; ++i) {
    in.push_back(rules::batch_to_front(vals[nc + i], dims[nc + i], size));
    in_dims.push_back(0);
  }
  FlatFn pred = [c = cf.cond_fn, in_dims](const Vec &args) {
    return vmap_flat(c, args, in_dims);
  };
  ControlFlow w = cf;
  w.cond_fn = [pred](const Vec &args) {
    Array any = lax::reduce_max(lax::convert_element_type(pred(args)[0], DType::Int32), {0});
    return Vec{lax::gt(any, int_scalar(0))};
  };
  w.body = [pred, b = cf.body, in_dims, nc](const Vec &args) {
    Array p = pred(args)[0];
    Vec next = vmap_flat(b, args, in_dims);
    for (size_t i = 0; i < next.size(); ++i)
      next[i] = lax::select(lax::broadcast_in_dim(p, next[i].shape(), {0}), next[i],
                            args[nc + i]);
    return next;
  };
  Vec outs = bind_control(w, in);
  out_dims.assign(outs.size(), 0);
  return outs;
}

Vec batch_scan(const ControlFlow &cf, int64_t size, const Vec &vals,
               const std::vector<int64_t> &dims, std::vector<int64_t> &out_dims) {
  size_t nc = cf.num_consts, nk = cf.num_carry;
  Vec in = part(vals, 0, nc);
  std::vector<int64_t> in_dims(dims.begin(), dims.begin() + nc);
  for (size_t i = nc; i < nc + nk; ++i) {
    in.push_back(rules::batch_to_front(vals[i], dims[i], size));
    in_dims.push_back(0);
  }
  // Batched xs keep the scanned axis first and the batch axis next, so each slice is batched
  // at axis 0.
  for (size_t i = nc + nk; i < vals.size(); ++i) {
    bool b = dims[i] != kNotBatched;
    in.push_back(b ? rules::move_axis(vals[i], dims[i], 1) : vals[i]);
    in_dims.push_back(b ? 0 : kNotBatched);
  }
  ControlFlow s = cf;
  s.body = [b = cf.body, in_dims](const Vec &args) { return vmap_flat(b, args, in_dims); };
  Vec outs = bind_control(s, in);
  out_dims.assign(outs.size(), 1); // ys: [length, batch, ...]
  std::fill(out_dims.begin(), out_dims.begin() + nk, 0);
  return outs;
}

// ---- Reverse mode -------------------------------------------------------------------------------

ControlVjp vjp_cond(const ControlFlow &cf, const Vec &primals) {
  Vec outs = bind_control(cf, primals);
  // The backward pass is a cond of the branches' vjps: each replays its branch's forward pass.
  ControlFlow b = cf;
  b.branches.clear();
  for (const FlatFn &br : cf.branches)
    b.branches.push_back(vjp_of(br, primals.size() - 1));
  auto pullback = [b, saved = primals, out = avals(outs)](const Vec &cts) {
    Vec g = bind_control(b, cat(saved, explicit_zeros(cts, out)));
    return cat(Vec{Array()}, g);
  };
  return {outs, pullback};
}

ControlVjp vjp_scan(const ControlFlow &cf, const Vec &primals);

// checkpoint_every k: a scan of length/k segments whose step is a scan of k steps. The outer
// scan keeps one carry per segment; its backward pass differentiates a segment by running it
// again under grad (which keeps that segment's k carries).
ControlVjp vjp_scan_segments(const ControlFlow &cf, const Vec &primals) {
  int64_t k = cf.checkpoint_every, t = cf.length;
  if (t % k != 0)
    fail(cf.name, "checkpoint_every (", k, ") must divide the length (", t, ")");
  size_t nc = cf.num_consts, nk = cf.num_carry;
  ControlFlow inner = cf, outer = cf;
  inner.length = k;
  inner.checkpoint_every = 1;
  outer.length = t / k;
  outer.checkpoint_every = 1;
  // A segment's body is one scan, inside which a policy level keeps nothing; the inner scan,
  // differentiated when the backward pass recomputes the segment, applies the policy.
  outer.policy = CheckpointPolicy::nothing();
  outer.body = [inner](const Vec &in) { return bind_control(inner, in); };
  Vec in = part(primals, 0, nc + nk);
  for (size_t i = nc + nk; i < primals.size(); ++i) {
    Shape s = primals[i].shape();
    s[0] = k;
    s.insert(s.begin(), t / k);
    in.push_back(lax::reshape(primals[i], s));
  }
  ControlVjp r = vjp_scan(outer, in);
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
ControlVjp vjp_scan(const ControlFlow &cf, const Vec &primals) {
  if (cf.checkpoint_every > 1 && cf.length > cf.checkpoint_every)
    return vjp_scan_segments(cf, primals);
  size_t nc = cf.num_consts, nk = cf.num_carry, nx = primals.size() - nc - nk;
  CheckpointPolicy policy = cf.policy;
  // How many values a step keeps: the body tells when the forward scan runs or traces it
  // (every level does, once at least, even for zero steps: for the output avals).
  auto num_saved = std::make_shared<std::optional<size_t>>();
  ControlFlow f = cf;
  f.checkpoint_every = 1;
  f.body = [b = cf.body, policy, num_saved, nc, nk](const Vec &in) {
    RematForward r = remat_record(policy, b, in);
    *num_saved = r.saved.size();
    return cat(r.outputs, part(in, nc, nc + nk), r.saved);
  };
  Vec all = bind_control(f, primals);
  if (!*num_saved)
    throw Error(detail::cat("[", cf.name, "] the forward scan of reverse mode never ran its body"),
                ErrorKind::Internal);
  size_t ns = **num_saved, m = all.size() - 2 * nk - ns;
  Vec outs = part(all, 0, nk + m);
  ControlFlow r;
  r.kind = Kind::Scan;
  r.name = cf.name;
  r.num_consts = nc;
  r.num_carry = nk + nc;
  r.length = cf.length;
  r.reverse = !cf.reverse;
  r.unroll = cf.unroll;
  r.policy = policy;
  // Layout: consts; carry: carry cotangent, const cotangent sums; xs: carries, xs, kept values,
  // ys cotangents.
  r.body = [b = cf.body, policy, nc, nk, nx, ns](const Vec &in) {
    size_t c = nc + nk + nc, s = c + nk + nx;
    Vec primals = cat(part(in, 0, nc), part(in, c, s));
    Vec cts = cat(part(in, nc, nc + nk), part(in, s + ns, in.size()));
    Vec g = policy.kind == CheckpointPolicy::Kind::Nothing
                ? vjp_flat(b, primals, "grad", /*reusable=*/false).pullback(cts)
                : remat_backward(b, primals, policy, part(in, s, s + ns), cts);
    Vec out = part(g, nc, nc + nk);
    for (size_t i = 0; i < nc; ++i)
      out.push_back(lax::add(in[nc + nk + i], g[i]));
    return cat(out, part(g, nc + nk, g.size()));
  };
  Vec consts = part(primals, 0, nc), xs = part(primals, nc + nk, primals.size());
  Vec carries = part(all, nk + m, 2 * nk + m), kept = part(all, 2 * nk + m, all.size());
  auto pullback = [r, consts, xs, carries, kept, nc, nk, out = avals(outs)](const Vec &cts) {
    Vec c = explicit_zeros(cts, out);
    Vec acc;
    for (const Array &x : consts)
      acc.push_back(zeros_like(x));
    Vec res = bind_control(r, cat(consts, part(c, 0, nk), acc, carries, xs, kept,
                                  part(c, nk, c.size())));
    return cat(part(res, nk, nk + nc), part(res, 0, nk), part(res, nk + nc, res.size()));
  };
  return {outs, pullback};
}

// A while_loop runs once to count its trips; then it is differentiated as a scan of that many
// steps (under vmap: of the most steps any example takes, each example's extra steps keeping
// its carry).
ControlVjp vjp_while(const ControlFlow &cf, const Vec &primals) {
  size_t nc = cf.num_consts, nk = primals.size() - nc;
  ControlFlow count = cf;
  count.cond_fn = [c = cf.cond_fn](const Vec &in) { return c(part(in, 0, in.size() - 1)); };
  count.body = [b = cf.body](const Vec &in) {
    Vec out = b(part(in, 0, in.size() - 1));
    out.push_back(lax::add(in.back(), int_scalar(1)));
    return out;
  };
  Array n = bind_control(count, cat(primals, Vec{int_scalar(0)})).back();
  ControlFlow bound;
  bound.kind = Kind::Bound;
  bound.name = cf.name;
  int64_t steps = item_as_int(bind_control(bound, {n}).at(0));
  int64_t k = cf.checkpoint_every;
  bool exact = !n.tracer() && (k == 1 || steps % k == 0);
  if (k > 1)
    steps = (steps + k - 1) / k * k;
  ControlFlow s;
  s.kind = Kind::Scan;
  s.name = cf.name;
  s.num_consts = nc + 1;
  s.num_carry = nk;
  s.length = steps;
  s.checkpoint_every = k;
  s.policy = cf.policy;
  s.body = [b = cf.body, nc, nk, exact](const Vec &in) {
    Vec carry = part(in, nc + 1, nc + 1 + nk);
    Vec next = b(cat(part(in, 0, nc), carry));
    if (exact)
      return next;
    Array active = lax::lt(in.back(), in[nc]);
    for (size_t i = 0; i < nk; ++i)
      next[i] = lax::select(lax::broadcast_in_dim(active, next[i].shape(), {}), next[i], carry[i]);
    return next;
  };
  Vec in = cat(part(primals, 0, nc), Vec{n}, part(primals, nc, nc + nk),
               Vec{lax::iota(DType::Int32, {steps}, 0)});
  ControlVjp r = vjp_scan(s, in);
  auto pullback = [pb = r.pullback, nc, nk](const Vec &cts) {
    Vec g = pb(cts);
    return cat(part(g, 0, nc), part(g, nc + 1, nc + 1 + nk));
  };
  return {r.outs, pullback};
}

} // namespace

// ---- Entry points for the levels ----------------------------------------------------------------

std::pair<Vec, Vec> control_jvp(const ControlFlow &cf, const Vec &primals, const Vec &tangents) {
  switch (cf.kind) {
  case Kind::Cond: return jvp_cond(cf, primals, tangents);
  case Kind::While: return jvp_while(cf, primals, tangents);
  case Kind::Scan: return jvp_scan(cf, primals, tangents);
  case Kind::Bound: break;
  }
  return {bind_control(cf, primals), Vec(1)};
}

Vec control_batch(const ControlFlow &cf, int64_t axis_size, const Vec &vals,
                  const std::vector<int64_t> &dims, std::vector<int64_t> &out_dims) {
  switch (cf.kind) {
  case Kind::Cond: return batch_cond(cf, axis_size, vals, dims, out_dims);
  case Kind::While: return batch_while(cf, axis_size, vals, dims, out_dims);
  case Kind::Scan: return batch_scan(cf, axis_size, vals, dims, out_dims);
  case Kind::Bound: break;
  }
  // The bound of a batched count is its largest element.
  Array n = dims[0] == kNotBatched ? vals[0] : lax::reduce_max(vals[0], {dims[0]});
  out_dims = {kNotBatched};
  return bind_control(cf, {n});
}

ControlVjp control_vjp(const ControlFlow &cf, const Vec &primals) {
  switch (cf.kind) {
  case Kind::Cond: return vjp_cond(cf, primals);
  case Kind::While: return vjp_while(cf, primals);
  case Kind::Scan: return vjp_scan(cf, primals);
  case Kind::Bound: break;
  }
  return {bind_control(cf, primals), [](const Vec &) { return Vec(1); }};
}

} // namespace strata
