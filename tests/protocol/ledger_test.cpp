#include "protocol/ledger.hpp"

#include <gtest/gtest.h>

#include <flatbuffers/flatbuffers.h>
#include <signal.h>
#include <sys/resource.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "ledger_generated.h"
#include "mkb.h"
#include "protocol/scoring.hpp"
#include "support/temp_dir.hpp"
#include "support/utf8.hpp"

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
    l->session_opened("cuda", "cuda", {}, "{}");
    l->trial_started(finished("p1", 0, 0).key, {"p", "d", "c"});
    evaluation_report report;
    report.submission = 1;
    report.json = "{}";
    l->submission_made(finished("p1", 0, 0).key, report, "source", {1, 0, 2, 0.5});
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
  EXPECT_FALSE(c.gaps.torn_tail);
  EXPECT_TRUE(c.gaps.damage.empty());
}

// Shards of one run merge into one ledger that reads as one run; shards of another configuration do not.
TEST(Ledger, MergesShardsOfOneRunAndRefusesOthers) {
  testing::temp_dir dir;
  planned_prints same = {{{"p1", "cuda"}, {"p", "d", "c"}}, {{"p2", "cuda"}, {"p", "d", "c"}}};
  planned_prints other = {{{"p1", "cuda"}, {"p", "d", "c2"}}, {{"p2", "cuda"}, {"p", "d", "c"}}};
  auto write = [&](const char *name, const planned_prints &prints, const char *problem) {
    auto l = ledger::open(dir.path() / name);
    l->session_opened("cuda", "cuda", prints, "{}");
    l->trial_finished(finished(problem, 0, 2));
    return dir.path() / name;
  };
  auto a = write("a.ledger", same, "p1"), b = write("b.ledger", same, "p2"), c = write("c.ledger", other, "p2");
  ledger_merge m = ledger::merge({a, b}, dir.path() / "merged.ledger");
  EXPECT_EQ(m.kept_records, 4u);
  ASSERT_EQ(m.inputs.size(), 2u);
  EXPECT_EQ(m.inputs[1].records, 2u);
  ledger_contents merged = ledger::read(dir.path() / "merged.ledger");
  ASSERT_EQ(merged.finished.size(), 2u);
  EXPECT_EQ(merged.finished[1].key.problem, "p2");
  EXPECT_EQ(merged.current, same);
  try {
    ledger::merge({a, c}, dir.path() / "mixed.ledger");
    FAIL() << "merged ledgers planned with different fingerprints";
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_CONFIG);
    EXPECT_NE(std::string(e.what()).find("different fingerprints (p1 in cuda"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "mixed.ledger"));
  try {
    ledger::merge({a}, dir.path() / "merged.ledger");
    FAIL() << "merged over an existing file";
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_IO);
  }
}

// The eager time of a timed trial is recorded, so that scores against eager can be recomputed later.
TEST(Ledger, RecordsTheEagerTime) {
  testing::temp_dir dir;
  auto path = dir.path() / "run.ledger";
  {
    auto l = ledger::open(path);
    trial_result timed = finished("p1", 0, 2.5);
    timed.time_us = 10;
    timed.eager_us = 1123.4;
    l->trial_finished(timed);
    l->trial_finished(finished("p2", 0, 2.5)); // none recorded for its GPU
    evaluation_report report;
    report.submission = 1;
    report.eager_us = 77.5;
    l->submission_made(timed.key, report, "source", {});
  }
  ledger_contents c = ledger::read(path);
  ASSERT_EQ(c.finished.size(), 2u);
  EXPECT_DOUBLE_EQ(c.finished[0].eager_us, 1123.4);
  EXPECT_DOUBLE_EQ(c.finished[0].speedup_vs_eager(), 112.34);
  EXPECT_TRUE(std::isnan(c.finished[1].eager_us));
  ledger_dump dump = ledger::dump_json(path);
  ASSERT_EQ(dump.records.size(), 3u);
  EXPECT_NE(dump.records[0].json.find("\"eager_us\": 1123.4"), std::string::npos) << dump.records[0].json;
  EXPECT_NE(dump.records[2].json.find("\"eager_us\": 77.5"), std::string::npos) << dump.records[2].json;
}

// A ledger written before the field existed reads, its trials without an eager time (NaN: absent).
// Compile checks are kept one by one, and their count with the attempt's end.
TEST(Ledger, RecordsCompileChecks) {
  testing::temp_dir dir;
  auto path = dir.path() / "run.ledger";
  {
    auto l = ledger::open(path);
    evaluation_report check;
    check.verdict = MKB_VERDICT_COMPILE_ERROR;
    check.source_hash = "0123abcd";
    check.submissions_left = 10;
    check.seconds_left = 2000;
    l->compile_checked(finished("p1", 0, 0).key, check, 1, 1.25);
    trial_result done = finished("p1", 0, 2.5);
    done.compile_checks = 1;
    l->trial_finished(done);
  }
  ledger_contents c = ledger::open(path)->loaded();
  ASSERT_EQ(c.compile_checks.size(), 1u);
  const compile_check_record &k = c.compile_checks[0];
  EXPECT_EQ(k.key, finished("p1", 0, 0).key);
  EXPECT_EQ(k.key.dsl, "cuda");
  EXPECT_EQ(k.index, 1);
  EXPECT_EQ(k.verdict, MKB_VERDICT_COMPILE_ERROR);
  EXPECT_EQ(k.source_hash, "0123abcd");
  EXPECT_DOUBLE_EQ(k.wall_seconds, 1.25);
  EXPECT_GT(k.unix_time, 0);
  ASSERT_EQ(c.finished.size(), 1u);
  EXPECT_EQ(c.finished[0].compile_checks, 1);
  ledger_dump dump = ledger::dump_json(path);
  ASSERT_EQ(dump.records.size(), 2u);
  EXPECT_NE(dump.records[0].json.find("\"body_type\": \"CompileChecked\""), std::string::npos) << dump.records[0].json;
  EXPECT_NE(dump.records[0].json.find("\"verdict\": \"compile_error\""), std::string::npos) << dump.records[0].json;
  EXPECT_NE(dump.records[0].json.find("\"seconds_left\": 2000"), std::string::npos) << dump.records[0].json;
}

TEST(Ledger, AnOlderLedgerHasNoEagerTimes) {
  ledger_contents c = ledger::read_intact(std::filesystem::path(MKB_TEST_SOURCE_DIR) / "tests/fuzz/corpus/ledger_reader/four_trials.ledger");
  ASSERT_FALSE(c.finished.empty());
  for (const trial_result &t : c.finished) {
    EXPECT_TRUE(std::isnan(t.eager_us)) << t.key.id();
    EXPECT_TRUE(std::isnan(t.speedup_vs_eager())) << t.key.id();
    EXPECT_EQ(t.compile_checks, 0) << t.key.id();
  }
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
    ASSERT_TRUE(l->loaded().gaps.torn_tail) << cut;
    EXPECT_EQ(l->loaded().gaps.torn_tail->bytes, whole.size() - cut - ledger_frames::scan(whole, "").records[1].offset);
    ASSERT_EQ(l->loaded().finished.size(), 1u) << cut;
    EXPECT_EQ(l->loaded().finished[0].key.problem, "p1");
    l->trial_finished(finished("p3", 0, 3)); // appends after the last whole record
  }
  auto l = ledger::open(path);
  EXPECT_FALSE(l->loaded().gaps.torn_tail);
  ASSERT_EQ(l->loaded().finished.size(), 2u);
  EXPECT_EQ(l->loaded().finished[1].key.problem, "p3");
}

TEST(Ledger, DamageBeforeTheEndIsRefusedAndLeftAlone) {
  testing::temp_dir dir;
  auto path = dir.path() / "run.ledger";
  {
    auto l = ledger::open(path);
    l->trial_finished(finished("p1", 0, 1));
    l->trial_finished(finished("p2", 0, 2));
  }
  std::string data = read_file(path);
  data[60] ^= 0x5a; // inside the first record's payload
  write_file_atomic(path, data);
  for (auto reader : {+[](const std::filesystem::path &p) { ledger::open(p); },
                      +[](const std::filesystem::path &p) { ledger::read(p); }}) {
    try {
      reader(path);
      FAIL() << "a damaged ledger was accepted";
    } catch (const error &e) {
      EXPECT_EQ(e.status(), MKB_ERR_LEDGER);
      EXPECT_NE(std::string(e.what()).find("at byte 8 (a record whose payload fails its checksum)"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("mkb ledger repair"), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_file(path), data) << "a damaged ledger is never changed";
  }
}

TEST(Ledger, OtherFilesAndFormatsAreRefusedByName) {
  testing::temp_dir dir;
  auto path = dir.write("x.ledger", "{\"not\": \"a ledger\"}");
  EXPECT_THROW(
      try { ledger::read(path); } catch (const error &e) {
        EXPECT_NE(std::string(e.what()).find("not an mkb ledger"), std::string::npos) << e.what();
        throw;
      },
      error);
  write_file_atomic(path, std::string("MKBLEDG1") + std::string(40, '\0'));
  try {
    ledger::open(path);
    FAIL();
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_LEDGER);
    EXPECT_NE(std::string(e.what()).find("format 1 (MKBLEDG1); this library reads format 2"), std::string::npos)
        << e.what();
  }
}

TEST(Ledger, AnEmptyFileIsReportedAndThenStarted) {
  testing::temp_dir dir;
  auto path = dir.write("run.ledger", "");
  ledger_contents c = ledger::read_intact(path);
  EXPECT_TRUE(c.gaps.empty_file);
  EXPECT_EQ(c.records, 0u);
  EXPECT_TRUE(ledger::dump_json(path).gaps.empty_file);
  { ledger::open(path)->trial_finished(finished("p1", 0, 1)); }
  EXPECT_EQ(ledger::read(path).finished.size(), 1u);

  write_file_atomic(path, "MKBL"); // a crash while the magic was written
  ASSERT_TRUE(ledger::read(path).gaps.torn_tail);
  { ledger::open(path)->trial_finished(finished("p2", 0, 1)); }
  ASSERT_EQ(ledger::read(path).finished.size(), 1u);
  EXPECT_EQ(ledger::read(path).finished[0].key.problem, "p2");
}

// Regression: an append the file took only in part (a full disk) stayed in it, and the next record
// after it turned the ledger into one damaged before its end, which no session can open.
TEST(Ledger, AnAppendTheFileDoesNotTakeWholeIsCutOff) {
  testing::temp_dir dir;
  auto path = dir.path() / "run.ledger";
  {
    auto l = ledger::open(path);
    l->session_opened("cuda", "cuda", {}, "{}");
    rlimit old{};
    ::getrlimit(RLIMIT_FSIZE, &old);
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit full = old;
    full.rlim_cur = std::filesystem::file_size(path) + 10; // room for part of a record
    ::setrlimit(RLIMIT_FSIZE, &full);
    try {
      l->trial_started(finished("p1", 0, 0).key, {"p", "d", "c"});
      ADD_FAILURE() << "the append fit";
    } catch (const error &e) {
      EXPECT_EQ(e.status(), MKB_ERR_IO) << e.what();
    }
    ::setrlimit(RLIMIT_FSIZE, &old);
    l->trial_finished(finished("p1", 0, 2.0));
  }
  ledger_contents c = ledger::read(path);
  EXPECT_TRUE(c.gaps.damage.empty());
  ASSERT_EQ(c.finished.size(), 1u);
  EXPECT_TRUE(c.started.empty());
  EXPECT_NE(ledger::open(path), nullptr);
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
    l->session_opened("cuda", "cuda", {}, "{}");
    l->trial_finished(finished("p1", 2, 1.5));
  }
  ledger_dump dump = ledger::dump_json(path);
  ASSERT_EQ(dump.records.size(), 2u);
  std::vector<std::string> lines = {dump.records[0].json, dump.records[1].json};
  EXPECT_NE(lines[0].find("SessionOpened"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("\"problem\": \"p1\""), std::string::npos) << lines[1];
  EXPECT_EQ(lines[1].find('\n'), std::string::npos);
  EXPECT_EQ(lines[1].find("nan"), std::string::npos) << "NaN times are null in JSON: " << lines[1];
  EXPECT_NE(lines[1].find("\"time_us\": null"), std::string::npos) << lines[1];
}

// A ledger of 103 finished trials, p0 ... p102.
std::filesystem::path write_103_records(const testing::temp_dir &dir) {
  auto path = dir.path() / "run.ledger";
  auto l = ledger::open(path);
  for (int i = 0; i < 103; ++i) l->trial_finished(finished("p" + std::to_string(i), i % 4, 1 + i % 7));
  return path;
}

std::vector<std::string> problems(const std::vector<trial_result> &results) {
  std::vector<std::string> names;
  for (const trial_result &r : results) names.push_back(r.key.problem);
  return names;
}

std::vector<std::string> problems_but(int missing) {
  std::vector<std::string> names;
  for (int i = 0; i < 103; ++i)
    if (i != missing) names.push_back("p" + std::to_string(i));
  return names;
}

// The adversary's reproducer: one bit flipped in the length field of a record in the middle.
TEST(Ledger, AFlippedLengthBitLosesOnlyItsRecord) {
  testing::temp_dir dir;
  auto path = write_103_records(dir);
  std::string clean = read_file(path);
  size_t middle = ledger_frames::scan(clean, "").records[51].offset;
  std::string damaged = clean;
  damaged[middle + 4 + 2] ^= 0x10; // bit 20 of the length: it now claims about a megabyte, past the end
  write_file_atomic(path, damaged);

  ledger_contents c = ledger::read_intact(path);
  EXPECT_EQ(problems(c.finished), problems_but(51));
  EXPECT_FALSE(c.gaps.torn_tail) << "damage in the middle is not a torn tail";
  ASSERT_EQ(c.gaps.damage.size(), 1u);
  EXPECT_EQ(c.gaps.damage[0].offset, middle);
  EXPECT_EQ(c.gaps.damage[0].bytes, ledger_frames::scan(clean, "").records[52].offset - middle);

  try {
    ledger::open(path);
    FAIL() << "a session opened a damaged ledger";
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_LEDGER);
    EXPECT_NE(std::string(e.what()).find(fmt::format("at byte {} (a record header that fails its checksum)", middle)),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("mkb ledger repair"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(path), damaged) << "opening must not truncate or otherwise change a damaged ledger";

  auto repaired = dir.path() / "repaired.ledger";
  ledger_repair r = ledger::repair(path, repaired);
  EXPECT_EQ(r.kept_records, 102u);
  ASSERT_EQ(r.dropped.damage.size(), 1u);
  EXPECT_EQ(r.dropped.damage[0].offset, middle);
  EXPECT_EQ(read_file(path), damaged) << "repair never writes over its input";
  auto resumed = ledger::open(repaired);
  EXPECT_EQ(problems(resumed->loaded().finished), problems_but(51));
  EXPECT_TRUE(resumed->loaded().gaps.damage.empty());
  EXPECT_EQ(score_json(resumed->loaded().finished), score_json(c.finished));
  EXPECT_THROW(ledger::repair(path, repaired), error) << "an existing file is never replaced";
}

TEST(Ledger, EveryBitFlipInAHeaderOrPayloadCostsOneRecordAtMost) {
  testing::temp_dir dir;
  auto path = write_103_records(dir);
  std::string clean = read_file(path);
  ledger_frames::file_layout layout = ledger_frames::scan(clean, "");
  size_t middle = layout.records[70].offset;
  size_t record_end = layout.records[71].offset;
  for (size_t at = middle; at < record_end; ++at)
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = clean;
      damaged[at] ^= static_cast<char>(1 << bit);
      ledger_frames::file_layout l = ledger_frames::scan(damaged, "");
      ASSERT_EQ(l.records.size(), 102u) << "byte " << at << " bit " << bit;
      ASSERT_EQ(l.damage.size(), 1u) << "byte " << at << " bit " << bit;
      EXPECT_EQ(l.damage[0].offset, middle);
      EXPECT_EQ(l.damage[0].bytes, record_end - middle);
      EXPECT_FALSE(l.torn_tail);
    }
}

TEST(Ledger, GarbageInTheMiddleIsSkippedAndMeasured) {
  testing::temp_dir dir;
  auto path = write_103_records(dir);
  std::string clean = read_file(path);
  ledger_frames::file_layout layout = ledger_frames::scan(clean, "");
  size_t first = layout.records[10].offset, second = layout.records[60].offset;
  // Garbage that looks like records (markers, a header cut short), then a whole frame whose payload
  // passes its checksums but is not a ledger record: the reader skips the frame whole.
  std::string garbage = "MKBR" + std::string(100, 'x') + "MKBR\x01\x02" + std::string(37, '\xff');
  std::string foreign = ledger_frames::frame("not a flatbuffer");
  write_file_atomic(path, clean.substr(0, first) + garbage + clean.substr(first, second - first) + foreign +
                              clean.substr(second));
  ledger_contents c = ledger::read_intact(path);
  EXPECT_EQ(c.records, 103u);
  ASSERT_EQ(c.gaps.damage.size(), 2u);
  EXPECT_EQ(c.gaps.damage[0].offset, first);
  EXPECT_EQ(c.gaps.damage[0].bytes, garbage.size());
  EXPECT_EQ(c.gaps.damage[1].offset, second + garbage.size());
  EXPECT_EQ(c.gaps.damage[1].bytes, foreign.size());
  EXPECT_EQ(c.gaps.damage[1].why, "a record that passes its checksums but is not a ledger record");
  EXPECT_FALSE(c.gaps.torn_tail);
  EXPECT_THROW(ledger::open(path), error);
}

TEST(Ledger, DamageFollowedByATornTailReportsBoth) {
  testing::temp_dir dir;
  auto path = write_103_records(dir);
  std::string data = read_file(path);
  ledger_frames::file_layout layout = ledger_frames::scan(data, "");
  data[layout.records[20].offset] ^= 1;       // the marker
  data.resize(layout.records[102].offset + 30); // a crash in the last append
  write_file_atomic(path, data);
  ledger_contents c = ledger::read_intact(path);
  EXPECT_EQ(c.records, 101u);
  ASSERT_EQ(c.gaps.damage.size(), 1u);
  EXPECT_EQ(c.gaps.damage[0].offset, layout.records[20].offset);
  ASSERT_TRUE(c.gaps.torn_tail);
  EXPECT_EQ(c.gaps.torn_tail->offset, layout.records[102].offset);
}

TEST(Ledger, ZerosAtTheEndAreATornTail) {
  testing::temp_dir dir;
  auto path = write_103_records(dir);
  std::string data = read_file(path);
  size_t end = data.size();
  write_file_atomic(path, data + std::string(300, '\0')); // the file grew before its data reached the disk
  ledger_contents c = ledger::read(path);
  EXPECT_EQ(c.records, 103u);
  ASSERT_TRUE(c.gaps.torn_tail);
  EXPECT_EQ(c.gaps.torn_tail->offset, end);
  write_file_atomic(path, data + std::string(300, 'z'));
  EXPECT_EQ(ledger::read_intact(path).gaps.damage.size(), 1u) << "anything but zeros after the last record is damage";
}

TEST(Ledger, DumpEscapesTextThatIsNotUtf8AndNamesWhatItCannotPrint) {
  testing::temp_dir dir;
  auto path = dir.path() / "run.ledger";
  std::string skill = "bytes \xff\xfe then caf\xc3\xa9 \\x41";
  {
    auto l = ledger::open(path);
    l->skill_updated(finished("p1", 0, 0).key, skill);
    trial_result r = finished("p1", 0, 2);
    r.skill = skill;
    l->trial_finished(r);
  }
  // A record a newer library could write: a body type this one does not know.
  flatbuffers::FlatBufferBuilder b;
  auto trial = records::CreateTrial(b, b.CreateString("m"));
  records::RecordBuilder record(b);
  record.add_body_type(static_cast<records::Body>(42));
  record.add_body(trial.Union());
  b.Finish(record.Finish());
  std::string newer = ledger_frames::frame({reinterpret_cast<const char *>(b.GetBufferPointer()), b.GetSize()});
  size_t newer_offset = read_file(path).size();
  write_file_atomic(path, read_file(path) + newer);
  {
    auto l = ledger::open(path);
    l->session_opened("cuda", "cuda", {}, "{}");
  }

  EXPECT_EQ(ledger::read(path).finished[0].skill, skill) << "skills are stored as given";
  ledger_dump dump = ledger::dump_json(path);
  ASSERT_EQ(dump.records.size(), 4u);
  for (const printed_record &r : dump.records) EXPECT_TRUE(testing::is_valid_utf8(r.json)) << r.json;
  EXPECT_NE(dump.records[0].json.find(R"("text": "bytes \u00FF\u00FE then caf\u00E9 \\x41")"), std::string::npos)
      << dump.records[0].json;
  EXPECT_NE(dump.records[1].json.find(R"(\u00FF\u00FE)"), std::string::npos) << dump.records[1].json;
  EXPECT_TRUE(dump.records[2].json.empty());
  EXPECT_EQ(dump.records[2].number, 3u);
  EXPECT_EQ(dump.records[2].offset, newer_offset);
  EXPECT_NE(dump.records[2].why_not.find("ledger schema"), std::string::npos) << dump.records[2].why_not;
  EXPECT_NE(dump.records[3].json.find("SessionOpened"), std::string::npos) << "the dump carries on after it";
}

} // namespace
} // namespace mkb
