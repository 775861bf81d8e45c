// Differential test of the compiler: every primitive of the test table, compiled by jit, against
// libstrata's reference kernels (eager). Integer, bool and comparison results must match
// bitwise; floats within a tolerance per dtype. Each row also runs with its float64 operands
// cast to float32. For the GPU: every row compiles and links for sm_90 without a device (the
// host code against the CUDA runtime's symbols), and on a GPU runs there against eager.
#include <cmath>

#include "primitive_table.h"
#include "runtime/GpuBackend.h"
#include "runtime/cuda/CudaRuntime.h"
#include "strata/device.h"
#include "strata/jit.h"

using namespace strata;
using namespace strata::testutil;

namespace {

/// The GPU reassociates reductions (tree sums over threads) and uses libdevice for f64 math.
double tolerance(DType d, bool gpu) {
  switch (d) {
  case DType::Float64:
    return gpu ? 1e-10 : 1e-12;
  case DType::Float32:
    return gpu ? 2e-5 : 2e-6;
  default:
    return 1e-2;
  }
}

void expect_same(const Array &got, const Array &want, const std::string &what, bool gpu = false) {
  ASSERT_EQ(got.type_str(), want.type_str()) << what;
  EXPECT_EQ(got.weak_type(), want.weak_type()) << what;
  std::vector<double> g = values(got), w = values(want);
  bool fl = is_floating(want.dtype());
  double tol = tolerance(want.dtype(), gpu);
  for (size_t i = 0; i < g.size(); ++i) {
    if (fl && std::isnan(w[i])) {
      EXPECT_TRUE(std::isnan(g[i])) << what << " at flat index " << i;
    } else if (!fl || std::isinf(w[i])) {
      EXPECT_EQ(g[i], w[i]) << what << " at flat index " << i;
    } else {
      EXPECT_NEAR(g[i], w[i], tol * (1 + std::fabs(w[i]))) << what << " at flat index " << i;
    }
  }
}

std::vector<Array> run_jitted(const FlatFn &fn, const std::vector<Array> &in) {
  JitOptions options;
  options.name = "row";
  JitFunction jf(options);
  TraceFn trace = [&](const std::vector<Array> &x, std::shared_ptr<void> &) { return fn(x); };
  std::vector<Array> out = jf.call(trace, in, "").first;
  EXPECT_EQ(jf.stats().misses, 1);
  EXPECT_EQ(jf.stats().inline_calls, 0);
  return out;
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
  std::vector<Array> want;
  try {
    want = r.fn(in);
  } catch (const Error &e) {
    if (!to_f32)
      throw;
    GTEST_SKIP() << "the row's operands do not take float32: " << e.what();
  }
  std::vector<Array> got = run_jitted(r.fn, in);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    expect_same(got[i], want[i], r.name + " output " + std::to_string(i));
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
  check_row(r, true);
}

// The whole GPU path without a GPU: staging, strata-lower-to-nvvm for sm_90 (PTX), the host
// stage, LLVM for the host, and linking against libstrata_cuda's C ABI (every mgpu* and cuBLAS
// symbol the host code calls must resolve). Only the run needs a device.
TEST_P(JitPrimitive, CompilesAndLinksForGpu) {
  const Row &r = rows().at(GetParam());
  if (!r.not_compiled.empty())
    GTEST_SKIP() << r.not_compiled;
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
  Rng rng(std::hash<std::string>{}(r.name) ^ 0x717);
  std::vector<Array> in = r.gen(rng);
  std::vector<Array> want = r.fn(in);
  const Device gpu{Device::Kind::CUDA, 0};
  std::vector<Array> on_gpu;
  for (const Array &x : in)
    on_gpu.push_back(device_put(x, gpu));
  std::vector<Array> got = run_jitted(r.fn, on_gpu);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].device(), gpu) << r.name << " output " << i;
    expect_same(got[i], want[i], r.name + " output " + std::to_string(i) + " on cuda:0",
                /*gpu=*/true);
  }
}

std::vector<std::string> row_names() {
  std::vector<std::string> names;
  for (const auto &[n, r] : rows())
    names.push_back(n);
  return names;
}

INSTANTIATE_TEST_SUITE_P(All, JitPrimitive, ::testing::ValuesIn(row_names()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           return info.param;
                         });

} // namespace
