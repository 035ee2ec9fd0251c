// Counter-based random numbers for input generation: Philox4x32-10 (Salmon et al., SC'11) and the
// mappings to uniform, normal, bounded integers and permutations. Pure functions of (seed, counter),
// so any element of any draw can be recomputed. Compiles as CUDA (NVRTC) and as host C++ (tests).
#pragma once

#if defined(__CUDACC__)
#define MKB_HD __host__ __device__ __forceinline__
#include <cuda/std/cstdint>
using mkb_u32 = ::cuda::std::uint32_t;
using mkb_u64 = ::cuda::std::uint64_t;
#else
#include <cmath>
#include <cstdint>
#define MKB_HD inline
using mkb_u32 = std::uint32_t;
using mkb_u64 = std::uint64_t;
#endif

namespace mkb_random {

struct u32x4 {
  mkb_u32 v[4];
};

MKB_HD mkb_u32 mulhi32(mkb_u32 a, mkb_u32 b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<mkb_u32>((static_cast<mkb_u64>(a) * b) >> 32);
#endif
}

MKB_HD u32x4 philox4x32_10(u32x4 counter, mkb_u32 key0, mkb_u32 key1) {
  const mkb_u32 m0 = 0xD2511F53u, m1 = 0xCD9E8D57u, w0 = 0x9E3779B9u, w1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    mkb_u32 hi0 = mulhi32(m0, counter.v[0]), lo0 = m0 * counter.v[0];
    mkb_u32 hi1 = mulhi32(m1, counter.v[2]), lo1 = m1 * counter.v[2];
    counter = u32x4{{hi1 ^ counter.v[1] ^ key0, lo1, hi0 ^ counter.v[3] ^ key1, lo0}};
    key0 += w0;
    key1 += w1;
  }
  return counter;
}

// The four random words of group `group` of stream `stream` under `seed`.
MKB_HD u32x4 random_words(mkb_u64 seed, mkb_u64 group, mkb_u32 stream) {
  return philox4x32_10(u32x4{{static_cast<mkb_u32>(group), static_cast<mkb_u32>(group >> 32), stream, 0x6d6b62u}},
                       static_cast<mkb_u32>(seed), static_cast<mkb_u32>(seed >> 32));
}

// (0, 1]: never 0, so log() in Box-Muller is finite.
MKB_HD float uniform_open(mkb_u32 x) { return (static_cast<float>(x >> 8) + 1.0f) * (1.0f / 16777216.0f); }
MKB_HD double uniform_open_double(mkb_u32 hi, mkb_u32 lo) {
  mkb_u64 bits = (static_cast<mkb_u64>(hi) << 21) ^ (lo >> 11);
  return (static_cast<double>(bits & ((1ull << 53) - 1)) + 1.0) * (1.0 / 9007199254740992.0);
}

MKB_HD void box_muller(float u1, float u2, float *z0, float *z1) {
  float radius = sqrtf(-2.0f * logf(u1));
  float angle = 6.283185307179586f * u2;
  *z0 = radius * cosf(angle);
  *z1 = radius * sinf(angle);
}

MKB_HD void box_muller_double(double u1, double u2, double *z0, double *z1) {
  double radius = sqrt(-2.0 * log(u1));
  double angle = 6.283185307179586 * u2;
  *z0 = radius * cos(angle);
  *z1 = radius * sin(angle);
}

// An integer in [0, span), span >= 1, by multiply-shift (bias below 2^-32 * span).
MKB_HD mkb_u64 bounded(mkb_u32 hi, mkb_u32 lo, mkb_u64 span) {
  if (span <= 0xffffffffull) return (static_cast<mkb_u64>(lo) * span) >> 32;
  mkb_u64 x = (static_cast<mkb_u64>(hi) << 32) | lo;
#if defined(__CUDA_ARCH__)
  return __umul64hi(x, span);
#else
  return static_cast<mkb_u64>((static_cast<unsigned __int128>(x) * span) >> 64);
#endif
}

// A bijection of [0, n) keyed by (seed, row): a 4-round Feistel network on the smallest even power
// of two >= n, cycle-walked back into range.
MKB_HD mkb_u64 permute_index(mkb_u64 index, mkb_u64 n, mkb_u64 seed, mkb_u64 row) {
  int bits = 2;
  while ((1ull << bits) < n) bits += 2;
  const int half = bits / 2;
  const mkb_u64 mask = (1ull << half) - 1;
  u32x4 keys = random_words(seed, row, 0x7065726du);
  mkb_u64 x = index;
  do {
    mkb_u64 left = x >> half, right = x & mask;
    for (int round = 0; round < 4; ++round) {
      mkb_u32 f = philox4x32_10(u32x4{{static_cast<mkb_u32>(right), static_cast<mkb_u32>(round), 0, 0}}, keys.v[round],
                                keys.v[(round + 1) & 3])
                      .v[0];
      mkb_u64 next = left ^ (f & mask);
      left = right;
      right = next;
    }
    x = (left << half) | right;
  } while (x >= n);
  return x;
}

// ---- Inputs drawn together -----------------------------------------------------------------------
// A generator gets the seed of its own input, derive_seed(draw, index) (src/core/random.hpp: mix64 of the
// draw's seed xor mix64(index + 1)). Inputs that must agree (a block table and the lengths it covers,
// routing weights and the experts they select) each recover the draw's seed with draw_seed() and draw
// from it, so each can recompute what the others drew. tests/worker/device_random_test.cpp holds this
// to the worker's derive_seed.

MKB_HD mkb_u64 mix64(mkb_u64 x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

MKB_HD mkb_u64 unmix64(mkb_u64 x) {
  x ^= (x >> 31) ^ (x >> 62);
  x *= 0x319642b2d24d8ec3ull; // the inverse of 0x94d049bb133111eb modulo 2^64
  x ^= (x >> 27) ^ (x >> 54);
  x *= 0x96de1b173f119089ull; // the inverse of 0xbf58476d1ce4e5b9
  x ^= (x >> 30) ^ (x >> 60);
  return x - 0x9e3779b97f4a7c15ull;
}

// The draw's seed, from the seed a generator was given for input `index` (its place in the spec's inputs).
MKB_HD mkb_u64 draw_seed(mkb_u64 input_seed, mkb_u64 index) { return unmix64(input_seed) ^ mix64(index + 1); }
// The seed input `index` of the same draw is given: what its generator draws from.
MKB_HD mkb_u64 input_seed(mkb_u64 draw, mkb_u64 index) { return mix64(draw ^ mix64(index + 1)); }

} // namespace mkb_random
