#include "core/statistics.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace mkb {
namespace {

TEST(Statistics, QuantilesInterpolate) {
  std::vector<double> v = {5, 1, 4, 2, 3};
  sample_summary s = summarize(v);
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.q1, 2);
  EXPECT_DOUBLE_EQ(s.q3, 4);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_NEAR(s.stddev, 1.5811388, 1e-6);
  std::vector<double> even = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(summarize(even).median, 2.5);
}

TEST(Statistics, EmptyAndSingle) {
  EXPECT_EQ(summarize(std::vector<double>{}).count, 0u);
  sample_summary one = summarize(std::vector<double>{7});
  EXPECT_DOUBLE_EQ(one.median, 7);
  EXPECT_DOUBLE_EQ(one.cv, 0);
}

} // namespace
} // namespace mkb
