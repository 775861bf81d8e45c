// The cuFFT, cuSOLVER and cuDNN entry points (and the cuBLAS routines beyond gemm they need) that
// Strata uses, declared here (no toolkit header needed) and resolved with dlopen/dlsym on first
// use, like the driver and cuBLAS in CudaApi.h. The loaders are exported for the tests, which
// check what resolves without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/cuda/CudaApi.h"
#include "strata/export.h"

// cuSOLVER's opaque handle type, spelled as cusolverDn.h spells it (test_cuda_abi_libs.cpp).
struct cusolverDnContext;

namespace strata::cuda::api {

// ---- cuFFT (cufft.h) ---------------------------------------------------------------------------
using cufftResult = int;
using cufftHandle = int;
inline constexpr cufftResult CUFFT_SUCCESS = 0;
inline constexpr int CUFFT_FORWARD_DIRECTION = -1; // cufft.h: the macro CUFFT_FORWARD
inline constexpr int CUFFT_INVERSE_DIRECTION = 1;  // cufft.h: the macro CUFFT_INVERSE
inline constexpr int CUFFT_R2C = 0x2a;
inline constexpr int CUFFT_C2R = 0x2c;
inline constexpr int CUFFT_C2C = 0x29;
inline constexpr int CUFFT_D2Z = 0x6a;
inline constexpr int CUFFT_Z2D = 0x6c;
inline constexpr int CUFFT_Z2Z = 0x69;

/// libcufft.so.12's functions. Pointers to data are void *: cufftComplex is two floats,
/// cufftDoubleComplex two doubles, interleaved.
struct Fft {
  cufftResult (*cufftGetVersion)(int *);
  cufftResult (*cufftCreate)(cufftHandle *);
  cufftResult (*cufftDestroy)(cufftHandle);
  cufftResult (*cufftSetAutoAllocation)(cufftHandle, int);
  cufftResult (*cufftMakePlanMany64)(cufftHandle, int, long long *, long long *, long long,
                                     long long, long long *, long long, long long, int, long long,
                                     size_t *);
  cufftResult (*cufftSetWorkArea)(cufftHandle, void *);
  cufftResult (*cufftSetStream)(cufftHandle, CUstream);
  cufftResult (*cufftExecC2C)(cufftHandle, void *, void *, int);
  cufftResult (*cufftExecZ2Z)(cufftHandle, void *, void *, int);
  cufftResult (*cufftExecR2C)(cufftHandle, void *, void *);
  cufftResult (*cufftExecD2Z)(cufftHandle, void *, void *);
  cufftResult (*cufftExecC2R)(cufftHandle, void *, void *);
  cufftResult (*cufftExecZ2D)(cufftHandle, void *, void *);
};

/// cuFFT, loaded once; null with the reason in `fft_error()` when it is missing or lacks a symbol.
STRATA_EXPORT const Fft *fft();
STRATA_EXPORT const std::string &fft_error();
/// "CUFFT_INVALID_SIZE" for `r`.
STRATA_EXPORT std::string fft_result_name(cufftResult r);

// ---- cuSOLVER (cusolverDn.h) and cuBLAS's helpers (cublas_api.h) ------------------------------
using cusolverStatus_t = int;
using cusolverDnHandle_t = ::cusolverDnContext *;
inline constexpr cusolverStatus_t CUSOLVER_STATUS_SUCCESS = 0;
inline constexpr int CUBLAS_FILL_MODE_LOWER = 0;
inline constexpr int CUBLAS_FILL_MODE_UPPER = 1;
inline constexpr int CUBLAS_SIDE_LEFT = 0;
inline constexpr int CUBLAS_SIDE_RIGHT = 1;
inline constexpr int CUBLAS_DIAG_NON_UNIT = 0;
inline constexpr int CUBLAS_DIAG_UNIT = 1;
inline constexpr int CUSOLVER_EIG_MODE_NOVECTOR = 0;
inline constexpr int CUSOLVER_EIG_MODE_VECTOR = 1;

/// The routines of one precision (S: float, D: double); matrices are column-major, `void *`
/// standing for T *.
struct SolverRoutines {
  cusolverStatus_t (*potrf_bufferSize)(cusolverDnHandle_t, int, int, void *, int, int *);
  cusolverStatus_t (*potrf)(cusolverDnHandle_t, int, int, void *, int, void *, int, int *);
  cusolverStatus_t (*getrf_bufferSize)(cusolverDnHandle_t, int, int, void *, int, int *);
  cusolverStatus_t (*getrf)(cusolverDnHandle_t, int, int, void *, int, void *, int *, int *);
  cusolverStatus_t (*geqrf_bufferSize)(cusolverDnHandle_t, int, int, void *, int, int *);
  cusolverStatus_t (*geqrf)(cusolverDnHandle_t, int, int, void *, int, void *, void *, int, int *);
  cusolverStatus_t (*orgqr_bufferSize)(cusolverDnHandle_t, int, int, int, const void *, int,
                                       const void *, int *);
  cusolverStatus_t (*orgqr)(cusolverDnHandle_t, int, int, int, void *, int, const void *, void *,
                            int, int *);
  cusolverStatus_t (*syevd_bufferSize)(cusolverDnHandle_t, int, int, int, const void *, int,
                                       const void *, int *);
  cusolverStatus_t (*syevd)(cusolverDnHandle_t, int, int, int, void *, int, void *, void *, int,
                            int *);
  cusolverStatus_t (*gesvd_bufferSize)(cusolverDnHandle_t, int, int, int *);
  cusolverStatus_t (*gesvd)(cusolverDnHandle_t, signed char, signed char, int, int, void *, int,
                            void *, void *, int, void *, int, void *, int, void *, int *);
};

/// cuBLAS's (v2 API) triangular solve, transpose-and-add, packed triangle copies and scaling of
/// one precision, on column-major matrices.
struct BlasRoutines {
  cublasStatus_t (*trsm)(cublasHandle_t, int, int, int, int, int, int, const void *, const void *,
                         int, void *, int);
  cublasStatus_t (*geam)(cublasHandle_t, int, int, int, int, const void *, const void *, int,
                         const void *, const void *, int, void *, int);
  cublasStatus_t (*trttp)(cublasHandle_t, int, int, const void *, int, void *);
  cublasStatus_t (*tpttr)(cublasHandle_t, int, int, const void *, void *, int);
  cublasStatus_t (*scal)(cublasHandle_t, int, const void *, void *, int);
};

/// libcublas.so.13's routines beyond gemm that the FFT scaling and the solvers use.
struct BlasHelpers {
  BlasRoutines s; ///< float
  BlasRoutines d; ///< double
};

/// The helpers, loaded once (with cuBLAS: `blas()` must load too); null with the reason in
/// `blas_helpers_error()`.
STRATA_EXPORT const BlasHelpers *blas_helpers();
STRATA_EXPORT const std::string &blas_helpers_error();

/// libcusolver.so.12's dense routines.
struct Solver {
  cusolverStatus_t (*cusolverGetVersion)(int *);
  cusolverStatus_t (*cusolverDnCreate)(cusolverDnHandle_t *);
  cusolverStatus_t (*cusolverDnDestroy)(cusolverDnHandle_t);
  cusolverStatus_t (*cusolverDnSetStream)(cusolverDnHandle_t, CUstream);
  SolverRoutines s; ///< float
  SolverRoutines d; ///< double
};

/// cuSOLVER, loaded once; null with the reason in `solver_error()` when it is missing or lacks a
/// symbol.
STRATA_EXPORT const Solver *solver();
STRATA_EXPORT const std::string &solver_error();
/// "CUSOLVER_STATUS_INVALID_VALUE" for `s`.
STRATA_EXPORT std::string solver_status_name(cusolverStatus_t s);

} // namespace strata::cuda::api

// cuDNN's opaque types, spelled as cudnn.h spells them (test_cuda_abi_libs.cpp).
struct cudnnContext;
struct cudnnTensorStruct;
struct cudnnFilterStruct;
struct cudnnConvolutionStruct;

namespace strata::cuda::api {

// ---- cuDNN 9's convolution API (cudnn_graph.h, cudnn_ops.h, cudnn_cnn.h) ----------------------
using cudnnStatus_t = int;
using cudnnHandle_t = ::cudnnContext *;
using cudnnTensorDescriptor_t = ::cudnnTensorStruct *;
using cudnnFilterDescriptor_t = ::cudnnFilterStruct *;
using cudnnConvolutionDescriptor_t = ::cudnnConvolutionStruct *;
inline constexpr cudnnStatus_t CUDNN_STATUS_SUCCESS = 0;
inline constexpr int CUDNN_DATA_FLOAT = 0;
inline constexpr int CUDNN_DATA_DOUBLE = 1;
inline constexpr int CUDNN_DATA_HALF = 2;
inline constexpr int CUDNN_DATA_BFLOAT16 = 9;
inline constexpr int CUDNN_TENSOR_NCHW = 0;
inline constexpr int CUDNN_TENSOR_NHWC = 1;
inline constexpr int CUDNN_CROSS_CORRELATION = 1;
inline constexpr int CUDNN_DEFAULT_MATH = 0;
inline constexpr int CUDNN_FMA_MATH = 3;

struct cudnnConvolutionFwdAlgoPerf_t {
  int algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
};

/// libcudnn.so.9's functions (the front library loads its sub-libraries itself).
struct Dnn {
  size_t (*cudnnGetVersion)();
  const char *(*cudnnGetErrorString)(cudnnStatus_t);
  cudnnStatus_t (*cudnnCreate)(cudnnHandle_t *);
  cudnnStatus_t (*cudnnSetStream)(cudnnHandle_t, CUstream);
  cudnnStatus_t (*cudnnCreateTensorDescriptor)(cudnnTensorDescriptor_t *);
  cudnnStatus_t (*cudnnSetTensorNdDescriptor)(cudnnTensorDescriptor_t, int, int, const int *,
                                              const int *);
  cudnnStatus_t (*cudnnDestroyTensorDescriptor)(cudnnTensorDescriptor_t);
  cudnnStatus_t (*cudnnCreateFilterDescriptor)(cudnnFilterDescriptor_t *);
  cudnnStatus_t (*cudnnSetFilterNdDescriptor)(cudnnFilterDescriptor_t, int, int, int, const int *);
  cudnnStatus_t (*cudnnDestroyFilterDescriptor)(cudnnFilterDescriptor_t);
  cudnnStatus_t (*cudnnCreateConvolutionDescriptor)(cudnnConvolutionDescriptor_t *);
  cudnnStatus_t (*cudnnSetConvolutionNdDescriptor)(cudnnConvolutionDescriptor_t, int, const int *,
                                                   const int *, const int *, int, int);
  cudnnStatus_t (*cudnnSetConvolutionGroupCount)(cudnnConvolutionDescriptor_t, int);
  cudnnStatus_t (*cudnnSetConvolutionMathType)(cudnnConvolutionDescriptor_t, int);
  cudnnStatus_t (*cudnnDestroyConvolutionDescriptor)(cudnnConvolutionDescriptor_t);
  cudnnStatus_t (*cudnnGetConvolutionForwardAlgorithm_v7)(cudnnHandle_t, cudnnTensorDescriptor_t,
                                                          cudnnFilterDescriptor_t,
                                                          cudnnConvolutionDescriptor_t,
                                                          cudnnTensorDescriptor_t, int, int *,
                                                          cudnnConvolutionFwdAlgoPerf_t *);
  cudnnStatus_t (*cudnnGetConvolutionForwardWorkspaceSize)(cudnnHandle_t, cudnnTensorDescriptor_t,
                                                           cudnnFilterDescriptor_t,
                                                           cudnnConvolutionDescriptor_t,
                                                           cudnnTensorDescriptor_t, int, size_t *);
  cudnnStatus_t (*cudnnConvolutionForward)(cudnnHandle_t, const void *, cudnnTensorDescriptor_t,
                                           const void *, cudnnFilterDescriptor_t, const void *,
                                           cudnnConvolutionDescriptor_t, int, void *, size_t,
                                           const void *, cudnnTensorDescriptor_t, void *);
};

/// cuDNN, loaded once; null with the reason in `dnn_error()` when it is missing or lacks a
/// symbol (or STRATA_DISABLE_CUDNN is set).
STRATA_EXPORT const Dnn *dnn();
STRATA_EXPORT const std::string &dnn_error();
/// cudnnGetErrorString's text for `s`.
STRATA_EXPORT std::string dnn_status_text(cudnnStatus_t s);

} // namespace strata::cuda::api
