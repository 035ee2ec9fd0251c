#include "cuda/ptx_entries.hpp"

#include <gtest/gtest.h>

namespace mkb {
namespace {

TEST(PtxEntries, ParsesScalarPointerAndAggregateParameters) {
  const char *ptx = R"(
.visible .entry first(
	.param .u64 .ptr .align 1 first_param_0,
	.param .u32 first_param_1,
	.param .align 8 .b8 first_param_2[40],
	.param .f64 first_param_3
)
{
}
.visible .entry second()
{
}
)";
  auto entries = ptx_entry_parameters(ptx);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries["first"], (std::vector<size_t>{8, 4, 40, 8}));
  EXPECT_TRUE(entries["second"].empty());
}

} // namespace
} // namespace mkb
