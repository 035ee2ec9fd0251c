#include "report/svg.hpp"

#include <fmt/format.h>

namespace mkb::report {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out += c;
    }
  return out;
}

svg::svg(double width, double height, std::string_view label) : width_(width), height_(height), label_(label) {}

// Ends an element whose attributes are written: a mark's class and row, and a tooltip as a <title> child.
void svg::close_mark(std::string_view element, int row, std::string_view tip) {
  if (row >= 0) body_ += fmt::format(" class=\"mark\" data-row=\"{}\"", row);
  if (tip.empty())
    body_ += "/>\n";
  else
    body_ += fmt::format("><title>{}</title></{}>\n", xml_escape(tip), element);
}

void svg::rect(double x, double y, double w, double h, std::string_view fill, int row, std::string_view tip) {
  body_ += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"", x, y, w, h,
                       xml_escape(fill));
  close_mark("rect", row, tip);
}

void svg::circle(double x, double y, double r, std::string_view fill, int row, std::string_view tip) {
  body_ += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"{}\"", x, y, r, xml_escape(fill));
  close_mark("circle", row, tip);
}

void svg::line(point from, point to, std::string_view stroke, double width, bool dashed) {
  body_ += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"{}\"{}/>\n",
                       from.x, from.y, to.x, to.y, xml_escape(stroke), width, dashed ? " stroke-dasharray=\"4 3\"" : "");
}

static std::string points_text(const std::vector<point> &points) {
  std::string out;
  for (const point &p : points) out += fmt::format("{}{:.1f},{:.1f}", out.empty() ? "" : " ", p.x, p.y);
  return out;
}

void svg::polyline(const std::vector<point> &points, std::string_view stroke, double width) {
  body_ += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"/>\n", points_text(points),
                       xml_escape(stroke), width);
}

void svg::polygon(const std::vector<point> &points, std::string_view fill, double opacity) {
  body_ += fmt::format("<polygon points=\"{}\" fill=\"{}\" fill-opacity=\"{}\"/>\n", points_text(points), xml_escape(fill),
                       opacity);
}

void svg::text(double x, double y, std::string_view text, std::string_view anchor, double size, bool rotated) {
  std::string turn = rotated ? fmt::format(" transform=\"rotate(-90 {:.1f} {:.1f})\"", x, y) : "";
  body_ += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\" font-size=\"{}\"{}>{}</text>\n", x, y,
                       xml_escape(anchor), size, turn, xml_escape(text));
}

std::string svg::str() const {
  return fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} "
                     "{1:.0f}\" role=\"img\" aria-label=\"{2}\" font-family=\"sans-serif\">\n{3}</svg>\n",
                     width_, height_, xml_escape(label_), body_);
}

} // namespace mkb::report
