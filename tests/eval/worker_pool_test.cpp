// The session's workers: one per GPU, and the compile workers that compile checks borrow, which
// stay free while every GPU's worker is taken. No request is sent: a worker starts on first use.
#include "eval/worker_pool.hpp"

#include <gtest/gtest.h>

#include <future>

#include "support/paths.hpp"

namespace mkb {
namespace {

TEST(WorkerPool, ACompileWorkerIsFreeWhileEveryGpuWorkerIsTaken) {
  worker_pool pool(testing::worker_double(), {0, 1});
  worker_pool::lease first = pool.acquire(), second = pool.acquire();
  worker_pool::lease compiler = pool.acquire_compiler();
  EXPECT_NE(&*compiler, &*first);
  EXPECT_NE(&*compiler, &*second);
  worker_pool::lease another = pool.acquire_compiler();
  EXPECT_NE(&*another, &*compiler) << "one compile worker per GPU";
  // A third waits until one comes back, and gets that one.
  worker_client *returned = &*another;
  auto waiting = std::async(std::launch::async, [&] { return &*pool.acquire_compiler(); });
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout);
  { worker_pool::lease back = std::move(another); }
  EXPECT_EQ(waiting.get(), returned);
}

TEST(WorkerPool, ACompileOnlyPoolsOneWorkerIsItsCompileWorker) {
  worker_pool pool(testing::worker_double(), {});
  worker_client *compiler = nullptr;
  {
    worker_pool::lease c = pool.acquire_compiler();
    compiler = &*c;
    auto waiting = std::async(std::launch::async, [&] { return &*pool.acquire(); });
    EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout) << "the same worker";
    { worker_pool::lease back = std::move(c); }
    EXPECT_EQ(waiting.get(), compiler);
  }
  EXPECT_EQ(pool.size(), 1u);
}

} // namespace
} // namespace mkb
