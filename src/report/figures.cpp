// The figures of the scores themselves: the R@t ladder, the intervals of Table 1, the paired ratios.
#include "report/figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "report/chart.hpp"

namespace mkb::report {

namespace {

std::string times(double log2_ratio) { return format_for_reading(std::exp2(log2_ratio)) + "x"; }

} // namespace

figure ladder_figure(const table &t) {
  figure f{"ladder", "R@t ladder",
           "The share of attempts that passed with a speedup of at least t, for each arm over its direction's pairs; "
           "the band is the 95% Wilson interval of that share.",
           {}};
  const std::vector<double> ts(std::begin(score_thresholds), std::end(score_thresholds));
  for (const row_group &panel : group_rows(t, {"model", "speedup_vs"})) {
    svg s(440, 300, "R@t ladder, " + panel.title);
    const double left = 56, right = 430, top = 34, bottom = 230;
    scale y{0, 1, bottom, top};
    auto x = [&](double threshold) {
      size_t i = std::find(ts.begin(), ts.end(), threshold) - ts.begin();
      return left + 20 + double(i) * (right - left - 40) / double(ts.size() - 1);
    };
    s.text(left, 18, panel.title + " (speedup vs " + text(t, panel.rows[0], "speedup_vs") + ")", "start", 12);
    value_axis_left(s, y, left, right, "R@t");
    for (double threshold : ts) s.text(x(threshold), bottom + 16, "t=" + format_for_reading(threshold), "middle", 10);
    std::vector<std::pair<std::string, std::string>> names;
    for (const row_group &series : group_rows(t, {"direction", "role", "arm"})) {
      std::vector<size_t> rows;
      std::set_intersection(series.rows.begin(), series.rows.end(), panel.rows.begin(), panel.rows.end(),
                            std::back_inserter(rows));
      if (rows.empty()) continue;
      std::string arm = text(t, rows[0], "arm");
      std::vector<point> line, upper, lower;
      for (size_t r : rows) {
        double at = x(number(t, r, "t"));
        line.push_back({at, y(number(t, r, "rate"))});
        upper.push_back({at, y(number(t, r, "ci_high"))});
        lower.insert(lower.begin(), point{at, y(number(t, r, "ci_low"))});
      }
      upper.insert(upper.end(), lower.begin(), lower.end());
      s.polygon(upper, arm_colour(arm), 0.12);
      s.polyline(line, arm_colour(arm));
      for (size_t i = 0; i < rows.size(); ++i)
        s.circle(line[i].x, line[i].y, 3.5, arm_colour(arm), int(rows[i]),
                 fmt::format("{} ({}), t={}: {} [{}, {}]", arm, text(t, rows[i], "role"),
                             format_for_reading(number(t, rows[i], "t")), format_for_reading(number(t, rows[i], "rate")),
                             format_for_reading(number(t, rows[i], "ci_low")),
                             format_for_reading(number(t, rows[i], "ci_high"))));
      names.push_back({arm + " (" + text(t, rows[0], "direction") + ")", arm_colour(arm)});
    }
    legend(s, left, 262, names);
    f.panels.push_back(s.str());
  }
  return f;
}

figure intervals_figure(const table &t) {
  figure f{"intervals", "Help, harm and paired lift",
           "Per model and direction: the share of pairs the skill helped (T) and harmed (H), and the geometric mean "
           "of the paired ratios minus 1, each with its 95% bootstrap interval over pairs.",
           {}};
  for (const row_group &panel : group_rows(t, {"speedup_vs", "measure"})) {
    const double row_height = 24, left = 190, right = 420, top = 40;
    const double bottom = top + row_height * double(panel.rows.size());
    svg s(440, bottom + 44, "Intervals, " + panel.title);
    bool rate = text(t, panel.rows[0], "measure") != "paired_lift";
    double low = rate ? 0 : 0, high = rate ? 1 : 0;
    if (!rate)
      for (size_t r : panel.rows) {
        for (const char *c : {"value", "ci_low", "ci_high"})
          if (std::isfinite(number(t, r, c))) low = std::min(low, number(t, r, c)), high = std::max(high, number(t, r, c));
      }
    if (!rate) std::tie(low, high) = rounded_domain(low, high);
    scale x{low, high, left, right};
    s.text(10, 18, "speedup vs " + panel.title, "start", 12);
    value_axis_bottom(s, x, bottom, top - 8, text(t, panel.rows[0], "measure"));
    if (!rate) s.line({x(0), top - 8}, {x(0), bottom}, "#555", 1, true);
    for (size_t i = 0; i < panel.rows.size(); ++i) {
      size_t r = panel.rows[i];
      double cy = top + row_height * (double(i) + 0.5);
      std::string label = text(t, r, "model") + " · " + text(t, r, "source_dsl") + " -> " + text(t, r, "target_dsl");
      s.text(left - 8, cy + 4, label.size() > 34 ? label.substr(0, 33) + "…" : label, "end", 10);
      double lo = number(t, r, "ci_low"), hi = number(t, r, "ci_high");
      if (std::isfinite(lo) && std::isfinite(hi)) s.line({x(lo), cy}, {x(hi), cy}, "#333", 1.5);
      s.circle(x(number(t, r, "value")), cy, 4, series_colour(i), int(r),
               fmt::format("{}: {} [{}, {}] over {} pairs", label, format_for_reading(number(t, r, "value")),
                           format_for_reading(lo), format_for_reading(hi), format_for_reading(number(t, r, "pairs"))));
    }
    f.panels.push_back(s.str());
  }
  return f;
}

figure paired_figure(const table &t) {
  figure f{"paired", "Paired ratios, sorted",
           "Each bar is one problem and replicate: the skill arm's performance over its base's (a failure counts as "
           "the failure floor), on a log scale; green helped (> 1.02x), red harmed (< 1/1.02x), grey the same.",
           {}};
  for (const row_group &panel : group_rows(t, {"model", "speedup_vs", "direction"})) {
    svg s(440, 270, "Paired ratios, " + panel.title);
    const double left = 56, right = 430, top = 34, bottom = 230;
    double extent = std::log2(1.25);
    for (size_t r : panel.rows) extent = std::max(extent, std::fabs(std::log2(number(t, r, "ratio"))));
    auto [low, high] = rounded_domain(-extent, extent);
    scale y{low, high, bottom, top};
    s.text(left, 18, panel.title + " (" + text(t, panel.rows[0], "source_dsl") + " -> " +
                         text(t, panel.rows[0], "target_dsl") + ")", "start", 12);
    value_axis_left(s, y, left, right, "skill / base", times);
    double width = (right - left) / double(panel.rows.size());
    for (size_t i = 0; i < panel.rows.size(); ++i) {
      size_t r = panel.rows[i];
      double v = std::log2(number(t, r, "ratio"));
      s.rect(left + width * double(i) + width * 0.1, std::min(y(v), y(0)), std::max(width * 0.8, 0.5),
             std::max(std::fabs(y(v) - y(0)), 0.5), outcome_colour(text(t, r, "outcome")), int(r),
             fmt::format("{} r{}: {}x ({}, source {})", text(t, r, "problem"), format_for_reading(number(t, r, "replicate")),
                         format_for_reading(number(t, r, "ratio")), text(t, r, "outcome"), text(t, r, "source_tier")));
    }
    s.line({left, y(0)}, {right, y(0)}, "#555");
    s.text((left + right) / 2, bottom + 18, fmt::format("{} pairs, sorted by ratio", panel.rows.size()), "middle", 10);
    legend(s, left, 262, {{"helped", outcome_colour("helped")}, {"same", outcome_colour("same")}, {"harmed", outcome_colour("harmed")}});
    f.panels.push_back(s.str());
  }
  return f;
}

std::vector<figure> draw_figures(const report_tables &t) {
  return {ladder_figure(t.ladder), intervals_figure(t.intervals), paired_figure(t.paired), tiers_figure(t.tiers),
          families_figure(t.families), usage_figure(t.usage), verdicts_figure(t.verdicts)};
}

} // namespace mkb::report
