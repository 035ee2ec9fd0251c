// The unfused eager baseline: the forward recomputed (activation checkpointing), then autograd's
// backward, one launch per eager PyTorch operation, fp32 intermediates in memory. Each F.linear is a
// cuBLAS fp32 matmul step (fp32 accumulation, no TF32) plus a bias add; transformers'
// NewGELUActivation and its autograd backward are one launch per op. F.layer_norm's statistics and
// its fused backward (one kernel each in eager) are split into row reductions, a map and column
// reductions, since no single block computes them.
#include "mkb_ops.cuh"

MKB_MAP(add_bias, float, (const float *y, const float *bias, int cols), y[i] + bias[i % cols])
MKB_MAP(scale, float, (const float *a, float s), a[i] * s)
MKB_MAP(add_scalar, float, (const float *a, float s), a[i] + s)
MKB_MAP(cube, float, (const float *a), a[i] * a[i] * a[i])   // torch.pow(h, 3.0)
MKB_MAP(square, float, (const float *a), a[i] * a[i])        // h.pow(2) inside pow's backward
MKB_MAP(add, float, (const float *a, const float *b), a[i] + b[i])
MKB_MAP(mul, float, (const float *a, const float *b), a[i] * b[i])
MKB_MAP(tanh_fwd, float, (const float *a), tanhf(a[i]))
MKB_MAP(tanh_bwd, float, (const float *g, const float *t), g[i] * (1.0f - t[i] * t[i]))

// LayerNorm forward statistics (saved by native_layer_norm)
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *z), z[r * cols + c], acc / cols)
MKB_ROW_REDUCE(row_rstd, float, float, mkb_ops::sum_op, (const float *z, const float *mean, float eps),
               (z[r * cols + c] - mean[r]) * (z[r * cols + c] - mean[r]), rsqrtf(acc / cols + eps))
// LayerNorm backward: row sums of g = dy*w and g*zhat, then dz
MKB_ROW_REDUCE(row_sum_g, float, float, mkb_ops::sum_op, (const float *dy, const float *w), dy[r * cols + c] * w[c], acc)
MKB_ROW_REDUCE(row_sum_gz, float, float, mkb_ops::sum_op,
               (const float *dy, const float *w, const float *z, const float *mean, const float *rstd),
               dy[r * cols + c] * w[c] * ((z[r * cols + c] - mean[r]) * rstd[r]), acc)
MKB_MAP(ln_dz, float,
        (const float *dy, const float *w, const float *z, const float *mean, const float *rstd, const float *sg,
         const float *sgz, int cols),
        rstd[i / cols] * (dy[i] * w[i % cols] - sg[i / cols] / cols -
                          (z[i] - mean[i / cols]) * rstd[i / cols] * (sgz[i / cols] / cols)))
// column sums over tokens: parameter gradients
MKB_COL_REDUCE(col_sum, float, float, mkb_ops::sum_op, (const float *m), m[(long long)r * cols + c], acc)
MKB_COL_REDUCE(col_sum_dy_zhat, float, float, mkb_ops::sum_op,
               (const float *dy, const float *z, const float *mean, const float *rstd),
               dy[(long long)r * cols + c] * ((z[(long long)r * cols + c] - mean[r]) * rstd[r]), acc)

/* mkb:plan
scratch h0 fp32[tokens * inter]
scratch h fp32[tokens * inter]
scratch u fp32[tokens * inter]
scratch p fp32[tokens * inter]
scratch q fp32[tokens * inter]
scratch w fp32[tokens * inter]
scratch s fp32[tokens * inter]
scratch th fp32[tokens * inter]
scratch v fp32[tokens * inter]
scratch act fp32[tokens * inter]
scratch f0 fp32[tokens * hidden]
scratch f fp32[tokens * hidden]
scratch z fp32[tokens * hidden]
scratch mean fp32[tokens]
scratch rstd fp32[tokens]
scratch sg fp32[tokens]
scratch sgz fp32[tokens]
scratch dz fp32[tokens * hidden]
scratch dact fp32[tokens * inter]
scratch du fp32[tokens * inter]
scratch dv fp32[tokens * inter]
scratch ds fp32[tokens * inter]
scratch dw fp32[tokens * inter]
scratch dp fp32[tokens * inter]
scratch t2 fp32[tokens * inter]
scratch t3 fp32[tokens * inter]
scratch dhb fp32[tokens * inter]
scratch dhc fp32[tokens * inter]
scratch dh1 fp32[tokens * inter]
scratch dh fp32[tokens * inter]
scratch dxf fp32[tokens * hidden]
# ---- forward (recomputed): h = F.linear(x, W1, b1)
matmul c(h0) a(x) b(W1) m(tokens) n(inter) k(hidden) transpose_b
launch add_bias grid(ceil_div(tokens * inter, 256)) block(256) args(h, h0, b1, i32(inter), i64(tokens * inter))
# NewGELUActivation: 0.5 * h * (1.0 + tanh(sqrt(2/pi) * (h + 0.044715 * pow(h, 3.0))))
launch scale grid(ceil_div(tokens * inter, 256)) block(256) args(u, h, f32(0.5), i64(tokens * inter))
launch cube grid(ceil_div(tokens * inter, 256)) block(256) args(p, h, i64(tokens * inter))
launch scale grid(ceil_div(tokens * inter, 256)) block(256) args(q, p, f32(0.044715), i64(tokens * inter))
launch add grid(ceil_div(tokens * inter, 256)) block(256) args(w, h, q, i64(tokens * inter))
launch scale grid(ceil_div(tokens * inter, 256)) block(256) args(s, w, f32(0.7978845608028654), i64(tokens * inter))
launch tanh_fwd grid(ceil_div(tokens * inter, 256)) block(256) args(th, s, i64(tokens * inter))
launch add_scalar grid(ceil_div(tokens * inter, 256)) block(256) args(v, th, f32(1.0), i64(tokens * inter))
launch mul grid(ceil_div(tokens * inter, 256)) block(256) args(act, u, v, i64(tokens * inter))
# f = F.linear(a, W2, b2); z = f + x; LayerNorm statistics
matmul c(f0) a(act) b(W2) m(tokens) n(hidden) k(inter) transpose_b
launch add_bias grid(ceil_div(tokens * hidden, 256)) block(256) args(f, f0, b2, i32(hidden), i64(tokens * hidden))
launch add grid(ceil_div(tokens * hidden, 256)) block(256) args(z, f, x, i64(tokens * hidden))
launch row_mean grid(tokens) block(256) args(mean, z, i32(hidden))
launch row_rstd grid(tokens) block(256) args(rstd, z, mean, f32(eps), i32(hidden))
# ---- backward: LayerNorm
launch row_sum_g grid(tokens) block(256) args(sg, dy, ln_weight, i32(hidden))
launch row_sum_gz grid(tokens) block(256) args(sgz, dy, ln_weight, z, mean, rstd, i32(hidden))
launch ln_dz grid(ceil_div(tokens * hidden, 256)) block(256)
  args(dz, dy, ln_weight, z, mean, rstd, sg, sgz, i32(hidden), i64(tokens * hidden))
launch col_sum_dy_zhat grid(ceil_div(hidden, 32), 1) block(32, 8) args(dln_weight, dy, z, mean, rstd, i32(tokens), i32(hidden))
launch col_sum grid(ceil_div(hidden, 32), 1) block(32, 8) args(dln_bias, dy, i32(tokens), i32(hidden))
# ffn_output (Linear 2) backward
launch col_sum grid(ceil_div(hidden, 32), 1) block(32, 8) args(db2, dz, i32(tokens), i32(hidden))
matmul c(dact) a(dz) b(W2) m(tokens) n(inter) k(hidden)
matmul c(dW2) a(dz) b(act) m(hidden) n(inter) k(tokens) transpose_a
# NewGELUActivation backward, op by op (g = dact)
launch mul grid(ceil_div(tokens * inter, 256)) block(256) args(du, dact, v, i64(tokens * inter))
launch mul grid(ceil_div(tokens * inter, 256)) block(256) args(dv, dact, u, i64(tokens * inter))
launch tanh_bwd grid(ceil_div(tokens * inter, 256)) block(256) args(ds, dv, th, i64(tokens * inter))
launch scale grid(ceil_div(tokens * inter, 256)) block(256) args(dw, ds, f32(0.7978845608028654), i64(tokens * inter))
launch scale grid(ceil_div(tokens * inter, 256)) block(256) args(dp, dw, f32(0.044715), i64(tokens * inter))
launch square grid(ceil_div(tokens * inter, 256)) block(256) args(t2, h, i64(tokens * inter))
launch scale grid(ceil_div(tokens * inter, 256)) block(256) args(t3, t2, f32(3.0), i64(tokens * inter))
launch mul grid(ceil_div(tokens * inter, 256)) block(256) args(dhb, dp, t3, i64(tokens * inter))
launch scale grid(ceil_div(tokens * inter, 256)) block(256) args(dhc, du, f32(0.5), i64(tokens * inter))
launch add grid(ceil_div(tokens * inter, 256)) block(256) args(dh1, dw, dhb, i64(tokens * inter))
launch add grid(ceil_div(tokens * inter, 256)) block(256) args(dh, dh1, dhc, i64(tokens * inter))
# ffn (Linear 1) backward and the residual's gradient
launch col_sum grid(ceil_div(inter, 32), 1) block(32, 8) args(db1, dh, i32(tokens), i32(inter))
matmul c(dW1) a(dh) b(x) m(inter) n(hidden) k(tokens) transpose_a
matmul c(dxf) a(dh) b(W1) m(tokens) n(hidden) k(inter)
launch add grid(ceil_div(tokens * hidden, 256)) block(256) args(dx, dz, dxf, i64(tokens * hidden))
*/
