#include "spec/dtype.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

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

// fp16 is encoded without _Float16 (clang 14 lacks it on x86); where the compiler has it, the two agree
// on the edges (zeros, subnormals, ties, the largest finite value, overflow) and on random values.
TEST(Dtype, Fp16EncodingRoundsToNearestEven) {
  auto bits = [](double value) {
    unsigned char b[2];
    encode_element(dtype::fp16, value, b);
    return static_cast<unsigned>(b[0] | b[1] << 8);
  };
  EXPECT_EQ(bits(0.0), 0x0000u);
  EXPECT_EQ(bits(-0.0), 0x8000u);
  EXPECT_EQ(bits(1.0), 0x3c00u);
  EXPECT_EQ(bits(1.0 + 0x1p-11), 0x3c00u) << "a tie goes to the even code";
  EXPECT_EQ(bits(1.0 + 3 * 0x1p-11), 0x3c02u) << "a tie goes to the even code";
  EXPECT_EQ(bits(0x1p-24), 0x0001u);
  EXPECT_EQ(bits(0x1p-25), 0x0000u) << "half the smallest subnormal ties to zero";
  EXPECT_EQ(bits(0x1.8p-25), 0x0001u);
  EXPECT_EQ(bits(0x1p-14 - 0x1p-25), 0x0400u) << "the largest subnormal rounds up into the normals";
  EXPECT_EQ(bits(65504.0), 0x7bffu);
  EXPECT_EQ(bits(65519.0), 0x7bffu);
  EXPECT_EQ(bits(65520.0), 0x7c00u);
  EXPECT_EQ(bits(-1e300), 0xfc00u);
  EXPECT_EQ(bits(NAN) & 0x7c00u, 0x7c00u);
  EXPECT_NE(bits(NAN) & 0x03ffu, 0u);
#ifdef __FLT16_MANT_DIG__
  uint64_t state = 0x9e3779b97f4a7c15u;
  for (int i = 0; i < 200000; ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    double value = std::ldexp(static_cast<double>(state >> 11) / 0x1p53 - 0.5, static_cast<int>(state % 48) - 30);
    _Float16 reference = static_cast<_Float16>(value);
    uint16_t expected;
    std::memcpy(&expected, &reference, sizeof expected);
    ASSERT_EQ(bits(value), expected) << value;
  }
#endif
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
