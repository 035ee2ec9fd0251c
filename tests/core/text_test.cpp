#include "core/text.hpp"

#include <gtest/gtest.h>

namespace mkb {
namespace {

TEST(Text, SplitAndTrim) {
  EXPECT_EQ(split(" a, b ,,c ", ','), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(split("a,,b", ',', false), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(trim("  x y \n"), "x y");
}

TEST(Text, GlobMatch) {
  EXPECT_TRUE(glob_match("fused_*", "fused_add_rmsnorm"));
  EXPECT_TRUE(glob_match("*rmsnorm*", "fused_add_rmsnorm_h4096"));
  EXPECT_TRUE(glob_match("a?c", "abc"));
  EXPECT_FALSE(glob_match("a?c", "abbc"));
  EXPECT_FALSE(glob_match("fused", "fused_add"));
  EXPECT_TRUE(glob_match("*", ""));
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
