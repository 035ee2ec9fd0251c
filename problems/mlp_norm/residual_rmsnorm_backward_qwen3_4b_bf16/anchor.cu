// The float64 anchor: the reconstructed RMSNorm backward exact in double, no rounding points. With
// g = grad_output * weight and n = normalized:
//   grad_hidden_states = grad_residual = rstd * (g - n * mean(g * n)),  grad_weight = sum over rows of grad_output * n.
#include "mkb_ops.cuh"

// dot[r] = mean over the row of g * n
MKB_ROW_REDUCE(anchor_dot, double, double, mkb_ops::sum_op, (const bf16 *go, const bf16 *nm, const bf16 *w),
               f64(go[r * cols + c]) * f64(w[c]) * f64(nm[r * cols + c]), acc / cols)
// the input gradient, for either output
MKB_MAP(anchor_grad_input, double,
        (const bf16 *go, const bf16 *nm, const bf16 *rstd, const bf16 *w, const double *dot, long long width),
        f64(rstd[i / width]) * (f64(go[i]) * f64(w[i % width]) - f64(nm[i]) * dot[i / width]))
// grad_weight: partial sums of grad_output * n over `rows` consecutive rows per batch b, then their sum
MKB_COL_REDUCE(anchor_gw_partial, double, double, mkb_ops::sum_op, (const bf16 *go, const bf16 *nm),
               f64(go[((long long)b * rows + r) * cols + c]) * f64(nm[((long long)b * rows + r) * cols + c]), acc)
MKB_COL_REDUCE(anchor_gw_final, double, double, mkb_ops::sum_op, (const double *a), a[(long long)r * cols + c], acc)

/* mkb:plan
# rows = batch_size * seq_len = 524288 = 512 batches x 1024 rows for the column sum (exact division).
scratch dot fp64[batch_size * seq_len]
scratch gwpart fp64[512 * hidden_size]
launch anchor_dot grid(batch_size * seq_len) block(256) args(dot, grad_output, normalized, weight, i32(hidden_size))
launch anchor_grad_input grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(grad_hidden_states, grad_output, normalized, rstd, weight, dot, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
launch anchor_grad_input grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(grad_residual, grad_output, normalized, rstd, weight, dot, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
launch anchor_gw_partial grid(ceil_div(hidden_size, 32), 512) block(32, 8)
  args(gwpart, grad_output, normalized, i32(batch_size * seq_len / 512), i32(hidden_size))
launch anchor_gw_final grid(ceil_div(hidden_size, 32), 1) block(32, 8) args(grad_weight, gwpart, i32(512), i32(hidden_size))
*/
