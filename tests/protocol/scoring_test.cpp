// Scores against a fixture computed by hand (the numbers in the comments).
#include "protocol/scoring.hpp"

#include <gtest/gtest.h>

#include <cmath>

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

const direction_score &direction(const std::vector<direction_score> &scores, const std::string &source) {
  for (const direction_score &s : scores)
    if (s.source_dsl == source) return s;
  throw std::runtime_error("no direction");
}

TEST(Scoring, AToB) {
  auto scores = compute_scores(fixture());
  ASSERT_EQ(scores.size(), 2u);
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

TEST(Scoring, TheLatestRecordOfATrialCounts) {
  std::vector<trial_result> results = fixture();
  results.push_back(trial("p1", "f1", 2, false, 0)); // a rerun of p1's a2b that failed
  const direction_score &s = direction(compute_scores(results), "a");
  EXPECT_NEAR(s.all.skill.r[0], 1.0 / 3, 1e-12);
}

TEST(Scoring, TableAndJsonRender) {
  std::string table = score_table(fixture());
  EXPECT_NE(table.find("model m, A to B (a -> b): 3 paired comparisons"), std::string::npos) << table;
  EXPECT_NE(table.find("40.0"), std::string::npos) << table;
  std::string json = score_json(fixture());
  EXPECT_NE(json.find("\"pairs\":3"), std::string::npos);
  EXPECT_NE(json.find("\"source_dsl\":\"a\""), std::string::npos);
  EXPECT_EQ(score_table({}), "no finished paired comparisons yet\n");
}

} // namespace
} // namespace mkb

namespace mkb {
namespace {

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

} // namespace
} // namespace mkb
