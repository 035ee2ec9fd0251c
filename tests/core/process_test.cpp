#include "core/process.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "core/error.hpp"

namespace mkb {
namespace {

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
