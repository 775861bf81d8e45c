// dtype properties and JAX's type-promotion lattice.
#include "strata/dtype.h"

#include <array>
#include <atomic>
#include <bit>

#include "strata/error.h"

namespace strata {
namespace {
struct Info {
  DType t;
  size_t size;
  std::string_view short_name, name;
};
constexpr std::array<Info, kNumDTypes> kInfo = {{
    {DType::Bool, 1, "bool", "bool"},
    {DType::Int8, 1, "i8", "int8"},
    {DType::Int16, 2, "i16", "int16"},
    {DType::Int32, 4, "i32", "int32"},
    {DType::Int64, 8, "i64", "int64"},
    {DType::UInt8, 1, "u8", "uint8"},
    {DType::UInt16, 2, "u16", "uint16"},
    {DType::UInt32, 4, "u32", "uint32"},
    {DType::UInt64, 8, "u64", "uint64"},
    {DType::Float16, 2, "f16", "float16"},
    {DType::BFloat16, 2, "bf16", "bfloat16"},
    {DType::Float32, 4, "f32", "float32"},
    {DType::Float64, 8, "f64", "float64"},
    {DType::Complex64, 8, "c64", "complex64"},
    {DType::Complex128, 16, "c128", "complex128"},
}};
const Info &info(DType t) { return kInfo[static_cast<size_t>(t)]; }
} // namespace

size_t itemsize(DType t) { return info(t).size; }
std::string_view short_name(DType t) { return info(t).short_name; }
std::string_view dtype_name(DType t) { return info(t).name; }
DType dtype_from_name(std::string_view name) {
  for (const Info &i : kInfo)
    if (i.short_name == name || i.name == name)
      return i.t;
  if (name == "pred")
    return DType::Bool;
  throw Error(detail::cat("[dtype] unknown dtype '", name, "'"), ErrorKind::Type);
}

bool is_floating(DType t) {
  return t == DType::Float16 || t == DType::BFloat16 || t == DType::Float32 || t == DType::Float64;
}
DType real_dtype(DType t) {
  return t == DType::Complex64 ? DType::Float32 : t == DType::Complex128 ? DType::Float64 : t;
}
DType complex_dtype(DType t) {
  if (is_complex(t))
    return t;
  return t == DType::Float64 ? DType::Complex128 : DType::Complex64;
}
bool is_signed_integer(DType t) {
  return t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int64;
}
bool is_unsigned_integer(DType t) {
  return t == DType::UInt8 || t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64;
}

// ---- 64-bit mode ----------------------------------------------------------------------------
namespace {
std::atomic<bool> g_x64{false};
}
void set_enable_x64(bool enabled) { g_x64.store(enabled, std::memory_order_relaxed); }
bool x64_enabled() { return g_x64.load(std::memory_order_relaxed); }
DType canonicalize_dtype(DType t) {
  if (x64_enabled())
    return t;
  switch (t) {
  case DType::Int64:
    return DType::Int32;
  case DType::UInt64:
    return DType::UInt32;
  case DType::Float64:
    return DType::Float32;
  case DType::Complex128:
    return DType::Complex64;
  default:
    return t;
  }
}
DType default_int_dtype() { return x64_enabled() ? DType::Int64 : DType::Int32; }
DType default_uint_dtype() { return x64_enabled() ? DType::UInt64 : DType::UInt32; }
DType default_float_dtype() { return x64_enabled() ? DType::Float64 : DType::Float32; }
DType default_complex_dtype() { return x64_enabled() ? DType::Complex128 : DType::Complex64; }
bool is_integer(DType t) { return is_signed_integer(t) || is_unsigned_integer(t); }

// ---- The promotion lattice ------------------------------------------------------------------
// JAX's lattice (jax/_src/dtypes.py, _type_promotion_lattice, without sub-byte and 8-bit float
// types). With 64-bit mode off JAX replaces the one edge that forms a 64-bit type from 32-bit
// inputs, u32 -> i64, with u32 -> i32, so that u32 + i32 is i32; both lattices are kept.
namespace {
enum Node : int {
  B1,
  IW,
  FW,
  CW,
  U8,
  U16,
  U32,
  U64,
  I8,
  I16,
  I32,
  I64,
  BF16,
  F16,
  F32,
  F64,
  C64,
  C128,
  kN
};
using Edges = std::array<std::array<int, 3>, kN>;
constexpr Edges kEdges64 = {{
    /*B1*/ {IW, -1, -1},
    /*IW*/ {U8, I8, -1},
    /*FW*/ {BF16, F16, CW},
    /*CW*/ {C64, -1, -1},
    /*U8*/ {I16, U16, -1},
    /*U16*/ {I32, U32, -1},
    /*U32*/ {I64, U64, -1},
    /*U64*/ {FW, -1, -1},
    /*I8*/ {I16, -1, -1},
    /*I16*/ {I32, -1, -1},
    /*I32*/ {I64, -1, -1},
    /*I64*/ {FW, -1, -1},
    /*BF16*/ {F32, -1, -1},
    /*F16*/ {F32, -1, -1},
    /*F32*/ {F64, C64, -1},
    /*F64*/ {C128, -1, -1},
    /*C64*/ {C128, -1, -1},
    /*C128*/ {-1, -1, -1},
}};
constexpr Edges kEdges32 = [] {
  Edges e = kEdges64;
  e[U32] = {I32, U64, -1};
  return e;
}();
using Set = uint32_t;

struct Lattice {
  std::array<Set, kN> upper{}; // reflexive-transitive closure of the edges
  explicit Lattice(const Edges &edges) {
    for (int n = 0; n < kN; ++n) {
      Set s = 1u << n, prev = 0;
      while (s != prev) {
        prev = s;
        for (int m = 0; m < kN; ++m)
          if (s & (1u << m))
            for (int e : edges[m])
              if (e >= 0)
                s |= 1u << e;
      }
      upper[n] = s;
    }
  }
  int join(int a, int b) const {
    Set common = upper[a] & upper[b];
    for (int n = 0; n < kN; ++n) // the least element: its upper set holds all of `common`
      if ((common & (1u << n)) && (upper[n] & common) == common)
        return n;
    return C128;
  }
};
const Lattice &lattice() {
  static const Lattice l64(kEdges64), l32(kEdges32);
  return x64_enabled() ? l64 : l32;
}

int node_of(DType t) {
  switch (t) {
  case DType::Bool:
    return B1;
  case DType::Int8:
    return I8;
  case DType::Int16:
    return I16;
  case DType::Int32:
    return I32;
  case DType::Int64:
    return I64;
  case DType::UInt8:
    return U8;
  case DType::UInt16:
    return U16;
  case DType::UInt32:
    return U32;
  case DType::UInt64:
    return U64;
  case DType::Float16:
    return F16;
  case DType::BFloat16:
    return BF16;
  case DType::Float32:
    return F32;
  case DType::Float64:
    return F64;
  case DType::Complex64:
    return C64;
  case DType::Complex128:
    return C128;
  }
  return C128;
}
int node_of(TypedDType t) {
  if (t.weak && is_complex(t.dtype))
    return CW;
  if (t.weak && is_floating(t.dtype))
    return FW;
  if (t.weak && is_integer(t.dtype))
    return IW;
  return node_of(t.dtype);
}
constexpr std::array<DType, kN> kNodeDType = {
    DType::Bool,    DType::Int32,     DType::Float32,   DType::Complex64, DType::UInt8,
    DType::UInt16,  DType::UInt32,    DType::UInt64,    DType::Int8,      DType::Int16,
    DType::Int32,   DType::Int64,     DType::BFloat16,  DType::Float16,   DType::Float32,
    DType::Float64, DType::Complex64, DType::Complex128};
} // namespace

TypedDType promote_types(TypedDType a, TypedDType b) {
  if (a == b)
    return a;
  if (a.dtype == b.dtype && !(a.weak && b.weak))
    return {a.dtype, false};
  if (a.weak && b.weak && !is_bool(a.dtype) && !is_bool(b.dtype)) {
    // As JAX: two weak operands join their concrete types and the result stays weak.
    DType t = promote_types(a.dtype, b.dtype);
    return {t, true};
  }
  int n = lattice().join(node_of(a), node_of(b));
  switch (n) {
  case IW:
    return {a.weak && is_integer(a.dtype) ? a.dtype : b.dtype, true};
  case FW:
    return {default_float_dtype(), true};
  case CW:
    return {default_complex_dtype(), true};
  default:
    return {kNodeDType[n], false};
  }
}

DType promote_types(DType a, DType b) {
  if (a == b)
    return a;
  int n = lattice().join(node_of(a), node_of(b));
  // JAX: np.dtype(float) (complex), not canonicalized.
  return n == FW ? DType::Float64 : n == CW ? DType::Complex128 : kNodeDType[n];
}

} // namespace strata
