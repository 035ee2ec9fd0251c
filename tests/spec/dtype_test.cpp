#include "spec/dtype.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace mkb {
namespace {

TEST(Dtype, NamesSizesEpsilons) {
  EXPECT_EQ(dtype_name(dtype::bool_), "bool");
  EXPECT_EQ(parse_dtype("fp8_e4m3"), dtype::fp8_e4m3);
  EXPECT_FALSE(parse_dtype("fp31").has_value());
  EXPECT_EQ(dtype_bytes(dtype::bf16), 2u);
  EXPECT_EQ(dtype_bytes(dtype::int64), 8u);
  EXPECT_DOUBLE_EQ(dtype_epsilon(dtype::bf16), 0.0078125);
  EXPECT_DOUBLE_EQ(dtype_epsilon(dtype::fp16), 0.0009765625);
  EXPECT_TRUE(dtype_is_floating(dtype::fp8_e5m2));
  EXPECT_FALSE(dtype_is_floating(dtype::bool_));
}

TEST(Dtype, DecodeElements) {
  unsigned char bf16_one[] = {0x80, 0x3f};
  EXPECT_EQ(decode_element(dtype::bf16, bf16_one), 1.0);
  unsigned char fp16_minus_two[] = {0x00, 0xc0};
  EXPECT_EQ(decode_element(dtype::fp16, fp16_minus_two), -2.0);
  unsigned char fp16_subnormal[] = {0x01, 0x00};
  EXPECT_EQ(decode_element(dtype::fp16, fp16_subnormal), std::ldexp(1.0, -24));
  unsigned char e4m3_max[] = {0x7e};
  EXPECT_EQ(decode_element(dtype::fp8_e4m3, e4m3_max), 448.0);
  unsigned char e4m3_nan[] = {0x7f};
  EXPECT_TRUE(std::isnan(decode_element(dtype::fp8_e4m3, e4m3_nan)));
  unsigned char e5m2_inf[] = {0x7c};
  EXPECT_TRUE(std::isinf(decode_element(dtype::fp8_e5m2, e5m2_inf)));
}

TEST(Dtype, EncodeRoundsToNearestAndRoundTrips) {
  unsigned char bytes[8];
  // 1 + 2^-8 lies halfway between two bf16 values: ties go to the even one (1.0).
  encode_element(dtype::bf16, 1.0 + std::ldexp(1.0, -8), bytes);
  EXPECT_EQ(decode_element(dtype::bf16, bytes), 1.0);
  encode_element(dtype::bf16, 1.0 + 3 * std::ldexp(1.0, -8), bytes);
  EXPECT_EQ(decode_element(dtype::bf16, bytes), 1.0 + std::ldexp(1.0, -6));
  encode_element(dtype::fp16, -2.0, bytes);
  EXPECT_EQ(decode_element(dtype::fp16, bytes), -2.0);
  encode_element(dtype::fp8_e4m3, 440.0, bytes);
  EXPECT_EQ(decode_element(dtype::fp8_e4m3, bytes), 448.0);
  encode_element(dtype::fp8_e5m2, -0.3, bytes);
  EXPECT_EQ(decode_element(dtype::fp8_e5m2, bytes), -0.3125);
  encode_element(dtype::int32, -7.9, bytes);
  EXPECT_EQ(decode_element(dtype::int32, bytes), -7.0);
  for (dtype t : {dtype::bf16, dtype::fp16, dtype::fp32, dtype::fp64}) {
    encode_element(t, 0.15625, bytes); // exact in every floating type
    EXPECT_EQ(decode_element(t, bytes), 0.15625) << dtype_name(t);
  }
}

TEST(Dtype, PoisonIsNaNForEveryFloatingType) {
  for (dtype t : {dtype::bf16, dtype::fp16, dtype::fp32, dtype::fp64, dtype::fp8_e4m3, dtype::fp8_e5m2}) {
    unsigned char bytes[8];
    std::fill(std::begin(bytes), std::end(bytes), poison_byte(t));
    EXPECT_TRUE(std::isnan(decode_element(t, bytes))) << dtype_name(t);
  }
  unsigned char b = poison_byte(dtype::bool_);
  EXPECT_NE(b, 0);
  EXPECT_NE(b, 1);
}

} // namespace
} // namespace mkb
