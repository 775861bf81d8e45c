// CudaApi.h declares the driver, cuBLAS(Lt) and nvJitLink ABI itself (the library builds without
// the toolkit); where the toolkit's headers are installed, this checks every value and layout it
// declares against them at compile time.
#include <cublasLt.h>
#include <cublas_api.h>
#include <cuda.h>
#include <nvJitLink.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <type_traits>

#include "runtime/cuda/CudaApi.h"

namespace api = strata::cuda::api;

// Handle types are the toolkit's own (both name the same incomplete structs).
static_assert(std::is_same_v<api::CUstream, ::CUstream>);
static_assert(std::is_same_v<api::CUcontext, ::CUcontext>);
static_assert(std::is_same_v<api::CUmodule, ::CUmodule>);
static_assert(std::is_same_v<api::CUfunction, ::CUfunction>);
static_assert(std::is_same_v<api::CUevent, ::CUevent>);
static_assert(std::is_same_v<api::CUdeviceptr, ::CUdeviceptr>);
static_assert(std::is_same_v<api::CUdevice, ::CUdevice>);
static_assert(sizeof(api::CUresult) == sizeof(::CUresult));
static_assert(sizeof(::cudaStream_t) == sizeof(api::CUstream));

// Driver values.
static_assert(api::CUDA_SUCCESS == ::CUDA_SUCCESS);
static_assert(api::CUDA_ERROR_OUT_OF_MEMORY == ::CUDA_ERROR_OUT_OF_MEMORY);
static_assert(api::CUDA_ERROR_NOT_INITIALIZED == ::CUDA_ERROR_NOT_INITIALIZED);
static_assert(api::CUDA_ERROR_NO_DEVICE == ::CUDA_ERROR_NO_DEVICE);
static_assert(api::CUDA_ERROR_INVALID_DEVICE == ::CUDA_ERROR_INVALID_DEVICE);
static_assert(api::CU_STREAM_NON_BLOCKING == ::CU_STREAM_NON_BLOCKING);
static_assert(api::CU_EVENT_DISABLE_TIMING == ::CU_EVENT_DISABLE_TIMING);
static_assert(api::CU_MEMHOSTALLOC_PORTABLE_FLAG == CU_MEMHOSTALLOC_PORTABLE);
static_assert(api::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK ==
              ::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
static_assert(api::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK ==
              ::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
static_assert(api::CU_DEVICE_ATTRIBUTE_WARP_SIZE == ::CU_DEVICE_ATTRIBUTE_WARP_SIZE);
static_assert(api::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ==
              ::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(api::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ==
              ::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(api::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ==
              ::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(api::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN ==
              ::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
static_assert(api::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ==
              ::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
static_assert(api::CU_JIT_ERROR_LOG_BUFFER == ::CU_JIT_ERROR_LOG_BUFFER);
static_assert(api::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES == ::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
static_assert(api::CU_JIT_OPTIMIZATION_LEVEL == ::CU_JIT_OPTIMIZATION_LEVEL);

// The driver functions' parameter lists, with the toolkit's enums read as int.
template <class T> struct As {
  using type = T;
};
template <> struct As<::CUresult> {
  using type = int;
};
template <> struct As<::CUdevice_attribute> {
  using type = int;
};
template <> struct As<::CUfunction_attribute> {
  using type = int;
};
template <> struct As<::CUjit_option *> {
  using type = int *;
};
template <class F> struct Normalized;
template <class R, class... A> struct Normalized<R (*)(A...)> {
  using type = typename As<R>::type (*)(typename As<A>::type...);
};
#define STRATA_SAME_SIGNATURE(name)                                                                \
  static_assert(std::is_same_v<Normalized<decltype(&::name)>::type, decltype(api::Driver::name)>,  \
                #name " differs from cuda.h")
STRATA_SAME_SIGNATURE(cuInit);
STRATA_SAME_SIGNATURE(cuDriverGetVersion);
STRATA_SAME_SIGNATURE(cuGetErrorName);
STRATA_SAME_SIGNATURE(cuGetErrorString);
STRATA_SAME_SIGNATURE(cuDeviceGetCount);
STRATA_SAME_SIGNATURE(cuDeviceGet);
STRATA_SAME_SIGNATURE(cuDeviceGetName);
STRATA_SAME_SIGNATURE(cuDeviceGetAttribute);
STRATA_SAME_SIGNATURE(cuDeviceTotalMem_v2);
STRATA_SAME_SIGNATURE(cuDevicePrimaryCtxRetain);
STRATA_SAME_SIGNATURE(cuCtxSetCurrent);
STRATA_SAME_SIGNATURE(cuStreamCreate);
STRATA_SAME_SIGNATURE(cuStreamDestroy_v2);
STRATA_SAME_SIGNATURE(cuStreamSynchronize);
STRATA_SAME_SIGNATURE(cuStreamWaitEvent);
STRATA_SAME_SIGNATURE(cuEventCreate);
STRATA_SAME_SIGNATURE(cuEventDestroy_v2);
STRATA_SAME_SIGNATURE(cuEventSynchronize);
STRATA_SAME_SIGNATURE(cuEventRecord);
STRATA_SAME_SIGNATURE(cuMemAlloc_v2);
STRATA_SAME_SIGNATURE(cuMemFree_v2);
STRATA_SAME_SIGNATURE(cuMemGetInfo_v2);
STRATA_SAME_SIGNATURE(cuMemHostAlloc);
STRATA_SAME_SIGNATURE(cuMemFreeHost);
STRATA_SAME_SIGNATURE(cuMemcpyHtoDAsync_v2);
STRATA_SAME_SIGNATURE(cuMemcpyDtoHAsync_v2);
STRATA_SAME_SIGNATURE(cuMemcpyDtoDAsync_v2);
STRATA_SAME_SIGNATURE(cuMemcpyAsync);
STRATA_SAME_SIGNATURE(cuMemcpyPeerAsync);
STRATA_SAME_SIGNATURE(cuMemsetD8Async);
STRATA_SAME_SIGNATURE(cuMemsetD16Async);
STRATA_SAME_SIGNATURE(cuMemsetD32Async);
STRATA_SAME_SIGNATURE(cuModuleLoadData);
STRATA_SAME_SIGNATURE(cuModuleLoadDataEx);
STRATA_SAME_SIGNATURE(cuModuleUnload);
STRATA_SAME_SIGNATURE(cuModuleGetFunction);
STRATA_SAME_SIGNATURE(cuFuncSetAttribute);
STRATA_SAME_SIGNATURE(cuLaunchKernel);
#undef STRATA_SAME_SIGNATURE

// cuBLAS and cuBLASLt values and structs.
static_assert(api::CUBLAS_STATUS_SUCCESS == ::CUBLAS_STATUS_SUCCESS);
static_assert(api::CUBLAS_STATUS_NOT_SUPPORTED == ::CUBLAS_STATUS_NOT_SUPPORTED);
static_assert(api::CUBLAS_OP_N == ::CUBLAS_OP_N && api::CUBLAS_OP_T == ::CUBLAS_OP_T);
static_assert(api::CUBLAS_GEMM_DEFAULT == ::CUBLAS_GEMM_DEFAULT);
static_assert(api::CUDA_R_32F == ::CUDA_R_32F && api::CUDA_R_64F == ::CUDA_R_64F);
static_assert(api::CUDA_R_16F == ::CUDA_R_16F && api::CUDA_R_16BF == ::CUDA_R_16BF);
static_assert(api::CUBLAS_COMPUTE_32F == ::CUBLAS_COMPUTE_32F);
static_assert(api::CUBLAS_COMPUTE_32F_FAST_TF32 == ::CUBLAS_COMPUTE_32F_FAST_TF32);
static_assert(api::CUBLAS_COMPUTE_64F == ::CUBLAS_COMPUTE_64F);
static_assert(api::CUBLASLT_MATMUL_DESC_TRANSA == ::CUBLASLT_MATMUL_DESC_TRANSA);
static_assert(api::CUBLASLT_MATMUL_DESC_TRANSB == ::CUBLASLT_MATMUL_DESC_TRANSB);
static_assert(api::CUBLASLT_MATMUL_DESC_EPILOGUE == ::CUBLASLT_MATMUL_DESC_EPILOGUE);
static_assert(api::CUBLASLT_MATMUL_DESC_BIAS_POINTER == ::CUBLASLT_MATMUL_DESC_BIAS_POINTER);
static_assert(api::CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE ==
              ::CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE);
static_assert(api::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT == ::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT);
static_assert(api::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET ==
              ::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
static_assert(api::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES ==
              ::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
static_assert(api::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES ==
              ::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES);
static_assert(api::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES ==
              ::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES);
static_assert(api::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES ==
              ::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES);
static_assert(api::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES ==
              ::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES);
static_assert(api::CUBLASLT_EPILOGUE_DEFAULT == ::CUBLASLT_EPILOGUE_DEFAULT);
static_assert(api::CUBLASLT_EPILOGUE_RELU == ::CUBLASLT_EPILOGUE_RELU);
static_assert(api::CUBLASLT_EPILOGUE_BIAS == ::CUBLASLT_EPILOGUE_BIAS);
static_assert(api::CUBLASLT_EPILOGUE_RELU_BIAS == ::CUBLASLT_EPILOGUE_RELU_BIAS);
static_assert(api::CUBLASLT_EPILOGUE_GELU == ::CUBLASLT_EPILOGUE_GELU);
static_assert(api::CUBLASLT_EPILOGUE_GELU_BIAS == ::CUBLASLT_EPILOGUE_GELU_BIAS);
static_assert(sizeof(api::cublasLtMatmulAlgo_t) == sizeof(::cublasLtMatmulAlgo_t));
static_assert(sizeof(api::cublasLtMatmulHeuristicResult_t) ==
              sizeof(::cublasLtMatmulHeuristicResult_t));
static_assert(offsetof(api::cublasLtMatmulHeuristicResult_t, workspaceSize) ==
              offsetof(::cublasLtMatmulHeuristicResult_t, workspaceSize));
static_assert(offsetof(api::cublasLtMatmulHeuristicResult_t, state) ==
              offsetof(::cublasLtMatmulHeuristicResult_t, state));
static_assert(sizeof(::cublasComputeType_t) == sizeof(int) &&
              sizeof(::cudaDataType) == sizeof(int));

// nvJitLink values.
static_assert(api::NVJITLINK_SUCCESS == ::NVJITLINK_SUCCESS);
static_assert(api::NVJITLINK_INPUT_PTX == ::NVJITLINK_INPUT_PTX);
static_assert(::NVJITLINK_ERROR_LTO_NOT_ENABLED == 18, "jitlink_result_name's table ends at 18");

TEST(CudaAbi, DeclarationsMatchTheToolkitHeaders) { SUCCEED() << "checked at compile time"; }
