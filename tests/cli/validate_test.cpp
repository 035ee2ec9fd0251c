// `mkb suite validate` where the stored solutions are not: the library embeds none, so the tool reads
// them from disk and, when it cannot, fails the problem naming where it looked. (Solutions that are
// found are validated by the CTests suite.validate_compile.<problem> and .ci/gpu-validate.)
#include <gtest/gtest.h>

#include <algorithm>

#include "core/files.hpp"
#include "support/json_check.hpp"
#include "support/paths.hpp"
#include "support/run_mkb.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

using testing::run_mkb;
using testing::temp_dir;

constexpr const char *routing = "topk_softmax_routing_mixtral_8x7b_bf16";

TEST(ValidateCli, ASuiteFolderMissingASolutionFailsTheProblemNamingTheFile) {
  temp_dir suite, io;
  std::string spec = testing::tiny_spec();
  spec.insert(spec.rfind('}'), R"(, "solutions": [ { "dsl": "cuda", "file": "solutions/cuda.cu" } ])");
  testing::write_problem(suite, "test", "tiny", spec);

  auto r = run_mkb(io, {"suite", "validate", "--compile-only", "--suite", suite.path().string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  std::string file = (suite.path() / "test" / "tiny" / "solutions" / "cuda.cu").string();
  EXPECT_NE(r.out.find("Stored solutions: from the first of " + suite.path().string() + " that"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the cuda solution of problem 'tiny': cannot read " + file), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAILED: the cuda solution: not found"), std::string::npos) << r.out;
}

TEST(ValidateCli, EveryStoredSolutionDeclaredSlowerNeedsTheBaselineDeclaredUnbeaten) {
  temp_dir suite, io;
  std::string spec = testing::tiny_spec();
  spec.insert(spec.rfind('}'), R"(, "solutions": [ { "dsl": "cuda", "file": "solutions/cuda.cu", "beats_baseline": false } ])");
  std::string solution = "extern \"C\" __global__ void k(const float *x, float *y, int n) {}\n"
                         "/* mkb:plan\nlaunch k grid(1) block(1) args(x, y, i32(n))\n*/\n";
  testing::write_problem(suite, "test", "tiny", spec, {{"solutions/cuda.cu", solution}});
  auto r = run_mkb(io, {"suite", "validate", "--compile-only", "--suite", suite.path().string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("no solution is declared to beat the baseline (nor the baseline declared unbeaten)"), std::string::npos)
      << r.out;

  spec.insert(spec.rfind('}'), R"(, "unbeaten_baseline": { "why": "cuBLAS-bound, 0.96x measured" })");
  testing::write_problem(suite, "test", "tiny", spec, {{"solutions/cuda.cu", solution}});
  r = run_mkb(io, {"suite", "validate", "--compile-only", "--suite", suite.path().string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("declared unbeaten baseline: cuBLAS-bound, 0.96x measured"), std::string::npos) << r.out;
}

TEST(ValidateCli, AProblemWithAnOriginalsNumberNamesItsOriginAndKeepsEagerPy) {
  temp_dir suite, io;
  std::string spec = testing::tiny_spec();
  spec.insert(spec.rfind('}'), R"(, "number": 28)");
  testing::write_problem(suite, "test", "tiny", spec);
  auto r = run_mkb(io, {"suite", "validate", "--compile-only", "--suite", suite.path().string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("number 28 without an origin naming the original's file"), std::string::npos) << r.out;

  spec.insert(spec.rfind('}'), R"(, "origin": { "repository": "YIGE24/MetaKernelBench",
      "commit": "d90ba286164c2fa8e64afd75db5813002ede2ddd", "path": "problems/mlp_norm/28_x.py" })");
  testing::write_problem(suite, "test", "tiny", spec);
  r = run_mkb(io, {"suite", "validate", "--compile-only", "--suite", suite.path().string()});
  EXPECT_NE(r.out.find("no eager.py, the computation the original times"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("without an origin"), std::string::npos) << r.out;

  write_file_atomic(suite.path() / "test" / "tiny" / "eager.py", "def eager(inputs, symbols, constants): pass\n");
  r = run_mkb(io, {"suite", "validate", "--compile-only", "--suite", suite.path().string()});
  EXPECT_EQ(r.out.find("eager.py"), std::string::npos) << r.out;
}

TEST(ValidateCli, TheBuiltInSuiteTriesOnlyTheFolderTheEnvironmentNames) {
  temp_dir elsewhere, io;
  auto r = run_mkb(io, {"suite", "validate", "--compile-only", "--problem", routing},
                   {"MKB_SUITE_DATA_DIR=" + elsewhere.path().string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find(std::string("the stored solutions of problem '") + routing + "' are not built into libmkb"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(elsewhere.path().string() + ": no extra/" + routing + "/spec.json"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--suite DIR or MKB_SUITE_DATA_DIR"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAILED: its stored solutions are not found"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(std::string(MKB_TEST_SOURCE_DIR) + "/problems"), std::string::npos) << "only that folder is tried: " << r.out;
}

TEST(ValidateCli, AnUnknownProblemOrDslIsListedWithTheClosestName) {
  temp_dir io;
  auto problem = run_mkb(io, {"suite", "validate", "--compile-only", "--problem", "topk_softmax_routing_mixtral_8x7b"});
  EXPECT_EQ(problem.exit_code, 2);
  EXPECT_EQ(problem.err.find(std::string("mkb suite validate: no problem 'topk_softmax_routing_mixtral_8x7b' in the built-in "
                                         "suite; did you mean '") + routing + "'?\n"),
            0u)
      << problem.err;
  auto dsl = run_mkb(io, {"suite", "validate", "--compile-only", "--dsl", "cuda,trixon"});
  EXPECT_EQ(dsl.exit_code, 2);
  EXPECT_EQ(dsl.err.find("mkb suite validate: no DSL 'trixon' in this build; did you mean 'triton'?\n"), 0u) << dsl.err;
}

// --problem takes shell globs, comma-separated, as mkb_open_options.problems does.
TEST(ValidateCli, ProblemsAreSelectedByGlobs) {
  temp_dir io;
  auto r = run_mkb(io, {"suite", "validate", "--compile-only", "--dsl", "cuda", "--json", "--problem",
                        "fused_add_rmsnorm_h4096_llama31_8b_bf1[6],topk_*_mixtral_8x7b_bf16"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("Validating 2 problem(s)"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find(R"({"id":"fused_add_rmsnorm_h4096_llama31_8b_bf16",)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(std::string(R"({"id":")") + routing + "\","), std::string::npos) << r.out;
  auto none = run_mkb(io, {"suite", "validate", "--compile-only", "--problem", "no_such_*"});
  EXPECT_EQ(none.exit_code, 2) << none.err;
}

// Piped, each step's line arrives as the step starts, while the tool still runs: a fresh compile
// cache makes the compile take its time, and the test reads the pipe as it fills.
TEST(ValidateCli, ProgressLinesArriveWhileItRuns) {
  temp_dir cache;
  testing::piped_mkb run({"suite", "validate", "--compile-only", "--problem", routing, "--dsl", "cuda"},
                         {"MKB_CACHE_DIR=" + cache.path().string()});
  std::vector<std::string> seen;
  bool step_while_running = false;
  const std::string step = std::string("[1/1] compiling ") + routing + " in cuda (";
  while (std::optional<std::string> line = run.next_line()) {
    if (line->starts_with(step)) step_while_running = !run.exited();
    seen.push_back(*line);
  }
  EXPECT_EQ(run.wait(), 0);
  std::string all;
  for (const std::string &line : seen) all += line;
  EXPECT_TRUE(step_while_running) << all;
  auto at = [&](const std::string &prefix) {
    return std::find_if(seen.begin(), seen.end(), [&](const std::string &l) { return l.starts_with(prefix); }) - seen.begin();
  };
  ASSERT_LT(at(step), static_cast<long>(seen.size())) << all;
  EXPECT_LT(at("Validating 1 problem(s)"), at(step)) << "stdout is flushed before the progress: " << all;
  EXPECT_LT(at(step), at("  solution in cuda: compiled")) << all;
  EXPECT_LT(at("  solution in cuda: compiled"), at("problem ")) << "the table comes last: " << all;
  EXPECT_NE(seen[at(step)].find(" s)\n"), std::string::npos) << "with the elapsed seconds: " << seen[at(step)];
}

// After the first step, each line says about how long is left (from the mean of the steps done).
TEST(ValidateCli, ProgressGivesTheTimeLeftOnceAStepHasEnded) {
  temp_dir io;
  const std::string rms = "fused_add_rmsnorm_h4096_llama31_8b_bf16";
  auto r = run_mkb(io, {"suite", "validate", "--compile-only", "--problem", std::string(routing) + "," + rms, "--dsl", "cuda"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  size_t first = r.err.find("[1/2] compiling "), second = r.err.find("[2/2] compiling ");
  ASSERT_NE(first, std::string::npos) << r.err;
  ASSERT_NE(second, std::string::npos) << r.err;
  std::string first_line = r.err.substr(first, r.err.find('\n', first) - first);
  std::string second_line = r.err.substr(second, r.err.find('\n', second) - second);
  EXPECT_EQ(first_line.find("left"), std::string::npos) << "no estimate before a step has ended: " << first_line;
  EXPECT_TRUE(second_line.ends_with(" s left)")) << second_line;
  EXPECT_NE(second_line.find(" s, about "), std::string::npos) << second_line;
}

TEST(ValidateCli, JsonOnStdoutDetailsAndProgressOnStderr) {
  temp_dir io;
  auto r = run_mkb(io, {"suite", "validate", "--compile-only", "--problem", routing, "--dsl", "cuda", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(testing::is_json(r.out)) << r.out;
  EXPECT_EQ(r.out.find(R"({"suite":"built-in","compile_only":true,"sound":true,"problems":[{"id":")" + std::string(routing)),
            0u)
      << r.out;
  EXPECT_NE(r.out.find(R"("verdict":"compiles","failures":[],"skipped":[]})"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("[1/1] compiling "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("  solution in cuda: compiled"), std::string::npos) << r.err;
}

// On a terminal the progress is one line redrawn in place and erased when its step ends: stderr is a
// pseudo-terminal made by script(1), stdout goes elsewhere.
TEST(ValidateCli, OnATerminalProgressIsOneLiveLine) {
  if (std::system("script --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "script(1) (util-linux) is not installed";
  temp_dir io;
  std::string mkb = (testing::test_binary_dir() / "mkb").string();
  std::string command = "script -qec \"'" + mkb + "' suite validate --compile-only --problem " + routing +
                        " --dsl cuda >/dev/null\" /dev/null >'" + (io.path() / "tty").string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::string tty = read_file(io.path() / "tty");
  EXPECT_EQ(tty.find(std::string("\r\033[K[1/1] compiling ") + routing + " in cuda ("), 0u) << tty;
  EXPECT_EQ(tty.find('\n'), std::string::npos) << "no line of its own: " << tty;
  EXPECT_TRUE(tty.ends_with("\r\033[K")) << "erased at the end: " << tty;
}

} // namespace
} // namespace mkb
