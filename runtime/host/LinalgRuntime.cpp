// strata_rt_cholesky ... strata_rt_householder_product: jit-compiled CPU code's linear algebra,
// on libstrata's LAPACK kernels so that it gives the eager primitives' results bit for bit.
#include "runtime/host/LinalgRuntime.h"

#include "strata/internal/eig_kernels.h"
#include "strata/internal/linalg_kernels.h"

#include "strata/export.h"

namespace {
template <class P> P *address(int64_t a) { return reinterpret_cast<P *>(static_cast<intptr_t>(a)); }
strata::DType dtype_of(int64_t d) { return static_cast<strata::DType>(d); }
} // namespace

// Exported (in libstrata_jit) so that mlir-runner can run strata-lower-to-cpu's output too.
extern "C" STRATA_EXPORT void strata_rt_cholesky(int64_t dtype, int64_t batch, int64_t n, int64_t a,
                                                 int64_t l, int64_t symmetrize_input) {
  strata::linalg_cholesky(dtype_of(dtype), batch, n, address<const void>(a), address<void>(l),
                          symmetrize_input != 0);
}

extern "C" STRATA_EXPORT void strata_rt_triangular_solve(int64_t dtype, int64_t batch, int64_t m,
                                                         int64_t n, int64_t a, int64_t b, int64_t x,
                                                         int64_t flags) {
  strata::linalg_triangular_solve(dtype_of(dtype), batch, m, n, address<const void>(a),
                                  address<const void>(b), address<void>(x), flags & 1, flags & 2,
                                  flags & 4, flags & 8);
}

extern "C" STRATA_EXPORT void strata_rt_lu(int64_t dtype, int64_t batch, int64_t m, int64_t n,
                                           int64_t a, int64_t lu, int64_t pivots,
                                           int64_t permutation) {
  strata::linalg_lu(dtype_of(dtype), batch, m, n, address<const void>(a), address<void>(lu),
                    address<int32_t>(pivots), address<int32_t>(permutation));
}

extern "C" STRATA_EXPORT void strata_rt_lu_pivots_to_permutation(int64_t batch, int64_t k,
                                                                 int64_t size, int64_t pivots,
                                                                 int64_t permutation) {
  strata::linalg_pivots_to_permutation(batch, k, size, address<const int32_t>(pivots),
                                       address<int32_t>(permutation));
}

extern "C" STRATA_EXPORT void strata_rt_qr(int64_t dtype, int64_t batch, int64_t m, int64_t n,
                                           int64_t a, int64_t q, int64_t r, int64_t full_matrices) {
  strata::linalg_qr(dtype_of(dtype), batch, m, n, address<const void>(a), address<void>(q),
                    address<void>(r), full_matrices != 0);
}

extern "C" STRATA_EXPORT void strata_rt_eigh(int64_t dtype, int64_t batch, int64_t n, int64_t a,
                                             int64_t v, int64_t w, int64_t lower) {
  strata::linalg_eigh(dtype_of(dtype), batch, n, address<const void>(a), address<void>(v),
                      address<void>(w), lower != 0);
}

extern "C" STRATA_EXPORT void strata_rt_svd(int64_t dtype, int64_t batch, int64_t m, int64_t n,
                                            int64_t a, int64_t s, int64_t u, int64_t vt,
                                            int64_t full_matrices) {
  strata::linalg_svd(dtype_of(dtype), batch, m, n, address<const void>(a), address<void>(s),
                     address<void>(u), address<void>(vt), full_matrices != 0);
}

extern "C" STRATA_EXPORT void strata_rt_eig(int64_t dtype, int64_t batch, int64_t n, int64_t a,
                                            int64_t w, int64_t vl, int64_t vr) {
  strata::linalg_eig(dtype_of(dtype), batch, n, address<const void>(a), address<void>(w),
                     address<void>(vl), address<void>(vr));
}

extern "C" STRATA_EXPORT void strata_rt_schur(int64_t dtype, int64_t batch, int64_t n, int64_t a,
                                              int64_t t, int64_t vs) {
  strata::linalg_schur(dtype_of(dtype), batch, n, address<const void>(a), address<void>(t),
                       address<void>(vs));
}

extern "C" STRATA_EXPORT void strata_rt_hessenberg(int64_t dtype, int64_t batch, int64_t n,
                                                   int64_t a, int64_t h, int64_t taus) {
  strata::linalg_hessenberg(dtype_of(dtype), batch, n, address<const void>(a), address<void>(h),
                            address<void>(taus));
}

extern "C" STRATA_EXPORT void strata_rt_householder_product(int64_t dtype, int64_t batch, int64_t m,
                                                            int64_t n, int64_t k, int64_t a,
                                                            int64_t taus, int64_t q) {
  strata::linalg_householder_product(dtype_of(dtype), batch, m, n, k, address<const void>(a),
                                     address<const void>(taus), address<void>(q));
}
