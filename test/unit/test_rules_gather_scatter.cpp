// jvp, vjp and batch rules of gather, scatter, scatter_add and the random-bit primitives.
// Oracles: central finite differences, the adjoint identity <v, J u> == <J^T v, u>,
// hand-derived cotangents at out-of-bounds and duplicate indices, and per-example loops.
#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include "rules_check.h"
#include "strata/random.h"
#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;
using namespace strata::testutil::rules_check;

namespace {

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

/// The batched argument for an example-shaped `make_one`: kBatch examples along `axis`.
Array batched(const std::function<Array(const Shape &)> &make_one, const Shape &shape,
              int64_t axis) {
  return axis == NB ? make_one(shape) : make_one(batched_shape(shape, axis));
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

namespace {} // namespace

TEST(RulesGatherScatter, GatherBatching) {
  std::mt19937 rng(3);
  const std::vector<std::vector<int64_t>> combos = {{0, NB},  {1, NB}, {-1, NB}, {NB, 0}, {NB, 1},
                                                    {NB, -1}, {0, 0},  {1, -1},  {-1, 1}};
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
      {0, NB, NB}, {NB, NB, 1}, {NB, 0, NB}, {NB, 1, 0}, {0, 0, 0},
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
  expect_matches(vmap_flat(inner, {op, idx}, {0, 0}), loop(inner_loop, {op, idx}, {0, 0}),
                 Tolerance::exact(), "nested gather");

  const ScatterCase s = scatter_cases()[1];
  FlatFn g = [&](const std::vector<Array> &a) {
    return std::vector<Array>{lax::scatter_add(a[0], a[1], a[2], s.dims)};
  };
  FlatFn scatter_inner = [&](const std::vector<Array> &a) { return vmap_flat(g, a, {NB, 0, 1}); };
  FlatFn scatter_inner_loop = [&](const std::vector<Array> &a) { return loop(g, a, {NB, 0, 1}); };
  Array sop = random_f64(batched_shape(s.operand, 1), rng);
  Array sidx = random_indices(batched_shape(batched_shape(s.indices, 0), 0), s.max_start(), rng);
  Array supd = random_f64(batched_shape(batched_shape(s.updates, 1), 2), rng);
  expect_matches(vmap_flat(scatter_inner, {sop, sidx, supd}, {1, 1, 2}),
                 loop(scatter_inner_loop, {sop, sidx, supd}, {1, 1, 2}), Tolerance::exact(),
                 "nested scatter_add");
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
  expect_matches(vmap_flat(f, {op, idx}, {0, 0}), loop(f, {op, idx}, {0, 0}), Tolerance::exact(),
                 "u8 counter");
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
      EXPECT_EQ(std::memcmp(got[0].data(), want[0].data(), static_cast<size_t>(got[0].nbytes())), 0)
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
    Array amount =
        lax::bitwise_and(a[3], lax::broadcast_in_dim(Array(uint32_t{31}), a[3].shape(), {}));
    return std::vector<Array>{y0, y1, lax::shift_left(a[2], amount),
                              lax::shift_right_logical(a[2], amount),
                              lax::bitcast_convert_type(a[0], float32)};
  };
  std::vector<Array> args = {u32({3, 4}), u32({4}), u32({4, 3}), u32({4, 3})};
  std::vector<int64_t> axes = {0, NB, 1, -1};
  expect_matches(vmap_flat(f, args, axes), loop(f, args, axes), Tolerance::exact(),
                 "bit primitives");
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
