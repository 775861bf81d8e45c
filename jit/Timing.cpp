// Per-phase wall-clock timing of one jit compile, collected through a thread-local scope.
#include "jit/Timing.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace strata::rt {
namespace {
thread_local CompileTiming *t_timing = nullptr;

std::string ms(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", seconds * 1e3);
  return buf;
}
} // namespace

std::string CompileTiming::str(double total_seconds) const {
  std::string s;
  for (const auto &[name, seconds] : phases)
    s += name + " " + ms(seconds) + ", ";
  return s + "total " + ms(total_seconds);
}

TimingScope::TimingScope(CompileTiming &timing) : saved_(t_timing) { t_timing = &timing; }
TimingScope::~TimingScope() { t_timing = saved_; }

CompileTiming *current_timing() { return t_timing; }

PhaseTimer::~PhaseTimer() {
  if (!t_timing)
    return;
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  t_timing->phases.emplace_back(std::move(name_), s);
}

int timing_level() {
  const char *v = std::getenv("STRATA_TIMING");
  if (!v || !*v || std::strcmp(v, "0") == 0)
    return 0;
  return std::strcmp(v, "passes") == 0 || std::strcmp(v, "2") == 0 ? 2 : 1;
}

} // namespace strata::rt
