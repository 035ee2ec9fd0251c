// The eager baseline: one launch per operation of the reference as eager PyTorch runs it (eager.py is
// that program), intermediates in memory at the dtype eager keeps them (fp32, the routing_probs dtype,
// until the gradient of the logits is cast to bf16), and the two products as cuBLAS matmul steps.
#include "mkb_ops.cuh"

// gw = grad_routing_weights.to(fp32)                                        [T, K]
MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
// w = routing_probs.gather(1, selected_experts)                             [T, K]
MKB_MAP(gather_probs, float, (const float *probs, const long long *sel, unsigned k, unsigned e), probs[(unsigned)i / k * e + (unsigned)sel[i]])
// t1 = gw * w
MKB_MAP(mul, float, (const float *a, const float *b), a[i] * b[i])
// t2 = t1 / routing_weights_sum (broadcast over the K slots);  a = gw / routing_weights_sum
MKB_MAP(div_rows, float, (const float *a, const float *s, unsigned k), a[i] / s[(unsigned)i / k])
// grad_sum = t2.sum(dim=-1, keepdim=True)                                   [T, 1]
MKB_ROW_REDUCE(row_sum, float, float, mkb_ops::sum_op, (const float *x), x[r * cols + c], acc)
// b = grad_sum / routing_weights_sum                                        [T, 1]
MKB_MAP(div, float, (const float *a, const float *b), a[i] / b[i])
// grad_unnorm = a - b (b broadcast over the K slots)
MKB_MAP(sub_rows, float, (const float *a, const float *b, unsigned k), a[i] - b[(unsigned)i / k])
// gm16 = grad_expert_mask.permute(2, 1, 0).gather(2, selected_experts[..., None]).squeeze(2)   bf16 [T, K]
// (32-bit index arithmetic, as eager PyTorch uses for tensors of fewer than 2^31 elements.)
MKB_MAP(gather_mask, bf16, (const bf16 *mask, const long long *sel, unsigned k, unsigned tokens),
        f32(mask[((unsigned)sel[i] * k + (unsigned)i % k) * tokens + (unsigned)i / k]))
// combined = grad_unnorm + gm
MKB_MAP(add, float, (const float *a, const float *b), a[i] + b[i])
// dot = (grad_routing_probs * routing_probs).sum(dim=1, keepdim=True)
// d = grad_routing_probs - dot (dot broadcast over the experts)
MKB_MAP(sub_rows_e, float, (const float *a, const float *b, unsigned e), a[i] - b[(unsigned)i / e])
// grad_logits = routing_probs * d, then .to(bf16)
MKB_MAP(to_bf16, bf16, (const float *x), x[i])

// grad_routing_probs.scatter_add_(1, selected_experts, combined): the K indices of a row are distinct.
extern "C" __global__ void scatter_add_rows(float *gp, const long long *sel, const float *src, unsigned k, unsigned e, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    atomicAdd(&gp[(unsigned)i / k * e + (unsigned)sel[i]], src[i]);
}

/* mkb:plan
scratch gw fp32[num_tokens * top_k]
scratch w fp32[num_tokens * top_k]
scratch t1 fp32[num_tokens * top_k]
scratch t2 fp32[num_tokens * top_k]
scratch gsum fp32[num_tokens]
scratch a fp32[num_tokens * top_k]
scratch b fp32[num_tokens]
scratch gu fp32[num_tokens * top_k]
scratch gm16 bf16[num_tokens * top_k]
scratch gm fp32[num_tokens * top_k]
scratch comb fp32[num_tokens * top_k]
scratch gp fp32[num_tokens * num_experts]
scratch m fp32[num_tokens * num_experts]
scratch dot fp32[num_tokens]
scratch d fp32[num_tokens * num_experts]
scratch gl32 fp32[num_tokens * num_experts]
scratch gl bf16[num_tokens * num_experts]
launch to_f32 grid(ceil_div(num_tokens * top_k, 1024)) block(256) args(gw, grad_routing_weights, i64(num_tokens * top_k))
launch gather_probs grid(ceil_div(num_tokens * top_k, 1024)) block(256)
  args(w, routing_probs, selected_experts, u32(top_k), u32(num_experts), i64(num_tokens * top_k))
launch mul grid(ceil_div(num_tokens * top_k, 1024)) block(256) args(t1, gw, w, i64(num_tokens * top_k))
launch div_rows grid(ceil_div(num_tokens * top_k, 1024)) block(256) args(t2, t1, routing_weights_sum, u32(top_k), i64(num_tokens * top_k))
launch row_sum grid(num_tokens) block(32) args(gsum, t2, i32(top_k))
launch div_rows grid(ceil_div(num_tokens * top_k, 1024)) block(256) args(a, gw, routing_weights_sum, u32(top_k), i64(num_tokens * top_k))
launch div grid(ceil_div(num_tokens, 1024)) block(256) args(b, gsum, routing_weights_sum, i64(num_tokens))
launch sub_rows grid(ceil_div(num_tokens * top_k, 1024)) block(256) args(gu, a, b, u32(top_k), i64(num_tokens * top_k))
launch gather_mask grid(ceil_div(num_tokens * top_k, 1024)) block(256)
  args(gm16, grad_expert_mask, selected_experts, u32(top_k), u32(num_tokens), i64(num_tokens * top_k))
launch to_f32 grid(ceil_div(num_tokens * top_k, 1024)) block(256) args(gm, gm16, i64(num_tokens * top_k))
launch add grid(ceil_div(num_tokens * top_k, 1024)) block(256) args(comb, gu, gm, i64(num_tokens * top_k))
launch to_f32 grid(ceil_div(num_tokens * num_experts, 1024)) block(256) args(gp, grad_router_logits, i64(num_tokens * num_experts))
launch scatter_add_rows grid(ceil_div(num_tokens * top_k, 256)) block(256)
  args(gp, selected_experts, comb, u32(top_k), u32(num_experts), i64(num_tokens * top_k))
launch mul grid(ceil_div(num_tokens * num_experts, 1024)) block(256) args(m, gp, routing_probs, i64(num_tokens * num_experts))
launch row_sum grid(num_tokens) block(128) args(dot, m, i32(num_experts))
launch sub_rows_e grid(ceil_div(num_tokens * num_experts, 1024)) block(256) args(d, gp, dot, u32(num_experts), i64(num_tokens * num_experts))
launch mul grid(ceil_div(num_tokens * num_experts, 1024)) block(256) args(gl32, routing_probs, d, i64(num_tokens * num_experts))
launch to_bf16 grid(ceil_div(num_tokens * num_experts, 1024)) block(256) args(gl, gl32, i64(num_tokens * num_experts))
matmul c(grad_hidden_states) a(gl) b(gate_weight) m(num_tokens) n(hidden_size) k(num_experts)
matmul c(grad_gate_weight) a(gl) b(hidden_states) m(num_experts) n(hidden_size) k(num_tokens) transpose_a
*/
