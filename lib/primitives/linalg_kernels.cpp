// The batched LAPACK kernels of the linear-algebra primitives: row-major matrices in,
// column-major LAPACK calls on per-matrix copies, row-major results out.
#include "strata/internal/linalg_kernels.h"

#include <algorithm>
#include <complex>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "strata/error.h"
#include "strata/internal/lapack.h"

namespace strata {
namespace {

using internal::lapack;
using internal::lapack_complex;
using internal::run_lapack_batch;

using internal::is_cplx;
using internal::with_workspace;
/// The LAPACK table of T's precision and kind (real: d/s routines; complex: z/c).
template <class T> const auto &fns() {
  if constexpr (is_cplx<T>::value)
    return lapack_complex<T>();
  else
    return lapack<T>();
}
/// conj for complex T, the identity for real T.
template <class T> T conj_of(T x) {
  if constexpr (is_cplx<T>::value)
    return std::conj(x);
  else
    return x;
}

int as_int(int64_t v) {
  if (v > std::numeric_limits<int>::max())
    fail("linalg", "dimension ", v, " exceeds LAPACK's 32-bit sizes");
  return static_cast<int>(v);
}

/// dst[i * dst_ld + j] = src[j * src_ld + i] for i < rows, j < cols: a transpose in tiles, so
/// that both sides stay in cache (a plain loop strides through one of them: measured 4.1 ms
/// for lu of 512x512 against 2.5 for scipy's).
template <class T>
void transpose_tiles(const T *src, int64_t src_ld, T *dst, int64_t dst_ld, int64_t rows,
                     int64_t cols) {
  constexpr int64_t kTile = 32;
  for (int64_t i0 = 0; i0 < rows; i0 += kTile)
    for (int64_t j0 = 0; j0 < cols; j0 += kTile)
      for (int64_t i = i0; i < std::min(rows, i0 + kTile); ++i)
        for (int64_t j = j0; j < std::min(cols, j0 + kTile); ++j)
          dst[i * dst_ld + j] = src[j * src_ld + i];
}
/// Row-major m x n src => column-major dst (leading dimension m), i.e. dst = src^T's layout.
template <class T> void to_col_major(const T *src, T *dst, int64_t m, int64_t n) {
  transpose_tiles(src, n, dst, m, n, m);
}
/// Column-major m x n src (leading dimension ld) => row-major dst.
template <class T> void from_col_major(const T *src, int64_t ld, T *dst, int64_t m, int64_t n) {
  transpose_tiles(src, ld, dst, n, m, n);
}
template <class T> void fill_nan(T *p, int64_t n) {
  if constexpr (is_cplx<T>::value)
    std::fill(p, p + n, T(std::numeric_limits<typename T::value_type>::quiet_NaN()));
  else
    std::fill(p, p + n, std::numeric_limits<T>::quiet_NaN());
}
template <class T> void identity(T *p, int64_t m, int64_t n) {
  std::fill(p, p + m * n, T(0));
  for (int64_t i = 0; i < std::min(m, n); ++i)
    p[i * n + i] = T(1);
}

/// Calls f<T>() for dtype's T (complex ones too where Complex).
template <bool Complex = false, class F> void dispatch(DType dtype, const char *op, F &&f) {
  if (dtype == DType::Float64)
    f(double{});
  else if (dtype == DType::Float32)
    f(float{});
  else if constexpr (Complex) {
    if (dtype == DType::Complex128)
      f(std::complex<double>{});
    else if (dtype == DType::Complex64)
      f(std::complex<float>{});
    else
      fail(op, "expects float32, float64, complex64 or complex128, got ", dtype_name(dtype));
  } else {
    fail(op, "expects float32 or float64, got ", dtype_name(dtype));
  }
}

double cube(int64_t a, int64_t b, int64_t c) {
  return static_cast<double>(a) * static_cast<double>(b) * static_cast<double>(c);
}

} // namespace

void linalg_cholesky(DType dtype, int64_t batch, int64_t n, const void *a, void *l,
                     bool symmetrize_input) {
  dispatch<true>(dtype, "cholesky", [&](auto t) {
    using T = decltype(t);
    const T *src = static_cast<const T *>(a);
    T *dst = static_cast<T *>(l);
    int N = as_int(n), ld = std::max(N, 1);
    run_lapack_batch(batch, cube(n, n, n) / 3, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        T *x = dst + b * n * n;
        const T *y = src + b * n * n;
        if (symmetrize_input) // only the lower triangle is read: its entries of (a + a^T) / 2
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j <= i; ++j)
              x[i * n + j] = (y[i * n + j] + conj_of(y[j * n + i])) / T(2);
        else
          std::memcpy(x, y, sizeof(T) * n * n);
        // Row-major lower triangle = column-major upper: 'U' reads and writes it in place (for
        // Hermitian x the column-major view is conj(x) = conj(L) L^T, whose factor U = L^T is
        // L row-major again).
        int info = 0;
        if (N > 0)
          fns<T>().potrf("U", &N, x, &ld, &info);
        if (info != 0) {
          fill_nan(x, n * n);
          continue;
        }
        for (int64_t i = 0; i < n; ++i)
          std::fill(x + i * n + i + 1, x + (i + 1) * n, T(0));
      }
    });
  });
}

void linalg_triangular_solve(DType dtype, int64_t batch, int64_t m, int64_t n, const void *a,
                             const void *b, void *x, bool left_side, bool lower, bool transpose_a,
                             bool unit_diagonal) {
  dispatch<true>(dtype, "triangular_solve", [&](auto t) {
    using T = decltype(t);
    int64_t k = left_side ? m : n;
    const T *A = static_cast<const T *>(a), *B = static_cast<const T *>(b);
    T *X = static_cast<T *>(x);
    std::memcpy(X, B, sizeof(T) * batch * m * n);
    if (m == 0 || n == 0)
      return;
    // Row-major b (m x n) is column-major b^T (n x m) and row-major a is column-major a^T, so
    // op(a) x = b becomes x^T op(a)^T = b^T: the other side, the other triangle, same op.
    int M = as_int(n), N = as_int(m), lda = as_int(k), ldb = as_int(n);
    char side = left_side ? 'R' : 'L', uplo = lower ? 'U' : 'L', trans = transpose_a ? 'T' : 'N',
         diag = unit_diagonal ? 'U' : 'N';
    T one = 1;
    run_lapack_batch(batch, cube(k, k, left_side ? n : m), [&](int64_t b0, int64_t b1) {
      for (int64_t i = b0; i < b1; ++i)
        fns<T>().trsm(&side, &uplo, &trans, &diag, &M, &N, &one, A + i * k * k, &lda, X + i * m * n,
                      &ldb);
    });
  });
}

void linalg_pivots_to_permutation(int64_t batch, int64_t k, int64_t size, const int32_t *pivots,
                                  int32_t *permutation) {
  for (int64_t b = 0; b < batch; ++b) {
    int32_t *p = permutation + b * size;
    std::iota(p, p + size, 0);
    for (int64_t i = 0; i < std::min(k, size); ++i) {
      int32_t j = pivots[b * k + i];
      if (j < 0 || j >= size)
        fail("lu_pivots_to_permutation", "pivot ", j, " is out of range for permutation_size ",
             size);
      std::swap(p[i], p[j]);
    }
  }
}

void linalg_lu(DType dtype, int64_t batch, int64_t m, int64_t n, const void *a, void *lu,
               int32_t *pivots, int32_t *permutation) {
  int64_t k = std::min(m, n);
  dispatch<true>(dtype, "lu", [&](auto t) {
    using T = decltype(t);
    const T *src = static_cast<const T *>(a);
    T *dst = static_cast<T *>(lu);
    int M = as_int(m), N = as_int(n), ld = std::max(M, 1);
    run_lapack_batch(batch, cube(m, n, k) * 2 / 3, [&](int64_t b0, int64_t b1) {
      std::vector<T> work(static_cast<size_t>(m * n));
      std::vector<int> ipiv(static_cast<size_t>(std::max<int64_t>(k, 1)));
      for (int64_t b = b0; b < b1; ++b) {
        to_col_major(src + b * m * n, work.data(), m, n);
        int info = 0; // info > 0 (an exactly zero pivot) still gives a factorization, as JAX's
        if (k > 0)
          fns<T>().getrf(&M, &N, work.data(), &ld, ipiv.data(), &info);
        from_col_major(work.data(), m, dst + b * m * n, m, n);
        for (int64_t i = 0; i < k; ++i)
          pivots[b * k + i] = ipiv[i] - 1;
      }
    });
  });
  linalg_pivots_to_permutation(batch, k, m, pivots, permutation);
}

void linalg_qr(DType dtype, int64_t batch, int64_t m, int64_t n, const void *a, void *q, void *r,
               bool full_matrices) {
  int64_t k = std::min(m, n), qc = full_matrices ? m : k, rr = full_matrices ? m : k;
  dispatch<true>(dtype, "qr", [&](auto t) {
    using T = decltype(t);
    const T *src = static_cast<const T *>(a);
    T *Q = static_cast<T *>(q), *R = static_cast<T *>(r);
    int M = as_int(m), N = as_int(n), K = as_int(k), QC = as_int(qc), ld = std::max(M, 1);
    run_lapack_batch(batch, cube(m, n, k) * 4 / 3, [&](int64_t b0, int64_t b1) {
      std::vector<T> f(static_cast<size_t>(m * n)), qb(static_cast<size_t>(m * qc) + 1),
          tau(static_cast<size_t>(k) + 1), work(1);
      for (int64_t b = b0; b < b1; ++b) {
        T *rb = R + b * rr * n, *qo = Q + b * m * qc;
        if (m == 0 || n == 0) {
          std::fill(rb, rb + rr * n, T(0));
          identity(qo, m, qc);
          continue;
        }
        to_col_major(src + b * m * n, f.data(), m, n);
        int info = 0, lwork = -1;
        with_workspace(work, lwork, [&](T *wk) {
          fns<T>().geqrf(&M, &N, f.data(), &ld, tau.data(), wk, &lwork, &info);
        });
        for (int64_t i = 0; i < rr; ++i)
          for (int64_t j = 0; j < n; ++j)
            rb[i * n + j] = i <= j && i < m ? f[i + j * m] : T(0);
        std::copy(f.begin(), f.begin() + m * std::min(qc, n), qb.begin());
        with_workspace(work, lwork, [&](T *wk) {
          if constexpr (is_cplx<T>::value)
            fns<T>().ungqr(&M, &QC, &K, qb.data(), &ld, tau.data(), wk, &lwork, &info);
          else
            fns<T>().orgqr(&M, &QC, &K, qb.data(), &ld, tau.data(), wk, &lwork, &info);
        });
        from_col_major(qb.data(), m, qo, m, qc);
      }
    });
  });
}

void linalg_eigh(DType dtype, int64_t batch, int64_t n, const void *a, void *v, void *w,
                 bool lower) {
  dispatch<true>(dtype, "eigh", [&](auto t) {
    using T = decltype(t);
    using R = decltype(std::real(t));
    const T *src = static_cast<const T *>(a);
    T *V = static_cast<T *>(v);
    R *W = static_cast<R *>(w);
    if (n == 0)
      return;
    int N = as_int(n);
    // Row-major lower triangle = column-major upper. The column-major view of a Hermitian x is
    // conj(x), whose eigenvectors are conj(V): conjugated back below.
    char uplo = lower ? 'U' : 'L';
    run_lapack_batch(batch, cube(n, n, n) * 9, [&](int64_t b0, int64_t b1) {
      std::vector<T> f(static_cast<size_t>(n * n)), work(1);
      std::vector<R> rwork(1);
      std::vector<int> iwork(1);
      for (int64_t b = b0; b < b1; ++b) {
        std::memcpy(f.data(), src + b * n * n, sizeof(T) * n * n);
        int info = 0, lwork = -1, liwork = -1, lrwork = -1, isize = 0;
        T size = 0;
        R rsize = 0;
        auto call = [&](T *wk, R *rwk, int *iwk) {
          if constexpr (is_cplx<T>::value)
            fns<T>().heevd("V", &uplo, &N, f.data(), &N, W + b * n, wk, &lwork, rwk, &lrwork, iwk,
                           &liwork, &info);
          else
            fns<T>().syevd("V", &uplo, &N, f.data(), &N, W + b * n, wk, &lwork, iwk, &liwork,
                           &info);
        };
        call(&size, &rsize, &isize);
        lwork = std::max(1, static_cast<int>(std::real(size)));
        lrwork = std::max(1, static_cast<int>(rsize));
        liwork = std::max(1, isize);
        if (work.size() < static_cast<size_t>(lwork))
          work.resize(static_cast<size_t>(lwork));
        if (rwork.size() < static_cast<size_t>(lrwork))
          rwork.resize(static_cast<size_t>(lrwork));
        if (iwork.size() < static_cast<size_t>(liwork))
          iwork.resize(static_cast<size_t>(liwork));
        call(work.data(), rwork.data(), iwork.data());
        if (info != 0) {
          fill_nan(V + b * n * n, n * n);
          fill_nan(W + b * n, n);
          continue;
        }
        from_col_major(f.data(), n, V + b * n * n, n, n);
        if constexpr (is_cplx<T>::value)
          for (int64_t i = 0; i < n * n; ++i)
            V[b * n * n + i] = std::conj(V[b * n * n + i]);
      }
    });
  });
}

void linalg_svd(DType dtype, int64_t batch, int64_t m, int64_t n, const void *a, void *s, void *u,
                void *vt, bool full_matrices) {
  int64_t k = std::min(m, n);
  bool uv = u != nullptr;
  int64_t uc = full_matrices ? m : k, vr = full_matrices ? n : k;
  dispatch<true>(dtype, "svd", [&](auto t) {
    using T = decltype(t);
    using R = decltype(std::real(t));
    const T *src = static_cast<const T *>(a);
    R *S = static_cast<R *>(s);
    T *U = static_cast<T *>(u), *VT = static_cast<T *>(vt);
    int M = as_int(m), N = as_int(n), ld = std::max(M, 1), ldu = std::max(M, 1),
        ldvt = std::max(as_int(vr), 1);
    char jobz = !uv ? 'N' : full_matrices ? 'A' : 'S';
    run_lapack_batch(batch, cube(m, n, k) * 12, [&](int64_t b0, int64_t b1) {
      std::vector<T> f(static_cast<size_t>(m * n)), ub(uv ? static_cast<size_t>(m * uc) + 1 : 1),
          vb(uv ? static_cast<size_t>(vr * n) + 1 : 1), work(1);
      std::vector<int> iwork(static_cast<size_t>(8 * k) + 1);
      // cgesdd/zgesdd's real workspace (LAPACK's documented bound).
      int64_t big = std::max(m, n);
      std::vector<R> rwork(
          is_cplx<T>::value
              ? static_cast<size_t>(uv ? k * std::max(5 * k + 7, 2 * big + 2 * k + 1) : 7 * k) + 1
              : 1);
      for (int64_t b = b0; b < b1; ++b) {
        if (k == 0) {
          if (uv) {
            identity(U + b * m * uc, m, uc);
            identity(VT + b * vr * n, vr, n);
          }
          continue;
        }
        to_col_major(src + b * m * n, f.data(), m, n);
        int info = 0, lwork = -1;
        with_workspace(work, lwork, [&](T *wk) {
          if constexpr (is_cplx<T>::value)
            fns<T>().gesdd(&jobz, &M, &N, f.data(), &ld, S + b * k, ub.data(), &ldu, vb.data(),
                           &ldvt, wk, &lwork, rwork.data(), iwork.data(), &info);
          else
            fns<T>().gesdd(&jobz, &M, &N, f.data(), &ld, S + b * k, ub.data(), &ldu, vb.data(),
                           &ldvt, wk, &lwork, iwork.data(), &info);
        });
        if (info != 0) {
          fill_nan(S + b * k, k);
          if (uv) {
            fill_nan(U + b * m * uc, m * uc);
            fill_nan(VT + b * vr * n, vr * n);
          }
          continue;
        }
        if (uv) {
          from_col_major(ub.data(), m, U + b * m * uc, m, uc);
          from_col_major(vb.data(), vr, VT + b * vr * n, vr, n);
        }
      }
    });
  });
}

} // namespace strata
