// Scores of finished trials (docs/SCORING.md): for each model and direction, the state of every
// replicate, and over the resolved ones R@t, S, lift by family and by source verdict, the with_skill
// contrast, help and harm rates, the paired lift as a geometric mean, outcomes by the source's tier,
// reverse-direction harm, coverage and bootstrap confidence intervals; for each model, usage by arm
// and the stale trials.
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
  bool include_stale = false;   // score stale records too; they are always listed
};

inline constexpr std::array<double, 5> score_thresholds = {0, 0.5, 1, 2, 4};

struct rate_set {
  std::array<double, 5> r{}; // R@t for each of score_thresholds; NaN over no attempts
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

// What a direction lacks in one replicate: the record of one role, never finished or left out as stale.
struct missing_record {
  const char *role = "";   // "source", "base" or "skill"
  int arm = 0;             // mkb_arm
  const char *reason = ""; // "unfinished" (interrupted or never run) or "stale"
};

struct unresolved_replicate {
  std::string problem;
  int replicate = 0;
  std::vector<missing_record> missing;
};

// What the counted trials of one arm spent. Skipped trials never ran and are not counted.
struct arm_usage {
  size_t trials = 0;
  uint64_t input_tokens = 0, cached_input_tokens = 0, output_tokens = 0; // input includes cached
  double cost_usd = 0;
  double seconds = 0;    // summed agent wall seconds
  uint64_t submissions = 0;
  uint64_t compile_checks = 0; // free compile checks (mkb_task_compile), beside the submissions
  double mean_seconds() const;     // NaN when no trial was counted
  double mean_submissions() const; // NaN when no trial was counted
  double mean_compile_checks() const; // NaN when no trial was counted
  void add(const trial_result &r);
};

// What a speedup is measured against. Every score is computed against both; eager is shown first.
enum class denominator {
  eager,    // eager PyTorch's time recorded for the GPU (eager_times.json): the original's, as in the paper
  baseline, // baseline.cu, timed beside the submission
};
const char *denominator_name(denominator d); // "eager", "baseline"

struct direction_score {
  std::string model, source_dsl, target_dsl;
  std::string direction; // "a_to_b" (A2B_SKILL against SOLO_B) or "b_to_a"
  denominator against = denominator::baseline;
  // Against eager, a direction is scored only when every passed attempt among its pairs has an eager
  // time (a failure scores the floor whatever the denominator); otherwise no figure is given and
  // `why_absent` names the attempts without one.
  bool scored = true;
  std::string why_absent;
  // Replicate states, exclusive: resolved (all three roles recorded, the skill arm ran), skipped
  // (all three recorded, the skill arm skipped) and unresolved. Pairs are resolved + skipped.
  size_t resolved = 0, skipped = 0;
  std::vector<unresolved_replicate> unresolved;
  group_score all;
  group_score with_skill; // the resolved replicates alone: the skill arm received a skill
  std::array<double, 2> ci_skill_s{}, ci_base_s{}, ci_lift_s{}, ci_help{}, ci_harm{}, ci_paired_lift{};
  std::map<std::string, group_score> by_family;
  group_score source_passed, source_failed;
  group_score tier_above, tier_same, tier_below;
  double reverse_harm_rate = 0; // NaN when no helped comparison has a reverse
  size_t reverse_considered = 0;
  size_t contended = 0;    // paired comparisons with a contended arm
  double skill_coverage = 0, source_coverage = 0;
  std::vector<paired_comparison> paired;
  // The arms of the three roles over this direction's replicates: source, base, skill.
  std::array<arm_usage, 3> usage_by_role;
};

struct model_summary {
  std::string model;
  std::array<arm_usage, 4> usage_by_arm; // indexed by mkb_arm
  std::vector<std::string> stale_trials; // trial ids (trial_key::id()), scored only with include_stale
};

struct score_report {
  score_settings settings;
  std::vector<model_summary> models;
  std::vector<direction_score> directions_vs_eager; // the same directions, in the same order
  std::vector<direction_score> directions;          // against the baseline
};

inline constexpr std::array<const char *, 3> score_roles = {"source", "base", "skill"};

// `results` in ledger order; for a trial recorded twice the later record counts.
score_report compute_scores(const std::vector<trial_result> &results, const score_settings &settings = {});
std::string scores_json(const score_report &report);
std::string scores_table(const score_report &report);

inline std::string score_json(const std::vector<trial_result> &results, const score_settings &settings = {}) {
  return scores_json(compute_scores(results, settings));
}
inline std::string score_table(const std::vector<trial_result> &results, const score_settings &settings = {}) {
  return scores_table(compute_scores(results, settings));
}

// Scores with stale results left out unless with_stale (they are listed either way).
inline std::string score_results(const std::vector<trial_result> &results, bool table, bool with_stale) {
  score_settings settings;
  settings.include_stale = with_stale;
  return table ? score_table(results, settings) : score_json(results, settings);
}

} // namespace mkb
