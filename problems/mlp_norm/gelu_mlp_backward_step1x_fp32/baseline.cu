// The unfused eager baseline of the MLP backward (eager.py's op sequence): each GEMM an SGEMM through the
// plan's matmul step, each elementwise op of the written-out tanh-GELU derivative and each bias-gradient
// column sum one launch. Every intermediate is an fp32 tensor in memory; a Python scalar enters a
// kernel as an fp32 value, as PyTorch passes it.
#include "mkb_ops.cuh"

MKB_MAP(mul, float, (const float *a, const float *b), a[i] * b[i])
MKB_MAP(add, float, (const float *a, const float *b), a[i] + b[i])
MKB_MAP(mul_scalar, float, (const float *a, float s), s * a[i])
MKB_MAP(add_scalar, float, (const float *a, float s), a[i] + s)
MKB_MAP(rsub_scalar, float, (const float *a, float s), s - a[i])
MKB_MAP(tanh_, float, (const float *a), tanhf(a[i]))
// db[c] = sum over rows of g[r, c]
MKB_COL_REDUCE(column_sum, float, float, mkb_ops::sum_op, (const float *g), g[(long long)r * cols + c], acc)

/* mkb:plan
scratch grad_act fp32[batch_size * seq_len * intermediate_size]
scratch pre_sq fp32[batch_size * seq_len * intermediate_size]
scratch t1 fp32[batch_size * seq_len * intermediate_size]
scratch t2 fp32[batch_size * seq_len * intermediate_size]
scratch th fp32[batch_size * seq_len * intermediate_size]
scratch sech_sq fp32[batch_size * seq_len * intermediate_size]
scratch d_inner fp32[batch_size * seq_len * intermediate_size]
scratch grad_pre fp32[batch_size * seq_len * intermediate_size]
# grad_fc2_weight = dy^T @ gelu_output, grad_fc2_bias = dy.sum(0), grad_act = dy @ fc2_weight
matmul c(grad_fc2_weight) a(grad_output) b(gelu_output) m(hidden_size) n(intermediate_size) k(batch_size * seq_len) transpose_a
launch column_sum grid(ceil_div(hidden_size, 32), 1) block(32, 8) args(grad_fc2_bias, grad_output, i32(batch_size * seq_len), i32(hidden_size))
matmul c(grad_act) a(grad_output) b(fc2_weight) m(batch_size * seq_len) n(intermediate_size) k(hidden_size)
# pre_sq = pre * pre; inner = K * (pre + C * pre_sq * pre)
launch mul grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(pre_sq, fc1_output, fc1_output, i64(batch_size * seq_len * intermediate_size))
launch mul_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t1, pre_sq, f32(0.044715), i64(batch_size * seq_len * intermediate_size))
launch mul grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t2, t1, fc1_output, i64(batch_size * seq_len * intermediate_size))
launch add grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t1, fc1_output, t2, i64(batch_size * seq_len * intermediate_size))
launch mul_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t2, t1, f32(0.7978845608028654), i64(batch_size * seq_len * intermediate_size))
# t = tanh(inner); sech_sq = 1 - t * t
launch tanh_ grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(th, t2, i64(batch_size * seq_len * intermediate_size))
launch mul grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t1, th, th, i64(batch_size * seq_len * intermediate_size))
launch rsub_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(sech_sq, t1, f32(1.0), i64(batch_size * seq_len * intermediate_size))
# d_inner = K * (1 + 3C * pre_sq)
launch mul_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t1, pre_sq, f32(0.134145), i64(batch_size * seq_len * intermediate_size))
launch add_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t2, t1, f32(1.0), i64(batch_size * seq_len * intermediate_size))
launch mul_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(d_inner, t2, f32(0.7978845608028654), i64(batch_size * seq_len * intermediate_size))
# gelu_grad = 0.5 * (1 + t) + 0.5 * pre * sech_sq * d_inner  (t1 ends as the left term, t2 the right)
launch add_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t2, th, f32(1.0), i64(batch_size * seq_len * intermediate_size))
launch mul_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t1, t2, f32(0.5), i64(batch_size * seq_len * intermediate_size))
launch mul_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t2, fc1_output, f32(0.5), i64(batch_size * seq_len * intermediate_size))
launch mul grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(th, t2, sech_sq, i64(batch_size * seq_len * intermediate_size))
launch mul grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t2, th, d_inner, i64(batch_size * seq_len * intermediate_size))
launch add grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(th, t1, t2, i64(batch_size * seq_len * intermediate_size))
# grad_pre = grad_act * gelu_grad
launch mul grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(grad_pre, grad_act, th, i64(batch_size * seq_len * intermediate_size))
# grad_fc1_weight = grad_pre^T @ x, grad_fc1_bias = grad_pre.sum(0), grad_hidden_states = grad_pre @ fc1_weight
matmul c(grad_fc1_weight) a(grad_pre) b(hidden_states) m(intermediate_size) n(hidden_size) k(batch_size * seq_len) transpose_a
launch column_sum grid(ceil_div(intermediate_size, 32), 1) block(32, 8) args(grad_fc1_bias, grad_pre, i32(batch_size * seq_len), i32(intermediate_size))
matmul c(grad_hidden_states) a(grad_pre) b(fc1_weight) m(batch_size * seq_len) n(hidden_size) k(intermediate_size)
*/
