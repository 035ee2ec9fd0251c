#include "core/text.hpp"

#include <gtest/gtest.h>

namespace mkb {
namespace {

TEST(Text, SplitAndTrim) {
  EXPECT_EQ(split(" a, b ,,c ", ','), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(split("a,,b", ',', false), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(trim("  x y \n"), "x y");
}

TEST(Text, ValidUtf8ReplacesEveryByteThatIsNotPartOfACharacter) {
  EXPECT_EQ(valid_utf8("plain, \xC3\xA9t\xC3\xA9, \xE2\x82\xAC, \xF0\x9F\x98\x80"), "plain, \xC3\xA9t\xC3\xA9, \xE2\x82\xAC, \xF0\x9F\x98\x80");
  EXPECT_EQ(valid_utf8("a\xFF" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                 // overlong '/'
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"); // a UTF-16 surrogate
  EXPECT_EQ(valid_utf8("cut \xE2\x82"), "cut \xEF\xBF\xBD\xEF\xBF\xBD");          // a character cut short
  EXPECT_EQ(utf8_sequence_length("\xF4\x8F\xBF\xBF"), 4u);                            // U+10FFFF
  EXPECT_EQ(utf8_sequence_length("\xF4\x90\x80\x80"), 0u);                            // past it
  EXPECT_EQ(utf8_sequence_length(""), 0u);
}

TEST(Text, LineOfAnOffset) {
  EXPECT_EQ(line_of("a\nb\nc", 0), 1);
  EXPECT_EQ(line_of("a\nb\nc", 2), 2);
  EXPECT_EQ(line_of("a\nb\nc", 4), 3);
}

TEST(Text, FillTemplate) {
  EXPECT_EQ(fill_template("{{a}} and {{b}} and {{c}}", {{"a", "1"}, {"b", "2"}}), "1 and 2 and {{c}}");
}

} // namespace
} // namespace mkb
