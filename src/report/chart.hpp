// What the figures share: linear scales with round ticks, axes with grid lines, small multiples (one
// panel per group of a table's rows) and the palette.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "report/svg.hpp"
#include "report/table.hpp"

namespace mkb::report {

// A cell of a figure's table, by row and column.
inline double number(const table &t, size_t row, const char *column) { return t.at(row, column).number; }
inline const std::string &text(const table &t, size_t row, const char *column) { return t.at(row, column).text; }

struct scale {
  double domain_low, domain_high, range_low, range_high;
  double operator()(double v) const;
};

// About `count` round values covering [low, high]: steps of 1, 2 or 5 times a power of ten.
std::vector<double> round_ticks(double low, double high, int count = 5);
// [low, high] widened to the outer round ticks, and never empty.
std::pair<double, double> rounded_domain(double low, double high);

// A vertical value axis at x (grid lines across to x_right), labelled by `format`.
void value_axis_left(svg &s, const scale &y, double x, double x_right, const std::string &label,
                     std::string (*format)(double) = format_for_reading);
// A horizontal value axis at y (grid lines up to y_top).
void value_axis_bottom(svg &s, const scale &x, double y, double y_top, const std::string &label,
                       std::string (*format)(double) = format_for_reading);

// The rows of `t` grouped by the values of `columns`, in the order groups first appear: the panels.
struct row_group {
  std::string title; // the values joined by " · "
  std::vector<size_t> rows;
};
std::vector<row_group> group_rows(const table &t, const std::vector<std::string> &columns);

// A legend row of coloured squares and names, starting at (x, y).
void legend(svg &s, double x, double y, const std::vector<std::pair<std::string, std::string>> &name_colour);

const char *arm_colour(const std::string &arm);
const char *outcome_colour(const std::string &outcome);
const char *series_colour(size_t i);

} // namespace mkb::report
