// Structured input of dynamic_quantized_cache_append_per_token_head_fp8, a pure function of (count, seed):
//   slot_mapping  the original's randperm(NUM_BLOCKS * BLOCK_SIZE)[:NUM_TOKENS] with its last num_pads
//                 entries set to -1, num_pads = randint(1, MAX_PAD_TOKENS + 1) drawn once per draw.
//                 Element i < count - num_pads is the image of i under a seeded bijection of [0, 4096)
//                 (mkb_random::permute_index), so the slots are distinct; the padding is the tail.
// 256-thread blocks over a grid-stride loop.
#include "mkb_random.cuh"

namespace {

constexpr unsigned long long kSlots = 256ull * 16ull;  // NUM_BLOCKS * BLOCK_SIZE
constexpr unsigned long long kMaxPadTokens = 128;     // MAX_PAD_TOKENS

} // namespace

extern "C" __global__ void slot_mapping_with_padding(void *out, unsigned long long count, unsigned long long seed) {
  long long *slots = static_cast<long long *>(out);
  // One draw of num_pads in 1..MAX_PAD_TOKENS for the whole tensor (stream 1, group 0), at most count.
  const mkb_random::u32x4 w = mkb_random::random_words(seed, 0, 1);
  unsigned long long pads = 1 + mkb_random::bounded(w.v[1], w.v[0], kMaxPadTokens);
  if (pads > count) pads = count;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    slots[i] = i >= count - pads ? -1ll : (long long)mkb_random::permute_index(i, kSlots, seed, 0);
}
