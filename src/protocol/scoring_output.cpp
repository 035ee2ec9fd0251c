// Scores as JSON and as a table (docs/SCORING.md names every field).
#include <fmt/format.h>

#include <cmath>

#include "core/json_writer.hpp"
#include "core/names.hpp"
#include "mkb.h"
#include "protocol/scoring.hpp"

namespace mkb {

namespace {

const char *tier_name(int tier) { return tier > 0 ? "above" : tier < 0 ? "below" : "same"; }

void write_rates(json_writer &j, const char *name, const rate_set &r) {
  j.key(name).begin_object();
  for (size_t t = 0; t < score_thresholds.size(); ++t) j.field(fmt::format("R@{}", score_thresholds[t]), r.r[t]);
  j.field("S", r.s).end_object();
}

// pairs, skill and base rates, and their difference: the contrast of one set of pairs.
void write_contrast(json_writer &j, const group_score &g) {
  j.field("pairs", g.pairs);
  write_rates(j, "skill", g.skill);
  write_rates(j, "base", g.base);
  j.key("lift").begin_object();
  for (size_t t = 0; t < score_thresholds.size(); ++t)
    j.field(fmt::format("R@{}", score_thresholds[t]), g.skill.r[t] - g.base.r[t]);
  j.field("S", g.lift_s()).end_object();
}

void write_group(json_writer &j, const group_score &g) {
  j.begin_object().field("pairs", g.pairs).field("S_skill", g.skill.s).field("S_base", g.base.s).field("lift_S", g.lift_s());
  j.field("help_rate", g.help).field("harm_rate", g.harm).field("paired_lift", g.paired_lift).end_object();
}

void write_interval(json_writer &j, const char *name, const std::array<double, 2> &c) {
  j.key(name).begin_array().value(c[0]).value(c[1]).end_array();
}

void write_usage(json_writer &j, const arm_usage &u) {
  j.field("trials", u.trials).field("input_tokens", u.input_tokens).field("cached_input_tokens", u.cached_input_tokens);
  j.field("output_tokens", u.output_tokens).field("cost_usd", u.cost_usd).field("mean_agent_seconds", u.mean_seconds());
  j.field("submissions", u.submissions).field("mean_submissions", u.mean_submissions());
  j.field("compile_checks", u.compile_checks).field("mean_compile_checks", u.mean_compile_checks());
}

void write_model(json_writer &j, const model_summary &m) {
  j.begin_object().field("model", m.model);
  j.key("stale").begin_object().field("count", m.stale_trials.size()).key("trials").begin_array();
  for (const std::string &id : m.stale_trials) j.value(id);
  j.end_array().end_object();
  j.key("usage").begin_object();
  for (int arm = 0; arm < static_cast<int>(m.usage_by_arm.size()); ++arm) {
    j.key(arm_name(arm)).begin_object();
    write_usage(j, m.usage_by_arm[arm]);
    j.end_object();
  }
  j.end_object().end_object();
}

void write_replicates(json_writer &j, const direction_score &s) {
  j.key("replicates").begin_object().field("resolved", s.resolved).field("unresolved", s.unresolved.size());
  j.field("skipped", s.skipped).end_object();
  j.key("unresolved").begin_array();
  for (const unresolved_replicate &u : s.unresolved) {
    j.begin_object().field("problem", u.problem).field("replicate", u.replicate).key("missing").begin_array();
    for (const missing_record &m : u.missing)
      j.begin_object().field("role", m.role).field("arm", arm_name(m.arm)).field("reason", m.reason).end_object();
    j.end_array().end_object();
  }
  j.end_array();
}

void write_direction(json_writer &j, const direction_score &s, const std::array<int, 3> &role_arms) {
  j.begin_object().field("model", s.model).field("direction", s.direction).field("source_dsl", s.source_dsl);
  j.field("target_dsl", s.target_dsl).field("speedup_vs", denominator_name(s.against)).field("scored", s.scored);
  write_replicates(j, s);
  if (!s.scored) {
    j.field("pairs", s.resolved + s.skipped).field("why_absent", s.why_absent).end_object();
    return;
  }
  write_contrast(j, s.all);
  j.field("help_rate", s.all.help).field("harm_rate", s.all.harm).field("paired_lift", s.all.paired_lift);
  j.key("with_skill").begin_object();
  write_contrast(j, s.with_skill);
  j.end_object();
  j.key("ci95").begin_object();
  write_interval(j, "S_skill", s.ci_skill_s);
  write_interval(j, "S_base", s.ci_base_s);
  write_interval(j, "lift_S", s.ci_lift_s);
  write_interval(j, "help_rate", s.ci_help);
  write_interval(j, "harm_rate", s.ci_harm);
  write_interval(j, "paired_lift", s.ci_paired_lift);
  j.end_object();
  j.key("by_family").begin_object();
  for (const auto &[family, g] : s.by_family) {
    j.key(family);
    write_group(j, g);
  }
  j.end_object().key("by_source_verdict").begin_object().key("passed");
  write_group(j, s.source_passed);
  j.key("failed");
  write_group(j, s.source_failed);
  j.end_object().key("by_source_tier").begin_object().key("above");
  write_group(j, s.tier_above);
  j.key("same");
  write_group(j, s.tier_same);
  j.key("below");
  write_group(j, s.tier_below);
  j.end_object();
  j.field("reverse_harm_rate", s.reverse_harm_rate).field("reverse_pairs_considered", s.reverse_considered);
  j.field("skipped", s.skipped).field("contended_pairs", s.contended).field("skill_coverage", s.skill_coverage).field("source_coverage", s.source_coverage);
  j.key("usage").begin_object();
  for (size_t role = 0; role < score_roles.size(); ++role) {
    j.key(score_roles[role]).begin_object().field("arm", arm_name(role_arms[role]));
    write_usage(j, s.usage_by_role[role]);
    j.end_object();
  }
  j.end_object();
  j.key("paired").begin_array();
  for (const paired_comparison &p : s.paired) {
    j.begin_object().field("problem", p.problem).field("family", p.family).field("replicate", p.replicate).field("ratio", p.ratio);
    j.field("outcome", p.outcome > 0 ? "helped" : p.outcome < 0 ? "harmed" : "same");
    j.field("source_tier", tier_name(p.source_tier)).field("source_passed", p.source_passed).field("skipped", p.skipped);
    j.field("contended", p.contended);
    j.end_object();
  }
  j.end_array().end_object();
}

// The arms of the roles source, base and skill in a direction.
std::array<int, 3> role_arms(const direction_score &s) {
  if (s.direction == "a_to_b") return {MKB_ARM_SOLO_A, MKB_ARM_SOLO_B, MKB_ARM_A2B_SKILL};
  return {MKB_ARM_SOLO_B, MKB_ARM_SOLO_A, MKB_ARM_B2A_SKILL};
}

} // namespace

std::string scores_json(const score_report &report) {
  const score_settings &settings = report.settings;
  json_writer j;
  j.begin_object().key("settings").begin_object().field("failure_floor", settings.failure_floor);
  j.field("tie_tolerance", settings.tie_tolerance).field("bootstrap_samples", settings.bootstrap_samples);
  j.field("include_stale", settings.include_stale).end_object();
  j.key("models").begin_array();
  for (const model_summary &m : report.models) write_model(j, m);
  j.end_array();
  // Against eager first: only it is comparable with the original benchmark. "directions" is kept, the
  // same as vs_baseline's, for readers older than eager times.
  for (const auto &[key, directions] : {std::pair{"vs_eager", &report.directions_vs_eager},
                                        std::pair{"vs_baseline", &report.directions}}) {
    j.key(key).begin_object().key("directions").begin_array();
    for (const direction_score &s : *directions) write_direction(j, s, role_arms(s));
    j.end_array().end_object();
  }
  j.key("directions").begin_array();
  for (const direction_score &s : report.directions) write_direction(j, s, role_arms(s));
  j.end_array().end_object();
  return j.take();
}

namespace {

// A number, or "-" where there is none (no pairs, no interval).
std::string figure(double v, const char *format) {
  return std::isfinite(v) ? fmt::format(fmt::runtime(format), v) : "-";
}

std::string interval(const std::array<double, 2> &c, const char *format) {
  return std::isfinite(c[0]) ? fmt::format(fmt::runtime(format), c[0], c[1]) : std::string("-");
}

std::string stale_line(const model_summary &m, bool included) {
  size_t n = m.stale_trials.size();
  if (n == 0) return "";
  const char *trials = n == 1 ? "trial" : "trials";
  if (included)
    return fmt::format("model {}: {} stale {} included (MKB_SCORE_WITH_STALE / --with-stale)\n", m.model, n, trials);
  return fmt::format("model {}: {} stale {} left out; MKB_SCORE_WITH_STALE / --with-stale includes them\n", m.model, n,
                     trials);
}

std::string replicate_lines(const direction_score &s) {
  std::string out = fmt::format("  replicates: {} resolved, {} skill arm skipped, {} unresolved\n", s.resolved, s.skipped,
                                s.unresolved.size());
  constexpr size_t shown = 5; // the JSON lists them all
  for (size_t i = 0; i < s.unresolved.size() && i < shown; ++i) {
    const unresolved_replicate &u = s.unresolved[i];
    out += fmt::format("    {} r{} lacks", u.problem, u.replicate);
    for (size_t k = 0; k < u.missing.size(); ++k) {
      const missing_record &m = u.missing[k];
      out += fmt::format("{} {} ({}, {})", k ? "," : "", m.role, arm_name(m.arm), m.reason);
    }
    out += "\n";
  }
  if (s.unresolved.size() > shown)
    out += fmt::format("    and {} more (listed in the JSON)\n", s.unresolved.size() - shown);
  return out;
}

std::string rate_lines(const group_score &a) {
  std::string out = "            R@0    R@0.5  R@1    R@2    R@4       S\n";
  auto line = [&](const char *label, const std::array<double, 5> &r, double total, bool sign) {
    out += fmt::format("  {:<8}", label);
    for (double v : r) out += sign ? fmt::format("{:>+7.3f}", v) : fmt::format("{:>7.3f}", v);
    out += sign ? fmt::format("{:>+8.1f}", total) : fmt::format("{:>8.1f}", total);
    out += "\n";
  };
  line("base", a.base.r, a.base.s, false);
  line("skill", a.skill.r, a.skill.s, false);
  std::array<double, 5> lift{};
  for (size_t t = 0; t < lift.size(); ++t) lift[t] = a.skill.r[t] - a.base.r[t];
  line("lift", lift, a.lift_s(), true);
  return out;
}

std::string group_row(const std::string &label, const group_score &g) {
  return fmt::format("  {:<26} {:>3} pairs  S base {:>5}  skill {:>5}  lift {:>5}\n", label, g.pairs,
                     figure(g.base.s, "{:.1f}"), figure(g.skill.s, "{:.1f}"), figure(g.lift_s(), "{:+.1f}"));
}

std::string direction_block(const direction_score &s) {
  const group_score &a = s.all;
  std::string out = fmt::format("model {}, {} ({} -> {}), against {}: {} paired comparisons ({} skill arms skipped)\n",
                                s.model, s.direction == "a_to_b" ? "A to B" : "B to A", s.source_dsl, s.target_dsl,
                                s.against == denominator::eager ? "eager PyTorch" : "the baseline",
                                s.scored ? a.pairs : s.resolved + s.skipped, s.skipped);
  out += replicate_lines(s);
  if (!s.scored) return out + fmt::format("  not scored against eager: {}\n\n", s.why_absent);
  if (a.pairs == 0) return out + "  no resolved replicate yet: nothing to score\n\n";
  if (s.contended > 0)
    out += fmt::format("  {} of them contended: an arm was timed while another process used its GPU (flagged in "
                       "paired[].contended)\n", s.contended);
  out += rate_lines(a);
  out += fmt::format("  95% CI {}\n", interval(s.ci_lift_s, "[{:+.1f}, {:+.1f}]"));
  out += fmt::format("  help {:.2f} {}  harm {:.2f} {}  paired lift (geometric mean) {:+.1f}% {}\n", a.help,
                     interval(s.ci_help, "[{:.2f}, {:.2f}]"), a.harm, interval(s.ci_harm, "[{:.2f}, {:.2f}]"),
                     100 * a.paired_lift,
                     interval({100 * s.ci_paired_lift[0], 100 * s.ci_paired_lift[1]}, "[{:+.1f}%, {:+.1f}%]"));
  out += "  by the source's standing against the target's solo:";
  for (const auto &[name, g] : {std::pair{"above", &s.tier_above}, std::pair{"same", &s.tier_same}, std::pair{"below", &s.tier_below}})
    out += fmt::format("  {} {} (help {}, harm {})", name, g->pairs, figure(g->help, "{:.2f}"), figure(g->harm, "{:.2f}"));
  out += "\n";
  out += fmt::format("  reverse direction harmed after a help: {} of {}; skill coverage {:.2f}; source coverage {:.2f}\n",
                     figure(s.reverse_harm_rate, "{:.2f}"), s.reverse_considered, s.skill_coverage, s.source_coverage);
  out += group_row("with skill (none skipped)", s.with_skill);
  for (const auto &[family, g] : s.by_family) out += group_row("family " + family, g);
  out += group_row("source passed", s.source_passed);
  out += group_row("source failed", s.source_failed);
  return out + "\n";
}

std::string usage_block(const model_summary &m) {
  std::string out = fmt::format("usage of model {} (skipped trials never ran; input tokens include cached)\n", m.model);
  out += "  arm         trials  input tokens  cached input  output tokens  cost USD  mean s  submissions (mean)  "
         "compile checks (mean)\n";
  for (int arm = 0; arm < static_cast<int>(m.usage_by_arm.size()); ++arm) {
    const arm_usage &u = m.usage_by_arm[arm];
    out += fmt::format("  {:<10} {:>7} {:>13} {:>13} {:>14} {:>9.2f} {:>7} {:>12} ({}) {:>15} ({})\n", arm_name(arm), u.trials,
                       u.input_tokens, u.cached_input_tokens, u.output_tokens, u.cost_usd,
                       figure(u.mean_seconds(), "{:.1f}"), u.submissions, figure(u.mean_submissions(), "{:.1f}"),
                       u.compile_checks, figure(u.mean_compile_checks(), "{:.1f}"));
  }
  return out + "\n";
}

} // namespace

std::string scores_table(const score_report &report) {
  if (report.models.empty()) return "no finished paired comparisons yet\n";
  std::string out;
  for (const model_summary &m : report.models) out += stale_line(m, report.settings.include_stale);
  if (!out.empty()) out += "\n";
  // Against eager first: only it is comparable with the original benchmark (docs/SCORING.md).
  out += "SPEEDUP AGAINST EAGER PYTORCH (the original MetaKernelBench's denominator, comparable with the paper)\n\n";
  for (const direction_score &s : report.directions_vs_eager) out += direction_block(s);
  out += "SPEEDUP AGAINST THE BASELINE (baseline.cu, timed beside each submission)\n\n";
  for (const direction_score &s : report.directions) out += direction_block(s);
  for (const model_summary &m : report.models) out += usage_block(m);
  return out;
}

} // namespace mkb
