// Loads the CUDA driver, cuBLAS(Lt) and nvJitLink with dlopen and resolves their entry points.
#include "runtime/cuda/CudaApi.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

#include "strata/error.h"

namespace strata::cuda::api {

namespace {

/// The folders to try, in order; "" stands for the loader's default search path.
std::vector<std::string> search_dirs() {
  std::vector<std::string> dirs;
  if (const char *env = std::getenv("STRATA_CUDA_LIBRARY_PATH")) {
    std::string s = env;
    for (size_t at = 0; at <= s.size();) {
      size_t end = s.find(':', at);
      if (end == std::string::npos)
        end = s.size();
      if (end > at)
        dirs.push_back(s.substr(at, end - at));
      at = end + 1;
    }
  }
  dirs.push_back("/usr/local/cuda/lib64");
  dirs.push_back("");
  return dirs;
}

} // namespace

void *open_library(const std::vector<std::string> &names, std::string &error) {
  // A copy some other library of the process (PyTorch, JAX) loaded already is the one to share.
  for (const std::string &name : names)
    if (void *h = dlopen(name.c_str(), RTLD_NOW | RTLD_NOLOAD))
      return h;
  std::string tried;
  for (const std::string &dir : search_dirs())
    for (const std::string &name : names) {
      std::string path = dir.empty() ? name : dir + "/" + name;
      if (void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))
        return h;
      const char *why = dlerror();
      if (dir.empty())
        tried = why ? why : path + ": not found";
    }
  error = detail::cat(names.front(), " not found (searched ", library_search_text(), "): ", tried);
  return nullptr;
}

namespace {

/// Resolves `name` into `slot`; records the first missing symbol in `missing`.
template <class F> void resolve(void *lib, F &slot, const char *name, std::string &missing) {
  slot = reinterpret_cast<F>(dlsym(lib, name));
  if (!slot && missing.empty())
    missing = name;
}

struct DriverLoad {
  Driver fns{};
  bool ok = false;
  std::string error;
};

DriverLoad load_driver() {
  DriverLoad d;
  if (const char *off = std::getenv("STRATA_DISABLE_CUDA");
      off && *off && std::string(off) != "0") {
    d.error = "STRATA_DISABLE_CUDA is set";
    return d;
  }
  void *lib = open_library({"libcuda.so.1"}, d.error);
  if (!lib) {
    d.error += " (no NVIDIA driver on this machine)";
    return d;
  }
  std::string missing;
  Driver &f = d.fns;
#define STRATA_RESOLVE(name) resolve(lib, f.name, #name, missing)
  STRATA_RESOLVE(cuInit);
  STRATA_RESOLVE(cuDriverGetVersion);
  STRATA_RESOLVE(cuGetErrorName);
  STRATA_RESOLVE(cuGetErrorString);
  STRATA_RESOLVE(cuDeviceGetCount);
  STRATA_RESOLVE(cuDeviceGet);
  STRATA_RESOLVE(cuDeviceGetName);
  STRATA_RESOLVE(cuDeviceGetAttribute);
  STRATA_RESOLVE(cuDeviceTotalMem_v2);
  STRATA_RESOLVE(cuDevicePrimaryCtxRetain);
  STRATA_RESOLVE(cuCtxSetCurrent);
  STRATA_RESOLVE(cuStreamCreate);
  STRATA_RESOLVE(cuStreamDestroy_v2);
  STRATA_RESOLVE(cuStreamSynchronize);
  STRATA_RESOLVE(cuStreamWaitEvent);
  STRATA_RESOLVE(cuEventCreate);
  STRATA_RESOLVE(cuEventDestroy_v2);
  STRATA_RESOLVE(cuEventSynchronize);
  STRATA_RESOLVE(cuEventRecord);
  STRATA_RESOLVE(cuMemAlloc_v2);
  STRATA_RESOLVE(cuMemFree_v2);
  STRATA_RESOLVE(cuMemGetInfo_v2);
  STRATA_RESOLVE(cuMemHostAlloc);
  STRATA_RESOLVE(cuMemFreeHost);
  STRATA_RESOLVE(cuMemcpyHtoDAsync_v2);
  STRATA_RESOLVE(cuMemcpyDtoHAsync_v2);
  STRATA_RESOLVE(cuMemcpyDtoDAsync_v2);
  STRATA_RESOLVE(cuMemcpyAsync);
  STRATA_RESOLVE(cuMemcpyPeerAsync);
  STRATA_RESOLVE(cuMemsetD8Async);
  STRATA_RESOLVE(cuMemsetD16Async);
  STRATA_RESOLVE(cuMemsetD32Async);
  STRATA_RESOLVE(cuModuleLoadData);
  STRATA_RESOLVE(cuModuleLoadDataEx);
  STRATA_RESOLVE(cuModuleUnload);
  STRATA_RESOLVE(cuModuleGetFunction);
  STRATA_RESOLVE(cuFuncSetAttribute);
  STRATA_RESOLVE(cuLaunchKernel);
#undef STRATA_RESOLVE
  if (!missing.empty()) {
    d.error = "libcuda.so.1 lacks " + missing + " (the driver is older than CUDA 12)";
    return d;
  }
  d.ok = true;
  return d;
}

/// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)"; works whenever the library loaded, even when
/// cuInit failed.
std::string describe_result(const Driver &fns, CUresult r) {
  const char *name = nullptr, *text = nullptr;
  if (fns.cuGetErrorName) {
    fns.cuGetErrorName(r, &name);
    fns.cuGetErrorString(r, &text);
  }
  if (name)
    return detail::cat(name, " (", text ? text : "no description", ")");
  // The toolkit's stub library answers every call, cuGetErrorName included, with this.
  if (r == 34)
    return "CUDA_ERROR_STUB_LIBRARY (libcuda.so.1 is the toolkit's stub, not a driver)";
  return detail::cat("CUDA error ", r);
}

const DriverLoad &driver_load() {
  static const DriverLoad d = [] {
    DriverLoad d = load_driver();
    if (!d.ok)
      return d;
    CUresult r = d.fns.cuInit(0);
    if (r != CUDA_SUCCESS) {
      d.error = "cuInit failed: " + describe_result(d.fns, r);
      d.ok = false;
    }
    return d;
  }();
  return d;
}

struct BlasLoad {
  Blas fns{};
  bool ok = false;
  std::string error;
};

const BlasLoad &blas_load() {
  static const BlasLoad b = [] {
    BlasLoad b;
    void *lt = open_library({"libcublasLt.so.13"}, b.error);
    if (!lt)
      return b;
    void *cb = open_library({"libcublas.so.13"}, b.error);
    if (!cb)
      return b;
    std::string missing;
    Blas &f = b.fns;
#define STRATA_RESOLVE_LT(name) resolve(lt, f.name, #name, missing)
#define STRATA_RESOLVE_CB(name) resolve(cb, f.name, #name, missing)
    STRATA_RESOLVE_LT(cublasLtGetVersion);
    STRATA_RESOLVE_LT(cublasLtGetStatusName);
    STRATA_RESOLVE_LT(cublasLtGetStatusString);
    STRATA_RESOLVE_LT(cublasLtCreate);
    STRATA_RESOLVE_LT(cublasLtDestroy);
    STRATA_RESOLVE_LT(cublasLtMatmulDescCreate);
    STRATA_RESOLVE_LT(cublasLtMatmulDescDestroy);
    STRATA_RESOLVE_LT(cublasLtMatmulDescSetAttribute);
    STRATA_RESOLVE_LT(cublasLtMatrixLayoutCreate);
    STRATA_RESOLVE_LT(cublasLtMatrixLayoutDestroy);
    STRATA_RESOLVE_LT(cublasLtMatrixLayoutSetAttribute);
    STRATA_RESOLVE_LT(cublasLtMatmulPreferenceCreate);
    STRATA_RESOLVE_LT(cublasLtMatmulPreferenceDestroy);
    STRATA_RESOLVE_LT(cublasLtMatmulPreferenceSetAttribute);
    STRATA_RESOLVE_LT(cublasLtMatmulAlgoGetHeuristic);
    STRATA_RESOLVE_LT(cublasLtMatmul);
    STRATA_RESOLVE_CB(cublasCreate_v2);
    STRATA_RESOLVE_CB(cublasDestroy_v2);
    STRATA_RESOLVE_CB(cublasSetStream_v2);
    STRATA_RESOLVE_CB(cublasSetWorkspace_v2);
    STRATA_RESOLVE_CB(cublasGetStatusName);
    STRATA_RESOLVE_CB(cublasGetStatusString);
    STRATA_RESOLVE_CB(cublasGemmStridedBatchedEx_64);
#undef STRATA_RESOLVE_LT
#undef STRATA_RESOLVE_CB
    if (!missing.empty()) {
      b.error = "cuBLAS lacks " + missing + " (Strata needs cuBLAS 13)";
      return b;
    }
    b.ok = true;
    return b;
  }();
  return b;
}

struct JitLinkLoad {
  JitLink fns{};
  bool ok = false;
  std::string error;
};

const JitLinkLoad &jitlink_load() {
  static const JitLinkLoad j = [] {
    JitLinkLoad j;
    void *lib = open_library({"libnvJitLink.so.13"}, j.error);
    if (!lib)
      return j;
    std::string missing;
    JitLink &f = j.fns;
#define STRATA_RESOLVE(name) resolve(lib, f.name, #name, missing)
    STRATA_RESOLVE(nvJitLinkCreate);
    STRATA_RESOLVE(nvJitLinkDestroy);
    STRATA_RESOLVE(nvJitLinkAddData);
    STRATA_RESOLVE(nvJitLinkComplete);
    STRATA_RESOLVE(nvJitLinkGetLinkedCubinSize);
    STRATA_RESOLVE(nvJitLinkGetLinkedCubin);
    STRATA_RESOLVE(nvJitLinkGetErrorLogSize);
    STRATA_RESOLVE(nvJitLinkGetErrorLog);
    STRATA_RESOLVE(nvJitLinkVersion);
#undef STRATA_RESOLVE
    if (!missing.empty()) {
      j.error = "libnvJitLink.so.13 lacks " + missing;
      return j;
    }
    j.ok = true;
    return j;
  }();
  return j;
}

} // namespace

const Driver *driver() { return driver_load().ok ? &driver_load().fns : nullptr; }
const std::string &driver_error() { return driver_load().error; }

std::string result_text(CUresult r) { return describe_result(driver_load().fns, r); }

const Blas *blas() { return blas_load().ok ? &blas_load().fns : nullptr; }
const std::string &blas_error() { return blas_load().error; }

std::string blas_status_text(cublasStatus_t s) {
  const BlasLoad &b = blas_load();
  const char *name = b.fns.cublasGetStatusName ? b.fns.cublasGetStatusName(s) : nullptr;
  const char *text = b.fns.cublasGetStatusString ? b.fns.cublasGetStatusString(s) : nullptr;
  if (!name)
    return detail::cat("cuBLAS status ", s);
  return detail::cat(name, " (", text ? text : "no description", ")");
}

const JitLink *jitlink() { return jitlink_load().ok ? &jitlink_load().fns : nullptr; }
const std::string &jitlink_error() { return jitlink_load().error; }

std::string jitlink_result_name(nvJitLinkResult r) {
  static const char *const names[] = {
      "NVJITLINK_SUCCESS",
      "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
      "NVJITLINK_ERROR_MISSING_ARCH",
      "NVJITLINK_ERROR_INVALID_INPUT",
      "NVJITLINK_ERROR_PTX_COMPILE",
      "NVJITLINK_ERROR_NVVM_COMPILE",
      "NVJITLINK_ERROR_INTERNAL",
      "NVJITLINK_ERROR_THREADPOOL",
      "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
      "NVJITLINK_ERROR_FINALIZE",
      "NVJITLINK_ERROR_NULL_INPUT",
      "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
      "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
      "NVJITLINK_ERROR_ARCH_MISMATCH",
      "NVJITLINK_ERROR_OUTDATED_LIBRARY",
      "NVJITLINK_ERROR_MISSING_FATBIN",
      "NVJITLINK_ERROR_UNRECOGNIZED_ARCH",
      "NVJITLINK_ERROR_UNSUPPORTED_ARCH",
      "NVJITLINK_ERROR_LTO_NOT_ENABLED",
  };
  if (r >= 0 && static_cast<size_t>(r) < std::size(names))
    return names[r];
  return detail::cat("nvJitLink error ", r);
}

std::string library_search_text() {
  std::string s;
  for (const std::string &dir : search_dirs())
    s += (s.empty() ? "" : ", ") + (dir.empty() ? std::string("the default path") : dir);
  return s;
}

} // namespace strata::cuda::api
