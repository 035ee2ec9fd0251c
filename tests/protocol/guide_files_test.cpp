// Where a session puts the DSLs' guides, and how it writes them; and that every task points to its own.
#include "protocol/guide_files.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "dsl/dsl.hpp"
#include "mkb.h"
#include "support/json_check.hpp"
#include "support/scripted_session.hpp"

namespace mkb {
namespace {

TEST(GuideFiles, BesideTheLedgerElseInTheCacheUnderTheGuidesHash) {
  session_config c;
  c.cache_dir = "/cache";
  std::filesystem::path a = guide_file_path(c, "cuda", "text one"), b = guide_file_path(c, "cuda", "text two");
  EXPECT_EQ(a.parent_path().parent_path(), std::filesystem::path("/cache/guides"));
  EXPECT_EQ(a.filename(), "cuda.md");
  EXPECT_NE(a, b) << "a changed guide gets a folder of its own";
  EXPECT_EQ(a, guide_file_path(c, "cuda", "text one"));
  c.ledger_path = "/runs/run.ledger";
  EXPECT_EQ(guide_file_path(c, "cute-dsl", "text one"), std::filesystem::path("/runs/run.ledger.guides/cute-dsl.md"));
}

TEST(GuideFiles, WrittenWholeAndReadOnlyAndReplaceable) {
  testing::temp_dir dir;
  std::filesystem::path path = write_guide_file(dir.path() / "g" / "cuda.md", "# first\n");
  EXPECT_TRUE(path.is_absolute());
  EXPECT_EQ(read_file(path), "# first\n");
  using std::filesystem::perms;
  EXPECT_EQ(std::filesystem::status(path).permissions() & perms::all,
            perms::owner_read | perms::group_read | perms::others_read);
  write_guide_file(path, "# second\n"); // the next session with a changed guide
  EXPECT_EQ(read_file(path), "# second\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(path.parent_path()), {}), 1) << "no temporary left";
}

TEST(GuideFiles, AFolderThatCannotBeMadeIsAnIoError) {
  testing::temp_dir dir;
  dir.write("run.ledger.guides", "a file where the folder should be");
  try {
    write_guide_file(dir.path() / "run.ledger.guides" / "cuda.md", "# guide\n");
    FAIL() << "wrote under a file";
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_IO);
    EXPECT_NE(std::string(e.what()).find("run.ledger.guides"), std::string::npos) << e.what();
  }
}

TEST(GuideFiles, EveryTaskPointsToItsDslsGuideBesideTheLedger) {
  testing::temp_dir dir;
  session_config c = testing::scripted_config(dir);
  c.dsl_b = "cute";
  c.problem_patterns = {"fused_add_rmsnorm_h4096_llama31_8b_bf16"};
  session s(c);
  bool done = false;
  std::vector<std::shared_ptr<task>> solos = s.next_tasks(std::chrono::milliseconds(0), 2, &done);
  ASSERT_EQ(solos.size(), 2u);
  for (const auto &t : solos) {
    const dsl &d = *find_dsl(t->key().dsl);
    std::filesystem::path expected = dir.path() / ("run.ledger.guides/" + d.name() + ".md");
    EXPECT_EQ(t->guide_path(), expected.string());
    EXPECT_EQ(read_file(expected), d.guide());
    EXPECT_NE(t->json().find("\"guide_path\":\"" + expected.string() + "\""), std::string::npos) << t->json();
    EXPECT_TRUE(testing::is_json(t->json())) << t->json();
    EXPECT_NE(t->instruction().find("guide for this task: " + expected.string() + ": programming model"),
              std::string::npos)
        << t->instruction();
  }
}

TEST(GuideFiles, WithoutALedgerTheGuideIsInTheCacheFolder) {
  testing::temp_dir dir;
  session_config c = testing::scripted_config(dir, false);
  session s(c);
  bool done = false;
  std::shared_ptr<task> t = s.next_tasks(std::chrono::milliseconds(0), 1, &done).at(0);
  std::string_view guide = find_dsl("cuda")->guide();
  EXPECT_EQ(t->guide_path(), std::filesystem::absolute(guide_file_path(c, "cuda", guide)).string());
  EXPECT_EQ(t->guide_path().rfind((dir.path() / "cache" / "guides").string(), 0), 0u) << t->guide_path();
  EXPECT_EQ(read_file(t->guide_path()), guide);
}

TEST(GuideFiles, AGuideThatCannotBeWrittenLeavesTheTrialReady) {
  testing::temp_dir dir;
  session_config c = testing::scripted_config(dir);
  c.problem_patterns = {"fused_add_rmsnorm_h4096_llama31_8b_bf16"};
  dir.write("run.ledger.guides", "in the way");
  session s(c);
  bool done = false;
  try {
    s.next_tasks(std::chrono::milliseconds(0), 1, &done);
    FAIL() << "handed out a task without its guide";
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_IO);
  }
  std::filesystem::remove(dir.path() / "run.ledger.guides");
  std::vector<std::shared_ptr<task>> tasks = s.next_tasks(std::chrono::milliseconds(0), 2, &done);
  EXPECT_EQ(tasks.size(), 2u) << "both solos are still there";
}

} // namespace
} // namespace mkb
