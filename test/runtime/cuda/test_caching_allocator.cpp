// The caching allocator's policy over a fake raw allocator with a fixed capacity: rounding,
// reuse before raw allocation, bounded waste, counters, the out-of-memory retry and its error.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/cuda/CachingAllocator.h"
#include "test_util.h"

using namespace strata;
using namespace strata::cuda;
using testutil::expect_error;

namespace {

constexpr size_t MiB = 1024 * 1024;

/// Hands out fake addresses (never dereferenced) from a device of `capacity` bytes; records the
/// calls so the tests can check what reached the "driver".
class FakeRaw : public RawAllocator {
public:
  explicit FakeRaw(size_t capacity) : capacity(capacity) {}
  void *allocate(size_t nbytes) override {
    std::lock_guard<std::mutex> lock(mu);
    ++allocs;
    synchronized_since_alloc = false;
    if (fail_next) {
      fail_next = false;
      fail("cuda", "cuMemAlloc_v2 on fake:0 failed: CUDA_ERROR_ILLEGAL_ADDRESS");
    }
    if (used + nbytes > capacity)
      return nullptr;
    used += nbytes;
    next += nbytes + 4096;
    void *p = reinterpret_cast<void *>(next);
    blocks[p] = nbytes;
    return p;
  }
  void deallocate(void *ptr, size_t nbytes) noexcept override {
    std::lock_guard<std::mutex> lock(mu);
    ++frees;
    EXPECT_EQ(blocks.at(ptr), nbytes);
    EXPECT_TRUE(synchronized_since_alloc) << "cached block freed before synchronize()";
    blocks.erase(ptr);
    used -= nbytes;
  }
  void synchronize() override {
    ++syncs;
    synchronized_since_alloc = true;
  }
  std::string memory_info() override { return "fake device: 10 bytes free"; }

  std::mutex mu;
  size_t capacity, used = 0;
  uintptr_t next = 0x100000;
  std::map<void *, size_t> blocks;
  int allocs = 0, frees = 0, syncs = 0;
  bool fail_next = false, synchronized_since_alloc = false;
};

} // namespace

TEST(CachingAllocator, RoundsSmallTo512BytesAndLargeTo2MiB) {
  EXPECT_EQ(CachingAllocator::round_size(0), 512u);
  EXPECT_EQ(CachingAllocator::round_size(1), 512u);
  EXPECT_EQ(CachingAllocator::round_size(512), 512u);
  EXPECT_EQ(CachingAllocator::round_size(513), 1024u);
  EXPECT_EQ(CachingAllocator::round_size(1 * MiB), 1 * MiB);
  EXPECT_EQ(CachingAllocator::round_size(1 * MiB + 1), 2 * MiB);
  EXPECT_EQ(CachingAllocator::round_size(3 * MiB), 4 * MiB);
  EXPECT_EQ(CachingAllocator::round_size(SIZE_MAX), 0u) << "no block holds it";
}

TEST(CachingAllocator, ReusesAFreedBlockBeforeAllocating) {
  FakeRaw raw(100 * MiB);
  CachingAllocator a(raw, "fake:0");
  void *p = a.allocate(1000);
  EXPECT_EQ(a.block_size(p), 1024u);
  EXPECT_TRUE(a.deallocate(p));
  void *q = a.allocate(900); // same 1024 B class
  EXPECT_EQ(q, p);
  AllocatorStats s = a.stats();
  EXPECT_EQ(raw.allocs, 1);
  EXPECT_EQ(s.raw_allocations, 1);
  EXPECT_EQ(s.allocations, 2);
  EXPECT_EQ(s.cache_hits, 1);
  EXPECT_EQ(s.live_bytes, 1024);
  EXPECT_EQ(s.cached_bytes, 0);
}

TEST(CachingAllocator, WastesAtMostAQuarterOfARequest) {
  FakeRaw raw(100 * MiB);
  CachingAllocator a(raw, "fake:0");
  void *big = a.allocate(10 * MiB);
  a.deallocate(big);
  void *small = a.allocate(1000);
  EXPECT_NE(small, big) << "a 1 KiB request must not hold a 10 MiB block";
  void *four = a.allocate(4 * MiB);
  EXPECT_NE(four, big);
  void *eight = a.allocate(8 * MiB); // 10 MiB wastes 2 MiB = 8 MiB / 4: taken
  EXPECT_EQ(eight, big);
  EXPECT_EQ(a.block_size(eight), 10 * MiB);
  EXPECT_EQ(a.stats().cache_hits, 1);
}

TEST(CachingAllocator, TakesTheSmallestFittingBlock) {
  FakeRaw raw(100 * MiB);
  CachingAllocator a(raw, "fake:0");
  void *p10 = a.allocate(10 * MiB), *p8 = a.allocate(8 * MiB), *p12 = a.allocate(12 * MiB);
  a.deallocate(p10);
  a.deallocate(p12);
  a.deallocate(p8);
  EXPECT_EQ(a.allocate(7 * MiB), p8);
  EXPECT_EQ(a.allocate(9 * MiB), p10);
}

TEST(CachingAllocator, CountsLivePeakAndCached) {
  FakeRaw raw(100 * MiB);
  CachingAllocator a(raw, "fake:0");
  void *p1 = a.allocate(1 * MiB), *p2 = a.allocate(1 * MiB), *p3 = a.allocate(1 * MiB);
  a.deallocate(p1);
  a.deallocate(p2);
  AllocatorStats s = a.stats();
  EXPECT_EQ(s.live_bytes, int64_t(1 * MiB));
  EXPECT_EQ(s.live_blocks, 1);
  EXPECT_EQ(s.peak_live_bytes, int64_t(3 * MiB));
  EXPECT_EQ(s.cached_bytes, int64_t(2 * MiB));
  EXPECT_EQ(s.cached_blocks, 2);
  a.reset_peak();
  EXPECT_EQ(a.stats().peak_live_bytes, int64_t(1 * MiB));
  a.deallocate(p3);
  EXPECT_EQ(a.stats().live_bytes, 0);
  EXPECT_EQ(a.stats().peak_live_bytes, int64_t(1 * MiB));
}

TEST(CachingAllocator, EmptyCacheSynchronizesThenFreesOnlyCachedBlocks) {
  FakeRaw raw(100 * MiB);
  CachingAllocator a(raw, "fake:0");
  void *keep = a.allocate(3 * MiB);
  a.deallocate(a.allocate(5 * MiB));
  a.deallocate(a.allocate(1000));
  a.empty_cache();
  EXPECT_EQ(raw.syncs, 1);
  EXPECT_EQ(raw.frees, 2);
  EXPECT_EQ(raw.blocks.size(), 1u);
  EXPECT_EQ(a.stats().cached_bytes, 0);
  EXPECT_EQ(a.stats().raw_frees, 2);
  EXPECT_EQ(a.block_size(keep), 4 * MiB);
  a.empty_cache(); // nothing cached: no synchronize
  EXPECT_EQ(raw.syncs, 1);
}

TEST(CachingAllocator, OutOfMemoryReleasesTheCacheAndRetriesOnce) {
  FakeRaw raw(10 * MiB);
  CachingAllocator a(raw, "fake:0");
  a.deallocate(a.allocate(6 * MiB));
  void *p = a.allocate(8 * MiB); // 6 MiB cached + 8 MiB > 10 MiB until the cache goes
  ASSERT_NE(p, nullptr);
  AllocatorStats s = a.stats();
  EXPECT_EQ(s.oom_retries, 1);
  EXPECT_EQ(s.cached_bytes, 0);
  EXPECT_EQ(s.live_bytes, int64_t(8 * MiB));
  EXPECT_EQ(raw.syncs, 1);
  EXPECT_EQ(raw.allocs, 3);
}

TEST(CachingAllocator, OutOfMemoryErrorNamesRequestLiveAndCached) {
  FakeRaw raw(10 * MiB);
  CachingAllocator a(raw, "fake:0");
  void *live = a.allocate(8 * MiB);
  expect_error([&] { a.allocate(3 * MiB); },
               {"[cuda] out of memory on fake:0", "cannot allocate 3.0 MiB", "3145728 bytes",
                "block 4.0 MiB", "live 8.0 MiB in 1 blocks", "cached 0 B",
                "fake device: 10 bytes free"});
  EXPECT_EQ(a.stats().oom_retries, 1);
  EXPECT_EQ(a.stats().live_bytes, int64_t(8 * MiB)) << "a failed request changes no counter";
  a.deallocate(live);
  expect_error([&] { a.allocate(SIZE_MAX - 5); }, {"larger than any device"});
}

TEST(CachingAllocator, OtherRawFailuresPropagate) {
  FakeRaw raw(10 * MiB);
  CachingAllocator a(raw, "fake:0");
  raw.fail_next = true;
  expect_error([&] { a.allocate(100); }, {"CUDA_ERROR_ILLEGAL_ADDRESS"});
  EXPECT_EQ(a.stats().oom_retries, 0);
  EXPECT_EQ(a.stats().allocations, 0);
}

TEST(CachingAllocator, RefusesPointersItDidNotHandOut) {
  FakeRaw raw(10 * MiB);
  CachingAllocator a(raw, "fake:0");
  void *p = a.allocate(10);
  int x = 0;
  EXPECT_FALSE(a.deallocate(&x));
  EXPECT_EQ(a.block_size(&x), 0u);
  EXPECT_TRUE(a.deallocate(p));
  EXPECT_FALSE(a.deallocate(p)) << "freed twice";
}

TEST(CachingAllocator, DestructionReturnsTheCache) {
  FakeRaw raw(10 * MiB);
  {
    CachingAllocator a(raw, "fake:0");
    a.deallocate(a.allocate(2 * MiB));
    a.deallocate(a.allocate(100));
  }
  EXPECT_TRUE(raw.blocks.empty());
  EXPECT_EQ(raw.used, 0u);
}

TEST(CachingAllocator, ThreadsShareOneAllocator) {
  FakeRaw raw(1024 * MiB);
  CachingAllocator a(raw, "fake:0");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::vector<void *> mine;
      for (int i = 0; i < 500; ++i) {
        mine.push_back(a.allocate(static_cast<size_t>((i * 37 + t) % 5000) * 300));
        if (i % 3 == 0) {
          a.deallocate(mine.back());
          mine.pop_back();
        }
      }
      for (void *p : mine)
        a.deallocate(p);
    });
  for (std::thread &t : threads)
    t.join();
  AllocatorStats s = a.stats();
  EXPECT_EQ(s.live_bytes, 0);
  EXPECT_EQ(s.live_blocks, 0);
  EXPECT_EQ(s.allocations, 2000);
  EXPECT_EQ(s.cached_bytes, static_cast<int64_t>(raw.used));
  EXPECT_GT(s.cache_hits, 0);
}

TEST(CachingAllocator, FormatsByteCounts) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(int64_t(2) << 30), "2.0 GiB");
}
