// dtype properties, JAX's promotion lattice, 64-bit mode and 16-bit float conversion.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "strata/strata.h"

using namespace strata;

TEST(DType, Names) {
  EXPECT_EQ(short_name(float32), "f32");
  EXPECT_EQ(dtype_name(bfloat16), "bfloat16");
  EXPECT_EQ(dtype_from_name("int32"), int32);
  EXPECT_EQ(dtype_from_name("bf16"), bfloat16);
  EXPECT_THROW(dtype_from_name("float128"), Error);
  EXPECT_EQ(itemsize(float64), 8u);
  EXPECT_EQ(itemsize(bool_), 1u);
}

namespace {
// Sets 64-bit mode for one scope and restores the previous mode.
struct X64Scope {
  bool saved = x64_enabled();
  explicit X64Scope(bool on) { set_enable_x64(on); }
  ~X64Scope() { set_enable_x64(saved); }
};

// JAX's documented promotion table (docs/type_promotion.rst, "b1 u1 u2 u4 u8 i1 ... f8"), in
// Strata's names, with 64-bit mode on; "fw" is JAX's f* (a weak float of the default type).
// Rows and columns: bool u8 u16 u32 u64 i8 i16 i32 i64 bf16 f16 f32 f64.
constexpr const char *kJaxTable64[13][13] = {
    {"bool", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "bf16", "f16", "f32", "f64"},
    {"u8", "u8", "u16", "u32", "u64", "i16", "i16", "i32", "i64", "bf16", "f16", "f32", "f64"},
    {"u16", "u16", "u16", "u32", "u64", "i32", "i32", "i32", "i64", "bf16", "f16", "f32", "f64"},
    {"u32", "u32", "u32", "u32", "u64", "i64", "i64", "i64", "i64", "bf16", "f16", "f32", "f64"},
    {"u64", "u64", "u64", "u64", "u64", "fw", "fw", "fw", "fw", "bf16", "f16", "f32", "f64"},
    {"i8", "i16", "i32", "i64", "fw", "i8", "i16", "i32", "i64", "bf16", "f16", "f32", "f64"},
    {"i16", "i16", "i32", "i64", "fw", "i16", "i16", "i32", "i64", "bf16", "f16", "f32", "f64"},
    {"i32", "i32", "i32", "i64", "fw", "i32", "i32", "i32", "i64", "bf16", "f16", "f32", "f64"},
    {"i64", "i64", "i64", "i64", "fw", "i64", "i64", "i64", "i64", "bf16", "f16", "f32", "f64"},
    {"bf16", "bf16", "bf16", "bf16", "bf16", "bf16", "bf16", "bf16", "bf16", "bf16", "f32", "f32",
     "f64"},
    {"f16", "f16", "f16", "f16", "f16", "f16", "f16", "f16", "f16", "f32", "f16", "f32", "f64"},
    {"f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f64"},
    {"f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64"},
};
const DType kTableTypes[13] = {bool_, uint8, uint16,   uint32,  uint64,  int8,   int16,
                               int32, int64, bfloat16, float16, float32, float64};

// The expected (dtype, weak) of one table entry; with 64-bit mode off JAX's lattice takes
// u32 -> i32 in place of u32 -> i64 (so u32 with i8/i16/i32 gives i32), and f* is f32.
TypedDType expected(int i, int j, bool x64) {
  std::string e = kJaxTable64[i][j];
  DType a = kTableTypes[i], b = kTableTypes[j];
  if (e == "fw")
    return {x64 ? float64 : float32, true};
  if (!x64 && e == "i64" && a != int64 && b != int64)
    return {int32, false};
  return {dtype_from_name(e), false};
}
} // namespace

TEST(DType, NewIntegerTypes) {
  EXPECT_EQ(short_name(int16), "i16");
  EXPECT_EQ(dtype_name(uint16), "uint16");
  EXPECT_EQ(dtype_from_name("uint64"), uint64);
  EXPECT_EQ(dtype_from_name("u64"), uint64);
  EXPECT_EQ(itemsize(int16), 2u);
  EXPECT_EQ(itemsize(uint16), 2u);
  EXPECT_EQ(itemsize(uint64), 8u);
  EXPECT_TRUE(is_signed_integer(int16));
  EXPECT_TRUE(is_unsigned_integer(uint16));
  EXPECT_TRUE(is_unsigned_integer(uint64));
  EXPECT_FALSE(is_signed_integer(uint64));
}

// Every pair of the table in one mode: result_type's join (dtype and weak flag) and
// jnp.promote_types' (not canonicalized: JAX gives float64 for i64+u64 in both modes).
static void check_table(bool x64_on) {
  X64Scope x64(x64_on);
  for (int i = 0; i < 13; ++i)
    for (int j = 0; j < 13; ++j) {
      TypedDType want = expected(i, j, x64_on);
      TypedDType got = promote_types({kTableTypes[i], false}, {kTableTypes[j], false});
      EXPECT_EQ(got, want) << short_name(kTableTypes[i]) << "+" << short_name(kTableTypes[j])
                           << " gave " << short_name(got.dtype) << (got.weak ? " (weak)" : "");
      EXPECT_EQ(promote_types(kTableTypes[i], kTableTypes[j]), want.weak ? float64 : want.dtype);
    }
}

TEST(DType, PromotionTableX64On) { check_table(true); }

TEST(DType, PromotionTableX64Off) {
  check_table(false);
  X64Scope x64(false);
  EXPECT_EQ(promote_types(uint32, int32), int32); // JAX: i64 needs 64-bit mode
  EXPECT_EQ(promote_types(uint8, int8), int16);
  EXPECT_EQ(promote_types(uint32, int64), int64); // an explicit 64-bit input is kept
}

TEST(DType, WeakTypesDoNotWiden) {
  X64Scope x64(false);
  TypedDType wf{float32, true}, wi{int32, true};
  EXPECT_EQ(promote_types({float16, false}, wf), (TypedDType{float16, false}));
  EXPECT_EQ(promote_types({bfloat16, false}, wi), (TypedDType{bfloat16, false}));
  EXPECT_EQ(promote_types({uint8, false}, wi), (TypedDType{uint8, false}));
  EXPECT_EQ(promote_types({int16, false}, wi), (TypedDType{int16, false}));
  EXPECT_EQ(promote_types({uint64, false}, wi), (TypedDType{uint64, false}));
  EXPECT_EQ(promote_types({int8, false}, wf), (TypedDType{float32, true}));
  EXPECT_EQ(promote_types(wi, wf), (TypedDType{float32, true}));
  EXPECT_EQ(promote_types({bool_, false}, wi), (TypedDType{int32, true}));
  EXPECT_EQ(promote_types({float64, false}, wf), (TypedDType{float64, false}));
}

TEST(DType, WeakFloatFollowsX64) {
  X64Scope x64(true);
  // JAX with x64: int32 array * 2.5 is a weak float64.
  EXPECT_EQ(promote_types({int32, false}, {float64, true}), (TypedDType{float64, true}));
  EXPECT_EQ(promote_types({float32, false}, {float64, true}), (TypedDType{float32, false}));
  EXPECT_EQ(promote_types({int64, true}, {float64, true}), (TypedDType{float64, true}));
}

TEST(DType, X64SwitchAndCanonicalization) {
  {
    X64Scope x64(false);
    EXPECT_FALSE(x64_enabled());
    EXPECT_EQ(canonicalize_dtype(float64), float32);
    EXPECT_EQ(canonicalize_dtype(int64), int32);
    EXPECT_EQ(canonicalize_dtype(uint64), uint32);
    EXPECT_EQ(canonicalize_dtype(int16), int16);
    EXPECT_EQ(canonicalize_dtype(bfloat16), bfloat16);
    EXPECT_EQ(default_int_dtype(), int32);
    EXPECT_EQ(default_uint_dtype(), uint32);
    EXPECT_EQ(default_float_dtype(), float32);
    EXPECT_EQ(zeros({2}).dtype(), float32);
    EXPECT_EQ(arange(3).dtype(), int32);
    EXPECT_EQ(Array::weak_scalar_int(3).dtype(), int32);
    EXPECT_EQ(Array::weak_scalar(0.5).dtype(), float32);
    // Explicit dtypes are honoured in C++ whatever the mode.
    EXPECT_EQ(Array(2.0).dtype(), float64);
    EXPECT_EQ(zeros({2}, float64).dtype(), float64);
    EXPECT_EQ(sum(Array::from_vector<int8_t>({1, 2})).dtype(), int32);
    EXPECT_EQ(sum(Array::from_vector<uint16_t>({1, 2})).dtype(), uint32);
  }
  {
    X64Scope x64(true);
    EXPECT_TRUE(x64_enabled());
    for (DType t : {float64, int64, uint64, float32, int32})
      EXPECT_EQ(canonicalize_dtype(t), t);
    EXPECT_EQ(default_int_dtype(), int64);
    EXPECT_EQ(default_uint_dtype(), uint64);
    EXPECT_EQ(default_float_dtype(), float64);
    EXPECT_EQ(zeros({2}).dtype(), float64);
    EXPECT_EQ(arange(3).dtype(), int64);
    EXPECT_EQ(Array::weak_scalar_int(3).dtype(), int64);
    EXPECT_EQ(Array::weak_scalar(0.5).dtype(), float64);
    EXPECT_EQ(sum(Array::from_vector<int32_t>({1, 2})).dtype(), int64); // promote_integers
  }
}

TEST(DType, NewIntegerTypesThroughOps) {
  Array a = Array::from_vector<int16_t>({-3, 200, 7});
  Array b = Array::from_vector<uint16_t>({1, 65535, 2});
  Array c = Array::from_vector<uint64_t>({1, uint64_t{1} << 40, 3});
  EXPECT_EQ((a + a).dtype(), int16);
  EXPECT_EQ((a * 2).dtype(), int16);
  Array bb = b + b; // wraps modulo 2^16
  EXPECT_EQ(bb.dtype(), uint16);
  EXPECT_EQ(bb[1].item<int64_t>(), 65534);
  EXPECT_EQ((a + b).dtype(), int32); // i16 + u16 -> i32
  Array cc = c * 2;
  EXPECT_EQ(cc.dtype(), uint64);
  EXPECT_EQ(cc[1].item<int64_t>(), int64_t{1} << 41);
  EXPECT_EQ(astype(a, float32)[1].item<double>(), 200.0);
  EXPECT_EQ(astype(Array(-1), uint16).item<int64_t>(), 65535);
  EXPECT_EQ(max(b).item<int64_t>(), 65535);
  EXPECT_EQ(sum(a).dtype(), int32);
}

TEST(DType, HalfConversionRoundsToNearestEven) {
  EXPECT_EQ(to_f16(1.0f).bits, 0x3c00);
  EXPECT_EQ(to_f16(-2.0f).bits, 0xc000);
  EXPECT_EQ(to_f16(65504.0f).bits, 0x7bff);
  EXPECT_EQ(to_f16(65520.0f).bits, 0x7c00);           // halfway to the next power: rounds to inf
  EXPECT_EQ(to_f16(1.0f + 1.0f / 2048).bits, 0x3c00); // tie, even mantissa stays
  EXPECT_EQ(to_f16(1.0f + 3.0f / 2048).bits, 0x3c02); // tie, odd mantissa rounds up
  EXPECT_EQ(to_f16(5.9604645e-08f).bits, 0x0001);     // smallest subnormal
  EXPECT_EQ(to_f16(0.0f).bits, 0x0000);
  EXPECT_TRUE(std::isnan(to_float(to_f16(NAN))));
  EXPECT_EQ(to_float(f16_t{0x0001}), 5.9604645e-08f);
  EXPECT_EQ(to_float(f16_t{0x3555}), 0.33325195f);
  // Every half value survives the round trip.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    f16_t h{static_cast<uint16_t>(b)};
    float f = to_float(h);
    if (std::isnan(f))
      continue;
    ASSERT_EQ(to_f16(f).bits, h.bits) << std::hex << b;
  }
}

TEST(DType, BFloat16Conversion) {
  EXPECT_EQ(to_bf16(1.0f).bits, 0x3f80);
  EXPECT_EQ(to_float(bf16_t{0x4049}), 3.140625f);
  EXPECT_EQ(to_bf16(1.0f + 1.0f / 256).bits, 0x3f80); // tie to even
  EXPECT_EQ(to_bf16(1.0f + 3.0f / 256).bits, 0x3f82);
  for (uint32_t b = 0; b < 0x10000; ++b) {
    bf16_t h{static_cast<uint16_t>(b)};
    float f = to_float(h);
    if (std::isnan(f))
      continue;
    ASSERT_EQ(to_bf16(f).bits, h.bits) << std::hex << b;
  }
}
