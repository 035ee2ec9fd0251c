// Whether a text is one well-formed JSON value (RFC 8259), for the tests of commands that print JSON.
// The project writes JSON but reads none; this checks the grammar, not the meaning.
#pragma once

#include <cctype>
#include <cstring>
#include <string_view>

namespace mkb::testing {

class json_grammar {
public:
  // `text` holds exactly one JSON value, with optional whitespace around it.
  static bool valid(std::string_view text) {
    json_grammar g(text);
    return g.value() && (g.skip_space(), g.at_ == text.size());
  }

private:
  explicit json_grammar(std::string_view text) : text_(text) {}

  void skip_space() {
    while (at_ < text_.size() && std::strchr(" \t\r\n", text_[at_])) ++at_;
  }
  bool eat(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) return ++at_, true;
    return false;
  }
  bool word(std::string_view w) {
    if (text_.substr(at_, w.size()) != w) return false;
    at_ += w.size();
    return true;
  }
  bool digits() {
    size_t start = at_;
    while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) ++at_;
    return at_ > start;
  }
  bool number() {
    eat('-');
    if (!digits()) return false;
    if (at_ < text_.size() && text_[at_] == '.' && (++at_, !digits())) return false;
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      ++at_;
      if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
      if (!digits()) return false;
    }
    return true;
  }
  bool string() {
    if (!eat('"')) return false;
    while (at_ < text_.size() && text_[at_] != '"') {
      unsigned char c = static_cast<unsigned char>(text_[at_++]);
      if (c < 0x20) return false;
      if (c != '\\') continue;
      if (at_ >= text_.size()) return false;
      char e = text_[at_++];
      if (e == 'u') {
        for (int i = 0; i < 4; ++i)
          if (at_ >= text_.size() || !std::isxdigit(static_cast<unsigned char>(text_[at_++]))) return false;
      } else if (!std::strchr("\"\\/bfnrt", e)) {
        return false;
      }
    }
    return eat('"');
  }
  template <typename Element> bool sequence(char close, Element element) {
    if (eat(close)) return true;
    do {
      if (!element()) return false;
    } while (eat(','));
    return eat(close);
  }
  bool value() {
    skip_space();
    if (at_ >= text_.size()) return false;
    switch (text_[at_]) {
    case '{': ++at_; return sequence('}', [&] { return string() && eat(':') && value(); });
    case '[': ++at_; return sequence(']', [&] { return value(); });
    case '"': return string();
    case 't': return word("true");
    case 'f': return word("false");
    case 'n': return word("null");
    default: return number();
    }
  }

  std::string_view text_;
  size_t at_ = 0;
};

inline bool is_json(std::string_view text) { return json_grammar::valid(text); }

} // namespace mkb::testing
