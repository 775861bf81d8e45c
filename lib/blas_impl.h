// The few CBLAS and BLIS entry points dot_general calls, declared here because the
// distribution's cblas.h sits under a BLIS-variant-specific include path.
#pragma once

#include <cstdint>

extern "C" {
// CBLAS passes its enums as C ints; Debian's BLIS uses 32-bit BLAS integers (f77_int).
void cblas_sgemm(int order, int trans_a, int trans_b, int32_t m, int32_t n, int32_t k, float alpha,
                 const float *a, int32_t lda, const float *b, int32_t ldb, float beta, float *c,
                 int32_t ldc);
void cblas_dgemm(int order, int trans_a, int trans_b, int32_t m, int32_t n, int32_t k,
                 double alpha, const double *a, int32_t lda, const double *b, int32_t ldb,
                 double beta, double *c, int32_t ldc);
// BLIS's own threading control (dim_t is a 64-bit integer); the setting is process-wide.
void bli_thread_set_num_threads(long n);
long bli_thread_get_num_threads(void);
}

namespace strata::blas {
inline constexpr int kRowMajor = 101;
inline constexpr int kNoTrans = 111;
inline constexpr int kTrans = 112;
} // namespace strata::blas
