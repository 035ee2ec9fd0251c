// A small SVG writer: the few shapes the report's figures are drawn with. Every attribute value and
// text is escaped, so a problem or model name cannot break the page. A data mark (a point or bar that
// stands for one row of the figure's table) carries class="mark" and data-row, so that a reader, or a
// test, can match the drawing against its data.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mkb::report {

std::string xml_escape(std::string_view text); // & < > " ' as entities

struct point {
  double x = 0, y = 0;
};

class svg {
public:
  svg(double width, double height, std::string_view label);

  // `row` >= 0 marks the shape as the mark of that row of the figure's table; `tip` is its tooltip.
  void rect(double x, double y, double w, double h, std::string_view fill, int row = -1, std::string_view tip = {});
  void circle(double x, double y, double r, std::string_view fill, int row = -1, std::string_view tip = {});
  void line(point from, point to, std::string_view stroke, double width = 1, bool dashed = false);
  void polyline(const std::vector<point> &points, std::string_view stroke, double width = 1.5);
  void polygon(const std::vector<point> &points, std::string_view fill, double opacity);
  // anchor: start, middle, end; rotated: turned 90 degrees counter-clockwise about (x, y).
  void text(double x, double y, std::string_view text, std::string_view anchor = "start", double size = 11,
            bool rotated = false);

  double width() const { return width_; }
  double height() const { return height_; }
  std::string str() const;

private:
  void close_mark(std::string_view element, int row, std::string_view tip);
  double width_, height_;
  std::string label_, body_;
};

} // namespace mkb::report
