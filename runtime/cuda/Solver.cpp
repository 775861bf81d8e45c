// cuSOLVER (potrf, getrf, geqrf + orgqr, syevd, gesvd) and cuBLAS (trsm, geam transposes,
// packed triangle copies) on row-major device matrices: a loop of calls over the batch on the
// device's stream, workspaces from its caching allocator, info arrays read back to give failed
// factorizations the CPU kernels' NaNs.
#include "runtime/cuda/Solver.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/cuda/CudaRuntime.h"
#include "runtime/cuda/LibraryState.h"
#include "strata/internal/linalg_kernels.h"

namespace strata::cuda::solver {
namespace {

int as_int(const char *op, int64_t v) {
  if (v < 0 || v > INT_MAX)
    fail(op, "extent ", v, " does not fit cuSOLVER's 32-bit sizes");
  return static_cast<int>(v);
}

/// One call's libraries, handles and typed constants.
struct Ctx {
  Ctx(DeviceState &state, DType dt, const char *name)
      : s(state), op(name), f64(dt == DType::Float64), size(f64 ? 8 : 4), sv(*api::solver()),
        r(f64 ? api::solver()->d : api::solver()->s),
        b(f64 ? api::blas_helpers()->d : api::blas_helpers()->s), bh(blas_handle(s, name)),
        h(solver_handle(s, name)) {}
  DeviceState &s;
  const char *op;
  bool f64;
  size_t size;
  const api::Solver &sv;
  const api::SolverRoutines &r;
  const api::BlasRoutines &b;
  api::cublasHandle_t bh;
  api::cusolverDnHandle_t h;
  float f32_consts[3] = {1.0f, 0.0f, 0.5f};
  double f64_consts[3] = {1.0, 0.0, 0.5};

  const void *one() const { return f64 ? (const void *)&f64_consts[0] : &f32_consts[0]; }
  const void *zero() const { return f64 ? (const void *)&f64_consts[1] : &f32_consts[1]; }
  const void *half() const { return f64 ? (const void *)&f64_consts[2] : &f32_consts[2]; }

  /// `base` advanced by `elems` elements.
  template <class P> P *at(P *base, int64_t elems) const {
    using Byte = std::conditional_t<std::is_const_v<P>, const char, char>;
    return reinterpret_cast<P *>(reinterpret_cast<Byte *>(base) +
                                 static_cast<size_t>(elems) * size);
  }
  size_t bytes(int64_t elems) const { return static_cast<size_t>(elems) * size; }

  void solver_check(api::cusolverStatus_t st, const char *call) const {
    check_solver(st, call, op, s.index);
  }
  void blas_check(api::cublasStatus_t st, const char *call) const {
    check_blas(st, call, op, s.index);
  }
  void copy(void *dst, const void *src, size_t nbytes) const {
    if (nbytes)
      check(api::driver()->cuMemcpyDtoDAsync_v2(reinterpret_cast<api::CUdeviceptr>(dst),
                                                reinterpret_cast<api::CUdeviceptr>(src), nbytes,
                                                s.stream),
            "cuMemcpyDtoDAsync", s.index);
  }
  void zero_fill(void *dst, size_t nbytes) const {
    if (nbytes)
      check(api::driver()->cuMemsetD8Async(reinterpret_cast<api::CUdeviceptr>(dst), 0, nbytes,
                                           s.stream),
            "cuMemsetD8Async", s.index);
  }
  /// Quiet NaNs in f32 and f64 alike: 0x7ff8 repeated.
  void nan_fill(void *dst, size_t nbytes) const {
    if (nbytes)
      check(api::driver()->cuMemsetD16Async(reinterpret_cast<api::CUdeviceptr>(dst), 0x7ff8,
                                            nbytes / 2, s.stream),
            "cuMemsetD16Async", s.index);
  }
  /// c (cols x rows, column-major, ldc) = the transpose of a (rows x cols, column-major, lda).
  void transpose(const void *a, int rows, int cols, int lda, void *c, int ldc) const {
    if (rows == 0 || cols == 0)
      return;
    blas_check(b.geam(bh, api::CUBLAS_OP_T, api::CUBLAS_OP_T, cols, rows, one(), a, lda, zero(), a,
                      lda, c, ldc),
               f64 ? "cublasDgeam" : "cublasSgeam");
  }
  /// Keeps the `uplo` triangle of each n x n column-major matrix (ld) and zeroes the rest.
  void keep_triangle(void *a, int64_t count, int64_t stride, int n, int ld, int uplo) const {
    if (n == 0 || count == 0)
      return;
    int64_t packed = static_cast<int64_t>(n) * (n + 1) / 2;
    DeviceBlock p(s, bytes(packed * count));
    for (int64_t i = 0; i < count; ++i)
      blas_check(b.trttp(bh, uplo, n, at(a, i * stride), ld, at(p.get(), i * packed)),
                 f64 ? "cublasDtrttp" : "cublasStrttp");
    for (int64_t i = 0; i < count; ++i) {
      // Zero the columns of the matrix (ld may exceed n: only its n x n part is touched).
      if (ld == n)
        zero_fill(at(a, i * stride), bytes(static_cast<int64_t>(n) * n));
      else
        for (int c = 0; c < n; ++c)
          zero_fill(at(a, i * stride + static_cast<int64_t>(c) * ld), bytes(n));
      blas_check(b.tpttr(bh, uplo, n, at(p.get(), i * packed), at(a, i * stride), ld),
                 f64 ? "cublasDtpttr" : "cublasStpttr");
    }
  }
  /// The info array of `count` calls, read back (waits for the stream).
  std::vector<int> infos(const DeviceBlock &info, int64_t count) const {
    std::vector<int> h(static_cast<size_t>(count));
    if (count)
      copy_to_host(s.index, h.data(), info.get(), h.size() * sizeof(int));
    return h;
  }
  /// Host values of a small host-built matrix set, copied to `dst`.
  void upload(void *dst, const void *src, size_t nbytes) const {
    if (nbytes)
      copy_to_device(s.index, dst, src, nbytes);
  }
};

/// `count` row-major m x c identity matrices, in the dtype of `x`, uploaded to dst.
void identities(const Ctx &x, void *dst, int64_t count, int64_t m, int64_t c) {
  std::vector<char> h(x.bytes(count * m * c), 0);
  for (int64_t b = 0; b < count; ++b)
    for (int64_t i = 0; i < std::min(m, c); ++i) {
      char *p = h.data() + x.bytes(b * m * c + i * c + i);
      if (x.f64) {
        double one = 1;
        std::memcpy(p, &one, 8);
      } else {
        float one = 1;
        std::memcpy(p, &one, 4);
      }
    }
  x.upload(dst, h.data(), h.size());
}

} // namespace

bool available(std::string &why) {
  if (!api::solver()) {
    why = api::solver_error();
    return false;
  }
  if (!api::blas_helpers()) {
    why = api::blas_helpers_error();
    return false;
  }
  return true;
}

void cholesky(DeviceState &s, DType dt, int64_t batch, int64_t n, const void *a, void *l,
              bool symmetrize_input) {
  Ctx x(s, dt, "cholesky");
  int N = as_int(x.op, n);
  int64_t nn = n * n;
  if (batch == 0 || n == 0)
    return;
  // Row-major lower triangle = column-major upper, as on the CPU.
  for (int64_t i = 0; i < batch; ++i) {
    if (symmetrize_input) // (a + a^T) / 2
      x.blas_check(x.b.geam(x.bh, api::CUBLAS_OP_N, api::CUBLAS_OP_T, N, N, x.half(),
                            x.at(a, i * nn), N, x.half(), x.at(a, i * nn), N, x.at(l, i * nn), N),
                   "cublasgeam");
  }
  if (!symmetrize_input)
    x.copy(l, a, x.bytes(batch * nn));
  int lwork = 0;
  x.solver_check(x.r.potrf_bufferSize(x.h, api::CUBLAS_FILL_MODE_UPPER, N, l, N, &lwork),
                 "cusolverDnpotrf_bufferSize");
  DeviceBlock work(s, x.bytes(std::max(lwork, 1))), info(s, sizeof(int) * batch);
  for (int64_t i = 0; i < batch; ++i)
    x.solver_check(x.r.potrf(x.h, api::CUBLAS_FILL_MODE_UPPER, N, x.at(l, i * nn), N, work.get(),
                             lwork, info.as<int>() + i),
                   "cusolverDnpotrf");
  x.keep_triangle(l, batch, nn, N, N, api::CUBLAS_FILL_MODE_UPPER);
  std::vector<int> got = x.infos(info, batch);
  for (int64_t i = 0; i < batch; ++i)
    if (got[static_cast<size_t>(i)] != 0)
      x.nan_fill(x.at(l, i * nn), x.bytes(nn));
}

void triangular_solve(DeviceState &s, DType dt, int64_t batch, int64_t m, int64_t n, const void *a,
                      const void *b, void *xo, bool left_side, bool lower, bool transpose_a,
                      bool unit_diagonal) {
  Ctx x(s, dt, "triangular_solve");
  int64_t k = left_side ? m : n;
  x.copy(xo, b, x.bytes(batch * m * n));
  if (m == 0 || n == 0)
    return;
  // As on the CPU: row-major b (m x n) is column-major b^T, so op(a) x = b becomes
  // x^T op(a)^T = b^T: the other side, the other triangle, the same op.
  int M = as_int(x.op, n), N = as_int(x.op, m), K = as_int(x.op, k);
  int side = left_side ? api::CUBLAS_SIDE_RIGHT : api::CUBLAS_SIDE_LEFT;
  int uplo = lower ? api::CUBLAS_FILL_MODE_UPPER : api::CUBLAS_FILL_MODE_LOWER;
  int trans = transpose_a ? api::CUBLAS_OP_T : api::CUBLAS_OP_N;
  int diag = unit_diagonal ? api::CUBLAS_DIAG_UNIT : api::CUBLAS_DIAG_NON_UNIT;
  for (int64_t i = 0; i < batch; ++i)
    x.blas_check(x.b.trsm(x.bh, side, uplo, trans, diag, M, N, x.one(), x.at(a, i * k * k), K,
                          x.at(xo, i * m * n), M),
                 x.f64 ? "cublasDtrsm_v2" : "cublasStrsm_v2");
}

void lu(DeviceState &s, DType dt, int64_t batch, int64_t m, int64_t n, const void *a, void *lu,
        int32_t *pivots, int32_t *permutation) {
  Ctx x(s, dt, "lu");
  int64_t k = std::min(m, n), mn = m * n;
  int M = as_int(x.op, m), N = as_int(x.op, n);
  std::vector<int32_t> piv(static_cast<size_t>(batch * k)), perm(static_cast<size_t>(batch * m));
  if (batch > 0 && k > 0) {
    // getrf is column-major: a^T of the row-major buffer, factorized, transposed back.
    DeviceBlock f(s, x.bytes(batch * mn)), info(s, sizeof(int) * batch);
    for (int64_t i = 0; i < batch; ++i)
      x.transpose(x.at(a, i * mn), N, M, N, x.at(f.get(), i * mn), M);
    int lwork = 0;
    x.solver_check(x.r.getrf_bufferSize(x.h, M, N, f.get(), M, &lwork),
                   "cusolverDngetrf_bufferSize");
    DeviceBlock work(s, x.bytes(std::max(lwork, 1)));
    for (int64_t i = 0; i < batch; ++i)
      x.solver_check(x.r.getrf(x.h, M, N, x.at(f.get(), i * mn), M, work.get(), pivots + i * k,
                               info.as<int>() + i),
                     "cusolverDngetrf");
    for (int64_t i = 0; i < batch; ++i)
      x.transpose(x.at(f.get(), i * mn), M, N, M, x.at(lu, i * mn), N);
    // info > 0 (an exactly zero pivot) still gives a factorization, as on the CPU and in JAX.
    copy_to_host(s.index, piv.data(), pivots, piv.size() * sizeof(int32_t));
    for (int32_t &p : piv)
      p -= 1; // 1-based => 0-based
  } else {
    x.copy(lu, a, x.bytes(batch * mn));
  }
  linalg_pivots_to_permutation(batch, k, m, piv.data(), perm.data());
  x.upload(pivots, piv.data(), piv.size() * sizeof(int32_t));
  x.upload(permutation, perm.data(), perm.size() * sizeof(int32_t));
}

void qr(DeviceState &s, DType dt, int64_t batch, int64_t m, int64_t n, const void *a, void *q,
        void *r, bool full_matrices) {
  Ctx x(s, dt, "qr");
  int64_t k = std::min(m, n), qc = full_matrices ? m : k, rr = full_matrices ? m : k;
  int M = as_int(x.op, m), N = as_int(x.op, n), K = as_int(x.op, k), QC = as_int(x.op, qc);
  if (batch == 0)
    return;
  if (m == 0 || n == 0) {
    x.zero_fill(r, x.bytes(batch * rr * n));
    identities(x, q, batch, m, qc);
    return;
  }
  int64_t mn = m * n, mq = m * qc, rn = rr * n;
  // f: column-major a (m x n), factorized in place; qb: column-major Q (m x qc).
  DeviceBlock f(s, x.bytes(batch * mn)), qb(s, x.bytes(batch * mq)), tau(s, x.bytes(batch * k)),
      info(s, sizeof(int) * batch);
  for (int64_t i = 0; i < batch; ++i)
    x.transpose(x.at(a, i * mn), N, M, N, x.at(f.get(), i * mn), M);
  int lwork = 0, lwork_q = 0;
  x.solver_check(x.r.geqrf_bufferSize(x.h, M, N, f.get(), M, &lwork), "cusolverDngeqrf_bufferSize");
  x.solver_check(x.r.orgqr_bufferSize(x.h, M, QC, K, qb.get(), M, tau.get(), &lwork_q),
                 "cusolverDnorgqr_bufferSize");
  lwork = std::max({lwork, lwork_q, 1});
  DeviceBlock work(s, x.bytes(lwork));
  for (int64_t i = 0; i < batch; ++i)
    x.solver_check(x.r.geqrf(x.h, M, N, x.at(f.get(), i * mn), M, x.at(tau.get(), i * k),
                             work.get(), lwork, info.as<int>() + i),
                   "cusolverDngeqrf");
  // r (row-major rr x n) is column-major r^T (n x rr): the lower trapezoid of f^T's first rr
  // columns. t = f^T (n x m); its leading k x k lower triangle, and below it rows k..n of the
  // first k columns; zeros elsewhere (columns k..rr are all below the diagonal of r).
  DeviceBlock t(s, x.bytes(mn));
  for (int64_t i = 0; i < batch; ++i) {
    void *ri = x.at(r, i * rn);
    x.transpose(x.at(f.get(), i * mn), M, N, M, t.get(), N);
    x.zero_fill(ri, x.bytes(rn));
    if (n > k) // rows k..n of columns 0..k: all at or above r's diagonal
      x.blas_check(x.b.geam(x.bh, api::CUBLAS_OP_N, api::CUBLAS_OP_N, N - K, K, x.one(),
                            x.at(t.get(), k), N, x.zero(), x.at(t.get(), k), N, x.at(ri, k), N),
                   x.f64 ? "cublasDgeam" : "cublasSgeam");
    // The k x k lower triangle of t, into r^T's leading block (ld n).
    int64_t packed = k * (k + 1) / 2;
    DeviceBlock p(s, x.bytes(packed));
    x.blas_check(x.b.trttp(x.bh, api::CUBLAS_FILL_MODE_LOWER, K, t.get(), N, p.get()),
                 x.f64 ? "cublasDtrttp" : "cublasStrttp");
    x.blas_check(x.b.tpttr(x.bh, api::CUBLAS_FILL_MODE_LOWER, K, p.get(), ri, N),
                 x.f64 ? "cublasDtpttr" : "cublasStpttr");
  }
  // q: orgqr on f's first min(qc, n) columns (the reflectors), then to row-major.
  for (int64_t i = 0; i < batch; ++i) {
    void *qi = x.at(qb.get(), i * mq);
    x.copy(qi, x.at(f.get(), i * mn), x.bytes(m * std::min(qc, n)));
    x.solver_check(x.r.orgqr(x.h, M, QC, K, qi, M, x.at(tau.get(), i * k), work.get(), lwork,
                             info.as<int>() + i),
                   "cusolverDnorgqr");
    x.transpose(qi, M, QC, M, x.at(q, i * mq), QC);
  }
}

void eigh(DeviceState &s, DType dt, int64_t batch, int64_t n, const void *a, void *v, void *w,
          bool lower) {
  Ctx x(s, dt, "eigh");
  int N = as_int(x.op, n);
  int64_t nn = n * n;
  if (batch == 0 || n == 0)
    return;
  // Row-major lower triangle = column-major upper; the eigenvectors come back as columns of a
  // column-major matrix and are transposed into v's rows.
  int uplo = lower ? api::CUBLAS_FILL_MODE_UPPER : api::CUBLAS_FILL_MODE_LOWER;
  DeviceBlock f(s, x.bytes(batch * nn)), info(s, sizeof(int) * batch);
  x.copy(f.get(), a, x.bytes(batch * nn));
  int lwork = 0;
  x.solver_check(
      x.r.syevd_bufferSize(x.h, api::CUSOLVER_EIG_MODE_VECTOR, uplo, N, f.get(), N, w, &lwork),
      "cusolverDnsyevd_bufferSize");
  DeviceBlock work(s, x.bytes(std::max(lwork, 1)));
  for (int64_t i = 0; i < batch; ++i)
    x.solver_check(x.r.syevd(x.h, api::CUSOLVER_EIG_MODE_VECTOR, uplo, N, x.at(f.get(), i * nn), N,
                             x.at(w, i * n), work.get(), lwork, info.as<int>() + i),
                   "cusolverDnsyevd");
  for (int64_t i = 0; i < batch; ++i)
    x.transpose(x.at(f.get(), i * nn), N, N, N, x.at(v, i * nn), N);
  std::vector<int> got = x.infos(info, batch);
  for (int64_t i = 0; i < batch; ++i)
    if (got[static_cast<size_t>(i)] != 0) {
      x.nan_fill(x.at(v, i * nn), x.bytes(nn));
      x.nan_fill(x.at(w, i * n), x.bytes(n));
    }
}

void svd(DeviceState &s, DType dt, int64_t batch, int64_t m, int64_t n, const void *a, void *sv,
         void *u, void *vt, bool full_matrices) {
  Ctx x(s, dt, "svd");
  int64_t k = std::min(m, n), uc = full_matrices ? m : k, vr = full_matrices ? n : k;
  bool uv = u != nullptr && vt != nullptr;
  if (batch == 0)
    return;
  if (k == 0) {
    if (uv) {
      identities(x, u, batch, m, uc);
      identities(x, vt, batch, vr, n);
    }
    return;
  }
  int64_t mn = m * n, mu = m * uc, vn = vr * n;
  signed char job = !uv ? 'N' : full_matrices ? 'A' : 'S';
  // gesvd takes rows >= columns. Row-major a is column-major b = a^T (n x m): when n >= m it is
  // factorized as is, b = U' S V'^T, so a = V' S U'^T: u (row-major) is V'^T's column-major
  // bytes and vt (row-major) is U''s. Otherwise a is transposed to column-major (m x n) and the
  // factors are transposed back.
  bool wide = n >= m;
  int R = as_int(x.op, wide ? n : m), C = as_int(x.op, wide ? m : n);
  int64_t vc = wide ? uc : vr; // rows of gesvd's VT (its leading dimension)
  DeviceBlock f(s, x.bytes(batch * mn)), info(s, sizeof(int) * batch),
      rwork(s, x.bytes(std::max<int64_t>(k, 1)));
  // gesvd's U and VT: straight into the outputs when wide, else into buffers transposed after.
  DeviceBlock ub(s, uv && !wide ? x.bytes(batch * mu) : 0),
      vb(s, uv && !wide ? x.bytes(batch * vn) : 0);
  if (wide)
    x.copy(f.get(), a, x.bytes(batch * mn));
  else
    for (int64_t i = 0; i < batch; ++i)
      x.transpose(x.at(a, i * mn), C, R, C, x.at(f.get(), i * mn), R);
  int lwork = 0;
  x.solver_check(x.r.gesvd_bufferSize(x.h, R, C, &lwork), "cusolverDngesvd_bufferSize");
  DeviceBlock work(s, x.bytes(std::max(lwork, 1)));
  for (int64_t i = 0; i < batch; ++i) {
    void *gu = !uv ? nullptr : wide ? x.at(vt, i * vn) : x.at(ub.get(), i * mu);
    void *gvt = !uv ? nullptr : wide ? x.at(u, i * mu) : x.at(vb.get(), i * vn);
    x.solver_check(x.r.gesvd(x.h, job, job, R, C, x.at(f.get(), i * mn), R, x.at(sv, i * k), gu, R,
                             gvt, static_cast<int>(vc), work.get(), lwork, rwork.get(),
                             info.as<int>() + i),
                   "cusolverDngesvd");
  }
  if (uv && !wide)
    for (int64_t i = 0; i < batch; ++i) {
      // U (m x uc) and VT (vr x n), column-major, to row-major.
      x.transpose(x.at(ub.get(), i * mu), static_cast<int>(m), static_cast<int>(uc),
                  static_cast<int>(m), x.at(u, i * mu), static_cast<int>(uc));
      x.transpose(x.at(vb.get(), i * vn), static_cast<int>(vr), static_cast<int>(n),
                  static_cast<int>(vr), x.at(vt, i * vn), static_cast<int>(n));
    }
  std::vector<int> got = x.infos(info, batch);
  for (int64_t i = 0; i < batch; ++i)
    if (got[static_cast<size_t>(i)] != 0) {
      x.nan_fill(x.at(sv, i * k), x.bytes(k));
      if (uv) {
        x.nan_fill(x.at(u, i * mu), x.bytes(mu));
        x.nan_fill(x.at(vt, i * vn), x.bytes(vn));
      }
    }
}

} // namespace strata::cuda::solver
