#include "cli/score_formats.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

namespace mkb::cli {

namespace {

struct score_row {
  const direction_score *direction;
  std::string group;
  const group_score *scores;
  bool with_interval; // the bootstrap intervals are of all the direction's pairs
};

// Against eager first (comparable with the paper), then against the baseline. A direction not scored
// against eager has one row, "all", without figures (the JSON and the table say why).
std::vector<score_row> rows_of(const score_report &report) {
  std::vector<score_row> rows;
  for (const direction_score &d : report.directions_vs_eager) {
    if (!d.scored) {
      rows.push_back({&d, "all", &d.all, false});
      continue;
    }
    rows.push_back({&d, "all", &d.all, true});
    rows.push_back({&d, "with skill", &d.with_skill, false});
    for (const auto &[family, g] : d.by_family) rows.push_back({&d, "family " + family, &g, false});
    rows.push_back({&d, "source passed", &d.source_passed, false});
    rows.push_back({&d, "source failed", &d.source_failed, false});
  }
  for (const direction_score &d : report.directions) {
    rows.push_back({&d, "all", &d.all, true});
    rows.push_back({&d, "with skill", &d.with_skill, false});
    for (const auto &[family, g] : d.by_family) rows.push_back({&d, "family " + family, &g, false});
    rows.push_back({&d, "source passed", &d.source_passed, false});
    rows.push_back({&d, "source failed", &d.source_failed, false});
  }
  return rows;
}

// "-" (Markdown) or "" (CSV) where there is no figure: no pairs, no interval.
std::string figure(double v, const char *format, const char *none) {
  return std::isfinite(v) ? fmt::format(fmt::runtime(format), v) : none;
}

// RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled.
std::string csv_field(const std::string &text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Markdown tables end a cell at '|'.
std::string markdown_cell(const std::string &text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

} // namespace

std::string scores_markdown(const score_report &report) {
  std::string out = "| model | direction | speedup vs | group | pairs | S base | S skill | lift | lift 95% CI | help | harm | paired lift |\n"
                    "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |\n";
  for (const score_row &r : rows_of(report)) {
    const group_score &g = *r.scores;
    const direction_score &d = *r.direction;
    bool interval = r.with_interval && std::isfinite(d.ci_lift_s[0]);
    bool scored = d.scored && g.pairs > 0;
    out += fmt::format("| {} | {} -> {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", markdown_cell(d.model),
                       markdown_cell(d.source_dsl), markdown_cell(d.target_dsl), denominator_name(d.against),
                       markdown_cell(r.group), d.scored ? g.pairs : d.resolved + d.skipped,
                       scored ? figure(g.base.s, "{:.1f}", "-") : "-", scored ? figure(g.skill.s, "{:.1f}", "-") : "-",
                       scored ? figure(g.lift_s(), "{:+.1f}", "-") : "-",
                       interval ? fmt::format("[{:+.1f}, {:+.1f}]", d.ci_lift_s[0], d.ci_lift_s[1]) : "-",
                       scored ? figure(g.help, "{:.2f}", "-") : "-", scored ? figure(g.harm, "{:.2f}", "-") : "-",
                       scored ? figure(100 * g.paired_lift, "{:+.1f}%", "-") : "-");
  }
  return out;
}

std::string scores_csv(const score_report &report) {
  std::string out = "model,source_dsl,target_dsl,direction,speedup_vs,group,pairs,base_s,skill_s,lift_s,lift_s_ci_low,"
                    "lift_s_ci_high,help,harm,paired_lift\n";
  for (const score_row &r : rows_of(report)) {
    const group_score &g = *r.scores;
    const direction_score &d = *r.direction;
    bool scored = d.scored && g.pairs > 0;
    auto number = [&](double v) { return scored ? figure(v, "{}", "") : std::string(); };
    auto bound = [&](double v) { return r.with_interval ? figure(v, "{}", "") : std::string(); };
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(d.model), csv_field(d.source_dsl),
                       csv_field(d.target_dsl), d.direction, denominator_name(d.against), csv_field(r.group),
                       d.scored ? g.pairs : d.resolved + d.skipped, number(g.base.s),
                       number(g.skill.s), number(g.lift_s()), bound(d.ci_lift_s[0]), bound(d.ci_lift_s[1]),
                       number(g.help), number(g.harm), number(g.paired_lift));
  }
  return out;
}

} // namespace mkb::cli
