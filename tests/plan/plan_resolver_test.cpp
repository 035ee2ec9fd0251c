#include <gtest/gtest.h>

#include "plan/launch_plan.hpp"
#include "spec/file_source.hpp"
#include "spec/problem.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

class PlanResolver : public ::testing::Test {
protected:
  void SetUp() override {
    testing::write_problem(dir_, "test", "tiny",
                           testing::tiny_spec("tiny", "test", R"(, { "name": "r", "dtype": "bf16", "shape": ["n"], "writable": true })",
                                              R"({ "name": "y", "dtype": "fp32", "shape": ["n"] }, { "name": "r_out", "dtype": "bf16", "shape": ["n"], "aliases": "r" })"));
    problem_ = load_problem(directory_source(dir_.path()), "test/tiny");
  }

  resolved_plan resolve(const std::string &body, plan_role role = plan_role::submission) {
    return resolve_launch_plan(parse_launch_plan("/* mkb:plan\n" + body + "\n*/"), problem_, role);
  }

  std::string failure(const std::string &body, plan_role role = plan_role::submission) {
    try {
      resolve(body, role);
    } catch (const plan_error &e) {
      return e.what();
    }
    ADD_FAILURE() << "resolved: " << body;
    return {};
  }

  testing::temp_dir dir_;
  problem problem_;
};

// Regression: a plan nested 15,000 parentheses or 50,000 minus signs deep (30 to 50 KB, well within
// the submission limit) once overflowed the stack of the agent's process while it was resolved.
TEST_F(PlanResolver, DeeplyNestedExpressionsAreRefusedWithTheirLine) {
  for (const std::string &grid : {std::string(15000, '(') + "n" + std::string(15000, ')'), std::string(50000, '-') + "n"}) {
    const std::string submission = "extern \"C\" __global__ void k(float *y) {}\n\n/* mkb:plan\nlaunch k grid(" + grid +
                                   ") block(256) args(y)\n*/\n";
    launch_plan plan = parse_launch_plan(submission);
    try {
      resolve_launch_plan(plan, problem_, plan_role::submission);
      ADD_FAILURE() << "resolved";
    } catch (const plan_error &e) {
      EXPECT_EQ(e.line(), 4);
      const std::string message = e.what();
      EXPECT_NE(message.find("the expression nests deeper than 256 levels"), std::string::npos) << message;
      EXPECT_LT(message.size(), 300u) << "the expression is quoted in full: " << message.substr(0, 300);
    }
  }
}

TEST_F(PlanResolver, EvaluatesEverything) {
  resolved_plan plan = resolve("scratch s fp32[n / 10] zeroed\nlaunch k grid(ceil_div(n, 256), 2) block(256) shared(1024) cluster(2, 2)\n"
                               "  args(x, y, r, r_out, s, i32(n), f64(n / 3.0), u64(n * n))");
  ASSERT_EQ(plan.scratch.size(), 1u);
  EXPECT_EQ(plan.scratch[0].bytes, 400u);
  const resolved_launch &l = plan.launches[0];
  EXPECT_EQ(l.grid, (std::array<uint32_t, 3>{4, 2, 1}));
  EXPECT_EQ(l.block, (std::array<uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(l.cluster, (std::array<uint32_t, 3>{2, 2, 1}));
  EXPECT_EQ(l.shared_bytes, 1024u);
  ASSERT_EQ(l.args.size(), 8u);
  EXPECT_EQ(l.args[3].buffer, "r_out");
  EXPECT_EQ(l.args[5].integer, 1000);
  EXPECT_DOUBLE_EQ(l.args[6].real, 1000 / 3.0);
  EXPECT_EQ(l.args[7].integer, 1000000);
}

// A whole number computed in floating point (a spec constant is a double: a pad id of -1) is an integer.
TEST_F(PlanResolver, AWholeFloatingValueIsAnIntegerArgument) {
  resolved_plan plan = resolve("launch k grid(1) block(1) args(i64(-2.0), i32(n / 4.0))");
  ASSERT_EQ(plan.launches[0].args.size(), 2u);
  EXPECT_EQ(plan.launches[0].args[0].integer, -2);
  EXPECT_EQ(plan.launches[0].args[1].integer, 250);
  EXPECT_NE(failure("launch k grid(1) block(1) args(i64(1e300))").find("is not an integer"), std::string::npos);
}

TEST_F(PlanResolver, RejectsWhatCannotRun) {
  EXPECT_NE(failure("launch k grid(1) block(1) args(z)").find("no tensor or scratch buffer is named 'z'"), std::string::npos);
  EXPECT_NE(failure("launch k grid(1) block(1) args(n)").find("is a symbol"), std::string::npos);
  EXPECT_NE(failure("launch k grid(0) block(1) args()").find("grid[x]"), std::string::npos);
  EXPECT_NE(failure("launch k grid(1) block(2048) args()").find("block[x]"), std::string::npos);
  EXPECT_NE(failure("launch k grid(1) block(64, 32) args()").find("2048 threads"), std::string::npos);
  EXPECT_NE(failure("launch k grid(3) block(1) cluster(2) args()").find("not a multiple"), std::string::npos);
  EXPECT_NE(failure("launch k grid(1) block(1) args(i32(n * n * n * n))").find("does not fit"), std::string::npos);
  EXPECT_NE(failure("launch k grid(1) block(1) args(u32(0 - 1))").find("does not fit"), std::string::npos);
  EXPECT_NE(failure("launch k grid(1) block(1) args(i32(n / 3.0))").find("= 333.3333333333333 is not an integer"),
            std::string::npos);
  EXPECT_NE(failure("scratch x fp32[4]\nlaunch k grid(1) block(1) args()").find("name of a tensor"), std::string::npos);
  EXPECT_NE(failure("scratch s fp32[n * n * n * n * 1000]\nlaunch k grid(1) block(1) args()").find("GiB"), std::string::npos);
  EXPECT_NE(failure("launch k grid(nn) block(1) args()").find("unknown name 'nn'"), std::string::npos);
}

TEST_F(PlanResolver, MatmulStepsResolveForBaselinesAndAnchors) {
  resolved_plan plan = resolve("scratch w fp32[n]\nscratch h bf16[n]\nlaunch k grid(1) block(1) args()\n"
                               "matmul c(y) a(x) b(w) m(n / 100) n(10) k(10) batch(10) transpose_b accumulate",
                               plan_role::baseline);
  ASSERT_EQ(plan.launches.size(), 2u);
  EXPECT_FALSE(plan.launches[0].matmul);
  ASSERT_TRUE(plan.launches[1].matmul);
  const resolved_matmul &mm = *plan.launches[1].matmul;
  EXPECT_EQ(mm.c, "y");
  EXPECT_EQ(mm.a, "x");
  EXPECT_EQ(mm.b, "w");
  EXPECT_EQ(mm.m, 10);
  EXPECT_EQ(mm.n, 10);
  EXPECT_EQ(mm.k, 10);
  EXPECT_EQ(mm.batch, 10);
  EXPECT_FALSE(mm.transpose_a);
  EXPECT_TRUE(mm.transpose_b);
  EXPECT_TRUE(mm.accumulate);
  EXPECT_EQ(mm.operand_type, dtype::fp32);
  EXPECT_EQ(plan.scratch[1].type, dtype::bf16);
  // bf16 operands may produce fp32.
  EXPECT_NO_THROW(resolve("scratch h bf16[n]\nscratch g bf16[n]\nmatmul c(y) a(h) b(g) m(10) n(10) k(10)", plan_role::baseline));
  // The anchor's floating outputs are fp64 buffers of their own, aliased ones too.
  EXPECT_NO_THROW(resolve("scratch h fp64[n]\nscratch g fp64[n]\nmatmul c(r_out) a(h) b(g) m(10) n(10) k(10)", plan_role::anchor));
  EXPECT_NE(failure("scratch h fp32[n]\nscratch g fp32[n]\nmatmul c(y) a(h) b(g) m(10) n(10) k(10)", plan_role::anchor)
                .find("it must be fp32"),
            std::string::npos);
}

TEST_F(PlanResolver, MatmulStepsAreRefusedInSubmissionsAndCheckedInProblems) {
  EXPECT_NE(failure("scratch w fp32[n]\nmatmul c(y) a(x) b(w) m(10) n(10) k(10)").find("belong to a problem's baseline"),
            std::string::npos);
  auto baseline_failure = [&](const std::string &body) { return failure(body, plan_role::baseline); };
  EXPECT_NE(baseline_failure("scratch w fp32[n]\nmatmul c(y) a(x) b(w) m(10) n(10) k(1000)").find("elements in 'x' but it holds 1000"),
            std::string::npos);
  EXPECT_NE(baseline_failure("matmul c(y) a(x) b(r) m(10) n(10) k(10)").find("share one dtype"), std::string::npos);
  EXPECT_NE(baseline_failure("scratch w fp32[n]\nmatmul c(r_out) a(x) b(w) m(10) n(10) k(10)").find("must be fp32"),
            std::string::npos);
  EXPECT_NE(baseline_failure("scratch w fp32[n]\nmatmul c(x) a(x) b(w) m(10) n(10) k(10)").find("also an operand"),
            std::string::npos);
  EXPECT_NE(baseline_failure("scratch w fp32[n]\nmatmul c(y) a(x) b(w) m(10) n(0) k(10)").find("out of range"),
            std::string::npos);
  EXPECT_NE(baseline_failure("scratch w fp32[n]\nmatmul c(y) a(x) b(v) m(10) n(10) k(10)").find("no tensor or scratch buffer is named 'v'"),
            std::string::npos);
}

TEST_F(PlanResolver, ParameterSizesAreCompared) {
  resolved_launch l = resolve("launch k grid(1) block(1) args(x, i32(n), f64(1.5))").launches[0];
  EXPECT_EQ(check_parameter_sizes(l, {8, 4, 8}), "");
  EXPECT_NE(check_parameter_sizes(l, {8, 4}).find("takes 2 parameters but the plan passes 3"), std::string::npos);
  std::string m = check_parameter_sizes(l, {8, 8, 8});
  EXPECT_NE(m.find("parameter 1"), std::string::npos) << m;
  EXPECT_NE(m.find("i32(n)"), std::string::npos) << m;
}

} // namespace
} // namespace mkb
