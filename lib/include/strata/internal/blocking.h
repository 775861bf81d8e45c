// Regions of C++ work and waits during which an embedding interpreter's other threads may run.
#pragma once

#include <mutex>

#include "strata/export.h"

namespace strata {

/// What an embedding language (the Python module) installs so that long kernels, compiled
/// calls and lock waits let its other threads run: `release` gives up the interpreter lock when
/// the calling thread holds it and returns a token (nullptr when it held nothing), `restore`
/// takes it back from that token. Both must be safe to call from any thread.
struct BlockingHooks {
  void *(*release)() = nullptr;
  void (*restore)(void *token) = nullptr;
};

/// Installs the hooks (once, before other threads call in); empty hooks turn regions off.
STRATA_EXPORT void set_blocking_hooks(BlockingHooks hooks);

/// While alive, the calling thread does not hold the embedding interpreter's lock. Code in the
/// region must not touch interpreter objects except through callbacks that take the lock back
/// themselves (the Python module's FlatFns do). Regions nest: an inner one is a no-op.
class STRATA_EXPORT BlockingRegion {
public:
  BlockingRegion();
  ~BlockingRegion();
  BlockingRegion(const BlockingRegion &) = delete;
  BlockingRegion &operator=(const BlockingRegion &) = delete;

private:
  void *token_;
};

/// Locks `m`, giving up the interpreter lock while it waits: a thread that holds `m` while it
/// calls back into the interpreter (a jit trace holds the MLIR context's lock) must never wait
/// for a thread that holds the interpreter lock while it waits for `m`.
template <class Mutex> std::unique_lock<Mutex> lock_blocking(Mutex &m) {
  std::unique_lock<Mutex> lock(m, std::try_to_lock);
  if (!lock.owns_lock()) {
    BlockingRegion region;
    lock.lock();
  }
  return lock;
}

} // namespace strata
