#include "core/hash.hpp"

#include <gtest/gtest.h>

namespace mkb {
namespace {

TEST(Hash, KnownValues) {
  // XXH64 of the empty input with seed 0 is a published test vector.
  EXPECT_EQ(xxh64("", 0), 0xEF46DB3751D8E999ull);
  EXPECT_EQ(xxh3_128("abc").hex().size(), 32u);
  EXPECT_NE(xxh3_128("abc"), xxh3_128("abd"));
}

TEST(Hash, PartsAreLengthPrefixed) {
  hasher128 a, b;
  a.add("ab").add("c");
  b.add("a").add("bc");
  EXPECT_NE(a.digest(), b.digest());
  hasher128 c;
  c.add("ab").add("c");
  EXPECT_EQ(a.digest(), c.digest());
}

} // namespace
} // namespace mkb
