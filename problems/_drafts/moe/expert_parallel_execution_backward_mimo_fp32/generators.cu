// Structured inputs of expert_parallel_execution_backward_mimo_fp32, as the original's make_inputs draws them:
//   topk_indices  rand(6144, 256).argsort(dim=-1)[:, :8]: 8 distinct experts per token, in random order.
//                 Here the first 8 entries of a seeded bijection of [0, 256) per row (a Feistel network with
//                 cycle walking, mkb_random::permute_index): also a uniformly random ordered choice.
//   topk_weights  torch.softmax(torch.randn(6144, 8), dim=-1) in fp32.
// Pure functions of (count, seed); 256-thread blocks over grid-stride loops.
#include "mkb_random.cuh"

namespace {
constexpr unsigned long long kExperts = 256;  // NUM_ROUTED_EXPERTS
constexpr int kTopk = 8;                      // NUM_EXPERTS_PER_TOKEN
__device__ unsigned long long grid_start() { return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ unsigned long long grid_step() { return (unsigned long long)gridDim.x * blockDim.x; }
} // namespace

extern "C" __global__ void gen_topk_indices(void *out, unsigned long long count, unsigned long long seed) {
  long long *indices = static_cast<long long *>(out);
  for (unsigned long long i = grid_start(); i < count; i += grid_step())
    indices[i] = (long long)mkb_random::permute_index(i % kTopk, kExperts, seed, i / kTopk);
}

// one thread per token: 8 normals (two Philox groups), softmax in fp32
extern "C" __global__ void gen_topk_weights(void *out, unsigned long long count, unsigned long long seed) {
  float *weights = static_cast<float *>(out);
  for (unsigned long long t = grid_start(); t * kTopk < count; t += grid_step()) {
    float z[kTopk];
    for (int g = 0; g < kTopk / 4; ++g) {
      const mkb_random::u32x4 w = mkb_random::random_words(seed, t * (kTopk / 4) + g, 0);
      mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z[4 * g], &z[4 * g + 1]);
      mkb_random::box_muller(mkb_random::uniform_open(w.v[2]), mkb_random::uniform_open(w.v[3]), &z[4 * g + 2], &z[4 * g + 3]);
    }
    float m = z[0];
    for (int j = 1; j < kTopk; ++j) m = fmaxf(m, z[j]);
    float s = 0.0f;
    for (int j = 0; j < kTopk; ++j) s += expf(z[j] - m);
    for (int j = 0; j < kTopk && t * kTopk + j < count; ++j) weights[t * kTopk + j] = expf(z[j] - m) / s;
  }
}
