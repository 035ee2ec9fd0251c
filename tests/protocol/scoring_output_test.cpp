// Scores as JSON and as a table: the fields of replicate states, with_skill, usage and stale trials.
#include <gtest/gtest.h>

#include <cmath>

#include "mkb.h"
#include "protocol/scoring.hpp"

namespace mkb {
namespace {

trial_result trial(const std::string &problem, int arm, double speedup) {
  trial_result r;
  r.key = {"m", problem, "f", arm == MKB_ARM_SOLO_A || arm == MKB_ARM_B2A_SKILL ? "a" : "b", arm, 0};
  r.verdict = MKB_VERDICT_PASSED;
  r.speedup = speedup;
  return r;
}

// p1: all four arms, b2a skipped (solo_b left no skill); p2: a stale solo_a and nothing else.
std::vector<trial_result> results() {
  trial_result solo_a = trial("p1", MKB_ARM_SOLO_A, 2.0);
  solo_a.input_tokens = 100;
  solo_a.cached_input_tokens = 40;
  solo_a.output_tokens = 10;
  solo_a.cost_usd = 0.5;
  solo_a.seconds_used = 30;
  solo_a.submissions_used = 2;
  solo_a.compile_checks = 5;
  trial_result b2a = trial("p1", MKB_ARM_B2A_SKILL, NAN);
  b2a.verdict = MKB_VERDICT_NO_KERNEL;
  b2a.skipped = true;
  trial_result stale = trial("p2", MKB_ARM_SOLO_A, 1.0);
  stale.stale = true;
  return {solo_a, trial("p1", MKB_ARM_SOLO_B, 1.0), trial("p1", MKB_ARM_A2B_SKILL, 3.0), b2a, stale};
}

void expect_contains(const std::string &text, const std::string &part) {
  EXPECT_NE(text.find(part), std::string::npos) << "no\n  " << part << "\nin\n" << text;
}

TEST(ScoringOutput, JsonListsStaleTrialsAndUsageByArm) {
  std::string json = score_json(results());
  expect_contains(json, R"("include_stale":false)");
  expect_contains(json, R"("models":[{"model":"m","stale":{"count":1,"trials":["p2/a/solo_a/r0"]})");
  expect_contains(json, R"("usage":{"solo_a":{"trials":1,"input_tokens":100,"cached_input_tokens":40,)"
                        R"("output_tokens":10,"cost_usd":0.5,"mean_agent_seconds":30,"submissions":2,"mean_submissions":2,)"
                        R"("compile_checks":5,"mean_compile_checks":5})");
  // the skipped b2a never ran
  expect_contains(json, R"("b2a_skill":{"trials":0,"input_tokens":0,"cached_input_tokens":0,"output_tokens":0,)"
                        R"("cost_usd":0,"mean_agent_seconds":null,"submissions":0,"mean_submissions":null,)"
                        R"("compile_checks":0,"mean_compile_checks":null})");
}

TEST(ScoringOutput, JsonGivesReplicateStatesAndWithSkill) {
  std::string json = score_json(results());
  expect_contains(json, R"("direction":"a_to_b","source_dsl":"a","target_dsl":"b","speedup_vs":"baseline","scored":true,)"
                        R"("replicates":{"resolved":1,"unresolved":1,"skipped":0},)"
                        R"("unresolved":[{"problem":"p2","replicate":0,"missing":[)"
                        R"({"role":"source","arm":"solo_a","reason":"stale"},)"
                        R"({"role":"base","arm":"solo_b","reason":"unfinished"},)"
                        R"({"role":"skill","arm":"a2b_skill","reason":"unfinished"}]}],"pairs":1,)");
  // A to B: skill 3.0 -> R@2 1, base 1.0 -> R@2 0
  expect_contains(json, R"("with_skill":{"pairs":1,"skill":{"R@0":1,"R@0.5":1,"R@1":1,"R@2":1,"R@4":0,"S":80})");
  // B to A: its only pair skipped its skill arm, so with_skill has no pair and no rates
  expect_contains(json, R"("replicates":{"resolved":0,"unresolved":1,"skipped":1})");
  expect_contains(json, R"("with_skill":{"pairs":0,"skill":{"R@0":null,)");
  expect_contains(json, R"("usage":{"source":{"arm":"solo_b","trials":1,)");
  expect_contains(json, R"("base":{"arm":"solo_a","trials":1,"input_tokens":100,)");
}

TEST(ScoringOutput, TableCountsStatesAndStaleTrialsAndPrintsUsage) {
  std::string table = score_table(results());
  expect_contains(table, "model m: 1 stale trial left out; MKB_SCORE_WITH_STALE / --with-stale includes them\n");
  expect_contains(table, "  replicates: 1 resolved, 0 skill arm skipped, 1 unresolved\n"
                         "    p2 r0 lacks source (solo_a, stale), base (solo_b, unfinished), skill (a2b_skill, unfinished)\n");
  expect_contains(table, "  with skill (none skipped)    1 pairs  S base  60.0  skill  80.0  lift +20.0\n");
  expect_contains(table, "  with skill (none skipped)    0 pairs  S base     -  skill     -  lift     -\n");
  expect_contains(table, "usage of model m");
  expect_contains(table, "  solo_a           1           100            40             10      0.50    30.0            2 (2.0)"
                         "               5 (5.0)\n");
}

TEST(ScoringOutput, TableSaysWhenStaleTrialsAreIncluded) {
  score_settings settings;
  settings.include_stale = true;
  std::string table = score_table(results(), settings);
  expect_contains(table, "model m: 1 stale trial included (MKB_SCORE_WITH_STALE / --with-stale)\n");
  expect_contains(score_json(results(), settings), R"("include_stale":true)");
}

TEST(ScoringOutput, ADirectionWithNothingResolvedSaysSo) {
  std::string table = score_table({trial("p1", MKB_ARM_SOLO_A, 1.0), trial("p1", MKB_ARM_SOLO_B, 1.0)});
  expect_contains(table, "model m, A to B (a -> b), against the baseline: 0 paired comparisons");
  expect_contains(table, "  no resolved replicate yet: nothing to score\n");
  EXPECT_EQ(table.find("R@0.5"), std::string::npos) << table;
}

} // namespace
} // namespace mkb
