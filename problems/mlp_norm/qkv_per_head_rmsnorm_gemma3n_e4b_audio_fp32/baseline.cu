// The unfused baseline: one launch per eager PyTorch operation, fp32 throughout. The three bias-free
// projections are `matmul` steps (cuBLAS fp32 GEMMs, no TF32) over the B*S rows; each per-head RMSNorm
// (var = t.pow(2).mean(-1); t = t * rsqrt(var + eps); t = t * weight) is six launches. Heads are rows of
// head_dim contiguous elements, so [B, S, H*d] is [B*S*H, d].
#include "mkb_ops.cuh"

// s = t.pow(2)
MKB_MAP(square_f32, float, (const float *t), t[i] * t[i])
// var = s.mean(-1): one block per (row, head) of head_dim elements
MKB_ROW_REDUCE(row_mean_f32, float, float, mkb_ops::sum_op, (const float *s), s[r * cols + c], acc / cols)
// e = var + eps
MKB_MAP(add_eps_f32, float, (const float *var, float eps), var[i] + eps)
// inv = torch.rsqrt(e): PyTorch's CUDA rsqrt is rsqrtf
MKB_MAP(rsqrt_f32, float, (const float *e), rsqrtf(e[i]))
// t = t * inv (broadcast over head_dim)
MKB_MAP(mul_rows_f32, float, (const float *t, const float *inv, int cols), t[i] * inv[i / cols])
// out = t * weight (weight broadcast over rows and heads)
MKB_MAP(mul_weight_f32, float, (const float *t, const float *w, int cols), t[i] * w[i % cols])

/* mkb:plan
scratch q_raw fp32[batch_size * seq_len * qkv_out_size]
scratch k_raw fp32[batch_size * seq_len * qkv_out_size]
scratch sq fp32[batch_size * seq_len * qkv_out_size]
scratch var fp32[batch_size * seq_len * num_heads]
scratch e fp32[batch_size * seq_len * num_heads]
scratch inv fp32[batch_size * seq_len * num_heads]
scratch t fp32[batch_size * seq_len * qkv_out_size]
matmul c(q_raw) a(hidden_states) b(q_weight) m(batch_size * seq_len) n(qkv_out_size) k(hidden_size) transpose_b
matmul c(k_raw) a(hidden_states) b(k_weight) m(batch_size * seq_len) n(qkv_out_size) k(hidden_size) transpose_b
matmul c(v) a(hidden_states) b(v_weight) m(batch_size * seq_len) n(qkv_out_size) k(hidden_size) transpose_b
launch square_f32 grid(ceil_div(batch_size * seq_len * qkv_out_size, 1024)) block(256) args(sq, q_raw, i64(batch_size * seq_len * qkv_out_size))
launch row_mean_f32 grid(batch_size * seq_len * num_heads) block(64) args(var, sq, i32(head_dim))
launch add_eps_f32 grid(ceil_div(batch_size * seq_len * num_heads, 1024)) block(256) args(e, var, f32(eps), i64(batch_size * seq_len * num_heads))
launch rsqrt_f32 grid(ceil_div(batch_size * seq_len * num_heads, 1024)) block(256) args(inv, e, i64(batch_size * seq_len * num_heads))
launch mul_rows_f32 grid(ceil_div(batch_size * seq_len * qkv_out_size, 1024)) block(256) args(t, q_raw, inv, i32(head_dim), i64(batch_size * seq_len * qkv_out_size))
launch mul_weight_f32 grid(ceil_div(batch_size * seq_len * qkv_out_size, 1024)) block(256) args(q, t, q_norm_weight, i32(head_dim), i64(batch_size * seq_len * qkv_out_size))
launch square_f32 grid(ceil_div(batch_size * seq_len * qkv_out_size, 1024)) block(256) args(sq, k_raw, i64(batch_size * seq_len * qkv_out_size))
launch row_mean_f32 grid(batch_size * seq_len * num_heads) block(64) args(var, sq, i32(head_dim))
launch add_eps_f32 grid(ceil_div(batch_size * seq_len * num_heads, 1024)) block(256) args(e, var, f32(eps), i64(batch_size * seq_len * num_heads))
launch rsqrt_f32 grid(ceil_div(batch_size * seq_len * num_heads, 1024)) block(256) args(inv, e, i64(batch_size * seq_len * num_heads))
launch mul_rows_f32 grid(ceil_div(batch_size * seq_len * qkv_out_size, 1024)) block(256) args(t, k_raw, inv, i32(head_dim), i64(batch_size * seq_len * qkv_out_size))
launch mul_weight_f32 grid(ceil_div(batch_size * seq_len * qkv_out_size, 1024)) block(256) args(k, t, k_norm_weight, i32(head_dim), i64(batch_size * seq_len * qkv_out_size))
*/
