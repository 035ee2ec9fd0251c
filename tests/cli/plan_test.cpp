// `mkb plan`: a misspelt DSL is a bad command line listed with the closest name; a configuration a
// session would refuse is a negative answer; --json is one JSON object.
#include <gtest/gtest.h>

#include "support/json_check.hpp"
#include "support/run_mkb.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

using testing::run_mkb;

constexpr const char *routing = "topk_softmax_routing_mixtral_8x7b_bf16";

TEST(PlanCli, AMisspeltDslIsListedWithTheClosestName) {
  testing::temp_dir io;
  auto r = run_mkb(io, {"plan", "--dsl-a", "cuda", "--dsl-b", "cute_dsl"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find("mkb plan: no DSL 'cute_dsl' in this build; did you mean 'cute-dsl'?\nthe DSLs are:\n"), 0u) << r.err;
  EXPECT_EQ(r.out, "");

  auto alone = run_mkb(io, {"plan", "--dsl-a", "cuda"});
  EXPECT_EQ(alone.exit_code, 2) << "a pair needs both";
  EXPECT_EQ(alone.err.find("mkb plan: --dsl-a requires --dsl-b"), 0u) << alone.err;
}

TEST(PlanCli, JsonAndAConfigurationASessionWouldRefuse) {
  testing::temp_dir io;
  auto json = run_mkb(io, {"plan", "--dsl-a", "cuda", "--dsl-b", "cuda", "--problems", routing, "--json"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(testing::is_json(json.out)) << json.out;
  EXPECT_NE(json.out.find(routing), std::string::npos) << json.out;

  auto nothing = run_mkb(io, {"plan", "--dsl-a", "cuda", "--dsl-b", "cuda", "--problems", "no_such_*"});
  EXPECT_EQ(nothing.exit_code, 1) << nothing.err;
  EXPECT_NE(nothing.err.find("no_such_*"), std::string::npos) << nothing.err;
}

} // namespace
} // namespace mkb
