// Host allocator: exact size-class reuse of freed large blocks, bounded in total bytes.
#include "strata/internal/host_memory.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>

#include "strata/error.h"
#include "strata/sizes.h"

namespace strata {
namespace {

// Blocks at least this large are cached: below it, malloc's own bins are already fast.
constexpr size_t kCacheMin = size_t{1} << 20;
// Total bytes kept in the cache; beyond it, freed blocks go back to the system.
constexpr size_t kCacheMax = size_t{1} << 30;

size_t round_size(size_t n) {
  n = n ? n : 1;
  if (n >= kCacheMin)
    return (n + 4095) / 4096 * 4096; // page classes for cached blocks
  return (n + 63) / 64 * 64;
}

struct Cache {
  std::mutex mu;
  std::multimap<size_t, void *> blocks;
  size_t bytes = 0;
  ~Cache() {
    for (auto &[_, p] : blocks)
      std::free(p);
  }
};
Cache &cache() {
  static Cache *c = new Cache(); // leaked on purpose: buffers may die during static teardown
  return *c;
}

} // namespace

void *host_alloc(size_t nbytes) {
  // Past PTRDIFF_MAX no block can exist, and rounding up could wrap to a small size.
  if (nbytes > static_cast<size_t>(PTRDIFF_MAX))
    throw AllocationError(detail::cat("[alloc] too large: ", format_byte_count(nbytes),
                                      " of host memory, more than an address space holds"));
  size_t size = round_size(nbytes);
  if (size >= kCacheMin) {
    Cache &c = cache();
    std::lock_guard<std::mutex> l(c.mu);
    auto it = c.blocks.find(size);
    if (it != c.blocks.end()) {
      void *p = it->second;
      c.blocks.erase(it);
      c.bytes -= size;
      return p;
    }
  }
  void *p = std::aligned_alloc(64, size);
  if (!p)
    throw AllocationError(detail::cat("[alloc] out of memory: cannot allocate ",
                                      format_byte_count(nbytes), " (", nbytes,
                                      " bytes) of host memory"));
  return p;
}

void host_free(void *p, size_t nbytes) {
  if (!p)
    return;
  size_t size = round_size(nbytes);
  if (size >= kCacheMin) {
    Cache &c = cache();
    std::lock_guard<std::mutex> l(c.mu);
    if (c.bytes + size <= kCacheMax) {
      c.blocks.emplace(size, p);
      c.bytes += size;
      return;
    }
  }
  std::free(p);
}

void host_cache_clear() {
  Cache &c = cache();
  std::lock_guard<std::mutex> l(c.mu);
  for (auto &[_, p] : c.blocks)
    std::free(p);
  c.blocks.clear();
  c.bytes = 0;
}

} // namespace strata
