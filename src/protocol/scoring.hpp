// Scores of finished trials (docs/SCORING.md): for each model and direction, R@t, S, lift by family
// and by source verdict, help and harm rates, the paired lift as a geometric mean, outcomes by the
// source's tier, reverse-direction harm, coverage, and bootstrap confidence intervals.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "protocol/trial.hpp"

namespace mkb {

struct score_settings {
  double failure_floor = 0.1;   // a failure, and any speedup below this, counts as this speedup
  double tie_tolerance = 0.02;  // paired ratios within 2% are neither help nor harm
  int bootstrap_samples = 2000;
  uint64_t bootstrap_seed = 0x6d6b62;
};

inline constexpr std::array<double, 5> score_thresholds = {0, 0.5, 1, 2, 4};

struct rate_set {
  std::array<double, 5> r{}; // R@t for each of score_thresholds
  double s = 0;              // 100 x mean of the rates
};

struct group_score {
  size_t pairs = 0;
  rate_set skill, base;
  double help = 0, harm = 0;
  double paired_lift = 0; // geometric mean of paired ratios, minus 1
  double lift_s() const { return skill.s - base.s; }
};

struct paired_comparison {
  std::string problem, family;
  int replicate = 0;
  double ratio = 1;       // performance of the skill arm over its base
  int outcome = 0;        // +1 helped, -1 harmed, 0 same
  int source_tier = 0;    // +1 above the target's solo, -1 below, 0 same
  bool skipped = false;
  bool source_passed = false;
  bool contended = false;  // an arm's final timing shared the GPU with another process
};

struct direction_score {
  std::string model, source_dsl, target_dsl;
  std::string direction; // "a_to_b" (A2B_SKILL against SOLO_B) or "b_to_a"
  group_score all;
  std::array<double, 2> ci_skill_s{}, ci_base_s{}, ci_lift_s{}, ci_help{}, ci_harm{}, ci_paired_lift{};
  std::map<std::string, group_score> by_family;
  group_score source_passed, source_failed;
  group_score tier_above, tier_same, tier_below;
  double reverse_harm_rate = 0; // NaN when no helped comparison has a reverse
  size_t reverse_considered = 0;
  size_t skipped = 0;
  size_t contended = 0;    // paired comparisons with a contended arm
  double skill_coverage = 0, source_coverage = 0;
  std::vector<paired_comparison> paired;
};

// `results` in ledger order; for a trial recorded twice the later record counts.
std::vector<direction_score> compute_scores(const std::vector<trial_result> &results, const score_settings &settings = {});
std::string scores_json(const std::vector<direction_score> &scores, const score_settings &settings = {});
std::string scores_table(const std::vector<direction_score> &scores);

// Leaves stale results out unless with_stale.
inline std::string score_results(const std::vector<trial_result> &results, bool table, bool with_stale) {
  std::vector<trial_result> kept;
  for (const trial_result &r : results)
    if (with_stale || !r.stale) kept.push_back(r);
  return table ? scores_table(compute_scores(kept)) : scores_json(compute_scores(kept));
}

inline std::string score_json(const std::vector<trial_result> &results) { return scores_json(compute_scores(results)); }
inline std::string score_table(const std::vector<trial_result> &results) { return scores_table(compute_scores(results)); }

} // namespace mkb
