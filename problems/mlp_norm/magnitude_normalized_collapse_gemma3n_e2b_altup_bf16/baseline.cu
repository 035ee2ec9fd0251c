// The unfused baseline: one launch per eager PyTorch operation of the Hugging Face Gemma3n AltUp
// collapse in bf16, intermediates in memory as bf16 (eager keeps them so), fp32 arithmetic, one rounding
// per operation. The three per-stream iterations of the eager loop are identical operations on
// different tensors, so each operation runs once over all three streams (one batched cuBLAS call for
// the three unembed projections).
#include "mkb_ops.cuh"

// a = stream0 ** 2 (bf16)
MKB_MAP(square_bf16, bf16, (const bf16 *x), f32(x[i]) * f32(x[i]))
// m = mean(q, dim=-1) (bf16, fp32 accumulation): one block per row
MKB_ROW_REDUCE(row_mean_bf16, bf16, float, mkb_ops::sum_op, (const bf16 *q), f32(q[r * cols + c]), acc / cols)
// tm = m ** 0.5 (bf16)
MKB_MAP(sqrt_bf16, bf16, (const bf16 *m), sqrtf(f32(m[i])))
// mc = torch.maximum(m, bf16(eps)) (bf16; exact)
MKB_MAP(clamp_min_bf16, bf16, (const bf16 *m, float eps), fmaxf(f32(m[i]), mkb_ops::round_to<bf16>(eps)))
// u = p * tm (tm broadcast over the hidden axis and over the three streams)
MKB_MAP(mul_magnitude, bf16, (const bf16 *p, const bf16 *tm, int tokens, int cols),
        f32(p[i]) * f32(tm[(i / cols) % tokens]))
// c = u / nm (nm broadcast over the hidden axis)
MKB_MAP(div_magnitude, bf16, (const bf16 *u, const bf16 *nm, int cols), f32(u[i]) / f32(nm[i / cols]))
// torch.stack([stream0, c0, c1, c2]) -> [4, T, H] (one cat kernel in eager)
MKB_MAP(stack4, bf16, (const bf16 *x0, const bf16 *c, long long slab), i < slab ? f32(x0[i]) : f32(c[i - slab]))
// out = mean(stacked, dim=0) (fp32 accumulation over the four streams)
MKB_MAP(mean_streams, bf16, (const bf16 *s, long long slab),
        (f32(s[i]) + f32(s[i + slab]) + f32(s[i + 2 * slab]) + f32(s[i + 3 * slab])) / 4.0f)

/* mkb:plan
scratch a bf16[tokens * hidden]
scratch ma bf16[tokens]
scratch tm bf16[tokens]
scratch p bf16[streams * tokens * hidden]
scratch q bf16[streams * tokens * hidden]
scratch mq bf16[streams * tokens]
scratch mc bf16[streams * tokens]
scratch nm bf16[streams * tokens]
scratch u bf16[streams * tokens * hidden]
scratch c bf16[streams * tokens * hidden]
scratch stacked bf16[(streams + 1) * tokens * hidden]
launch square_bf16 grid(ceil_div(tokens * hidden, 256)) block(256) args(a, stream0, i64(tokens * hidden))
launch row_mean_bf16 grid(tokens) block(256) args(ma, a, i32(hidden))
launch sqrt_bf16 grid(ceil_div(tokens, 256)) block(256) args(tm, ma, i64(tokens))
matmul c(p) a(other_streams) b(unembed_weight) m(tokens) n(hidden) k(hidden) batch(streams) transpose_b
launch square_bf16 grid(ceil_div(streams * tokens * hidden, 256)) block(256) args(q, p, i64(streams * tokens * hidden))
launch row_mean_bf16 grid(streams * tokens) block(256) args(mq, q, i32(hidden))
launch clamp_min_bf16 grid(ceil_div(streams * tokens, 256)) block(256) args(mc, mq, f32(eps), i64(streams * tokens))
launch sqrt_bf16 grid(ceil_div(streams * tokens, 256)) block(256) args(nm, mc, i64(streams * tokens))
launch mul_magnitude grid(ceil_div(streams * tokens * hidden, 256)) block(256)
  args(u, p, tm, i32(tokens), i32(hidden), i64(streams * tokens * hidden))
launch div_magnitude grid(ceil_div(streams * tokens * hidden, 256)) block(256)
  args(c, u, nm, i32(hidden), i64(streams * tokens * hidden))
launch stack4 grid(ceil_div((streams + 1) * tokens * hidden, 256)) block(256)
  args(stacked, stream0, c, i64(tokens * hidden), i64((streams + 1) * tokens * hidden))
launch mean_streams grid(ceil_div(tokens * hidden, 256)) block(256)
  args(out, stacked, i64(tokens * hidden), i64(tokens * hidden))
*/
