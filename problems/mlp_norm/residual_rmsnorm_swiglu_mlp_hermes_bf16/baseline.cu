// The unfused baseline: one launch per eager PyTorch operation of the reconstructed reference
// (residual add in bf16, Hugging Face LlamaRMSNorm, LlamaMLP), intermediates in memory at the dtype eager
// keeps them, fp32 arithmetic, one rounding per op. The three F.linear projections are `matmul` steps
// (cuBLAS, fp32 accumulation, rounded to bf16). Rows: T = batch_size * seq_len.
#include "mkb_ops.cuh"

// s = hidden_states + residual (bf16)
MKB_MAP(add_residual, bf16, (const bf16 *x, const bf16 *res), f32(x[i]) + f32(res[i]))
// x = s.to(float32)
MKB_MAP(to_float, float, (const bf16 *s), f32(s[i]))
// q = x.pow(2)
MKB_MAP(square, float, (const float *h), h[i] * h[i])
// variance = q.mean(-1): one block per row
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *q), q[r * cols + c], acc / cols)
// v = variance + eps
MKB_MAP(add_eps, float, (const float *ms, float eps), ms[i] + eps)
// r = torch.rsqrt(v)
MKB_MAP(rsqrt_map, float, (const float *v), rsqrtf(v[i]))
// x = x * r (broadcast over columns)
MKB_MAP(scale_rows, float, (const float *h, const float *r, int cols), h[i] * r[i / cols])
// m = x.to(bf16)
MKB_MAP(to_bf16, bf16, (const float *h), h[i])
// n = norm_weight * m (broadcast over rows), bf16
MKB_MAP(mul_weight, bf16, (const bf16 *m, const bf16 *w, int cols), f32(w[i % cols]) * f32(m[i]))
// a = silu(g), bf16
MKB_MAP(silu_map, bf16, (const bf16 *g), mkb_silu(f32(g[i])))
// h = a * u, bf16
MKB_MAP(mul_map, bf16, (const bf16 *a, const bf16 *u), f32(a[i]) * f32(u[i]))

/* mkb:plan
scratch s bf16[batch_size * seq_len * hidden_size]
scratch h32 fp32[batch_size * seq_len * hidden_size]
scratch q fp32[batch_size * seq_len * hidden_size]
scratch ms fp32[batch_size * seq_len]
scratch v fp32[batch_size * seq_len]
scratch r fp32[batch_size * seq_len]
scratch m bf16[batch_size * seq_len * hidden_size]
scratch n bf16[batch_size * seq_len * hidden_size]
scratch g bf16[batch_size * seq_len * intermediate_size]
scratch u bf16[batch_size * seq_len * intermediate_size]
scratch a bf16[batch_size * seq_len * intermediate_size]
scratch h bf16[batch_size * seq_len * intermediate_size]
launch add_residual grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(s, hidden_states, residual, i64(batch_size * seq_len * hidden_size))
launch to_float grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(h32, s, i64(batch_size * seq_len * hidden_size))
launch square grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(q, h32, i64(batch_size * seq_len * hidden_size))
launch row_mean grid(batch_size * seq_len) block(256) args(ms, q, i32(hidden_size))
launch add_eps grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(v, ms, f32(eps), i64(batch_size * seq_len))
launch rsqrt_map grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(r, v, i64(batch_size * seq_len))
launch scale_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(h32, h32, r, i32(hidden_size), i64(batch_size * seq_len * hidden_size))
launch to_bf16 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(m, h32, i64(batch_size * seq_len * hidden_size))
launch mul_weight grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(n, m, norm_weight, i32(hidden_size), i64(batch_size * seq_len * hidden_size))
matmul c(g) a(n) b(gate_weight) m(batch_size * seq_len) n(intermediate_size) k(hidden_size) transpose_b
matmul c(u) a(n) b(up_weight) m(batch_size * seq_len) n(intermediate_size) k(hidden_size) transpose_b
launch silu_map grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(a, g, i64(batch_size * seq_len * intermediate_size))
launch mul_map grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(h, a, u, i64(batch_size * seq_len * intermediate_size))
matmul c(output) a(h) b(down_weight) m(batch_size * seq_len) n(hidden_size) k(intermediate_size) transpose_b
*/
