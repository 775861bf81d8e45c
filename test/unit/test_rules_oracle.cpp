// The transform-rule oracle table (design.md section 7): one row per registered primitive, and
// the same independent checks run over every row:
//   HasRules      batch rule always; jvp and vjp unless kNonDifferentiable,
//   Jvp           jvp vs central finite differences in float64,
//   SecondOrder   jvp of jvp, and jvp of the vjp, vs finite differences of the first-order rule,
//   VjpTranspose  <v, J u> == <J^T v, u> between jvp_flat and vjp_flat,
//   Vmap          vmap vs a per-example loop, in_axes 0, 1, -1 and kNotBatched operands,
//   NestedVmap    vmap of vmap vs a double loop,
//   EvalShape     eval_shape_flat vs the shapes that eval produces.
// The suite is instantiated over every registered primitive as well as every row, so a primitive
// without a row shows up as its own failing case ("a primitive without a rule is a test
// failure").
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "primitive_table.h"
#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {
// ---- Helpers over flat lists of arrays --------------------------------------------------------

// A random direction for the float operands; zeros of the operand's type for the others.
std::vector<Array> direction(Rng &rng, const std::vector<Array> &x) {
  std::vector<Array> u;
  for (const Array &a : x)
    u.push_back(floating(a) ? lax::convert_element_type(uniform(rng, a.shape()), a.dtype())
                            : zeros_like(a));
  return u;
}

double max_abs(const std::vector<double> &v) {
  double m = 0;
  for (double x : v)
    m = std::max(m, std::fabs(x));
  return m;
}

// got ~= want elementwise, within tol relative to the larger of 1 and want's largest entry.
void expect_vectors_near(const std::vector<double> &got, const std::vector<double> &want,
                         double tol, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = std::max(1.0, max_abs(want));
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * scale) << what << " at flat index " << i;
}

// ---- The parameterized suite ------------------------------------------------------------------

class RulesOracle : public ::testing::TestWithParam<std::string> {
protected:
  const Primitive *prim() const { return find_primitive(GetParam()); }
  // The row under test, or nullptr (the HasRow case reports that).
  const Row *row() const {
    auto it = rows().find(GetParam());
    return it == rows().end() ? nullptr : &it->second;
  }
  // Differentiation checks apply to differentiable primitives with float operands.
  bool differentiable(const Row &r, const std::vector<Array> &x) const {
    const Primitive *p = prim();
    if (!p || p->has(kNonDifferentiable) || !r.no_derivative.empty())
      return false;
    return std::any_of(x.begin(), x.end(), floating);
  }
};

#define REQUIRE_ROW(r)                                                                             \
  const Row *r = row();                                                                            \
  if (!r)                                                                                          \
    GTEST_SKIP() << "no row (reported by HasRow)";

TEST_P(RulesOracle, HasRow) {
  EXPECT_NE(prim(), nullptr) << "row '" << GetParam() << "' names no registered primitive";
  EXPECT_NE(row(), nullptr) << "primitive '" << GetParam() << "' has no row in the oracle table";
}

TEST_P(RulesOracle, HasRules) {
  const Primitive *p = prim();
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(static_cast<bool>(p->batch)) << p->name << " has no batch rule";
  if (!p->has(kNonDifferentiable)) {
    EXPECT_TRUE(p->jvp || p->fwd_jvp) << p->name << " has no jvp rule";
    EXPECT_TRUE(p->vjp || p->fwd_vjp) << p->name << " has no vjp rule";
  }
}

TEST_P(RulesOracle, Jvp) {
  REQUIRE_ROW(r);
  Rng rng = rng_for(r->name);
  std::vector<Array> x = r->gen(rng);
  if (!differentiable(*r, x))
    GTEST_SKIP() << "not differentiable";
  for (int trial = 0; trial < 2; ++trial) {
    std::vector<Array> u = direction(rng, x);
    auto [y, ty] = jvp_flat(r->fn, x, u);
    std::vector<Array> y0 = r->fn(x);
    ASSERT_EQ(y.size(), y0.size());
    for (size_t i = 0; i < y.size(); ++i) {
      expect_matches(y[i], y0[i], Tolerance::exact(), "jvp primal output " + std::to_string(i));
      EXPECT_EQ(ty[i].type_str(), y[i].type_str()) << "tangent of output " << i;
    }
    std::vector<double> want;
    if (r->zero_derivative) {
      want.assign(flat_floats(y).size(), 0.0);
    } else {
      std::vector<double> hi = flat_floats(r->fn(shifted(x, u, r->fd_step)));
      std::vector<double> lo = flat_floats(r->fn(shifted(x, u, -r->fd_step)));
      for (size_t k = 0; k < hi.size(); ++k)
        want.push_back((hi[k] - lo[k]) / (2 * r->fd_step));
    }
    expect_vectors_near(flat_floats(ty), want, r->fd_tol, "jvp vs finite differences");
  }
}

TEST_P(RulesOracle, SecondOrder) {
  REQUIRE_ROW(r);
  Rng rng = rng_for(r->name);
  std::vector<Array> x = r->gen(rng);
  if (!differentiable(*r, x))
    GTEST_SKIP() << "not differentiable";
  if (!r->first_order_only.empty())
    GTEST_SKIP() << r->first_order_only;
  std::vector<Array> u = direction(rng, x), w = direction(rng, x);
  std::vector<Array> y = r->fn(x);
  std::vector<Array> v;
  for (const Array &o : y)
    v.push_back(floating(o) ? lax::convert_element_type(uniform(rng, o.shape()), o.dtype())
                            : zeros_like(o));
  // First-order rules as functions of the primal point: the jvp along u, and the vjp of v.
  FlatFn jvp_u = [&](const std::vector<Array> &p) { return jvp_flat(r->fn, p, u).second; };
  FlatFn vjp_v = [&](const std::vector<Array> &p) {
    std::vector<Array> g = vjp_flat(r->fn, p).pullback(v);
    std::vector<Array> out;
    for (size_t i = 0; i < g.size(); ++i)
      if (floating(p[i]))
        out.push_back(g[i]);
    return out;
  };
  double h = r->fd_step * 10; // the rules' outputs are smoother than FD noise at 1e-6
  for (auto [first, what] : {std::pair{jvp_u, "jvp of jvp"}, std::pair{vjp_v, "jvp of vjp"}}) {
    SCOPED_TRACE(what);
    std::vector<Array> t = jvp_flat(first, x, w).second;
    std::vector<double> want;
    if (r->zero_derivative) {
      want.assign(flat_floats(t).size(), 0.0);
    } else {
      std::vector<double> hi = flat_floats(first(shifted(x, w, h)));
      std::vector<double> lo = flat_floats(first(shifted(x, w, -h)));
      for (size_t k = 0; k < hi.size(); ++k)
        want.push_back((hi[k] - lo[k]) / (2 * h));
    }
    expect_vectors_near(flat_floats(t), want, r->fd_tol, std::string(what) + " vs FD");
  }
}

TEST_P(RulesOracle, VjpTranspose) {
  REQUIRE_ROW(r);
  Rng rng = rng_for(r->name);
  std::vector<Array> x = r->gen(rng);
  if (!differentiable(*r, x))
    GTEST_SKIP() << "not differentiable";
  for (int trial = 0; trial < 2; ++trial) {
    std::vector<Array> u = direction(rng, x);
    std::vector<Array> ju = jvp_flat(r->fn, x, u).second;
    VjpResult res = vjp_flat(r->fn, x);
    std::vector<Array> v;
    for (const Array &o : res.outputs)
      v.push_back(floating(o) ? lax::convert_element_type(uniform(rng, o.shape()), o.dtype())
                              : zeros_like(o));
    std::vector<Array> jtv = res.pullback(v);
    ASSERT_EQ(jtv.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_EQ(jtv[i].type_str(), x[i].type_str()) << "cotangent of operand " << i;
    ASSERT_EQ(flat_floats(jtv).size(), flat_floats(u).size());
    AdjointSums s = adjoint_sums(v, ju, jtv, u);
    EXPECT_NEAR(s.lhs, s.rhs, r->dot_tol * std::max(1.0, s.magnitude)) << "<v, J u> vs <J^T v, u>";
  }
}

// ---- vmap -------------------------------------------------------------------------------------

constexpr int64_t kBatch = 3;

// Stacks examples at `axis` (kNotBatched: the first example, shared by all).
Array batched(const std::vector<Array> &examples, int64_t axis) {
  if (axis == kNotBatched)
    return examples[0];
  return stack(examples, static_cast<int>(axis));
}

// vmap of the row's function with the given in_axes (an operand's axis is in [0, its rank])
// vs a loop over examples whose outputs are stacked at 0.
void check_vmap(const Row &r, const std::vector<std::vector<Array>> &ex,
                const std::vector<int64_t> &axes, const std::string &what) {
  SCOPED_TRACE(what);
  size_t n = ex[0].size();
  std::vector<Array> in;
  std::vector<std::vector<Array>> per_operand(n);
  for (size_t i = 0; i < n; ++i) {
    for (const auto &e : ex)
      per_operand[i].push_back(e[i]);
    in.push_back(batched(per_operand[i], axes[i]));
  }
  // Pass the axes the way users write them: the last one as -1.
  std::vector<int64_t> in_axes = axes;
  for (size_t i = 0; i < n; ++i)
    if (axes[i] != kNotBatched && axes[i] == ex[0][i].ndim() && axes[i] > 0)
      in_axes[i] = -1;
  std::vector<Array> got = vmap_flat(r.fn, in, in_axes);
  std::vector<std::vector<Array>> loop_outs;
  for (size_t b = 0; b < ex.size(); ++b) {
    std::vector<Array> args;
    for (size_t i = 0; i < n; ++i)
      args.push_back(axes[i] == kNotBatched ? ex[0][i] : ex[b][i]);
    loop_outs.push_back(r.fn(args));
  }
  ASSERT_EQ(got.size(), loop_outs[0].size());
  for (size_t k = 0; k < got.size(); ++k) {
    std::vector<Array> col;
    for (auto &o : loop_outs)
      col.push_back(o[k]);
    expect_matches(got[k], stack(col, 0), Tolerance::of(1e-12), "output " + std::to_string(k));
  }
}

std::string axes_str(const std::vector<int64_t> &axes) {
  std::string s = "in_axes {";
  for (size_t i = 0; i < axes.size(); ++i)
    s += (i ? ", " : "") + (axes[i] == kNotBatched ? std::string("N") : std::to_string(axes[i]));
  return s + "}";
}

TEST_P(RulesOracle, Vmap) {
  REQUIRE_ROW(r);
  Rng rng = rng_for(r->name);
  std::vector<std::vector<Array>> ex;
  for (int b = 0; b < kBatch; ++b)
    ex.push_back(r->gen(rng));
  size_t n = ex[0].size();
  if (n == 0)
    GTEST_SKIP() << "no operands: vmap never batches this primitive";
  std::vector<std::vector<int64_t>> modes;
  std::vector<int64_t> zero(n, 0), one(n), last(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t rank = ex[0][i].ndim();
    one[i] = rank >= 1 ? 1 : 0;
    last[i] = rank;
  }
  modes = {zero, one, last};
  // Each operand in turn not batched, and all but the first not batched.
  if (n > 1) {
    for (size_t i = 0; i < n; ++i) {
      std::vector<int64_t> m = zero;
      m[i] = kNotBatched;
      modes.push_back(m);
    }
    std::vector<int64_t> m(n, kNotBatched);
    m[0] = last[0];
    modes.push_back(m);
  }
  for (const auto &m : modes)
    check_vmap(*r, ex, m, axes_str(m));
}

TEST_P(RulesOracle, NestedVmap) {
  REQUIRE_ROW(r);
  Rng rng = rng_for(r->name);
  constexpr int kOuter = 2, kInner = 3;
  std::vector<std::vector<std::vector<Array>>> ex(kOuter);
  for (auto &outer : ex)
    for (int b = 0; b < kInner; ++b)
      outer.push_back(r->gen(rng));
  size_t n = ex[0][0].size();
  if (n == 0)
    GTEST_SKIP() << "no operands: vmap never batches this primitive";
  // The inner vmap maps every operand at 0 but the last, which only the outer one maps (when
  // there are several operands). The outer vmap maps the inner batches at axis 1.
  std::vector<int64_t> inner_axes(n, 0), outer_axes(n, 1);
  if (n > 1) {
    inner_axes[n - 1] = kNotBatched;
    outer_axes[n - 1] = 0;
  }
  std::vector<Array> in;
  for (size_t i = 0; i < n; ++i) {
    std::vector<Array> per_outer;
    for (int a = 0; a < kOuter; ++a) {
      std::vector<Array> per_inner;
      for (int b = 0; b < kInner; ++b)
        per_inner.push_back(ex[a][b][i]);
      per_outer.push_back(inner_axes[i] == kNotBatched ? per_inner[0] : stack(per_inner, 0));
    }
    in.push_back(stack(per_outer, static_cast<int>(outer_axes[i])));
  }
  FlatFn inner = [&](const std::vector<Array> &xs) { return vmap_flat(r->fn, xs, inner_axes); };
  std::vector<Array> got = vmap_flat(inner, in, outer_axes);
  std::vector<Array> want;
  for (size_t k = 0;; ++k) {
    std::vector<Array> rows_a;
    for (int a = 0; a < kOuter; ++a) {
      std::vector<Array> rows_b;
      for (int b = 0; b < kInner; ++b) {
        std::vector<Array> args;
        for (size_t i = 0; i < n; ++i)
          args.push_back(inner_axes[i] == kNotBatched ? ex[a][0][i] : ex[a][b][i]);
        std::vector<Array> o = r->fn(args);
        if (k >= o.size())
          break;
        rows_b.push_back(o[k]);
      }
      if (rows_b.empty())
        break;
      rows_a.push_back(stack(rows_b, 0));
    }
    if (rows_a.empty())
      break;
    want.push_back(stack(rows_a, 0));
  }
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k)
    expect_matches(got[k], want[k], Tolerance::of(1e-12),
                   "nested vmap output " + std::to_string(k));
}

TEST_P(RulesOracle, EvalShape) {
  REQUIRE_ROW(r);
  Rng rng = rng_for(r->name);
  std::vector<Array> x = r->gen(rng);
  std::vector<AbstractValue> in;
  for (const Array &a : x)
    in.push_back(abstract_of(a));
  std::vector<AbstractValue> got = eval_shape_flat(r->fn, in);
  std::vector<Array> y = r->fn(x);
  ASSERT_EQ(got.size(), y.size());
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_EQ(got[i], abstract_of(y[i]))
        << "output " << i << ": eval_shape " << got[i].str() << ", eval " << y[i].type_str();
}

// Every registered primitive and every row name, so that a primitive without a row and a row
// without a primitive each show up as a failing case.
std::vector<std::string> case_names() {
  std::set<std::string> names;
  for (const Primitive *p : all_primitives())
    names.insert(p->name);
  for (const auto &[n, r] : rows())
    names.insert(n);
  return {names.begin(), names.end()};
}

INSTANTIATE_TEST_SUITE_P(All, RulesOracle, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           return info.param;
                         });

TEST(RulesOracleTable, EveryPrimitiveHasARow) {
  std::string missing;
  for (const Primitive *p : all_primitives())
    if (!rows().count(p->name))
      missing += p->name + " ";
  EXPECT_TRUE(missing.empty()) << "primitives without an oracle row: " << missing;
}

} // namespace
