// Fused RMSNorm backward from saved normalized activations and rstd (Qwen3-4B, hidden 2560).
//
// Kernel 1 (persistent): 264 blocks = 2 per SM on 132 SMs, 320 threads each; a block walks rows
// blockIdx.x, blockIdx.x + gridDim.x, ... and each thread owns 8 contiguous columns (one 16-byte vector
// of each tensor; 320 * 8 = 2560 = hidden exactly). Per row: one pass over grad_output and normalized
// (loaded one row ahead, so the next row's loads are in flight during this row's reduction), one block
// reduction of sum(g * n), then the gradient is written to both outputs. The weight gradient is
// accumulated per thread in fp32 registers across the block's rows and written once per block as an
// fp32 partial row. Kernel 2 sums the 264 partial rows per column and rounds once to bf16.
// All arithmetic is fp32 and the only roundings are the final bf16 casts, as in reference.md; only
// summation orders differ from the baseline.
#include <cuda_bf16.h>

typedef __nv_bfloat16 bf16;

constexpr int kHidden = 2560;
constexpr int kVec = 8;                   // bf16 per 16-byte vector
constexpr int kThreads = kHidden / kVec;  // 320
constexpr int kWarps = kThreads / 32;     // 10
static_assert(kThreads * kVec == kHidden, "each thread owns exactly one 16-byte vector of a row");
static_assert(kThreads % 32 == 0, "whole warps");

union pack8 {
  uint4 v;
  bf16 e[8];
};

__device__ __forceinline__ float bf(bf16 v) { return __bfloat162float(v); }
__device__ __forceinline__ bf16 rn(float v) { return __float2bfloat16_rn(v); }
__device__ __forceinline__ uint4 load16(const bf16 *p) { return __ldg(reinterpret_cast<const uint4 *>(p)); }

extern "C" __global__ void __launch_bounds__(kThreads, 2)
rmsnorm_backward(const bf16 *__restrict__ grad_output, const bf16 *__restrict__ normalized,
                 const bf16 *__restrict__ rstd, const bf16 *__restrict__ weight, bf16 *__restrict__ grad_hidden,
                 bf16 *__restrict__ grad_residual, float *__restrict__ gw_partial, long long rows) {
  __shared__ float red[2][kWarps];  // double-buffered by row parity: one __syncthreads per row
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int col = tid * kVec;

  pack8 wp;
  wp.v = load16(weight + col);
  float w[kVec], gw[kVec];
#pragma unroll
  for (int k = 0; k < kVec; ++k) {
    w[k] = bf(wp.e[k]);
    gw[k] = 0.0f;
  }

  long long row = blockIdx.x;
  uint4 ngo = make_uint4(0, 0, 0, 0), nn = ngo;
  float nr = 0.0f;
  if (row < rows) {
    ngo = load16(grad_output + row * kHidden + col);
    nn = load16(normalized + row * kHidden + col);
    nr = bf(rstd[row]);
  }
  int parity = 0;
  for (; row < rows; row += gridDim.x) {
    pack8 cgo, cn;
    cgo.v = ngo;
    cn.v = nn;
    const float r = nr;
    const long long next = row + gridDim.x;
    if (next < rows) {
      ngo = load16(grad_output + next * kHidden + col);
      nn = load16(normalized + next * kHidden + col);
      nr = bf(rstd[next]);
    }

    float g[kVec], n[kVec], dot = 0.0f;
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      const float dy = bf(cgo.e[k]);
      n[k] = bf(cn.e[k]);
      g[k] = dy * w[k];
      gw[k] += dy * n[k];
      dot += g[k] * n[k];
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, offset);
    if (lane == 0) red[parity][warp] = dot;
    __syncthreads();
    float total = 0.0f;
#pragma unroll
    for (int i = 0; i < kWarps; ++i) total += red[parity][i];
    parity ^= 1;

    const float mean = total / (float)kHidden;  // (g * n).mean(-1)
    pack8 out;
#pragma unroll
    for (int k = 0; k < kVec; ++k) out.e[k] = rn(r * (g[k] - n[k] * mean));
    *reinterpret_cast<uint4 *>(grad_hidden + row * kHidden + col) = out.v;
    *reinterpret_cast<uint4 *>(grad_residual + row * kHidden + col) = out.v;
  }

  float4 *dst = reinterpret_cast<float4 *>(gw_partial + (long long)blockIdx.x * kHidden + col);
  dst[0] = make_float4(gw[0], gw[1], gw[2], gw[3]);
  dst[1] = make_float4(gw[4], gw[5], gw[6], gw[7]);
}

// grad_weight[c] = bf16(sum over parts of gw_partial[p, c]); block (32, 32): 32 columns x 32 part lanes.
extern "C" __global__ void __launch_bounds__(1024)
grad_weight_reduce(const float *__restrict__ gw_partial, bf16 *__restrict__ grad_weight, int parts) {
  __shared__ float sums[32][33];
  const int c = blockIdx.x * 32 + threadIdx.x;
  float acc = 0.0f;
  if (c < kHidden)
    for (int p = threadIdx.y; p < parts; p += 32) acc += gw_partial[(long long)p * kHidden + c];
  sums[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && c < kHidden) {
    float total = 0.0f;
#pragma unroll 8
    for (int y = 0; y < 32; ++y) total += sums[y][threadIdx.x];
    grad_weight[c] = rn(total);
  }
}

/* mkb:plan
# 264 = 2 resident blocks per SM x 132 SMs.
scratch gw_partial fp32[264 * hidden_size]
launch rmsnorm_backward grid(264) block(320)
  args(grad_output, normalized, rstd, weight, grad_hidden_states, grad_residual, gw_partial, i64(batch_size * seq_len))
launch grad_weight_reduce grid(ceil_div(hidden_size, 32)) block(32, 32) args(gw_partial, grad_weight, i32(264))
*/
