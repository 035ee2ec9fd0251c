// The report's tables from scores: a row per direction in Table 1 with the same figures as the scores,
// the ladder's Wilson intervals, paired ratios sorted, tiers and verdict counts adding up.
#include <gtest/gtest.h>

#include <cmath>

#include "report/report_data.hpp"
#include "sample_results.hpp"

namespace mkb::report {
namespace {

struct built {
  std::vector<trial_result> results = testing::sample_results();
  score_report scores = compute_scores(results);
  report_tables tables = build_tables(scores, results);
};

TEST(ReportData, WilsonIntervalsAreTheTextbookOnes) {
  auto [low, high] = wilson_interval(0.5, 10); // (0.2366, 0.7634)
  EXPECT_NEAR(low, 0.236593, 1e-6);
  EXPECT_NEAR(high, 0.763407, 1e-6);
  EXPECT_EQ(wilson_interval(0, 4).first, 0);
  EXPECT_EQ(wilson_interval(1, 4).second, 1);
  EXPECT_TRUE(std::isnan(wilson_interval(0.5, 0).first));
}

TEST(ReportData, SummaryHasEveryDirectionAgainstEagerFirstWithTheScoresFigures) {
  built b;
  const table &t = b.tables.summary;
  ASSERT_EQ(t.size(), b.scores.directions_vs_eager.size() + b.scores.directions.size());
  ASSERT_EQ(t.size(), 8u) << "two models, two directions, two denominators";
  for (size_t i = 0; i < t.size(); ++i) {
    bool eager = i < b.scores.directions_vs_eager.size();
    const direction_score &d = eager ? b.scores.directions_vs_eager[i] : b.scores.directions[i - 4];
    EXPECT_EQ(t.at(i, "speedup_vs").text, eager ? "eager" : "baseline");
    EXPECT_EQ(t.at(i, "model").text, d.model);
    EXPECT_EQ(t.at(i, "lift_S").number, d.all.lift_s());
    EXPECT_EQ(t.at(i, "paired_lift_ci_high").number, d.ci_paired_lift[1]);
    EXPECT_EQ(t.at(i, "pairs").number, double(d.resolved + d.skipped));
  }
}

TEST(ReportData, LadderAndIntervalsHaveARowPerPointDrawn) {
  built b;
  size_t scored = 0;
  for (const auto *list : {&b.scores.directions_vs_eager, &b.scores.directions})
    for (const direction_score &d : *list) scored += d.scored && d.resolved + d.skipped > 0;
  EXPECT_EQ(b.tables.ladder.size(), scored * 2 * score_thresholds.size());
  EXPECT_EQ(b.tables.intervals.size(), scored * 3);
  for (size_t r = 0; r < b.tables.ladder.size(); ++r) {
    double rate = b.tables.ladder.at(r, "rate").number;
    EXPECT_LE(b.tables.ladder.at(r, "ci_low").number, rate);
    EXPECT_GE(b.tables.ladder.at(r, "ci_high").number, rate);
  }
  EXPECT_EQ(b.tables.ladder.at(0, "arm").text, "a2b_skill");
  EXPECT_EQ(b.tables.ladder.at(5, "arm").text, "solo_b") << "a_to_b's base is SOLO_B";
}

TEST(ReportData, PairedRatiosAreSortedAndTiersCountEveryPair) {
  built b;
  const table &p = b.tables.paired;
  ASSERT_GT(p.size(), 0u);
  for (size_t r = 1; r < p.size(); ++r)
    if (p.at(r, "rank").number > 1) EXPECT_LE(p.at(r - 1, "ratio").number, p.at(r, "ratio").number);
  double counted = 0;
  for (size_t r = 0; r < b.tables.tiers.size(); ++r) counted += b.tables.tiers.at(r, "pairs").number;
  EXPECT_EQ(counted, double(p.size()));
}

TEST(ReportData, VerdictsCountTheCountedTrialsAndFlaggedListsStaleAndContended) {
  built b;
  double trials = 0;
  for (size_t r = 0; r < b.tables.verdicts.size(); ++r) trials += b.tables.verdicts.at(r, "trials").number;
  EXPECT_EQ(trials, 31) << "32 trials, the stale one left out";
  ASSERT_EQ(b.tables.flagged.size(), 3u) << "one stale, two contended (one per model)";
  EXPECT_TRUE(b.tables.flagged.at(1, "stale").is_true());
  EXPECT_FALSE(b.tables.flagged.at(1, "counted").is_true());
  EXPECT_EQ(b.tables.flagged.at(1, "trial").text, "problem_1/tirx/solo_b/r0");
}

} // namespace
} // namespace mkb::report
