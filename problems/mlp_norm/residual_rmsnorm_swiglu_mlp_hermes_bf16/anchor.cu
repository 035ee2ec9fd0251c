// The float64 anchor: the same semantics with every intermediate exact in double and no rounding
// points. Inputs are read at their dtypes; the weights are cast to fp64 scratch for the fp64 `matmul`
// steps (about 21 GB of fp64 copies; 35 GB of scratch in all). The output is an fp64 buffer. Rows: T = batch_size * seq_len.
#include "mkb_ops.cuh"

// s = hidden_states + residual (exact in double)
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
scratch s64 fp64[batch_size * seq_len * hidden_size]
scratch inv fp64[batch_size * seq_len]
scratch n64 fp64[batch_size * seq_len * hidden_size]
scratch wg64 fp64[intermediate_size * hidden_size]
scratch wu64 fp64[intermediate_size * hidden_size]
scratch wd64 fp64[hidden_size * intermediate_size]
scratch g64 fp64[batch_size * seq_len * intermediate_size]
scratch u64 fp64[batch_size * seq_len * intermediate_size]
scratch h64 fp64[batch_size * seq_len * intermediate_size]
launch add_residual64 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(s64, hidden_states, residual, i64(batch_size * seq_len * hidden_size))
launch inv_rms64 grid(batch_size * seq_len) block(256) args(inv, s64, f64(eps), i32(hidden_size))
launch normalize64 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(n64, s64, inv, norm_weight, i32(hidden_size), i64(batch_size * seq_len * hidden_size))
launch cast64 grid(ceil_div(intermediate_size * hidden_size, 1024)) block(256) args(wg64, gate_weight, i64(intermediate_size * hidden_size))
launch cast64 grid(ceil_div(intermediate_size * hidden_size, 1024)) block(256) args(wu64, up_weight, i64(intermediate_size * hidden_size))
launch cast64 grid(ceil_div(hidden_size * intermediate_size, 1024)) block(256) args(wd64, down_weight, i64(hidden_size * intermediate_size))
matmul c(g64) a(n64) b(wg64) m(batch_size * seq_len) n(intermediate_size) k(hidden_size) transpose_b
matmul c(u64) a(n64) b(wu64) m(batch_size * seq_len) n(intermediate_size) k(hidden_size) transpose_b
launch swiglu64 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(h64, g64, u64, i64(batch_size * seq_len * intermediate_size))
matmul c(output) a(h64) b(wd64) m(batch_size * seq_len) n(hidden_size) k(intermediate_size) transpose_b
*/
