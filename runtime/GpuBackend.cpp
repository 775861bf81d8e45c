// The GPU backend: strata-lower-to-nvvm for the kernels, strata-lower-gpu-host for the host
// code, ORC for the host side, and the CUDA runtime (runtime/cuda) underneath.
#include "runtime/GpuBackend.h"

#include "runtime/HostCallback.h"
#include "runtime/LlvmCompile.h"
#include "runtime/cuda/CudaRuntime.h"
#include "transforms/GpuHost.h"
#include "transforms/LowerToNvvm.h"

#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"
#include "mlir/IR/BuiltinOps.h"

#include "strata/device.h"
#include "strata/error.h"

namespace strata::rt {

GpuTarget GpuTarget::for_device(int index) {
  cuda::DeviceInfo info = cuda::device_info(index);
  GpuTarget t;
  t.chip = cuda::chip(index);
  // Enough blocks of 256 threads to fill every SM several times; grid-stride loops do the rest.
  t.max_blocks = 8 * static_cast<int64_t>(info.sm_count);
  t.device = index;
  return t;
}

std::string GpuTarget::str() const {
  return "chip=" + chip + " max-blocks=" + std::to_string(max_blocks);
}

namespace {
std::vector<std::pair<std::string, std::string>> gpu_stages(const GpuTarget &t) {
  auto stages = mlir::strata::nvvmLoweringStages(t.chip, /*blockSize=*/256, t.max_blocks);
  stages.emplace_back("host", mlir::strata::gpuHostPipeline());
  return stages;
}
} // namespace

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

namespace {
/// Throws what the runtime functions recorded while compiled code ran.
void rethrow_runtime_errors() {
  cuda::rethrow_pending_error();
  if (!g_to_host_error.empty()) {
    std::string message = std::move(g_to_host_error);
    g_to_host_error.clear();
    throw Error(message, ErrorKind::Internal);
  }
}
} // namespace

GpuExecutable::~GpuExecutable() {
  if (!initialized_)
    return;
  // Unload the modules on their device; a failure here has no caller to tell.
  cuda::set_current_device(target_.device);
  fini_();
  cuda::clear_pending_error();
}

std::unique_ptr<GpuExecutable> GpuExecutable::compile(StagedFunction staged,
                                                      const std::string &name,
                                                      const GpuTarget &target, StageTexts *stages,
                                                      const std::string &stop_after) {
  std::unique_ptr<llvm::MemoryBuffer> object = detail::compile_or_load(
      *staged.module, gpu_stages(target), "gpu " + target.str(), name, stages, stop_after);
  if (!object)
    return nullptr;
  auto exe = std::unique_ptr<GpuExecutable>(new GpuExecutable());
  exe->jit_ = detail::load_object(std::move(object), gpu_runtime_symbols());
  exe->entry_ = detail::lookup_entry(*exe->jit_);
  exe->init_ = detail::lookup_void_fn(*exe->jit_, "strata_init");
  exe->fini_ = detail::lookup_void_fn(*exe->jit_, "strata_fini");
  exe->target_ = target;
  exe->adopt_signature(staged);
  return exe;
}

std::vector<Array> GpuExecutable::run(const std::vector<Array> &inputs) const {
  if (target_.device < 0)
    throw Error("[jit] this executable was compiled offline for " + target_.chip +
                    " (no device): it links, but runs only when compiled for a device",
                ErrorKind::Value);
  Device device{Device::Kind::CUDA, target_.device};
  cuda::set_current_device(target_.device);
  std::call_once(loaded_, [&] {
    // The module's constructors load its kernels' modules (mgpuModuleLoadJIT -> nvJitLink).
    init_();
    initialized_ = true;
    rethrow_runtime_errors();
    for (const Array &c : constants_)
      device_constants_.push_back(device_put(c, device));
  });
  std::vector<Array> placed;
  placed.reserve(inputs.size());
  for (const Array &x : inputs)
    placed.push_back(x.device() == device ? x : device_put(x, device));
  std::vector<Array> results = invoke(entry_, placed, device_constants_, device);
  rethrow_runtime_errors();
  std::vector<Array> outs = detail::assemble_outputs(outputs_, results, placed);
  // A returned constant is a host array: every output lives where the function ran.
  for (Array &o : outs)
    if (o.device() != device)
      o = device_put(o, device);
  return outs;
}

} // namespace strata::rt
