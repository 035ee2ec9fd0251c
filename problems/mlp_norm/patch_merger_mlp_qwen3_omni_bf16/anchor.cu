// The float64 anchor: LayerNorm (mean, biased variance), the spatial merge (read from grid_thw on the
// device), both linears (matmul steps on fp64 scratch), the biases and the erf GELU, all in double with no
// intermediate rounding.
#include "mkb_ops.cuh"

// The element of `hidden` [patches, cols] that lands at element i of the merged [patches / 4, 4 cols]
// matrix: grids in order; within a grid (t, h, w), merged row (tt, a, b) holds patches (2a, 2b), (2a, 2b+1),
// (2a+1, 2b), (2a+1, 2b+1) of frame tt.
__device__ long long merged_source(long long i, const long long *thw, int grids, int cols) {
  const long long wide = 4LL * cols, mrow = i / wide, j = i % wide, k = j / cols, c = j % cols;
  long long poff = 0;
  for (int g = 0; g < grids; ++g) {
    const long long h = thw[3 * g + 1], w = thw[3 * g + 2], n = thw[3 * g] * h * w;
    if (mrow < (poff + n) / 4) {
      const long long local = mrow - poff / 4, per_t = (h / 2) * (w / 2), tt = local / per_t, rem = local % per_t;
      const long long pi = 2 * (rem / (w / 2)) + k / 2, pj = 2 * (rem % (w / 2)) + k % 2;
      return (poff + tt * h * w + pi * w + pj) * cols + c;
    }
    poff += n;
  }
  return 0;
}

MKB_ROW_REDUCE(row_mean, double, double, mkb_ops::sum_op, (const bf16 *x), f64(x[r * cols + c]), acc / cols)
MKB_ROW_REDUCE(row_rstd, double, double, mkb_ops::sum_op, (const bf16 *x, const double *mean, double eps),
               (f64(x[r * cols + c]) - mean[r]) * (f64(x[r * cols + c]) - mean[r]), 1.0 / sqrt(acc / cols + eps))
// merged[i] = layer_norm(hidden)[merged_source(i)]
MKB_MAP(normalize_merge, double,
        (const bf16 *x, const double *mean, const double *rstd, const bf16 *w, const bf16 *b, const long long *thw, int grids, int cols),
        (f64(x[merged_source(i, thw, grids, cols)]) - mean[merged_source(i, thw, grids, cols) / cols]) *
            rstd[merged_source(i, thw, grids, cols) / cols] * f64(w[merged_source(i, thw, grids, cols) % cols]) +
            f64(b[merged_source(i, thw, grids, cols) % cols]))
MKB_MAP(to_f64, double, (const bf16 *v), f64(v[i]))
// gelu(acc + bias), erf form
MKB_MAP(bias_gelu, double, (const double *acc, const bf16 *bias, int cols), mkb_gelu(acc[i] + f64(bias[i % cols])))
MKB_MAP(add_bias, double, (const double *acc, const bf16 *bias, int cols), acc[i] + f64(bias[i % cols]))

/* mkb:plan
scratch mean fp64[num_patches]
scratch rstd fp64[num_patches]
scratch xn fp64[num_patches * hidden_size]
scratch w1 fp64[hidden_size_expanded * hidden_size_expanded]
scratch acc1 fp64[num_patches / 4 * hidden_size_expanded]
scratch g fp64[num_patches / 4 * hidden_size_expanded]
scratch w2 fp64[out_hidden_size * hidden_size_expanded]
scratch acc2 fp64[num_patches / 4 * out_hidden_size]
launch row_mean grid(num_patches) block(256) args(mean, hidden, i32(hidden_size))
launch row_rstd grid(num_patches) block(256) args(rstd, hidden, mean, f64(eps), i32(hidden_size))
launch normalize_merge grid(ceil_div(num_patches * hidden_size, 1024)) block(256)
  args(xn, hidden, mean, rstd, ln_weight, ln_bias, grid_thw, i32(num_grids), i32(hidden_size), i64(num_patches * hidden_size))
launch to_f64 grid(ceil_div(hidden_size_expanded * hidden_size_expanded, 1024)) block(256)
  args(w1, fc1_weight, i64(hidden_size_expanded * hidden_size_expanded))
matmul c(acc1) a(xn) b(w1) m(num_patches / 4) n(hidden_size_expanded) k(hidden_size_expanded) transpose_b
launch bias_gelu grid(ceil_div(num_patches / 4 * hidden_size_expanded, 1024)) block(256)
  args(g, acc1, fc1_bias, i32(hidden_size_expanded), i64(num_patches / 4 * hidden_size_expanded))
launch to_f64 grid(ceil_div(out_hidden_size * hidden_size_expanded, 1024)) block(256)
  args(w2, fc2_weight, i64(out_hidden_size * hidden_size_expanded))
matmul c(acc2) a(g) b(w2) m(num_patches / 4) n(out_hidden_size) k(hidden_size_expanded) transpose_b
launch add_bias grid(ceil_div(num_patches / 4 * out_hidden_size, 1024)) block(256)
  args(output, acc2, fc2_bias, i32(out_hidden_size), i64(num_patches / 4 * out_hidden_size))
*/
