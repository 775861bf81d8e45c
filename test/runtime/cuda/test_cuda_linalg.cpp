// The CUDA runtime's linear-algebra calls (strata_rt_cuda_<op>): bad dtypes and a missing device
// are recorded errors, never crashes; cuSOLVER resolves without a GPU; on a GPU, results on
// device buffers against hand-computed factorizations (numpy/scipy give the same) and against
// the host LAPACK kernels (eager's) for every op, dtype and several shapes.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <gtest/gtest.h>
#include <iostream>
#include <vector>

#include "cuda_test_util.h"
#include "runtime/cuda/CudaRuntime.h"
#include "runtime/cuda/LibraryApi.h"
#include "runtime/cuda/Linalg.h"
#include "strata/dtype.h"
#include "strata/error.h"
#include "strata/internal/linalg_kernels.h"

using namespace strata;
using namespace strata::cuda;
using cudatest::pending_message;

namespace {

/// A fake device address: the dtype check runs before any device access.
constexpr int64_t kAddr = 0x7f0000000000;
constexpr int64_t kF64 = static_cast<int64_t>(DType::Float64);

/// The pending C ABI error's message (cleared), or "" when there is none.
int64_t addr(void *p) { return static_cast<int64_t>(reinterpret_cast<intptr_t>(p)); }

} // namespace

TEST(CudaLinalg, NonFloatDtypesAreRecordedErrorsNamingTheOp) {
  clear_pending_error();
  strata_rt_cuda_cholesky(static_cast<int64_t>(DType::Int32), 1, 2, kAddr, kAddr, 1);
  std::string msg = pending_message();
  EXPECT_NE(msg.find("[cholesky] the CUDA runtime takes float32 or float64 matrices, not int32"),
            std::string::npos)
      << msg;
  strata_rt_cuda_svd(99, 1, 2, 2, kAddr, kAddr, 0, 0, 0);
  msg = pending_message();
  EXPECT_NE(msg.find("[svd] the CUDA runtime takes float32 or float64 matrices, not code 99"),
            std::string::npos)
      << msg;
}

TEST(CudaLinalg, APendingErrorSkipsLaterCalls) {
  clear_pending_error();
  strata_rt_cuda_qr(static_cast<int64_t>(DType::Int8), 1, 2, 2, kAddr, kAddr, kAddr, 1);
  strata_rt_cuda_eigh(static_cast<int64_t>(DType::Bool), 1, 2, kAddr, kAddr, kAddr, 1);
  std::string msg = pending_message();
  EXPECT_NE(msg.find("[qr]"), std::string::npos) << msg; // the first failure is kept
  EXPECT_EQ(pending_message(), "");
}

TEST(CudaLinalg, WithoutADeviceTheCallRecordsTheDriversReason) {
  if (device_count() > 0)
    GTEST_SKIP() << "a CUDA device is present; the no-device behaviour cannot be observed";
  clear_pending_error();
  strata_rt_cuda_lu(kF64, 1, 2, 2, kAddr, kAddr, kAddr, kAddr);
  std::string msg = pending_message();
  EXPECT_NE(msg.find("cuda"), std::string::npos) << msg;
}

TEST(CudaLinalg, FactorizesDeviceBuffers) {
  if (device_count() == 0)
    GTEST_SKIP() << "no GPU: " << unavailable_reason();
  set_current_device(0);
  clear_pending_error();
  auto put = [](const std::vector<double> &h) {
    void *p = allocate(0, h.size() * sizeof(double));
    copy_to_device(0, p, h.data(), h.size() * sizeof(double));
    return p;
  };
  auto get = [](void *p, size_t n) {
    std::vector<double> h(n);
    copy_to_host(0, h.data(), p, n * sizeof(double));
    return h;
  };
  // cholesky([[4, 2], [2, 3]]) = [[2, 0], [1, sqrt(2)]].
  void *a = put({4, 2, 2, 3});
  void *l = allocate(0, 4 * sizeof(double));
  strata_rt_cuda_cholesky(kF64, 1, 2, addr(a), addr(l), 1);
  ASSERT_EQ(pending_message(), "");
  std::vector<double> got = get(l, 4);
  EXPECT_DOUBLE_EQ(got[0], 2);
  EXPECT_DOUBLE_EQ(got[1], 0);
  EXPECT_DOUBLE_EQ(got[2], 1);
  EXPECT_NEAR(got[3], std::sqrt(2.0), 1e-15);
  // lu([[1, 2], [3, 4]]): rows swapped, lu = [[3, 4], [1/3, 2/3]], pivots [1, 1], perm [1, 0].
  void *b = put({1, 2, 3, 4});
  void *lu = allocate(0, 4 * sizeof(double));
  void *ints = allocate(0, 4 * sizeof(int32_t));
  strata_rt_cuda_lu(kF64, 1, 2, 2, addr(b), addr(lu), addr(ints),
                    addr(static_cast<int32_t *>(ints) + 2));
  ASSERT_EQ(pending_message(), "");
  got = get(lu, 4);
  EXPECT_DOUBLE_EQ(got[0], 3);
  EXPECT_DOUBLE_EQ(got[1], 4);
  EXPECT_NEAR(got[2], 1.0 / 3, 1e-15);
  EXPECT_NEAR(got[3], 2.0 / 3, 1e-15);
  std::vector<int32_t> piv(4);
  copy_to_host(0, piv.data(), ints, sizeof(int32_t) * 4);
  EXPECT_EQ(piv, (std::vector<int32_t>{1, 1, 1, 0}));
  for (void *p : {a, l, b, lu, ints})
    deallocate(0, p);
}

// ---- cuSOLVER against the host LAPACK kernels ---------------------------------------------------

namespace {

/// Uniform values in [-1, 1) as doubles, for `count` elements.
std::vector<double> uniform(size_t count, uint32_t seed) {
  std::vector<double> v(count);
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (double &d : v) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    d = static_cast<double>(x >> 11) / static_cast<double>(1ull << 53) * 2 - 1;
  }
  return v;
}

/// A host buffer of `count` values of dtype dt (f32 or f64) from doubles, and back.
std::vector<char> as_bytes(const std::vector<double> &v, DType dt) {
  std::vector<char> b(v.size() * itemsize(dt));
  for (size_t i = 0; i < v.size(); ++i) {
    if (dt == DType::Float64)
      std::memcpy(b.data() + 8 * i, &v[i], 8);
    else {
      float f = static_cast<float>(v[i]);
      std::memcpy(b.data() + 4 * i, &f, 4);
    }
  }
  return b;
}
std::vector<double> as_doubles(const std::vector<char> &b, DType dt) {
  std::vector<double> v(b.size() / itemsize(dt));
  for (size_t i = 0; i < v.size(); ++i) {
    if (dt == DType::Float64)
      std::memcpy(&v[i], b.data() + 8 * i, 8);
    else {
      float f;
      std::memcpy(&f, b.data() + 4 * i, 4);
      v[i] = f;
    }
  }
  return v;
}

/// A device copy of host bytes (freed by the caller).
void *upload(const std::vector<char> &b) {
  void *p = allocate(0, std::max<size_t>(b.size(), 1));
  if (!b.empty())
    copy_to_device(0, p, b.data(), b.size());
  return p;
}
std::vector<char> download(void *p, size_t nbytes) {
  std::vector<char> b(nbytes);
  if (nbytes)
    copy_to_host(0, b.data(), p, nbytes);
  return b;
}

/// Largest |a - b| (NaNs must be at the same places).
double max_diff(const std::vector<double> &a, const std::vector<double> &b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      if (std::isnan(a[i]) != std::isnan(b[i]))
        return INFINITY;
      continue;
    }
    d = std::max(d, std::abs(a[i] - b[i]));
  }
  return d;
}

/// Flips the sign of every column j (of `cols`, row-major rows x cols, batch) so that its
/// largest-magnitude entry is positive; `rows_too` (rows x n) gets row j flipped alike.
void normalize_columns(std::vector<double> &m, int64_t batch, int64_t rows, int64_t cols,
                       std::vector<double> *rows_too = nullptr, int64_t n = 0) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t j = 0; j < cols; ++j) {
      double big = 0;
      for (int64_t i = 0; i < rows; ++i) {
        double v = m[b * rows * cols + i * cols + j];
        if (std::abs(v) > std::abs(big))
          big = v;
      }
      if (big >= 0)
        continue;
      for (int64_t i = 0; i < rows; ++i)
        m[b * rows * cols + i * cols + j] *= -1;
      if (rows_too && j < static_cast<int64_t>(rows_too->size() / batch / n))
        for (int64_t c = 0; c < n; ++c)
          (*rows_too)[(b * (rows_too->size() / batch / n) + j) * n + c] *= -1;
    }
}

double tolerance(DType dt) { return dt == DType::Float64 ? 1e-10 : 2e-4; }

struct Dims {
  int64_t batch, m, n;
};
const std::vector<Dims> kDims = {{1, 1, 1}, {2, 3, 3}, {3, 5, 2}, {2, 2, 5}, {1, 17, 17}};

} // namespace

TEST(CudaLinalg, TheBackendIsCusolverWhereTheLibraryLoads) {
  std::string why;
  if (!api::solver())
    GTEST_SKIP() << "cuSOLVER is not installed: " << api::solver_error();
  std::string backend = linalg_backend();
  const char *env = std::getenv("STRATA_CUDA_LINALG");
  if (env && std::string(env) == "host")
    EXPECT_EQ(backend, "host (STRATA_CUDA_LINALG=host)");
  else
    EXPECT_EQ(backend, "cusolver");
  int version = 0;
  EXPECT_EQ(api::solver()->cusolverGetVersion(&version), api::CUSOLVER_STATUS_SUCCESS);
  EXPECT_GE(version, 11000);
  EXPECT_NE(api::blas_helpers(), nullptr) << api::blas_helpers_error();
}

TEST(CudaLinalg, CusolverMatchesTheHostKernels) {
  if (device_count() == 0)
    GTEST_SKIP() << "no GPU: " << unavailable_reason();
  set_current_device(0);
  clear_pending_error();
  std::cout << "backend: " << linalg_backend() << "\n";
  uint32_t seed = 1;
  for (DType dt : {DType::Float32, DType::Float64})
    for (const Dims &d : kDims) {
      int64_t code = static_cast<int64_t>(dt);
      size_t size = itemsize(dt);
      std::string what = std::string(dtype_name(dt)) + " " + std::to_string(d.batch) + "x" +
                         std::to_string(d.m) + "x" + std::to_string(d.n);
      int64_t m = d.m, n = d.n, k = std::min(m, n), batch = d.batch;
      std::vector<double> a = uniform(batch * m * n, seed++);
      std::vector<char> ab = as_bytes(a, dt);
      void *da = upload(ab);
      // Square: cholesky of a a^T + n I, eigh of a + a^T, triangular_solve against a.
      if (m == n) {
        std::vector<double> spd(batch * n * n), sym(batch * n * n);
        for (int64_t b = 0; b < batch; ++b)
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) {
              double s = i == j ? n : 0;
              for (int64_t c = 0; c < n; ++c)
                s += a[b * n * n + i * n + c] * a[b * n * n + j * n + c];
              spd[b * n * n + i * n + j] = s;
              sym[b * n * n + i * n + j] = a[b * n * n + i * n + j] + a[b * n * n + j * n + i] +
                                           (i == j ? 3.0 * i : 0); // separated eigenvalues
            }
        for (bool symmetrize : {false, true}) {
          std::vector<char> sb = as_bytes(spd, dt), want(sb.size());
          linalg_cholesky(dt, batch, n, sb.data(), want.data(), symmetrize);
          void *ds = upload(sb), *dl = allocate(0, sb.size());
          strata_rt_cuda_cholesky(code, batch, n, addr(ds), addr(dl), symmetrize);
          ASSERT_EQ(pending_message(), "") << what;
          EXPECT_LT(max_diff(as_doubles(download(dl, sb.size()), dt), as_doubles(want, dt)),
                    tolerance(dt) * n)
              << "cholesky " << what;
          deallocate(0, ds);
          deallocate(0, dl);
        }
        for (bool lower : {false, true}) {
          std::vector<char> sb = as_bytes(sym, dt), wv(sb.size()), ww(batch * n * size);
          linalg_eigh(dt, batch, n, sb.data(), wv.data(), ww.data(), lower);
          void *ds = upload(sb), *dv = allocate(0, sb.size()), *dw = allocate(0, ww.size());
          strata_rt_cuda_eigh(code, batch, n, addr(ds), addr(dv), addr(dw), lower);
          ASSERT_EQ(pending_message(), "") << what;
          std::vector<double> gv = as_doubles(download(dv, sb.size()), dt), hv = as_doubles(wv, dt);
          normalize_columns(gv, batch, n, n);
          normalize_columns(hv, batch, n, n);
          EXPECT_LT(max_diff(as_doubles(download(dw, ww.size()), dt), as_doubles(ww, dt)),
                    tolerance(dt) * 10 * n)
              << "eigh values " << what;
          EXPECT_LT(max_diff(gv, hv), tolerance(dt) * 10 * n) << "eigh vectors " << what;
          for (void *p : {ds, dv, dw})
            deallocate(0, p);
        }
        // A well-conditioned triangle: spd's Cholesky factor; both sides, all flags.
        std::vector<char> sb = as_bytes(spd, dt), lf(sb.size());
        linalg_cholesky(dt, batch, n, sb.data(), lf.data(), false);
        std::vector<double> l = as_doubles(lf, dt);
        for (int64_t b = 0; b < batch; ++b) // the upper triangle too, for lower=false
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = i + 1; j < n; ++j)
              l[b * n * n + i * n + j] = l[b * n * n + j * n + i];
        std::vector<char> lb = as_bytes(l, dt);
        void *dlf = upload(lb);
        for (int64_t flags = 0; flags < 16; ++flags) {
          int64_t rows = (flags & 1) ? n : 3, cols = (flags & 1) ? 3 : n;
          std::vector<char> bb = as_bytes(uniform(batch * rows * cols, seed++), dt),
                            want(bb.size());
          linalg_triangular_solve(dt, batch, rows, cols, lb.data(), bb.data(), want.data(),
                                  flags & 1, flags & 2, flags & 4, flags & 8);
          void *db = upload(bb), *dx = allocate(0, bb.size());
          strata_rt_cuda_triangular_solve(code, batch, rows, cols, addr(dlf), addr(db), addr(dx),
                                          flags);
          ASSERT_EQ(pending_message(), "") << what;
          EXPECT_LT(max_diff(as_doubles(download(dx, bb.size()), dt), as_doubles(want, dt)),
                    tolerance(dt) * 100 * n)
              << "triangular_solve flags " << flags << " " << what;
          deallocate(0, db);
          deallocate(0, dx);
        }
        deallocate(0, dlf);
      }
      { // lu
        std::vector<char> wlu(ab.size());
        std::vector<int32_t> wp(batch * k), wperm(batch * m);
        linalg_lu(dt, batch, m, n, ab.data(), wlu.data(), wp.data(), wperm.data());
        void *dlu = allocate(0, ab.size()), *dp = allocate(0, 4 * (batch * k + 1)),
             *dperm = allocate(0, 4 * batch * m);
        strata_rt_cuda_lu(code, batch, m, n, addr(da), addr(dlu), addr(dp), addr(dperm));
        ASSERT_EQ(pending_message(), "") << what;
        std::vector<int32_t> gp(batch * k), gperm(batch * m);
        copy_to_host(0, gp.data(), dp, 4 * gp.size());
        copy_to_host(0, gperm.data(), dperm, 4 * gperm.size());
        EXPECT_EQ(gp, wp) << "lu pivots " << what;
        EXPECT_EQ(gperm, wperm) << "lu permutation " << what;
        EXPECT_LT(max_diff(as_doubles(download(dlu, ab.size()), dt), as_doubles(wlu, dt)),
                  tolerance(dt) * 10 * n)
            << "lu " << what;
        for (void *p : {dlu, dp, dperm})
          deallocate(0, p);
      }
      for (bool full : {false, true}) { // qr: q's columns and r's rows up to sign
        int64_t qc = full ? m : k, rr = full ? m : k;
        std::vector<char> wq(batch * m * qc * size), wr(batch * rr * n * size);
        linalg_qr(dt, batch, m, n, ab.data(), wq.data(), wr.data(), full);
        void *dq = allocate(0, wq.size()), *dr = allocate(0, wr.size());
        strata_rt_cuda_qr(code, batch, m, n, addr(da), addr(dq), addr(dr), full);
        ASSERT_EQ(pending_message(), "") << what;
        std::vector<double> gq = as_doubles(download(dq, wq.size()), dt), hq = as_doubles(wq, dt),
                            gr = as_doubles(download(dr, wr.size()), dt), hr = as_doubles(wr, dt);
        normalize_columns(gq, batch, m, qc, &gr, n);
        normalize_columns(hq, batch, m, qc, &hr, n);
        if (!full || m <= n) // the extra columns of a full q are any orthonormal completion
          EXPECT_LT(max_diff(gq, hq), tolerance(dt) * 10 * n) << "qr q " << what;
        EXPECT_LT(max_diff(gr, hr), tolerance(dt) * 10 * n) << "qr r " << what;
        deallocate(0, dq);
        deallocate(0, dr);
      }
      for (int mode = 0; mode < 3; ++mode) { // svd: values; vectors up to sign
        bool uv = mode > 0, full = mode == 2;
        int64_t uc = full ? m : k, vr = full ? n : k;
        std::vector<char> ws(batch * k * size), wu(uv ? batch * m * uc * size : 0),
            wvt(uv ? batch * vr * n * size : 0);
        linalg_svd(dt, batch, m, n, ab.data(), ws.data(), uv ? wu.data() : nullptr,
                   uv ? wvt.data() : nullptr, full);
        void *ds = allocate(0, ws.size()), *du = uv ? allocate(0, wu.size()) : nullptr,
             *dvt = uv ? allocate(0, wvt.size()) : nullptr;
        strata_rt_cuda_svd(code, batch, m, n, addr(da), addr(ds), uv ? addr(du) : 0,
                           uv ? addr(dvt) : 0, full);
        ASSERT_EQ(pending_message(), "") << what;
        EXPECT_LT(max_diff(as_doubles(download(ds, ws.size()), dt), as_doubles(ws, dt)),
                  tolerance(dt) * 10 * n)
            << "svd values " << what;
        if (uv && !full) {
          std::vector<double> gu = as_doubles(download(du, wu.size()), dt), hu = as_doubles(wu, dt),
                              gv = as_doubles(download(dvt, wvt.size()), dt),
                              hv = as_doubles(wvt, dt);
          normalize_columns(gu, batch, m, uc, &gv, n);
          normalize_columns(hu, batch, m, uc, &hv, n);
          EXPECT_LT(max_diff(gu, hu), tolerance(dt) * 100 * n) << "svd u " << what;
          EXPECT_LT(max_diff(gv, hv), tolerance(dt) * 100 * n) << "svd vt " << what;
        }
        for (void *p : {ds, du, dvt})
          if (p)
            deallocate(0, p);
      }
      deallocate(0, da);
    }
}

TEST(CudaLinalg, FailedFactorizationsAreNaNsAsOnTheHost) {
  if (device_count() == 0)
    GTEST_SKIP() << "no GPU: " << unavailable_reason();
  set_current_device(0);
  clear_pending_error();
  // Batch of two: positive definite, then indefinite ([[1, 2], [2, 1]]).
  void *a = allocate(0, 8 * sizeof(double)), *l = allocate(0, 8 * sizeof(double));
  std::vector<double> h = {4, 2, 2, 3, 1, 2, 2, 1};
  copy_to_device(0, a, h.data(), h.size() * sizeof(double));
  strata_rt_cuda_cholesky(kF64, 2, 2, addr(a), addr(l), 1);
  ASSERT_EQ(pending_message(), "");
  std::vector<double> got(8);
  copy_to_host(0, got.data(), l, got.size() * sizeof(double));
  EXPECT_DOUBLE_EQ(got[0], 2);
  EXPECT_EQ(got[1], 0);
  for (int i = 4; i < 8; ++i)
    EXPECT_TRUE(std::isnan(got[i])) << i << ": " << got[i];
  deallocate(0, a);
  deallocate(0, l);
}
