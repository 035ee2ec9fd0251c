#include "report/chart.hpp"

#include <algorithm>
#include <cmath>

namespace mkb::report {

double scale::operator()(double v) const {
  if (domain_high == domain_low) return (range_low + range_high) / 2;
  return range_low + (v - domain_low) / (domain_high - domain_low) * (range_high - range_low);
}

static double round_step(double low, double high, int count) {
  double raw = (high - low) / std::max(count, 1);
  double power = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * power) return m * power;
  return 10 * power;
}

std::pair<double, double> rounded_domain(double low, double high) {
  if (!std::isfinite(low) || !std::isfinite(high)) return {0, 1};
  if (high <= low) {
    double pad = low == 0 ? 1 : std::fabs(low) * 0.5;
    low -= pad, high += pad;
  }
  double step = round_step(low, high, 5);
  return {std::floor(low / step) * step, std::ceil(high / step) * step};
}

std::vector<double> round_ticks(double low, double high, int count) {
  std::vector<double> ticks;
  if (!(high > low)) return {low};
  double step = round_step(low, high, count);
  for (double v = std::ceil(low / step - 1e-9) * step; v <= high + step * 1e-9; v += step)
    ticks.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  return ticks;
}

void value_axis_left(svg &s, const scale &y, double x, double x_right, const std::string &label,
                     std::string (*format)(double)) {
  for (double v : round_ticks(y.domain_low, y.domain_high)) {
    s.line({x, y(v)}, {x_right, y(v)}, "#e3e3e3");
    s.text(x - 4, y(v) + 4, format(v), "end", 10);
  }
  s.line({x, y.range_low}, {x, y.range_high}, "#888");
  s.text(x - 36, (y.range_low + y.range_high) / 2, label, "middle", 11, true);
}

void value_axis_bottom(svg &s, const scale &x, double y, double y_top, const std::string &label,
                       std::string (*format)(double)) {
  for (double v : round_ticks(x.domain_low, x.domain_high)) {
    s.line({x(v), y}, {x(v), y_top}, "#e3e3e3");
    s.text(x(v), y + 14, format(v), "middle", 10);
  }
  s.line({x.range_low, y}, {x.range_high, y}, "#888");
  s.text((x.range_low + x.range_high) / 2, y + 30, label, "middle", 11);
}

std::vector<row_group> group_rows(const table &t, const std::vector<std::string> &columns) {
  std::vector<row_group> groups;
  for (size_t r = 0; r < t.size(); ++r) {
    std::string title;
    for (const std::string &c : columns) {
      const cell &v = t.at(r, c);
      title += (title.empty() ? "" : " · ") + (v.numeric ? format_for_reading(v.number) : v.text);
    }
    auto same = std::find_if(groups.begin(), groups.end(), [&](const row_group &g) { return g.title == title; });
    if (same == groups.end())
      groups.push_back({title, {r}});
    else
      same->rows.push_back(r);
  }
  return groups;
}

void legend(svg &s, double x, double y, const std::vector<std::pair<std::string, std::string>> &name_colour) {
  for (const auto &[name, colour] : name_colour) {
    s.rect(x, y - 9, 10, 10, colour);
    s.text(x + 14, y, name, "start", 10);
    x += 24 + 6.2 * static_cast<double>(name.size());
  }
}

const char *arm_colour(const std::string &arm) {
  if (arm == "solo_a") return "#4e79a7";
  if (arm == "solo_b") return "#f28e2b";
  if (arm == "a2b_skill") return "#59a14f";
  if (arm == "b2a_skill") return "#b07aa1";
  return "#777";
}

const char *outcome_colour(const std::string &outcome) {
  if (outcome == "helped" || outcome == "passed") return "#59a14f";
  if (outcome == "harmed") return "#e15759";
  return "#bab0ac";
}

const char *series_colour(size_t i) {
  static const char *palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                  "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return palette[i % std::size(palette)];
}

} // namespace mkb::report
