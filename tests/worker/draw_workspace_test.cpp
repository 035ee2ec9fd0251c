// How many layouts a draw's rotating buffers get (the rest of draw_workspace needs a GPU:
// tests/gpu): three where they fit, fewer for a draw that is a large part of the GPU's memory.
#include <gtest/gtest.h>

#include "worker/draw_workspace.hpp"

namespace mkb::worker {
namespace {

constexpr uint64_t gib = uint64_t(1) << 30;

TEST(DrawWorkspace, ThreeLayoutsWhereTheyFitFewerWhereTheyDoNot) {
  const uint64_t h100_free = 78 * gib;
  EXPECT_EQ(slots_that_fit({1 * gib, 1 * gib}, h100_free, 3), 3);
  // #38: 27 GB of inputs and outputs per layout, its anchor's fp64 outputs beside them.
  EXPECT_EQ(slots_that_fit({27 * gib, 14 * gib}, h100_free, 3), 2);
  EXPECT_EQ(slots_that_fit({27 * gib, 14 * gib}, 141 * gib, 3), 3);
  EXPECT_EQ(slots_that_fit({45 * gib, 20 * gib}, h100_free, 3), 1);
  EXPECT_EQ(slots_that_fit({90 * gib, 0}, h100_free, 3), 1) << "never fewer than one: the allocation then fails";
  EXPECT_EQ(slots_that_fit({0, 0}, 0, 3), 3);
}

} // namespace
} // namespace mkb::worker
