// A report table as CSV, JSON and HTML: the same cells, quoted, typed and rounded as each format needs.
#include <gtest/gtest.h>

#include <cmath>

#include "report/table.hpp"

namespace mkb::report {
namespace {

table sample() {
  table t("t", "a table", {"name", "value", "flag"});
  t.add({"m,1 \"q\"", 0.1 + 0.2, true});
  t.add({"=cmd()", NAN, false});
  t.add({"plain", uint64_t(3), false});
  return t;
}

TEST(ReportTable, CsvQuotesEscapesAndGuardsFormulas) {
  EXPECT_EQ(sample().csv(), "name,value,flag\r\n"
                            "\"m,1 \"\"q\"\"\",0.30000000000000004,true\r\n"
                            "'=cmd(),,false\r\n"
                            "plain,3,false\r\n");
}

TEST(ReportTable, JsonKeepsTypesAndWritesNaNAsNull) {
  EXPECT_EQ(sample().json(), "[{\"name\":\"m,1 \\\"q\\\"\",\"value\":0.30000000000000004,\"flag\":true},"
                             "{\"name\":\"=cmd()\",\"value\":null,\"flag\":false},"
                             "{\"name\":\"plain\",\"value\":3,\"flag\":false}]\n");
}

TEST(ReportTable, HtmlRoundsForReadingAndEscapes) {
  std::string html = sample().html();
  EXPECT_NE(html.find("<td>m,1 &quot;q&quot;</td><td class=\"n\">0.3</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td class=\"n\">-</td>"), std::string::npos) << "NaN reads as -: " << html;
  EXPECT_EQ(format_for_reading(1234.56), "1235");
  EXPECT_EQ(format_for_reading(2.0 / 3), "0.667");
  EXPECT_EQ(format_for_reading(-0.25), "-0.25");
}

TEST(ReportTable, ARowOfTheWrongWidthOrAMissingColumnIsAnError) {
  table t("t", "a table", {"a", "b"});
  EXPECT_THROW(t.add({"only one"}), std::logic_error);
  t.add({"x", 1});
  EXPECT_THROW((void)t.at(0, "c"), std::logic_error);
  EXPECT_EQ(t.at(0, "b").number, 1);
}

} // namespace
} // namespace mkb::report
