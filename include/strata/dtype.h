// Element types, their properties, and JAX's type-promotion lattice.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "strata/export.h"

namespace strata {

/// The element types Strata supports.
enum class DType : uint8_t {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  Complex64,  // two f32: real, imaginary (std::complex<float>'s layout)
  Complex128, // two f64
};
inline constexpr int kNumDTypes = 15;

inline constexpr DType bool_ = DType::Bool;
inline constexpr DType int8 = DType::Int8;
inline constexpr DType int16 = DType::Int16;
inline constexpr DType int32 = DType::Int32;
inline constexpr DType int64 = DType::Int64;
inline constexpr DType uint8 = DType::UInt8;
inline constexpr DType uint16 = DType::UInt16;
inline constexpr DType uint32 = DType::UInt32;
inline constexpr DType uint64 = DType::UInt64;
inline constexpr DType float16 = DType::Float16;
inline constexpr DType bfloat16 = DType::BFloat16;
inline constexpr DType float32 = DType::Float32;
inline constexpr DType float64 = DType::Float64;
inline constexpr DType complex64 = DType::Complex64;
inline constexpr DType complex128 = DType::Complex128;

/// Bytes per element.
STRATA_EXPORT size_t itemsize(DType t);
/// Short name as used in shapes and errors: bool, i8, i16, i32, i64, u8, u16, u32, u64, f16,
/// bf16, f32, f64, c64, c128.
STRATA_EXPORT std::string_view short_name(DType t);
/// numpy-style name: bool, int8, ..., bfloat16, float32.
STRATA_EXPORT std::string_view dtype_name(DType t);
/// Parses either a short or a numpy-style name; throws strata::Error on an unknown name.
STRATA_EXPORT DType dtype_from_name(std::string_view name);

STRATA_EXPORT bool is_floating(DType t);
STRATA_EXPORT bool is_integer(DType t); // signed or unsigned, not bool
STRATA_EXPORT bool is_signed_integer(DType t);
STRATA_EXPORT bool is_unsigned_integer(DType t);
inline bool is_bool(DType t) { return t == DType::Bool; }
/// complex64 or complex128.
inline bool is_complex(DType t) { return t == DType::Complex64 || t == DType::Complex128; }
/// Floating-point or complex: the dtypes that carry derivatives (jnp.inexact).
inline bool is_inexact(DType t) { return is_floating(t) || is_complex(t); }
/// The dtype of a complex dtype's parts (c64 -> f32, c128 -> f64); other dtypes are returned
/// unchanged, as np.finfo(t).dtype and jnp.real's result type.
STRATA_EXPORT DType real_dtype(DType t);
/// The complex dtype whose parts are at least `t`: f64 -> c128, every other real dtype -> c64
/// (as JAX's lax.complex of f16 inputs is c64); complex dtypes are returned unchanged.
STRATA_EXPORT DType complex_dtype(DType t);

/// A dtype together with JAX's weak-type flag (a Python scalar is weakly typed).
struct TypedDType {
  DType dtype;
  bool weak = false;
  bool operator==(const TypedDType &) const = default;
};

// ---- 64-bit mode (JAX's jax_enable_x64) ------------------------------------------------------
// One process-wide switch, off by default as in JAX. Off: the default types are i32/f32/u32,
// Python-style (weak) scalars are i32/f32, and promotions that would form a 64-bit type from
// narrower ones stay 32-bit. On: the defaults are i64/f64/u64. In C++ an explicitly requested
// dtype (Array::from_data(..., float64), Array(2.0), astype(x, int64)) is honoured either way;
// the Python package canonicalizes its inputs (numpy float64 data -> f32) while the switch is off.

/// Turns 64-bit mode on or off (strata.config.update("jax_enable_x64", ...) calls this).
STRATA_EXPORT void set_enable_x64(bool enabled);
/// Whether 64-bit mode is on.
STRATA_EXPORT bool x64_enabled();
/// JAX's dtypes.canonicalize_dtype: with 64-bit mode off, i64 -> i32, u64 -> u32, f64 -> f32;
/// c128 -> c64; every other dtype (and every dtype with the mode on) is returned unchanged.
STRATA_EXPORT DType canonicalize_dtype(DType t);

/// JAX's default types (of Python int, float, unsigned): 32-bit, or 64-bit in 64-bit mode.
STRATA_EXPORT DType default_int_dtype();
STRATA_EXPORT DType default_uint_dtype();
STRATA_EXPORT DType default_float_dtype();
/// JAX's default complex type (of Python complex): c64, or c128 in 64-bit mode.
STRATA_EXPORT DType default_complex_dtype();

/// The default types with 64-bit mode off (JAX's usual defaults); the functions above follow
/// the switch.
inline constexpr DType kDefaultInt = DType::Int32;
inline constexpr DType kDefaultFloat = DType::Float32;

/// Least upper bound on JAX's promotion lattice (bool < weak int < u8/i8 < ... < weak float <
/// f16/bf16 < f32 < f64 < c128, weak float < weak complex < c64 < c128, f32 < c64), the same
/// table as JAX's dtypes._type_promotion_lattice: u8+i8 -> i16, u32+i32 -> i64 (i32 with 64-bit
/// mode off, as in JAX), i64+u64 -> weak float, f16+weak complex -> c64, f64+c64 -> c128. Weakly
/// typed operands do not widen strongly typed ones; a weak float (complex) result has the
/// default float (complex) type.
STRATA_EXPORT TypedDType promote_types(TypedDType a, TypedDType b);
/// JAX's jnp.promote_types on two strong dtypes: the same lattice (so it follows 64-bit mode for
/// u32+i32), but not canonicalized; a join at the weak float (i64+u64) is float64, as in JAX.
STRATA_EXPORT DType promote_types(DType a, DType b);

} // namespace strata
