// The float64 anchor: the same semantics with every intermediate exact in double and no rounding
// points (the model casts nothing on this path). Inputs are read at their dtypes; the weights are cast
// to fp64 scratch for the fp64 `matmul` steps. Outputs y and residual_out are fp64 buffers.
#include "mkb_ops.cuh"

// residual_out = x + residual (exact in double)
MKB_MAP(add_residual64, double, (const bf16 *x, const bf16 *res), f64(x[i]) + f64(res[i]))
// inv[t] = 1 / sqrt(mean_i s[t,i]^2 + eps)
MKB_ROW_REDUCE(inv_rms64, double, double, mkb_ops::sum_op, (const double *s, double eps),
               s[r * cols + c] * s[r * cols + c], 1.0 / sqrt(acc / cols + eps))
// n = s * inv[t] * norm_weight
MKB_MAP(normalize64, double, (const double *s, const double *inv, const bf16 *w, int cols),
        s[i] * inv[i / cols] * f64(w[i % cols]))
// weights to fp64
MKB_MAP(cast64, double, (const bf16 *w), f64(w[i]))
// h = silu(g) * u
MKB_MAP(swiglu64, double, (const double *g, const double *u), mkb_silu(g[i]) * u[i])

/* mkb:plan
scratch inv fp64[tokens]
scratch n64 fp64[tokens * hidden]
scratch wg64 fp64[intermediate * hidden]
scratch wu64 fp64[intermediate * hidden]
scratch wd64 fp64[hidden * intermediate]
scratch g64 fp64[tokens * intermediate]
scratch u64 fp64[tokens * intermediate]
scratch h64 fp64[tokens * intermediate]
launch add_residual64 grid(ceil_div(tokens * hidden, 256)) block(256) args(residual_out, x, residual, i64(tokens * hidden))
launch inv_rms64 grid(tokens) block(256) args(inv, residual_out, f64(eps), i32(hidden))
launch normalize64 grid(ceil_div(tokens * hidden, 256)) block(256) args(n64, residual_out, inv, norm_weight, i32(hidden), i64(tokens * hidden))
launch cast64 grid(ceil_div(intermediate * hidden, 256)) block(256) args(wg64, w_gate, i64(intermediate * hidden))
launch cast64 grid(ceil_div(intermediate * hidden, 256)) block(256) args(wu64, w_up, i64(intermediate * hidden))
launch cast64 grid(ceil_div(hidden * intermediate, 256)) block(256) args(wd64, w_down, i64(hidden * intermediate))
matmul c(g64) a(n64) b(wg64) m(tokens) n(intermediate) k(hidden) transpose_b
matmul c(u64) a(n64) b(wu64) m(tokens) n(intermediate) k(hidden) transpose_b
launch swiglu64 grid(ceil_div(tokens * intermediate, 256)) block(256) args(h64, g64, u64, i64(tokens * intermediate))
matmul c(y) a(h64) b(wd64) m(tokens) n(hidden) k(intermediate) transpose_b
*/
