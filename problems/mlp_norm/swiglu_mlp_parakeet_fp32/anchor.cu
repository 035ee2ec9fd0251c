// The float64 anchor: the same module with every intermediate in double and no rounding points.
// Inputs are widened to fp64 scratch copies for the fp64 matmul steps.
#include "mkb_ops.cuh"

MKB_MAP(widen, double, (const float *v), f64(v[i]))
MKB_ROW_REDUCE(ln_mean, double, double, mkb_ops::sum_op, (const float *x), f64(x[r * cols + c]), acc / cols)
MKB_ROW_REDUCE(ln_rstd, double, double, mkb_ops::sum_op, (const float *x, const double *mean, double eps),
               (f64(x[r * cols + c]) - mean[r]) * (f64(x[r * cols + c]) - mean[r]), 1.0 / sqrt(acc / cols + eps))
MKB_MAP(ln_apply, double, (const float *x, const double *mean, const double *rstd, const float *w, const float *b, int cols),
        (f64(x[i]) - mean[i / cols]) * rstd[i / cols] * f64(w[i % cols]) + f64(b[i % cols]))
// silu(h + b1)
MKB_MAP(bias_silu, double, (const double *h, const float *bias, int cols), mkb_silu(h[i] + f64(bias[i % cols])))
// x + 0.5 * (f + b2)
MKB_MAP(bias_half_residual, double, (const double *f, const float *bias, const float *x, int cols),
        f64(x[i]) + 0.5 * (f[i] + f64(bias[i % cols])))

/* mkb:plan
scratch mean fp64[tokens]
scratch rstd fp64[tokens]
scratch xn fp64[tokens * d_model]
scratch w1d fp64[d_ff * d_model]
scratch w2d fp64[d_model * d_ff]
scratch h fp64[tokens * d_ff]
scratch act fp64[tokens * d_ff]
scratch f fp64[tokens * d_model]
launch widen grid(ceil_div(d_ff * d_model, 256)) block(256) args(w1d, W1, i64(d_ff * d_model))
launch widen grid(ceil_div(d_model * d_ff, 256)) block(256) args(w2d, W2, i64(d_model * d_ff))
launch ln_mean grid(tokens) block(256) args(mean, x, i32(d_model))
launch ln_rstd grid(tokens) block(256) args(rstd, x, mean, f64(eps), i32(d_model))
launch ln_apply grid(ceil_div(tokens * d_model, 256)) block(256)
  args(xn, x, mean, rstd, ln_weight, ln_bias, i32(d_model), i64(tokens * d_model))
matmul c(h) a(xn) b(w1d) m(tokens) n(d_ff) k(d_model) transpose_b
launch bias_silu grid(ceil_div(tokens * d_ff, 256)) block(256) args(act, h, b1, i32(d_ff), i64(tokens * d_ff))
matmul c(f) a(act) b(w2d) m(tokens) n(d_model) k(d_ff) transpose_b
launch bias_half_residual grid(ceil_div(tokens * d_model, 256)) block(256)
  args(out, f, b2, x, i32(d_model), i64(tokens * d_model))
*/
