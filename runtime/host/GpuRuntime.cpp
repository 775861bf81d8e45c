// The functions GPU host code calls besides the CUDA runtime's mgpu* (runtime/cuda): scalar
// reads of device memory and host callbacks on device buffers.
#include "runtime/host/HostRuntime.h"

#include <string>

#include "runtime/cuda/CudaRuntime.h"
#include "runtime/host/HostCallback.h"
#include "strata/error.h"

namespace strata::rt {

namespace {
/// A failure of strata_rt_cuda_to_host in this thread (it cannot throw through compiled code).
thread_local std::string g_to_host_error;
} // namespace

/// strata-gpu-host-memory's scalar read: waits for the current device's stream, then copies
/// `bytes` at device address `src` to host address `dst`.
extern "C" void strata_rt_cuda_to_host(int64_t dst, int64_t src, int64_t bytes) {
  if (!g_to_host_error.empty() || cuda::has_pending_error())
    return;
  try {
    cuda::copy_to_host(cuda::current_device(), reinterpret_cast<void *>(dst),
                       reinterpret_cast<const void *>(src), static_cast<size_t>(bytes));
  } catch (const std::exception &e) {
    g_to_host_error = e.what();
  }
}

/// strata.host_callback in GPU host code (strata-gpu-host-memory renames the CPU's call to
/// this one): the announced buffers are device memory, copied to the host on the device's
/// stream (after the kernels before the call) for the callback, and its results copied back.
extern "C" void strata_rt_cuda_host_callback(int64_t id, int64_t n_in, int64_t n_out) {
  int device = cuda::current_device();
  run_host_callback_buffers(
      id, n_in, n_out,
      [device](void *dst, const void *src, size_t n) { cuda::copy_to_host(device, dst, src, n); },
      [device](void *dst, const void *src, size_t n) {
        cuda::copy_to_device(device, dst, src, n);
      });
}

std::vector<std::pair<std::string, void *>> gpu_runtime_symbols() {
  std::vector<std::pair<std::string, void *>> out;
  for (const auto &[name, address] : cuda::runtime_symbols())
    out.emplace_back(name, address);
  out.emplace_back("strata_rt_cuda_to_host", reinterpret_cast<void *>(&strata_rt_cuda_to_host));
  out.emplace_back("strata_rt_cuda_host_callback",
                   reinterpret_cast<void *>(&strata_rt_cuda_host_callback));
  out.emplace_back("strata_rt_host_callback_buffer",
                   reinterpret_cast<void *>(&strata_rt_host_callback_buffer));
  out.emplace_back("strata_rt_host_callback_dim",
                   reinterpret_cast<void *>(&strata_rt_host_callback_dim));
  return out;
}

void rethrow_gpu_runtime_errors() {
  cuda::rethrow_pending_error();
  if (!g_to_host_error.empty()) {
    std::string message = std::move(g_to_host_error);
    g_to_host_error.clear();
    throw Error(message, ErrorKind::Internal);
  }
}

} // namespace strata::rt
