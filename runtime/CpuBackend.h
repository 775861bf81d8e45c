// The CPU backend: lowers a staged function through `strata-lower-to-cpu`, compiles it with
// LLVM's ORC JIT (MLIR's ExecutionEngine) for the host, and runs it on host arrays.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "runtime/Executable.h"
#include "runtime/Staging.h"

namespace llvm::orc {
class LLJIT;
}

namespace strata::rt {

/// The text of each stage a compile went through: "strata" (as staged), the stages of
/// `strata-lower-to-cpu` ("optimized", "linalg", "bufferized", "llvm") and "llvm-ir".
using StageTexts = std::vector<std::pair<std::string, std::string>>;

class STRATA_EXPORT CpuExecutable : public Executable {
public:
  /// Lowers and compiles `staged` (consumed), or loads its object code from the persistent cache
  /// (STRATA_CACHE_DIR) when an earlier process compiled the same IR. With `stages`, records every stage's text; with
  /// `stop_after` set to a stage name, stops there (nothing is compiled, result is null).
  /// Throws strata::Error naming the failing pass and the IR location on a compile failure.
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

/// The persistent cache (STRATA_CACHE_DIR): object code keyed by a hash of the staged IR and
/// the compiler (LLVM version, host CPU and features, pipeline). Counts this process's hits
/// (compilations skipped) and writes.
struct DiskCacheStats {
  int64_t hits = 0, writes = 0;
};
STRATA_EXPORT DiskCacheStats disk_cache_stats();

/// The MLIR context jit stages into (every upstream dialect and Strata's registered; passes and
/// pipelines registered). Guarded: callers hold context_mutex() while they use it.
STRATA_EXPORT mlir::MLIRContext &jit_context();
STRATA_EXPORT std::recursive_mutex &context_mutex();

} // namespace strata::rt
