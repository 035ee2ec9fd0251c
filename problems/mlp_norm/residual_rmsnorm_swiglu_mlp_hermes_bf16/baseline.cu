// The unfused baseline: one launch per eager PyTorch operation (Hugging Face LlamaRMSNorm + LlamaMLP in
// bf16), intermediates in memory at the dtype eager keeps them, fp32 arithmetic, one rounding per op.
// The three nn.Linear projections are `matmul` steps (cuBLAS, fp32 accumulation, rounded to bf16).
#include "mkb_ops.cuh"

// s = x + residual, written in place into residual (bf16). Each element is read before it is written.
MKB_MAP(add_residual, bf16, (const bf16 *x, const bf16 *res), f32(x[i]) + f32(res[i]))
// h32 = s.float()
MKB_MAP(to_float, float, (const bf16 *s), f32(s[i]))
// q = h32.pow(2)
MKB_MAP(square, float, (const float *h), h[i] * h[i])
// ms = q.mean(-1): one block per row
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *q), q[r * cols + c], acc / cols)
// v = ms + eps
MKB_MAP(add_eps, float, (const float *ms, float eps), ms[i] + eps)
// r = torch.rsqrt(v)
MKB_MAP(rsqrt_map, float, (const float *v), rsqrtf(v[i]))
// h32 = h32 * r (broadcast over columns)
MKB_MAP(scale_rows, float, (const float *h, const float *r, int cols), h[i] * r[i / cols])
// m = h32.to(bf16)
MKB_MAP(to_bf16, bf16, (const float *h), h[i])
// n = norm_weight * m (broadcast over rows), bf16
MKB_MAP(mul_weight, bf16, (const bf16 *m, const bf16 *w, int cols), f32(w[i % cols]) * f32(m[i]))
// a = silu(g), bf16
MKB_MAP(silu_map, bf16, (const bf16 *g), mkb_silu(f32(g[i])))
// h = a * u, bf16
MKB_MAP(mul_map, bf16, (const bf16 *a, const bf16 *u), f32(a[i]) * f32(u[i]))

/* mkb:plan
scratch h32 fp32[tokens * hidden]
scratch q fp32[tokens * hidden]
scratch ms fp32[tokens]
scratch v fp32[tokens]
scratch r fp32[tokens]
scratch m bf16[tokens * hidden]
scratch n bf16[tokens * hidden]
scratch g bf16[tokens * intermediate]
scratch u bf16[tokens * intermediate]
scratch a bf16[tokens * intermediate]
scratch h bf16[tokens * intermediate]
launch add_residual grid(ceil_div(tokens * hidden, 256)) block(256) args(residual, x, residual, i64(tokens * hidden))
launch to_float grid(ceil_div(tokens * hidden, 256)) block(256) args(h32, residual, i64(tokens * hidden))
launch square grid(ceil_div(tokens * hidden, 256)) block(256) args(q, h32, i64(tokens * hidden))
launch row_mean grid(tokens) block(256) args(ms, q, i32(hidden))
launch add_eps grid(1) block(256) args(v, ms, f32(eps), i64(tokens))
launch rsqrt_map grid(1) block(256) args(r, v, i64(tokens))
launch scale_rows grid(ceil_div(tokens * hidden, 256)) block(256) args(h32, h32, r, i32(hidden), i64(tokens * hidden))
launch to_bf16 grid(ceil_div(tokens * hidden, 256)) block(256) args(m, h32, i64(tokens * hidden))
launch mul_weight grid(ceil_div(tokens * hidden, 256)) block(256) args(n, m, norm_weight, i32(hidden), i64(tokens * hidden))
matmul c(g) a(n) b(w_gate) m(tokens) n(intermediate) k(hidden) transpose_b
matmul c(u) a(n) b(w_up) m(tokens) n(intermediate) k(hidden) transpose_b
launch silu_map grid(ceil_div(tokens * intermediate, 256)) block(256) args(a, g, i64(tokens * intermediate))
launch mul_map grid(ceil_div(tokens * intermediate, 256)) block(256) args(h, a, u, i64(tokens * intermediate))
matmul c(y) a(h) b(w_down) m(tokens) n(hidden) k(intermediate) transpose_b
*/
