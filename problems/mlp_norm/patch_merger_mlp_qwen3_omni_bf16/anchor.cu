// The float64 anchor: LayerNorm, both linears (matmul steps on fp64 scratch), GELU and the bias adds, all in
// double with no intermediate rounding.
#include "mkb_ops.cuh"

// mean[p] and rstd[p] of each 1152-wide patch row
MKB_ROW_REDUCE(row_mean, double, double, mkb_ops::sum_op, (const bf16 *x), f64(x[r * cols + c]), acc / cols)
MKB_ROW_REDUCE(row_rstd, double, double, mkb_ops::sum_op, (const bf16 *x, const double *mean, double eps),
               (f64(x[r * cols + c]) - mean[r]) * (f64(x[r * cols + c]) - mean[r]), 1.0 / sqrt(acc / cols + eps))
// a = (x - mean) * rstd * weight + bias, exactly; row p of [4*merged, hidden] is the same memory as the
// [merged, 4*hidden] view
MKB_MAP(normalize, double, (const bf16 *x, const double *mean, const double *rstd, const bf16 *w, const bf16 *b, int cols),
        (f64(x[i]) - mean[i / cols]) * rstd[i / cols] * f64(w[i % cols]) + f64(b[i % cols]))
MKB_MAP(to_f64, double, (const bf16 *v), f64(v[i]))
// gelu(acc + bias), erf form
MKB_MAP(bias_gelu, double, (const double *acc, const bf16 *bias, int cols), mkb_gelu(acc[i] + f64(bias[i % cols])))
MKB_MAP(add_bias, double, (const double *acc, const bf16 *bias, int cols), acc[i] + f64(bias[i % cols]))

/* mkb:plan
scratch mean fp64[merged * 4]
scratch rstd fp64[merged * 4]
scratch xn fp64[merged * merged_hidden]
scratch w1 fp64[merged_hidden * merged_hidden]
scratch acc1 fp64[merged * merged_hidden]
scratch g fp64[merged * merged_hidden]
scratch w2 fp64[out_hidden * merged_hidden]
scratch acc2 fp64[merged * out_hidden]
launch row_mean grid(merged * 4) block(256) args(mean, x, i32(hidden))
launch row_rstd grid(merged * 4) block(256) args(rstd, x, mean, f64(eps), i32(hidden))
launch normalize grid(ceil_div(merged * merged_hidden, 256)) block(256)
  args(xn, x, mean, rstd, ln_weight, ln_bias, i32(hidden), i64(merged * merged_hidden))
launch to_f64 grid(ceil_div(merged_hidden * merged_hidden, 256)) block(256)
  args(w1, fc1_weight, i64(merged_hidden * merged_hidden))
matmul c(acc1) a(xn) b(w1) m(merged) n(merged_hidden) k(merged_hidden) transpose_b
launch bias_gelu grid(ceil_div(merged * merged_hidden, 256)) block(256)
  args(g, acc1, fc1_bias, i32(merged_hidden), i64(merged * merged_hidden))
launch to_f64 grid(ceil_div(out_hidden * merged_hidden, 256)) block(256)
  args(w2, fc2_weight, i64(out_hidden * merged_hidden))
matmul c(acc2) a(g) b(w2) m(merged) n(out_hidden) k(merged_hidden) transpose_b
launch add_bias grid(ceil_div(merged * out_hidden, 256)) block(256)
  args(out, acc2, fc2_bias, i32(out_hidden), i64(merged * out_hidden))
*/
