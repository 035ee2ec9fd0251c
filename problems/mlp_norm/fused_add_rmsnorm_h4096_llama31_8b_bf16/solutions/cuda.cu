// Fused add + RMSNorm: one 512-thread block per row, each thread owning 8 contiguous columns held in
// registers between the two passes. 16-byte loads and stores; one block reduction per row. fp32
// throughout, one rounding at the end, as the reference.
#include <cuda_bf16.h>

constexpr int kHidden = 4096;
constexpr int kThreads = 512;
constexpr int kPerThread = kHidden / kThreads; // 8 bf16 = one 16-byte vector

union pack8 {
  uint4 vector;
  __nv_bfloat16 values[8];
};

extern "C" __global__ void __launch_bounds__(kThreads)
fused_add_rmsnorm(const __nv_bfloat16 *__restrict__ x, const __nv_bfloat16 *__restrict__ residual,
                  const __nv_bfloat16 *__restrict__ weight, __nv_bfloat16 *__restrict__ y, float eps) {
  __shared__ float warp_sums[kThreads / 32];
  const long long row = (long long)blockIdx.x * kHidden;
  const int column = threadIdx.x * kPerThread;

  pack8 xs, rs;
  xs.vector = *reinterpret_cast<const uint4 *>(x + row + column);
  rs.vector = *reinterpret_cast<const uint4 *>(residual + row + column);
  float sums[kPerThread];
  float square_sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    sums[k] = __bfloat162float(xs.values[k]) + __bfloat162float(rs.values[k]);
    square_sum += sums[k] * sums[k];
  }

#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) square_sum += __shfl_xor_sync(0xffffffffu, square_sum, offset);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = square_sum;
  __syncthreads();
  float total = threadIdx.x < kThreads / 32 ? warp_sums[threadIdx.x] : 0.0f;
  if (threadIdx.x < 32) {
#pragma unroll
    for (int offset = 8; offset > 0; offset >>= 1) total += __shfl_xor_sync(0xffffffffu, total, offset);
    if (threadIdx.x == 0) warp_sums[0] = total;
  }
  __syncthreads();
  const float inv = rsqrtf(warp_sums[0] / kHidden + eps);

  pack8 ws, out;
  ws.vector = *reinterpret_cast<const uint4 *>(weight + column);
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    out.values[k] = __float2bfloat16_rn((sums[k] * inv) * __bfloat162float(ws.values[k]));
  }
  *reinterpret_cast<uint4 *>(y + row + column) = out.vector;
}

/* mkb:plan
launch fused_add_rmsnorm grid(batch_size) block(512) args(hidden_states, residual, weight, y, f32(eps))
*/
