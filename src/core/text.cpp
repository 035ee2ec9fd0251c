#include "core/text.hpp"

#include <cctype>

namespace mkb {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::vector<std::string> split(std::string_view text, char separator, bool skip_empty) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(separator, start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view part = trim(text.substr(start, end - start));
    if (!part.empty() || !skip_empty) parts.emplace_back(part);
    start = end + 1;
  }
  return parts;
}

bool starts_with_word(std::string_view text, std::string_view word) {
  if (!text.starts_with(word)) return false;
  return text.size() == word.size() || std::isspace(static_cast<unsigned char>(text[word.size()]));
}

bool glob_match(std::string_view pattern, std::string_view text) {
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

int line_of(std::string_view text, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i)
    if (text[i] == '\n') ++line;
  return line;
}

std::string fill_template(std::string_view text,
                          const std::vector<std::pair<std::string, std::string>> &values) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    size_t open = text.find("{{", i);
    if (open == std::string_view::npos) break;
    size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    std::string_view name = text.substr(open + 2, close - open - 2);
    out.append(text.substr(i, open - i));
    bool found = false;
    for (const auto &[key, value] : values)
      if (key == name) {
        out += value;
        found = true;
        break;
      }
    if (!found) out.append(text.substr(open, close + 2 - open));
    i = close + 2;
  }
  out.append(text.substr(i));
  return out;
}

} // namespace mkb
