// Inputs of group_limited_topk_routing_ringflash_bf16, drawn as the original's make_inputs draws them:
//   weight         randn(256, 4096) in bf16, / sqrt(4096) (exact: a power of two)
//   expert_bias    randn(256) in bf16
//   hidden_states  randn(16384, 4096) in bf16, then every row whose routing is unstable is redrawn, up
//                  to REDRAW_LIMIT times: a row is unstable when the gap between its 4th and 5th group
//                  score, or any gap between consecutive scores of its 9 best candidate experts, is below
//                  DECISION_MARGIN (1e-4). So no draw holds a near-tie, and the integer output is exact.
//
// The stability test needs weight and expert_bias, which the harness draws separately. Every generator
// here therefore draws from the draw's own seed, recovered from its input seed with
// mkb_random::draw_seed (the harness gives input i the seed mix64(draw ^ mix64(i + 1)),
// src/core/random.hpp derive_seed; mix64 is a bijection). The hidden_states generator so regenerates exactly the weight and bias that their own
// generators write. All are pure functions of (count, seed); 256-thread blocks, grid-stride loops.
#include <cuda_bf16.h>

#include "mkb_random.cuh"

namespace {

typedef unsigned long long u64;

#ifndef MOE_DIM
#define MOE_DIM 4096  // GATING_DIM
#endif
constexpr int kDim = MOE_DIM;
constexpr int kExperts = 256;          // NUM_EXPERTS
constexpr int kGroups = 8;             // NUM_GROUPS
constexpr int kPerGroup = kExperts / kGroups;
constexpr int kTopkGroups = 4;         // TOPK_GROUPS
constexpr int kTopk = 8;               // NUM_EXPERTS_PER_TOKEN
constexpr int kRedrawLimit = 16;       // REDRAW_LIMIT
constexpr float kMargin = 1e-4f;       // DECISION_MARGIN
constexpr u64 kHiddenInput = 0, kWeightInput = 1, kBiasInput = 2;  // the inputs' positions in spec.json
constexpr unsigned kHiddenStream = 0x68000000u, kWeightStream = 0x77000000u, kBiasStream = 0x62000000u;
constexpr int kRowsPerTile = 8;        // one row per warp
constexpr int kChunk = 4;              // experts of weight held in shared memory at once
static_assert(kPerGroup == 32, "one lane per expert of a group");
static_assert(kDim % 64 == 0, "rows are read as bf16 pairs, 32 lanes");


// Four standard normals: group `group` of stream `stream`.
__device__ void normal4(u64 seed, u64 group, unsigned stream, float z[4]) {
  const mkb_random::u32x4 w = mkb_random::random_words(seed, group, stream);
  mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z[0], &z[1]);
  mkb_random::box_muller(mkb_random::uniform_open(w.v[2]), mkb_random::uniform_open(w.v[3]), &z[2], &z[3]);
}
// weight[e, d] for flat index 4 * group + j: randn in bf16 divided by 64, exactly.
__device__ void weight4(u64 draw, u64 group, __nv_bfloat16 out[4]) {
  float z[4];
  normal4(draw, group, kWeightStream, z);
  for (int j = 0; j < 4; ++j) out[j] = __float2bfloat16_rn(z[j] * 0.015625f);
}
__device__ float bias_value(u64 draw, int e) {
  float z[4];
  normal4(draw, (u64)e / 4, kBiasStream, z);
  return __bfloat162float(__float2bfloat16_rn(z[e % 4]));
}
// hidden_states[row] as drawn in round `round` (0: the first draw; r: the r-th redraw of that row)
__device__ void write_row(__nv_bfloat16 *x, u64 row, u64 draw, int round, int lane) {
  for (int g = lane; g < kDim / 4; g += 32) {
    float z[4];
    normal4(draw, row * (kDim / 4) + g, kHiddenStream + (unsigned)round, z);
    for (int j = 0; j < 4; ++j) x[row * kDim + 4 * g + j] = __float2bfloat16_rn(z[j]);
  }
}

__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ int warp_min_int(int v) {
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// The original's _unstable_rows for one row, in fp32: lane holds expert g * 32 + lane of each group g.
__device__ bool row_unstable(const float *logits, const float *bias, int lane) {
  const float neg_inf = -__int_as_float(0x7f800000);
  float s[kGroups];
  for (int g = 0; g < kGroups; ++g) {
    const int e = g * kPerGroup + lane;
    s[g] = 1.0f / (1.0f + expf(-logits[e])) + bias[e];
  }
  float group_score[kGroups];
  for (int g = 0; g < kGroups; ++g) {
    const float m1 = warp_max(s[g]);
    const int first = warp_min_int(s[g] == m1 ? lane : 32);
    const float m2 = warp_max(lane == first ? neg_inf : s[g]);
    group_score[g] = m1 + m2;
  }
  // rank the groups (descending, ties to the lower index)
  bool selected[kGroups];
  float sorted[kGroups];
  for (int g = 0; g < kGroups; ++g) {
    int rank = 0;
    for (int h = 0; h < kGroups; ++h)
      rank += group_score[h] > group_score[g] || (group_score[h] == group_score[g] && h < g);
    selected[g] = rank < kTopkGroups;
    sorted[rank] = group_score[g];
  }
  const float group_gap = sorted[kTopkGroups - 1] - sorted[kTopkGroups];
  // the nine best candidates of the selected groups
  unsigned taken = 0;
  float top[kTopk + 1];
  for (int i = 0; i <= kTopk; ++i) {
    float best = neg_inf;
    int best_g = -1;
    for (int g = 0; g < kGroups; ++g)
      if (selected[g] && !(taken >> g & 1) && s[g] > best) {
        best = s[g];
        best_g = g;
      }
    const float m = warp_max(best);
    const int winner = warp_min_int(best == m && best_g >= 0 ? lane : 32);
    if (lane == winner) taken |= 1u << best_g;
    top[i] = m;
  }
  float min_gap = top[0] - top[1];
  for (int i = 1; i < kTopk; ++i) min_gap = fminf(min_gap, top[i] - top[i + 1]);
  return group_gap < kMargin || min_gap < kMargin;
}

__device__ u64 grid_start() { return (u64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ u64 grid_step() { return (u64)gridDim.x * blockDim.x; }

} // namespace

extern "C" __global__ void gen_router_weight(void *out, unsigned long long count, unsigned long long seed) {
  const u64 draw = mkb_random::draw_seed(seed, kWeightInput);
  __nv_bfloat16 *w = static_cast<__nv_bfloat16 *>(out);
  for (u64 g = grid_start(); 4 * g < count; g += grid_step()) {
    __nv_bfloat16 v[4];
    weight4(draw, g, v);
    for (int j = 0; j < 4 && 4 * g + j < count; ++j) w[4 * g + j] = v[j];
  }
}

extern "C" __global__ void gen_expert_bias(void *out, unsigned long long count, unsigned long long seed) {
  const u64 draw = mkb_random::draw_seed(seed, kBiasInput);
  __nv_bfloat16 *b = static_cast<__nv_bfloat16 *>(out);
  for (u64 i = grid_start(); i < count; i += grid_step()) b[i] = __float2bfloat16_rn(bias_value(draw, (int)i));
}

// One warp per row, eight rows per tile; the block regenerates the weight four experts at a time into
// shared memory for each pass over its tile, and each pending row's warp takes its 256 dot products in
// fp32 (the row held in registers as bf16 pairs).
extern "C" __global__ void __launch_bounds__(256) gen_hidden_states(void *out, unsigned long long count,
                                                                   unsigned long long seed) {
  __shared__ __align__(16) __nv_bfloat16 w_chunk[kChunk * kDim];
  __shared__ float logits[kRowsPerTile][kExperts];
  __shared__ float bias[kExperts];
  const u64 draw = mkb_random::draw_seed(seed, kHiddenInput);
  __nv_bfloat16 *x = static_cast<__nv_bfloat16 *>(out);
  const u64 rows = count / kDim;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int e = threadIdx.x; e < kExperts; e += blockDim.x) bias[e] = bias_value(draw, e);
  // a partial row past the last whole one (never, for this input's shape) is plain randn
  for (u64 i = rows * kDim + grid_start(); i < count; i += grid_step()) {
    float z[4];
    normal4(draw, i / 4, kHiddenStream, z);
    x[i] = __float2bfloat16_rn(z[i % 4]);
  }
  for (u64 tile = blockIdx.x; tile * kRowsPerTile < rows; tile += gridDim.x) {
    const u64 row = tile * kRowsPerTile + warp;
    bool pending = row < rows;
    if (pending) write_row(x, row, draw, 0, lane);
    for (int round = 0; round < kRedrawLimit; ++round) {
      if (!__syncthreads_or(pending)) break;
      unsigned pairs[kDim / 64];  // this lane's elements 64 j + 2 lane, + 1
      if (pending) {
        __syncwarp();
        const unsigned *xr = reinterpret_cast<const unsigned *>(x + row * kDim);
        for (int j = 0; j < kDim / 64; ++j) pairs[j] = xr[32 * j + lane];
      }
      for (int e0 = 0; e0 < kExperts; e0 += kChunk) {
        __syncthreads();
        for (int g = threadIdx.x; g < kChunk * kDim / 4; g += blockDim.x) weight4(draw, (u64)e0 * (kDim / 4) + g, &w_chunk[4 * g]);
        __syncthreads();
        if (pending) {
          for (int c = 0; c < kChunk; ++c) {
            const unsigned *wr = reinterpret_cast<const unsigned *>(w_chunk + c * kDim);
            float acc = 0.0f;
            for (int j = 0; j < kDim / 64; ++j) {
              const unsigned a = pairs[j], b = wr[32 * j + lane];
              acc += __uint_as_float(a << 16) * __uint_as_float(b << 16);
              acc += __uint_as_float(a & 0xffff0000u) * __uint_as_float(b & 0xffff0000u);
            }
            acc = warp_sum(acc);
            if (lane == 0) logits[warp][e0 + c] = acc;
          }
        }
      }
      __syncwarp();
      if (pending) {
        if (!row_unstable(logits[warp], bias, lane)) pending = false;
        else if (round + 1 < kRedrawLimit) write_row(x, row, draw, round + 1, lane);
        else pending = false;  // the original gives up here (ValueError); the last draw is kept
      }
    }
  }
}
