#include "protocol/ledger.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "mkb.h"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

trial_result finished(const std::string &problem, int arm, double speedup) {
  trial_result r;
  r.key = {"model", problem, "family", "cuda", arm, 0};
  r.prints = {"p", "d", "c"};
  r.verdict = MKB_VERDICT_PASSED;
  r.speedup = speedup;
  r.skill = "a skill";
  r.ended_by = "agent";
  return r;
}

TEST(Ledger, RecordsSurviveReopening) {
  testing::temp_dir dir;
  auto path = dir.path() / "run.ledger";
  {
    auto l = ledger::open(path);
    l->session_opened("cuda", "cuda");
    l->trial_started(finished("p1", 0, 0).key, {"p", "d", "c"});
    l->submission_made(finished("p1", 0, 0).key, 1, true, 0, 10, 20, 2, "hash", "source", "{}", 1, 2, 0.5);
    l->skill_updated(finished("p1", 0, 0).key, "skill text");
    l->trial_finished(finished("p1", 0, 2.5));
    l->trial_started(finished("p2", 0, 0).key, {"p", "d", "c"}); // interrupted
  }
  auto l = ledger::open(path);
  const ledger_contents &c = l->loaded();
  EXPECT_EQ(c.records, 6u);
  ASSERT_EQ(c.finished.size(), 1u);
  EXPECT_DOUBLE_EQ(c.finished[0].speedup, 2.5);
  EXPECT_EQ(c.finished[0].skill, "a skill");
  EXPECT_EQ(c.finished[0].prints, (fingerprints{"p", "d", "c"}));
  EXPECT_EQ(c.started.size(), 2u);
  EXPECT_FALSE(c.dropped_torn_tail);
}

TEST(Ledger, ATornLastRecordIsCutOff) {
  testing::temp_dir dir;
  auto path = dir.path() / "run.ledger";
  {
    auto l = ledger::open(path);
    l->trial_finished(finished("p1", 0, 1));
    l->trial_finished(finished("p2", 0, 2));
  }
  std::string whole = read_file(path);
  for (size_t cut : {size_t(5), size_t(20), size_t(60)}) {
    write_file_atomic(path, whole.substr(0, whole.size() - cut));
    auto l = ledger::open(path);
    EXPECT_TRUE(l->loaded().dropped_torn_tail) << cut;
    ASSERT_EQ(l->loaded().finished.size(), 1u) << cut;
    EXPECT_EQ(l->loaded().finished[0].key.problem, "p1");
    l->trial_finished(finished("p3", 0, 3)); // appends after the last whole record
  }
  auto l = ledger::open(path);
  EXPECT_FALSE(l->loaded().dropped_torn_tail);
  ASSERT_EQ(l->loaded().finished.size(), 2u);
  EXPECT_EQ(l->loaded().finished[1].key.problem, "p3");
}

TEST(Ledger, DamageBeforeTheEndIsAnError) {
  testing::temp_dir dir;
  auto path = dir.path() / "run.ledger";
  {
    auto l = ledger::open(path);
    l->trial_finished(finished("p1", 0, 1));
    l->trial_finished(finished("p2", 0, 2));
  }
  std::string data = read_file(path);
  data[30] ^= 0x5a; // inside the first record
  write_file_atomic(path, data);
  try {
    ledger::open(path);
    FAIL();
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_LEDGER);
    EXPECT_NE(std::string(e.what()).find("checksum"), std::string::npos) << e.what();
  }
  write_file_atomic(path, "{\"not\": \"a ledger\"}");
  EXPECT_THROW(ledger::open(path), error);
}

TEST(Ledger, OneSessionAtATime) {
  testing::temp_dir dir;
  auto first = ledger::open(dir.path() / "run.ledger");
  try {
    ledger::open(dir.path() / "run.ledger");
    FAIL();
  } catch (const error &e) {
    EXPECT_NE(std::string(e.what()).find("in use"), std::string::npos);
  }
}

TEST(Ledger, DumpsJsonLines) {
  testing::temp_dir dir;
  auto path = dir.path() / "run.ledger";
  {
    auto l = ledger::open(path);
    l->session_opened("cuda", "cuda");
    l->trial_finished(finished("p1", 2, 1.5));
  }
  std::vector<std::string> lines = ledger::dump_json(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("SessionOpened"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("\"problem\": \"p1\""), std::string::npos) << lines[1];
  EXPECT_EQ(lines[1].find('\n'), std::string::npos);
  EXPECT_EQ(lines[1].find("nan"), std::string::npos) << "NaN times are null in JSON: " << lines[1];
  EXPECT_NE(lines[1].find("\"time_us\": null"), std::string::npos) << lines[1];
}

} // namespace
} // namespace mkb
