#include "report/report_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/names.hpp"
#include "mkb.h"

namespace mkb::report {

namespace {

constexpr double z95 = 1.959963984540054;

const char *outcome_name(int outcome) { return outcome > 0 ? "helped" : outcome < 0 ? "harmed" : "same"; }
const char *tier_name(int tier) { return tier > 0 ? "above" : tier < 0 ? "below" : "same"; }

// The arms of a direction's roles: A -> B's skill arm is A2B_SKILL and its base SOLO_B.
int skill_arm(const direction_score &d) { return d.direction == "a_to_b" ? MKB_ARM_A2B_SKILL : MKB_ARM_B2A_SKILL; }
int base_arm(const direction_score &d) { return d.direction == "a_to_b" ? MKB_ARM_SOLO_B : MKB_ARM_SOLO_A; }

// Every direction, against eager first (the paper's denominator), then against the baseline.
std::vector<const direction_score *> all_directions(const score_report &s) {
  std::vector<const direction_score *> out;
  for (const auto *list : {&s.directions_vs_eager, &s.directions})
    for (const direction_score &d : *list) out.push_back(&d);
  return out;
}

bool drawn(const direction_score &d) { return d.scored && d.resolved + d.skipped > 0; }

std::vector<cell> direction_key(const direction_score &d) {
  return {d.model, denominator_name(d.against), d.direction, d.source_dsl, d.target_dsl};
}

std::vector<cell> joined(std::vector<cell> front, std::vector<cell> back) {
  front.insert(front.end(), std::make_move_iterator(back.begin()), std::make_move_iterator(back.end()));
  return front;
}

const std::vector<std::string> key_columns = {"model", "speedup_vs", "direction", "source_dsl", "target_dsl"};

std::vector<std::string> with_key(std::vector<std::string> rest) {
  std::vector<std::string> all = key_columns;
  all.insert(all.end(), rest.begin(), rest.end());
  return all;
}

table summary_table(const std::vector<const direction_score *> &directions) {
  table t("summary", "Per model and direction: the paper's Table 1",
          with_key({"scored", "why_absent", "pairs", "resolved", "skipped", "unresolved", "S_skill", "S_base", "lift_S",
                    "lift_S_ci_low", "lift_S_ci_high", "help_rate", "help_ci_low", "help_ci_high", "harm_rate",
                    "harm_ci_low", "harm_ci_high", "paired_lift", "paired_lift_ci_low", "paired_lift_ci_high",
                    "skill_coverage", "source_coverage", "reverse_harm_rate", "contended_pairs"}));
  for (const direction_score *d : directions) {
    bool f = d->scored; // figures only where the direction is scored
    auto v = [f](double x) { return cell(f ? x : NAN); };
    t.add(joined(direction_key(*d),
                 {d->scored, d->why_absent, uint64_t(d->resolved + d->skipped), uint64_t(d->resolved),
                  uint64_t(d->skipped), uint64_t(d->unresolved.size()), v(d->all.skill.s), v(d->all.base.s),
                  v(d->all.lift_s()), v(d->ci_lift_s[0]), v(d->ci_lift_s[1]), v(d->all.help), v(d->ci_help[0]),
                  v(d->ci_help[1]), v(d->all.harm), v(d->ci_harm[0]), v(d->ci_harm[1]), v(d->all.paired_lift),
                  v(d->ci_paired_lift[0]), v(d->ci_paired_lift[1]), v(d->skill_coverage), v(d->source_coverage),
                  v(d->reverse_harm_rate), uint64_t(d->contended)}));
  }
  return t;
}

table intervals_table(const std::vector<const direction_score *> &directions) {
  table t("intervals", "Help rate, harm rate and paired lift, with 95% bootstrap intervals",
          with_key({"measure", "value", "ci_low", "ci_high", "pairs"}));
  for (const direction_score *d : directions) {
    if (!drawn(*d)) continue;
    uint64_t pairs = d->resolved + d->skipped;
    t.add(joined(direction_key(*d), {"help_rate", d->all.help, d->ci_help[0], d->ci_help[1], pairs}));
    t.add(joined(direction_key(*d), {"harm_rate", d->all.harm, d->ci_harm[0], d->ci_harm[1], pairs}));
    t.add(joined(direction_key(*d), {"paired_lift", d->all.paired_lift, d->ci_paired_lift[0], d->ci_paired_lift[1], pairs}));
  }
  return t;
}

table ladder_table(const std::vector<const direction_score *> &directions) {
  table t("ladder", "R@t of every arm over its direction's pairs, with 95% Wilson intervals",
          with_key({"role", "arm", "t", "rate", "ci_low", "ci_high", "pairs"}));
  for (const direction_score *d : directions) {
    if (!drawn(*d)) continue;
    size_t pairs = d->resolved + d->skipped;
    for (const auto &[role, arm, rates] : {std::tuple{"skill", skill_arm(*d), &d->all.skill},
                                           std::tuple{"base", base_arm(*d), &d->all.base}})
      for (size_t i = 0; i < score_thresholds.size(); ++i) {
        auto [low, high] = wilson_interval(rates->r[i], pairs);
        t.add(joined(direction_key(*d), {role, arm_name(arm), score_thresholds[i], rates->r[i], low, high, uint64_t(pairs)}));
      }
  }
  return t;
}

table paired_table(const std::vector<const direction_score *> &directions) {
  table t("paired", "Every paired comparison: the skill arm's performance over its base's, sorted",
          with_key({"rank", "problem", "family", "replicate", "ratio", "outcome", "source_tier", "skipped", "source_passed",
                    "contended"}));
  for (const direction_score *d : directions) {
    if (!drawn(*d)) continue;
    std::vector<paired_comparison> sorted = d->paired;
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.ratio < b.ratio; });
    for (size_t i = 0; i < sorted.size(); ++i) {
      const paired_comparison &p = sorted[i];
      t.add(joined(direction_key(*d), {uint64_t(i + 1), p.problem, p.family, p.replicate, p.ratio, outcome_name(p.outcome),
                                       tier_name(p.source_tier), p.skipped, p.source_passed, p.contended}));
    }
  }
  return t;
}

table tiers_table(const std::vector<const direction_score *> &directions) {
  table t("tiers", "Outcomes by the source's tier: above, same or below the target's solo",
          with_key({"source_tier", "outcome", "pairs", "share_of_tier"}));
  for (const direction_score *d : directions) {
    if (!drawn(*d)) continue;
    for (int tier : {1, 0, -1}) {
      std::map<int, uint64_t> by_outcome;
      uint64_t in_tier = 0;
      for (const paired_comparison &p : d->paired)
        if (p.source_tier == tier) ++by_outcome[p.outcome], ++in_tier;
      for (int outcome : {1, 0, -1})
        if (uint64_t n = by_outcome[outcome])
          t.add(joined(direction_key(*d), {tier_name(tier), outcome_name(outcome), n, double(n) / double(in_tier)}));
    }
  }
  return t;
}

table families_table(const std::vector<const direction_score *> &directions) {
  table t("families", "The figures of each family",
          with_key({"family", "pairs", "S_skill", "S_base", "lift_S", "help_rate", "harm_rate", "paired_lift"}));
  for (const direction_score *d : directions) {
    if (!drawn(*d)) continue;
    for (const auto &[family, g] : d->by_family)
      t.add(joined(direction_key(*d), {family, uint64_t(g.pairs), g.skill.s, g.base.s, g.lift_s(), g.help, g.harm,
                                       g.paired_lift}));
  }
  return t;
}

table usage_table(const score_report &s) {
  table t("usage", "What each arm's counted trials spent",
          {"model", "arm", "trials", "input_tokens", "cached_input_tokens", "output_tokens", "cost_usd",
           "mean_agent_seconds", "submissions", "mean_submissions", "compile_checks", "mean_compile_checks"});
  for (const model_summary &m : s.models)
    for (int arm = 0; arm < static_cast<int>(m.usage_by_arm.size()); ++arm) {
      const arm_usage &u = m.usage_by_arm[arm];
      t.add({m.model, arm_name(arm), uint64_t(u.trials), u.input_tokens, u.cached_input_tokens, u.output_tokens, u.cost_usd,
             u.mean_seconds(), u.submissions, u.mean_submissions(), u.compile_checks, u.mean_compile_checks()});
    }
  return t;
}

table verdicts_table(const score_report &s, const std::vector<const trial_result *> &latest) {
  table t("verdicts", "Final verdicts of the counted trials, per arm (a skipped skill arm never ran)",
          {"model", "arm", "verdict", "trials"});
  std::map<std::tuple<std::string, int, std::string>, uint64_t> counts;
  for (const trial_result *r : latest)
    if (!r->stale || s.settings.include_stale) ++counts[{r->key.model, r->key.arm, r->skipped ? "skipped" : verdict_name(r->verdict)}];
  for (const model_summary &m : s.models) // the models' order, then arm and verdict name
    for (const auto &[key, n] : counts)
      if (std::get<0>(key) == m.model) t.add({m.model, arm_name(std::get<1>(key)), std::get<2>(key), n});
  return t;
}

table flagged_table(const score_report &s, const std::vector<const trial_result *> &latest) {
  table t("flagged", "Stale and contended trials",
          {"model", "trial", "stale", "counted", "contended", "verdict", "ended_by"});
  for (const trial_result *r : latest)
    if (r->stale || r->contended)
      t.add({r->key.model, r->key.id(), r->stale, !r->stale || s.settings.include_stale, r->contended,
             verdict_name(r->verdict), r->ended_by});
  return t;
}

} // namespace

std::vector<const trial_result *> latest_records(const std::vector<trial_result> &results) {
  std::map<trial_key, size_t> index;
  std::vector<const trial_result *> out;
  for (const trial_result &r : results) {
    auto [it, fresh] = index.try_emplace(r.key, out.size());
    if (fresh)
      out.push_back(&r);
    else
      out[it->second] = &r;
  }
  return out;
}

std::vector<const table *> report_tables::all() const {
  return {&summary, &intervals, &ladder, &paired, &tiers, &families, &usage, &verdicts, &flagged};
}

std::pair<double, double> wilson_interval(double rate, size_t n) {
  if (n == 0 || !std::isfinite(rate)) return {NAN, NAN};
  double z2n = z95 * z95 / double(n);
  double centre = (rate + z2n / 2) / (1 + z2n);
  double half = z95 * std::sqrt(rate * (1 - rate) / double(n) + z2n / (4 * double(n))) / (1 + z2n);
  // Exact at the ends, where rounding would leave a hair above 0 or below 1.
  return {rate == 0 ? 0 : std::max(0.0, centre - half), rate == 1 ? 1 : std::min(1.0, centre + half)};
}

report_tables build_tables(const score_report &scores, const std::vector<trial_result> &results) {
  std::vector<const direction_score *> directions = all_directions(scores);
  std::vector<const trial_result *> latest = latest_records(results);
  return {summary_table(directions),  intervals_table(directions), ladder_table(directions),
          paired_table(directions),   tiers_table(directions),     families_table(directions),
          usage_table(scores),        verdicts_table(scores, latest), flagged_table(scores, latest)};
}

} // namespace mkb::report
