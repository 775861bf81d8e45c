// The per-device state of cuFFT, cuSOLVER, cuDNN and cuBLAS's helpers (handles on the device's
// stream, cached FFT plans), scoped device blocks, and the status checks their callers share.
#pragma once

#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

#include "runtime/cuda/CudaInternal.h"
#include "runtime/cuda/LibraryApi.h"

namespace strata::cuda {

/// One cuFFT plan and the work area it needs per execution.
struct FftPlan {
  api::cufftHandle handle = 0;
  size_t work_bytes = 0;
};

/// Handles and plans of one device. Created under DeviceState::libs_mu and used only with it
/// held: a cuFFT plan or a handle's workspace must not run from two threads at once, and all of
/// them queue on the device's one stream anyway.
struct LibraryState {
  api::cublasHandle_t blas = nullptr;
  api::cusolverDnHandle_t solver = nullptr;
  api::cudnnHandle_t dnn = nullptr;
  /// cuDNN's chosen forward algorithm and its workspace, by (dtypes, ConvProblem::encode()).
  std::map<std::vector<int64_t>, std::pair<int, size_t>> conv_algos;
  /// Plans by (kind, real dtype, batch, lengths...).
  std::map<std::vector<int64_t>, FftPlan> fft_plans;
};

/// Device `s`'s state, created on first use; s.libs_mu must be held.
LibraryState &library_state(DeviceState &s);
/// A cuBLAS handle on `s`'s stream; throws naming `op` when cuBLAS is missing. libs_mu held.
api::cublasHandle_t blas_handle(DeviceState &s, std::string_view op);
/// A cuSOLVER handle on `s`'s stream; throws naming `op` when cuSOLVER is missing. libs_mu held.
api::cusolverDnHandle_t solver_handle(DeviceState &s, std::string_view op);

/// A cuDNN handle on `s`'s stream; throws naming `op` when cuDNN is missing. libs_mu held.
api::cudnnHandle_t dnn_handle(DeviceState &s, std::string_view op);

/// Throws "[op] <call> on cuda:N failed: <status>" unless the status is success.
void check_blas(api::cublasStatus_t st, std::string_view call, std::string_view op, int device);
void check_solver(api::cusolverStatus_t st, std::string_view call, std::string_view op, int device);
void check_fft(api::cufftResult r, std::string_view call, std::string_view op, int device);
void check_dnn(api::cudnnStatus_t st, std::string_view call, std::string_view op, int device);

/// A block of the device's caching allocator, given back when this goes out of scope: its reuse
/// is ordered on the device's stream after the work queued with it, so no synchronization is
/// needed.
class DeviceBlock {
public:
  DeviceBlock(DeviceState &s, size_t nbytes)
      : s_(s), ptr_(nbytes ? s.allocator.allocate(nbytes) : nullptr) {}
  ~DeviceBlock() {
    if (ptr_)
      s_.allocator.deallocate(ptr_);
  }
  DeviceBlock(const DeviceBlock &) = delete;
  DeviceBlock &operator=(const DeviceBlock &) = delete;
  void *get() const { return ptr_; }
  template <class T> T *as() const { return static_cast<T *>(ptr_); }

private:
  DeviceState &s_;
  void *ptr_;
};

} // namespace strata::cuda
