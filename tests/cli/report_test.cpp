// `mkb report` and `mkb skills export` as a user runs them: the files, what stdout says, a damaged
// ledger (its intact records still reported, exit 1) and a folder that cannot be written.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "core/files.hpp"
#include "mkb.h"
#include "protocol/ledger.hpp"
#include "protocol/ledger_frames.hpp"
#include "protocol/scoring.hpp"
#include "support/run_mkb.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

using testing::run_mkb;

std::string write_ledger(const testing::temp_dir &dir) {
  auto path = dir.path() / "run.ledger";
  auto l = ledger::open(path);
  for (int p = 0; p < 3; ++p)
    for (int arm = MKB_ARM_SOLO_A; arm <= MKB_ARM_B2A_SKILL; ++arm) {
      trial_result r;
      bool a_side = arm == MKB_ARM_SOLO_A || arm == MKB_ARM_B2A_SKILL;
      r.key = {"model", "p" + std::to_string(p), "family", a_side ? "cuda" : "triton", arm, 0};
      r.verdict = MKB_VERDICT_PASSED;
      r.speedup = 1 + p + 0.5 * arm;
      r.skill = arm <= MKB_ARM_SOLO_B ? "a skill" : "";
      r.ended_by = "agent";
      l->trial_finished(r);
    }
  return path.string();
}

TEST(ReportCli, WritesThePageAndTablesAndSaysWhere) {
  testing::temp_dir dir;
  std::string ledger = write_ledger(dir);
  std::string out = (dir.path() / "report").string();
  auto r = run_mkb(dir, {"report", ledger, "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, fmt::format("{0}/index.html\n20 files written to {0}\n", out));
  std::string html = read_file(dir.path() / "report/index.html");
  EXPECT_NE(html.find("12 trials from <code>"), std::string::npos) << html.substr(0, 2000);
  EXPECT_EQ(read_file(dir.path() / "report/scores.json"), score_json(ledger::read(ledger).finished) + "\n");
}

TEST(ReportCli, ADamagedLedgerIsReportedFromItsIntactRecordsAndExits1) {
  testing::temp_dir dir;
  std::string ledger = write_ledger(dir);
  std::string data = read_file(ledger);
  ledger_frames::file_layout layout = ledger_frames::scan(data, "");
  data[layout.records[5].offset + 6] ^= 0x10; // record 6 claims about a megabyte
  write_file_atomic(ledger, data);
  auto r = run_mkb(dir, {"report", ledger, "--out", (dir.path() / "report").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("mkb report: " + ledger + ": DAMAGE: skipped"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "report/index.html"));
}

TEST(ReportCli, AnOutputFolderThatCannotBeMadeIsAnErrorNamingIt) {
  testing::temp_dir dir;
  std::string ledger = write_ledger(dir);
  write_file_atomic(dir.path() / "file", "not a folder");
  auto r = run_mkb(dir, {"report", ledger, "--out", (dir.path() / "file/report").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("mkb report: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("file/report"), std::string::npos) << r.err;
}

TEST(SkillsCli, ExportsAFolderPerSkillAndListsThem) {
  testing::temp_dir dir;
  std::string ledger = write_ledger(dir);
  std::string out = (dir.path() / "skills").string();
  auto r = run_mkb(dir, {"skills", "export", ledger, "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(out + "/p0-cuda-r0/SKILL.md\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("6 skills exported to " + out + "\n"), std::string::npos) << r.out;
  EXPECT_EQ(read_file(dir.path() / "skills/p2-triton-r0/SKILL.md").substr(0, 22), "---\nname: p2-triton-r0");
  auto usage = run_mkb(dir, {"skills", "export", ledger});
  EXPECT_EQ(usage.exit_code, 2) << "--out is required";
}

} // namespace
} // namespace mkb
