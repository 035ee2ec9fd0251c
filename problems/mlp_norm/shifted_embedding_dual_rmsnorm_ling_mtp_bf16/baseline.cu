// The unfused baseline: the eager PyTorch sequence, one launch per operation. Each RMSNorm is the eight
// eager operations of the Llama-form RMSNorm (to fp32, pow, mean, + eps, rsqrt, *, to bf16, weight *) with
// fp32 intermediates in memory; eh_proj is a cuBLAS matmul step rounding once to bf16.
#include "mkb_ops.cuh"

// shifted = torch.roll(input_ids, -1, dims=-1) (int64)
extern "C" __global__ void roll_left(long long *out, const long long *ids, int seq, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = ids[(i / seq) * seq + (i % seq + 1) % seq];
}
// shifted[:, -1] = 0: a strided column write
extern "C" __global__ void fill_last(long long *shifted, int seq, int batch) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < batch) shifted[(long long)b * seq + seq - 1] = 0;
}
// e = word_embeddings[shifted]
MKB_MAP(embed_rows, bf16, (const bf16 *table, const long long *ids, int cols),
        f32(table[ids[i / cols] * cols + i % cols]))
// the RMSNorm, one eager operation each
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
scratch shifted int64[batch_size * seq_len]
scratch e bf16[batch_size * seq_len * hidden_size]
scratch xf fp32[batch_size * seq_len * hidden_size]
scratch q fp32[batch_size * seq_len * hidden_size]
scratch ms fp32[batch_size * seq_len]
scratch ve fp32[batch_size * seq_len]
scratch r fp32[batch_size * seq_len]
scratch xs fp32[batch_size * seq_len * hidden_size]
scratch nb bf16[batch_size * seq_len * hidden_size]
scratch en bf16[batch_size * seq_len * hidden_size]
scratch hn bf16[batch_size * seq_len * hidden_size]
scratch cat_buf bf16[batch_size * seq_len * concat_size]
launch roll_left grid(ceil_div(batch_size * seq_len, 256)) block(256)
  args(shifted, input_ids, i32(seq_len), i64(batch_size * seq_len))
launch fill_last grid(ceil_div(batch_size, 256)) block(256) args(shifted, i32(seq_len), i32(batch_size))
launch embed_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(e, word_embeddings, shifted, i32(hidden_size), i64(batch_size * seq_len * hidden_size))
# enorm(e)
launch to_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xf, e, i64(batch_size * seq_len * hidden_size))
launch square grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(q, xf, i64(batch_size * seq_len * hidden_size))
launch row_mean grid(batch_size * seq_len) block(256) args(ms, q, i32(hidden_size))
launch add_scalar grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(ve, ms, f32(rms_norm_eps), i64(batch_size * seq_len))
launch rsqrt_f32 grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(r, ve, i64(batch_size * seq_len))
launch mul_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(xs, xf, r, i32(hidden_size), i64(batch_size * seq_len * hidden_size))
launch to_bf16 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(nb, xs, i64(batch_size * seq_len * hidden_size))
launch mul_weight grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(en, nb, enorm_weight, i32(hidden_size), i64(batch_size * seq_len * hidden_size))
# hnorm(hidden_states)
launch to_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(xf, hidden_states, i64(batch_size * seq_len * hidden_size))
launch square grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(q, xf, i64(batch_size * seq_len * hidden_size))
launch row_mean grid(batch_size * seq_len) block(256) args(ms, q, i32(hidden_size))
launch add_scalar grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(ve, ms, f32(rms_norm_eps), i64(batch_size * seq_len))
launch rsqrt_f32 grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(r, ve, i64(batch_size * seq_len))
launch mul_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(xs, xf, r, i32(hidden_size), i64(batch_size * seq_len * hidden_size))
launch to_bf16 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(nb, xs, i64(batch_size * seq_len * hidden_size))
launch mul_weight grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(hn, nb, hnorm_weight, i32(hidden_size), i64(batch_size * seq_len * hidden_size))
launch cat2 grid(ceil_div(batch_size * seq_len * concat_size, 1024)) block(256)
  args(cat_buf, en, hn, i32(hidden_size), i64(batch_size * seq_len * concat_size))
matmul c(output) a(cat_buf) b(eh_proj_weight) m(batch_size * seq_len) n(hidden_size) k(concat_size) transpose_b
*/
