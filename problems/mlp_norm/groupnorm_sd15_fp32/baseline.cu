// The unfused baseline, as eager PyTorch runs the reconstructed reference on fp32 CUDA tensors over the
// view [N, G, C/G, H, W] (a (sample, group) row is 2560 contiguous floats):
// 1. mean over the row (a reduction kernel), 2. the biased variance (a second, Welford reduction),
// 3. d = x - mean, 4. var + eps, 5. sqrt, 6. d / s, 7. * weight[c], 8. + bias[c]: one launch each,
// every intermediate an fp32 tensor in memory.
#include "mkb_ops.cuh"

// mean[r] = sum / cols over the row r = n*G + g
MKB_ROW_REDUCE(group_mean, float, float, mkb_ops::sum_op, (const float *x), x[r * cols + c], acc / cols)

// Bespoke: torch.var runs a Welford reduction (combined across threads with Chan's formula); no
// mkb_ops block does. One block per row; var[r] = m2 / n (biased).
__device__ __forceinline__ void welford_combine(float &n, float &m, float &m2, float nb, float mb, float m2b) {
  if (nb == 0.0f) return;
  if (n == 0.0f) {
    n = nb;
    m = mb;
    m2 = m2b;
    return;
  }
  const float total = n + nb;
  const float delta = mb - m;
  const float fb = nb / total;
  m = m + delta * fb;
  m2 = m2 + m2b + delta * delta * n * fb;
  n = total;
}

extern "C" __global__ void group_var(const float *__restrict__ x, float *__restrict__ var, int cols) {
  __shared__ float part_n[32], part_m[32], part_m2[32];
  const float *row = x + (long long)blockIdx.x * cols;
  float n = 0.0f, m = 0.0f, m2 = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = row[c];
    n += 1.0f;
    const float delta = v - m;
    m += delta / n;
    m2 += delta * (v - m);
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    const float nb = __shfl_down_sync(0xffffffffu, n, offset);
    const float mb = __shfl_down_sync(0xffffffffu, m, offset);
    const float m2b = __shfl_down_sync(0xffffffffu, m2, offset);
    welford_combine(n, m, m2, nb, mb, m2b);
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = (blockDim.x + 31) / 32;
  if (lane == 0) {
    part_n[warp] = n;
    part_m[warp] = m;
    part_m2[warp] = m2;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float tn = 0.0f, tm = 0.0f, tm2 = 0.0f;
    for (int w = 0; w < warps; ++w) welford_combine(tn, tm, tm2, part_n[w], part_m[w], part_m2[w]);
    var[blockIdx.x] = fmaxf(tm2 / tn, 0.0f);
  }
}

// d = x - mean[row] (broadcast over the row). Indices fit in int: N*C*H*W < 2^31.
MKB_MAP(sub_mean, float, (const float *x, const float *mean, int group_len), x[i] - mean[(int)i / group_len])
// var + eps, then sqrt: two small elementwise ops over the N*G statistics
MKB_MAP(add_eps, float, (const float *var, float eps), var[i] + eps)
MKB_MAP(sqrt_map, float, (const float *t), sqrtf(t[i]))
// xn = d / s[row]
MKB_MAP(div_std, float, (const float *d, const float *s, int group_len), d[i] / s[(int)i / group_len])
// u = xn * weight[c], then y = u + bias[c] (broadcast [1, C, 1, 1])
MKB_MAP(mul_weight, float, (const float *xn, const float *w, int hw, int channels), xn[i] * w[(int)i / hw % channels])
MKB_MAP(add_bias, float, (const float *u, const float *b, int hw, int channels), u[i] + b[(int)i / hw % channels])

/* mkb:plan
scratch mean fp32[batch_size * num_groups]
scratch var fp32[batch_size * num_groups]
scratch t fp32[batch_size * num_groups]
scratch s fp32[batch_size * num_groups]
scratch d fp32[batch_size * num_channels * height * width]
scratch xn fp32[batch_size * num_channels * height * width]
scratch u fp32[batch_size * num_channels * height * width]
launch group_mean grid(batch_size * num_groups) block(256) args(mean, x, i32(num_channels / num_groups * height * width))
launch group_var grid(batch_size * num_groups) block(256) args(x, var, i32(num_channels / num_groups * height * width))
launch sub_mean grid(ceil_div(batch_size * num_channels * height * width, 1024)) block(256)
  args(d, x, mean, i32(num_channels / num_groups * height * width), i64(batch_size * num_channels * height * width))
launch add_eps grid(ceil_div(batch_size * num_groups, 1024)) block(256) args(t, var, f32(eps), i64(batch_size * num_groups))
launch sqrt_map grid(ceil_div(batch_size * num_groups, 1024)) block(256) args(s, t, i64(batch_size * num_groups))
launch div_std grid(ceil_div(batch_size * num_channels * height * width, 1024)) block(256)
  args(xn, d, s, i32(num_channels / num_groups * height * width), i64(batch_size * num_channels * height * width))
launch mul_weight grid(ceil_div(batch_size * num_channels * height * width, 1024)) block(256)
  args(u, xn, weight, i32(height * width), i32(num_channels), i64(batch_size * num_channels * height * width))
launch add_bias grid(ceil_div(batch_size * num_channels * height * width, 1024)) block(256)
  args(y, u, bias, i32(height * width), i32(num_channels), i64(batch_size * num_channels * height * width))
*/
