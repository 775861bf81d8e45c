// Buffers (host: 64-byte aligned, counted in memory_stats; device: from the registered
// DeviceBackend) and the internals of Array.
#pragma once

#include <memory>

#include "strata/array.h"

namespace strata {

class Buffer {
public:
  /// Memory on `device` (host memory for cpu:0); throws when no backend has that device.
  explicit Buffer(size_t nbytes, Device device = cpu_device());
  ~Buffer();
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  /// The memory's address: a host pointer on cpu:0, a device address otherwise.
  void *data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

private:
  void *data_;
  size_t nbytes_;
  Device device_;
};

struct Array::Impl {
  Shape shape;
  DType dtype;
  bool weak_type = false;
  std::shared_ptr<Buffer> buffer; // concrete arrays (their device is the buffer's)
  std::shared_ptr<Tracer> tracer; // values of a trace level
};

} // namespace strata
