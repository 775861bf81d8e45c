// The batched LAPACK kernels of the nonsymmetric eigenproblem: geev (eig), gees (schur), gehrd
// (hessenberg) and orgqr/ungqr (householder_product), real and complex, row-major in and out.
#include "strata/internal/eig_kernels.h"

#include <algorithm>
#include <complex>
#include <cstring>
#include <limits>
#include <type_traits>
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

/// The real type of T (T itself for float and double).
template <class T> struct real_of {
  using type = T;
};
template <class R> struct real_of<std::complex<R>> {
  using type = R;
};
template <class T> using Real = typename real_of<T>::type;

int as_int(const char *op, int64_t v) {
  if (v > std::numeric_limits<int>::max())
    fail(op, "dimension ", v, " exceeds LAPACK's 32-bit sizes");
  return static_cast<int>(v);
}

/// dst (column-major, leading dimension rows) = row-major src, rows x cols; and back. The
/// O(n^2) copies are negligible beside these O(n^3) factorizations, so a plain loop does.
template <class T> void to_col_major(const T *src, T *dst, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      dst[i + j * rows] = src[i * cols + j];
}
template <class T> void from_col_major(const T *src, T *dst, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      dst[i * cols + j] = src[i + j * rows];
}
template <class T> void fill_nan(T *p, int64_t n) {
  std::fill(p, p + n, T(std::numeric_limits<Real<T>>::quiet_NaN()));
}
/// Whether every entry is finite: geev and gees reject NaN and infinite entries through
/// LAPACK's error handler (xerbla) instead of returning, so such matrices give NaNs unasked.
template <class T> bool all_finite(const T *p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(std::real(p[i])) || !std::isfinite(std::imag(p[i])))
      return false;
  return true;
}

/// Calls f(T{}) for dtype's element type T.
template <class F> void dispatch(DType dtype, const char *op, F &&f) {
  switch (dtype) {
  case DType::Float64:
    return f(double{});
  case DType::Float32:
    return f(float{});
  case DType::Complex128:
    return f(std::complex<double>{});
  case DType::Complex64:
    return f(std::complex<float>{});
  default:
    fail(op, "expects float32, float64, complex64 or complex128, got ", dtype_name(dtype));
  }
}

double cube(int64_t n) { return static_cast<double>(n) * static_cast<double>(n) * n; }

/// Real geev's packed eigenvectors (column-major n x n, ld n) => complex ones, row-major: a
/// pair of conjugate eigenvalues j, j+1 (wi[j] > 0) stores v_j = x + iy in columns j and j+1.
template <class R> void unpack_vectors(const R *v, const R *wi, std::complex<R> *out, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    if (wi[j] == R(0)) {
      for (int64_t i = 0; i < n; ++i)
        out[i * n + j] = v[i + j * n];
    } else if (j + 1 < n) {
      for (int64_t i = 0; i < n; ++i) {
        R x = v[i + j * n], y = v[i + (j + 1) * n];
        out[i * n + j] = {x, y};
        out[i * n + j + 1] = {x, -y};
      }
      ++j;
    }
  }
}

} // namespace

void linalg_eig(DType dtype, int64_t batch, int64_t n, const void *a, void *w, void *vl, void *vr) {
  dispatch(dtype, "eig", [&](auto t) {
    using T = decltype(t);
    using R = Real<T>;
    using C = std::complex<R>;
    const T *src = static_cast<const T *>(a);
    C *W = static_cast<C *>(w), *VL = static_cast<C *>(vl), *VR = static_cast<C *>(vr);
    if (n == 0)
      return;
    int N = as_int("eig", n);
    char jobvl = VL ? 'V' : 'N', jobvr = VR ? 'V' : 'N';
    int ldvl = VL ? N : 1, ldvr = VR ? N : 1;
    run_lapack_batch(batch, cube(n) * 25, [&](int64_t b0, int64_t b1) {
      size_t nn = static_cast<size_t>(n * n);
      std::vector<T> f(nn), lv(VL ? nn : 1), rv(VR ? nn : 1), work(1);
      std::vector<R> wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n)),
          rwork(static_cast<size_t>(2 * n));
      for (int64_t b = b0; b < b1; ++b) {
        to_col_major(src + b * n * n, f.data(), n, n);
        int info = all_finite(f.data(), n * n) ? 0 : 1, lwork = -1;
        C *wb = W + b * n;
        auto call = [&](T *wk) {
          if constexpr (is_cplx<T>::value)
            lapack_complex<T>().geev(&jobvl, &jobvr, &N, f.data(), &N, wb, lv.data(), &ldvl,
                                     rv.data(), &ldvr, wk, &lwork, rwork.data(), &info);
          else
            lapack<T>().geev(&jobvl, &jobvr, &N, f.data(), &N, wr.data(), wi.data(), lv.data(),
                             &ldvl, rv.data(), &ldvr, wk, &lwork, &info);
        };
        if (info == 0) {
          with_workspace(work, lwork, call);
        }
        if (info != 0) {
          fill_nan(wb, n);
          if (VL)
            fill_nan(VL + b * n * n, n * n);
          if (VR)
            fill_nan(VR + b * n * n, n * n);
          continue;
        }
        if constexpr (is_cplx<T>::value) {
          if (VL)
            from_col_major(lv.data(), VL + b * n * n, n, n);
          if (VR)
            from_col_major(rv.data(), VR + b * n * n, n, n);
        } else {
          for (int64_t i = 0; i < n; ++i)
            wb[i] = {wr[i], wi[i]};
          if (VL)
            unpack_vectors(lv.data(), wi.data(), VL + b * n * n, n);
          if (VR)
            unpack_vectors(rv.data(), wi.data(), VR + b * n * n, n);
        }
      }
    });
  });
}

void linalg_schur(DType dtype, int64_t batch, int64_t n, const void *a, void *t, void *vs) {
  dispatch(dtype, "schur", [&](auto tag) {
    using T = decltype(tag);
    using R = Real<T>;
    const T *src = static_cast<const T *>(a);
    T *TT = static_cast<T *>(t), *VS = static_cast<T *>(vs);
    if (n == 0)
      return;
    int N = as_int("schur", n), ldvs = VS ? N : 1;
    char jobvs = VS ? 'V' : 'N', sort = 'N';
    run_lapack_batch(batch, cube(n) * 25, [&](int64_t b0, int64_t b1) {
      size_t nn = static_cast<size_t>(n * n);
      std::vector<T> f(nn), v(VS ? nn : 1), work(1), w(static_cast<size_t>(n));
      std::vector<R> wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n)),
          rwork(static_cast<size_t>(n));
      std::vector<int> bwork(1);
      for (int64_t b = b0; b < b1; ++b) {
        to_col_major(src + b * n * n, f.data(), n, n);
        int info = all_finite(f.data(), n * n) ? 0 : 1, lwork = -1, sdim = 0;
        auto call = [&](T *wk) {
          if constexpr (is_cplx<T>::value)
            lapack_complex<T>().gees(&jobvs, &sort, nullptr, &N, f.data(), &N, &sdim, w.data(),
                                     v.data(), &ldvs, wk, &lwork, rwork.data(), bwork.data(),
                                     &info);
          else
            lapack<T>().gees(&jobvs, &sort, nullptr, &N, f.data(), &N, &sdim, wr.data(), wi.data(),
                             v.data(), &ldvs, wk, &lwork, bwork.data(), &info);
        };
        if (info == 0) {
          with_workspace(work, lwork, call);
        }
        if (info != 0) {
          fill_nan(TT + b * n * n, n * n);
          if (VS)
            fill_nan(VS + b * n * n, n * n);
          continue;
        }
        from_col_major(f.data(), TT + b * n * n, n, n);
        if (VS)
          from_col_major(v.data(), VS + b * n * n, n, n);
      }
    });
  });
}

void linalg_hessenberg(DType dtype, int64_t batch, int64_t n, const void *a, void *h, void *taus) {
  dispatch(dtype, "hessenberg", [&](auto tag) {
    using T = decltype(tag);
    const T *src = static_cast<const T *>(a);
    T *H = static_cast<T *>(h), *TAU = static_cast<T *>(taus);
    if (n == 0)
      return;
    int N = as_int("hessenberg", n), ilo = 1, ihi = N;
    int64_t k = n - 1;
    run_lapack_batch(batch, cube(n) * 10 / 3, [&](int64_t b0, int64_t b1) {
      std::vector<T> f(static_cast<size_t>(n * n)), tau(static_cast<size_t>(n)), work(1);
      for (int64_t b = b0; b < b1; ++b) {
        to_col_major(src + b * n * n, f.data(), n, n);
        int info = 0, lwork = -1;
        auto call = [&](T *wk) {
          if constexpr (is_cplx<T>::value)
            lapack_complex<T>().gehrd(&N, &ilo, &ihi, f.data(), &N, tau.data(), wk, &lwork, &info);
          else
            lapack<T>().gehrd(&N, &ilo, &ihi, f.data(), &N, tau.data(), wk, &lwork, &info);
        };
        with_workspace(work, lwork, call);
        from_col_major(f.data(), H + b * n * n, n, n);
        std::copy(tau.begin(), tau.begin() + k, TAU + b * k);
      }
    });
  });
}

void linalg_householder_product(DType dtype, int64_t batch, int64_t m, int64_t n, int64_t k,
                                const void *a, const void *taus, void *q) {
  if (m < n || n < k || k < 0)
    fail("householder_product", "expects m >= n >= k, got m=", m, ", n=", n, ", k=", k);
  dispatch(dtype, "householder_product", [&](auto tag) {
    using T = decltype(tag);
    const T *src = static_cast<const T *>(a), *TAU = static_cast<const T *>(taus);
    T *Q = static_cast<T *>(q);
    if (m == 0 || n == 0)
      return;
    int M = as_int("householder_product", m), N = as_int("householder_product", n),
        K = static_cast<int>(k);
    run_lapack_batch(batch, 4.0 * m * n * std::max<int64_t>(k, 1), [&](int64_t b0, int64_t b1) {
      std::vector<T> f(static_cast<size_t>(m * n)), tau(static_cast<size_t>(k) + 1), work(1);
      for (int64_t b = b0; b < b1; ++b) {
        to_col_major(src + b * m * n, f.data(), m, n);
        std::copy(TAU + b * k, TAU + (b + 1) * k, tau.begin());
        int info = 0, lwork = -1;
        auto call = [&](T *wk) {
          if constexpr (is_cplx<T>::value)
            lapack_complex<T>().ungqr(&M, &N, &K, f.data(), &M, tau.data(), wk, &lwork, &info);
          else
            lapack<T>().orgqr(&M, &N, &K, f.data(), &M, tau.data(), wk, &lwork, &info);
        };
        with_workspace(work, lwork, call);
        from_col_major(f.data(), Q + b * m * n, m, n);
      }
    });
  });
}

} // namespace strata
