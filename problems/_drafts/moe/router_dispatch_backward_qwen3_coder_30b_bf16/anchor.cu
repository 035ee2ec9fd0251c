// The float64 anchor: the router backward with every intermediate exact in double (the gradient of the
// logits is not rounded to bf16), then the two products as float64 matmul steps.
#include <cuda_bf16.h>

namespace {
constexpr int kExperts = 128;
constexpr int kTopK = 8;
}

// grad_logits[t, :] in double, one warp per token; lane holds experts lane + 32 j.
extern "C" __global__ void anchor_grad_logits(const float *routing_probs, const long long *selected_experts,
                                              const float *routing_weights_sum, const __nv_bfloat16 *grad_routing_weights,
                                              const __nv_bfloat16 *grad_expert_mask, const __nv_bfloat16 *grad_router_logits,
                                              double *grad_logits, long long tokens) {
  const long long t = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (t >= tokens) return;
  const double S = (double)routing_weights_sum[t];
  int sel[kTopK];
  double g[kTopK];
  double weighted = 0.0;
  for (int k = 0; k < kTopK; ++k) {
    sel[k] = (int)selected_experts[t * kTopK + k];
    g[k] = (double)__bfloat162float(grad_routing_weights[t * kTopK + k]);
    weighted += g[k] * (double)routing_probs[t * kExperts + sel[k]] / S;
  }
  double gp[4], p[4], dot = 0.0;
  for (int j = 0; j < 4; ++j) {
    const int e = lane + 32 * j;
    p[j] = (double)routing_probs[t * kExperts + e];
    gp[j] = (double)__bfloat162float(grad_router_logits[t * kExperts + e]);
    for (int k = 0; k < kTopK; ++k)
      if (sel[k] == e)
        gp[j] += g[k] / S - weighted / S +
                 (double)__bfloat162float(grad_expert_mask[((long long)e * kTopK + k) * tokens + t]);
    dot += gp[j] * p[j];
  }
  for (int o = 16; o > 0; o >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, o);
  for (int j = 0; j < 4; ++j) grad_logits[t * kExperts + lane + 32 * j] = p[j] * (gp[j] - dot);
}

extern "C" __global__ void anchor_to_f64(double *out, const __nv_bfloat16 *in, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = (double)__bfloat162float(in[i]);
}

/* mkb:plan
scratch gl64 fp64[num_tokens * num_experts]
scratch w64 fp64[num_experts * hidden_size]
scratch x64 fp64[num_tokens * hidden_size]
launch anchor_grad_logits grid(ceil_div(num_tokens * 32, 256)) block(256)
  args(routing_probs, selected_experts, routing_weights_sum, grad_routing_weights, grad_expert_mask,
       grad_router_logits, gl64, i64(num_tokens))
launch anchor_to_f64 grid(ceil_div(num_experts * hidden_size, 256)) block(256) args(w64, gate_weight, i64(num_experts * hidden_size))
launch anchor_to_f64 grid(4096) block(256) args(x64, hidden_states, i64(num_tokens * hidden_size))
matmul c(grad_hidden_states) a(gl64) b(w64) m(num_tokens) n(hidden_size) k(num_experts)
matmul c(grad_gate_weight) a(gl64) b(x64) m(num_experts) n(hidden_size) k(num_tokens) transpose_a
*/
