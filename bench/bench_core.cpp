// Foundation benchmarks: eager dispatch, elementwise bandwidth against memcpy, dot_general
// against the same BLAS called directly. Prints one JSON record per line.
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "strata/strata.h"

extern "C" {
void bli_thread_set_num_threads(long n);
void cblas_sgemm(int order, int transa, int transb, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);
}

using namespace strata;
using namespace strata::bench;

namespace {

void bench_dispatch() {
  Array a = ones({8}), b = ones({8});
  double t = time_per_call([&] { Array c = lax::add(a, b); }, 20000);
  double t_np = time_per_call([&] { Array c = a + b; }, 20000);
  // Peer: the raw kernel work (an 8-float add into fresh memory) -- what dispatch costs on top.
  std::vector<float> x(8, 1.f), y(8, 1.f);
  double t_raw = time_per_call(
      [&] {
        float *z = new float[8];
        for (int i = 0; i < 8; ++i)
          z[i] = x[i] + y[i];
        asm volatile("" : : "r"(z) : "memory");
        delete[] z;
      },
      20000);
  const std::string peer = "raw C++ alloc + 8-float add loop (same run)";
  record("eager_dispatch_add_f32x8_lax", "us", t * 1e6, peer, t_raw * 1e6, "lower",
         "\"target\": 2.0");
  record("eager_dispatch_add_f32x8_operator", "us", t_np * 1e6, peer, t_raw * 1e6, "lower",
         "\"target\": 2.0");
}

void bench_elementwise() {
  const int64_t n = 10'000'000;
  Array a = full({n}, 1.5f), b = full({n}, 2.5f);
  double t = time_per_call([&] { Array c = lax::add(a, b); }, 3);
  double bw = 3.0 * n * 4 / t / 1e9; // read a, read b, write c
  std::vector<char> src(n * 4, 1), dst(n * 4, 0);
  double tm = memcpy_seconds(dst.data(), src.data(), n * 4, std::thread::hardware_concurrency());
  double bw_copy = 2.0 * n * 4 / tm / 1e9; // read + write
  record("elementwise_add_1e7_f32", "GB/s", bw, "memcpy bandwidth (same run)", bw_copy, "higher",
         "\"target\": 0.7");
}

void bench_dot() {
  const int n = 1024;
  Array a = random::normal(random::key(0), {n, n}), b = random::normal(random::key(1), {n, n});
  lax::DotDimensionNumbers dims{{1}, {0}, {}, {}};
  double t = time_per_call([&] { Array c = lax::dot_general(a, b, dims); }, 3);
  std::vector<float> c(n * n);
  // The peer gets the threads Strata's own products use (all cores unless STRATA_NUM_THREADS).
  const char *env = std::getenv("STRATA_NUM_THREADS");
  bli_thread_set_num_threads(env ? std::atol(env) : std::thread::hardware_concurrency());
  const float *pa = a.data<float>(), *pb = b.data<float>();
  double tb = time_per_call(
      [&] {
        cblas_sgemm(101 /*row major*/, 111, 111, n, n, n, 1.f, pa, n, pb, n, 0.f, c.data(), n);
      },
      3);
  double flop = 2.0 * n * n * n;
  record("dot_general_1024_f32", "GFLOP/s", flop / t / 1e9, "BLIS cblas_sgemm direct",
         flop / tb / 1e9, "higher", "\"target\": 0.9");
}

} // namespace

int main(int argc, char **argv) {
  std::string filter = argc > 1 ? argv[1] : "";
  if (selected("eager_dispatch", filter))
    bench_dispatch();
  if (selected("elementwise_add", filter))
    bench_elementwise();
  if (selected("dot_general", filter))
    bench_dot();
}
