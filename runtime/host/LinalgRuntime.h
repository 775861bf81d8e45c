// The runtime functions of strata-linalg-to-runtime's calls: jit-compiled CPU code's
// decompositions and triangular solves run libstrata's LAPACK kernels
// (strata/internal/linalg_kernels.h), the eager primitives' own. Every argument is an i64:
// dtype codes (strata::DType), sizes, buffer addresses (row-major), and flags.
#pragma once

#include <cstdint>

extern "C" void strata_rt_cholesky(int64_t dtype, int64_t batch, int64_t n, int64_t a, int64_t l,
                                   int64_t symmetrize_input);
/// flags: 1 left_side, 2 lower, 4 transpose_a, 8 unit_diagonal.
extern "C" void strata_rt_triangular_solve(int64_t dtype, int64_t batch, int64_t m, int64_t n,
                                           int64_t a, int64_t b, int64_t x, int64_t flags);
extern "C" void strata_rt_lu(int64_t dtype, int64_t batch, int64_t m, int64_t n, int64_t a,
                             int64_t lu, int64_t pivots, int64_t permutation);
extern "C" void strata_rt_lu_pivots_to_permutation(int64_t batch, int64_t k, int64_t size,
                                                   int64_t pivots, int64_t permutation);
extern "C" void strata_rt_qr(int64_t dtype, int64_t batch, int64_t m, int64_t n, int64_t a,
                             int64_t q, int64_t r, int64_t full_matrices);
extern "C" void strata_rt_eigh(int64_t dtype, int64_t batch, int64_t n, int64_t a, int64_t v,
                               int64_t w, int64_t lower);
/// u and vt are 0 without vectors.
extern "C" void strata_rt_svd(int64_t dtype, int64_t batch, int64_t m, int64_t n, int64_t a,
                              int64_t s, int64_t u, int64_t vt, int64_t full_matrices);
/// vl and vr are 0 where not computed; w, vl and vr are complex.
extern "C" void strata_rt_eig(int64_t dtype, int64_t batch, int64_t n, int64_t a, int64_t w,
                              int64_t vl, int64_t vr);
/// vs is 0 without Schur vectors.
extern "C" void strata_rt_schur(int64_t dtype, int64_t batch, int64_t n, int64_t a, int64_t t,
                                int64_t vs);
extern "C" void strata_rt_hessenberg(int64_t dtype, int64_t batch, int64_t n, int64_t a, int64_t h,
                                     int64_t taus);
extern "C" void strata_rt_householder_product(int64_t dtype, int64_t batch, int64_t m, int64_t n,
                                              int64_t k, int64_t a, int64_t taus, int64_t q);
