// The routing inputs of capacity_factor_expert_dispatch_qwen3_coder_480b_bf16, drawn as the original's
// make_inputs draws them:
//   expert_popularity = randn(NUM_EXPERTS) * POPULARITY_STD                 fp32, one draw for all tokens
//   gumbel            = -log(-log(rand(NUM_TOKENS, NUM_EXPERTS)))           fp32
//   selected_experts  = (expert_popularity + gumbel).argsort(-1, descending=True)[:, :8]   int64
//   routing_weights   = softmax(randn(NUM_TOKENS, 8, bf16).float(), -1).to(bf16)
// selected_experts is a popularity-skewed sample of 8 distinct experts per token (Gumbel top-k), best
// first. Equal perturbed scores (argsort's order among them is unspecified) are ranked lower expert
// first; they need two equal fp32 sums and are rare. The uniform draw is (k + 0.5) / 2^24, strictly
// inside (0, 1), so the Gumbel noise is finite (torch.rand can return 0, which gives -inf).
#include "mkb_ops.cuh"
#include "mkb_random.cuh"

namespace {
constexpr int kExperts = 160;
constexpr int kTopK = 8;
constexpr float kPopularityStd = 0.5f;
constexpr unsigned kStreamPopularity = 41, kStreamGumbel = 42, kStreamLogits = 43;

__device__ float popularity(unsigned long long seed, int e) {
  const mkb_random::u32x4 w = mkb_random::random_words(seed, (unsigned long long)e, kStreamPopularity);
  float z0, z1;
  mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z0, &z1);
  return __fmul_rn(z0, kPopularityStd);
}

__device__ float gumbel(unsigned long long seed, long long t, int e) {
  const mkb_random::u32x4 w = mkb_random::random_words(seed, (unsigned long long)t * kExperts + e, kStreamGumbel);
  const float u = ((float)(w.v[0] >> 8) + 0.5f) * (1.0f / 16777216.0f);
  return -logf(-logf(u));
}
} // namespace

// selected_experts [num_tokens, 8] int64: one warp per token, lane holding experts lane + 32 j (j < 5).
extern "C" __global__ void gen_selected_experts(void *out, unsigned long long count, unsigned long long seed) {
  long long *sel = static_cast<long long *>(out);
  const int lane = threadIdx.x & 31;
  float pop[5];
  for (int j = 0; j < 5; ++j) pop[j] = popularity(seed, lane + 32 * j);
  const long long tokens = (long long)(count / kTopK);
  for (long long t = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32; t < tokens;
       t += (long long)gridDim.x * blockDim.x / 32) {
    float v[5];
    for (int j = 0; j < 5; ++j) v[j] = pop[j] + gumbel(seed, t, lane + 32 * j);
    for (int k = 0; k < kTopK; ++k) {
      float best = -__int_as_float(0x7f800000);
      int where = 1 << 30;
      for (int j = 0; j < 5; ++j)
        if (v[j] > best || (v[j] == best && lane + 32 * j < where)) { best = v[j]; where = lane + 32 * j; }
      for (int o = 16; o > 0; o >>= 1) {
        const float ob = __shfl_xor_sync(0xffffffffu, best, o);
        const int ow = __shfl_xor_sync(0xffffffffu, where, o);
        if (ob > best || (ob == best && ow < where)) { best = ob; where = ow; }
      }
      if ((where & 31) == lane) v[where >> 5] = -__int_as_float(0x7f800000);
      if (lane == 0) sel[t * kTopK + k] = where;
    }
  }
}

// routing_weights [num_tokens, 8] bf16: softmax of 8 bf16 normals (in fp32), rounded to bf16.
extern "C" __global__ void gen_routing_weights(void *out, unsigned long long count, unsigned long long seed) {
  bf16 *w = static_cast<bf16 *>(out);
  const long long tokens = (long long)(count / kTopK);
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < tokens; t += (long long)gridDim.x * blockDim.x) {
    float x[kTopK], m = -__int_as_float(0x7f800000), s = 0.0f;
    for (int g = 0; g < 2; ++g) {
      const mkb_random::u32x4 r = mkb_random::random_words(seed, (unsigned long long)t * 2 + g, kStreamLogits);
      mkb_random::box_muller(mkb_random::uniform_open(r.v[0]), mkb_random::uniform_open(r.v[1]), &x[4 * g], &x[4 * g + 1]);
      mkb_random::box_muller(mkb_random::uniform_open(r.v[2]), mkb_random::uniform_open(r.v[3]), &x[4 * g + 2], &x[4 * g + 3]);
    }
    for (int k = 0; k < kTopK; ++k) {
      x[k] = mkb_ops::round_to<bf16>(x[k]);
      m = fmaxf(m, x[k]);
    }
    for (int k = 0; k < kTopK; ++k) {
      x[k] = expf(x[k] - m);
      s += x[k];
    }
    for (int k = 0; k < kTopK; ++k) w[t * kTopK + k] = __float2bfloat16_rn(x[k] / s);
  }
}
