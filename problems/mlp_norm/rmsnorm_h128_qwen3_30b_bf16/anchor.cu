// The float64 anchor: out = x / sqrt(mean(x^2) + eps) * w per 128-wide head row, no rounding.
#include "mkb_ops.cuh"

// ms[r] = mean of x^2 over head row r
MKB_ROW_REDUCE(anchor_mean_square, double, double, mkb_ops::sum_op, (const bf16 *x),
               f64(x[r * cols + c]) * f64(x[r * cols + c]), acc / cols)

// out = x / sqrt(ms + eps) * w
MKB_MAP(anchor_rmsnorm, double, (const bf16 *x, const double *ms, const bf16 *w, long long cols, double eps),
        f64(x[i]) / sqrt(ms[i / cols] + eps) * f64(w[i % cols]))

/* mkb:plan
scratch ms fp64[tokens * q_heads]
launch anchor_mean_square grid(tokens * q_heads) block(128) args(ms, q, i32(head_dim))
launch anchor_rmsnorm grid(ceil_div(tokens * q_heads * head_dim, 256)) block(256)
  args(q_out, q, ms, q_weight, i64(head_dim), f64(eps), i64(tokens * q_heads * head_dim))
launch anchor_mean_square grid(tokens * kv_heads) block(128) args(ms, k, i32(head_dim))
launch anchor_rmsnorm grid(ceil_div(tokens * kv_heads * head_dim, 256)) block(256)
  args(k_out, k, ms, k_weight, i64(head_dim), f64(eps), i64(tokens * kv_heads * head_dim))
*/
