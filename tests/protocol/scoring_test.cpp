// Scores against a fixture computed by hand (the numbers in the comments).
#include "protocol/scoring.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "mkb.h"

namespace mkb {
namespace {

trial_result trial(const std::string &problem, const std::string &family, int arm, bool passed, double speedup,
                   bool skipped = false) {
  trial_result r;
  r.key = {"m", problem, family, arm == MKB_ARM_SOLO_A || arm == MKB_ARM_B2A_SKILL ? "a" : "b", arm, 0};
  r.verdict = passed ? MKB_VERDICT_PASSED : MKB_VERDICT_WRONG_ANSWER;
  r.speedup = passed ? speedup : NAN;
  r.skipped = skipped;
  return r;
}

// p1 (f1): solo_a 2.0, solo_b 1.0, a2b 3.0, b2a 1.0
// p2 (f2): solo_a fails, solo_b 0.5, a2b 0.5, b2a skipped (solo_b left no skill)
// p3 (f1): solo_a 4.0, solo_b fails, a2b fails, b2a 8.0
std::vector<trial_result> fixture() {
  return {trial("p1", "f1", 0, true, 2.0), trial("p1", "f1", 1, true, 1.0), trial("p1", "f1", 2, true, 3.0),
          trial("p1", "f1", 3, true, 1.0), trial("p2", "f2", 0, false, 0),  trial("p2", "f2", 1, true, 0.5),
          trial("p2", "f2", 2, true, 0.5), trial("p2", "f2", 3, false, 0, true), trial("p3", "f1", 0, true, 4.0),
          trial("p3", "f1", 1, false, 0), trial("p3", "f1", 2, false, 0), trial("p3", "f1", 3, true, 8.0)};
}

const direction_score &direction(const score_report &scores, const std::string &source) {
  for (const direction_score &s : scores.directions)
    if (s.source_dsl == source) return s;
  throw std::runtime_error("no direction");
}

TEST(Scoring, AToB) {
  auto scores = compute_scores(fixture());
  ASSERT_EQ(scores.directions.size(), 2u);
  const direction_score &s = direction(scores, "a");
  EXPECT_EQ(s.target_dsl, "b");
  EXPECT_EQ(s.all.pairs, 3u);
  // skill: p1 3.0, p2 0.5, p3 fail -> R@0 2/3, R@0.5 2/3, R@1 1/3, R@2 1/3, R@4 0; S = 40
  EXPECT_NEAR(s.all.skill.r[0], 2.0 / 3, 1e-12);
  EXPECT_NEAR(s.all.skill.r[1], 2.0 / 3, 1e-12);
  EXPECT_NEAR(s.all.skill.r[2], 1.0 / 3, 1e-12);
  EXPECT_NEAR(s.all.skill.r[3], 1.0 / 3, 1e-12);
  EXPECT_NEAR(s.all.skill.r[4], 0, 1e-12);
  EXPECT_NEAR(s.all.skill.s, 40, 1e-9);
  // base: p1 1.0, p2 0.5, p3 fail -> 2/3, 2/3, 1/3, 0, 0; S = 33.33
  EXPECT_NEAR(s.all.base.s, 100.0 / 3, 1e-9);
  EXPECT_NEAR(s.all.lift_s(), 40 - 100.0 / 3, 1e-9);
  // ratios with failures at 0.1: p1 3/1 helped, p2 1 same, p3 0.1/0.1 same
  EXPECT_NEAR(s.all.help, 1.0 / 3, 1e-12);
  EXPECT_NEAR(s.all.harm, 0, 1e-12);
  EXPECT_NEAR(s.all.paired_lift, std::cbrt(3.0) - 1, 1e-12);
  // tiers, source over base: p1 2/1 above, p2 0.1/0.5 below, p3 4/0.1 above
  EXPECT_EQ(s.tier_above.pairs, 2u);
  EXPECT_NEAR(s.tier_above.help, 0.5, 1e-12);
  EXPECT_EQ(s.tier_below.pairs, 1u);
  EXPECT_EQ(s.tier_same.pairs, 0u);
  // by source verdict and family
  EXPECT_EQ(s.source_passed.pairs, 2u);
  EXPECT_EQ(s.source_failed.pairs, 1u);
  EXPECT_EQ(s.by_family.at("f1").pairs, 2u);
  EXPECT_EQ(s.by_family.at("f2").pairs, 1u);
  // p2 alone: skill and base both 0.5 -> R@0 1, R@0.5 1, others 0 -> S 40 each
  EXPECT_NEAR(s.by_family.at("f2").skill.s, 40, 1e-9);
  EXPECT_NEAR(s.by_family.at("f2").lift_s(), 0, 1e-9);
  // helped at p1; the reverse at p1 (b2a 1.0 against solo_a 2.0) is harmed
  EXPECT_EQ(s.reverse_considered, 1u);
  EXPECT_NEAR(s.reverse_harm_rate, 1.0, 1e-12);
  EXPECT_EQ(s.skipped, 0u);
  EXPECT_NEAR(s.skill_coverage, 1.0, 1e-12);
  EXPECT_NEAR(s.source_coverage, 2.0 / 3, 1e-12);
  ASSERT_EQ(s.paired.size(), 3u);
  EXPECT_NEAR(s.paired[0].ratio, 3.0, 1e-12);
  EXPECT_EQ(s.paired[0].outcome, 1);
}

TEST(Scoring, BToAWithASkippedArmScoredAsItsBase) {
  const direction_score &s = direction(compute_scores(fixture()), "b");
  // skill: p1 1.0, p2 = base (fail), p3 8.0 -> 2/3, 2/3, 2/3, 1/3, 1/3; S = 53.33
  EXPECT_NEAR(s.all.skill.s, 100.0 * 8 / 15, 1e-9);
  // base: p1 2.0, p2 fail, p3 4.0 -> 2/3, 2/3, 2/3, 2/3, 1/3; S = 60
  EXPECT_NEAR(s.all.base.s, 60, 1e-9);
  // ratios: p1 0.5 harmed, p2 1 same, p3 2 helped; geometric mean 1
  EXPECT_NEAR(s.all.help, 1.0 / 3, 1e-12);
  EXPECT_NEAR(s.all.harm, 1.0 / 3, 1e-12);
  EXPECT_NEAR(s.all.paired_lift, 0, 1e-12);
  EXPECT_EQ(s.skipped, 1u);
  EXPECT_NEAR(s.skill_coverage, 2.0 / 3, 1e-12);
  // helped at p3, whose reverse (a2b fail against solo_b fail) is the same
  EXPECT_EQ(s.reverse_considered, 1u);
  EXPECT_NEAR(s.reverse_harm_rate, 0, 1e-12);
  // tiers: p1 1/2 below, p2 0.5/0.1 above, p3 0.1/4 below
  EXPECT_EQ(s.tier_below.pairs, 2u);
  EXPECT_EQ(s.tier_above.pairs, 1u);
}

TEST(Scoring, ConfidenceIntervalsBracketTheEstimateAndAreDeterministic) {
  auto a = compute_scores(fixture());
  auto b = compute_scores(fixture());
  const direction_score &s = direction(a, "a");
  EXPECT_LE(s.ci_lift_s[0], s.all.lift_s());
  EXPECT_GE(s.ci_lift_s[1], s.all.lift_s());
  EXPECT_LE(s.ci_help[0], s.all.help);
  EXPECT_GE(s.ci_help[1], s.all.help);
  EXPECT_EQ(scores_json(a), scores_json(b));
}

TEST(Scoring, OneModelWithTwoDslPairsIsRefusedNamingBoth) {
  std::vector<trial_result> results = fixture();
  trial_result other = trial("p1", "f1", MKB_ARM_SOLO_A, true, 2.0);
  other.key.dsl = "c"; // the same model, problem and replicate from a ledger of the pair (c, b)
  results.push_back(other);
  try {
    compute_scores(results);
    FAIL() << "scores were computed across two DSL pairs";
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_LEDGER);
    EXPECT_NE(std::string(e.what()).find("'a' and 'c'"), std::string::npos) << e.what();
  }
}

TEST(Scoring, TheLatestRecordOfATrialCounts) {
  std::vector<trial_result> results = fixture();
  results.push_back(trial("p1", "f1", 2, false, 0)); // a rerun of p1's a2b that failed
  const direction_score &s = direction(compute_scores(results), "a");
  EXPECT_NEAR(s.all.skill.r[0], 1.0 / 3, 1e-12);
}

TEST(Scoring, TableAndJsonRender) {
  std::string table = score_table(fixture());
  EXPECT_NE(table.find("model m, A to B (a -> b), against the baseline: 3 paired comparisons"), std::string::npos) << table;
  EXPECT_NE(table.find("40.0"), std::string::npos) << table;
  std::string json = score_json(fixture());
  EXPECT_NE(json.find("\"pairs\":3"), std::string::npos);
  EXPECT_NE(json.find("\"source_dsl\":\"a\""), std::string::npos);
  EXPECT_EQ(score_table({}), "no finished paired comparisons yet\n");
}

TEST(Scoring, ContendedArmsAreFlaggedInTheirPairsAndCounted) {
  std::vector<trial_result> results = fixture();
  results[1].contended = true; // p1 solo_b: the base of a2b and the source of b2a
  auto scores = compute_scores(results);
  const direction_score &a_to_b = direction(scores, "a"), &b_to_a = direction(scores, "b");
  EXPECT_EQ(a_to_b.contended, 1u);
  EXPECT_EQ(b_to_a.contended, 1u);
  for (const paired_comparison &p : a_to_b.paired) EXPECT_EQ(p.contended, p.problem == "p1") << p.problem;
  std::string json = scores_json(scores);
  EXPECT_NE(json.find("\"contended_pairs\":1"), std::string::npos) << json;
  EXPECT_NE(scores_table(scores).find("1 of them contended"), std::string::npos);
}

trial_result replicate(trial_result r, int n) {
  r.key.replicate = n;
  return r;
}

void expect_missing(const missing_record &m, const std::string &role, int arm, const std::string &reason) {
  EXPECT_EQ(m.role, role);
  EXPECT_EQ(m.arm, arm);
  EXPECT_EQ(m.reason, reason);
}

// The fixture, plus p1 replicate 1 without its solo_a, and p4 with its two solos and no skill arm.
std::vector<trial_result> fixture_with_gaps() {
  std::vector<trial_result> results = fixture();
  results.push_back(replicate(trial("p1", "f1", MKB_ARM_SOLO_B, true, 1.0), 1));
  results.push_back(replicate(trial("p1", "f1", MKB_ARM_A2B_SKILL, true, 3.0), 1));
  results.push_back(trial("p4", "f2", MKB_ARM_SOLO_A, true, 1.0));
  results.push_back(trial("p4", "f2", MKB_ARM_SOLO_B, true, 1.0));
  return results;
}

TEST(Scoring, ReplicateStatesNameWhatAnUnresolvedReplicateLacks) {
  score_report scores = compute_scores(fixture_with_gaps());
  const direction_score &a_to_b = direction(scores, "a"), &b_to_a = direction(scores, "b");
  EXPECT_EQ(a_to_b.resolved, 3u);
  EXPECT_EQ(a_to_b.skipped, 0u);
  ASSERT_EQ(a_to_b.unresolved.size(), 2u);
  EXPECT_EQ(a_to_b.unresolved[0].problem, "p1");
  EXPECT_EQ(a_to_b.unresolved[0].replicate, 1);
  ASSERT_EQ(a_to_b.unresolved[0].missing.size(), 1u);
  expect_missing(a_to_b.unresolved[0].missing[0], "source", MKB_ARM_SOLO_A, "unfinished");
  EXPECT_EQ(a_to_b.unresolved[1].problem, "p4");
  ASSERT_EQ(a_to_b.unresolved[1].missing.size(), 1u);
  expect_missing(a_to_b.unresolved[1].missing[0], "skill", MKB_ARM_A2B_SKILL, "unfinished");
  // B to A: p2's skill arm was skipped; p1 r1 has only its source (solo_b) in this direction
  EXPECT_EQ(b_to_a.resolved, 2u);
  EXPECT_EQ(b_to_a.skipped, 1u);
  ASSERT_EQ(b_to_a.unresolved.size(), 2u);
  ASSERT_EQ(b_to_a.unresolved[0].missing.size(), 2u);
  expect_missing(b_to_a.unresolved[0].missing[0], "base", MKB_ARM_SOLO_A, "unfinished");
  expect_missing(b_to_a.unresolved[0].missing[1], "skill", MKB_ARM_B2A_SKILL, "unfinished");
}

TEST(Scoring, AnUnresolvedReplicateIsNotPaired) {
  // Before, p1 r1 (skill 3.0 against base 1.0, no source) was paired; now the figures are the fixture's.
  const direction_score &s = direction(compute_scores(fixture_with_gaps()), "a");
  EXPECT_EQ(s.all.pairs, 3u);
  EXPECT_EQ(s.paired.size(), 3u);
  EXPECT_NEAR(s.all.skill.s, 40, 1e-9);
  EXPECT_NEAR(s.all.base.s, 100.0 / 3, 1e-9);
  EXPECT_NEAR(s.source_coverage, 2.0 / 3, 1e-12);
  for (const paired_comparison &p : s.paired) EXPECT_EQ(p.replicate, 0) << p.problem;
}

TEST(Scoring, ADirectionWithoutAResolvedReplicateIsReportedWithoutRates) {
  score_report scores = compute_scores({trial("p1", "f1", MKB_ARM_SOLO_A, true, 2.0)});
  ASSERT_EQ(scores.directions.size(), 2u);
  const direction_score &s = direction(scores, "a");
  EXPECT_EQ(s.all.pairs, 0u);
  ASSERT_EQ(s.unresolved.size(), 1u);
  EXPECT_EQ(s.unresolved[0].missing.size(), 2u); // base and skill
  EXPECT_TRUE(std::isnan(s.all.skill.s));
  EXPECT_TRUE(std::isnan(s.all.base.r[0]));
  EXPECT_TRUE(std::isnan(s.skill_coverage));
  EXPECT_TRUE(std::isnan(s.ci_lift_s[0]));
}

TEST(Scoring, WithSkillLeavesOutSkippedSkillArms) {
  score_report scores = compute_scores(fixture());
  const direction_score &b_to_a = direction(scores, "b");
  // p1 and p3 (p2 skipped). skill: 1.0, 8.0 -> 1, 1, 1, 1/2, 1/2; S 80. base: 2.0, 4.0 -> 1, 1, 1, 1, 1/2; S 90.
  EXPECT_EQ(b_to_a.with_skill.pairs, 2u);
  EXPECT_NEAR(b_to_a.with_skill.skill.r[3], 0.5, 1e-12);
  EXPECT_NEAR(b_to_a.with_skill.skill.s, 80, 1e-9);
  EXPECT_NEAR(b_to_a.with_skill.base.r[3], 1.0, 1e-12);
  EXPECT_NEAR(b_to_a.with_skill.base.s, 90, 1e-9);
  EXPECT_NEAR(b_to_a.with_skill.lift_s(), -10, 1e-9);
  EXPECT_EQ(b_to_a.all.pairs, 3u); // the contrast over every pair keeps the skipped one, scored as its base
  // A to B skipped nothing: the same contrast as over every pair
  const direction_score &a_to_b = direction(scores, "a");
  EXPECT_EQ(a_to_b.with_skill.pairs, 3u);
  EXPECT_NEAR(a_to_b.with_skill.skill.s, a_to_b.all.skill.s, 1e-12);
  EXPECT_NEAR(a_to_b.with_skill.base.s, a_to_b.all.base.s, 1e-12);
}

// The fixture with p3's solo_a recorded under old fingerprints, and so its a2b, which got its skill.
std::vector<trial_result> fixture_with_stale() {
  std::vector<trial_result> results = fixture();
  results[8].stale = true;  // p3 solo_a
  results[10].stale = true; // p3 a2b_skill
  return results;
}

TEST(Scoring, StaleRecordsAreLeftOutListedAndMakeTheirReplicatesUnresolved) {
  score_report scores = compute_scores(fixture_with_stale());
  ASSERT_EQ(scores.models.size(), 1u);
  EXPECT_EQ(scores.models[0].stale_trials, (std::vector<std::string>{"p3/a/solo_a/r0", "p3/b/a2b_skill/r0"}));
  const direction_score &a_to_b = direction(scores, "a"), &b_to_a = direction(scores, "b");
  ASSERT_EQ(a_to_b.unresolved.size(), 1u);
  EXPECT_EQ(a_to_b.unresolved[0].problem, "p3");
  ASSERT_EQ(a_to_b.unresolved[0].missing.size(), 2u);
  expect_missing(a_to_b.unresolved[0].missing[0], "source", MKB_ARM_SOLO_A, "stale");
  expect_missing(a_to_b.unresolved[0].missing[1], "skill", MKB_ARM_A2B_SKILL, "stale");
  // A to B over p1 and p2. skill 3.0, 0.5 -> 1, 1, 1/2, 1/2, 0; S 60. base 1.0, 0.5 -> 1, 1, 1/2, 0, 0; S 50.
  EXPECT_EQ(a_to_b.all.pairs, 2u);
  EXPECT_NEAR(a_to_b.all.skill.s, 60, 1e-9);
  EXPECT_NEAR(a_to_b.all.base.s, 50, 1e-9);
  // B to A loses p3, whose base (solo_a) is stale. p1 and p2 (skipped, as its base).
  // skill 1.0, fail -> 1/2, 1/2, 1/2, 0, 0; S 30. base 2.0, fail -> 1/2, 1/2, 1/2, 1/2, 0; S 40.
  ASSERT_EQ(b_to_a.unresolved.size(), 1u);
  ASSERT_EQ(b_to_a.unresolved[0].missing.size(), 1u);
  expect_missing(b_to_a.unresolved[0].missing[0], "base", MKB_ARM_SOLO_A, "stale");
  EXPECT_EQ(b_to_a.all.pairs, 2u);
  EXPECT_NEAR(b_to_a.all.skill.s, 30, 1e-9);
  EXPECT_NEAR(b_to_a.all.base.s, 40, 1e-9);
  // and usage leaves them out with the rest
  EXPECT_EQ(scores.models[0].usage_by_arm[MKB_ARM_SOLO_A].trials, 2u);
  EXPECT_EQ(scores.models[0].usage_by_arm[MKB_ARM_A2B_SKILL].trials, 2u);
}

TEST(Scoring, StaleRecordsAreScoredWhenAsked) {
  score_settings settings;
  settings.include_stale = true;
  score_report scores = compute_scores(fixture_with_stale(), settings);
  EXPECT_EQ(scores.models[0].stale_trials.size(), 2u); // still listed
  const direction_score &a_to_b = direction(scores, "a");
  EXPECT_TRUE(a_to_b.unresolved.empty());
  EXPECT_EQ(a_to_b.all.pairs, 3u);
  EXPECT_NEAR(a_to_b.all.skill.s, 40, 1e-9); // the fixture's
  EXPECT_EQ(scores.models[0].usage_by_arm[MKB_ARM_SOLO_A].trials, 3u);
}

TEST(Scoring, AFreshRerunReplacesAStaleRecord) {
  std::vector<trial_result> results = fixture_with_stale();
  results.push_back(trial("p3", "f1", MKB_ARM_SOLO_A, true, 4.0));
  results.push_back(trial("p3", "f1", MKB_ARM_A2B_SKILL, false, 0));
  score_report scores = compute_scores(results);
  EXPECT_TRUE(scores.models[0].stale_trials.empty());
  EXPECT_EQ(direction(scores, "a").all.pairs, 3u);
}

TEST(Scoring, UsageSumsAndMeansByArmAndRole) {
  std::vector<trial_result> results = fixture();
  auto spend = [&](size_t index, uint64_t input, uint64_t cached, uint64_t output, double cost, double seconds,
                   int submissions) {
    trial_result &r = results[index];
    r.input_tokens = input;
    r.cached_input_tokens = cached;
    r.output_tokens = output;
    r.cost_usd = cost;
    r.seconds_used = seconds;
    r.submissions_used = submissions;
    r.compile_checks = 3 * submissions;
  };
  spend(0, 1000, 100, 10, 0.5, 60, 1); // p1 solo_a
  spend(4, 2000, 200, 20, 1.0, 120, 2); // p2 solo_a
  spend(8, 3000, 300, 30, 1.5, 240, 6); // p3 solo_a
  spend(3, 500, 50, 5, 0.25, 30, 2);    // p1 b2a
  spend(7, 999, 99, 9, 9.0, 999, 9);    // p2 b2a, skipped: never ran, not counted
  spend(11, 700, 70, 7, 0.75, 50, 4);   // p3 b2a
  score_report scores = compute_scores(results);
  const arm_usage &solo_a = scores.models[0].usage_by_arm[MKB_ARM_SOLO_A];
  EXPECT_EQ(solo_a.trials, 3u);
  EXPECT_EQ(solo_a.input_tokens, 6000u);
  EXPECT_EQ(solo_a.cached_input_tokens, 600u);
  EXPECT_EQ(solo_a.output_tokens, 60u);
  EXPECT_NEAR(solo_a.cost_usd, 3.0, 1e-12);
  EXPECT_NEAR(solo_a.mean_seconds(), 140, 1e-12);
  EXPECT_EQ(solo_a.submissions, 9u);
  EXPECT_NEAR(solo_a.mean_submissions(), 3, 1e-12);
  EXPECT_EQ(solo_a.compile_checks, 27u);
  EXPECT_NEAR(solo_a.mean_compile_checks(), 9, 1e-12);
  const arm_usage &b2a = scores.models[0].usage_by_arm[MKB_ARM_B2A_SKILL];
  EXPECT_EQ(b2a.trials, 2u);
  EXPECT_EQ(b2a.input_tokens, 1200u);
  EXPECT_EQ(b2a.cached_input_tokens, 120u);
  EXPECT_NEAR(b2a.cost_usd, 1.0, 1e-12);
  EXPECT_NEAR(b2a.mean_seconds(), 40, 1e-12);
  EXPECT_NEAR(b2a.mean_submissions(), 3, 1e-12);
  EXPECT_EQ(b2a.compile_checks, 18u) << "the skipped trial's are not counted";
  EXPECT_EQ(scores.models[0].usage_by_arm[MKB_ARM_SOLO_B].trials, 3u);
  EXPECT_EQ(scores.models[0].usage_by_arm[MKB_ARM_SOLO_B].input_tokens, 0u);
  // roles: in B to A the source is solo_b, the base solo_a and the skill b2a
  const direction_score &b_to_a = direction(scores, "b");
  EXPECT_EQ(b_to_a.usage_by_role[1].input_tokens, 6000u);
  EXPECT_EQ(b_to_a.usage_by_role[2].trials, 2u);
  EXPECT_EQ(b_to_a.usage_by_role[2].input_tokens, 1200u);
  EXPECT_EQ(direction(scores, "a").usage_by_role[0].submissions, 9u);
  EXPECT_TRUE(std::isnan(arm_usage{}.mean_seconds()));
}

} // namespace
} // namespace mkb

namespace mkb {
namespace {

// The fixture with eager times: each passed trial takes 10 us and eager PyTorch 20 us on its GPU, so
// its speedup against eager is 2 whatever its speedup against the baseline.
std::vector<trial_result> with_eager_times(std::vector<trial_result> results) {
  for (trial_result &r : results)
    if (r.passed()) {
      r.time_us = 10;
      r.eager_us = 20;
    }
  return results;
}

const direction_score &eager_direction(const score_report &scores, const std::string &source) {
  for (const direction_score &s : scores.directions_vs_eager)
    if (s.source_dsl == source) return s;
  throw std::runtime_error("no direction");
}

TEST(Scoring, EveryScoreIsComputedAgainstEagerAndAgainstTheBaseline) {
  score_report scores = compute_scores(with_eager_times(fixture()));
  ASSERT_EQ(scores.directions_vs_eager.size(), 2u);
  const direction_score &eager = eager_direction(scores, "a");
  EXPECT_EQ(eager.against, denominator::eager);
  EXPECT_TRUE(eager.scored);
  EXPECT_EQ(eager.all.pairs, 3u);
  // skill against eager: p1 2, p2 2, p3 fails -> R@0..R@2 2/3, R@4 0; S = 100 * (4 * 2/3) / 5
  EXPECT_NEAR(eager.all.skill.r[2], 2.0 / 3, 1e-12);
  EXPECT_NEAR(eager.all.skill.r[3], 2.0 / 3, 1e-12);
  EXPECT_NEAR(eager.all.skill.r[4], 0, 1e-12);
  EXPECT_NEAR(eager.all.skill.s, 100 * (4 * 2.0 / 3) / 5, 1e-9);
  // The baseline's scores are those without eager times.
  const direction_score &baseline = direction(scores, "a");
  EXPECT_EQ(baseline.against, denominator::baseline);
  EXPECT_NEAR(baseline.all.skill.s, 40, 1e-9);
  EXPECT_NEAR(baseline.all.skill.s, direction(compute_scores(fixture()), "a").all.skill.s, 1e-12);
}

// One passed attempt without an eager time leaves its direction unscored against eager, and says which;
// a failed one needs none (it scores the floor whatever the denominator).
TEST(Scoring, AgainstEagerADirectionNeedsAnEagerTimeForEveryPass) {
  std::vector<trial_result> results = with_eager_times(fixture());
  for (trial_result &r : results)
    if (r.key.problem == "p1" && r.key.arm == MKB_ARM_SOLO_B) r.eager_us = NAN; // solo_b: base of a_to_b, source of b_to_a
  score_report scores = compute_scores(results);
  for (const char *source : {"a", "b"}) {
    const direction_score &eager = eager_direction(scores, source);
    EXPECT_FALSE(eager.scored) << source;
    EXPECT_NE(eager.why_absent.find("1 passed attempt has no eager time (p1/b/solo_b/r0)"), std::string::npos)
        << eager.why_absent;
    EXPECT_TRUE(direction(scores, source).scored);
  }
  std::string table = scores_table(scores), json = scores_json(scores);
  EXPECT_NE(table.find("  not scored against eager: 1 passed attempt has no eager time"), std::string::npos) << table;
  EXPECT_NE(json.find(R"("speedup_vs":"eager","scored":false,)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("why_absent":"1 passed attempt has no eager time (p1/b/solo_b/r0))"), std::string::npos) << json;

  // Failures carry no time: the fixture's have none and it is scored.
  for (const direction_score &eager : compute_scores(with_eager_times(fixture())).directions_vs_eager)
    EXPECT_TRUE(eager.scored) << eager.why_absent;
}

// Eager first wherever both are shown: the table's sections and the JSON's objects.
TEST(Scoring, EagerIsShownFirst) {
  score_report scores = compute_scores(with_eager_times(fixture()));
  std::string table = scores_table(scores);
  size_t eager = table.find("SPEEDUP AGAINST EAGER PYTORCH"), baseline = table.find("SPEEDUP AGAINST THE BASELINE");
  ASSERT_NE(eager, std::string::npos) << table;
  ASSERT_NE(baseline, std::string::npos) << table;
  EXPECT_LT(eager, baseline);
  EXPECT_LT(eager, table.find("model m, A to B (a -> b), against eager PyTorch: 3 paired comparisons")) << table;
  EXPECT_LT(table.find("model m, A to B (a -> b), against eager PyTorch"), baseline) << table;
  std::string json = scores_json(scores);
  size_t vs_eager = json.find(R"("vs_eager":{"directions":[{)"), vs_baseline = json.find(R"("vs_baseline":{"directions":[{)");
  ASSERT_NE(vs_eager, std::string::npos) << json;
  ASSERT_NE(vs_baseline, std::string::npos) << json;
  EXPECT_LT(vs_eager, vs_baseline);
  // "directions" stays, the baseline's, for readers older than eager times.
  EXPECT_NE(json.find(R"(,"directions":[{"model":"m","direction":"a_to_b","source_dsl":"a","target_dsl":"b","speedup_vs":"baseline")"),
            std::string::npos)
      << json;
}

} // namespace
} // namespace mkb
