#include "core/json_writer.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/text.hpp"

namespace mkb {

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
