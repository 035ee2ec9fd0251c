// The unfused baseline, as eager PyTorch runs F.group_norm then F.silu on fp32 CUDA tensors:
// 1. per-(sample, group) moments in one Welford pass (PyTorch's RowwiseMoments kernel),
// 2. the normalize + affine elementwise pass, written to an fp32 tensor,
// 3. SiLU, a separate elementwise pass.
#include "mkb_ops.cuh"

// Bespoke: no mkb_ops block computes mean and variance together in one pass over the row, as
// PyTorch's group_norm does (Welford, combined across threads with Chan's formula). One block per
// row (n, g) of `cols` = (C/G)*H*W contiguous floats; mean and rstd = rsqrt(var + eps) per row.
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

extern "C" __global__ void group_moments(const float *__restrict__ x, float *__restrict__ mean,
                                         float *__restrict__ rstd, int cols, float eps) {
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
    const float var = fmaxf(tm2 / tn, 0.0f); // biased variance
    mean[blockIdx.x] = tm;
    rstd[blockIdx.x] = rsqrtf(var + eps);
  }
}

// h = (x - mean[n,g]) * rstd[n,g] * weight[c] + bias[c]. Indices in int: n*C*H*W < 2^31 here.
MKB_MAP(group_affine, float,
        (const float *x, const float *mean, const float *rstd, const float *w, const float *b, int hw,
         int channels, int group_len),
        (x[i] - mean[(int)i / group_len]) * rstd[(int)i / group_len] * w[(int)i / hw % channels] +
            b[(int)i / hw % channels])

// y = silu(h)
MKB_MAP(silu_map, float, (const float *h), mkb_silu(h[i]))

/* mkb:plan
scratch mean fp32[batch * groups]
scratch rstd fp32[batch * groups]
scratch h fp32[batch * channels * height * width]
launch group_moments grid(batch * groups) block(512)
  args(x, mean, rstd, i32(channels / groups * height * width), f32(eps))
launch group_affine grid(ceil_div(batch * channels * height * width, 256)) block(256)
  args(h, x, mean, rstd, weight, bias, i32(height * width), i32(channels), i32(channels / groups * height * width),
       i64(batch * channels * height * width))
launch silu_map grid(ceil_div(batch * channels * height * width, 256)) block(256)
  args(y, h, i64(batch * channels * height * width))
*/
