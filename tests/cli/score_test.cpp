// `mkb score --format`: the scores of a small ledger as Markdown and CSV, one row per direction and
// group, with the figures compute_scores() gives.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "mkb.h"
#include "protocol/ledger.hpp"
#include "protocol/scoring.hpp"
#include "support/json_check.hpp"
#include "support/run_mkb.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

using testing::run_mkb;

// Four problems of two families, every arm once: each direction has four pairs.
std::vector<trial_result> four_problems() {
  std::vector<trial_result> results;
  for (int p = 0; p < 4; ++p)
    for (int arm = MKB_ARM_SOLO_A; arm <= MKB_ARM_B2A_SKILL; ++arm) {
      trial_result r;
      bool a_side = arm == MKB_ARM_SOLO_A || arm == MKB_ARM_B2A_SKILL;
      r.key = {"m,1", "p" + std::to_string(p), p < 2 ? "norm" : "moe", a_side ? "cuda" : "triton", arm, 0};
      r.verdict = p == 3 && arm == MKB_ARM_SOLO_B ? MKB_VERDICT_WRONG_ANSWER : MKB_VERDICT_PASSED;
      r.speedup = 0.8 + 0.3 * p + (arm == MKB_ARM_A2B_SKILL ? 0.5 : 0);
      r.skill = "notes";
      r.ended_by = "agent";
      results.push_back(r);
    }
  return results;
}

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct scored_ledger {
  testing::temp_dir dir;
  std::string path;
  score_report report;
  scored_ledger() : path((dir.path() / "run.ledger").string()) {
    auto l = ledger::open(path);
    for (const trial_result &r : four_problems()) l->trial_finished(r);
    report = compute_scores(ledger::read(path).finished);
  }
};

TEST(ScoreCli, CsvHasARowPerDirectionAndGroupWithTheFullFigures) {
  scored_ledger s;
  auto r = run_mkb(s.dir, {"score", "--format", "csv", s.path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(s.report.directions.size(), 2u);
  // Against eager first: these trials have no eager time, so one row without figures per direction. Then
  // against the baseline: all, with skill, two families, source passed, source failed.
  ASSERT_EQ(lines.size(), 1 + 2 + 2 * 6u) << r.out;
  EXPECT_EQ(lines[0], "model,source_dsl,target_dsl,direction,speedup_vs,group,pairs,base_s,skill_s,lift_s,lift_s_ci_low,"
                      "lift_s_ci_high,help,harm,paired_lift");
  const direction_score &d = s.report.directions[0];
  EXPECT_EQ(lines[1], fmt::format("\"m,1\",{},{},{},eager,all,4,,,,,,,,", d.source_dsl, d.target_dsl, d.direction));
  EXPECT_EQ(lines[3], fmt::format("\"m,1\",{},{},{},baseline,all,4,{},{},{},{},{},{},{},{}", d.source_dsl, d.target_dsl,
                                  d.direction, d.all.base.s, d.all.skill.s, d.all.lift_s(), d.ci_lift_s[0], d.ci_lift_s[1],
                                  d.all.help, d.all.harm, d.all.paired_lift))
      << "a model name with a comma is quoted";
  EXPECT_EQ(lines[5].find(fmt::format("\"m,1\",{},{},{},baseline,family moe,2,", d.source_dsl, d.target_dsl, d.direction)), 0u)
      << lines[5];
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), ','), 15 * 14 + 14) << "15 lines of 15 fields, 14 quoted \"m,1\"";
}

TEST(ScoreCli, MarkdownIsATableWithTheRoundedFigures) {
  scored_ledger s;
  auto r = run_mkb(s.dir, {"score", "--format", "markdown", s.path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 2 + 2 + 2 * 6u) << r.out;
  EXPECT_EQ(lines[0], "| model | direction | speedup vs | group | pairs | S base | S skill | lift | lift 95% CI | help | harm | "
                      "paired lift |");
  EXPECT_EQ(lines[1].find("| --- | --- | --- | --- | ---: |"), 0u) << lines[1];
  const direction_score &d = s.report.directions[0];
  EXPECT_EQ(lines[2], fmt::format("| m,1 | {} -> {} | eager | all | 4 | - | - | - | - | - | - | - |", d.source_dsl, d.target_dsl));
  EXPECT_EQ(lines[4], fmt::format("| m,1 | {} -> {} | baseline | all | 4 | {:.1f} | {:.1f} | {:+.1f} | [{:+.1f}, {:+.1f}] | "
                                  "{:.2f} | {:.2f} | {:+.1f}% |",
                                  d.source_dsl, d.target_dsl, d.all.base.s, d.all.skill.s, d.all.lift_s(), d.ci_lift_s[0],
                                  d.ci_lift_s[1], d.all.help, d.all.harm, 100 * d.all.paired_lift));
  for (const std::string &line : lines) EXPECT_EQ(std::count(line.begin(), line.end(), '|'), 13) << line;
}

TEST(ScoreCli, JsonAndTableAsBefore) {
  scored_ledger s;
  auto json = run_mkb(s.dir, {"score", "--json", s.path});
  EXPECT_EQ(json.out, scores_json(s.report) + "\n");
  EXPECT_TRUE(testing::is_json(json.out));
  EXPECT_EQ(run_mkb(s.dir, {"score", "--format", "json", s.path}).out, json.out);
  EXPECT_EQ(run_mkb(s.dir, {"score", s.path}).out, scores_table(s.report));
}

} // namespace
} // namespace mkb
