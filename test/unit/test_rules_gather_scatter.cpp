// jvp, vjp and batch rules of gather, scatter, scatter_add and the random-bit primitives.
// Oracles: central finite differences, the adjoint identity <v, J u> == <J^T v, u>,
// hand-derived cotangents at out-of-bounds and duplicate indices, and per-example loops.
#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include "strata/random.h"
#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {

constexpr int64_t NB = kNotBatched;
constexpr int64_t kBatch = 3;

Array random_f64(const Shape &shape, std::mt19937 &rng) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(static_cast<size_t>(num_elements(shape)));
  for (double &x : v)
    x = dist(rng);
  return make(v, shape, float64);
}

/// Indices of `shape` whose last-dimension element k lies in [-1, max_start[k] + 1]: mostly in
/// bounds, with duplicates and some out-of-bounds starts (clamped by gather, dropped by
/// scatter).
Array random_indices(const Shape &shape, const std::vector<int64_t> &max_start, std::mt19937 &rng,
                     DType dtype = int32) {
  std::vector<double> v(static_cast<size_t>(num_elements(shape)));
  const size_t n = max_start.size();
  for (size_t i = 0; i < v.size(); ++i) {
    std::uniform_int_distribution<int64_t> dist(-1, max_start[i % n] + 1);
    v[i] = static_cast<double>(dist(rng));
  }
  return make(v, shape, dtype);
}

/// Shape with the batch axis (kBatch long) inserted at `axis` (negative counts from the end of
/// the batched shape).
Shape batched_shape(Shape s, int64_t axis) {
  int64_t r = static_cast<int64_t>(s.size()) + 1;
  s.insert(s.begin() + (axis < 0 ? axis + r : axis), kBatch);
  return s;
}

/// Example i of x along `axis`.
Array take(const Array &x, int64_t axis, int64_t i) {
  if (axis < 0)
    axis += x.ndim();
  std::vector<int64_t> start(x.ndim(), 0), limit(x.shape().begin(), x.shape().end());
  start[axis] = i;
  limit[axis] = i + 1;
  Shape s = x.shape();
  s.erase(s.begin() + axis);
  return lax::reshape(lax::slice(x, start, limit), s);
}

/// The per-example loop that vmap must reproduce: f on each example, stacked along axis 0.
std::vector<Array> loop(const FlatFn &f, const std::vector<Array> &args,
                        const std::vector<int64_t> &axes) {
  int64_t size = -1;
  for (size_t i = 0; i < args.size(); ++i)
    if (axes[i] != NB)
      size = args[i].shape()[axes[i] < 0 ? axes[i] + args[i].ndim() : axes[i]];
  std::vector<std::vector<Array>> per_out;
  for (int64_t b = 0; b < size; ++b) {
    std::vector<Array> ex;
    for (size_t i = 0; i < args.size(); ++i)
      ex.push_back(axes[i] == NB ? args[i] : take(args[i], axes[i], b));
    std::vector<Array> outs = f(ex);
    per_out.resize(outs.size());
    for (size_t j = 0; j < outs.size(); ++j)
      per_out[j].push_back(outs[j]);
  }
  std::vector<Array> result;
  for (auto &xs : per_out)
    result.push_back(stack(xs, 0));
  return result;
}

void expect_same(const std::vector<Array> &got, const std::vector<Array> &want, double tol,
                 const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(what + ", output " + std::to_string(i));
    expect_array(got[i], values(want[i]), want[i].shape(), want[i].dtype(), tol);
  }
}

/// The batched argument for an example-shaped `make_one`: kBatch examples along `axis`.
Array batched(const std::function<Array(const Shape &)> &make_one, const Shape &shape,
              int64_t axis) {
  return axis == NB ? make_one(shape) : make_one(batched_shape(shape, axis));
}

double dot(const Array &a, const Array &b) {
  std::vector<double> x = values(a), y = values(b);
  double s = 0;
  for (size_t i = 0; i < x.size(); ++i)
    s += x[i] * y[i];
  return s;
}

/// jvp against central differences, and vjp against jvp: <v, J u> == <J^T v, u>. All inputs
/// are float64 (indices live in the closure).
void check_derivatives(const FlatFn &f, const std::vector<Array> &x, std::mt19937 &rng) {
  std::vector<Array> u;
  for (const Array &xi : x)
    u.push_back(random_f64(xi.shape(), rng));
  auto [y, ty] = jvp_flat(f, x, u);
  const double h = 1e-6;
  auto shifted = [&](double s) {
    std::vector<Array> xs;
    for (size_t i = 0; i < x.size(); ++i) {
      std::vector<double> a = values(x[i]), d = values(u[i]);
      for (size_t k = 0; k < a.size(); ++k)
        a[k] += s * d[k];
      xs.push_back(make(a, x[i].shape(), float64));
    }
    return f(xs);
  };
  std::vector<Array> yp = shifted(h), ym = shifted(-h);
  for (size_t j = 0; j < y.size(); ++j) {
    std::vector<double> p = values(yp[j]), m = values(ym[j]), fd;
    for (size_t k = 0; k < p.size(); ++k)
      fd.push_back((p[k] - m[k]) / (2 * h));
    SCOPED_TRACE("jvp vs finite differences, output " + std::to_string(j));
    expect_array(ty[j], fd, y[j].shape(), float64, 1e-7);
  }
  VjpResult r = vjp_flat(f, x);
  std::vector<Array> v;
  double lhs = 0, rhs = 0;
  for (size_t j = 0; j < y.size(); ++j) {
    v.push_back(random_f64(y[j].shape(), rng));
    lhs += dot(v[j], ty[j]);
  }
  std::vector<Array> g = r.pullback(v);
  ASSERT_EQ(g.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i)
    rhs += dot(g[i], u[i]);
  EXPECT_NEAR(lhs, rhs, 1e-12 * (1 + std::fabs(lhs))) << "<v, J u> != <J^T v, u>";
}

/// check_derivatives on f, and on its pullback at a fixed cotangent (second order: the vjp
/// rules' own jvp and vjp).
void check_first_and_second_order(const FlatFn &f, const std::vector<Array> &x,
                                  std::mt19937 &rng) {
  {
    SCOPED_TRACE("first order");
    check_derivatives(f, x, rng);
  }
  std::vector<Array> v;
  for (const Array &y : f(x))
    v.push_back(random_f64(y.shape(), rng));
  FlatFn pullback = [f, v](const std::vector<Array> &xs) { return vjp_flat(f, xs).pullback(v); };
  SCOPED_TRACE("second order");
  check_derivatives(pullback, x, rng);
}

// ---- configurations -----------------------------------------------------------------------------

struct GatherCase {
  Shape operand, indices;
  lax::GatherDimensionNumbers dims;
  Shape slice_sizes;
  std::vector<int64_t> max_start() const {
    std::vector<int64_t> m;
    for (int64_t d : dims.start_index_map)
      m.push_back(operand[d] - slice_sizes[d]);
    return m;
  }
};

std::vector<GatherCase> gather_cases() {
  return {
      // rows of a matrix (take along axis 0)
      {{5, 3}, {4, 1}, {{1}, {0}, {0}}, {1, 3}},
      // overlapping 2x3 windows of a 4x5 matrix, both dimensions indexed
      {{4, 5}, {3, 2}, {{1, 2}, {}, {0, 1}}, {2, 3}},
      // columns, a 2-D batch of indices, the window dimension first in the output
      {{3, 6}, {2, 2, 1}, {{0}, {1}, {1}}, {3, 1}},
      // an unsorted start_index_map, one collapsed dimension
      {{4, 3, 2}, {3, 2}, {{1, 2}, {0}, {2, 0}}, {1, 2, 2}},
  };
}

struct ScatterCase {
  Shape operand, indices, updates;
  lax::ScatterDimensionNumbers dims;
  std::vector<int64_t> max_start() const {
    Shape window(operand.size(), 1);
    for (size_t d = 0, j = 0; d < operand.size(); ++d)
      if (std::find(dims.inserted_window_dims.begin(), dims.inserted_window_dims.end(),
                    static_cast<int64_t>(d)) == dims.inserted_window_dims.end())
        window[d] = updates[dims.update_window_dims[j++]];
    std::vector<int64_t> m;
    for (int64_t d : dims.scatter_dims_to_operand_dims)
      m.push_back(operand[d] - window[d]);
    return m;
  }
};

std::vector<ScatterCase> scatter_cases() {
  return {
      {{5, 3}, {4, 1}, {4, 3}, {{1}, {0}, {0}}},
      {{4, 5}, {3, 2}, {3, 2, 2}, {{1, 2}, {}, {0, 1}}},
      {{3, 6}, {2, 2, 1}, {3, 2, 2}, {{0}, {1}, {1}}},
      {{4, 3, 2}, {3, 2}, {3, 2, 2}, {{1, 2}, {0}, {2, 0}}},
  };
}

using ScatterFn = Array (*)(const Array &, const Array &, const Array &,
                            const lax::ScatterDimensionNumbers &);

} // namespace

// ---- derivatives --------------------------------------------------------------------------------

TEST(RulesGatherScatter, GatherDerivatives) {
  std::mt19937 rng(1);
  for (const GatherCase &c : gather_cases()) {
    SCOPED_TRACE("gather operand " + shape_str(c.operand));
    Array idx = random_indices(c.indices, c.max_start(), rng);
    FlatFn linear = [&](const std::vector<Array> &x) {
      return std::vector<Array>{lax::gather(x[0], idx, c.dims, c.slice_sizes)};
    };
    // Nonlinear around the gather, so that the second-order check has something to see.
    FlatFn f = [&](const std::vector<Array> &x) {
      Array g = lax::gather(lax::mul(x[0], lax::sin(x[0])), idx, c.dims, c.slice_sizes);
      return std::vector<Array>{lax::mul(g, g)};
    };
    check_derivatives(linear, {random_f64(c.operand, rng)}, rng);
    check_first_and_second_order(f, {random_f64(c.operand, rng)}, rng);
  }
}

TEST(RulesGatherScatter, ScatterAndScatterAddDerivatives) {
  std::mt19937 rng(2);
  for (ScatterFn op : {ScatterFn(lax::scatter_add), ScatterFn(lax::scatter)}) {
    for (const ScatterCase &c : scatter_cases()) {
      SCOPED_TRACE(std::string(op == ScatterFn(lax::scatter) ? "scatter" : "scatter_add") +
                   " operand " + shape_str(c.operand));
      Array idx = random_indices(c.indices, c.max_start(), rng);
      FlatFn linear = [&](const std::vector<Array> &x) {
        return std::vector<Array>{op(x[0], idx, x[1], c.dims)};
      };
      FlatFn f = [&](const std::vector<Array> &x) {
        Array s = op(lax::sin(x[0]), idx, lax::mul(x[1], x[1]), c.dims);
        return std::vector<Array>{lax::mul(s, lax::exp(s))};
      };
      std::vector<Array> x = {random_f64(c.operand, rng), random_f64(c.updates, rng)};
      check_derivatives(linear, x, rng);
      check_first_and_second_order(f, x, rng);
    }
  }
}

TEST(RulesGatherScatter, GatherVjpFollowsClamping) {
  // Starts 7 and -2 clamp to 4 and 0: their cotangents land there, not dropped.
  Array idx = make({7, -2, 1, 1}, {4, 1}, int32);
  auto f = [&](const Array &x) {
    Array g = lax::gather(x, idx, {{}, {0}, {0}}, {1});
    return lax::reduce_sum(lax::mul(g, make({1, 10, 100, 1000}, float64)), {0});
  };
  expect_array(grad(f)(make({0, 0, 0, 0, 0}, float64)), {10, 1100, 0, 0, 1}, {5}, float64);
}

TEST(RulesGatherScatter, ScatterAddVjpDropsOutOfBoundsUpdates) {
  // Update 0 is out of bounds (dropped): its cotangent is zero, although a clamping gather
  // would read position 4.
  Array idx = make({5, 4, -1, 2}, {4, 1}, int32);
  auto f = [&](const Array &op, const Array &upd) {
    Array s = lax::scatter_add(op, idx, upd, {{}, {0}, {0}});
    return lax::reduce_sum(lax::mul(s, make({1, 2, 3, 4, 5}, float64)), {0});
  };
  Array op = make({0, 0, 0, 0, 0}, float64), upd = make({0, 0, 0, 0}, float64);
  auto [gop, gupd] = grad<0, 1>(f)(op, upd);
  expect_array(gop, {1, 2, 3, 4, 5}, {5}, float64);
  expect_array(gupd, {0, 5, 0, 3}, {4}, float64);
}

TEST(RulesGatherScatter, ScatterVjpCreditsOnlyTheWinningUpdate) {
  // Updates 0 and 2 both target position 1; the later one (2) lands. Update 3 is dropped.
  Array idx = make({1, 3, 1, 9}, {4, 1}, int32);
  auto f = [&](const Array &op, const Array &upd) {
    Array s = lax::scatter(op, idx, upd, {{}, {0}, {0}});
    return lax::reduce_sum(lax::mul(s, make({1, 2, 3, 4, 5}, float64)), {0});
  };
  Array op = make({0, 0, 0, 0, 0}, float64), upd = make({7, 8, 9, 10}, float64);
  auto [gop, gupd] = grad<0, 1>(f)(op, upd);
  expect_array(gop, {1, 0, 3, 0, 5}, {5}, float64);
  expect_array(gupd, {0, 4, 2, 0}, {4}, float64);
  // The jvp follows the same winner.
  auto [y, t] = jvp([&](const Array &u) { return lax::scatter(op, idx, u, {{}, {0}, {0}}); },
                    std::make_tuple(upd), std::make_tuple(make({1, 2, 3, 4}, float64)));
  expect_array(y, {0, 9, 0, 8, 0}, {5}, float64);
  expect_array(t, {0, 3, 0, 2, 0}, {5}, float64);
}

// ---- batching -----------------------------------------------------------------------------------

namespace {

/// vmap(f) against the per-example loop, for f, its jvp and its vjp (per-example derivatives:
/// the derivative rules' outputs batched), and the adjoint identity on vmap(f) (the batch
/// rules' outputs differentiated). float_args: which arguments are float (differentiated).
void check_batching(const FlatFn &f, const std::vector<Array> &args,
                    const std::vector<int64_t> &axes, const std::vector<bool> &float_args,
                    std::mt19937 &rng) {
  expect_same(vmap_flat(f, args, axes), loop(f, args, axes), 0.0, "vmap");

  // jvp and vjp of f with respect to its float arguments, as functions of all arguments plus a
  // tangent per float argument and a cotangent per output (all batched alike).
  std::vector<size_t> fl;
  for (size_t i = 0; i < args.size(); ++i)
    if (float_args[i])
      fl.push_back(i);
  auto restrict = [f, fl](const std::vector<Array> &all) {
    return [f, fl, all](const std::vector<Array> &x) {
      std::vector<Array> a = all;
      for (size_t k = 0; k < fl.size(); ++k)
        a[fl[k]] = x[k];
      return f(a);
    };
  };
  const size_t n = args.size();
  FlatFn jvp_fn = [restrict, fl, n](const std::vector<Array> &in) {
    std::vector<Array> all(in.begin(), in.begin() + n), x, t;
    for (size_t k = 0; k < fl.size(); ++k) {
      x.push_back(all[fl[k]]);
      t.push_back(in[n + k]);
    }
    return jvp_flat(restrict(all), x, t).second;
  };
  FlatFn vjp_fn = [restrict, fl, n](const std::vector<Array> &in) {
    std::vector<Array> all(in.begin(), in.begin() + n), x;
    for (size_t k : fl)
      x.push_back(all[k]);
    return vjp_flat(restrict(all), x).pullback({in[n]});
  };
  std::vector<Array> jargs = args, vargs = args;
  std::vector<int64_t> jaxes = axes, vaxes = axes;
  for (size_t k : fl) {
    jargs.push_back(random_f64(args[k].shape(), rng));
    jaxes.push_back(axes[k]);
  }
  // One cotangent, batched at 0 like vmap's output.
  Array out0 = vmap_flat(f, args, axes)[0];
  vargs.push_back(random_f64(out0.shape(), rng));
  vaxes.push_back(0);
  expect_same(vmap_flat(jvp_fn, jargs, jaxes), loop(jvp_fn, jargs, jaxes), 1e-14, "vmap of jvp");
  expect_same(vmap_flat(vjp_fn, vargs, vaxes), loop(vjp_fn, vargs, vaxes), 1e-14, "vmap of vjp");

  // Derivatives of the batched function (the batch rules' outputs differentiated).
  FlatFn batched_f = [f, fl, args, axes](const std::vector<Array> &xs) {
    std::vector<Array> a = args;
    for (size_t k = 0; k < fl.size(); ++k)
      a[fl[k]] = xs[k];
    return vmap_flat(f, a, axes);
  };
  std::vector<Array> x;
  for (size_t k : fl)
    x.push_back(args[k]);
  SCOPED_TRACE("derivatives of vmap(f)");
  check_derivatives(batched_f, x, rng);
}

std::string axes_str(const std::vector<int64_t> &axes) {
  std::string s = "in_axes (";
  for (size_t i = 0; i < axes.size(); ++i)
    s += (i ? ", " : "") + (axes[i] == NB ? std::string("-") : std::to_string(axes[i]));
  return s + ")";
}

} // namespace

TEST(RulesGatherScatter, GatherBatching) {
  std::mt19937 rng(3);
  const std::vector<std::vector<int64_t>> combos = {{0, NB}, {1, NB},  {-1, NB}, {NB, 0}, {NB, 1},
                                                    {NB, -1}, {0, 0}, {1, -1}, {-1, 1}};
  for (const GatherCase &c : gather_cases()) {
    FlatFn f = [&](const std::vector<Array> &a) {
      return std::vector<Array>{lax::gather(a[0], a[1], c.dims, c.slice_sizes)};
    };
    for (const auto &axes : combos) {
      SCOPED_TRACE("gather operand " + shape_str(c.operand) + ", " + axes_str(axes));
      Array op = batched([&](const Shape &s) { return random_f64(s, rng); }, c.operand, axes[0]);
      Array idx = batched([&](const Shape &s) { return random_indices(s, c.max_start(), rng); },
                          c.indices, axes[1]);
      check_batching(f, {op, idx}, axes, {true, false}, rng);
    }
  }
}

TEST(RulesGatherScatter, ScatterBatching) {
  std::mt19937 rng(4);
  const std::vector<std::vector<int64_t>> combos = {
      {0, NB, NB}, {NB, NB, 1}, {NB, 0, NB}, {NB, 1, 0},  {0, 0, 0},
      {1, -1, 1},  {-1, NB, 0}, {NB, 0, -1}, {0, 1, NB}, {-1, -1, -1}};
  for (ScatterFn op : {ScatterFn(lax::scatter_add), ScatterFn(lax::scatter)}) {
    for (const ScatterCase &c : scatter_cases()) {
      FlatFn f = [&](const std::vector<Array> &a) {
        return std::vector<Array>{op(a[0], a[1], a[2], c.dims)};
      };
      for (const auto &axes : combos) {
        SCOPED_TRACE(std::string(op == ScatterFn(lax::scatter) ? "scatter" : "scatter_add") +
                     " operand " + shape_str(c.operand) + ", " + axes_str(axes));
        auto floats = [&](const Shape &s) { return random_f64(s, rng); };
        Array operand = batched(floats, c.operand, axes[0]);
        Array idx = batched([&](const Shape &s) { return random_indices(s, c.max_start(), rng); },
                            c.indices, axes[1]);
        Array upd = batched(floats, c.updates, axes[2]);
        check_batching(f, {operand, idx, upd}, axes, {true, false, true}, rng);
      }
    }
  }
}

TEST(RulesGatherScatter, NestedVmap) {
  // vmap(vmap(f)) against a double loop: the inner level batches indices at 1 and the operand
  // not at all, the outer one the operand at 0 and the indices at 0 (both batched, counter).
  std::mt19937 rng(5);
  const GatherCase c = gather_cases()[1];
  FlatFn f = [&](const std::vector<Array> &a) {
    return std::vector<Array>{lax::gather(a[0], a[1], c.dims, c.slice_sizes)};
  };
  FlatFn inner = [&](const std::vector<Array> &a) { return vmap_flat(f, a, {NB, 1}); };
  FlatFn inner_loop = [&](const std::vector<Array> &a) { return loop(f, a, {NB, 1}); };
  Array op = random_f64(batched_shape(c.operand, 0), rng);
  Shape is = batched_shape(batched_shape(c.indices, 1), 0);
  Array idx = random_indices(is, c.max_start(), rng, uint8);
  expect_same(vmap_flat(inner, {op, idx}, {0, 0}), loop(inner_loop, {op, idx}, {0, 0}), 0.0,
              "nested gather");

  const ScatterCase s = scatter_cases()[1];
  FlatFn g = [&](const std::vector<Array> &a) {
    return std::vector<Array>{lax::scatter_add(a[0], a[1], a[2], s.dims)};
  };
  FlatFn scatter_inner = [&](const std::vector<Array> &a) { return vmap_flat(g, a, {NB, 0, 1}); };
  FlatFn scatter_inner_loop = [&](const std::vector<Array> &a) { return loop(g, a, {NB, 0, 1}); };
  Array sop = random_f64(batched_shape(s.operand, 1), rng);
  Array sidx = random_indices(batched_shape(batched_shape(s.indices, 0), 0), s.max_start(), rng);
  Array supd = random_f64(batched_shape(batched_shape(s.updates, 1), 2), rng);
  expect_same(vmap_flat(scatter_inner, {sop, sidx, supd}, {1, 1, 2}),
              loop(scatter_inner_loop, {sop, sidx, supd}, {1, 1, 2}), 0.0, "nested scatter_add");
}

TEST(RulesGatherScatter, BatchCounterWidensNarrowIndices) {
  // 300 examples cannot be counted in u8 indices: the counter widens them.
  std::mt19937 rng(6);
  const GatherCase c = gather_cases()[0];
  FlatFn f = [&](const std::vector<Array> &a) {
    return std::vector<Array>{lax::gather(a[0], a[1], c.dims, c.slice_sizes)};
  };
  Shape os = c.operand, is = c.indices;
  os.insert(os.begin(), 300);
  is.insert(is.begin(), 300);
  Array op = random_f64(os, rng);
  Array idx = random_indices(is, c.max_start(), rng, uint8);
  expect_same(vmap_flat(f, {op, idx}, {0, 0}), loop(f, {op, idx}, {0, 0}), 0.0, "u8 counter");
}

// ---- random bits --------------------------------------------------------------------------------

TEST(RulesRandomBits, VmapOfUniformOverKeysMatchesLoopBitwise) {
  Array keys = random::split(random::key(42), 5);
  for (DType dt : {float32, float64, float16}) {
    SCOPED_TRACE(std::string(short_name(dt)));
    FlatFn f = [dt](const std::vector<Array> &k) {
      return std::vector<Array>{random::uniform(k[0], {3, 4}, dt)};
    };
    std::vector<Array> want = loop(f, {keys}, {0});
    for (auto [arg, axis] : {std::pair{keys, int64_t{0}}, std::pair{keys.T(), int64_t{1}}}) {
      std::vector<Array> got = vmap_flat(f, {arg}, {axis});
      ASSERT_EQ(got[0].shape(), want[0].shape());
      ASSERT_EQ(got[0].dtype(), want[0].dtype());
      EXPECT_EQ(std::memcmp(got[0].data(), want[0].data(), static_cast<size_t>(got[0].nbytes())),
                0)
          << "vmap of random.uniform differs from the per-key loop";
    }
  }
}

TEST(RulesRandomBits, BitPrimitivesBatchElementwise) {
  std::mt19937 rng(7);
  auto u32 = [&](const Shape &s) {
    std::vector<uint32_t> v(static_cast<size_t>(num_elements(s)));
    for (uint32_t &x : v)
      x = rng();
    return Array::from_vector(v, s);
  };
  FlatFn f = [](const std::vector<Array> &a) {
    auto [y0, y1] = lax::threefry2x32(a[0], a[1], a[2], a[3]);
    Array amount = lax::bitwise_and(a[3], lax::broadcast_in_dim(Array(uint32_t{31}), a[3].shape(),
                                                                {}));
    return std::vector<Array>{y0, y1, lax::shift_left(a[2], amount),
                              lax::shift_right_logical(a[2], amount),
                              lax::bitcast_convert_type(a[0], float32)};
  };
  std::vector<Array> args = {u32({3, 4}), u32({4}), u32({4, 3}), u32({4, 3})};
  std::vector<int64_t> axes = {0, NB, 1, -1};
  expect_same(vmap_flat(f, args, axes), loop(f, args, axes), 0.0, "bit primitives");
}

TEST(RulesRandomBits, BitcastIsNotDifferentiable) {
  // x * bitcast(bitcast(x)): the round trip is the identity but has no derivative, so the
  // gradient is the round trip's value alone.
  auto f = [](const Array &x) {
    Array same = lax::bitcast_convert_type(lax::bitcast_convert_type(x, int64), float64);
    return lax::reduce_sum(lax::mul(x, same), {0});
  };
  Array x = make({0.5, -2.0, 3.0}, float64);
  expect_array(grad(f)(x), {0.5, -2.0, 3.0}, {3}, float64);
  auto [y, t] = jvp([](const Array &x) { return lax::bitcast_convert_type(x, int64); },
                    std::make_tuple(x), std::make_tuple(make({1, 1, 1}, float64)));
  EXPECT_EQ(values(t), std::vector<double>({0, 0, 0}));
}
