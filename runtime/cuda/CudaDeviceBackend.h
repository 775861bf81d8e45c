// CudaDeviceBackend: the DeviceBackend (include/strata/device.h) that puts arrays in CUDA device
// memory; registered for Device::Kind::CUDA when libstrata_cuda is loaded.
#pragma once

#include "runtime/cuda/CachingAllocator.h"
#include "strata/device.h"

namespace strata::cuda {

/// strata::DeviceBackend over strata::cuda's devices, caching allocators and stream copies.
class STRATA_EXPORT CudaDeviceBackend final : public DeviceBackend {
public:
  int device_count() override;
  std::string unavailable_reason() override;
  std::string describe(int index) override;
  void *allocate(int index, size_t nbytes) override;
  void deallocate(int index, void *ptr, size_t nbytes) noexcept override;
  void copy_to_host(int index, void *dst, const void *src, size_t nbytes) override;
  void copy_from_host(int index, void *dst, const void *src, size_t nbytes) override;
  void copy_between(int src_index, const void *src, int dst_index, void *dst,
                    size_t nbytes) override;
  /// The device's allocator counters (strata::cuda::memory_stats).
  AllocatorStats memory_stats(int index);
  /// Waits for the device's stream.
  void synchronize(int index);
};

/// The registered instance (the library registers it at load time).
STRATA_EXPORT CudaDeviceBackend &backend();

} // namespace strata::cuda
