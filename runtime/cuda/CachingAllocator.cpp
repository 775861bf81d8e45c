// The caching device allocator's logic (policy in CachingAllocator.h); no CUDA here.
#include "runtime/cuda/CachingAllocator.h"

#include <cstdio>

#include "strata/allocation_error.h"

namespace strata::cuda {

std::string format_bytes(int64_t nbytes) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(nbytes);
  int u = 0;
  while (u < 4 && (v >= 1024.0 || v <= -1024.0)) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(nbytes));
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

CachingAllocator::CachingAllocator(RawAllocator &raw, std::string device_name)
    : raw_(raw), name_(std::move(device_name)) {}

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> lock(mu_);
  try {
    release_cache_locked();
  } catch (...) {
    // A failed synchronize at teardown leaves the blocks to the driver, which frees them at exit.
  }
}

size_t CachingAllocator::round_size(size_t nbytes) {
  if (nbytes == 0)
    return kSmallAlign;
  if (nbytes <= kSmallMax)
    return (nbytes + kSmallAlign - 1) / kSmallAlign * kSmallAlign;
  if (nbytes > SIZE_MAX - kLargeAlign)
    return 0; // no block can hold it; allocate() reports the request
  return (nbytes + kLargeAlign - 1) / kLargeAlign * kLargeAlign;
}

void *CachingAllocator::allocate(size_t nbytes) {
  size_t size = round_size(nbytes);
  std::lock_guard<std::mutex> lock(mu_);
  if (size == 0)
    throw AllocationError(detail::cat("[cuda] cannot allocate ", nbytes, " bytes on ", name_,
                                      ": larger than any device"));
  void *ptr = nullptr;
  if (auto it = free_.lower_bound(size); it != free_.end() && it->first - size <= size / 4) {
    size = it->first;
    ptr = it->second;
    free_.erase(it);
    stats_.cached_bytes -= static_cast<int64_t>(size);
    --stats_.cached_blocks;
    ++stats_.cache_hits;
  } else {
    ptr = raw_.allocate(size);
    if (!ptr) {
      int64_t released = stats_.cached_bytes;
      ++stats_.oom_retries;
      release_cache_locked();
      ptr = raw_.allocate(size);
      if (!ptr) {
        std::string info = raw_.memory_info();
        throw AllocationError(detail::cat(
            "[cuda] out of memory on ", name_, ": cannot allocate ", format_bytes(nbytes), " (",
            nbytes, " bytes, block ", format_bytes(static_cast<int64_t>(size)), "); live ",
            format_bytes(stats_.live_bytes), " in ", stats_.live_blocks, " blocks, cached ",
            format_bytes(stats_.cached_bytes), " after releasing ", format_bytes(released),
            " of cache and retrying", info.empty() ? "" : "; ", info));
      }
    }
    ++stats_.raw_allocations;
  }
  live_.emplace(ptr, size);
  ++stats_.allocations;
  ++stats_.live_blocks;
  stats_.live_bytes += static_cast<int64_t>(size);
  if (stats_.live_bytes > stats_.peak_live_bytes)
    stats_.peak_live_bytes = stats_.live_bytes;
  return ptr;
}

bool CachingAllocator::deallocate(void *ptr) noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(ptr);
  if (it == live_.end())
    return false;
  size_t size = it->second;
  live_.erase(it);
  --stats_.live_blocks;
  stats_.live_bytes -= static_cast<int64_t>(size);
  try {
    free_.emplace(size, ptr);
  } catch (...) {
    // No memory for the free-list node: give the block back instead of caching it.
    raw_.deallocate(ptr, size);
    ++stats_.raw_frees;
    return true;
  }
  stats_.cached_bytes += static_cast<int64_t>(size);
  ++stats_.cached_blocks;
  return true;
}

size_t CachingAllocator::block_size(const void *ptr) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(ptr);
  return it == live_.end() ? 0 : it->second;
}

void CachingAllocator::release_cache_locked() {
  if (free_.empty())
    return;
  raw_.synchronize();
  for (auto &[size, ptr] : free_) {
    raw_.deallocate(ptr, size);
    ++stats_.raw_frees;
  }
  free_.clear();
  stats_.cached_bytes = 0;
  stats_.cached_blocks = 0;
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mu_);
  release_cache_locked();
}

AllocatorStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void CachingAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.peak_live_bytes = stats_.live_bytes;
}

} // namespace strata::cuda
