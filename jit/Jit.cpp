// jit's front end: the executable cache (keyed by signature, bounded LRU, counters, miss
// explanations), IR dumps, and the compiler hooks of the jit_call primitive, through which a
// jitted function under another transform (and its jitted transforms) compiles and runs.
#include "strata/jit.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <list>
#include <mutex>
#include <new>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "jit/Context.h"
#include "jit/CpuExecutable.h"
#include "jit/DiskCache.h"
#include "jit/GpuExecutable.h"
#include "jit/Staging.h"
#include "jit/Timing.h"
#include "strata/allocation_error.h"
#include "strata/device.h"
#include "strata/error.h"
#include "strata/internal/blocking.h"
#include "strata/internal/buffer.h"
#include "strata/internal/trace.h"

namespace strata {
namespace {

struct CacheKey {
  uint64_t fn_id;
  std::string static_key;
  std::vector<AbstractValue> signature;
  /// Where it runs: the device of the inputs (or JitOptions::device).
  Device device;
  size_t hash = 0;
  bool operator==(const CacheKey &o) const {
    return fn_id == o.fn_id && hash == o.hash && device == o.device && static_key == o.static_key &&
           signature == o.signature;
  }
};

/// Where a call runs: `forced` when set, else where its arguments live (common_device).
Device placement(const std::string &name, const std::optional<Device> &forced,
                 const std::vector<Array> &args) {
  return forced ? *forced : common_device(name, args);
}

struct KeyHash {
  size_t operator()(const CacheKey &k) const { return k.hash; }
};

size_t mix(size_t h, size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

CacheKey make_key(uint64_t fn_id, const std::string &static_key, const std::vector<Array> &args,
                  Device device) {
  // The trace depends on 64-bit mode (default dtypes, weak scalars), as JAX's cache key does.
  CacheKey k{fn_id, x64_enabled() ? static_key + "\x1fx64" : static_key, {}, device, 0};
  k.signature.reserve(args.size());
  size_t h = mix(std::hash<std::string>()(k.static_key), fn_id);
  for (const Array &a : args) {
    k.signature.push_back(abstract_of(a));
    h = mix(h, static_cast<size_t>(a.dtype()) * 2 + a.weak_type());
    for (int64_t d : a.shape())
      h = mix(h, static_cast<size_t>(d));
    h = mix(h, a.shape().size());
  }
  k.hash = mix(h, static_cast<size_t>(device.kind) * 1024 + static_cast<size_t>(device.index));
  return k;
}

struct Entry {
  std::shared_ptr<rt::Executable> exe;
  std::shared_ptr<void> aux;
  /// The function closed over a value traced outside it: it runs op by op.
  bool inline_only = false;
};

/// The executable cache shared by every jitted function: a bounded LRU map.
class Cache {
public:
  std::shared_ptr<Entry> find(const CacheKey &k) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(k);
    if (it == map_.end())
      return nullptr;
    lru_.splice(lru_.begin(), lru_, it->second.second);
    return it->second.first;
  }
  void insert(const CacheKey &k, std::shared_ptr<Entry> e) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(k);
    if (it != map_.end()) {
      it->second.first = std::move(e);
      return;
    }
    lru_.push_front(k);
    map_.emplace(k, std::make_pair(std::move(e), lru_.begin()));
    evict_locked();
  }
  void set_capacity(size_t c) {
    std::lock_guard<std::mutex> lock(mu_);
    capacity_ = std::max<size_t>(c, 1);
    evict_locked();
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mu_);
    map_.clear();
    lru_.clear();
  }
  size_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return map_.size();
  }
  size_t capacity() {
    std::lock_guard<std::mutex> lock(mu_);
    return capacity_;
  }
  int64_t count_for(uint64_t fn_id) {
    std::lock_guard<std::mutex> lock(mu_);
    int64_t n = 0;
    for (const CacheKey &k : lru_)
      n += k.fn_id == fn_id;
    return n;
  }
  std::atomic<int64_t> evictions{0};

private:
  void evict_locked() {
    while (map_.size() > capacity_) {
      map_.erase(lru_.back());
      lru_.pop_back();
      ++evictions;
    }
  }
  std::mutex mu_;
  std::list<CacheKey> lru_;
  std::unordered_map<CacheKey, std::pair<std::shared_ptr<Entry>, std::list<CacheKey>::iterator>,
                     KeyHash>
      map_;
  size_t capacity_ = [] {
    const char *env = std::getenv("STRATA_JIT_CACHE_SIZE");
    long v = env ? std::atol(env) : 0;
    return v > 0 ? static_cast<size_t>(v) : size_t{512};
  }();
};

Cache &cache() {
  static Cache *c = new Cache(); // outlives static destructors that may still hold jitted fns
  return *c;
}

struct GlobalCounters {
  std::atomic<int64_t> hits{0}, misses{0}, inline_calls{0};
  std::atomic<int64_t> compile_ns{0};
};
GlobalCounters &globals() {
  static GlobalCounters g;
  return g;
}

std::atomic<uint64_t> next_fn_id{1};

std::string describe_signature(const std::vector<AbstractValue> &sig) {
  std::string s = "(";
  for (size_t i = 0; i < sig.size(); ++i)
    s += (i ? ", " : "") + sig[i].str();
  return s + ")";
}

void dump_stages(const std::string &dir, const std::string &name, uint64_t n,
                 const rt::StageTexts &texts) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  int i = 0;
  for (const auto &[stage, text] : texts) {
    std::string file = detail::cat(dir, "/", name, ".", n, ".", i++, "-", stage,
                                   stage == "llvm-ir" ? ".ll" : ".mlir");
    std::ofstream(file) << text;
  }
}

} // namespace

/// Which static argument changed between two static keys: each key is a list of parts ended by
/// '\x1f', one per static argument in order ("type:value" for numbers and strings, raw bytes
/// for static arrays).
static std::string describe_static_change(const std::string &before, const std::string &now) {
  auto split = [](const std::string &key) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t i = 0; i < key.size(); ++i)
      if (key[i] == '\x1f') {
        parts.push_back(key.substr(start, i - start));
        start = i + 1;
      }
    if (start < key.size())
      parts.push_back(key.substr(start));
    return parts;
  };
  std::vector<std::string> a = split(before), b = split(now);
  if (a.size() != b.size())
    return detail::cat("the number of static arguments changed: ", a.size(), " -> ", b.size());
  auto printable = [](const std::string &p) {
    // "type:value": show the value when it is text (numbers, strings), not raw array bytes.
    size_t colon = p.find(':');
    std::string v = colon == std::string::npos ? p : p.substr(colon + 1);
    bool text = v.size() <= 64 && std::all_of(v.begin(), v.end(), [](unsigned char c) {
                  return c >= 0x20 && c < 0x7f;
                });
    return text ? v : std::string("<array value>");
  };
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i])
      return detail::cat("static argument ", i,
                         " (in order of the static arguments) changed: ", printable(a[i]), " -> ",
                         printable(b[i]));
  return "the static arguments changed";
}

namespace {
/// The targets of jit_call by id (JitHooks): every live jitted function and jitted transform.
struct Targets {
  std::mutex mu;
  std::unordered_map<int64_t, std::weak_ptr<JitFunction::Impl>> by_id;
};
Targets &targets() {
  static auto *t = new Targets();
  return *t;
}
std::shared_ptr<JitFunction::Impl> make_target();
std::shared_ptr<JitFunction::Impl> target(int64_t id) {
  Targets &t = targets();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.by_id.find(id);
  std::shared_ptr<JitFunction::Impl> im = it == t.by_id.end() ? nullptr : it->second.lock();
  if (!im)
    throw Error(detail::cat("[jit_call] no jitted function with id ", id), ErrorKind::Internal);
  return im;
}

/// The key of a call's output avals: its static key, 64-bit mode and input avals.
std::string shape_key(const std::string &static_key, std::span<const AbstractValue> in) {
  std::string k = static_key + (x64_enabled() ? "\x1fx64|" : "|");
  for (const AbstractValue &a : in)
    k += a.str() + (a.weak_type ? "w," : ",");
  return k;
}
} // namespace

struct JitFunction::Impl {
  JitOptions options;
  uint64_t id = next_fn_id++;
  std::mutex mu;
  int64_t hits = 0, misses = 0, inline_calls = 0, compiles = 0;
  double compile_seconds = 0;
  std::string last_explain;
  bool has_last = false;
  CacheKey last;
  // Every key compiled, to tell evictions from new signatures.
  std::unordered_set<CacheKey, KeyHash> compiled;
  /// The jitted transforms of this function (its vmap, jvp and backward passes), by
  /// JitHooks::derive tag: owned here so that their executables are found again next call.
  std::map<std::string, std::shared_ptr<Impl>> derived;
  /// Output avals by shape_key: jit_call's shape rule, answered without tracing once known.
  std::unordered_map<std::string, std::vector<AbstractValue>> out_avals;

  std::shared_ptr<Impl> derived_fn(const std::string &tag) {
    std::lock_guard<std::mutex> lock(mu);
    std::shared_ptr<Impl> &d = derived[tag];
    if (!d) {
      d = make_target();
      d->options.name = options.name + "." + tag;
      // Dumps and IR locations use the name: keep it a plain identifier.
      for (char &c : d->options.name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.')
          c = '_';
    }
    return d;
  }

  /// This function's counters plus those of every transform of it.
  void add_stats(JitStats &s) {
    std::vector<std::shared_ptr<Impl>> subs;
    {
      std::lock_guard<std::mutex> lock(mu);
      s.hits += hits;
      s.misses += misses;
      s.inline_calls += inline_calls;
      s.compile_seconds += compile_seconds;
      for (const auto &[tag, d] : derived)
        subs.push_back(d);
    }
    s.entries += cache().count_for(id);
    for (const auto &d : subs)
      d->add_stats(s);
  }

  std::string explain_miss(const CacheKey &k) {
    if (!has_last)
      return "first call";
    if (compiled.count(k))
      return "this signature was compiled before and evicted from the cache (capacity " +
             std::to_string(cache().capacity()) + ")";
    std::string why;
    auto add = [&](const std::string &s) { why += (why.empty() ? "" : "; ") + s; };
    if (k.signature.size() != last.signature.size())
      add(detail::cat("the number of array arguments changed: ", last.signature.size(), " -> ",
                      k.signature.size()));
    else
      for (size_t i = 0; i < k.signature.size(); ++i)
        if (!(k.signature[i] == last.signature[i]))
          add(detail::cat("array argument ", i, ": ", last.signature[i].str(), " -> ",
                          k.signature[i].str()));
    if (k.static_key != last.static_key)
      add(describe_static_change(last.static_key, k.static_key));
    if (why.empty())
      why = "signature " + describe_signature(k.signature) + " not compiled yet";
    return why;
  }
};

namespace {
std::shared_ptr<JitFunction::Impl> make_target() {
  auto im = std::make_shared<JitFunction::Impl>();
  Targets &t = targets();
  std::lock_guard<std::mutex> lock(t.mu);
  for (auto it = t.by_id.begin(); it != t.by_id.end();) // drop the ids of functions gone
    it = it->second.expired() ? t.by_id.erase(it) : std::next(it);
  t.by_id[static_cast<int64_t>(im->id)] = im;
  return im;
}
} // namespace

JitFunction::JitFunction(JitOptions options) : impl_(make_target()) {
  impl_->options = std::move(options);
}
JitFunction::~JitFunction() = default;
const JitOptions &JitFunction::options() const { return impl_->options; }

namespace {
FlatFn untraced(const TraceFn &trace, std::shared_ptr<void> &aux) {
  return [&trace, &aux](const std::vector<Array> &in) { return trace(in, aux); };
}

/// The structure box of the jitted call under a transform on this thread (JitFunction::call),
/// filled by its trace: executables compiled for the call keep it.
thread_local std::shared_ptr<std::shared_ptr<void>> t_box;

// Compiles a staged function into `entry` for the key's device (dumping the stages with
// STRATA_DUMP_IR), and notes its output avals.
void compile_staged(JitFunction::Impl &im, const CacheKey &key, const std::string &static_key,
                    rt::StagedFunction staged, Entry &entry) {
  std::vector<AbstractValue> avals;
  for (const rt::StagedOutput &o : staged.outputs)
    avals.push_back(o.aval);
  {
    std::lock_guard<std::mutex> lock(im.mu);
    im.out_avals[shape_key(static_key, key.signature)] = std::move(avals);
  }
  const char *dump = std::getenv("STRATA_DUMP_IR");
  rt::StageTexts texts;
  try {
    rt::StageTexts *record = dump && *dump ? &texts : nullptr;
    if (key.device.kind == Device::Kind::CPU)
      entry.exe = rt::CpuExecutable::compile(std::move(staged), im.options.name, record);
    else
      entry.exe = rt::GpuExecutable::compile(std::move(staged), im.options.name,
                                             rt::GpuTarget::for_device(key.device.index), record);
  } catch (const Error &) {
    // The stages that did lower, for the reader of the error.
    if (dump && *dump)
      dump_stages(dump, im.options.name, im.id, texts);
    throw;
  } catch (const std::bad_alloc &) { // a folded constant (a huge splat) the compiler expands
    throw AllocationError(detail::cat("[jit] out of memory compiling ", im.options.name,
                                      ": a constant or buffer of its code is too large for "
                                      "host memory"));
  }
  if (dump && *dump)
    dump_stages(dump, im.options.name, im.id, texts);
}

/// Runs compiled code with the embedding interpreter's lock given up (other Python threads run
/// meanwhile; host callbacks in the code take it back themselves).
std::vector<Array> run_released(const rt::Executable &exe, const std::vector<Array> &args) {
  BlockingRegion region;
  return exe.run(args);
}

// On concrete arguments: the cached executable, compiled on a miss; op by op when the function
// cannot compile alone.
std::pair<std::vector<Array>, std::shared_ptr<void>>
call_impl(const std::shared_ptr<JitFunction::Impl> &self, const TraceFn &trace,
          const std::vector<Array> &args, const std::string &static_key) {
  JitFunction::Impl &im = *self;
  std::shared_ptr<void> aux;
  auto run_inline = [&]() -> std::pair<std::vector<Array>, std::shared_ptr<void>> {
    {
      std::lock_guard<std::mutex> lock(im.mu);
      ++im.inline_calls;
    }
    ++globals().inline_calls;
    return {trace(args, aux), aux};
  };
  // jax_debug_nans / jax_debug_infs: a compiled call that returns a NaN (Inf) is run again op by
  // op, where the primitive that makes it throws (as JAX re-runs the de-optimized function).
  auto checked = [&](std::vector<Array> outs) {
    std::string bad = debug_nans_violation(outs);
    if (bad.empty()) [[likely]]
      return outs;
    std::shared_ptr<void> scratch;
    trace(args, scratch);
    throw FloatingPointError("[jit] invalid value (" + bad + ") encountered in jit(" +
                             im.options.name +
                             "); running it op by op produced none: the "
                             "compiled code's rounding differs from the eager one's");
  };
  CacheKey key =
      make_key(im.id, static_key, args, placement(im.options.name, im.options.device, args));
  if (std::shared_ptr<Entry> e = cache().find(key)) {
    {
      std::lock_guard<std::mutex> lock(im.mu);
      ++im.hits;
      im.last_explain.clear();
    }
    ++globals().hits;
    if (e->inline_only)
      return run_inline();
    return {checked(run_released(*e->exe, args)), e->aux};
  }

  {
    std::lock_guard<std::mutex> lock(im.mu);
    ++im.misses;
    im.last_explain = im.explain_miss(key);
    im.last = key;
    im.has_last = true;
    im.compiled.insert(key);
  }
  ++globals().misses;
  auto entry = std::make_shared<Entry>();
  auto start = std::chrono::steady_clock::now();
  rt::CompileTiming timing;
  {
    rt::TimingScope scope(timing);
    // Staging runs the trace, which may call back into Python: the wait gives up the GIL.
    std::unique_lock<std::recursive_mutex> lock = lock_blocking(rt::context_mutex());
    // Another thread may have compiled this signature while this one waited for the context.
    if (std::shared_ptr<Entry> e = cache().find(key); e && !e->inline_only) {
      lock.unlock();
      return {checked(run_released(*e->exe, args)), e->aux};
    }
    std::optional<rt::PhaseTimer> staging(std::in_place, "staging");
    rt::StagedFunction staged =
        rt::stage(rt::jit_context(), untraced(trace, entry->aux), key.signature, im.options.name);
    staging.reset();
    entry->inline_only = !staged.op_by_op.empty();
    if (!entry->inline_only) {
      if (rt::timing_level())
        timing.staged_ops = rt::staged_op_count(staged);
      compile_staged(im, key, static_key, std::move(staged), *entry);
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (rt::timing_level())
    std::fprintf(stderr, "[strata] jit(%s) compile of %lld staged ops%s: %s\n",
                 im.options.name.c_str(), static_cast<long long>(timing.staged_ops),
                 entry->inline_only ? " (runs op by op)" : "", timing.str(seconds).c_str());
  {
    std::lock_guard<std::mutex> lock(im.mu);
    im.compile_seconds += seconds;
    ++im.compiles;
  }
  globals().compile_ns += static_cast<int64_t>(seconds * 1e9);
  cache().insert(key, entry);
  if (entry->inline_only)
    return run_inline();
  return {checked(run_released(*entry->exe, args)), entry->aux};
}
} // namespace

std::pair<std::vector<Array>, std::shared_ptr<void>>
JitFunction::call(const TraceFn &trace, const std::vector<Array> &args,
                  const std::string &static_key) {
  if (!top_level(args, impl_->options.name))
    return call_impl(impl_, trace, args, static_key);
  // Under another transform, or inside another jit: the jit_call primitive at the level in
  // charge. Staging and eval_shape trace through it (the outermost jit compiles); vmap, jvp and
  // grad compile their transform of the function (lib/primitives/calls.cpp). A level may call
  // the function after this call returns (a grad node's backward pass): it owns the trace, the
  // box its structured outputs are kept in, and this function's cache (the target).
  auto owned = std::make_shared<const TraceFn>(trace);
  auto box = std::make_shared<std::shared_ptr<void>>();
  FlatFn f = [owned, box, keep = impl_](const std::vector<Array> &x) { return (*owned)(x, *box); };
  std::vector<Array> outs;
  {
    std::shared_ptr<std::shared_ptr<void>> saved = t_box;
    t_box = box;
    try {
      outs = bind_jit_call(impl_->options.name, std::move(f), static_cast<int64_t>(impl_->id),
                           static_key, args);
    } catch (...) {
      t_box = saved;
      throw;
    }
    t_box = saved;
  }
  return {std::move(outs), *box}; // the closure conversion's trace filled the box
}

Lowered JitFunction::lower(const TraceFn &trace, const std::vector<Array> &args,
                           const std::string &static_key) {
  std::vector<AbstractValue> sig;
  for (const Array &a : args)
    sig.push_back(abstract_of(a));
  std::shared_ptr<void> aux;
  Lowered out;
  std::unique_lock<std::recursive_mutex> lock = lock_blocking(rt::context_mutex());
  rt::StagedFunction staged =
      rt::stage(rt::jit_context(), untraced(trace, aux), sig, impl_->options.name);
  if (!staged.op_by_op.empty())
    fail("lower", impl_->options.name, " cannot be compiled alone: ", staged.op_by_op);
  const JitOptions &o = impl_->options;
  if (!o.chip.empty()) { // offline: no device needed
    rt::GpuTarget target;
    target.chip = o.chip;
    rt::GpuExecutable::compile(std::move(staged), o.name, target, &out.texts, "llvm-ir");
    return out;
  }
  Device device = placement(o.name, o.device, args);
  if (device.kind == Device::Kind::CPU)
    rt::CpuExecutable::compile(std::move(staged), o.name, &out.texts, "llvm-ir");
  else
    rt::GpuExecutable::compile(std::move(staged), o.name, rt::GpuTarget::for_device(device.index),
                               &out.texts, "llvm-ir");
  return out;
}

JitStats JitFunction::stats() const {
  // A transform of a jitted function is compiled as a jitted function of its own, owned by this
  // one: its counters count here (grad(f) compiling once shows as a miss of f).
  JitStats s;
  impl_->add_stats(s);
  s.evictions = cache().evictions;
  return s;
}

std::string JitFunction::explain() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->last_explain;
}

const std::string &Lowered::as_text(const std::string &stage) const {
  for (const auto &[name, text] : texts)
    if (name == stage)
      return text;
  std::string names;
  for (const auto &[name, text] : texts)
    names += (names.empty() ? "" : ", ") + name;
  fail("lower", "no stage '", stage, "'; the stages are: ", names);
}

std::vector<std::string> Lowered::stages() const {
  std::vector<std::string> out;
  for (const auto &[name, text] : texts)
    out.push_back(name);
  return out;
}

JitStats jit_cache_stats() {
  JitStats s;
  s.hits = globals().hits;
  s.misses = globals().misses;
  s.inline_calls = globals().inline_calls;
  s.compile_seconds = static_cast<double>(globals().compile_ns.load()) * 1e-9;
  s.entries = static_cast<int64_t>(cache().size());
  s.evictions = cache().evictions;
  return s;
}

void set_jit_cache_capacity(size_t capacity) { cache().set_capacity(capacity); }
void clear_jit_cache() { cache().clear(); }

namespace detail {
void append_static_arrays(std::string &key, const std::vector<Array> &leaves) {
  for (const Array &a : leaves) {
    if (!a.is_concrete())
      fail("jit", "a static argument must be a concrete array, got a traced ", a.type_str());
    key += a.type_str();
    key += a.weak_type() ? "w:" : ":";
    std::string bytes(static_cast<size_t>(a.nbytes()), '\0');
    a.copy_to(bytes.data());
    key += bytes;
  }
}
} // namespace detail

namespace {
// The compiler as jit_call reaches it: a target's cache, run on concrete inputs.
const bool hooks_installed = [] {
  JitHooks h;
  h.out_avals = [](int64_t id, const std::string &static_key, const SubFn &fn,
                   std::span<const AbstractValue> in) {
    std::shared_ptr<JitFunction::Impl> im = target(id);
    std::string k = shape_key(static_key, in);
    {
      std::lock_guard<std::mutex> lock(im->mu);
      auto it = im->out_avals.find(k);
      if (it != im->out_avals.end())
        return it->second;
    }
    std::vector<AbstractValue> avals =
        eval_shape_flat(fn.fn, std::vector<AbstractValue>(in.begin(), in.end()));
    std::lock_guard<std::mutex> lock(im->mu);
    im->out_avals[k] = avals;
    return avals;
  };
  h.run = [](int64_t id, const std::string &static_key, const SubFn &fn,
             std::span<const Array> in) {
    // The executable keeps the structure of the call under the transform (its box), for a
    // later call of the function itself that finds it.
    std::shared_ptr<std::shared_ptr<void>> box = t_box;
    TraceFn trace = [&fn, box](const std::vector<Array> &args, std::shared_ptr<void> &aux) {
      std::vector<Array> outs = fn.fn(args);
      if (box)
        aux = *box;
      return outs;
    };
    return call_impl(target(id), trace, std::vector<Array>(in.begin(), in.end()), static_key).first;
  };
  h.derive = [](int64_t id, const std::string &tag) {
    return static_cast<int64_t>(target(id)->derived_fn(tag)->id);
  };
  install_jit_hooks(std::move(h));
  return true;
}();

/// Eager ops on GPU arrays: each primitive is a jitted function of its own, keyed by its
/// parameters (the static key) and its inputs' signature and device, so a signature compiles
/// once and then runs from the cache like any jitted call.
std::vector<Array> eager_on_gpu(const Primitive &prim, const std::vector<Array> &inputs,
                                const Params &params) {
  static std::mutex mu;
  static auto *fns = new std::unordered_map<std::string, std::shared_ptr<JitFunction>>();
  std::shared_ptr<JitFunction> fn;
  {
    std::lock_guard<std::mutex> lock(mu);
    std::shared_ptr<JitFunction> &slot = (*fns)[prim.name];
    if (!slot) {
      JitOptions options;
      options.name = "eager_" + prim.name;
      slot = std::make_shared<JitFunction>(options);
    }
    fn = slot;
  }
  TraceFn trace = [&prim, &params](const std::vector<Array> &in, std::shared_ptr<void> &) {
    return bind(prim, in, params);
  };
  return fn->call(trace, inputs, params.str()).first;
}

const bool eager_registered = [] {
  register_device_eval(Device::Kind::CUDA, eager_on_gpu);
  return true;
}();
} // namespace

} // namespace strata
