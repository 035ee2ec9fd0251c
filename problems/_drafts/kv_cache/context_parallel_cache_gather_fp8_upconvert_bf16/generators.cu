// Structured inputs of context_parallel_cache_gather_fp8_upconvert_bf16, pure functions of (count, seed).
// The original's make_inputs draws, in order:
//   cuts = sorted(randperm(TOTAL_TOKENS - 1)[:NUM_REQUESTS - 1]) + 1; lengths = diff([0, cuts, 641])
//   block_table[r, :ceil(len_r / 64)] = consecutive slices of randperm(NUM_BLOCKS), the rest 0
//   cache entry (656 bytes per token): bytes [0, 512) = randn fp32 rounded to e4m3,
//     bytes [512, 528) = 4 fp32 scales rand * 2.0 + 0.1, bytes [528, 656) = 64 bf16 randn
// seq_lens and block_table both depend on the lengths, but the harness hands each generator only its
// own seed, derive_seed(draw, index) = mix64(draw ^ mix64(index + 1)) (src/core/random.hpp). mix64 is a
// bijection, so both recover the draw's seed from their own and compute the same lengths. Should
// derive_seed change, the inputs stay valid in themselves but the block table no longer matches the
// lengths (every draw would then still read only block ids in [0, 16), never out of bounds).
// randperm is stood for by seeded bijections (mkb_random::permute_index).
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include "mkb_random.cuh"

namespace {

constexpr int kNumRequests = 3;                  // NUM_REQUESTS
constexpr unsigned long long kTotalTokens = 641; // TOTAL_TOKENS
constexpr int kBlockSize = 64;                   // BLOCK_SIZE
constexpr unsigned long long kNumBlocks = 16;    // NUM_BLOCKS
constexpr int kTableWidth = 10;                  // max_blocks: ceil((641 - 2) / 64)
constexpr int kNope = 512, kEntryBytes = 656, kRopeOffset = 528;
constexpr unsigned long long kIndexBlockTable = 1, kIndexSeqLens = 2;  // positions in the input list
constexpr unsigned kStreamCuts = 11, kStreamBlocks = 12;               // streams of the draw's seed
constexpr unsigned kStreamFp8 = 1, kStreamScale = 2, kStreamRope = 3;  // streams of the cache's own seed

__device__ unsigned long long mix64(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__device__ unsigned long long unmix64(unsigned long long x) {
  x ^= (x >> 31) ^ (x >> 62);
  x *= 0x319642b2d24d8ec3ull;  // the inverse of 0x94d049bb133111eb modulo 2^64
  x ^= (x >> 27) ^ (x >> 54);
  x *= 0x96de1b173f119089ull;  // the inverse of 0xbf58476d1ce4e5b9
  x ^= (x >> 30) ^ (x >> 60);
  return x - 0x9e3779b97f4a7c15ull;
}

// The draw's seed, from the seed of input `index`.
__device__ unsigned long long draw_seed(unsigned long long input_seed, unsigned long long index) {
  return unmix64(input_seed) ^ mix64(index + 1);
}

// The request lengths of the draw: a random composition of 641 into 3 positive parts.
__device__ void request_lengths(unsigned long long draw, int lengths[kNumRequests]) {
  long long bounds[kNumRequests + 1];
  bounds[0] = 0;
  bounds[kNumRequests] = (long long)kTotalTokens;
  for (int k = 0; k < kNumRequests - 1; ++k)
    bounds[k + 1] = (long long)mkb_random::permute_index(k, kTotalTokens - 1, draw, kStreamCuts) + 1;
  for (int a = 2; a < kNumRequests; ++a)  // insertion sort of the cuts bounds[1 .. 2]
    for (int b = a; b > 1 && bounds[b - 1] > bounds[b]; --b) {
      const long long t = bounds[b];
      bounds[b] = bounds[b - 1];
      bounds[b - 1] = t;
    }
  for (int r = 0; r < kNumRequests; ++r) lengths[r] = (int)(bounds[r + 1] - bounds[r]);
}

__device__ float normal_at(unsigned long long seed, unsigned long long i, unsigned stream) {
  const mkb_random::u32x4 w = mkb_random::random_words(seed, i, stream);
  float z0, z1;
  mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z0, &z1);
  return z0;
}

__device__ unsigned long long grid_start() { return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ unsigned long long grid_step() { return (unsigned long long)gridDim.x * blockDim.x; }

} // namespace

extern "C" __global__ void gen_seq_lens(void *out, unsigned long long count, unsigned long long seed) {
  int *lens = static_cast<int *>(out);
  int lengths[kNumRequests];
  request_lengths(draw_seed(seed, kIndexSeqLens), lengths);
  for (unsigned long long i = grid_start(); i < count; i += grid_step()) lens[i] = lengths[i % kNumRequests];
}

extern "C" __global__ void gen_block_table(void *out, unsigned long long count, unsigned long long seed) {
  int *table = static_cast<int *>(out);
  const unsigned long long draw = draw_seed(seed, kIndexBlockTable);
  int lengths[kNumRequests];
  request_lengths(draw, lengths);
  for (unsigned long long i = grid_start(); i < count; i += grid_step()) {
    const int r = (int)((i / kTableWidth) % kNumRequests), slot = (int)(i % kTableWidth);
    unsigned long long cursor = 0;  // blocks handed to the requests before r
    for (int s = 0; s < r; ++s) cursor += (lengths[s] + kBlockSize - 1) / kBlockSize;
    const int blocks = (lengths[r] + kBlockSize - 1) / kBlockSize;
    table[i] = slot < blocks ? (int)mkb_random::permute_index(cursor + slot, kNumBlocks, draw, kStreamBlocks) : 0;
  }
}

extern "C" __global__ void gen_cache(void *out, unsigned long long count, unsigned long long seed) {
  unsigned char *bytes = static_cast<unsigned char *>(out);
  for (unsigned long long i = grid_start(); i < count; i += grid_step()) {
    const unsigned long long entry = i / kEntryBytes;
    const int o = (int)(i % kEntryBytes);
    unsigned char byte;
    if (o < kNope) {
      // randn(n, 512, fp32).to(float8_e4m3fn): round to nearest even (|z| < 448 always)
      const float z = normal_at(seed, entry * kNope + o, kStreamFp8);
      byte = (unsigned char)__nv_cvt_float_to_fp8(z, __NV_SATFINITE, __NV_E4M3);
    } else if (o < kRopeOffset) {
      // rand(n, 4, fp32) * 2.0 + 0.1: two fp32 operations (the first exact), stored little-endian
      const int group = (o - kNope) / 4, j = (o - kNope) % 4;
      const mkb_random::u32x4 w = mkb_random::random_words(seed, entry * 4 + group, kStreamScale);
      const float u = (float)(w.v[0] >> 8) * 0x1p-24f;  // [0, 1) on a 2^-24 grid
      const float scale = __fadd_rn(u * 2.0f, 0.1f);
      byte = (unsigned char)((__float_as_uint(scale) >> (8 * j)) & 0xffu);
    } else {
      // randn(n, 64, dtype=bfloat16): a normal rounded to bf16, stored little-endian
      const int element = (o - kRopeOffset) / 2, j = (o - kRopeOffset) % 2;
      const __nv_bfloat16 v = __float2bfloat16_rn(normal_at(seed, entry * 64 + element, kStreamRope));
      const unsigned short bits = *reinterpret_cast<const unsigned short *>(&v);
      byte = (unsigned char)((bits >> (8 * j)) & 0xffu);
    }
    bytes[i] = byte;
  }
}
