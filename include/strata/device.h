// Devices other than the host: the interface a device runtime (runtime/cuda) registers with
// libstrata so that arrays can live in its memory, and the user-facing device functions.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/array.h"
#include "strata/primitive.h"

namespace strata {

/// What a device runtime gives libstrata. All methods may throw strata::Error except
/// deallocate; copies are synchronous with respect to the host (the data is there on return).
class DeviceBackend {
public:
  virtual ~DeviceBackend() = default;
  /// Devices of this kind usable now (0 when the driver or the hardware is missing).
  virtual int device_count() = 0;
  /// Why there are none ("libcuda.so.1 not found", ...); empty when device_count() > 0.
  virtual std::string unavailable_reason() = 0;
  /// A short description of device `index` ("NVIDIA H200, sm_90, 132 SMs, 141 GB").
  virtual std::string describe(int index) = 0;
  virtual void *allocate(int index, size_t nbytes) = 0;
  virtual void deallocate(int index, void *ptr, size_t nbytes) noexcept = 0;
  virtual void copy_to_host(int index, void *dst, const void *src, size_t nbytes) = 0;
  virtual void copy_from_host(int index, void *dst, const void *src, size_t nbytes) = 0;
  virtual void copy_between(int src_index, const void *src, int dst_index, void *dst,
                            size_t nbytes) = 0;
};

/// Installs the backend of `kind` (a runtime library does this when it is loaded). One per kind;
/// a second registration replaces the first. Not for Kind::CPU.
STRATA_EXPORT void register_device_backend(Device::Kind kind, DeviceBackend *backend);
/// The registered backend of `kind`, or null.
STRATA_EXPORT DeviceBackend *device_backend(Device::Kind kind);

/// Every usable device: cpu:0 first, then cuda:0, cuda:1, ... when a CUDA runtime is loaded and
/// finds GPUs.
STRATA_EXPORT std::vector<Device> devices();
/// Parses "cpu", "cpu:0", "cuda", "cuda:1", "gpu:0"; throws naming the string when it is not a
/// device of this process.
STRATA_EXPORT Device parse_device(const std::string &name);
/// Where an op on `inputs` runs: the one GPU any concrete input lives on (host inputs join it,
/// as JAX does with uncommitted arrays), else the host. Throws naming `op` and both devices
/// when inputs live on two different GPUs.
STRATA_EXPORT Device common_device(std::string_view op, const std::vector<Array> &inputs);
/// A copy of `x` on `device` (x itself when it is there already). Under a transform, the
/// value is traced through unchanged (placement is not differentiable data).
STRATA_EXPORT Array device_put(const Array &x, Device device);
/// A fresh uninitialized array on `device` (runtimes allocate results with it).
STRATA_EXPORT Array empty_on(const Shape &shape, DType dtype, Device device,
                             bool weak_type = false);

/// How eager ops run on a device: the jit library installs a function that compiles one
/// primitive for the device of its inputs (once per signature) and runs it.
using DeviceEvalFn = std::function<std::vector<Array>(
    const Primitive &prim, const std::vector<Array> &inputs, const Params &params)>;
STRATA_EXPORT void register_device_eval(Device::Kind kind, DeviceEvalFn fn);

} // namespace strata
