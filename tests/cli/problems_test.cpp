// `mkb problems`: aligned columns, and the JSON of mkb_list_problems.
#include <gtest/gtest.h>

#include <sstream>

#include "protocol/discovery.hpp"
#include "support/json_check.hpp"
#include "support/run_mkb.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

using testing::run_mkb;

TEST(ProblemsCli, ColumnsAreAlignedToTheLongestEntry) {
  testing::temp_dir io;
  auto r = run_mkb(io, {"problems"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string header, line;
  std::getline(lines, header);
  size_t problem_column = header.find("problem"), description_column = header.find("description");
  ASSERT_NE(problem_column, std::string::npos) << header;
  size_t rows = 0;
  suite builtin = suite::load(std::nullopt);
  for (const problem &p : builtin.problems()) {
    ASSERT_TRUE(std::getline(lines, line));
    EXPECT_EQ(line.find(p.family), 0u) << line;
    EXPECT_EQ(line.find(p.id), problem_column) << line;
    EXPECT_EQ(line.find(p.description), description_column) << line;
    ++rows;
  }
  EXPECT_GT(rows, 1u);
}

// Every problem is listed, and only the extra ones are marked as left out of default sessions.
TEST(ProblemsCli, ExtraProblemsAreListedAndMarked) {
  testing::temp_dir io, suite_dir;
  testing::write_problem(suite_dir, "norm", "tiny", testing::tiny_spec("tiny", "norm"));
  testing::write_problem(suite_dir, "extra", "spare", testing::tiny_spec("spare", "extra"));
  auto r = run_mkb(io, {"problems", "--suite", suite_dir.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string header, spare, tiny;
  ASSERT_TRUE(std::getline(lines, header) && std::getline(lines, spare) && std::getline(lines, tiny)) << r.out;
  EXPECT_EQ(spare.find("extra"), 0u) << spare;
  EXPECT_TRUE(spare.ends_with("(extra: not in default sessions; name it by id or select its family)")) << spare;
  EXPECT_EQ(tiny.find("norm"), 0u) << tiny;
  EXPECT_EQ(tiny.find("(extra"), std::string::npos) << tiny;
}

TEST(ProblemsCli, JsonIsWhatMkbListProblemsGives) {
  testing::temp_dir io, suite_dir;
  testing::write_problem(suite_dir, "test", "tiny", testing::tiny_spec());
  auto builtin = run_mkb(io, {"problems", "--json"});
  EXPECT_EQ(builtin.exit_code, 0) << builtin.err;
  EXPECT_EQ(builtin.out, problems_json(suite::load(std::nullopt)) + "\n");
  EXPECT_TRUE(testing::is_json(builtin.out));

  auto folder = run_mkb(io, {"problems", "--json", "--suite", suite_dir.path().string()});
  EXPECT_EQ(folder.exit_code, 0) << folder.err;
  EXPECT_EQ(folder.out, problems_json(suite::load(suite_dir.path())) + "\n");
  EXPECT_NE(folder.out.find(R"("inputs":[{"name":"x","dtype":"fp32","shape":[1000]}])"), std::string::npos) << folder.out;
}

TEST(ProblemsCli, AMalformedSpecIsANegativeAnswerNamingIt) {
  testing::temp_dir io, suite_dir;
  testing::write_problem(suite_dir, "test", "tiny", "{ not json");
  auto r = run_mkb(io, {"problems", "--suite", suite_dir.path().string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("tiny"), std::string::npos) << r.err;
}

} // namespace
} // namespace mkb
