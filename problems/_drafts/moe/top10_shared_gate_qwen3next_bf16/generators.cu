// Inputs of top10_shared_gate_qwen3next_bf16 that the routing depends on, drawn as the original's
// make_inputs draws them:
//   router_weight  randn(512, 2048) in bf16, / sqrt(2048) (rounded to bf16 again, as a bf16 tensor
//                  divided by a Python float is: times the fp32 reciprocal)
//   hidden_states  randn(64, 613, 2048) in bf16, then every token whose top-10 choice is unstable is
//                  redrawn, up to REDRAW_LIMIT times: unstable when its 10th and 11th largest router
//                  probabilities (fp32 softmax of the fp32 logits) differ by less than DECISION_MARGIN
//                  (1e-5). So no draw holds a near-tie at the top-10 boundary.
// The other weights do not affect the routing and are plain normal draws (spec.json).
//
// The stability test needs router_weight, which the harness draws separately: both generators draw from
// the draw's own seed, recovered from their input seed with mkb_random::draw_seed (the harness gives input i
// the seed mix64(draw ^ mix64(i + 1)), src/core/random.hpp derive_seed; mix64 is a bijection). Pure functions of
// (count, seed); 256-thread blocks, grid-stride loops.
#include <cuda_bf16.h>

#include "mkb_random.cuh"

namespace {

typedef unsigned long long u64;

#ifndef MOE_DIM
#define MOE_DIM 2048  // HIDDEN_SIZE
#endif
constexpr int kDim = MOE_DIM;
constexpr int kExperts = 512;     // NUM_EXPERTS
constexpr int kTopk = 10;         // TOP_K
constexpr int kRedrawLimit = 16;  // REDRAW_LIMIT
constexpr float kMargin = 1e-5f;  // DECISION_MARGIN
constexpr u64 kHiddenInput = 0, kRouterInput = 1;  // the inputs' positions in spec.json
constexpr unsigned kHiddenStream = 0x68000000u, kRouterStream = 0x72000000u;
constexpr int kRowsPerTile = 8;  // one row per warp
constexpr int kChunk = 4;        // experts of router_weight held in shared memory at once
static_assert(kDim % 64 == 0, "rows are read as bf16 pairs, 32 lanes");


__device__ void normal4(u64 seed, u64 group, unsigned stream, float z[4]) {
  const mkb_random::u32x4 w = mkb_random::random_words(seed, group, stream);
  mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z[0], &z[1]);
  mkb_random::box_muller(mkb_random::uniform_open(w.v[2]), mkb_random::uniform_open(w.v[3]), &z[2], &z[3]);
}
// router_weight[e, d] for flat index 4 * group + j: bf16(bf16(z) * fp32(1 / sqrt(2048)))
__device__ void router4(u64 draw, u64 group, __nv_bfloat16 out[4]) {
  const float inv_sqrt = 0.02209708691207961f;  // fp32(1 / sqrt(2048))
  float z[4];
  normal4(draw, group, kRouterStream, z);
  for (int j = 0; j < 4; ++j) out[j] = __float2bfloat16_rn(__bfloat162float(__float2bfloat16_rn(z[j])) * inv_sqrt);
}
// hidden_states row `row` as drawn in round `round` (0: the first draw; r: its r-th redraw)
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

// The original's _unstable_rows for one row, in fp32: lane holds experts lane + 32 j.
__device__ bool row_unstable(const float *logits, int lane) {
  constexpr int kPerLane = kExperts / 32;
  const float neg_inf = -__int_as_float(0x7f800000);
  float l[kPerLane];
  float m = neg_inf;
  for (int j = 0; j < kPerLane; ++j) {
    l[j] = logits[lane + 32 * j];
    m = fmaxf(m, l[j]);
  }
  m = warp_max(m);
  float s = 0.0f;
  for (int j = 0; j < kPerLane; ++j) s += expf(l[j] - m);
  s = warp_sum(s);
  // the 10th and 11th largest logits (probabilities are increasing in them)
  float tenth = neg_inf, eleventh = neg_inf;
  for (int i = 0; i <= kTopk; ++i) {
    float best = neg_inf;
    int best_j = -1;
    for (int j = 0; j < kPerLane; ++j)
      if (l[j] > best) {
        best = l[j];
        best_j = j;
      }
    const float top = warp_max(best);
    const int winner = warp_min_int(best == top && best_j >= 0 ? lane + 32 * best_j : 1 << 20);
    if (winner % 32 == lane)
      for (int j = 0; j < kPerLane; ++j)
        if (j == winner / 32) l[j] = neg_inf;
    if (i == kTopk - 1) tenth = top;
    if (i == kTopk) eleventh = top;
  }
  return expf(tenth - m) / s - expf(eleventh - m) / s < kMargin;
}

__device__ u64 grid_start() { return (u64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ u64 grid_step() { return (u64)gridDim.x * blockDim.x; }

} // namespace

extern "C" __global__ void gen_router_weight(void *out, unsigned long long count, unsigned long long seed) {
  const u64 draw = mkb_random::draw_seed(seed, kRouterInput);
  __nv_bfloat16 *w = static_cast<__nv_bfloat16 *>(out);
  for (u64 g = grid_start(); 4 * g < count; g += grid_step()) {
    __nv_bfloat16 v[4];
    router4(draw, g, v);
    for (int j = 0; j < 4 && 4 * g + j < count; ++j) w[4 * g + j] = v[j];
  }
}

// One warp per token, eight tokens per tile; the block regenerates router_weight four experts at a time
// into shared memory for each pass over its tile; each pending token's warp takes its 512 dot products in
// fp32 with the token's row held in registers as bf16 pairs.
extern "C" __global__ void __launch_bounds__(256) gen_hidden_states(void *out, unsigned long long count,
                                                                   unsigned long long seed) {
  __shared__ __align__(16) __nv_bfloat16 w_chunk[kChunk * kDim];
  __shared__ float logits[kRowsPerTile][kExperts];
  const u64 draw = mkb_random::draw_seed(seed, kHiddenInput);
  __nv_bfloat16 *x = static_cast<__nv_bfloat16 *>(out);
  const u64 rows = count / kDim;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (u64 i = rows * kDim + grid_start(); i < count; i += grid_step()) {  // never, for this input's shape
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
        for (int g = threadIdx.x; g < kChunk * kDim / 4; g += blockDim.x) router4(draw, (u64)e0 * (kDim / 4) + g, &w_chunk[4 * g]);
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
        if (!row_unstable(logits[warp], lane)) pending = false;
        else if (round + 1 < kRedrawLimit) write_row(x, row, draw, round + 1, lane);
        else pending = false;  // the original gives up here (ValueError); the last draw is kept
      }
    }
  }
}
