// The float64 anchor: logits as an fp64 matrix product (cuBLAS), then one warp per token routes in
// double. Lane l holds expert 32 g + l of every group g. Ties (none in the draws) go to the lower index.
#include <cuda_bf16.h>

extern "C" __global__ void widen_bf16(double *out, const __nv_bfloat16 *in, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = (double)__bfloat162float(in[i]);
}

namespace {
constexpr int kGroups = 8, kTopkGroups = 4, kTopk = 8, kExperts = 256;

__device__ double warp_max(double v) {
  for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ int warp_min(int v) {
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
} // namespace

extern "C" __global__ void anchor_route(const double *logits, const __nv_bfloat16 *expert_bias, long long *topk_indices,
                                        double *topk_weights, int tokens, double scale, double eps) {
  const int lane = threadIdx.x % 32;
  const long long t = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (t >= tokens) return;
  const double neg_inf = -__longlong_as_double(0x7ff0000000000000ll);
  double score[kGroups], biased[kGroups], group_score[kGroups];
  for (int g = 0; g < kGroups; ++g) {
    const int e = 32 * g + lane;
    score[g] = 1.0 / (1.0 + exp(-logits[t * kExperts + e]));
    biased[g] = score[g] + (double)__bfloat162float(expert_bias[e]);
  }
  for (int g = 0; g < kGroups; ++g) {
    const double m1 = warp_max(biased[g]);
    const int first = warp_min(biased[g] == m1 ? lane : 32);
    group_score[g] = m1 + warp_max(lane == first ? neg_inf : biased[g]);
  }
  bool selected[kGroups];
  for (int g = 0; g < kGroups; ++g) {
    int rank = 0;
    for (int h = 0; h < kGroups; ++h)
      rank += group_score[h] > group_score[g] || (group_score[h] == group_score[g] && h < g);
    selected[g] = rank < kTopkGroups;
  }
  unsigned taken = 0;
  int picked[kTopk];
  double picked_score[kTopk], sum = 0.0;
  for (int i = 0; i < kTopk; ++i) {
    double best = neg_inf;
    int best_e = 1 << 20;
    for (int g = 0; g < kGroups; ++g)
      if (selected[g] && !(taken >> g & 1) && biased[g] > best) {
        best = biased[g];
        best_e = 32 * g + lane;
      }
    const double m = warp_max(best);
    const int e = warp_min(best == m ? best_e : 1 << 20);
    if (e % 32 == lane) taken |= 1u << (e / 32);
    picked[i] = e;
    // the unbiased score of expert e lives in lane e % 32
    double s = 0.0;
    for (int g = 0; g < kGroups; ++g) s = g == e / 32 ? score[g] : s;
    picked_score[i] = __shfl_sync(0xffffffffu, s, e % 32);
    sum += picked_score[i];
  }
  if (lane < kTopk) {
    int e = 0;
    double s = 0.0;
    for (int i = 0; i < kTopk; ++i)
      if (i == lane) {
        e = picked[i];
        s = picked_score[i];
      }
    topk_indices[t * kTopk + lane] = e;
    topk_weights[t * kTopk + lane] = s / (sum + eps) * scale;
  }
}

/* mkb:plan
scratch hidden64 fp64[num_tokens * gating_dim]
scratch weight64 fp64[num_experts * gating_dim]
scratch logits64 fp64[num_tokens * num_experts]
launch widen_bf16 grid(ceil_div(num_tokens * gating_dim, 256)) block(256) args(hidden64, hidden_states, i64(num_tokens * gating_dim))
launch widen_bf16 grid(ceil_div(num_experts * gating_dim, 256)) block(256) args(weight64, weight, i64(num_experts * gating_dim))
matmul c(logits64) a(hidden64) b(weight64) m(num_tokens) n(num_experts) k(gating_dim) transpose_b
launch anchor_route grid(ceil_div(num_tokens, 8)) block(256)
  args(logits64, expert_bias, topk_indices, topk_weights, i32(num_tokens), f64(routed_scaling_factor), f64(weight_sum_eps))
*/
