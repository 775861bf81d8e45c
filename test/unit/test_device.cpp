// Devices in libstrata, checked without a GPU: the registry, parse_device, device_put, buffers
// in a backend's memory, host copies, and the dispatch of eager ops to a device evaluator. A
// fake backend keeps "device" memory in separate host allocations it counts.
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "strata/device.h"
#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using testutil::expect_error;

namespace {

/// Two "GPUs" whose memory is host memory the backend owns and counts.
class FakeBackend : public DeviceBackend {
public:
  int device_count() override { return 2; }
  std::string unavailable_reason() override { return ""; }
  std::string describe(int index) override { return "fake device " + std::to_string(index); }
  void *allocate(int index, size_t nbytes) override {
    void *p = std::malloc(nbytes ? nbytes : 1);
    std::lock_guard<std::mutex> lock(mu);
    live[p] = index;
    live_bytes += static_cast<int64_t>(nbytes);
    return p;
  }
  void deallocate(int index, void *ptr, size_t nbytes) noexcept override {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(live.at(ptr), index);
    live.erase(ptr);
    live_bytes -= static_cast<int64_t>(nbytes);
    std::free(ptr);
  }
  void copy_to_host(int index, void *dst, const void *src, size_t n) override {
    check(index, src);
    std::memcpy(dst, src, n);
    ++copies;
  }
  void copy_from_host(int index, void *dst, const void *src, size_t n) override {
    check(index, dst);
    std::memcpy(dst, src, n);
    ++copies;
  }
  void copy_between(int from, const void *src, int to, void *dst, size_t n) override {
    check(from, src);
    check(to, dst);
    std::memcpy(dst, src, n);
    ++copies;
  }
  void check(int index, const void *p) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = live.find(const_cast<void *>(p));
    ASSERT_NE(it, live.end()) << "not a device pointer";
    EXPECT_EQ(it->second, index);
  }
  std::mutex mu;
  std::map<void *, int> live;
  int64_t live_bytes = 0;
  int copies = 0;
};

const Device kGpu0{Device::Kind::CUDA, 0};
const Device kGpu1{Device::Kind::CUDA, 1};

class DeviceTest : public ::testing::Test {
protected:
  void SetUp() override { register_device_backend(Device::Kind::CUDA, &fake); }
  void TearDown() override {
    register_device_eval(Device::Kind::CUDA, nullptr);
    register_device_backend(Device::Kind::CUDA, nullptr);
    EXPECT_EQ(fake.live_bytes, 0) << "device memory leaked";
  }
  FakeBackend fake;
};

TEST(DeviceNoBackend, OnlyTheHostAndClearErrors) {
  ASSERT_EQ(device_backend(Device::Kind::CUDA), nullptr);
  std::vector<Device> ds = devices();
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0], cpu_device());
  EXPECT_EQ(parse_device("cpu"), cpu_device());
  EXPECT_EQ(parse_device("cpu:0"), cpu_device());
  expect_error([] { parse_device("cuda:0"); }, {"[device]", "cuda:0", "no CUDA runtime"});
  expect_error([] { parse_device("tpu:0"); }, {"[device]", "'tpu:0'", "not a device name"});
  expect_error([] { parse_device("cuda:x"); }, {"not a device name"});
  expect_error([] { parse_device("cpu:1"); }, {"cpu:1", "the host is cpu:0"});
  Array x = Array::from_vector<float>({1, 2, 3});
  expect_error([&] { device_put(x, kGpu0); }, {"[array]", "cuda:0", "no CUDA runtime"});
  EXPECT_EQ(device_put(x, cpu_device()).impl(), x.impl()) << "no copy to where it is";
}

TEST_F(DeviceTest, ListsAndParsesDevices) {
  std::vector<Device> ds = devices();
  ASSERT_EQ(ds.size(), 3u);
  EXPECT_EQ(ds[1], kGpu0);
  EXPECT_EQ(ds[2], kGpu1);
  EXPECT_EQ(parse_device("cuda"), kGpu0);
  EXPECT_EQ(parse_device("gpu:1"), kGpu1);
  expect_error([] { parse_device("cuda:2"); }, {"cuda:2", "2 CUDA device(s)"});
}

TEST_F(DeviceTest, DevicePutRoundTripsEveryDtype) {
  for (DType dt : {DType::Float32, DType::Float64, DType::Int32, DType::Bool, DType::BFloat16}) {
    SCOPED_TRACE(short_name(dt));
    Array x = astype(Array::from_vector<float>({1, 0, 3, -4, 5, 6}, {2, 3}), dt);
    Array d = device_put(x, kGpu0);
    EXPECT_EQ(d.device(), kGpu0);
    EXPECT_EQ(d.shape(), x.shape());
    EXPECT_EQ(d.dtype(), dt);
    Array d1 = device_put(d, kGpu1);
    EXPECT_EQ(d1.device(), kGpu1);
    Array back = device_put(d1, cpu_device());
    EXPECT_EQ(back.device(), cpu_device());
    ASSERT_EQ(back.nbytes(), x.nbytes());
    EXPECT_EQ(std::memcmp(back.data(), x.data(), static_cast<size_t>(x.nbytes())), 0);
  }
}

TEST_F(DeviceTest, HostReadsCopyAndRawDataIsRefused) {
  Array d = device_put(Array::from_vector<float>({1.5f, -2, 7}), kGpu0);
  EXPECT_EQ(d.to_vector<float>(), (std::vector<float>{1.5f, -2, 7}));
  expect_error([&] { (void)d.data(); }, {"[array]", "f32[3]", "lives on cuda:0", "copy_to"});
  Array s = device_put(Array(4.25), kGpu1);
  EXPECT_EQ(s.item<double>(), 4.25);
  EXPECT_EQ(s.item<int>(), 4);
}

TEST_F(DeviceTest, EagerOpsNeedAnEvaluatorAndStayOnTheirDevice) {
  Array x = device_put(Array::from_vector<float>({1, 2, 3}), kGpu0);
  expect_error([&] { (void)(x + x); }, {"[add]", "cuda:0", "no GPU evaluator"});

  // An evaluator that runs the op on the host and puts the results back: the dispatch contract
  // (inputs as given, outputs on the device) without compiling anything.
  int calls = 0;
  register_device_eval(Device::Kind::CUDA, [&](const Primitive &prim, const std::vector<Array> &in,
                                               const Params &params) {
    ++calls;
    Device where = cpu_device();
    std::vector<Array> host;
    for (const Array &a : in) {
      if (a.device() != cpu_device())
        where = a.device();
      host.push_back(device_put(a, cpu_device()));
    }
    std::vector<Array> out = bind(prim, host, params);
    for (Array &o : out)
      o = device_put(o, where);
    return out;
  });
  Array y = x * 2.0f + Array::from_vector<float>({10, 20, 30}); // a host operand joins
  EXPECT_EQ(y.device(), kGpu0);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{12, 24, 36}));
  EXPECT_GE(calls, 2);

  Array z = device_put(Array::from_vector<float>({1, 1, 1}), kGpu1);
  expect_error([&] { (void)(x + z); }, {"[add]", "cuda:0", "cuda:1", "device_put"});

  // grad over device arrays: the levels run as usual and the eval level dispatches.
  auto f = [](const Array &v) { return sum(v * v); };
  Array g = grad(f)(x);
  EXPECT_EQ(g.device(), kGpu0);
  EXPECT_EQ(g.to_vector<float>(), (std::vector<float>{2, 4, 6}));
}

TEST_F(DeviceTest, TracedValuesPassThroughDevicePut) {
  auto f = [](const Array &v) { return sum(device_put(v, kGpu0) * 3.0f); };
  register_device_eval(Device::Kind::CUDA, [](const Primitive &prim, const std::vector<Array> &in,
                                              const Params &params) {
    std::vector<Array> host;
    for (const Array &a : in)
      host.push_back(device_put(a, cpu_device()));
    return bind(prim, host, params);
  });
  Array g = grad(f)(Array::from_vector<float>({1, 2}));
  EXPECT_EQ(g.to_vector<float>(), (std::vector<float>{3, 3}));
}

} // namespace
