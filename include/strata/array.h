// strata::Array: the immutable, refcounted array handle that user code sees.
#pragma once

#include <complex>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "strata/dtype.h"
#include "strata/error.h"
#include "strata/export.h"

namespace strata {

using Shape = std::vector<int64_t>;

/// Where an array lives. `cpu:0` always exists; `cuda:N` comes with the GPU backend.
struct Device {
  enum class Kind : uint8_t { CPU, CUDA };
  Kind kind = Kind::CPU;
  int index = 0;
  bool operator==(const Device &) const = default;
  STRATA_EXPORT std::string to_string() const;
};
inline Device cpu_device() { return Device{}; }

/// Host memory owned by one or more arrays; allocation is counted in memory_stats().
class Buffer;
/// A value of some trace level (jvp, grad, vmap, ...); opaque to users.
class Tracer;

/// "f32[2,3]" style description of a shape and dtype.
STRATA_EXPORT std::string shape_str(const Shape &shape);
STRATA_EXPORT std::string type_str(DType dtype, const Shape &shape);
STRATA_EXPORT int64_t num_elements(const Shape &shape);

/// The C++ type that stores each dtype on the host.
struct f16_t {
  uint16_t bits;
};
struct bf16_t {
  uint16_t bits;
};
STRATA_EXPORT float to_float(f16_t v);
STRATA_EXPORT float to_float(bf16_t v);
STRATA_EXPORT f16_t to_f16(float v);   // round to nearest even
STRATA_EXPORT bf16_t to_bf16(float v); // round to nearest even

template <class T> struct dtype_of;
template <> struct dtype_of<bool> {
  static constexpr DType value = DType::Bool;
};
template <> struct dtype_of<int8_t> {
  static constexpr DType value = DType::Int8;
};
template <> struct dtype_of<int16_t> {
  static constexpr DType value = DType::Int16;
};
template <> struct dtype_of<int32_t> {
  static constexpr DType value = DType::Int32;
};
template <> struct dtype_of<int64_t> {
  static constexpr DType value = DType::Int64;
};
template <> struct dtype_of<uint8_t> {
  static constexpr DType value = DType::UInt8;
};
template <> struct dtype_of<uint16_t> {
  static constexpr DType value = DType::UInt16;
};
template <> struct dtype_of<uint32_t> {
  static constexpr DType value = DType::UInt32;
};
template <> struct dtype_of<uint64_t> {
  static constexpr DType value = DType::UInt64;
};
template <> struct dtype_of<f16_t> {
  static constexpr DType value = DType::Float16;
};
template <> struct dtype_of<bf16_t> {
  static constexpr DType value = DType::BFloat16;
};
template <> struct dtype_of<float> {
  static constexpr DType value = DType::Float32;
};
template <> struct dtype_of<double> {
  static constexpr DType value = DType::Float64;
};
template <> struct dtype_of<std::complex<float>> {
  static constexpr DType value = DType::Complex64;
};
template <> struct dtype_of<std::complex<double>> {
  static constexpr DType value = DType::Complex128;
};

/// One entry of an index expression: x[{0, Slice(1, 3), NewAxis, Ellipsis, idx_array}].
struct Slice {
  std::optional<int64_t> start, stop;
  int64_t step = 1;
  Slice() = default;
  Slice(std::optional<int64_t> start_, std::optional<int64_t> stop_, int64_t step_ = 1)
      : start(start_), stop(stop_), step(step_) {}
};
struct NewAxisT {};
struct EllipsisT {};
inline constexpr NewAxisT NewAxis{};
inline constexpr EllipsisT Ellipsis{};
class Array;
struct Index;

/// An immutable n-dimensional array. Copying the handle is cheap and shares the data.
class STRATA_EXPORT Array {
public:
  struct Impl;

  Array() = default;
  /// A rank-0 array from a C++ scalar; `Array(2.0f)` is f32, `Array(2)` is i32.
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Array(T value) : Array(from_data(&value, {}, dtype_of<T>::value)) {}
  /// A rank-0 complex array: `Array(std::complex<float>(1, 2))` is c64.
  template <class R, std::enable_if_t<std::is_floating_point_v<R>, int> = 0>
  Array(std::complex<R> value) : Array(from_data(&value, {}, dtype_of<std::complex<R>>::value)) {}

  /// Copies `nbytes(shape, dtype)` bytes from host memory.
  static Array from_data(const void *data, const Shape &shape, DType dtype);
  template <class T> static Array from_vector(const std::vector<T> &v, const Shape &shape) {
    check_count(static_cast<int64_t>(v.size()), shape);
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<uint8_t> bytes(v.begin(), v.end());
      return from_data(bytes.data(), shape, DType::Bool);
    } else {
      return from_data(v.data(), shape, dtype_of<T>::value);
    }
  }
  template <class T> static Array from_vector(const std::vector<T> &v) {
    return from_vector(v, Shape{static_cast<int64_t>(v.size())});
  }
  /// A weakly typed scalar (as a Python literal is in JAX): it takes the other operand's type.
  /// `dtype` (the default float, as a Python float in JAX) is where the value is stored; the
  /// operators store in the other operand's float type so `f64_array * 0.1` is exact.
  static Array weak_scalar(double value, DType dtype = default_float_dtype());
  /// A weak integer: i32 (i64 in 64-bit mode, or when the value does not fit i32).
  static Array weak_scalar_int(int64_t value);
  /// A weak complex scalar (a Python complex literal in JAX), stored as `dtype` (the default
  /// complex type unless given).
  static Array weak_scalar_complex(std::complex<double> value,
                                   DType dtype = default_complex_dtype());

  bool valid() const { return impl_ != nullptr; }
  const Shape &shape() const;
  int64_t shape(int axis) const; // negative axes count from the end
  DType dtype() const;
  bool weak_type() const;
  Device device() const;
  int ndim() const { return static_cast<int>(shape().size()); }
  int64_t size() const;
  int64_t nbytes() const;
  /// "f32[2,3]"
  std::string type_str() const;

  /// True when the array holds data (not a tracer of some transform).
  bool is_concrete() const;
  /// Raw host data; throws when the array is a tracer.
  const void *data() const;
  template <class T> const T *data() const { return static_cast<const T *>(data()); }
  void copy_to(void *dst) const;
  template <class T> std::vector<T> to_vector() const;
  /// The value of a size-1 array converted to T.
  template <class T> T item() const;

  // Operators (numpy broadcasting and JAX promotion).
  Array operator-() const;
  Array operator!() const;
  Array operator~() const;
  Array operator[](const Index &index) const;
  Array operator[](std::initializer_list<Index> indices) const;
  Array T() const;
  Array astype(DType dtype) const;
  Array reshape(const Shape &shape) const;

  // Internals, for trace levels and kernels.
  explicit Array(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  const std::shared_ptr<Impl> &impl() const { return impl_; }
  const std::shared_ptr<Buffer> &buffer() const;
  const std::shared_ptr<Tracer> &tracer() const;
  /// Writable data of an array that this call just allocated (kernels only).
  void *mutable_data() const;
  /// A fresh uninitialized array.
  static Array empty(const Shape &shape, DType dtype, bool weak_type = false);
  /// An array sharing this one's buffer with another shape (same element count) or weak flag.
  Array with_shape(const Shape &shape) const;
  Array with_weak_type(bool weak) const;
  static Array from_tracer(std::shared_ptr<Tracer> tracer, const Shape &shape, DType dtype,
                           bool weak_type);

private:
  static void check_count(int64_t count, const Shape &shape);
  std::shared_ptr<Impl> impl_;
};

struct Index {
  enum class Kind { Int, Slice, NewAxis, Ellipsis, Array };
  Kind kind;
  int64_t i = 0;
  strata::Slice slice;
  strata::Array array;
  Index(int v) : kind(Kind::Int), i(v) {}
  Index(int64_t v) : kind(Kind::Int), i(v) {}
  Index(strata::Slice s) : kind(Kind::Slice), slice(s) {}
  Index(NewAxisT) : kind(Kind::NewAxis) {}
  Index(EllipsisT) : kind(Kind::Ellipsis) {}
  Index(strata::Array a) : kind(Kind::Array), array(std::move(a)) {}
};

/// Host-memory counters: bytes of live buffers, the peak since the last reset, allocation count.
struct MemoryStats {
  int64_t live_bytes = 0;
  int64_t peak_bytes = 0;
  int64_t live_buffers = 0;
  int64_t total_allocations = 0;
};
STRATA_EXPORT MemoryStats memory_stats();
STRATA_EXPORT void reset_peak_memory();

template <class T> std::vector<T> Array::to_vector() const {
  if (dtype() != dtype_of<T>::value)
    fail("to_vector", "array is ", type_str(), ", requested ", short_name(dtype_of<T>::value));
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> bytes(static_cast<size_t>(size()));
    copy_to(bytes.data());
    return std::vector<bool>(bytes.begin(), bytes.end());
  } else {
    std::vector<T> out(static_cast<size_t>(size()));
    copy_to(out.data());
    return out;
  }
}

STRATA_EXPORT double item_as_double(const Array &a);
STRATA_EXPORT int64_t item_as_int(const Array &a);
/// The one element of any dtype as a complex number (a real one with zero imaginary part).
STRATA_EXPORT std::complex<double> item_as_complex(const Array &a);
template <class T> T Array::item() const {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
    return static_cast<T>(item_as_complex(*this));
  else if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(item_as_double(*this));
  else if constexpr (std::is_same_v<T, bool>)
    return item_as_double(*this) != 0;
  else
    return static_cast<T>(item_as_int(*this));
}

} // namespace strata
