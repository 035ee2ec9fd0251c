// Small string helpers shared by the parsers and the reports.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mkb {

std::string_view trim(std::string_view text);
std::vector<std::string> split(std::string_view text, char separator, bool skip_empty = true);
bool starts_with_word(std::string_view text, std::string_view word);
// Shell-style match: '*' any run, '?' one character.
bool glob_match(std::string_view pattern, std::string_view text);
// Line number (1-based) of byte `offset` in `text`.
int line_of(std::string_view text, size_t offset);
// Replaces every "{{name}}" in `text` from the pairs; unknown names stay as they are.
std::string fill_template(std::string_view text,
                          const std::vector<std::pair<std::string, std::string>> &values);

} // namespace mkb
