// The float64 anchor: the same semantics with every intermediate exact in double and no rounding points.
// Streams 1 and 2 and their weights are widened to fp64 scratch for the fp64 matmul steps; out is fp64.
#include "mkb_ops.cuh"

MKB_MAP(widen, double, (const bf16 *x, long long offset), f64(x[i + offset]))
// tm[t] = sqrt(mean_i x0[t,i]^2), x0 = hidden_states[0]
MKB_ROW_REDUCE(target_magnitude64, double, double, mkb_ops::sum_op, (const bf16 *x),
               f64(x[(long long)r * cols + c]) * f64(x[(long long)r * cols + c]), sqrt(acc / cols))
// scale[t] = tm[t] / sqrt(max(mean_j p[t,j]^2, eps))
MKB_ROW_REDUCE(stream_scale64, double, double, mkb_ops::sum_op, (const double *p, const double *tm, double eps),
               p[(long long)r * cols + c] * p[(long long)r * cols + c], tm[r] / sqrt(fmax(acc / cols, eps)))
// out = (x0 + p1 * scale1 + p2 * scale2) / 3
MKB_MAP(collapse64, double,
        (const bf16 *x0, const double *p1, const double *s1, const double *p2, const double *s2, int cols),
        (f64(x0[i]) + p1[i] * s1[i / cols] + p2[i] * s2[i / cols]) / 3.0)

/* mkb:plan
scratch tm fp64[batch_size * seq_len]
scratch x64 fp64[batch_size * seq_len * hidden_size]
scratch w64 fp64[hidden_size * hidden_size]
scratch p1 fp64[batch_size * seq_len * hidden_size]
scratch p2 fp64[batch_size * seq_len * hidden_size]
scratch s1 fp64[batch_size * seq_len]
scratch s2 fp64[batch_size * seq_len]
launch target_magnitude64 grid(batch_size * seq_len) block(256) args(tm, hidden_states, i32(hidden_size))
launch widen grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(x64, hidden_states, i64(batch_size * seq_len * hidden_size), i64(batch_size * seq_len * hidden_size))
launch widen grid(ceil_div(hidden_size * hidden_size, 1024)) block(256) args(w64, unembed_weight_1, i64(0), i64(hidden_size * hidden_size))
matmul c(p1) a(x64) b(w64) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b
launch stream_scale64 grid(batch_size * seq_len) block(256) args(s1, p1, tm, f64(eps), i32(hidden_size))
launch widen grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(x64, hidden_states, i64(2 * batch_size * seq_len * hidden_size), i64(batch_size * seq_len * hidden_size))
launch widen grid(ceil_div(hidden_size * hidden_size, 1024)) block(256) args(w64, unembed_weight_2, i64(0), i64(hidden_size * hidden_size))
matmul c(p2) a(x64) b(w64) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b
launch stream_scale64 grid(batch_size * seq_len) block(256) args(s2, p2, tm, f64(eps), i32(hidden_size))
launch collapse64 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(out, hidden_states, p1, s1, p2, s2, i32(hidden_size), i64(batch_size * seq_len * hidden_size))
*/
