// The unfused eager baseline: one launch per eager PyTorch operation (F.layer_norm is one eager kernel;
// here its mean, its rstd and its affine normalization are three launches, since no single block
// computes it), fp32 intermediates in memory, each F.linear a cuBLAS fp32 matmul step (fp32
// accumulation, no TF32) followed by a bias add.
#include "mkb_ops.cuh"

// F.layer_norm: mean, rstd = 1/sqrt(biased var + eps), then (x - mean) * rstd * w + b
MKB_ROW_REDUCE(ln_mean, float, float, mkb_ops::sum_op, (const float *x), x[r * cols + c], acc / cols)
MKB_ROW_REDUCE(ln_rstd, float, float, mkb_ops::sum_op, (const float *x, const float *mean, float eps),
               (x[r * cols + c] - mean[r]) * (x[r * cols + c] - mean[r]), rsqrtf(acc / cols + eps))
MKB_MAP(ln_apply, float, (const float *x, const float *mean, const float *rstd, const float *w, const float *b, int cols),
        (x[i] - mean[i / cols]) * rstd[i / cols] * w[i % cols] + b[i % cols])
// the bias add of an F.linear
MKB_MAP(add_bias, float, (const float *y, const float *bias, int cols), y[i] + bias[i % cols])
// F.silu
MKB_MAP(silu, float, (const float *h), mkb_silu(h[i]))
// h * 0.5
MKB_MAP(scale_half, float, (const float *h), h[i] * 0.5f)
// residual + h
MKB_MAP(add, float, (const float *a, const float *b), a[i] + b[i])

/* mkb:plan
scratch mean fp32[tokens]
scratch rstd fp32[tokens]
scratch xn fp32[tokens * d_model]
scratch h0 fp32[tokens * d_ff]
scratch h fp32[tokens * d_ff]
scratch act fp32[tokens * d_ff]
scratch f0 fp32[tokens * d_model]
scratch f fp32[tokens * d_model]
scratch fh fp32[tokens * d_model]
launch ln_mean grid(tokens) block(256) args(mean, x, i32(d_model))
launch ln_rstd grid(tokens) block(256) args(rstd, x, mean, f32(eps), i32(d_model))
launch ln_apply grid(ceil_div(tokens * d_model, 256)) block(256)
  args(xn, x, mean, rstd, ln_weight, ln_bias, i32(d_model), i64(tokens * d_model))
matmul c(h0) a(xn) b(W1) m(tokens) n(d_ff) k(d_model) transpose_b
launch add_bias grid(ceil_div(tokens * d_ff, 256)) block(256) args(h, h0, b1, i32(d_ff), i64(tokens * d_ff))
launch silu grid(ceil_div(tokens * d_ff, 256)) block(256) args(act, h, i64(tokens * d_ff))
matmul c(f0) a(act) b(W2) m(tokens) n(d_model) k(d_ff) transpose_b
launch add_bias grid(ceil_div(tokens * d_model, 256)) block(256) args(f, f0, b2, i32(d_model), i64(tokens * d_model))
launch scale_half grid(ceil_div(tokens * d_model, 256)) block(256) args(fh, f, i64(tokens * d_model))
launch add grid(ceil_div(tokens * d_model, 256)) block(256) args(out, x, fh, i64(tokens * d_model))
*/
