// The float64 anchor: the LayerNorm backward, the fc2 / GELU / fc1 backward and the residual path with every
// intermediate in double and no rounding. Inputs are widened to fp64 scratch copies for the fp64 matmul
// steps; the GELU derivative is evaluated in closed form.
#include "mkb_ops.cuh"

MKB_MAP(widen, double, (const float *v), f64(v[i]))
// row sums of g = dy * w and of g * normalized
MKB_ROW_REDUCE(row_sum_g, double, double, mkb_ops::sum_op, (const float *dy, const float *w),
               f64(dy[(long long)r * cols + c]) * f64(w[c]), acc)
MKB_ROW_REDUCE(row_sum_gn, double, double, mkb_ops::sum_op, (const float *dy, const float *w, const float *nrm),
               f64(dy[(long long)r * cols + c]) * f64(w[c]) * f64(nrm[(long long)r * cols + c]), acc)
// grad_residual = rstd * (g - sum_g / cols - nrm * sum_gn / cols), rstd = 1 / sqrt(var + eps)
MKB_MAP(ln_backward, double,
        (const float *dy, const float *w, const float *nrm, const float *var, const double *sg, const double *sgn,
         double eps, int cols),
        (f64(dy[i]) * f64(w[i % cols]) - sg[i / cols] / cols - f64(nrm[i]) * (sgn[i / cols] / cols)) /
            sqrt(f64(var[i / cols]) + eps))
MKB_MAP(gelu_tanh_backward, double, (const double *g, const float *pre), g[i] * mkb_gelu_tanh_grad(f64(pre[i])))
MKB_MAP(add_d, double, (const double *a, const double *b), a[i] + b[i])
MKB_COL_REDUCE(col_sum_dy_n, double, double, mkb_ops::sum_op, (const float *dy, const float *nrm),
               f64(dy[(long long)r * cols + c]) * f64(nrm[(long long)r * cols + c]), acc)
MKB_COL_REDUCE(col_sum_f, double, double, mkb_ops::sum_op, (const float *m), f64(m[(long long)r * cols + c]), acc)
MKB_COL_REDUCE(col_sum_d, double, double, mkb_ops::sum_op, (const double *m), m[(long long)r * cols + c], acc)

/* mkb:plan
scratch x64 fp64[batch_size * seq_len * hidden_size]
scratch act64 fp64[batch_size * seq_len * intermediate_size]
scratch w1_64 fp64[intermediate_size * hidden_size]
scratch w2_64 fp64[hidden_size * intermediate_size]
scratch sg fp64[batch_size * seq_len]
scratch sgn fp64[batch_size * seq_len]
scratch grad_residual fp64[batch_size * seq_len * hidden_size]
scratch grad_act fp64[batch_size * seq_len * intermediate_size]
scratch grad_pre fp64[batch_size * seq_len * intermediate_size]
scratch grad_ffn_in fp64[batch_size * seq_len * hidden_size]
launch widen grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(x64, hidden_states, i64(batch_size * seq_len * hidden_size))
launch widen grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(act64, gelu_output, i64(batch_size * seq_len * intermediate_size))
launch widen grid(ceil_div(intermediate_size * hidden_size, 1024)) block(256) args(w1_64, fc1_weight, i64(intermediate_size * hidden_size))
launch widen grid(ceil_div(hidden_size * intermediate_size, 1024)) block(256) args(w2_64, fc2_weight, i64(hidden_size * intermediate_size))
launch row_sum_g grid(batch_size * seq_len) block(256) args(sg, grad_output, ln_weight, i32(hidden_size))
launch row_sum_gn grid(batch_size * seq_len) block(256) args(sgn, grad_output, ln_weight, normalized, i32(hidden_size))
launch ln_backward grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(grad_residual, grad_output, ln_weight, normalized, var, sg, sgn, f64(eps), i32(hidden_size), i64(batch_size * seq_len * hidden_size))
launch col_sum_dy_n grid(ceil_div(hidden_size, 32), 1) block(32, 8) args(grad_ln_weight, grad_output, normalized, i32(batch_size * seq_len), i32(hidden_size))
launch col_sum_f grid(ceil_div(hidden_size, 32), 1) block(32, 8) args(grad_ln_bias, grad_output, i32(batch_size * seq_len), i32(hidden_size))
launch col_sum_d grid(ceil_div(hidden_size, 32), 1) block(32, 8) args(grad_fc2_bias, grad_residual, i32(batch_size * seq_len), i32(hidden_size))
matmul c(grad_fc2_weight) a(grad_residual) b(act64) m(hidden_size) n(intermediate_size) k(batch_size * seq_len) transpose_a
matmul c(grad_act) a(grad_residual) b(w2_64) m(batch_size * seq_len) n(intermediate_size) k(hidden_size)
launch gelu_tanh_backward grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(grad_pre, grad_act, fc1_output, i64(batch_size * seq_len * intermediate_size))
launch col_sum_d grid(ceil_div(intermediate_size, 32), 1) block(32, 8) args(grad_fc1_bias, grad_pre, i32(batch_size * seq_len), i32(intermediate_size))
matmul c(grad_fc1_weight) a(grad_pre) b(x64) m(intermediate_size) n(hidden_size) k(batch_size * seq_len) transpose_a
matmul c(grad_ffn_in) a(grad_pre) b(w1_64) m(batch_size * seq_len) n(hidden_size) k(intermediate_size)
launch add_d grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(grad_hidden_states, grad_residual, grad_ffn_in, i64(batch_size * seq_len * hidden_size))
*/
