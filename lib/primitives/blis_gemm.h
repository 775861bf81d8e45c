// BLIS gemm on general strides, parallelized on Strata's pool rather than by BLIS's threads.
#pragma once

#include <cstdint>
#include <functional>

namespace strata {

/// One matrix operand: element pointer and row/column strides in elements (either may be 1, so
/// row-major, column-major and transposed views need no copy).
template <class T> struct StridedMatrix {
  T *data;
  int64_t row_stride, col_stride;
};

/// c (m x n) = alpha * a (m x k) * b (k x n) + beta * c, for T = float, double,
/// std::complex<float> or std::complex<double>. Complex products whose operands each have a unit
/// stride run on OpenBLAS's cgemm/zgemm with its own threads (faster than BLIS's complex kernels:
/// docs/decisions.md); the rest on BLIS as follows.
///
/// Products of more than about 4 MFLOP are split into blocks of rows (or of columns, when n is
/// the longer side) that run on Strata's thread pool, one single-threaded BLIS call each. BLIS's
/// own threads synchronize through spinning barriers, which collapse (measured 5-200x slower
/// than one thread) as soon as another process shares the cores; the pool blocks instead.
template <class T>
void blis_gemm(int64_t m, int64_t n, int64_t k, T alpha, StridedMatrix<const T> a,
               StridedMatrix<const T> b, T beta, StridedMatrix<T> c);

/// Calls product(i) for each i < batch, where each is an m x n x k blis_gemm: in parallel across
/// the batch when the products are too small for blis_gemm to split (each then runs on one
/// thread: blis_gemm does not fork inside the pool), one after another otherwise.
void for_each_product(int64_t batch, int64_t m, int64_t n, int64_t k,
                      const std::function<void(int64_t)> &product);

} // namespace strata
