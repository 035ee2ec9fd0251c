// src/cuda/arch_limits.cpp: the shared memory a compile-only check allows a block, per target.
#include <gtest/gtest.h>

#include "cuda/arch_limits.hpp"

namespace mkb {
namespace {

TEST(ArchLimits, HopperAndBlackwellAllow227KiB) {
  EXPECT_EQ(max_shared_per_block_optin("sm_90a"), 232448);
  EXPECT_EQ(max_shared_per_block_optin("sm_90"), 232448);
  EXPECT_EQ(max_shared_per_block_optin("sm_100a"), 232448);
}

TEST(ArchLimits, SmallerPartsAllowLess) {
  EXPECT_EQ(max_shared_per_block_optin("sm_80"), 166912);
  EXPECT_EQ(max_shared_per_block_optin("sm_86"), 101376);
  EXPECT_EQ(max_shared_per_block_optin("sm_120a"), 101376);
  EXPECT_EQ(max_shared_per_block_optin("sm_75"), 65536);
}

// An architecture not in the table is left to the GPU to check, never refused on a guess.
TEST(ArchLimits, AnUnknownTargetHasNoLimit) {
  EXPECT_EQ(max_shared_per_block_optin("sm_99"), 0);
  EXPECT_EQ(max_shared_per_block_optin("compute_90"), 0);
  EXPECT_EQ(max_shared_per_block_optin("sm_"), 0);
  EXPECT_EQ(max_shared_per_block_optin(""), 0);
}

} // namespace
} // namespace mkb
