// The host's GPU lock across real processes: exclusion, arrival order, a killed holder, and folders
// that cannot be used. Children are forked and report through a pipe.
#include "core/queue_lock.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

using namespace std::chrono_literals;
using testing::temp_dir;

// A forked child that runs `body` and exits; its writes to the pipe are read by the parent.
class child {
public:
  template <typename Body> explicit child(Body body) {
    if (::pipe(pipe_) != 0) throw std::runtime_error("pipe");
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(pipe_[0]);
      int rc = 0;
      try {
        body(pipe_[1]);
      } catch (...) {
        rc = 3;
      }
      ::_exit(rc);
    }
    ::close(pipe_[1]);
  }
  ~child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    ::close(pipe_[0]);
  }
  // Blocks for the next byte the child writes.
  char next() {
    char c = 0;
    return ::read(pipe_[0], &c, 1) == 1 ? c : '\0';
  }
  void kill() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  int wait() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

private:
  int pipe_[2] = {-1, -1};
  pid_t pid_ = -1;
};

void say(int fd, char c) { (void)!::write(fd, &c, 1); }

TEST(QueueLock, ASecondProcessWaitsUntilTheHolderReleases) {
  temp_dir dir;
  child holder([&](int out) {
    queue_lock held = queue_lock::acquire(dir.path(), "gpu-a");
    say(out, 'H');
    std::this_thread::sleep_for(400ms);
  });
  ASSERT_EQ(holder.next(), 'H');
  queue_lock mine = queue_lock::acquire(dir.path(), "gpu-a");
  EXPECT_TRUE(mine.held());
  EXPECT_GE(mine.waited(), 250ms);
  EXPECT_EQ(holder.wait(), 0);
}

TEST(QueueLock, LocksOfDifferentGpusDoNotWaitForEachOther) {
  temp_dir dir;
  child holder([&](int out) {
    queue_lock held = queue_lock::acquire(dir.path(), "gpu-a");
    say(out, 'H');
    std::this_thread::sleep_for(5s);
  });
  ASSERT_EQ(holder.next(), 'H');
  queue_lock other = queue_lock::acquire(dir.path(), "gpu-b");
  EXPECT_LT(other.waited(), 1s);
}

TEST(QueueLock, WaitersAreServedInArrivalOrder) {
  temp_dir dir;
  int order[2];
  ASSERT_EQ(::pipe(order), 0);
  child holder([&](int out) {
    queue_lock held = queue_lock::acquire(dir.path(), "gpu-a");
    say(out, 'H');
    std::this_thread::sleep_for(600ms);
  });
  ASSERT_EQ(holder.next(), 'H');
  std::vector<std::unique_ptr<child>> waiters;
  for (char name : std::string("ABCD")) {
    waiters.push_back(std::make_unique<child>([&, name](int) {
      queue_lock turn = queue_lock::acquire(dir.path(), "gpu-a");
      say(order[1], name);
      std::this_thread::sleep_for(20ms);
    }));
    std::this_thread::sleep_for(60ms); // each takes its ticket before the next starts
  }
  ::close(order[1]);
  std::string served;
  char c;
  while (::read(order[0], &c, 1) == 1) served += c;
  ::close(order[0]);
  EXPECT_EQ(served, "ABCD");
}

TEST(QueueLock, AKilledHolderReleasesAndItsTicketIsCleared) {
  temp_dir dir;
  child holder([&](int out) {
    queue_lock held = queue_lock::acquire(dir.path(), "gpu-a");
    say(out, 'H');
    for (;;) std::this_thread::sleep_for(1s);
  });
  ASSERT_EQ(holder.next(), 'H');
  std::thread killer([&] {
    std::this_thread::sleep_for(200ms);
    holder.kill();
  });
  queue_lock mine = queue_lock::acquire(dir.path(), "gpu-a");
  killer.join();
  EXPECT_LT(mine.waited(), 5s);
  size_t tickets = 0;
  for (const auto &e : std::filesystem::directory_iterator(dir.path() / "gpu-a.queue")) tickets += e.path().filename().string()[0] != '.';
  EXPECT_EQ(tickets, 1u) << "only our own ticket is left";
}

TEST(QueueLock, AMissingFolderIsAClearErrorAtOnce) {
  temp_dir dir;
  auto start = std::chrono::steady_clock::now();
  try {
    queue_lock::acquire(dir.path() / "nowhere", "gpu-a");
    FAIL() << "acquired a lock in a missing folder";
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_IO);
    EXPECT_NE(std::string(e.what()).find("nowhere"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
}

TEST(QueueLock, AReadOnlyFolderIsAClearErrorAtOnce) {
  temp_dir dir;
  std::filesystem::path locked = dir.path() / "read-only";
  std::filesystem::create_directory(locked);
  ::chmod(locked.c_str(), 0555);
  // Root writes anywhere: the child takes an unprivileged user's rights first.
  child attempt([&](int out) {
    if (::geteuid() == 0 && ::setuid(65534) != 0) ::_exit(4);
    try {
      queue_lock::acquire(locked, "gpu-a");
      say(out, 'L');
    } catch (const error &e) {
      say(out, e.status() == MKB_ERR_IO && std::string(e.what()).find("not writable") != std::string::npos ? 'E' : '?');
    }
  });
  EXPECT_EQ(attempt.next(), 'E');
  EXPECT_EQ(attempt.wait(), 0);
}

TEST(QueueLock, ANameOutsideTheSafeSetIsRefused) {
  temp_dir dir;
  EXPECT_THROW(queue_lock::acquire(dir.path(), "../escape"), error);
  EXPECT_THROW(queue_lock::acquire(dir.path(), ""), error);
}

} // namespace
} // namespace mkb
