// The unfused baseline: the reconstructed eager RMSNorm backward (reference.md), one launch per eager
// PyTorch operation, fp32 intermediates in memory (compute_dtype = fp32), one rounding per operation.
#include "mkb_ops.cuh"

MKB_MAP(to_f32, float, (const bf16 *a), f32(a[i]))
MKB_MAP(mul_f32_bf16, float, (const float *a, const bf16 *b), a[i] * f32(b[i]))
// a [rows, width] times the weight [width] broadcast over rows
MKB_MAP(mul_col_f32, float, (const float *a, const bf16 *w, long long width), a[i] * f32(w[i % width]))
// n [rows, width] times dot [rows, 1]
MKB_MAP(mul_row_bf16_f32, float, (const bf16 *nm, const float *v, long long width), f32(nm[i]) * v[i / width])
MKB_MAP(sub_f32, float, (const float *a, const float *b), a[i] - b[i])
// rstd [rows, 1] times a [rows, width]
MKB_MAP(row_scale, float, (const bf16 *rstd, const float *a, long long width), f32(rstd[i / width]) * a[i])
MKB_MAP(to_bf16, bf16, (const float *a), a[i])
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *a), a[r * cols + c], acc / cols)
// .sum(dim=(0, 1)) in two stages, as PyTorch splits a long column sum: fp32 partials over `rows`
// consecutive rows per batch b, then their fp32 sum.
MKB_COL_REDUCE(col_sum_partial, float, float, mkb_ops::sum_op, (const float *a),
               a[((long long)b * rows + r) * cols + c], acc)
MKB_COL_REDUCE(col_sum_final, float, float, mkb_ops::sum_op, (const float *a), a[(long long)r * cols + c], acc)

// dx.to(bf16), returned as both gradients: one cast, its result stored to both outputs.
extern "C" __global__ void cast_to_both(bf16 *a, bf16 *b, const float *x, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const bf16 v = mkb_ops::store<bf16>(x[i]);
    a[i] = v;
    b[i] = v;
  }
}

/* mkb:plan
# rows = batch_size * seq_len = 524288 = 512 batches x 1024 rows for the column sum (exact division).
# Three fp32 [rows, hidden] buffers, reused as eager's caching allocator reuses freed blocks.
scratch ta fp32[batch_size * seq_len * hidden_size]
scratch tb fp32[batch_size * seq_len * hidden_size]
scratch tc fp32[batch_size * seq_len * hidden_size]
scratch gwpart fp32[512 * hidden_size]
scratch gw fp32[hidden_size]
scratch dot fp32[batch_size * seq_len]
# dy = grad_output.to(fp32)
launch to_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(ta, grad_output, i64(batch_size * seq_len * hidden_size))
# grad_weight (fp32) = (dy * normalized).sum(dim=(0, 1))
launch mul_f32_bf16 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(tb, ta, normalized, i64(batch_size * seq_len * hidden_size))
launch col_sum_partial grid(ceil_div(hidden_size, 32), 512) block(32, 8)
  args(gwpart, tb, i32(batch_size * seq_len / 512), i32(hidden_size))
launch col_sum_final grid(ceil_div(hidden_size, 32), 1) block(32, 8) args(gw, gwpart, i32(512), i32(hidden_size))
# g = dy * weight
launch mul_col_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(tc, ta, weight, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
# dot = (g * normalized).mean(-1, keepdim=True)
launch mul_f32_bf16 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(tb, tc, normalized, i64(batch_size * seq_len * hidden_size))
launch row_mean grid(batch_size * seq_len) block(256) args(dot, tb, i32(hidden_size))
# dx = rstd * (g - normalized * dot)
launch mul_row_bf16_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(tb, normalized, dot, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
launch sub_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(ta, tc, tb, i64(batch_size * seq_len * hidden_size))
launch row_scale grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(tb, rstd, ta, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
# dx.to(bf16): grad_hidden_states, and grad_residual the same tensor
launch cast_to_both grid(ceil_div(batch_size * seq_len * hidden_size, 256)) block(256)
  args(grad_hidden_states, grad_residual, tb, i64(batch_size * seq_len * hidden_size))
# grad_weight.to(bf16)
launch to_bf16 grid(ceil_div(hidden_size, 1024)) block(256) args(grad_weight, gw, i64(hidden_size))
*/
