// Loads cuFFT, cuSOLVER and cuBLAS's routines beyond gemm with dlopen and resolves their
// entry points.
#include "runtime/cuda/LibraryApi.h"

#include <dlfcn.h>

#include <cstdlib>
#include <iterator>

#include "strata/error.h"

namespace strata::cuda::api {

namespace {

/// Resolves `name` into `slot`; records the first missing symbol in `missing`.
template <class F> void resolve(void *lib, F &slot, const char *name, std::string &missing) {
  slot = reinterpret_cast<F>(dlsym(lib, name));
  if (!slot && missing.empty())
    missing = name;
}

/// True when the environment variable `name` is set to something other than "" or "0": the
/// way to run the fallbacks on a machine that has the library.
bool disabled(const char *name) {
  const char *v = std::getenv(name);
  return v && *v && std::string(v) != "0";
}

struct FftLoad {
  Fft fns{};
  bool ok = false;
  std::string error;
};

const FftLoad &fft_load() {
  static const FftLoad f = [] {
    FftLoad f;
    if (disabled("STRATA_DISABLE_CUFFT")) {
      f.error = "STRATA_DISABLE_CUFFT is set";
      return f;
    }
    void *lib = open_library({"libcufft.so.12"}, f.error);
    if (!lib)
      return f;
    std::string missing;
    Fft &x = f.fns;
#define STRATA_RESOLVE(name) resolve(lib, x.name, #name, missing)
    STRATA_RESOLVE(cufftGetVersion);
    STRATA_RESOLVE(cufftCreate);
    STRATA_RESOLVE(cufftDestroy);
    STRATA_RESOLVE(cufftSetAutoAllocation);
    STRATA_RESOLVE(cufftMakePlanMany64);
    STRATA_RESOLVE(cufftSetWorkArea);
    STRATA_RESOLVE(cufftSetStream);
    STRATA_RESOLVE(cufftExecC2C);
    STRATA_RESOLVE(cufftExecZ2Z);
    STRATA_RESOLVE(cufftExecR2C);
    STRATA_RESOLVE(cufftExecD2Z);
    STRATA_RESOLVE(cufftExecC2R);
    STRATA_RESOLVE(cufftExecZ2D);
#undef STRATA_RESOLVE
    if (!missing.empty()) {
      f.error = "libcufft.so.12 lacks " + missing;
      return f;
    }
    f.ok = true;
    return f;
  }();
  return f;
}

struct SolverLoad {
  Solver fns{};
  bool ok = false;
  std::string error;
};

/// Resolves one precision's routines: cusolverDn<P><name>.
void resolve_routines(void *solver, char p, SolverRoutines &r, std::string &missing) {
  auto dn = [&](const char *name) { return std::string("cusolverDn") + p + name; };
  resolve(solver, r.potrf_bufferSize, dn("potrf_bufferSize").c_str(), missing);
  resolve(solver, r.potrf, dn("potrf").c_str(), missing);
  resolve(solver, r.getrf_bufferSize, dn("getrf_bufferSize").c_str(), missing);
  resolve(solver, r.getrf, dn("getrf").c_str(), missing);
  resolve(solver, r.geqrf_bufferSize, dn("geqrf_bufferSize").c_str(), missing);
  resolve(solver, r.geqrf, dn("geqrf").c_str(), missing);
  resolve(solver, r.orgqr_bufferSize, dn("orgqr_bufferSize").c_str(), missing);
  resolve(solver, r.orgqr, dn("orgqr").c_str(), missing);
  resolve(solver, r.syevd_bufferSize, dn("syevd_bufferSize").c_str(), missing);
  resolve(solver, r.syevd, dn("syevd").c_str(), missing);
  resolve(solver, r.gesvd_bufferSize, dn("gesvd_bufferSize").c_str(), missing);
  resolve(solver, r.gesvd, dn("gesvd").c_str(), missing);
}

/// Resolves one precision's cuBLAS helpers: cublas<P><name>.
void resolve_routines(void *blas, char p, BlasRoutines &r, std::string &missing) {
  auto cb = [&](const char *name) { return std::string("cublas") + p + name; };
  resolve(blas, r.trsm, cb("trsm_v2").c_str(), missing);
  resolve(blas, r.geam, cb("geam").c_str(), missing);
  resolve(blas, r.trttp, cb("trttp").c_str(), missing);
  resolve(blas, r.tpttr, cb("tpttr").c_str(), missing);
  resolve(blas, r.scal, cb("scal_v2").c_str(), missing);
}

struct BlasHelpersLoad {
  BlasHelpers fns{};
  bool ok = false;
  std::string error;
};

const BlasHelpersLoad &blas_helpers_load() {
  static const BlasHelpersLoad b = [] {
    BlasHelpersLoad b;
    if (!blas()) {
      b.error = blas_error();
      return b;
    }
    void *lib = open_library({"libcublas.so.13"}, b.error);
    if (!lib)
      return b;
    std::string missing;
    resolve_routines(lib, 'S', b.fns.s, missing);
    resolve_routines(lib, 'D', b.fns.d, missing);
    if (!missing.empty()) {
      b.error = "libcublas.so.13 lacks " + missing;
      return b;
    }
    b.ok = true;
    return b;
  }();
  return b;
}

const SolverLoad &solver_load() {
  static const SolverLoad s = [] {
    SolverLoad s;
    if (disabled("STRATA_DISABLE_CUSOLVER")) {
      s.error = "STRATA_DISABLE_CUSOLVER is set";
      return s;
    }
    void *lib = open_library({"libcusolver.so.12"}, s.error);
    if (!lib)
      return s;
    std::string missing;
    Solver &f = s.fns;
    resolve(lib, f.cusolverGetVersion, "cusolverGetVersion", missing);
    resolve(lib, f.cusolverDnCreate, "cusolverDnCreate", missing);
    resolve(lib, f.cusolverDnDestroy, "cusolverDnDestroy", missing);
    resolve(lib, f.cusolverDnSetStream, "cusolverDnSetStream", missing);
    resolve_routines(lib, 'S', f.s, missing);
    resolve_routines(lib, 'D', f.d, missing);
    if (!missing.empty()) {
      s.error = "libcusolver.so.12 lacks " + missing;
      return s;
    }
    s.ok = true;
    return s;
  }();
  return s;
}

struct DnnLoad {
  Dnn fns{};
  bool ok = false;
  std::string error;
};

const DnnLoad &dnn_load() {
  static const DnnLoad d = [] {
    DnnLoad d;
    if (disabled("STRATA_DISABLE_CUDNN")) {
      d.error = "STRATA_DISABLE_CUDNN is set";
      return d;
    }
    void *lib = open_library({"libcudnn.so.9"}, d.error);
    if (!lib)
      return d;
    std::string missing;
    Dnn &x = d.fns;
#define STRATA_RESOLVE(name) resolve(lib, x.name, #name, missing)
    STRATA_RESOLVE(cudnnGetVersion);
    STRATA_RESOLVE(cudnnGetErrorString);
    STRATA_RESOLVE(cudnnCreate);
    STRATA_RESOLVE(cudnnSetStream);
    STRATA_RESOLVE(cudnnCreateTensorDescriptor);
    STRATA_RESOLVE(cudnnSetTensorNdDescriptor);
    STRATA_RESOLVE(cudnnDestroyTensorDescriptor);
    STRATA_RESOLVE(cudnnCreateFilterDescriptor);
    STRATA_RESOLVE(cudnnSetFilterNdDescriptor);
    STRATA_RESOLVE(cudnnDestroyFilterDescriptor);
    STRATA_RESOLVE(cudnnCreateConvolutionDescriptor);
    STRATA_RESOLVE(cudnnSetConvolutionNdDescriptor);
    STRATA_RESOLVE(cudnnSetConvolutionGroupCount);
    STRATA_RESOLVE(cudnnSetConvolutionMathType);
    STRATA_RESOLVE(cudnnDestroyConvolutionDescriptor);
    STRATA_RESOLVE(cudnnGetConvolutionForwardAlgorithm_v7);
    STRATA_RESOLVE(cudnnGetConvolutionForwardWorkspaceSize);
    STRATA_RESOLVE(cudnnConvolutionForward);
#undef STRATA_RESOLVE
    if (!missing.empty()) {
      d.error = "libcudnn.so.9 lacks " + missing;
      return d;
    }
    d.ok = true;
    return d;
  }();
  return d;
}

} // namespace

const Dnn *dnn() { return dnn_load().ok ? &dnn_load().fns : nullptr; }
const std::string &dnn_error() { return dnn_load().error; }

std::string dnn_status_text(cudnnStatus_t s) {
  const char *text =
      dnn_load().fns.cudnnGetErrorString ? dnn_load().fns.cudnnGetErrorString(s) : nullptr;
  return text ? std::string(text) : detail::cat("cuDNN status ", s);
}

const Fft *fft() { return fft_load().ok ? &fft_load().fns : nullptr; }
const std::string &fft_error() { return fft_load().error; }

std::string fft_result_name(cufftResult r) {
  static const char *const names[] = {
      "CUFFT_SUCCESS",        "CUFFT_INVALID_PLAN",      "CUFFT_ALLOC_FAILED",
      "CUFFT_INVALID_TYPE",   "CUFFT_INVALID_VALUE",     "CUFFT_INTERNAL_ERROR",
      "CUFFT_EXEC_FAILED",    "CUFFT_SETUP_FAILED",      "CUFFT_INVALID_SIZE",
      "CUFFT_UNALIGNED_DATA", "cuFFT error 10",          "CUFFT_INVALID_DEVICE",
      "cuFFT error 12",       "CUFFT_NO_WORKSPACE",      "CUFFT_NOT_IMPLEMENTED",
      "cuFFT error 15",       "CUFFT_NOT_SUPPORTED",     "CUFFT_MISSING_DEPENDENCY",
      "CUFFT_NVRTC_FAILURE",  "CUFFT_NVJITLINK_FAILURE", "CUFFT_NVSHMEM_FAILURE",
  };
  if (r >= 0 && static_cast<size_t>(r) < std::size(names))
    return names[r];
  return detail::cat("cuFFT error ", r);
}

const BlasHelpers *blas_helpers() {
  return blas_helpers_load().ok ? &blas_helpers_load().fns : nullptr;
}
const std::string &blas_helpers_error() { return blas_helpers_load().error; }

const Solver *solver() { return solver_load().ok ? &solver_load().fns : nullptr; }
const std::string &solver_error() { return solver_load().error; }

std::string solver_status_name(cusolverStatus_t s) {
  static const char *const names[] = {
      "CUSOLVER_STATUS_SUCCESS",
      "CUSOLVER_STATUS_NOT_INITIALIZED",
      "CUSOLVER_STATUS_ALLOC_FAILED",
      "CUSOLVER_STATUS_INVALID_VALUE",
      "CUSOLVER_STATUS_ARCH_MISMATCH",
      "CUSOLVER_STATUS_MAPPING_ERROR",
      "CUSOLVER_STATUS_EXECUTION_FAILED",
      "CUSOLVER_STATUS_INTERNAL_ERROR",
      "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
      "CUSOLVER_STATUS_NOT_SUPPORTED",
  };
  if (s >= 0 && static_cast<size_t>(s) < std::size(names))
    return names[s];
  return detail::cat("cuSOLVER status ", s);
}

} // namespace strata::cuda::api
