// A streaming JSON writer: commas, escaping and number formatting in one place. Non-finite numbers are
// written as null, since JSON has no NaN. The output is valid UTF-8 whatever bytes it is given: text
// is copied as it is where it is well-formed UTF-8, and each byte that is not (a stray continuation
// byte, an overlong form, a surrogate, a truncated sequence) is written as \u00XX with XX the byte's
// value, so that the byte stays visible (it reads back as the code point U+00XX).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mkb {

class json_writer {
public:
  json_writer &begin_object();
  json_writer &end_object();
  json_writer &begin_array();
  json_writer &end_array();
  json_writer &key(std::string_view name);
  json_writer &value(std::string_view text);
  json_writer &value(const char *text);
  json_writer &value(const std::string &text) { return value(std::string_view(text)); }
  json_writer &value(bool flag);
  json_writer &value(int64_t number);
  json_writer &value(uint64_t number);
  json_writer &value(int number) { return value(static_cast<int64_t>(number)); }
  json_writer &value(unsigned number) { return value(static_cast<uint64_t>(number)); }
  json_writer &value(double number);
  json_writer &null();
  // Inserts already-serialized JSON as one value.
  json_writer &raw(std::string_view json);

  template <typename T> json_writer &field(std::string_view name, const T &v) { return key(name).value(v); }

  const std::string &str() const { return out_; }
  std::string take() { return std::move(out_); }

private:
  void before_value();
  std::string out_;
  std::vector<bool> first_; // one entry per open container: no element written yet
  bool after_key_ = false;
};

// Appends `text` as a quoted JSON string, escaped as described above.
void append_json_string(std::string &out, std::string_view text);

} // namespace mkb
