// LAPACK for the linear-algebra primitives: OpenBLAS's LAPACK, loaded at first use with its own
// symbols bound first (docs/decisions.md, "LAPACK"), and the rule for its threads.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

namespace strata::internal {

/// The LAPACK and BLAS entries the linear-algebra kernels call, in Fortran's calling convention
/// (column-major, every argument by pointer), for one real element type T (float or double).
template <class T> struct LapackFns {
  void (*potrf)(const char *uplo, const int *n, T *a, const int *lda, int *info);
  void (*getrf)(const int *m, const int *n, T *a, const int *lda, int *ipiv, int *info);
  void (*geqrf)(const int *m, const int *n, T *a, const int *lda, T *tau, T *work, const int *lwork,
                int *info);
  void (*orgqr)(const int *m, const int *n, const int *k, T *a, const int *lda, const T *tau,
                T *work, const int *lwork, int *info);
  void (*syevd)(const char *jobz, const char *uplo, const int *n, T *a, const int *lda, T *w,
                T *work, const int *lwork, int *iwork, const int *liwork, int *info);
  void (*gesdd)(const char *jobz, const int *m, const int *n, T *a, const int *lda, T *s, T *u,
                const int *ldu, T *vt, const int *ldvt, T *work, const int *lwork, int *iwork,
                int *info);
  void (*trsm)(const char *side, const char *uplo, const char *transa, const char *diag,
               const int *m, const int *n, const T *alpha, const T *a, const int *lda, T *b,
               const int *ldb);
  // The nonsymmetric eigenproblem (eig, schur, hessenberg, householder_product).
  void (*geev)(const char *jobvl, const char *jobvr, const int *n, T *a, const int *lda, T *wr,
               T *wi, T *vl, const int *ldvl, T *vr, const int *ldvr, T *work, const int *lwork,
               int *info);
  void (*gees)(const char *jobvs, const char *sort, int (*select)(const T *, const T *),
               const int *n, T *a, const int *lda, int *sdim, T *wr, T *wi, T *vs, const int *ldvs,
               T *work, const int *lwork, int *bwork, int *info);
  void (*gehrd)(const int *n, const int *ilo, const int *ihi, T *a, const int *lda, T *tau, T *work,
                const int *lwork, int *info);
};

/// The complex entries of the nonsymmetric eigenproblem, for C = std::complex<float or double>
/// (LAPACK's c and z routines); R is C's real type (their real workspaces).
template <class C> struct LapackComplexFns {
  using R = typename C::value_type;
  // The decompositions with complex operands (cholesky, triangular_solve, lu, qr, eigh).
  void (*potrf)(const char *uplo, const int *n, C *a, const int *lda, int *info);
  void (*getrf)(const int *m, const int *n, C *a, const int *lda, int *ipiv, int *info);
  void (*geqrf)(const int *m, const int *n, C *a, const int *lda, C *tau, C *work, const int *lwork,
                int *info);
  void (*heevd)(const char *jobz, const char *uplo, const int *n, C *a, const int *lda, R *w,
                C *work, const int *lwork, R *rwork, const int *lrwork, int *iwork,
                const int *liwork, int *info);
  void (*trsm)(const char *side, const char *uplo, const char *transa, const char *diag,
               const int *m, const int *n, const C *alpha, const C *a, const int *lda, C *b,
               const int *ldb);
  void (*geev)(const char *jobvl, const char *jobvr, const int *n, C *a, const int *lda, C *w,
               C *vl, const int *ldvl, C *vr, const int *ldvr, C *work, const int *lwork, R *rwork,
               int *info);
  void (*gees)(const char *jobvs, const char *sort, int (*select)(const C *), const int *n, C *a,
               const int *lda, int *sdim, C *w, C *vs, const int *ldvs, C *work, const int *lwork,
               R *rwork, int *bwork, int *info);
  void (*gehrd)(const int *n, const int *ilo, const int *ihi, C *a, const int *lda, C *tau, C *work,
                const int *lwork, int *info);
  void (*gesdd)(const char *jobz, const int *m, const int *n, C *a, const int *lda, R *s, C *u,
                const int *ldu, C *vt, const int *ldvt, C *work, const int *lwork, R *rwork,
                int *iwork, int *info);
  void (*ungqr)(const int *m, const int *n, const int *k, C *a, const int *lda, const C *tau,
                C *work, const int *lwork, int *info);
};

/// The entries for T, loading the library on first use; throws a clear error if it is missing.
template <class T> const LapackFns<T> &lapack();
/// The complex entries for C (std::complex<float> or std::complex<double>).
template <class C> const LapackComplexFns<C> &lapack_complex();

/// Runs fn(begin, end) over the batch [0, n) of independent factorizations, each of about
/// `flops` floating-point operations: small ones in parallel on Strata's pool with the library
/// single-threaded, large ones one after another with the library's threads (Strata's count).
/// Calls are serialized: the library's thread count is one setting for the whole process.
void run_lapack_batch(int64_t n, double flops, const std::function<void(int64_t, int64_t)> &fn);

/// Whether T is std::complex (the kernels pick the c/z routines for it).
template <class T> struct is_cplx : std::false_type {};
template <class R> struct is_cplx<std::complex<R>> : std::true_type {};

/// Runs a LAPACK routine that takes a workspace, `call(work)` reading `lwork` by reference: once
/// as LAPACK's size query (lwork = -1, the answer in a scalar), then with `work` grown to the
/// answered size (kept across calls of a batch).
template <class T, class Call> void with_workspace(std::vector<T> &work, int &lwork, Call &&call) {
  T answer = 0;
  lwork = -1;
  call(&answer);
  lwork = std::max(1, static_cast<int>(std::real(answer)));
  if (work.size() < static_cast<size_t>(lwork))
    work.resize(static_cast<size_t>(lwork));
  call(work.data());
}

} // namespace strata::internal
