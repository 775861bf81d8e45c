// Differential test of the compiler: every primitive of the test table, compiled by jit, against
// libstrata's reference kernels (eager). Integer, bool and comparison results must match
// bitwise; floats within a tolerance per dtype. Each row also runs with its float64 operands
// cast to float32, and again (in both dtypes) with its float operands at edge values. For the GPU:
// every row compiles and links for sm_90 without a device (the host code against the CUDA runtime's
// symbols), and on a GPU runs there against eager.
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "jit/Context.h"
#include "jit/GpuExecutable.h"
#include "jit_test_util.h"
#include "primitive_table.h"
#include "runtime/cuda/CudaRuntime.h"
#include "strata/device.h"
#include "strata/jit.h"

using namespace strata;
using namespace strata::testutil;

namespace {

/// Compiled against eager: per dtype, looser on the GPU, which reassociates reductions (tree sums
/// over threads) and uses libdevice for f64 math; the compiled path must keep weak types.
Tolerance compiled_tolerance(DType d, bool gpu) {
  switch (d) {
  case DType::Float64:
    return Tolerance::of(gpu ? 1e-10 : 1e-12).with_weak_type();
  case DType::Float32:
    return Tolerance::of(gpu ? 2e-5 : 2e-6).with_weak_type();
  default:
    return Tolerance::of(1e-2).with_weak_type();
  }
}

void check_row(const Row &r, bool to_f32) {
  if (!r.not_compiled.empty())
    GTEST_SKIP() << r.not_compiled;
  Rng rng(std::hash<std::string>{}(r.name) ^ 0x717);
  std::vector<Array> in = r.gen(rng);
  if (to_f32)
    for (Array &x : in)
      if (x.dtype() == DType::Float64)
        x = x.astype(DType::Float32);
  std::vector<Array> want = r.fn(in);
  std::vector<Array> got = run_jitted(r.fn, in, "row");
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    expect_matches(got[i], want[i], compiled_tolerance(want[i].dtype(), false),
                   r.name + " output " + std::to_string(i));
}

class JitPrimitive : public ::testing::TestWithParam<std::string> {};

TEST_P(JitPrimitive, MatchesEager) {
  auto it = rows().find(GetParam());
  ASSERT_NE(it, rows().end()) << "no row for " << GetParam();
  check_row(it->second, false);
}

TEST_P(JitPrimitive, MatchesEagerFloat32) {
  const Row &r = rows().at(GetParam());
  Rng rng(1);
  std::vector<Array> in = r.gen(rng);
  if (std::none_of(in.begin(), in.end(), [](const Array &x) { return x.dtype() == float64; }))
    GTEST_SKIP() << "no float64 operands";
  if (!r.rejects_float32.empty()) {
    for (Array &x : in)
      if (x.dtype() == float64)
        x = x.astype(float32);
    EXPECT_THROW(r.fn(in), Error) << "marked as rejecting float32, but eager accepts it";
    GTEST_SKIP() << "the row rejects float32 operands: " << r.rejects_float32;
  }
  check_row(r, true);
}

// ---- Edges -------------------------------------------------------------------------------------
// Every row again, with its float operands filled with the values where kernels differ: signed
// infinities, NaN, +-1e30, near the overflow of exp in f32 (88.7) and f64 (709.7), the dtype's
// subnormals and signed zeros. Rounds walk the operands through the edge values, the first
// operand fastest, so that operands of one size meet in every pair. Rows without float operands
// (integers, bits, indices, iota, the integer host callback) have no edges and skip saying so;
// index and predicate operands of the other rows keep their generated, in-bounds values. The
// bounds are MatchesEager's: NaN where eager gives NaN, infinities exactly, f64 within
// 1e-12 (1 + |want|), f32 (where exp, log, tanh, sin, erf ... are polynomial approximations)
// within 2e-6 (1 + |want|), about 17 ULPs.

/// The edge values of a float dtype.
std::vector<double> edge_values(DType d) {
  double subnormal = d == DType::Float32 ? 1e-40 : 5e-320;
  return {INFINITY, -INFINITY, NAN,       1e30,       -1e30, 88.7, -88.7,
          709.7,    -709.7,    subnormal, -subnormal, 0.0,   -0.0};
}

/// Rows whose compiled path departs from eager at edge values, with the reason. Their edge test
/// still runs: it skips showing the differences while they persist, and fails once they are gone
/// (remove the entry then).
const std::map<std::string, std::string> &edge_known_failures() {
  // Compiled complex products are XLA's (ac - bd) + (ad + bc)i, which turns some infinite
  // products NaN, and the compiled complex functions are formulas on the parts with no special
  // cases for infinite parts; libstrata's std::complex follows C Annex G there.
  static const std::map<std::string, std::string> m = {
      {"conj f64", "compiled complex multiplication of infinities gives NaN, as XLA's"},
      {"conj f32", "compiled complex multiplication of infinities gives NaN, as XLA's"},
      {"imag f64", "compiled complex functions of infinite parts are not C Annex G's"},
      {"imag f32", "compiled complex functions of infinite parts are not C Annex G's"},
      {"real f64", "compiled complex functions of infinite parts are not C Annex G's"},
      {"real f32", "compiled complex functions of infinite parts are not C Annex G's"},
  };
  return m;
}

/// The row's operands with every float operand (as `dtype`) filled from the edge values for
/// round k; other operands as generated.
std::vector<Array> edge_operands(const std::vector<Array> &generated, DType dtype, size_t k) {
  std::vector<double> edges = edge_values(dtype);
  const size_t e = edges.size();
  std::vector<Array> in;
  size_t operand = 0;
  for (const Array &x : generated) {
    if (!is_floating(x.dtype())) {
      in.push_back(x);
      continue;
    }
    std::vector<double> v(static_cast<size_t>(num_elements(x.shape())));
    size_t stride = 1;
    for (size_t j = 0; j < operand; ++j)
      stride *= e;
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = edges[((k * v.size() + i) / stride + operand) % e];
    in.push_back(make(v, x.shape(), dtype));
    ++operand;
  }
  return in;
}

std::string describe(const std::vector<Array> &in) {
  std::string out;
  for (size_t j = 0; j < in.size(); ++j) {
    out += "  operand " + std::to_string(j) + " " + in[j].type_str() + ":";
    for (double v : values(in[j])) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " %.9g", v);
      out += buf;
    }
    out += "\n";
  }
  return out;
}

/// The differences between compiled and eager over every edge round of the row, as `dtype`
/// (empty: none). Compiles once: every round has the same signature.
std::string edge_mismatches(const Row &r, DType dtype) {
  Rng rng(std::hash<std::string>{}(r.name) ^ 0x717);
  std::vector<Array> generated = r.gen(rng);
  size_t smallest = SIZE_MAX;
  for (const Array &x : generated)
    if (is_floating(x.dtype()))
      smallest = std::min(smallest, static_cast<size_t>(num_elements(x.shape())));
  const size_t e = edge_values(dtype).size();
  const size_t rounds = std::max<size_t>(1, (e * e + smallest - 1) / std::max<size_t>(1, smallest));
  JitOptions options;
  options.name = "edges";
  JitFunction jf(options);
  TraceFn trace = [&](const std::vector<Array> &x, std::shared_ptr<void> &) { return r.fn(x); };
  std::string report;
  for (size_t k = 0; k < rounds; ++k) {
    std::vector<Array> in = edge_operands(generated, dtype, k);
    std::vector<Array> want = r.fn(in);
    std::vector<Array> got = jf.call(trace, in, "").first;
    std::string round;
    for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
      std::string m = mismatches(got[i], want[i], compiled_tolerance(want[i].dtype(), false));
      if (!m.empty())
        round += " output " + std::to_string(i) + " (compiled got, eager want): " + m;
    }
    if (got.size() != want.size())
      round += " compiled gave " + std::to_string(got.size()) + " outputs\n";
    if (!round.empty())
      report += "round " + std::to_string(k) + ":\n" + describe(in) + round;
  }
  EXPECT_EQ(jf.stats().misses, 1);
  return report;
}

void check_edges(const Row &r, DType dtype) {
  if (!r.not_compiled.empty())
    GTEST_SKIP() << r.not_compiled;
  Rng rng(1);
  std::vector<Array> in = r.gen(rng);
  if (std::none_of(in.begin(), in.end(), [](const Array &x) { return is_floating(x.dtype()); }))
    GTEST_SKIP() << "no float operands: the row's edges are its integer or bit patterns";
  if (dtype == float32 && !r.rejects_float32.empty())
    GTEST_SKIP() << "the row rejects float32 operands: " << r.rejects_float32;
  std::string m = edge_mismatches(r, dtype);
  auto known = edge_known_failures().find(r.name + (dtype == float32 ? " f32" : " f64"));
  if (known == edge_known_failures().end()) {
    EXPECT_TRUE(m.empty()) << r.name << " at edges:\n" << m;
    return;
  }
  ASSERT_FALSE(m.empty()) << "known failure no longer fails (remove its entry): " << known->first;
  GTEST_SKIP() << "known failure: " << known->second << "\n" << m;
}

TEST_P(JitPrimitive, MatchesEagerOnEdges) { check_edges(rows().at(GetParam()), float64); }

TEST_P(JitPrimitive, MatchesEagerOnEdgesFloat32) { check_edges(rows().at(GetParam()), float32); }

// The whole GPU path without a GPU: staging, strata-lower-to-nvvm for sm_90 (PTX), the host
// stage, LLVM for the host, and linking against libstrata_cuda's C ABI (every mgpu* and cuBLAS
// symbol the host code calls must resolve). Only the run needs a device.
TEST_P(JitPrimitive, CompilesAndLinksForGpu) {
  const Row &r = rows().at(GetParam());
  if (!r.not_compiled.empty())
    GTEST_SKIP() << r.not_compiled;
  if (!r.not_compiled_gpu.empty())
    GTEST_SKIP() << r.not_compiled_gpu;
  Rng rng(1);
  std::vector<AbstractValue> sig;
  for (const Array &x : r.gen(rng))
    sig.push_back({x.shape(), x.dtype(), x.weak_type()});
  std::lock_guard<std::recursive_mutex> lock(rt::context_mutex());
  rt::StagedFunction staged = rt::stage(rt::jit_context(), r.fn, sig, "row");
  rt::GpuTarget target; // sm_90, offline
  std::unique_ptr<rt::GpuExecutable> exe =
      rt::GpuExecutable::compile(std::move(staged), "row", target);
  ASSERT_NE(exe, nullptr);
  std::vector<Array> in = r.gen(rng);
  expect_error([&] { exe->run(in); }, {"compiled offline for sm_90"});
}

// On a GPU: the row's operands on cuda:0, the jitted function runs there, against eager on the
// host.
TEST_P(JitPrimitive, MatchesEagerOnGpu) {
  if (cuda::device_count() == 0)
    GTEST_SKIP() << "no GPU: " << cuda::unavailable_reason();
  const Row &r = rows().at(GetParam());
  if (!r.not_compiled.empty())
    GTEST_SKIP() << r.not_compiled;
  if (!r.not_compiled_gpu.empty())
    GTEST_SKIP() << r.not_compiled_gpu;
  Rng rng(std::hash<std::string>{}(r.name) ^ 0x717);
  std::vector<Array> in = r.gen(rng);
  std::vector<Array> want = r.fn(in);
  const Device gpu{Device::Kind::CUDA, 0};
  std::vector<Array> on_gpu;
  for (const Array &x : in)
    on_gpu.push_back(device_put(x, gpu));
  std::vector<Array> got = run_jitted(r.fn, on_gpu, "row");
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].device(), gpu) << r.name << " output " << i;
    expect_matches(got[i], want[i], compiled_tolerance(want[i].dtype(), /*gpu=*/true),
                   r.name + " output " + std::to_string(i) + " on cuda:0");
  }
}

std::vector<std::string> row_names() {
  std::vector<std::string> names;
  for (const auto &[n, r] : rows())
    names.push_back(n);
  return names;
}

/// Values with many ties, signed zeros, infinities and NaNs of both signs, as `dtype`.
Array awkward(Rng &rng, const Shape &s, DType dtype) {
  std::vector<double> v = draw(rng, num_elements(s), -20, 20);
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = std::round(v[i]) / 4;
    if (is_floating(dtype) && i % 13 == 0)
      v[i] = i % 2 ? -0.0 : std::numeric_limits<double>::quiet_NaN();
    if (is_floating(dtype) && i % 29 == 0)
      v[i] = i % 2 ? -std::numeric_limits<double>::infinity() : -v[i] * 1e300;
    if (is_floating(dtype) && i % 31 == 0) // a negative NaN (its sign must survive the sort)
      v[i] = -std::numeric_limits<double>::quiet_NaN();
  }
  Array a = make(v, s, float64);
  return a.astype(dtype);
}

/// The CPU pipeline sorts and scans with libstrata's kernels (strata-sort-scan-to-runtime): the
/// compiled results are the eager ones bit for bit, on lines long enough for the radix sort and
/// for the blocked parallel scan, along inner and outer dimensions, in several dtypes.
TEST(JitSortScan, BitwiseEqualToEager) {
  Rng rng(7);
  for (DType t : {float32, float64, float16, bfloat16, int32, uint8, int64}) {
    std::string name(short_name(t));
    Array x = awkward(rng, {3, 1000}, t), y = awkward(rng, {600, 5}, t);
    Array ix = lax::iota(int32, {3, 1000}, 1);
    Array k2 = integers(rng, {3, 1000}, 0, 3);
    std::vector<std::pair<std::string, FlatFn>> fns = {
        {"sort last", [](const std::vector<Array> &a) { return lax::sort({a[0]}, 1); }},
        {"sort first", [](const std::vector<Array> &a) { return lax::sort({a[1]}, 0); }},
        {"argsort", [](const std::vector<Array> &a) { return lax::sort({a[0], a[2]}, 1); }},
        {"two keys",
         [](const std::vector<Array> &a) { return lax::sort({a[3], a[0], a[2]}, 1, 2); }},
        {"cummax", [](const std::vector<Array> &a) { return std::vector{lax::cummax(a[0], 1)}; }},
        {"cummin rev",
         [](const std::vector<Array> &a) { return std::vector{lax::cummin(a[1], 0, true)}; }},
        {"cumsum", [](const std::vector<Array> &a) { return std::vector{lax::cumsum(a[0], 1)}; }},
        {"cumsum outer rev",
         [](const std::vector<Array> &a) { return std::vector{lax::cumsum(a[1], 0, true)}; }},
        {"cumprod", [](const std::vector<Array> &a) { return std::vector{lax::cumprod(a[1], 0)}; }},
    };
    for (const auto &[what, fn] : fns) {
      std::vector<Array> in = {x, y, ix, k2};
      expect_same_bits(run_jitted(fn, in, "row"), fn(in), name + " " + what);
    }
  }
  // One long line: the blocked scan (block partials on every thread, then the offsets).
  Array big = uniform(rng, {300001}, -1, 1).astype(float32);
  for (bool reverse : {false, true}) {
    FlatFn fn = [reverse](const std::vector<Array> &a) {
      return std::vector{lax::cumsum(a[0], 0, reverse)};
    };
    expect_same_bits(run_jitted(fn, {big}, "row"), fn({big}), "long cumsum");
  }
  FlatFn sort1 = [](const std::vector<Array> &a) { return lax::sort({a[0]}, 0); };
  expect_same_bits(run_jitted(sort1, {big}, "row"), sort1({big}), "long sort");
}

INSTANTIATE_TEST_SUITE_P(All, JitPrimitive, ::testing::ValuesIn(row_names()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           return info.param;
                         });

} // namespace
