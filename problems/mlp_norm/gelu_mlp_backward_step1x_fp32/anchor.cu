// The float64 anchor of the MLP backward: inputs widened to double, every GEMM in double (the plan's
// matmul step on fp64 scratch), GELU, its derivative and the column sums in double; no rounding.
#include "mkb_ops.cuh"

MKB_MAP(widen, double, (const float *v), f64(v[i]))
MKB_MAP(gelu_tanh, double, (const float *h), mkb_gelu_tanh(f64(h[i])))
MKB_MAP(gelu_tanh_backward, double, (const double *da, const float *h), da[i] * mkb_gelu_tanh_grad(f64(h[i])))
MKB_COL_REDUCE(column_sum_f32, double, double, mkb_ops::sum_op, (const float *g), f64(g[(long long)r * cols + c]), acc)
MKB_COL_REDUCE(column_sum_f64, double, double, mkb_ops::sum_op, (const double *g), g[(long long)r * cols + c], acc)

/* mkb:plan
scratch x64 fp64[tokens * hidden]
scratch dy64 fp64[tokens * hidden]
scratch w1_64 fp64[ffn * hidden]
scratch w2_64 fp64[hidden * ffn]
scratch a fp64[tokens * ffn]
scratch da fp64[tokens * ffn]
scratch dh fp64[tokens * ffn]
launch widen grid(ceil_div(tokens * hidden, 256)) block(256) args(x64, x, i64(tokens * hidden))
launch widen grid(ceil_div(tokens * hidden, 256)) block(256) args(dy64, dy, i64(tokens * hidden))
launch widen grid(ceil_div(ffn * hidden, 256)) block(256) args(w1_64, w1, i64(ffn * hidden))
launch widen grid(ceil_div(hidden * ffn, 256)) block(256) args(w2_64, w2, i64(hidden * ffn))
launch gelu_tanh grid(ceil_div(tokens * ffn, 256)) block(256) args(a, h, i64(tokens * ffn))
matmul c(dw2) a(dy64) b(a) m(hidden) n(ffn) k(tokens) transpose_a
launch column_sum_f32 grid(ceil_div(hidden, 32), 1) block(32, 8) args(db2, dy, i32(tokens), i32(hidden))
matmul c(da) a(dy64) b(w2_64) m(tokens) n(ffn) k(hidden)
launch gelu_tanh_backward grid(ceil_div(tokens * ffn, 256)) block(256) args(dh, da, h, i64(tokens * ffn))
matmul c(dw1) a(dh) b(x64) m(ffn) n(hidden) k(tokens) transpose_a
launch column_sum_f64 grid(ceil_div(ffn, 32), 1) block(32, 8) args(db1, dh, i32(tokens), i32(ffn))
matmul c(dx) a(dh) b(w1_64) m(tokens) n(hidden) k(ffn)
*/
