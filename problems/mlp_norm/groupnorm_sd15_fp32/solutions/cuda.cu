// Fused GroupNorm + affine, one read and one write of x. Each (sample, group) is a contiguous run of
// 2560 floats (40 channels x 8 x 8, NCHW); one 128-thread CTA owns a run and holds it in registers
// (5 float4 per thread). The statistics are two-pass in double (mean, then the sum of squared
// deviations: biased variance), rounded once to fp32. The elementwise part then follows the baseline's
// rounding points exactly: d = x - mean, s = sqrt(var + eps), xn = d / s (IEEE division),
// u = xn * w, y = u + b (no fused multiply-add).
constexpr int kChannels = 1280;
constexpr int kGroups = 32;
constexpr int kHW = 8 * 8;
constexpr int kChannelsPerGroup = kChannels / kGroups; // 40
constexpr int kGroupLen = kChannelsPerGroup * kHW;     // 2560 floats per (n, g)
constexpr int kThreads = 128;
constexpr int kVecPerThread = kGroupLen / 4 / kThreads; // 5 float4 per thread

static_assert(kChannels % kGroups == 0, "channels divide into groups");
static_assert(kGroupLen % (4 * kThreads) == 0, "a run is a whole number of float4 per thread");
static_assert(kHW % 4 == 0, "a float4 never straddles two channels");

// Sum over the CTA, returned to every thread.
__device__ __forceinline__ double cta_sum(double v, double *warp_parts) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & 31) == 0) warp_parts[threadIdx.x >> 5] = v;
  __syncthreads();
  double total = 0.0;
#pragma unroll
  for (int w = 0; w < kThreads / 32; ++w) total += warp_parts[w];
  return total;
}

extern "C" __global__ void __launch_bounds__(kThreads)
groupnorm_affine(const float *__restrict__ x, const float *__restrict__ weight, const float *__restrict__ bias,
                 float *__restrict__ y, float eps) {
  __shared__ double warp_sum[kThreads / 32];
  __shared__ double warp_m2[kThreads / 32]; // a second array: no sync needed between the two sums

  const long long row = blockIdx.x; // n * G + g
  const int g = (int)(row % kGroups);
  const float4 *src = reinterpret_cast<const float4 *>(x + row * kGroupLen);
  float4 *dst = reinterpret_cast<float4 *>(y + row * kGroupLen);

  float4 v[kVecPerThread];
#pragma unroll
  for (int k = 0; k < kVecPerThread; ++k) v[k] = src[k * kThreads + threadIdx.x];

  double s = 0.0;
#pragma unroll
  for (int k = 0; k < kVecPerThread; ++k) s += ((double)v[k].x + (double)v[k].y) + ((double)v[k].z + (double)v[k].w);
  const double mean = cta_sum(s, warp_sum) / kGroupLen;

  double m2 = 0.0;
#pragma unroll
  for (int k = 0; k < kVecPerThread; ++k) {
    const double a = (double)v[k].x - mean, b = (double)v[k].y - mean;
    const double c = (double)v[k].z - mean, d = (double)v[k].w - mean;
    m2 += (a * a + b * b) + (c * c + d * d);
  }
  const double var = cta_sum(m2, warp_m2) / kGroupLen;

  const float mean_f = (float)mean;
  const float std_f = __fsqrt_rn(__fadd_rn((float)var, eps));

#pragma unroll
  for (int k = 0; k < kVecPerThread; ++k) {
    const int j = k * kThreads + threadIdx.x;            // float4 index within the run
    const int c = g * kChannelsPerGroup + (j * 4) / kHW; // channel of all four elements
    const float w = weight[c], b = bias[c];
    float4 o;
    o.x = __fadd_rn(__fmul_rn(__fdiv_rn(__fsub_rn(v[k].x, mean_f), std_f), w), b);
    o.y = __fadd_rn(__fmul_rn(__fdiv_rn(__fsub_rn(v[k].y, mean_f), std_f), w), b);
    o.z = __fadd_rn(__fmul_rn(__fdiv_rn(__fsub_rn(v[k].z, mean_f), std_f), w), b);
    o.w = __fadd_rn(__fmul_rn(__fdiv_rn(__fsub_rn(v[k].w, mean_f), std_f), w), b);
    dst[j] = o;
  }
}

/* mkb:plan
launch groupnorm_affine grid(batch_size * num_groups) block(128) args(x, weight, bias, y, f32(eps))
*/
