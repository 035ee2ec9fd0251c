// The unfused baseline: one launch per eager PyTorch op of the (reconstructed) ConvNeXt V2 MLP, fp32
// throughout, every intermediate in memory at fp32. Each F.linear is one addmm in eager (cuBLAS with the
// bias in its epilogue): here the bias broadcast into the output, then the matmul step with accumulate
// (fp32 accumulation, no TF32), so acc + bias is rounded once as there.
#include "mkb_ops.cuh"

// out[r, c] = bias[c]: the addmm's starting value (F.linear's bias, added by the GEMM with beta = 1)
MKB_MAP(broadcast_bias, float, (const float *bias, int cols), f32(bias[i % cols]))
// t + beta (broadcast over rows)
MKB_MAP(add_bias, float, (const float *a, const float *bias, int cols), f32(a[i]) + f32(bias[i % cols]))
// gelu(a), exact erf form
MKB_MAP(gelu_map, float, (const float *a), mkb_gelu(f32(a[i])))
// Gx[b, j] = sqrt(sum over the positions of image b of h^2): torch.linalg.vector_norm(h, 2, dim=(1, 2))
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
scratch a fp32[batch_size * height * width * hidden_dim]
scratch h fp32[batch_size * height * width * hidden_dim]
scratch s0 fp32[batch_size * height * width * hidden_dim]
scratch s1 fp32[batch_size * height * width * hidden_dim]
scratch gx fp32[batch_size * hidden_dim]
scratch gm fp32[batch_size]
scratch gd fp32[batch_size]
scratch nx fp32[batch_size * hidden_dim]
launch broadcast_bias grid(ceil_div(batch_size * height * width * hidden_dim, 1024)) block(256)
  args(a, b1, i32(hidden_dim), i64(batch_size * height * width * hidden_dim))
matmul c(a) a(x) b(w1) m(batch_size * height * width) n(hidden_dim) k(dim) transpose_b accumulate
launch gelu_map grid(ceil_div(batch_size * height * width * hidden_dim, 1024)) block(256)
  args(h, a, i64(batch_size * height * width * hidden_dim))
launch spatial_l2_norm grid(ceil_div(hidden_dim, 32), batch_size) block(32, 8) args(gx, h, i32(height * width), i32(hidden_dim))
launch channel_mean grid(batch_size) block(256) args(gm, gx, i32(hidden_dim))
launch add_scalar grid(1) block(256) args(gd, gm, f32(eps), i64(batch_size))
launch div_rows grid(ceil_div(batch_size * hidden_dim, 1024)) block(256) args(nx, gx, gd, i32(hidden_dim), i64(batch_size * hidden_dim))
launch mul_nx grid(ceil_div(batch_size * height * width * hidden_dim, 1024)) block(256)
  args(s0, h, nx, i64(height * width * hidden_dim), i32(hidden_dim), i64(batch_size * height * width * hidden_dim))
launch mul_vec grid(ceil_div(batch_size * height * width * hidden_dim, 1024)) block(256)
  args(s1, gamma, s0, i32(hidden_dim), i64(batch_size * height * width * hidden_dim))
launch add_bias grid(ceil_div(batch_size * height * width * hidden_dim, 1024)) block(256)
  args(s0, s1, beta, i32(hidden_dim), i64(batch_size * height * width * hidden_dim))
launch add_tensors grid(ceil_div(batch_size * height * width * hidden_dim, 1024)) block(256)
  args(s1, s0, h, i64(batch_size * height * width * hidden_dim))
launch broadcast_bias grid(ceil_div(batch_size * height * width * dim, 1024)) block(256)
  args(y, b2, i32(dim), i64(batch_size * height * width * dim))
matmul c(y) a(s1) b(w2) m(batch_size * height * width) n(dim) k(hidden_dim) transpose_b accumulate
*/
