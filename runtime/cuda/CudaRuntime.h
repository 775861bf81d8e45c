// Strata's CUDA runtime on the driver API: devices, per-device context, stream and caching
// allocator, copies, PTX -> cubin through nvJitLink, modules and launches, cuBLAS(Lt) gemm, and
// the C ABI (mgpu*, strata_rt_cuda_gemm) that compiled host code calls. The driver and the CUDA
// libraries are loaded lazily, so this compiles and runs (with no devices) on machines without a
// GPU or the toolkit. No CUDA header is needed to include this one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/cuda/CachingAllocator.h"
#include "strata/export.h"

namespace strata::cuda {

// ---- Devices ----------------------------------------------------------------------------------

/// Usable CUDA devices; 0 (never throws) when libcuda.so.1, cuInit or the hardware is missing.
STRATA_EXPORT int device_count() noexcept;
/// Why device_count() is 0 ("libcuda.so.1 not found ..."); "" when there are devices.
STRATA_EXPORT std::string unavailable_reason();

/// What the driver says about a device.
struct DeviceInfo {
  int index = 0;
  std::string name; ///< "NVIDIA H200"
  int cc_major = 0; ///< compute capability, 9 for sm_90
  int cc_minor = 0;
  int sm_count = 0;
  size_t total_memory = 0;
  int max_threads_per_block = 0;
  int max_shared_memory_per_block = 0;       ///< without opt-in (48 KiB)
  int max_shared_memory_per_block_optin = 0; ///< with cuFuncSetAttribute (227 KiB on sm_90)
  int warp_size = 0;
};
/// Throws strata::Error naming the device when `index` is not a usable device.
STRATA_EXPORT DeviceInfo device_info(int index);
/// The chip name nvJitLink and the NVVM target take: "sm_" + compute capability ("sm_90").
STRATA_EXPORT std::string chip(int index);
/// "NVIDIA H200, sm_90, 132 SMs, 141 GB".
STRATA_EXPORT std::string describe(int index);
/// Makes device `index`'s primary context current on this thread (every call here does this
/// itself; for callers that use the driver directly).
STRATA_EXPORT void make_current(int index);
/// The device's non-blocking stream (a CUstream) on which all of Strata's work for it runs.
STRATA_EXPORT void *stream(int index);
/// Waits until the work queued on the device's stream is done.
STRATA_EXPORT void synchronize(int index);

/// The device the C ABI (mgpu*, strata_rt_cuda_gemm) acts on in this thread; 0 by default. An
/// executable sets it before it runs (module loads in global constructors use it too).
STRATA_EXPORT void set_current_device(int index);
STRATA_EXPORT int current_device();

// ---- Memory -----------------------------------------------------------------------------------

/// `nbytes` of device memory from the device's caching allocator (policy: CachingAllocator).
STRATA_EXPORT void *allocate(int index, size_t nbytes);
/// Returns `ptr` to the cache; stream-ordered, so work already queued on the stream may still use
/// it. Ignores pointers that are not live blocks of the device.
STRATA_EXPORT void deallocate(int index, void *ptr) noexcept;
/// The allocator's counters (all zero for a device not used yet).
STRATA_EXPORT AllocatorStats memory_stats(int index);
STRATA_EXPORT void reset_peak_memory(int index);
/// Returns the cached blocks to the driver.
STRATA_EXPORT void empty_cache(int index);
/// (free, total) bytes of device memory as the driver sees them.
STRATA_EXPORT std::pair<size_t, size_t> device_memory_info(int index);

// ---- Copies -----------------------------------------------------------------------------------
// All copies run on the device's stream, so they are ordered with kernels and with the reuse of
// freed blocks. The synchronous ones return when the data is at its destination. Host memory may
// be pageable (the driver stages it through its own pinned buffers) or a PinnedBuffer (faster,
// and truly asynchronous for the *_async calls).

STRATA_EXPORT void copy_to_device(int index, void *dst, const void *src, size_t nbytes);
STRATA_EXPORT void copy_to_host(int index, void *dst, const void *src, size_t nbytes);
STRATA_EXPORT void copy_device_to_device(int index, void *dst, const void *src, size_t nbytes);
/// From device `src_index` to device `dst_index` (the same device or peers).
STRATA_EXPORT void copy_between(int src_index, const void *src, int dst_index, void *dst,
                                size_t nbytes);
/// Queued on the device's stream; the host buffer must stay alive (and, for copy_to_host_async,
/// unread) until synchronize(index).
STRATA_EXPORT void copy_to_device_async(int index, void *dst, const void *src, size_t nbytes);
STRATA_EXPORT void copy_to_host_async(int index, void *dst, const void *src, size_t nbytes);
STRATA_EXPORT void copy_device_to_device_async(int index, void *dst, const void *src,
                                               size_t nbytes);

/// Page-locked host memory (cuMemHostAlloc, portable to every context), freed on destruction.
class STRATA_EXPORT PinnedBuffer {
public:
  /// Needs a device (the driver); throws strata::Error otherwise.
  explicit PinnedBuffer(size_t nbytes);
  ~PinnedBuffer();
  PinnedBuffer(const PinnedBuffer &) = delete;
  PinnedBuffer &operator=(const PinnedBuffer &) = delete;
  void *data() const { return data_; }
  size_t size() const { return size_; }

private:
  void *data_ = nullptr;
  size_t size_ = 0;
};

// ---- Modules and launches ---------------------------------------------------------------------

/// Compiles PTX text to a cubin for `chip` ("sm_90", "sm_90a", "sm_120") with nvJitLink, -O3. Needs
/// no GPU. Results are cached in memory by a hash of (ptx, chip, nvJitLink version) and, when
/// STRATA_CACHE_DIR is set, in $STRATA_CACHE_DIR/cuda/<hash>.cubin (written to a temporary file
/// and renamed, so a concurrent reader never sees half a file; carrying the full key and a
/// checksum, verified before use: a damaged or foreign entry is recompiled). Throws strata::Error
/// with nvJitLink's log when the PTX does not compile, or when nvJitLink is missing.
STRATA_EXPORT std::vector<char> ptx_to_cubin(const std::string &ptx, const std::string &chip);

/// ptx_to_cubin's work since the process started.
struct PtxCacheStats {
  int64_t compiles = 0;    ///< nvJitLink runs
  int64_t memory_hits = 0; ///< served from the in-memory cache
  int64_t disk_hits = 0;   ///< read from $STRATA_CACHE_DIR/cuda
  int64_t disk_writes = 0;
  int64_t disk_discarded = 0; ///< entries in $STRATA_CACHE_DIR/cuda that failed verification
};
STRATA_EXPORT PtxCacheStats ptx_cache_stats();
/// Forgets the in-memory cubins (the persistent cache stays): for tests and for benchmarks that
/// time compilation.
STRATA_EXPORT void clear_ptx_memory_cache();
/// Whether nvJitLink loaded, and why not.
STRATA_EXPORT bool jitlink_available();
STRATA_EXPORT std::string jitlink_unavailable_reason();

/// A kernel of a loaded module: a CUfunction of the device's primary context.
struct Kernel {
  void *function = nullptr;
  int device = 0;
  std::string name;
};

/// A module (cubin or fatbin, or PTX the driver compiles) loaded on one device; unloaded when the
/// last copy goes away.
class STRATA_EXPORT Module {
public:
  /// Loads an image (cubin/fatbin bytes, or NUL-terminated PTX) with cuModuleLoadData.
  static Module load(int index, const void *image);
  /// Compiles `ptx` for the device's chip (ptx_to_cubin) and loads the cubin.
  static Module load_ptx(int index, const std::string &ptx);
  /// The kernel `name` (a .entry of the module); throws naming it when it is absent.
  Kernel kernel(const std::string &name) const;
  int device() const { return device_; }
  void *handle() const { return module_.get(); }

private:
  std::shared_ptr<void> module_;
  int device_ = 0;
};

/// Three launch dimensions.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};
/// Queues `kernel` on its device's stream. `args` points to one pointer per kernel parameter,
/// each to the parameter's value (cuLaunchKernel's convention). Dynamic shared memory above
/// 48 KiB is opted into first.
STRATA_EXPORT void launch(const Kernel &kernel, Dim3 grid, Dim3 block, void **args,
                          unsigned shared_bytes = 0);

// ---- Errors of the C ABI ----------------------------------------------------------------------
// The mgpu* functions and strata_rt_cuda_gemm are called from compiled code and cannot throw
// through its frames: the first failure in a thread is recorded, later calls skip their work
// (returning null) until the caller turns the record into an exception.

/// Whether this thread has a recorded C ABI failure.
STRATA_EXPORT bool has_pending_error();
/// Throws the recorded failure as strata::Error (and clears it); does nothing when there is none.
STRATA_EXPORT void rethrow_pending_error();
STRATA_EXPORT void clear_pending_error();

/// The C ABI functions by name and address, for a JIT that cannot find them in the process
/// (e.g. when this library was loaded with RTLD_LOCAL).
STRATA_EXPORT std::vector<std::pair<const char *, void *>> runtime_symbols();

// ---- cuBLAS -----------------------------------------------------------------------------------

/// Element types of gemm (the values strata_rt_cuda_gemm takes).
enum class GemmType : int64_t {
  F32 = 0,  ///< f32 A, B, C; f32 compute (TF32 tensor cores only with set_allow_tf32(true))
  F64 = 1,  ///< f64 A, B, C
  F16 = 2,  ///< f16 A and B, f32 C and compute
  BF16 = 3, ///< bf16 A and B, f32 C and compute
};
/// What cuBLASLt applies to the product before it is stored. Bias: a vector of C's element type
/// with one value per column j of C (length n, as in x @ W + b); needs a row-major C.
enum class Epilogue { None, Relu, Gelu, Bias, BiasRelu, BiasGelu };

/// One operand: element (i, j) of batch entry t is at
/// ptr + (offset + batch_stride * t + row_stride * i + col_stride * j) * sizeof(element).
struct MatrixRef {
  const void *ptr = nullptr;
  int64_t offset = 0, batch_stride = 0, row_stride = 0, col_stride = 1;
};
/// C[t] (+)= A[t] x B[t] for t < batch; A is m x k, B is k x n, C is m x n. Each matrix needs one
/// unit stride (row- or column-major with a leading dimension at least its other extent).
struct GemmArgs {
  GemmType type = GemmType::F32;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  MatrixRef a, b, c;
  bool accumulate = false; ///< false: C is overwritten (beta = 0)
  Epilogue epilogue = Epilogue::None;
  const void *bias = nullptr;
};
/// Runs the gemm on device `index`'s stream: cuBLASLt with layouts from the strides (heuristic
/// results cached per problem), cublasGemmStridedBatchedEx where Lt has no algorithm (not for
/// epilogues). Throws strata::Error naming the operand whose strides cuBLAS cannot take, or the
/// failing call.
STRATA_EXPORT void gemm(int index, const GemmArgs &args);
/// Allows TF32 tensor cores for f32 gemms (default: the STRATA_ALLOW_TF32=1 environment variable).
STRATA_EXPORT void set_allow_tf32(bool allow);
STRATA_EXPORT bool allow_tf32();
/// Whether cuBLAS and cuBLASLt loaded (they need no driver to load), and why not.
STRATA_EXPORT bool blas_available();
STRATA_EXPORT std::string blas_unavailable_reason();
/// cuBLASLt's version number (e.g. 130000), or 0 when it did not load.
STRATA_EXPORT size_t blas_version();

} // namespace strata::cuda

// ---- The C ABI of compiled host code ------------------------------------------------------------
// MLIR 22's gpu-to-llvm and gpu.binary translation emit calls of these (CUmodule, CUfunction,
// CUstream and CUevent appear as void *). They act on the current device (set_current_device /
// mgpuSetDefaultDevice); mgpuStreamCreate returns its stream and mgpuStreamDestroy of it does
// nothing; mgpuMemAlloc/Free go through its caching allocator.
extern "C" {
STRATA_EXPORT void *mgpuModuleLoad(void *data, size_t size);
STRATA_EXPORT void *mgpuModuleLoadJIT(void *ptx, int opt_level);
STRATA_EXPORT void mgpuModuleUnload(void *module);
STRATA_EXPORT void *mgpuModuleGetFunction(void *module, const char *name);
STRATA_EXPORT void mgpuLaunchKernel(void *function, intptr_t grid_x, intptr_t grid_y,
                                    intptr_t grid_z, intptr_t block_x, intptr_t block_y,
                                    intptr_t block_z, int32_t shared_bytes, void *stream,
                                    void **params, void **extra, size_t param_count);
STRATA_EXPORT void *mgpuStreamCreate();
STRATA_EXPORT void mgpuStreamDestroy(void *stream);
STRATA_EXPORT void mgpuStreamSynchronize(void *stream);
STRATA_EXPORT void mgpuStreamWaitEvent(void *stream, void *event);
STRATA_EXPORT void *mgpuEventCreate();
STRATA_EXPORT void mgpuEventDestroy(void *event);
STRATA_EXPORT void mgpuEventSynchronize(void *event);
STRATA_EXPORT void mgpuEventRecord(void *event, void *stream);
STRATA_EXPORT void *mgpuMemAlloc(uint64_t size, void *stream, int8_t host_shared);
STRATA_EXPORT void mgpuMemFree(void *ptr, void *stream);
STRATA_EXPORT void mgpuMemcpy(void *dst, void *src, size_t size, void *stream);
STRATA_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream);
STRATA_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream);
STRATA_EXPORT void mgpuSetDefaultDevice(int32_t device);

/// C[batch] (+)= A[batch] x B[batch] on the current device (see strata::cuda::gemm): type 0 f32,
/// 1 f64, 2 f16 A/B with f32 C, 3 bf16 A/B with f32 C; a, b, c are device addresses; element
/// (i, j) of X is at X + (X_off + X_bs * t + X_rs * i + X_cs * j) * sizeof(element); accumulate
/// 0 overwrites C. Failures are recorded (rethrow_pending_error), never thrown.
STRATA_EXPORT void strata_rt_cuda_gemm(int64_t type, int64_t batch, int64_t m, int64_t n, int64_t k,
                                       int64_t a, int64_t a_off, int64_t a_bs, int64_t a_rs,
                                       int64_t a_cs, int64_t b, int64_t b_off, int64_t b_bs,
                                       int64_t b_rs, int64_t b_cs, int64_t c, int64_t c_off,
                                       int64_t c_bs, int64_t c_rs, int64_t c_cs,
                                       int64_t accumulate);
}
