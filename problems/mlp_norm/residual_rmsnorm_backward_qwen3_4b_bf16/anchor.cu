// The float64 anchor: the same semantics with every intermediate exact in double and no rounding
// points. With s = x + residual, g = dy * weight, r = 1 / sqrt(mean(s^2) + eps), c = sum_i g_i s_i:
//   dx = r * g - s * r^3 * c / hidden + ds,   dweight = sum over tokens of dy * s * r.
#include "mkb_ops.cuh"

// mean of s^2 per row
MKB_ROW_REDUCE(anchor_mean_square, double, double, mkb_ops::sum_op, (const bf16 *x, const bf16 *res),
               (f64(x[r * cols + c]) + f64(res[r * cols + c])) * (f64(x[r * cols + c]) + f64(res[r * cols + c])),
               acc / cols)
// r = 1 / sqrt(mean + eps) per row
MKB_MAP(anchor_rstd, double, (const double *ms, double eps), 1.0 / sqrt(ms[i] + eps))
// c = sum over the row of dy * weight * s
MKB_ROW_REDUCE(anchor_dot, double, double, mkb_ops::sum_op,
               (const bf16 *x, const bf16 *res, const bf16 *dy, const bf16 *w),
               f64(dy[r * cols + c]) * f64(w[c]) * (f64(x[r * cols + c]) + f64(res[r * cols + c])), acc)
// dx = r * g - s * r^3 * c / hidden + ds
MKB_MAP(anchor_dx, double,
        (const bf16 *x, const bf16 *res, const bf16 *dy, const bf16 *w, const bf16 *ds, const double *rs,
         const double *dot, long long width),
        rs[i / width] * f64(dy[i]) * f64(w[i % width]) -
            (f64(x[i]) + f64(res[i])) * rs[i / width] * rs[i / width] * rs[i / width] * dot[i / width] /
                (double)width +
            f64(ds[i]))
// dweight: partial sums of dy * s * r over `rows` consecutive rows per batch b, then their sum
MKB_COL_REDUCE(anchor_dw_partial, double, double, mkb_ops::sum_op,
               (const bf16 *x, const bf16 *res, const bf16 *dy, const double *rs),
               f64(dy[((long long)b * rows + r) * cols + c]) *
                   (f64(x[((long long)b * rows + r) * cols + c]) + f64(res[((long long)b * rows + r) * cols + c])) *
                   rs[(long long)b * rows + r],
               acc)
MKB_COL_REDUCE(anchor_dw_final, double, double, mkb_ops::sum_op, (const double *a), a[(long long)r * cols + c], acc)

/* mkb:plan
# tokens = 32768 = 64 batches x 512 rows (exact division)
scratch ms fp64[tokens]
scratch rs fp64[tokens]
scratch dot fp64[tokens]
scratch dwpart fp64[64 * hidden]
launch anchor_mean_square grid(tokens) block(256) args(ms, x, residual, i32(hidden))
launch anchor_rstd grid(ceil_div(tokens, 256)) block(256) args(rs, ms, f64(eps), i64(tokens))
launch anchor_dot grid(tokens) block(256) args(dot, x, residual, dy, weight, i32(hidden))
launch anchor_dx grid(ceil_div(tokens * hidden, 256)) block(256)
  args(dx, x, residual, dy, weight, ds, rs, dot, i64(hidden), i64(tokens * hidden))
launch anchor_dw_partial grid(ceil_div(hidden, 32), 64) block(32, 8) args(dwpart, x, residual, dy, rs, i32(tokens / 64), i32(hidden))
launch anchor_dw_final grid(ceil_div(hidden, 32), 1) block(32, 8) args(dweight, dwpart, i32(64), i32(hidden))
*/
