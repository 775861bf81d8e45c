// Host buffers (64-byte aligned, counted in memory_stats) and the internals of Array.
#pragma once

#include <memory>

#include "strata/array.h"

namespace strata {

class Buffer {
public:
  explicit Buffer(size_t nbytes);
  ~Buffer();
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  void *data() const { return data_; }
  size_t nbytes() const { return nbytes_; }

private:
  void *data_;
  size_t nbytes_;
};

struct Array::Impl {
  Shape shape;
  DType dtype;
  bool weak_type = false;
  Device device;
  std::shared_ptr<Buffer> buffer; // concrete arrays
  std::shared_ptr<Tracer> tracer; // values of a trace level
};

} // namespace strata
