// Structured inputs of main_index_dual_cache_insert_minimax_m3_bf16, pure functions of (count, seed);
// 256-thread blocks over a grid-stride loop.
//   cos_sin_cache  the original's deterministic table (the same in every draw): row p is
//                  [cos(p * inv_freq) | sin(p * inv_freq)] with inv_freq[f] = 1 / ROPE_BASE^(2f / ROTARY_DIM),
//                  f < ROTARY_DIM / 2, ROPE_BASE = 5e6, computed in fp32 as PyTorch does on CUDA (powf, an
//                  IEEE reciprocal, an fp32 product, cosf / sinf) and rounded to bf16 once.
//   slot_mapping, index_slot_mapping
//                  randperm(NUM_BLOCKS * BLOCK_SIZE)[:NUM_TOKENS], no padding: element i is the image of i
//                  under a seeded bijection of [0, 640) (mkb_random::permute_index), so the slots are
//                  distinct; each input gets its own seed, so the two mappings are independent.
#include <cuda_bf16.h>
#include "mkb_random.cuh"

namespace {

constexpr int kRotaryDim = 64;                        // ROTARY_DIM
constexpr float kRopeBase = 5000000.0f;               // ROPE_BASE
constexpr unsigned long long kSlots = 10ull * 64ull;  // NUM_BLOCKS * BLOCK_SIZE

} // namespace

extern "C" __global__ void rope_cos_sin_cache(void *out, unsigned long long count, unsigned long long seed) {
  (void)seed;
  __nv_bfloat16 *table = static_cast<__nv_bfloat16 *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned position = (unsigned)(i / kRotaryDim), column = (unsigned)(i % kRotaryDim);
    const unsigned f = column % (kRotaryDim / 2);
    const float exponent = (float)(2 * f) * (1.0f / kRotaryDim);  // arange(0, 64, 2) / 64, exact
    const float inv_freq = __frcp_rn(powf(kRopeBase, exponent));  // 1.0 / (...) is reciprocal() * 1.0
    const float angle = __fmul_rn((float)position, inv_freq);     // torch.outer
    table[i] = __float2bfloat16_rn(column < kRotaryDim / 2 ? cosf(angle) : sinf(angle));
  }
}

extern "C" __global__ void slot_mapping_distinct(void *out, unsigned long long count, unsigned long long seed) {
  long long *slots = static_cast<long long *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    slots[i] = (long long)mkb_random::permute_index(i, kSlots, seed, 0);
}
