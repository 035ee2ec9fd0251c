// JSON read through one of the embedded flatbuffers schemas (spec.json, eager_times.json): the
// parser checks every field's type, the caller every value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mkb {

// The flatbuffer `json` parses to under the embedded schema `schema` ("spec/problem.fbs"). Fields the
// schema lacks are errors unless skip_unknown. Throws mkb::error(MKB_ERR_SPEC) naming `file`, the line,
// the column and, where it can tell, the field.
std::vector<uint8_t> parse_with_schema(const char *schema, const std::string &json, const std::string &file,
                                       bool skip_unknown = false);

} // namespace mkb
