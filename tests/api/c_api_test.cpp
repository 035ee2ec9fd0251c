// The C API through libmkb.so, the way an embedding program uses it: options, errors on the handle,
// evaluation reports, and the status of calls that later versions implement.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "mkb.h"
#include "support/paths.hpp"

namespace {

std::string read(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

mkb_open_options double_options() {
  mkb_open_options o;
  EXPECT_EQ(mkb_open_options_init(&o, sizeof o), MKB_OK);
  static const std::string worker = mkb::testing::worker_double();
  o.worker_path = worker.c_str();
  return o;
}

TEST(CApi, VersionsAndNames) {
  EXPECT_STREQ(mkb_version(), MKB_VERSION_STRING);
  EXPECT_EQ(mkb_abi_version(), static_cast<uint32_t>(MKB_ABI_VERSION));
  EXPECT_STREQ(mkb_status_name(MKB_ERR_CONFIG), "MKB_ERR_CONFIG");
  EXPECT_STREQ(mkb_status_name(12345), "MKB_UNKNOWN_STATUS");
  EXPECT_STREQ(mkb_verdict_name(MKB_VERDICT_WRONG_ANSWER), "wrong_answer");
  EXPECT_STREQ(mkb_verdict_name(-1), "unknown");
  EXPECT_STREQ(mkb_arm_name(MKB_ARM_A2B_SKILL), "a2b_skill");
}

TEST(CApi, OptionsInitRejectsTooSmallStructs) {
  mkb_open_options o;
  EXPECT_EQ(mkb_open_options_init(nullptr, sizeof o), MKB_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(mkb_open_options_init(&o, 8), MKB_ERR_VERSION);
  EXPECT_EQ(mkb_open_options_init(&o, sizeof o), MKB_OK);
  EXPECT_EQ(o.struct_size, sizeof o);
  EXPECT_EQ(o.suite_path, nullptr);
}

TEST(CApi, FailedOpenKeepsItsErrorOnTheHandle) {
  mkb_open_options o = double_options();
  o.gpus = "0,x";
  mkb_session *s = nullptr;
  EXPECT_EQ(mkb_open(&o, &s), MKB_ERR_CONFIG);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(mkb_session_errmsg(s)).find("gpus"), std::string::npos) << mkb_session_errmsg(s);
  mkb_close(s);

  o = double_options();
  o.suite_path = "/nonexistent/suite";
  EXPECT_EQ(mkb_open(&o, &s), MKB_ERR_NOT_FOUND);
  EXPECT_NE(std::string(mkb_session_errmsg(s)).find("/nonexistent/suite"), std::string::npos);
  mkb_close(s);

  o = double_options();
  o.struct_size = 16;
  EXPECT_EQ(mkb_open(&o, &s), MKB_ERR_VERSION);
  mkb_close(s);

  o = double_options();
  o.dsl_a = "fortran";
  EXPECT_EQ(mkb_open(&o, &s), MKB_ERR_CONFIG) << "one DSL of a pair alone";
  mkb_close(s);
  o.dsl_b = "cuda";
  EXPECT_EQ(mkb_open(&o, &s), MKB_ERR_NOT_FOUND);
  EXPECT_NE(std::string(mkb_session_errmsg(s)).find("fortran"), std::string::npos);
  mkb_close(s);

  EXPECT_EQ(mkb_open(&o, nullptr), MKB_ERR_INVALID_ARGUMENT);
  mkb_close(nullptr);
}

// Regression: "known,TYPO" dropped the typo silently, and "" selected every problem.
TEST(CApi, ASelectionMustMatchTheSuite) {
  struct row {
    const char *problems, *families;
    mkb_status status;
    const char *named;
  };
  for (const row &r : {row{"topk_softmax_routing_mixtral_8x7b_bf16,TYPO", nullptr, MKB_ERR_NOT_FOUND, "'TYPO'"},
                       row{"", nullptr, MKB_ERR_CONFIG, "problems"},
                       row{"topk_*,", nullptr, MKB_ERR_CONFIG, "empty item"},
                       row{nullptr, "", MKB_ERR_CONFIG, "families"},
                       row{nullptr, "mlp_norm,extr", MKB_ERR_NOT_FOUND, "'extr'; did you mean 'extra'?"}}) {
    mkb_open_options o = double_options();
    o.problems = r.problems;
    o.families = r.families;
    mkb_session *s = nullptr;
    EXPECT_EQ(mkb_open(&o, &s), r.status) << (r.problems ? r.problems : "NULL");
    EXPECT_NE(std::string(mkb_session_errmsg(s)).find(r.named), std::string::npos) << mkb_session_errmsg(s);
    mkb_close(s);
  }
  EXPECT_STRNE(mkb_session_errmsg(nullptr), "");
}

TEST(CApi, EvaluateReturnsAReport) {
  mkb_open_options o = double_options();
  mkb_session *s = nullptr;
  ASSERT_EQ(mkb_open(&o, &s), MKB_OK) << mkb_session_errmsg(s);
  std::string source =
      read(mkb::testing::source_dir() + "/problems/extra/topk_softmax_routing_mixtral_8x7b_bf16/solutions/cuda.cu") +
      "// mkb-double: time_us=10 baseline_us=30\n";
  mkb_report *r = nullptr;
  ASSERT_EQ(mkb_evaluate(s, "topk_softmax_routing_mixtral_8x7b_bf16", "cuda", source.data(), source.size(), &r), MKB_OK)
      << mkb_session_errmsg(s);
  EXPECT_EQ(mkb_report_verdict(r), MKB_VERDICT_PASSED);
  EXPECT_EQ(mkb_report_counted(r), 1);
  EXPECT_DOUBLE_EQ(mkb_report_speedup(r), 3.0);
  EXPECT_DOUBLE_EQ(mkb_report_time_us(r), 10.0);
  EXPECT_NE(std::string(mkb_report_json(r)).find("\"verdict\":\"passed\""), std::string::npos);
  EXPECT_NE(std::string(mkb_report_message(r)).find("PASSED"), std::string::npos);
  mkb_report_free(r);

  EXPECT_EQ(mkb_evaluate(s, "no_such_problem", "cuda", source.data(), source.size(), &r), MKB_ERR_NOT_FOUND);
  EXPECT_EQ(r, nullptr);
  EXPECT_NE(std::string(mkb_session_errmsg(s)).find("no_such_problem"), std::string::npos);
  EXPECT_EQ(mkb_evaluate(s, "topk_softmax_routing_mixtral_8x7b_bf16", "cobol", source.data(), source.size(), &r),
            MKB_ERR_NOT_FOUND);
  EXPECT_EQ(mkb_evaluate(s, nullptr, "cuda", source.data(), source.size(), &r), MKB_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mkb_session_errmsg(s)).find("problem and dsl must not be NULL"), std::string::npos)
      << mkb_session_errmsg(s);

  // Regression: an argument refused after a failed call left that call's text in errmsg.
  EXPECT_EQ(mkb_evaluate(s, "no_such_problem", "cuda", source.data(), source.size(), &r), MKB_ERR_NOT_FOUND);
  EXPECT_EQ(mkb_evaluate(s, "topk_softmax_routing_mixtral_8x7b_bf16", "cuda", nullptr, 10, &r), MKB_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(mkb_session_errmsg(s)), "mkb_evaluate: source is NULL but size is not 0");
  EXPECT_EQ(mkb_score(s, 7, nullptr), MKB_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mkb_session_errmsg(s)).find("text_out"), std::string::npos) << mkb_session_errmsg(s);
  char *scores = nullptr;
  ASSERT_EQ(mkb_score(s, MKB_SCORE_JSON, &scores), MKB_OK);
  mkb_free(scores);
  EXPECT_STREQ(mkb_session_errmsg(s), "") << "a call that succeeds clears the text";
  mkb_close(s);
}

// Regression: a plan nested 15,000 parentheses or 50,000 minus signs deep overflowed the stack of the
// calling process. Now it is a refused submission, not counted, saying why.
TEST(CApi, DeeplyNestedPlansAreRefused) {
  mkb_open_options o = double_options();
  mkb_session *s = nullptr;
  ASSERT_EQ(mkb_open(&o, &s), MKB_OK) << mkb_session_errmsg(s);
  for (const char *file : {"nested_parentheses.cu", "unary_minus.cu"}) {
    std::string source = read(mkb::testing::source_dir() + "/tests/fuzz/regressions/plan_parser/" + file);
    ASSERT_GT(source.size(), 30000u) << file;
    mkb_report *r = nullptr;
    ASSERT_EQ(mkb_evaluate(s, "topk_softmax_routing_mixtral_8x7b_bf16", "cuda", source.data(), source.size(), &r), MKB_OK)
        << mkb_session_errmsg(s);
    EXPECT_EQ(mkb_report_verdict(r), MKB_VERDICT_REFUSED);
    EXPECT_EQ(mkb_report_counted(r), 0);
    EXPECT_NE(std::string(mkb_report_message(r)).find("line 4: grid '"), std::string::npos) << mkb_report_message(r);
    EXPECT_NE(std::string(mkb_report_message(r)).find("the expression nests deeper than 256 levels"), std::string::npos);
    mkb_report_free(r);
  }
  mkb_close(s);
}

TEST(CApi, TheFourArmProtocol) {
  std::string ledger = std::filesystem::temp_directory_path() / ("mkb-capi-" + std::to_string(getpid()) + ".ledger");
  std::filesystem::remove(ledger);
  mkb_open_options o = double_options();
  o.dsl_a = o.dsl_b = "cuda";
  o.problems = "topk_softmax_routing_mixtral_8x7b_bf16";
  o.ledger_path = ledger.c_str();
  o.model = "c-api-test";
  mkb_session *s = nullptr;
  ASSERT_EQ(mkb_open(&o, &s), MKB_OK) << mkb_session_errmsg(s);
  mkb_task *tasks[8] = {};
  size_t count = 0;
  EXPECT_EQ(mkb_next_task(s, 0, tasks, 0, &count), MKB_ERR_INVALID_ARGUMENT);
  std::string solution = read(mkb::testing::source_dir() + "/problems/extra/topk_softmax_routing_mixtral_8x7b_bf16/solutions/cuda.cu");
  int played = 0;
  for (;;) {
    mkb_status st = mkb_next_task(s, 200, tasks, 8, &count);
    if (st == MKB_DONE) break;
    if (st == MKB_NOT_READY) continue;
    ASSERT_EQ(st, MKB_OK) << mkb_session_errmsg(s);
    for (size_t i = 0; i < count; ++i) {
      mkb_task *t = tasks[i];
      int arm = mkb_task_arm(t);
      EXPECT_STREQ(mkb_task_problem(t), "topk_softmax_routing_mixtral_8x7b_bf16");
      EXPECT_STREQ(mkb_task_family(t), "extra");
      EXPECT_NE(std::string(mkb_task_json(t)).find(mkb_task_id(t)), std::string::npos);
      EXPECT_EQ(mkb_task_source_skill(t) != nullptr, arm >= MKB_ARM_A2B_SKILL);
      std::string source = solution + "// mkb-double: time_us=" + std::to_string(20 - 2 * arm) + "\n";
      mkb_report *r = nullptr;
      EXPECT_EQ(mkb_task_submissions_left(t), 10u);
      EXPECT_GT(mkb_task_seconds_left(t), 0);
      ASSERT_EQ(mkb_task_compile(t, solution.data(), solution.size(), &r), MKB_OK) << mkb_task_errmsg(t);
      EXPECT_EQ(mkb_report_verdict(r), MKB_VERDICT_COMPILED) << mkb_report_message(r);
      EXPECT_EQ(mkb_report_counted(r), 0);
      EXPECT_EQ(mkb_report_submission(r), 0u);
      EXPECT_EQ(mkb_report_submissions_left(r), 10u);
      EXPECT_NE(std::string(mkb_report_message(r)).find("1 launch checked"), std::string::npos) << mkb_report_message(r);
      mkb_report_free(r);
      EXPECT_EQ(mkb_task_submissions_left(t), 10u) << "a compile check spends no submission";
      EXPECT_EQ(mkb_task_compile(t, nullptr, 3, &r), MKB_ERR_INVALID_ARGUMENT);
      EXPECT_EQ(r, nullptr);
      std::string nested = read(mkb::testing::source_dir() + "/tests/fuzz/regressions/plan_parser/nested_parentheses.cu");
      ASSERT_EQ(mkb_submit_attempt(t, nested.data(), nested.size(), &r), MKB_OK) << mkb_task_errmsg(t);
      EXPECT_EQ(mkb_report_verdict(r), MKB_VERDICT_REFUSED);
      EXPECT_EQ(mkb_report_submissions_left(r), 10u) << "a refused submission is not counted";
      EXPECT_EQ(mkb_report_submission(r), 1u);
      mkb_report_free(r);
      ASSERT_EQ(mkb_submit_attempt(t, source.data(), source.size(), &r), MKB_OK) << mkb_task_errmsg(t);
      EXPECT_EQ(mkb_report_verdict(r), MKB_VERDICT_PASSED);
      EXPECT_EQ(mkb_report_submissions_left(r), 9u);
      EXPECT_EQ(mkb_report_submission(r), 2u);
      mkb_report_free(r);
      EXPECT_EQ(mkb_task_submissions_left(t), 9u);
      EXPECT_EQ(mkb_task_set_final_submission(t, 1), MKB_ERR_NOT_FOUND) << "it never entered evaluation";
      EXPECT_EQ(mkb_task_set_final_submission(t, 2), MKB_OK) << mkb_task_errmsg(t);
      EXPECT_EQ(mkb_task_set_final(t, nullptr, 3), MKB_ERR_INVALID_ARGUMENT);
      const char *skill = "tie-break on the lower index";
      EXPECT_EQ(mkb_submit_skill(t, skill, std::strlen(skill)), MKB_OK) << "every arm keeps a skill";
      EXPECT_EQ(mkb_task_add_usage(t, 10, 5, -1.0), MKB_ERR_INVALID_ARGUMENT);
      EXPECT_EQ(mkb_task_add_usage_v2(t, 10, 11, 5, 0.0), MKB_ERR_INVALID_ARGUMENT) << "cached is part of input";
      EXPECT_EQ(mkb_task_add_usage_v2(t, 10, 4, 5, 0.01), MKB_OK);
      EXPECT_STREQ(mkb_task_errmsg(t), "");
      EXPECT_EQ(mkb_task_add_usage(t, UINT64_MAX, 0, 0), MKB_ERR_INVALID_ARGUMENT) << "10 + 2^64 - 1 tokens";
      EXPECT_NE(std::string(mkb_task_errmsg(t)).find("2^64"), std::string::npos) << mkb_task_errmsg(t);
      EXPECT_EQ(mkb_task_add_usage(t, 0, UINT64_MAX - 5, 0), MKB_OK) << "5 + (2^64 - 6): the largest sum";
      EXPECT_EQ(mkb_task_add_usage(t, 0, 1, 0), MKB_ERR_INVALID_ARGUMENT) << "one more token";
      ASSERT_EQ(mkb_finalize(t, &r), MKB_OK) << mkb_task_errmsg(t);
      EXPECT_EQ(mkb_report_final(r), 1);
      EXPECT_EQ(mkb_report_counted(r), 0);
      // Regression: the JSON said "counted":true,"final":false while the accessors said otherwise.
      EXPECT_NE(std::string(mkb_report_json(r)).find("\"counted\":false,\"final\":true"), std::string::npos)
          << mkb_report_json(r);
      mkb_report_free(r);
      EXPECT_EQ(mkb_finalize(t, &r), MKB_ERR_STATE);
      EXPECT_EQ(mkb_submit_attempt(t, source.data(), source.size(), &r), MKB_ERR_STATE);
      EXPECT_EQ(mkb_task_compile(t, source.data(), source.size(), &r), MKB_ERR_STATE);
      EXPECT_EQ(mkb_task_seconds_left(t), 0) << "the attempt has ended";
      mkb_task_release(t);
      ++played;
    }
  }
  EXPECT_EQ(played, 4);
  char *table = nullptr;
  ASSERT_EQ(mkb_score(s, MKB_SCORE_TABLE, &table), MKB_OK) << mkb_session_errmsg(s);
  EXPECT_NE(std::string(table).find("model c-api-test"), std::string::npos) << table;
  mkb_free(table);
  EXPECT_EQ(mkb_score(s, 7, &table), MKB_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(mkb_score(s, MKB_SCORE_JSON | MKB_SCORE_WITH_STALE, &table), MKB_OK) << mkb_session_errmsg(s);
  mkb_free(table);
  mkb_close(s);

  // A dry run of the same configuration, from the ledger alone: every trial is done.
  char *plan = nullptr, *plan_error = nullptr;
  ASSERT_EQ(mkb_plan(&o, MKB_PLAN_JSON, &plan, &plan_error), MKB_OK) << (plan_error ? plan_error : "");
  EXPECT_NE(std::string(plan).find("\"to_run\":0,\"counts\":{\"done\":4}"), std::string::npos) << plan;
  mkb_free(plan);
  o.trials = "nothing/*";
  ASSERT_EQ(mkb_plan(&o, MKB_PLAN_TABLE, &plan, &plan_error), MKB_ERR_CONFIG);
  ASSERT_NE(plan_error, nullptr);
  EXPECT_NE(std::string(plan_error).find("nothing/*"), std::string::npos) << plan_error;
  mkb_free(plan_error);
  EXPECT_EQ(mkb_plan(&o, 9, &plan, nullptr), MKB_ERR_INVALID_ARGUMENT);

  const char *paths[] = {ledger.c_str()};
  char *json = nullptr, *error = nullptr;
  ASSERT_EQ(mkb_score_ledgers(paths, 1, MKB_SCORE_JSON, &json, &error), MKB_OK);
  EXPECT_NE(std::string(json).find("\"pairs\":1"), std::string::npos) << json;
  mkb_free(json);
  const char *missing[] = {"/nonexistent/ledger"};
  EXPECT_EQ(mkb_score_ledgers(missing, 1, MKB_SCORE_JSON, &json, &error), MKB_ERR_IO);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("/nonexistent/ledger"), std::string::npos);
  mkb_free(error);
  std::filesystem::remove(ledger);
}

TEST(CApi, DiscoveryListsProblemsAndDsls) {
  char *json = nullptr, *error = nullptr;
  ASSERT_EQ(mkb_list_problems(nullptr, &json, &error), MKB_OK) << (error ? error : "");
  EXPECT_NE(std::string(json).find("{\"id\":\"fused_add_rmsnorm_h4096_llama31_8b_bf16\",\"family\":\"mlp_norm\""),
            std::string::npos) << json;
  mkb_free(json);

  mkb_open_options o;
  mkb_open_options_init(&o, sizeof o);
  o.suite_path = "/nonexistent/suite";
  EXPECT_EQ(mkb_list_problems(&o, &json, &error), MKB_ERR_NOT_FOUND);
  EXPECT_EQ(json, nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("/nonexistent/suite"), std::string::npos) << error;
  mkb_free(error);

  mkb_open_options_init(&o, sizeof o);
  o.dsl_a = o.dsl_b = "cuda";
  ASSERT_EQ(mkb_list_dsls(&o, &json, nullptr), MKB_OK);
  EXPECT_NE(std::string(json).find("\"pair\":[\"cuda\",\"cuda\"],\"pair_usable\":true"), std::string::npos) << json;
  EXPECT_NE(std::string(json).find("{\"name\":\"tirx\","), std::string::npos) << json;
  mkb_free(json);
  o.dsl_b = nullptr;
  EXPECT_EQ(mkb_list_dsls(&o, &json, &error), MKB_ERR_CONFIG);
  mkb_free(error);
  EXPECT_EQ(mkb_list_dsls(nullptr, nullptr, nullptr), MKB_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(mkb_list_problems(nullptr, nullptr, nullptr), MKB_ERR_INVALID_ARGUMENT);
}

// The suite of tests/spec/data/eager_suite records 30 us of eager PyTorch for the double's GPU; the
// built-in problem records none for it.
TEST(CApi, ReportsGiveTheSpeedupAgainstEagerWhereATimeIsRecorded) {
  mkb_open_options o = double_options();
  const std::string suite = mkb::testing::source_dir() + "/tests/spec/data/eager_suite";
  o.suite_path = suite.c_str();
  mkb_session *s = nullptr;
  ASSERT_EQ(mkb_open(&o, &s), MKB_OK) << mkb_session_errmsg(s);
  std::string source = read(suite + "/test/tiny/baseline.cu") + "\n// mkb-double: time_us=10 baseline_us=30\n";
  mkb_report *r = nullptr;
  ASSERT_EQ(mkb_evaluate(s, "tiny", "cuda", source.data(), source.size(), &r), MKB_OK) << mkb_session_errmsg(s);
  ASSERT_EQ(mkb_report_verdict(r), MKB_VERDICT_PASSED) << mkb_report_message(r);
  EXPECT_DOUBLE_EQ(mkb_report_eager_us(r), 30.0);
  EXPECT_DOUBLE_EQ(mkb_report_speedup_vs_eager(r), 3.0);
  EXPECT_DOUBLE_EQ(mkb_report_speedup(r), 3.0);
  EXPECT_NE(std::string(mkb_report_message(r)).find("3.000x eager PyTorch on mkb test double (no GPU)"), std::string::npos)
      << mkb_report_message(r);
  mkb_report_free(r);
  mkb_close(s);

  o = double_options();
  ASSERT_EQ(mkb_open(&o, &s), MKB_OK) << mkb_session_errmsg(s);
  source = read(mkb::testing::source_dir() + "/problems/moe/topk_softmax_routing_mixtral_8x7b_bf16/solutions/cuda.cu") +
           "// mkb-double: time_us=10 baseline_us=30\n";
  ASSERT_EQ(mkb_evaluate(s, "topk_softmax_routing_mixtral_8x7b_bf16", "cuda", source.data(), source.size(), &r), MKB_OK);
  EXPECT_TRUE(std::isnan(mkb_report_eager_us(r)));
  EXPECT_TRUE(std::isnan(mkb_report_speedup_vs_eager(r)));
  EXPECT_NE(std::string(mkb_report_json(r)).find("\"speedup_vs_eager\":null"), std::string::npos);
  mkb_report_free(r);
  mkb_close(s);
}

TEST(CApi, NullHandlesAreSafe) {
  EXPECT_EQ(mkb_report_verdict(nullptr), -1);
  EXPECT_TRUE(std::isnan(mkb_report_speedup(nullptr)));
  EXPECT_TRUE(std::isnan(mkb_report_eager_us(nullptr)));
  EXPECT_TRUE(std::isnan(mkb_report_speedup_vs_eager(nullptr)));
  EXPECT_EQ(mkb_report_message(nullptr), nullptr);
  mkb_report_free(nullptr);
  mkb_task_release(nullptr);
  mkb_free(nullptr);
  EXPECT_EQ(mkb_task_arm(nullptr), -1);
  EXPECT_STRNE(mkb_task_errmsg(nullptr), "");
  EXPECT_EQ(mkb_task_submissions_left(nullptr), 0u);
  EXPECT_TRUE(std::isnan(mkb_task_seconds_left(nullptr)));
  mkb_report *r = nullptr;
  EXPECT_EQ(mkb_task_compile(nullptr, "x", 1, &r), MKB_ERR_INVALID_ARGUMENT);
}

} // namespace
