// `mkb check` without a GPU (compile-only): names that name nothing, and the exit codes of docs/CLI.md.
#include <gtest/gtest.h>

#include <regex>

#include "api/open_options.hpp"
#include "core/files.hpp"
#include "protocol/discovery.hpp"
#include "support/json_check.hpp"
#include "support/paths.hpp"
#include "support/run_mkb.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

using testing::run_mkb;

constexpr const char *routing = "topk_softmax_routing_mixtral_8x7b_bf16";

std::string solution(const std::string &file) {
  return read_file(testing::source_dir() + "/problems/extra/" + routing + "/solutions/" + file);
}

std::vector<std::string> check(const std::string &dsl, const std::string &file, std::vector<std::string> more = {}) {
  std::vector<std::string> arguments = {"check", "--compile-only", "--problem", routing, "--dsl", dsl, file};
  arguments.insert(arguments.end(), more.begin(), more.end());
  return arguments;
}

TEST(CheckCli, AMisspeltProblemOrDslIsListedWithTheClosestName) {
  testing::temp_dir io;
  std::string kernel = io.write("k.cu", solution("cuda.cu")).string();
  auto problem = run_mkb(io, {"check", "--problem", "topk_softmax_routing_mixtral_8x7b_fp16", "--dsl", "cuda", kernel});
  EXPECT_EQ(problem.exit_code, 2);
  EXPECT_EQ(problem.err.find(std::string("mkb check: no problem 'topk_softmax_routing_mixtral_8x7b_fp16' in the built-in "
                                         "suite; did you mean '") + routing + "'?\nthe problems are:\n"),
            0u)
      << problem.err;
  EXPECT_NE(problem.err.find("\n  rmsnorm_h128_qwen3_30b_bf16\n"), std::string::npos) << problem.err;

  auto dsl = run_mkb(io, {"check", "--problem", routing, "--dsl", "trition", kernel});
  EXPECT_EQ(dsl.exit_code, 2);
  EXPECT_EQ(dsl.err.find("mkb check: no DSL 'trition' in this build; did you mean 'triton'?\nthe DSLs are:\n  cuda\n"), 0u)
      << dsl.err;
  EXPECT_EQ(dsl.out, "");
}

TEST(CheckCli, ExitCodes) {
  testing::temp_dir io;
  auto compiled = run_mkb(io, check("cuda", io.write("good.cu", solution("cuda.cu")).string()));
  EXPECT_EQ(compiled.exit_code, 0) << compiled.out << compiled.err;
  EXPECT_EQ(compiled.out.find("COMPILED"), 0u) << compiled.out;

  std::string broken = std::regex_replace(solution("cuda.cu"), std::regex("__global__"), "__global__ no_such_type", std::regex_constants::format_first_only);
  auto compile_error = run_mkb(io, check("cuda", io.write("bad.cu", broken).string()));
  EXPECT_EQ(compile_error.exit_code, 1) << "a compile error is a failing verdict: " << compile_error.out << compile_error.err;
  EXPECT_EQ(compile_error.out.find("COMPILE_ERROR"), 0u) << compile_error.out;

  auto refused = run_mkb(io, check("cuda", io.write("empty.cu", "").string()));
  EXPECT_EQ(refused.exit_code, 1) << "a submission refused for itself is a negative answer: " << refused.out;
  EXPECT_EQ(refused.out.find("REFUSED"), 0u) << refused.out;

  auto json = run_mkb(io, check("cuda", io.write("bad2.cu", broken).string(), {"--json"}));
  EXPECT_EQ(json.exit_code, 1);
  EXPECT_TRUE(testing::is_json(json.out)) << json.out;
  EXPECT_NE(json.out.find(R"("verdict":"compile_error")"), std::string::npos) << json.out;
}

// A compile-only check refuses a plan asking more dynamic shared memory than the target allows a block,
// as the GPU would at launch: 120000 bytes fit sm_90a's 227 KiB but not sm_86's 99 KiB.
TEST(CheckCli, ACompileOnlyCheckHoldsSharedMemoryToTheTarget) {
  testing::temp_dir io;
  auto asking = [&](int bytes) {
    std::string source = solution("cuda.cu");
    source.replace(source.find("block(256)"), 10, "block(256) shared(" + std::to_string(bytes) + ")");
    return io.write("shared" + std::to_string(bytes) + ".cu", source).string();
  };
  auto fits = run_mkb(io, check("cuda", asking(120000)));
  EXPECT_EQ(fits.exit_code, 0) << fits.out << fits.err;

  auto hopper = run_mkb(io, check("cuda", asking(300000)));
  EXPECT_EQ(hopper.exit_code, 1) << hopper.out << hopper.err;
  EXPECT_EQ(hopper.out.find("LAUNCH_ERROR"), 0u) << hopper.out;
  EXPECT_NE(hopper.out.find("asks for 300000 bytes of dynamic shared memory; sm_90a allows a block at most 232448"),
            std::string::npos) << hopper.out;

  auto ampere = run_mkb(io, check("cuda", asking(120000), {"--target-arch", "sm_86"}));
  EXPECT_EQ(ampere.exit_code, 1) << ampere.out << ampere.err;
  EXPECT_NE(ampere.out.find("sm_86 allows a block at most 101376"), std::string::npos) << ampere.out;
}

// A suite of extra problems alone, which a default session refuses, still checks each by its id.
TEST(CheckCli, AnExtraProblemIsCheckedInASuiteOfExtrasAlone) {
  testing::temp_dir io, suite_dir;
  testing::write_problem(suite_dir, "extra", "tiny", testing::tiny_spec("tiny", "extra"));
  std::string kernel = io.write("k.cu", read_file((suite_dir.path() / "extra/tiny/baseline.cu").string())).string();
  auto r = run_mkb(io, {"check", "--compile-only", "--suite", suite_dir.path().string(), "--problem", "tiny", "--dsl",
                        "cuda", kernel});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("COMPILED"), 0u) << r.out << r.err;
}

TEST(CheckCli, APythonSubmissionThatDoesNotParseExits1) {
  for (const dsl_availability &d : survey_toolchains(config_from_options(nullptr)).dsls)
    if (d.name == "triton" && !d.usable) GTEST_SKIP() << "Triton is not usable here: " << d.detail;
  testing::temp_dir io;
  std::string broken = solution("triton.py");
  broken.replace(broken.find("def top2_softmax("), 17, "def top2_softmax(((");
  auto r = run_mkb(io, check("triton", io.write("bad.py", broken).string()));
  EXPECT_EQ(r.exit_code, 1) << "exit 3 is for infrastructure failures: " << r.out << r.err;
  EXPECT_NE(r.out.find("not valid Python"), std::string::npos) << r.out;
}

} // namespace
} // namespace mkb
