// `mkb doctor --json`: a field for each line of the text and the verdict, which sets the exit code.
#include <gtest/gtest.h>

#include "support/json_check.hpp"
#include "support/run_mkb.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

using testing::run_mkb;

TEST(DoctorCli, JsonHasAFieldForEachCheckAndTheVerdictThatSetsTheExitCode) {
  testing::temp_dir io;
  auto text = run_mkb(io, {"doctor"});
  auto json = run_mkb(io, {"doctor", "--json"});
  EXPECT_EQ(json.exit_code, text.exit_code) << json.out;
  EXPECT_TRUE(testing::is_json(json.out)) << json.out;
  for (const char *field : {R"("libmkb":{"version":)", R"("nvrtc":{"version":)", R"("cuda_headers":)", R"("cache":)",
                            R"("worker":{"path":)", R"("cuda_driver":{"loaded":)", R"("gpus":[)", R"("toolchains":{"python":)",
                            R"("verdict":{"state":)"})
    EXPECT_NE(json.out.find(field), std::string::npos) << field << " in " << json.out;
  const std::pair<int, const char *> verdicts[] = {{0, "ready"}, {1, "broken"}, {3, "compile-only"}};
  for (const auto &[code, state] : verdicts) {
    if (code != json.exit_code) continue;
    EXPECT_NE(json.out.find(std::string(R"("verdict":{"state":")") + state + "\""), std::string::npos) << json.out;
    EXPECT_NE(text.out.find(std::string("\nverdict      ") + state), std::string::npos) << text.out;
  }
}

} // namespace
} // namespace mkb
