// The whole evaluation on a real GPU through the real worker: each of the suite's stored solutions
// passes (and beats its baseline unless declared slower), and every hostile submission in gpu/hostile
// gets its verdict while the host process survives and the next evaluation works.
#include <gtest/gtest.h>

#include <cctype>
#include <vector>

#include <fmt/format.h>

#include "core/files.hpp"
#include "core/names.hpp"
#include "mkb.h"
#include "eval/evaluator.hpp"
#include "spec/suite.hpp"
#include "support/gpu_presence.hpp"
#include "support/paths.hpp"
#include "support/stored_solutions.hpp"
#include "worker/failure.hpp"

namespace mkb {
namespace {

class EvaluationGpu : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    problems_ = new suite(suite::load(std::nullopt));
    if (!testing::gpu_absence_reason().empty()) return;
    pool_ = new worker_pool(testing::real_worker(), {0});
    evaluation_settings settings;
    settings.launch_timeout = std::chrono::seconds(5); // the endless-loop case waits this long
    settings.cache_dir = default_cache_dir().string();
    settings.frontends.cache_dir = settings.cache_dir;
    evaluator_ = new evaluator(*pool_, settings);
  }
  static void TearDownTestSuite() {
    delete evaluator_;
    delete pool_;
    delete problems_;
  }
  void SetUp() override { MKB_REQUIRE_GPU(); }

  static evaluation_report evaluate(const std::string &problem_id, const std::string &source,
                                    const std::string &dsl_name = "cuda") {
    const problem *p = problems_->find(problem_id);
    EXPECT_NE(p, nullptr);
    evaluation_report r = evaluator_->evaluate(*p, *find_dsl(dsl_name), source);
    std::printf("---- %s in %s\n%s", problem_id.c_str(), dsl_name.c_str(), r.message.c_str());
    return r;
  }
  static std::string hostile(const std::string &name, const std::string &dsl_name = "cuda") {
    // `cute` is `cuda` with CUTLASS on the include path: the same files attack it.
    if (dsl_name == "cuda" || dsl_name == "cute") return read_file(testing::source_dir() + "/tests/gpu/hostile/" + name + ".cu");
    return read_file(testing::source_dir() + "/tests/gpu/hostile/" + dsl_name + "/" + name + ".py");
  }
  // Empty when `dsl_name`'s toolchain works here, else why not.
  static std::string unusable(const std::string &dsl_name) {
    std::string why;
    const dsl *d = find_dsl(dsl_name);
    return d && d->usable(&why) ? std::string() : dsl_name + " is not usable here: " + why;
  }

  static suite *problems_;
  static worker_pool *pool_;
  static evaluator *evaluator_;
};

suite *EvaluationGpu::problems_ = nullptr;
worker_pool *EvaluationGpu::pool_ = nullptr;
evaluator *EvaluationGpu::evaluator_ = nullptr;

constexpr const char *rmsnorm = "fused_add_rmsnorm_h4096_llama31_8b_bf16";
constexpr const char *routing = "topk_softmax_routing_mixtral_8x7b_bf16";

// One test per stored solution of the built-in suite, so that a run can be cut into calls, or narrowed
// to one problem, with --gtest_filter (a single large problem takes minutes).
struct stored_case {
  std::string problem_id;
  stored_solution solution;
};

void PrintTo(const stored_case &c, std::ostream *out) { *out << c.problem_id << " in " << c.solution.dsl; }

std::vector<stored_case> stored_cases() {
  std::vector<stored_case> cases;
  const suite built_in = suite::load(std::nullopt);
  for (const problem &p : built_in.problems())
    for (const stored_solution &s : p.solutions) cases.push_back({p.id, s});
  return cases;
}

std::string stored_case_name(const ::testing::TestParamInfo<stored_case> &info) {
  std::string name = info.param.problem_id + "_" + info.param.solution.dsl;
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

class StoredSolutionGpu : public EvaluationGpu, public ::testing::WithParamInterface<stored_case> {};

TEST_P(StoredSolutionGpu, PassesAndBeatsTheBaselineWhereDeclared) {
  const auto &[problem_id, solution] = GetParam();
  if (std::string why = unusable(solution.dsl); !why.empty()) GTEST_SKIP() << why;
  const problem *p = problems_->find(problem_id);
  ASSERT_NE(p, nullptr) << problem_id;
  evaluation_report r = evaluate(problem_id, testing::stored_solution_source(*p, solution.dsl), solution.dsl);
  if (r.verdict == MKB_VERDICT_REFUSED && r.detail.find(worker::gpu_too_small) != std::string::npos)
    GTEST_SKIP() << r.detail;
  ASSERT_EQ(r.verdict, MKB_VERDICT_PASSED) << r.message;
  std::printf("---- %s in %s: %.2f us vs baseline %.2f us (%.2fx)\n", problem_id.c_str(), solution.dsl.c_str(),
              r.time_us, r.baseline_us, r.speedup);
  if (solution.beats_baseline) EXPECT_GT(r.speedup, 1.0);
  EXPECT_GE(r.result.submission_time.samples, 50);
  EXPECT_EQ(r.result.reverified.size(), 3u);
  for (const output_check &c : r.result.checks) EXPECT_TRUE(c.passed) << c.name;
}

INSTANTIATE_TEST_SUITE_P(BuiltInSuite, StoredSolutionGpu, ::testing::ValuesIn(stored_cases()), stored_case_name);

struct hostile_case {
  const char *file;
  int verdict;
  const char *detail;       // a phrase the detail must contain
  const char *dsl = "cuda"; // tests/gpu/hostile/<dsl>/ for the other DSLs
};

void PrintTo(const hostile_case &c, std::ostream *out) { *out << c.dsl << "/" << c.file; }

class HostileGpu : public EvaluationGpu, public ::testing::WithParamInterface<hostile_case> {};

TEST_P(HostileGpu, GetsItsVerdictAndTheNextEvaluationWorks) {
  const hostile_case &c = GetParam();
  if (std::string why = unusable(c.dsl); !why.empty()) GTEST_SKIP() << why;
  evaluation_report r = evaluate(rmsnorm, hostile(c.file, c.dsl), c.dsl);
  EXPECT_EQ(r.verdict, c.verdict) << r.message;
  EXPECT_TRUE(r.counted);
  EXPECT_NE(r.detail.find(c.detail), std::string::npos) << r.detail;
  // The host survived; the (possibly replaced) worker evaluates the next submission normally.
  evaluation_report next = evaluate(routing, testing::stored_solution_source(*problems_->find(routing), "cuda"));
  EXPECT_EQ(next.verdict, MKB_VERDICT_PASSED) << next.message;
}

INSTANTIATE_TEST_SUITE_P(
    Rmsnorm, HostileGpu,
    ::testing::Values(hostile_case{"correct_simple", MKB_VERDICT_PASSED, "correct"},
                      hostile_case{"wrong_values", MKB_VERDICT_WRONG_ANSWER, "output 'y'"},
                      hostile_case{"nan", MKB_VERDICT_WRONG_ANSWER, "NaN"},
                      hostile_case{"half_output", MKB_VERDICT_WRONG_ANSWER, "was it written"},
                      hostile_case{"past_end", MKB_VERDICT_OUT_OF_BOUNDS, "after 'y'"},
                      hostile_case{"past_end_of_many_scratch", MKB_VERDICT_OUT_OF_BOUNDS, "after 's29'"},
                      hostile_case{"modify_input", MKB_VERDICT_INPUT_MODIFIED, "input 'hidden_states'"},
                      hostile_case{"update_residual", MKB_VERDICT_INPUT_MODIFIED, "input 'residual'"},
                      hostile_case{"illegal_address", MKB_VERDICT_FAULT, "ILLEGAL_ADDRESS"},
                      hostile_case{"endless_loop", MKB_VERDICT_TIMEOUT, "did not finish"},
                      hostile_case{"zeros", MKB_VERDICT_WRONG_ANSWER, "output 'y'"},
                      hostile_case{"copy_of_input", MKB_VERDICT_WRONG_ANSWER, "output 'y'"},
                      hostile_case{"cache_first_result", MKB_VERDICT_WRONG_ANSWER, "draw 1"},
                      hostile_case{"lazy_after_correctness", MKB_VERDICT_INCONSISTENT, "re-verified"}),
    [](const ::testing::TestParamInfo<hostile_case> &info) { return std::string(info.param.file); });

INSTANTIATE_TEST_SUITE_P(
    RmsnormCute, HostileGpu,
    ::testing::Values(hostile_case{"wrong_values", MKB_VERDICT_WRONG_ANSWER, "output 'y'", "cute"},
                      hostile_case{"past_end", MKB_VERDICT_OUT_OF_BOUNDS, "after 'y'", "cute"},
                      hostile_case{"modify_input", MKB_VERDICT_INPUT_MODIFIED, "input 'hidden_states'", "cute"},
                      hostile_case{"illegal_address", MKB_VERDICT_FAULT, "ILLEGAL_ADDRESS", "cute"},
                      hostile_case{"cache_first_result", MKB_VERDICT_WRONG_ANSWER, "draw 1", "cute"},
                      hostile_case{"lazy_after_correctness", MKB_VERDICT_INCONSISTENT, "re-verified", "cute"}),
    [](const ::testing::TestParamInfo<hostile_case> &info) { return std::string(info.param.file); });

// The same attacks written in the Python DSLs (what they allow: no state kept between runs, no
// launch shape beyond what the compiler fixed).
INSTANTIATE_TEST_SUITE_P(
    RmsnormTriton, HostileGpu,
    ::testing::Values(hostile_case{"wrong_values", MKB_VERDICT_WRONG_ANSWER, "output 'y'", "triton"},
                      hostile_case{"nan", MKB_VERDICT_WRONG_ANSWER, "NaN", "triton"},
                      hostile_case{"half_output", MKB_VERDICT_WRONG_ANSWER, "was it written", "triton"},
                      hostile_case{"past_end", MKB_VERDICT_OUT_OF_BOUNDS, "after 'y'", "triton"},
                      hostile_case{"modify_input", MKB_VERDICT_INPUT_MODIFIED, "input 'hidden_states'", "triton"},
                      hostile_case{"illegal_address", MKB_VERDICT_FAULT, "ILLEGAL_ADDRESS", "triton"},
                      hostile_case{"endless_loop", MKB_VERDICT_TIMEOUT, "did not finish", "triton"}),
    [](const ::testing::TestParamInfo<hostile_case> &info) { return std::string(info.param.file); });

INSTANTIATE_TEST_SUITE_P(
    RmsnormCuteDsl, HostileGpu,
    ::testing::Values(hostile_case{"wrong_values", MKB_VERDICT_WRONG_ANSWER, "output 'y'", "cute-dsl"},
                      hostile_case{"nan", MKB_VERDICT_WRONG_ANSWER, "NaN", "cute-dsl"},
                      hostile_case{"half_output", MKB_VERDICT_WRONG_ANSWER, "was it written", "cute-dsl"},
                      hostile_case{"past_end", MKB_VERDICT_OUT_OF_BOUNDS, "after 'y'", "cute-dsl"},
                      hostile_case{"modify_input", MKB_VERDICT_INPUT_MODIFIED, "input 'hidden_states'", "cute-dsl"},
                      hostile_case{"illegal_address", MKB_VERDICT_FAULT, "ILLEGAL_ADDRESS", "cute-dsl"},
                      hostile_case{"endless_loop", MKB_VERDICT_TIMEOUT, "did not finish", "cute-dsl"}),
    [](const ::testing::TestParamInfo<hostile_case> &info) { return std::string(info.param.file); });

INSTANTIATE_TEST_SUITE_P(
    RmsnormTirx, HostileGpu,
    ::testing::Values(hostile_case{"wrong_values", MKB_VERDICT_WRONG_ANSWER, "output 'y'", "tirx"},
                      hostile_case{"nan", MKB_VERDICT_WRONG_ANSWER, "NaN", "tirx"},
                      hostile_case{"half_output", MKB_VERDICT_WRONG_ANSWER, "was it written", "tirx"},
                      hostile_case{"past_end", MKB_VERDICT_OUT_OF_BOUNDS, "after 'y'", "tirx"},
                      hostile_case{"modify_input", MKB_VERDICT_INPUT_MODIFIED, "input 'hidden_states'", "tirx"},
                      hostile_case{"illegal_address", MKB_VERDICT_FAULT, "ILLEGAL_ADDRESS", "tirx"},
                      hostile_case{"endless_loop", MKB_VERDICT_TIMEOUT, "did not finish", "tirx"}),
    [](const ::testing::TestParamInfo<hostile_case> &info) { return std::string(info.param.file); });

TEST_F(EvaluationGpu, TiesMustBreakTowardTheLowerExpert) {
  evaluation_report r = evaluate(routing, hostile("routing_wrong_tie_break"));
  EXPECT_EQ(r.verdict, MKB_VERDICT_WRONG_ANSWER) << r.message;
  EXPECT_EQ(r.result.mismatch.output, "expert_ids");
  EXPECT_EQ(r.result.mismatch.kind, "integer");
}

TEST_F(EvaluationGpu, LaunchShapeBeyondTheKernelIsALaunchError) {
  std::string source = testing::stored_solution_source(*problems_->find(rmsnorm), "cuda");
  source.replace(source.find("block(512)"), 10, "block(1024)"); // __launch_bounds__(512)
  evaluation_report r = evaluate(rmsnorm, source);
  EXPECT_EQ(r.verdict, MKB_VERDICT_LAUNCH_ERROR) << r.message;
  EXPECT_NE(r.detail.find("at most 512 threads"), std::string::npos) << r.detail;
}

TEST_F(EvaluationGpu, TooMuchScratchIsOutOfMemory) {
  std::string source = testing::stored_solution_source(*problems_->find(routing), "cuda");
  source.replace(source.find("/* mkb:plan\n"), 12, "/* mkb:plan\nscratch hoard fp32[50 * 1024 * 1024 * 1024]\n");
  evaluation_report r = evaluate(routing, source);
  EXPECT_EQ(r.verdict, MKB_VERDICT_OUT_OF_MEMORY) << r.message;
}

// A kernel of the baseline that faults right before a cuBLAS step. Where the fault is first seen
// depends on timing: where cuBLAS cannot launch, or at the next wait. Either way it is a fault that
// replaces the worker, so that the next evaluation is unharmed (seen on the H200: it came back as
// cuBLAS's refusal, and every later evaluation on that worker failed to load its code).
TEST_F(EvaluationGpu, AFaultSeenOnlyByACublasStepLosesTheWorkerNotTheNextEvaluation) {
  constexpr const char *adaln = "adaln_modulation_output_projection_flux_kontext_fp32";
  problem faulting = *problems_->find(adaln);
  std::string &baseline = faulting.baseline_source;
  baseline.insert(baseline.find("/* mkb:plan"),
                  "extern \"C\" __global__ void wild() { *reinterpret_cast<volatile int *>(0x10) = 1; }\n");
  size_t first_matmul = baseline.find("\nmatmul ");
  ASSERT_NE(first_matmul, std::string::npos);
  baseline.insert(first_matmul + 1, "launch wild grid(1) block(1) args()\n");
  std::string solution = testing::stored_solution_source(faulting, "cuda");
  evaluation_report r = evaluator_->evaluate(faulting, *find_dsl("cuda"), solution);
  EXPECT_EQ(r.verdict, MKB_VERDICT_FAULT) << r.message;
  EXPECT_NE(r.detail.find("ILLEGAL_ADDRESS"), std::string::npos) << r.detail;
  evaluation_report next = evaluate(adaln, solution);
  EXPECT_EQ(next.verdict, MKB_VERDICT_PASSED) << next.message;
}

// A submission that behaves while it is checked and faults in a timed draw (its 21st call), on a
// problem whose baseline has cuBLAS steps: timed draws of the two alternate unsynchronized, so the
// fault may first be seen by a launch of the baseline's. It is the submission's fault, counted, and
// the next evaluation on the same worker pool is unharmed.
TEST_F(EvaluationGpu, AFaultOnlyInTimedDrawsIsAFaultAndTheNextEvaluationWorks) {
  constexpr const char *adaln = "adaln_modulation_output_projection_flux_kontext_fp32";
  const std::string solution = testing::stored_solution_source(*problems_->find(adaln), "cuda");
  std::string hostile = solution;
  size_t kernel = hostile.find("silu_gemm(");
  ASSERT_NE(kernel, std::string::npos);
  hostile.insert(hostile.find('{', kernel) + 1,
                 "\n  if (blockIdx.x == 0 && threadIdx.x == 0 && atomicAdd(&hostile_calls, 1u) == 20u)"
                 " *reinterpret_cast<volatile int *>(0x10) = 1;\n");
  hostile.insert(hostile.rfind("extern \"C\"", kernel), "__device__ unsigned hostile_calls;\n");
  evaluation_report r = evaluate(adaln, hostile);
  EXPECT_EQ(r.verdict, MKB_VERDICT_FAULT) << r.message;
  EXPECT_TRUE(r.counted) << r.message;
  evaluation_report next = evaluate(adaln, solution);
  EXPECT_EQ(next.verdict, MKB_VERDICT_PASSED) << next.message;
}

} // namespace
} // namespace mkb
