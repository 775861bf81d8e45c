// A random-program generator for differential testing of jit: from a seed, a well-typed DAG of
// Strata ops (ops.h, lax.h, nn.h) over 1-3 random inputs, replayable as a FlatFn.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "strata/strata.h"
#include "test_util.h"

namespace strata::fuzz {

/// Relative + absolute tolerance of jit against eager per float dtype. f32 allows for the
/// polynomial approximations of exp/log/tanh/erf/sin/cos and for reassociated sums.
inline double float_tolerance(DType d) {
  switch (d) {
  case DType::Float64:
    return 1e-10;
  case DType::Float32:
    return 1e-5;
  case DType::Float16:
  case DType::BFloat16:
    return 2e-2;
  default:
    return 0;
  }
}

/// One op of a program: reads env slots (captured in fn), appends `count` results from `first`.
struct Step {
  std::string text;      // "add(v1, v2)"
  std::vector<int> args; // env slots read, for pruning
  int first = 0;
  int count = 1;
  std::function<std::vector<Array>(const std::vector<Array> &)> fn;
};

/// A generated program: env slots 0..inputs-1 are the inputs, then each step's results.
struct Program {
  uint64_t seed = 0;
  std::vector<Array> inputs;
  std::vector<Step> steps;
  std::vector<int> outputs;
  std::vector<bool> live;         // per step; dead steps are skipped and not listed
  std::vector<std::string> types; // per env slot, for the listing
  /// Per env slot: the loosest float tolerance on its dependency path (f16 values converted to
  /// f32 keep f16's error).
  std::vector<double> tol;

  /// Evaluates the live steps on `in` (eagerly, or under jit's staging).
  std::vector<Array> run(const std::vector<Array> &in) const {
    std::vector<Array> env(types.size());
    for (size_t i = 0; i < in.size(); ++i)
      env[i] = in[i];
    for (size_t s = 0; s < steps.size(); ++s) {
      if (!live[s])
        continue;
      std::vector<Array> r = steps[s].fn(env);
      for (int j = 0; j < steps[s].count; ++j)
        env[static_cast<size_t>(steps[s].first + j)] = r[static_cast<size_t>(j)];
    }
    std::vector<Array> out;
    for (int o : outputs)
      out.push_back(env[static_cast<size_t>(o)]);
    return out;
  }

  /// The same program with only `outs` as outputs and the steps they need.
  Program keep_outputs(std::vector<int> outs) const {
    Program p = *this;
    p.outputs = std::move(outs);
    std::vector<bool> needed(types.size(), false);
    for (int o : p.outputs)
      needed[static_cast<size_t>(o)] = true;
    for (size_t s = steps.size(); s-- > 0;) {
      bool use = false;
      for (int j = 0; j < steps[s].count; ++j)
        use = use || needed[static_cast<size_t>(steps[s].first + j)];
      p.live[s] = use && live[s];
      if (p.live[s])
        for (int a : steps[s].args)
          needed[static_cast<size_t>(a)] = true;
    }
    return p;
  }

  std::string listing() const {
    std::ostringstream os;
    os << "program of seed " << seed << ":\n";
    for (size_t i = 0; i < inputs.size(); ++i)
      os << "  v" << i << " = input " << value_text(inputs[i]) << "\n";
    for (size_t s = 0; s < steps.size(); ++s) {
      if (!live[s])
        continue;
      const Step &st = steps[s];
      os << "  ";
      for (int j = 0; j < st.count; ++j)
        os << (j ? ", " : "") << "v" << st.first + j;
      os << " = " << st.text << "  : ";
      for (int j = 0; j < st.count; ++j)
        os << (j ? ", " : "") << types[static_cast<size_t>(st.first + j)];
      os << "\n";
    }
    os << "  outputs:";
    for (int o : outputs)
      os << " v" << o;
    os << "\n";
    return os.str();
  }

  /// "f32[2,3]{1, 2, ...}" with up to 12 values.
  static std::string value_text(const Array &a) {
    std::ostringstream os;
    os << a.type_str() << (a.weak_type() ? " weak" : "") << "{";
    std::vector<double> v = testutil::values(a);
    for (size_t i = 0; i < v.size() && i < 12; ++i)
      os << (i ? ", " : "") << v[i];
    if (v.size() > 12)
      os << ", ...";
    os << "}";
    return os.str();
  }
};

/// Compiler bugs the fuzzer found, which the generator steers around while a flag is true, so
/// the bounded fuzz test keeps looking for new ones. All four are fixed (2026-11-29) and have
/// regression tests in test_jit_random_programs.cpp; a newly found bug may get a flag here.
struct KnownBugs {
  bool bool_reductions = false;   // max/min/all/any/cummax/cummin over bool: wrong init value
  bool int_power = false;         // power(i32, i32) hangs strata-lower-to-linalg
  bool atan2_zero_zero = false;   // f32/f16 atan2(0, 0), atan2(inf, inf) give NaN
  bool identical_outputs = false; // two outputs folding to one value crash compilation
};
inline KnownBugs &known_bugs() {
  static KnownBugs k;
  return k;
}

/// Builds a random program from a seed. Every step is run eagerly while generating, so the
/// program is well typed by construction (steps that raise strata::Error are dropped) and
/// generation can see values: it keeps them bounded, and puts discontinuous ops (comparisons,
/// floor, argmax, float->int, ...) only where jit-vs-eager rounding cannot flip their result.
class Generator {
public:
  explicit Generator(uint64_t seed) : rng_(seed * 0x9E3779B97F4A7C15ull + 17) { p_.seed = seed; }

  Program build() {
    make_inputs();
    int n_ops = ri(3, 25);
    for (int tries = 0; ops_ < n_ops && tries < 40 * n_ops; ++tries)
      try_one();
    int last = static_cast<int>(env_.size()) - 1;
    p_.outputs.push_back(last);
    // While identical_outputs is open only one output: values of different expressions can
    // still fold to one (sort along a size-1 dim returns its operands).
    for (int k = known_bugs().identical_outputs ? 0 : ri(0, 2); k > 0; --k) {
      int o = ri(0, last);
      bool twin = false; // a different slot computing the same expression
      for (int q : p_.outputs)
        twin = twin || (q != o && canon_[static_cast<size_t>(q)] == canon_[static_cast<size_t>(o)]);
      if (!(twin && known_bugs().identical_outputs))
        p_.outputs.push_back(o);
    }
    if (coin(0.3))
      std::swap(p_.outputs.front(), p_.outputs.back());
    p_.live.assign(p_.steps.size(), true);
    return p_.keep_outputs(p_.outputs);
  }

  /// Names of the ops each kind emitted (for the coverage summary).
  const std::map<std::string, int> &op_counts() const { return counts_; }

private:
  // How an op's result relates to exactness (bitwise agreement between jit and eager).
  enum class Ex {
    Preserve, // float results bitwise-determined by exact operands (neg, max, reshape, ...)
    Inexact,  // float results may differ by rounding (arithmetic, transcendentals)
    Discrete, // discontinuous: operands must be exact or pass the margin check
  };
  using Fn = std::function<std::vector<Array>(const std::vector<Array> &)>;
  struct Cand {
    std::string name, text;
    std::vector<int> args;
    Fn fn;
    Ex ex = Ex::Inexact;
    std::function<bool()> margin;  // for Discrete with inexact operands; none: needs exact
    std::optional<bool> exact_out; // overrides the exactness the kind implies
  };
  /// An operand: an env slot or a constant (captured: a constant under jit).
  struct Opd {
    int slot = -1;
    Array c;
    Array get(const std::vector<Array> &env) const {
      return slot >= 0 ? env[static_cast<size_t>(slot)] : c;
    }
  };

  // ---- Randomness ------------------------------------------------------------------------
  // Empty ranges (from zero-size dims) give lo.
  int ri(int lo, int hi) {
    return hi <= lo ? lo : std::uniform_int_distribution<int>(lo, hi)(rng_);
  }
  double rd(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }
  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng_); }
  template <class T> const T &pick_of(const std::vector<T> &v) {
    return v[static_cast<size_t>(ri(0, static_cast<int>(v.size()) - 1))];
  }

  DType rand_dtype() {
    static const std::vector<std::pair<DType, int>> w = {
        {float32, 34}, {float64, 15}, {int32, 15},  {bool_, 10},   {int8, 4},
        {uint8, 4},    {uint32, 4},   {float16, 6}, {bfloat16, 6}, {int64, 1}};
    int total = 0;
    for (auto &[d, k] : w)
      total += k;
    int r = ri(0, total - 1);
    for (auto &[d, k] : w)
      if ((r -= k) < 0)
        return d;
    return float32;
  }

  Shape rand_shape(int max_rank = 3) {
    Shape s(static_cast<size_t>(ri(0, max_rank)));
    for (int64_t &d : s)
      d = coin(0.25) ? 1 : ri(1, 6);
    return s;
  }

  Array rand_array(const Shape &s, DType dt, bool special = false) {
    int64_t n = num_elements(s);
    std::vector<double> v(static_cast<size_t>(n));
    bool grid = coin(0.3); // multiples of 1/8: exact ties for comparisons, sort and max
    for (double &x : v) {
      if (is_floating(dt))
        x = grid ? std::round(rd(-3, 3) * 8) / 8 : rd(-3, 3);
      else if (dt == bool_)
        x = coin() ? 1 : 0;
      else if (dt == int8)
        x = ri(-128, 127);
      else if (dt == uint8)
        x = ri(0, 255);
      else if (dt == uint32)
        x = coin(0.7) ? ri(0, 1000) : static_cast<double>(static_cast<uint32_t>(rng_()));
      else
        x = ri(-20, 20);
    }
    if (special && is_floating(dt) && n > 0)
      for (int k = ri(1, 2); k > 0; --k)
        v[static_cast<size_t>(ri(0, static_cast<int>(n) - 1))] =
            pick_of(std::vector<double>{NAN, INFINITY, -INFINITY, 0.0, -0.0});
    return testutil::make(v, s, dt);
  }

  // Shapes that broadcast against s: a suffix with some dims set to 1, maybe a new leading dim.
  Shape compat_shape(const Shape &s) {
    size_t keep = static_cast<size_t>(ri(0, static_cast<int>(s.size())));
    Shape out(s.end() - static_cast<long>(keep), s.end());
    for (int64_t &d : out)
      if (coin(0.3))
        d = 1;
    if (out.size() < 3 && coin(0.15))
      out.insert(out.begin(), ri(1, 3));
    return out;
  }

  // ---- Env ---------------------------------------------------------------------------------
  void make_inputs() {
    Shape base = rand_shape();
    int n = ri(1, 3);
    bool special = coin(0.12);
    for (int i = 0; i < n; ++i) {
      Shape s = coin(0.7) ? compat_shape(base) : rand_shape();
      if (i == 0 && coin(0.6))
        s = base;
      DType dt = rand_dtype();
      Array a = rand_array(s, dt, special && i == 0);
      if (s.empty() && coin(0.1) && (is_floating(dt) || dt == int32))
        a = a.with_weak_type(true); // a weakly typed argument, as a Python scalar under jit
      add_value(a, true);
      p_.inputs.push_back(a);
    }
  }

  void add_value(const Array &a, bool exact, int canon = -1, double tol = 0) {
    p_.tol.push_back(std::max(tol, float_tolerance(a.dtype())));
    if (canon < 0)
      canon = static_cast<int>(canon_ids_.size()) + 1000000 + nenv(); // an input: unique
    canon_.push_back(canon);
    env_.push_back(a);
    exact_.push_back(exact);
    nonfinite_.push_back(has_nonfinite(a));
    p_.types.push_back(a.type_str() + (a.weak_type() ? "(weak)" : ""));
  }

  int nenv() const { return static_cast<int>(env_.size()); }
  const Array &val(int i) const { return env_[static_cast<size_t>(i)]; }
  std::string nm(int i) const { return "v" + std::to_string(i); }
  std::string nm(const Opd &o) const { return o.slot >= 0 ? nm(o.slot) : Program::value_text(o.c); }

  // A random slot satisfying pred, biased to recent values (chains) but reaching all (diamonds).
  int pick_where(const std::function<bool(const Array &)> &pred) {
    std::vector<int> ok;
    for (int i = 0; i < nenv(); ++i)
      if (pred(val(i)))
        ok.push_back(i);
    if (ok.empty())
      return -1;
    if (coin(0.5) && ok.size() > 3)
      return ok[ok.size() - 1 - static_cast<size_t>(ri(0, 2))];
    return pick_of(ok);
  }
  int pick() {
    return pick_where([](const Array &) { return true; });
  }
  int pick_float() {
    return pick_where([](const Array &a) { return is_floating(a.dtype()); });
  }
  int pick_ranked(int min_rank) {
    return pick_where([min_rank](const Array &a) { return a.ndim() >= min_rank; });
  }

  // A second operand for x: a broadcast-compatible value, a constant or a weak scalar.
  Opd partner(int x, bool same_type = false) {
    const Array &a = val(x);
    Opd o;
    if (same_type) {
      if (coin(0.5))
        o.slot = pick_where(
            [&](const Array &b) { return b.shape() == a.shape() && b.dtype() == a.dtype(); });
      if (o.slot < 0)
        o.c = rand_array(a.shape(), a.dtype());
      return o;
    }
    double r = rd(0, 1);
    if (r < 0.45) {
      o.slot = pick_where([&](const Array &b) {
        try {
          broadcast_shapes(a.shape(), b.shape());
          return true;
        } catch (const Error &) {
          return false;
        }
      });
      if (o.slot >= 0)
        return o;
    }
    if (r < 0.7) {
      o.c = coin(0.6) ? as_weak(pick_of(std::vector<double>{0.5, 2.0, -1.5, 3.0, 0.25}))
                      : as_weak(ri(-3, 4));
      return o;
    }
    DType dt = coin(0.75) ? a.dtype() : rand_dtype();
    o.c = rand_array(compat_shape(a.shape()), dt);
    return o;
  }

  // ---- Value checks (generation time, eager) --------------------------------------------------
  static bool has_nonfinite(const Array &a) {
    if (!is_floating(a.dtype()))
      return false;
    for (double v : testutil::values(a))
      if (!std::isfinite(v))
        return true;
    return false;
  }
  static double max_abs(const Array &a) {
    double m = 0;
    for (double v : testutil::values(a))
      if (std::isfinite(v))
        m = std::max(m, std::fabs(v));
    return m;
  }
  template <class P> static bool all_finite_satisfy(const Array &a, P pred) {
    for (double v : testutil::values(a))
      if (std::isfinite(v) && !pred(v))
        return false;
    return true;
  }
  // The margin discontinuous ops need from their inexact operands: rounding error is ~1e-6
  // relative in f32/f64 chains and ~1e-2 in f16/bf16.
  static double margin(std::initializer_list<Array> xs) {
    for (const Array &x : xs)
      if (x.dtype() == float16 || x.dtype() == bfloat16)
        return 0.05;
    return 1e-3;
  }
  // Elementwise |x - y| large enough after broadcasting (and all finite).
  static bool separated(const Array &x, const Array &y, double m) {
    std::vector<Array> b = broadcast_arrays({astype(x, float64), astype(y, float64)});
    std::vector<double> u = testutil::values(b[0]), w = testutil::values(b[1]);
    for (size_t i = 0; i < u.size(); ++i) {
      if (!std::isfinite(u[i]) || !std::isfinite(w[i]))
        return false;
      if (std::fabs(u[i] - w[i]) <= m * (1 + std::max(std::fabs(u[i]), std::fabs(w[i]))))
        return false;
    }
    return true;
  }
  // Every value at least m away from the points k + offset (integer k).
  static bool off_steps(const std::vector<double> &v, double m, double offset = 0) {
    for (double x : v) {
      if (!std::isfinite(x))
        return false;
      double f = x - offset - std::floor(x - offset);
      if (std::min(f, 1 - f) <= m * (1 + std::fabs(x)))
        return false;
    }
    return true;
  }
  static bool off_zero(const Array &a, double m) {
    return all_finite_satisfy(a, [m](double v) { return std::fabs(v) > m; }) && !has_nonfinite(a);
  }
  // Integer results of repeated products must stay inside i32 (overflow is UB in the kernels).
  static bool int_pow_fits(const Array &x, double count) {
    if (x.dtype() != int32 && x.dtype() != int64)
      return true;
    return count * std::log2(std::max(1.0, max_abs(x))) < 30;
  }

  // ---- Committing a candidate --------------------------------------------------------------
  bool commit(Cand c) {
    std::vector<Array> r;
    try {
      r = c.fn(env_);
    } catch (const Error &) {
      return false;
    }
    if (r.empty())
      return false;
    bool in_nonfinite = false, in_exact = true;
    double in_tol = 0;
    for (int a : c.args) {
      in_tol = std::max(in_tol, p_.tol[static_cast<size_t>(a)]);
      in_nonfinite = in_nonfinite || nonfinite_[static_cast<size_t>(a)];
      in_exact = in_exact && exact_[static_cast<size_t>(a)];
    }
    for (const Array &x : r) {
      if (!x.valid() || !x.is_concrete() || x.size() > 4096)
        return false;
      if (is_floating(x.dtype())) {
        if (has_nonfinite(x) && !in_nonfinite)
          return false; // overflow or a domain error: keep NaN/inf to those the inputs bring
        if (max_abs(x) > 1e5)
          return false;
      } else if ((x.dtype() == int32 || x.dtype() == int64) && max_abs(x) > 1000) {
        return false; // keeps later i32 products and sums far from overflow
      }
    }
    if (c.ex == Ex::Discrete && !in_exact && !(c.margin && c.margin()))
      return false;
    // The expression's structure (args by their structure): equal for CSE-equal values.
    std::string key = c.text;
    for (int a : c.args) {
      std::string v = nm(a), id = "#" + std::to_string(canon_[static_cast<size_t>(a)]);
      for (size_t pos = 0; (pos = key.find(v, pos)) != std::string::npos;) {
        size_t end = pos + v.size();
        if (end < key.size() && std::isdigit(static_cast<unsigned char>(key[end]))) {
          pos = end;
          continue;
        }
        key.replace(pos, v.size(), id);
        pos += id.size();
      }
    }
    int first = nenv();
    int j = 0;
    for (const Array &x : r) {
      std::string k = key + "@" + std::to_string(j++);
      auto it = canon_ids_.emplace(k, static_cast<int>(canon_ids_.size())).first;
      bool exact = c.exact_out.value_or(
          c.ex == Ex::Discrete || (in_exact && (c.ex == Ex::Preserve || !is_floating(x.dtype()))));
      add_value(x, exact, it->second, in_tol);
    }
    Step s{c.text, c.args, first, static_cast<int>(r.size()), c.fn};
    p_.steps.push_back(std::move(s));
    ++counts_[c.name];
    ++ops_;
    return true;
  }

  // ---- Op kinds ------------------------------------------------------------------------------
  void try_one() {
    static const std::vector<std::pair<int, int>> weights = {
        {0, 10}, {1, 12}, {2, 3},  {3, 2},  {4, 4},  {5, 6},  {6, 3},  {7, 8}, {8, 5},
        {9, 3},  {10, 2}, {11, 5}, {12, 4}, {13, 2}, {14, 3}, {15, 2}, {16, 3}};
    int total = 0;
    for (auto &[k, w] : weights)
      total += w;
    int r = ri(0, total - 1), kind = 0;
    for (auto &[k, w] : weights)
      if ((r -= w) < 0) {
        kind = k;
        break;
      }
    std::optional<Cand> c;
    switch (kind) {
    case 0:
      c = unary();
      break;
    case 1:
      c = binary();
      break;
    case 2:
      c = select_op();
      break;
    case 3:
      c = clamp_op();
      break;
    case 4:
      c = convert_op();
      break;
    case 5:
      c = reduce_op();
      break;
    case 6:
      c = cumulative_op();
      break;
    case 7:
      c = shape_op();
      break;
    case 8:
      c = index_op();
      break;
    case 9:
      c = concat_op();
      break;
    case 10:
      c = pad_op();
      break;
    case 11:
      c = contract_op();
      break;
    case 12:
      c = gather_op();
      break;
    case 13:
      c = sort_op();
      break;
    case 14:
      c = nn_op();
      break;
    case 15:
      c = create_op();
      break;
    default:
      c = misc_op();
      break;
    }
    if (c)
      commit(std::move(*c));
  }

  static Fn one(std::function<Array(const std::vector<Array> &)> f) {
    return [f](const std::vector<Array> &env) { return std::vector<Array>{f(env)}; };
  }

  std::optional<Cand> unary() {
    int x = pick();
    const Array &a = val(x);
    using F = Array (*)(const Array &);
    enum Dom { Any, Pos, GtM1, Small, Moderate, NonZero, Tan, Unit };
    struct U {
      const char *name;
      F f;
      Dom dom;
      Ex ex;
      int disc; // 0 continuous, 1 steps at integers, 2 at halves, 3 at zero
    };
    static const std::vector<U> us = {
        {"negative", strata::negative, Any, Ex::Preserve, 0},
        {"abs", strata::abs, Any, Ex::Preserve, 0},
        {"sign", strata::sign, Any, Ex::Discrete, 3},
        {"floor", strata::floor, Any, Ex::Discrete, 1},
        {"ceil", strata::ceil, Any, Ex::Discrete, 1},
        {"round", strata::round, Any, Ex::Discrete, 2},
        {"square", strata::square, Any, Ex::Inexact, 0},
        {"reciprocal", strata::reciprocal, NonZero, Ex::Inexact, 0},
        {"exp", strata::exp, Small, Ex::Inexact, 0},
        {"log", strata::log, Pos, Ex::Inexact, 0},
        {"log1p", strata::log1p, GtM1, Ex::Inexact, 0},
        {"expm1", strata::expm1, Small, Ex::Inexact, 0},
        {"sqrt", strata::sqrt, Pos, Ex::Inexact, 0},
        {"rsqrt", strata::rsqrt, Pos, Ex::Inexact, 0},
        {"sin", strata::sin, Moderate, Ex::Inexact, 0},
        {"cos", strata::cos, Moderate, Ex::Inexact, 0},
        {"tan", strata::tan, Tan, Ex::Inexact, 0},
        {"tanh", strata::tanh, Any, Ex::Inexact, 0},
        {"erf", strata::erf, Any, Ex::Inexact, 0},
        {"sinh", strata::sinh, Small, Ex::Inexact, 0},
        {"cosh", strata::cosh, Small, Ex::Inexact, 0},
        {"arcsin", strata::arcsin, Unit, Ex::Inexact, 0},
        {"arccos", strata::arccos, Unit, Ex::Inexact, 0},
        {"arctan", strata::arctan, Any, Ex::Inexact, 0},
        {"arcsinh", strata::arcsinh, Any, Ex::Inexact, 0},
        {"arctanh", strata::arctanh, Unit, Ex::Inexact, 0},
        {"exp2", strata::exp2, Small, Ex::Inexact, 0},
        {"lax.logistic", lax::logistic, Any, Ex::Inexact, 0},
        {"lax.erf_inv", lax::erf_inv, Unit, Ex::Inexact, 0},
        {"isfinite", strata::isfinite, Any, Ex::Preserve, 0},
        {"logical_not", strata::logical_not, Any, Ex::Discrete, 3},
        {"bitwise_not", strata::bitwise_not, Any, Ex::Preserve, 0},
        {"nn.relu", nn::relu, Any, Ex::Preserve, 0},
        {"nn.silu", nn::silu, Any, Ex::Inexact, 0},
        {"nn.sigmoid", nn::sigmoid, Any, Ex::Inexact, 0},
        {"nn.gelu", [](const Array &v) { return nn::gelu(v); }, Any, Ex::Inexact, 0},
        {"nn.gelu_exact", [](const Array &v) { return nn::gelu(v, false); }, Any, Ex::Inexact, 0},
        {"stop_gradient", lax::stop_gradient, Any, Ex::Preserve, 0},
    };
    const U &u = pick_of(us);
    auto in_dom = [&](double v) {
      switch (u.dom) {
      case Pos:
        return v > 0.05;
      case GtM1:
        return v > -0.9;
      case Small:
        return std::fabs(v) < 8;
      case Moderate:
        return std::fabs(v) < 50;
      case NonZero:
        return std::fabs(v) > 0.1;
      case Tan:
        return std::fabs(v) < 1.2;
      case Unit:
        return std::fabs(v) < 0.95;
      default:
        return true;
      }
    };
    // Outside the domain: a guard expression maps the operand into it.
    std::string g = "";
    std::function<Array(const Array &)> guard = [](const Array &v) { return v; };
    if (!all_finite_satisfy(a, in_dom)) {
      switch (u.dom) {
      case Pos:
      case NonZero:
        g = "abs(%)+0.5";
        guard = [](const Array &v) { return strata::abs(v) + as_weak(0.5); };
        break;
      case GtM1:
        g = "abs(%)";
        guard = [](const Array &v) { return strata::abs(v); };
        break;
      case Small:
      case Moderate:
      case Tan:
        g = "tanh(%)";
        guard = [](const Array &v) { return strata::tanh(v); };
        break;
      case Unit:
        g = "tanh(%)*0.9";
        guard = [](const Array &v) { return strata::tanh(v) * as_weak(0.9); };
        break;
      default:
        break;
      }
    }
    std::string arg = nm(x);
    if (!g.empty())
      arg = g.replace(g.find('%'), 1, arg);
    F f = u.f;
    Cand c{u.name, std::string(u.name) + "(" + arg + ")",
           {x},    one([=](const std::vector<Array> &env) { return f(guard(env[x])); }),
           u.ex,   {}};
    if (!g.empty() && c.ex == Ex::Preserve)
      c.ex = Ex::Inexact;
    int disc = u.disc;
    c.margin = [this, x, disc, guard]() {
      Array v;
      try {
        v = guard(val(x));
      } catch (const Error &) {
        return false;
      }
      double m = margin({v});
      if (disc == 3)
        return off_zero(v, m);
      return off_steps(testutil::values(v), m, disc == 2 ? 0.5 : 0);
    };
    return c;
  }

  std::optional<Cand> binary() {
    int x = pick();
    const Array &a = val(x);
    using F = Array (*)(const Array &, const Array &);
    enum Kind { Plain, Cmp, Logical, Div, FloorLike, Pow, LaxSame, Shift };
    struct B {
      const char *name;
      F f;
      Kind kind;
      Ex ex;
    };
    static const std::vector<B> bs = {
        {"add", strata::add, Plain, Ex::Inexact},
        {"subtract", strata::subtract, Plain, Ex::Inexact},
        {"multiply", strata::multiply, Plain, Ex::Inexact},
        {"maximum", strata::maximum, Plain, Ex::Preserve},
        {"minimum", strata::minimum, Plain, Ex::Preserve},
        {"arctan2", strata::arctan2, Plain, Ex::Inexact},
        {"bitwise_and", strata::bitwise_and, Plain, Ex::Preserve},
        {"bitwise_or", strata::bitwise_or, Plain, Ex::Preserve},
        {"bitwise_xor", strata::bitwise_xor, Plain, Ex::Preserve},
        {"equal", strata::equal, Cmp, Ex::Discrete},
        {"not_equal", strata::not_equal, Cmp, Ex::Discrete},
        {"less", strata::less, Cmp, Ex::Discrete},
        {"less_equal", strata::less_equal, Cmp, Ex::Discrete},
        {"greater", strata::greater, Cmp, Ex::Discrete},
        {"greater_equal", strata::greater_equal, Cmp, Ex::Discrete},
        {"logical_and", strata::logical_and, Logical, Ex::Discrete},
        {"logical_or", strata::logical_or, Logical, Ex::Discrete},
        {"logical_xor", strata::logical_xor, Logical, Ex::Discrete},
        {"divide", strata::divide, Div, Ex::Inexact},
        {"floor_divide", strata::floor_divide, FloorLike, Ex::Discrete},
        {"remainder", strata::remainder, FloorLike, Ex::Discrete},
        {"power", strata::power, Pow, Ex::Inexact},
        {"lax.max", lax::max, LaxSame, Ex::Preserve},
        {"lax.min", lax::min, LaxSame, Ex::Preserve},
        {"lax.rem", lax::rem, LaxSame, Ex::Discrete},
        {"lax.atan2", lax::atan2, LaxSame, Ex::Inexact},
        {"lax.sub", lax::sub, LaxSame, Ex::Inexact},
        {"lax.shift_left", lax::shift_left, Shift, Ex::Preserve},
        {"lax.shift_right_logical", lax::shift_right_logical, Shift, Ex::Preserve},
    };
    const B &b = pick_of(bs);
    auto f_is = [](const B &e, const char *n) { return std::string(e.name) == n; };
    Opd y;
    if (b.kind == Shift) {
      if (!is_integer(a.dtype()))
        return std::nullopt;
      int bits = static_cast<int>(itemsize(a.dtype()) * 8);
      std::vector<double> v(static_cast<size_t>(a.size()));
      for (double &s : v)
        s = pick_of(std::vector<double>{0, 1, 2, 3, 1, static_cast<double>(bits),
                                        static_cast<double>(bits + 1)});
      y.c = testutil::make(v, a.shape(), a.dtype());
    } else if (b.kind == LaxSame) {
      y = partner(x, true);
      if (b.f == lax::rem) { // divisor away from 0 (and from -1 for i8's -128 / -1)
        if (is_floating(a.dtype()))
          y.c = strata::abs(rand_array(a.shape(), a.dtype())) + as_weak(0.5), y.slot = -1;
        else
          y.c = strata::maximum(strata::abs(rand_array(a.shape(), a.dtype())),
                                astype(Array(1), a.dtype())),
          y.slot = -1;
      }
    } else {
      y = partner(x);
    }
    // Divisors move into a safe domain through a guard.
    std::string yt = nm(y);
    std::function<Array(const Array &)> guard = [](const Array &v) { return v; };
    Array yv = y.slot >= 0 ? val(y.slot) : y.c;
    if (b.kind == Div || b.kind == FloorLike) {
      if (is_floating(yv.dtype())) {
        if (!all_finite_satisfy(yv, [](double v) { return std::fabs(v) > 0.1; })) {
          guard = [](const Array &v) { return strata::abs(v) + as_weak(0.5); };
          yt = "abs(" + yt + ")+0.5";
        }
      } else {
        guard = [](const Array &v) { return strata::maximum(strata::abs(v), as_weak(1)); };
        yt = "maximum(abs(" + yt + "), 1)";
      }
    }
    std::string xt = nm(x);
    std::function<Array(const Array &)> xguard = [](const Array &v) { return v; };
    if (b.kind == Pow) {
      if (is_floating(a.dtype()) || is_floating(yv.dtype())) {
        if (!all_finite_satisfy(a, [](double v) { return v > 0.1; })) {
          xguard = [](const Array &v) { return strata::abs(v) + as_weak(0.5); };
          xt = "abs(" + xt + ")+0.5";
        }
        if (max_abs(yv) > 4)
          return std::nullopt;
      } else {
        if (known_bugs().int_power)
          return std::nullopt;
        if (!all_finite_satisfy(yv, [](double v) { return v >= 0 && v <= 3; }))
          return std::nullopt;
        if (!int_pow_fits(a, 3))
          return std::nullopt;
      }
    }
    if (known_bugs().atan2_zero_zero && (f_is(b, "arctan2") || f_is(b, "lax.atan2"))) {
      std::vector<Array> bw = broadcast_arrays({astype(a, float64), astype(yv, float64)});
      std::vector<double> p = testutil::values(bw[0]), q = testutil::values(bw[1]);
      for (size_t i = 0; i < p.size(); ++i)
        if ((p[i] == 0 && q[i] == 0) || (std::isinf(p[i]) && std::isinf(q[i])))
          return std::nullopt;
    }
    std::vector<int> args{x};
    if (y.slot >= 0)
      args.push_back(y.slot);
    F f = b.f;
    Cand c{b.name,
           std::string(b.name) + "(" + xt + ", " + yt + ")",
           args,
           one([=](const std::vector<Array> &env) {
             return f(xguard(env[x]), guard(y.get(env))); }),
           b.ex,
           {}};
    Kind kind = b.kind;
    c.margin = [this, x, y, guard, xguard, kind]() {
      Array u, w;
      try {
        u = xguard(val(x));
        w = guard(y.slot >= 0 ? val(y.slot) : y.c);
      } catch (const Error &) {
        return false;
      }
      double m = margin({u, w});
      if (kind == Cmp)
        return separated(u, w, m);
      if (kind == Logical)
        return off_zero(u, m) && off_zero(w, m);
      if (kind == FloorLike || kind == LaxSame) { // steps where x / y crosses an integer
        std::vector<Array> bw = broadcast_arrays({astype(u, float64), astype(w, float64)});
        std::vector<double> p = testutil::values(bw[0]), q = testutil::values(bw[1]);
        for (size_t i = 0; i < p.size(); ++i)
          p[i] /= q[i];
        return off_steps(p, m);
      }
      return false;
    };
    return c;
  }

  // A bool value broadcasting with x: one from the env, or a comparison made inline.
  std::optional<Cand> select_op() {
    int x = pick();
    const Array &a = val(x);
    Opd y = partner(x);
    int cnd = pick_where([&](const Array &b) {
      if (b.dtype() != bool_)
        return false;
      try {
        broadcast_shapes(a.shape(), b.shape());
        return true;
      } catch (const Error &) {
        return false;
      }
    });
    std::vector<int> args{x};
    if (y.slot >= 0)
      args.push_back(y.slot);
    if (cnd >= 0 && coin(0.8)) {
      args.push_back(cnd);
      if (coin(0.3) && val(cnd).shape() == a.shape()) { // lax.select: same shapes and types
        Opd z = partner(x, true);
        if (z.slot >= 0)
          args.push_back(z.slot);
        return Cand{"lax.select",
                    "lax.select(" + nm(cnd) + ", " + nm(x) + ", " + nm(z) + ")",
                    args,
                    one([=](const std::vector<Array> &env) {
                      return lax::select(env[cnd], env[x], z.get(env));
                    }),
                    Ex::Preserve,
                    {}};
      }
      return Cand{
          "where",
          "where(" + nm(cnd) + ", " + nm(x) + ", " + nm(y) + ")",
          args,
          one([=](const std::vector<Array> &env) { return where(env[cnd], env[x], y.get(env)); }),
          Ex::Preserve,
          {}};
    }
    // where(x > t, x, y): the condition is inline; t at a value of x makes ties for ints
    double t = a.size() ? testutil::values(a)[0] : 0;
    Cand c{"where",
           "where(greater(" + nm(x) + ", " + std::to_string(t) + "), " + nm(x) + ", " + nm(y) + ")",
           args,
           one([=](const std::vector<Array> &env) {
             return where(greater(env[x], as_weak(t)), env[x], y.get(env));
           }),
           Ex::Discrete,
           {}};
    c.margin = [this, x, t]() { return separated(val(x), Array(t), margin({val(x)})); };
    // Only the condition is discontinuous: the result is as exact as both branches.
    c.exact_out =
        exact_[static_cast<size_t>(x)] && (y.slot < 0 || exact_[static_cast<size_t>(y.slot)]);
    return c;
  }

  std::optional<Cand> clamp_op() {
    int x = pick();
    const Array &a = val(x);
    double lo = ri(-4, 1), hi = lo + ri(-1, 5);
    if (is_floating(a.dtype()))
      lo += 0.5, hi += 0.25;
    if (coin(0.5)) {
      if (a.dtype() == bool_)
        return std::nullopt;
      Array l = astype(Array(lo), a.dtype()), h = astype(Array(hi), a.dtype());
      return Cand{"lax.clamp",
                  "lax.clamp(" + Program::value_text(l) + ", " + nm(x) + ", " +
                      Program::value_text(h) + ")",
                  {x},
                  one([=](const std::vector<Array> &env) { return lax::clamp(l, env[x], h); }),
                  Ex::Preserve,
                  {}};
    }
    std::optional<Array> l, h;
    if (coin(0.8))
      l = as_weak(lo);
    if (coin(0.8) || !l)
      h = coin(0.7) ? as_weak(hi) : rand_array(compat_shape(a.shape()), a.dtype());
    std::string t = "clip(" + nm(x) + ", " + (l ? Program::value_text(*l) : "none") + ", " +
                    (h ? Program::value_text(*h) : "none") + ")";
    return Cand{
        "clip",       t,
        {x},          one([=](const std::vector<Array> &env) { return clip(env[x], l, h); }),
        Ex::Preserve, {}};
  }

  std::optional<Cand> convert_op() {
    int x = pick();
    const Array &a = val(x);
    DType dt = rand_dtype();
    if (is_floating(a.dtype()) && !is_floating(dt)) {
      double lo = -1e9, hi = 1e9;
      if (dt == int8)
        lo = -127, hi = 127;
      if (dt == uint8 || dt == uint32)
        lo = 0, hi = dt == uint8 ? 255 : 1e9;
      if (dt != bool_ &&
          (has_nonfinite(a) || !all_finite_satisfy(a, [&](double v) { return v > lo && v < hi; })))
        return std::nullopt; // out-of-range float->int is undefined
    }
    bool weak = coin(0.1);
    Cand c{"astype", "", {x}, {}, Ex::Preserve, {}};
    if (weak) {
      c.name = "lax.convert_element_type";
      c.text = "lax.convert_element_type(" + nm(x) + ", " + std::string(short_name(dt)) + ", weak)";
      c.fn = one([=](const std::vector<Array> &env) {
        return lax::convert_element_type(env[x], dt, true);
      });
    } else {
      c.text = "astype(" + nm(x) + ", " + std::string(short_name(dt)) + ")";
      c.fn = one([=](const std::vector<Array> &env) { return astype(env[x], dt); });
    }
    if (is_floating(a.dtype()) && !is_floating(dt)) {
      c.ex = Ex::Discrete;
      c.margin = [this, x, dt]() {
        double m = margin({val(x)});
        return dt == bool_ ? off_zero(val(x), m) : off_steps(testutil::values(val(x)), m);
      };
    }
    return c;
  }

  // Random axes of a rank-r array: all (nullopt) or a subset, sometimes negative.
  std::optional<std::vector<int>> rand_axes(int r) {
    if (r == 0 || coin(0.25))
      return std::nullopt;
    std::vector<int> ax;
    for (int i = 0; i < r; ++i)
      if (coin(0.5))
        ax.push_back(coin(0.2) ? i - r : i);
    std::shuffle(ax.begin(), ax.end(), rng_);
    return ax;
  }
  static std::string axes_text(const std::optional<std::vector<int>> &ax) {
    if (!ax)
      return "all";
    std::string s = "[";
    for (size_t i = 0; i < ax->size(); ++i)
      s += (i ? "," : "") + std::to_string((*ax)[i]);
    return s + "]";
  }
  static Axes to_axes(const std::optional<std::vector<int>> &ax) { return ax ? Axes(*ax) : Axes(); }
  static double reduced_count(const Array &a, const std::optional<std::vector<int>> &ax) {
    if (!ax)
      return static_cast<double>(a.size());
    double n = 1;
    for (int i : *ax)
      n *= static_cast<double>(a.shape(i));
    return n;
  }

  std::optional<Cand> reduce_op() {
    int x = pick();
    const Array &a = val(x);
    auto ax = rand_axes(a.ndim());
    bool keep = coin(0.3);
    using F = Array (*)(const Array &, Axes, bool);
    struct R {
      const char *name;
      F f;
      Ex ex;
    };
    static const std::vector<R> rs = {
        {"sum", strata::sum, Ex::Inexact},   {"prod", strata::prod, Ex::Inexact},
        {"max", strata::max, Ex::Preserve},  {"min", strata::min, Ex::Preserve},
        {"mean", strata::mean, Ex::Inexact}, {"all", strata::all, Ex::Discrete},
        {"any", strata::any, Ex::Discrete},  {"nn.logsumexp", nn::logsumexp, Ex::Inexact},
        {"var", nullptr, Ex::Inexact},       {"argmax", nullptr, Ex::Discrete},
        {"argmin", nullptr, Ex::Discrete},   {"lax.reduce", nullptr, Ex::Inexact},
    };
    const R &r = pick_of(rs);
    std::string name = r.name;
    std::string tail = ", " + axes_text(ax) + (keep ? ", keepdims)" : ")");
    if (name == "prod" && !int_pow_fits(a, reduced_count(a, ax)))
      return std::nullopt;
    if (known_bugs().bool_reductions &&
        (name == "all" || name == "any" ||
         (a.dtype() == bool_ && (name == "max" || name == "min" || name == "lax.reduce"))))
      return std::nullopt;
    if (r.f) {
      F f = r.f;
      Cand c{name, name + "(" + nm(x) + tail,
             {x},  one([=](const std::vector<Array> &env) { return f(env[x], to_axes(ax), keep); }),
             r.ex, {}};
      c.margin = [this, x]() { return off_zero(val(x), margin({val(x)})); };
      return c;
    }
    if (name == "var") {
      int ddof = ri(0, 1);
      bool sd = coin(0.5);
      return Cand{sd ? "std" : "var",
                  std::string(sd ? "std(" : "var(") + nm(x) + ", ddof=" + std::to_string(ddof) +
                      tail,
                  {x},
                  one([=](const std::vector<Array> &env) {
                    return sd ? strata::std(env[x], to_axes(ax), keep, ddof)
                              : var(env[x], to_axes(ax), keep, ddof);
                  }),
                  Ex::Inexact,
                  {}};
    }
    if (name == "lax.reduce") {
      std::vector<int64_t> axs;
      for (int i = 0; i < a.ndim(); ++i)
        if (coin(0.5))
          axs.push_back(i);
      int which = ri(0, 3);
      static const char *names[] = {"lax.reduce_sum", "lax.reduce_max", "lax.reduce_min",
                                    "lax.reduce_prod"};
      if (which == 3 && !int_pow_fits(a, static_cast<double>(a.size())))
        return std::nullopt;
      std::string t = std::string(names[which]) + "(" + nm(x) + ", [";
      for (size_t i = 0; i < axs.size(); ++i)
        t += (i ? "," : "") + std::to_string(axs[i]);
      return Cand{names[which],
                  t + "])",
                  {x},
                  one([=](const std::vector<Array> &env) {
                    switch (which) {
                    case 0:
                      return lax::reduce_sum(env[x], axs);
                    case 1:
                      return lax::reduce_max(env[x], axs);
                    case 2:
                      return lax::reduce_min(env[x], axs);
                    default:
                      return lax::reduce_prod(env[x], axs);
                    }
                  }),
                  which == 1 || which == 2 ? Ex::Preserve : Ex::Inexact,
                  {}};
    }
    // argmax/argmin: the extremum must be unique by a margin when x is inexact
    bool amax = name == "argmax";
    std::optional<int> axis;
    if (a.ndim() > 0 && coin(0.8))
      axis = ri(-a.ndim(), a.ndim() - 1);
    bool k2 = axis && keep;
    Cand c{name,
           name + "(" + nm(x) + ", " + (axis ? std::to_string(*axis) : "none") +
               (k2 ? ", keepdims)" : ")"),
           {x},
           one([=](const std::vector<Array> &env) {
             return amax ? argmax(env[x], axis, k2) : argmin(env[x], axis, k2);
           }),
           Ex::Discrete,
           {}};
    c.margin = [this, x, axis, amax]() {
      Array v = astype(val(x), float64);
      if (has_nonfinite(v))
        return false;
      if (!amax)
        v = -v;
      if (!axis)
        v = ravel(v);
      int ax2 = axis.value_or(0);
      if (v.ndim() == 0)
        return true;
      Array m = strata::max(v, ax2, true);
      Array near =
          greater_equal(v, m - (strata::abs(m) + as_weak(1.0)) * as_weak(margin({val(x)})));
      return max_abs(sum(astype(near, int32), ax2)) <= 1;
    };
    return c;
  }

  std::optional<Cand> cumulative_op() {
    int x = pick();
    const Array &a = val(x);
    int which = ri(0, 5);
    if (a.ndim() == 0 && which >= 2)
      return std::nullopt;
    std::optional<int> axis;
    if (a.ndim() > 0 && coin(0.8))
      axis = ri(-a.ndim(), a.ndim() - 1);
    if ((which == 1 || which == 3) &&
        !int_pow_fits(a, axis ? static_cast<double>(a.shape(*axis)) : a.size()))
      return std::nullopt;
    std::string ax = axis ? std::to_string(*axis) : "none";
    if (which <= 1)
      return Cand{which ? "cumprod" : "cumsum",
                  std::string(which ? "cumprod(" : "cumsum(") + nm(x) + ", " + ax + ")",
                  {x},
                  one([=](const std::vector<Array> &env) {
                    return which ? cumprod(env[x], axis) : cumsum(env[x], axis);
                  }),
                  Ex::Inexact,
                  {}};
    if (known_bugs().bool_reductions && a.dtype() == bool_ && which >= 4)
      return std::nullopt;
    int64_t d = ri(0, a.ndim() - 1);
    bool rev = coin(0.4);
    static const char *names[] = {"", "", "lax.cumsum", "lax.cumprod", "lax.cummax", "lax.cummin"};
    return Cand{names[which],
                std::string(names[which]) + "(" + nm(x) + ", " + std::to_string(d) +
                    (rev ? ", reverse)" : ")"),
                {x},
                one([=](const std::vector<Array> &env) {
                  switch (which) {
                  case 2:
                    return lax::cumsum(env[x], d, rev);
                  case 3:
                    return lax::cumprod(env[x], d, rev);
                  case 4:
                    return lax::cummax(env[x], d, rev);
                  default:
                    return lax::cummin(env[x], d, rev);
                  }
                }),
                which >= 4 ? Ex::Preserve : Ex::Inexact,
                {}};
  }

  static std::string shape_text(const Shape &s) {
    std::string t = "[";
    for (size_t i = 0; i < s.size(); ++i)
      t += (i ? "," : "") + std::to_string(s[i]);
    return t + "]";
  }
  template <class T> static std::string list_text(const std::vector<T> &s) {
    std::string t = "[";
    for (size_t i = 0; i < s.size(); ++i)
      t += (i ? "," : "") + std::to_string(s[i]);
    return t + "]";
  }

  // A random factorization of n into up to 4 dims, with 1s.
  Shape factor(int64_t n) {
    Shape s;
    while (n > 1 && s.size() < 3) {
      std::vector<int64_t> ds;
      for (int64_t d = 2; d <= n; ++d)
        if (n % d == 0)
          ds.push_back(d);
      int64_t d = coin(0.4) ? n : pick_of(ds);
      s.push_back(d);
      n /= d;
    }
    if (n > 1)
      s.push_back(n);
    if (s.size() < 4 && coin(0.3))
      s.insert(s.begin() + ri(0, static_cast<int>(s.size())), 1);
    std::shuffle(s.begin(), s.end(), rng_);
    return s;
  }

  std::optional<Cand> shape_op() {
    int x = pick();
    const Array &a = val(x);
    int r = a.ndim();
    auto mk = [&](std::string name, std::string args, std::function<Array(const Array &)> f) {
      return Cand{name,         name + "(" + nm(x) + args + ")",
                  {x},          one([=](const std::vector<Array> &env) { return f(env[x]); }),
                  Ex::Preserve, {}};
    };
    switch (ri(0, 10)) {
    case 0: {
      Shape s = factor(a.size());
      if (!s.empty() && coin(0.3))
        s[static_cast<size_t>(ri(0, static_cast<int>(s.size()) - 1))] = -1;
      return mk("reshape", ", " + shape_text(s), [s](const Array &v) { return reshape(v, s); });
    }
    case 1:
      return mk("ravel", "", [](const Array &v) { return ravel(v); });
    case 2: {
      if (r < 2 || coin(0.2))
        return mk("transpose", "", [](const Array &v) { return transpose(v); });
      std::vector<int> p(static_cast<size_t>(r));
      std::iota(p.begin(), p.end(), 0);
      std::shuffle(p.begin(), p.end(), rng_);
      return mk("transpose", ", " + list_text(p), [p](const Array &v) { return transpose(v, p); });
    }
    case 3: {
      if (r < 1)
        return std::nullopt;
      int i = ri(-r, r - 1), j = ri(0, r - 1);
      if (coin(0.5))
        return mk("swapaxes", ", " + std::to_string(i) + ", " + std::to_string(j),
                  [i, j](const Array &v) { return swapaxes(v, i, j); });
      return mk("moveaxis", ", " + std::to_string(i) + ", " + std::to_string(j),
                [i, j](const Array &v) { return moveaxis(v, i, j); });
    }
    case 4: {
      std::vector<int> ones;
      for (int i = 0; i < r; ++i)
        if (a.shape(i) == 1)
          ones.push_back(i);
      if (ones.empty() || coin(0.3))
        return mk("squeeze", "", [](const Array &v) { return squeeze(v); });
      int i = pick_of(ones);
      return mk("squeeze", ", " + std::to_string(i), [i](const Array &v) { return squeeze(v, i); });
    }
    case 5: {
      int k = ri(1, 2);
      std::vector<int> ax;
      for (int i = 0; i < k; ++i)
        ax.push_back(ri(0, r + k - 1));
      return mk("expand_dims", ", " + list_text(ax),
                [ax](const Array &v) { return expand_dims(v, ax); });
    }
    case 6: {
      Shape s = a.shape();
      for (int64_t &d : s)
        if (d == 1 && coin(0.6))
          d = ri(1, 4);
      if (s.size() < 4 && coin(0.5))
        s.insert(s.begin(), ri(1, 3));
      return mk("broadcast_to", ", " + shape_text(s),
                [s](const Array &v) { return broadcast_to(v, s); });
    }
    case 7: {
      int k = ri(0, 2);
      std::vector<int64_t> pos(static_cast<size_t>(r + k));
      std::iota(pos.begin(), pos.end(), 0);
      std::shuffle(pos.begin(), pos.end(), rng_);
      pos.resize(static_cast<size_t>(r));
      std::sort(pos.begin(), pos.end());
      Shape s(static_cast<size_t>(r + k));
      for (int64_t &d : s)
        d = ri(1, 3);
      for (int i = 0; i < r; ++i)
        s[static_cast<size_t>(pos[static_cast<size_t>(i)])] =
            a.shape(i) == 1 && coin(0.5) ? ri(1, 4) : a.shape(i);
      return mk("lax.broadcast_in_dim", ", " + shape_text(s) + ", " + list_text(pos),
                [s, pos](const Array &v) { return lax::broadcast_in_dim(v, s, pos); });
    }
    case 8: {
      auto ax = rand_axes(r);
      return mk("flip", ", " + axes_text(ax),
                [ax](const Array &v) { return flip(v, to_axes(ax)); });
    }
    case 9: {
      std::vector<int64_t> ax;
      for (int i = 0; i < r; ++i)
        if (coin(0.5))
          ax.push_back(i);
      return mk("lax.rev", ", " + list_text(ax), [ax](const Array &v) { return lax::rev(v, ax); });
    }
    default:
      return mk("T", "", [](const Array &v) { return v.T(); });
    }
  }

  // An index scalar for dynamic ops: an i32 rank-0 value of the env, or a constant.
  Opd index_scalar(int64_t n) {
    Opd o;
    if (coin(0.3))
      o.slot = pick_where([](const Array &b) { return b.ndim() == 0 && is_integer(b.dtype()); });
    if (o.slot < 0) {
      DType dt = coin(0.8) ? int32 : pick_of(std::vector<DType>{int8, uint8, uint32, int64});
      double v = ri(is_unsigned_integer(dt) ? 0 : -2, static_cast<int>(n) + 1);
      o.c = testutil::make({v}, {}, dt);
    }
    return o;
  }

  std::optional<Cand> index_op() {
    int x = pick_ranked(1);
    if (x < 0)
      return std::nullopt;
    const Array &a = val(x);
    int r = a.ndim();
    int which = ri(0, 4);
    if (which <= 1) { // numpy basic indexing
      std::vector<Index> idx;
      std::string t = nm(x) + "[";
      int dim = 0;
      bool ell = false;
      while (dim < r && (idx.empty() || coin(0.8))) {
        int64_t n = a.shape(dim);
        std::string e;
        double k = rd(0, 1);
        if (k < 0.25) {
          int64_t i = ri(static_cast<int>(-n), static_cast<int>(n) - 1);
          idx.emplace_back(i);
          e = std::to_string(i);
          ++dim;
        } else if (k < 0.35) {
          idx.emplace_back(NewAxis);
          e = "None";
        } else if (k < 0.42 && !ell) {
          idx.emplace_back(Ellipsis);
          e = "...";
          ell = true;
          dim = r; // the ellipsis takes the remaining dims; stop here
        } else {
          std::optional<int64_t> s0, s1;
          if (coin(0.6))
            s0 = ri(static_cast<int>(-n) - 1, static_cast<int>(n) + 1);
          if (coin(0.6))
            s1 = ri(static_cast<int>(-n) - 1, static_cast<int>(n) + 1);
          int64_t st = pick_of(std::vector<int64_t>{1, 1, 1, 2, 3, -1, -2});
          idx.emplace_back(Slice(s0, s1, st));
          e = (s0 ? std::to_string(*s0) : "") + ":" + (s1 ? std::to_string(*s1) : "") + ":" +
              std::to_string(st);
          ++dim;
        }
        t += (idx.size() > 1 ? ", " : "") + e;
      }
      return Cand{
          "index",      t + "]",
          {x},          one([=](const std::vector<Array> &env) { return index(env[x], idx); }),
          Ex::Preserve, {}};
    }
    if (which == 2) { // lax.slice
      std::vector<int64_t> s0, s1, st;
      for (int i = 0; i < r; ++i) {
        int n = static_cast<int>(a.shape(i));
        s0.push_back(ri(0, n));
        s1.push_back(ri(static_cast<int>(s0.back()), n));
        st.push_back(ri(1, 3));
      }
      return Cand{
          "lax.slice",
          "lax.slice(" + nm(x) + ", " + list_text(s0) + ", " + list_text(s1) + ", " +
              list_text(st) + ")",
          {x},
          one([=](const std::vector<Array> &env) { return lax::slice(env[x], s0, s1, st); }),
          Ex::Preserve,
          {}};
    }
    // dynamic_slice / dynamic_update_slice: starts may be out of range (clamped)
    std::vector<Opd> starts;
    std::vector<int> args{x};
    std::string st = "[";
    Shape sizes;
    for (int i = 0; i < r; ++i) {
      starts.push_back(index_scalar(a.shape(i)));
      if (starts.back().slot >= 0)
        args.push_back(starts.back().slot);
      st += (i ? ", " : "") + nm(starts.back());
      sizes.push_back(ri(1, static_cast<int>(a.shape(i))));
    }
    st += "]";
    auto get_starts = [starts](const std::vector<Array> &env) {
      std::vector<Array> s;
      for (const Opd &o : starts)
        s.push_back(o.get(env));
      return s;
    };
    if (which == 3)
      return Cand{"lax.dynamic_slice",
                  "lax.dynamic_slice(" + nm(x) + ", " + st + ", " + shape_text(sizes) + ")",
                  args,
                  one([=](const std::vector<Array> &env) {
                    return lax::dynamic_slice(env[x], get_starts(env), sizes);
                  }),
                  Ex::Preserve,
                  {}};
    Opd u;
    u.slot =
        pick_where([&](const Array &b) { return b.shape() == sizes && b.dtype() == a.dtype(); });
    if (u.slot < 0)
      u.c = rand_array(sizes, a.dtype());
    else
      args.push_back(u.slot);
    return Cand{"lax.dynamic_update_slice",
                "lax.dynamic_update_slice(" + nm(x) + ", " + nm(u) + ", " + st + ")",
                args,
                one([=](const std::vector<Array> &env) {
                  return lax::dynamic_update_slice(env[x], u.get(env), get_starts(env));
                }),
                Ex::Preserve,
                {}};
  }

  std::optional<Cand> concat_op() {
    int x = pick_ranked(1);
    if (x < 0)
      return std::nullopt;
    const Array &a = val(x);
    int r = a.ndim();
    int axis = ri(-r, r - 1);
    int ax = axis < 0 ? axis + r : axis;
    int which = ri(0, 2);
    if (which == 2) { // split into equal sections or at indices
      int64_t n = a.shape(ax);
      if (coin(0.5)) {
        std::vector<int64_t> ds;
        for (int64_t d = 1; d <= n; ++d)
          if (n % d == 0)
            ds.push_back(d);
        if (ds.empty())
          return std::nullopt;
        int64_t k = pick_of(ds);
        return Cand{
            "split",
            "split(" + nm(x) + ", " + std::to_string(k) + ", axis=" + std::to_string(axis) + ")",
            {x},
            [=](const std::vector<Array> &env) { return split(env[x], k, axis); },
            Ex::Preserve,
            {}};
      }
      std::vector<int64_t> at;
      for (int k = ri(1, 2); k > 0; --k)
        at.push_back(ri(0, static_cast<int>(n)));
      std::sort(at.begin(), at.end());
      return Cand{"split",
                  "split(" + nm(x) + ", " + list_text(at) + ", axis=" + std::to_string(axis) + ")",
                  {x},
                  [=](const std::vector<Array> &env) { return split(env[x], at, axis); },
                  Ex::Preserve,
                  {}};
    }
    std::vector<Opd> parts{Opd{x, {}}};
    std::vector<int> args{x};
    for (int k = ri(1, 2); k > 0; --k) {
      Opd o;
      if (which == 0) { // concatenate: same dims except on the axis
        o.slot = pick_where([&](const Array &b) {
          if (b.ndim() != r)
            return false;
          for (int i = 0; i < r; ++i)
            if (i != ax && b.shape(i) != a.shape(i))
              return false;
          return true;
        });
        if (o.slot < 0 || coin(0.3)) {
          Shape s = a.shape();
          s[static_cast<size_t>(ax)] = ri(1, 3);
          o.slot = -1;
          o.c = rand_array(s, coin(0.8) ? a.dtype() : rand_dtype());
        }
      } else { // stack: same shape
        o.slot = pick_where([&](const Array &b) { return b.shape() == a.shape(); });
        if (o.slot < 0)
          o.slot = x;
      }
      if (o.slot >= 0)
        args.push_back(o.slot);
      parts.push_back(o);
    }
    std::string t;
    for (const Opd &o : parts)
      t += (t.empty() ? "" : ", ") + nm(o);
    auto get = [parts](const std::vector<Array> &env) {
      std::vector<Array> v;
      for (const Opd &o : parts)
        v.push_back(o.get(env));
      return v;
    };
    if (which == 0)
      return Cand{"concatenate",
                  "concatenate([" + t + "], " + std::to_string(axis) + ")",
                  args,
                  one([=](const std::vector<Array> &env) {
                    return concatenate(get(env), axis); }),
                  Ex::Preserve,
                  {}};
    int sax = ri(-r - 1, r);
    return Cand{
        "stack",      "stack([" + t + "], " + std::to_string(sax) + ")",
        args,         one([=](const std::vector<Array> &env) { return stack(get(env), sax); }),
        Ex::Preserve, {}};
  }

  std::optional<Cand> pad_op() {
    int x = pick();
    const Array &a = val(x);
    std::vector<int64_t> lo, hi, in;
    for (int i = 0; i < a.ndim(); ++i) {
      lo.push_back(ri(-1, 2));
      hi.push_back(ri(-1, 2));
      in.push_back(coin(0.3) ? ri(1, 2) : 0);
    }
    Array pv = astype(Array(pick_of(std::vector<double>{0, 1, -2.5, 7})), a.dtype());
    return Cand{
        "lax.pad",
        "lax.pad(" + nm(x) + ", " + Program::value_text(pv) + ", " + list_text(lo) + ", " +
            list_text(hi) + ", " + list_text(in) + ")",
        {x},
        one([=](const std::vector<Array> &env) { return lax::pad(env[x], pv, lo, hi, in); }),
        Ex::Preserve,
        {}};
  }

  std::optional<Cand> contract_op() {
    int x = pick();
    const Array &a = val(x);
    int r = a.ndim();
    int which = ri(0, 2);
    if (which == 0) { // matmul
      if (r == 0)
        return std::nullopt;
      int64_t k = a.shape(-1);
      Opd y;
      y.slot = pick_where([&](const Array &b) {
        return (b.ndim() == 1 && b.shape(0) == k) || (b.ndim() >= 2 && b.shape(-2) == k);
      });
      if (y.slot < 0 || coin(0.4)) {
        y.slot = -1;
        Shape s{k};
        if (coin(0.7))
          s.push_back(ri(1, 4));
        if (r >= 3 && coin(0.5))
          s.insert(s.begin(), coin(0.5) ? 1 : a.shape(0));
        y.c = rand_array(s, coin(0.85) ? a.dtype() : rand_dtype());
      }
      std::vector<int> args{x};
      if (y.slot >= 0)
        args.push_back(y.slot);
      bool swap = coin(0.3) && y.slot >= 0;
      std::string t =
          swap ? "matmul(" + nm(y) + ", " + nm(x) + ")" : "matmul(" + nm(x) + ", " + nm(y) + ")";
      return Cand{"matmul",
                  t,
                  args,
                  one([=](const std::vector<Array> &env) {
                    return swap ? matmul(y.get(env), env[x]) : matmul(env[x], y.get(env));
                  }),
                  Ex::Inexact,
                  {}};
    }
    if (which == 1) { // einsum with random subscripts
      if (r > 3)
        return std::nullopt;
      std::string xs, ys, letters = "abcdefgh";
      std::map<char, int64_t> size;
      size_t next = 0;
      for (int i = 0; i < r; ++i) {
        // a repeated letter (a diagonal) when two dims agree
        if (i > 0 && a.shape(i) == a.shape(0) && coin(0.15)) {
          xs += xs[0];
          continue;
        }
        char ch = letters[next++];
        xs += ch;
        size[ch] = a.shape(i);
      }
      Opd y;
      bool two = coin(0.7);
      if (two) {
        y.slot = pick_where([](const Array &b) { return b.ndim() <= 3; });
        if (y.slot < 0 || coin(0.3)) {
          y.slot = -1;
          Shape s;
          for (int i = ri(0, 3); i > 0; --i)
            s.push_back(ri(1, 4));
          y.c = rand_array(s, coin(0.85) ? a.dtype() : rand_dtype());
        }
        const Array &b = y.slot >= 0 ? val(y.slot) : y.c;
        for (int i = 0; i < b.ndim(); ++i) {
          std::vector<char> same;
          for (auto &[ch, n] : size)
            if (n == b.shape(i) && ys.find(ch) == std::string::npos)
              same.push_back(ch);
          if (!same.empty() && coin(0.7)) {
            ys += pick_of(same);
          } else {
            char ch = letters[next++];
            ys += ch;
            size[ch] = b.shape(i);
          }
        }
      }
      std::string out;
      for (auto &[ch, n] : size)
        if (coin(0.5))
          out += ch;
      std::shuffle(out.begin(), out.end(), rng_);
      std::string sub = xs + (two ? "," + ys : "") + "->" + out;
      std::vector<int> args{x};
      if (y.slot >= 0)
        args.push_back(y.slot);
      return Cand{"einsum",
                  "einsum('" + sub + "', " + nm(x) + (two ? ", " + nm(y) : "") + ")",
                  args,
                  one([=](const std::vector<Array> &env) {
                    if (two)
                      return einsum(sub, {env[x], y.get(env)});
                    return einsum(sub, {env[x]});
                  }),
                  Ex::Inexact,
                  {}};
    }
    // lax.dot_general: random contracting and batch dims, rhs built to match
    std::vector<int64_t> lc, lb, rc, rb;
    std::vector<int64_t> dims(static_cast<size_t>(r));
    std::iota(dims.begin(), dims.end(), 0);
    std::shuffle(dims.begin(), dims.end(), rng_);
    Shape ys;
    for (int64_t d : dims) {
      double k = rd(0, 1);
      if (k < 0.4) {
        lc.push_back(d);
      } else if (k < 0.55 && lb.empty()) {
        lb.push_back(d);
      }
    }
    // rhs layout: [free?, batch, contracting..., free?] in a random order
    std::vector<std::pair<int, int64_t>> rd_; // (kind 0 batch/1 contract/2 free, size)
    for (int64_t d : lb)
      rd_.push_back({0, a.shape(static_cast<int>(d))});
    for (int64_t d : lc)
      rd_.push_back({1, a.shape(static_cast<int>(d))});
    for (int k = ri(0, 1); k > 0; --k)
      rd_.push_back({2, ri(1, 4)});
    std::vector<size_t> order(rd_.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng_);
    rc.assign(lc.size(), 0);
    rb.assign(lb.size(), 0);
    for (size_t pos = 0; pos < order.size(); ++pos) {
      size_t i = order[pos];
      ys.push_back(rd_[i].second);
      if (rd_[i].first == 0)
        rb[0] = static_cast<int64_t>(pos);
      else if (rd_[i].first == 1)
        rc[i - lb.size()] = static_cast<int64_t>(pos);
    }
    Array yc = rand_array(ys, a.dtype());
    lax::DotDimensionNumbers dn{lc, rc, lb, rb};
    std::optional<DType> pref;
    if (coin(0.15))
      pref = is_floating(a.dtype()) ? float32 : int32;
    std::string t = "lax.dot_general(" + nm(x) + ", " + Program::value_text(yc) + ", contract " +
                    list_text(lc) + "x" + list_text(rc) + ", batch " + list_text(lb) + "x" +
                    list_text(rb) + (pref ? ", preferred " + std::string(short_name(*pref)) : "") +
                    ")";
    return Cand{
        "lax.dot_general",
        t,
        {x},
        one([=](const std::vector<Array> &env) { return lax::dot_general(env[x], yc, dn, pref); }),
        Ex::Inexact,
        {}};
  }

  // Integer index values in [-n-1, n+1]: negative ones wrap once, the rest are clamped.
  Array index_array(const Shape &s, int64_t n) {
    DType dt = coin(0.8) ? int32 : pick_of(std::vector<DType>{int8, uint8, int64, uint32});
    std::vector<double> v(static_cast<size_t>(num_elements(s)));
    for (double &i : v)
      i = ri(is_unsigned_integer(dt) ? 0 : -static_cast<int>(n) - 1, static_cast<int>(n) + 1);
    return testutil::make(v, s, dt);
  }

  std::optional<Cand> gather_op() {
    int x = pick();
    const Array &a = val(x);
    int r = a.ndim();
    int which = ri(0, 4);
    if (which == 4) { // nn.one_hot of an integer value
      int i = pick_where([](const Array &b) { return is_integer(b.dtype()); });
      if (i < 0)
        return std::nullopt;
      int64_t n = ri(1, 5);
      DType dt = pick_of(std::vector<DType>{float32, int32, bool_, float64});
      return Cand{"nn.one_hot",
                  "nn.one_hot(" + nm(i) + ", " + std::to_string(n) + ", " +
                      std::string(short_name(dt)) + ")",
                  {i},
                  one([=](const std::vector<Array> &env) { return nn::one_hot(env[i], n, dt); }),
                  Ex::Preserve,
                  {}};
    }
    if (r == 0)
      return std::nullopt;
    int axis = ri(-r, r - 1);
    int ax = axis < 0 ? axis + r : axis;
    Opd idx;
    int64_t n = a.shape(ax);
    if (which == 0) { // take along an axis or the flattened array
      bool flat = coin(0.2);
      if (coin(0.3))
        idx.slot =
            pick_where([](const Array &b) { return is_integer(b.dtype()) && b.ndim() <= 2; });
      if (idx.slot < 0) {
        Shape s;
        for (int k = ri(0, 2); k > 0; --k)
          s.push_back(ri(1, 4));
        idx.c = index_array(s, flat ? a.size() : n);
      }
      std::vector<int> args{x};
      if (idx.slot >= 0)
        args.push_back(idx.slot);
      std::optional<int> tax;
      if (!flat)
        tax = axis;
      return Cand{
          "take",
          "take(" + nm(x) + ", " + nm(idx) + ", " + (flat ? "none" : std::to_string(axis)) + ")",
          args,
          one([=](const std::vector<Array> &env) { return take(env[x], idx.get(env), tax); }),
          Ex::Preserve,
          {}};
    }
    if (which == 1) { // take_along_axis
      Shape s = a.shape();
      for (int i = 0; i < r; ++i)
        s[static_cast<size_t>(i)] = i == ax ? ri(1, 4) : (coin(0.2) ? 1 : a.shape(i));
      Array ic = index_array(s, n);
      return Cand{
          "take_along_axis",
          "take_along_axis(" + nm(x) + ", " + Program::value_text(ic) + ", " +
              std::to_string(axis) + ")",
          {x},
          one([=](const std::vector<Array> &env) { return take_along_axis(env[x], ic, axis); }),
          Ex::Preserve,
          {}};
    }
    if (which == 2) { // advanced indexing: x[idx] or x[:, idx]
      bool second = r >= 2 && coin(0.5);
      Shape s;
      for (int k = ri(1, 2); k > 0; --k)
        s.push_back(ri(1, 3));
      Array ic = index_array(s, a.shape(second ? 1 : 0));
      return Cand{"index_array",
                  nm(x) + "[" + (second ? ":, " : "") + Program::value_text(ic) + "]",
                  {x},
                  one([=](const std::vector<Array> &env) {
                    if (second)
                      return index(env[x], {Slice(), ic});
                    return index(env[x], {ic});
                  }),
                  Ex::Preserve,
                  {}};
    }
    // lax.scatter_add / lax.scatter into rows of x
    int64_t rows = a.shape(0);
    int64_t k = ri(1, 3);
    bool add = coin(0.6);
    std::vector<double> iv;
    std::vector<int64_t> perm(static_cast<size_t>(rows));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng_);
    for (int64_t i = 0; i < k; ++i) {
      if (add)
        iv.push_back(coin(0.15) ? static_cast<double>(rows) + ri(0, 1)
                                : ri(0, static_cast<int>(rows) - 1));
      else if (i < rows)
        iv.push_back(static_cast<double>(perm[static_cast<size_t>(i)])); // distinct: no order
    }
    k = static_cast<int64_t>(iv.size());
    Array ic = testutil::make(iv, {k, 1}, int32);
    Shape us{k};
    us.insert(us.end(), a.shape().begin() + 1, a.shape().end());
    Array uc = rand_array(us, a.dtype());
    std::vector<int64_t> win;
    for (int i = 1; i < r; ++i)
      win.push_back(i);
    lax::ScatterDimensionNumbers dn{win, {0}, {0}};
    return Cand{add ? "lax.scatter_add" : "lax.scatter",
                std::string(add ? "lax.scatter_add(" : "lax.scatter(") + nm(x) + ", rows " +
                    Program::value_text(ic) + ", " + Program::value_text(uc) + ")",
                {x},
                one([=](const std::vector<Array> &env) {
                  return add ? lax::scatter_add(env[x], ic, uc, dn)
                             : lax::scatter(env[x], ic, uc, dn);
                }),
                add ? Ex::Inexact : Ex::Preserve,
                {}};
  }

  std::optional<Cand> sort_op() {
    int x = pick_ranked(1);
    if (x < 0)
      return std::nullopt;
    const Array &a = val(x);
    int64_t d = ri(-a.ndim(), a.ndim() - 1);
    int y = -1;
    if (coin(0.4) && exact_[static_cast<size_t>(x)])
      y = pick_where([&](const Array &b) { return b.shape() == a.shape(); });
    if (y < 0)
      return Cand{
          "lax.sort",   "lax.sort([" + nm(x) + "], " + std::to_string(d) + ")",
          {x},          [=](const std::vector<Array> &env) { return lax::sort({env[x]}, d); },
          Ex::Preserve, {}};
    // keys exact, so ties are ties in both and the stable order carries y the same way
    return Cand{"lax.sort2",
                "lax.sort([" + nm(x) + ", " + nm(y) + "], " + std::to_string(d) + ", keys=1)",
                {x, y},
                [=](const std::vector<Array> &env) { return lax::sort({env[x], env[y]}, d, 1); },
                Ex::Preserve,
                {}};
  }

  std::optional<Cand> nn_op() {
    int x = pick_float();
    if (x < 0)
      return std::nullopt;
    const Array &a = val(x);
    int r = a.ndim();
    int which = ri(0, 3);
    if (which <= 1) {
      std::optional<std::vector<int>> ax;
      if (r > 0)
        ax = std::vector<int>{ri(-r, r - 1)};
      if (coin(0.2))
        ax = rand_axes(r);
      bool lsm = which == 1;
      return Cand{
          lsm ? "nn.log_softmax" : "nn.softmax",
          std::string(lsm ? "nn.log_softmax(" : "nn.softmax(") + nm(x) + ", " + axes_text(ax) + ")",
          {x},
          one([=](const std::vector<Array> &env) {
            return lsm ? nn::log_softmax(env[x], to_axes(ax)) : nn::softmax(env[x], to_axes(ax));
          }),
          Ex::Inexact,
          {}};
    }
    if (r == 0 || has_nonfinite(a))
      return std::nullopt;
    // Normalizing a near-constant row amplifies rounding by 1/sqrt(eps): keep rows spread out.
    Array v = astype(a, float64);
    if (max_abs(var(v, -1)) < 1e-2 ||
        !all_finite_satisfy(var(v, -1), [](double s) { return s > 1e-2; }))
      return std::nullopt;
    int64_t n = a.shape(-1);
    std::optional<Array> scale, bias;
    if (coin(0.5))
      scale = rand_array({n}, a.dtype());
    if (coin(0.5))
      bias = rand_array({n}, a.dtype());
    if (which == 2)
      return Cand{
          "nn.layer_norm",
          "nn.layer_norm(" + nm(x) + (scale ? ", scale " + Program::value_text(*scale) : "") +
              (bias ? ", bias " + Program::value_text(*bias) : "") + ")",
          {x},
          one([=](const std::vector<Array> &env) { return nn::layer_norm(env[x], scale, bias); }),
          Ex::Inexact,
          {}};
    return Cand{"nn.rms_norm",
                "nn.rms_norm(" + nm(x) + (scale ? ", scale " + Program::value_text(*scale) : "") +
                    ")",
                {x},
                one([=](const std::vector<Array> &env) { return nn::rms_norm(env[x], scale); }),
                Ex::Inexact,
                {}};
  }

  std::optional<Cand> create_op() {
    int which = ri(0, 6);
    if (which == 0) { // x + arange(last dim)
      int x = pick_ranked(1);
      if (x < 0)
        return std::nullopt;
      int64_t n = val(x).shape(-1);
      return Cand{
          "arange",    "add(" + nm(x) + ", arange(" + std::to_string(n) + "))",
          {x},         one([=](const std::vector<Array> &env) { return env[x] + arange(n); }),
          Ex::Inexact, {}};
    }
    if (which == 1) { // x * iota(x's shape) along a random dim
      int x = pick_ranked(1);
      if (x < 0)
        return std::nullopt;
      const Array &a = val(x);
      int64_t d = ri(0, a.ndim() - 1);
      DType dt = a.dtype() == bool_ ? int32 : a.dtype();
      Shape s = a.shape();
      return Cand{"lax.iota",
                  "multiply(" + nm(x) + ", lax.iota(" + std::string(short_name(dt)) + ", " +
                      shape_text(s) + ", " + std::to_string(d) + "))",
                  {x},
                  one([=](const std::vector<Array> &env) { return env[x] * lax::iota(dt, s, d); }),
                  Ex::Inexact,
                  {}};
    }
    if (which == 2) {
      double a0 = ri(-3, 2) * 0.5, st = pick_of(std::vector<double>{0.5, 1, 0.25, -0.5});
      double b0 = a0 + st * ri(1, 6);
      return Cand{"arange_f",
                  "arange(" + std::to_string(a0) + ", " + std::to_string(b0) + ", " +
                      std::to_string(st) + ")",
                  {},
                  one([=](const std::vector<Array> &) { return arange(a0, b0, st); }),
                  Ex::Inexact,
                  {}};
    }
    if (which == 3) {
      int64_t n = ri(1, 6);
      bool ep = coin(0.7);
      DType dt = coin(0.7) ? float32 : float64;
      return Cand{"linspace",
                  "linspace(-1, 2, " + std::to_string(n) + (ep ? "" : ", no endpoint") + ", " +
                      std::string(short_name(dt)) + ")",
                  {},
                  one([=](const std::vector<Array> &) { return linspace(-1, 2, n, ep, dt); }),
                  Ex::Inexact,
                  {}};
    }
    if (which == 4) {
      int64_t n = ri(1, 4), m = ri(1, 4), k = ri(-1, 1);
      DType dt = rand_dtype();
      return Cand{"eye",
                  "eye(" + std::to_string(n) + ", " + std::to_string(m) + ", " + std::to_string(k) +
                      ", " + std::string(short_name(dt)) + ")",
                  {},
                  one([=](const std::vector<Array> &) { return eye(n, m, k, dt); }),
                  Ex::Preserve,
                  {}};
    }
    int x = pick();
    double v = pick_of(std::vector<double>{0, 1, -2, 0.5});
    if (which == 5)
      return Cand{
          "full_like",  "full_like(" + nm(x) + ", " + std::to_string(v) + ")",
          {x},          one([=](const std::vector<Array> &env) { return full_like(env[x], v); }),
          Ex::Preserve, {}};
    Shape s = compat_shape(val(x).shape());
    DType dt = rand_dtype();
    return Cand{"full",
                "full(" + shape_text(s) + ", " + std::to_string(v) + ", " +
                    std::string(short_name(dt)) + ")",
                {},
                one([=](const std::vector<Array> &) { return full(s, v, dt); }),
                Ex::Preserve,
                {}};
  }

  std::optional<Cand> misc_op() {
    int x = pick();
    const Array &a = val(x);
    int which = ri(0, 2);
    if (which == 0) { // lax.integer_pow
      int64_t n = ri(-2, 4);
      if (n < 0 && (!is_floating(a.dtype()) ||
                    !all_finite_satisfy(a, [](double v) { return std::fabs(v) > 0.2; })))
        return std::nullopt;
      if (!int_pow_fits(a, static_cast<double>(std::max<int64_t>(n, 1))))
        return std::nullopt;
      return Cand{"lax.integer_pow",
                  "lax.integer_pow(" + nm(x) + ", " + std::to_string(n) + ")",
                  {x},
                  one([=](const std::vector<Array> &env) { return lax::integer_pow(env[x], n); }),
                  Ex::Inexact,
                  {}};
    }
    if (which == 1) { // bitcast between types of one itemsize; needs exact bits
      static const std::vector<std::vector<DType>> groups = {
          {int8, uint8}, {float16, bfloat16}, {int32, uint32, float32}, {int64, float64}};
      for (const auto &g : groups)
        if (std::find(g.begin(), g.end(), a.dtype()) != g.end()) {
          DType dt = pick_of(g);
          if (is_floating(a.dtype()) && has_nonfinite(a))
            return std::nullopt; // NaN payloads may differ
          return Cand{"lax.bitcast_convert_type",
                      "lax.bitcast_convert_type(" + nm(x) + ", " + std::string(short_name(dt)) +
                          ")",
                      {x},
                      one([=](const std::vector<Array> &env) {
                        return lax::bitcast_convert_type(env[x], dt);
                      }),
                      Ex::Discrete,
                      {}};
        }
      return std::nullopt;
    }
    // lax.threefry2x32 on u32 values
    if (a.dtype() != uint32)
      return std::nullopt;
    Array k0 = rand_array(a.shape(), uint32), k1 = rand_array(a.shape(), uint32);
    int y =
        pick_where([&](const Array &b) { return b.dtype() == uint32 && b.shape() == a.shape(); });
    return Cand{"lax.threefry2x32",
                "lax.threefry2x32(" + Program::value_text(k0) + ", " + Program::value_text(k1) +
                    ", " + nm(x) + ", " + nm(y) + ")",
                {x, y},
                [=](const std::vector<Array> &env) {
                  auto [o0, o1] = lax::threefry2x32(k0, k1, env[x], env[y]);
                  return std::vector<Array>{o0, o1};
                },
                Ex::Preserve,
                {}};
  }

  std::mt19937_64 rng_;
  Program p_;
  std::vector<Array> env_;
  std::vector<bool> exact_, nonfinite_;
  std::vector<int> canon_; // per slot: id of its expression's structure
  std::map<std::string, int> canon_ids_;
  std::map<std::string, int> counts_;
  int ops_ = 0;
};

} // namespace strata::fuzz
