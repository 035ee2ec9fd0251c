// The device headers compiled as host code: Philox against the Random123 known-answer vectors, the
// device XXH64 against libxxhash, and the permutation mapping against its contract.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/hash.hpp"
#include "core/random.hpp"
#include "worker/device/mkb_random.cuh"
#include "worker/device/mkb_xxh64.cuh"

namespace {

using mkb_random::philox4x32_10;
using mkb_random::u32x4;

TEST(DeviceRandom, PhiloxKnownAnswers) {
  u32x4 a = philox4x32_10(u32x4{{0, 0, 0, 0}}, 0, 0);
  EXPECT_EQ(a.v[0], 0x6627e8d5u);
  EXPECT_EQ(a.v[1], 0xe169c58du);
  EXPECT_EQ(a.v[2], 0xbc57ac4cu);
  EXPECT_EQ(a.v[3], 0x9b00dbd8u);
  u32x4 b = philox4x32_10(u32x4{{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}}, 0xffffffffu, 0xffffffffu);
  EXPECT_EQ(b.v[0], 0x408f276du);
  EXPECT_EQ(b.v[1], 0x41c83b0eu);
  EXPECT_EQ(b.v[2], 0xa20bc7c6u);
  EXPECT_EQ(b.v[3], 0x6d5451fdu);
  u32x4 c = philox4x32_10(u32x4{{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, 0xa4093822u, 0x299f31d0u);
  EXPECT_EQ(c.v[0], 0xd16cfe09u);
  EXPECT_EQ(c.v[1], 0x94fdccebu);
  EXPECT_EQ(c.v[2], 0x5001e420u);
  EXPECT_EQ(c.v[3], 0x24126ea1u);
}

TEST(DeviceRandom, Xxh64MatchesLibxxhash) {
  std::string data;
  for (int i = 0; i < 5000; ++i) data += static_cast<char>((i * 131 + 7) & 0xff);
  for (size_t length : {0, 1, 3, 4, 7, 8, 31, 32, 33, 63, 100, 4096, 4999})
    for (uint64_t seed : {0ull, 42ull, 0x9e3779b97f4a7c15ull})
      EXPECT_EQ(mkb_xxh64::hash(reinterpret_cast<const unsigned char *>(data.data()), length, seed),
                mkb::xxh64(std::string_view(data.data(), length), seed))
          << "length " << length << " seed " << seed;
}

TEST(DeviceRandom, PermutationIsABijection) {
  for (uint64_t n : {1, 2, 7, 8, 100, 1000, 4097}) {
    std::set<uint64_t> seen;
    for (uint64_t i = 0; i < n; ++i) seen.insert(mkb_random::permute_index(i, n, 1234, 5));
    EXPECT_EQ(seen.size(), n);
    EXPECT_LT(*seen.rbegin(), n);
  }
  // Different rows and seeds give different permutations.
  std::vector<uint64_t> a, b;
  for (uint64_t i = 0; i < 64; ++i) {
    a.push_back(mkb_random::permute_index(i, 64, 1, 0));
    b.push_back(mkb_random::permute_index(i, 64, 1, 1));
  }
  EXPECT_NE(a, b);
}

TEST(DeviceRandom, UniformAndBoundedRanges) {
  EXPECT_GT(mkb_random::uniform_open(0), 0.0f);
  EXPECT_LE(mkb_random::uniform_open(0xffffffffu), 1.0f);
  EXPECT_GT(mkb_random::uniform_open_double(0, 0), 0.0);
  EXPECT_LE(mkb_random::uniform_open_double(0xffffffffu, 0xffffffffu), 1.0);
  EXPECT_EQ(mkb_random::bounded(0, 0, 10), 0u);
  EXPECT_EQ(mkb_random::bounded(0, 0xffffffffu, 10), 9u);
  EXPECT_LT(mkb_random::bounded(0xffffffffu, 0xffffffffu, 1ull << 40), 1ull << 40);
}

// Generators of inputs drawn together recover the draw's seed from their own: the device functions must
// stay the inverse of the worker's derive_seed.
TEST(DeviceRandom, DrawSeedInvertsTheWorkersDeriveSeed) {
  for (uint64_t draw : {0ull, 1ull, 0x1234ull, 0xffffffffffffffffull, 0x9e3779b97f4a7c15ull})
    for (uint64_t index : {0ull, 1ull, 5ull, 63ull}) {
      uint64_t given = mkb::derive_seed(draw, index);
      EXPECT_EQ(mkb_random::input_seed(draw, index), given);
      EXPECT_EQ(mkb_random::draw_seed(given, index), draw) << draw << " " << index;
      EXPECT_EQ(mkb_random::unmix64(mkb_random::mix64(draw)), draw);
    }
}

} // namespace
