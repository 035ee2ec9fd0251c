// The unfused baseline: the recomputed forward (embedding lookup + JambaRMSNorm) and its backward, one
// launch per eager PyTorch (autograd) operation, intermediates in memory at the dtype eager keeps them,
// fp32 arithmetic, one rounding per operation.
#include "mkb_ops.cuh"

// ---- elementwise operations ------------------------------------------------------------------------
// h = embedding(ids, table): row ids[t] of the table (a bf16 copy, exact)
MKB_MAP(gather_rows, bf16, (const bf16 *table, const int *ids, long long width),
        f32(table[(long long)ids[i / width] * width + i % width]))
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
// Sum over dim 0 in two stages, as PyTorch's reduction splits a long column sum across blocks: fp32
// partial sums of `rows` consecutive rows per batch b, then the sum of the partials rounded once.
MKB_COL_REDUCE(col_sum_partial, float, float, mkb_ops::sum_op, (const bf16 *a),
               f32(a[((long long)b * rows + r) * cols + c]), acc)
MKB_COL_REDUCE(col_sum_final, bf16, float, mkb_ops::sum_op, (const float *a), a[(long long)r * cols + c], acc)

// embedding_dense_backward's accumulation (no block fits a scatter-add): acc[ids[t], c] += dh[t, c] in
// fp32. PyTorch sorts the ids and sums each id's segment in fp32 instead; the precision is the same
// (fp32 sums of the bf16 dh, one rounding to bf16 per row at the end), only the order differs. `acc` is
// a zeroed scratch buffer, standing for the at::zeros that PyTorch fills before accumulating.
extern "C" __global__ void embedding_scatter_add(float *__restrict__ acc, const bf16 *__restrict__ dh,
                                                 const int *__restrict__ ids, long long width, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    atomicAdd(&acc[(long long)ids[i / width] * width + i % width], f32(dh[i]));
}

/* mkb:plan
# Shapes: tokens = 32768 = 64 batches x 512 rows for the two-stage column sum (exact division).
scratch h bf16[tokens * hidden]
scratch hf fp32[tokens * hidden]
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
scratch dh bf16[tokens * hidden]
scratch acc fp32[vocab * hidden] zeroed
# ---- forward recompute ----
# h = embed_tokens(ids)
launch gather_rows grid(ceil_div(tokens * hidden, 256)) block(256) args(h, embedding, ids, i64(hidden), i64(tokens * hidden))
# hf = h.to(float32); variance = hf.pow(2).mean(-1, keepdim=True); r = rsqrt(variance + eps)
launch to_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(hf, h, i64(tokens * hidden))
launch square_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(q, hf, i64(tokens * hidden))
launch row_mean grid(tokens) block(256) args(ms, q, i32(hidden))
launch add_scalar_f32 grid(ceil_div(tokens, 256)) block(256) args(ve, ms, f32(eps), i64(tokens))
launch rsqrt_f32 grid(ceil_div(tokens, 256)) block(256) args(rs, ve, i64(tokens))
# n = (hf * r).to(bf16)
launch mul_row_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(hr, hf, rs, i64(hidden), i64(tokens * hidden))
launch to_bf16 grid(ceil_div(tokens * hidden, 256)) block(256) args(n, hr, i64(tokens * hidden))
# ---- backward of y = weight * n ----
launch mul_col_bf16 grid(ceil_div(tokens * hidden, 256)) block(256) args(gn, dy, weight, i64(hidden), i64(tokens * hidden))
launch mul_bf16 grid(ceil_div(tokens * hidden, 256)) block(256) args(gwp, dy, n, i64(tokens * hidden))
launch col_sum_partial grid(ceil_div(hidden, 32), 64) block(32, 8) args(gwpart, gwp, i32(tokens / 64), i32(hidden))
launch col_sum_final grid(ceil_div(hidden, 32), 1) block(32, 8) args(dweight, gwpart, i32(64), i32(hidden))
# ---- backward of .to(bf16), of hf * r, of rsqrt, of mean, of pow(2) ----
launch to_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(ghr, gn, i64(tokens * hidden))
launch mul_row_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(gh1, ghr, rs, i64(hidden), i64(tokens * hidden))
launch mul_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(ghh, ghr, hf, i64(tokens * hidden))
launch row_sum grid(tokens) block(256) args(gr, ghh, i32(hidden))
launch rsqrt_backward grid(ceil_div(tokens, 256)) block(256) args(gv, gr, rs, i64(tokens))
launch mean_backward grid(ceil_div(tokens * hidden, 256)) block(256) args(gq, gv, i64(hidden), i64(tokens * hidden))
launch scale_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(h2, hf, f32(2.0), i64(tokens * hidden))
launch mul_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(gh2, gq, h2, i64(tokens * hidden))
# autograd accumulation into hf, then backward of h.to(float32): dh = bf16(grad_h1 + grad_h2)
launch add_f32 grid(ceil_div(tokens * hidden, 256)) block(256) args(gh, gh1, gh2, i64(tokens * hidden))
launch to_bf16 grid(ceil_div(tokens * hidden, 256)) block(256) args(dh, gh, i64(tokens * hidden))
# ---- embedding backward: fp32 accumulation over duplicate ids, each row rounded once to bf16 ----
launch embedding_scatter_add grid(ceil_div(tokens * hidden, 256)) block(256) args(acc, dh, ids, i64(hidden), i64(tokens * hidden))
launch to_bf16 grid(ceil_div(vocab * hidden, 256)) block(256) args(dembedding, acc, i64(vocab * hidden))
*/
