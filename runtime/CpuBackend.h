// The CPU backend: lowers a staged function through `strata-lower-to-cpu`, compiles it with
// LLVM's ORC JIT (MLIR's ExecutionEngine) for the host, and runs it on host arrays.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "runtime/Staging.h"

namespace mlir {
class ExecutionEngine;
}

namespace strata::rt {

/// The text of each stage a compile went through: "strata" (as staged), the stages of
/// `strata-lower-to-cpu` ("optimized", "linalg", "bufferized", "llvm") and "llvm-ir".
using StageTexts = std::vector<std::pair<std::string, std::string>>;

class CpuExecutable {
public:
  /// Lowers and compiles `staged` (consumed). With `stages`, records every stage's text; with
  /// `stop_after` set to a stage name, stops there (nothing is compiled, result is null).
  /// Throws strata::Error naming the failing pass and the IR location on a compile failure.
  static std::unique_ptr<CpuExecutable> compile(StagedFunction staged, const std::string &name,
                                                StageTexts *stages = nullptr,
                                                const std::string &stop_after = "");
  ~CpuExecutable();

  /// Runs on concrete host arrays of the staged input types; allocates the outputs.
  std::vector<Array> run(const std::vector<Array> &inputs) const;

  const std::vector<AbstractValue> &inputs() const { return inputs_; }

private:
  CpuExecutable() = default;
  std::unique_ptr<mlir::ExecutionEngine> engine_;
  void (*entry_)(void **) = nullptr;
  std::vector<AbstractValue> inputs_;
  std::vector<Array> constants_;
  std::vector<AbstractValue> results_;
  std::vector<StagedOutput> outputs_;
};

/// The MLIR context jit stages into (every upstream dialect and Strata's registered; passes and
/// pipelines registered). Guarded: callers hold context_mutex() while they use it.
mlir::MLIRContext &jit_context();
std::recursive_mutex &context_mutex();

} // namespace strata::rt
