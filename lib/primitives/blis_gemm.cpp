// BLIS gemm on general strides, in blocks on Strata's pool (see blis_gemm.h for why); complex
// products with a unit stride per operand on OpenBLAS's cgemm/zgemm instead.
#include "primitives/blis_gemm.h"

#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <optional>

#include "strata/internal/thread_pool.h"
#include <blis.h>

namespace strata {
namespace {

/// Rows (or columns) per block are a multiple of this, so that blocks cover whole BLIS
/// micro-tiles and no thread gets a sliver.
constexpr int64_t kBlockAlign = 32;
/// Below this many multiply-adds one thread is faster than waking another.
constexpr int64_t kParallelMacs = int64_t{1} << 21;

template <class T>
void one_thread(int64_t m, int64_t n, int64_t k, T alpha, const T *a, int64_t rsa, int64_t csa,
                const T *b, int64_t rsb, int64_t csb, T beta, T *c, int64_t rsc, int64_t csc) {
  rntm_t rntm = BLIS_RNTM_INITIALIZER;
  bli_rntm_set_num_threads(1, &rntm);
  T *pa = const_cast<T *>(a), *pb = const_cast<T *>(b);
  if constexpr (std::is_same_v<T, float>) {
    bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, &alpha, pa, rsa, csa, pb, rsb, csb,
                 &beta, c, rsc, csc, nullptr, &rntm);
  } else if constexpr (std::is_same_v<T, double>) {
    bli_dgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, &alpha, pa, rsa, csa, pb, rsb, csb,
                 &beta, c, rsc, csc, nullptr, &rntm);
  } else {
    // std::complex<R> has the layout of BLIS's scomplex/dcomplex (real, imaginary).
    using B = std::conditional_t<std::is_same_v<T, std::complex<float>>, scomplex, dcomplex>;
    auto *ba = reinterpret_cast<B *>(pa), *bb = reinterpret_cast<B *>(pb);
    auto *bc = reinterpret_cast<B *>(c);
    auto *al = reinterpret_cast<B *>(&alpha), *be = reinterpret_cast<B *>(&beta);
    if constexpr (std::is_same_v<B, scomplex>)
      bli_cgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, al, ba, rsa, csa, bb, rsb, csb,
                   be, bc, rsc, csc, nullptr, &rntm);
    else
      bli_zgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, al, ba, rsa, csa, bb, rsb, csb,
                   be, bc, rsc, csc, nullptr, &rntm);
  }
}

#ifndef STRATA_LAPACK_PATH
#define STRATA_LAPACK_PATH "libopenblas.so.0"
#endif

/// OpenBLAS's cblas_cgemm and cblas_zgemm, from the library the LAPACK kernels load (lapack.cpp,
/// with the same flags, so one instance): its complex kernels ran 512^2 products 3-4x faster than
/// BLIS's on this machine (docs/decisions.md, "Complex gemm"). Null where the library or the
/// symbols are missing: BLIS then takes every product.
using CblasGemm = void (*)(int order, int ta, int tb, int m, int n, int k, const void *alpha,
                           const void *a, int lda, const void *b, int ldb, const void *beta,
                           void *c, int ldc);
struct ComplexGemms {
  CblasGemm c = nullptr, z = nullptr;
  ComplexGemms() {
    if (void *h = dlopen(STRATA_LAPACK_PATH, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)) {
      c = reinterpret_cast<CblasGemm>(dlsym(h, "cblas_cgemm"));
      z = reinterpret_cast<CblasGemm>(dlsym(h, "cblas_zgemm"));
    }
  }
};
const ComplexGemms &complex_gemms() {
  static const ComplexGemms g;
  return g;
}

/// One operand as CBLAS takes it in row-major order: transposed or not and its leading
/// dimension; nullopt unless one stride is 1 and the other spans a whole row (or column).
struct CblasOperand {
  bool trans;
  int64_t ld;
};
std::optional<CblasOperand> cblas_operand(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  if (cs == 1 && rs >= std::max<int64_t>(1, cols))
    return CblasOperand{false, rs};
  if (rs == 1 && cs >= std::max<int64_t>(1, rows))
    return CblasOperand{true, cs};
  return std::nullopt;
}

/// c = alpha a b + beta c on OpenBLAS (with its own threads, as numpy runs it) when T is complex,
/// the library is there and every operand has a CBLAS layout with c not transposed; false
/// otherwise (nothing done).
template <class T>
bool openblas_complex_gemm(int64_t m, int64_t n, int64_t k, T alpha, StridedMatrix<const T> a,
                           StridedMatrix<const T> b, T beta, StridedMatrix<T> c) {
  if constexpr (!std::is_same_v<T, std::complex<float>> &&
                !std::is_same_v<T, std::complex<double>>) {
    return false;
  } else {
    CblasGemm fn = std::is_same_v<T, std::complex<float>> ? complex_gemms().c : complex_gemms().z;
    auto pa = cblas_operand(m, k, a.row_stride, a.col_stride);
    auto pb = cblas_operand(k, n, b.row_stride, b.col_stride);
    auto pc = cblas_operand(m, n, c.row_stride, c.col_stride);
    if (!fn || !pa || !pb || !pc || pc->trans || k <= 0)
      return false;
    for (int64_t v : {m, n, k, pa->ld, pb->ld, pc->ld})
      if (v > INT_MAX)
        return false;
    constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
    auto i = [](int64_t v) { return static_cast<int>(v); };
    fn(kRowMajor, pa->trans ? kTrans : kNoTrans, pb->trans ? kTrans : kNoTrans, i(m), i(n), i(k),
       &alpha, a.data, i(pa->ld), b.data, i(pb->ld), &beta, c.data, i(pc->ld));
    return true;
  }
}

} // namespace

template <class T>
void blis_gemm(int64_t m, int64_t n, int64_t k, T alpha, StridedMatrix<const T> a,
               StridedMatrix<const T> b, T beta, StridedMatrix<T> c) {
  if (m <= 0 || n <= 0)
    return;
  if (openblas_complex_gemm(m, n, k, alpha, a, b, beta, c))
    return;
  bool split_rows = m >= n;
  int64_t extent = split_rows ? m : n;
  int64_t blocks = (extent + kBlockAlign - 1) / kBlockAlign;
  if (num_threads() <= 1 || blocks < 2 || m * n * std::max<int64_t>(k, 1) < kParallelMacs) {
    one_thread(m, n, k, alpha, a.data, a.row_stride, a.col_stride, b.data, b.row_stride,
               b.col_stride, beta, c.data, c.row_stride, c.col_stride);
    return;
  }
  parallel_for(blocks, 1, [&](int64_t lo, int64_t hi) {
    int64_t begin = lo * kBlockAlign, end = std::min(extent, hi * kBlockAlign);
    if (split_rows)
      one_thread(end - begin, n, k, alpha, a.data + begin * a.row_stride, a.row_stride,
                 a.col_stride, b.data, b.row_stride, b.col_stride, beta,
                 c.data + begin * c.row_stride, c.row_stride, c.col_stride);
    else
      one_thread(m, end - begin, k, alpha, a.data, a.row_stride, a.col_stride,
                 b.data + begin * b.col_stride, b.row_stride, b.col_stride, beta,
                 c.data + begin * c.col_stride, c.row_stride, c.col_stride);
  });
}

void for_each_product(int64_t batch, int64_t m, int64_t n, int64_t k,
                      const std::function<void(int64_t)> &product) {
  if (batch > 1 && m * n * std::max<int64_t>(k, 1) < kParallelMacs) {
    parallel_for(batch, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        product(i);
    });
    return;
  }
  for (int64_t i = 0; i < batch; ++i)
    product(i);
}

template void blis_gemm<float>(int64_t, int64_t, int64_t, float, StridedMatrix<const float>,
                               StridedMatrix<const float>, float, StridedMatrix<float>);
template void blis_gemm<double>(int64_t, int64_t, int64_t, double, StridedMatrix<const double>,
                                StridedMatrix<const double>, double, StridedMatrix<double>);
template void blis_gemm<std::complex<float>>(int64_t, int64_t, int64_t, std::complex<float>,
                                             StridedMatrix<const std::complex<float>>,
                                             StridedMatrix<const std::complex<float>>,
                                             std::complex<float>,
                                             StridedMatrix<std::complex<float>>);
template void blis_gemm<std::complex<double>>(int64_t, int64_t, int64_t, std::complex<double>,
                                              StridedMatrix<const std::complex<double>>,
                                              StridedMatrix<const std::complex<double>>,
                                              std::complex<double>,
                                              StridedMatrix<std::complex<double>>);

} // namespace strata
