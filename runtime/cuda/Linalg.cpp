// The linear algebra of GPU-compiled code: cuSOLVER and cuBLAS on the device buffers
// (Solver.cpp) when they load; otherwise each call stages its device operands through host
// memory and runs libstrata's LAPACK kernels, the eager primitives' own.
#include "runtime/cuda/Linalg.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/cuda/CudaInternal.h"
#include "runtime/cuda/LibraryState.h"
#include "runtime/cuda/Solver.h"
#include "strata/internal/linalg_kernels.h"

namespace strata::cuda {
namespace {

/// The float32 or float64 dtype of code `d`; anything else throws before a device is touched
/// (the GPU lowering keeps complex matrices off this path, so only a miscompiled call gets
/// here).
DType float_dtype(const char *op, int64_t d) {
  if (d == static_cast<int64_t>(DType::Float32) || d == static_cast<int64_t>(DType::Float64))
    return static_cast<DType>(d);
  std::string what = d >= 0 && d <= static_cast<int64_t>(DType::Float64)
                         ? std::string(dtype_name(static_cast<DType>(d)))
                         : "code " + std::to_string(d);
  throw Error(std::string("[") + op + "] the CUDA runtime takes float32 or float64 matrices, not " +
                  what,
              ErrorKind::Type);
}
void *device_ptr(int64_t a) { return reinterpret_cast<void *>(static_cast<intptr_t>(a)); }

/// A host copy of one device buffer of `nbytes` (the operand's bytes read after the work queued
/// before the call, or the result's bytes written back by `store`).
class Staged {
public:
  Staged(int device, int64_t address, size_t nbytes)
      : device_(device), address_(device_ptr(address)), bytes_(nbytes) {}
  /// Reads the device buffer (waits for the stream).
  Staged &load() {
    if (!bytes_.empty())
      copy_to_host(device_, bytes_.data(), address_, bytes_.size());
    return *this;
  }
  /// Writes the host bytes back to the device buffer (waits for the copy: the host buffer dies
  /// with this object).
  void store() {
    if (!bytes_.empty())
      copy_to_device(device_, address_, bytes_.data(), bytes_.size());
  }
  void *data() { return bytes_.data(); }
  int32_t *ints() { return reinterpret_cast<int32_t *>(bytes_.data()); }

private:
  int device_;
  void *address_;
  std::vector<std::byte> bytes_;
};

/// Runs `f`, recording a failure as this thread's pending C ABI error: compiled code calls these
/// functions and cannot take an exception through its frames.
template <class F> void guarded(const char *op, F f) {
  if (has_pending_error())
    return;
  try {
    f(current_device());
  } catch (const Error &e) {
    record_error(e.what(), e.kind());
  } catch (const std::exception &e) {
    record_error(std::string("[") + op + "] " + e.what());
  }
}

/// Runs `f` on cuSOLVER (device state, libs_mu held) when it loaded and returns true; false when
/// the caller is to stage through the host. STRATA_CUDA_LINALG=host forces the host path.
template <class F> bool on_device(int device, F f) {
  if (linalg_backend() != "cusolver")
    return false;
  DeviceState &s = enter(device);
  std::lock_guard<std::mutex> lock(s.libs_mu);
  f(s);
  return true;
}

size_t elements(int64_t batch, int64_t rows, int64_t cols) {
  return static_cast<size_t>(batch) * static_cast<size_t>(rows) * static_cast<size_t>(cols);
}

} // namespace

std::string linalg_backend() {
  static const std::string backend = [] {
    const char *env = std::getenv("STRATA_CUDA_LINALG");
    if (env && std::string(env) == "host")
      return std::string("host (STRATA_CUDA_LINALG=host)");
    std::string why;
    if (!solver::available(why))
      return "host (" + why + ")";
    return std::string("cusolver");
  }();
  return backend;
}

} // namespace strata::cuda

using namespace strata::cuda;

extern "C" void strata_rt_cuda_cholesky(int64_t dtype, int64_t batch, int64_t n, int64_t a,
                                        int64_t l, int64_t symmetrize_input) {
  guarded("cholesky", [&](int d) {
    strata::DType dt = float_dtype("cholesky", dtype);
    if (on_device(d, [&](DeviceState &st) {
          solver::cholesky(st, dt, batch, n, device_ptr(a), device_ptr(l), symmetrize_input != 0);
        }))
      return;
    size_t bytes = elements(batch, n, n) * strata::itemsize(dt);
    Staged in(d, a, bytes), out(d, l, bytes);
    strata::linalg_cholesky(dt, batch, n, in.load().data(), out.data(), symmetrize_input != 0);
    out.store();
  });
}

extern "C" void strata_rt_cuda_triangular_solve(int64_t dtype, int64_t batch, int64_t m, int64_t n,
                                                int64_t a, int64_t b, int64_t x, int64_t flags) {
  guarded("triangular_solve", [&](int d) {
    strata::DType dt = float_dtype("triangular_solve", dtype);
    if (on_device(d, [&](DeviceState &st) {
          solver::triangular_solve(st, dt, batch, m, n, device_ptr(a), device_ptr(b), device_ptr(x),
                                   flags & 1, flags & 2, flags & 4, flags & 8);
        }))
      return;
    size_t size = strata::itemsize(dt);
    int64_t k = (flags & 1) ? m : n;
    Staged sa(d, a, elements(batch, k, k) * size), sb(d, b, elements(batch, m, n) * size),
        sx(d, x, elements(batch, m, n) * size);
    sa.load();
    sb.load();
    strata::linalg_triangular_solve(dt, batch, m, n, sa.data(), sb.data(), sx.data(), flags & 1,
                                    flags & 2, flags & 4, flags & 8);
    sx.store();
  });
}

extern "C" void strata_rt_cuda_lu(int64_t dtype, int64_t batch, int64_t m, int64_t n, int64_t a,
                                  int64_t lu, int64_t pivots, int64_t permutation) {
  guarded("lu", [&](int d) {
    strata::DType dt = float_dtype("lu", dtype);
    if (on_device(d, [&](DeviceState &st) {
          solver::lu(st, dt, batch, m, n, device_ptr(a), device_ptr(lu),
                     static_cast<int32_t *>(device_ptr(pivots)),
                     static_cast<int32_t *>(device_ptr(permutation)));
        }))
      return;
    size_t bytes = elements(batch, m, n) * strata::itemsize(dt);
    Staged in(d, a, bytes), out(d, lu, bytes),
        piv(d, pivots, elements(batch, 1, std::min(m, n)) * sizeof(int32_t)),
        perm(d, permutation, elements(batch, 1, m) * sizeof(int32_t));
    strata::linalg_lu(dt, batch, m, n, in.load().data(), out.data(), piv.ints(), perm.ints());
    out.store();
    piv.store();
    perm.store();
  });
}

extern "C" void strata_rt_cuda_lu_pivots_to_permutation(int64_t batch, int64_t k, int64_t size,
                                                        int64_t pivots, int64_t permutation) {
  guarded("lu_pivots_to_permutation", [&](int d) {
    Staged piv(d, pivots, elements(batch, 1, k) * sizeof(int32_t)),
        perm(d, permutation, elements(batch, 1, size) * sizeof(int32_t));
    strata::linalg_pivots_to_permutation(batch, k, size, piv.load().ints(), perm.ints());
    perm.store();
  });
}

extern "C" void strata_rt_cuda_qr(int64_t dtype, int64_t batch, int64_t m, int64_t n, int64_t a,
                                  int64_t q, int64_t r, int64_t full_matrices) {
  guarded("qr", [&](int d) {
    strata::DType dt = float_dtype("qr", dtype);
    if (on_device(d, [&](DeviceState &st) {
          solver::qr(st, dt, batch, m, n, device_ptr(a), device_ptr(q), device_ptr(r),
                     full_matrices != 0);
        }))
      return;
    size_t size = strata::itemsize(dt);
    int64_t k = std::min(m, n);
    bool full = full_matrices != 0;
    Staged in(d, a, elements(batch, m, n) * size),
        sq(d, q, elements(batch, m, full ? m : k) * size),
        sr(d, r, elements(batch, full ? m : k, n) * size);
    strata::linalg_qr(dt, batch, m, n, in.load().data(), sq.data(), sr.data(), full);
    sq.store();
    sr.store();
  });
}

extern "C" void strata_rt_cuda_eigh(int64_t dtype, int64_t batch, int64_t n, int64_t a, int64_t v,
                                    int64_t w, int64_t lower) {
  guarded("eigh", [&](int d) {
    strata::DType dt = float_dtype("eigh", dtype);
    if (on_device(d, [&](DeviceState &st) {
          solver::eigh(st, dt, batch, n, device_ptr(a), device_ptr(v), device_ptr(w), lower != 0);
        }))
      return;
    size_t size = strata::itemsize(dt);
    Staged in(d, a, elements(batch, n, n) * size), sv(d, v, elements(batch, n, n) * size),
        sw(d, w, elements(batch, 1, n) * size);
    strata::linalg_eigh(dt, batch, n, in.load().data(), sv.data(), sw.data(), lower != 0);
    sv.store();
    sw.store();
  });
}

extern "C" void strata_rt_cuda_svd(int64_t dtype, int64_t batch, int64_t m, int64_t n, int64_t a,
                                   int64_t s, int64_t u, int64_t vt, int64_t full_matrices) {
  guarded("svd", [&](int d) {
    strata::DType dt = float_dtype("svd", dtype);
    if (on_device(d, [&](DeviceState &st) {
          bool uv = u != 0 && vt != 0;
          solver::svd(st, dt, batch, m, n, device_ptr(a), device_ptr(s),
                      uv ? device_ptr(u) : nullptr, uv ? device_ptr(vt) : nullptr,
                      full_matrices != 0);
        }))
      return;
    size_t size = strata::itemsize(dt);
    int64_t k = std::min(m, n);
    bool full = full_matrices != 0, uv = u != 0 && vt != 0;
    Staged in(d, a, elements(batch, m, n) * size), ss(d, s, elements(batch, 1, k) * size),
        su(d, u, uv ? elements(batch, m, full ? m : k) * size : 0),
        svt(d, vt, uv ? elements(batch, full ? n : k, n) * size : 0);
    strata::linalg_svd(dt, batch, m, n, in.load().data(), ss.data(), uv ? su.data() : nullptr,
                       uv ? svt.data() : nullptr, full);
    ss.store();
    if (uv) {
      su.store();
      svt.store();
    }
  });
}
