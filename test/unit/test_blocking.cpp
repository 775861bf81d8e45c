// BlockingRegion and lock_blocking with a stand-in interpreter lock: a region gives the lock up
// and takes it back, regions nest, and a thread that holds the interpreter lock while it waits
// for a mutex lets the mutex's holder take the interpreter lock (the jit-trace deadlock).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <mutex>
#include <thread>

#include "strata/internal/blocking.h"

using namespace strata;

namespace {

// The stand-in for the GIL: a mutex and whether this thread holds it.
std::mutex g_interp;
thread_local bool t_holds = false;
std::atomic<int> g_releases{0};

void take() {
  g_interp.lock();
  t_holds = true;
}
void give() {
  t_holds = false;
  g_interp.unlock();
}
void *release() {
  if (!t_holds)
    return nullptr;
  ++g_releases;
  give();
  return &g_interp;
}
void restore(void *) { take(); }

struct Hooks {
  Hooks() { set_blocking_hooks({release, restore}); }
  ~Hooks() { set_blocking_hooks({}); }
};

TEST(Blocking, RegionGivesTheLockUpAndTakesItBack) {
  Hooks hooks;
  take();
  int before = g_releases;
  {
    BlockingRegion outer;
    EXPECT_FALSE(t_holds);
    {
      BlockingRegion inner; // nothing held: a no-op
      EXPECT_FALSE(t_holds);
    }
    EXPECT_FALSE(t_holds);
  }
  EXPECT_TRUE(t_holds);
  EXPECT_EQ(g_releases - before, 1);
  give();
}

TEST(Blocking, WithoutHooksARegionDoesNothing) {
  take();
  {
    BlockingRegion region;
    EXPECT_TRUE(t_holds);
  }
  give();
}

TEST(Blocking, LockBlockingDoesNotGiveUpWhenTheMutexIsFree) {
  Hooks hooks;
  std::mutex m;
  take();
  int before = g_releases;
  {
    std::unique_lock<std::mutex> l = lock_blocking(m);
    EXPECT_TRUE(l.owns_lock());
    EXPECT_TRUE(t_holds);
  }
  EXPECT_EQ(g_releases, before);
  give();
}

// Thread A holds `ctx` and needs the interpreter lock (a trace calling Python); thread B holds
// the interpreter lock and waits for `ctx` (another jitted call compiling). With lock_blocking
// B gives the interpreter lock up while it waits, so both finish.
TEST(Blocking, WaitingThreadLetsTheHolderIn) {
  Hooks hooks;
  std::recursive_mutex ctx;
  std::atomic<bool> a_has_ctx{false};
  auto a = std::async(std::launch::async, [&] {
    std::lock_guard<std::recursive_mutex> l(ctx);
    a_has_ctx = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50)); // B is waiting by now
    take();
    give();
  });
  auto b = std::async(std::launch::async, [&] {
    take();
    while (!a_has_ctx)
      std::this_thread::yield();
    {
      std::unique_lock<std::recursive_mutex> l = lock_blocking(ctx);
      EXPECT_TRUE(t_holds); // taken back once the wait ended
    }
    give();
  });
  bool done = a.wait_for(std::chrono::seconds(20)) == std::future_status::ready &&
              b.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  if (!done) {
    ADD_FAILURE() << "deadlock: the waiting thread kept the interpreter lock";
    std::_Exit(1); // the threads cannot be joined
  }
}

} // namespace
