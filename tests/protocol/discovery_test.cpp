// Discovery says what the suite holds and which DSLs can run, without opening a session.
#include "protocol/discovery.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"
#include "support/scoped_environment.hpp"

namespace mkb {
namespace {

const dsl_availability &entry(const toolchain_survey &s, const std::string &name) {
  auto it = std::find_if(s.dsls.begin(), s.dsls.end(), [&](const dsl_availability &d) { return d.name == name; });
  EXPECT_NE(it, s.dsls.end()) << name << " is not listed";
  return *it;
}

TEST(Discovery, ProblemsJsonListsEveryProblemWithItsTensors) {
  suite built_in = suite::load(std::nullopt);
  std::string json = problems_json(built_in);
  EXPECT_EQ(json.rfind("{\"suite\":\"built-in\",\"problems\":[{\"id\":", 0), 0u) << json.substr(0, 200);
  for (const problem &p : built_in.problems())
    EXPECT_NE(json.find("{\"id\":\"" + p.id + "\",\"family\":\"" + p.family + "\""), std::string::npos) << p.id;
  EXPECT_NE(json.find("\"inputs\":[{\"name\":\"hidden_states\",\"dtype\":\"bf16\",\"shape\":[14509,4096]"), std::string::npos);
}

TEST(Discovery, AMissingInterpreterMakesEveryPythonDslUnusableAndSaysSo) {
  testing::scoped_environment no_override("MKB_NO_SANDBOX", nullptr);
  // `cute` finds CUTLASS's headers in the interpreter's nvidia-cutlass package unless told where they are.
  testing::scoped_environment no_headers("MKB_CUTLASS_INCLUDE", nullptr);
  session_config c;
  c.python = "/nonexistent/python3";
  toolchain_survey s = survey_toolchains(c);
  EXPECT_EQ(s.python, "/nonexistent/python3");
  EXPECT_TRUE(entry(s, "cuda").usable) << entry(s, "cuda").detail;
  for (const char *python_dsl : {"cute-dsl", "tirx", "triton", "cute"}) {
    EXPECT_FALSE(entry(s, python_dsl).usable) << python_dsl;
    EXPECT_NE(entry(s, python_dsl).detail.find("/nonexistent/python3"), std::string::npos) << entry(s, python_dsl).detail;
  }
  // The default pair is the original's; both of its DSLs are named, with why.
  EXPECT_EQ(s.default_pair, (std::pair<std::string, std::string>{"cute-dsl", "tirx"}));
  std::vector<std::string> missing = s.pair_problems();
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(missing[0].rfind("cute-dsl: ", 0), 0u) << missing[0];
  EXPECT_EQ(missing[1].rfind("tirx: ", 0), 0u) << missing[1];
  std::string json = toolchains_json(s);
  EXPECT_NE(json.find("\"pair\":[\"cute-dsl\",\"tirx\"],\"pair_usable\":false"), std::string::npos) << json;
  EXPECT_NE(json.find("{\"name\":\"cuda\",\"display_name\":"), std::string::npos) << json;
}

TEST(Discovery, APairOfCudaNeedsNoPython) {
  session_config c;
  c.python = "/nonexistent/python3";
  c.dsl_a = c.dsl_b = "cuda";
  toolchain_survey s = survey_toolchains(c);
  EXPECT_TRUE(s.pair_problems().empty());
  EXPECT_NE(toolchains_json(s).find("\"pair\":[\"cuda\",\"cuda\"],\"pair_usable\":true"), std::string::npos);
}

TEST(Discovery, OptingOutOfTheSandboxIsReportedAsUnconfined) {
  session_config c;
  c.sandbox = false;
  toolchain_survey s = survey_toolchains(c);
  EXPECT_TRUE(s.sandbox_usable);
  EXPECT_FALSE(s.sandbox_confined);
  EXPECT_NE(s.sandbox_detail.find("unconfined"), std::string::npos) << s.sandbox_detail;
}

TEST(Discovery, AnUnknownDslOfThePairIsNotFound) {
  session_config c;
  c.dsl_a = "cuda";
  c.dsl_b = "cudaa";
  try {
    survey_toolchains(c);
    FAIL() << "an unknown DSL was accepted";
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_NOT_FOUND);
    EXPECT_NE(std::string(e.what()).find("cudaa"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace mkb
