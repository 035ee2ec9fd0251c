// Router GEMM and routing fused in one kernel. A block takes 64 tokens and all 256 experts: bf16 tensor
// cores (WMMA 16x16x16, fp32 accumulation: the products of bf16 values are exact in fp32, so this is the
// reference's fp32 matrix product up to the order of summation), K in slices of 64 staged through shared
// memory with the next slice prefetched into registers, each slice summed into a fresh partial that is
// added to the logits with a rounding fp32 add (the tensor cores' accumulation truncates); then the
// 64 x 256 logits go to shared memory and each warp routes 8 tokens in fp32 (lane l holds expert 32 g + l
// of every group g).
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

namespace {
constexpr int kExperts = 256, kGroups = 8, kTopkGroups = 4, kTopk = 8;
constexpr int BM = 64, BK = 64, kThreads = 256;
constexpr int LDA = BK + 8, LDB = BK + 8, LDL = kExperts + 4;  // padded strides (elements)
constexpr int kTileBytes = (BM * LDA + kExperts * LDB) * 2;
constexpr int kLogitBytes = BM * LDL * 4;
static_assert(kLogitBytes >= kTileBytes, "the logits reuse the tiles' shared memory");

__device__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ int warp_min(int v) {
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
} // namespace

extern "C" __global__ void __launch_bounds__(kThreads)
route_fused(const __nv_bfloat16 *__restrict__ hidden, const __nv_bfloat16 *__restrict__ weight,
            const __nv_bfloat16 *__restrict__ expert_bias, long long *__restrict__ topk_indices,
            float *__restrict__ topk_weights, int tokens, int dim, float scale, float eps) {
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16 *As = reinterpret_cast<__nv_bfloat16 *>(smem);
  __nv_bfloat16 *Bs = As + BM * LDA;
  float *L = reinterpret_cast<float *>(smem);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long row0 = (long long)blockIdx.x * BM;

  uint4 ra[BM * BK / 8 / kThreads], rb[kExperts * BK / 8 / kThreads];
  auto load_global = [&](int k0) {
#pragma unroll
    for (int i = 0; i < BM * BK / 8 / kThreads; ++i) {
      const int idx = threadIdx.x + i * kThreads, m = idx / (BK / 8), c = idx % (BK / 8);
      const long long r = row0 + m;
      ra[i] = r < tokens ? *reinterpret_cast<const uint4 *>(hidden + r * dim + k0 + 8 * c) : uint4{0, 0, 0, 0};
    }
#pragma unroll
    for (int i = 0; i < kExperts * BK / 8 / kThreads; ++i) {
      const int idx = threadIdx.x + i * kThreads, n = idx / (BK / 8), c = idx % (BK / 8);
      rb[i] = *reinterpret_cast<const uint4 *>(weight + (long long)n * dim + k0 + 8 * c);
    }
  };
  auto store_shared = [&]() {
#pragma unroll
    for (int i = 0; i < BM * BK / 8 / kThreads; ++i) {
      const int idx = threadIdx.x + i * kThreads, m = idx / (BK / 8), c = idx % (BK / 8);
      *reinterpret_cast<uint4 *>(As + m * LDA + 8 * c) = ra[i];
    }
#pragma unroll
    for (int i = 0; i < kExperts * BK / 8 / kThreads; ++i) {
      const int idx = threadIdx.x + i * kThreads, n = idx / (BK / 8), c = idx % (BK / 8);
      *reinterpret_cast<uint4 *>(Bs + n * LDB + 8 * c) = rb[i];
    }
  };

  // warp w computes rows 16 (w % 4) .. + 16 against experts 128 (w / 4) .. + 128: 8 accumulator tiles
  const int wm = warp % 4, wn = warp / 4;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[8];
#pragma unroll
  for (int f = 0; f < 8; ++f) wmma::fill_fragment(acc[f], 0.0f);
  load_global(0);
  for (int k0 = 0; k0 < dim; k0 += BK) {
    __syncthreads();
    store_shared();
    __syncthreads();
    if (k0 + BK < dim) load_global(k0 + BK);
    // Each 64-wide slice is summed on the tensor cores into a fresh partial, then added to acc with an
    // ordinary fp32 add (round to nearest): the tensor cores' own accumulation truncates, and over
    // K = 4096 in one accumulator the logits drift toward zero past the allowance (spec notes).
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> part[8];
#pragma unroll
    for (int f = 0; f < 8; ++f) wmma::fill_fragment(part[f], 0.0f);
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
      wmma::load_matrix_sync(a, As + wm * 16 * LDA + kk, LDA);
#pragma unroll
      for (int f = 0; f < 8; ++f) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b;
        wmma::load_matrix_sync(b, Bs + (wn * 128 + f * 16) * LDB + kk, LDB);
        wmma::mma_sync(part[f], a, b, part[f]);
      }
    }
#pragma unroll
    for (int f = 0; f < 8; ++f)
#pragma unroll
      for (int e = 0; e < part[f].num_elements; ++e) acc[f].x[e] += part[f].x[e];
  }
  __syncthreads();
#pragma unroll
  for (int f = 0; f < 8; ++f)
    wmma::store_matrix_sync(L + wm * 16 * LDL + wn * 128 + f * 16, acc[f], LDL, wmma::mem_row_major);
  __syncthreads();

  const float neg_inf = -__int_as_float(0x7f800000);
  float bias[kGroups];
#pragma unroll
  for (int g = 0; g < kGroups; ++g) bias[g] = __bfloat162float(expert_bias[32 * g + lane]);
  for (int rr = 0; rr < BM / (kThreads / 32); ++rr) {
    const int m = warp * (BM / (kThreads / 32)) + rr;
    const long long t = row0 + m;
    if (t >= tokens) break;
    float score[kGroups], biased[kGroups], group_score[kGroups];
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
      score[g] = 1.0f / (1.0f + expf(-L[m * LDL + 32 * g + lane]));
      biased[g] = score[g] + bias[g];
    }
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
      const float m1 = warp_max(biased[g]);
      const int first = warp_min(biased[g] == m1 ? lane : 32);
      group_score[g] = m1 + warp_max(lane == first ? neg_inf : biased[g]);
    }
    unsigned selected = 0;
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
      int rank = 0;
#pragma unroll
      for (int h = 0; h < kGroups; ++h)
        rank += group_score[h] > group_score[g] || (group_score[h] == group_score[g] && h < g);
      if (rank < kTopkGroups) selected |= 1u << g;
    }
    float picked_score[kTopk], sum = 0.0f;
    int my_expert = 0;
#pragma unroll
    for (int i = 0; i < kTopk; ++i) {
      float best = neg_inf;
      int best_g = -1;
#pragma unroll
      for (int g = 0; g < kGroups; ++g)
        if ((selected >> g & 1) && biased[g] > best) {
          best = biased[g];
          best_g = g;
        }
      const float top = warp_max(best);
      const int e = warp_min(best == top && best_g >= 0 ? 32 * best_g + lane : 1 << 20);
      float s = 0.0f;
#pragma unroll
      for (int g = 0; g < kGroups; ++g)
        if (g == e / 32) s = score[g];
      picked_score[i] = __shfl_sync(0xffffffffu, s, e % 32);
      if (lane == e % 32) {  // taken: out of the later rounds
#pragma unroll
        for (int g = 0; g < kGroups; ++g)
          if (g == e / 32) biased[g] = neg_inf;
      }
      if (lane == i) my_expert = e;
      sum += picked_score[i];
    }
    float my_score = 0.0f;
#pragma unroll
    for (int i = 0; i < kTopk; ++i)
      if (lane == i) my_score = picked_score[i];
    if (lane < kTopk) {
      topk_indices[t * kTopk + lane] = my_expert;
      topk_weights[t * kTopk + lane] = my_score / (sum + eps) * scale;
    }
  }
}

/* mkb:plan
launch route_fused grid(ceil_div(num_tokens, 64)) block(256) shared(66560)
  args(hidden_states, weight, expert_bias, topk_indices, topk_weights, i32(num_tokens), i32(gating_dim),
       f32(routed_scaling_factor), f32(weight_sum_eps))
*/
