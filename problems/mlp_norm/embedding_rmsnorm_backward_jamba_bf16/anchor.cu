// The float64 anchor: the same semantics with every intermediate exact in double and no rounding
// points. With h = embedding[ids[t]], g = dy * weight, r = 1 / sqrt(mean(h^2) + eps), c = sum_i g_i h_i:
//   dh = r * g - h * r^3 * c / hidden,  dembedding[v] = sum over tokens t with ids[t] = v of dh[t],
//   dweight = sum over tokens of dy * h * r.
#include "mkb_ops.cuh"

// mean of h^2 per token row
MKB_ROW_REDUCE(anchor_mean_square, double, double, mkb_ops::sum_op, (const bf16 *table, const int *ids),
               f64(table[(long long)ids[r] * cols + c]) * f64(table[(long long)ids[r] * cols + c]), acc / cols)
// r = 1 / sqrt(mean + eps)
MKB_MAP(anchor_rstd, double, (const double *ms, double eps), 1.0 / sqrt(ms[i] + eps))
// c = sum over the row of dy * weight * h
MKB_ROW_REDUCE(anchor_dot, double, double, mkb_ops::sum_op,
               (const bf16 *table, const int *ids, const bf16 *dy, const bf16 *w),
               f64(dy[r * cols + c]) * f64(w[c]) * f64(table[(long long)ids[r] * cols + c]), acc)
// every row of the table gradient starts at zero
MKB_MAP(anchor_fill, double, (double value), value)

// dembedding[ids[t], c] += dh[t, c] in double (a scatter-add: no block fits)
extern "C" __global__ void anchor_scatter_dh(double *__restrict__ dtable, const bf16 *__restrict__ table,
                                             const int *__restrict__ ids, const bf16 *__restrict__ dy,
                                             const bf16 *__restrict__ w, const double *__restrict__ rs,
                                             const double *__restrict__ dot, long long width, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long t = i / width, c = i % width;
    const long long src = (long long)ids[t] * width + c;
    const double r = rs[t];
    const double dh = r * f64(dy[i]) * f64(w[c]) - f64(table[src]) * r * r * r * dot[t] / (double)width;
    atomicAdd(&dtable[src], dh);
  }
}

// dweight: partial sums of dy * h * r over `rows` consecutive tokens per batch b, then their sum
MKB_COL_REDUCE(anchor_dw_partial, double, double, mkb_ops::sum_op,
               (const bf16 *table, const int *ids, const bf16 *dy, const double *rs),
               f64(dy[((long long)b * rows + r) * cols + c]) *
                   f64(table[(long long)ids[(long long)b * rows + r] * cols + c]) * rs[(long long)b * rows + r],
               acc)
MKB_COL_REDUCE(anchor_dw_final, double, double, mkb_ops::sum_op, (const double *a), a[(long long)r * cols + c], acc)

/* mkb:plan
# tokens = 32768 = 64 batches x 512 rows (exact division)
scratch ms fp64[tokens]
scratch rs fp64[tokens]
scratch dot fp64[tokens]
scratch dwpart fp64[64 * hidden]
launch anchor_mean_square grid(tokens) block(256) args(ms, embedding, ids, i32(hidden))
launch anchor_rstd grid(ceil_div(tokens, 256)) block(256) args(rs, ms, f64(eps), i64(tokens))
launch anchor_dot grid(tokens) block(256) args(dot, embedding, ids, dy, weight, i32(hidden))
launch anchor_fill grid(ceil_div(vocab * hidden, 256)) block(256) args(dembedding, f64(0), i64(vocab * hidden))
launch anchor_scatter_dh grid(ceil_div(tokens * hidden, 256)) block(256)
  args(dembedding, embedding, ids, dy, weight, rs, dot, i64(hidden), i64(tokens * hidden))
launch anchor_dw_partial grid(ceil_div(hidden, 32), 64) block(32, 8) args(dwpart, embedding, ids, dy, rs, i32(tokens / 64), i32(hidden))
launch anchor_dw_final grid(ceil_div(hidden, 32), 1) block(32, 8) args(dweight, dwpart, i32(64), i32(hidden))
*/
