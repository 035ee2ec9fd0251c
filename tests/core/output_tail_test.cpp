// The bounded tail of a child's output: a flood keeps its most recent bytes and says how much went,
// each take() hands out only what is new, and the text is always valid UTF-8.
#include "core/output_tail.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

namespace mkb {
namespace {

TEST(OutputTail, AFloodKeepsItsMostRecentBytes) {
  int pipe_ends[2];
  ASSERT_EQ(::pipe(pipe_ends), 0);
  output_tail tail(pipe_ends[0], 1000);
  // Far more than a pipe holds: the writer would block if nobody drained it.
  std::thread writer([fd = pipe_ends[1]] {
    for (int i = 0; i < 20000; ++i) {
      std::string line = "line " + std::to_string(i) + "\n";
      ASSERT_EQ(::write(fd, line.data(), line.size()), static_cast<ssize_t>(line.size()));
    }
    ::close(fd);
  });
  writer.join();
  std::string text = tail.take();
  EXPECT_EQ(text.rfind("[", 0), 0u) << text.substr(0, 80);
  EXPECT_NE(text.find(" earlier bytes dropped]\n"), std::string::npos);
  EXPECT_NE(text.find("line 19999\n"), std::string::npos);
  EXPECT_EQ(text.find("line 100\n"), std::string::npos);
  EXPECT_LT(text.size(), 1100u);
  EXPECT_EQ(tail.take(), "");
}

TEST(OutputTail, TakeHandsOutOnlyWhatIsNew) {
  int pipe_ends[2];
  ASSERT_EQ(::pipe(pipe_ends), 0);
  output_tail tail(pipe_ends[0]);
  ASSERT_EQ(::write(pipe_ends[1], "first\n", 6), 6);
  EXPECT_EQ(tail.take(), "first\n"); // written before the call: there, without waiting for the thread
  ASSERT_EQ(::write(pipe_ends[1], "second\n", 7), 7);
  EXPECT_EQ(tail.take(), "second\n");
  ::close(pipe_ends[1]);
  EXPECT_EQ(tail.take(), "");
}

TEST(OutputTail, TheLastBytesStartOnACharacter) {
  EXPECT_EQ(last_bytes_of("short", 10), "short");
  EXPECT_EQ(last_bytes_of("ab\xE2\x82\xAC", 2), "..."); // never starts inside a character
  EXPECT_EQ(last_bytes_of("ab\xE2\x82\xAC", 3), "...\xE2\x82\xAC");
}

} // namespace
} // namespace mkb
