// Worker lifecycle against the worker test double: crashes and hangs end in a verdict, the process is
// replaced, and the next request is served.
#include "eval/worker_client.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <thread>

#include "core/error.hpp"
#include "support/captured_stdio.hpp"
#include "support/paths.hpp"
#include "support/stored_solutions.hpp"
#include "dsl/dsl.hpp"
#include "spec/suite.hpp"
#include "wire/channel.hpp"
#include "wire/codec.hpp"

namespace mkb {
namespace {

evaluation_request evaluate_request(const std::string &directive) {
  static const suite problems = suite::load(std::nullopt);
  const problem &p = *problems.find("topk_softmax_routing_mixtral_8x7b_bf16");
  const dsl &cuda = *find_dsl("cuda");
  std::string source = testing::stored_solution_source(p, "cuda") + "\n// mkb-double: " + directive + "\n";
  prepared_submission sub = cuda.prepare(source, p, plan_role::submission);
  prepared_submission base = cuda.prepare(p.baseline_source, p, plan_role::baseline);
  prepared_submission anchor = cuda.prepare(p.anchor_source, p, plan_role::anchor);
  evaluation_request request;
  request.problem = instance_of(p);
  request.submission = {sub.module, sub.plan};
  request.baseline = {base.module, base.plan};
  request.anchor = {anchor.module, anchor.plan};
  request.settings.arch = "sm_90a"; // the double's device; the evaluator always names one
  request.seed = 1;
  return request;
}

TEST(WorkerClient, PingReportsTheDevices) {
  worker_client worker(testing::worker_double(), 0);
  worker_status status = worker.ping();
  EXPECT_TRUE(status.driver_loaded);
  ASSERT_EQ(status.devices.size(), 1u);
  EXPECT_EQ(status.devices[0].name, "mkb test double (no GPU)");
  EXPECT_FALSE(status.nvrtc_version.empty());
}

TEST(WorkerClient, ACrashIsReportedAndTheWorkerReplaced) {
  worker_client worker(testing::worker_double(), 0);
  worker_reply reply = worker.request(evaluate_request("crash"), std::chrono::seconds(60));
  EXPECT_EQ(reply.status, worker_reply::died);
  EXPECT_EQ(reply.last_stage, "correctness");
  EXPECT_NE(reply.how_it_ended.find("signal 6"), std::string::npos) << reply.how_it_ended;
  reply = worker.request(evaluate_request("time_us=40"), std::chrono::seconds(60));
  ASSERT_EQ(reply.status, worker_reply::answered);
  EXPECT_TRUE(std::holds_alternative<evaluation_result>(reply.answer));
  EXPECT_EQ(worker.restarts(), 1);
}

TEST(WorkerClient, AHangIsStoppedAtItsStageDeadline) {
  worker_client worker(testing::worker_double(), 0);
  auto start = std::chrono::steady_clock::now();
  worker_reply reply = worker.request(evaluate_request("hang"), [](const std::string &stage) {
    return stage == "correctness" ? std::chrono::milliseconds(300) : std::chrono::milliseconds(60000);
  });
  EXPECT_EQ(reply.status, worker_reply::timed_out);
  EXPECT_EQ(reply.last_stage, "correctness");
  EXPECT_NE(reply.how_it_ended.find("signal 9"), std::string::npos) << reply.how_it_ended;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_TRUE(worker.ping().driver_loaded); // a fresh process answers
}

TEST(WorkerClient, ANoisyWorkerPrintsIntoTheReplyNeverOntoTheCaller) {
  worker_client worker(testing::worker_double(), 0);
  testing::captured_stdio caller;
  worker_reply noisy = worker.request(evaluate_request("print=5000"), std::chrono::seconds(60));
  worker_reply quiet = worker.request(evaluate_request("time_us=40"), std::chrono::seconds(60));
  EXPECT_EQ(caller.text(), "");
  ASSERT_EQ(noisy.status, worker_reply::answered);
  EXPECT_NE(noisy.output.find("mkb-noise stdout line 4999\n"), std::string::npos);
  EXPECT_NE(noisy.output.find("mkb-noise stderr line 4999\n"), std::string::npos);
  EXPECT_NE(noisy.output.find(" earlier bytes dropped]"), std::string::npos); // about 270 KB: the tail is kept
  EXPECT_LE(noisy.output.size(), output_tail::default_capacity + 64);
  EXPECT_EQ(quiet.output, ""); // each reply carries only its own evaluation's output
}

TEST(WorkerClient, WhatADyingWorkerPrintedComesWithItsDeath) {
  worker_client worker(testing::worker_double(), 0);
  worker_reply reply = worker.request(evaluate_request("print=3 crash"), std::chrono::seconds(60));
  EXPECT_EQ(reply.status, worker_reply::died);
  EXPECT_NE(reply.output.find("mkb-noise stderr line 2"), std::string::npos) << reply.output;
}

TEST(WorkerClient, AWorkerWhoseClientIsGoneExitsQuietly) {
  spawn_options options;
  options.capture_output = true;
  child_process child = child_process::spawn(testing::worker_double(), {"--device", "0"}, options);
  wire::send_frame(child.socket(), wire::encode_request({1, evaluate_request("sleep_ms=200")}));
  ::shutdown(child.socket(), SHUT_RDWR); // the client is gone: its next message has nowhere to go
  std::optional<std::string> ended;
  for (int i = 0; i < 3000 && !ended; ++i) {
    ended = child.try_reap();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(ended.has_value()) << "the worker kept running without a client";
  EXPECT_EQ(*ended, "exited with status 0");
  EXPECT_EQ(child.output()->take(), "");
}

TEST(WorkerClient, MissingWorkerExecutable) {
  EXPECT_THROW(find_worker_executable("/nonexistent/mkb-worker"), error);
}

} // namespace
} // namespace mkb
