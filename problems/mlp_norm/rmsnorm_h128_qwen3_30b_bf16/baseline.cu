// The unfused baseline: the eager Hugging Face Qwen3 RMSNorm, one launch per PyTorch operation
// (cast, pow, mean, add, rsqrt, mul, cast, weight mul), run for q_norm and then for k_norm. fp32
// intermediates in memory; the scratch buffers are sized for q and reused for k.
#include "mkb_ops.cuh"

// h = x.to(float32)
MKB_MAP(to_float, float, (const bf16 *x), f32(x[i]))
// p = h.pow(2)
MKB_MAP(square, float, (const float *h), h[i] * h[i])
// ms = p.mean(-1): one block per head row
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *p), p[r * cols + c], acc / cols)
// v = ms + eps
MKB_MAP(add_eps, float, (const float *ms, float eps), ms[i] + eps)
// r = rsqrt(v)
MKB_MAP(rsqrt_map, float, (const float *v), rsqrtf(v[i]))
// s = h * r (broadcast over the head); indices fit in int (tokens * 32 * 128 < 2^31)
MKB_MAP(scale_rows, float, (const float *h, const float *r, int cols), h[i] * r[(int)i / cols])
// nb = s.to(bf16)
MKB_MAP(to_bf16, bf16, (const float *s), s[i])
// out = weight * nb, bf16
MKB_MAP(mul_weight, bf16, (const bf16 *nb, const bf16 *w, int cols), f32(w[(int)i % cols]) * f32(nb[i]))

/* mkb:plan
scratch h fp32[tokens * q_heads * head_dim]
scratch p fp32[tokens * q_heads * head_dim]
scratch ms fp32[tokens * q_heads]
scratch v fp32[tokens * q_heads]
scratch r fp32[tokens * q_heads]
scratch nb bf16[tokens * q_heads * head_dim]
# q_norm
launch to_float grid(ceil_div(tokens * q_heads * head_dim, 256)) block(256) args(h, q, i64(tokens * q_heads * head_dim))
launch square grid(ceil_div(tokens * q_heads * head_dim, 256)) block(256) args(p, h, i64(tokens * q_heads * head_dim))
launch row_mean grid(tokens * q_heads) block(128) args(ms, p, i32(head_dim))
launch add_eps grid(ceil_div(tokens * q_heads, 256)) block(256) args(v, ms, f32(eps), i64(tokens * q_heads))
launch rsqrt_map grid(ceil_div(tokens * q_heads, 256)) block(256) args(r, v, i64(tokens * q_heads))
launch scale_rows grid(ceil_div(tokens * q_heads * head_dim, 256)) block(256)
  args(p, h, r, i32(head_dim), i64(tokens * q_heads * head_dim))
launch to_bf16 grid(ceil_div(tokens * q_heads * head_dim, 256)) block(256) args(nb, p, i64(tokens * q_heads * head_dim))
launch mul_weight grid(ceil_div(tokens * q_heads * head_dim, 256)) block(256)
  args(q_out, nb, q_weight, i32(head_dim), i64(tokens * q_heads * head_dim))
# k_norm
launch to_float grid(ceil_div(tokens * kv_heads * head_dim, 256)) block(256) args(h, k, i64(tokens * kv_heads * head_dim))
launch square grid(ceil_div(tokens * kv_heads * head_dim, 256)) block(256) args(p, h, i64(tokens * kv_heads * head_dim))
launch row_mean grid(tokens * kv_heads) block(128) args(ms, p, i32(head_dim))
launch add_eps grid(ceil_div(tokens * kv_heads, 256)) block(256) args(v, ms, f32(eps), i64(tokens * kv_heads))
launch rsqrt_map grid(ceil_div(tokens * kv_heads, 256)) block(256) args(r, v, i64(tokens * kv_heads))
launch scale_rows grid(ceil_div(tokens * kv_heads * head_dim, 256)) block(256)
  args(p, h, r, i32(head_dim), i64(tokens * kv_heads * head_dim))
launch to_bf16 grid(ceil_div(tokens * kv_heads * head_dim, 256)) block(256) args(nb, p, i64(tokens * kv_heads * head_dim))
launch mul_weight grid(ceil_div(tokens * kv_heads * head_dim, 256)) block(256)
  args(k_out, nb, k_weight, i32(head_dim), i64(tokens * kv_heads * head_dim))
*/
