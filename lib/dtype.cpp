// dtype properties and JAX's type-promotion lattice.
#include "strata/dtype.h"

#include <array>
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
    {DType::Int32, 4, "i32", "int32"},
    {DType::Int64, 8, "i64", "int64"},
    {DType::UInt8, 1, "u8", "uint8"},
    {DType::UInt32, 4, "u32", "uint32"},
    {DType::Float16, 2, "f16", "float16"},
    {DType::BFloat16, 2, "bf16", "bfloat16"},
    {DType::Float32, 4, "f32", "float32"},
    {DType::Float64, 8, "f64", "float64"},
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
  return t == DType::Float16 || t == DType::BFloat16 || t == DType::Float32 ||
         t == DType::Float64;
}
bool is_signed_integer(DType t) {
  return t == DType::Int8 || t == DType::Int32 || t == DType::Int64;
}
bool is_unsigned_integer(DType t) { return t == DType::UInt8 || t == DType::UInt32; }
bool is_integer(DType t) { return is_signed_integer(t) || is_unsigned_integer(t); }

// ---- The promotion lattice ------------------------------------------------------------------
// Nodes are JAX's lattice, including the widths Strata lacks (i16, u16, u64) so that joins are
// the true least upper bounds; results Strata cannot represent move up to the next type it has.
namespace {
enum Node : int { B1, IW, FW, U8, U16, U32, U64, I8, I16, I32, I64, BF16, F16, F32, F64, kN };
constexpr std::array<std::array<int, 2>, kN> kEdges = {{
    /*B1*/ {IW, -1},
    /*IW*/ {U8, I8},
    /*FW*/ {BF16, F16},
    /*U8*/ {I16, U16},
    /*U16*/ {I32, U32},
    /*U32*/ {I64, U64},
    /*U64*/ {FW, -1},
    /*I8*/ {I16, -1},
    /*I16*/ {I32, -1},
    /*I32*/ {I64, -1},
    /*I64*/ {FW, -1},
    /*BF16*/ {F32, -1},
    /*F16*/ {F32, -1},
    /*F32*/ {F64, -1},
    /*F64*/ {-1, -1},
}};
using Set = uint32_t;

struct Lattice {
  std::array<Set, kN> upper{}; // reflexive-transitive closure of the edges
  Lattice() {
    for (int n = 0; n < kN; ++n) {
      Set s = 1u << n, prev = 0;
      while (s != prev) {
        prev = s;
        for (int m = 0; m < kN; ++m)
          if (s & (1u << m))
            for (int e : kEdges[m])
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
    return F64;
  }
};
const Lattice &lattice() {
  static const Lattice l;
  return l;
}

int node_of(TypedDType t) {
  if (t.weak) {
    if (is_floating(t.dtype))
      return FW;
    if (is_integer(t.dtype))
      return IW;
  }
  switch (t.dtype) {
  case DType::Bool: return B1;
  case DType::Int8: return I8;
  case DType::Int32: return I32;
  case DType::Int64: return I64;
  case DType::UInt8: return U8;
  case DType::UInt32: return U32;
  case DType::Float16: return F16;
  case DType::BFloat16: return BF16;
  case DType::Float32: return F32;
  case DType::Float64: return F64;
  }
  return F64;
}
} // namespace

TypedDType promote_types(TypedDType a, TypedDType b) {
  if (a == b)
    return a;
  int n = lattice().join(node_of(a), node_of(b));
  switch (n) {
  case B1: return {DType::Bool, false};
  // A weak result keeps the wider of the weak operands' concrete types (i32 by default).
  case IW: return {a.weak && b.weak ? (itemsize(a.dtype) >= itemsize(b.dtype) ? a.dtype : b.dtype)
                                    : (a.weak ? a.dtype : b.dtype), true};
  case FW: return {kDefaultFloat, true};
  case U8: return {DType::UInt8, false};
  case U16: case U32: return {DType::UInt32, false};
  case U64: case I64: return {DType::Int64, false};
  case I8: return {DType::Int8, false};
  case I16: case I32: return {DType::Int32, false};
  case BF16: return {DType::BFloat16, false};
  case F16: return {DType::Float16, false};
  case F32: return {DType::Float32, false};
  default: return {DType::Float64, false};
  }
}

DType promote_types(DType a, DType b) { return promote_types({a, false}, {b, false}).dtype; }

} // namespace strata
