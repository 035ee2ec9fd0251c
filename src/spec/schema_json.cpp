#include "spec/schema_json.hpp"

#include <flatbuffers/idl.h>

#include <algorithm>
#include <cstdlib>

#include "core/embedded_files.hpp"
#include "core/error.hpp"

namespace mkb {

namespace {

// The key of the last `"key":` before line:column of `json` (flatbuffers' errors give the place, not
// the field), or "" when there is none.
std::string field_before(const std::string &json, int line, int column) {
  size_t at = 0;
  for (int l = 1; l < line; ++l) {
    at = json.find('\n', at);
    if (at == std::string::npos) return {};
    ++at;
  }
  at = std::min(json.size(), at + static_cast<size_t>(std::max(column, 0)));
  for (size_t colon = json.rfind(':', at); colon != std::string::npos && colon > 0; colon = json.rfind(':', colon - 1)) {
    size_t close = json.find_last_not_of(" \t\r\n", colon - 1);
    if (close == std::string::npos || json[close] != '"') continue;
    size_t open = json.rfind('"', close - 1);
    if (open == std::string::npos) return {};
    return json.substr(open + 1, close - open - 1);
  }
  return {};
}

// "file:3: 50: error: ..." -> the line and column flatbuffers names, else {0, 0}.
std::pair<int, int> place_of(const std::string &error, const std::string &file) {
  if (error.compare(0, file.size(), file) != 0 || error.size() <= file.size() || error[file.size()] != ':') return {0, 0};
  char *end = nullptr;
  long line = std::strtol(error.c_str() + file.size() + 1, &end, 10);
  if (*end != ':') return {0, 0};
  long column = std::strtol(end + 1, &end, 10);
  return {static_cast<int>(line), static_cast<int>(column)};
}

} // namespace

std::vector<uint8_t> parse_with_schema(const char *schema, const std::string &json, const std::string &file,
                                       bool skip_unknown) {
  const embedded_file *text = find_embedded(embedded::resources(), schema);
  if (!text) fail(MKB_ERR_INTERNAL, "the schema {} is not built in", schema);
  flatbuffers::IDLOptions options;
  options.strict_json = false;
  options.skip_unexpected_fields_in_json = skip_unknown;
  flatbuffers::Parser parser(options);
  std::string schema_text(text->data);
  if (!parser.Parse(schema_text.c_str())) fail(MKB_ERR_INTERNAL, "schema {}: {}", schema, parser.error_);
  if (!parser.Parse(json.c_str(), nullptr, file.c_str())) {
    auto [line, column] = place_of(parser.error_, file);
    // Errors about a field name it already ("unknown field: x"); the rest are about the value at the place.
    bool names_field = parser.error_.find("field") != std::string::npos;
    std::string field = line > 0 && !names_field ? field_before(json, line, column) : std::string();
    if (field.empty()) fail(MKB_ERR_SPEC, "{}", parser.error_);
    fail(MKB_ERR_SPEC, "{} (field '{}')", parser.error_, field);
  }
  const uint8_t *data = parser.builder_.GetBufferPointer();
  return std::vector<uint8_t>(data, data + parser.builder_.GetSize());
}

} // namespace mkb
