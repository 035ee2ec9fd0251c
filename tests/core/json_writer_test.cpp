#include "core/json_writer.hpp"

#include <gtest/gtest.h>

#include <cmath>

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

} // namespace
} // namespace mkb
