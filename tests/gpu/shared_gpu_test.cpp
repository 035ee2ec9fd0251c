// Several evaluations on one GPU, as a host running many agents sees them: four `mkb check` processes
// started together take turns through the host's GPU lock and report what one alone reports; a CUDA
// process that is not libmkb, busy on the GPU, gets the evaluation beside it flagged or timed again.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "support/gpu_presence.hpp"
#include "support/paths.hpp"
#include "support/temp_dir.hpp"

extern char **environ;

namespace mkb {
namespace {

constexpr const char *rmsnorm = "fused_add_rmsnorm_h4096_llama31_8b_bf16";

// A program started with its standard output on a pipe.
struct running_program {
  pid_t pid = -1;
  int out = -1;
};

running_program start(const std::vector<std::string> &argv) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<char *> args;
  for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  running_program p;
  EXPECT_EQ(posix_spawn(&p.pid, args[0], &actions, nullptr, args.data(), environ), 0) << argv[0];
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  p.out = fds[0];
  return p;
}

// Everything the program prints, once it has exited.
std::string finish(running_program p) {
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(p.out, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<size_t>(n));
  ::close(p.out);
  ::waitpid(p.pid, nullptr, 0);
  return text;
}

// The first number after "name": in a report's JSON (the report's own fields come before any nested one).
double number(const std::string &json, const std::string &name) {
  size_t at = json.find("\"" + name + "\":");
  return at == std::string::npos ? NAN : std::strtod(json.c_str() + at + name.size() + 3, nullptr);
}
bool flag(const std::string &json, const std::string &name) { return json.find("\"" + name + "\":true") != std::string::npos; }

std::vector<std::string> check_command(const std::filesystem::path &lock_dir) {
  return {(testing::test_binary_dir() / "mkb").string(), "check", "--json", "--gpu-lock-dir", lock_dir.string(),
          "--problem", rmsnorm, "--dsl", "cuda",
          testing::source_dir() + "/problems/mlp_norm/" + rmsnorm + "/solutions/cuda.cu"};
}

class SharedGpu : public ::testing::Test {
protected:
  void SetUp() override { MKB_REQUIRE_GPU(); }
};

TEST_F(SharedGpu, FourConcurrentEvaluationsReportWhatOneAloneReports) {
  testing::temp_dir locks;
  std::string solo = finish(start(check_command(locks.path())));
  double solo_us = number(solo, "time_us"), solo_speedup = number(solo, "speedup");
  ASSERT_TRUE(std::isfinite(solo_us) && std::isfinite(solo_speedup)) << solo;

  std::vector<running_program> programs;
  for (int i = 0; i < 4; ++i) programs.push_back(start(check_command(locks.path())));
  std::vector<std::string> reports(4);
  std::vector<std::thread> readers;
  for (int i = 0; i < 4; ++i) readers.emplace_back([&, i] { reports[i] = finish(programs[i]); });
  for (std::thread &t : readers) t.join();

  std::printf("solo: %.2f us, %.3fx\n", solo_us, solo_speedup);
  int waited = 0;
  for (const std::string &r : reports) {
    double us = number(r, "time_us"), speedup = number(r, "speedup"), wait_ms = number(r, "gpu_wait_ms");
    std::printf("concurrent: %.2f us (%+.2f%%), %.3fx (%+.2f%%), waited %.0f ms for the GPU\n", us,
                100 * (us / solo_us - 1), speedup, 100 * (speedup / solo_speedup - 1), wait_ms);
    ASSERT_TRUE(std::isfinite(us)) << r;
    EXPECT_NEAR(us / solo_us, 1.0, 0.02) << r;
    EXPECT_NEAR(speedup / solo_speedup, 1.0, 0.02) << r;
    EXPECT_FALSE(flag(r, "contended")) << r;
    waited += wait_ms > 0;
  }
  EXPECT_GE(waited, 3) << "four evaluations at once: at least three queued for the GPU";
}

TEST_F(SharedGpu, AForeignProcessBusyOnTheGpuIsFlaggedOrTimedAgain) {
  testing::temp_dir locks;
  running_program load = start({(testing::test_binary_dir() / "mkb-foreign-load").string(), "120"});
  char ready[6] = {};
  ASSERT_EQ(::read(load.out, ready, 5), 5);
  ASSERT_STREQ(ready, "ready");

  std::string report = finish(start(check_command(locks.path())));
  ::kill(load.pid, SIGKILL);
  finish(load);

  std::printf("%s\n", report.c_str());
  ASSERT_TRUE(std::isfinite(number(report, "time_us"))) << report;
  size_t contention = report.find("\"contention\":");
  ASSERT_NE(contention, std::string::npos) << report;
  std::string seen = report.substr(contention, report.find('}', contention) - contention);
  if (!flag(seen, "checked")) GTEST_SKIP() << "NVML cannot tell other processes' work on this GPU: " << seen;
  EXPECT_TRUE(flag(seen, "contended") || number(seen, "discarded_timings") > 0) << seen;
  EXPECT_NE(seen.find("mkb-foreign-load"), std::string::npos) << "the report names what it saw: " << seen;
}

} // namespace
} // namespace mkb
