// The GPU executable: lowers a staged function through `strata-lower-to-nvvm` (kernels as PTX) and
// `strata-lower-gpu-host` (host code calling the CUDA runtime), compiles the host side with
// LLVM's ORC JIT, and runs it on arrays in a GPU's memory.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "jit/Compile.h"
#include "jit/Executable.h"

namespace strata::rt {

/// What a GPU compile targets: the chip ("sm_90"), the grid cap the launch configuration uses,
/// and the device it will run on (-1: offline, for lower() on a machine without that GPU).
struct GpuTarget {
  std::string chip = "sm_90";
  int64_t max_blocks = 1056;
  int device = -1;
  /// The target of cuda:`index` of this process: its chip and 8 blocks per SM.
  static GpuTarget for_device(int index);
  std::string str() const;
};

class STRATA_EXPORT GpuExecutable : public Executable {
public:
  /// Lowers and compiles `staged` (consumed) for `target`; stages and stop_after as for
  /// CpuExecutable::compile (stage names: strata, the strata-lower-to-nvvm stages, host,
  /// llvm-ir). The persistent cache keys on the target too. With target.device < 0 the result
  /// is fully compiled and linked against the CUDA runtime's symbols but cannot run.
  static std::unique_ptr<GpuExecutable> compile(StagedFunction staged, const std::string &name,
                                                const GpuTarget &target,
                                                StageTexts *stages = nullptr,
                                                const std::string &stop_after = "");
  ~GpuExecutable() override;

  /// Runs on the target device: inputs elsewhere are copied there first; outputs are
  /// allocated there. Kernels are queued on the device's stream (the call does not wait for
  /// them; reading a result on the host does).
  std::vector<Array> run(const std::vector<Array> &inputs) const override;

private:
  GpuExecutable() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  void (*entry_)(void **) = nullptr;
  void (*init_)() = nullptr; // loads the kernels' modules (mgpuModuleLoadJIT)
  void (*fini_)() = nullptr; // unloads them
  GpuTarget target_;
  // Module loads (the object's constructors) and device copies of the constants: first run.
  mutable std::once_flag loaded_;
  mutable bool initialized_ = false;
  mutable std::vector<Array> device_constants_;
};

} // namespace strata::rt
