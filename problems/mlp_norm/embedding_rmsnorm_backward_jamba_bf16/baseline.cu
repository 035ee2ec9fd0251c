// The unfused baseline: the reconstructed eager backward of embedding + RMSNorm (reference.md), one
// launch per eager PyTorch operation, fp32 intermediates in memory (compute_dtype = fp32), one rounding
// per operation.
#include "mkb_ops.cuh"

MKB_MAP(to_f32, float, (const bf16 *a), f32(a[i]))
MKB_MAP(to_bf16, bf16, (const float *a), a[i])
MKB_MAP(fill_f32, float, (float v), v)
MKB_MAP(mul_f32, float, (const float *a, const float *b), a[i] * b[i])
MKB_MAP(sub_f32, float, (const float *a, const float *b), a[i] - b[i])
// a [rows, width] times v [rows, 1], and v [rows, 1] times a [rows, width]
MKB_MAP(mul_row_f32, float, (const float *a, const float *v, long long width), a[i] * v[i / width])
MKB_MAP(row_scale, float, (const float *v, const float *a, long long width), v[i / width] * a[i])
// a [rows, width] times w [width] broadcast over rows
MKB_MAP(mul_col_f32, float, (const float *a, const float *w, long long width), a[i] * w[i % width])
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *a), a[r * cols + c], acc / cols)
// .sum(dim=(0, 1)) in two stages, as PyTorch splits a long column sum: fp32 partials over `rows`
// consecutive rows per batch b, then their fp32 sum.
MKB_COL_REDUCE(col_sum_partial, float, float, mkb_ops::sum_op, (const float *a),
               a[((long long)b * rows + r) * cols + c], acc)
MKB_COL_REDUCE(col_sum_final, float, float, mkb_ops::sum_op, (const float *a), a[(long long)r * cols + c], acc)

// index_add_(0, ids, src) on an fp32 table: PyTorch's CUDA kernel adds each source element atomically.
extern "C" __global__ void index_add_rows(float *__restrict__ table, const long long *__restrict__ ids,
                                          const float *__restrict__ src, long long width, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    atomicAdd(&table[ids[i / width] * width + i % width], src[i]);
}

/* mkb:plan
# tokens = batch_size * seq_len = 16384 = 64 batches x 256 rows for the column sum (exact division).
scratch dy fp32[batch_size * seq_len * hidden_size]
scratch nrm fp32[batch_size * seq_len * hidden_size]
scratch prod fp32[batch_size * seq_len * hidden_size]
scratch g fp32[batch_size * seq_len * hidden_size]
scratch gn fp32[batch_size * seq_len * hidden_size]
scratch nd fp32[batch_size * seq_len * hidden_size]
scratch diff fp32[batch_size * seq_len * hidden_size]
scratch gh fp32[batch_size * seq_len * hidden_size]
scratch gwpart fp32[64 * hidden_size]
scratch gw fp32[hidden_size]
scratch wf fp32[hidden_size]
scratch dot fp32[batch_size * seq_len]
scratch table fp32[vocab_size * hidden_size]
# dy = grad_output.to(fp32)
launch to_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(dy, grad_output, i64(batch_size * seq_len * hidden_size))
# normalized = hidden_states_fp32 * rstd
launch mul_row_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(nrm, hidden_states_fp32, rstd, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
# grad_weight (fp32) = (dy * normalized).sum(dim=(0, 1))
launch mul_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(prod, dy, nrm, i64(batch_size * seq_len * hidden_size))
launch col_sum_partial grid(ceil_div(hidden_size, 32), 64) block(32, 8)
  args(gwpart, prod, i32(batch_size * seq_len / 64), i32(hidden_size))
launch col_sum_final grid(ceil_div(hidden_size, 32), 1) block(32, 8) args(gw, gwpart, i32(64), i32(hidden_size))
# g = dy * norm_weight.to(fp32)
launch to_f32 grid(ceil_div(hidden_size, 1024)) block(256) args(wf, norm_weight, i64(hidden_size))
launch mul_col_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(g, dy, wf, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
# dot = (g * normalized).mean(-1, keepdim=True)
launch mul_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(gn, g, nrm, i64(batch_size * seq_len * hidden_size))
launch row_mean grid(batch_size * seq_len) block(256) args(dot, gn, i32(hidden_size))
# grad_hidden = rstd * (g - normalized * dot)
launch mul_row_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(nd, nrm, dot, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
launch sub_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(diff, g, nd, i64(batch_size * seq_len * hidden_size))
launch row_scale grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(gh, rstd, diff, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
# grad_embedding = zeros(vocab, hidden, fp32).index_add_(0, ids, grad_hidden)
launch fill_f32 grid(ceil_div(vocab_size * hidden_size, 1024)) block(256) args(table, f32(0), i64(vocab_size * hidden_size))
launch index_add_rows grid(ceil_div(batch_size * seq_len * hidden_size, 256)) block(256)
  args(table, input_ids, gh, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
# both results .to(bf16)
launch to_bf16 grid(ceil_div(vocab_size * hidden_size, 1024)) block(256) args(grad_embedding, table, i64(vocab_size * hidden_size))
launch to_bf16 grid(ceil_div(hidden_size, 1024)) block(256) args(grad_weight, gw, i64(hidden_size))
*/
