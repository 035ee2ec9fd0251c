// `mkb version`, as text and as JSON.
#include <gtest/gtest.h>

#include "mkb.h"
#include "support/json_check.hpp"
#include "support/run_mkb.hpp"

namespace mkb {
namespace {

using testing::run_mkb;

TEST(VersionCli, AsTextAndAsJson) {
  testing::temp_dir io;
  auto text = run_mkb(io, {"version"});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_EQ(text.out.find(std::string("mkb ") + MKB_VERSION_STRING + " (ABI "), 0u) << text.out;
  EXPECT_EQ(run_mkb(io, {"--version"}).out.find(std::string("mkb ") + MKB_VERSION_STRING), 0u);
  auto json = run_mkb(io, {"version", "--json"});
  EXPECT_EQ(json.exit_code, 0);
  EXPECT_TRUE(testing::is_json(json.out)) << json.out;
  EXPECT_EQ(json.out.find(std::string(R"({"version":")") + MKB_VERSION_STRING + R"(","abi":)" +
                          std::to_string(MKB_ABI_VERSION) + R"(,"nvrtc":")"),
            0u)
      << json.out;
}

} // namespace
} // namespace mkb
