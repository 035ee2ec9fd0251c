// The float64 anchor: the reconstructed backward exact in double, no rounding points. With
// n = hidden_states_fp32 * rstd and g = grad_output * norm_weight, per token t:
//   grad_hidden[t] = rstd[t] * (g[t] - n[t] * mean(g[t] * n[t])),
//   grad_embedding[v] = sum over tokens t with input_ids[t] = v of grad_hidden[t] (0 if none),
//   grad_weight = sum over tokens of grad_output * n.
#include "mkb_ops.cuh"

// dot[t] = mean over the row of g * n
MKB_ROW_REDUCE(anchor_dot, double, double, mkb_ops::sum_op,
               (const bf16 *go, const float *hs, const float *rstd, const bf16 *w),
               f64(go[r * cols + c]) * f64(w[c]) * f64(hs[r * cols + c]) * f64(rstd[r]), acc / cols)
// every row of the table gradient starts at zero
MKB_MAP(anchor_fill, double, (double value), value)

// grad_embedding[input_ids[t], c] += grad_hidden[t, c] in double (a scatter-add: no block fits)
extern "C" __global__ void anchor_scatter(double *__restrict__ table, const bf16 *__restrict__ go,
                                          const long long *__restrict__ ids, const float *__restrict__ hs,
                                          const float *__restrict__ rstd, const bf16 *__restrict__ w,
                                          const double *__restrict__ dot, long long width, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long t = i / width, c = i % width;
    const double r = f64(rstd[t]);
    const double gh = r * (f64(go[i]) * f64(w[c]) - f64(hs[i]) * r * dot[t]);
    atomicAdd(&table[ids[t] * width + c], gh);
  }
}

// grad_weight: partial sums of grad_output * n over `rows` consecutive tokens per batch b, then their sum
MKB_COL_REDUCE(anchor_gw_partial, double, double, mkb_ops::sum_op, (const bf16 *go, const float *hs, const float *rstd),
               f64(go[((long long)b * rows + r) * cols + c]) * f64(hs[((long long)b * rows + r) * cols + c]) *
                   f64(rstd[(long long)b * rows + r]),
               acc)
MKB_COL_REDUCE(anchor_gw_final, double, double, mkb_ops::sum_op, (const double *a), a[(long long)r * cols + c], acc)

/* mkb:plan
# tokens = batch_size * seq_len = 16384 = 64 batches x 256 rows for the column sum (exact division).
scratch dot fp64[batch_size * seq_len]
scratch gwpart fp64[64 * hidden_size]
launch anchor_dot grid(batch_size * seq_len) block(256) args(dot, grad_output, hidden_states_fp32, rstd, norm_weight, i32(hidden_size))
launch anchor_fill grid(ceil_div(vocab_size * hidden_size, 1024)) block(256) args(grad_embedding, f64(0), i64(vocab_size * hidden_size))
launch anchor_scatter grid(ceil_div(batch_size * seq_len * hidden_size, 256)) block(256)
  args(grad_embedding, grad_output, input_ids, hidden_states_fp32, rstd, norm_weight, dot, i64(hidden_size),
       i64(batch_size * seq_len * hidden_size))
launch anchor_gw_partial grid(ceil_div(hidden_size, 32), 64) block(32, 8)
  args(gwpart, grad_output, hidden_states_fp32, rstd, i32(batch_size * seq_len / 64), i32(hidden_size))
launch anchor_gw_final grid(ceil_div(hidden_size, 32), 1) block(32, 8) args(grad_weight, gwpart, i32(64), i32(hidden_size))
*/
