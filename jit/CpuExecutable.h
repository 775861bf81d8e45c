// The CPU executable: a staged function lowered through `strata-lower-to-cpu`, compiled with
// LLVM's ORC JIT for the host, run on host arrays.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "jit/Compile.h"
#include "jit/Executable.h"
#include "jit/Staging.h"

namespace llvm::orc {
class LLJIT;
}

namespace strata::rt {

class STRATA_EXPORT CpuExecutable : public Executable {
public:
  /// Lowers and compiles `staged` (consumed), or loads its object code from the persistent cache
  /// (STRATA_CACHE_DIR) when an earlier process compiled the same IR. With `stages`, records every
  /// stage's text; with `stop_after` set to a stage name, stops there (nothing is compiled, result
  /// is null). Throws strata::Error naming the failing pass and the IR location on a compile
  /// failure.
  static std::unique_ptr<CpuExecutable> compile(StagedFunction staged, const std::string &name,
                                                StageTexts *stages = nullptr,
                                                const std::string &stop_after = "");
  ~CpuExecutable() override;

  /// Runs on concrete host arrays of the staged input types; allocates the outputs.
  std::vector<Array> run(const std::vector<Array> &inputs) const override;

private:
  CpuExecutable() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  void (*entry_)(void **) = nullptr;
};

} // namespace strata::rt
