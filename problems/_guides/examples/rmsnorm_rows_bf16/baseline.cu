// The unfused baseline: one launch per step, the row statistic and the fp32 product in memory.
#include "mkb_ops.cuh"

// inv[r] = 1 / sqrt(mean(x[r]^2) + eps)
MKB_ROW_REDUCE(inv_rms, float, float, mkb_ops::sum_op, (const bf16 *x, float eps),
               f32(x[(long long)r * cols + c]) * f32(x[(long long)r * cols + c]), rsqrtf(acc / cols + eps))
// y = bf16(x * inv[row] * w[col])
MKB_MAP(scale, bf16, (const bf16 *x, const float *inv, const bf16 *w, unsigned cols),
        f32(x[i]) * inv[(unsigned)i / cols] * f32(w[(unsigned)i % cols]))

/* mkb:plan
scratch inv fp32[rows]
launch inv_rms grid(rows) block(256) args(inv, x, f32(eps), i32(hidden))
launch scale grid(ceil_div(rows * hidden, 1024)) block(256) args(y, x, inv, weight, u32(hidden), i64(rows * hidden))
*/
