// The runtime on a real GPU: device info, the caching allocator, copies, a PTX kernel launched
// through the C++ API and through the mgpu* C ABI, device_put, and gemm against a host reference
// for every type with transposed, padded, offset and batched operands. Each test skips with the
// reason where there is no device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "cuda_test_util.h"
#include "runtime/cuda/CudaDeviceBackend.h"
#include "runtime/cuda/CudaRuntime.h"
#include "strata/device.h"
#include "test_util.h"

using namespace strata;
using namespace strata::cuda;
using testutil::expect_error;

namespace {

#define REQUIRE_DEVICE()                                                                           \
  if (device_count() == 0)                                                                         \
  GTEST_SKIP() << "no CUDA device: " << unavailable_reason()

/// Device memory for a test, returned to the allocator at scope exit.
struct DeviceBuffer {
  DeviceBuffer(size_t n) : size(n), ptr(allocate(0, n)) {}
  ~DeviceBuffer() { deallocate(0, ptr); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  template <class T> void upload(const std::vector<T> &v) {
    ASSERT_LE(v.size() * sizeof(T), size);
    copy_to_device(0, ptr, v.data(), v.size() * sizeof(T));
  }
  template <class T> std::vector<T> download(size_t count) const {
    std::vector<T> v(count);
    copy_to_host(0, v.data(), ptr, count * sizeof(T));
    return v;
  }
  size_t size;
  void *ptr;
};

std::vector<float> iota_floats(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = scale * static_cast<float>(i % 1000) - 3.5f;
  return v;
}

} // namespace

TEST(CudaDevice, InfoAndChip) {
  REQUIRE_DEVICE();
  EXPECT_EQ(unavailable_reason(), "");
  DeviceInfo info = device_info(0);
  EXPECT_EQ(info.index, 0);
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.cc_major, 7);
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GT(info.total_memory, size_t(1) << 30);
  EXPECT_GE(info.max_threads_per_block, 1024);
  EXPECT_GE(info.max_shared_memory_per_block, 48 * 1024);
  EXPECT_GE(info.max_shared_memory_per_block_optin, info.max_shared_memory_per_block);
  EXPECT_EQ(info.warp_size, 32);
  EXPECT_EQ(chip(0), "sm_" + std::to_string(info.cc_major) + std::to_string(info.cc_minor));
  EXPECT_NE(describe(0).find(info.name), std::string::npos);
  EXPECT_NE(describe(0).find(chip(0)), std::string::npos);
  EXPECT_NE(stream(0), nullptr);
  EXPECT_EQ(stream(0), stream(0));
  auto [free, total] = device_memory_info(0);
  EXPECT_LE(free, total);
  EXPECT_EQ(total, info.total_memory);
  expect_error([] { device_info(device_count()); }, {"is not available", "CUDA device(s)"});
}

TEST(CudaDevice, AllocatorReusesBlocksAndCounts) {
  REQUIRE_DEVICE();
  empty_cache(0);
  AllocatorStats s0 = memory_stats(0);
  EXPECT_EQ(s0.cached_bytes, 0);
  void *p = allocate(0, 1000);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u) << "cuMemAlloc alignment";
  deallocate(0, p);
  void *q = allocate(0, 1000);
  EXPECT_EQ(q, p) << "the freed block is reused";
  AllocatorStats s1 = memory_stats(0);
  EXPECT_EQ(s1.cache_hits - s0.cache_hits, 1);
  EXPECT_EQ(s1.raw_allocations - s0.raw_allocations, 1);
  EXPECT_EQ(s1.live_bytes - s0.live_bytes, 1024);
  void *big = allocate(0, 100 << 20);
  AllocatorStats s2 = memory_stats(0);
  EXPECT_EQ(s2.live_bytes - s1.live_bytes, 100 << 20);
  EXPECT_GE(s2.peak_live_bytes, s2.live_bytes);
  deallocate(0, big);
  deallocate(0, q);
  EXPECT_GE(memory_stats(0).cached_bytes, (100 << 20) + 1024);
  empty_cache(0);
  EXPECT_EQ(memory_stats(0).cached_bytes, 0);
  EXPECT_EQ(memory_stats(0).live_bytes, s0.live_bytes);
}

TEST(CudaDevice, OutOfMemoryIsAClearError) {
  REQUIRE_DEVICE();
  size_t too_much = device_info(0).total_memory * 2;
  AllocatorStats before = memory_stats(0);
  expect_error([&] { allocate(0, too_much); }, {"[cuda] out of memory on cuda:0", "cannot allocate",
                                                "live", "cached", "the driver reports"});
  AllocatorStats after = memory_stats(0);
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  EXPECT_EQ(after.oom_retries - before.oom_retries, 1);
  // The device still works.
  DeviceBuffer b(64);
  b.upload(std::vector<float>{1, 2, 3});
  EXPECT_EQ(b.download<float>(3), (std::vector<float>{1, 2, 3}));
}

TEST(CudaDevice, CopiesRoundTrip) {
  REQUIRE_DEVICE();
  const size_t n = (1 << 20) + 3;
  std::vector<float> host = iota_floats(n, 0.25f);
  DeviceBuffer d1(n * 4), d2(n * 4), d3(n * 4);
  d1.upload(host);
  copy_device_to_device(0, d2.ptr, d1.ptr, n * 4);
  copy_between(0, d2.ptr, 0, d3.ptr, n * 4);
  EXPECT_EQ(d3.download<float>(n), host);

  // Asynchronous copies through page-locked buffers, ordered on the stream.
  PinnedBuffer in(n * 4), out(n * 4);
  std::memcpy(in.data(), host.data(), n * 4);
  std::memset(out.data(), 0, n * 4);
  copy_to_device_async(0, d1.ptr, in.data(), n * 4);
  copy_device_to_device_async(0, d2.ptr, d1.ptr, n * 4);
  copy_to_host_async(0, out.data(), d2.ptr, n * 4);
  synchronize(0);
  EXPECT_EQ(std::memcmp(out.data(), host.data(), n * 4), 0);
  copy_to_device(0, d1.ptr, host.data(), 0); // nothing to copy

  if (device_count() > 1) {
    void *other = allocate(1, n * 4);
    copy_between(0, d1.ptr, 1, other, n * 4);
    std::vector<float> back(n);
    copy_to_host(1, back.data(), other, n * 4);
    deallocate(1, other);
    EXPECT_EQ(back, host);
  }
}

TEST(CudaDevice, LaunchesAPtxKernel) {
  REQUIRE_DEVICE();
  Module m = Module::load_ptx(0, cudatest::kVaddPtx);
  Kernel k = m.kernel("vadd");
  EXPECT_EQ(k.device, 0);
  unsigned n = 100003;
  std::vector<float> a = iota_floats(n, 0.5f), b = iota_floats(n, -0.125f);
  DeviceBuffer da(n * 4), db(n * 4), dc(n * 4);
  da.upload(a);
  db.upload(b);
  void *pa = da.ptr, *pb = db.ptr, *pc = dc.ptr;
  void *args[] = {&pa, &pb, &pc, &n};
  launch(k, Dim3{(n + 255) / 256}, Dim3{256}, args);
  std::vector<float> c = dc.download<float>(n);
  for (unsigned i = 0; i < n; i += 997)
    ASSERT_EQ(c[i], a[i] + b[i]) << "at " << i;
  EXPECT_EQ(c[n - 1], a[n - 1] + b[n - 1]);
  expect_error([&] { m.kernel("no_such_kernel"); },
               {"cuModuleGetFunction on cuda:0 failed", "CUDA_ERROR_NOT_FOUND", "no_such_kernel"});
  // A cubin loads too.
  std::vector<char> cubin = ptx_to_cubin(cudatest::kVaddPtx, chip(0));
  Module m2 = Module::load(0, cubin.data());
  EXPECT_NE(m2.kernel("vadd").function, nullptr);
}

TEST(CudaDevice, CAbiRunsAKernel) {
  REQUIRE_DEVICE();
  clear_pending_error();
  mgpuSetDefaultDevice(0);
  void *s = mgpuStreamCreate();
  EXPECT_EQ(s, stream(0)) << "the device's stream";
  void *module = mgpuModuleLoadJIT(const_cast<char *>(cudatest::kVaddPtx), 3);
  ASSERT_NE(module, nullptr);
  void *fn = mgpuModuleGetFunction(module, "vadd");
  ASSERT_NE(fn, nullptr);
  unsigned n = 5000;
  std::vector<float> a = iota_floats(n, 1.0f), b = iota_floats(n, 2.0f), c(n, 0.0f);
  void *da = mgpuMemAlloc(n * 4, s, 0), *db = mgpuMemAlloc(n * 4, s, 0),
       *dc = mgpuMemAlloc(n * 4, s, 0);
  mgpuMemcpy(da, a.data(), n * 4, s);
  mgpuMemcpy(db, b.data(), n * 4, s);
  mgpuMemset32(dc, 0x7fc00000u, n, s); // NaN: the kernel must overwrite every element
  void *params[] = {&da, &db, &dc, &n};
  mgpuLaunchKernel(fn, (n + 127) / 128, 1, 1, 128, 1, 1, 0, s, params, nullptr, 4);
  void *event = mgpuEventCreate();
  mgpuEventRecord(event, s);
  mgpuStreamWaitEvent(s, event);
  mgpuEventSynchronize(event);
  mgpuMemcpy(c.data(), dc, n * 4, s);
  mgpuStreamSynchronize(s);
  ASSERT_FALSE(has_pending_error()) << (rethrow_pending_error(), "");
  for (unsigned i = 0; i < n; ++i)
    ASSERT_EQ(c[i], a[i] + b[i]) << "at " << i;

  // 16-bit fill.
  mgpuMemset16(dc, 0x3c00, 2 * n, s);
  std::vector<uint16_t> halves(2 * n);
  mgpuMemcpy(halves.data(), dc, 4 * n, s);
  mgpuStreamSynchronize(s);
  EXPECT_EQ(halves.front(), 0x3c00);
  EXPECT_EQ(halves.back(), 0x3c00);

  AllocatorStats live = memory_stats(0);
  mgpuMemFree(da, s);
  mgpuMemFree(db, s);
  mgpuMemFree(dc, s);
  EXPECT_EQ(live.live_bytes - memory_stats(0).live_bytes, 3 * 20480);
  mgpuEventDestroy(event);
  mgpuModuleUnload(module);
  mgpuStreamDestroy(s); // the device's stream stays
  synchronize(0);
  ASSERT_FALSE(has_pending_error()) << (rethrow_pending_error(), "");

  // A cubin through mgpuModuleLoad; a missing kernel is recorded, not thrown.
  std::vector<char> cubin = ptx_to_cubin(cudatest::kVaddPtx, chip(0));
  void *m2 = mgpuModuleLoad(cubin.data(), cubin.size());
  ASSERT_NE(m2, nullptr);
  EXPECT_EQ(mgpuModuleGetFunction(m2, "nope"), nullptr);
  expect_error([] { rethrow_pending_error(); }, {"'nope'", "mgpuModuleGetFunction", "cuda:0"});
  mgpuModuleUnload(m2);
}

TEST(CudaDevice, DevicePutThroughTheBackend) {
  REQUIRE_DEVICE();
  Device gpu{Device::Kind::CUDA, 0};
  std::vector<Device> ds = devices();
  ASSERT_GE(ds.size(), 2u);
  EXPECT_EQ(ds[1], gpu);
  EXPECT_EQ(parse_device("cuda:0"), gpu);
  Array x = Array::from_vector<float>({1.5f, -2, 7, 0.25f}, {2, 2});
  int64_t live0 = backend().memory_stats(0).live_bytes;
  {
    Array d = device_put(x, gpu);
    EXPECT_EQ(d.device(), gpu);
    EXPECT_GT(backend().memory_stats(0).live_bytes, live0);
    Array back = device_put(d, cpu_device());
    EXPECT_EQ(back.to_vector<float>(), x.to_vector<float>());
  }
  backend().synchronize(0);
  EXPECT_EQ(backend().memory_stats(0).live_bytes, live0);
}

// ---- gemm ---------------------------------------------------------------------------------------
namespace {

/// One operand on the host: `rows` x `cols` per batch entry, row- or column-major with `pad`
/// extra elements per line and an offset of 3 elements, stored as doubles (what the reference
/// uses) and as the bytes the device gets.
struct HostMatrix {
  int64_t rows, cols, batch, off = 3, rs, cs, bs;
  std::vector<double> values; // indexed like the device buffer
  HostMatrix(int64_t r, int64_t c, int64_t b, bool col_major, int64_t pad, bool broadcast)
      : rows(r), cols(c), batch(b) {
    rs = col_major ? 1 : c + pad;
    cs = col_major ? r + pad : 1;
    bs = broadcast ? 0 : (col_major ? c * (r + pad) : r * (c + pad));
    values.assign(static_cast<size_t>(off + std::max<int64_t>(bs, 1) * b + (r + pad) * (c + pad)),
                  0.0);
  }
  size_t at(int64_t t, int64_t i, int64_t j) const {
    return static_cast<size_t>(off + bs * t + rs * i + cs * j);
  }
  MatrixRef ref(const void *device) const { return MatrixRef{device, off, bs, rs, cs}; }
};

/// Values exactly representable in the operand type (so the reference sees what the GPU sees).
double round_to(GemmType t, double v, bool ab) {
  if (!ab)
    return t == GemmType::F64 ? v : static_cast<double>(static_cast<float>(v));
  switch (t) {
  case GemmType::F64:
    return v;
  case GemmType::F32:
    return static_cast<float>(v);
  case GemmType::F16:
    return to_float(to_f16(static_cast<float>(v)));
  default:
    return to_float(to_bf16(static_cast<float>(v)));
  }
}

std::vector<char> encode(GemmType t, const std::vector<double> &v, bool ab) {
  size_t size = ab ? (t == GemmType::F64   ? 8
                      : t == GemmType::F32 ? 4
                                           : 2)
                   : (t == GemmType::F64 ? 8 : 4);
  std::vector<char> out(v.size() * size);
  for (size_t i = 0; i < v.size(); ++i) {
    char *p = out.data() + i * size;
    if (size == 8) {
      std::memcpy(p, &v[i], 8);
    } else if (size == 4) {
      float f = static_cast<float>(v[i]);
      std::memcpy(p, &f, 4);
    } else {
      uint16_t bits = t == GemmType::F16 ? to_f16(static_cast<float>(v[i])).bits
                                         : to_bf16(static_cast<float>(v[i])).bits;
      std::memcpy(p, &bits, 2);
    }
  }
  return out;
}

std::vector<double> decode(GemmType t, const std::vector<char> &bytes) {
  size_t size = t == GemmType::F64 ? 8 : 4;
  std::vector<double> out(bytes.size() / size);
  for (size_t i = 0; i < out.size(); ++i) {
    if (size == 8) {
      std::memcpy(&out[i], bytes.data() + i * 8, 8);
    } else {
      float f;
      std::memcpy(&f, bytes.data() + i * 4, 4);
      out[i] = f;
    }
  }
  return out;
}

struct GemmCase {
  GemmType type;
  int64_t batch, m, n, k;
  bool a_col, b_col, c_col;
  int64_t pad = 0;
  bool accumulate = false, b_broadcast = false;
  Epilogue epilogue = Epilogue::None;
  bool through_c_abi = false;
};

std::string case_name(const GemmCase &c) {
  return detail::cat("type ", static_cast<int>(c.type), " batch ", c.batch, " ", c.m, "x", c.n, "x",
                     c.k, " A ", c.a_col ? "col" : "row", " B ", c.b_col ? "col" : "row", " C ",
                     c.c_col ? "col" : "row", " pad ", c.pad, c.accumulate ? " accumulate" : "",
                     c.b_broadcast ? " B broadcast" : "", " epilogue ",
                     static_cast<int>(c.epilogue), c.through_c_abi ? " C ABI" : "");
}

double gelu_tanh(double x) {
  return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

/// Runs the case on the device and compares every element of C (and C's padding, which must be
/// untouched) with a double-precision reference of the rounded inputs.
void check_gemm(const GemmCase &gc, double tol) {
  SCOPED_TRACE(case_name(gc));
  std::mt19937 rng(1234);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  HostMatrix a(gc.m, gc.k, gc.batch, gc.a_col, gc.pad, false);
  HostMatrix b(gc.k, gc.n, gc.batch, gc.b_col, gc.pad, gc.b_broadcast);
  HostMatrix c(gc.m, gc.n, gc.batch, gc.c_col, gc.pad, false);
  for (double &v : a.values)
    v = round_to(gc.type, dist(rng), true);
  for (double &v : b.values)
    v = round_to(gc.type, dist(rng), true);
  for (double &v : c.values)
    v = round_to(gc.type, dist(rng), false);
  std::vector<double> bias(static_cast<size_t>(gc.n));
  for (double &v : bias)
    v = round_to(gc.type, dist(rng), false);

  std::vector<char> a_bytes = encode(gc.type, a.values, true),
                    b_bytes = encode(gc.type, b.values, true),
                    c_bytes = encode(gc.type, c.values, false),
                    bias_bytes = encode(gc.type, bias, false);
  DeviceBuffer da(a_bytes.size()), db(b_bytes.size()), dc(c_bytes.size()),
      dbias(bias_bytes.size() + 1);
  da.upload(a_bytes);
  db.upload(b_bytes);
  dc.upload(c_bytes);
  dbias.upload(bias_bytes);
  if (gc.through_c_abi) {
    clear_pending_error();
    set_current_device(0);
    auto addr = [](const DeviceBuffer &d) { return reinterpret_cast<int64_t>(d.ptr); };
    strata_rt_cuda_gemm(static_cast<int64_t>(gc.type), gc.batch, gc.m, gc.n, gc.k, addr(da), a.off,
                        a.bs, a.rs, a.cs, addr(db), b.off, b.bs, b.rs, b.cs, addr(dc), c.off, c.bs,
                        c.rs, c.cs, gc.accumulate);
    rethrow_pending_error();
  } else {
    GemmArgs g;
    g.type = gc.type;
    g.batch = gc.batch;
    g.m = gc.m, g.n = gc.n, g.k = gc.k;
    g.a = a.ref(da.ptr), g.b = b.ref(db.ptr), g.c = c.ref(dc.ptr);
    g.accumulate = gc.accumulate;
    g.epilogue = gc.epilogue;
    g.bias = dbias.ptr;
    gemm(0, g);
  }
  std::vector<double> got = decode(gc.type, dc.download<char>(c_bytes.size()));

  std::vector<bool> in_c(c.values.size(), false);
  for (int64_t t = 0; t < gc.batch; ++t)
    for (int64_t i = 0; i < gc.m; ++i)
      for (int64_t j = 0; j < gc.n; ++j) {
        double sum = gc.accumulate ? c.values[c.at(t, i, j)] : 0.0;
        double scale = std::abs(sum);
        for (int64_t p = 0; p < gc.k; ++p) {
          double prod = a.values[a.at(t, i, p)] * b.values[b.at(t, p, j)];
          sum += prod;
          scale += std::abs(prod);
        }
        switch (gc.epilogue) {
        case Epilogue::Relu:
          sum = std::max(sum, 0.0);
          break;
        case Epilogue::Gelu:
          sum = gelu_tanh(sum);
          break;
        case Epilogue::Bias:
          sum += bias[j];
          break;
        case Epilogue::BiasRelu:
          sum = std::max(sum + bias[j], 0.0);
          break;
        case Epilogue::BiasGelu:
          sum = gelu_tanh(sum + bias[j]);
          break;
        default:
          break;
        }
        size_t at = c.at(t, i, j);
        in_c[at] = true;
        ASSERT_NEAR(got[at], sum, tol * (scale + 1.0)) << "C[" << t << "," << i << "," << j << "]";
      }
  for (size_t i = 0; i < got.size(); ++i)
    if (!in_c[i])
      ASSERT_EQ(got[i], c.values[i]) << "padding element " << i << " was written";
}

double tolerance(GemmType t) { return t == GemmType::F64 ? 1e-12 : 2e-5; }

} // namespace

TEST(CudaGemm, EveryTypeWithTransposedPaddedAndBatchedOperands) {
  REQUIRE_DEVICE();
  if (!blas_available())
    GTEST_SKIP() << "cuBLAS is not available: " << blas_unavailable_reason();
  set_allow_tf32(false);
  for (GemmType t : {GemmType::F32, GemmType::F64, GemmType::F16, GemmType::BF16}) {
    double tol = tolerance(t);
    check_gemm({t, 1, 37, 29, 53, false, false, false}, tol);
    check_gemm({t, 1, 37, 29, 53, true, false, true, 3}, tol);
    check_gemm({t, 1, 37, 29, 53, false, true, false, 2}, tol);
    check_gemm({t, 1, 37, 29, 53, true, true, false, 0}, tol);
    check_gemm({t, 3, 20, 17, 9, false, false, false, 1, true, true}, tol);
    check_gemm({t, 2, 20, 17, 9, true, true, true, 1, true}, tol);
    check_gemm({t, 1, 256, 192, 320, false, false, false}, tol);
    check_gemm({t, 1, 1, 64, 32, false, false, false}, tol);
    check_gemm({t, 1, 16, 8, 0, false, false, false}, tol);
    check_gemm({t, 1, 16, 8, 0, false, false, false, 0, true}, tol);
    GemmCase abi{t, 2, 24, 40, 16, false, true, false, 2, true};
    abi.through_c_abi = true;
    check_gemm(abi, tol);
  }
}

TEST(CudaGemm, Tf32OnlyWhenAllowed) {
  REQUIRE_DEVICE();
  if (!blas_available())
    GTEST_SKIP() << "cuBLAS is not available: " << blas_unavailable_reason();
  set_allow_tf32(true);
  EXPECT_TRUE(allow_tf32());
  check_gemm({GemmType::F32, 2, 128, 96, 256, false, true, false}, 2e-3);
  set_allow_tf32(false);
  EXPECT_FALSE(allow_tf32());
  check_gemm({GemmType::F32, 2, 128, 96, 256, false, true, false}, 2e-5);
}

TEST(CudaGemm, Epilogues) {
  REQUIRE_DEVICE();
  if (!blas_available())
    GTEST_SKIP() << "cuBLAS is not available: " << blas_unavailable_reason();
  for (GemmType t : {GemmType::F32, GemmType::BF16})
    for (Epilogue e :
         {Epilogue::Relu, Epilogue::Gelu, Epilogue::Bias, Epilogue::BiasRelu, Epilogue::BiasGelu}) {
      GemmCase gc{t, 1, 64, 48, 32, false, false, false};
      gc.epilogue = e;
      // GELU is cuBLASLt's tanh approximation, evaluated in f32.
      check_gemm(gc, e == Epilogue::Gelu || e == Epilogue::BiasGelu ? 1e-3 : 2e-5);
    }
}
