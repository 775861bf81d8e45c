// Shared by the CUDA runtime's sources: per-device state, driver-call checking and the
// thread-local pending error of the C ABI.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "runtime/cuda/CachingAllocator.h"
#include "runtime/cuda/CudaApi.h"
#include "runtime/cuda/CudaRuntime.h"
#include "strata/error.h"

namespace strata::cuda {

struct BlasState;
struct LibraryState;

/// cuMemAlloc/cuMemFree on one device, for its CachingAllocator.
class DriverRawAllocator final : public RawAllocator {
public:
  explicit DriverRawAllocator(struct DeviceState &device) : device_(device) {}
  void *allocate(size_t nbytes) override;
  void deallocate(void *ptr, size_t nbytes) noexcept override;
  void synchronize() override;
  std::string memory_info() override;

private:
  struct DeviceState &device_;
};

/// Everything Strata holds for one device. Created on first use and never destroyed: work may
/// still refer to it from static destructors after the driver has shut down.
struct DeviceState {
  explicit DeviceState(int i)
      : index(i), name("cuda:" + std::to_string(i)), raw(*this), allocator(raw, name) {}
  int index;
  std::string name; ///< "cuda:0"
  api::CUdevice device = 0;
  api::CUcontext context = nullptr;
  api::CUstream stream = nullptr;
  DeviceInfo info;
  DriverRawAllocator raw;
  CachingAllocator allocator;
  std::mutex blas_mu;
  BlasState *blas = nullptr;    ///< created by the first gemm (Gemm.cpp), never freed
  std::mutex libs_mu;           ///< held across each cuFFT/cuSOLVER call (LibraryState.h)
  LibraryState *libs = nullptr; ///< created by the first of them, never freed
};

/// The driver; throws strata::Error (`op` names the caller) when it is unavailable.
const api::Driver &checked_driver(std::string_view op);
/// Device `index`, initialized, with its primary context made current on this thread; throws
/// strata::Error naming the device when it is not usable.
DeviceState &enter(int index);
/// The state of device `index` when it has been initialized, else null (no driver call).
DeviceState *initialized_device(int index);

/// Throws strata::Error "[cuda] <call> on cuda:N failed: <CUresult name (text)><detail>" when
/// `r` is not CUDA_SUCCESS. `device` < 0 leaves out the device.
void check(api::CUresult r, std::string_view call, int device, std::string_view detail = "");

/// Records `message` as this thread's pending C ABI error unless one is already pending.
void record_error(const std::string &message, ErrorKind kind = ErrorKind::Internal);

} // namespace strata::cuda
