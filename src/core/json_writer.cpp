#include "core/json_writer.hpp"

#include <fmt/format.h>

#include <cmath>

namespace mkb {

namespace {

// The length of the well-formed UTF-8 sequence that starts `text` (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 when its first byte starts none.
size_t utf8_sequence_length(std::string_view text) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(0);
  size_t length = 0;
  unsigned char low = 0x80, high = 0xbf; // the range of the second byte
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2;
  else if (lead >= 0xe0 && lead <= 0xef) length = 3;
  else if (lead >= 0xf0 && lead <= 0xf4) length = 4;
  else return 0;
  if (lead == 0xe0) low = 0xa0;  // overlong
  if (lead == 0xed) high = 0x9f; // surrogates
  if (lead == 0xf0) low = 0x90;  // overlong
  if (lead == 0xf4) high = 0x8f; // above U+10FFFF
  if (text.size() < length || byte(1) < low || byte(1) > high) return 0;
  for (size_t i = 2; i < length; ++i)
    if ((byte(i) & 0xc0) != 0x80) return 0;
  return length;
}

} // namespace

void append_json_string(std::string &out, std::string_view text) {
  out += '"';
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t length = 1;
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c >= 0x20) length = utf8_sequence_length(text.substr(i));
      if (c >= 0x20 && length > 0) {
        out.append(text, i, length);
      } else {
        out += fmt::format("\\u{:04x}", c); // a control character, or a byte that is not UTF-8
        length = 1;
      }
    }
    i += length;
  }
  out += '"';
}

void json_writer::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

json_writer &json_writer::begin_object() {
  before_value();
  out_ += '{';
  first_.push_back(true);
  return *this;
}

json_writer &json_writer::end_object() {
  out_ += '}';
  first_.pop_back();
  return *this;
}

json_writer &json_writer::begin_array() {
  before_value();
  out_ += '[';
  first_.push_back(true);
  return *this;
}

json_writer &json_writer::end_array() {
  out_ += ']';
  first_.pop_back();
  return *this;
}

json_writer &json_writer::key(std::string_view name) {
  before_value();
  append_json_string(out_, name);
  out_ += ':';
  after_key_ = true;
  return *this;
}

json_writer &json_writer::value(std::string_view text) {
  before_value();
  append_json_string(out_, text);
  return *this;
}

json_writer &json_writer::value(const char *text) {
  if (!text) return null();
  return value(std::string_view(text));
}

json_writer &json_writer::value(bool flag) {
  before_value();
  out_ += flag ? "true" : "false";
  return *this;
}

json_writer &json_writer::value(int64_t number) {
  before_value();
  out_ += fmt::format("{}", number);
  return *this;
}

json_writer &json_writer::value(uint64_t number) {
  before_value();
  out_ += fmt::format("{}", number);
  return *this;
}

json_writer &json_writer::value(double number) {
  if (!std::isfinite(number)) return null();
  before_value();
  out_ += fmt::format("{}", number);
  return *this;
}

json_writer &json_writer::null() {
  before_value();
  out_ += "null";
  return *this;
}

json_writer &json_writer::raw(std::string_view json) {
  before_value();
  out_ += json;
  return *this;
}

} // namespace mkb
