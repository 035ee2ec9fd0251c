// The unfused eager baseline of the MLP backward: the GELU recompute, each GEMM an SGEMM through the
// plan's matmul step, the GELU backward and the two bias-gradient column sums one launch each. Every
// intermediate is an fp32 tensor in memory.
#include "mkb_ops.cuh"

// a = gelu(h, approximate="tanh")
MKB_MAP(gelu_tanh, float, (const float *h), mkb_gelu_tanh(f32(h[i])))
// dh = gelu_backward(da, h, approximate="tanh")
MKB_MAP(gelu_tanh_backward, float, (const float *da, const float *h), f32(da[i]) * mkb_gelu_tanh_grad(f32(h[i])))
// db[c] = sum over rows of g[r, c]
MKB_COL_REDUCE(column_sum, float, float, mkb_ops::sum_op, (const float *g), f32(g[(long long)r * cols + c]), acc)

/* mkb:plan
scratch a fp32[tokens * ffn]
scratch da fp32[tokens * ffn]
scratch dh fp32[tokens * ffn]
launch gelu_tanh grid(ceil_div(tokens * ffn, 256)) block(256) args(a, h, i64(tokens * ffn))
matmul c(dw2) a(dy) b(a) m(hidden) n(ffn) k(tokens) transpose_a
launch column_sum grid(ceil_div(hidden, 32), 1) block(32, 8) args(db2, dy, i32(tokens), i32(hidden))
matmul c(da) a(dy) b(w2) m(tokens) n(ffn) k(hidden)
launch gelu_tanh_backward grid(ceil_div(tokens * ffn, 256)) block(256) args(dh, da, h, i64(tokens * ffn))
matmul c(dw1) a(dh) b(x) m(ffn) n(hidden) k(tokens) transpose_a
launch column_sum grid(ceil_div(ffn, 32), 1) block(32, 8) args(db1, dh, i32(tokens), i32(ffn))
matmul c(dx) a(dh) b(w1) m(tokens) n(hidden) k(ffn)
*/
