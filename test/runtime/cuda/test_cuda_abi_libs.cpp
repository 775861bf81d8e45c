// LibraryApi.h declares the cuFFT, cuSOLVER, cuDNN and cuBLAS-helper ABI itself (the library builds
// without the toolkit); where the toolkit's headers are installed, this checks every value and
// function type it declares against them at compile time (typed data pointers read as void *,
// enums as int).
#include <cublas_api.h>
#include <cudnn.h>
#include <cufft.h>
#include <cusolverDn.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <type_traits>

#include "runtime/cuda/LibraryApi.h"

namespace api = strata::cuda::api;

static_assert(std::is_same_v<api::cufftHandle, ::cufftHandle>);
static_assert(std::is_same_v<api::cusolverDnHandle_t, ::cusolverDnHandle_t>);
static_assert(api::CUFFT_SUCCESS == ::CUFFT_SUCCESS);
static_assert(api::CUFFT_FORWARD_DIRECTION == CUFFT_FORWARD);
static_assert(api::CUFFT_INVERSE_DIRECTION == CUFFT_INVERSE);
static_assert(api::CUFFT_R2C == ::CUFFT_R2C && api::CUFFT_C2R == ::CUFFT_C2R);
static_assert(api::CUFFT_C2C == ::CUFFT_C2C && api::CUFFT_D2Z == ::CUFFT_D2Z);
static_assert(api::CUFFT_Z2D == ::CUFFT_Z2D && api::CUFFT_Z2Z == ::CUFFT_Z2Z);
static_assert(::CUFFT_INVALID_SIZE == 8 && ::CUFFT_NOT_SUPPORTED == 16); // fft_result_name
static_assert(api::CUSOLVER_STATUS_SUCCESS == ::CUSOLVER_STATUS_SUCCESS);
static_assert(::CUSOLVER_STATUS_NOT_SUPPORTED == 9); // solver_status_name
static_assert(api::CUBLAS_FILL_MODE_LOWER == ::CUBLAS_FILL_MODE_LOWER);
static_assert(api::CUBLAS_FILL_MODE_UPPER == ::CUBLAS_FILL_MODE_UPPER);
static_assert(api::CUBLAS_SIDE_LEFT == ::CUBLAS_SIDE_LEFT);
static_assert(api::CUBLAS_SIDE_RIGHT == ::CUBLAS_SIDE_RIGHT);
static_assert(api::CUBLAS_DIAG_NON_UNIT == ::CUBLAS_DIAG_NON_UNIT);
static_assert(api::CUBLAS_DIAG_UNIT == ::CUBLAS_DIAG_UNIT);
static_assert(api::CUSOLVER_EIG_MODE_NOVECTOR == ::CUSOLVER_EIG_MODE_NOVECTOR);
static_assert(api::CUSOLVER_EIG_MODE_VECTOR == ::CUSOLVER_EIG_MODE_VECTOR);
static_assert(sizeof(::cufftComplex) == 2 * sizeof(float));
static_assert(sizeof(::cufftDoubleComplex) == 2 * sizeof(double));

// Parameter types as LibraryApi.h spells them.
template <class T> struct As {
  using type = std::conditional_t<std::is_enum_v<T>, int, T>;
};
// CudaApi.h names cuBLAS's handle struct in its own namespace.
template <> struct As<::cublasHandle_t> {
  using type = api::cublasHandle_t;
};
template <> struct As<float *> {
  using type = void *;
};
template <> struct As<double *> {
  using type = void *;
};
template <> struct As<const float *> {
  using type = const void *;
};
template <> struct As<const double *> {
  using type = const void *;
};
template <> struct As<::cufftComplex *> {
  using type = void *;
};
template <> struct As<::cufftDoubleComplex *> {
  using type = void *;
};
template <class F> struct Normalized;
template <class R, class... A> struct Normalized<R (*)(A...)> {
  using type = typename As<R>::type (*)(typename As<A>::type...);
};
template <class Toolkit, class Ours>
constexpr bool kSame = std::is_same_v<typename Normalized<Toolkit>::type, Ours>;

#define STRATA_SAME_FFT(name)                                                                      \
  static_assert(kSame<decltype(&::name), decltype(api::Fft::name)>, #name " differs from cufft.h")
STRATA_SAME_FFT(cufftGetVersion);
STRATA_SAME_FFT(cufftCreate);
STRATA_SAME_FFT(cufftDestroy);
STRATA_SAME_FFT(cufftSetAutoAllocation);
STRATA_SAME_FFT(cufftMakePlanMany64);
STRATA_SAME_FFT(cufftSetWorkArea);
STRATA_SAME_FFT(cufftSetStream);
STRATA_SAME_FFT(cufftExecC2C);
STRATA_SAME_FFT(cufftExecZ2Z);
STRATA_SAME_FFT(cufftExecR2C);
STRATA_SAME_FFT(cufftExecD2Z);
STRATA_SAME_FFT(cufftExecC2R);
STRATA_SAME_FFT(cufftExecZ2D);
#undef STRATA_SAME_FFT

static_assert(kSame<decltype(&::cusolverGetVersion), decltype(api::Solver::cusolverGetVersion)>);
static_assert(kSame<decltype(&::cusolverDnCreate), decltype(api::Solver::cusolverDnCreate)>);
static_assert(kSame<decltype(&::cusolverDnDestroy), decltype(api::Solver::cusolverDnDestroy)>);
static_assert(kSame<decltype(&::cusolverDnSetStream), decltype(api::Solver::cusolverDnSetStream)>);

#define STRATA_SAME_DN(member, s_name, d_name)                                                     \
  static_assert(kSame<decltype(&::s_name), decltype(api::SolverRoutines::member)>,                 \
                #s_name " differs from cusolverDn.h");                                             \
  static_assert(kSame<decltype(&::d_name), decltype(api::SolverRoutines::member)>,                 \
                #d_name " differs from cusolverDn.h")
STRATA_SAME_DN(potrf_bufferSize, cusolverDnSpotrf_bufferSize, cusolverDnDpotrf_bufferSize);
STRATA_SAME_DN(potrf, cusolverDnSpotrf, cusolverDnDpotrf);
STRATA_SAME_DN(getrf_bufferSize, cusolverDnSgetrf_bufferSize, cusolverDnDgetrf_bufferSize);
STRATA_SAME_DN(getrf, cusolverDnSgetrf, cusolverDnDgetrf);
STRATA_SAME_DN(geqrf_bufferSize, cusolverDnSgeqrf_bufferSize, cusolverDnDgeqrf_bufferSize);
STRATA_SAME_DN(geqrf, cusolverDnSgeqrf, cusolverDnDgeqrf);
STRATA_SAME_DN(orgqr_bufferSize, cusolverDnSorgqr_bufferSize, cusolverDnDorgqr_bufferSize);
STRATA_SAME_DN(orgqr, cusolverDnSorgqr, cusolverDnDorgqr);
STRATA_SAME_DN(syevd_bufferSize, cusolverDnSsyevd_bufferSize, cusolverDnDsyevd_bufferSize);
STRATA_SAME_DN(syevd, cusolverDnSsyevd, cusolverDnDsyevd);
STRATA_SAME_DN(gesvd_bufferSize, cusolverDnSgesvd_bufferSize, cusolverDnDgesvd_bufferSize);
STRATA_SAME_DN(gesvd, cusolverDnSgesvd, cusolverDnDgesvd);
#undef STRATA_SAME_DN

#define STRATA_SAME_CB(member, s_name, d_name)                                                     \
  static_assert(kSame<decltype(&::s_name), decltype(api::BlasRoutines::member)>,                   \
                #s_name " differs from cublas_api.h");                                             \
  static_assert(kSame<decltype(&::d_name), decltype(api::BlasRoutines::member)>,                   \
                #d_name " differs from cublas_api.h")
STRATA_SAME_CB(trsm, cublasStrsm_v2, cublasDtrsm_v2);
STRATA_SAME_CB(geam, cublasSgeam, cublasDgeam);
STRATA_SAME_CB(trttp, cublasStrttp, cublasDtrttp);
STRATA_SAME_CB(tpttr, cublasStpttr, cublasDtpttr);
STRATA_SAME_CB(scal, cublasSscal_v2, cublasDscal_v2);
#undef STRATA_SAME_CB

TEST(CudaAbi, LibraryDeclarationsMatchTheToolkitHeaders) {
  SUCCEED() << "checked at compile time against cufft.h, cusolverDn.h, cudnn.h and cublas_api.h";
}

// cuDNN (its legacy convolution API is marked deprecated in cuDNN 9; it is what Dnn.cpp calls).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static_assert(std::is_same_v<api::cudnnHandle_t, ::cudnnHandle_t>);
static_assert(std::is_same_v<api::cudnnTensorDescriptor_t, ::cudnnTensorDescriptor_t>);
static_assert(std::is_same_v<api::cudnnFilterDescriptor_t, ::cudnnFilterDescriptor_t>);
static_assert(std::is_same_v<api::cudnnConvolutionDescriptor_t, ::cudnnConvolutionDescriptor_t>);
static_assert(api::CUDNN_STATUS_SUCCESS == ::CUDNN_STATUS_SUCCESS);
static_assert(api::CUDNN_DATA_FLOAT == ::CUDNN_DATA_FLOAT);
static_assert(api::CUDNN_DATA_DOUBLE == ::CUDNN_DATA_DOUBLE);
static_assert(api::CUDNN_DATA_HALF == ::CUDNN_DATA_HALF);
static_assert(api::CUDNN_DATA_BFLOAT16 == ::CUDNN_DATA_BFLOAT16);
static_assert(api::CUDNN_TENSOR_NCHW == ::CUDNN_TENSOR_NCHW);
static_assert(api::CUDNN_TENSOR_NHWC == ::CUDNN_TENSOR_NHWC);
static_assert(api::CUDNN_CROSS_CORRELATION == ::CUDNN_CROSS_CORRELATION);
static_assert(api::CUDNN_DEFAULT_MATH == ::CUDNN_DEFAULT_MATH);
static_assert(api::CUDNN_FMA_MATH == ::CUDNN_FMA_MATH);
static_assert(sizeof(api::cudnnConvolutionFwdAlgoPerf_t) ==
              sizeof(::cudnnConvolutionFwdAlgoPerf_t));
static_assert(offsetof(api::cudnnConvolutionFwdAlgoPerf_t, memory) ==
              offsetof(::cudnnConvolutionFwdAlgoPerf_t, memory));
static_assert(offsetof(api::cudnnConvolutionFwdAlgoPerf_t, mathType) ==
              offsetof(::cudnnConvolutionFwdAlgoPerf_t, mathType));
template <> struct As<::cudnnConvolutionFwdAlgoPerf_t *> {
  using type = api::cudnnConvolutionFwdAlgoPerf_t *;
};
#define STRATA_SAME_DNN(name)                                                                      \
  static_assert(kSame<decltype(&::name), decltype(api::Dnn::name)>, #name " differs from cudnn.h")
STRATA_SAME_DNN(cudnnGetVersion);
STRATA_SAME_DNN(cudnnGetErrorString);
STRATA_SAME_DNN(cudnnCreate);
STRATA_SAME_DNN(cudnnSetStream);
STRATA_SAME_DNN(cudnnCreateTensorDescriptor);
STRATA_SAME_DNN(cudnnSetTensorNdDescriptor);
STRATA_SAME_DNN(cudnnDestroyTensorDescriptor);
STRATA_SAME_DNN(cudnnCreateFilterDescriptor);
STRATA_SAME_DNN(cudnnSetFilterNdDescriptor);
STRATA_SAME_DNN(cudnnDestroyFilterDescriptor);
STRATA_SAME_DNN(cudnnCreateConvolutionDescriptor);
STRATA_SAME_DNN(cudnnSetConvolutionNdDescriptor);
STRATA_SAME_DNN(cudnnSetConvolutionGroupCount);
STRATA_SAME_DNN(cudnnSetConvolutionMathType);
STRATA_SAME_DNN(cudnnDestroyConvolutionDescriptor);
STRATA_SAME_DNN(cudnnGetConvolutionForwardAlgorithm_v7);
STRATA_SAME_DNN(cudnnGetConvolutionForwardWorkspaceSize);
STRATA_SAME_DNN(cudnnConvolutionForward);
#undef STRATA_SAME_DNN
#pragma GCC diagnostic pop
