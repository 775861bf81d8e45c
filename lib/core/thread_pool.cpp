// The fork-join pool behind parallel_for.
#include "strata/internal/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace strata {
namespace {

thread_local bool t_in_pool = false;

class Pool {
public:
  explicit Pool(int n) : n_(n) {
    for (int i = 1; i < n_; ++i)
      workers_.emplace_back([this, i] { loop(i); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto &w : workers_)
      w.join();
  }
  int size() const { return n_; }

  // Runs fn(chunk) for chunk in [0, chunks) with chunks <= size().
  bool try_run(int chunks, const std::function<void(int)> &fn) {
    std::unique_lock<std::mutex> busy(run_mu_, std::try_to_lock);
    if (!busy.owns_lock())
      return false;
    std::exception_ptr err;
    {
      std::lock_guard<std::mutex> l(mu_);
      job_ = &fn;
      chunks_ = chunks;
      pending_ = chunks - 1;
      error_ = nullptr;
      ++generation_;
    }
    cv_.notify_all();
    t_in_pool = true;
    try {
      fn(0);
    } catch (...) {
      err = std::current_exception();
    }
    t_in_pool = false;
    std::unique_lock<std::mutex> l(mu_);
    done_cv_.wait(l, [&] { return pending_ == 0; });
    job_ = nullptr;
    if (!err)
      err = error_;
    l.unlock();
    if (err)
      std::rethrow_exception(err);
    return true;
  }

private:
  void loop(int id) {
    t_in_pool = true;
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(int)> *job;
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return stop_ || generation_ != seen; });
        if (stop_)
          return;
        seen = generation_;
        if (id >= chunks_)
          continue;
        job = job_;
      }
      std::exception_ptr err;
      try {
        (*job)(id);
      } catch (...) {
        err = std::current_exception();
      }
      std::lock_guard<std::mutex> l(mu_);
      if (err && !error_)
        error_ = err;
      // This thread's reference goes under the lock: the caller may by now be done with the
      // exception, and the reference count lives in uninstrumented libstdc++, so only the mutex
      // orders this release after the caller's reads for ThreadSanitizer.
      err = nullptr;
      if (--pending_ == 0)
        done_cv_.notify_one();
    }
  }

  int n_;
  std::vector<std::thread> workers_;
  std::mutex mu_, run_mu_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(int)> *job_ = nullptr;
  int chunks_ = 0, pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

int configured_threads() {
  if (const char *env = std::getenv("STRATA_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0)
      return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

Pool &pool() {
  static Pool p(configured_threads());
  return p;
}

} // namespace

int num_threads() { return pool().size(); }

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)> &fn) {
  if (n <= 0)
    return;
  grain = std::max<int64_t>(grain, 1);
  int chunks = static_cast<int>(std::min<int64_t>(num_threads(), n / grain));
  if (chunks <= 1 || t_in_pool) {
    fn(0, n);
    return;
  }
  auto body = [&](int c) {
    int64_t b = n * c / chunks, e = n * (c + 1) / chunks;
    if (b < e)
      fn(b, e);
  };
  if (!pool().try_run(chunks, body))
    fn(0, n);
}

} // namespace strata
