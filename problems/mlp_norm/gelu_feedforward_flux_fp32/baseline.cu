// The unfused eager baseline: F.linear (an SGEMM through the plan's matmul step, then the bias add),
// GELU (tanh), F.linear again. Every intermediate is an fp32 tensor in memory.
#include "mkb_ops.cuh"

// h = p + b1 (bias broadcast over rows)
MKB_MAP(add_bias, float, (const float *p, const float *bias, int cols), f32(p[i]) + f32(bias[i % cols]))
// a = gelu(h, approximate="tanh")
MKB_MAP(gelu_tanh, float, (const float *h), mkb_gelu_tanh(f32(h[i])))

/* mkb:plan
scratch p fp32[tokens * ffn]
scratch h fp32[tokens * ffn]
scratch a fp32[tokens * ffn]
scratch q fp32[tokens * hidden]
matmul c(p) a(x) b(w1) m(tokens) n(ffn) k(hidden) transpose_b
launch add_bias grid(ceil_div(tokens * ffn, 256)) block(256) args(h, p, b1, i32(ffn), i64(tokens * ffn))
launch gelu_tanh grid(ceil_div(tokens * ffn, 256)) block(256) args(a, h, i64(tokens * ffn))
matmul c(q) a(a) b(w2) m(tokens) n(hidden) k(ffn) transpose_b
launch add_bias grid(ceil_div(tokens * hidden, 256)) block(256) args(y, q, b2, i32(hidden), i64(tokens * hidden))
*/
