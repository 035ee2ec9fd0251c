#include "wire/codec.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace mkb::wire {
namespace {

TEST(Codec, EvaluationResultRoundTrip) {
  evaluation_result r;
  r.verdict = 4;
  r.detail = "draw 2: output 'y' ...";
  r.stage = "correctness";
  r.mismatch = {true, "y", 2, -1, "value", 12345, {3, 57}, 1.5, 1.25, 0.1, 0.15};
  r.checks = {{"y", 0.5, 0.1, 0.01, 4.0, false}};
  r.submission_time = {50, 90.5, 89.0, 95.0, 90.0, 91.0, 90.6, 0.01, {90.5f, 91.0f}};
  r.seed = 0xdeadbeef;
  r.draw_seeds = {1, 2, 3};
  r.reverified = {4, 17, 33};
  r.clocks = {true, 1980, 1965, 3201, 40, 4};
  r.phases = {100, 2, 30, 60, 200, 150, 12};
  r.compiles = {{"submission", true, 0.4, "warning: x"}};
  r.device.name = "NVIDIA H200";
  r.device.l2_bytes = 62914560;
  r.infrastructure_error = true;
  r.worker_must_exit = true;
  r.audit.present = true;
  r.audit.degenerate = {{"y", "zeros", 1.5, 0.25, true}, {"y", "copy of x", NAN, 0.25, true}};
  r.audit.sensitivity = {{"y", true, {1}}};
  r.audit.empty_launch_us = 2.5;
  r.audit.baseline_launches = 8;

  flatbuffers::FlatBufferBuilder b;
  std::vector<uint8_t> frame = finish_response(b, 7, encode(b, r));
  const Response *response = verified_root<Response>(frame);
  ASSERT_NE(response, nullptr);
  EXPECT_EQ(response->id(), 7u);
  ASSERT_EQ(response->body_type(), ResponseBody::EvaluateResult);
  evaluation_result d = decode(*response->body_as_EvaluateResult());
  EXPECT_EQ(d.verdict, 4);
  EXPECT_EQ(d.detail, r.detail);
  EXPECT_TRUE(d.mismatch.present);
  EXPECT_EQ(d.mismatch.coords, (std::vector<int64_t>{3, 57}));
  EXPECT_EQ(d.mismatch.flat_index, 12345u);
  EXPECT_EQ(d.checks.size(), 1u);
  EXPECT_FALSE(d.checks[0].passed);
  EXPECT_DOUBLE_EQ(d.submission_time.median_us, 90.5);
  EXPECT_EQ(d.submission_time.times_us.size(), 2u);
  EXPECT_EQ(d.seed, 0xdeadbeefu);
  EXPECT_EQ(d.draw_seeds, r.draw_seeds);
  ASSERT_TRUE(d.audit.present);
  ASSERT_EQ(d.audit.degenerate.size(), 2u);
  EXPECT_EQ(d.audit.degenerate[1].kind, "copy of x");
  EXPECT_TRUE(std::isnan(d.audit.degenerate[1].error));
  EXPECT_TRUE(d.audit.degenerate[0].failed);
  ASSERT_EQ(d.audit.sensitivity.size(), 1u);
  EXPECT_EQ(d.audit.sensitivity[0].constant_axes, (std::vector<int>{1}));
  EXPECT_TRUE(d.audit.sensitivity[0].draws_differ);
  EXPECT_DOUBLE_EQ(d.audit.empty_launch_us, 2.5);
  EXPECT_EQ(d.audit.baseline_launches, 8);
  EXPECT_EQ(d.reverified, r.reverified);
  EXPECT_EQ(d.clocks.sm_mhz_after, 1965u);
  EXPECT_DOUBLE_EQ(d.phases.gpu_busy_ms, 150);
  EXPECT_EQ(d.compiles[0].log, "warning: x");
  EXPECT_EQ(d.device.name, "NVIDIA H200");
  EXPECT_TRUE(d.infrastructure_error);
  EXPECT_TRUE(d.worker_must_exit);
}

TEST(Codec, PlanRoundTrip) {
  resolved_plan plan;
  plan.scratch = {{"s", dtype::bf16, 4096, true}};
  resolved_launch l;
  l.entry = "k";
  l.grid = {7, 2, 1};
  l.block = {128, 1, 1};
  l.cluster = {2, 1, 1};
  l.shared_bytes = 65536;
  l.line = 42;
  l.args = {{arg_kind::pointer, "x", 0, 0, "x"}, {arg_kind::i32, "", -5, 0, "n"}, {arg_kind::f64, "", 0, 2.5, "eps"}};
  resolved_launch step;
  step.entry = "matmul";
  step.line = 43;
  step.matmul = resolved_matmul{"c", "a", "b", dtype::bf16, dtype::fp32, 3, 5, 7, 2, true, false, true};
  plan.launches = {l, step};
  flatbuffers::FlatBufferBuilder b;
  b.Finish(encode(b, plan_role::submission, {"submission.cu", "code"}, plan));
  const Plan *fb = flatbuffers::GetRoot<Plan>(b.GetBufferPointer());
  EXPECT_EQ(decode_module(fb->code()).source, "code");
  resolved_plan d = decode(*fb);
  ASSERT_EQ(d.launches.size(), 2u);
  EXPECT_FALSE(d.launches[0].matmul);
  ASSERT_TRUE(d.launches[1].matmul);
  const resolved_matmul &mm = *d.launches[1].matmul;
  EXPECT_EQ(mm.c + mm.a + mm.b, "cab");
  EXPECT_EQ(mm.result_type, dtype::fp32);
  EXPECT_EQ(mm.operand_type, dtype::bf16);
  EXPECT_EQ(mm.m * 100 + mm.n * 10 + mm.k, 357);
  EXPECT_EQ(mm.batch, 2);
  EXPECT_TRUE(mm.transpose_a && !mm.transpose_b && mm.accumulate);
  EXPECT_EQ(d.launches[1].line, 43);
  EXPECT_EQ(d.scratch[0].type, dtype::bf16);
  EXPECT_EQ(d.launches[0].grid, l.grid);
  EXPECT_EQ(d.launches[0].cluster, l.cluster);
  EXPECT_EQ(d.launches[0].shared_bytes, 65536u);
  EXPECT_EQ(d.launches[0].args[1].integer, -5);
  EXPECT_DOUBLE_EQ(d.launches[0].args[2].real, 2.5);
  EXPECT_EQ(d.scratch[0].bytes, 4096u);
  EXPECT_TRUE(d.scratch[0].zeroed);
}

TEST(Codec, CorruptFramesDoNotVerify) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<uint8_t> frame = finish_response(b, 1, CreateFailure(b, b.CreateString("x")));
  ASSERT_NE(verified_root<Response>(frame), nullptr);
  std::vector<uint8_t> truncated(frame.begin(), frame.begin() + frame.size() / 2);
  EXPECT_EQ(verified_root<Response>(truncated), nullptr);
  std::vector<uint8_t> garbage(64, 0xff);
  EXPECT_EQ(verified_root<Response>(garbage), nullptr);
}

} // namespace
} // namespace mkb::wire
