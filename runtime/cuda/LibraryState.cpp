// Per-device cuBLAS, cuSOLVER and cuDNN handles (created on first use, on the device's stream) and
// the status checks of the cuFFT/cuSOLVER runtime functions.
#include "runtime/cuda/LibraryState.h"

#include <memory>

namespace strata::cuda {

LibraryState &library_state(DeviceState &s) {
  if (!s.libs)
    s.libs = std::make_unique<LibraryState>().release(); // never freed: see DeviceState
  return *s.libs;
}

api::cublasHandle_t blas_handle(DeviceState &s, std::string_view op) {
  LibraryState &l = library_state(s);
  if (!l.blas) {
    const api::Blas *b = api::blas();
    if (!b || !api::blas_helpers())
      fail(op, "cuBLAS is not available: ", b ? api::blas_helpers_error() : api::blas_error());
    api::cublasHandle_t h = nullptr;
    check_blas(b->cublasCreate_v2(&h), "cublasCreate_v2", op, s.index);
    check_blas(b->cublasSetStream_v2(h, s.stream), "cublasSetStream_v2", op, s.index);
    l.blas = h;
  }
  return l.blas;
}

api::cusolverDnHandle_t solver_handle(DeviceState &s, std::string_view op) {
  LibraryState &l = library_state(s);
  if (!l.solver) {
    const api::Solver *f = api::solver();
    if (!f)
      fail(op, "cuSOLVER is not available: ", api::solver_error());
    api::cusolverDnHandle_t h = nullptr;
    check_solver(f->cusolverDnCreate(&h), "cusolverDnCreate", op, s.index);
    check_solver(f->cusolverDnSetStream(h, s.stream), "cusolverDnSetStream", op, s.index);
    l.solver = h;
  }
  return l.solver;
}

api::cudnnHandle_t dnn_handle(DeviceState &s, std::string_view op) {
  LibraryState &l = library_state(s);
  if (!l.dnn) {
    const api::Dnn *f = api::dnn();
    if (!f)
      fail(op, "cuDNN is not available: ", api::dnn_error());
    api::cudnnHandle_t h = nullptr;
    check_dnn(f->cudnnCreate(&h), "cudnnCreate", op, s.index);
    check_dnn(f->cudnnSetStream(h, s.stream), "cudnnSetStream", op, s.index);
    l.dnn = h;
  }
  return l.dnn;
}

void check_blas(api::cublasStatus_t st, std::string_view call, std::string_view op, int device) {
  if (st != api::CUBLAS_STATUS_SUCCESS)
    throw Error(detail::cat("[", op, "] ", call, " on cuda:", device,
                            " failed: ", api::blas_status_text(st)),
                ErrorKind::Internal);
}

void check_solver(api::cusolverStatus_t st, std::string_view call, std::string_view op,
                  int device) {
  if (st != api::CUSOLVER_STATUS_SUCCESS)
    throw Error(detail::cat("[", op, "] ", call, " on cuda:", device,
                            " failed: ", api::solver_status_name(st)),
                ErrorKind::Internal);
}

void check_fft(api::cufftResult r, std::string_view call, std::string_view op, int device) {
  if (r != api::CUFFT_SUCCESS)
    throw Error(
        detail::cat("[", op, "] ", call, " on cuda:", device, " failed: ", api::fft_result_name(r)),
        ErrorKind::Internal);
}

} // namespace strata::cuda

namespace strata::cuda {
void check_dnn(api::cudnnStatus_t st, std::string_view call, std::string_view op, int device) {
  if (st != api::CUDNN_STATUS_SUCCESS)
    throw Error(detail::cat("[", op, "] ", call, " on cuda:", device,
                            " failed: ", api::dnn_status_text(st)),
                ErrorKind::Internal);
}
} // namespace strata::cuda
