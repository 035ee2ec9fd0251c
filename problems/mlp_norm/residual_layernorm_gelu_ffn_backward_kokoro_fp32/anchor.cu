// The float64 anchor: forward recompute and backward with every intermediate in double and no
// rounding points. Inputs are widened to fp64 scratch copies for the fp64 matmul steps; the GELU and
// its derivative are evaluated in closed form.
#include "mkb_ops.cuh"

MKB_MAP(widen, double, (const float *v), f64(v[i]))
MKB_MAP(up_act, double, (const double *h, const float *bias, int cols), mkb_gelu_tanh(h[i] + f64(bias[i % cols])))
MKB_MAP(up_grad, double, (const double *h, const float *bias, int cols), mkb_gelu_tanh_grad(h[i] + f64(bias[i % cols])))
MKB_MAP(down_z, double, (const double *f, const float *bias, const float *x, int cols),
        f64(x[i]) + (f[i] + f64(bias[i % cols])))
MKB_ROW_REDUCE(row_mean, double, double, mkb_ops::sum_op, (const double *z), z[r * cols + c], acc / cols)
MKB_ROW_REDUCE(row_rstd, double, double, mkb_ops::sum_op, (const double *z, const double *mean, double eps),
               (z[r * cols + c] - mean[r]) * (z[r * cols + c] - mean[r]), 1.0 / sqrt(acc / cols + eps))
MKB_ROW_REDUCE(row_sum_g, double, double, mkb_ops::sum_op, (const float *dy, const float *w),
               f64(dy[r * cols + c]) * f64(w[c]), acc)
MKB_ROW_REDUCE(row_sum_gz, double, double, mkb_ops::sum_op,
               (const float *dy, const float *w, const double *z, const double *mean, const double *rstd),
               f64(dy[r * cols + c]) * f64(w[c]) * ((z[r * cols + c] - mean[r]) * rstd[r]), acc)
MKB_MAP(ln_dz, double,
        (const float *dy, const float *w, const double *z, const double *mean, const double *rstd, const double *sg,
         const double *sgz, int cols),
        rstd[i / cols] * (f64(dy[i]) * f64(w[i % cols]) - sg[i / cols] / cols -
                          (z[i] - mean[i / cols]) * rstd[i / cols] * (sgz[i / cols] / cols)))
MKB_COL_REDUCE(col_sum_dy_zhat, double, double, mkb_ops::sum_op,
               (const float *dy, const double *z, const double *mean, const double *rstd),
               f64(dy[(long long)r * cols + c]) * ((z[(long long)r * cols + c] - mean[r]) * rstd[r]), acc)
MKB_COL_REDUCE(col_sum_f, double, double, mkb_ops::sum_op, (const float *m), f64(m[(long long)r * cols + c]), acc)
MKB_COL_REDUCE(col_sum_d, double, double, mkb_ops::sum_op, (const double *m), m[(long long)r * cols + c], acc)
MKB_MAP(mul_d, double, (const double *a, const double *b), a[i] * b[i])
MKB_MAP(add_d, double, (const double *a, const double *b), a[i] + b[i])
MKB_MAP(copy_d, double, (const double *a), a[i])

/* mkb:plan
scratch xd fp64[tokens * hidden]
scratch w1d fp64[inter * hidden]
scratch w2d fp64[hidden * inter]
scratch h fp64[tokens * inter]
scratch act fp64[tokens * inter]
scratch gp fp64[tokens * inter]
scratch f fp64[tokens * hidden]
scratch z fp64[tokens * hidden]
scratch mean fp64[tokens]
scratch rstd fp64[tokens]
scratch sg fp64[tokens]
scratch sgz fp64[tokens]
scratch dz fp64[tokens * hidden]
scratch da fp64[tokens * inter]
scratch dh fp64[tokens * inter]
scratch dxf fp64[tokens * hidden]
scratch dw1d fp64[inter * hidden]
scratch dw2d fp64[hidden * inter]
launch widen grid(ceil_div(tokens * hidden, 256)) block(256) args(xd, x, i64(tokens * hidden))
launch widen grid(ceil_div(inter * hidden, 256)) block(256) args(w1d, W1, i64(inter * hidden))
launch widen grid(ceil_div(hidden * inter, 256)) block(256) args(w2d, W2, i64(hidden * inter))
matmul c(h) a(xd) b(w1d) m(tokens) n(inter) k(hidden) transpose_b
launch up_act grid(ceil_div(tokens * inter, 256)) block(256) args(act, h, b1, i32(inter), i64(tokens * inter))
launch up_grad grid(ceil_div(tokens * inter, 256)) block(256) args(gp, h, b1, i32(inter), i64(tokens * inter))
matmul c(f) a(act) b(w2d) m(tokens) n(hidden) k(inter) transpose_b
launch down_z grid(ceil_div(tokens * hidden, 256)) block(256) args(z, f, b2, x, i32(hidden), i64(tokens * hidden))
launch row_mean grid(tokens) block(256) args(mean, z, i32(hidden))
launch row_rstd grid(tokens) block(256) args(rstd, z, mean, f64(eps), i32(hidden))
launch row_sum_g grid(tokens) block(256) args(sg, dy, ln_weight, i32(hidden))
launch row_sum_gz grid(tokens) block(256) args(sgz, dy, ln_weight, z, mean, rstd, i32(hidden))
launch ln_dz grid(ceil_div(tokens * hidden, 256)) block(256)
  args(dz, dy, ln_weight, z, mean, rstd, sg, sgz, i32(hidden), i64(tokens * hidden))
launch col_sum_dy_zhat grid(ceil_div(hidden, 32), 1) block(32, 8) args(dln_weight, dy, z, mean, rstd, i32(tokens), i32(hidden))
launch col_sum_f grid(ceil_div(hidden, 32), 1) block(32, 8) args(dln_bias, dy, i32(tokens), i32(hidden))
launch col_sum_d grid(ceil_div(hidden, 32), 1) block(32, 8) args(db2, dz, i32(tokens), i32(hidden))
matmul c(da) a(dz) b(w2d) m(tokens) n(inter) k(hidden)
matmul c(dw2d) a(dz) b(act) m(hidden) n(inter) k(tokens) transpose_a
launch copy_d grid(ceil_div(hidden * inter, 256)) block(256) args(dW2, dw2d, i64(hidden * inter))
launch mul_d grid(ceil_div(tokens * inter, 256)) block(256) args(dh, da, gp, i64(tokens * inter))
launch col_sum_d grid(ceil_div(inter, 32), 1) block(32, 8) args(db1, dh, i32(tokens), i32(inter))
matmul c(dw1d) a(dh) b(xd) m(inter) n(hidden) k(tokens) transpose_a
launch copy_d grid(ceil_div(inter * hidden, 256)) block(256) args(dW1, dw1d, i64(inter * hidden))
matmul c(dxf) a(dh) b(w1d) m(tokens) n(hidden) k(inter)
launch add_d grid(ceil_div(tokens * hidden, 256)) block(256) args(dx, dz, dxf, i64(tokens * hidden))
*/
