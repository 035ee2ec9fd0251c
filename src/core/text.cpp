#include "core/text.hpp"

#include <algorithm>
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

size_t utf8_sequence_length(std::string_view text) {
  if (text.empty()) return 0;
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

std::string valid_utf8(std::string_view text) {
  static constexpr std::string_view replacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (size_t length = utf8_sequence_length(text.substr(i))) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out.append(replacement);
      ++i;
    }
  }
  return out;
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

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1); // row[j]: distance from a[0, i) to b[0, j)
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest_name(std::string_view wanted, const std::vector<std::string> &names) {
  const std::string *best = nullptr;
  size_t best_distance = 0;
  for (const std::string &name : names) {
    size_t d = edit_distance(wanted, name);
    if (!best || d < best_distance) best = &name, best_distance = d;
  }
  if (!best || best_distance > std::max<size_t>(2, wanted.size() / 3)) return std::nullopt;
  return *best;
}

} // namespace mkb
