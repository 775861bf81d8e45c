// The embedding interpreter's hooks behind BlockingRegion.
#include "strata/internal/blocking.h"

#include <atomic>

namespace strata {
namespace {
// Atomics: regions may start on any thread while the module installs the hooks.
std::atomic<void *(*)()> g_release{nullptr};
std::atomic<void (*)(void *)> g_restore{nullptr};
} // namespace

void set_blocking_hooks(BlockingHooks hooks) {
  g_restore.store(hooks.restore, std::memory_order_release);
  g_release.store(hooks.release, std::memory_order_release);
}

BlockingRegion::BlockingRegion() {
  void *(*release)() = g_release.load(std::memory_order_acquire);
  token_ = release ? release() : nullptr;
}

BlockingRegion::~BlockingRegion() {
  if (token_)
    g_restore.load(std::memory_order_acquire)(token_);
}

} // namespace strata
