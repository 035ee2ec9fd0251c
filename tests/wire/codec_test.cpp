#include "wire/codec.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <variant>

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

  std::optional<worker_response> response = decode_response(encode_response({7, r}));
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->id, 7u);
  ASSERT_TRUE(std::holds_alternative<evaluation_result>(response->body));
  const evaluation_result &d = std::get<evaluation_result>(response->body);
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
  evaluation_request sent;
  sent.submission = {{"submission.cu", "code", {}, {}}, plan};
  std::optional<worker_request> request = decode_request(encode_request({3, sent}));
  ASSERT_TRUE(request.has_value());
  ASSERT_TRUE(std::holds_alternative<evaluation_request>(request->body));
  const evaluation_request &received = std::get<evaluation_request>(request->body);
  EXPECT_EQ(received.submission.module.source, "code");
  const resolved_plan &d = received.submission.plan;
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
  std::vector<uint8_t> frame = encode_response({1, worker_failure{"x"}});
  ASSERT_TRUE(decode_response(frame).has_value());
  std::vector<uint8_t> truncated(frame.begin(), frame.begin() + frame.size() / 2);
  EXPECT_FALSE(decode_response(truncated).has_value());
  std::vector<uint8_t> garbage(64, 0xff);
  EXPECT_FALSE(decode_response(garbage).has_value());
}

TEST(Codec, SettingsAndTheOtherRequestsRoundTrip) {
  evaluation_request e;
  e.problem.id = "p";
  e.problem.inputs.push_back({});
  e.problem.inputs[0].name = "x";
  e.problem.outputs.push_back({});
  e.problem.outputs[0].name = "state";
  e.problem.outputs[0].aliases = "x";
  e.problem.outputs[0].equals_input = "x";
  e.problem.generators = "__global__ void g() {}";
  e.settings.draws.timed_draws = 77;
  e.settings.time_baseline = false;
  e.settings.audit = true;
  e.settings.gpu_lock_dir = "/locks";
  e.settings.contention_retries = 0;
  e.seed = 99;
  std::optional<worker_request> r = decode_request(encode_request({5, e}));
  ASSERT_TRUE(r && std::holds_alternative<evaluation_request>(r->body));
  const evaluation_request &got = std::get<evaluation_request>(r->body);
  EXPECT_EQ(got.problem.id, "p");
  ASSERT_EQ(got.problem.inputs.size(), 1u);
  EXPECT_EQ(got.problem.inputs[0].name, "x");
  ASSERT_EQ(got.problem.outputs.size(), 1u);
  EXPECT_EQ(got.problem.outputs[0].aliases, "x");
  EXPECT_EQ(got.problem.outputs[0].equals_input, "x");
  EXPECT_EQ(got.problem.generators, e.problem.generators);
  EXPECT_EQ(got.settings.draws.timed_draws, 77);
  EXPECT_FALSE(got.settings.time_baseline);
  EXPECT_TRUE(got.settings.audit);
  EXPECT_EQ(got.settings.gpu_lock_dir, "/locks");
  EXPECT_EQ(got.settings.contention_retries, 0);
  EXPECT_EQ(got.settings.draws.warmup_draws, draw_counts{}.warmup_draws);
  EXPECT_EQ(got.seed, 99u);

  r = decode_request(encode_request({6, compile_request{{"k.cu", "src", {"/inc"}, {}}, "sm_90a", "/cache"}}));
  ASSERT_TRUE(r && std::holds_alternative<compile_request>(r->body));
  EXPECT_EQ(std::get<compile_request>(r->body).code.include_dirs, std::vector<std::string>{"/inc"});
  EXPECT_EQ(std::get<compile_request>(r->body).arch, "sm_90a");
  r = decode_request(encode_request({7, ping_request{}}));
  ASSERT_TRUE(r && std::holds_alternative<ping_request>(r->body));
  EXPECT_EQ(r->id, 7u);
  r = decode_request(encode_request({8, unknown_request{}}));
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(std::holds_alternative<unknown_request>(r->body));

  worker_status status;
  status.driver_loaded = true;
  status.pid = 42;
  status.devices.push_back({});
  status.devices[0].name = "NVIDIA H200";
  std::optional<worker_response> a = decode_response(encode_response({9, status}));
  ASSERT_TRUE(a && std::holds_alternative<worker_status>(a->body));
  EXPECT_EQ(std::get<worker_status>(a->body).pid, 42);
  EXPECT_EQ(std::get<worker_status>(a->body).devices.at(0).name, "NVIDIA H200");
  a = decode_response(encode_response({10, stage_report{"timing"}}));
  ASSERT_TRUE(a && std::holds_alternative<stage_report>(a->body));
  EXPECT_EQ(std::get<stage_report>(a->body).stage, "timing");
  a = decode_response(encode_response({11, draw_answer{{"/a", "/b"}}}));
  ASSERT_TRUE(a && std::holds_alternative<draw_answer>(a->body));
  EXPECT_EQ(std::get<draw_answer>(a->body).files.size(), 2u);
  a = decode_response(encode_response({12, compile_answer{true, true, "log", 10, 20, 1.5, "abc"}}));
  ASSERT_TRUE(a && std::holds_alternative<compile_answer>(a->body));
  EXPECT_EQ(std::get<compile_answer>(a->body).key, "abc");
}

} // namespace
} // namespace mkb::wire
