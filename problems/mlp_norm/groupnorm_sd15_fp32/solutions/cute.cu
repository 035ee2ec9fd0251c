// Fused GroupNorm + SiLU in CuTe C++: the algorithm of solutions/cuda.cu, one read and one write of x.
// CuTe views x and y as (batch * groups, 40960) rows: each (sample, group) is a contiguous run of
// 40960 floats (NCHW). A row is split across a cluster of 8 CTAs: local_tile gives each CTA its
// 5120-float slice, and a (4, 256, 5) column-major view of the slice gives each of the 256 threads five
// float4 vectors (vector k of thread t is float4 k * 256 + t of the slice), copied with 128-bit vector
// copies into a register fragment held between the passes. The statistics are exchanged through
// distributed shared memory: a cluster-wide sum gives the mean, then a cluster-wide sum of squared
// deviations (two-pass, in double) gives the biased variance. Then normalize, affine, SiLU, and store.
#include <cooperative_groups.h>
#include <cute/tensor.hpp>

namespace cg = cooperative_groups;
using namespace cute;

constexpr int kBatch = 16;
constexpr int kChannels = 320;
constexpr int kGroups = 32;
constexpr int kHW = 64 * 64;
constexpr int kChannelsPerGroup = kChannels / kGroups; // 10
constexpr int kGroupLen = kChannelsPerGroup * kHW;     // 40960 floats per (n, g)
constexpr int kRows = kBatch * kGroups;                // 512 (n, g) rows
constexpr int kCluster = 8;                            // CTAs per group (plan: cluster(8))
constexpr int kThreads = 256;
constexpr int kSlice = kGroupLen / kCluster;           // 5120 floats per CTA
constexpr int kVecPerThread = kSlice / 4 / kThreads;   // 5 float4 per thread

static_assert(kChannels % kGroups == 0, "channels divide into groups");
static_assert(kGroupLen % kCluster == 0, "group splits evenly over the cluster");
static_assert(kSlice % (4 * kThreads) == 0, "slice is a whole number of float4 per thread");
static_assert(kHW % 4 == 0, "a float4 never straddles two channels");

__device__ __forceinline__ float silu(float v) { return v / (1.0f + expf(-v)); }

// Sum over the CTA; the result is valid in thread 0 only.
__device__ __forceinline__ double cta_sum(double v, double *warp_parts) {
  CUTE_UNROLL
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & 31) == 0) warp_parts[threadIdx.x >> 5] = v;
  __syncthreads();
  double total = 0.0;
  if (threadIdx.x == 0) {
    CUTE_UNROLL
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
  const int group = blockIdx.x / kCluster; // n * G + g
  const int slice = blockIdx.x % kCluster; // which eighth of the group this CTA owns
  const int g = group % kGroups;

  // (n*G + g, position in the group) views of x and y, and the per-channel affine parameters.
  auto rows = make_layout(make_shape(Int<kRows>{}, Int<kGroupLen>{}), LayoutRight{});
  Tensor gX = make_tensor(make_gmem_ptr(x), rows);
  Tensor gY = make_tensor(make_gmem_ptr(y), rows);
  Tensor gW = make_tensor(make_gmem_ptr(weight), make_layout(make_shape(Int<kChannels>{})));
  Tensor gB = make_tensor(make_gmem_ptr(bias), make_layout(make_shape(Int<kChannels>{})));

  // This CTA's slice of its group, viewed as (element in float4, thread, vector): (4, 256, 5):(1, 4, 1024).
  auto by_thread = make_layout(make_shape(Int<4>{}, Int<kThreads>{}, Int<kVecPerThread>{}), LayoutLeft{});
  Tensor sX = local_tile(gX(group, _), make_shape(Int<kSlice>{}), make_coord(slice)); // (5120)
  Tensor sY = local_tile(gY(group, _), make_shape(Int<kSlice>{}), make_coord(slice)); // (5120)
  Tensor tX = make_tensor(sX.data(), by_thread)(_, threadIdx.x, _);                   // (4, 5):(1, 1024)
  Tensor tY = make_tensor(sY.data(), by_thread)(_, threadIdx.x, _);                   // (4, 5):(1, 1024)

  Tensor v = make_tensor<float>(make_shape(Int<4>{}, Int<kVecPerThread>{})); // (4, 5) registers
  // Five 16-byte loads, one float4 per vector (this atom leaves the statistics passes spill-free at the
  // 64-register budget of four blocks per SM; the auto-vectorizing copy's 128-bit integer loads did not).
  copy(Copy_Atom<UniversalCopy<float4>, float>{}, tX, v);

  // Pass 1: mean.
  double s = 0.0;
  CUTE_UNROLL
  for (int k = 0; k < kVecPerThread; ++k)
    s += ((double)v(0, k) + (double)v(1, k)) + ((double)v(2, k) + (double)v(3, k));
  s = cta_sum(s, warp_sum);
  if (threadIdx.x == 0) cta_total_sum = s;
  cluster.sync();
  double total = 0.0;
  CUTE_UNROLL
  for (int r = 0; r < kCluster; ++r) total += *cluster.map_shared_rank(&cta_total_sum, r);
  const double mean = total / kGroupLen;

  // Pass 2: biased variance from squared deviations (registers, no second read).
  double m2 = 0.0;
  CUTE_UNROLL
  for (int k = 0; k < kVecPerThread; ++k) {
    const double a = (double)v(0, k) - mean, b = (double)v(1, k) - mean;
    const double c = (double)v(2, k) - mean, d = (double)v(3, k) - mean;
    m2 += (a * a + b * b) + (c * c + d * d);
  }
  m2 = cta_sum(m2, warp_m2);
  if (threadIdx.x == 0) cta_total_m2 = m2;
  cluster.sync();
  double total_m2 = 0.0;
  CUTE_UNROLL
  for (int r = 0; r < kCluster; ++r) total_m2 += *cluster.map_shared_rank(&cta_total_m2, r);
  const double var = total_m2 / kGroupLen;

  const float mean_f = (float)mean;
  const float rstd_f = (float)(1.0 / sqrt(var + (double)eps));

  // Normalize, affine, SiLU, store each vector as soon as it is ready (16-byte stores; NVVM happens to
  // emit the first one as two 8-byte stores, which cover the same sectors).
  CUTE_UNROLL
  for (int k = 0; k < kVecPerThread; ++k) {
    const int j = slice * (kSlice / 4) + k * kThreads + threadIdx.x; // float4 index within the group
    const int c = g * kChannelsPerGroup + (j * 4) / kHW;            // channel of all four elements
    const float w = gW(c), b = gB(c);
    Tensor o = make_tensor<float>(make_shape(Int<4>{}));
    CUTE_UNROLL
    for (int e = 0; e < 4; ++e) o(e) = silu((v(e, k) - mean_f) * rstd_f * w + b);
    Tensor tYk = tY(_, k);
    copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, o, tYk);
  }

  // No CTA may exit while another CTA of its cluster can still read its shared memory.
  cluster.sync();
}

/* mkb:plan
launch groupnorm_silu grid(batch * groups * 8) block(256) cluster(8) args(x, weight, bias, y, f32(eps))
*/
