// Structured inputs of hybrid_kv_group_block_table_update_slot_mapping_int32_int64, pure functions of
// (count, seed). The original's make_inputs draws:
//   write_requests = cat(randperm(64), randperm(64)): every request is written exactly twice per group
//   staged_counts  = randint(0, STAGE_CAPACITY + 1, (3, 128))
//   staged_ids     = -1, except the first staged_counts[g, w] slots of row (g, w), which hold
//                    randint(0, 2048) (candidates drawn for the whole [3, 128, 4] shape)
//   query_start_loc = [0, cumsum(lengths).clamp(max=4096)], lengths = randint(0, 65, (64,))
// staged_ids depends on staged_counts, but the harness hands each generator only its own seed,
// derive_seed(draw, index) = mix64(draw ^ mix64(index + 1)) (src/core/random.hpp). mix64 is a
// bijection, so both generators recover the draw's seed from their own and compute the same counts.
// Should derive_seed change, staged_ids no longer matches staged_counts in its -1 pattern, which the
// semantics never read (only the first staged_counts[g, w] ids of a row are used), so the problem
// stays well defined either way. randperm is stood for by seeded bijections (mkb_random::permute_index).
#include "mkb_random.cuh"

namespace {

constexpr unsigned long long kMaxNumReqs = 64;          // MAX_NUM_REQS
constexpr int kStageCapacity = 4;                       // STAGE_CAPACITY
constexpr unsigned long long kCandidateIds = 2048;      // randint(0, 2048)
constexpr unsigned long long kMaxRequestTokens = 64;    // MAX_REQUEST_TOKENS
constexpr long long kMaxNumBatchedTokens = 4096;        // MAX_NUM_BATCHED_TOKENS
constexpr unsigned long long kIndexStagedIds = 6, kIndexStagedCounts = 7;  // positions in the input list
constexpr unsigned kStreamCounts = 21, kStreamCandidates = 22;           // streams of the draw's seed
constexpr unsigned kStreamLengths = 1;                                   // stream of query_start_loc's seed

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

// An integer in [0, span) from element `i` of stream `stream`.
__device__ unsigned long long uniform_int(unsigned long long seed, unsigned long long i, unsigned stream,
                                          unsigned long long span) {
  const mkb_random::u32x4 w = mkb_random::random_words(seed, i, stream);
  return mkb_random::bounded(w.v[0], w.v[1], span);
}

// staged_counts[g, w], element g * 128 + w: randint(0, STAGE_CAPACITY + 1).
__device__ int staged_count(unsigned long long draw, unsigned long long element) {
  return (int)uniform_int(draw, element, kStreamCounts, kStageCapacity + 1);
}

__device__ unsigned long long grid_start() { return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ unsigned long long grid_step() { return (unsigned long long)gridDim.x * blockDim.x; }

} // namespace

extern "C" __global__ void gen_write_requests(void *out, unsigned long long count, unsigned long long seed) {
  int *requests = static_cast<int *>(out);
  for (unsigned long long i = grid_start(); i < count; i += grid_step())  // two independent permutations
    requests[i] = (int)mkb_random::permute_index(i % kMaxNumReqs, kMaxNumReqs, seed, i / kMaxNumReqs);
}

extern "C" __global__ void gen_staged_counts(void *out, unsigned long long count, unsigned long long seed) {
  int *counts = static_cast<int *>(out);
  const unsigned long long draw = draw_seed(seed, kIndexStagedCounts);
  for (unsigned long long i = grid_start(); i < count; i += grid_step()) counts[i] = staged_count(draw, i);
}

extern "C" __global__ void gen_staged_ids(void *out, unsigned long long count, unsigned long long seed) {
  int *ids = static_cast<int *>(out);
  const unsigned long long draw = draw_seed(seed, kIndexStagedIds);
  for (unsigned long long i = grid_start(); i < count; i += grid_step()) {
    const unsigned long long row = i / kStageCapacity;  // g * 128 + w
    const int slot = (int)(i % kStageCapacity);
    ids[i] = slot < staged_count(draw, row) ? (int)uniform_int(draw, i, kStreamCandidates, kCandidateIds) : -1;
  }
}

extern "C" __global__ void gen_query_start_loc(void *out, unsigned long long count, unsigned long long seed) {
  int *loc = static_cast<int *>(out);
  for (unsigned long long i = grid_start(); i < count; i += grid_step()) {
    long long sum = 0;  // lengths[0] + ... + lengths[i - 1]
    for (unsigned long long k = 0; k < i && k < kMaxNumReqs; ++k)
      sum += (long long)uniform_int(seed, k, kStreamLengths, kMaxRequestTokens + 1);
    loc[i] = (int)(sum < kMaxNumBatchedTokens ? sum : kMaxNumBatchedTokens);
  }
}
