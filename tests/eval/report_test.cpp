#include "eval/report.hpp"

#include <gtest/gtest.h>

#include "mkb.h"
#include "spec/problem.hpp"
#include "support/json_check.hpp"

namespace mkb {
namespace {

// A problem with an eager time for one GPU, and a passed evaluation of 10 us against a 20 us baseline.
problem with_eager_time() {
  problem p;
  p.id = "tiny";
  p.eager_times.push_back({.gpu = "NVIDIA H200", .eager_us = 42.5});
  return p;
}

evaluation_report passed_on(const std::string &gpu) {
  evaluation_report r;
  r.verdict = MKB_VERDICT_PASSED;
  r.result.verdict = MKB_VERDICT_PASSED;
  r.result.device.name = gpu;
  r.result.submission_time.samples = r.result.baseline_time.samples = 5;
  r.result.submission_time.median_us = 10;
  r.result.baseline_time.median_us = 20;
  return r;
}

TEST(Report, SpeedupVsEagerIsTheEagerTimeOfTheEvaluationsGpuOverTheTime) {
  evaluation_report r = passed_on("NVIDIA H200");
  complete_report(r, with_eager_time());
  EXPECT_DOUBLE_EQ(r.eager_us, 42.5);
  EXPECT_DOUBLE_EQ(r.speedup_vs_eager, 4.25);
  EXPECT_DOUBLE_EQ(r.speedup, 2);
}

TEST(Report, EagerFirstInTheMessageAndTheJson) {
  evaluation_report r = passed_on("NVIDIA H200");
  complete_report(r, with_eager_time());
  render_report(r);
  size_t eager = r.message.find("4.250x eager PyTorch on NVIDIA H200 (42.50 us, the original's denominator)");
  size_t baseline = r.message.find("2.000x the baseline's speed (10.00 us vs 20.00 us)");
  ASSERT_NE(eager, std::string::npos) << r.message;
  ASSERT_NE(baseline, std::string::npos) << r.message;
  EXPECT_LT(eager, baseline) << r.message;
  EXPECT_TRUE(testing::json_grammar::valid(r.json));
  size_t eager_field = r.json.find("\"eager_us\":42.5,\"speedup_vs_eager\":4.25");
  ASSERT_NE(eager_field, std::string::npos) << r.json;
  EXPECT_LT(eager_field, r.json.find("\"speedup\":2")) << r.json;
}

// Another GPU model, or a problem without eager_times.json: absent, NaN in C, null in JSON, and said.
TEST(Report, NoRecordForTheGpuLeavesItAbsentAndSaysSo) {
  for (const problem &p : {with_eager_time(), problem{}}) {
    evaluation_report r = passed_on("NVIDIA H100 80GB HBM3");
    complete_report(r, p);
    EXPECT_TRUE(std::isnan(r.eager_us));
    EXPECT_TRUE(std::isnan(r.speedup_vs_eager));
    EXPECT_DOUBLE_EQ(r.speedup, 2);
    render_report(r);
    EXPECT_NE(r.message.find("no eager PyTorch time is recorded for NVIDIA H100 80GB HBM3: speedup_vs_eager is absent"),
              std::string::npos)
        << r.message;
    EXPECT_NE(r.json.find("\"eager_us\":null,\"speedup_vs_eager\":null"), std::string::npos) << r.json;
  }
}

TEST(Report, OnlyATimedPassHasEagerFigures) {
  evaluation_report r = passed_on("NVIDIA H200");
  r.verdict = r.result.verdict = MKB_VERDICT_WRONG_ANSWER;
  complete_report(r, with_eager_time());
  EXPECT_TRUE(std::isnan(r.eager_us));
  EXPECT_TRUE(std::isnan(r.speedup_vs_eager));
  render_report(r);
  EXPECT_EQ(r.message.find("eager"), std::string::npos) << r.message;
}

} // namespace
} // namespace mkb
