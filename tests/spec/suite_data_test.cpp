#include "spec/suite_data.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "core/error.hpp"
#include "spec/file_source.hpp"
#include "spec/suite.hpp"
#include "support/stored_solutions.hpp"
#include "support/scoped_environment.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

namespace fs = std::filesystem;
using testing::temp_dir;
using testing::tiny_spec;
using testing::write_problem;

std::string spec_with_solution() {
  std::string spec = tiny_spec();
  return spec.insert(spec.rfind('}'), R"(, "solutions": [ { "dsl": "cuda", "file": "solutions/cuda.cu" } ])");
}

// The status and text `solution` fails with.
std::pair<mkb_status, std::string> failure(const suite_data &data, const problem &p) {
  try {
    data.solution(p, p.solutions.at(0));
  } catch (const error &e) {
    return {e.status(), e.what()};
  }
  return {MKB_OK, "found"};
}

using testing::scoped_environment;

class SuiteData : public ::testing::Test {
protected:
  void SetUp() override {
    write_problem(suite_, "test", "tiny", spec_with_solution(), {{"solutions/cuda.cu", "// the stored kernel\n"}});
    problem_ = load_problem(directory_source(suite_.path()), "test/tiny");
  }
  temp_dir suite_;
  problem problem_;
};

TEST_F(SuiteData, ReadsTheSolutionFromTheFirstFolderHoldingTheProblem) {
  temp_dir empty;
  suite_data data({suite_.path() / "absent", empty.path(), suite_.path()});
  EXPECT_EQ(data.problem_folder(problem_), suite_.path() / "test" / "tiny");
  EXPECT_EQ(data.solution(problem_, problem_.solutions[0]), "// the stored kernel\n");
}

TEST_F(SuiteData, PassesOverACopyOfAnotherVersionOfTheProblem) {
  temp_dir other;
  write_problem(other, "test", "tiny", spec_with_solution() + "\n", {{"solutions/cuda.cu", "// an older kernel\n"}});
  EXPECT_EQ(suite_data({other.path(), suite_.path()}).solution(problem_, problem_.solutions[0]), "// the stored kernel\n");

  temp_dir empty;
  auto [status, text] = failure(suite_data({other.path(), empty.path(), suite_.path() / "absent"}), problem_);
  EXPECT_EQ(status, MKB_ERR_NOT_FOUND);
  for (const std::string &expected :
       {std::string("problem 'tiny'"), other.path().string() + ": its test/tiny/spec.json differs from the suite's",
        empty.path().string() + ": no test/tiny/spec.json", (suite_.path() / "absent").string() + ": no such folder",
        std::string("--suite DIR or MKB_SUITE_DATA_DIR")})
    EXPECT_NE(text.find(expected), std::string::npos) << "expected '" << expected << "' in: " << text;
}

TEST_F(SuiteData, AMissingOrEmptySolutionFileIsNamed) {
  fs::path file = suite_.path() / "test" / "tiny" / "solutions" / "cuda.cu";
  suite_.write("test/tiny/solutions/cuda.cu", "");
  auto [status, text] = failure(suite_data({suite_.path()}), problem_);
  EXPECT_EQ(status, MKB_ERR_NOT_FOUND);
  EXPECT_NE(text.find("the cuda solution of problem 'tiny': " + file.string() + " is empty"), std::string::npos) << text;

  fs::remove(file);
  std::tie(status, text) = failure(suite_data({suite_.path()}), problem_);
  EXPECT_EQ(status, MKB_ERR_NOT_FOUND);
  EXPECT_NE(text.find("cannot read " + file.string()), std::string::npos) << text;
}

TEST(SuiteDataLocation, AGivenFolderIsTheOnlyOneTriedThenTheEnvironmentThenSourceTreeAndInstall) {
  scoped_environment unset("MKB_SUITE_DATA_DIR", nullptr);
  EXPECT_EQ(suite_data::locate(fs::path("/given")).candidates(), std::vector<fs::path>{"/given"});

  std::vector<fs::path> defaults = suite_data::locate(std::nullopt).candidates();
  ASSERT_EQ(defaults.size(), 2u);
  EXPECT_EQ(defaults[0], fs::path(MKB_TEST_SOURCE_DIR) / "problems");
  // The build tree mirrors the install tree: bin/../share/mkb/problems.
  EXPECT_EQ(defaults[1], (testing::test_binary_dir() / ".." / "share" / "mkb" / "problems").lexically_normal());

  scoped_environment set("MKB_SUITE_DATA_DIR", "/from/environment");
  EXPECT_EQ(suite_data::locate(std::nullopt).candidates(), std::vector<fs::path>{"/from/environment"});
  EXPECT_EQ(suite_data::locate(fs::path("/given")).candidates(), std::vector<fs::path>{"/given"});
}

// Every solution the built-in suite declares is in the source tree, as the suite's spec has it.
TEST(SuiteDataLocation, TheSourceTreeHoldsEveryBuiltInSolution) {
  suite s = suite::load(std::nullopt);
  suite_data data = testing::source_tree_suite_data();
  for (const problem &p : s.problems())
    for (const stored_solution &solution : p.solutions)
      EXPECT_FALSE(data.solution(p, solution).empty()) << p.id << " in " << solution.dsl;
}

} // namespace
} // namespace mkb
