// Jitted complex sorts, scans, gathers, scatters and extrema against eager, bit for bit: the CPU
// pipeline calls libstrata's kernels for sorts and scans and lowers the indexing ops to loops,
// so the compiled results must be exactly the eager ones, at signed zeros, infinities and NaNs in
// either part, in complex64 and complex128.
#include <cmath>
#include <cstring>
#include <limits>

#include "jit/Context.h"
#include "jit/GpuExecutable.h"
#include "jit_test_util.h"
#include "primitive_table.h"
#include "strata/jit.h"

using namespace strata;
using namespace strata::testutil;

namespace {

/// Parts with many ties (so the imaginary part decides often), signed zeros, infinities and NaNs.
Array awkward_part(Rng &rng, const Shape &s, int64_t salt) {
  std::vector<double> v = draw(rng, num_elements(s), -3, 3);
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = std::round(v[i]);
    if ((i + salt) % 11 == 0)
      v[i] = i % 2 ? -0.0 : std::numeric_limits<double>::quiet_NaN();
    if ((i + salt) % 17 == 0)
      v[i] = i % 2 ? -std::numeric_limits<double>::infinity()
                   : std::numeric_limits<double>::infinity();
  }
  return make(v, s, float64);
}

Array awkward_complex(Rng &rng, const Shape &s, DType t) {
  DType part = t == complex64 ? float32 : float64;
  return lax::complex(awkward_part(rng, s, 0).astype(part), awkward_part(rng, s, 5).astype(part));
}

TEST(JitComplex, SortsAndScansBitwiseEqualToEager) {
  Rng rng(11);
  for (DType t : {complex64, complex128}) {
    std::string name(short_name(t));
    // Long lines (radix-sorted parts in the kernel), short ones and one-element lines.
    Array x = awkward_complex(rng, {3, 700}, t), y = awkward_complex(rng, {40, 5}, t);
    Array one = awkward_complex(rng, {4, 1}, t);
    Array ix = lax::iota(int32, {3, 700}, 1);
    Array k2 = integers(rng, {3, 700}, 0, 3);
    std::vector<std::pair<std::string, FlatFn>> fns = {
        {"sort last", [](const std::vector<Array> &a) { return lax::sort({a[0]}, 1); }},
        {"sort first", [](const std::vector<Array> &a) { return lax::sort({a[1]}, 0); }},
        {"sort short", [](const std::vector<Array> &a) { return lax::sort({a[1]}, 1); }},
        {"sort one-element lines",
         [](const std::vector<Array> &a) { return lax::sort({a[4]}, 1); }},
        {"argsort", [](const std::vector<Array> &a) { return lax::sort({a[0], a[2]}, 1); }},
        {"int key, complex key, payload",
         [](const std::vector<Array> &a) { return lax::sort({a[3], a[0], a[2]}, 1, 2); }},
        {"complex payload",
         [](const std::vector<Array> &a) { return lax::sort({a[3], a[0]}, 1, 1); }},
        {"cumsum", [](const std::vector<Array> &a) { return std::vector{lax::cumsum(a[0], 1)}; }},
        {"cumsum outer rev",
         [](const std::vector<Array> &a) { return std::vector{lax::cumsum(a[1], 0, true)}; }},
        {"cumprod", [](const std::vector<Array> &a) { return std::vector{lax::cumprod(a[1], 0)}; }},
        {"cummax", [](const std::vector<Array> &a) { return std::vector{lax::cummax(a[0], 1)}; }},
        {"cummin rev",
         [](const std::vector<Array> &a) { return std::vector{lax::cummin(a[1], 0, true)}; }},
        {"max min clamp",
         [](const std::vector<Array> &a) {
           Array lo = lax::slice(a[1], {0, 0}, {20, 5}), hi = lax::slice(a[1], {20, 0}, {40, 5});
           return std::vector{lax::max(lo, hi), lax::min(lo, hi), lax::clamp(lo, hi, hi)};
         }},
    };
    for (const auto &[what, fn] : fns) {
      std::vector<Array> in = {x, y, ix, k2, one};
      expect_same_bits(run_jitted(fn, in, "complex"), fn(in), name + " " + what);
    }
  }
}

TEST(JitComplex, GatherAndScattersBitwiseEqualToEager) {
  Rng rng(12);
  for (DType t : {complex64, complex128}) {
    std::string name(short_name(t));
    Array x = awkward_complex(rng, {6, 4}, t);
    // Row indices with a duplicate and one out of bounds (7: the window is dropped).
    Array idx = make({1, 4, 1, 7}, {4, 1}, int32);
    Array rows = awkward_complex(rng, {4, 4}, t);
    lax::GatherDimensionNumbers g{{1}, {0}, {0}};
    lax::ScatterDimensionNumbers s{{1}, {0}, {0}};
    std::vector<std::pair<std::string, FlatFn>> fns = {
        {"gather",
         [g](const std::vector<Array> &a) {
           return std::vector{lax::gather(a[0], a[1], g, {1, 4})};
         }},
        {"scatter",
         [s](const std::vector<Array> &a) {
           return std::vector{lax::scatter(a[0], a[1], a[2], s)};
         }},
        {"scatter_add",
         [s](const std::vector<Array> &a) {
           return std::vector{lax::scatter_add(a[0], a[1], a[2], s)};
         }},
    };
    for (const auto &[what, fn] : fns) {
      std::vector<Array> in = {x, idx, rows};
      expect_same_bits(run_jitted(fn, in, "complex"), fn(in), name + " " + what);
    }
  }
}

// scatter_add accumulates complex updates (duplicates add up), as numpy's np.add.at.
TEST(JitComplex, ScatterAddOfComplexMatchesNumpyAddAt) {
  Array x = lax::complex(make({1, 2, 3}, {3}, float32), make({0, -1, 2}, {3}, float32));
  Array idx = make({2, 0, 2}, {3, 1}, int32);
  Array u = lax::complex(make({1, 10, 100}, {3}, float32), make({1, 2, 3}, {3}, float32));
  Array y = lax::scatter_add(x, idx, u, {{}, {0}, {0}});
  // np.add.at(x, [2, 0, 2], u): x[0] += 10+2j, x[2] += (1+1j) + (100+3j).
  Array want = lax::complex(make({11, 2, 104}, {3}, float32), make({2, -1, 6}, {3}, float32));
  expect_same_bits({y}, {want}, "eager scatter_add");
  FlatFn fn = [](const std::vector<Array> &a) {
    return std::vector{lax::scatter_add(a[0], a[1], a[2], {{}, {0}, {0}})};
  };
  expect_same_bits(run_jitted(fn, {x, idx, u}, "complex"), {want}, "jitted scatter_add");
}

// The GPU path without a GPU: complex sorts (counting on short lines, the bitonic network on
// long ones), scans, gathers, scatters, extrema, reductions and products through
// strata-lower-to-nvvm for sm_90, ptxas and the host link (as the table's CompilesAndLinksForGpu).
TEST(JitComplex, CompilesAndLinksForGpu) {
  Rng rng(13);
  for (DType t : {complex64, complex128}) {
    std::string name(short_name(t));
    Array x = awkward_complex(rng, {3, 40}, t), s = awkward_complex(rng, {3, 6}, t);
    Array idx = make({1, 2, 1}, {3, 1}, int32);
    std::vector<std::pair<std::string, FlatFn>> fns = {
        {"sort long lines", [](const std::vector<Array> &a) { return lax::sort({a[0]}, 1); }},
        {"sort short lines, two keys",
         [](const std::vector<Array> &a) { return lax::sort({a[1], lax::neg(a[1])}, 1, 2); }},
        {"scans",
         [](const std::vector<Array> &a) {
           return std::vector{lax::cumsum(a[0], 1), lax::cumprod(a[1], 0, true),
                              lax::cummax(a[1], 1), lax::cummin(a[0], 0)};
         }},
        {"gather and scatter_add",
         [](const std::vector<Array> &a) {
           Array g = lax::gather(a[1], a[2], {{1}, {0}, {0}}, {1, 6});
           return std::vector{g, lax::scatter_add(a[1], a[2], g, {{1}, {0}, {0}})};
         }},
        {"extrema and products",
         [](const std::vector<Array> &a) {
           Array s2 = lax::neg(a[1]);
           return std::vector{lax::max(a[1], s2), lax::reduce_max(a[0], {1}),
                              lax::dot_general(a[1], s2, {{1}, {1}, {}, {}})};
         }},
    };
    for (const auto &[what, fn] : fns) {
      std::vector<Array> in = {x, s, idx};
      std::vector<AbstractValue> sig;
      for (const Array &v : in)
        sig.push_back({v.shape(), v.dtype(), v.weak_type()});
      std::lock_guard<std::recursive_mutex> lock(rt::context_mutex());
      rt::StagedFunction staged = rt::stage(rt::jit_context(), fn, sig, "complex");
      rt::GpuTarget target; // sm_90, offline
      std::unique_ptr<rt::GpuExecutable> exe =
          rt::GpuExecutable::compile(std::move(staged), "complex", target);
      EXPECT_NE(exe, nullptr) << name << " " << what;
    }
  }
  // An FFT becomes a cuFFT call between the kernels.
  FlatFn fft = [](const std::vector<Array> &a) { return std::vector{lax::fft(a[0], "FFT", {4})}; };
  std::vector<AbstractValue> sig = {{{2, 4}, complex64, false}};
  std::lock_guard<std::recursive_mutex> lock(rt::context_mutex());
  rt::StagedFunction staged = rt::stage(rt::jit_context(), fft, sig, "fft");
  EXPECT_NE(rt::GpuExecutable::compile(std::move(staged), "fft", rt::GpuTarget{}), nullptr);
}

} // namespace
