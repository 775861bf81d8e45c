// The jvp, vjp and batch rules of the shape primitives (lib/primitives/shape.cpp), with
// independent oracles over several configurations of each primitive:
//   - jvp vs central finite differences in float64,
//   - <v, J u> == <J^T v, u> between jvp_flat and vjp_flat,
//   - second order: the Hessian-vector product of a nonlinear wrapper by jvp of vjp vs finite
//     differences of the vjp, and by vjp of vjp (reverse over reverse) vs jvp of vjp,
//   - vmap vs a per-example loop with in_axes 0, 1, -1 and not-batched operands (batched and
//     unbatched start indices of dynamic_slice / dynamic_update_slice included), nested vmap,
//     and vmap of the first-order rules.
#include <cmath>
#include <functional>
#include <random>

#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {

using Rng = std::mt19937_64;
using Arrays = std::vector<Array>;

struct Case {
  std::string name;
  std::function<Arrays(Rng &)> gen; // one example's operands
  FlatFn fn;                        // the primitive through its lax:: wrapper
};

Rng rng_for(const std::string &name) { return Rng(std::hash<std::string>{}(name) ^ 0x5eed); }

Array uniform(Rng &rng, const Shape &s) {
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<double> v(static_cast<size_t>(num_elements(s)));
  for (double &x : v)
    x = d(rng);
  return make(v, s, float64);
}
// An integer scalar in [lo, hi]: start indices, out-of-range ones included (they clamp).
Array index(Rng &rng, int64_t lo, int64_t hi, DType dtype = int32) {
  std::uniform_int_distribution<int64_t> d(lo, hi);
  return make({static_cast<double>(d(rng))}, Shape{}, dtype);
}

// Random values for float arrays, zeros for the others (tangents of start indices).
Arrays random_like(Rng &rng, const Arrays &x) {
  Arrays u;
  for (const Array &a : x)
    u.push_back(floating(a) ? uniform(rng, a.shape()) : zeros_like(a));
  return u;
}
Arrays floats_only(const Arrays &x) {
  Arrays out;
  for (const Array &a : x)
    if (floating(a))
      out.push_back(a);
  return out;
}

// got ~= want within tol relative to max(1, |want|_inf).
void expect_near(const std::vector<double> &got, const std::vector<double> &want, double tol,
                 const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = 1;
  for (double w : want)
    scale = std::max(scale, std::fabs(w));
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * scale) << what << " at flat index " << i;
}
// Shape primitives move values: results agree to within rounding (an absolute 1e-14, no looser
// than 1e-14 relative to the largest value).
const Tolerance kShapeTol = Tolerance::absolute(1e-14);

// ---- Differentiation oracles ------------------------------------------------------------------

void check_jvp(const FlatFn &f, const Arrays &x, Rng &rng) {
  Arrays u = random_like(rng, x);
  auto [y, t] = jvp_flat(f, x, u);
  Arrays y0 = f(x);
  ASSERT_EQ(y.size(), y0.size());
  for (size_t i = 0; i < y.size(); ++i) {
    expect_matches(y[i], y0[i], kShapeTol, "jvp primal");
    EXPECT_EQ(t[i].type_str(), y[i].type_str()) << "tangent of output " << i;
  }
  const double h = 1e-6;
  std::vector<double> hi = flat_floats(f(shifted(x, u, h))), lo = flat_floats(f(shifted(x, u, -h)));
  std::vector<double> fd;
  for (size_t k = 0; k < hi.size(); ++k)
    fd.push_back((hi[k] - lo[k]) / (2 * h));
  expect_near(flat_floats(t), fd, 1e-7, "jvp vs finite differences");
}

void check_transpose(const FlatFn &f, const Arrays &x, Rng &rng) {
  Arrays u = random_like(rng, x);
  Arrays ju = jvp_flat(f, x, u).second;
  VjpResult r = vjp_flat(f, x);
  Arrays v = random_like(rng, r.outputs);
  Arrays jtv = r.pullback(v);
  ASSERT_EQ(jtv.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(jtv[i].type_str(), x[i].type_str()) << "cotangent of operand " << i;
  ASSERT_EQ(flat_floats(jtv).size(), flat_floats(u).size());
  AdjointSums s = adjoint_sums(v, ju, jtv, u);
  EXPECT_NEAR(s.lhs, s.rhs, 1e-12 * (1 + s.magnitude)) << "<v, J u> vs <J^T v, u>";
}

// The primitives are linear, so their second derivative is zero; a nonlinear wrapper
// y -> sin(y) * y makes the Hessian exercise every first-order rule under jvp and grad.
FlatFn nonlinear(const FlatFn &f) {
  return [f](const Arrays &x) {
    Arrays out;
    for (const Array &y : f(x))
      out.push_back(floating(y) ? lax::mul(lax::sin(y), y) : y);
    return out;
  };
}

void check_second_order(const FlatFn &f, const Arrays &x, Rng &rng) {
  FlatFn g = nonlinear(f);
  Arrays v = random_like(rng, g(x));
  // x -> J^T v of the wrapper, on the float operands: a gradient.
  FlatFn grad_v = [&](const Arrays &p) { return floats_only(vjp_flat(g, p).pullback(v)); };
  Arrays w = random_like(rng, x);
  Arrays hw = jvp_flat(grad_v, x, w).second;
  const double h = 1e-5;
  std::vector<double> hi = flat_floats(grad_v(shifted(x, w, h)));
  std::vector<double> lo = flat_floats(grad_v(shifted(x, w, -h)));
  std::vector<double> fd;
  for (size_t k = 0; k < hi.size(); ++k)
    fd.push_back((hi[k] - lo[k]) / (2 * h));
  expect_near(flat_floats(hw), fd, 1e-7, "jvp of vjp vs finite differences");
  // The Hessian is symmetric: reverse over reverse gives the same product.
  Arrays hw_rev = vjp_flat(grad_v, x).pullback(floats_only(w));
  expect_near(flat_floats(hw_rev), flat_floats(hw), 1e-12, "vjp of vjp vs jvp of vjp");
}

// ---- vmap oracles -----------------------------------------------------------------------------

constexpr int64_t kN = kNotBatched;

// Operand i of the batched call: examples stacked at axes[i] (-1: the last position), or the
// first example when not batched.
Array stacked(const std::vector<Array> &examples, int64_t axis) {
  if (axis == kN)
    return examples[0];
  int64_t a = axis < 0 ? axis + examples[0].ndim() + 1 : axis;
  return stack(examples, static_cast<int>(a));
}

std::string axes_str(const std::vector<int64_t> &axes) {
  std::string s = "{";
  for (size_t i = 0; i < axes.size(); ++i)
    s += (i ? ", " : "") + (axes[i] == kN ? std::string("N") : std::to_string(axes[i]));
  return s + "}";
}

void check_vmap(const FlatFn &f, const std::vector<Arrays> &ex, const std::vector<int64_t> &axes) {
  SCOPED_TRACE("in_axes " + axes_str(axes));
  size_t n = ex[0].size();
  Arrays in;
  for (size_t i = 0; i < n; ++i) {
    std::vector<Array> col;
    for (const Arrays &e : ex)
      col.push_back(e[i]);
    in.push_back(stacked(col, axes[i]));
  }
  Arrays got = vmap_flat(f, in, axes);
  std::vector<Arrays> outs;
  for (size_t b = 0; b < ex.size(); ++b) {
    Arrays args;
    for (size_t i = 0; i < n; ++i)
      args.push_back(ex[axes[i] == kN ? 0 : b][i]);
    outs.push_back(f(args));
  }
  ASSERT_EQ(got.size(), outs[0].size());
  for (size_t k = 0; k < got.size(); ++k) {
    std::vector<Array> col;
    for (const Arrays &o : outs)
      col.push_back(o[k]);
    expect_matches(got[k], stack(col, 0), kShapeTol, "vmap output " + std::to_string(k));
  }
}

// vmap(vmap(f, inner), outer) vs a double loop; the outer axes index the inner-stacked arrays.
void check_nested_vmap(const FlatFn &f, const std::vector<std::vector<Arrays>> &ex,
                       const std::vector<int64_t> &inner, const std::vector<int64_t> &outer) {
  SCOPED_TRACE("inner " + axes_str(inner) + ", outer " + axes_str(outer));
  size_t n = ex[0][0].size();
  Arrays in;
  for (size_t i = 0; i < n; ++i) {
    std::vector<Array> per_outer;
    for (const auto &row : ex) {
      std::vector<Array> per_inner;
      for (const Arrays &e : row)
        per_inner.push_back(e[i]);
      per_outer.push_back(stacked(per_inner, inner[i]));
    }
    in.push_back(stacked(per_outer, outer[i]));
  }
  FlatFn fi = [&](const Arrays &xs) { return vmap_flat(f, xs, inner); };
  Arrays got = vmap_flat(fi, in, outer);
  std::vector<Array> rows_a;
  for (size_t a = 0; a < ex.size(); ++a) {
    std::vector<Array> rows_b;
    for (size_t b = 0; b < ex[0].size(); ++b) {
      Arrays args;
      for (size_t i = 0; i < n; ++i)
        args.push_back(ex[outer[i] == kN ? 0 : a][inner[i] == kN ? 0 : b][i]);
      Arrays o = f(args);
      ASSERT_EQ(o.size(), 1u);
      rows_b.push_back(o[0]);
    }
    rows_a.push_back(stack(rows_b, 0));
  }
  ASSERT_EQ(got.size(), 1u);
  expect_matches(got[0], stack(rows_a, 0), kShapeTol, "nested vmap");
}

// in_axes: all 0, all 1, all last, each operand in turn not batched, only the first batched.
std::vector<std::vector<int64_t>> default_modes(const Arrays &x) {
  size_t n = x.size();
  std::vector<int64_t> zero(n, 0), one(n), last(n, -1);
  for (size_t i = 0; i < n; ++i)
    one[i] = x[i].ndim() >= 1 ? 1 : 0;
  std::vector<std::vector<int64_t>> modes{zero, one, last};
  if (n > 1) {
    for (size_t i = 0; i < n; ++i) {
      std::vector<int64_t> m = zero;
      m[i] = kN;
      modes.push_back(m);
    }
    std::vector<int64_t> m(n, kN);
    m[0] = -1;
    modes.push_back(m);
  }
  return modes;
}

// Every oracle on one case; `extra_modes` add in_axes (e.g. start indices batched alone).
void check_case(const Case &c, std::vector<std::vector<int64_t>> extra_modes = {}) {
  SCOPED_TRACE(c.name);
  Rng rng = rng_for(c.name);
  Arrays x = c.gen(rng);
  for (int trial = 0; trial < 2; ++trial) {
    check_jvp(c.fn, x, rng);
    check_transpose(c.fn, x, rng);
  }
  check_second_order(c.fn, x, rng);

  constexpr int kBatch = 3;
  std::vector<Arrays> ex;
  for (int b = 0; b < kBatch; ++b)
    ex.push_back(c.gen(rng));
  std::vector<std::vector<int64_t>> modes = default_modes(x);
  modes.insert(modes.end(), extra_modes.begin(), extra_modes.end());
  for (const auto &m : modes)
    check_vmap(c.fn, ex, m);

  // Nested: both levels map everything; then the outer level maps what the inner does not.
  std::vector<std::vector<Arrays>> ex2(2);
  for (auto &row : ex2)
    for (int b = 0; b < kBatch; ++b)
      row.push_back(c.gen(rng));
  size_t n = x.size();
  check_nested_vmap(c.fn, ex2, std::vector<int64_t>(n, 0), std::vector<int64_t>(n, 1));
  if (n > 1) {
    std::vector<int64_t> inner(n, kN), outer(n, 0);
    inner[0] = 0;
    outer[0] = kN;
    check_nested_vmap(c.fn, ex2, inner, outer);
    check_nested_vmap(c.fn, ex2, outer, inner);
  }

  // The first-order rules under vmap: per-example jvp and vjp.
  size_t nx = x.size();
  FlatFn jvp_fn = [&](const Arrays &in) {
    Arrays p(in.begin(), in.begin() + nx), t(in.begin() + nx, in.end());
    return jvp_flat(c.fn, p, t).second;
  };
  FlatFn vjp_fn = [&](const Arrays &in) {
    Arrays p(in.begin(), in.begin() + nx), v(in.begin() + nx, in.end());
    return floats_only(vjp_flat(c.fn, p).pullback(v));
  };
  std::vector<Arrays> jex, vex;
  for (const Arrays &e : ex) {
    Arrays je = e, ve = e;
    for (const Array &t : random_like(rng, e))
      je.push_back(t);
    for (const Array &v : random_like(rng, c.fn(e)))
      ve.push_back(v);
    jex.push_back(je);
    vex.push_back(ve);
  }
  {
    SCOPED_TRACE("vmap of jvp");
    check_vmap(jvp_fn, jex, std::vector<int64_t>(jex[0].size(), 0));
  }
  {
    SCOPED_TRACE("vmap of vjp");
    check_vmap(vjp_fn, vex, std::vector<int64_t>(vex[0].size(), 0));
  }
}

FlatFn fn1(std::function<Array(const Arrays &)> f) {
  return [f](const Arrays &x) { return Arrays{f(x)}; };
}

} // namespace

// ---- The cases ----------------------------------------------------------------------------------

TEST(RulesShape, Iota) {
  // iota has no operands, so no level ever batches or differentiates it; it must still work as
  // a constant inside every transform.
  auto f = [](const Array &x) { return lax::mul(x, lax::iota(float64, {2, 3}, 1)); };
  Array x = make({1, 2, 3, 4, 5, 6}, {2, 3});
  auto [y, t] = jvp(f, std::make_tuple(x), std::make_tuple(ones_like(x)));
  expect_array(t, {0, 1, 2, 0, 1, 2}, {2, 3}, float64);
  auto [out, pullback] = vjp(f, x);
  expect_array(pullback(ones_like(out)), {0, 1, 2, 0, 1, 2}, {2, 3}, float64);
  Array xs = stack({x, lax::neg(x)}, 0);
  expect_array(vmap(f)(xs), {0, 2, 6, 0, 5, 12, 0, -2, -6, 0, -5, -12}, {2, 2, 3}, float64);
  Array i = vmap([](const Array &) { return lax::iota(int32, {3}, 0); })(xs);
  expect_array(i, {0, 1, 2, 0, 1, 2}, {2, 3}, int32);
}

TEST(RulesShape, BroadcastInDim) {
  check_case({"stretch and add", [](Rng &r) { return Arrays{uniform(r, {3, 1})}; },
              fn1([](const Arrays &x) { return lax::broadcast_in_dim(x[0], {2, 3, 4}, {1, 2}); })});
  check_case({"from scalar", [](Rng &r) { return Arrays{uniform(r, {})}; },
              fn1([](const Arrays &x) { return lax::broadcast_in_dim(x[0], {2, 3}, {}); })});
  check_case({"middle new dim", [](Rng &r) { return Arrays{uniform(r, {4, 3})}; },
              fn1([](const Arrays &x) { return lax::broadcast_in_dim(x[0], {4, 2, 3}, {0, 2}); })});
  check_case(
      {"size-1 dims", [](Rng &r) { return Arrays{uniform(r, {1, 2, 1})}; },
       fn1([](const Arrays &x) { return lax::broadcast_in_dim(x[0], {3, 1, 2, 4}, {1, 2, 3}); })});
}

TEST(RulesShape, Reshape) {
  check_case({"merge", [](Rng &r) { return Arrays{uniform(r, {2, 3, 4})}; },
              fn1([](const Arrays &x) { return lax::reshape(x[0], {6, 4}); })});
  check_case({"split", [](Rng &r) { return Arrays{uniform(r, {2, 3})}; },
              fn1([](const Arrays &x) { return lax::reshape(x[0], {3, 1, 2}); })});
  check_case({"scalar", [](Rng &r) { return Arrays{uniform(r, {})}; },
              fn1([](const Arrays &x) { return lax::reshape(x[0], {1, 1}); })});
}

TEST(RulesShape, Transpose) {
  check_case({"rank 3", [](Rng &r) { return Arrays{uniform(r, {2, 3, 4})}; },
              fn1([](const Arrays &x) { return lax::transpose(x[0], {2, 0, 1}); })});
  check_case({"rank 3 other", [](Rng &r) { return Arrays{uniform(r, {2, 3, 4})}; },
              fn1([](const Arrays &x) { return lax::transpose(x[0], {1, 2, 0}); })});
  check_case({"matrix", [](Rng &r) { return Arrays{uniform(r, {3, 4})}; },
              fn1([](const Arrays &x) { return lax::transpose(x[0], {1, 0}); })});
}

TEST(RulesShape, Rev) {
  check_case({"two dims", [](Rng &r) { return Arrays{uniform(r, {2, 3, 4})}; },
              fn1([](const Arrays &x) { return lax::rev(x[0], {0, 2}); })});
  check_case({"vector", [](Rng &r) { return Arrays{uniform(r, {5})}; },
              fn1([](const Arrays &x) { return lax::rev(x[0], {0}); })});
  check_case({"no dims", [](Rng &r) { return Arrays{uniform(r, {2, 3})}; },
              fn1([](const Arrays &x) { return lax::rev(x[0], {}); })});
}

TEST(RulesShape, Slice) {
  check_case({"strided", [](Rng &r) { return Arrays{uniform(r, {4, 5})}; },
              fn1([](const Arrays &x) { return lax::slice(x[0], {1, 0}, {4, 5}, {2, 2}); })});
  check_case({"strided uneven", [](Rng &r) { return Arrays{uniform(r, {6, 7})}; },
              fn1([](const Arrays &x) { return lax::slice(x[0], {1, 2}, {5, 6}, {3, 2}); })});
  check_case({"contiguous", [](Rng &r) { return Arrays{uniform(r, {3, 4, 5})}; },
              fn1([](const Arrays &x) { return lax::slice(x[0], {0, 1, 2}, {3, 3, 4}); })});
  check_case({"empty", [](Rng &r) { return Arrays{uniform(r, {4, 3})}; },
              fn1([](const Arrays &x) { return lax::slice(x[0], {2, 0}, {2, 3}); })});
}

TEST(RulesShape, DynamicSlice) {
  // The start indices cover clamping (out of range both ways) and several integer dtypes. The
  // extra in_axes batch the indices alone, and the operand alone.
  auto fn = fn1([](const Arrays &x) { return lax::dynamic_slice(x[0], {x[1], x[2]}, {2, 3}); });
  check_case(
      {"matrix",
       [](Rng &r) { return Arrays{uniform(r, {4, 5}), index(r, -2, 4), index(r, -1, 5, int64)}; },
       fn},
      {{kN, 0, 0}, {kN, 0, kN}, {1, kN, kN}, {-1, 0, kN}});
  check_case({"vector, u8 index",
              [](Rng &r) { return Arrays{uniform(r, {6}), index(r, 0, 7, uint8)}; },
              fn1([](const Arrays &x) { return lax::dynamic_slice(x[0], {x[1]}, {3}); })},
             {{kN, 0}});
  check_case({"rank 3",
              [](Rng &r) {
                return Arrays{uniform(r, {3, 4, 5}), index(r, 0, 1), index(r, -1, 3, int8),
                              index(r, 0, 4)};
              },
              fn1([](const Arrays &x) {
                return lax::dynamic_slice(x[0], {x[1], x[2], x[3]}, {3, 1, 2});
              })},
             {{kN, 0, kN, 0}, {2, kN, 0, kN}});
}

TEST(RulesShape, DynamicUpdateSlice) {
  auto fn =
      fn1([](const Arrays &x) { return lax::dynamic_update_slice(x[0], x[1], {x[2], x[3]}); });
  check_case({"matrix",
              [](Rng &r) {
                return Arrays{uniform(r, {4, 5}), uniform(r, {2, 3}), index(r, -2, 4),
                              index(r, -1, 5, int64)};
              },
              fn},
             {{kN, kN, 0, 0}, {kN, 0, 0, kN}, {0, kN, kN, 0}, {1, -1, kN, kN}, {kN, 0, kN, kN}});
  check_case({"full cover",
              [](Rng &r) { return Arrays{uniform(r, {3}), uniform(r, {3}), index(r, -1, 2)}; },
              fn1([](const Arrays &x) { return lax::dynamic_update_slice(x[0], x[1], {x[2]}); })},
             {{kN, kN, 0}});
  check_case({"rank 3, u8 index",
              [](Rng &r) {
                return Arrays{uniform(r, {2, 4, 3}), uniform(r, {1, 2, 3}), index(r, 0, 2, uint8),
                              index(r, 0, 3), index(r, -1, 1)};
              },
              fn1([](const Arrays &x) {
                return lax::dynamic_update_slice(x[0], x[1], {x[2], x[3], x[4]});
              })},
             {{kN, kN, 0, kN, 0}, {0, kN, kN, 0, kN}});
}

TEST(RulesShape, Pad) {
  // Both operands are differentiable; the padding value can be batched on its own.
  check_case({"negative low, interior",
              [](Rng &r) { return Arrays{uniform(r, {2, 3}), uniform(r, {})}; },
              fn1([](const Arrays &x) { return lax::pad(x[0], x[1], {1, -1}, {0, 2}, {1, 0}); })},
             {{kN, 0}});
  check_case({"crop both ends", [](Rng &r) { return Arrays{uniform(r, {4}), uniform(r, {})}; },
              fn1([](const Arrays &x) { return lax::pad(x[0], x[1], {-2}, {-1}, {2}); })});
  check_case({"negative high, interior",
              [](Rng &r) { return Arrays{uniform(r, {3, 2}), uniform(r, {})}; },
              fn1([](const Arrays &x) { return lax::pad(x[0], x[1], {2, 0}, {-3, 1}, {0, 1}); })},
             {{kN, 0}, {1, kN}});
  check_case({"scalar operand", [](Rng &r) { return Arrays{uniform(r, {}), uniform(r, {})}; },
              fn1([](const Arrays &x) { return lax::pad(x[0], x[1], {}, {}, {}); })});
  check_case({"empty operand", [](Rng &r) { return Arrays{uniform(r, {0, 2}), uniform(r, {})}; },
              fn1([](const Arrays &x) { return lax::pad(x[0], x[1], {1, 0}, {2, 1}, {1, 1}); })});
}

TEST(RulesShape, Concatenate) {
  check_case(
      {"three along 1",
       [](Rng &r) { return Arrays{uniform(r, {2, 3}), uniform(r, {2, 1}), uniform(r, {2, 2})}; },
       fn1([](const Arrays &x) { return lax::concatenate(x, 1); })});
  check_case({"two along 0", [](Rng &r) { return Arrays{uniform(r, {1, 3}), uniform(r, {2, 3})}; },
              fn1([](const Arrays &x) { return lax::concatenate(x, 0); })});
  check_case({"one", [](Rng &r) { return Arrays{uniform(r, {3})}; },
              fn1([](const Arrays &x) { return lax::concatenate(x, 0); })});
}

// Differentiating through vmap: the batched forms (gather and scatter for per-example start
// indices, select for per-example padding values) must have the derivatives of the loop.
TEST(RulesShape, GradOfVmap) {
  Rng rng = rng_for("grad of vmap");
  auto ds = [](const Arrays &x) { return Arrays{lax::dynamic_slice(x[0], {x[1], x[2]}, {2, 3})}; };
  auto dus = [](const Arrays &x) {
    return Arrays{lax::dynamic_update_slice(x[0], x[1], {x[2], x[3]})};
  };
  auto pad = [](const Arrays &x) { return Arrays{lax::pad(x[0], x[1], {1, -1}, {0, 2}, {1, 0})}; };
  auto idx = [&](std::vector<double> v) { return make(v, int32); };
  struct Mapped {
    FlatFn fn;
    Arrays in;
    std::vector<int64_t> axes;
  };
  std::vector<Mapped> cases = {
      {ds, {uniform(rng, {3, 4, 5}), idx({0, 3, -1}), idx({2, 1, 7})}, {0, 0, 0}},
      {ds, {uniform(rng, {4, 5}), idx({0, 3, -1}), Array(int32_t{1})}, {kN, 0, kN}},
      {dus,
       {uniform(rng, {3, 4, 5}), uniform(rng, {3, 2, 3}), idx({0, 3, -1}), idx({2, 1, 7})},
       {0, 0, 0, 0}},
      {dus,
       {uniform(rng, {4, 5}), uniform(rng, {2, 3}), idx({0, 3, -1}), Array(int32_t{1})},
       {kN, kN, 0, kN}},
      {pad, {uniform(rng, {2, 3}), uniform(rng, {3})}, {kN, 0}},
      {pad, {uniform(rng, {3, 2, 3}), uniform(rng, {3})}, {0, 0}},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    SCOPED_TRACE("case " + std::to_string(k) + ", in_axes " + axes_str(cases[k].axes));
    const Mapped &m = cases[k];
    FlatFn f = [&m](const Arrays &x) { return vmap_flat(m.fn, x, m.axes); };
    check_jvp(f, m.in, rng);
    check_transpose(f, m.in, rng);
    check_second_order(f, m.in, rng);
  }
}
