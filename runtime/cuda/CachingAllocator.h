// The caching device allocator: size classes and free lists over a raw allocator (cuMemAlloc on
// a device, or a fake one in the unit tests), with live/peak/cached counters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include "strata/export.h"

namespace strata::cuda {

/// Counters of one device's allocator. Byte counts are of blocks (rounded sizes), not requests.
struct AllocatorStats {
  int64_t live_bytes = 0;      ///< in blocks handed out and not yet returned
  int64_t peak_live_bytes = 0; ///< the most live_bytes since start or reset_peak()
  int64_t cached_bytes = 0;    ///< in free blocks kept for reuse
  int64_t live_blocks = 0;
  int64_t cached_blocks = 0;
  int64_t allocations = 0;     ///< allocate() calls that succeeded
  int64_t cache_hits = 0;      ///< of those, served from the cache
  int64_t raw_allocations = 0; ///< successful raw (cuMemAlloc) calls
  int64_t raw_frees = 0;       ///< raw (cuMemFree) calls
  int64_t oom_retries = 0;     ///< times the cache was released because the device was full
};

/// Device memory without caching: what CachingAllocator gets its blocks from.
class STRATA_EXPORT RawAllocator {
public:
  virtual ~RawAllocator() = default;
  /// `nbytes` of device memory, or null when the device is out of memory; throws strata::Error
  /// on any other failure.
  virtual void *allocate(size_t nbytes) = 0;
  virtual void deallocate(void *ptr, size_t nbytes) noexcept = 0;
  /// Waits for the work queued on the allocator's stream: cached blocks may still be in use by
  /// queued work until then, so it runs before they go back to the raw allocator.
  virtual void synchronize() = 0;
  /// The device's free/total memory for error messages ("" when unknown).
  virtual std::string memory_info() { return ""; }
};

/// A stream-ordered caching allocator for one device. All work that uses its memory runs on the
/// device's one stream, so a block returned by deallocate() is reused at once: any later use is
/// queued after the earlier one.
///
/// Policy: requests are rounded up to a multiple of 512 B up to 1 MiB (small blocks), and to a
/// multiple of 2 MiB above (large blocks; the driver's own page size, so a large block wastes no
/// driver memory). Free blocks are kept in a size-ordered free list; a request takes the
/// smallest free block of at least its rounded size that wastes at most a quarter of that size
/// (so a 512 B request never holds a 1 MiB block), else a new raw block. Blocks are never split.
/// When the raw allocator is out of memory, every cached block is released and the request
/// retried once; if it still fails, the error names the request, live and cached bytes.
class STRATA_EXPORT CachingAllocator {
public:
  static constexpr size_t kSmallAlign = 512;
  static constexpr size_t kSmallMax = size_t(1) << 20;
  static constexpr size_t kLargeAlign = size_t(2) << 20;

  /// `device_name` ("cuda:0") appears in error messages.
  CachingAllocator(RawAllocator &raw, std::string device_name);
  /// Releases the cached blocks; live blocks are left to the raw allocator's owner.
  ~CachingAllocator();

  /// The block size a request of `nbytes` gets (0 bytes get a 512 B block).
  static size_t round_size(size_t nbytes);
  /// A block of at least `nbytes`; throws strata::Error when the device is out of memory.
  void *allocate(size_t nbytes);
  /// Returns `ptr` (from allocate) to the cache; false when it is not a live block.
  bool deallocate(void *ptr) noexcept;
  /// The size of live block `ptr`, or 0 when it is not one.
  size_t block_size(const void *ptr) const;
  /// Gives every cached block back to the raw allocator (after synchronizing).
  void empty_cache();
  AllocatorStats stats() const;
  /// Starts the peak over at the current live bytes.
  void reset_peak();

private:
  /// Releases the cached blocks; mu_ held.
  void release_cache_locked();

  mutable std::mutex mu_;
  RawAllocator &raw_;
  std::string name_;
  std::unordered_map<const void *, size_t> live_;
  std::multimap<size_t, void *> free_;
  AllocatorStats stats_;
};

/// "2.0 GiB", "512 B", "1.5 MiB": a byte count for messages.
STRATA_EXPORT std::string format_bytes(int64_t nbytes);

} // namespace strata::cuda
