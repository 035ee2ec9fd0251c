// The figures that break the results down: by the source's tier, by family, and what each arm spent
// and ended with.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "report/chart.hpp"
#include "report/figures.hpp"

namespace mkb::report {

namespace {

// Stacked vertical bars: one bar per category (in the given order), one segment per row.
struct stack_chart {
  const table &t;
  const char *category_column, *segment_column, *value_column;
  std::vector<std::string> categories;
  const char *(*colour)(const std::string &segment);

  void draw(svg &s, const std::vector<size_t> &rows, const std::string &axis_label) const {
    const double left = 56, right = 430, top = 34, bottom = 220;
    std::map<std::string, double> totals;
    for (size_t r : rows) totals[text(t, r, category_column)] += number(t, r, value_column);
    double most = 1;
    for (const auto &[category, total] : totals) most = std::max(most, total);
    scale y{0, rounded_domain(0, most).second, bottom, top};
    value_axis_left(s, y, left, right, axis_label);
    double width = (right - left) / double(categories.size());
    for (size_t c = 0; c < categories.size(); ++c) {
      double x = left + width * double(c), level = 0;
      s.text(x + width / 2, bottom + 16, categories[c], "middle", 10);
      for (size_t r : rows) {
        if (text(t, r, category_column) != categories[c]) continue;
        double v = number(t, r, value_column);
        s.rect(x + width * 0.2, y(level + v), width * 0.6, y(level) - y(level + v), colour(text(t, r, segment_column)),
               int(r), fmt::format("{} {}: {}", categories[c], text(t, r, segment_column), format_for_reading(v)));
        level += v;
      }
    }
  }
};

std::vector<std::string> distinct(const table &t, const std::vector<size_t> &rows, const char *column) {
  std::vector<std::string> values;
  for (size_t r : rows)
    if (std::find(values.begin(), values.end(), text(t, r, column)) == values.end()) values.push_back(text(t, r, column));
  return values;
}

const char *verdict_colour(const std::string &verdict) {
  static const std::vector<std::string> order = {"passed", "wrong_answer", "compile_error", "launch_error",
                                                 "out_of_bounds", "input_modified", "fault", "timeout",
                                                 "out_of_memory", "crashed", "inconsistent", "compiled",
                                                 "no_kernel", "refused", "skipped"};
  if (verdict == "passed") return outcome_colour("passed");
  size_t i = std::find(order.begin(), order.end(), verdict) - order.begin();
  return series_colour(i + 1);
}

} // namespace

figure tiers_figure(const table &t) {
  figure f{"tiers", "Outcomes by the source's tier",
           "Pairs grouped by how the source (the solo in the other DSL) did against the target's solo: above "
           "(> 1.02x), the same, or below; each bar splits its pairs by what the skill did to the target.",
           {}};
  for (const row_group &panel : group_rows(t, {"model", "speedup_vs", "direction"})) {
    svg s(440, 270, "Outcomes by tier, " + panel.title);
    s.text(56, 18, panel.title, "start", 12);
    stack_chart{t, "source_tier", "outcome", "pairs", {"above", "same", "below"}, outcome_colour}.draw(s, panel.rows, "pairs");
    legend(s, 56, 262, {{"helped", outcome_colour("helped")}, {"same", outcome_colour("same")}, {"harmed", outcome_colour("harmed")}});
    f.panels.push_back(s.str());
  }
  return f;
}

figure families_figure(const table &t) {
  figure f{"families", "By family",
           "The paired lift (geometric mean of the paired ratios, minus 1) of each family's pairs; the table beside "
           "the page gives S, lift, help and harm per family too.",
           {}};
  for (const row_group &panel : group_rows(t, {"model", "speedup_vs", "direction"})) {
    const double row_height = 24, left = 150, right = 420, top = 40;
    const double bottom = top + row_height * double(panel.rows.size());
    svg s(440, bottom + 44, "By family, " + panel.title);
    double low = 0, high = 0;
    for (size_t r : panel.rows) low = std::min(low, number(t, r, "paired_lift")), high = std::max(high, number(t, r, "paired_lift"));
    auto [from, to] = rounded_domain(low, high);
    scale x{from, to, left, right};
    s.text(10, 18, panel.title, "start", 12);
    value_axis_bottom(s, x, bottom, top - 8, "paired lift");
    for (size_t i = 0; i < panel.rows.size(); ++i) {
      size_t r = panel.rows[i];
      double v = number(t, r, "paired_lift"), cy = top + row_height * double(i);
      s.text(left - 8, cy + row_height / 2 + 4, text(t, r, "family"), "end", 10);
      s.rect(std::min(x(0), x(v)), cy + 4, std::max(std::fabs(x(v) - x(0)), 0.5), row_height - 8,
             v > 0 ? outcome_colour("helped") : v < 0 ? outcome_colour("harmed") : outcome_colour("same"), int(r),
             fmt::format("{}: paired lift {} over {} pairs", text(t, r, "family"), format_for_reading(v),
                         format_for_reading(number(t, r, "pairs"))));
    }
    s.line({x(0), top - 8}, {x(0), bottom}, "#555");
    f.panels.push_back(s.str());
  }
  return f;
}

figure usage_figure(const table &t) {
  figure f{"usage", "Usage and cost by arm",
           "Per model and arm, over the counted trials: the mean agent time per trial (time queued for the GPU "
           "excluded) and the summed cost as the agent reported it.",
           {}};
  for (const row_group &panel : group_rows(t, {"model"})) {
    svg s(440, 250, "Usage, " + panel.title);
    s.text(10, 18, panel.title, "start", 12);
    const double top = 40, bottom = 200;
    for (const auto &[column, label, left] : {std::tuple{"mean_agent_seconds", "mean agent seconds", 56.0},
                                              std::tuple{"cost_usd", "cost (USD)", 266.0}}) {
      const double right = left + 160;
      double most = 0;
      for (size_t r : panel.rows)
        if (std::isfinite(number(t, r, column))) most = std::max(most, number(t, r, column));
      scale y{0, rounded_domain(0, most).second, bottom, top};
      value_axis_left(s, y, left, right, label);
      double width = (right - left) / double(panel.rows.size());
      for (size_t i = 0; i < panel.rows.size(); ++i) {
        size_t r = panel.rows[i];
        double v = std::isfinite(number(t, r, column)) ? number(t, r, column) : 0;
        const std::string &arm = text(t, r, "arm");
        s.rect(left + width * (double(i) + 0.15), y(v), width * 0.7, y(0) - y(v), arm_colour(arm), int(r),
               fmt::format("{}: {} {} over {} trials", arm, format_for_reading(number(t, r, column)), label,
                           format_for_reading(number(t, r, "trials"))));
      }
    }
    std::vector<std::pair<std::string, std::string>> names;
    for (size_t r : panel.rows) names.push_back({text(t, r, "arm"), arm_colour(text(t, r, "arm"))});
    legend(s, 56, 236, names);
    f.panels.push_back(s.str());
  }
  return f;
}

figure verdicts_figure(const table &t) {
  figure f{"verdicts", "Verdicts by arm",
           "The final evaluation's verdict of every counted trial; a skill arm whose source wrote no skill is "
           "skipped and never ran.",
           {}};
  for (const row_group &panel : group_rows(t, {"model"})) {
    svg s(440, 290, "Verdicts, " + panel.title);
    s.text(56, 18, panel.title, "start", 12);
    stack_chart{t, "arm", "verdict", "trials", {"solo_a", "solo_b", "a2b_skill", "b2a_skill"}, verdict_colour}
        .draw(s, panel.rows, "trials");
    std::vector<std::pair<std::string, std::string>> names;
    for (const std::string &v : distinct(t, panel.rows, "verdict")) names.push_back({v, verdict_colour(v)});
    legend(s, 56, 262, names);
    f.panels.push_back(s.str());
  }
  return f;
}

} // namespace mkb::report
