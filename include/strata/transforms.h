// Composable transforms over C++ functions of Arrays and pytrees of Arrays: grad,
// value_and_grad, vjp, jvp, linearize, vmap, jacfwd, jacrev, hessian, eval_shape, checkpoint,
// custom_jvp and custom_vjp. Each nests under and over every other.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "strata/lax.h"
#include "strata/ops.h"
#include "strata/primitive.h"
#include "strata/pytree.h"

namespace strata {

struct VjpResult {
  std::vector<Array> outputs;
  /// Output cotangents -> input cotangents (zeros for non-float inputs). Reusable.
  std::function<std::vector<Array>(const std::vector<Array> &)> pullback;
};

// ---- The flat core: every typed transform below reduces to these -------------------------------
STRATA_EXPORT std::pair<std::vector<Array>, std::vector<Array>>
jvp_flat(const FlatFn &f, const std::vector<Array> &primals, const std::vector<Array> &tangents);
/// With reusable false the pullback may run once and frees residuals as it goes.
STRATA_EXPORT VjpResult vjp_flat(const FlatFn &f, const std::vector<Array> &primals,
                                 const std::string &name = "vjp", bool reusable = true);
/// in_axes[i] is argument i's batch axis or kNotBatched; out_axes empty means all 0.
/// arg_of_leaf (optional) maps each input to the user-level argument it came from, for errors.
STRATA_EXPORT std::vector<Array> vmap_flat(const FlatFn &f, const std::vector<Array> &inputs,
                                           const std::vector<int64_t> &in_axes,
                                           const std::vector<int64_t> &out_axes = {},
                                           const std::vector<int> &arg_of_leaf = {});
STRATA_EXPORT std::vector<AbstractValue> eval_shape_flat(const FlatFn &f,
                                                         const std::vector<AbstractValue> &in);
/// Gradient of a scalar-valued flat function with respect to the arguments in argnums.
STRATA_EXPORT std::vector<Array> grad_flat(const FlatFn &f, const std::vector<Array> &args,
                                           const std::vector<int> &argnums = {0});
/// What a checkpointed function keeps from its forward pass for the backward pass (besides its
/// inputs); everything else is recomputed.
struct CheckpointPolicy {
  enum class Kind { Nothing, Dots, Names, Everything, Callback };
  /// Kind::Callback: whether the outputs of one primitive application (the primitive, its
  /// inputs' abstract values, its parameters) are saved. It must answer the same way every time
  /// for the same application: the backward pass replays the function and asks again.
  using Saveable =
      std::function<bool(const Primitive &, std::span<const AbstractValue>, const Params &)>;
  Kind kind = Kind::Nothing;
  std::vector<std::string> names;
  Saveable saveable;
  /// Save nothing: recompute the whole function (jax.checkpoint_policies.nothing_saveable).
  static CheckpointPolicy nothing() { return {}; }
  /// Save dot_general outputs (dots_saveable): matmuls are not recomputed.
  static CheckpointPolicy dots() { return {Kind::Dots, {}, {}}; }
  /// Save the values tagged with checkpoint_name(x, name) for these names.
  static CheckpointPolicy save_names(std::vector<std::string> names) {
    return {Kind::Names, std::move(names), {}};
  }
  /// Save every primitive's outputs (everything_saveable): nothing is recomputed.
  static CheckpointPolicy everything() { return {Kind::Everything, {}, {}}; }
  /// Save the outputs of the applications `f` accepts (JAX's callable policies).
  static CheckpointPolicy callback(Saveable f) { return {Kind::Callback, {}, std::move(f)}; }
};
/// f, rematerialized under grad: only its inputs (and what the policy saves) are kept; the
/// backward pass replays it.
STRATA_EXPORT FlatFn checkpoint_flat(FlatFn f, CheckpointPolicy policy = {});
/// Tags x (identity) so that CheckpointPolicy::save_names can keep it.
STRATA_EXPORT Array checkpoint_name(const Array &x, const std::string &name);
/// f with a custom jvp: rule(primals, tangents) -> output tangents.
STRATA_EXPORT FlatFn custom_jvp_flat(
    FlatFn f,
    std::function<std::vector<Array>(const std::vector<Array> &, const std::vector<Array> &)> rule);
/// f with a custom vjp: fwd(primals) -> outputs followed by residuals (num_outputs of the
/// former); bwd(residuals, output cotangents) -> input cotangents.
STRATA_EXPORT FlatFn custom_vjp_flat(
    FlatFn f, FlatFn fwd, size_t num_outputs,
    std::function<std::vector<Array>(const std::vector<Array> &, const std::vector<Array> &)> bwd);

/// jax_debug_nans / jax_debug_infs: while on, every primitive evaluated on concrete arrays
/// checks its floating outputs and throws FloatingPointError naming the primitive and its
/// inputs at the first NaN (Inf). Off by default; an off check costs one branch per bind.
STRATA_EXPORT void set_debug_nans(bool nans, bool infs);
/// What the enabled checks of set_debug_nans find among xs: "nan", "inf", or "" (also when
/// they are off). jit runs this on a compiled call's outputs and, on a find, re-runs the
/// function op by op so that the primitive that made the value throws.
STRATA_EXPORT std::string debug_nans_violation(const std::vector<Array> &xs);
class DynamicOverride;
/// ensure_compile_time_eval: while one lives (on this thread), an op whose inputs are all
/// concrete runs eagerly even while jit or a control-flow body traces; ops on traced values
/// are traced as before.
class STRATA_EXPORT CompileTimeEval {
public:
  CompileTimeEval();
  ~CompileTimeEval();
  CompileTimeEval(const CompileTimeEval &) = delete;
  CompileTimeEval &operator=(const CompileTimeEval &) = delete;

private:
  std::unique_ptr<DynamicOverride> override_;
};
/// Thrown by the checks of set_debug_nans (Python: FloatingPointError).
struct STRATA_EXPORT FloatingPointError : Error {
  using Error::Error;
};

namespace detail {
template <class T> using plain_t = std::decay_t<T>;

template <size_t... I, class Tuple> std::vector<Array> leaves_at(const Tuple &args) {
  std::vector<Array> out;
  (Tree<plain_t<std::tuple_element_t<I, Tuple>>>::flatten(std::get<I>(args), out), ...);
  return out;
}
inline Shape concat_shape(const Shape &a, const Shape &b) {
  Shape s = a;
  s.insert(s.end(), b.begin(), b.end());
  return s;
}
template <size_t... I, class Tuple> Tuple replace_at(Tuple args, const std::vector<Array> &flat) {
  const Array *it = flat.data();
  ((std::get<I>(args) =
        Tree<plain_t<std::tuple_element_t<I, Tuple>>>::unflatten(std::get<I>(args), it)),
   ...);
  return args;
}
// The gradient structure: the argument's own type for one argnum, a tuple for several.
template <size_t... I, class Tuple>
auto grads_like(const Tuple &args, const std::vector<Array> &g) {
  Tuple rebuilt = replace_at<I...>(args, g);
  if constexpr (sizeof...(I) == 1)
    return std::get<I...>(rebuilt);
  else
    return std::make_tuple(std::get<I>(rebuilt)...);
}
template <class Tuple> std::vector<Array> leaves_all(const Tuple &args) {
  return [&]<size_t... I>(std::index_sequence<I...>) {
    return leaves_at<I...>(args);
  }(std::make_index_sequence<std::tuple_size_v<Tuple>>{});
}
template <class Tuple> Tuple replace_at_all(const Tuple &args, const std::vector<Array> &flat) {
  return [&]<size_t... I>(std::index_sequence<I...>) {
    return replace_at<I...>(args, flat);
  }(std::make_index_sequence<std::tuple_size_v<Tuple>>{});
}
/// f as a FlatFn over the leaves of `args`, and the structure of f's output (set by the first
/// call). The FlatFn owns what it uses: replays (checkpoint, custom rules) may outlive the call.
template <class F, class Tuple> auto flat_of(F f, Tuple args) {
  using Out = plain_t<decltype(std::apply(f, args))>;
  auto like = std::make_shared<std::optional<Out>>();
  FlatFn ff = [f = std::move(f), args = std::move(args), like](const std::vector<Array> &in) {
    Out out = std::apply(f, replace_at_all(args, in));
    if (!*like)
      like->emplace(out);
    return tree_leaves(out);
  };
  return std::make_pair(std::move(ff), like);
}
template <class Out> Array scalar_output(const Out &out) {
  if constexpr (std::is_same_v<Out, Array>)
    return out;
  else
    return out.first; // has_aux: (value, aux)
}
STRATA_EXPORT void check_grad_output(const Array &out, std::string_view op);
STRATA_EXPORT void check_grad_inputs(const std::vector<Array> &in, std::string_view op,
                                     const std::vector<int> &arg_of_leaf = {});
/// "argument 2", or "argument 1 (leaf 3)" when the argument is a pytree.
STRATA_EXPORT std::string describe_input(size_t leaf, const std::vector<int> &arg_of_leaf);
/// Which argument each leaf of arguments I... comes from.
template <size_t... I, class Tuple> std::vector<int> arg_of_leaves(const Tuple &args) {
  std::vector<int> out;
  ((void)out.insert(out.end(), tree_leaves(std::get<I>(args)).size(), static_cast<int>(I)), ...);
  return out;
}

template <bool HasAux, size_t... I, class F, class Tuple>
auto value_and_grad_impl(const F &f, const Tuple &args, std::string_view op) {
  static_assert(((I < std::tuple_size_v<Tuple>) && ...), "strata::grad: argnum out of range");
  using Out = plain_t<decltype(std::apply(f, args))>;
  std::vector<Array> flat = leaves_at<I...>(args);
  check_grad_inputs(flat, op, arg_of_leaves<I...>(args));
  std::optional<Out> result;
  FlatFn ff = [&](const std::vector<Array> &in) {
    Out out = std::apply(f, replace_at<I...>(args, in));
    Array v = scalar_output(out);
    check_grad_output(v, op);
    std::vector<Array> outs{v};
    if constexpr (HasAux) {
      std::vector<Array> aux = tree_leaves(out.second);
      outs.insert(outs.end(), aux.begin(), aux.end());
    }
    result.emplace(out);
    return outs;
  };
  VjpResult r = vjp_flat(ff, flat, std::string(op), /*reusable=*/false);
  std::vector<Array> cts(r.outputs.size());
  cts[0] = ones_like(r.outputs[0]);
  for (size_t i = 1; i < cts.size(); ++i)
    cts[i] = zeros_like(r.outputs[i]);
  std::vector<Array> g = r.pullback(cts);
  auto grads = grads_like<I...>(args, g);
  if constexpr (HasAux) {
    std::vector<Array> aux_leaves(r.outputs.begin() + 1, r.outputs.end());
    auto aux = tree_unflatten(result->second, aux_leaves);
    return std::make_pair(std::make_pair(r.outputs[0], aux), grads);
  } else {
    return std::make_pair(r.outputs[0], grads);
  }
}

template <size_t... I> struct ArgnumsOr0 {
  template <bool HasAux, class F, class Tuple>
  static auto run(const F &f, const Tuple &args, std::string_view op) {
    if constexpr (sizeof...(I) == 0)
      return value_and_grad_impl<HasAux, 0>(f, args, op);
    else
      return value_and_grad_impl<HasAux, I...>(f, args, op);
  }
};
} // namespace detail

/// value_and_grad<I...>(f)(args...) -> (f(args...), gradient). The gradient is with respect to
/// arguments I... (default: the first), each a pytree of float arrays; it has the argument's
/// type for one argnum and is a std::tuple for several. f must return a float scalar.
template <size_t... I, class F> auto value_and_grad(F f) {
  return [f](const auto &...args) {
    return detail::ArgnumsOr0<I...>::template run<false>(f, std::make_tuple(args...),
                                                         "value_and_grad");
  };
}
/// grad<I...>(f)(args...) -> the gradient of value_and_grad.
template <size_t... I, class F> auto grad(F f) {
  return [f](const auto &...args) {
    return detail::ArgnumsOr0<I...>::template run<false>(f, std::make_tuple(args...), "grad")
        .second;
  };
}
/// For f returning std::pair(scalar, aux): ((value, aux), gradient).
template <size_t... I, class F> auto value_and_grad_with_aux(F f) {
  return [f](const auto &...args) {
    return detail::ArgnumsOr0<I...>::template run<true>(f, std::make_tuple(args...),
                                                        "value_and_grad");
  };
}
/// For f returning std::pair(scalar, aux): (gradient, aux).
template <size_t... I, class F> auto grad_with_aux(F f) {
  return [f](const auto &...args) {
    auto r = detail::ArgnumsOr0<I...>::template run<true>(f, std::make_tuple(args...), "grad");
    return std::make_pair(r.second, r.first.second);
  };
}

/// vjp(f, args...) -> (f(args...), pullback) where pullback(output cotangent) returns the
/// cotangents of all arguments (one argument: its type; several: a std::tuple).
template <class F, class... Args> auto vjp(F f, const Args &...args) {
  auto targs = std::make_tuple(args...);
  using Out = detail::plain_t<decltype(f(args...))>;
  auto [ff, like] = detail::flat_of(f, targs);
  VjpResult r = vjp_flat(ff, detail::leaves_all(targs), "vjp");
  Out out = tree_unflatten(**like, r.outputs);
  auto pullback = [r, targs, out](const Out &ct) {
    std::vector<Array> g = r.pullback(tree_leaves(ct));
    auto rebuilt = detail::replace_at_all(targs, g);
    if constexpr (sizeof...(Args) == 1)
      return std::get<0>(rebuilt);
    else
      return rebuilt;
  };
  return std::make_pair(out, pullback);
}

/// jvp(f, primals, tangents) with primals and tangents as std::tuples of the arguments ->
/// (f(primals...), the directional derivative), both shaped like f's output.
template <class F, class... P>
auto jvp(F f, const std::tuple<P...> &primals, const std::tuple<P...> &tangents) {
  auto [ff, like] = detail::flat_of(f, primals);
  auto [p, t] = jvp_flat(ff, detail::leaves_all(primals), detail::leaves_all(tangents));
  return std::make_pair(tree_unflatten(**like, p), tree_unflatten(**like, t));
}

/// linearize(f, x...) -> (f(x...), a function of tangents giving the jvp at x). The linear
/// function re-evaluates the jvp at the saved point on each call.
template <class F, class... P> auto linearize(F f, const P &...primals) {
  auto point = std::make_tuple(primals...);
  auto y = std::apply(f, point);
  auto lin = [f, point](const P &...tangents) {
    return jvp(f, point, std::make_tuple(tangents...)).second;
  };
  return std::make_pair(y, lin);
}

/// vmap(f, in_axes, out_axes)(args...): f mapped over axis in_axes[i] of every leaf of
/// argument i (kNotBatched: broadcast to every example), outputs stacked at out_axes (a single
/// value applies to every output leaf). in_axes empty: 0 for every argument.
template <class F>
auto vmap(F f, std::vector<int64_t> in_axes = {}, std::vector<int64_t> out_axes = {}) {
  return [f, in_axes, out_axes](const auto &...args) {
    auto targs = std::make_tuple(args...);
    std::vector<int64_t> axes =
        in_axes.empty() ? std::vector<int64_t>(sizeof...(args), 0) : in_axes;
    if (axes.size() != sizeof...(args))
      fail("vmap", "in_axes has ", axes.size(), " entries for ", sizeof...(args), " arguments");
    std::vector<int64_t> leaf_axes;
    std::vector<int> arg_of_leaf;
    int k = 0;
    std::apply(
        [&](const auto &...a) {
          (
              (void)[&] {
                size_t n = tree_leaves(a).size();
                leaf_axes.insert(leaf_axes.end(), n, axes[k]);
                arg_of_leaf.insert(arg_of_leaf.end(), n, k++);
              }(),
              ...);
        },
        targs);
    auto [ff, like] = detail::flat_of(f, targs);
    std::vector<int64_t> oaxes = out_axes;
    std::vector<Array> outs;
    if (oaxes.size() == 1) {
      // One out_axis for every output leaf: known only after tracing, so expand lazily.
      outs = vmap_flat(ff, detail::leaves_all(targs), leaf_axes, {}, arg_of_leaf);
      for (Array &o : outs)
        o = moveaxis(o, 0, static_cast<int>(oaxes[0]));
    } else {
      outs = vmap_flat(ff, detail::leaves_all(targs), leaf_axes, oaxes, arg_of_leaf);
    }
    return tree_unflatten(**like, outs);
  };
}

/// The Jacobian of f: Array -> Array, shaped out.shape + in.shape, by forward mode.
template <class F> auto jacfwd(F f) {
  return [f](const Array &x) -> Array {
    int64_t n = x.size();
    Array basis = reshape(eye(n, std::nullopt, 0, x.dtype()), detail::concat_shape({n}, x.shape()));
    Array cols = vmap([&](const Array &t) {
      return jvp(f, std::make_tuple(x), std::make_tuple(t)).second;
    })(basis); // [n, out...]
    Shape out(cols.shape().begin() + 1, cols.shape().end());
    return reshape(moveaxis(cols, 0, -1), detail::concat_shape(out, x.shape()));
  };
}

/// The Jacobian of f: Array -> Array, shaped out.shape + in.shape, by reverse mode.
template <class F> auto jacrev(F f) {
  return [f](const Array &x) -> Array {
    auto [y, pullback] = vjp(f, x);
    int64_t m = y.size();
    Array basis = reshape(eye(m, std::nullopt, 0, y.dtype()), detail::concat_shape({m}, y.shape()));
    Array rows = vmap([&](const Array &ct) { return pullback(ct); })(basis); // [m, in...]
    return reshape(rows, detail::concat_shape(y.shape(), x.shape()));
  };
}

/// The Hessian of a scalar f: Array -> Array, as jacfwd(jacrev(f)).
template <class F> auto hessian(F f) { return jacfwd(jacrev(f)); }

/// Shapes and dtypes of f's output leaves for arguments given as Arrays (only their types are
/// used) without computing anything.
template <class F, class... Args> std::vector<AbstractValue> eval_shape(F f, const Args &...args) {
  auto targs = std::make_tuple(args...);
  std::vector<AbstractValue> in;
  for (const Array &a : detail::leaves_all(targs))
    in.push_back(abstract_of(a));
  FlatFn ff = [&](const std::vector<Array> &leaves) {
    return tree_leaves(std::apply(f, detail::replace_at_all(targs, leaves)));
  };
  return eval_shape_flat(ff, in);
}

/// checkpoint(f, policy): same values as f; under grad only f's inputs (and what the policy
/// saves) are kept and f is recomputed in the backward pass. f's differentiable inputs must be
/// its arguments (not captures).
template <class F> auto checkpoint(F f, CheckpointPolicy policy = {}) {
  return [f, policy](const auto &...args) {
    auto targs = std::make_tuple(args...);
    // The replay in the backward pass outlives this call: ff owns everything it uses.
    auto [ff, like] = detail::flat_of(f, targs);
    std::vector<Array> outs = checkpoint_flat(ff, policy)(detail::leaves_all(targs));
    return tree_unflatten(**like, outs);
  };
}

// ---- Custom derivatives and stop_gradient -------------------------------------------------------

namespace detail {
// How many leaves every value of T has, when the type alone decides it (Array, and tuples,
// pairs and std::arrays of such); 0 when the value decides it (vectors, maps).
template <class T> struct StaticLeaves : std::integral_constant<size_t, 0> {};
template <> struct StaticLeaves<Array> : std::integral_constant<size_t, 1> {};
template <class... Ts>
struct StaticLeaves<std::tuple<Ts...>>
    : std::integral_constant<size_t, ((StaticLeaves<Ts>::value > 0) && ...)
                                         ? (StaticLeaves<Ts>::value + ... + 0)
                                         : 0> {};
template <class A, class B>
struct StaticLeaves<std::pair<A, B>> : StaticLeaves<std::tuple<A, B>> {};
template <class T, size_t N>
struct StaticLeaves<std::array<T, N>> : std::integral_constant<size_t, StaticLeaves<T>::value * N> {
};

// The number of output leaves of ff (which returns the leaves of an Out) at `in`: from the type
// when it can, else by tracing ff abstractly (shapes only, nothing is computed).
template <class Out> size_t output_leaf_count(const FlatFn &ff, const std::vector<Array> &in) {
  if constexpr (StaticLeaves<Out>::value > 0) {
    return StaticLeaves<Out>::value;
  } else {
    std::vector<AbstractValue> avals;
    for (const Array &a : in)
      avals.push_back(abstract_of(a));
    return eval_shape_flat(ff, avals).size();
  }
}
} // namespace detail

/// custom_jvp(f, rule): a function with f's signature and values whose derivatives come from
/// `rule` instead of from differentiating f (jax.custom_jvp). rule(primals, tangents) takes two
/// std::tuples of f's arguments (tangents shaped like the primals; zeros for arguments that
/// have none) and returns the output tangents, a pytree shaped like f's output.
///
/// jvp calls the rule. grad and vjp use its transpose, so the rule must be linear in the
/// tangents; higher derivatives differentiate the rule itself, so write it with strata ops.
/// vmap batches f and the rule together. The returned function may be called with tracers.
template <class F, class Rule> auto custom_jvp(F f, Rule rule) {
  return [f, rule](const auto &...args) {
    auto targs = std::make_tuple(args...);
    // grad replays the rule in its backward pass, after this call has returned: the closures
    // own what they use.
    auto [ff, like] = detail::flat_of(f, targs);
    auto flat_rule = [rule, targs](const std::vector<Array> &p, const std::vector<Array> &t) {
      return tree_leaves(rule(detail::replace_at_all(targs, p), detail::replace_at_all(targs, t)));
    };
    std::vector<Array> outs = custom_jvp_flat(ff, flat_rule)(detail::leaves_all(targs));
    return tree_unflatten(**like, outs);
  };
}

/// custom_vjp(f, fwd, bwd): a function with f's signature and values whose reverse-mode
/// derivative comes from `bwd` (jax.custom_vjp). fwd(args...) returns std::pair(f(args...),
/// residuals), residuals being any pytree; bwd(residuals, output cotangent) returns the
/// cotangents of the arguments: a std::tuple with one pytree shaped like each argument (for a
/// one-argument f, that cotangent alone also does). Integer arguments' cotangents are ignored.
///
/// grad and vjp run fwd, then bwd on the backward pass; grad of grad differentiates fwd and bwd,
/// so write them with strata ops. vmap batches f, fwd and bwd together. Unlike JAX, which
/// refuses, forward mode (jvp, jacfwd, linearize) uses the rule too: bwd is linear in the
/// cotangent, and the output tangents are its transpose applied to the input tangents.
/// When f's output has a variable number of leaves (vectors, maps) f is traced once abstractly
/// per call to count them.
template <class F, class Fwd, class Bwd> auto custom_vjp(F f, Fwd fwd, Bwd bwd) {
  return [f, fwd, bwd](const auto &...args) {
    auto targs = std::make_tuple(args...);
    using Out = detail::plain_t<decltype(f(args...))>;
    using FwdOut = detail::plain_t<decltype(fwd(args...))>;
    static_assert(std::is_same_v<detail::plain_t<typename FwdOut::first_type>, Out>,
                  "strata::custom_vjp: fwd must return std::pair(f's output, residuals)");
    using Res = detail::plain_t<typename FwdOut::second_type>;
    // bwd runs in the backward pass, after this call has returned: the closures own their data.
    auto out_like = std::make_shared<std::optional<Out>>();
    auto res_like = std::make_shared<std::optional<Res>>();
    FlatFn ff = [f, targs, out_like](const std::vector<Array> &in) {
      Out out = std::apply(f, detail::replace_at_all(targs, in));
      if (!*out_like)
        out_like->emplace(out);
      return tree_leaves(out);
    };
    FlatFn flat_fwd = [fwd, targs, out_like, res_like](const std::vector<Array> &in) {
      FwdOut r = std::apply(fwd, detail::replace_at_all(targs, in));
      if (!*out_like)
        out_like->emplace(r.first);
      if (!*res_like)
        res_like->emplace(r.second);
      return tree_leaves(r); // f's output leaves, then the residuals'
    };
    auto flat_bwd = [bwd, out_like, res_like](const std::vector<Array> &res,
                                              const std::vector<Array> &cts) {
      return tree_leaves(bwd(tree_unflatten(**res_like, res), tree_unflatten(**out_like, cts)));
    };
    std::vector<Array> in = detail::leaves_all(targs);
    size_t num_outputs = detail::output_leaf_count<Out>(ff, in);
    std::vector<Array> outs = custom_vjp_flat(ff, flat_fwd, num_outputs, flat_bwd)(in);
    return tree_unflatten(**out_like, outs);
  };
}

/// stop_gradient(x): x unchanged, each leaf of the pytree treated as a constant by every
/// derivative transform (lax::stop_gradient on each leaf).
template <class T> T stop_gradient(const T &x) {
  return tree_map([](const Array &leaf) { return lax::stop_gradient(leaf); }, x);
}

} // namespace strata
