// dtype properties, JAX's promotion lattice and 16-bit float conversion.
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

// Expected joins from JAX's documented promotion table (jax.numpy.promote_types), with
// i16 (absent in Strata) moved up to i32.
TEST(DType, PromotionTable) {
  struct Row { DType a, b, out; };
  const Row rows[] = {
      {bool_, int8, int8},       {bool_, float16, float16}, {uint8, int8, int32},
      {uint8, uint32, uint32},   {uint32, int32, int64},    {int8, int64, int64},
      {int64, float16, float16}, {uint32, bfloat16, bfloat16},
      {float16, bfloat16, float32}, {bfloat16, float32, float32}, {float32, float64, float64},
      {int32, float32, float32}, {uint8, float64, float64}, {bool_, bool_, bool_},
  };
  for (const Row &r : rows) {
    EXPECT_EQ(promote_types(r.a, r.b), r.out) << short_name(r.a) << "+" << short_name(r.b);
    EXPECT_EQ(promote_types(r.b, r.a), r.out) << "commutes";
  }
}

TEST(DType, WeakTypesDoNotWiden) {
  TypedDType wf{float32, true}, wi{int32, true};
  EXPECT_EQ(promote_types({float16, false}, wf), (TypedDType{float16, false}));
  EXPECT_EQ(promote_types({bfloat16, false}, wi), (TypedDType{bfloat16, false}));
  EXPECT_EQ(promote_types({uint8, false}, wi), (TypedDType{uint8, false}));
  EXPECT_EQ(promote_types({int8, false}, wf), (TypedDType{float32, true}));
  EXPECT_EQ(promote_types(wi, wf), (TypedDType{float32, true}));
  EXPECT_EQ(promote_types({bool_, false}, wi), (TypedDType{int32, true}));
}

TEST(DType, HalfConversionRoundsToNearestEven) {
  EXPECT_EQ(to_f16(1.0f).bits, 0x3c00);
  EXPECT_EQ(to_f16(-2.0f).bits, 0xc000);
  EXPECT_EQ(to_f16(65504.0f).bits, 0x7bff);
  EXPECT_EQ(to_f16(65520.0f).bits, 0x7c00); // halfway to the next power: rounds to inf
  EXPECT_EQ(to_f16(1.0f + 1.0f / 2048).bits, 0x3c00); // tie, even mantissa stays
  EXPECT_EQ(to_f16(1.0f + 3.0f / 2048).bits, 0x3c02); // tie, odd mantissa rounds up
  EXPECT_EQ(to_f16(5.9604645e-08f).bits, 0x0001); // smallest subnormal
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
