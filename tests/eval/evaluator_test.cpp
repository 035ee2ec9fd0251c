// The evaluator above the GPU: refusals, compile errors, plan checks against the code, and how
// worker crashes and hangs become verdicts. The real worker runs compile-only; the test double stands
// in for the GPU where a run is needed.
#include "eval/evaluator.hpp"

#include "mkb.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <future>
#include <thread>

#include "core/queue_lock.hpp"

#include "spec/suite.hpp"
#include "support/paths.hpp"
#include "support/scripted_session.hpp"
#include "support/stored_solutions.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

class Evaluator : public ::testing::Test {
protected:
  static void SetUpTestSuite() { problems_ = new suite(suite::load(std::nullopt)); }
  static void TearDownTestSuite() { delete problems_; }

  evaluation_report run(const std::string &executable, const std::string &source, bool compile_only,
                        evaluation_settings settings = {}, const char *dsl_name = "cuda") {
    worker_pool pool(executable, compile_only ? std::vector<int>{} : std::vector<int>{0});
    settings.compile_only = compile_only;
    evaluator e(pool, settings);
    return e.evaluate(routing(), *find_dsl(dsl_name), source);
  }
  static const problem &routing() { return *problems_->find("topk_softmax_routing_mixtral_8x7b_bf16"); }
  static std::string solution(const char *dsl_name = "cuda") { return testing::stored_solution_source(routing(), dsl_name); }
  static std::string with(std::string source, const std::string &from, const std::string &to) {
    size_t at = source.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? source : source.replace(at, from.size(), to);
  }
  static suite *problems_;
};

suite *Evaluator::problems_ = nullptr;

TEST_F(Evaluator, RefusalsAreExplainedAndNotCounted) {
  evaluation_report empty = run(testing::real_worker(), "", true);
  EXPECT_EQ(empty.verdict, MKB_VERDICT_REFUSED);
  EXPECT_FALSE(empty.counted);
  evaluation_settings small;
  small.max_source_bytes = 100;
  evaluation_report big = run(testing::real_worker(), solution(), true, small);
  EXPECT_EQ(big.verdict, MKB_VERDICT_REFUSED);
  EXPECT_FALSE(big.counted);
  EXPECT_NE(big.detail.find("the limit is 100"), std::string::npos) << big.detail;
  std::string bad_plan = "extern \"C\" __global__ void k() {}\n/* mkb:plan\nlaunch k grid(1) block(1) args(nothing)\n*/\n";
  evaluation_report unparsable = run(testing::real_worker(), bad_plan, true);
  EXPECT_EQ(unparsable.verdict, MKB_VERDICT_REFUSED);
  EXPECT_FALSE(unparsable.counted);
  EXPECT_NE(unparsable.detail.find("line 3"), std::string::npos) << unparsable.detail;
  EXPECT_NE(unparsable.message.find("not counted"), std::string::npos) << unparsable.message;
}

TEST_F(Evaluator, CompileOnlyChecksCodeAndPlan) {
  evaluation_report good = run(testing::real_worker(), solution(), true);
  EXPECT_EQ(good.verdict, MKB_VERDICT_COMPILED) << good.message;
  EXPECT_TRUE(good.counted);

  std::string broken = solution();
  broken.replace(broken.find("int t ="), 7, "int t = undefined_name +");
  evaluation_report compile_error = run(testing::real_worker(), broken, true);
  EXPECT_EQ(compile_error.verdict, MKB_VERDICT_COMPILE_ERROR);
  EXPECT_TRUE(compile_error.counted);
  EXPECT_NE(compile_error.detail.find("undefined_name"), std::string::npos) << compile_error.detail;

  std::string wrong_args = solution();
  wrong_args.replace(wrong_args.find("i32(tokens))"), 12, "i64(tokens))");
  evaluation_report launch_error = run(testing::real_worker(), wrong_args, true);
  EXPECT_EQ(launch_error.verdict, MKB_VERDICT_LAUNCH_ERROR);
  EXPECT_NE(launch_error.detail.find("parameter 3"), std::string::npos) << launch_error.detail;

  std::string wrong_entry = solution();
  wrong_entry.replace(wrong_entry.find("launch top2_softmax"), 19, "launch top3_softmax");
  evaluation_report missing = run(testing::real_worker(), wrong_entry, true);
  EXPECT_EQ(missing.verdict, MKB_VERDICT_LAUNCH_ERROR);
  EXPECT_NE(missing.detail.find("no kernel 'top3_softmax'"), std::string::npos) << missing.detail;
}

// The evaluator keeps each problem's prepared code by id; a problem changed under its id is prepared
// again rather than graded with the code it had before (seen in the GPU tests: a variant's faulting
// baseline served to every later evaluation of the problem).
TEST_F(Evaluator, AProblemChangedUnderItsIdIsPreparedAgain) {
  worker_pool pool(testing::real_worker(), {});
  evaluation_settings settings;
  settings.compile_only = true;
  evaluator e(pool, settings);
  evaluation_report good = e.evaluate(routing(), *find_dsl("cuda"), solution());
  EXPECT_EQ(good.verdict, MKB_VERDICT_COMPILED) << good.message;
  // The same id, now with a baseline that cannot compile: graded with the code prepared first, this
  // would compile again.
  problem broken = routing();
  broken.baseline_source.insert(0, "#error this baseline does not compile\n");
  evaluation_report refused = e.evaluate(broken, *find_dsl("cuda"), solution());
  EXPECT_EQ(refused.verdict, MKB_VERDICT_REFUSED) << refused.message;
  EXPECT_NE(refused.detail.find("this baseline does not compile"), std::string::npos) << refused.detail;
}

TEST_F(Evaluator, CompileOnlyCompilesForTheConfiguredArchitecture) {
  evaluation_settings blackwell;
  blackwell.target_arch = "sm_100a";
  evaluation_report r = run(testing::real_worker(), solution(), true, blackwell);
  ASSERT_EQ(r.verdict, MKB_VERDICT_COMPILED) << r.message;
  EXPECT_NE(r.detail.find("compiled for sm_100a"), std::string::npos) << r.detail;
  // Code that only the other architecture has: Blackwell's tcgen05 does not exist on sm_90a.
  std::string blackwell_only = solution() + "\n__global__ void uses_tcgen05() { asm volatile(\"tcgen05.fence::before_thread_sync;\"); }\n";
  EXPECT_EQ(run(testing::real_worker(), blackwell_only, true, blackwell).verdict, MKB_VERDICT_COMPILED);
  EXPECT_EQ(run(testing::real_worker(), blackwell_only, true).verdict, MKB_VERDICT_COMPILE_ERROR);
}

TEST_F(Evaluator, SessionsWithAGpuCompileForItsArchitecture) {
  worker_pool pool(testing::worker_double(), {0});
  EXPECT_EQ(pool.gpu_arch(), "sm_90a"); // the double's device is compute capability 9.0
  evaluation_settings settings;
  settings.target_arch = "sm_100a"; // for compile-only sessions: not this one
  evaluator e(pool, settings);
  evaluation_report r = e.evaluate(routing(), *find_dsl("cuda"), solution() + "// mkb-double: time_us=25\n");
  EXPECT_EQ(r.verdict, MKB_VERDICT_PASSED) << r.message;
}

// One rule for every DSL (docs/CONTRACT.md): what does not parse is refused free; what raises, fails
// to trace or is rejected by the DSL's compiler is a counted compile error carrying the frontend's message.
TEST_F(Evaluator, APythonDslsCompileErrorsCountAsNvrtcsDo) {
  evaluation_settings settings;
  if (std::string why; !find_dsl("triton")->usable(settings.frontends, &why)) GTEST_SKIP() << "triton is not usable here: " << why;
  const std::string good = solution("triton");
  evaluation_report compiled = run(testing::real_worker(), good, true, settings, "triton");
  ASSERT_EQ(compiled.verdict, MKB_VERDICT_COMPILED) << compiled.message;

  evaluation_report traced = run(testing::real_worker(), with(good, "tl.max(logits, axis=1)", "tl.max(not_defined_here, axis=1)"),
                                 true, settings, "triton");
  EXPECT_EQ(traced.verdict, MKB_VERDICT_COMPILE_ERROR) << traced.message;
  EXPECT_TRUE(traced.counted);
  EXPECT_EQ(traced.result.stage, "compile");
  EXPECT_NE(traced.message.find("not_defined_here"), std::string::npos) << traced.message;
  EXPECT_NE(traced.json.find("not_defined_here"), std::string::npos);
  EXPECT_NE(traced.json.find("\"role\":\"submission\""), std::string::npos) << traced.json;

  evaluation_report imported = run(testing::real_worker(), "import mkb_no_such_module\n" + good, true, settings, "triton");
  EXPECT_EQ(imported.verdict, MKB_VERDICT_COMPILE_ERROR) << imported.message;
  EXPECT_TRUE(imported.counted);
  EXPECT_NE(imported.message.find("No module named 'mkb_no_such_module'"), std::string::npos) << imported.message;

  evaluation_report unparsable = run(testing::real_worker(), with(good, "def top2_softmax(", "def top2_softmax(("), true,
                                     settings, "triton");
  EXPECT_EQ(unparsable.verdict, MKB_VERDICT_REFUSED) << unparsable.message;
  EXPECT_FALSE(unparsable.counted);
  EXPECT_NE(unparsable.message.find("not valid Python"), std::string::npos) << unparsable.message;
  EXPECT_NE(unparsable.message.find("SyntaxError"), std::string::npos) << unparsable.message;
  EXPECT_NE(unparsable.message.find("not counted"), std::string::npos) << unparsable.message;

  settings.target_arch = "sm_100a";
  evaluation_report blackwell = run(testing::real_worker(), good, true, settings, "triton");
  EXPECT_EQ(blackwell.verdict, MKB_VERDICT_COMPILED) << blackwell.message;
  EXPECT_NE(blackwell.detail.find("compiled for sm_100a"), std::string::npos) << blackwell.detail;
}

TEST_F(Evaluator, TimesBecomeSpeedupAndSpeedOfLight) {
  evaluation_report r = run(testing::worker_double(), solution() + "// mkb-double: time_us=25 baseline_us=100\n", false);
  ASSERT_EQ(r.verdict, MKB_VERDICT_PASSED) << r.message;
  EXPECT_DOUBLE_EQ(r.time_us, 25);
  EXPECT_DOUBLE_EQ(r.baseline_us, 100);
  EXPECT_DOUBLE_EQ(r.speedup, 4);
  EXPECT_GT(r.fraction_of_light, 0);
  EXPECT_NE(r.message.find("4.000x"), std::string::npos) << r.message;
  EXPECT_NE(r.json.find("\"speedup\":4"), std::string::npos);
}

// The eager time is looked up by the name of the GPU the worker ran on (the double's), in the problem's records.
TEST_F(Evaluator, TheEagerTimeOfTheWorkersGpuGivesSpeedupVsEager) {
  problem p = routing();
  p.eager_times.push_back({.gpu = "mkb test double (no GPU)", .eager_us = 100});
  worker_pool pool(testing::worker_double(), {0});
  evaluator e(pool, {});
  evaluation_report r = e.evaluate(p, *find_dsl("cuda"), solution() + "// mkb-double: time_us=25 baseline_us=50\n");
  ASSERT_EQ(r.verdict, MKB_VERDICT_PASSED) << r.message;
  EXPECT_DOUBLE_EQ(r.eager_us, 100);
  EXPECT_DOUBLE_EQ(r.speedup_vs_eager, 4);
  EXPECT_DOUBLE_EQ(r.speedup, 2);
  EXPECT_NE(r.json.find("\"speedup_vs_eager\":4"), std::string::npos) << r.json;
  // The built-in problem has no record for the double's GPU.
  evaluation_report none = run(testing::worker_double(), solution() + "// mkb-double: time_us=25\n", false);
  EXPECT_TRUE(std::isnan(none.speedup_vs_eager));
  EXPECT_NE(none.message.find("no eager PyTorch time is recorded for mkb test double (no GPU)"), std::string::npos)
      << none.message;
}

TEST_F(Evaluator, WhatTheWorkerPrintedIsInTheReport) {
  evaluation_report noisy = run(testing::worker_double(), solution() + "\n// mkb-double: print=2\n", false);
  EXPECT_EQ(noisy.verdict, MKB_VERDICT_PASSED) << noisy.message;
  EXPECT_NE(noisy.worker_output.find("mkb-noise stdout line 1"), std::string::npos) << noisy.worker_output;
  EXPECT_NE(noisy.json.find("\"worker_output\":\"mkb-noise stdout line 0\\n"), std::string::npos) << noisy.json;
  evaluation_report quiet = run(testing::worker_double(), solution(), false);
  EXPECT_EQ(quiet.json.find("worker_output"), std::string::npos);

  evaluation_report crashed = run(testing::worker_double(), solution() + "\n// mkb-double: print=2 crash\n", false);
  EXPECT_EQ(crashed.verdict, MKB_VERDICT_CRASHED);
  EXPECT_NE(crashed.detail.find("its last output:\nmkb-noise stdout line 0"), std::string::npos) << crashed.detail;
}

TEST_F(Evaluator, WorkerFailuresBecomeVerdicts) {
  evaluation_report crashed = run(testing::worker_double(), solution() + "// mkb-double: crash\n", false);
  EXPECT_EQ(crashed.verdict, MKB_VERDICT_CRASHED);
  EXPECT_TRUE(crashed.counted);
  EXPECT_NE(crashed.detail.find("twice"), std::string::npos) << crashed.detail;

  evaluation_settings quick;
  quick.stage_timeout = std::chrono::milliseconds(500);
  evaluation_report hung = run(testing::worker_double(), solution() + "// mkb-double: hang\n", false, quick);
  EXPECT_EQ(hung.verdict, MKB_VERDICT_TIMEOUT);
  EXPECT_NE(hung.detail.find("correctness"), std::string::npos) << hung.detail;

  evaluation_report infrastructure = run(testing::worker_double(), solution() + "// mkb-double: verdict=refused\n", false);
  EXPECT_EQ(infrastructure.verdict, MKB_VERDICT_REFUSED);
  EXPECT_FALSE(infrastructure.counted);
}

// A compile check takes the evaluation's steps up to the plan check and stops: never counted, and in
// a session with a GPU it runs nothing (a kernel that would crash the worker compiles) and goes to a
// compile worker, beside the GPU's worker, which an evaluation holds meanwhile.
TEST_F(Evaluator, ACompileCheckStopsBeforeTheGpuAndIsNeverCounted) {
  worker_pool pool(testing::worker_double(), {0});
  testing::temp_dir dir;
  evaluation_settings settings;
  settings.gpu_lock_dir = dir.path().string();
  evaluator e(pool, settings);
  const dsl &cuda = *find_dsl("cuda");

  evaluation_report crashing = e.check_compiles(routing(), cuda, solution() + "// mkb-double: crash\n");
  EXPECT_EQ(crashing.verdict, MKB_VERDICT_COMPILED) << crashing.message;
  EXPECT_FALSE(crashing.counted);
  EXPECT_TRUE(crashing.compile_check);
  EXPECT_EQ(crashing.detail, "compiles; 1 launch checked against the code compiled for sm_90a; nothing was run");
  evaluation_report broken = e.check_compiles(routing(), cuda, with(solution(), "int t =", "int t = undefined_name +"));
  EXPECT_EQ(broken.verdict, MKB_VERDICT_COMPILE_ERROR);
  EXPECT_FALSE(broken.counted);
  EXPECT_NE(broken.detail.find("undefined_name"), std::string::npos) << broken.detail;
  evaluation_report empty = e.check_compiles(routing(), cuda, "");
  EXPECT_EQ(empty.verdict, MKB_VERDICT_REFUSED);
  EXPECT_FALSE(empty.counted);

  // Another process holds the GPU: an evaluation takes the GPU's worker and queues for the GPU.
  queue_lock held = queue_lock::acquire(dir.path(), testing::double_gpu);
  std::thread evaluating([&] { e.evaluate(routing(), cuda, solution() + "// mkb-double: time_us=25\n"); });
  auto queued = [&] {
    size_t tickets = 0;
    for (const auto &f : std::filesystem::directory_iterator(dir.path() / (std::string(testing::double_gpu) + ".queue")))
      tickets += f.path().filename().string()[0] != '.';
    return tickets >= 2;
  };
  while (!std::filesystem::exists(dir.path() / (std::string(testing::double_gpu) + ".queue")) || !queued())
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto checking = std::async(std::launch::async, [&] { return e.check_compiles(routing(), cuda, solution()); });
  bool answered = checking.wait_for(std::chrono::seconds(120)) == std::future_status::ready;
  held = queue_lock(); // lets the evaluation run
  evaluating.join();
  ASSERT_TRUE(answered) << "the check waited behind the evaluation";
  EXPECT_EQ(checking.get().verdict, MKB_VERDICT_COMPILED);
}

} // namespace
} // namespace mkb