// The float64 anchor: the inputs widened to double, both GEMMs in double (the plan's matmul step on
// fp64 scratch), bias and GELU in double; no rounding anywhere.
#include "mkb_ops.cuh"

MKB_MAP(widen, double, (const float *v), f64(v[i]))
// a = gelu_tanh(p + b1), in double
MKB_MAP(bias_gelu_tanh, double, (const double *p, const float *bias, int cols),
        mkb_gelu_tanh(p[i] + f64(bias[i % cols])))
// y = q + b2, in double
MKB_MAP(add_bias, double, (const double *q, const float *bias, int cols), q[i] + f64(bias[i % cols]))

/* mkb:plan
scratch x64 fp64[batch_size * seq_len * hidden_dim]
scratch w1_64 fp64[mlp_hidden_dim * hidden_dim]
scratch w2_64 fp64[hidden_dim * mlp_hidden_dim]
scratch p fp64[batch_size * seq_len * mlp_hidden_dim]
scratch a fp64[batch_size * seq_len * mlp_hidden_dim]
scratch q fp64[batch_size * seq_len * hidden_dim]
launch widen grid(ceil_div(batch_size * seq_len * hidden_dim, 1024)) block(256) args(x64, x, i64(batch_size * seq_len * hidden_dim))
launch widen grid(ceil_div(mlp_hidden_dim * hidden_dim, 1024)) block(256) args(w1_64, w1, i64(mlp_hidden_dim * hidden_dim))
launch widen grid(ceil_div(hidden_dim * mlp_hidden_dim, 1024)) block(256) args(w2_64, w2, i64(hidden_dim * mlp_hidden_dim))
matmul c(p) a(x64) b(w1_64) m(batch_size * seq_len) n(mlp_hidden_dim) k(hidden_dim) transpose_b
launch bias_gelu_tanh grid(ceil_div(batch_size * seq_len * mlp_hidden_dim, 1024)) block(256)
  args(a, p, b1, i32(mlp_hidden_dim), i64(batch_size * seq_len * mlp_hidden_dim))
matmul c(q) a(a) b(w2_64) m(batch_size * seq_len) n(hidden_dim) k(mlp_hidden_dim) transpose_b
launch add_bias grid(ceil_div(batch_size * seq_len * hidden_dim, 1024)) block(256)
  args(y, q, b2, i32(hidden_dim), i64(batch_size * seq_len * hidden_dim))
*/
