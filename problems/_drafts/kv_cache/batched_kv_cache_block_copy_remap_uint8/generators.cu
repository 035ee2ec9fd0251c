// Structured input of batched_kv_cache_block_copy_remap_uint8, a pure function of (count, seed).
//   block_mapping [256, 2] int64: the original draws perm = randperm(NUM_BLOCKS) and takes
//   perm[:256] as the source column and perm[256:512] as the destination column. Here perm[j] is the
//   image of j under a seeded bijection of [0, NUM_BLOCKS) (a Feistel network with cycle walking,
//   mkb_random::permute_index), so the 512 ids are distinct as in the original.
#include "mkb_random.cuh"

namespace {
constexpr unsigned long long kNumBlocks = 1024;   // NUM_BLOCKS
constexpr unsigned long long kNumMappings = 256;  // NUM_MAPPINGS
} // namespace

extern "C" __global__ void gen_block_mapping(void *out, unsigned long long count, unsigned long long seed) {
  long long *mapping = static_cast<long long *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned long long row = i / 2, column = i % 2;  // column 0: source, 1: destination
    const unsigned long long j = (column * kNumMappings + row) % kNumBlocks;
    mapping[i] = (long long)mkb_random::permute_index(j, kNumBlocks, seed, 0);
  }
}
