// The runtime on a machine without a usable GPU: no devices with a reason, clear errors from
// every device call, the backend registered with libstrata, and the C ABI recording its
// failures instead of crashing. Skipped where a GPU is present.
#include <cstdlib>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "cuda_test_util.h"
#include "runtime/cuda/CudaDeviceBackend.h"
#include "runtime/cuda/CudaRuntime.h"
#include "strata/device.h"
#include "test_util.h"

using namespace strata;
using namespace strata::cuda;
using testutil::expect_error;

namespace {

#define REQUIRE_NO_DEVICE()                                                                        \
  if (device_count() > 0)                                                                          \
  GTEST_SKIP() << "a CUDA device is present; the no-device behaviour cannot be observed"

} // namespace

TEST(CudaNoDevice, NoDevicesAndAReason) {
  REQUIRE_NO_DEVICE();
  EXPECT_EQ(device_count(), 0);
  std::string why = unavailable_reason();
  EXPECT_FALSE(why.empty());
  EXPECT_TRUE(why.find("libcuda.so.1") != std::string::npos ||
              why.find("cuInit") != std::string::npos ||
              why.find("STRATA_DISABLE_CUDA") != std::string::npos)
      << why;
  // Under the cuda_stub_driver test, libcuda.so.1 is the toolkit's stub: it loads, and every
  // symbol the runtime needs resolves (or the reason would say which one is lacking); only cuInit
  // fails.
  if (std::getenv("STRATA_EXPECT_STUB_DRIVER"))
    EXPECT_EQ(why, "cuInit failed: CUDA_ERROR_STUB_LIBRARY (libcuda.so.1 is the toolkit's stub, "
                   "not a driver)");
}

TEST(CudaNoDevice, DeviceCallsThrowNamingDeviceAndReason) {
  REQUIRE_NO_DEVICE();
  std::string why = unavailable_reason();
  std::vector<char> host(16);
  expect_error([] { allocate(0, 16); }, {"[cuda] cuda:0 is not available", why.c_str()});
  expect_error([&] { copy_to_device(0, host.data(), host.data(), 16); },
               {"cuda:0 is not available"});
  expect_error([&] { copy_to_host(0, host.data(), host.data(), 16); }, {"cuda:0 is not available"});
  expect_error([] { device_info(1); }, {"cuda:1 is not available"});
  expect_error([] { chip(0); }, {"cuda:0 is not available"});
  expect_error([] { synchronize(0); }, {"cuda:0 is not available"});
  expect_error([] { memory_stats(0); }, {"cuda:0 is not available"});
  expect_error([] { empty_cache(0); }, {"cuda:0 is not available"});
  expect_error([] { Module::load_ptx(0, cudatest::kVaddPtx); }, {"cuda:0 is not available"});
  expect_error([] { PinnedBuffer(64); }, {"no CUDA driver"});
  // Not a device: nothing to do, nothing thrown.
  deallocate(0, host.data());
}

TEST(CudaNoDevice, BackendIsRegisteredAndListsNoDevice) {
  REQUIRE_NO_DEVICE();
  EXPECT_EQ(device_backend(Device::Kind::CUDA), &backend());
  std::vector<Device> ds = devices();
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0], cpu_device());
  expect_error([] { parse_device("cuda:0"); }, {"cuda:0 is not available"});
  Array x = Array::from_vector<float>({1, 2, 3});
  expect_error([&] { device_put(x, Device{Device::Kind::CUDA, 0}); },
               {"cuda:0", unavailable_reason().c_str()});
  EXPECT_EQ(backend().device_count(), 0);
  EXPECT_EQ(backend().unavailable_reason(), unavailable_reason());
}

TEST(CudaNoDevice, CAbiRecordsTheFirstErrorAndSkipsTheRest) {
  REQUIRE_NO_DEVICE();
  clear_pending_error();
  EXPECT_FALSE(has_pending_error());
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  ASSERT_TRUE(has_pending_error());
  // Later calls do nothing (and do not replace the first error).
  EXPECT_EQ(mgpuMemAlloc(1024, nullptr, 0), nullptr);
  EXPECT_EQ(mgpuModuleLoadJIT(const_cast<char *>(cudatest::kVaddPtx), 3), nullptr);
  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  mgpuStreamSynchronize(nullptr);
  mgpuStreamDestroy(nullptr);
  mgpuModuleUnload(nullptr);
  mgpuMemFree(nullptr, nullptr);
  expect_error([] { rethrow_pending_error(); },
               {"[cuda] cuda:0 is not available", unavailable_reason().c_str()});
  EXPECT_FALSE(has_pending_error()) << "rethrow clears the record";
  rethrow_pending_error(); // nothing pending: no throw
}

TEST(CudaNoDevice, CAbiActsOnTheCurrentDevice) {
  REQUIRE_NO_DEVICE();
  clear_pending_error();
  mgpuSetDefaultDevice(3);
  EXPECT_EQ(current_device(), 3);
  EXPECT_EQ(mgpuEventCreate(), nullptr);
  expect_error([] { rethrow_pending_error(); }, {"cuda:3 is not available"});
  EXPECT_EQ(mgpuModuleLoad(const_cast<char *>("x"), 1), nullptr);
  expect_error([] { rethrow_pending_error(); }, {"cuda:3 is not available"});
  set_current_device(0);
  EXPECT_EQ(current_device(), 0);
}

TEST(CudaNoDevice, CAbiRejectsWhatNeedsNoDevice) {
  REQUIRE_NO_DEVICE();
  clear_pending_error();
  EXPECT_EQ(mgpuModuleLoad(nullptr, 0), nullptr);
  expect_error([] { rethrow_pending_error(); }, {"empty module image"});
  mgpuMemFree(reinterpret_cast<void *>(0x1234), nullptr);
  expect_error([] { rethrow_pending_error(); }, {"mgpuMemFree", "not a block"});
  EXPECT_EQ(mgpuMemAlloc(16, nullptr, 1), nullptr);
  expect_error([] { rethrow_pending_error(); }, {"host-shared"});
}

TEST(CudaRuntimeSymbols, EveryCAbiFunctionIsListedAndExported) {
  auto symbols = runtime_symbols();
  EXPECT_EQ(symbols.size(), 29u); // 20 of the core runtime, 7 of linalg, cuFFT, cuDNN
  for (auto [name, address] : symbols) {
    SCOPED_TRACE(name);
    EXPECT_NE(address, nullptr);
    // Default visibility: a JIT finds them in the process by name.
    EXPECT_EQ(dlsym(RTLD_DEFAULT, name), address);
  }
}
