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
  Int32,
  Int64,
  UInt8,
  UInt32,
  Float16,
  BFloat16,
  Float32,
  Float64,
};
inline constexpr int kNumDTypes = 10;

inline constexpr DType bool_ = DType::Bool;
inline constexpr DType int8 = DType::Int8;
inline constexpr DType int32 = DType::Int32;
inline constexpr DType int64 = DType::Int64;
inline constexpr DType uint8 = DType::UInt8;
inline constexpr DType uint32 = DType::UInt32;
inline constexpr DType float16 = DType::Float16;
inline constexpr DType bfloat16 = DType::BFloat16;
inline constexpr DType float32 = DType::Float32;
inline constexpr DType float64 = DType::Float64;

/// Bytes per element.
STRATA_EXPORT size_t itemsize(DType t);
/// Short name as used in shapes and errors: bool, i8, i32, i64, u8, u32, f16, bf16, f32, f64.
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

/// A dtype together with JAX's weak-type flag (a Python scalar is weakly typed).
struct TypedDType {
  DType dtype;
  bool weak = false;
  bool operator==(const TypedDType &) const = default;
};

/// Least upper bound on JAX's promotion lattice (bool < weak int < u8/i8 < ... < weak float <
/// f16/bf16 < f32 < f64). Weakly typed operands do not widen strongly typed ones. Joins that
/// would land on a type Strata lacks (i16 for u8+i8) move up to the next type Strata has.
STRATA_EXPORT TypedDType promote_types(TypedDType a, TypedDType b);
STRATA_EXPORT DType promote_types(DType a, DType b);

/// The default types of weakly typed Python-style scalars.
inline constexpr DType kDefaultInt = DType::Int32;
inline constexpr DType kDefaultFloat = DType::Float32;

} // namespace strata
