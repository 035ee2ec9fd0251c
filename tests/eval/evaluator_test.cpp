// The evaluator above the GPU: refusals, compile errors, plan checks against the code, and how
// worker crashes and hangs become verdicts. The real worker runs compile-only; the test double stands
// in for the GPU where a run is needed.
#include "eval/evaluator.hpp"

#include "mkb.h"

#include <gtest/gtest.h>

#include "spec/suite.hpp"
#include "support/paths.hpp"
#include "support/stored_solutions.hpp"

namespace mkb {
namespace {

class Evaluator : public ::testing::Test {
protected:
  static void SetUpTestSuite() { problems_ = new suite(suite::load(std::nullopt)); }
  static void TearDownTestSuite() { delete problems_; }

  evaluation_report run(const std::string &executable, const std::string &source, bool compile_only,
                        evaluation_settings settings = {}) {
    worker_pool pool(executable, compile_only ? std::vector<int>{} : std::vector<int>{0});
    settings.compile_only = compile_only;
    evaluator e(pool, settings);
    return e.evaluate(routing(), *find_dsl("cuda"), source);
  }
  static const problem &routing() { return *problems_->find("topk_softmax_routing_mixtral_8x7b_bf16"); }
  static std::string solution() { return testing::stored_solution_source(routing(), "cuda"); }
  static suite *problems_;
};

suite *Evaluator::problems_ = nullptr;

TEST_F(Evaluator, RefusalsAreExplainedAndNotCounted) {
  evaluation_report empty = run(testing::real_worker(), "", true);
  EXPECT_EQ(empty.verdict, MKB_VERDICT_REFUSED);
  EXPECT_FALSE(empty.counted);
  evaluation_settings small;
  small.max_source_bytes = 100;
  evaluation_report big = run(testing::real_worker(), solution(), true, small);
  EXPECT_EQ(big.verdict, MKB_VERDICT_REFUSED);
  EXPECT_FALSE(big.counted);
  EXPECT_NE(big.detail.find("the limit is 100"), std::string::npos) << big.detail;
  std::string bad_plan = "extern \"C\" __global__ void k() {}\n/* mkb:plan\nlaunch k grid(1) block(1) args(nothing)\n*/\n";
  evaluation_report unparsable = run(testing::real_worker(), bad_plan, true);
  EXPECT_EQ(unparsable.verdict, MKB_VERDICT_REFUSED);
  EXPECT_FALSE(unparsable.counted);
  EXPECT_NE(unparsable.detail.find("line 3"), std::string::npos) << unparsable.detail;
  EXPECT_NE(unparsable.message.find("not counted"), std::string::npos) << unparsable.message;
}

TEST_F(Evaluator, CompileOnlyChecksCodeAndPlan) {
  evaluation_report good = run(testing::real_worker(), solution(), true);
  EXPECT_EQ(good.verdict, MKB_VERDICT_COMPILED) << good.message;
  EXPECT_TRUE(good.counted);

  std::string broken = solution();
  broken.replace(broken.find("int t ="), 7, "int t = undefined_name +");
  evaluation_report compile_error = run(testing::real_worker(), broken, true);
  EXPECT_EQ(compile_error.verdict, MKB_VERDICT_COMPILE_ERROR);
  EXPECT_TRUE(compile_error.counted);
  EXPECT_NE(compile_error.detail.find("undefined_name"), std::string::npos) << compile_error.detail;

  std::string wrong_args = solution();
  wrong_args.replace(wrong_args.find("i32(tokens))"), 12, "i64(tokens))");
  evaluation_report launch_error = run(testing::real_worker(), wrong_args, true);
  EXPECT_EQ(launch_error.verdict, MKB_VERDICT_LAUNCH_ERROR);
  EXPECT_NE(launch_error.detail.find("parameter 3"), std::string::npos) << launch_error.detail;

  std::string wrong_entry = solution();
  wrong_entry.replace(wrong_entry.find("launch top2_softmax"), 19, "launch top3_softmax");
  evaluation_report missing = run(testing::real_worker(), wrong_entry, true);
  EXPECT_EQ(missing.verdict, MKB_VERDICT_LAUNCH_ERROR);
  EXPECT_NE(missing.detail.find("no kernel 'top3_softmax'"), std::string::npos) << missing.detail;
}

TEST_F(Evaluator, TimesBecomeSpeedupAndSpeedOfLight) {
  evaluation_report r = run(testing::worker_double(), solution() + "// mkb-double: time_us=25 baseline_us=100\n", false);
  ASSERT_EQ(r.verdict, MKB_VERDICT_PASSED) << r.message;
  EXPECT_DOUBLE_EQ(r.time_us, 25);
  EXPECT_DOUBLE_EQ(r.baseline_us, 100);
  EXPECT_DOUBLE_EQ(r.speedup, 4);
  EXPECT_GT(r.fraction_of_light, 0);
  EXPECT_NE(r.message.find("4.000x"), std::string::npos) << r.message;
  EXPECT_NE(r.json.find("\"speedup\":4"), std::string::npos);
}

TEST_F(Evaluator, WhatTheWorkerPrintedIsInTheReport) {
  evaluation_report noisy = run(testing::worker_double(), solution() + "\n// mkb-double: print=2\n", false);
  EXPECT_EQ(noisy.verdict, MKB_VERDICT_PASSED) << noisy.message;
  EXPECT_NE(noisy.worker_output.find("mkb-noise stdout line 1"), std::string::npos) << noisy.worker_output;
  EXPECT_NE(noisy.json.find("\"worker_output\":\"mkb-noise stdout line 0\\n"), std::string::npos) << noisy.json;
  evaluation_report quiet = run(testing::worker_double(), solution(), false);
  EXPECT_EQ(quiet.json.find("worker_output"), std::string::npos);

  evaluation_report crashed = run(testing::worker_double(), solution() + "\n// mkb-double: print=2 crash\n", false);
  EXPECT_EQ(crashed.verdict, MKB_VERDICT_CRASHED);
  EXPECT_NE(crashed.detail.find("its last output:\nmkb-noise stdout line 0"), std::string::npos) << crashed.detail;
}

TEST_F(Evaluator, WorkerFailuresBecomeVerdicts) {
  evaluation_report crashed = run(testing::worker_double(), solution() + "// mkb-double: crash\n", false);
  EXPECT_EQ(crashed.verdict, MKB_VERDICT_CRASHED);
  EXPECT_TRUE(crashed.counted);
  EXPECT_NE(crashed.detail.find("twice"), std::string::npos) << crashed.detail;

  evaluation_settings quick;
  quick.stage_timeout = std::chrono::milliseconds(500);
  evaluation_report hung = run(testing::worker_double(), solution() + "// mkb-double: hang\n", false, quick);
  EXPECT_EQ(hung.verdict, MKB_VERDICT_TIMEOUT);
  EXPECT_NE(hung.detail.find("correctness"), std::string::npos) << hung.detail;

  evaluation_report infrastructure = run(testing::worker_double(), solution() + "// mkb-double: verdict=refused\n", false);
  EXPECT_EQ(infrastructure.verdict, MKB_VERDICT_REFUSED);
  EXPECT_FALSE(infrastructure.counted);
}

} // namespace
} // namespace mkb
