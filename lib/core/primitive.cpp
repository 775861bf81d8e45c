// The primitive registry, parameters, and bind: dispatch to the highest live trace level.
#include "strata/primitive.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "core/device_impl.h"
#include "primitives/kernels_impl.h"
#include "strata/internal/blocking.h"
#include "strata/internal/buffer.h"
#include "strata/internal/trace.h"
#include "strata/sizes.h"
#include "strata/transforms.h"

namespace strata {

// ---- Params ------------------------------------------------------------------------------------
Params::Params(std::initializer_list<std::pair<std::string, ParamValue>> init) {
  for (auto &[k, v] : init)
    set(k, v);
}

Params &Params::set(std::string name, ParamValue value) {
  auto it = std::lower_bound(items_.begin(), items_.end(), name,
                             [](const auto &item, const std::string &n) { return item.first < n; });
  if (it != items_.end() && it->first == name)
    it->second = std::move(value);
  else
    items_.insert(it, {std::move(name), std::move(value)});
  return *this;
}

bool Params::has(std::string_view name) const {
  return std::any_of(items_.begin(), items_.end(), [&](const auto &i) { return i.first == name; });
}

const ParamValue &Params::at(std::string_view name) const {
  for (const auto &i : items_)
    if (i.first == name)
      return i.second;
  throw Error(detail::cat("[params] missing parameter '", name, "' in {", str(), "}"),
              ErrorKind::Internal);
}

template <class T> static const T &get_as(const Params &p, std::string_view name) {
  const ParamValue &v = p.at(name);
  if (const T *t = std::get_if<T>(&v))
    return *t;
  throw Error(detail::cat("[params] parameter '", name, "' has another type in {", p.str(), "}"),
              ErrorKind::Internal);
}
int64_t Params::get_int(std::string_view n) const { return get_as<int64_t>(*this, n); }
double Params::get_float(std::string_view n) const { return get_as<double>(*this, n); }
bool Params::get_bool(std::string_view n) const { return get_as<bool>(*this, n); }
DType Params::get_dtype(std::string_view n) const { return get_as<DType>(*this, n); }
const std::string &Params::get_string(std::string_view n) const {
  return get_as<std::string>(*this, n);
}
const std::vector<int64_t> &Params::get_ints(std::string_view n) const {
  return get_as<std::vector<int64_t>>(*this, n);
}
const SubFn &Params::get_fn(std::string_view n) const {
  const SubFnRef &f = get_as<SubFnRef>(*this, n);
  if (!f)
    throw Error(detail::cat("[params] sub-function '", n, "' is null in {", str(), "}"),
                ErrorKind::Internal);
  return *f;
}
const std::vector<SubFnRef> &Params::get_fns(std::string_view n) const {
  return get_as<std::vector<SubFnRef>>(*this, n);
}

const CheckpointPolicy &Params::get_policy(std::string_view n) const {
  const PolicyRef &p = get_as<PolicyRef>(*this, n);
  if (!p)
    throw Error(detail::cat("[params] policy '", n, "' is null in {", str(), "}"),
                ErrorKind::Internal);
  return *p;
}

// A sub-function prints as its name, its signature and its identity: two applications share a
// sub-function exactly when they print the same.
static std::string sub_fn_str(const SubFnRef &f) {
  if (!f)
    return "{null}";
  std::string s = "{" + f->name + " (";
  for (size_t i = 0; i < f->in.size(); ++i)
    s += (i ? ", " : "") + f->in[i].str();
  s += ") -> (";
  for (size_t i = 0; i < f->out.size(); ++i)
    s += (i ? ", " : "") + f->out[i].str();
  char id[32];
  std::snprintf(id, sizeof id, "%p", static_cast<const void *>(f.get()));
  return s + ") consts=" + std::to_string(f->num_consts) + " @" + id + "}";
}

std::string param_str(const ParamValue &v) {
  struct V {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return detail::cat(d); }
    std::string operator()(const std::string &s) const { return "\"" + s + "\""; }
    std::string operator()(DType t) const { return std::string(short_name(t)); }
    std::string operator()(const std::vector<int64_t> &v) const { return shape_str(v); }
    std::string operator()(const SubFnRef &f) const { return sub_fn_str(f); }
    std::string operator()(const std::vector<SubFnRef> &fs) const {
      std::string s = "[";
      for (size_t i = 0; i < fs.size(); ++i)
        s += (i ? ", " : "") + sub_fn_str(fs[i]);
      return s + "]";
    }
    std::string operator()(const PolicyRef &p) const {
      char id[32];
      std::snprintf(id, sizeof id, "%p", static_cast<const void *>(p.get()));
      return std::string("{policy @") + id + "}";
    }
  };
  return std::visit(V{}, v);
}

std::string Params::str() const {
  std::string s;
  for (const auto &[k, v] : items_) {
    if (!s.empty())
      s += ", ";
    s += k + "=" + param_str(v);
  }
  return s;
}

size_t Params::hash() const {
  size_t h = 0xcbf29ce484222325ull;
  auto mix = [&](size_t x) { h = (h ^ x) * 0x100000001b3ull; };
  for (const auto &[k, v] : items_) {
    mix(std::hash<std::string>{}(k));
    mix(v.index());
    std::visit(
        [&](const auto &x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, std::vector<int64_t>>)
            for (int64_t e : x)
              mix(std::hash<int64_t>{}(e));
          else if constexpr (std::is_same_v<X, SubFnRef>)
            mix(std::hash<const void *>{}(x.get()));
          else if constexpr (std::is_same_v<X, std::vector<SubFnRef>>)
            for (const SubFnRef &f : x)
              mix(std::hash<const void *>{}(f.get()));
          else if constexpr (std::is_same_v<X, PolicyRef>)
            mix(std::hash<const void *>{}(x.get()));
          else if constexpr (std::is_same_v<X, DType>)
            mix(static_cast<size_t>(x));
          else
            mix(std::hash<X>{}(x));
        },
        v);
  }
  return h;
}

// ---- Registry ----------------------------------------------------------------------------------
namespace {
struct Registry {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<Primitive>, std::less<>> by_name;
};
Registry &registry() {
  static Registry r;
  return r;
}
} // namespace

const Primitive &register_primitive(Primitive p) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.by_name.count(p.name))
    throw Error(detail::cat("[register_primitive] '", p.name, "' is registered twice"),
                ErrorKind::Internal);
  if (!p.shape_rule || !p.impl)
    throw Error(
        detail::cat("[register_primitive] '", p.name, "' needs a shape rule and an implementation"),
        ErrorKind::Internal);
  std::string name = p.name;
  auto &slot = r.by_name[name];
  slot = std::make_unique<Primitive>(std::move(p));
  return *slot;
}

const Primitive *find_primitive(std::string_view name) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.by_name.find(name);
  return it == r.by_name.end() ? nullptr : it->second.get();
}

std::vector<const Primitive *> all_primitives() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<const Primitive *> out;
  for (auto &[_, p] : r.by_name)
    out.push_back(p.get());
  return out;
}

// ---- jax_debug_nans / jax_debug_infs ----------------------------------------------------------
namespace {
// Bit 0: check for NaN, bit 1: check for Inf. Read once per eval-level bind.
std::atomic<unsigned> float_checks{0};

enum class Bad { None, NaN, Inf };

Bad classify_bits(uint32_t exponent, uint32_t all_ones, uint32_t mantissa) {
  if (exponent != all_ones)
    return Bad::None;
  return mantissa ? Bad::NaN : Bad::Inf;
}

// The first NaN or Inf among x's elements that the enabled checks look for (None if none).
Bad first_bad(const Array &x, unsigned checks) {
  DType t = x.dtype();
  if (t != DType::Float16 && t != DType::BFloat16 && t != DType::Float32 && t != DType::Float64)
    return Bad::None;
  if (!x.is_concrete() || x.size() == 0)
    return Bad::None;
  std::vector<unsigned char> copy;
  const unsigned char *bytes;
  if (x.buffer()->device().kind == Device::Kind::CPU) {
    bytes = static_cast<const unsigned char *>(x.data());
  } else {
    copy.resize(static_cast<size_t>(x.nbytes()));
    x.copy_to(copy.data());
    bytes = copy.data();
  }
  auto wanted = [checks](Bad b) {
    return (b == Bad::NaN && (checks & 1u)) || (b == Bad::Inf && (checks & 2u));
  };
  for (int64_t i = 0, n = x.size(); i < n; ++i) {
    Bad b = Bad::None;
    if (t == DType::Float32) {
      float v;
      std::memcpy(&v, bytes + 4 * i, 4);
      b = std::isnan(v) ? Bad::NaN : std::isinf(v) ? Bad::Inf : Bad::None;
    } else if (t == DType::Float64) {
      double v;
      std::memcpy(&v, bytes + 8 * i, 8);
      b = std::isnan(v) ? Bad::NaN : std::isinf(v) ? Bad::Inf : Bad::None;
    } else {
      uint16_t v;
      std::memcpy(&v, bytes + 2 * i, 2);
      b = t == DType::Float16 ? classify_bits((v >> 10) & 0x1fu, 0x1fu, v & 0x3ffu)
                              : classify_bits((v >> 7) & 0xffu, 0xffu, v & 0x7fu);
    }
    if (wanted(b))
      return b;
  }
  return Bad::None;
}

void check_float_outputs(unsigned checks, const Primitive &prim, std::span<const Array> inputs,
                         const Params &params, const std::vector<Array> &outs) {
  for (const Array &o : outs) {
    Bad b = first_bad(o, checks);
    if (b == Bad::None)
      continue;
    std::string ins;
    for (const Array &a : inputs)
      ins += (ins.empty() ? "" : ", ") + a.type_str();
    std::string p = params.str();
    throw FloatingPointError(detail::cat(
        "[", prim.name, "] invalid value (", b == Bad::NaN ? "nan" : "inf", ") encountered in ",
        prim.name, " with inputs (", ins, ")", p.empty() ? "" : " and params {" + p + "}"));
  }
}
} // namespace

// No dynamic level: an op with only concrete inputs goes to the eval level (see top_level).
CompileTimeEval::CompileTimeEval() : override_(std::make_unique<DynamicOverride>(nullptr)) {}
CompileTimeEval::~CompileTimeEval() = default;

void set_debug_nans(bool nans, bool infs) {
  float_checks.store((nans ? 1u : 0u) | (infs ? 2u : 0u), std::memory_order_relaxed);
}

std::string debug_nans_violation(const std::vector<Array> &xs) {
  unsigned checks = float_checks.load(std::memory_order_relaxed);
  if (!checks)
    return {};
  for (const Array &x : xs)
    if (Bad b = first_bad(x, checks); b != Bad::None)
      return b == Bad::NaN ? "nan" : "inf";
  return {};
}

// ---- bind --------------------------------------------------------------------------------------
namespace {
/// Elements an eager op reads and writes from which its kernel runs in a BlockingRegion (a
/// Python caller's GIL given up): below it the hand-over costs more than it frees
/// (docs/decisions.md, "The GIL around compiled calls, long eager kernels and the MLIR
/// context's lock").
constexpr int64_t kBlockingElements = int64_t{1} << 15;

bool long_kernel(std::span<const AbstractValue> in, std::span<const AbstractValue> out) {
  int64_t total = 0;
  auto add = [&](const AbstractValue &a) {
    int64_t n = 1;
    for (int64_t d : a.shape) {
      if (d <= 0)
        return false;
      if (d >= kBlockingElements || n * d >= kBlockingElements)
        return true;
      n *= d;
    }
    total += n;
    return total >= kBlockingElements;
  };
  return std::any_of(in.begin(), in.end(), add) || std::any_of(out.begin(), out.end(), add);
}
} // namespace

AbstractValue abstract_of(const Array &a) { return {a.shape(), a.dtype(), a.weak_type()}; }

std::vector<AbstractValue> abstract_eval(const Primitive &prim, std::span<const AbstractValue> in,
                                         const Params &params) {
  return prim.shape_rule(in, params);
}

std::vector<Array> bind(const Primitive &prim, std::vector<Array> inputs, const Params &params) {
  TraceLevel *top = top_level(inputs, prim.name);
  if (top)
    return top->process(prim, inputs, params);

  // Eval level: check with the shape rule, then run the reference implementation.
  AbstractValue small[4];
  std::vector<AbstractValue> heap;
  std::span<const AbstractValue> avals;
  if (inputs.size() <= 4) {
    for (size_t i = 0; i < inputs.size(); ++i)
      small[i] = abstract_of(inputs[i]);
    avals = std::span<const AbstractValue>(small, inputs.size());
  } else {
    heap.reserve(inputs.size());
    for (const Array &a : inputs)
      heap.push_back(abstract_of(a));
    avals = heap;
  }
  std::vector<AbstractValue> out = prim.shape_rule(avals, params);
  // Every output must be allocatable before the impl sizes its buffers and loops from it; the
  // outermost op (zeros, not its broadcast) names any failure.
  AllocationScope scope(prim.name);
  for (const AbstractValue &o : out)
    (void)checked_byte_size(o.dtype, o.shape, allocation_op());
  // Inputs on a GPU: the device runtime runs the op there (a compiled kernel per signature).
  std::vector<Array> result;
  bool on_device = false;
  for (const Array &a : inputs)
    on_device = on_device || (a.is_concrete() && a.buffer()->device().kind != Device::Kind::CPU);
  // A higher-order primitive's impl runs its sub-functions, whose primitives go to the device
  // themselves (calls included); a concrete-output one only reads its input.
  bool sub_functions = has_sub_functions(params);
  if (on_device && !sub_functions && !prim.has(kConcreteOutput)) {
    result = device_eval(prim, inputs, params, common_device(prim.name, inputs));
  } else if (!sub_functions && long_kernel(avals, out)) {
    // Sub-functions are left out: their Python parts would take the GIL straight back, and
    // their own long primitives give it up one by one.
    BlockingRegion region;
    result = prim.impl(inputs, params, out);
  } else {
    result = prim.impl(inputs, params, out);
  }
  if (unsigned checks = float_checks.load(std::memory_order_relaxed)) [[unlikely]]
    check_float_outputs(checks, prim, inputs, params, result);
  return result;
}

Array bind1(const Primitive &prim, std::vector<Array> inputs, const Params &params) {
  std::vector<Array> out = bind(prim, std::move(inputs), params);
  return std::move(out.at(0));
}

int64_t normalize_axis(std::string_view op, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    fail(op, "axis ", axis, " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

} // namespace strata
