// The linear algebra of GPU-compiled code on cuSOLVER and cuBLAS, on device buffers of
// row-major matrices, with the results (and NaN fills of failed factorizations) of libstrata's
// LAPACK kernels (strata/internal/linalg_kernels.h). Internal to libstrata_cuda: Linalg.cpp
// calls these when the libraries load and its host-staging path otherwise.
#pragma once

#include <cstdint>
#include <string>

#include "strata/dtype.h"

namespace strata::cuda {

struct DeviceState;

namespace solver {

/// True when cuSOLVER and cuBLAS's helpers loaded; else `why` says what is missing.
bool available(std::string &why);

// Each queues its work on s's stream after the work queued before. The matrices are `batch`
// contiguous row-major ones; the operands are only read.
void cholesky(DeviceState &s, DType dt, int64_t batch, int64_t n, const void *a, void *l,
              bool symmetrize_input);
void triangular_solve(DeviceState &s, DType dt, int64_t batch, int64_t m, int64_t n, const void *a,
                      const void *b, void *x, bool left_side, bool lower, bool transpose_a,
                      bool unit_diagonal);
void lu(DeviceState &s, DType dt, int64_t batch, int64_t m, int64_t n, const void *a, void *lu,
        int32_t *pivots, int32_t *permutation);
void qr(DeviceState &s, DType dt, int64_t batch, int64_t m, int64_t n, const void *a, void *q,
        void *r, bool full_matrices);
void eigh(DeviceState &s, DType dt, int64_t batch, int64_t n, const void *a, void *v, void *w,
          bool lower);
/// u and vt null: singular values only.
void svd(DeviceState &s, DType dt, int64_t batch, int64_t m, int64_t n, const void *a, void *sv,
         void *u, void *vt, bool full_matrices);

} // namespace solver
} // namespace strata::cuda
