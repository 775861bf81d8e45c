// The mgpu* C ABI that MLIR 22's gpu-to-llvm host code calls (signatures as in MLIR's
// CudaRuntimeWrappers.cpp and the calls its gpu.binary translation emits), on Strata's devices,
// streams and caching allocators. Failures are recorded for rethrow_pending_error().
#include <unordered_map>

#include "runtime/cuda/CudaInternal.h"
#include "runtime/cuda/Dnn.h"
#include "runtime/cuda/Fft.h"
#include "runtime/cuda/Linalg.h"

using namespace strata;
using namespace strata::cuda;

namespace {

api::CUdeviceptr dptr(const void *p) { return reinterpret_cast<api::CUdeviceptr>(p); }

/// Runs `body` unless an error is pending; records what it throws. `what` names the entry.
template <class F> void guarded(const char *what, F &&body) {
  if (has_pending_error())
    return;
  try {
    body();
  } catch (const Error &e) {
    record_error(e.what(), e.kind());
  } catch (const std::exception &e) {
    record_error(detail::cat("[cuda] ", what, ": ", e.what()));
  }
}

/// Like check() but for the C ABI: names the mgpu entry and the current device.
void check_current(api::CUresult r, const char *call, const char *entry,
                   std::string_view detail = "") {
  if (r != api::CUDA_SUCCESS)
    check(r, call, current_device(), detail::cat(detail, " (in ", entry, ")"));
}

/// Which device each module loaded through the C ABI belongs to, to unload it there.
struct Modules {
  std::mutex mu;
  std::unordered_map<void *, int> device_of;
};
Modules &modules() {
  static Modules *m = new Modules; // never freed: unloads run from static destructors
  return *m;
}

void *load_module(const void *image, const char *entry) {
  DeviceState &s = enter(current_device());
  api::CUmodule m = nullptr;
  check_current(api::driver()->cuModuleLoadData(&m, image), "cuModuleLoadData", entry);
  std::lock_guard<std::mutex> lock(modules().mu);
  modules().device_of[m] = s.index;
  return m;
}

} // namespace

extern "C" {

void *mgpuModuleLoad(void *data, size_t size) {
  void *out = nullptr;
  guarded("mgpuModuleLoad", [&] {
    if (!data || size == 0)
      fail("cuda", "mgpuModuleLoad: empty module image");
    out = load_module(data, "mgpuModuleLoad");
  });
  return out;
}

void *mgpuModuleLoadJIT(void *ptx, int opt_level) {
  void *out = nullptr;
  guarded("mgpuModuleLoadJIT", [&] {
    if (!ptx)
      fail("cuda", "mgpuModuleLoadJIT: null PTX");
    const char *text = static_cast<const char *>(ptx);
    int index = current_device();
    if (jitlink_available()) {
      std::vector<char> cubin = ptx_to_cubin(text, chip(index));
      out = load_module(cubin.data(), "mgpuModuleLoadJIT");
      return;
    }
    // No nvJitLink: the driver compiles the PTX itself (not cached across processes).
    DeviceState &s = enter(index);
    char log[8192] = {};
    int options[] = {api::CU_JIT_ERROR_LOG_BUFFER, api::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                     api::CU_JIT_OPTIMIZATION_LEVEL};
    void *values[] = {log, reinterpret_cast<void *>(sizeof log - 1),
                      reinterpret_cast<void *>(static_cast<intptr_t>(opt_level))};
    api::CUmodule m = nullptr;
    api::CUresult r = api::driver()->cuModuleLoadDataEx(&m, text, 3, options, values);
    check_current(r, "cuModuleLoadDataEx", "mgpuModuleLoadJIT",
                  log[0] ? detail::cat(" compiling PTX:\n", log) : std::string());
    std::lock_guard<std::mutex> lock(modules().mu);
    modules().device_of[m] = s.index;
    out = m;
  });
  return out;
}

void mgpuModuleUnload(void *module) {
  // Runs even with an error pending: it is cleanup.
  if (!module)
    return;
  int index = current_device();
  {
    std::lock_guard<std::mutex> lock(modules().mu);
    if (auto it = modules().device_of.find(module); it != modules().device_of.end()) {
      index = it->second;
      modules().device_of.erase(it);
    }
  }
  // The device was initialized when the module was loaded; at process exit the driver may be
  // gone already, and an unload failure leaves nothing to protect.
  if (DeviceState *s = initialized_device(index)) {
    api::driver()->cuCtxSetCurrent(s->context);
    api::driver()->cuModuleUnload(static_cast<api::CUmodule>(module));
  }
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  void *out = nullptr;
  guarded("mgpuModuleGetFunction", [&] {
    if (!module)
      fail("cuda", "mgpuModuleGetFunction('", name ? name : "", "') on a module that did not load");
    enter(current_device());
    api::CUfunction f = nullptr;
    check_current(api::driver()->cuModuleGetFunction(&f, static_cast<api::CUmodule>(module), name),
                  "cuModuleGetFunction", "mgpuModuleGetFunction",
                  detail::cat(" for kernel '", name, "'"));
    out = f;
  });
  return out;
}

void mgpuLaunchKernel(void *function, intptr_t grid_x, intptr_t grid_y, intptr_t grid_z,
                      intptr_t block_x, intptr_t block_y, intptr_t block_z, int32_t shared_bytes,
                      void *stream, void **params, void **extra, size_t /*param_count*/) {
  guarded("mgpuLaunchKernel", [&] {
    std::string what =
        detail::cat(" for grid (", grid_x, ",", grid_y, ",", grid_z, ") block (", block_x, ",",
                    block_y, ",", block_z, ") shared ", shared_bytes, " B");
    if (!function)
      fail("cuda", "mgpuLaunchKernel of a kernel that was not found", what);
    auto dim_ok = [](intptr_t v) { return v >= 1 && v <= INT32_MAX; };
    if (!dim_ok(grid_x) || !dim_ok(grid_y) || !dim_ok(grid_z) || !dim_ok(block_x) ||
        !dim_ok(block_y) || !dim_ok(block_z) || shared_bytes < 0)
      fail("cuda", "mgpuLaunchKernel: launch dimensions out of range", what);
    DeviceState &s = enter(current_device());
    const api::Driver &drv = *api::driver();
    auto f = static_cast<api::CUfunction>(function);
    if (shared_bytes > 48 * 1024)
      check_current(drv.cuFuncSetAttribute(f, api::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                           shared_bytes),
                    "cuFuncSetAttribute", "mgpuLaunchKernel", what);
    api::CUstream st = stream ? static_cast<api::CUstream>(stream) : s.stream;
    check_current(drv.cuLaunchKernel(f, static_cast<unsigned>(grid_x),
                                     static_cast<unsigned>(grid_y), static_cast<unsigned>(grid_z),
                                     static_cast<unsigned>(block_x), static_cast<unsigned>(block_y),
                                     static_cast<unsigned>(block_z),
                                     static_cast<unsigned>(shared_bytes), st, params, extra),
                  "cuLaunchKernel", "mgpuLaunchKernel", what);
  });
}

void *mgpuStreamCreate() {
  void *out = nullptr;
  guarded("mgpuStreamCreate", [&] { out = enter(current_device()).stream; });
  return out;
}

void mgpuStreamDestroy(void *stream) {
  // The device's stream lives as long as the process; any other stream came from elsewhere.
  if (!stream)
    return;
  for (int i = 0, n = device_count(); i < n; ++i)
    if (DeviceState *s = initialized_device(i); s && s->stream == stream)
      return;
  guarded("mgpuStreamDestroy", [&] {
    check_current(api::driver()->cuStreamDestroy_v2(static_cast<api::CUstream>(stream)),
                  "cuStreamDestroy_v2", "mgpuStreamDestroy");
  });
}

void mgpuStreamSynchronize(void *stream) {
  guarded("mgpuStreamSynchronize", [&] {
    DeviceState &s = enter(current_device());
    api::CUstream st = stream ? static_cast<api::CUstream>(stream) : s.stream;
    check_current(api::driver()->cuStreamSynchronize(st), "cuStreamSynchronize",
                  "mgpuStreamSynchronize");
  });
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  guarded("mgpuStreamWaitEvent", [&] {
    DeviceState &s = enter(current_device());
    api::CUstream st = stream ? static_cast<api::CUstream>(stream) : s.stream;
    check_current(api::driver()->cuStreamWaitEvent(st, static_cast<api::CUevent>(event), 0),
                  "cuStreamWaitEvent", "mgpuStreamWaitEvent");
  });
}

void *mgpuEventCreate() {
  void *out = nullptr;
  guarded("mgpuEventCreate", [&] {
    enter(current_device());
    api::CUevent e = nullptr;
    check_current(api::driver()->cuEventCreate(&e, api::CU_EVENT_DISABLE_TIMING), "cuEventCreate",
                  "mgpuEventCreate");
    out = e;
  });
  return out;
}

void mgpuEventDestroy(void *event) {
  // Cleanup: runs even with an error pending, and reports nothing over an earlier error.
  if (!event)
    return;
  if (DeviceState *s = initialized_device(current_device())) {
    api::driver()->cuCtxSetCurrent(s->context);
    api::CUresult r = api::driver()->cuEventDestroy_v2(static_cast<api::CUevent>(event));
    guarded("mgpuEventDestroy", [&] { check_current(r, "cuEventDestroy_v2", "mgpuEventDestroy"); });
  }
}

void mgpuEventSynchronize(void *event) {
  guarded("mgpuEventSynchronize", [&] {
    enter(current_device());
    check_current(api::driver()->cuEventSynchronize(static_cast<api::CUevent>(event)),
                  "cuEventSynchronize", "mgpuEventSynchronize");
  });
}

void mgpuEventRecord(void *event, void *stream) {
  guarded("mgpuEventRecord", [&] {
    DeviceState &s = enter(current_device());
    api::CUstream st = stream ? static_cast<api::CUstream>(stream) : s.stream;
    check_current(api::driver()->cuEventRecord(static_cast<api::CUevent>(event), st),
                  "cuEventRecord", "mgpuEventRecord");
  });
}

void *mgpuMemAlloc(uint64_t size, void * /*stream*/, int8_t host_shared) {
  void *out = nullptr;
  guarded("mgpuMemAlloc", [&] {
    if (host_shared)
      fail("cuda", "mgpuMemAlloc: host-shared (gpu.alloc host_shared) memory is not supported");
    // Every allocation is ordered on the device's stream, which is the stream passed here.
    out = allocate(current_device(), static_cast<size_t>(size));
  });
  return out;
}

void mgpuMemFree(void *ptr, void * /*stream*/) {
  // Cleanup: runs even with an error pending.
  if (!ptr)
    return;
  int current = current_device();
  if (DeviceState *s = initialized_device(current); s && s->allocator.deallocate(ptr))
    return;
  for (int i = 0, n = device_count(); i < n; ++i)
    if (DeviceState *s = initialized_device(i); i != current && s && s->allocator.deallocate(ptr))
      return;
  record_error(detail::cat("[cuda] mgpuMemFree(", ptr,
                           "): not a block of Strata's allocators (freed twice?)"));
}

void mgpuMemcpy(void *dst, void *src, size_t size, void *stream) {
  guarded("mgpuMemcpy", [&] {
    if (size == 0)
      return;
    DeviceState &s = enter(current_device());
    api::CUstream st = stream ? static_cast<api::CUstream>(stream) : s.stream;
    // Unified addressing: the driver tells host from device pointers.
    check_current(api::driver()->cuMemcpyAsync(dptr(dst), dptr(src), size, st), "cuMemcpyAsync",
                  "mgpuMemcpy", " for " + format_bytes(static_cast<int64_t>(size)));
  });
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream) {
  guarded("mgpuMemset32", [&] {
    if (count == 0)
      return;
    DeviceState &s = enter(current_device());
    api::CUstream st = stream ? static_cast<api::CUstream>(stream) : s.stream;
    check_current(api::driver()->cuMemsetD32Async(dptr(dst), value, count, st), "cuMemsetD32Async",
                  "mgpuMemset32");
  });
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream) {
  guarded("mgpuMemset16", [&] {
    if (count == 0)
      return;
    DeviceState &s = enter(current_device());
    api::CUstream st = stream ? static_cast<api::CUstream>(stream) : s.stream;
    check_current(api::driver()->cuMemsetD16Async(dptr(dst), value, count, st), "cuMemsetD16Async",
                  "mgpuMemset16");
  });
}

void mgpuSetDefaultDevice(int32_t device) { set_current_device(device); }

} // extern "C"

namespace strata::cuda {

std::vector<std::pair<const char *, void *>> runtime_symbols() {
  return {
      {"mgpuModuleLoad", reinterpret_cast<void *>(&mgpuModuleLoad)},
      {"mgpuModuleLoadJIT", reinterpret_cast<void *>(&mgpuModuleLoadJIT)},
      {"mgpuModuleUnload", reinterpret_cast<void *>(&mgpuModuleUnload)},
      {"mgpuModuleGetFunction", reinterpret_cast<void *>(&mgpuModuleGetFunction)},
      {"mgpuLaunchKernel", reinterpret_cast<void *>(&mgpuLaunchKernel)},
      {"mgpuStreamCreate", reinterpret_cast<void *>(&mgpuStreamCreate)},
      {"mgpuStreamDestroy", reinterpret_cast<void *>(&mgpuStreamDestroy)},
      {"mgpuStreamSynchronize", reinterpret_cast<void *>(&mgpuStreamSynchronize)},
      {"mgpuStreamWaitEvent", reinterpret_cast<void *>(&mgpuStreamWaitEvent)},
      {"mgpuEventCreate", reinterpret_cast<void *>(&mgpuEventCreate)},
      {"mgpuEventDestroy", reinterpret_cast<void *>(&mgpuEventDestroy)},
      {"mgpuEventSynchronize", reinterpret_cast<void *>(&mgpuEventSynchronize)},
      {"mgpuEventRecord", reinterpret_cast<void *>(&mgpuEventRecord)},
      {"mgpuMemAlloc", reinterpret_cast<void *>(&mgpuMemAlloc)},
      {"mgpuMemFree", reinterpret_cast<void *>(&mgpuMemFree)},
      {"mgpuMemcpy", reinterpret_cast<void *>(&mgpuMemcpy)},
      {"mgpuMemset32", reinterpret_cast<void *>(&mgpuMemset32)},
      {"mgpuMemset16", reinterpret_cast<void *>(&mgpuMemset16)},
      {"mgpuSetDefaultDevice", reinterpret_cast<void *>(&mgpuSetDefaultDevice)},
      {"strata_rt_cuda_gemm", reinterpret_cast<void *>(&strata_rt_cuda_gemm)},
      // linalg: the linear-algebra ops (Linalg.cpp)
      {"strata_rt_cuda_cholesky", reinterpret_cast<void *>(&strata_rt_cuda_cholesky)},
      {"strata_rt_cuda_triangular_solve",
       reinterpret_cast<void *>(&strata_rt_cuda_triangular_solve)},
      {"strata_rt_cuda_lu", reinterpret_cast<void *>(&strata_rt_cuda_lu)},
      {"strata_rt_cuda_lu_pivots_to_permutation",
       reinterpret_cast<void *>(&strata_rt_cuda_lu_pivots_to_permutation)},
      {"strata_rt_cuda_qr", reinterpret_cast<void *>(&strata_rt_cuda_qr)},
      {"strata_rt_cuda_eigh", reinterpret_cast<void *>(&strata_rt_cuda_eigh)},
      {"strata_rt_cuda_svd", reinterpret_cast<void *>(&strata_rt_cuda_svd)},
      // fft family: cuFFT (Fft.cpp)
      {"strata_rt_cuda_fft", reinterpret_cast<void *>(&strata_rt_cuda_fft)},
      // convolution: cuDNN (Dnn.cpp)
      {"strata_rt_cuda_conv", reinterpret_cast<void *>(&strata_rt_cuda_conv)},
  };
}

} // namespace strata::cuda
