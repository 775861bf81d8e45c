// Devices, contexts, streams, the per-device caching allocators, copies, modules and launches on
// the CUDA driver API, and the C ABI's pending-error record.
#include "runtime/cuda/CudaInternal.h"

#include <atomic>
#include <cstring>
#include <vector>

namespace strata::cuda {

namespace {

/// One slot per device the driver reports; the state is created on first use.
struct Devices {
  int count = 0;
  std::string reason; ///< why count is 0
  std::mutex init_mu;
  /// Published once initialized (never freed); null until then or after a failed attempt.
  std::unique_ptr<std::atomic<DeviceState *>[]> states;
};

Devices &devices() {
  static Devices *d = [] {
    auto *d = new Devices; // never freed: see DeviceState
    const api::Driver *drv = api::driver();
    if (!drv) {
      d->reason = api::driver_error();
      return d;
    }
    int n = 0;
    if (api::CUresult r = drv->cuDeviceGetCount(&n); r != api::CUDA_SUCCESS) {
      d->reason = "cuDeviceGetCount failed: " + api::result_text(r);
      return d;
    }
    if (n <= 0)
      d->reason = "the driver reports no CUDA device";
    d->count = n > 0 ? n : 0;
    d->states = std::make_unique<std::atomic<DeviceState *>[]>(static_cast<size_t>(d->count));
    return d;
  }();
  return *d;
}

[[noreturn]] void fail_unavailable(int index) {
  Devices &d = devices();
  if (d.count == 0)
    throw Error(detail::cat("[cuda] cuda:", index, " is not available: ", d.reason));
  throw Error(detail::cat("[cuda] cuda:", index, " is not available: this process has ", d.count,
                          " CUDA device(s)"));
}

void init_device(DeviceState &s) {
  const api::Driver &drv = checked_driver("cuda");
  int i = s.index;
  check(drv.cuDeviceGet(&s.device, i), "cuDeviceGet", i);
  char name[256] = {};
  check(drv.cuDeviceGetName(name, sizeof name - 1, s.device), "cuDeviceGetName", i);
  DeviceInfo &info = s.info;
  info.index = i;
  info.name = name;
  auto attr = [&](int a, int &out) {
    check(drv.cuDeviceGetAttribute(&out, a, s.device), "cuDeviceGetAttribute", i);
  };
  attr(api::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, info.cc_major);
  attr(api::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, info.cc_minor);
  attr(api::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, info.sm_count);
  attr(api::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, info.max_threads_per_block);
  attr(api::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, info.max_shared_memory_per_block);
  attr(api::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       info.max_shared_memory_per_block_optin);
  attr(api::CU_DEVICE_ATTRIBUTE_WARP_SIZE, info.warp_size);
  check(drv.cuDeviceTotalMem_v2(&info.total_memory, s.device), "cuDeviceTotalMem_v2", i);
  // The primary context is the one the CUDA runtime (inside cuBLAS) and other libraries in the
  // process (PyTorch, JAX) use too, so pointers are shared with them.
  check(drv.cuDevicePrimaryCtxRetain(&s.context, s.device), "cuDevicePrimaryCtxRetain", i);
  check(drv.cuCtxSetCurrent(s.context), "cuCtxSetCurrent", i);
  // Non-blocking: no implicit synchronization with the legacy default stream of other code.
  check(drv.cuStreamCreate(&s.stream, api::CU_STREAM_NON_BLOCKING), "cuStreamCreate", i);
}

/// This thread's current device for the C ABI.
thread_local int t_current_device = 0;

struct PendingError {
  bool set = false;
  std::string message;
  ErrorKind kind = ErrorKind::Internal;
};
thread_local PendingError t_pending;

api::CUdeviceptr dptr(const void *p) { return reinterpret_cast<api::CUdeviceptr>(p); }

} // namespace

// ---- Errors -----------------------------------------------------------------------------------
const api::Driver &checked_driver(std::string_view op) {
  const api::Driver *drv = api::driver();
  if (!drv)
    throw Error(detail::cat("[", op, "] no CUDA driver: ", api::driver_error()));
  return *drv;
}

void check(api::CUresult r, std::string_view call, int device, std::string_view detail) {
  if (r == api::CUDA_SUCCESS)
    return;
  std::string where = device >= 0 ? detail::cat(" on cuda:", device) : "";
  throw Error(detail::cat("[cuda] ", call, where, " failed: ", api::result_text(r), detail),
              ErrorKind::Internal);
}

void record_error(const std::string &message, ErrorKind kind) {
  if (t_pending.set)
    return;
  t_pending.set = true;
  t_pending.message = message;
  t_pending.kind = kind;
}

bool has_pending_error() { return t_pending.set; }

void rethrow_pending_error() {
  if (!t_pending.set)
    return;
  PendingError e = std::move(t_pending);
  t_pending = PendingError{};
  throw Error(e.message, e.kind);
}

void clear_pending_error() { t_pending = PendingError{}; }

// ---- Devices ----------------------------------------------------------------------------------
int device_count() noexcept {
  try {
    return devices().count;
  } catch (...) {
    return 0;
  }
}

std::string unavailable_reason() { return devices().count > 0 ? "" : devices().reason; }

DeviceState &enter(int index) {
  Devices &d = devices();
  if (index < 0 || index >= d.count)
    fail_unavailable(index);
  std::atomic<DeviceState *> &slot = d.states[static_cast<size_t>(index)];
  DeviceState *s = slot.load(std::memory_order_acquire);
  if (!s) {
    std::lock_guard<std::mutex> lock(d.init_mu);
    s = slot.load(std::memory_order_acquire);
    if (!s) {
      // A failed initialization leaves the slot empty, to be tried again on the next use.
      auto fresh = std::make_unique<DeviceState>(index);
      init_device(*fresh);
      s = fresh.release();
      slot.store(s, std::memory_order_release);
    }
  }
  check(api::driver()->cuCtxSetCurrent(s->context), "cuCtxSetCurrent", index);
  return *s;
}

DeviceState *initialized_device(int index) {
  Devices &d = devices();
  if (index < 0 || index >= d.count)
    return nullptr;
  return d.states[static_cast<size_t>(index)].load(std::memory_order_acquire);
}

DeviceInfo device_info(int index) { return enter(index).info; }

std::string chip(int index) {
  const DeviceInfo &info = enter(index).info;
  return detail::cat("sm_", info.cc_major, info.cc_minor);
}

std::string describe(int index) {
  const DeviceInfo &info = enter(index).info;
  return detail::cat(info.name, ", sm_", info.cc_major, info.cc_minor, ", ", info.sm_count,
                     " SMs, ", (info.total_memory + 500'000'000) / 1'000'000'000, " GB");
}

void make_current(int index) { enter(index); }

void *stream(int index) { return enter(index).stream; }

void synchronize(int index) {
  DeviceState &s = enter(index);
  check(api::driver()->cuStreamSynchronize(s.stream), "cuStreamSynchronize", index);
}

void set_current_device(int index) { t_current_device = index; }
int current_device() { return t_current_device; }

// ---- Memory -----------------------------------------------------------------------------------
void *DriverRawAllocator::allocate(size_t nbytes) {
  const api::Driver &drv = *api::driver();
  check(drv.cuCtxSetCurrent(device_.context), "cuCtxSetCurrent", device_.index);
  api::CUdeviceptr p = 0;
  api::CUresult r = drv.cuMemAlloc_v2(&p, nbytes);
  if (r == api::CUDA_ERROR_OUT_OF_MEMORY)
    return nullptr;
  check(r, "cuMemAlloc_v2", device_.index, " for " + format_bytes(static_cast<int64_t>(nbytes)));
  return reinterpret_cast<void *>(p);
}

void DriverRawAllocator::deallocate(void *ptr, size_t) noexcept {
  const api::Driver &drv = *api::driver();
  drv.cuCtxSetCurrent(device_.context);
  drv.cuMemFree_v2(dptr(ptr));
}

void DriverRawAllocator::synchronize() {
  const api::Driver &drv = *api::driver();
  check(drv.cuCtxSetCurrent(device_.context), "cuCtxSetCurrent", device_.index);
  check(drv.cuStreamSynchronize(device_.stream), "cuStreamSynchronize", device_.index);
}

std::string DriverRawAllocator::memory_info() {
  const api::Driver &drv = *api::driver();
  size_t free = 0, total = 0;
  if (drv.cuCtxSetCurrent(device_.context) != api::CUDA_SUCCESS ||
      drv.cuMemGetInfo_v2(&free, &total) != api::CUDA_SUCCESS)
    return "";
  return detail::cat("the driver reports ", format_bytes(static_cast<int64_t>(free)), " free of ",
                     format_bytes(static_cast<int64_t>(total)));
}

void *allocate(int index, size_t nbytes) { return enter(index).allocator.allocate(nbytes); }

void deallocate(int index, void *ptr) noexcept {
  if (!ptr)
    return;
  if (DeviceState *s = initialized_device(index))
    s->allocator.deallocate(ptr);
}

AllocatorStats memory_stats(int index) {
  if (index < 0 || index >= device_count())
    fail_unavailable(index);
  DeviceState *s = initialized_device(index);
  return s ? s->allocator.stats() : AllocatorStats{};
}

void reset_peak_memory(int index) { enter(index).allocator.reset_peak(); }

void empty_cache(int index) { enter(index).allocator.empty_cache(); }

std::pair<size_t, size_t> device_memory_info(int index) {
  enter(index);
  size_t free = 0, total = 0;
  check(api::driver()->cuMemGetInfo_v2(&free, &total), "cuMemGetInfo_v2", index);
  return {free, total};
}

// ---- Copies -----------------------------------------------------------------------------------
namespace {
std::string bytes_detail(size_t n) { return " for " + format_bytes(static_cast<int64_t>(n)); }
} // namespace

void copy_to_device_async(int index, void *dst, const void *src, size_t nbytes) {
  if (nbytes == 0)
    return;
  DeviceState &s = enter(index);
  check(api::driver()->cuMemcpyHtoDAsync_v2(dptr(dst), src, nbytes, s.stream),
        "cuMemcpyHtoDAsync_v2", index, bytes_detail(nbytes));
}

void copy_to_host_async(int index, void *dst, const void *src, size_t nbytes) {
  if (nbytes == 0)
    return;
  DeviceState &s = enter(index);
  check(api::driver()->cuMemcpyDtoHAsync_v2(dst, dptr(src), nbytes, s.stream),
        "cuMemcpyDtoHAsync_v2", index, bytes_detail(nbytes));
}

void copy_device_to_device_async(int index, void *dst, const void *src, size_t nbytes) {
  if (nbytes == 0)
    return;
  DeviceState &s = enter(index);
  check(api::driver()->cuMemcpyDtoDAsync_v2(dptr(dst), dptr(src), nbytes, s.stream),
        "cuMemcpyDtoDAsync_v2", index, bytes_detail(nbytes));
}

// The synchronous copies queue on the device stream (never the legacy default stream, which
// does not wait for a non-blocking stream) and wait for it.
void copy_to_device(int index, void *dst, const void *src, size_t nbytes) {
  copy_to_device_async(index, dst, src, nbytes);
  if (nbytes)
    synchronize(index);
}

void copy_to_host(int index, void *dst, const void *src, size_t nbytes) {
  copy_to_host_async(index, dst, src, nbytes);
  if (nbytes)
    synchronize(index);
}

void copy_device_to_device(int index, void *dst, const void *src, size_t nbytes) {
  copy_device_to_device_async(index, dst, src, nbytes);
  if (nbytes)
    synchronize(index);
}

void copy_between(int src_index, const void *src, int dst_index, void *dst, size_t nbytes) {
  if (src_index == dst_index)
    return copy_device_to_device(src_index, dst, src, nbytes);
  if (nbytes == 0)
    return;
  // The source's pending writes first; then the copy, ordered on the destination's stream.
  synchronize(src_index);
  DeviceState &from = enter(src_index);
  DeviceState &to = enter(dst_index);
  check(api::driver()->cuMemcpyPeerAsync(dptr(dst), to.context, dptr(src), from.context, nbytes,
                                         to.stream),
        "cuMemcpyPeerAsync", dst_index,
        detail::cat(" from cuda:", src_index, bytes_detail(nbytes)));
  synchronize(dst_index);
}

PinnedBuffer::PinnedBuffer(size_t nbytes) : size_(nbytes) {
  const api::Driver &drv = checked_driver("cuda");
  // Page-locked memory is tied to a context unless PORTABLE; any device's context will do.
  if (device_count() > 0)
    enter(0);
  check(drv.cuMemHostAlloc(&data_, nbytes ? nbytes : 1, api::CU_MEMHOSTALLOC_PORTABLE_FLAG),
        "cuMemHostAlloc", -1, bytes_detail(nbytes));
}

PinnedBuffer::~PinnedBuffer() {
  if (data_)
    api::driver()->cuMemFreeHost(data_);
}

// ---- Modules and launches ---------------------------------------------------------------------
Module Module::load(int index, const void *image) {
  DeviceState &s = enter(index);
  api::CUmodule m = nullptr;
  check(api::driver()->cuModuleLoadData(&m, image), "cuModuleLoadData", index);
  Module out;
  out.device_ = index;
  out.module_ = std::shared_ptr<void>(m, [ctx = s.context](void *m) {
    const api::Driver &drv = *api::driver();
    drv.cuCtxSetCurrent(ctx);
    drv.cuModuleUnload(static_cast<api::CUmodule>(m));
  });
  return out;
}

Module Module::load_ptx(int index, const std::string &ptx) {
  std::vector<char> cubin = ptx_to_cubin(ptx, chip(index));
  return load(index, cubin.data());
}

Kernel Module::kernel(const std::string &name) const {
  enter(device_);
  api::CUfunction f = nullptr;
  check(api::driver()->cuModuleGetFunction(&f, static_cast<api::CUmodule>(module_.get()),
                                           name.c_str()),
        "cuModuleGetFunction", device_, " for kernel '" + name + "'");
  return Kernel{f, device_, name};
}

void launch(const Kernel &kernel, Dim3 grid, Dim3 block, void **args, unsigned shared_bytes) {
  DeviceState &s = enter(kernel.device);
  const api::Driver &drv = *api::driver();
  auto f = static_cast<api::CUfunction>(kernel.function);
  std::string what = detail::cat(" for kernel '", kernel.name, "' grid (", grid.x, ",", grid.y, ",",
                                 grid.z, ") block (", block.x, ",", block.y, ",", block.z,
                                 ") shared ", shared_bytes, " B");
  // Above 48 KiB, dynamic shared memory must be opted into per function.
  if (shared_bytes > 48u * 1024)
    check(drv.cuFuncSetAttribute(f, api::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                 static_cast<int>(shared_bytes)),
          "cuFuncSetAttribute", kernel.device, what);
  check(drv.cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_bytes,
                           s.stream, args, nullptr),
        "cuLaunchKernel", kernel.device, what);
}

} // namespace strata::cuda
