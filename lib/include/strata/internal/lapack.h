// LAPACK for the linear-algebra primitives: OpenBLAS's LAPACK, loaded at first use with its own
// symbols bound first (docs/decisions.md, "LAPACK"), and the rule for its threads.
#pragma once

#include <cstdint>
#include <functional>

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
};

/// The entries for T, loading the library on first use; throws a clear error if it is missing.
template <class T> const LapackFns<T> &lapack();

/// Runs fn(begin, end) over the batch [0, n) of independent factorizations, each of about
/// `flops` floating-point operations: small ones in parallel on Strata's pool with the library
/// single-threaded, large ones one after another with the library's threads (Strata's count).
/// Calls are serialized: the library's thread count is one setting for the whole process.
void run_lapack_batch(int64_t n, double flops, const std::function<void(int64_t, int64_t)> &fn);

} // namespace strata::internal
