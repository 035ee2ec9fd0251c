// The unfused baseline: one launch per eager PyTorch op of the ConvNeXt V2 MLP, fp32 throughout, every
// intermediate in memory at fp32, the two Linear layers as cuBLAS matmuls (fp32 accumulation, no TF32)
// each followed by its bias add.
#include "mkb_ops.cuh"

// F.layer_norm over the last axis. Eager PyTorch computes the row statistics and the affine output in
// one kernel, which no single MKB block expresses, so this is bespoke: one block per row, two passes.
extern "C" __global__ void layer_norm_rows(const float *x, const float *w, const float *b, float *y, int cols,
                                           float eps) {
  const long long base = (long long)blockIdx.x * cols;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[base + c];
  const float mean = mkb_ops::block_reduce<mkb_ops::sum_op>(s) / cols;
  float q = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float d = x[base + c] - mean;
    q += d * d;
  }
  const float rstd = rsqrtf(mkb_ops::block_reduce<mkb_ops::sum_op>(q) / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[base + c] = (x[base + c] - mean) * rstd * w[c] + b[c];
}

// a + bias (broadcast over rows)
MKB_MAP(add_bias, float, (const float *a, const float *bias, int cols), f32(a[i]) + f32(bias[i % cols]))
// gelu(a), exact erf form
MKB_MAP(gelu_map, float, (const float *a), mkb_gelu(f32(a[i])))
// Gx[b, j] = sqrt(sum over the positions of image b of h^2): torch.norm(h, p=2, dim=(1, 2))
MKB_COL_REDUCE(spatial_l2_norm, float, float, mkb_ops::sum_op, (const float *h),
               f32(h[(b * rows + r) * cols + c]) * f32(h[(b * rows + r) * cols + c]), sqrtf(acc))
// m[b] = Gx[b, :].mean()
MKB_ROW_REDUCE(channel_mean, float, float, mkb_ops::sum_op, (const float *gx), f32(gx[r * cols + c]), acc / cols)
// d = m + eps
MKB_MAP(add_scalar, float, (const float *a, float s), f32(a[i]) + s)
// Nx[b, j] = Gx[b, j] / d[b]
MKB_MAP(div_rows, float, (const float *gx, const float *d, int cols), f32(gx[i]) / f32(d[i / cols]))
// h * Nx (Nx broadcast over the positions of each image)
MKB_MAP(mul_nx, float, (const float *h, const float *nx, long long per_image, int cols),
        f32(h[i]) * f32(nx[(i / per_image) * cols + i % cols]))
// gamma * t (broadcast over rows)
MKB_MAP(mul_vec, float, (const float *vec, const float *t, int cols), f32(vec[i % cols]) * f32(t[i]))
// t + h
MKB_MAP(add_tensors, float, (const float *a, const float *b), f32(a[i]) + f32(b[i]))

/* mkb:plan
scratch xn fp32[batch * height * width * dim]
scratch s0 fp32[batch * height * width * hidden]
scratch s1 fp32[batch * height * width * hidden]
scratch h fp32[batch * height * width * hidden]
scratch gx fp32[batch * hidden]
scratch gm fp32[batch]
scratch gd fp32[batch]
scratch nx fp32[batch * hidden]
scratch y0 fp32[batch * height * width * dim]
launch layer_norm_rows grid(batch * height * width) block(256) args(x, ln_weight, ln_bias, xn, i32(dim), f32(ln_eps))
matmul c(s0) a(xn) b(w1) m(batch * height * width) n(hidden) k(dim) transpose_b
launch add_bias grid(ceil_div(batch * height * width * hidden, 256)) block(256)
  args(s1, s0, b1, i32(hidden), i64(batch * height * width * hidden))
launch gelu_map grid(ceil_div(batch * height * width * hidden, 256)) block(256)
  args(h, s1, i64(batch * height * width * hidden))
launch spatial_l2_norm grid(ceil_div(hidden, 32), batch) block(32, 8) args(gx, h, i32(height * width), i32(hidden))
launch channel_mean grid(batch) block(256) args(gm, gx, i32(hidden))
launch add_scalar grid(1) block(256) args(gd, gm, f32(grn_eps), i64(batch))
launch div_rows grid(ceil_div(batch * hidden, 256)) block(256) args(nx, gx, gd, i32(hidden), i64(batch * hidden))
launch mul_nx grid(ceil_div(batch * height * width * hidden, 256)) block(256)
  args(s0, h, nx, i64(height * width * hidden), i32(hidden), i64(batch * height * width * hidden))
launch mul_vec grid(ceil_div(batch * height * width * hidden, 256)) block(256)
  args(s1, grn_gamma, s0, i32(hidden), i64(batch * height * width * hidden))
launch add_bias grid(ceil_div(batch * height * width * hidden, 256)) block(256)
  args(s0, s1, grn_beta, i32(hidden), i64(batch * height * width * hidden))
launch add_tensors grid(ceil_div(batch * height * width * hidden, 256)) block(256)
  args(s1, s0, h, i64(batch * height * width * hidden))
matmul c(y0) a(s1) b(w2) m(batch * height * width) n(dim) k(hidden) transpose_b
launch add_bias grid(ceil_div(batch * height * width * dim, 256)) block(256)
  args(y, y0, b2, i32(dim), i64(batch * height * width * dim))
*/
