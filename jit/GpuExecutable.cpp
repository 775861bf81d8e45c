// The GPU executable: strata-lower-to-gpu (strata-lower-to-nvvm for the kernels, then
// strata-lower-gpu-host for the host code), ORC for the host side, and the CUDA runtime
// (runtime/cuda) underneath.
#include "jit/GpuExecutable.h"

#include "jit/Compile.h"
#include "runtime/cuda/CudaRuntime.h"
#include "runtime/host/HostRuntime.h"
#include "transforms/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"

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
/// The stages of `strata-lower-to-gpu` for the device: its chip, blocks of 256 threads.
mlir::strata::PipelineStages gpu_stages(const GpuTarget &t) {
  mlir::strata::GpuPipelineOptions options;
  options.chip = t.chip;
  options.blockSize = 256;
  options.maxBlocks = t.max_blocks;
  return mlir::strata::gpuLoweringStages(options);
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
    rethrow_gpu_runtime_errors();
    for (const Array &c : constants_)
      device_constants_.push_back(device_put(c, device));
  });
  std::vector<Array> placed;
  placed.reserve(inputs.size());
  for (const Array &x : inputs)
    placed.push_back(x.device() == device ? x : device_put(x, device));
  std::vector<Array> results = invoke(entry_, placed, device_constants_, device);
  rethrow_gpu_runtime_errors();
  std::vector<Array> outs = assemble_outputs(outputs_, results, placed);
  // A returned constant is a host array: every output lives where the function ran.
  for (Array &o : outs)
    if (o.device() != device)
      o = device_put(o, device);
  return outs;
}

} // namespace strata::rt
