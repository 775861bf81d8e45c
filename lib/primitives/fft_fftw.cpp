// fft_run: lax.fft's transforms on FFTW, with plans cached per shape and FFTW's threads running
// on Strata's pool.
#include <fftw3.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "strata/error.h"
#include "strata/internal/blocking.h"
#include "strata/internal/fft.h"
#include "strata/internal/thread_pool.h"

namespace strata {
namespace {

// FFTW's float and double APIs behind one name, so the driver is written once.
template <class R> struct Fftw;
template <> struct Fftw<float> {
  using plan = fftwf_plan;
  using cpx = fftwf_complex;
  static void init_threads() { fftwf_init_threads(); }
  static void set_callback(void (*f)(void *(*)(char *), char *, size_t, int, void *)) {
    fftwf_threads_set_callback(f, nullptr);
  }
  static void with_nthreads(int n) { fftwf_plan_with_nthreads(n); }
  static void set_timelimit(double s) { fftwf_set_timelimit(s); }
  static void *malloc(size_t n) { return fftwf_malloc(n); }
  static void free(void *p) { fftwf_free(p); }
  static int alignment_of(const void *p) {
    return fftwf_alignment_of(const_cast<float *>(static_cast<const float *>(p)));
  }
  static plan c2c(int rank, const int *n, int howmany, cpx *in, cpx *out, int sign, unsigned f) {
    int dist = 1;
    for (int i = 0; i < rank; ++i)
      dist *= n[i];
    return fftwf_plan_many_dft(rank, n, howmany, in, nullptr, 1, dist, out, nullptr, 1, dist, sign,
                               f);
  }
  static plan r2c(int rank, const int *n, int howmany, float *in, int idist, cpx *out, int odist,
                  unsigned f) {
    return fftwf_plan_many_dft_r2c(rank, n, howmany, in, nullptr, 1, idist, out, nullptr, 1, odist,
                                   f);
  }
  static plan c2r(int rank, const int *n, int howmany, cpx *in, int idist, float *out, int odist,
                  unsigned f) {
    return fftwf_plan_many_dft_c2r(rank, n, howmany, in, nullptr, 1, idist, out, nullptr, 1, odist,
                                   f);
  }
  static void exec_c2c(plan p, void *in, void *out) {
    fftwf_execute_dft(p, static_cast<cpx *>(in), static_cast<cpx *>(out));
  }
  static void exec_r2c(plan p, void *in, void *out) {
    fftwf_execute_dft_r2c(p, static_cast<float *>(in), static_cast<cpx *>(out));
  }
  static void exec_c2r(plan p, void *in, void *out) {
    fftwf_execute_dft_c2r(p, static_cast<cpx *>(in), static_cast<float *>(out));
  }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
};
template <> struct Fftw<double> {
  using plan = fftw_plan;
  using cpx = fftw_complex;
  static void init_threads() { fftw_init_threads(); }
  static void set_callback(void (*f)(void *(*)(char *), char *, size_t, int, void *)) {
    fftw_threads_set_callback(f, nullptr);
  }
  static void with_nthreads(int n) { fftw_plan_with_nthreads(n); }
  static void set_timelimit(double s) { fftw_set_timelimit(s); }
  static void *malloc(size_t n) { return fftw_malloc(n); }
  static void free(void *p) { fftw_free(p); }
  static int alignment_of(const void *p) {
    return fftw_alignment_of(const_cast<double *>(static_cast<const double *>(p)));
  }
  static plan c2c(int rank, const int *n, int howmany, cpx *in, cpx *out, int sign, unsigned f) {
    int dist = 1;
    for (int i = 0; i < rank; ++i)
      dist *= n[i];
    return fftw_plan_many_dft(rank, n, howmany, in, nullptr, 1, dist, out, nullptr, 1, dist, sign,
                              f);
  }
  static plan r2c(int rank, const int *n, int howmany, double *in, int idist, cpx *out, int odist,
                  unsigned f) {
    return fftw_plan_many_dft_r2c(rank, n, howmany, in, nullptr, 1, idist, out, nullptr, 1, odist,
                                  f);
  }
  static plan c2r(int rank, const int *n, int howmany, cpx *in, int idist, double *out, int odist,
                  unsigned f) {
    return fftw_plan_many_dft_c2r(rank, n, howmany, in, nullptr, 1, idist, out, nullptr, 1, odist,
                                  f);
  }
  static void exec_c2c(plan p, void *in, void *out) {
    fftw_execute_dft(p, static_cast<cpx *>(in), static_cast<cpx *>(out));
  }
  static void exec_r2c(plan p, void *in, void *out) {
    fftw_execute_dft_r2c(p, static_cast<double *>(in), static_cast<cpx *>(out));
  }
  static void exec_c2r(plan p, void *in, void *out) {
    fftw_execute_dft_c2r(p, static_cast<cpx *>(in), static_cast<double *>(out));
  }
  static void destroy(plan p) { fftw_destroy_plan(p); }
};

// FFTW's threads hand their jobs to this loop, so an FFT shares Strata's pool (and its
// STRATA_NUM_THREADS) instead of starting threads of its own.
void pool_loop(void *(*work)(char *), char *jobdata, size_t elsize, int njobs, void *) {
  parallel_for(njobs, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      work(jobdata + elsize * static_cast<size_t>(i));
  });
}

// FFTW_MEASURE times candidate plans, which finds a 17x faster plan than FFTW_ESTIMATE for a
// 1024x1024 c64 transform (2.6 ms against 44 ms) but can plan for seconds (6.5 s for 2^20
// points): the planner stops at this limit and keeps the best plan found so far
// (docs/decisions.md, "FFT on FFTW").
constexpr double kPlanSeconds = 1.0;

// The planner is not thread-safe (execution is): one lock for planning and destroying plans.
std::mutex &planner_mutex() {
  static std::mutex m;
  return m;
}

template <class R> void init_once() {
  static std::once_flag flag;
  std::call_once(flag, [] {
    Fftw<R>::init_threads();
    Fftw<R>::set_callback(pool_loop);
  });
}

// Memory from fftw_malloc (SIMD-aligned), freed on scope exit.
template <class R> struct Scratch {
  void *p = nullptr;
  explicit Scratch(size_t bytes) : p(Fftw<R>::malloc(std::max<size_t>(bytes, 16))) {
    if (!p)
      fail("fft", "out of memory for a scratch buffer of ", bytes, " bytes");
  }
  ~Scratch() { Fftw<R>::free(p); }
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
};

// A cached plan; the deleter takes the planner lock, so evicting the cache while another thread
// still executes a plan it holds is safe.
template <class R> using PlanPtr = std::shared_ptr<std::remove_pointer_t<typename Fftw<R>::plan>>;
using PlanKey = std::tuple<int, std::vector<int>, int, bool>; // kind, lengths, batch, aligned

template <class R>
PlanPtr<R> make_plan(FftKind kind, const std::vector<int> &n, int batch, bool aligned) {
  init_once<R>();
  int rank = static_cast<int>(n.size());
  int64_t full = 1, half = 1; // elements of one real-side and one complex-side transform
  for (int i = 0; i < rank; ++i) {
    full *= n[i];
    half *= i + 1 == rank ? n[i] / 2 + 1 : n[i];
  }
  // FFTW_MEASURE overwrites its arrays while it plans: plan on scratch of the same alignment
  // (aligned), or offset by one element (unaligned plans, which then run on any pointer).
  bool complex_in = kind != FftKind::RFFT, complex_out = kind != FftKind::IRFFT;
  size_t in_bytes = static_cast<size_t>(batch) * (complex_in ? half * 2 : full) * sizeof(R);
  size_t out_bytes = static_cast<size_t>(batch) * (complex_out ? half * 2 : full) * sizeof(R);
  if (kind == FftKind::FFT || kind == FftKind::IFFT)
    in_bytes = out_bytes = static_cast<size_t>(batch) * full * 2 * sizeof(R);
  Scratch<R> in(in_bytes + 2 * sizeof(R)), out(out_bytes + 2 * sizeof(R));
  R *ip = static_cast<R *>(in.p) + (aligned ? 0 : 1);
  R *op = static_cast<R *>(out.p) + (aligned ? 0 : 1);
  unsigned flags = FFTW_MEASURE | (aligned ? 0u : FFTW_UNALIGNED);
  using C = typename Fftw<R>::cpx;
  // Planning can take up to kPlanSeconds: a Python caller waiting here lets its threads run.
  std::unique_lock<std::mutex> lock = lock_blocking(planner_mutex());
  Fftw<R>::with_nthreads(num_threads());
  Fftw<R>::set_timelimit(kPlanSeconds);
  typename Fftw<R>::plan p = nullptr;
  switch (kind) {
  case FftKind::FFT:
  case FftKind::IFFT:
    p = Fftw<R>::c2c(rank, n.data(), batch, reinterpret_cast<C *>(ip), reinterpret_cast<C *>(op),
                     kind == FftKind::FFT ? FFTW_FORWARD : FFTW_BACKWARD, flags);
    break;
  case FftKind::RFFT:
    p = Fftw<R>::r2c(rank, n.data(), batch, ip, static_cast<int>(full), reinterpret_cast<C *>(op),
                     static_cast<int>(half), flags);
    break;
  case FftKind::IRFFT:
    p = Fftw<R>::c2r(rank, n.data(), batch, reinterpret_cast<C *>(ip), static_cast<int>(half), op,
                     static_cast<int>(full), flags);
    break;
  }
  if (!p)
    fail("fft", "FFTW could not plan a transform of lengths of rank ", rank, " over ", batch,
         " batches");
  return PlanPtr<R>(p, [](typename Fftw<R>::plan q) {
    std::lock_guard<std::mutex> l(planner_mutex());
    Fftw<R>::destroy(q);
  });
}

// Plans by shape; bounded so that a program of many shapes does not keep every plan.
template <class R>
PlanPtr<R> cached_plan(FftKind kind, const std::vector<int> &n, int batch, bool aligned) {
  static std::mutex m;
  static std::map<PlanKey, PlanPtr<R>> cache;
  PlanKey key{static_cast<int>(kind), n, batch, aligned};
  {
    std::lock_guard<std::mutex> lock(m);
    auto it = cache.find(key);
    if (it != cache.end())
      return it->second;
  }
  PlanPtr<R> plan = make_plan<R>(kind, n, batch, aligned);
  std::lock_guard<std::mutex> lock(m);
  if (cache.size() >= 256)
    cache.clear();
  return cache.emplace(key, plan).first->second;
}

template <class R>
void run(FftKind kind, std::span<const int64_t> lengths, int64_t batch, const void *in, void *out) {
  int64_t full = 1, half = 1;
  std::vector<int> n;
  for (size_t i = 0; i < lengths.size(); ++i) {
    full *= lengths[i];
    half *= i + 1 == lengths.size() ? lengths[i] / 2 + 1 : lengths[i];
    n.push_back(static_cast<int>(lengths[i]));
  }
  int64_t out_elems = batch * (kind == FftKind::IRFFT ? full : kind == FftKind::RFFT ? half : full);
  size_t out_bytes = static_cast<size_t>(out_elems) * sizeof(R) * (kind == FftKind::IRFFT ? 1 : 2);
  if (out_elems == 0)
    return;
  if (full == 0) { // transforms of no points: every output is zero
    std::memset(out, 0, out_bytes);
    return;
  }
  if (batch * std::max(full, 2 * half) > INT32_MAX)
    fail("fft", "a batch of ", batch, " transforms of ", full,
         " points is too large for FFTW's 32-bit sizes");
  // c2r destroys its input (always, for rank > 1): it runs on a copy.
  std::unique_ptr<Scratch<R>> copy;
  void *src = const_cast<void *>(in);
  if (kind == FftKind::IRFFT) {
    size_t bytes = static_cast<size_t>(batch * half) * 2 * sizeof(R);
    copy = std::make_unique<Scratch<R>>(bytes);
    std::memcpy(copy->p, in, bytes);
    src = copy->p;
  }
  bool aligned = Fftw<R>::alignment_of(src) == 0 && Fftw<R>::alignment_of(out) == 0;
  PlanPtr<R> plan = cached_plan<R>(kind, n, static_cast<int>(batch), aligned);
  switch (kind) {
  case FftKind::FFT:
  case FftKind::IFFT:
    Fftw<R>::exec_c2c(plan.get(), src, out);
    break;
  case FftKind::RFFT:
    Fftw<R>::exec_r2c(plan.get(), src, out);
    break;
  case FftKind::IRFFT:
    Fftw<R>::exec_c2r(plan.get(), src, out);
    break;
  }
  if (kind == FftKind::IFFT || kind == FftKind::IRFFT) { // FFTW leaves inverses unscaled
    R scale = R(1) / static_cast<R>(full);
    R *o = static_cast<R *>(out);
    int64_t count = static_cast<int64_t>(out_bytes / sizeof(R));
    parallel_for(count, 1 << 16, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        o[i] *= scale;
    });
  }
}

} // namespace

void fft_run(FftKind kind, DType real, std::span<const int64_t> lengths, int64_t batch,
             const void *in, void *out) {
  if (real == DType::Float64)
    run<double>(kind, lengths, batch, in, out);
  else
    run<float>(kind, lengths, batch, in, out);
}

} // namespace strata
