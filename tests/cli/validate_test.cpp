// `mkb suite validate` where the stored solutions are not: the library embeds none, so the tool reads
// them from disk and, when it cannot, fails the problem naming where it looked. (Solutions that are
// found are validated by the CTests suite.validate_compile.<problem> and .ci/gpu-validate.)
#include <gtest/gtest.h>

#include "support/run_mkb.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

using testing::run_mkb;
using testing::temp_dir;

constexpr const char *routing = "topk_softmax_routing_mixtral_8x7b_bf16";

TEST(ValidateCli, ASuiteFolderMissingASolutionFailsTheProblemNamingTheFile) {
  temp_dir suite, io;
  std::string spec = testing::tiny_spec();
  spec.insert(spec.rfind('}'), R"(, "solutions": [ { "dsl": "cuda", "file": "solutions/cuda.cu" } ])");
  testing::write_problem(suite, "test", "tiny", spec);

  auto r = run_mkb(io, {"suite", "validate", "--compile-only", "--suite", suite.path().string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  std::string file = (suite.path() / "test" / "tiny" / "solutions" / "cuda.cu").string();
  EXPECT_NE(r.out.find("Stored solutions: from the first of " + suite.path().string() + " that"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the cuda solution of problem 'tiny': cannot read " + file), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAILED: the cuda solution: not found"), std::string::npos) << r.out;
}

TEST(ValidateCli, TheBuiltInSuiteTriesOnlyTheFolderTheEnvironmentNames) {
  temp_dir elsewhere, io;
  auto r = run_mkb(io, {"suite", "validate", "--compile-only", "--problem", routing},
                   {"MKB_SUITE_DATA_DIR=" + elsewhere.path().string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find(std::string("the stored solutions of problem '") + routing + "' are not built into libmkb"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(elsewhere.path().string() + ": no moe/" + routing + "/spec.json"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--suite DIR or MKB_SUITE_DATA_DIR"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAILED: its stored solutions are not found"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(std::string(MKB_TEST_SOURCE_DIR) + "/problems"), std::string::npos) << "only that folder is tried: " << r.out;
}

} // namespace
} // namespace mkb
