// `mkb ledger dump`, `mkb ledger repair` and `mkb score` as a user runs them: the built `mkb` on
// ledgers damaged the ways issue 14 found.
#include <gtest/gtest.h>

#include <flatbuffers/flatbuffers.h>
#include <fmt/format.h>

#include <algorithm>

#include "core/files.hpp"
#include "ledger_generated.h"
#include "mkb.h"
#include "protocol/ledger.hpp"
#include "protocol/scoring.hpp"
#include "support/paths.hpp"
#include "support/run_mkb.hpp"
#include "support/temp_dir.hpp"
#include "support/utf8.hpp"

namespace mkb {
namespace {

using outcome = testing::mkb_outcome;
using testing::run_mkb;

std::string write_ledger(const testing::temp_dir &dir, int trials, const std::string &skill = "a skill") {
  auto path = dir.path() / "run.ledger";
  auto l = ledger::open(path);
  for (int i = 0; i < trials; ++i) {
    trial_result r;
    r.key = {"model", "p" + std::to_string(i), "family", "cuda", i % 4, 0};
    r.verdict = MKB_VERDICT_PASSED;
    r.speedup = 1 + i % 5;
    r.skill = skill;
    r.ended_by = "agent";
    l->trial_finished(r);
  }
  return path.string();
}

size_t lines(const std::string &text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

TEST(LedgerCli, AFlippedLengthBitIsReportedAndRepairedWithoutLosingIntactRecords) {
  testing::temp_dir dir;
  std::string path = write_ledger(dir, 103);
  std::string data = read_file(path);
  ledger_frames::file_layout layout = ledger_frames::scan(data, "");
  size_t middle = layout.records[51].offset, span = layout.records[52].offset - middle;
  data[middle + 6] ^= 0x10; // bit 20 of record 52's length: it claims about a megabyte
  write_file_atomic(path, data);
  std::string intact_score = score_json(ledger::read_intact(path).finished) + "\n";

  outcome score = run_mkb(dir, {"score", "--json", path});
  EXPECT_EQ(score.exit_code, 1) << "a damaged ledger is a negative answer, even though its intact records are scored";
  EXPECT_EQ(score.out, intact_score);
  EXPECT_NE(score.err.find(fmt::format("DAMAGE: skipped {} bytes at byte {}", span, middle)),
            std::string::npos)
      << score.err;
  EXPECT_NE(score.err.find("its 102 intact records were read"), std::string::npos) << score.err;
  EXPECT_EQ(score.err.find("torn"), std::string::npos) << score.err;

  outcome dump = run_mkb(dir, {"ledger", "dump", path});
  EXPECT_EQ(dump.exit_code, 1);
  EXPECT_EQ(lines(dump.out), 102u);
  EXPECT_NE(dump.err.find(fmt::format("at byte {}", middle)), std::string::npos) << dump.err;

  std::string repaired = (dir.path() / "repaired.ledger").string();
  outcome repair = run_mkb(dir, {"ledger", "repair", path, repaired});
  EXPECT_EQ(repair.exit_code, 0) << repair.err;
  EXPECT_NE(repair.out.find("kept 102 intact records"), std::string::npos) << repair.out;
  EXPECT_NE(repair.out.find(fmt::format("damaged bytes at byte {}", middle)), std::string::npos) << repair.out;
  EXPECT_EQ(read_file(path), data) << "repair leaves its input as it is";

  outcome rescored = run_mkb(dir, {"score", "--json", repaired});
  EXPECT_EQ(rescored.exit_code, 0) << rescored.err;
  EXPECT_EQ(rescored.out, intact_score);
  EXPECT_EQ(rescored.err, "");

  outcome again = run_mkb(dir, {"ledger", "repair", path, repaired});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("never replaces"), std::string::npos) << again.err;
}

TEST(LedgerCli, DumpSaysWhatItDroppedAndWhatIsEmpty) {
  testing::temp_dir dir;
  std::string path = write_ledger(dir, 3);
  std::string whole = read_file(path);
  write_file_atomic(path, whole.substr(0, whole.size() - 10));
  outcome torn = run_mkb(dir, {"ledger", "dump", path});
  EXPECT_EQ(torn.exit_code, 0) << "a torn tail is what a crash leaves, not damage";
  EXPECT_EQ(lines(torn.out), 2u);
  EXPECT_NE(torn.err.find("dropped a torn tail"), std::string::npos) << torn.err;

  write_file_atomic(path, "");
  outcome empty = run_mkb(dir, {"ledger", "dump", path});
  EXPECT_EQ(empty.exit_code, 0);
  EXPECT_EQ(empty.out, "");
  EXPECT_NE(empty.err.find("empty ledger (0 bytes)"), std::string::npos) << empty.err;

  EXPECT_EQ(run_mkb(dir, {"ledger"}).exit_code, 2);
  EXPECT_EQ(run_mkb(dir, {"ledger", "repair", path}).exit_code, 2);
}

TEST(LedgerCli, DumpEscapesBytesThatAreNotUtf8AndCarriesOnPastARecordItCannotPrint) {
  testing::temp_dir dir;
  std::string path = write_ledger(dir, 1, "stray \xff byte");
  size_t unknown_offset = read_file(path).size();
  flatbuffers::FlatBufferBuilder b;
  auto trial = records::CreateTrial(b, b.CreateString("m"));
  records::RecordBuilder record(b);
  record.add_body_type(static_cast<records::Body>(42)); // a body a newer library might write
  record.add_body(trial.Union());
  b.Finish(record.Finish());
  write_file_atomic(path, read_file(path) +
                              ledger_frames::frame({reinterpret_cast<const char *>(b.GetBufferPointer()), b.GetSize()}));
  { ledger::open(path)->session_opened("cuda", "cuda", {}, "{}"); }

  outcome dump = run_mkb(dir, {"ledger", "dump", path});
  EXPECT_EQ(dump.exit_code, 1);
  EXPECT_EQ(lines(dump.out), 2u);
  EXPECT_TRUE(testing::is_valid_utf8(dump.out)) << dump.out;
  EXPECT_NE(dump.out.find(R"("skill": "stray \u00FF byte")"), std::string::npos) << dump.out;
  EXPECT_NE(dump.err.find(fmt::format("record 2 at offset {}: cannot print: ", unknown_offset)), std::string::npos)
      << dump.err;
}

TEST(LedgerCli, DumpNamesVerdictsAndArmsAndShowsTheDefaultOnes) {
  testing::temp_dir dir;
  auto path = dir.path() / "run.ledger";
  {
    auto l = ledger::open(path);
    trial_result passed; // verdict 0 and arm 0: the values flatbuffers leaves out unless asked
    passed.key = {"model", "p0", "family", "cuda", MKB_ARM_SOLO_A, 0};
    passed.verdict = MKB_VERDICT_PASSED;
    l->trial_finished(passed);
    trial_result wrong;
    wrong.key = {"model", "p0", "family", "cuda", MKB_ARM_A2B_SKILL, 0};
    wrong.verdict = MKB_VERDICT_WRONG_ANSWER;
    wrong.skill = R"(a skill that quotes a report: "verdict": 4, "arm": 2)";
    l->trial_finished(wrong);
  }
  outcome dump = run_mkb(dir, {"ledger", "dump", path.string()});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  ASSERT_EQ(lines(dump.out), 2u);
  std::string first = dump.out.substr(0, dump.out.find('\n')), second = dump.out.substr(first.size() + 1);
  EXPECT_NE(first.find(R"("arm": "solo_a")"), std::string::npos) << first;
  EXPECT_NE(first.find(R"("verdict": "passed")"), std::string::npos) << first;
  EXPECT_NE(second.find(R"("arm": "a2b_skill")"), std::string::npos) << second;
  EXPECT_NE(second.find(R"("verdict": "wrong_answer")"), std::string::npos) << second;
  EXPECT_NE(second.find(R"(quotes a report: \"verdict\": 4, \"arm\": 2")"), std::string::npos)
      << "text inside strings is left as it is: " << second;
}

} // namespace
} // namespace mkb
