// The unfused baseline: the eager PyTorch sequence, one launch per operation. Each RMSNorm is the eight
// eager operations of BailingMoeV2RMSNorm (to fp32, pow, mean, + eps, rsqrt, *, to bf16, weight *) with
// fp32 intermediates in memory; eh_proj is a cuBLAS matmul step rounding once to bf16.
#include "mkb_ops.cuh"

// rolled = torch.roll(input_ids, -1, dims=-1)
MKB_MAP(roll_left, int, (const int *ids, int seq), ids[(i / seq) * seq + (i % seq + 1) % seq])
// rolled[:, -1] = 0: a strided column write that no MKB_MAP (contiguous output) expresses
extern "C" __global__ void fill_last(int *rolled, int seq, int batch) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < batch) rolled[(long long)b * seq + seq - 1] = 0;
}
// e = embedding[rolled]
MKB_MAP(embed_rows, bf16, (const bf16 *table, const int *ids, int cols),
        f32(table[(long long)ids[i / cols] * cols + i % cols]))
// BailingMoeV2RMSNorm, one eager operation each
MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
MKB_MAP(square, float, (const float *x), x[i] * x[i])
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *q), q[r * cols + c], acc / cols)
MKB_MAP(add_scalar, float, (const float *v, float s), v[i] + s)
MKB_MAP(rsqrt_f32, float, (const float *v), rsqrtf(v[i]))
MKB_MAP(mul_rows, float, (const float *x, const float *r, int cols), x[i] * r[i / cols])
MKB_MAP(to_bf16, bf16, (const float *x), x[i])
MKB_MAP(mul_weight, bf16, (const bf16 *x, const bf16 *w, int cols), f32(w[i % cols]) * f32(x[i]))
// torch.cat([a, b], dim=-1) of two [rows, cols] tensors
MKB_MAP(cat2, bf16, (const bf16 *a, const bf16 *b, int cols),
        i % (2 * cols) < cols ? f32(a[(i / (2 * cols)) * cols + i % (2 * cols)])
                              : f32(b[(i / (2 * cols)) * cols + i % (2 * cols) - cols]))

/* mkb:plan
scratch rolled int32[batch * seq]
scratch e bf16[batch * seq * hidden]
scratch xf fp32[batch * seq * hidden]
scratch q fp32[batch * seq * hidden]
scratch ms fp32[batch * seq]
scratch ve fp32[batch * seq]
scratch r fp32[batch * seq]
scratch xs fp32[batch * seq * hidden]
scratch nb bf16[batch * seq * hidden]
scratch en bf16[batch * seq * hidden]
scratch hn bf16[batch * seq * hidden]
scratch cat_buf bf16[batch * seq * 2 * hidden]
launch roll_left grid(ceil_div(batch * seq, 256)) block(256) args(rolled, input_ids, i32(seq), i64(batch * seq))
launch fill_last grid(ceil_div(batch, 256)) block(256) args(rolled, i32(seq), i32(batch))
launch embed_rows grid(ceil_div(batch * seq * hidden, 256)) block(256)
  args(e, embedding, rolled, i32(hidden), i64(batch * seq * hidden))
# enorm(e)
launch to_f32 grid(ceil_div(batch * seq * hidden, 256)) block(256) args(xf, e, i64(batch * seq * hidden))
launch square grid(ceil_div(batch * seq * hidden, 256)) block(256) args(q, xf, i64(batch * seq * hidden))
launch row_mean grid(batch * seq) block(256) args(ms, q, i32(hidden))
launch add_scalar grid(ceil_div(batch * seq, 256)) block(256) args(ve, ms, f32(eps), i64(batch * seq))
launch rsqrt_f32 grid(ceil_div(batch * seq, 256)) block(256) args(r, ve, i64(batch * seq))
launch mul_rows grid(ceil_div(batch * seq * hidden, 256)) block(256) args(xs, xf, r, i32(hidden), i64(batch * seq * hidden))
launch to_bf16 grid(ceil_div(batch * seq * hidden, 256)) block(256) args(nb, xs, i64(batch * seq * hidden))
launch mul_weight grid(ceil_div(batch * seq * hidden, 256)) block(256)
  args(en, nb, enorm_weight, i32(hidden), i64(batch * seq * hidden))
# hnorm(hidden_states)
launch to_f32 grid(ceil_div(batch * seq * hidden, 256)) block(256) args(xf, hidden_states, i64(batch * seq * hidden))
launch square grid(ceil_div(batch * seq * hidden, 256)) block(256) args(q, xf, i64(batch * seq * hidden))
launch row_mean grid(batch * seq) block(256) args(ms, q, i32(hidden))
launch add_scalar grid(ceil_div(batch * seq, 256)) block(256) args(ve, ms, f32(eps), i64(batch * seq))
launch rsqrt_f32 grid(ceil_div(batch * seq, 256)) block(256) args(r, ve, i64(batch * seq))
launch mul_rows grid(ceil_div(batch * seq * hidden, 256)) block(256) args(xs, xf, r, i32(hidden), i64(batch * seq * hidden))
launch to_bf16 grid(ceil_div(batch * seq * hidden, 256)) block(256) args(nb, xs, i64(batch * seq * hidden))
launch mul_weight grid(ceil_div(batch * seq * hidden, 256)) block(256)
  args(hn, nb, hnorm_weight, i32(hidden), i64(batch * seq * hidden))
launch cat2 grid(ceil_div(batch * seq * 2 * hidden, 256)) block(256)
  args(cat_buf, en, hn, i32(hidden), i64(batch * seq * 2 * hidden))
matmul c(y) a(cat_buf) b(eh_proj_weight) m(batch * seq) n(hidden) k(2 * hidden) transpose_b
*/
