// The float64 anchor: the same semantics with every intermediate exact in double and no rounding
// points (the model casts nothing on this path). Inputs are read at their dtypes; the projected streams
// and the weights are cast to fp64 scratch for the fp64 batched `matmul` step. `out` is an fp64 buffer.
#include "mkb_ops.cuh"

// bf16 -> fp64 (streams and weights)
MKB_MAP(cast64, double, (const bf16 *x), f64(x[i]))
// tm[t] = sqrt(mean_i stream0[t,i]^2)
MKB_ROW_REDUCE(target_magnitude64, double, double, mkb_ops::sum_op, (const bf16 *x),
               f64(x[r * cols + c]) * f64(x[r * cols + c]), sqrt(acc / cols))
// scale[s,t] = tm[t] / sqrt(max(mean_j p[s,t,j]^2, eps))
MKB_ROW_REDUCE(stream_scale64, double, double, mkb_ops::sum_op, (const double *p, const double *tm, int tokens, double eps),
               p[r * cols + c] * p[r * cols + c], tm[r % tokens] / sqrt(fmax(acc / cols, eps)))
// out[t,j] = (stream0[t,j] + sum_s p[s,t,j] * scale[s,t]) / 4
MKB_MAP(collapse64, double, (const bf16 *x0, const double *p, const double *scale, int tokens, int cols, long long slab),
        (f64(x0[i]) + p[i] * scale[i / cols] + p[i + slab] * scale[tokens + i / cols] +
         p[i + 2 * slab] * scale[2 * tokens + i / cols]) / 4.0)

/* mkb:plan
scratch tm fp64[tokens]
scratch x64 fp64[streams * tokens * hidden]
scratch w64 fp64[streams * hidden * hidden]
scratch p64 fp64[streams * tokens * hidden]
scratch scale fp64[streams * tokens]
launch target_magnitude64 grid(tokens) block(256) args(tm, stream0, i32(hidden))
launch cast64 grid(ceil_div(streams * tokens * hidden, 256)) block(256) args(x64, other_streams, i64(streams * tokens * hidden))
launch cast64 grid(ceil_div(streams * hidden * hidden, 256)) block(256) args(w64, unembed_weight, i64(streams * hidden * hidden))
matmul c(p64) a(x64) b(w64) m(tokens) n(hidden) k(hidden) batch(streams) transpose_b
launch stream_scale64 grid(streams * tokens) block(256) args(scale, p64, tm, i32(tokens), f64(eps), i32(hidden))
launch collapse64 grid(ceil_div(tokens * hidden, 256)) block(256)
  args(out, stream0, p64, scale, i32(tokens), i32(hidden), i64(tokens * hidden), i64(tokens * hidden))
*/
