// Loads OpenBLAS's LAPACK for the linear-algebra kernels and sets its threads per batch.
#include "strata/internal/lapack.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "strata/error.h"
#include "strata/internal/thread_pool.h"

#ifndef STRATA_LAPACK_PATH
#define STRATA_LAPACK_PATH "libopenblas.so.0"
#endif

namespace strata::internal {
namespace {

/// The sanitizer runtimes refuse RTLD_DEEPBIND (a deep-bound library would bypass their
/// interceptors), so an instrumented build loads without it: the same results, only OpenBLAS's
/// LAPACK may then call BLIS's gemm.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int kDeepBind = 0;
#else
constexpr int kDeepBind = RTLD_DEEPBIND;
#endif

/// The library handle and its thread-count setters, loaded once. RTLD_DEEPBIND makes the
/// library's own calls of dgemm_ and friends bind to its own kernels rather than to BLIS's
/// same-named BLAS entries, which libstrata loads first; without it OpenBLAS's LAPACK would run
/// on BLIS's multithreaded gemm beside its own thread pool. Where numpy already loaded the same
/// file, the process shares that one instance (one thread pool).
struct Library {
  void *handle = nullptr;
  void (*set_threads)(int) = nullptr;
  int (*get_threads)() = nullptr;
  Library() {
    handle = dlopen(STRATA_LAPACK_PATH, RTLD_NOW | RTLD_LOCAL | kDeepBind);
    if (!handle)
      throw Error(detail::cat("[linalg] cannot load LAPACK (", STRATA_LAPACK_PATH, "): ", dlerror(),
                              "; scripts/install-deps installs it"));
    set_threads = reinterpret_cast<void (*)(int)>(dlsym(handle, "openblas_set_num_threads"));
    get_threads = reinterpret_cast<int (*)()>(dlsym(handle, "openblas_get_num_threads"));
  }
  void *symbol(const char *name) const {
    void *s = dlsym(handle, name);
    if (!s)
      throw Error(detail::cat("[linalg] LAPACK (", STRATA_LAPACK_PATH, ") has no ", name));
    return s;
  }
};

const Library &library() {
  static const Library lib;
  return lib;
}

template <class F> void bind_symbol(F &f, const char *name) {
  f = reinterpret_cast<F>(library().symbol(name));
}

/// Factorizations below this many flops run single-threaded, several at once on the pool: the
/// library's threads only pay off on larger ones (measured: 64 eigh of 32x32 took 3x longer
/// with OpenBLAS's threads than spread over the pool; docs/decisions.md).
constexpr double kThreadedFlops = 4e6;

std::mutex &thread_setting() {
  static std::mutex m;
  return m;
}

/// The routines of one precision, named with LAPACK's prefix ('d' or 's').
template <class T> LapackFns<T> bind_all(char prefix) {
  auto name = [prefix](const char *routine) { return std::string(1, prefix) + routine; };
  LapackFns<T> f;
  bind_symbol(f.potrf, name("potrf_").c_str());
  bind_symbol(f.getrf, name("getrf_").c_str());
  bind_symbol(f.geqrf, name("geqrf_").c_str());
  bind_symbol(f.orgqr, name("orgqr_").c_str());
  bind_symbol(f.syevd, name("syevd_").c_str());
  bind_symbol(f.gesdd, name("gesdd_").c_str());
  bind_symbol(f.trsm, name("trsm_").c_str());
  bind_symbol(f.geev, name("geev_").c_str());
  bind_symbol(f.gees, name("gees_").c_str());
  bind_symbol(f.gehrd, name("gehrd_").c_str());
  return f;
}

/// The complex routines of one precision, named with LAPACK's prefix ('z' or 'c').
template <class C> LapackComplexFns<C> bind_complex(char prefix) {
  auto name = [prefix](const char *routine) { return std::string(1, prefix) + routine; };
  LapackComplexFns<C> f;
  bind_symbol(f.potrf, name("potrf_").c_str());
  bind_symbol(f.getrf, name("getrf_").c_str());
  bind_symbol(f.geqrf, name("geqrf_").c_str());
  bind_symbol(f.heevd, name("heevd_").c_str());
  bind_symbol(f.trsm, name("trsm_").c_str());
  bind_symbol(f.geev, name("geev_").c_str());
  bind_symbol(f.gees, name("gees_").c_str());
  bind_symbol(f.gehrd, name("gehrd_").c_str());
  bind_symbol(f.ungqr, name("ungqr_").c_str());
  bind_symbol(f.gesdd, name("gesdd_").c_str());
  return f;
}

} // namespace

template <> const LapackFns<double> &lapack<double>() {
  static const LapackFns<double> fns = bind_all<double>('d');
  return fns;
}

template <> const LapackFns<float> &lapack<float>() {
  static const LapackFns<float> fns = bind_all<float>('s');
  return fns;
}

template <> const LapackComplexFns<std::complex<double>> &lapack_complex<std::complex<double>>() {
  static const LapackComplexFns<std::complex<double>> fns = bind_complex<std::complex<double>>('z');
  return fns;
}

template <> const LapackComplexFns<std::complex<float>> &lapack_complex<std::complex<float>>() {
  static const LapackComplexFns<std::complex<float>> fns = bind_complex<std::complex<float>>('c');
  return fns;
}

void run_lapack_batch(int64_t n, double flops, const std::function<void(int64_t, int64_t)> &fn) {
  if (n <= 0)
    return;
  const Library &lib = library();
  std::lock_guard<std::mutex> lock(thread_setting());
  int before = lib.get_threads ? lib.get_threads() : 1;
  bool threaded = flops >= kThreadedFlops || n == 1;
  if (lib.set_threads)
    lib.set_threads(threaded ? num_threads() : 1);
  try {
    if (threaded)
      fn(0, n);
    else
      parallel_for(n, 1, fn);
  } catch (...) {
    if (lib.set_threads)
      lib.set_threads(before);
    throw;
  }
  if (lib.set_threads)
    lib.set_threads(before);
}

} // namespace strata::internal
