#include "core/json_writer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "support/utf8.hpp"

namespace mkb {
namespace {

TEST(JsonWriter, NestedContainersAndCommas) {
  json_writer j;
  j.begin_object().field("a", 1).key("b").begin_array().value(true).value("x").null().end_array();
  j.key("c").begin_object().end_object().end_object();
  EXPECT_EQ(j.str(), R"({"a":1,"b":[true,"x",null],"c":{}})");
}

TEST(JsonWriter, EscapesAndNonFiniteNumbers) {
  json_writer j;
  j.begin_array().value("q\"b\\n\n\t\x01").value(NAN).value(INFINITY).value(0.5).end_array();
  EXPECT_EQ(j.str(), R"(["q\"b\\n\n\t\u0001",null,null,0.5])");
}

TEST(JsonWriter, CopiesWellFormedUtf8AsItIs) {
  std::string text = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e \xf4\x8f\xbf\xbf"; // é € 𝄞 U+10FFFF
  json_writer j;
  j.value(text);
  EXPECT_EQ(j.str(), "\"" + text + "\"");
}

TEST(JsonWriter, WritesEachByteThatIsNotUtf8AsItsCodePoint) {
  struct example {
    std::string bytes, json;
  };
  for (const example &e : std::vector<example>{
           {"\xff", R"("\u00ff")"},
           {"a\x80" "b", R"("a\u0080b")"},                     // a stray continuation byte
           {"\xc0\xaf", R"("\u00c0\u00af")"},                    // an overlong '/'
           {"\xed\xa0\x80", R"("\u00ed\u00a0\u0080")"},          // a surrogate
           {"\xf4\x90\x80\x80", R"("\u00f4\u0090\u0080\u0080")"}, // above U+10FFFF
           {"\xe2\x82", R"("\u00e2\u0082")"},                    // truncated at the end
           {"\xe2\x82x", R"("\u00e2\u0082x")"},                  // truncated before ASCII
           {"\xc3\xa9\xff\xc3\xa9", "\"\xc3\xa9\\u00ff\xc3\xa9\""},   // between valid characters
       }) {
    ASSERT_FALSE(testing::is_valid_utf8(e.bytes)) << "the checker must see what the writer fixes";
    json_writer j;
    j.value(e.bytes);
    EXPECT_EQ(j.str(), e.json);
    EXPECT_TRUE(testing::is_valid_utf8(j.str())) << j.str();
  }
}

TEST(JsonWriter, OutputIsValidUtf8WhateverTheBytes) {
  // Mostly bytes at UTF-8's boundaries, where a decoder is most likely to be wrong.
  static constexpr unsigned char interesting[] = {'a',  0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2,
                                                  0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, '"',  '\\'};
  std::mt19937_64 random(14);
  for (int round = 0; round < 5000; ++round) {
    std::string bytes;
    for (int i = 0; i < 12; ++i) bytes += static_cast<char>(interesting[random() % sizeof interesting]);
    json_writer j;
    j.begin_object().field(bytes, bytes).end_object();
    ASSERT_TRUE(testing::is_valid_utf8(j.str())) << j.str();
  }
}

} // namespace
} // namespace mkb
