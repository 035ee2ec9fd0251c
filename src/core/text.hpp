// Small string helpers shared by the parsers and the reports.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mkb {

std::string_view trim(std::string_view text);
std::vector<std::string> split(std::string_view text, char separator, bool skip_empty = true);
bool starts_with_word(std::string_view text, std::string_view word);
// The length of the well-formed UTF-8 sequence that starts `text` (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 when its first byte starts none.
size_t utf8_sequence_length(std::string_view text);
// `text` with every byte that is not part of a well-formed UTF-8 sequence replaced by U+FFFD.
std::string valid_utf8(std::string_view text);
// Line number (1-based) of byte `offset` in `text`.
int line_of(std::string_view text, size_t offset);
// Replaces every "{{name}}" in `text` from the pairs; unknown names stay as they are.
std::string fill_template(std::string_view text,
                          const std::vector<std::pair<std::string, std::string>> &values);

// Levenshtein distance: the fewest single-byte insertions, deletions and substitutions that turn
// `a` into `b`.
size_t edit_distance(std::string_view a, std::string_view b);
// The name in `names` nearest to `wanted` when it is a plausible misspelling of it (at most 2 edits,
// or a third of `wanted`'s length for long names); nullopt when none is. Ties go to the first name.
std::optional<std::string> closest_name(std::string_view wanted, const std::vector<std::string> &names);

} // namespace mkb
