#include <gtest/gtest.h>

#include "plan/launch_plan.hpp"

namespace mkb {
namespace {

// The line and message of the plan_error that parsing `text` fails with.
std::pair<int, std::string> plan_failure(const std::string &text) {
  try {
    parse_launch_plan(text);
  } catch (const plan_error &e) {
    return {e.line(), e.what()};
  }
  ADD_FAILURE() << "the plan parsed";
  return {0, ""};
}

TEST(PlanParser, ParsesLaunchesAndScratch) {
  launch_plan plan = parse_launch_plan(R"(// code
extern "C" __global__ void k(float *x) {}
/* mkb:plan
# a comment
scratch partial fp32[rows * 4] zeroed
scratch other bf16[8]
launch first grid(ceil_div(rows, 4), 2) block(128) shared(48 * 1024) cluster(2)
  args(x, partial, i32(rows), f32(eps), i64(rows * cols))
launch second grid(1) block(32, 4) args()
*/
)");
  ASSERT_EQ(plan.scratch.size(), 2u);
  EXPECT_EQ(plan.scratch[0].name, "partial");
  EXPECT_EQ(plan.scratch[0].type, dtype::fp32);
  EXPECT_EQ(plan.scratch[0].count, "rows * 4");
  EXPECT_TRUE(plan.scratch[0].zeroed);
  EXPECT_FALSE(plan.scratch[1].zeroed);
  EXPECT_EQ(plan.scratch[0].line, 5);
  ASSERT_EQ(plan.launches.size(), 2u);
  const plan_launch &l = plan.launches[0];
  EXPECT_EQ(l.entry, "first");
  EXPECT_EQ(l.line, 7);
  EXPECT_EQ(l.grid, (std::vector<std::string>{"ceil_div(rows, 4)", "2"}));
  EXPECT_EQ(l.block, (std::vector<std::string>{"128"}));
  EXPECT_EQ(l.shared, "48 * 1024");
  EXPECT_EQ(l.cluster, (std::vector<std::string>{"2"}));
  ASSERT_EQ(l.args.size(), 5u);
  EXPECT_EQ(l.args[0].kind, arg_kind::pointer);
  EXPECT_EQ(l.args[0].text, "x");
  EXPECT_EQ(l.args[2].kind, arg_kind::i32);
  EXPECT_EQ(l.args[2].text, "rows");
  EXPECT_EQ(l.args[3].kind, arg_kind::f32);
  EXPECT_EQ(l.args[4].text, "rows * cols");
  EXPECT_TRUE(plan.launches[1].args.empty());
}

TEST(PlanParser, ErrorsPointAtTheLine) {
  EXPECT_EQ(plan_failure("no plan here").second.find("no launch plan") != std::string::npos, true);
  auto [line, message] = plan_failure("a\nb\n/* mkb:plan\nlaunch k grid(1) block(1)\n*/\n");
  EXPECT_EQ(line, 4);
  EXPECT_NE(message.find("no args"), std::string::npos) << message;
  std::tie(line, message) = plan_failure("/* mkb:plan\nlaunch k grid(1) blok(1) args()\n*/");
  EXPECT_EQ(line, 2);
  EXPECT_NE(message.find("unknown clause 'blok'"), std::string::npos);
  std::tie(line, message) = plan_failure("/* mkb:plan\nscratch s fp33[4]\n*/");
  EXPECT_NE(message.find("unknown dtype 'fp33'"), std::string::npos);
  std::tie(line, message) = plan_failure("/* mkb:plan\nlaunch k grid(1 block(1) args()\n*/");
  EXPECT_EQ(line, 2);
  std::tie(line, message) = plan_failure("/* mkb:plan\nlaunch k grid(1) block(1) args()\n");
  EXPECT_NE(message.find("never closed"), std::string::npos);
  std::tie(line, message) = plan_failure("/* mkb:plan\nlaunch k grid(1) block(1) args()\n*/\n/* mkb:plan\n*/");
  EXPECT_EQ(line, 4);
  EXPECT_NE(message.find("second plan"), std::string::npos);
  std::tie(line, message) = plan_failure("/* mkb:plan\n*/");
  EXPECT_NE(message.find("launches nothing"), std::string::npos);
  std::tie(line, message) = plan_failure("/* mkb:plan\n  args(x)\n*/");
  EXPECT_NE(message.find("indented"), std::string::npos);
  std::tie(line, message) = plan_failure("/* mkb:plan\nlaunch k grid(1) grid(2) block(1) args()\n*/");
  EXPECT_NE(message.find("twice"), std::string::npos);
  std::tie(line, message) = plan_failure("/* mkb:plan\nlaunch k grid(1, 2, 3, 4) block(1) args()\n*/");
  EXPECT_NE(message.find("at most 3"), std::string::npos);
  std::tie(line, message) = plan_failure("/* mkb:plan\nrun k\n*/");
  EXPECT_NE(message.find("unknown statement 'run'"), std::string::npos);
  std::tie(line, message) = plan_failure("/* mkb:plan\nmatmul c(y) a(x) b(w) m(1) n(2)\n*/");
  EXPECT_NE(message.find("matmul has no k(...)"), std::string::npos) << message;
  std::tie(line, message) = plan_failure("/* mkb:plan\nmatmul c(y) a(x) b(w) m(1) n(2) k(3) transpose\n*/");
  EXPECT_NE(message.find("unknown matmul clause 'transpose'"), std::string::npos) << message;
  std::tie(line, message) = plan_failure("/* mkb:plan\nmatmul c(y) c(z) a(x) b(w) m(1) n(2) k(3)\n*/");
  EXPECT_NE(message.find("'c' appears twice"), std::string::npos) << message;
}

TEST(PlanParser, ParsesMatmulSteps) {
  launch_plan plan = parse_launch_plan("/* mkb:plan\nmatmul c(y) a(x) b(w) m(tokens) n(hidden * 2) k(hidden)\n"
                                       "  batch(heads) transpose_a transpose_b accumulate\n*/");
  ASSERT_EQ(plan.launches.size(), 1u);
  ASSERT_TRUE(plan.launches[0].matmul);
  const plan_matmul &mm = *plan.launches[0].matmul;
  EXPECT_EQ(mm.c, "y");
  EXPECT_EQ(mm.a, "x");
  EXPECT_EQ(mm.b, "w");
  EXPECT_EQ(mm.m, "tokens");
  EXPECT_EQ(mm.n, "hidden * 2");
  EXPECT_EQ(mm.k, "hidden");
  EXPECT_EQ(mm.batch, "heads");
  EXPECT_TRUE(mm.transpose_a && mm.transpose_b && mm.accumulate);
  EXPECT_EQ(plan.launches[0].line, 2);
}

} // namespace
} // namespace mkb
