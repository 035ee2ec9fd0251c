// The eager baseline: F.linear(x, w1, b1) is one addmm on the flattened [tokens, hidden_dim] input:
// the bias broadcast into the output, then an SGEMM with beta = 1 (the plan's matmul step with
// accumulate), so acc + bias is rounded to fp32 once, as cuBLAS's bias epilogue rounds it; then
// F.gelu(approximate="tanh") and the second F.linear the same way. Every intermediate is an fp32 tensor.
#include "mkb_ops.cuh"

// out[r, c] = bias[c]: the bias broadcast over rows, the addmm's starting value
MKB_MAP(broadcast_bias, float, (const float *bias, int cols), f32(bias[i % cols]))
// a = gelu(h, approximate="tanh")
MKB_MAP(gelu_tanh, float, (const float *h), mkb_gelu_tanh(f32(h[i])))

/* mkb:plan
scratch h fp32[batch_size * seq_len * mlp_hidden_dim]
scratch a fp32[batch_size * seq_len * mlp_hidden_dim]
launch broadcast_bias grid(ceil_div(batch_size * seq_len * mlp_hidden_dim, 1024)) block(256)
  args(h, b1, i32(mlp_hidden_dim), i64(batch_size * seq_len * mlp_hidden_dim))
matmul c(h) a(x) b(w1) m(batch_size * seq_len) n(mlp_hidden_dim) k(hidden_dim) transpose_b accumulate
launch gelu_tanh grid(ceil_div(batch_size * seq_len * mlp_hidden_dim, 1024)) block(256)
  args(a, h, i64(batch_size * seq_len * mlp_hidden_dim))
launch broadcast_bias grid(ceil_div(batch_size * seq_len * hidden_dim, 1024)) block(256)
  args(y, b2, i32(hidden_dim), i64(batch_size * seq_len * hidden_dim))
matmul c(y) a(a) b(w2) m(batch_size * seq_len) n(hidden_dim) k(mlp_hidden_dim) transpose_b accumulate
*/
