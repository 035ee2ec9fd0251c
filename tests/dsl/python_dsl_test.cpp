// The Python DSL frontends (src/dsl/python_dsl.cpp, python_frontend.cpp) through a real interpreter:
// each DSL compiles a small submission for sm_90a (Triton for sm_100a too) without a GPU; Python that
// does not parse, a missing interpreter and an unreadable answer are refused with the reason, and
// everything else a submission does wrong is its counted compile error, with the frontend's message. A DSL whose pinned
// package is missing here is skipped with the reason (.ci/run installs them).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "core/error.hpp"
#include "dsl/dsl.hpp"
#include "dsl/python_frontend.hpp"
#include "dsl/sandbox.hpp"
#include "spec/file_source.hpp"
#include "spec/problem.hpp"
#include "support/scoped_environment.hpp"
#include "support/temp_dir.hpp"
#include "support/triton_scale.hpp"

namespace mkb {
namespace {

using testing::triton_scale;

class PythonDsl : public ::testing::Test {
protected:
  void SetUp() override {
    testing::write_problem(dir_, "test", "tiny", testing::tiny_spec());
    problem_ = load_problem(directory_source(dir_.path()), "test/tiny");
  }

  const dsl &require(const char *name) {
    const dsl *d = find_dsl(name);
    if (!d) ADD_FAILURE() << name << " is not registered";
    return *d;
  }

  // The message of the `failure` that preparing `source` fails with.
  template <class failure>
  std::string failure_of(const dsl &d, const std::string &source, const frontend_environment &env) {
    try {
      d.prepare(source, problem_, plan_role::submission, env);
    } catch (const failure &e) {
      return e.what();
    } catch (const std::exception &e) {
      ADD_FAILURE() << "another failure: " << e.what();
      return {};
    }
    ADD_FAILURE() << "prepared: " << source;
    return {};
  }
  // Refused before evaluation, not counted.
  std::string refusal(const dsl &d, const std::string &source, const frontend_environment &env = {}) {
    return failure_of<submission_error>(d, source, env);
  }
  // A counted compile error.
  std::string compile_error(const dsl &d, const std::string &source, const frontend_environment &env = {}) {
    return failure_of<compile_failure>(d, source, env);
  }

  testing::temp_dir dir_;
  problem problem_;
};

#define MKB_REQUIRE_USABLE(d)                                                                          \
  do {                                                                                                 \
    std::string why;                                                                                   \
    if (!(d).usable(&why)) GTEST_SKIP() << (d).name() << " is not usable here: " << why;               \
  } while (0)

// The frontend runs these submissions before they import their DSL's package, so the package need not
// be installed; a sandbox must be usable (or opted out of), as it is not inside some containers.
#define MKB_REQUIRE_SANDBOX()                                                                          \
  do {                                                                                                 \
    const python_sandbox &box = python_sandbox_for(frontend_environment{}.python);                     \
    if (!box.usable() && !sandbox_disabled_by_environment())                                           \
      GTEST_SKIP() << "no usable Python sandbox here: "                                                \
                   << (box.sandbox_error.empty() ? box.interpreter_error : box.sandbox_error);         \
  } while (0)

TEST_F(PythonDsl, TritonCompilesToLinkedPtxWithItsScratchParameters) {
  const dsl &triton = require("triton");
  MKB_REQUIRE_USABLE(triton);
  prepared_submission s = triton.prepare(triton_scale, problem_, plan_role::submission);
  ASSERT_EQ(s.module.ptx.size(), 1u);
  EXPECT_NE(s.module.ptx[0].find(".target sm_90a"), std::string::npos);
  ASSERT_EQ(s.plan.launches.size(), 1u);
  const resolved_launch &l = s.plan.launches[0];
  EXPECT_NE(s.module.ptx[0].find(".entry " + l.entry), std::string::npos) << l.entry;
  EXPECT_EQ(l.block, (std::array<uint32_t, 3>{128, 1, 1}));
  // x, y, n, then Triton's global and profile scratch pointers, passed as 0.
  ASSERT_EQ(l.args.size(), 5u);
  EXPECT_EQ(l.args[3].kind, arg_kind::u64);
  EXPECT_EQ(l.args[4].integer, 0);
}

TEST_F(PythonDsl, TritonCompilesForTheArchitectureAsked) {
  const dsl &triton = require("triton");
  MKB_REQUIRE_USABLE(triton);
  frontend_environment blackwell;
  blackwell.arch = "sm_100a";
  prepared_submission s = triton.prepare(triton_scale, problem_, plan_role::submission, blackwell);
  ASSERT_EQ(s.module.ptx.size(), 1u);
  EXPECT_NE(s.module.ptx[0].find(".target sm_100a"), std::string::npos);
}

// What does not fit the plan, raises, or does not trace is the submission's compile error (counted);
// only what cannot enter evaluation, a plan or Python that does not parse, is refused.
TEST_F(PythonDsl, TritonCountsWhatItCannotCompileAndRefusesWhatDoesNotParse) {
  const dsl &triton = require("triton");
  MKB_REQUIRE_USABLE(triton);
  std::string source = triton_scale;
  auto with = [&](const std::string &from, const std::string &to) {
    return std::string(source).replace(source.find(from), from.size(), to);
  };
  EXPECT_NE(compile_error(triton, with("block(128)", "block(100)")).find("32 * num_warps"), std::string::npos);
  EXPECT_NE(compile_error(triton, with("launch scale", "launch scal")).find("defines no 'scal'"), std::string::npos);
  EXPECT_NE(compile_error(triton, with(", i32(n)", "")).find("the plan passes 2"), std::string::npos);
  std::string traced = compile_error(triton, with("* 2.0", "* undefined_name"));
  EXPECT_NE(traced.find("undefined_name"), std::string::npos) << traced;
  std::string raised = compile_error(triton, "raise ValueError('mkb-own-words')\n" + source);
  EXPECT_NE(raised.find("ValueError: mkb-own-words"), std::string::npos) << raised;
  EXPECT_NE(raised.find("line 1"), std::string::npos) << raised;
  std::string exited = compile_error(triton, "import sys\nsys.exit(3)\n" + source);
  EXPECT_NE(exited.find("SystemExit: 3"), std::string::npos) << exited;

  std::string syntax = refusal(triton, with("def scale(", "def scale(("));
  EXPECT_NE(syntax.find("not valid Python"), std::string::npos) << syntax;
  EXPECT_NE(syntax.find("SyntaxError"), std::string::npos) << syntax;
  EXPECT_NE(syntax.find("line 5"), std::string::npos) << syntax;
  EXPECT_NE(refusal(triton, with("import triton\n", std::string("import triton\n") + '\0' + "\n")).find("not valid Python"), std::string::npos);
  EXPECT_NE(refusal(triton, "import triton\n").find("no launch plan"), std::string::npos);
}

// A DSL compiles a launch's specialization: Triton assumes what it was shown of an integer argument (a
// multiple of 16 or not), so a kernel launched with n = 16 and n = 15 is compiled twice, each launch
// runs its own entry, and a launch alike an earlier one shares its entry.
TEST_F(PythonDsl, TritonCompilesEachSpecializationOfAKernel) {
  const dsl &triton = require("triton");
  MKB_REQUIRE_USABLE(triton);
  std::string source = triton_scale;
  const std::string line = "launch scale grid(ceil_div(n, 256)) block(128) args(x, y, i32(n))";
  source.replace(source.find(line), line.size(),
                 "launch scale grid(1) block(128) args(x, y, i32(16))\n"
                 "launch scale grid(1) block(128) args(x, y, i32(15))\n"
                 "launch scale grid(1) block(128) args(x, y, i32(16))");
  prepared_submission s = triton.prepare(source, problem_, plan_role::submission);
  ASSERT_EQ(s.plan.launches.size(), 3u);
  EXPECT_EQ(s.module.ptx.size(), 2u);
  EXPECT_NE(s.plan.launches[0].entry, s.plan.launches[1].entry);
  EXPECT_EQ(s.plan.launches[0].entry, s.plan.launches[2].entry);
  for (const resolved_launch &l : s.plan.launches) {
    bool found = false;
    for (const std::string &unit : s.module.ptx) found = found || unit.find(".entry " + l.entry) != std::string::npos;
    EXPECT_TRUE(found) << l.entry;
  }
}

TEST_F(PythonDsl, CuteDslCompilesOneEntryPerLaunch) {
  const dsl &cute_dsl = require("cute-dsl");
  MKB_REQUIRE_USABLE(cute_dsl);
  const char *source = R"(import cutlass
import cutlass.cute as cute

@cute.kernel
def scale(x: cute.Pointer, y: cute.Pointer, n: cutlass.Int32):
    i = cute.arch.block_idx()[0] * 128 + cute.arch.thread_idx()[0]
    gx = cute.make_tensor(x, cute.make_layout(1000))
    gy = cute.make_tensor(y, cute.make_layout(1000))
    if i < n:
        gy[i] = gx[i] * cutlass.Float32(2.0)

MKB_PLAN = """/* mkb:plan
launch scale grid(8) block(128) args(x, y, i32(n))
*/"""
)";
  prepared_submission s = cute_dsl.prepare(source, problem_, plan_role::submission);
  ASSERT_EQ(s.module.ptx.size(), 1u);
  const resolved_launch &l = s.plan.launches[0];
  EXPECT_NE(s.module.ptx[0].find(".entry " + l.entry), std::string::npos) << l.entry;
  EXPECT_EQ(l.args.size(), 3u); // no parameters added

  // The block shape is compiled into the kernel: launched again with another, it is compiled again.
  std::string twice = source;
  const std::string line = "launch scale grid(8) block(128) args(x, y, i32(n))";
  twice.replace(twice.find(line), line.size(), line + "\nlaunch scale grid(16) block(64) args(x, y, i32(n))");
  prepared_submission t = cute_dsl.prepare(twice, problem_, plan_role::submission);
  ASSERT_EQ(t.module.ptx.size(), 2u);
  ASSERT_EQ(t.plan.launches.size(), 2u);
  EXPECT_NE(t.plan.launches[0].entry, t.plan.launches[1].entry);
  EXPECT_NE(t.module.ptx[1].find(".entry " + t.plan.launches[1].entry), std::string::npos);
}

TEST_F(PythonDsl, TirxHandsBackCudaSourceForNvrtc) {
  const dsl &tirx = require("tirx");
  MKB_REQUIRE_USABLE(tirx);
  const char *source = R"(from tvm.script import tirx as T

@T.prim_func
def scale(x_ptr: T.handle, y_ptr: T.handle):
    X = T.match_buffer(x_ptr, (1024,), "float32")
    Y = T.match_buffer(y_ptr, (1024,), "float32")
    T.device_entry()
    bx = T.cta_id([4])
    tx = T.thread_id([256])
    Y[bx * 256 + tx] = X[bx * 256 + tx] * T.float32(2.0)

MKB_PLAN = """/* mkb:plan
launch scale grid(4) block(256) args(x, y)
*/"""
)";
  prepared_submission s = tirx.prepare(source, problem_, plan_role::submission);
  EXPECT_TRUE(s.module.ptx.empty());
  EXPECT_NE(s.module.source.find("scale_kernel"), std::string::npos);
  EXPECT_EQ(s.plan.launches[0].entry, "scale_kernel");
}

TEST_F(PythonDsl, TirxArgumentsFollowTheKernelsOwnParameterOrder) {
  const dsl &tirx = require("tirx");
  MKB_REQUIRE_USABLE(tirx);
  // TVM orders a kernel's parameters by buffer name: Y is declared first but comes second.
  const char *source = R"(from tvm.script import tirx as T

@T.prim_func
def scale(y_ptr: T.handle, x_ptr: T.handle, n: T.int32):
    X = T.match_buffer(x_ptr, (1024,), "float32")
    Y = T.match_buffer(y_ptr, (1024,), "float32")
    T.device_entry()
    bx = T.cta_id([4])
    tx = T.thread_id([256])
    if bx * 256 + tx < n:
        Y[bx * 256 + tx] = X[bx * 256 + tx] * T.float32(2.0)

MKB_PLAN = """/* mkb:plan
launch scale grid(4) block(256) args(y, x, i32(n))
*/"""
)";
  prepared_submission s = tirx.prepare(source, problem_, plan_role::submission);
  const resolved_launch &l = s.plan.launches[0];
  ASSERT_EQ(l.args.size(), 3u);
  EXPECT_EQ(l.args[0].buffer, "x");
  EXPECT_EQ(l.args[1].buffer, "y");
  EXPECT_EQ(l.args[2].kind, arg_kind::i32);
}

TEST_F(PythonDsl, AMissingInterpreterOrPackageIsNamed) {
  frontend_environment env;
  env.python = "/nonexistent/python3";
  for (const char *name : {"triton", "cute-dsl", "tirx"}) {
    std::string why;
    EXPECT_FALSE(require(name).usable(env, &why)) << name;
    EXPECT_NE(why.find("/nonexistent/python3"), std::string::npos) << why;
    EXPECT_NE(refusal(require(name), triton_scale, env).find("/nonexistent/python3"), std::string::npos);
  }
  env.python = "python3";
  env.cutlass_include = dir_.path().string();
  std::string why;
  EXPECT_FALSE(require("cute").usable(env, &why));
  EXPECT_NE(why.find("holds no cute/tensor.hpp"), std::string::npos) << why;
}

TEST_F(PythonDsl, AFloodedAnswerIsRefused) {
  MKB_REQUIRE_SANDBOX();
  const dsl &triton = require("triton");
  // The submission's own code writes into the answer channel before the frontend answers.
  std::string message = refusal(triton, std::string("import os\nos.write(3, b'[' * (80 << 20))\n") + triton_scale);
  EXPECT_NE(message.find("exceeds 64 MiB"), std::string::npos) << message;
}

TEST_F(PythonDsl, AFrontendThatNeverAnswersIsStopped) {
  MKB_REQUIRE_SANDBOX();
  const dsl &triton = require("triton");
  frontend_environment env;
  env.time_limit = std::chrono::seconds(2);
  auto start = std::chrono::steady_clock::now();
  // As for NVRTC, compiling too long is the submission's compile error.
  std::string message = compile_error(triton, std::string("import time\ntime.sleep(600)\n") + triton_scale, env);
  EXPECT_NE(message.find("longer than 2 s"), std::string::npos) << message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

// The frontend's scratch folder lives in TMPDIR: one that is not a folder is named, as the worker's
// failure (the harness, not the submission), never an internal error.
TEST_F(PythonDsl, ATemporaryFolderThatIsNotAFolderIsNamed) {
  MKB_REQUIRE_SANDBOX();
  std::filesystem::path not_a_folder = dir_.path() / "not_a_folder";
  std::ofstream(not_a_folder) << "a file";
  testing::scoped_environment tmpdir("TMPDIR", not_a_folder.string());
  try {
    require("triton").prepare(triton_scale, problem_, plan_role::submission);
    ADD_FAILURE() << "prepared without a temporary folder";
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_WORKER) << e.what();
    EXPECT_NE(std::string(e.what()).find("no temporary folder"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace mkb
