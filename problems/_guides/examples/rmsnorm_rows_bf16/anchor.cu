// The float64 anchor: the same semantics in double with no rounding; the output is an fp64 buffer.
#include "mkb_ops.cuh"

MKB_ROW_REDUCE(inv_rms64, double, double, mkb_ops::sum_op, (const bf16 *x, double eps),
               f64(x[(long long)r * cols + c]) * f64(x[(long long)r * cols + c]), 1.0 / sqrt(acc / cols + eps))
MKB_MAP(scale64, double, (const bf16 *x, const double *inv, const bf16 *w, int cols),
        f64(x[i]) * inv[i / cols] * f64(w[i % cols]))

/* mkb:plan
scratch inv fp64[rows]
launch inv_rms64 grid(rows) block(256) args(inv, x, f64(eps), i32(hidden))
launch scale64 grid(ceil_div(rows * hidden, 1024)) block(256) args(y, x, inv, weight, i32(hidden), i64(rows * hidden))
*/
