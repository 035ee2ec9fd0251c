// How many layouts a draw's rotating buffers get (the rest of draw_workspace needs a GPU:
// tests/gpu): three where they fit, fewer for a draw that is a large part of the GPU's memory; and
// which problems a GPU cannot hold at all.
#include <gtest/gtest.h>

#include "worker/draw_workspace.hpp"

#include "worker/failure.hpp"

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

TEST(DrawWorkspace, AProblemLargerThanTheGpuIsRefusedNotChargedToTheSubmission) {
  const uint64_t h100_total = 80 * gib, h200_total = 141 * gib;
  // #34: 19 GiB of inputs and outputs per layout; the anchor's fp64 outputs and scratch and the
  // baseline's scratch about 65 GiB; a submission's scratch 12 GiB on top.
  const workspace_footprint swiglu_backward{19 * gib, 77 * gib, 12 * gib};
  try {
    require_room_for_the_problem(swiglu_backward, h100_total);
    FAIL() << "84 GiB of the problem's own buffers fit in 80";
  } catch (const evaluation_failure &f) {
    EXPECT_EQ(f.verdict(), MKB_VERDICT_REFUSED);
    EXPECT_STREQ(f.what(), "this GPU cannot hold the problem: one draw (its inputs, the outputs, the anchor's and the "
                           "baseline's buffers) needs 84.0 GiB, the GPU has 80.0 GiB in all");
  }
  EXPECT_NO_THROW(require_room_for_the_problem(swiglu_backward, h200_total));
  // Where only the submission's own scratch is too much, the allocation fails as its OUT_OF_MEMORY.
  EXPECT_NO_THROW(require_room_for_the_problem({10 * gib, 100 * gib, 60 * gib}, h100_total));
}

} // namespace
} // namespace mkb::worker
