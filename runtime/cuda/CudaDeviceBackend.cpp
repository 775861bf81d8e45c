// CudaDeviceBackend: libstrata's DeviceBackend for Device::Kind::CUDA over this runtime, and the
// static initializer that registers it when the library is loaded.
#include "runtime/cuda/CudaDeviceBackend.h"

#include "runtime/cuda/CudaRuntime.h"

namespace strata::cuda {

int CudaDeviceBackend::device_count() { return cuda::device_count(); }
std::string CudaDeviceBackend::unavailable_reason() { return cuda::unavailable_reason(); }
std::string CudaDeviceBackend::describe(int index) { return cuda::describe(index); }

void *CudaDeviceBackend::allocate(int index, size_t nbytes) {
  return cuda::allocate(index, nbytes);
}

void CudaDeviceBackend::deallocate(int index, void *ptr, size_t) noexcept {
  cuda::deallocate(index, ptr);
}

void CudaDeviceBackend::copy_to_host(int index, void *dst, const void *src, size_t nbytes) {
  cuda::copy_to_host(index, dst, src, nbytes);
}

void CudaDeviceBackend::copy_from_host(int index, void *dst, const void *src, size_t nbytes) {
  cuda::copy_to_device(index, dst, src, nbytes);
}

void CudaDeviceBackend::copy_between(int src_index, const void *src, int dst_index, void *dst,
                                     size_t nbytes) {
  cuda::copy_between(src_index, src, dst_index, dst, nbytes);
}

AllocatorStats CudaDeviceBackend::memory_stats(int index) { return cuda::memory_stats(index); }
void CudaDeviceBackend::synchronize(int index) { cuda::synchronize(index); }

CudaDeviceBackend &backend() {
  static CudaDeviceBackend *b = new CudaDeviceBackend; // never freed: Buffers outlive statics
  return *b;
}

namespace {
// Registration only: the driver is loaded on the first device_count() or allocation.
const bool g_registered = [] {
  register_device_backend(Device::Kind::CUDA, &backend());
  return true;
}();
} // namespace

} // namespace strata::cuda
