// The float64 anchor of the MLP backward: inputs widened to double, every GEMM in double (the plan's
// matmul step on fp64 scratch), the tanh-GELU derivative and the column sums in double; no rounding.
#include "mkb_ops.cuh"

MKB_MAP(widen, double, (const float *v), f64(v[i]))
MKB_MAP(gelu_tanh_backward, double, (const double *g, const float *pre), g[i] * mkb_gelu_tanh_grad(f64(pre[i])))
MKB_COL_REDUCE(column_sum_f32, double, double, mkb_ops::sum_op, (const float *g), f64(g[(long long)r * cols + c]), acc)
MKB_COL_REDUCE(column_sum_f64, double, double, mkb_ops::sum_op, (const double *g), g[(long long)r * cols + c], acc)

/* mkb:plan
scratch dy64 fp64[batch_size * seq_len * hidden_size]
scratch x64 fp64[batch_size * seq_len * hidden_size]
scratch act64 fp64[batch_size * seq_len * intermediate_size]
scratch w1_64 fp64[intermediate_size * hidden_size]
scratch w2_64 fp64[hidden_size * intermediate_size]
scratch grad_act fp64[batch_size * seq_len * intermediate_size]
scratch grad_pre fp64[batch_size * seq_len * intermediate_size]
launch widen grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(dy64, grad_output, i64(batch_size * seq_len * hidden_size))
launch widen grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(x64, hidden_states, i64(batch_size * seq_len * hidden_size))
launch widen grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(act64, gelu_output, i64(batch_size * seq_len * intermediate_size))
launch widen grid(ceil_div(intermediate_size * hidden_size, 1024)) block(256) args(w1_64, fc1_weight, i64(intermediate_size * hidden_size))
launch widen grid(ceil_div(hidden_size * intermediate_size, 1024)) block(256) args(w2_64, fc2_weight, i64(hidden_size * intermediate_size))
matmul c(grad_fc2_weight) a(dy64) b(act64) m(hidden_size) n(intermediate_size) k(batch_size * seq_len) transpose_a
launch column_sum_f32 grid(ceil_div(hidden_size, 32), 1) block(32, 8) args(grad_fc2_bias, grad_output, i32(batch_size * seq_len), i32(hidden_size))
matmul c(grad_act) a(dy64) b(w2_64) m(batch_size * seq_len) n(intermediate_size) k(hidden_size)
launch gelu_tanh_backward grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(grad_pre, grad_act, fc1_output, i64(batch_size * seq_len * intermediate_size))
matmul c(grad_fc1_weight) a(grad_pre) b(x64) m(intermediate_size) n(hidden_size) k(batch_size * seq_len) transpose_a
launch column_sum_f64 grid(ceil_div(intermediate_size, 32), 1) block(32, 8) args(grad_fc1_bias, grad_pre, i32(batch_size * seq_len), i32(intermediate_size))
matmul c(grad_hidden_states) a(grad_pre) b(w1_64) m(batch_size * seq_len) n(hidden_size) k(intermediate_size)
*/
