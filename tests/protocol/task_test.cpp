// One attempt's rules on the worker TEST DOUBLE: the final kernel an agent names, the budget every
// report carries, one report shape for every outcome, and a skill kept in every arm.
#include "protocol/task.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "core/error.hpp"
#include "core/files.hpp"
#include "mkb.h"
#include "protocol/ledger.hpp"
#include "protocol/scoring.hpp"
#include "support/scripted_session.hpp"

namespace mkb {
namespace {

using testing::kernel;
using testing::scripted_config;

std::shared_ptr<task> first_task(session &s) {
  bool done = false;
  return s.next_tasks(std::chrono::milliseconds(0), 1, &done).at(0);
}

// A session whose harness cannot run final evaluations (infrastructure failure), counting the tries.
class broken_harness final : public task_host {
public:
  int evaluations = 0;
  evaluation_report evaluate_for_task(const problem &, const dsl &, std::string_view) override {
    ++evaluations;
    evaluation_report r;
    r.verdict = MKB_VERDICT_REFUSED;
    r.infrastructure_failure = true;
    r.detail = "the worker is gone";
    return r;
  }
  void record_submission(const trial_key &, const evaluation_report &, const std::string &, const usage_totals &) override {}
  void record_skill(const trial_key &, const std::string &) override {}
  void trial_ended(int, const trial_result &) override {}
};

mkb_status status_of(const std::function<void()> &call) {
  try {
    call();
  } catch (const error &e) {
    return e.status();
  }
  return MKB_OK;
}

TEST(Task, TheLatestCountedSubmissionIsFinalUnlessAnotherIsNamed) {
  testing::temp_dir dir;
  session s(scripted_config(dir));
  std::shared_ptr<task> t = first_task(s);
  EXPECT_EQ(t->submit(kernel(*t, 30)).submission, 1u);
  EXPECT_EQ(t->submit(kernel(*t, 10)).submission, 2u);
  evaluation_report third = t->submit(kernel(*t, 50));
  EXPECT_EQ(third.submission, 3u);
  EXPECT_EQ(third.submissions_left, 7u);
  t->set_final_submission(2); // the agent falls back to its faster kernel, for free
  evaluation_report final = t->finalize("agent");
  EXPECT_DOUBLE_EQ(final.time_us, 10);
  trial_result r = ledger::read(dir.path() / "run.ledger").finished.at(0);
  EXPECT_EQ(r.final_kernel, "submission 2");
  EXPECT_EQ(r.submissions_used, 3) << "naming a final kernel spends no submission";
}

TEST(Task, ANamedSourceIsGradedAsItIsWithoutASubmission) {
  testing::temp_dir dir;
  session s(scripted_config(dir));
  std::shared_ptr<task> t = first_task(s);
  t->submit(kernel(*t, 30));
  t->set_final(kernel(*t, 12));
  evaluation_report final = t->finalize("agent");
  EXPECT_TRUE(final.final);
  EXPECT_DOUBLE_EQ(final.time_us, 12);
  trial_result r = ledger::read(dir.path() / "run.ledger").finished.at(0);
  EXPECT_EQ(r.final_kernel, "named source");
  EXPECT_EQ(r.submissions_used, 1);
}

TEST(Task, ANamedSourceThatCannotEnterEvaluationFailsTheAttempt) {
  testing::temp_dir dir;
  session s(scripted_config(dir));
  std::shared_ptr<task> t = first_task(s);
  t->submit(kernel(*t, 30));
  t->set_final("// mkb:plan\nlaunch nothing(\n"); // a plan that does not parse: no free retry at the end
  evaluation_report final = t->finalize("agent");
  EXPECT_EQ(final.verdict, MKB_VERDICT_REFUSED);
  EXPECT_FALSE(ledger::read(dir.path() / "run.ledger").finished.at(0).passed());
}

TEST(Task, NamingAFinalKernelIsCheckedAndNeedsAnOpenAttempt) {
  testing::temp_dir dir;
  session_config c = scripted_config(dir);
  c.budget_source_bytes = 5000;
  session s(c);
  std::shared_ptr<task> t = first_task(s);
  t->submit(std::string(6000, 'x')); // refused: it never entered evaluation
  EXPECT_EQ(status_of([&] { t->set_final_submission(1); }), MKB_ERR_NOT_FOUND);
  EXPECT_EQ(status_of([&] { t->set_final_submission(2); }), MKB_ERR_NOT_FOUND);
  EXPECT_EQ(status_of([&] { t->set_final(std::string(6000, 'y')); }), MKB_ERR_CONFIG);
  t->finalize("agent");
  EXPECT_EQ(status_of([&] { t->set_final("x"); }), MKB_ERR_STATE);
}

TEST(Task, EveryReportCarriesTheBudgetItWasRenderedWith) {
  testing::temp_dir dir;
  session s(scripted_config(dir));
  std::shared_ptr<task> t = first_task(s);
  evaluation_report r = t->submit(kernel(*t, 30));
  EXPECT_NE(r.json.find("\"submission\":1,\"submissions_left\":9,\"seconds_left\":"), std::string::npos) << r.json;
  EXPECT_EQ(r.json.find("budget_after"), std::string::npos) << "rendered once, not patched";
  EXPECT_EQ(r.json.find("\"seconds_left\":0,"), std::string::npos) << r.json;
  t->finalize("agent");
  // The ledger's copy is the report the agent saw, and the record carries the budget too.
  bool found = false;
  for (const printed_record &p : ledger::dump_json(dir.path() / "run.ledger").records)
    if (p.json.find("SubmissionMade") != std::string::npos) {
      found = true;
      EXPECT_NE(p.json.find("\"submissions_left\": 9"), std::string::npos) << p.json;
      EXPECT_NE(p.json.find("unix_time"), std::string::npos) << p.json;
    }
  EXPECT_TRUE(found);
}

TEST(Task, ANoKernelRecordHasTheShapeOfEveryOtherReport) {
  testing::temp_dir dir;
  session s(scripted_config(dir));
  bool done = false;
  auto tasks = s.next_tasks(std::chrono::milliseconds(0), 2, &done);
  tasks.at(0)->submit(kernel(*tasks[0], 30));
  evaluation_report with_kernel = tasks[0]->finalize("agent");
  evaluation_report no_kernel = tasks.at(1)->finalize("agent");
  EXPECT_EQ(no_kernel.verdict, MKB_VERDICT_NO_KERNEL);
  // One renderer for both: the fields the old NO_KERNEL report lacked are there.
  for (const char *field : {"verdict", "submissions_left", "seconds_left", "checks", "contention", "device", "message"}) {
    EXPECT_NE(with_kernel.json.find(std::string("\"") + field + "\":"), std::string::npos) << field;
    EXPECT_NE(no_kernel.json.find(std::string("\"") + field + "\":"), std::string::npos) << field << ": " << no_kernel.json;
  }
}

TEST(Task, ASkillArmKeepsASkillThatIsRecordedAndNeverHandedOn) {
  testing::temp_dir dir;
  session s(scripted_config(dir));
  testing::play_all(s, 1); // SOLO_A, with a skill
  bool done = false;
  std::shared_ptr<task> skill_arm;
  for (int i = 0; i < 20 && !skill_arm; ++i)
    for (auto &t : s.next_tasks(std::chrono::milliseconds(100), 4, &done))
      if (t->key().arm == MKB_ARM_A2B_SKILL) skill_arm = t;
      else t->finalize("agent");
  ASSERT_TRUE(skill_arm);
  skill_arm->submit_skill("what the skill arm learned");
  skill_arm->finalize("agent");
  for (const trial_result &r : ledger::read(dir.path() / "run.ledger").finished)
    if (r.key.arm == MKB_ARM_A2B_SKILL && r.key.problem == skill_arm->key().problem)
      EXPECT_EQ(r.skill, "what the skill arm learned");
}

TEST(Task, AFinalEvaluationThatCannotRunAtTheDeadlineIsTriedAgainLessAndLessOften) {
  suite problems = suite::load(std::nullopt);
  const problem &p = *problems.find("fused_add_rmsnorm_h4096_llama31_8b_bf16");
  broken_harness host;
  budget_limits budget;
  budget.seconds = 1;
  task t(host, 0, trial_key{"m", p.id, p.family, "cuda"}, fingerprints{}, p, *find_dsl("cuda"), budget, "", "", "");
  t.set_final("__global__ void k() {}");
  std::this_thread::sleep_for(std::chrono::milliseconds(1050)); // past the deadline
  EXPECT_EQ(status_of([&] { t.end_if_expired(); }), MKB_ERR_WORKER);
  EXPECT_EQ(host.evaluations, 1);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(status_of([&] { t.end_if_expired(); }), MKB_OK) << "not due yet";
  EXPECT_EQ(host.evaluations, 1) << "the watcher's next rounds wait for the next try";
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_EQ(status_of([&] { t.end_if_expired(); }), MKB_ERR_WORKER);
  EXPECT_EQ(host.evaluations, 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  t.end_if_expired(); // the second wait is 0.4 s
  EXPECT_EQ(host.evaluations, 2);
  EXPECT_FALSE(t.ended()) << "the attempt stays open for finalize";
  EXPECT_EQ(status_of([&] { t.finalize("agent"); }), MKB_ERR_WORKER) << "finalize tries at once";
  EXPECT_EQ(host.evaluations, 3);
}

} // namespace
} // namespace mkb

namespace mkb {
namespace {

// tests/spec/data/eager_suite records 30 us of eager PyTorch for the double's GPU: every submission's
// report and every finished trial's record carry it, and the session's scores are computed against it.
TEST(Task, TheEagerTimeOfTheGpuIsReportedRecordedAndScored) {
  testing::temp_dir dir;
  session_config c = scripted_config(dir);
  c.suite_path = (std::filesystem::path(testing::source_dir()) / "tests/spec/data/eager_suite").string();
  c.problem_patterns = {"tiny"};
  const std::string source =
      *try_read_file(std::filesystem::path(*c.suite_path) / "test/tiny/baseline.cu") + "\n// mkb-double: time_us=15 baseline_us=60\n";
  {
    session s(c);
    for (bool done = false; !done;)
      for (auto &t : s.next_tasks(std::chrono::milliseconds(100), 4, &done)) {
        evaluation_report r = t->submit(source);
        ASSERT_EQ(r.verdict, MKB_VERDICT_PASSED) << r.message;
        EXPECT_DOUBLE_EQ(r.eager_us, 30);
        EXPECT_DOUBLE_EQ(r.speedup_vs_eager, 2);
        if (t->key().arm == MKB_ARM_SOLO_A || t->key().arm == MKB_ARM_SOLO_B) t->submit_skill("a skill"); // no skipped arm
        EXPECT_DOUBLE_EQ(t->finalize("agent").speedup_vs_eager, 2);
      }
  }
  ledger_contents contents = ledger::read(c.ledger_path.value());
  ASSERT_EQ(contents.finished.size(), 4u);
  for (const trial_result &t : contents.finished) {
    EXPECT_DOUBLE_EQ(t.eager_us, 30) << t.key.id();
    EXPECT_DOUBLE_EQ(t.speedup, 4) << t.key.id();
  }
  score_report scores = compute_scores(contents.finished);
  ASSERT_FALSE(scores.directions_vs_eager.empty());
  for (const direction_score &d : scores.directions_vs_eager) {
    EXPECT_TRUE(d.scored) << d.why_absent;
    EXPECT_NEAR(d.all.base.r[3], 1, 1e-12) << "2x eager: R@2 is 1";
    EXPECT_NEAR(d.all.base.r[4], 0, 1e-12) << "2x eager: R@4 is 0";
  }
  for (const direction_score &d : scores.directions) EXPECT_NEAR(d.all.base.r[4], 1, 1e-12) << "4x the baseline: R@4 is 1";
}

} // namespace
} // namespace mkb
