// Fused GroupNorm + SiLU, one read and one write of x. Each (sample, group) is a contiguous run of
// 40960 floats (NCHW); it is split across a cluster of 8 CTAs (5120 floats each, 5 float4 per thread
// of 256), held in registers between passes. The statistics are exchanged through distributed shared
// memory: a cluster-wide sum gives the mean, then a cluster-wide sum of squared deviations (two-pass,
// exact-ish in double) gives the biased variance. Then normalize, affine, SiLU, and store.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kChannels = 320;
constexpr int kGroups = 32;
constexpr int kHW = 64 * 64;
constexpr int kChannelsPerGroup = kChannels / kGroups; // 10
constexpr int kGroupLen = kChannelsPerGroup * kHW;     // 40960 floats per (n, g)
constexpr int kCluster = 8;                            // CTAs per group (plan: cluster(8))
constexpr int kThreads = 256;
constexpr int kSlice = kGroupLen / kCluster;            // 5120 floats per CTA
constexpr int kVecPerThread = kSlice / 4 / kThreads;    // 5 float4 per thread

static_assert(kChannels % kGroups == 0, "channels divide into groups");
static_assert(kGroupLen % kCluster == 0, "group splits evenly over the cluster");
static_assert(kSlice % (4 * kThreads) == 0, "slice is a whole number of float4 per thread");
static_assert(kHW % 4 == 0, "a float4 never straddles two channels");

__device__ __forceinline__ float silu(float v) { return v / (1.0f + expf(-v)); }

// Sum over the CTA; the result is valid in thread 0 only.
__device__ __forceinline__ double cta_sum(double v, double *warp_parts) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & 31) == 0) warp_parts[threadIdx.x >> 5] = v;
  __syncthreads();
  double total = 0.0;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int w = 0; w < kThreads / 32; ++w) total += warp_parts[w];
  }
  return total;
}

extern "C" __global__ void __launch_bounds__(kThreads, 4)
groupnorm_silu(const float *__restrict__ x, const float *__restrict__ weight, const float *__restrict__ bias,
               float *__restrict__ y, float eps) {
  __shared__ double warp_sum[kThreads / 32];
  __shared__ double warp_m2[kThreads / 32];
  __shared__ double cta_total_sum;
  __shared__ double cta_total_m2;

  cg::cluster_group cluster = cg::this_cluster();
  const long long group = blockIdx.x / kCluster; // n * G + g
  const int slice = blockIdx.x % kCluster;       // which eighth of the group this CTA owns
  const int g = (int)(group % kGroups);
  const float4 *src = reinterpret_cast<const float4 *>(x + group * kGroupLen);
  float4 *dst = reinterpret_cast<float4 *>(y + group * kGroupLen);

  float4 v[kVecPerThread];
#pragma unroll
  for (int k = 0; k < kVecPerThread; ++k) v[k] = src[slice * (kSlice / 4) + k * kThreads + threadIdx.x];

  // Pass 1: mean.
  double s = 0.0;
#pragma unroll
  for (int k = 0; k < kVecPerThread; ++k) s += ((double)v[k].x + (double)v[k].y) + ((double)v[k].z + (double)v[k].w);
  s = cta_sum(s, warp_sum);
  if (threadIdx.x == 0) cta_total_sum = s;
  cluster.sync();
  double total = 0.0;
#pragma unroll
  for (int r = 0; r < kCluster; ++r) total += *cluster.map_shared_rank(&cta_total_sum, r);
  const double mean = total / kGroupLen;

  // Pass 2: biased variance from squared deviations (registers, no second read).
  double m2 = 0.0;
#pragma unroll
  for (int k = 0; k < kVecPerThread; ++k) {
    const double a = (double)v[k].x - mean, b = (double)v[k].y - mean;
    const double c = (double)v[k].z - mean, d = (double)v[k].w - mean;
    m2 += (a * a + b * b) + (c * c + d * d);
  }
  m2 = cta_sum(m2, warp_m2);
  if (threadIdx.x == 0) cta_total_m2 = m2;
  cluster.sync();
  double total_m2 = 0.0;
#pragma unroll
  for (int r = 0; r < kCluster; ++r) total_m2 += *cluster.map_shared_rank(&cta_total_m2, r);
  const double var = total_m2 / kGroupLen;

  const float mean_f = (float)mean;
  const float rstd_f = (float)(1.0 / sqrt(var + (double)eps));

  // Normalize, affine, SiLU, store.
#pragma unroll
  for (int k = 0; k < kVecPerThread; ++k) {
    const int j = slice * (kSlice / 4) + k * kThreads + threadIdx.x; // float4 index within the group
    const int c = g * kChannelsPerGroup + (j * 4) / kHW;            // channel of all four elements
    const float w = weight[c], b = bias[c];
    float4 o;
    o.x = silu((v[k].x - mean_f) * rstd_f * w + b);
    o.y = silu((v[k].y - mean_f) * rstd_f * w + b);
    o.z = silu((v[k].z - mean_f) * rstd_f * w + b);
    o.w = silu((v[k].w - mean_f) * rstd_f * w + b);
    dst[j] = o;
  }

  // No CTA may exit while another CTA of its cluster can still read its shared memory.
  cluster.sync();
}

/* mkb:plan
launch groupnorm_silu grid(batch * groups * 8) block(256) cluster(8) args(x, weight, bias, y, f32(eps))
*/
