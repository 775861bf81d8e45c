// jit's GPU path from the user's side: lower() for a chip on a machine without that GPU, the
// stages it shows, device placement errors, and (on a GPU) jit and eager ops on device arrays
// against the host.
#include <cmath>

#include "runtime/cuda/CudaRuntime.h"
#include "strata/device.h"
#include "strata/jit.h"
#include "strata/nn.h"
#include "strata/random.h"
#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using testutil::expect_error;
using testutil::expect_matches;
using testutil::Tolerance;

namespace {

Array softmax_rows(const Array &x) {
  Array m = max(x, {1}, /*keepdims=*/true);
  Array e = exp(x - m);
  return e / sum(e, {1}, true);
}

TEST(JitGpu, LowersForEveryChipOffline) {
  Array x = Array::from_vector<float>(std::vector<float>(64 * 128, 0.5f), {64, 128});
  for (const char *chip : {"sm_90", "sm_120"}) {
    SCOPED_TRACE(chip);
    JitOptions o;
    o.name = "softmax";
    o.chip = chip;
    Lowered l = jit(softmax_rows, o).lower(x);
    std::vector<std::string> want = {"strata", "optimized", "linalg", "bufferized", "gpu",
                                     "nvvm",   "ptx",       "host",   "llvm-ir"};
    std::vector<std::string> got = l.stages();
    for (const std::string &stage : want)
      EXPECT_NE(std::find(got.begin(), got.end(), stage), got.end()) << "no stage " << stage;
    EXPECT_NE(l.as_text("ptx").find(std::string(".target ") + chip), std::string::npos);
    EXPECT_NE(l.as_text("gpu").find("gpu.launch_func"), std::string::npos);
    // The host code launches through the runtime's C ABI and loads PTX with the driver's JIT
    // path (mgpuModuleLoadJIT -> nvJitLink in libstrata_cuda).
    const std::string &ir = l.as_text("llvm-ir");
    EXPECT_NE(ir.find("@mgpuLaunchKernel"), std::string::npos);
    EXPECT_NE(ir.find("@mgpuModuleLoadJIT"), std::string::npos);
    EXPECT_EQ(ir.find("@malloc"), std::string::npos) << "host buffers must be device memory";
    // Module loads run from strata_init, which the runtime calls (ORC runs no constructors of
    // object code, and the persistent cache holds object code).
    EXPECT_EQ(ir.find("llvm.global_ctors"), std::string::npos);
    size_t init = ir.find("define void @strata_init()");
    ASSERT_NE(init, std::string::npos);
    EXPECT_NE(ir.find("_load()", init), std::string::npos) << "strata_init loads no module";
  }
}

TEST(JitGpu, DotGoesThroughTheRuntime) {
  Array a = Array::from_vector<float>(std::vector<float>(32 * 64, 1.0f), {32, 64});
  Array b = Array::from_vector<float>(std::vector<float>(64 * 16, 1.0f), {64, 16});
  JitOptions o;
  o.chip = "sm_90";
  Lowered l = jit([](const Array &p, const Array &q) { return matmul(p, q); }, o).lower(a, b);
  EXPECT_NE(l.as_text("llvm-ir").find("strata_rt_cuda_gemm"), std::string::npos)
      << "dot_general should call cuBLAS, not a loop kernel";
}

TEST(JitGpu, PlacementErrorsWithoutAGpu) {
  if (cuda::device_count() > 0)
    GTEST_SKIP() << "this machine has a GPU";
  JitOptions o;
  o.device = Device{Device::Kind::CUDA, 0};
  auto f = jit([](const Array &v) { return v * 2.0f; }, o);
  Array x = Array::from_vector<float>({1, 2});
  expect_error([&] { f(x); }, {"cuda:0"});
  expect_error([&] { device_put(x, Device{Device::Kind::CUDA, 0}); }, {"cuda:0", "not available"});
  // devices() lists only the host, and says why not more.
  EXPECT_EQ(devices().size(), 1u);
  EXPECT_FALSE(cuda::unavailable_reason().empty());
}

// ---- On a GPU --------------------------------------------------------------------------------

class OnGpu : public ::testing::Test {
protected:
  void SetUp() override {
    if (cuda::device_count() == 0)
      GTEST_SKIP() << "no GPU: " << cuda::unavailable_reason();
  }
  const Device gpu{Device::Kind::CUDA, 0};
};

TEST_F(OnGpu, JitRunsWhereItsInputsLive) {
  Array x = random::normal(random::key(0), {256, 1000});
  auto f = jit(softmax_rows);
  Array on_gpu = f(device_put(x, gpu));
  EXPECT_EQ(on_gpu.device(), gpu);
  expect_matches(device_put(on_gpu, cpu_device()), softmax_rows(x), Tolerance::of(1e-5));
  // A host argument joins the GPU one on its device.
  auto g = jit([](const Array &a, const Array &b) { return a * b + 1.0f; });
  Array y = g(device_put(x, gpu), x);
  EXPECT_EQ(y.device(), gpu);
  expect_matches(device_put(y, cpu_device()), x * x + 1.0f, Tolerance::of(1e-6));
}

TEST_F(OnGpu, EagerOpsRunOnTheDevice) {
  Array x = random::normal(random::key(1), {64, 33});
  Array d = device_put(x, gpu);
  Array y = tanh(d) * 3.0f - d;
  EXPECT_EQ(y.device(), gpu);
  expect_matches(device_put(y, cpu_device()), tanh(x) * 3.0f - x, Tolerance::of(1e-5));
  Array s = sum(d, {0});
  expect_matches(device_put(s, cpu_device()), sum(x, {0}), Tolerance::of(1e-5));
}

TEST_F(OnGpu, GradAndVmapOfJitOnTheDevice) {
  Array w = random::normal(random::key(2), {128, 64}) * 0.1f;
  Array xs = random::normal(random::key(3), {32, 128});
  auto loss = [](const Array &w_, const Array &x) { return sum(tanh(matmul(x, w_))); };
  auto g = jit(grad(loss));
  Array got = g(device_put(w, gpu), device_put(xs, gpu));
  expect_matches(device_put(got, cpu_device()), grad(loss)(w, xs), Tolerance::of(1e-4));
  auto per_example = jit(vmap([&](const Array &x) { return loss(w, x[NewAxis]); }));
  expect_matches(device_put(per_example(device_put(xs, gpu)), cpu_device()),
                 vmap([&](const Array &x) { return loss(w, x[NewAxis]); })(xs),
                 Tolerance::of(1e-4));
}

TEST_F(OnGpu, MatmulMatchesTheHostInEveryFloatType) {
  for (DType dt : {float32, bfloat16, float16}) {
    SCOPED_TRACE(short_name(dt));
    Array a = astype(random::normal(random::key(4), {96, 80}), dt);
    Array b = astype(random::normal(random::key(5), {80, 72}), dt);
    auto f = jit([](const Array &p, const Array &q) { return matmul(p, q); });
    expect_matches(device_put(f(device_put(a, gpu), device_put(b, gpu)), cpu_device()),
                   matmul(a, b), Tolerance::of(dt == float32 ? 1e-4 : 2e-2));
  }
}

} // namespace
