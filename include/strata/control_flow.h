// Structured control flow (jax.lax's cond, switch, while_loop, fori_loop, scan): the sub-functions
// are traced once at the call, stay sub-functions (not unrolled) under every transform, and take
// and return pytrees.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "strata/transforms.h"

namespace strata {

/// A control-flow primitive as docs and tools list it: the entry point users call (while_loop
/// for the `while` primitive) and a summary.
struct ControlFlowPrimitive {
  std::string name, summary;
};
/// Every registered primitive with the kControlFlow trait, sorted by entry-point name.
STRATA_EXPORT std::vector<ControlFlowPrimitive> control_flow_primitives();

namespace lax {

/// How reverse mode keeps a loop's carries: every `checkpoint_every` iterations (1: every
/// iteration); the iterations in between are recomputed in the backward pass, trading compute
/// for memory (k times fewer saved carries, about one more forward pass).
///
/// `policy` says what else the forward loop keeps of each step, as for checkpoint(f): with
/// nothing (the default) the backward pass replays the whole step from its carry; with dots the
/// forward loop also stacks every dot_general output of the step and the replay reuses them
/// instead of multiplying again; with save_names(...) the same for values tagged by
/// checkpoint_name. Within checkpoint_every segments the policy applies to the segment's
/// recompute: the recomputed steps stack the saved values and their backward pass reuses them
/// (so a dot runs twice, forward and recompute, where the nothing policy runs it three times).
/// The policy also governs the loops reverse mode derives from this one (grad of grad).
struct LoopGradOptions {
  int64_t checkpoint_every = 1;
  CheckpointPolicy policy = {};
};

// Sub-functions outlive the call: transforms replay them later (grad's backward pass runs a
// loop body again), so they must own what they use. Capture by value ([w], [=]), never by
// reference to locals of the enclosing function.

// ---- The flat forms: functions of flat lists of arrays ----------------------------------------

/// pred ? true_fn(operands) : false_fn(operands); pred is a bool scalar. Under vmap with a
/// batched pred both branches run and the results are selected per example.
STRATA_EXPORT std::vector<Array> cond_flat(const Array &pred, const FlatFn &true_fn,
                                           const FlatFn &false_fn,
                                           const std::vector<Array> &operands);
/// branches[clamp(index, 0, n - 1)](operands); index is an integer scalar.
STRATA_EXPORT std::vector<Array> switch_flat(const Array &index,
                                             const std::vector<FlatFn> &branches,
                                             const std::vector<Array> &operands);
/// while cond_fn(carry)[0]: carry = body_fn(carry). Reverse mode records the trip count and
/// the carries. Under vmap with a batched predicate the loop runs until every example is
/// done; finished examples keep their carry.
STRATA_EXPORT std::vector<Array> while_loop_flat(const FlatFn &cond_fn, const FlatFn &body_fn,
                                                 const std::vector<Array> &init,
                                                 LoopGradOptions options = {});
/// for i in [lo, hi): carry = body_fn([i] ++ carry), i an int32 scalar. Static bounds make it a
/// scan (reverse-differentiable like one).
STRATA_EXPORT std::vector<Array> fori_loop_flat(int64_t lo, int64_t hi, const FlatFn &body_fn,
                                                const std::vector<Array> &init,
                                                LoopGradOptions options = {});
/// The same with traced integer-scalar bounds: a while_loop.
STRATA_EXPORT std::vector<Array> fori_loop_flat(const Array &lo, const Array &hi,
                                                const FlatFn &body_fn,
                                                const std::vector<Array> &init,
                                                LoopGradOptions options = {});
/// f(carry ++ x slices) -> carry ++ y slices over the leading axis of xs (or `length` steps when
/// xs is empty); returns (final carry, stacked ys).
STRATA_EXPORT std::pair<std::vector<Array>, std::vector<Array>>
scan_flat(const FlatFn &f, const std::vector<Array> &init, const std::vector<Array> &xs,
          std::optional<int64_t> length = std::nullopt, bool reverse = false, int64_t unroll = 1,
          LoopGradOptions options = {});

// ---- The pytree forms -------------------------------------------------------------------------

namespace detail {
/// A pytree shaped like x with empty leaves: the structure without keeping x's buffers alive.
template <class T> T structure_of(const T &x) {
  return tree_map([](const Array &) { return Array(); }, x);
}
} // namespace detail

/// cond(pred, true_fn, false_fn, operands...): both branches take the operands (pytrees) and
/// return the same type with leaves of the same shapes and dtypes.
template <class TrueFn, class FalseFn, class... Ops>
auto cond(const Array &pred, TrueFn true_fn, FalseFn false_fn, const Ops &...operands) {
  using Out = std::decay_t<decltype(true_fn(operands...))>;
  static_assert(std::is_same_v<Out, std::decay_t<decltype(false_fn(operands...))>>,
                "strata::lax::cond: true_fn and false_fn must return the same type");
  auto args = std::make_tuple(detail::structure_of(operands)...);
  auto [tf, like] = strata::detail::flat_of(true_fn, args);
  auto [ff, unused] = strata::detail::flat_of(false_fn, args);
  std::vector<Array> outs =
      cond_flat(pred, tf, ff, strata::detail::leaves_all(std::make_tuple(operands...)));
  return tree_unflatten(**like, outs);
}

/// switch_(index, branches, operands...) (jax.lax.switch; `switch` is a C++ keyword): runs
/// branches[clamp(index, 0, n - 1)] on the operands.
template <class F, class... Ops>
auto switch_(const Array &index, const std::vector<F> &branches, const Ops &...operands) {
  using Out = std::decay_t<decltype(branches.at(0)(operands...))>;
  auto args = std::make_tuple(detail::structure_of(operands)...);
  std::vector<FlatFn> flat;
  std::shared_ptr<std::optional<Out>> like;
  for (const F &b : branches) {
    auto [fb, l] = strata::detail::flat_of(b, args);
    flat.push_back(std::move(fb));
    if (!like)
      like = l;
  }
  if (!like)
    fail("switch", "needs at least one branch");
  std::vector<Array> outs =
      switch_flat(index, flat, strata::detail::leaves_all(std::make_tuple(operands...)));
  return tree_unflatten(**like, outs);
}

/// while_loop(cond_fn, body_fn, init): cond_fn(carry) -> bool scalar, body_fn(carry) -> carry
/// (same type, shapes and dtypes).
template <class CondFn, class BodyFn, class T>
T while_loop(CondFn cond_fn, BodyFn body_fn, const T &init, LoopGradOptions options = {}) {
  static_assert(std::is_same_v<std::decay_t<decltype(body_fn(init))>, T>,
                "strata::lax::while_loop: body_fn must return the carry's type");
  T like = detail::structure_of(init);
  FlatFn c = [cond_fn, like](const std::vector<Array> &in) {
    return std::vector<Array>{Array(cond_fn(tree_unflatten(like, in)))};
  };
  FlatFn b = [body_fn, like](const std::vector<Array> &in) {
    return tree_leaves(body_fn(tree_unflatten(like, in)));
  };
  return tree_unflatten(like, while_loop_flat(c, b, tree_leaves(init), options));
}

/// fori_loop(lo, hi, body_fn, init): body_fn(i, carry) -> carry for i in [lo, hi), i an int32
/// scalar. Static bounds give a scan; traced ones (the Array overload) a while_loop.
template <class BodyFn, class T>
T fori_loop(int64_t lo, int64_t hi, BodyFn body_fn, const T &init, LoopGradOptions options = {}) {
  T like = detail::structure_of(init);
  FlatFn b = [body_fn, like](const std::vector<Array> &in) {
    return tree_leaves(body_fn(in[0], tree_unflatten(like, {in.begin() + 1, in.end()})));
  };
  return tree_unflatten(like, fori_loop_flat(lo, hi, b, tree_leaves(init), options));
}
template <class BodyFn, class T>
T fori_loop(const Array &lo, const Array &hi, BodyFn body_fn, const T &init,
            LoopGradOptions options = {}) {
  T like = detail::structure_of(init);
  FlatFn b = [body_fn, like](const std::vector<Array> &in) {
    return tree_leaves(body_fn(in[0], tree_unflatten(like, {in.begin() + 1, in.end()})));
  };
  return tree_unflatten(like, fori_loop_flat(lo, hi, b, tree_leaves(init), options));
}

/// scan(f, init, xs, length, reverse, unroll): f(carry, x) -> std::pair(carry, y) over the
/// leading axis of every leaf of xs (use std::tuple<>() for no xs, with `length`); returns
/// std::pair(final carry, ys stacked on a new leading axis).
template <class F, class C, class X>
auto scan(F f, const C &init, const X &xs, std::optional<int64_t> length = std::nullopt,
          bool reverse = false, int64_t unroll = 1, LoopGradOptions options = {}) {
  using R = std::decay_t<decltype(f(init, xs))>;
  using Y = std::decay_t<typename R::second_type>;
  static_assert(std::is_same_v<std::decay_t<typename R::first_type>, C>,
                "strata::lax::scan: f must return std::pair(carry of init's type, y)");
  C c_like = detail::structure_of(init);
  X x_like = detail::structure_of(xs);
  auto y_like = std::make_shared<std::optional<Y>>();
  size_t nc = tree_leaves(init).size();
  FlatFn ff = [f, c_like, x_like, y_like, nc](const std::vector<Array> &in) {
    R r = f(tree_unflatten(c_like, {in.begin(), in.begin() + nc}),
            tree_unflatten(x_like, {in.begin() + nc, in.end()}));
    if (!*y_like)
      y_like->emplace(detail::structure_of(r.second));
    std::vector<Array> out = tree_leaves(r.first);
    Tree<Y>::flatten(r.second, out);
    return out;
  };
  auto [carry, ys] =
      scan_flat(ff, tree_leaves(init), tree_leaves(xs), length, reverse, unroll, options);
  return std::make_pair(tree_unflatten(c_like, carry), tree_unflatten(**y_like, ys));
}

} // namespace lax
} // namespace strata
