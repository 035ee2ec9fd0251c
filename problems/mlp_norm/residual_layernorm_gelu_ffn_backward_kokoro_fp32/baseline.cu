// The unfused eager baseline (eager.py's op sequence): the LayerNorm backward as broadcast maps and row
// means, the parameter gradients as column sums over the batch * seq rows, each GEMM an SGEMM through the
// plan's matmul step, each op of the written-out tanh-GELU derivative one launch. Every intermediate is an
// fp32 tensor in memory; a Python scalar enters a kernel as an fp32 value, as PyTorch passes it.
#include "mkb_ops.cuh"

MKB_MAP(mul, float, (const float *a, const float *b), a[i] * b[i])
MKB_MAP(add, float, (const float *a, const float *b), a[i] + b[i])
MKB_MAP(sub, float, (const float *a, const float *b), a[i] - b[i])
MKB_MAP(mul_scalar, float, (const float *a, float s), s * a[i])
MKB_MAP(add_scalar, float, (const float *a, float s), a[i] + s)
MKB_MAP(rsub_scalar, float, (const float *a, float s), s - a[i])
MKB_MAP(tanh_, float, (const float *a), tanhf(a[i]))
MKB_MAP(rsqrt_, float, (const float *a), rsqrtf(a[i]))
// broadcasts: a [rows, cols] with a per-column vector (ln_weight) or a per-row one ([rows, 1] statistics)
MKB_MAP(mul_col, float, (const float *a, const float *v, int cols), a[i] * v[i % cols])
MKB_MAP(mul_row, float, (const float *a, const float *v, int cols), a[i] * v[i / cols])
MKB_MAP(row_mul, float, (const float *v, const float *a, int cols), v[i / cols] * a[i])
MKB_MAP(sub_row, float, (const float *a, const float *v, int cols), a[i] - v[i / cols])
// mean over the last axis (keepdim), and sums over the rows
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *a), a[(long long)r * cols + c], acc / cols)
MKB_COL_REDUCE(column_sum, float, float, mkb_ops::sum_op, (const float *g), g[(long long)r * cols + c], acc)

/* mkb:plan
scratch rstd fp32[batch_size * seq_len]
scratch g_mean fp32[batch_size * seq_len]
scratch gn_mean fp32[batch_size * seq_len]
scratch g fp32[batch_size * seq_len * hidden_size]
scratch hs1 fp32[batch_size * seq_len * hidden_size]
scratch hs2 fp32[batch_size * seq_len * hidden_size]
scratch grad_residual fp32[batch_size * seq_len * hidden_size]
scratch grad_ffn_in fp32[batch_size * seq_len * hidden_size]
scratch grad_act fp32[batch_size * seq_len * intermediate_size]
scratch pre_sq fp32[batch_size * seq_len * intermediate_size]
scratch t1 fp32[batch_size * seq_len * intermediate_size]
scratch t2 fp32[batch_size * seq_len * intermediate_size]
scratch th fp32[batch_size * seq_len * intermediate_size]
scratch sech_sq fp32[batch_size * seq_len * intermediate_size]
scratch d_inner fp32[batch_size * seq_len * intermediate_size]
scratch grad_pre fp32[batch_size * seq_len * intermediate_size]
# ---- LayerNorm backward: rstd = rsqrt(var + eps); g = dy * w; grad_residual = rstd * (g - mean(g) - n * mean(g * n))
launch add_scalar grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(t1, var, f32(eps), i64(batch_size * seq_len))
launch rsqrt_ grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(rstd, t1, i64(batch_size * seq_len))
launch mul_col grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(g, grad_output, ln_weight, i32(hidden_size), i64(batch_size * seq_len * hidden_size))
launch row_mean grid(batch_size * seq_len) block(256) args(g_mean, g, i32(hidden_size))
launch mul grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(hs1, g, normalized, i64(batch_size * seq_len * hidden_size))
launch row_mean grid(batch_size * seq_len) block(256) args(gn_mean, hs1, i32(hidden_size))
launch sub_row grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(hs1, g, g_mean, i32(hidden_size), i64(batch_size * seq_len * hidden_size))
launch mul_row grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(hs2, normalized, gn_mean, i32(hidden_size), i64(batch_size * seq_len * hidden_size))
launch sub grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(g, hs1, hs2, i64(batch_size * seq_len * hidden_size))
launch row_mul grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(grad_residual, rstd, g, i32(hidden_size), i64(batch_size * seq_len * hidden_size))
# grad_ln_weight = (dy * normalized).sum((0, 1)); grad_ln_bias = dy.sum((0, 1))
launch mul grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(hs1, grad_output, normalized, i64(batch_size * seq_len * hidden_size))
launch column_sum grid(ceil_div(hidden_size, 32), 1) block(32, 8) args(grad_ln_weight, hs1, i32(batch_size * seq_len), i32(hidden_size))
launch column_sum grid(ceil_div(hidden_size, 32), 1) block(32, 8) args(grad_ln_bias, grad_output, i32(batch_size * seq_len), i32(hidden_size))
# ---- fc2 backward
matmul c(grad_fc2_weight) a(grad_residual) b(gelu_output) m(hidden_size) n(intermediate_size) k(batch_size * seq_len) transpose_a
launch column_sum grid(ceil_div(hidden_size, 32), 1) block(32, 8) args(grad_fc2_bias, grad_residual, i32(batch_size * seq_len), i32(hidden_size))
matmul c(grad_act) a(grad_residual) b(fc2_weight) m(batch_size * seq_len) n(intermediate_size) k(hidden_size)
# ---- tanh-GELU derivative at p = fc1_output: inner = K * (p + C * p^2 * p)
launch mul grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(pre_sq, fc1_output, fc1_output, i64(batch_size * seq_len * intermediate_size))
launch mul_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t1, pre_sq, f32(0.044715), i64(batch_size * seq_len * intermediate_size))
launch mul grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t2, t1, fc1_output, i64(batch_size * seq_len * intermediate_size))
launch add grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t1, fc1_output, t2, i64(batch_size * seq_len * intermediate_size))
launch mul_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t2, t1, f32(0.7978845608028654), i64(batch_size * seq_len * intermediate_size))
# t = tanh(inner); sech_sq = 1 - t * t; d_inner = K * (1 + 3C * p^2)
launch tanh_ grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(th, t2, i64(batch_size * seq_len * intermediate_size))
launch mul grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t1, th, th, i64(batch_size * seq_len * intermediate_size))
launch rsub_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(sech_sq, t1, f32(1.0), i64(batch_size * seq_len * intermediate_size))
launch mul_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t1, pre_sq, f32(0.134145), i64(batch_size * seq_len * intermediate_size))
launch add_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t2, t1, f32(1.0), i64(batch_size * seq_len * intermediate_size))
launch mul_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(d_inner, t2, f32(0.7978845608028654), i64(batch_size * seq_len * intermediate_size))
# gelu_grad = 0.5 * (1 + t) + 0.5 * p * sech_sq * d_inner (into th); grad_pre = grad_act * gelu_grad
launch add_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t2, th, f32(1.0), i64(batch_size * seq_len * intermediate_size))
launch mul_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t1, t2, f32(0.5), i64(batch_size * seq_len * intermediate_size))
launch mul_scalar grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t2, fc1_output, f32(0.5), i64(batch_size * seq_len * intermediate_size))
launch mul grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(th, t2, sech_sq, i64(batch_size * seq_len * intermediate_size))
launch mul grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(t2, th, d_inner, i64(batch_size * seq_len * intermediate_size))
launch add grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(th, t1, t2, i64(batch_size * seq_len * intermediate_size))
launch mul grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(grad_pre, grad_act, th, i64(batch_size * seq_len * intermediate_size))
# ---- fc1 backward, then the residual path
matmul c(grad_fc1_weight) a(grad_pre) b(hidden_states) m(intermediate_size) n(hidden_size) k(batch_size * seq_len) transpose_a
launch column_sum grid(ceil_div(intermediate_size, 32), 1) block(32, 8) args(grad_fc1_bias, grad_pre, i32(batch_size * seq_len), i32(intermediate_size))
matmul c(grad_ffn_in) a(grad_pre) b(fc1_weight) m(batch_size * seq_len) n(hidden_size) k(intermediate_size)
launch add grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(grad_hidden_states, grad_residual, grad_ffn_in, i64(batch_size * seq_len * hidden_size))
*/
