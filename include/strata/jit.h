// jit: stages a function into the strata MLIR dialect, compiles it for the CPU through LLVM,
// and caches the executable by signature. Composes with every transform, in both orders.
// Link Strata::jit (libstrata_jit); this header stays free of MLIR.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "strata/transforms.h"

namespace strata {

struct JitOptions {
  /// Positions of arguments whose values (not only shapes and dtypes) key the cache: they are
  /// constants in the compiled code. Arguments that are not arrays (numbers, strings, enums)
  /// are always static.
  std::vector<int> static_argnums;
  /// Names the function in dumps, errors and counters.
  std::string name = "jit_fn";
  /// Where it runs; by default the device its array arguments live on (a GPU if any argument
  /// is on one: host arguments are copied there), else the host.
  std::optional<Device> device;
  /// For lower() only: compile the GPU path for this chip ("sm_90", "sm_120", ...) without a
  /// device, to inspect the kernels' NVVM and PTX on any machine.
  std::string chip;
};

/// Counters of one jitted function (or, from jit_cache_stats, of all of them).
struct JitStats {
  int64_t hits = 0;
  int64_t misses = 0;
  /// Calls that ran op by op because the function used a value traced outside it.
  int64_t inline_calls = 0;
  double compile_seconds = 0;
  /// Executables held in the cache (for jit_cache_stats: all functions; per function: its own
  /// and those of its compiled transforms, whose counters the other fields include too).
  int64_t entries = 0;
  int64_t evictions = 0;
};

/// A function traced for one call: the dynamic leaves in, the outputs' leaves out; `aux` keeps
/// whatever the caller needs to rebuild structured outputs (kept with the cached executable).
using TraceFn =
    std::function<std::vector<Array>(const std::vector<Array> &, std::shared_ptr<void> &aux)>;

/// The text of each compilation stage for given arguments: "strata" (as staged), "optimized",
/// "linalg", "bufferized", "llvm" (the LLVM dialect) and "llvm-ir" on the CPU; "strata",
/// "optimized", "linalg", "bufferized", "gpu" (outlined kernels), "nvvm", "ptx", "host" and
/// "llvm-ir" for a GPU (JitOptions::chip or a device).
class STRATA_EXPORT Lowered {
public:
  /// The text of `stage`; throws listing the stages when there is no such stage.
  const std::string &as_text(const std::string &stage) const;
  std::vector<std::string> stages() const;
  std::vector<std::pair<std::string, std::string>> texts;
};

/// The flat core of jit: a cache of compiled executables for one function.
class STRATA_EXPORT JitFunction {
public:
  explicit JitFunction(JitOptions options = {});
  ~JitFunction();
  /// Runs the function for dynamic inputs `args`: from the cache when this (signature,
  /// static_key) was compiled before, else traces with `trace`, compiles and caches. Under
  /// another transform (a tracer among args, or inside another jit) it binds the jit_call
  /// primitive there: another jit traces through it, and vmap, jvp and grad compile their
  /// transform of the function. Returns the outputs and the `aux` the trace produced.
  std::pair<std::vector<Array>, std::shared_ptr<void>>
  call(const TraceFn &trace, const std::vector<Array> &args, const std::string &static_key);
  /// Stages and lowers without running; the texts of every stage.
  Lowered lower(const TraceFn &trace, const std::vector<Array> &args,
                const std::string &static_key);
  JitStats stats() const;
  /// Why the most recent call missed the cache ("first call", "argument 1: f32[3] -> f32[4]",
  /// "static arguments changed", ...), or "" when it hit.
  std::string explain() const;
  const JitOptions &options() const;

  struct Impl;

private:
  std::shared_ptr<Impl> impl_;
};

/// Counters over every jitted function and the cache's capacity.
STRATA_EXPORT JitStats jit_cache_stats();
/// Bounds the executable cache (least recently used executables are dropped); default 512,
/// or STRATA_JIT_CACHE_SIZE.
STRATA_EXPORT void set_jit_cache_capacity(size_t capacity);
STRATA_EXPORT void clear_jit_cache();

namespace detail {
template <class T, class = void> struct is_pytree : std::false_type {};
template <> struct is_pytree<Array> : std::true_type {};
template <class T> struct is_pytree<std::vector<T>> : is_pytree<T> {};
template <class T, size_t N> struct is_pytree<std::array<T, N>> : is_pytree<T> {};
template <class T> struct is_pytree<std::map<std::string, T>> : is_pytree<T> {};
template <class... Ts>
struct is_pytree<std::tuple<Ts...>> : std::bool_constant<(is_pytree<Ts>::value && ...)> {};
template <class A, class B>
struct is_pytree<std::pair<A, B>> : std::bool_constant<is_pytree<A>::value && is_pytree<B>::value> {
};

/// The cache-key text of a static argument: its value, exactly.
STRATA_EXPORT void append_static_arrays(std::string &key, const std::vector<Array> &leaves);
template <class T> void append_static(std::string &key, const T &x) {
  if constexpr (is_pytree<T>::value) {
    append_static_arrays(key, tree_leaves(x));
  } else {
    static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T> ||
                      std::is_convertible_v<T, std::string>,
                  "strata::jit: a non-array argument must be a number, enum or string (static "
                  "arguments key the cache by value)");
    std::ostringstream os;
    if constexpr (std::is_enum_v<T>)
      os << static_cast<std::underlying_type_t<T>>(x);
    else if constexpr (std::is_floating_point_v<T>)
      os << std::hexfloat << x;
    else
      os << x;
    key += typeid(T).name();
    key += ':';
    key += os.str();
  }
  key += '\x1f';
}
} // namespace detail

/// A jitted function: call it like the original. Array arguments (and pytrees of them) are
/// dynamic unless named in static_argnums; other arguments are static.
template <class F> class Jitted {
public:
  Jitted(F f, JitOptions options)
      : f_(std::make_shared<F>(std::move(f))),
        fn_(std::make_shared<JitFunction>(std::move(options))) {}

  template <class... Args> auto operator()(const Args &...args) const {
    using Out = std::decay_t<std::invoke_result_t<const F &, const Args &...>>;
    auto [leaves, key, trace] = prepare(args...);
    auto [outs, aux] = fn_->call(trace, leaves, key);
    const Array *it = outs.data();
    return Tree<Out>::unflatten(*static_cast<const Out *>(aux.get()), it);
  }
  /// The text of every compilation stage for these arguments (nothing runs).
  template <class... Args> Lowered lower(const Args &...args) const {
    auto [leaves, key, trace] = prepare(args...);
    return fn_->lower(trace, leaves, key);
  }
  JitStats stats() const { return fn_->stats(); }
  std::string explain() const { return fn_->explain(); }

private:
  template <class... Args> auto prepare(const Args &...args) const {
    using Out = std::decay_t<std::invoke_result_t<const F &, const Args &...>>;
    std::vector<Array> leaves;
    std::string key;
    std::array<bool, sizeof...(Args)> dynamic{};
    const auto &statics = fn_->options().static_argnums;
    size_t i = 0;
    (
        [&](const auto &a) {
          using T = std::decay_t<decltype(a)>;
          bool is_static =
              !is_pytree_v<T> || std::find(statics.begin(), statics.end(), int(i)) != statics.end();
          dynamic[i++] = !is_static;
          if (is_static)
            detail::append_static(key, a);
          else if constexpr (is_pytree_v<T>)
            Tree<T>::flatten(a, leaves);
        }(args),
        ...);
    TraceFn trace = [f = f_, dynamic, held = std::make_tuple(args...)](const std::vector<Array> &in,
                                                                       std::shared_ptr<void> &aux) {
      auto rebuilt = held;
      const Array *it = in.data();
      size_t j = 0;
      std::apply(
          [&](auto &...a) {
            (
                [&](auto &x) {
                  using T = std::decay_t<decltype(x)>;
                  if constexpr (is_pytree_v<T>)
                    if (dynamic[j])
                      x = Tree<T>::unflatten(x, it);
                  ++j;
                }(a),
                ...);
          },
          rebuilt);
      Out out = std::apply(*f, rebuilt);
      std::vector<Array> flat = tree_leaves(out);
      // Keep only the structure: the leaves are this trace's tracers.
      std::vector<Array> blanks(flat.size());
      const Array *b = blanks.data();
      aux = std::make_shared<Out>(Tree<Out>::unflatten(out, b));
      return flat;
    };
    return std::make_tuple(std::move(leaves), std::move(key), std::move(trace));
  }
  template <class T> static constexpr bool is_pytree_v = detail::is_pytree<T>::value;

  std::shared_ptr<F> f_;
  std::shared_ptr<JitFunction> fn_;
};

/// jit(f): f compiled once per signature (shapes, dtypes, weak types, static values).
template <class F> Jitted<F> jit(F f, JitOptions options = {}) {
  return Jitted<F>(std::move(f), std::move(options));
}

/// The texts of every compilation stage of f for these arguments: lower(f, x).as_text("llvm").
template <class F, class... Args> Lowered lower(F f, const Args &...args) {
  return jit(std::move(f)).lower(args...);
}

} // namespace strata
