// The CUDA driver, cuBLAS(Lt) and nvJitLink entry points Strata uses, declared here (no toolkit
// header needed) and resolved with dlopen/dlsym on first use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// The driver's opaque handle types, spelled as cuda.h spells them so that both can be included
// in one translation unit (test/runtime/cuda/test_cuda_abi.cpp checks the values below).
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;

namespace strata::cuda::api {

// ---- Driver API (cuda.h) ------------------------------------------------------------------------
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
using CUevent = CUevent_st *;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
inline constexpr CUresult CUDA_ERROR_NOT_INITIALIZED = 3;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
inline constexpr CUresult CUDA_ERROR_INVALID_DEVICE = 101;
inline constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
inline constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;
inline constexpr unsigned CU_MEMHOSTALLOC_PORTABLE_FLAG = 0x1; // cuda.h: a macro
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8;
inline constexpr int CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10;
inline constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
inline constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
inline constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
inline constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
inline constexpr int CU_JIT_OPTIMIZATION_LEVEL = 7;

/// The driver functions, by their versioned (ABI-stable) names. Each member is null until load.
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDeviceTotalMem_v2)(size_t *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamDestroy_v2)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy_v2)(CUevent);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuMemAlloc_v2)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree_v2)(CUdeviceptr);
  CUresult (*cuMemGetInfo_v2)(size_t *, size_t *);
  CUresult (*cuMemHostAlloc)(void **, size_t, unsigned);
  CUresult (*cuMemFreeHost)(void *);
  CUresult (*cuMemcpyHtoDAsync_v2)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*cuMemcpyDtoHAsync_v2)(void *, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyDtoDAsync_v2)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyPeerAsync)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuMemsetD16Async)(CUdeviceptr, unsigned short, size_t, CUstream);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void **, void **);
};

/// The driver, loaded (libcuda.so.1) and initialized (cuInit) once; null when either failed,
/// with the reason in `driver_error()`.
const Driver *driver();
/// Why driver() is null ("" when it is not).
const std::string &driver_error();
/// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for `r`.
std::string result_text(CUresult r);

// ---- cuBLAS and cuBLASLt (cublas_api.h, cublasLt.h) ------------------------------------------
using cublasStatus_t = int;
struct cublasContext;
struct cublasLtContext;
struct cublasLtMatmulDescOpaque_t;
struct cublasLtMatrixLayoutOpaque_t;
struct cublasLtMatmulPreferenceOpaque_t;
using cublasHandle_t = cublasContext *;
using cublasLtHandle_t = cublasLtContext *;
using cublasLtMatmulDesc_t = cublasLtMatmulDescOpaque_t *;
using cublasLtMatrixLayout_t = cublasLtMatrixLayoutOpaque_t *;
using cublasLtMatmulPreference_t = cublasLtMatmulPreferenceOpaque_t *;
struct cublasLtMatmulAlgo_t {
  uint64_t data[8];
};
struct cublasLtMatmulHeuristicResult_t {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};

inline constexpr cublasStatus_t CUBLAS_STATUS_SUCCESS = 0;
inline constexpr cublasStatus_t CUBLAS_STATUS_NOT_SUPPORTED = 15;
inline constexpr int CUBLAS_OP_N = 0;
inline constexpr int CUBLAS_OP_T = 1;
inline constexpr int CUBLAS_GEMM_DEFAULT = -1;
inline constexpr int CUDA_R_32F = 0;
inline constexpr int CUDA_R_64F = 1;
inline constexpr int CUDA_R_16F = 2;
inline constexpr int CUDA_R_16BF = 14;
inline constexpr int CUBLAS_COMPUTE_32F = 68;
inline constexpr int CUBLAS_COMPUTE_32F_FAST_TF32 = 77;
inline constexpr int CUBLAS_COMPUTE_64F = 70;
inline constexpr int CUBLASLT_MATMUL_DESC_TRANSA = 3;
inline constexpr int CUBLASLT_MATMUL_DESC_TRANSB = 4;
inline constexpr int CUBLASLT_MATMUL_DESC_EPILOGUE = 7;
inline constexpr int CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8;
inline constexpr int CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE = 10;
inline constexpr int CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5;
inline constexpr int CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6;
inline constexpr int CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1;
inline constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5;
inline constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6;
inline constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7;
inline constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8;
inline constexpr int CUBLASLT_EPILOGUE_DEFAULT = 1;
inline constexpr int CUBLASLT_EPILOGUE_RELU = 2;
inline constexpr int CUBLASLT_EPILOGUE_BIAS = 4;
inline constexpr int CUBLASLT_EPILOGUE_RELU_BIAS = 6;
inline constexpr int CUBLASLT_EPILOGUE_GELU = 32;
inline constexpr int CUBLASLT_EPILOGUE_GELU_BIAS = 36;

/// cuBLASLt (libcublasLt.so.13) and cuBLAS (libcublas.so.13) functions.
struct Blas {
  size_t (*cublasLtGetVersion)();
  const char *(*cublasLtGetStatusName)(cublasStatus_t);
  const char *(*cublasLtGetStatusString)(cublasStatus_t);
  cublasStatus_t (*cublasLtCreate)(cublasLtHandle_t *);
  cublasStatus_t (*cublasLtDestroy)(cublasLtHandle_t);
  cublasStatus_t (*cublasLtMatmulDescCreate)(cublasLtMatmulDesc_t *, int, int);
  cublasStatus_t (*cublasLtMatmulDescDestroy)(cublasLtMatmulDesc_t);
  cublasStatus_t (*cublasLtMatmulDescSetAttribute)(cublasLtMatmulDesc_t, int, const void *, size_t);
  cublasStatus_t (*cublasLtMatrixLayoutCreate)(cublasLtMatrixLayout_t *, int, uint64_t, uint64_t,
                                               int64_t);
  cublasStatus_t (*cublasLtMatrixLayoutDestroy)(cublasLtMatrixLayout_t);
  cublasStatus_t (*cublasLtMatrixLayoutSetAttribute)(cublasLtMatrixLayout_t, int, const void *,
                                                     size_t);
  cublasStatus_t (*cublasLtMatmulPreferenceCreate)(cublasLtMatmulPreference_t *);
  cublasStatus_t (*cublasLtMatmulPreferenceDestroy)(cublasLtMatmulPreference_t);
  cublasStatus_t (*cublasLtMatmulPreferenceSetAttribute)(cublasLtMatmulPreference_t, int,
                                                         const void *, size_t);
  cublasStatus_t (*cublasLtMatmulAlgoGetHeuristic)(cublasLtHandle_t, cublasLtMatmulDesc_t,
                                                   cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                                   cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                                   cublasLtMatmulPreference_t, int,
                                                   cublasLtMatmulHeuristicResult_t *, int *);
  cublasStatus_t (*cublasLtMatmul)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *,
                                   const void *, cublasLtMatrixLayout_t, const void *,
                                   cublasLtMatrixLayout_t, const void *, const void *,
                                   cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t,
                                   const cublasLtMatmulAlgo_t *, void *, size_t, CUstream);
  cublasStatus_t (*cublasCreate_v2)(cublasHandle_t *);
  cublasStatus_t (*cublasDestroy_v2)(cublasHandle_t);
  cublasStatus_t (*cublasSetStream_v2)(cublasHandle_t, CUstream);
  cublasStatus_t (*cublasSetWorkspace_v2)(cublasHandle_t, void *, size_t);
  const char *(*cublasGetStatusName)(cublasStatus_t);
  const char *(*cublasGetStatusString)(cublasStatus_t);
  cublasStatus_t (*cublasGemmStridedBatchedEx_64)(cublasHandle_t, int, int, int64_t, int64_t,
                                                  int64_t, const void *, const void *, int, int64_t,
                                                  long long, const void *, int, int64_t, long long,
                                                  const void *, void *, int, int64_t, long long,
                                                  int64_t, int, int);
};

/// cuBLASLt and cuBLAS, loaded once; null with the reason in `blas_error()` when either is
/// missing or lacks a symbol. Needs no driver (cuBLAS loads libcuda itself, at handle creation).
const Blas *blas();
const std::string &blas_error();
/// "CUBLAS_STATUS_NOT_SUPPORTED (the functionality requested is not supported)".
std::string blas_status_text(cublasStatus_t s);

// ---- nvJitLink (nvJitLink.h) -------------------------------------------------------------------
using nvJitLinkResult = int;
struct nvJitLink;
using nvJitLinkHandle = nvJitLink *;
inline constexpr nvJitLinkResult NVJITLINK_SUCCESS = 0;
inline constexpr int NVJITLINK_INPUT_PTX = 2;

struct JitLink {
  nvJitLinkResult (*nvJitLinkCreate)(nvJitLinkHandle *, uint32_t, const char **);
  nvJitLinkResult (*nvJitLinkDestroy)(nvJitLinkHandle *);
  nvJitLinkResult (*nvJitLinkAddData)(nvJitLinkHandle, int, const void *, size_t, const char *);
  nvJitLinkResult (*nvJitLinkComplete)(nvJitLinkHandle);
  nvJitLinkResult (*nvJitLinkGetLinkedCubinSize)(nvJitLinkHandle, size_t *);
  nvJitLinkResult (*nvJitLinkGetLinkedCubin)(nvJitLinkHandle, void *);
  nvJitLinkResult (*nvJitLinkGetErrorLogSize)(nvJitLinkHandle, size_t *);
  nvJitLinkResult (*nvJitLinkGetErrorLog)(nvJitLinkHandle, char *);
  nvJitLinkResult (*nvJitLinkVersion)(unsigned *, unsigned *);
};

/// nvJitLink (libnvJitLink.so.13), loaded once; null with the reason in `jitlink_error()`.
const JitLink *jitlink();
const std::string &jitlink_error();
/// "NVJITLINK_ERROR_PTX_COMPILE" for `r`.
std::string jitlink_result_name(nvJitLinkResult r);

/// dlopens the first of `names` found in the search folders (a copy the process loaded already
/// first); null with `error` set otherwise. The library loaders of LibraryApi.cpp share it.
void *open_library(const std::vector<std::string> &names, std::string &error);

/// Where the libraries were looked for, in order: $STRATA_CUDA_LIBRARY_PATH (colon-separated
/// folders), /usr/local/cuda/lib64, then the loader's default search path.
std::string library_search_text();

} // namespace strata::cuda::api
