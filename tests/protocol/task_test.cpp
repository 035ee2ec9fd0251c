// One attempt's rules on the worker TEST DOUBLE: the final kernel an agent names, the budget every
// report carries, one report shape for every outcome, and a skill kept in every arm.
#include "protocol/task.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/hash.hpp"
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
  evaluation_report compile_for_task(const problem &p, const dsl &d, std::string_view s) override {
    return evaluate_for_task(p, d, s);
  }
  void record_submission(const trial_key &, const evaluation_report &, const std::string &, const usage_totals &) override {}
  void record_compile_check(const trial_key &, const evaluation_report &, int, double) override {}
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

// A compile-only session on the real worker: NVRTC and the plan check for real, nothing run.
session_config compile_only_config(const testing::temp_dir &dir) {
  session_config c = scripted_config(dir);
  c.worker_path = testing::real_worker();
  c.gpus.reset();
  c.compile_only = true;
  return c;
}

std::string replaced(std::string text, const std::string &from, const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST(Task, ACompileCheckSpendsNoSubmissionAndIsRecorded) {
  testing::temp_dir dir;
  session_config c = compile_only_config(dir);
  std::string id;
  std::vector<std::string> sources;
  {
    session s(c);
    std::shared_ptr<task> t = first_task(s);
    id = t->id();
    const std::string good = testing::stored_solution_source(t->target(), "cuda");
    sources = {good + "\nthis_is_not_cuda;\n", good, replaced(good, "\nlaunch ", "\nlaunch no_such_")};

    evaluation_report broken = t->compile(sources[0]);
    EXPECT_EQ(broken.verdict, MKB_VERDICT_COMPILE_ERROR) << broken.message;
    EXPECT_NE(broken.message.find("this_is_not_cuda"), std::string::npos) << "the compiler's log: " << broken.message;
    EXPECT_FALSE(broken.counted);
    EXPECT_TRUE(broken.compile_check);
    EXPECT_EQ(broken.submission, 0u);
    EXPECT_EQ(broken.submissions_left, 10u);
    EXPECT_GT(broken.seconds_left, 0);
    EXPECT_NE(broken.message.find("no submission spent"), std::string::npos) << broken.message;

    evaluation_report fixed = t->compile(sources[1]);
    EXPECT_EQ(fixed.verdict, MKB_VERDICT_COMPILED) << fixed.message;
    EXPECT_NE(fixed.message.find("compiles; 1 launch checked"), std::string::npos) << fixed.message;
    EXPECT_NE(fixed.json.find("\"compile_check\":true"), std::string::npos) << fixed.json;
    EXPECT_EQ(t->submissions_left(), 10u);

    evaluation_report mismatch = t->compile(sources[2]);
    EXPECT_EQ(mismatch.verdict, MKB_VERDICT_LAUNCH_ERROR) << mismatch.message;
    EXPECT_NE(mismatch.detail.find("no kernel 'no_such_"), std::string::npos) << mismatch.detail;

    evaluation_report submitted = t->submit(good);
    EXPECT_TRUE(submitted.counted);
    EXPECT_EQ(submitted.submission, 1u) << "compile checks are not numbered among the submissions";
    EXPECT_EQ(submitted.submissions_left, 9u) << "a real submission still counts 1";
    EXPECT_EQ(t->submissions_left(), 9u);
    t->finalize("agent");
    EXPECT_EQ(t->seconds_left(), 0) << "the attempt has ended";
    EXPECT_EQ(status_of([&] { t->compile(good); }), MKB_ERR_STATE);
  }
  ledger_contents first = ledger::read(dir.path() / "run.ledger");
  ASSERT_EQ(first.compile_checks.size(), 3u);
  const int verdicts[] = {MKB_VERDICT_COMPILE_ERROR, MKB_VERDICT_COMPILED, MKB_VERDICT_LAUNCH_ERROR};
  for (int i = 0; i < 3; ++i) {
    const compile_check_record &k = first.compile_checks[i];
    EXPECT_EQ(k.key.id(), id);
    EXPECT_EQ(k.index, i + 1);
    EXPECT_EQ(k.verdict, verdicts[i]);
    EXPECT_EQ(k.source_hash, xxh3_128(sources[i]).hex());
    EXPECT_GT(k.wall_seconds, 0);
    EXPECT_GT(k.unix_time, 0);
  }
  ASSERT_EQ(first.finished.size(), 2u) << "the attempt, and its skill arm skipped (no skill was written)";
  const trial_result &attempt = first.finished[0];
  EXPECT_EQ(attempt.key.id(), id);
  EXPECT_EQ(attempt.compile_checks, 3);
  EXPECT_EQ(attempt.submissions_used, 1);
  EXPECT_EQ(compute_scores(first.finished).models.at(0).usage_by_arm[attempt.key.arm].compile_checks, 3u);

  // Resuming keeps the records; the next attempt's checks follow them, numbered from 1.
  {
    session s(c);
    std::shared_ptr<task> t = first_task(s);
    EXPECT_NE(t->id(), id) << "the finished attempt is not planned again";
    EXPECT_EQ(t->compile(testing::stored_solution_source(t->target(), "cuda")).verdict, MKB_VERDICT_COMPILED);
  }
  ledger_contents resumed = ledger::read(dir.path() / "run.ledger");
  ASSERT_EQ(resumed.compile_checks.size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(resumed.compile_checks[i].source_hash, first.compile_checks[i].source_hash);
  EXPECT_EQ(resumed.compile_checks[3].index, 1);
  EXPECT_NE(resumed.compile_checks[3].key.id(), id);
  EXPECT_EQ(resumed.finished.at(0).compile_checks, 3);
}

// In a session that runs kernels (the double's pretend GPU), a check runs nothing: a kernel that
// would crash the worker compiles, and checks go on while the submissions are spent.
TEST(Task, ACompileCheckRunsNothingAndNeedsNoSubmissionLeft) {
  testing::temp_dir dir;
  session_config c = scripted_config(dir);
  c.budget_submissions = 1;
  session s(c);
  std::shared_ptr<task> t = first_task(s);
  evaluation_report crashing = t->compile(kernel(*t, 30, "crash"));
  EXPECT_EQ(crashing.verdict, MKB_VERDICT_COMPILED) << crashing.message;
  EXPECT_EQ(crashing.result.gpu_wait_ms, 0);
  EXPECT_EQ(t->submit(kernel(*t, 30)).submissions_left, 0u);
  evaluation_report after = t->compile(kernel(*t, 20));
  EXPECT_EQ(after.verdict, MKB_VERDICT_COMPILED) << after.message;
  EXPECT_EQ(after.submissions_left, 0u);
}

// A Python DSL's check runs its frontend as a submission does (in the sandbox): what fails to import
// is its compile error with the traceback, and spends nothing.
TEST(Task, APythonDslsCompileCheckRunsItsFrontend) {
  if (std::string why; !find_dsl("triton")->usable(&why)) GTEST_SKIP() << "triton is not usable here: " << why;
  testing::temp_dir dir;
  session_config c = compile_only_config(dir);
  c.dsl_a = c.dsl_b = "triton";
  c.problem_patterns = {"topk_softmax_routing_mixtral_8x7b_bf16"};
  session s(c);
  std::shared_ptr<task> t = first_task(s);
  const std::string good = testing::stored_solution_source(t->target(), "triton");
  evaluation_report imported = t->compile("import mkb_no_such_module\n" + good);
  EXPECT_EQ(imported.verdict, MKB_VERDICT_COMPILE_ERROR) << imported.message;
  EXPECT_NE(imported.message.find("No module named 'mkb_no_such_module'"), std::string::npos) << imported.message;
  evaluation_report compiled = t->compile(good);
  EXPECT_EQ(compiled.verdict, MKB_VERDICT_COMPILED) << compiled.message;
  EXPECT_NE(compiled.message.find("launch checked"), std::string::npos) << compiled.message;
  EXPECT_EQ(t->submissions_left(), 10u);
}

TEST(Task, ACompileCheckAfterTheDeadlineEndsTheAttempt) {
  testing::temp_dir dir;
  session_config c = scripted_config(dir);
  c.budget_seconds = 1;
  session s(c);
  std::shared_ptr<task> t = first_task(s);
  EXPECT_GT(t->seconds_left(), 0);
  EXPECT_LE(t->seconds_left(), 1);
  std::string source = kernel(*t, 30);
  t->set_final(source);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  mkb_status status = status_of([&] { t->compile(source); });
  // The session's deadline watcher may have ended the attempt first.
  EXPECT_TRUE(status == MKB_ERR_BUDGET || status == MKB_ERR_STATE) << mkb_status_name(status);
  EXPECT_TRUE(t->ended());
  EXPECT_EQ(t->seconds_left(), 0);
  EXPECT_TRUE(ledger::read(dir.path() / "run.ledger").compile_checks.empty()) << "nothing was checked";
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
