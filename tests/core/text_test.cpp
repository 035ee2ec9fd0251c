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

TEST(Text, EditDistanceCountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("cuda", "cuda"), 0u);
  EXPECT_EQ(edit_distance("", "tirx"), 4u);
  EXPECT_EQ(edit_distance("cute", "cute-dsl"), 4u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("tirx", "trix"), 2u) << "a transposition is two substitutions";
  EXPECT_EQ(edit_distance("sitting", "kitten"), edit_distance("kitten", "sitting"));
}

TEST(Text, ClosestNameSuggestsOnlyPlausibleMisspellings) {
  std::vector<std::string> dsls = {"cuda", "cute-dsl", "tirx", "triton"};
  EXPECT_EQ(closest_name("cudaa", dsls), "cuda");
  EXPECT_EQ(closest_name("triton3", dsls), "triton");
  EXPECT_EQ(closest_name("cute_dsl", dsls), "cute-dsl");
  EXPECT_EQ(closest_name("pallas", dsls), std::nullopt) << "nothing is that close";
  EXPECT_EQ(closest_name("x", {}), std::nullopt);
  // Long names allow a third of their length: a problem id with a wrong dtype and a typo.
  std::vector<std::string> ids = {"topk_softmax_routing_mixtral_8x7b_bf16", "rms_norm_llama3_8b_bf16"};
  EXPECT_EQ(closest_name("topk_softmax_routng_mixtral_8x7b_fp16", ids), "topk_softmax_routing_mixtral_8x7b_bf16");
}

} // namespace
} // namespace mkb
