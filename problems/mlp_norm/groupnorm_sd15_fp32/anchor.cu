// The float64 anchor: two-pass mean and biased variance per (sample, group) in double, then
// (x - mean) / sqrt(var + eps) * weight[c] + bias[c] in double, written to the fp64 output buffer y.
#include "mkb_ops.cuh"

// mean[r] over the row r = n*G + g of `cols` = (C/G)*H*W contiguous values
MKB_ROW_REDUCE(anchor_mean, double, double, mkb_ops::sum_op, (const float *x), f64(x[r * cols + c]),
               acc / cols)

// var[r] = mean of (x - mean[r])^2 (biased)
MKB_ROW_REDUCE(anchor_var, double, double, mkb_ops::sum_op, (const float *x, const double *mean),
               (f64(x[r * cols + c]) - mean[r]) * (f64(x[r * cols + c]) - mean[r]), acc / cols)

// y = (x - mean) / sqrt(var + eps) * weight[c] + bias[c]
MKB_MAP(anchor_groupnorm, double,
        (const float *x, const double *mean, const double *var, const float *w, const float *b, long long hw,
         long long channels, long long group_len, double eps),
        (f64(x[i]) - mean[i / group_len]) / sqrt(var[i / group_len] + eps) * f64(w[i / hw % channels]) +
            f64(b[i / hw % channels]))

/* mkb:plan
scratch mean fp64[batch_size * num_groups]
scratch var fp64[batch_size * num_groups]
launch anchor_mean grid(batch_size * num_groups) block(256) args(mean, x, i32(num_channels / num_groups * height * width))
launch anchor_var grid(batch_size * num_groups) block(256) args(var, x, mean, i32(num_channels / num_groups * height * width))
launch anchor_groupnorm grid(ceil_div(batch_size * num_channels * height * width, 1024)) block(256)
  args(y, x, mean, var, weight, bias, i64(height * width), i64(num_channels), i64(num_channels / num_groups * height * width),
       f64(eps), i64(batch_size * num_channels * height * width))
*/
