// Fused q_norm + k_norm: one pass over q and k. One 288-thread block per token covers its 36 head rows
// (32 of q, then 4 of k) as 576 16-byte pieces, 16 lanes per head row (8 bf16 each); every thread
// takes two pieces (items t and t + 288, i.e. heads t/16 and t/16 + 18), issues both loads first, and
// reduces the sum of squares over its 16-lane half-warp with shuffles. Rounding as the eager
// reference: fp32 statistics, bf16(h * rsqrt(ms + eps)), then bf16(n * w).
#include <cuda_bf16.h>

constexpr int kQHeads = 32;
constexpr int kKHeads = 4;
constexpr int kHeadDim = 128;
constexpr int kHeads = kQHeads + kKHeads;         // 36 head rows per token
constexpr int kLanesPerHead = kHeadDim / 8;       // 16 lanes x 8 bf16
constexpr int kItems = kHeads * kLanesPerHead;    // 576 pieces per token
constexpr int kThreads = kItems / 2;              // 288 threads, two pieces each

static_assert(kHeadDim % 8 == 0 && kLanesPerHead == 16, "a head row is 16 pieces of 16 bytes");
static_assert(kItems % 2 == 0 && kThreads % 32 == 0, "whole warps");
static_assert((kThreads / kLanesPerHead) * kLanesPerHead == kThreads, "item t + kThreads stays head-aligned");
static_assert((kQHeads * kLanesPerHead) % 32 == 0, "no warp straddles the q/k boundary");

union pack8 {
  uint4 vector;
  __nv_bfloat16 values[8];
};

extern "C" __global__ void __launch_bounds__(kThreads)
qk_rmsnorm(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k,
           const __nv_bfloat16 *__restrict__ q_weight, const __nv_bfloat16 *__restrict__ k_weight,
           __nv_bfloat16 *__restrict__ q_out, __nv_bfloat16 *__restrict__ k_out, float eps) {
  const long long token = blockIdx.x;
  const int part = threadIdx.x % kLanesPerHead; // which 8 columns of the head row

  const __nv_bfloat16 *src[2];
  __nv_bfloat16 *dst[2];
  const __nv_bfloat16 *wsrc[2];
#pragma unroll
  for (int s = 0; s < 2; ++s) {
    const int head = (threadIdx.x + s * kThreads) / kLanesPerHead; // 0 .. 35
    if (head < kQHeads) {
      const long long offset = (token * kQHeads + head) * kHeadDim + part * 8;
      src[s] = q + offset;
      dst[s] = q_out + offset;
      wsrc[s] = q_weight + part * 8;
    } else {
      const long long offset = (token * kKHeads + (head - kQHeads)) * kHeadDim + part * 8;
      src[s] = k + offset;
      dst[s] = k_out + offset;
      wsrc[s] = k_weight + part * 8;
    }
  }

  pack8 xs[2], ws[2];
#pragma unroll
  for (int s = 0; s < 2; ++s) xs[s].vector = *reinterpret_cast<const uint4 *>(src[s]);
#pragma unroll
  for (int s = 0; s < 2; ++s) ws[s].vector = *reinterpret_cast<const uint4 *>(wsrc[s]);

#pragma unroll
  for (int s = 0; s < 2; ++s) {
    float h[8];
    float square_sum = 0.0f;
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      h[e] = __bfloat162float(xs[s].values[e]);
      square_sum += h[e] * h[e];
    }
    // The 16 lanes of one head row are an aligned half-warp: xor offsets below 16 stay inside it.
#pragma unroll
    for (int offset = kLanesPerHead / 2; offset > 0; offset >>= 1)
      square_sum += __shfl_xor_sync(0xffffffffu, square_sum, offset);
    const float inv = rsqrtf(square_sum / (float)kHeadDim + eps);
    pack8 out;
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const __nv_bfloat16 n = __float2bfloat16_rn(h[e] * inv);
      out.values[e] = __float2bfloat16_rn(__bfloat162float(ws[s].values[e]) * __bfloat162float(n));
    }
    *reinterpret_cast<uint4 *>(dst[s]) = out.vector;
  }
}

/* mkb:plan
launch qk_rmsnorm grid(tokens) block(288) args(q, k, q_weight, k_weight, q_out, k_out, f32(eps))
*/
