// The two routing inputs of sparse_expert_dispatch_combine_gptoss_fp32 come from one draw of router
// logits, as in the original's make_inputs:
//   router_logits   = randn(16384, 128) (fp32; not an input)
//   router_indices  = torch.topk(router_logits, 4, dim=-1).indices   (int64, by descending logit)
//   routing_weights = torch.softmax(router_logits, dim=-1)           (fp32, dense [16384, 128])
// The harness draws each input separately, so both generators draw the same logits from the draw's own
// seed, recovered from their input seed with mkb_random::draw_seed (the harness gives input i the seed
// mix64(draw ^ mix64(i + 1)), src/core/random.hpp derive_seed; mix64 is a bijection). One warp per token (lane l owns experts
// 4 l .. 4 l + 3: one Philox call); pure functions of (count, seed); 256-thread blocks, grid-stride loops.
#include "mkb_random.cuh"

namespace {

typedef unsigned long long u64;

constexpr int kExperts = 128;  // NUM_LOCAL_EXPERTS
constexpr int kTopk = 4;       // NUM_EXPERTS_PER_TOKEN
constexpr u64 kIndicesInput = 1, kWeightsInput = 2;  // the inputs' positions in spec.json
constexpr unsigned kLogitStream = 0x6c000000u;
static_assert(kExperts == 128, "one lane per four experts");


// router_logits[token, 4 lane + j], j < 4
__device__ void logits4(u64 draw, u64 token, int lane, float z[4]) {
  const mkb_random::u32x4 w = mkb_random::random_words(draw, token * (kExperts / 4) + lane, kLogitStream);
  mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z[0], &z[1]);
  mkb_random::box_muller(mkb_random::uniform_open(w.v[2]), mkb_random::uniform_open(w.v[3]), &z[2], &z[3]);
}

__device__ u64 warp_index() { return ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32; }
__device__ u64 warp_count() { return (u64)gridDim.x * blockDim.x / 32; }

} // namespace

extern "C" __global__ void gen_router_indices(void *out, unsigned long long count, unsigned long long seed) {
  const u64 draw = mkb_random::draw_seed(seed, kIndicesInput);
  long long *indices = static_cast<long long *>(out);
  const int lane = threadIdx.x % 32;
  const float neg_inf = -__int_as_float(0x7f800000);
  for (u64 t = warp_index(); t * kTopk < count; t += warp_count()) {
    float z[4];
    logits4(draw, t, lane, z);
    for (int i = 0; i < kTopk; ++i) {
      float best = neg_inf;
      int best_e = 1 << 20;
      for (int j = 0; j < 4; ++j)
        if (z[j] > best) {
          best = z[j];
          best_e = 4 * lane + j;
        }
      float top = best;
      for (int o = 16; o > 0; o >>= 1) top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, o));
      int e = best == top ? best_e : 1 << 20;  // ties (never, in practice) to the lower index
      for (int o = 16; o > 0; o >>= 1) e = min(e, __shfl_xor_sync(0xffffffffu, e, o));
      if (e / 4 == lane)
        for (int j = 0; j < 4; ++j)
          if (j == e % 4) z[j] = neg_inf;
      if (lane == 0 && t * kTopk + i < count) indices[t * kTopk + i] = e;
    }
  }
}

extern "C" __global__ void gen_routing_weights(void *out, unsigned long long count, unsigned long long seed) {
  const u64 draw = mkb_random::draw_seed(seed, kWeightsInput);
  float *weights = static_cast<float *>(out);
  const int lane = threadIdx.x % 32;
  for (u64 t = warp_index(); t * kExperts < count; t += warp_count()) {
    float z[4];
    logits4(draw, t, lane, z);
    float m = fmaxf(fmaxf(z[0], z[1]), fmaxf(z[2], z[3]));
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float s = 0.0f;
    for (int j = 0; j < 4; ++j) s += expf(z[j] - m);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    for (int j = 0; j < 4; ++j) weights[t * kExperts + 4 * lane + j] = expf(z[j] - m) / s;
  }
}
