// Per-phase wall-clock timing of one jit compile (staging, each pass stage, LLVM), which
// STRATA_TIMING prints so that a slow compile can be reported by phase.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace strata::rt {

/// The phases of one compile in the order they ran, with their seconds (a phase that runs
/// twice, such as a stage of a nested compile, is listed twice).
struct CompileTiming {
  std::vector<std::pair<std::string, double>> phases;
  /// Operations in the staged module (its size, against which times should grow linearly).
  int64_t staged_ops = 0;
  /// "staging 1.2 ms, optimized 3.4 ms, ..., total 9.9 ms".
  std::string str(double total_seconds) const;
};

/// Where the phases of this thread's compile go while it is in scope; nests (the innermost
/// collects).
class TimingScope {
public:
  explicit TimingScope(CompileTiming &timing);
  ~TimingScope();
  TimingScope(const TimingScope &) = delete;
  TimingScope &operator=(const TimingScope &) = delete;

private:
  CompileTiming *saved_;
};

/// The timing this thread's compile records into, or null outside a TimingScope.
CompileTiming *current_timing();

/// Adds the time from its construction to its destruction to current_timing() as `name`.
class PhaseTimer {
public:
  explicit PhaseTimer(std::string name)
      : name_(std::move(name)), start_(std::chrono::steady_clock::now()) {}
  ~PhaseTimer();
  PhaseTimer(const PhaseTimer &) = delete;
  PhaseTimer &operator=(const PhaseTimer &) = delete;

private:
  std::string name_;
  std::chrono::steady_clock::time_point start_;
};

/// STRATA_TIMING's level: 0 unset (or "0"), 1 for the per-phase line of each compile, 2
/// ("passes") for MLIR's per-pass table of each stage too.
int timing_level();

} // namespace strata::rt
