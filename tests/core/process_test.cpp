#include "core/process.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "core/error.hpp"
#include "support/captured_stdio.hpp"

namespace mkb {
namespace {

// What the child writes on its channel until it closes it.
std::string channel_text(const child_process &child) {
  std::string text;
  char buffer[256];
  for (ssize_t got; (got = read(child.socket(), buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<size_t>(got));
  return text;
}

std::string wait_for_end(child_process &child) {
  for (int i = 0; i < 1000; ++i) {
    if (auto ended = child.try_reap()) return *ended;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "still running: " + child.kill();
}

TEST(ChildProcess, TalksOnDescriptorThree) {
  child_process child = child_process::spawn("/bin/sh", {"-c", "echo hello >&3"});
  char buffer[16] = {};
  ssize_t got = read(child.socket(), buffer, sizeof buffer - 1);
  EXPECT_EQ(std::string(buffer, got > 0 ? got : 0), "hello\n");
}

TEST(ChildProcess, KillAndReapReportHowItEnded) {
  child_process sleeper = child_process::spawn("/bin/sleep", {"100"});
  EXPECT_TRUE(sleeper.running());
  EXPECT_NE(sleeper.kill().find("signal 9"), std::string::npos);
  EXPECT_FALSE(sleeper.running());

  child_process quitter = child_process::spawn("/bin/sh", {"-c", "exit 3"});
  std::optional<std::string> ended;
  for (int i = 0; i < 500 && !ended; ++i) {
    ended = quitter.try_reap();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(*ended, "exited with status 3");
}

TEST(ChildProcess, InheritsNothingButItsChannel) {
  // A descriptor the embedding program left open, not even close-on-exec.
  int opened = ::open("/dev/null", O_RDONLY);
  int leaked = ::fcntl(opened, F_DUPFD, 20); // above the child's own 0 to 3, whatever is open here
  ::close(opened);
  ASSERT_GE(leaked, 20);
  std::string probe = "readlink /proc/self/fd/0 >&3; test -e /proc/self/fd/" + std::to_string(leaked) +
                      " && echo leaked >&3 || echo closed >&3";
  child_process child = child_process::spawn("/bin/sh", {"-c", probe});
  EXPECT_EQ(channel_text(child), "/dev/null\nclosed\n"); // stdin is /dev/null, never the caller's
  ::close(leaked);
}

TEST(ChildProcess, CapturedOutputNeverReachesTheCaller) {
  testing::captured_stdio caller;
  spawn_options options;
  options.capture_output = true;
  child_process child = child_process::spawn("/bin/sh", {"-c", "echo to stdout; echo to stderr >&2"}, options);
  EXPECT_EQ(wait_for_end(child), "exited with status 0");
  ASSERT_NE(child.output(), nullptr);
  EXPECT_EQ(child.output()->take(), "to stdout\nto stderr\n");
  EXPECT_EQ(caller.text(), "");
}

TEST(ChildProcess, LimitsAndEnvironmentApplyBeforeItStarts) {
  spawn_options options;
  options.limits = {{RLIMIT_NOFILE, 77}};
  options.environment = std::vector<std::string>{"PATH=/usr/bin:/bin", "MKB_PROBE=given"};
  child_process child = child_process::spawn("sh", {"-c", "echo \"$(ulimit -n) $MKB_PROBE ${HOME:-no-home}\" >&3"}, options);
  EXPECT_EQ(channel_text(child), "77 given no-home\n");
}

TEST(ChildProcess, MissingExecutable) {
  try {
    child_process::spawn("/nonexistent/mkb-worker", {});
    FAIL();
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_WORKER);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/mkb-worker"), std::string::npos);
  }
}

} // namespace
} // namespace mkb
