// The original's make_inputs draws the three routing inputs from one forward pass of the router, which
// is not itself an input:
//   router_logits = randn(NUM_TOKENS, NUM_EXPERTS, bf16)
//   routing_probs = softmax(router_logits.float(), dim=-1)                        fp32
//   routing_weights, selected_experts = topk(routing_probs, TOP_K, dim=-1)         descending
//   routing_weights_sum = routing_weights.sum(dim=-1, keepdim=True)               fp32
// Each of the three generators below recomputes a token's row of that pass from the draw's seed. The
// harness hands a generator only its own seed, derive_seed(draw, index) = mix64(draw ^ mix64(index + 1))
// (src/core/random.hpp); mix64 is a bijection, so each recovers the draw's seed and all three read the
// same virtual router_logits. (Should derive_seed change, each input stays valid on its own but the
// three would no longer agree: the spec's invariants would then fail visibly in the anchor's checks.)
//
// Choices where torch leaves the value open (these are inputs, so any fixed choice is the problem's):
// the softmax is exp(x - max) / sum with expf and the sum over experts in lane order of a warp
// reduction; equal probabilities (two equal bf16 logits) are ranked lower expert index first, at the
// 8th/9th boundary as well as inside the top 8; the sum of the 8 weights is taken in descending order.
#include "mkb_ops.cuh"
#include "mkb_random.cuh"

namespace {

constexpr int kExperts = 128;
constexpr int kTopK = 8;
constexpr unsigned kStreamLogits = 11;
// The inputs' positions in the spec (derive_seed's index).
constexpr unsigned long long kIndexProbs = 2, kIndexSelected = 3, kIndexSum = 4;

__device__ unsigned long long mix64(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__device__ unsigned long long unmix64(unsigned long long x) {
  x ^= (x >> 31) ^ (x >> 62);
  x *= 0x319642b2d24d8ec3ull;  // inverse of 0x94d049bb133111eb mod 2^64
  x ^= (x >> 27) ^ (x >> 54);
  x *= 0x96de1b173f119089ull;  // inverse of 0xbf58476d1ce4e5b9
  x ^= (x >> 30) ^ (x >> 60);
  return x - 0x9e3779b97f4a7c15ull;
}

__device__ unsigned long long draw_seed(unsigned long long input_seed, unsigned long long index) {
  return unmix64(input_seed) ^ mix64(index + 1);
}

// router_logits[t, e]: one standard normal, rounded to bf16.
__device__ float logit_at(unsigned long long draw, long long t, int e) {
  const mkb_random::u32x4 w = mkb_random::random_words(draw, (unsigned long long)t * kExperts + e, kStreamLogits);
  float z0, z1;
  mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z0, &z1);
  return mkb_ops::round_to<bf16>(z0);
}

// One token's router row, computed by a whole warp: lane holds experts lane + 32 j (j < 4).
struct row_t {
  float prob[4];
  int selected[kTopK];  // every lane holds all eight, best first
  float weight[kTopK];
};

__device__ row_t router_row(unsigned long long draw, long long t, int lane) {
  row_t row;
  float x[4], m = -__int_as_float(0x7f800000);
  for (int j = 0; j < 4; ++j) {
    x[j] = logit_at(draw, t, lane + 32 * j);
    m = fmaxf(m, x[j]);
  }
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float s = 0.0f;
  for (int j = 0; j < 4; ++j) {
    x[j] = expf(x[j] - m);
    s += x[j];
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  for (int j = 0; j < 4; ++j) row.prob[j] = x[j] / s;
  bool taken[4] = {false, false, false, false};
  for (int k = 0; k < kTopK; ++k) {
    float best = -1.0f;
    int idx = 1 << 30;
    for (int j = 0; j < 4; ++j)
      if (!taken[j] && (row.prob[j] > best || (row.prob[j] == best && lane + 32 * j < idx))) {
        best = row.prob[j];
        idx = lane + 32 * j;
      }
    for (int o = 16; o > 0; o >>= 1) {
      const float ob = __shfl_xor_sync(0xffffffffu, best, o);
      const int oi = __shfl_xor_sync(0xffffffffu, idx, o);
      if (ob > best || (ob == best && oi < idx)) {
        best = ob;
        idx = oi;
      }
    }
    row.selected[k] = idx;
    row.weight[k] = best;
    if ((idx & 31) == lane) taken[idx >> 5] = true;
  }
  return row;
}

__device__ long long first_warp() { return ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32; }
__device__ long long warp_count() { return (long long)gridDim.x * blockDim.x / 32; }

} // namespace

// routing_probs [num_tokens, num_experts] fp32.
extern "C" __global__ void rdb_routing_probs(void *out, unsigned long long count, unsigned long long seed) {
  const unsigned long long draw = draw_seed(seed, kIndexProbs);
  float *probs = static_cast<float *>(out);
  const int lane = threadIdx.x % 32;
  for (long long t = first_warp(); t < (long long)(count / kExperts); t += warp_count()) {
    const row_t row = router_row(draw, t, lane);
    for (int j = 0; j < 4; ++j) probs[t * kExperts + lane + 32 * j] = row.prob[j];
  }
}

// selected_experts [num_tokens, top_k] int64, best first.
extern "C" __global__ void rdb_selected_experts(void *out, unsigned long long count, unsigned long long seed) {
  const unsigned long long draw = draw_seed(seed, kIndexSelected);
  long long *selected = static_cast<long long *>(out);
  const int lane = threadIdx.x % 32;
  for (long long t = first_warp(); t < (long long)(count / kTopK); t += warp_count()) {
    const row_t row = router_row(draw, t, lane);
    if (lane < kTopK) {
      int v = row.selected[0];
      for (int k = 1; k < kTopK; ++k)
        if (lane == k) v = row.selected[k];
      selected[t * kTopK + lane] = v;
    }
  }
}

// routing_weights_sum [num_tokens, 1] fp32: the eight selected probabilities summed best first.
extern "C" __global__ void rdb_routing_weights_sum(void *out, unsigned long long count, unsigned long long seed) {
  const unsigned long long draw = draw_seed(seed, kIndexSum);
  float *sum = static_cast<float *>(out);
  const int lane = threadIdx.x % 32;
  for (long long t = first_warp(); t < (long long)count; t += warp_count()) {
    const row_t row = router_row(draw, t, lane);
    float s = 0.0f;
    for (int k = 0; k < kTopK; ++k) s += row.weight[k];
    if (lane == 0) sum[t] = s;
  }
}
