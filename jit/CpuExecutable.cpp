// The CPU executable: strata-lower-to-cpu, then LLVM's ORC JIT for the host CPU.
#include "jit/CpuExecutable.h"

#include "jit/Compile.h"
#include "runtime/host/HostRuntime.h"
#include "transforms/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"

#include "strata/device.h"

namespace strata::rt {

CpuExecutable::~CpuExecutable() = default;

std::unique_ptr<CpuExecutable> CpuExecutable::compile(StagedFunction staged,
                                                      const std::string &name, StageTexts *stages,
                                                      const std::string &stop_after) {
  std::unique_ptr<llvm::MemoryBuffer> object = detail::compile_or_load(
      *staged.module, mlir::strata::cpuLoweringStages(), "", name, stages, stop_after);
  if (!object)
    return nullptr;
  auto exe = std::unique_ptr<CpuExecutable>(new CpuExecutable());
  exe->jit_ = detail::load_object(std::move(object), cpu_runtime_symbols());
  exe->entry_ = detail::lookup_entry(*exe->jit_);
  exe->adopt_signature(staged);
  return exe;
}

std::vector<Array> CpuExecutable::run(const std::vector<Array> &inputs) const {
  std::vector<Array> results = invoke(entry_, inputs, constants_, cpu_device());
  return assemble_outputs(outputs_, results, inputs);
}

} // namespace strata::rt
