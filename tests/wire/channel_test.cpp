#include "wire/channel.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

namespace mkb::wire {
namespace {

class Channel : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0); }
  void TearDown() override {
    for (int fd : fds_)
      if (fd >= 0) close(fd);
  }
  int fds_[2] = {-1, -1};
};

TEST_F(Channel, FramesRoundTripWhole) {
  std::vector<uint8_t> big(3 << 20);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>(i * 7);
  std::thread sender([&] {
    send_frame(fds_[0], big);
    send_frame(fds_[0], std::vector<uint8_t>{});
  });
  std::vector<uint8_t> got;
  EXPECT_EQ(receive_frame(fds_[1], got), receive_status::ok);
  EXPECT_EQ(got, big);
  EXPECT_EQ(receive_frame(fds_[1], got), receive_status::ok);
  EXPECT_TRUE(got.empty());
  sender.join();
}

TEST_F(Channel, DeadlineAndClosedPeer) {
  std::vector<uint8_t> got;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(receive_frame(fds_[1], got, start + std::chrono::milliseconds(50)), receive_status::timed_out);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
  close(fds_[0]);
  fds_[0] = -1;
  EXPECT_EQ(receive_frame(fds_[1], got), receive_status::closed);
}

TEST_F(Channel, OversizedHeaderClosesTheStream) {
  uint8_t header[4] = {0xff, 0xff, 0xff, 0xff};
  ASSERT_EQ(write(fds_[0], header, 4), 4);
  std::vector<uint8_t> got;
  EXPECT_EQ(receive_frame(fds_[1], got), receive_status::closed);
}

} // namespace
} // namespace mkb::wire
