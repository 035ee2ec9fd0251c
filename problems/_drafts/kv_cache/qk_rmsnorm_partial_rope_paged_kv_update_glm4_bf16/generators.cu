// Structured inputs of qk_rmsnorm_partial_rope_paged_kv_update_glm4_bf16, pure functions of (count, seed);
// 256-thread blocks over a grid-stride loop.
//   cos_sin_cache  the original's deterministic table (the same in every draw): row p is
//                  [cos(p * inv_freq) | sin(p * inv_freq)] with inv_freq[f] = 1 / ROPE_BASE^(2f / ROTARY_DIM),
//                  f < ROTARY_DIM / 2, computed in fp32 as PyTorch does on CUDA (powf, an IEEE reciprocal,
//                  an fp32 product, cosf / sinf) and rounded to bf16 once.
//   slot_mapping   randperm(NUM_BLOCKS * BLOCK_SIZE)[:NUM_TOKENS] with its last num_pads entries set to
//                  -1, num_pads = randint(1, MAX_PAD_TOKENS + 1) drawn once per draw; element i is the image
//                  of i under a seeded bijection of [0, 4096) (mkb_random::permute_index): distinct slots.
#include <cuda_bf16.h>
#include "mkb_random.cuh"

namespace {

constexpr int kRotaryDim = 64;                         // ROTARY_DIM
constexpr float kRopeBase = 10000.0f;                  // ROPE_BASE
constexpr unsigned long long kSlots = 256ull * 16ull;  // NUM_BLOCKS * BLOCK_SIZE
constexpr unsigned long long kMaxPadTokens = 128;      // MAX_PAD_TOKENS

} // namespace

extern "C" __global__ void rope_cos_sin_cache(void *out, unsigned long long count, unsigned long long seed) {
  (void)seed;
  __nv_bfloat16 *table = static_cast<__nv_bfloat16 *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned position = (unsigned)(i / kRotaryDim), column = (unsigned)(i % kRotaryDim);
    const unsigned f = column % (kRotaryDim / 2);
    // arange(0, ROTARY_DIM, 2) / ROTARY_DIM: a multiplication by the exact fp32 reciprocal of 64
    const float exponent = (float)(2 * f) * (1.0f / kRotaryDim);
    const float inv_freq = __frcp_rn(powf(kRopeBase, exponent));  // 1.0 / (...) is reciprocal() * 1.0
    const float angle = __fmul_rn((float)position, inv_freq);     // torch.outer
    table[i] = __float2bfloat16_rn(column < kRotaryDim / 2 ? cosf(angle) : sinf(angle));
  }
}

extern "C" __global__ void slot_mapping_with_padding(void *out, unsigned long long count, unsigned long long seed) {
  long long *slots = static_cast<long long *>(out);
  const mkb_random::u32x4 w = mkb_random::random_words(seed, 0, 1);  // num_pads: one draw per tensor
  unsigned long long pads = 1 + mkb_random::bounded(w.v[1], w.v[0], kMaxPadTokens);
  if (pads > count) pads = count;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    slots[i] = i >= count - pads ? -1ll : (long long)mkb_random::permute_index(i, kSlots, seed, 0);
}
