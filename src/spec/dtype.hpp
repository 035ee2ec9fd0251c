// Element types of the spec format and what the harness needs to know about each.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "problem_generated.h"

namespace mkb {

using dtype = spec::DType;

size_t dtype_bytes(dtype type);
std::string_view dtype_name(dtype type); // as written in specs and plans: "bf16", "bool", ...
std::optional<dtype> parse_dtype(std::string_view name);
bool dtype_is_floating(dtype type);
// Machine epsilon: the distance from 1.0 to the next representable value (2^-7 for bf16).
double dtype_epsilon(dtype type);

} // namespace mkb

namespace mkb {

// The value of one element stored at `bytes` as a double (fp8 and half types decoded exactly).
double decode_element(dtype type, const unsigned char *bytes);
// Stores `value` at `bytes` rounded to nearest (even on ties); integers truncate toward zero.
void encode_element(dtype type, double value, unsigned char *bytes);
// The poison byte written over outputs before every run: NaN in every floating type, an implausible
// pattern in integer and boolean types.
unsigned char poison_byte(dtype type);

} // namespace mkb
