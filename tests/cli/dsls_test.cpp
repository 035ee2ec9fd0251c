// `mkb dsls`: every registered DSL with whether it is usable here, as columns or as mkb_list_dsls' JSON;
// `--guide` prints one DSL's guide.
#include <gtest/gtest.h>

#include "api/open_options.hpp"
#include "dsl/dsl.hpp"
#include "protocol/discovery.hpp"
#include "support/json_check.hpp"
#include "support/run_mkb.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

using testing::run_mkb;

TEST(DslsCli, EveryRegisteredDslWithWhetherItIsUsable) {
  testing::temp_dir io;
  toolchain_survey survey = survey_toolchains(config_from_options(nullptr));
  auto text = run_mkb(io, {"dsls"});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  for (const dsl_availability &d : survey.dsls) {
    size_t at = text.out.find("\n" + d.name + " ");
    ASSERT_NE(at, std::string::npos) << d.name << ":\n" << text.out;
    std::string line = text.out.substr(at + 1, text.out.find('\n', at + 1) - at - 1);
    EXPECT_NE(line.find(d.display_name), std::string::npos) << line;
    EXPECT_NE(line.find(d.usable ? "  yes  " : "  no   "), std::string::npos) << line;
    EXPECT_NE(line.find(d.detail), std::string::npos) << line;
  }

  auto json = run_mkb(io, {"dsls", "--json"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out, toolchains_json(survey) + "\n");
  EXPECT_TRUE(testing::is_json(json.out)) << json.out;
}

TEST(DslsCli, PrintsADslsGuide) {
  testing::temp_dir io;
  for (const char *name : {"cuda", "cute"}) {
    auto guide = run_mkb(io, {"dsls", "--guide", name});
    EXPECT_EQ(guide.exit_code, 0) << guide.err;
    EXPECT_EQ(guide.out, find_dsl(name)->guide()) << "the built-in text, byte for byte";
  }
  auto unknown = run_mkb(io, {"dsls", "--guide", "cudaa"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("did you mean 'cuda'"), std::string::npos) << unknown.err;
  EXPECT_EQ(unknown.out, "");
  EXPECT_EQ(run_mkb(io, {"dsls", "--guide", "cuda", "--json"}).exit_code, 2) << "one or the other";
}

} // namespace
} // namespace mkb
