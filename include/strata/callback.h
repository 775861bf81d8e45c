// Host callbacks: functions of concrete arrays called from eager, traced and compiled code
// (jax.debug.callback, jax.pure_callback) through the `host_callback` primitive.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "strata/primitive.h"

namespace strata {

/// A function of concrete arrays to concrete arrays, run on the host.
using HostFn = std::function<std::vector<Array>(const std::vector<Array> &)>;

/// How vmap applies a pure callback (jax.pure_callback's vmap_method). None refuses vmap.
enum class VmapMethod { None, Sequential, ExpandDims, BroadcastAll };

/// A registered callback. A debug callback has no results: it is an effect only (never
/// differentiated, so jvp and grad run it on the primal values) and vmap calls it once per
/// batch element, in order. A pure callback returns arrays of `results`, and is not
/// differentiable (wrap it in custom_jvp or custom_vjp).
struct HostCallback {
  HostFn fn;
  std::vector<AbstractValue> results;
  bool debug = false;
  VmapMethod vmap_method = VmapMethod::None;
  /// For errors: "debug_callback" or "pure_callback".
  std::string name = "pure_callback";
};

/// Registers `cb` for the life of the process and returns its id, the `callback_id` of the
/// primitive (and of the strata.host_callback op that compiled code calls it through).
STRATA_EXPORT int64_t register_host_callback(HostCallback cb);
/// The callback registered under `id`; throws for an unknown id.
STRATA_EXPORT const HostCallback &host_callback_at(int64_t id);
/// Runs callback `id` on concrete arrays, checking its results against the registered avals.
STRATA_EXPORT std::vector<Array> run_host_callback(int64_t id, const std::vector<Array> &args);

/// Binds the host_callback primitive of callback `id` to `args` (arrays or tracers).
STRATA_EXPORT std::vector<Array> host_callback(int64_t id, const std::vector<Array> &args);
/// jax.debug.callback: calls fn(args) for its effect, with the runtime values, wherever the
/// computation runs (eagerly, or each time a compiled function is called).
STRATA_EXPORT void debug_callback(HostFn fn, const std::vector<Array> &args);
/// jax.pure_callback: fn(args) as arrays of the avals `results`, computed on the host.
STRATA_EXPORT std::vector<Array> pure_callback(HostFn fn, std::vector<AbstractValue> results,
                                               const std::vector<Array> &args,
                                               VmapMethod vmap_method = VmapMethod::None);

} // namespace strata
