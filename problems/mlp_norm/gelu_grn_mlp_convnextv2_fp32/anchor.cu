// The float64 anchor: the same semantics with every intermediate in double and no rounding points.
// Inputs are read at fp32; the matmuls run on fp64 copies of the weights.
#include "mkb_ops.cuh"

// LayerNorm of one row per block, in double (no single MKB block does statistics and output together).
extern "C" __global__ void layer_norm_rows_f64(const float *x, const float *w, const float *b, double *y, int cols,
                                               double eps) {
  const long long base = (long long)blockIdx.x * cols;
  double s = 0.0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += f64(x[base + c]);
  const double mean = mkb_ops::block_reduce<mkb_ops::sum_op>(s) / cols;
  double q = 0.0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const double d = f64(x[base + c]) - mean;
    q += d * d;
  }
  const double rstd = 1.0 / sqrt(mkb_ops::block_reduce<mkb_ops::sum_op>(q) / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[base + c] = (f64(x[base + c]) - mean) * rstd * f64(w[c]) + f64(b[c]);
}

MKB_MAP(to_f64, double, (const float *a), f64(a[i]))
// h = gelu(a + b1)
MKB_MAP(bias_gelu, double, (const double *a, const float *bias, int cols), mkb_gelu(a[i] + f64(bias[i % cols])))
// Gx[b, j] = sqrt(sum over the image's positions of h^2)
MKB_COL_REDUCE(spatial_l2_norm, double, double, mkb_ops::sum_op, (const double *h),
               h[(b * rows + r) * cols + c] * h[(b * rows + r) * cols + c], sqrt(acc))
// d[b] = mean_j Gx[b, j] + eps
MKB_ROW_REDUCE(channel_mean_eps, double, double, mkb_ops::sum_op, (const double *gx, double eps), gx[r * cols + c],
               acc / cols + eps)
// g = gamma * (h * Gx / d) + beta + h
MKB_MAP(grn_apply, double,
        (const double *h, const double *gx, const double *d, const float *gamma, const float *beta,
         long long per_image, int cols),
        f64(gamma[i % cols]) * (h[i] * (gx[(i / per_image) * cols + i % cols] / d[i / per_image])) +
            f64(beta[i % cols]) + h[i])
// y = a + b2
MKB_MAP(add_bias, double, (const double *a, const float *bias, int cols), a[i] + f64(bias[i % cols]))

/* mkb:plan
scratch xn fp64[batch * height * width * dim]
scratch w1d fp64[hidden * dim]
scratch w2d fp64[dim * hidden]
scratch a fp64[batch * height * width * hidden]
scratch h fp64[batch * height * width * hidden]
scratch gx fp64[batch * hidden]
scratch gd fp64[batch]
scratch y0 fp64[batch * height * width * dim]
launch layer_norm_rows_f64 grid(batch * height * width) block(256)
  args(x, ln_weight, ln_bias, xn, i32(dim), f64(ln_eps))
launch to_f64 grid(ceil_div(hidden * dim, 256)) block(256) args(w1d, w1, i64(hidden * dim))
launch to_f64 grid(ceil_div(dim * hidden, 256)) block(256) args(w2d, w2, i64(dim * hidden))
matmul c(a) a(xn) b(w1d) m(batch * height * width) n(hidden) k(dim) transpose_b
launch bias_gelu grid(ceil_div(batch * height * width * hidden, 256)) block(256)
  args(h, a, b1, i32(hidden), i64(batch * height * width * hidden))
launch spatial_l2_norm grid(ceil_div(hidden, 32), batch) block(32, 8) args(gx, h, i32(height * width), i32(hidden))
launch channel_mean_eps grid(batch) block(256) args(gd, gx, f64(grn_eps), i32(hidden))
launch grn_apply grid(ceil_div(batch * height * width * hidden, 256)) block(256)
  args(a, h, gx, gd, grn_gamma, grn_beta, i64(height * width * hidden), i32(hidden), i64(batch * height * width * hidden))
matmul c(y0) a(a) b(w2d) m(batch * height * width) n(dim) k(hidden) transpose_b
launch add_bias grid(ceil_div(batch * height * width * dim, 256)) block(256)
  args(y, y0, b2, i32(dim), i64(batch * height * width * dim))
*/
