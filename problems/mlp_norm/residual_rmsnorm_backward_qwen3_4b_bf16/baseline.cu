// The unfused baseline: the recomputed forward and the backward of residual add + Qwen3RMSNorm, one
// launch per eager PyTorch (autograd) operation, intermediates in memory at the dtype eager keeps them,
// fp32 arithmetic, one rounding per operation.
#include "mkb_ops.cuh"

// ---- elementwise operations ------------------------------------------------------------------------
MKB_MAP(add_bf16, bf16, (const bf16 *a, const bf16 *b), f32(a[i]) + f32(b[i]))
MKB_MAP(to_f32, float, (const bf16 *a), f32(a[i]))
MKB_MAP(to_bf16, bf16, (const float *a), a[i])
MKB_MAP(square_f32, float, (const float *a), a[i] * a[i])
MKB_MAP(add_scalar_f32, float, (const float *a, float v), a[i] + v)
MKB_MAP(rsqrt_f32, float, (const float *a), rsqrtf(a[i]))
MKB_MAP(scale_f32, float, (const float *a, float v), a[i] * v)
MKB_MAP(mul_f32, float, (const float *a, const float *b), a[i] * b[i])
MKB_MAP(add_f32, float, (const float *a, const float *b), a[i] + b[i])
MKB_MAP(mul_bf16, bf16, (const bf16 *a, const bf16 *b), f32(a[i]) * f32(b[i]))
// a [rows, width] times a per-row value v[rows] (a [rows, 1] tensor broadcast)
MKB_MAP(mul_row_f32, float, (const float *a, const float *v, long long width), a[i] * v[i / width])
// a [rows, width] times a per-column value w[width] (the weight broadcast over rows)
MKB_MAP(mul_col_bf16, bf16, (const bf16 *a, const bf16 *w, long long width), f32(a[i]) * f32(w[i % width]))
// rsqrt backward for r = rsqrt(v): grad_v = (-0.5 * grad_r) * r.pow(3)
MKB_MAP(rsqrt_backward, float, (const float *g, const float *rs), (-0.5f * g[i]) * (rs[i] * rs[i] * rs[i]))
// mean backward: grad_v[rows, 1].expand(rows, width) / width
MKB_MAP(mean_backward, float, (const float *g, long long width), g[i / width] / (float)width)

// ---- reductions ------------------------------------------------------------------------------------
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *a), a[r * cols + c], acc / cols)
MKB_ROW_REDUCE(row_sum, float, float, mkb_ops::sum_op, (const float *a), a[r * cols + c], acc)
// Sum over dim 0 of a bf16 [tokens, hidden] tensor in two stages, as PyTorch's reduction splits a long
// column sum across blocks: fp32 partial sums of `rows` consecutive rows per batch b, then the sum of
// the partials rounded once to bf16.
MKB_COL_REDUCE(col_sum_partial, float, float, mkb_ops::sum_op, (const bf16 *a),
               f32(a[((long long)b * rows + r) * cols + c]), acc)
MKB_COL_REDUCE(col_sum_final, bf16, float, mkb_ops::sum_op, (const float *a), a[(long long)r * cols + c], acc)

/* mkb:plan
# Shapes: tokens = 32768 = 64 batches x 512 rows for the two-stage column sum (exact division).
scratch s bf16[tokens * hidden]
scratch h fp32[tokens * hidden]
scratch q fp32[tokens * hidden]
scratch ms fp32[tokens]
scratch ve fp32[tokens]
scratch rs fp32[tokens]
scratch hr fp32[tokens * hidden]
scratch n bf16[tokens * hidden]
scratch gn bf16[tokens * hidden]
scratch gwp bf16[tokens * hidden]
scratch gwpart fp32[64 * hidden]
scratch ghr fp32[tokens * hidden]
scratch gh1 fp32[tokens * hidden]
scratch ghh fp32[tokens * hidden]
scratch gr fp32[tokens]
scratch gv fp32[tokens]
scratch gq fp32[tokens * hidden]
scratch h2 fp32[tokens * hidden]
scratch gh2 fp32[tokens * hidden]
scratch gh fp32[tokens * hidden]
scratch gs bf16[tokens * hidden]
# ---- forward recompute (activation checkpointing) ----
# s = residual + x (bf16)
launch add_bf16 grid(ceil_div(tokens * hidden, 256)) block(256) args(s, residual, x, i64(tokens * hidden))
# h = s.to(float32)
launch to_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(h, s, i64(tokens * hidden))
# variance = h.pow(2).mean(-1, keepdim=True)
launch square_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(q, h, i64(tokens * hidden))
launch row_mean grid(tokens) block(256) args(ms, q, i32(hidden))
# r = torch.rsqrt(variance + eps)
launch add_scalar_f32 grid(ceil_div(tokens, 256)) block(256) args(ve, ms, f32(eps), i64(tokens))
launch rsqrt_f32 grid(ceil_div(tokens, 256)) block(256) args(rs, ve, i64(tokens))
# n = (h * r).to(bf16)
launch mul_row_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(hr, h, rs, i64(hidden), i64(tokens * hidden))
launch to_bf16 grid(ceil_div(tokens * hidden, 256)) block(256) args(n, hr, i64(tokens * hidden))
# ---- backward of y = weight * n ----
# grad_n = dy * weight (bf16)
launch mul_col_bf16 grid(ceil_div(tokens * hidden, 256)) block(256) args(gn, dy, weight, i64(hidden), i64(tokens * hidden))
# grad_weight = (dy * n).sum over tokens (bf16 product, fp32 accumulation, bf16 result)
launch mul_bf16 grid(ceil_div(tokens * hidden, 256)) block(256) args(gwp, dy, n, i64(tokens * hidden))
launch col_sum_partial grid(ceil_div(hidden, 32), 64) block(32, 8) args(gwpart, gwp, i32(tokens / 64), i32(hidden))
launch col_sum_final grid(ceil_div(hidden, 32), 1) block(32, 8) args(dweight, gwpart, i32(64), i32(hidden))
# ---- backward of .to(bf16): grad_hr = grad_n.float() ----
launch to_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(ghr, gn, i64(tokens * hidden))
# ---- backward of h * r: grad_h1 = grad_hr * r; grad_r = (grad_hr * h).sum(-1) ----
launch mul_row_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(gh1, ghr, rs, i64(hidden), i64(tokens * hidden))
launch mul_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(ghh, ghr, h, i64(tokens * hidden))
launch row_sum grid(tokens) block(256) args(gr, ghh, i32(hidden))
# ---- backward of rsqrt (and of + eps, a pass-through) ----
launch rsqrt_backward grid(ceil_div(tokens, 256)) block(256) args(gv, gr, rs, i64(tokens))
# ---- backward of mean: grad_q = grad_v.expand / hidden ----
launch mean_backward grid(ceil_div(tokens * hidden, 256)) block(256) args(gq, gv, i64(hidden), i64(tokens * hidden))
# ---- backward of pow(2): grad_h2 = grad_q * (2 * h) ----
launch scale_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(h2, h, f32(2.0), i64(tokens * hidden))
launch mul_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(gh2, gq, h2, i64(tokens * hidden))
# ---- autograd accumulation into h, then backward of s.to(float32): grad_s = bf16(grad_h1 + grad_h2) ----
launch add_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(gh, gh1, gh2, i64(tokens * hidden))
launch to_bf16 grid(ceil_div(tokens * hidden, 256)) block(256) args(gs, gh, i64(tokens * hidden))
# ---- autograd accumulation of the residual-stream gradient; backward of the add is a pass-through ----
launch add_bf16 grid(ceil_div(tokens * hidden, 256)) block(256) args(dx, gs, ds, i64(tokens * hidden))
*/
