// (MKB_MAP expressions see the macro's own i, k, n, base, values: parameters avoid those names.)
// The eager baseline: one launch per operation of the reference as eager PyTorch runs it, each
// intermediate in memory at the dtype PyTorch keeps it (eager.py is that computation). torch.topk is one
// launch here (one thread per row, descending, ties to the lower index; PyTorch may use several kernels).
#include "mkb_ops.cuh"

// hidden_states.to(fp32), weight.to(fp32), expert_bias.to(fp32)
MKB_MAP(to_fp32, float, (const bf16 *s), f32(s[i]))
// scores = torch.sigmoid(logits)
MKB_MAP(sigmoid_map, float, (const float *x), mkb_sigmoid(x[i]))
// scores_for_routing = scores + bias (bias broadcast along the rows)
MKB_MAP(add_rows, float, (const float *s, const float *b, unsigned cols), s[i] + b[(unsigned)i % cols])
// group_scores = top2_values.sum(dim=-1) over pairs
MKB_MAP(sum_pairs, float, (const float *v), v[2 * i] + v[2 * i + 1])
// torch.zeros_like
MKB_MAP(fill_value, float, (float v), v)
// score_mask = group_mask.unsqueeze(-1).expand(T, G, E / G).reshape(T, E): reshape copies the expanded view
MKB_MAP(expand_groups, float, (const float *gm, unsigned experts, unsigned per_group, unsigned groups),
        gm[((unsigned)i / experts) * groups + ((unsigned)i % experts) / per_group])
// masked_fill(mask, finfo(fp32).min)
MKB_MAP(masked_fill_min, float, (const float *x, const bool *mask), mask[i] ? -__int_as_float(0x7f7fffff) : x[i])
// torch.gather(scores, 1, topk_indices)
MKB_MAP(gather_rows, float, (const float *scores, const long long *idx, unsigned per_row, unsigned cols),
        scores[(long long)((unsigned)i / per_row) * cols + idx[i]])
// w.sum(dim=1, keepdim=True)
MKB_ROW_REDUCE(row_sum, float, float, mkb_ops::sum_op, (const float *v), v[r * cols + c], acc)
// + 1e-20
MKB_MAP(add_scalar, float, (const float *x, float v), x[i] + v)
// w / sum (sum broadcast along the row)
MKB_MAP(divide_rows, float, (const float *w, const float *s, unsigned per_row), w[i] / s[(unsigned)i / per_row])
// * routed_scaling_factor
MKB_MAP(scale_map, float, (const float *x, float v), x[i] * v)

// score_mask == 0
extern "C" __global__ void equal_zero(bool *out, const float *x, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = x[i] == 0.0f;
}

// group_mask.scatter_(1, group_indices, 1.0)
extern "C" __global__ void scatter_one(float *mask, const long long *idx, int rows, int k, int cols) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)rows * k) return;
  mask[(i / k) * cols + idx[i]] = 1.0f;
}

// torch.topk(x, k, dim=-1): values and int64 indices, descending, ties to the lower index. The next pick
// is the largest element below the previous one in the order (value descending, index ascending).
extern "C" __global__ void topk_rows(const float *x, float *values, long long *indices, int rows, int cols, int k) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *row = x + r * cols;
  float last_v = __int_as_float(0x7f800000);
  int last_i = -1;
  for (int j = 0; j < k; ++j) {
    float best_v = -__int_as_float(0x7f800000);
    int best_i = -1;
    for (int c = 0; c < cols; ++c) {
      const float v = row[c];
      const bool after_last = v < last_v || (v == last_v && c > last_i);
      if (after_last && (best_i < 0 || v > best_v)) {
        best_v = v;
        best_i = c;
      }
    }
    values[r * k + j] = best_v;
    indices[r * k + j] = best_i;
    last_v = best_v;
    last_i = best_i;
  }
}

/* mkb:plan
scratch hidden_f fp32[num_tokens * gating_dim]
scratch weight_f fp32[num_experts * gating_dim]
scratch logits fp32[num_tokens * num_experts]
scratch scores fp32[num_tokens * num_experts]
scratch bias_f fp32[num_experts]
scratch biased fp32[num_tokens * num_experts]
scratch top2_values fp32[num_tokens * num_groups * 2]
scratch top2_indices int64[num_tokens * num_groups * 2]
scratch group_scores fp32[num_tokens * num_groups]
scratch group_values fp32[num_tokens * topk_groups]
scratch group_indices int64[num_tokens * topk_groups]
scratch group_mask fp32[num_tokens * num_groups]
scratch score_mask fp32[num_tokens * num_experts]
scratch is_zero bool[num_tokens * num_experts]
scratch masked fp32[num_tokens * num_experts]
scratch top_values fp32[num_tokens * num_experts_per_token]
scratch gathered fp32[num_tokens * num_experts_per_token]
scratch sums fp32[num_tokens]
scratch sums_eps fp32[num_tokens]
scratch normalized fp32[num_tokens * num_experts_per_token]
launch to_fp32 grid(ceil_div(num_tokens * gating_dim, 1024)) block(256) args(hidden_f, hidden_states, i64(num_tokens * gating_dim))
launch to_fp32 grid(ceil_div(num_experts * gating_dim, 1024)) block(256) args(weight_f, weight, i64(num_experts * gating_dim))
matmul c(logits) a(hidden_f) b(weight_f) m(num_tokens) n(num_experts) k(gating_dim) transpose_b
launch sigmoid_map grid(ceil_div(num_tokens * num_experts, 1024)) block(256) args(scores, logits, i64(num_tokens * num_experts))
launch to_fp32 grid(1) block(256) args(bias_f, expert_bias, i64(num_experts))
launch add_rows grid(ceil_div(num_tokens * num_experts, 1024)) block(256) args(biased, scores, bias_f, u32(num_experts), i64(num_tokens * num_experts))
launch topk_rows grid(ceil_div(num_tokens * num_groups, 256)) block(256)
  args(biased, top2_values, top2_indices, i32(num_tokens * num_groups), i32(experts_per_group), i32(2))
launch sum_pairs grid(ceil_div(num_tokens * num_groups, 1024)) block(256) args(group_scores, top2_values, i64(num_tokens * num_groups))
launch topk_rows grid(ceil_div(num_tokens, 256)) block(256)
  args(group_scores, group_values, group_indices, i32(num_tokens), i32(num_groups), i32(topk_groups))
launch fill_value grid(ceil_div(num_tokens * num_groups, 1024)) block(256) args(group_mask, f32(0), i64(num_tokens * num_groups))
launch scatter_one grid(ceil_div(num_tokens * topk_groups, 256)) block(256)
  args(group_mask, group_indices, i32(num_tokens), i32(topk_groups), i32(num_groups))
launch expand_groups grid(ceil_div(num_tokens * num_experts, 1024)) block(256)
  args(score_mask, group_mask, u32(num_experts), u32(experts_per_group), u32(num_groups), i64(num_tokens * num_experts))
launch equal_zero grid(ceil_div(num_tokens * num_experts, 256)) block(256) args(is_zero, score_mask, i64(num_tokens * num_experts))
launch masked_fill_min grid(ceil_div(num_tokens * num_experts, 1024)) block(256) args(masked, biased, is_zero, i64(num_tokens * num_experts))
launch topk_rows grid(ceil_div(num_tokens, 256)) block(256)
  args(masked, top_values, topk_indices, i32(num_tokens), i32(num_experts), i32(num_experts_per_token))
launch gather_rows grid(ceil_div(num_tokens * num_experts_per_token, 1024)) block(256)
  args(gathered, scores, topk_indices, u32(num_experts_per_token), u32(num_experts), i64(num_tokens * num_experts_per_token))
launch row_sum grid(num_tokens) block(32) args(sums, gathered, i32(num_experts_per_token))
launch add_scalar grid(ceil_div(num_tokens, 1024)) block(256) args(sums_eps, sums, f32(weight_sum_eps), i64(num_tokens))
launch divide_rows grid(ceil_div(num_tokens * num_experts_per_token, 1024)) block(256)
  args(normalized, gathered, sums_eps, u32(num_experts_per_token), i64(num_tokens * num_experts_per_token))
launch scale_map grid(ceil_div(num_tokens * num_experts_per_token, 1024)) block(256)
  args(topk_weights, normalized, f32(routed_scaling_factor), i64(num_tokens * num_experts_per_token))
*/
