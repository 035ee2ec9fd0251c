// The C API through libmkb.so, the way an embedding program uses it: options, errors on the handle,
// evaluation reports, and the status of calls that later versions implement.
#include <gtest/gtest.h>

#include <cmath>
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
  EXPECT_EQ(mkb_open(&o, &s), MKB_ERR_NOT_FOUND);
  EXPECT_NE(std::string(mkb_session_errmsg(s)).find("fortran"), std::string::npos);
  mkb_close(s);

  EXPECT_EQ(mkb_open(&o, nullptr), MKB_ERR_INVALID_ARGUMENT);
  mkb_close(nullptr);
  EXPECT_STRNE(mkb_session_errmsg(nullptr), "");
}

TEST(CApi, EvaluateReturnsAReport) {
  mkb_open_options o = double_options();
  mkb_session *s = nullptr;
  ASSERT_EQ(mkb_open(&o, &s), MKB_OK) << mkb_session_errmsg(s);
  std::string source =
      read(mkb::testing::source_dir() + "/problems/moe/topk_softmax_routing_mixtral_8x7b_bf16/solutions/cuda.cu") +
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
  mkb_close(s);
}

TEST(CApi, NullHandlesAreSafe) {
  EXPECT_EQ(mkb_report_verdict(nullptr), -1);
  EXPECT_TRUE(std::isnan(mkb_report_speedup(nullptr)));
  EXPECT_EQ(mkb_report_message(nullptr), nullptr);
  mkb_report_free(nullptr);
  mkb_task_release(nullptr);
  mkb_free(nullptr);
  EXPECT_EQ(mkb_task_arm(nullptr), -1);
  EXPECT_STRNE(mkb_task_errmsg(nullptr), "");
}

} // namespace
