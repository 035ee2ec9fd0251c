// The float64 anchor: the same semantics with every intermediate in double and no rounding points.
// Inputs are read at fp32; the matmuls run on fp64 copies of x and the weights.
#include "mkb_ops.cuh"

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
scratch xd fp64[batch_size * height * width * dim]
scratch w1d fp64[hidden_dim * dim]
scratch w2d fp64[dim * hidden_dim]
scratch a fp64[batch_size * height * width * hidden_dim]
scratch h fp64[batch_size * height * width * hidden_dim]
scratch gx fp64[batch_size * hidden_dim]
scratch gd fp64[batch_size]
scratch y0 fp64[batch_size * height * width * dim]
launch to_f64 grid(ceil_div(batch_size * height * width * dim, 1024)) block(256) args(xd, x, i64(batch_size * height * width * dim))
launch to_f64 grid(ceil_div(hidden_dim * dim, 1024)) block(256) args(w1d, w1, i64(hidden_dim * dim))
launch to_f64 grid(ceil_div(dim * hidden_dim, 1024)) block(256) args(w2d, w2, i64(dim * hidden_dim))
matmul c(a) a(xd) b(w1d) m(batch_size * height * width) n(hidden_dim) k(dim) transpose_b
launch bias_gelu grid(ceil_div(batch_size * height * width * hidden_dim, 1024)) block(256)
  args(h, a, b1, i32(hidden_dim), i64(batch_size * height * width * hidden_dim))
launch spatial_l2_norm grid(ceil_div(hidden_dim, 32), batch_size) block(32, 8)
  args(gx, h, i32(height * width), i32(hidden_dim))
launch channel_mean_eps grid(batch_size) block(256) args(gd, gx, f64(eps), i32(hidden_dim))
launch grn_apply grid(ceil_div(batch_size * height * width * hidden_dim, 1024)) block(256)
  args(a, h, gx, gd, gamma, beta, i64(height * width * hidden_dim), i32(hidden_dim), i64(batch_size * height * width * hidden_dim))
matmul c(y0) a(a) b(w2d) m(batch_size * height * width) n(dim) k(hidden_dim) transpose_b
launch add_bias grid(ceil_div(batch_size * height * width * dim, 1024)) block(256)
  args(y, y0, b2, i32(dim), i64(batch_size * height * width * dim))
*/
