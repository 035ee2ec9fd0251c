// The SVG writer: text and attributes escaped, marks numbered with their rows and given tooltips.
#include <gtest/gtest.h>

#include "report/svg.hpp"

namespace mkb::report {
namespace {

TEST(Svg, EscapesEverythingANameCouldBreakThePageWith) {
  EXPECT_EQ(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  svg s(100, 50, "label \"x\"");
  s.text(1, 2, "</svg><script>alert(1)</script>");
  std::string out = s.str();
  EXPECT_EQ(out.find("<script>"), std::string::npos) << out;
  EXPECT_NE(out.find("&lt;/svg&gt;&lt;script&gt;"), std::string::npos) << out;
  EXPECT_NE(out.find("aria-label=\"label &quot;x&quot;\""), std::string::npos) << out;
}

TEST(Svg, AMarkNamesItsRowAndCarriesItsTooltip) {
  svg s(100, 50, "f");
  s.rect(1, 2, 3, 4, "#fff", 7, "p<1> r0");
  s.circle(5, 6, 2, "#000");
  std::string out = s.str();
  EXPECT_NE(out.find("class=\"mark\" data-row=\"7\"><title>p&lt;1&gt; r0</title></rect>"), std::string::npos) << out;
  EXPECT_NE(out.find("<circle cx=\"5.0\" cy=\"6.0\" r=\"2.0\" fill=\"#000\"/>"), std::string::npos)
      << "a shape that is not a mark has no row: " << out;
  EXPECT_EQ(out.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"50\"", 0), 0u) << out;
}

} // namespace
} // namespace mkb::report
