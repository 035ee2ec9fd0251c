#include "spec/dtype.hpp"

#include <array>

namespace mkb {

namespace {
struct dtype_facts {
  dtype type;
  std::string_view name;
  size_t bytes;
  bool floating;
  double epsilon;
};

constexpr std::array<dtype_facts, 11> facts = {{
    {dtype::bf16, "bf16", 2, true, 0x1p-7},
    {dtype::fp16, "fp16", 2, true, 0x1p-10},
    {dtype::fp32, "fp32", 4, true, 0x1p-23},
    {dtype::fp64, "fp64", 8, true, 0x1p-52},
    {dtype::int8, "int8", 1, false, 0},
    {dtype::uint8, "uint8", 1, false, 0},
    {dtype::int32, "int32", 4, false, 0},
    {dtype::int64, "int64", 8, false, 0},
    {dtype::bool_, "bool", 1, false, 0},
    {dtype::fp8_e4m3, "fp8_e4m3", 1, true, 0x1p-3},
    {dtype::fp8_e5m2, "fp8_e5m2", 1, true, 0x1p-2},
}};

const dtype_facts &facts_of(dtype type) {
  for (const dtype_facts &f : facts)
    if (f.type == type) return f;
  return facts[2];
}
} // namespace

size_t dtype_bytes(dtype type) { return facts_of(type).bytes; }
std::string_view dtype_name(dtype type) { return facts_of(type).name; }
bool dtype_is_floating(dtype type) { return facts_of(type).floating; }
double dtype_epsilon(dtype type) { return facts_of(type).epsilon; }

std::optional<dtype> parse_dtype(std::string_view name) {
  for (const dtype_facts &f : facts)
    if (f.name == name) return f.type;
  return std::nullopt;
}

} // namespace mkb

#include <algorithm>
#include <cmath>
#include <cstring>

namespace mkb {

namespace {
// A minifloat with `exponent_bits` and `mantissa_bits`, IEEE-style subnormals; `nan_all_ones` for
// the e4m3 variant whose only NaN is S.1111.111 (no infinities).
double decode_minifloat(unsigned bits, int exponent_bits, int mantissa_bits, bool e4m3) {
  bool negative = bits >> (exponent_bits + mantissa_bits) & 1;
  unsigned exponent = bits >> mantissa_bits & ((1u << exponent_bits) - 1);
  unsigned mantissa = bits & ((1u << mantissa_bits) - 1);
  int bias = (1 << (exponent_bits - 1)) - 1;
  double value;
  if (e4m3 && exponent == 15 && mantissa == 7) value = NAN;
  else if (!e4m3 && exponent == (1u << exponent_bits) - 1) value = mantissa ? NAN : INFINITY;
  else if (exponent == 0) value = std::ldexp(mantissa, 1 - bias - mantissa_bits);
  else value = std::ldexp((1u << mantissa_bits) | mantissa, static_cast<int>(exponent) - bias - mantissa_bits);
  return negative ? -value : value;
}
} // namespace

double decode_element(dtype type, const unsigned char *bytes) {
  auto load = [&](auto v) {
    std::memcpy(&v, bytes, sizeof v);
    return v;
  };
  switch (type) {
  case dtype::bf16: {
    uint32_t bits = uint32_t(load(uint16_t{})) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  case dtype::fp16: return decode_minifloat(load(uint16_t{}), 5, 10, false);
  case dtype::fp32: return load(float{});
  case dtype::fp64: return load(double{});
  case dtype::int8: return load(int8_t{});
  case dtype::uint8:
  case dtype::bool_: return load(uint8_t{});
  case dtype::int32: return load(int32_t{});
  case dtype::int64: return static_cast<double>(load(int64_t{}));
  case dtype::fp8_e4m3: return decode_minifloat(bytes[0], 4, 3, true);
  case dtype::fp8_e5m2: return decode_minifloat(bytes[0], 5, 2, false);
  }
  return 0;
}

namespace {

// The nearest fp8 code to `value` (ties to the even code), by search over the positive codes.
unsigned char encode_fp8(double value, int exponent_bits, int mantissa_bits, bool finite_only) {
  if (std::isnan(value)) return 0x7f;
  unsigned char sign = std::signbit(value) ? 0x80 : 0;
  double magnitude = std::fabs(value);
  unsigned char best = 0;
  double best_distance = INFINITY;
  for (int code = 0; code < 0x80; ++code) {
    double v = decode_minifloat(static_cast<unsigned char>(code), exponent_bits, mantissa_bits, finite_only);
    if (std::isnan(v)) continue;
    double distance = std::fabs(v - magnitude);
    if (distance < best_distance || (distance == best_distance && (code & 1) == 0)) {
      best = static_cast<unsigned char>(code);
      best_distance = distance;
    }
  }
  return sign | best;
}

// The IEEE binary16 code nearest to `value`, ties to even: what a conversion to _Float16 does, written
// out because clang before 15 has no _Float16 on x86. The value is a whole number of quanta of its
// binade (2^-24 below 2^-14, where the subnormals share the smallest normal binade's quantum); the code
// is that count offset by the binade, and a count that rounds up to the next binade carries into the
// exponent field by itself.
uint16_t encode_fp16(double value) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value)) return sign | 0x7e00;
  double magnitude = std::fabs(value);
  if (magnitude == 0) return sign;
  if (magnitude >= 65520.0) return sign | 0x7c00; // 65504 is the largest; halfway to 65536 rounds away
  int exponent = 0;
  std::frexp(magnitude, &exponent);
  int binade = std::max(exponent - 1, -14);
  double quanta = std::nearbyint(std::ldexp(magnitude, 10 - binade)); // exact scaling; rounds half to even
  return static_cast<uint16_t>(sign | (((binade + 15) << 10) + static_cast<int>(quanta) - 1024));
}

} // namespace

void encode_element(dtype type, double value, unsigned char *bytes) {
  auto store = [&](auto v) { std::memcpy(bytes, &v, sizeof v); };
  switch (type) {
  case dtype::bf16: {
    float f = static_cast<float>(value);
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    if (std::isnan(f)) bits = 0x7fc00000u;
    else bits += 0x7fffu + ((bits >> 16) & 1u); // round to nearest even
    store(static_cast<uint16_t>(bits >> 16));
    break;
  }
  case dtype::fp16: store(encode_fp16(value)); break;
  case dtype::fp32: store(static_cast<float>(value)); break;
  case dtype::fp64: store(value); break;
  case dtype::int8: store(static_cast<int8_t>(value)); break;
  case dtype::uint8: store(static_cast<uint8_t>(value)); break;
  case dtype::bool_: store(static_cast<uint8_t>(value != 0)); break;
  case dtype::int32: store(static_cast<int32_t>(value)); break;
  case dtype::int64: store(static_cast<int64_t>(value)); break;
  case dtype::fp8_e4m3: bytes[0] = encode_fp8(value, 4, 3, true); break;
  case dtype::fp8_e5m2: bytes[0] = encode_fp8(value, 5, 2, false); break;
  }
}

unsigned char poison_byte(dtype type) { return dtype_is_floating(type) ? 0xff : 0xa5; }

} // namespace mkb
