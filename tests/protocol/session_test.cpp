// The four-arm protocol end to end with the worker TEST DOUBLE at the GPU boundary: the double
// compiles for real and answers verdicts and times from directives in each scripted submission.
#include "protocol/session.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <set>
#include <thread>

#include "core/error.hpp"
#include "core/queue_lock.hpp"
#include "dsl/dsl.hpp"
#include "mkb.h"
#include "protocol/scoring.hpp"
#include "support/paths.hpp"
#include "support/scripted_session.hpp"
#include "support/temp_dir.hpp"
#include "support/utf8.hpp"

namespace mkb {
namespace {

using testing::double_gpu;
using testing::kernel;
using testing::play;
using testing::play_all;
using testing::scripted_config;

TEST(Session, HandsOutSolosThenSkillArmsWithTheirSkill) {
  testing::temp_dir dir;
  session s(scripted_config(dir));
  bool done = false;
  auto solos = s.next_tasks(std::chrono::milliseconds(0), 10, &done);
  ASSERT_EQ(solos.size(), 4u); // two problems, two solo arms
  EXPECT_FALSE(done);
  EXPECT_TRUE(s.next_tasks(std::chrono::milliseconds(50), 10, &done).empty());
  EXPECT_FALSE(done) << "skill arms wait: not ready, not done";

  task &solo_a = *solos[0];
  EXPECT_EQ(solo_a.key().arm, MKB_ARM_SOLO_A);
  EXPECT_TRUE(solo_a.source_skill().empty());
  EXPECT_NE(solo_a.instruction().find(solo_a.target().description), std::string::npos);
  EXPECT_NE(solo_a.instruction().find("mkb:plan"), std::string::npos) << "the DSL's notes";
  EXPECT_NE(solo_a.instruction().find("10 submissions"), std::string::npos);
  EXPECT_NE(solo_a.instruction().find("keep a *skill*"), std::string::npos);
  play(solo_a);

  auto next = s.next_tasks(std::chrono::milliseconds(1000), 10, &done);
  ASSERT_EQ(next.size(), 1u);
  task &skill_arm = *next[0];
  EXPECT_EQ(skill_arm.key().arm, MKB_ARM_A2B_SKILL);
  EXPECT_EQ(skill_arm.key().problem, solo_a.key().problem);
  EXPECT_NE(skill_arm.source_skill().find("16-byte loads"), std::string::npos);
  EXPECT_NE(skill_arm.source_skill().find("earlier attempt"), std::string::npos);
  EXPECT_NE(skill_arm.instruction().find("16-byte loads"), std::string::npos);
  skill_arm.submit_skill("mine: recorded, never handed on"); // every arm keeps a skill, as it is told to
}

TEST(Session, ASkillThatIsNotUtf8IsKeptAsGivenAndEscapedInJson) {
  testing::temp_dir dir;
  const std::string skill = "tile \xff\xfe by 128\xc3";
  {
    session s(scripted_config(dir));
    bool done = false;
    std::shared_ptr<task> solo = s.next_tasks(std::chrono::milliseconds(0), 1, &done)[0];
    ASSERT_EQ(solo->key().arm, MKB_ARM_SOLO_A);
    solo->submit(kernel(*solo, 10));
    solo->submit_skill(skill);
    solo->finalize("agent");
    std::vector<std::shared_ptr<task>> next;
    for (int i = 0; i < 20 && (next.empty() || next[0]->key().arm != MKB_ARM_A2B_SKILL); ++i)
      next = s.next_tasks(std::chrono::milliseconds(200), 1, &done);
    ASSERT_FALSE(next.empty());
    ASSERT_EQ(next[0]->key().arm, MKB_ARM_A2B_SKILL);
    EXPECT_NE(next[0]->source_skill().find(skill), std::string::npos) << "the skill reaches the next arm as given";
    EXPECT_TRUE(testing::is_valid_utf8(next[0]->json()));
    EXPECT_NE(next[0]->json().find(R"(tile \u00ff\u00fe by 128\u00c3)"), std::string::npos) << next[0]->json();
  }
  EXPECT_EQ(ledger::read(dir.path() / "run.ledger").finished[0].skill, skill);
  for (const printed_record &r : ledger::dump_json(dir.path() / "run.ledger").records)
    EXPECT_TRUE(!r.json.empty() && testing::is_valid_utf8(r.json)) << r.json;
}

TEST(Session, BudgetEdges) {
  testing::temp_dir dir;
  session_config c = scripted_config(dir);
  c.budget_submissions = 2;
  c.budget_source_bytes = 5000;
  session s(c);
  bool done = false;
  std::shared_ptr<task> t = s.next_tasks(std::chrono::milliseconds(0), 1, &done)[0];

  evaluation_report refused = t->submit(std::string(6000, 'x'));
  EXPECT_EQ(refused.verdict, MKB_VERDICT_REFUSED);
  EXPECT_FALSE(refused.counted);
  EXPECT_EQ(refused.submissions_left, 2u) << "refused submissions are not counted";

  EXPECT_EQ(t->submit(kernel(*t, 40)).submissions_left, 1u);
  evaluation_report last = t->submit(kernel(*t, 20));
  EXPECT_EQ(last.submissions_left, 0u);
  EXPECT_NE(last.message.find("0 submissions left"), std::string::npos) << last.message;
  try {
    t->submit(kernel(*t, 5));
    FAIL() << "a third submission was accepted";
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_BUDGET);
  }
  t->submit_skill("still allowed after the last submission");
  evaluation_report final = t->finalize("agent");
  EXPECT_TRUE(final.final);
  EXPECT_DOUBLE_EQ(final.time_us, 20) << "the final evaluation is of the latest kernel";
  EXPECT_THROW(t->finalize("agent"), error);
  EXPECT_THROW(t->submit(kernel(*t, 5)), error);
}

// One rule for every DSL: a Python DSL's compile error spends a submission as NVRTC's does; Python
// that does not parse never enters evaluation and spends nothing.
TEST(Session, APythonDslsCompileErrorSpendsASubmission) {
  if (std::string why; !find_dsl("triton")->usable(&why)) GTEST_SKIP() << "triton is not usable here: " << why;
  testing::temp_dir dir;
  session_config c = scripted_config(dir);
  c.dsl_a = c.dsl_b = "triton";
  c.budget_submissions = 3;
  session s(c);
  bool done = false;
  std::shared_ptr<task> t = s.next_tasks(std::chrono::milliseconds(0), 1, &done)[0];
  const std::string good = testing::stored_solution_source(t->target(), "triton");

  evaluation_report unparsable = t->submit("def broken(:\n" + good);
  EXPECT_EQ(unparsable.verdict, MKB_VERDICT_REFUSED) << unparsable.message;
  EXPECT_EQ(unparsable.submissions_left, 3u) << "Python that does not parse is not counted";

  evaluation_report imported = t->submit("import mkb_no_such_module\n" + good);
  EXPECT_EQ(imported.verdict, MKB_VERDICT_COMPILE_ERROR) << imported.message;
  EXPECT_TRUE(imported.counted);
  EXPECT_EQ(imported.submissions_left, 2u);
  EXPECT_NE(imported.message.find("No module named 'mkb_no_such_module'"), std::string::npos) << imported.message;

  evaluation_report passed = t->submit(good + "\n# mkb-double: time_us=40\n");
  EXPECT_EQ(passed.verdict, MKB_VERDICT_PASSED) << passed.message;
  EXPECT_EQ(passed.submissions_left, 1u);
}

TEST(Session, TheDeadlineEndsTheAttemptEvenDuringAnEvaluation) {
  testing::temp_dir dir;
  session_config c = scripted_config(dir);
  c.budget_seconds = 1;
  session s(c);
  bool done = false;
  std::shared_ptr<task> t = s.next_tasks(std::chrono::milliseconds(0), 1, &done)[0];
  evaluation_report r = t->submit(kernel(*t, 30, "sleep_ms=1500"));
  EXPECT_TRUE(r.counted) << "an evaluation that started in time completes and counts";
  EXPECT_EQ(r.seconds_left, 0);
  EXPECT_NE(r.message.find("ran out during this evaluation"), std::string::npos) << r.message;
  // The session's deadline watcher ends the attempt with a final evaluation.
  for (int i = 0; i < 100 && !t->ended(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(t->ended());
  EXPECT_THROW(t->submit(kernel(*t, 5)), error);
  evaluation_report final = t->finalize("agent");
  EXPECT_DOUBLE_EQ(final.time_us, 30);
  ledger_contents c2 = ledger::read(dir.path() / "run.ledger");
  ASSERT_EQ(c2.finished.size(), 2u) << "the attempt, and its skill arm skipped (no skill was written)";
  EXPECT_EQ(c2.finished[0].ended_by, "deadline");
  EXPECT_TRUE(c2.finished[1].skipped);
}

TEST(Session, TimeQueuedForTheGpuIsNotChargedToTheAttempt) {
  testing::temp_dir dir;
  session_config c = scripted_config(dir);
  c.budget_seconds = 60;
  session s(c);
  bool done = false;
  std::shared_ptr<task> t = s.next_tasks(std::chrono::milliseconds(0), 1, &done)[0];
  auto handed_out = std::chrono::steady_clock::now();
  evaluation_report warm = t->submit(kernel(*t, 30)); // compiles, so that the next one only queues
  EXPECT_LT(warm.result.gpu_wait_ms, 1000);

  auto deadline_before = t->deadline();
  std::atomic<bool> holding{false};
  std::thread other_process_evaluating([&] {
    queue_lock held = queue_lock::acquire(c.gpu_lock_dir, double_gpu);
    holding = true;
    // Once the task's evaluation has queued behind us (its ticket is in the queue), keep it waiting 1 s.
    auto queued = [&] {
      size_t tickets = 0;
      for (const auto &e : std::filesystem::directory_iterator(std::filesystem::path(c.gpu_lock_dir) / (std::string(double_gpu) + ".queue")))
        tickets += e.path().filename().string()[0] != '.';
      return tickets >= 2;
    };
    while (!queued()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  });
  while (!holding) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  evaluation_report r = t->submit(kernel(*t, 20));
  other_process_evaluating.join();
  EXPECT_EQ(r.verdict, MKB_VERDICT_PASSED) << r.message;
  EXPECT_GT(r.result.gpu_wait_ms, 990) << "queued behind the holder";
  auto moved = std::chrono::duration<double, std::milli>(t->deadline() - deadline_before).count();
  EXPECT_NEAR(moved, r.result.gpu_wait_ms, 1.0) << "the deadline moves out by the time queued";
  EXPECT_NE(r.json.find("\"gpu_wait_ms\":"), std::string::npos) << r.json;

  t->finalize("agent");
  double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - handed_out).count();
  ledger_contents recorded = ledger::read(dir.path() / "run.ledger");
  ASSERT_FALSE(recorded.finished.empty());
  const trial_result &f = recorded.finished.front();
  double waited_ms = warm.result.gpu_wait_ms + r.result.gpu_wait_ms;
  EXPECT_NEAR(f.gpu_wait_ms, waited_ms, 1.0);
  EXPECT_NEAR(f.seconds_used, wall_s - waited_ms / 1000, 0.25) << "charged time leaves the queueing out";
}

TEST(Session, TwoSessionsInOneProcessTakeTurnsOnTheirGpu) {
  testing::temp_dir dir;
  session_config c = scripted_config(dir, false);
  session first(c), second(c);
  bool done = false;
  std::shared_ptr<task> a = first.next_tasks(std::chrono::milliseconds(0), 1, &done)[0];
  std::shared_ptr<task> b = second.next_tasks(std::chrono::milliseconds(0), 1, &done)[0];
  a->submit(kernel(*a, 30)); // compile both first: only the GPU part is to overlap
  b->submit(kernel(*b, 30));

  auto start = std::chrono::steady_clock::now();
  evaluation_report ra, rb;
  std::thread ta([&] { ra = a->submit(kernel(*a, 30, "sleep_ms=800")); });
  std::thread tb([&] { rb = b->submit(kernel(*b, 30, "sleep_ms=800")); });
  ta.join();
  tb.join();
  double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(wall_ms, 1600) << "the two evaluations ran one after the other";
  EXPECT_GT(std::max(ra.result.gpu_wait_ms, rb.result.gpu_wait_ms), 100) << "one queued behind the other";
}

TEST(Session, AnEmptySkillSkipsTheSkillArm) {
  testing::temp_dir dir;
  session s(scripted_config(dir));
  bool done = false;
  auto solos = s.next_tasks(std::chrono::milliseconds(0), 4, &done);
  task &solo_b = *solos[1];
  ASSERT_EQ(solo_b.key().arm, MKB_ARM_SOLO_B);
  solo_b.submit(kernel(solo_b, 12));
  solo_b.submit_skill("something");
  solo_b.submit_skill(""); // cleared: nothing to hand over
  solo_b.finalize("agent");
  EXPECT_TRUE(s.next_tasks(std::chrono::milliseconds(100), 4, &done).empty()) << "the B2A arm is never handed out";
  ledger_contents c = ledger::read(dir.path() / "run.ledger");
  ASSERT_GE(c.finished.size(), 2u) << "both solos, and the skill arms their empty skills skip";
  ASSERT_EQ(c.finished[0].verdict, MKB_VERDICT_PASSED);
  EXPECT_EQ(c.finished[1].key.arm, MKB_ARM_B2A_SKILL);
  EXPECT_TRUE(c.finished[1].skipped);
}

TEST(Session, NoKernelMeansAFailedRecord) {
  testing::temp_dir dir;
  session s(scripted_config(dir));
  bool done = false;
  std::shared_ptr<task> t = s.next_tasks(std::chrono::milliseconds(0), 1, &done)[0];
  t->add_usage({1000, 0, 200, 0.25});
  evaluation_report final = t->finalize("agent");
  EXPECT_EQ(final.verdict, MKB_VERDICT_NO_KERNEL);
  ledger_contents c = ledger::read(dir.path() / "run.ledger");
  EXPECT_EQ(c.finished[0].verdict, MKB_VERDICT_NO_KERNEL);
  EXPECT_EQ(c.finished[0].input_tokens, 1000u);
  EXPECT_DOUBLE_EQ(c.finished[0].cost_usd, 0.25);
}

// Regression: the final report's JSON (and the ledger's copy) said "counted":true,"final":false while
// mkb_report_final() said 1 and mkb_report_counted() 0.
TEST(Session, TheFinalReportsJsonAgreesWithItsFields) {
  testing::temp_dir dir;
  session s(scripted_config(dir));
  bool done = false;
  std::shared_ptr<task> with_kernel = s.next_tasks(std::chrono::milliseconds(0), 1, &done)[0];
  std::shared_ptr<task> without_kernel = s.next_tasks(std::chrono::milliseconds(0), 1, &done)[0];
  ASSERT_EQ(with_kernel->submit(kernel(*with_kernel, 20, "verdict=wrong_answer")).verdict, MKB_VERDICT_WRONG_ANSWER);
  evaluation_report counted_run = with_kernel->submit(kernel(*with_kernel, 20));
  ASSERT_EQ(counted_run.verdict, MKB_VERDICT_PASSED) << counted_run.message;
  evaluation_report passed = with_kernel->finalize("agent");
  evaluation_report no_kernel = without_kernel->finalize("agent");
  for (const evaluation_report *r : {&passed, &no_kernel}) {
    EXPECT_TRUE(r->final);
    EXPECT_FALSE(r->counted);
    EXPECT_NE(r->json.find("\"counted\":false,\"final\":true"), std::string::npos) << r->json;
  }
  EXPECT_NE(passed.json.find("\"time_us\":20"), std::string::npos) << "the other fields stay: " << passed.json;
  ledger_contents c = ledger::read(dir.path() / "run.ledger");
  ASSERT_GE(c.finished.size(), 2u) << "both solos, and the skill arms their empty skills skip";
  ASSERT_EQ(c.finished[0].verdict, MKB_VERDICT_PASSED);
  EXPECT_EQ(c.finished[0].final_report_json.find("\"counted\":true"), std::string::npos) << c.finished[0].final_report_json;
  EXPECT_NE(c.finished[0].final_report_json.find("\"counted\":false,\"final\":true"), std::string::npos);
}

TEST(Session, UsageThatWouldOverflowAddsNothing) {
  testing::temp_dir dir;
  session s(scripted_config(dir));
  bool done = false;
  std::shared_ptr<task> t = s.next_tasks(std::chrono::milliseconds(0), 1, &done)[0];
  t->add_usage({1000, 0, 200, 0.25});
  for (auto [input, output] : {std::pair{UINT64_MAX, uint64_t(0)}, std::pair{uint64_t(0), UINT64_MAX - 199}}) {
    try {
      t->add_usage({input, 0, output, 1.0});
      ADD_FAILURE() << "added " << input << " and " << output;
    } catch (const error &e) {
      EXPECT_EQ(e.status(), MKB_ERR_INVALID_ARGUMENT);
    }
  }
  t->add_usage({0, 0, UINT64_MAX - 200, 0.5});
  t->finalize("agent");
  ledger_contents c = ledger::read(dir.path() / "run.ledger");
  EXPECT_EQ(c.finished[0].input_tokens, 1000u);
  EXPECT_EQ(c.finished[0].output_tokens, UINT64_MAX);
  EXPECT_DOUBLE_EQ(c.finished[0].cost_usd, 0.75) << "the refused calls added no cost either";
}

TEST(Session, ManyThreadsTakeEachTaskOnce) {
  testing::temp_dir dir;
  session_config c = scripted_config(dir, false);
  c.replicates = 2;
  c.gpus = std::vector<int>{0, 1, 2, 3}; // four worker doubles
  session s(c);
  std::mutex m;
  std::multiset<std::string> seen;
  std::vector<std::thread> agents;
  for (int i = 0; i < 8; ++i)
    agents.emplace_back([&] {
      for (;;) {
        bool done = false;
        auto tasks = s.next_tasks(std::chrono::milliseconds(50), 1, &done);
        if (done) return;
        for (auto &t : tasks) {
          {
            std::lock_guard lock(m);
            seen.insert(t->id());
          }
          play(*t);
        }
      }
    });
  for (auto &a : agents) a.join();
  EXPECT_EQ(seen.size(), 12u); // 2 problems x 2 replicates x 4 arms, less the 4 B2A arms skipped
  for (const std::string &id : seen) EXPECT_EQ(seen.count(id), 1u) << id;
  EXPECT_NE(s.score(true, false).find("4 paired comparisons"), std::string::npos) << s.score(true, false);
}

// The scores of a ledger but for the agents' wall-clock seconds, which differ between two runs of the
// same attempts (the usage in the scores carries their mean).
std::string score_but_seconds(const testing::temp_dir &dir) {
  std::vector<trial_result> results = ledger::read(dir.path() / "run.ledger").finished;
  for (trial_result &r : results) r.seconds_used = 0;
  return score_json(results);
}

TEST(Session, KilledMidRunThenResumedGivesTheSameScores) {
  testing::temp_dir reference_dir, crash_dir;
  std::string reference;
  {
    session s(scripted_config(reference_dir));
    ASSERT_TRUE(play_all(s));
    reference = score_but_seconds(reference_dir);
  }
  // A child process plays three attempts, starts a fourth, and is killed with SIGKILL.
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    session s(scripted_config(crash_dir));
    play_all(s, 3);
    bool done = false;
    auto more = s.next_tasks(std::chrono::milliseconds(1000), 1, &done);
    if (!more.empty()) more[0]->submit(kernel(*more[0], 33));
    kill(getpid(), SIGKILL);
    _exit(1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  ledger_contents before = ledger::read(crash_dir.path() / "run.ledger");
  size_t played = 0;
  for (const trial_result &r : before.finished) played += !r.skipped;
  EXPECT_EQ(played, 3u);

  session resumed(scripted_config(crash_dir));
  EXPECT_EQ(resumed.interrupted_trials(), 1);
  ASSERT_TRUE(play_all(resumed));
  EXPECT_EQ(score_but_seconds(crash_dir), reference);
  EXPECT_NE(reference.find("\"pairs\":2"), std::string::npos) << reference;
}

TEST(Session, ChangedContractMakesRecordsStale) {
  testing::temp_dir dir;
  {
    session s(scripted_config(dir));
    ASSERT_TRUE(play_all(s));
  }
  session_config changed = scripted_config(dir);
  changed.budget_submissions = 5;
  {
    session kept(changed);
    EXPECT_EQ(kept.stale_trials().size(), 8u);
    bool done = false;
    EXPECT_TRUE(kept.next_tasks(std::chrono::milliseconds(0), 1, &done).empty());
    EXPECT_TRUE(done) << "stale records are kept unless a rerun is asked for";
    // Scores do not mix them in unless asked.
    EXPECT_EQ(kept.score(false, false).find("\"pairs\":2"), std::string::npos) << kept.score(false, false);
    EXPECT_NE(kept.score(false, true).find("\"pairs\":2"), std::string::npos) << kept.score(false, true);
  }
  changed.rerun_stale = true;
  session rerun(changed);
  bool done = false;
  EXPECT_EQ(rerun.next_tasks(std::chrono::milliseconds(0), 10, &done).size(), 4u);
}

TEST(Session, ARunRecordsWhereAndHowItRan) {
  testing::temp_dir dir;
  { session s(scripted_config(dir)); }
  ledger_contents c = ledger::read(dir.path() / "run.ledger");
  for (const char *fact : {"\"library_version\":\"" MKB_VERSION_STRING "\"", "\"git_revision\":", "\"host\":",
                           "\"uuid\":\"GPU-00000000-0000-0000-0000-000000000000\"", "\"driver_version\":",
                           "\"name\":\"cuda\",\"usable\":true,\"toolchain\":\"NVRTC", "\"budget_seconds\":2400",
                           "\"timed_draws\":"})
    EXPECT_NE(c.provenance.find(fact), std::string::npos) << fact << " in " << c.provenance;
  EXPECT_EQ(c.current.size(), 2u) << "the fingerprints of both problems in cuda";
}

} // namespace
} // namespace mkb
