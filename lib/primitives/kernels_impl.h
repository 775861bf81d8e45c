// Helpers shared by the reference CPU kernels: dtype dispatch, 16-bit float load/store, and
// row-major index arithmetic.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "strata/array.h"
#include "strata/primitive.h"

namespace strata {

/// The type a kernel computes in: 16-bit floats compute in float and round on store.
template <class T> struct compute_type {
  using type = T;
};
template <> struct compute_type<f16_t> {
  using type = float;
};
template <> struct compute_type<bf16_t> {
  using type = float;
};
template <class T> using compute_t = typename compute_type<T>::type;

inline float load(f16_t v) { return to_float(v); }
inline float load(bf16_t v) { return to_float(v); }
template <class T> inline T load(T v) { return v; }

template <class T> inline constexpr bool is_complex_v = false;
template <class R> inline constexpr bool is_complex_v<std::complex<R>> = true;

/// The real type of a (complex) scalar type: float for std::complex<float>, T otherwise.
template <class T> struct real_of {
  using type = T;
};
template <class R> struct real_of<std::complex<R>> {
  using type = R;
};
template <class T> using real_t = typename real_of<T>::type;

/// Stores a computed value as T; a complex value stored as a real type keeps its real part (as
/// numpy's and JAX's complex -> real casts), stored as bool it is whether either part is nonzero.
template <class T, class C> inline T store(C v) {
  if constexpr (is_complex_v<C> && !is_complex_v<T>) {
    if constexpr (std::is_same_v<T, bool>)
      return v != C(0);
    else
      return store<T>(v.real());
  } else if constexpr (std::is_same_v<T, f16_t>)
    return to_f16(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, bf16_t>)
    return to_bf16(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, bool>)
    return v != C(0);
  else
    return static_cast<T>(v);
}

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, f16_t> || std::is_same_v<T, bf16_t>;
template <class T> inline constexpr bool is_float_v = std::is_floating_point_v<T> || is_half_v<T>;

/// Throws the error of a real-only kernel reached with a complex dtype.
[[noreturn]] void fail_complex_dispatch(DType dtype);

/// Runs BODY with T bound to the storage type of `dtype`. Bool is stored as bool (one byte).
/// STRATA_DISPATCH covers the real dtypes and throws on complex ones (a kernel that has no
/// complex code); STRATA_DISPATCH_ALL also binds std::complex<float> and std::complex<double>.
#define STRATA_DISPATCH_CASE(DT, TYPE, T, ...)                                                     \
  case DT: {                                                                                       \
    using T = TYPE;                                                                                \
    __VA_ARGS__;                                                                                   \
    break;                                                                                         \
  }
#define STRATA_DISPATCH(dtype, T, ...)                                                             \
  switch (dtype) {                                                                                 \
    STRATA_DISPATCH_REAL_CASES(T, __VA_ARGS__)                                                     \
  case ::strata::DType::Complex64:                                                                 \
  case ::strata::DType::Complex128:                                                                \
    ::strata::fail_complex_dispatch(dtype);                                                        \
  }
#define STRATA_DISPATCH_ALL(dtype, T, ...)                                                         \
  switch (dtype) {                                                                                 \
    STRATA_DISPATCH_REAL_CASES(T, __VA_ARGS__)                                                     \
    STRATA_DISPATCH_CASE(::strata::DType::Complex64, std::complex<float>, T, __VA_ARGS__)          \
    STRATA_DISPATCH_CASE(::strata::DType::Complex128, std::complex<double>, T, __VA_ARGS__)        \
  }
#define STRATA_DISPATCH_REAL_CASES(T, ...)                                                         \
  STRATA_DISPATCH_CASE(::strata::DType::Bool, bool, T, __VA_ARGS__)                                \
  STRATA_DISPATCH_CASE(::strata::DType::Int8, int8_t, T, __VA_ARGS__)                              \
  STRATA_DISPATCH_CASE(::strata::DType::Int16, int16_t, T, __VA_ARGS__)                            \
  STRATA_DISPATCH_CASE(::strata::DType::Int32, int32_t, T, __VA_ARGS__)                            \
  STRATA_DISPATCH_CASE(::strata::DType::Int64, int64_t, T, __VA_ARGS__)                            \
  STRATA_DISPATCH_CASE(::strata::DType::UInt8, uint8_t, T, __VA_ARGS__)                            \
  STRATA_DISPATCH_CASE(::strata::DType::UInt16, uint16_t, T, __VA_ARGS__)                          \
  STRATA_DISPATCH_CASE(::strata::DType::UInt32, uint32_t, T, __VA_ARGS__)                          \
  STRATA_DISPATCH_CASE(::strata::DType::UInt64, uint64_t, T, __VA_ARGS__)                          \
  STRATA_DISPATCH_CASE(::strata::DType::Float16, ::strata::f16_t, T, __VA_ARGS__)                  \
  STRATA_DISPATCH_CASE(::strata::DType::BFloat16, ::strata::bf16_t, T, __VA_ARGS__)                \
  STRATA_DISPATCH_CASE(::strata::DType::Float32, float, T, __VA_ARGS__)                            \
  STRATA_DISPATCH_CASE(::strata::DType::Float64, double, T, __VA_ARGS__)

/// The unsigned type a wrapping operation on C computes in: C's unsigned twin, widened to
/// unsigned int, since narrower operands are promoted to (signed) int, where 65535 * 65535
/// overflows.
template <class C>
using wrap_unsigned_t =
    std::conditional_t<(sizeof(C) < sizeof(unsigned)), unsigned, std::make_unsigned_t<C>>;

/// Two's-complement wrapping add and multiply: signed integer overflow is undefined in C++.
template <class C> C wrap_add(C a, C b) {
  if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
    using U = wrap_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <class C> C wrap_mul(C a, C b) {
  if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
    using U = wrap_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

/// Row-major strides (in elements) of a shape.
inline std::vector<int64_t> strides_of(const Shape &shape) {
  std::vector<int64_t> s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

/// Advances a multi-index over `shape` in row-major order; returns false after the last.
inline bool next_index(std::vector<int64_t> &idx, const Shape &shape) {
  for (size_t i = shape.size(); i-- > 0;) {
    if (++idx[i] < shape[i])
      return true;
    idx[i] = 0;
  }
  return false;
}

/// The bits of a 16-byte element (complex128), for kernels that move elements without reading
/// them.
struct alignas(16) Bits128 {
  uint64_t lo, hi;
};

/// Normalizes an axis against a rank (negative counts from the end); throws naming `op`.
int64_t normalize_axis(std::string_view op, int64_t axis, int64_t rank);

/// Copies `src` (any shape) into a new array of `out` aval, element by element, where
/// `src_offset(out_index)` gives the source element offset. Used by shape primitives.
template <class F>
void gather_elements(const Array &src, Array &dst, const Shape &out_shape, F &&src_offset) {
  if (num_elements(out_shape) == 0)
    return;
  size_t sz = itemsize(src.dtype());
  const auto *s = static_cast<const uint8_t *>(src.data());
  auto *d = static_cast<uint8_t *>(dst.mutable_data());
  std::vector<int64_t> idx(out_shape.size(), 0);
  int64_t k = 0;
  do {
    int64_t off = src_offset(idx);
    switch (sz) {
    case 16:
      reinterpret_cast<Bits128 *>(d)[k] = reinterpret_cast<const Bits128 *>(s)[off];
      break;
    case 1:
      d[k] = s[off];
      break;
    case 2:
      reinterpret_cast<uint16_t *>(d)[k] = reinterpret_cast<const uint16_t *>(s)[off];
      break;
    case 4:
      reinterpret_cast<uint32_t *>(d)[k] = reinterpret_cast<const uint32_t *>(s)[off];
      break;
    default:
      reinterpret_cast<uint64_t *>(d)[k] = reinterpret_cast<const uint64_t *>(s)[off];
      break;
    }
    ++k;
  } while (next_index(idx, out_shape));
}

} // namespace strata
