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

  resolved_plan resolve(const std::string &body) {
    return resolve_launch_plan(parse_launch_plan("/* mkb:plan\n" + body + "\n*/"), problem_);
  }

  std::string failure(const std::string &body) {
    try {
      resolve(body);
    } catch (const plan_error &e) {
      return e.what();
    }
    ADD_FAILURE() << "resolved: " << body;
    return {};
  }

  testing::temp_dir dir_;
  problem problem_;
};

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

TEST_F(PlanResolver, RejectsWhatCannotRun) {
  EXPECT_NE(failure("launch k grid(1) block(1) args(z)").find("no tensor or scratch buffer is named 'z'"), std::string::npos);
  EXPECT_NE(failure("launch k grid(1) block(1) args(n)").find("is a symbol"), std::string::npos);
  EXPECT_NE(failure("launch k grid(0) block(1) args()").find("grid[x]"), std::string::npos);
  EXPECT_NE(failure("launch k grid(1) block(2048) args()").find("block[x]"), std::string::npos);
  EXPECT_NE(failure("launch k grid(1) block(64, 32) args()").find("2048 threads"), std::string::npos);
  EXPECT_NE(failure("launch k grid(3) block(1) cluster(2) args()").find("not a multiple"), std::string::npos);
  EXPECT_NE(failure("launch k grid(1) block(1) args(i32(n * n * n * n))").find("does not fit"), std::string::npos);
  EXPECT_NE(failure("launch k grid(1) block(1) args(u32(0 - 1))").find("does not fit"), std::string::npos);
  EXPECT_NE(failure("launch k grid(1) block(1) args(i32(n / 3.0))").find("not an integer"), std::string::npos);
  EXPECT_NE(failure("scratch x fp32[4]\nlaunch k grid(1) block(1) args()").find("name of a tensor"), std::string::npos);
  EXPECT_NE(failure("scratch s fp32[n * n * n * n * 1000]\nlaunch k grid(1) block(1) args()").find("GiB"), std::string::npos);
  EXPECT_NE(failure("launch k grid(nn) block(1) args()").find("unknown name 'nn'"), std::string::npos);
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
