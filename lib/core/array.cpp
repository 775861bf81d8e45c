// Array handles, host buffers and their memory counters, and float16/bfloat16 conversion.
#include "strata/array.h"

#include <atomic>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "core/device_impl.h"
#include "primitives/kernels_impl.h"
#include "strata/device.h"
#include "strata/internal/buffer.h"
#include "strata/internal/host_memory.h"
#include "strata/internal/trace.h"
#include "strata/ops.h"
#include "strata/primitive.h"
#include "strata/sizes.h"

namespace strata {

// ---- Memory counters -------------------------------------------------------------------------
namespace {
std::atomic<int64_t> g_live_bytes{0}, g_peak_bytes{0}, g_live_buffers{0}, g_total_allocs{0};

void note_alloc(int64_t n) {
  int64_t live = g_live_bytes.fetch_add(n, std::memory_order_relaxed) + n;
  g_live_buffers.fetch_add(1, std::memory_order_relaxed);
  g_total_allocs.fetch_add(1, std::memory_order_relaxed);
  int64_t peak = g_peak_bytes.load(std::memory_order_relaxed);
  while (live > peak &&
         !g_peak_bytes.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
}
} // namespace

Buffer::Buffer(size_t nbytes, Device device) : nbytes_(nbytes), device_(device) {
  if (device.kind == Device::Kind::CPU) {
    data_ = host_alloc(nbytes);
    note_alloc(static_cast<int64_t>(nbytes));
    return;
  }
  data_ = checked_backend("array", device)->allocate(device.index, nbytes);
}

Buffer::~Buffer() {
  if (device_.kind != Device::Kind::CPU) {
    if (DeviceBackend *b = device_backend(device_.kind))
      b->deallocate(device_.index, data_, nbytes_);
    return;
  }
  host_free(data_, nbytes_);
  g_live_bytes.fetch_sub(static_cast<int64_t>(nbytes_), std::memory_order_relaxed);
  g_live_buffers.fetch_sub(1, std::memory_order_relaxed);
}

MemoryStats memory_stats() {
  return {g_live_bytes.load(), g_peak_bytes.load(), g_live_buffers.load(), g_total_allocs.load()};
}
void reset_peak_memory() { g_peak_bytes.store(g_live_bytes.load()); }

// ---- Names -------------------------------------------------------------------------------------
std::string Device::to_string() const {
  return detail::cat(kind == Kind::CPU ? "cpu:" : "cuda:", index);
}

std::string shape_str(const Shape &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}
std::string type_str(DType dtype, const Shape &shape) {
  return std::string(short_name(dtype)) + shape_str(shape);
}
int64_t num_elements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n))
      throw AllocationError(detail::cat("[shape] too large: the element count of ",
                                        shape_str(shape), " overflows int64"));
  return n;
}

// ---- 16-bit floats
// -------------------------------------------------------------------------------
float to_float(bf16_t v) { return std::bit_cast<float>(static_cast<uint32_t>(v.bits) << 16); }
bf16_t to_bf16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if (std::isnan(f))
    return {static_cast<uint16_t>((u >> 16) | 0x40)}; // keep NaN quiet
  u += 0x7fff + ((u >> 16) & 1);                      // round to nearest even
  return {static_cast<uint16_t>(u >> 16)};
}
float to_float(f16_t v) {
  uint32_t h = v.bits, sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t u;
  if (exp == 0) {
    if (mant == 0) {
      u = sign;
    } else { // subnormal: normalize
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400));
      u = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | (mant & 0x3ff) << 13;
    }
  } else if (exp == 31) {
    u = sign | 0x7f800000u | mant << 13;
  } else {
    u = sign | (exp + 127 - 15) << 23 | mant << 13;
  }
  return std::bit_cast<float>(u);
}
f16_t to_f16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t absu = u & 0x7fffffffu;
  if (absu >= 0x7f800000u) // inf or nan
    return {static_cast<uint16_t>(sign | 0x7c00u | (absu > 0x7f800000u ? 0x200u : 0u))};
  if (absu >= 0x477ff000u) // rounds to >= 65520: overflow to inf
    return {static_cast<uint16_t>(sign | 0x7c00u)};
  if (absu < 0x38800000u) { // below the smallest normal half: subnormal or zero
    // Adding 0.5 makes the float unit round its mantissa at the half-subnormal position.
    float r = std::bit_cast<float>(absu) + 0.5f;
    return {static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(r) - 0x3f000000u))};
  }
  uint32_t mant_odd = (absu >> 13) & 1;
  absu += 0xc8000fffu + mant_odd; // rebias exponent (-112 << 23) and round to nearest even
  return {static_cast<uint16_t>(sign | (absu >> 13))};
}

// ---- Array --------------------------------------------------------------------------------------
Array empty_on(const Shape &shape, DType dtype, Device device, bool weak_type) {
  size_t nbytes = checked_byte_size(dtype, shape, allocation_op());
  auto impl = std::make_shared<Array::Impl>();
  impl->shape = shape;
  impl->dtype = dtype;
  impl->weak_type = weak_type;
  try {
    impl->buffer = std::make_shared<Buffer>(nbytes, device);
  } catch (const AllocationError &e) { // the allocator's message names bytes, not the array
    bool host = device.kind == Device::Kind::CPU;
    throw_out_of_memory(allocation_op(), dtype, shape,
                        host ? "host memory" : device.to_string() + " memory",
                        host ? "" : e.what());
  } catch (const std::bad_alloc &) {
    throw_out_of_memory(allocation_op(), dtype, shape, "host memory");
  }
  return Array(std::move(impl));
}

Array Array::empty(const Shape &shape, DType dtype, bool weak_type) {
  return empty_on(shape, dtype, cpu_device(), weak_type);
}

void Array::check_count(int64_t count, const Shape &shape) {
  for (int64_t d : shape)
    if (d < 0)
      fail("array", "negative dimension in shape ", shape_str(shape));
  if (count != num_elements(shape))
    fail("array", "got ", count, " values for shape ", shape_str(shape), " (", num_elements(shape),
         " elements)");
}

Array Array::from_data(const void *data, const Shape &shape, DType dtype) {
  Array a = empty(shape, dtype);
  size_t n = static_cast<size_t>(a.nbytes());
  if (n)
    std::memcpy(a.mutable_data(), data, n);
  if (dtype == DType::Bool) { // normalize to 0/1
    auto *p = static_cast<uint8_t *>(a.mutable_data());
    for (size_t i = 0; i < n; ++i)
      p[i] = p[i] != 0;
  }
  return a;
}

Array Array::weak_scalar(double value, DType dtype) {
  if (!is_floating(dtype))
    fail("weak_scalar", "dtype must be floating-point, got ", short_name(dtype));
  Array a = empty({}, dtype, true);
  STRATA_DISPATCH(dtype, T, {
    if constexpr (is_float_v<T>)
      *static_cast<T *>(a.mutable_data()) = store<T>(value);
  });
  return a;
}
Array Array::weak_scalar_complex(std::complex<double> value, DType dtype) {
  if (!is_complex(dtype))
    fail("weak_scalar_complex", "dtype must be complex, got ", short_name(dtype));
  Array a = empty({}, dtype, true);
  if (dtype == DType::Complex64)
    *static_cast<std::complex<float> *>(a.mutable_data()) = std::complex<float>(value);
  else
    *static_cast<std::complex<double> *>(a.mutable_data()) = value;
  return a;
}
Array Array::weak_scalar_int(int64_t value) {
  if (!x64_enabled() && value >= INT32_MIN && value <= INT32_MAX) {
    int32_t v = static_cast<int32_t>(value);
    return from_data(&v, {}, DType::Int32).with_weak_type(true);
  }
  return from_data(&value, {}, DType::Int64).with_weak_type(true);
}

Array Array::from_tracer(std::shared_ptr<Tracer> tracer, const Shape &shape, DType dtype,
                         bool weak_type) {
  auto impl = std::make_shared<Impl>();
  impl->shape = shape;
  impl->dtype = dtype;
  impl->weak_type = weak_type;
  impl->tracer = std::move(tracer);
  return Array(std::move(impl));
}

static const Array::Impl &checked(const std::shared_ptr<Array::Impl> &impl) {
  if (!impl)
    throw Error("[array] use of an empty (default-constructed) Array");
  return *impl;
}

const Shape &Array::shape() const { return checked(impl_).shape; }
int64_t Array::shape(int axis) const {
  int r = ndim();
  if (axis < -r || axis >= r)
    fail("shape", "axis ", axis, " out of range for ", type_str());
  return shape()[axis < 0 ? axis + r : axis];
}
DType Array::dtype() const { return checked(impl_).dtype; }
bool Array::weak_type() const { return checked(impl_).weak_type; }
Device Array::device() const {
  const Impl &i = checked(impl_);
  return i.buffer ? i.buffer->device() : cpu_device();
}
int64_t Array::size() const { return num_elements(shape()); }
int64_t Array::nbytes() const {
  return static_cast<int64_t>(checked_byte_size(dtype(), shape(), "array"));
}
std::string Array::type_str() const { return strata::type_str(dtype(), shape()); }
bool Array::is_concrete() const { return checked(impl_).buffer != nullptr; }
const std::shared_ptr<Buffer> &Array::buffer() const { return checked(impl_).buffer; }
const std::shared_ptr<Tracer> &Array::tracer() const { return checked(impl_).tracer; }

namespace {
const Buffer &concrete_buffer(const Array &a, const Array::Impl &i) {
  if (!i.buffer)
    throw Error(detail::cat("[array] ", a.type_str(), " is a traced value of ",
                            describe_tracer(*i.tracer),
                            "; it has no concrete data (a value that decides control flow or a "
                            "shape must be a static argument of jit, or use select/where)"),
                ErrorKind::Type);
  return *i.buffer;
}
} // namespace

const void *Array::data() const {
  const Impl &i = checked(impl_);
  const Buffer &b = concrete_buffer(*this, i);
  if (b.device().kind != Device::Kind::CPU)
    throw Error(detail::cat("[array] ", type_str(), " lives on ", b.device().to_string(),
                            "; its data is not in host memory (copy_to, to_vector or "
                            "device_put(x, cpu_device()) copy it to the host)"),
                ErrorKind::Type);
  return b.data();
}
void *Array::mutable_data() const { return const_cast<void *>(data()); }
void Array::copy_to(void *dst) const {
  const Impl &i = checked(impl_);
  const Buffer &b = concrete_buffer(*this, i);
  size_t n = static_cast<size_t>(nbytes());
  if (!n)
    return;
  if (b.device().kind == Device::Kind::CPU)
    std::memcpy(dst, b.data(), n);
  else
    checked_backend("copy_to", b.device())->copy_to_host(b.device().index, dst, b.data(), n);
}

Array Array::with_shape(const Shape &shape) const {
  const Impl &i = checked(impl_);
  // Checked first: two negative dims can multiply to the right count ([-2,-3] for 6).
  for (int64_t d : shape)
    if (d < 0)
      fail("reshape", "negative dimension in shape ", shape_str(shape));
  if (num_elements(shape) != size())
    fail_kind(ErrorKind::Type, "reshape", "cannot reshape ", type_str(), " (", size(),
              " elements) to ", shape_str(shape));
  auto impl = std::make_shared<Impl>(i);
  impl->shape = shape;
  return Array(std::move(impl));
}
Array Array::with_weak_type(bool weak) const {
  auto impl = std::make_shared<Impl>(checked(impl_));
  impl->weak_type = weak;
  return Array(std::move(impl));
}

void fail_complex_dispatch(DType dtype) {
  throw Error(detail::cat("[dtype] this operation has no kernel for complex values, got ",
                          short_name(dtype)),
              ErrorKind::Type);
}

std::complex<double> item_as_complex(const Array &a) {
  if (a.size() != 1)
    fail("item", "expected an array with one element, got ", a.type_str());
  if (a.is_concrete() && a.device().kind != Device::Kind::CPU)
    return item_as_complex(device_put(a, cpu_device()));
  std::complex<double> out;
  STRATA_DISPATCH_ALL(a.dtype(), T, { out = std::complex<double>(load(a.data<T>()[0])); });
  return out;
}

double item_as_double(const Array &a) {
  if (a.size() != 1)
    fail("item", "expected an array with one element, got ", a.type_str());
  if (is_complex(a.dtype()))
    fail_kind(ErrorKind::Type, "item", "cannot convert the complex value ", a.type_str(),
              " to a real number (take real() first, or item<std::complex<double>>())");
  if (a.is_concrete() && a.device().kind != Device::Kind::CPU)
    return item_as_double(device_put(a, cpu_device()));
  double out = 0;
  STRATA_DISPATCH(a.dtype(), T, { out = static_cast<double>(load(a.data<T>()[0])); });
  return out;
}
int64_t item_as_int(const Array &a) {
  if (a.size() != 1)
    fail("item", "expected an array with one element, got ", a.type_str());
  if (is_complex(a.dtype()))
    fail_kind(ErrorKind::Type, "item", "cannot convert the complex value ", a.type_str(),
              " to an integer (take real() first)");
  if (a.is_concrete() && a.device().kind != Device::Kind::CPU)
    return item_as_int(device_put(a, cpu_device()));
  int64_t out = 0;
  STRATA_DISPATCH(a.dtype(), T, {
    auto v = load(a.data<T>()[0]);
    // Casting NaN, inf or a float beyond int64 to an integer is undefined behaviour in C++.
    if constexpr (std::is_floating_point_v<decltype(v)>)
      if (!(v >= -0x1p63 && v < 0x1p63))
        fail("item", "cannot convert ", v, " (", a.type_str(), ") to an integer");
    out = static_cast<int64_t>(v);
  });
  return out;
}

// Operators that live on the class; the free operators are in ops/.
Array Array::operator-() const { return negative(*this); }
Array Array::operator!() const { return logical_not(*this); }
Array Array::operator~() const { return bitwise_not(*this); }
Array Array::operator[](const Index &idx) const { return index(*this, {idx}); }
Array Array::operator[](std::initializer_list<Index> idx) const {
  return index(*this, std::vector<Index>(idx));
}
Array Array::T() const { return transpose(*this); }
Array Array::astype(DType dtype) const { return strata::astype(*this, dtype); }
Array Array::reshape(const Shape &shape) const { return strata::reshape(*this, shape); }

} // namespace strata
