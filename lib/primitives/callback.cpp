// host_callback: a call of a registered host function (debug_callback, pure_callback) with its
// rules, and the registry that compiled code reaches callbacks through by id.
#include <deque>
#include <memory>
#include <mutex>

#include "primitives/elementwise_impl.h"
#include "primitives/rules_impl.h"
#include "strata/callback.h"
#include "strata/internal/trace.h"
#include "strata/lax.h"
#include "strata/ops.h"

namespace strata {
namespace {

// ---- The registry -------------------------------------------------------------------------------
//
// Ids index a deque of never-freed entries: a compiled executable keeps calling the ids its IR
// names for as long as it lives, and an entry's address stays valid while others are added.

struct Registry {
  std::mutex mutex;
  std::deque<std::unique_ptr<const HostCallback>> entries;
};
Registry &registry() {
  static Registry *r = new Registry(); // never destroyed: compiled code may call in at exit
  return *r;
}

void check_results(const HostCallback &cb, const std::vector<Array> &outs) {
  if (outs.size() != cb.results.size())
    fail(cb.name, "the callback returned ", outs.size(), " arrays, expected ", cb.results.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    const AbstractValue &want = cb.results[i];
    if (!outs[i].valid() || outs[i].shape() != want.shape || outs[i].dtype() != want.dtype)
      fail_kind(ErrorKind::Type, cb.name, "the callback returned ",
                outs[i].valid() ? outs[i].type_str() : std::string("nothing"), " for result ", i,
                ", expected ", want.str());
  }
}

std::vector<Array> run(const HostCallback &cb, const std::vector<Array> &args) {
  std::vector<Array> outs = cb.fn(args);
  check_results(cb, outs);
  return outs;
}

// Element i of x along axis 0.
Array element(const Array &x, int64_t i) {
  std::vector<int64_t> start(x.ndim(), 0), limit(x.shape().begin(), x.shape().end());
  start[0] = i;
  limit[0] = i + 1;
  Shape rest(x.shape().begin() + 1, x.shape().end());
  return lax::reshape(lax::slice(x, start, limit), rest);
}

// The callback that vmap binds for callback `id` on arguments batched at axis 0 where
// `batched` says so (the others shared by every element).
HostCallback batched_callback(int64_t id, const std::vector<bool> &batched, int64_t size) {
  const HostCallback &cb = host_callback_at(id);
  HostCallback b = cb;
  for (AbstractValue &r : b.results)
    r.shape.insert(r.shape.begin(), size);
  VmapMethod method = cb.debug ? VmapMethod::Sequential : cb.vmap_method;
  if (method == VmapMethod::None)
    fail(cb.name, "cannot be batched by vmap with vmap_method=None: pass vmap_method="
                  "'sequential', 'expand_dims' or 'broadcast_all'");
  if (method != VmapMethod::Sequential)
    return b; // one call on the whole batch: the callback returns batched results itself
  // One call per batch element, in order, and the results stacked (JAX's rule for debug
  // callbacks and vmap_method='sequential').
  b.fn = [id, batched, size, results = b.results](const std::vector<Array> &args) {
    std::vector<std::vector<Array>> per(results.size());
    for (int64_t i = 0; i < size; ++i) {
      std::vector<Array> slice;
      for (size_t k = 0; k < args.size(); ++k)
        slice.push_back(batched[k] ? element(args[k], i) : args[k]);
      std::vector<Array> outs = run_host_callback(id, slice);
      for (size_t r = 0; r < outs.size(); ++r)
        per[r].push_back(outs[r]);
    }
    std::vector<Array> stacked;
    for (size_t r = 0; r < results.size(); ++r)
      stacked.push_back(size == 0 ? zeros(results[r].shape, results[r].dtype) : stack(per[r], 0));
    return stacked;
  };
  return b;
}

// Throws for a pure callback, whose derivative is unknown (JAX's ValueError).
void check_differentiable(const Params &params, const char *rule, const char *wrapper) {
  const HostCallback &cb = host_callback_at(params.get_int("callback_id"));
  if (!cb.results.empty())
    fail(cb.name, "pure callbacks do not support ", rule, "; use strata.", wrapper,
         " to differentiate a function that calls one");
}

const Primitive &host_callback_p = register_primitive({
    .name = "host_callback",
    .traits = kSideEffect,
    .shape_rule =
        [](std::span<const AbstractValue>, const Params &params) {
          return host_callback_at(params.get_int("callback_id")).results;
        },
    .impl =
        [](std::span<const Array> in, const Params &params, std::span<const AbstractValue>) {
          return run_host_callback(params.get_int("callback_id"),
                                   std::vector<Array>(in.begin(), in.end()));
        },
    // A debug callback has no results, so no tangents: jvp and grad run it on the primals (the
    // level binds it one level down). A pure callback's derivative is unknown.
    .jvp =
        [](std::span<const Array>, std::span<const Array>, std::span<const Array> outs,
           const Params &params) {
          check_differentiable(params, "jvp", "custom_jvp");
          return std::vector<Array>(outs.size());
        },
    .vjp =
        [](std::span<const Array> primals, std::span<const Array>, std::span<const Array>,
           const std::vector<bool> &, const Params &params) {
          check_differentiable(params, "transpose", "custom_vjp");
          return std::vector<Array>(primals.size());
        },
    .batch =
        [](const BatchContext &ctx, std::span<const Array> vals, std::span<const int64_t> dims,
           const Params &params, std::vector<int64_t> &out_dims) {
          int64_t id = params.get_int("callback_id");
          std::vector<bool> batched;
          for (int64_t d : dims)
            batched.push_back(d != kNotBatched);
          HostCallback b = batched_callback(id, batched, ctx.axis_size);
          VmapMethod method = b.debug ? VmapMethod::Sequential : b.vmap_method;
          std::vector<Array> args;
          for (size_t i = 0; i < vals.size(); ++i) {
            Array x = batched[i] ? rules::move_axis(vals[i], dims[i], 0) : vals[i];
            if (!batched[i] && method == VmapMethod::ExpandDims) {
              Shape s = x.shape();
              s.insert(s.begin(), 1);
              x = lax::reshape(x, s);
            } else if (!batched[i] && method == VmapMethod::BroadcastAll) {
              x = rules::batch_to_front(x, kNotBatched, ctx.axis_size);
            }
            args.push_back(x);
          }
          std::vector<Array> outs = host_callback(register_host_callback(std::move(b)), args);
          out_dims.assign(outs.size(), 0);
          return outs;
        },
});

} // namespace

int64_t register_host_callback(HostCallback cb) {
  if (!cb.fn)
    fail(cb.name, "the callback is empty");
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.entries.push_back(std::make_unique<const HostCallback>(std::move(cb)));
  return static_cast<int64_t>(r.entries.size()) - 1;
}

const HostCallback &host_callback_at(int64_t id) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (id < 0 || id >= static_cast<int64_t>(r.entries.size()))
    fail("host_callback", "no callback is registered under id ", id);
  return *r.entries[static_cast<size_t>(id)];
}

std::vector<Array> run_host_callback(int64_t id, const std::vector<Array> &args) {
  return run(host_callback_at(id), args);
}

std::vector<Array> host_callback(int64_t id, const std::vector<Array> &args) {
  return strata::bind(host_callback_p, args, Params{{"callback_id", id}});
}

// With nothing to trace (concrete arguments, no jit staging) the callback runs at once and is
// not registered: an eager loop does not grow the registry.
void debug_callback(HostFn fn, const std::vector<Array> &args) {
  HostCallback cb;
  cb.fn = [fn = std::move(fn)](const std::vector<Array> &in) {
    fn(in);
    return std::vector<Array>{};
  };
  cb.debug = true;
  cb.vmap_method = VmapMethod::Sequential;
  cb.name = "debug_callback";
  if (!top_level(args, cb.name)) {
    run(cb, args);
    return;
  }
  host_callback(register_host_callback(std::move(cb)), args);
}

std::vector<Array> pure_callback(HostFn fn, std::vector<AbstractValue> results,
                                 const std::vector<Array> &args, VmapMethod vmap_method) {
  HostCallback cb;
  cb.fn = std::move(fn);
  cb.results = std::move(results);
  cb.vmap_method = vmap_method;
  cb.name = "pure_callback";
  if (!top_level(args, cb.name))
    return run(cb, args);
  return host_callback(register_host_callback(std::move(cb)), args);
}

} // namespace strata
