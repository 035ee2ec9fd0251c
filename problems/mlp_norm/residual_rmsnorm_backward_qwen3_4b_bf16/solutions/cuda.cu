// Fused backward of residual add + RMSNorm (Qwen3-4B, hidden 2560), forward recomputed in registers.
//
// Kernel 1 (persistent): 264 blocks = 2 per SM on 132 SMs, 320 threads each; a block walks rows
// blockIdx.x, blockIdx.x + gridDim.x, ... and each thread owns 8 contiguous columns (one 16-byte vector
// of each tensor; 320 * 8 = 2560 = hidden exactly). Per row: one pass over x, residual, dy, ds (loaded
// one row ahead, so the next row's loads are in flight during this row's reduction), a single block
// reduction of two sums (sum h^2 and sum grad_n * h), then dx is written. The weight gradient is
// accumulated per thread in fp32 registers across the block's rows and written once per block as an
// fp32 partial row. Kernel 2 sums the 264 partial rows per column and rounds once to bf16.
// Rounding points follow the eager reference (reference.md) exactly; only summation orders differ.
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
residual_rmsnorm_backward(const bf16 *__restrict__ x, const bf16 *__restrict__ residual,
                          const bf16 *__restrict__ weight, const bf16 *__restrict__ dy,
                          const bf16 *__restrict__ ds, bf16 *__restrict__ dx, float *__restrict__ dw_partial,
                          int tokens, float eps) {
  __shared__ float2 red[2][kWarps];  // double-buffered by row parity: one __syncthreads per row
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int col = tid * kVec;

  pack8 wp;
  wp.v = load16(weight + col);
  float dw[kVec];
#pragma unroll
  for (int k = 0; k < kVec; ++k) dw[k] = 0.0f;

  long long row = blockIdx.x;
  uint4 nx = make_uint4(0, 0, 0, 0), nr = nx, ndy = nx, nds = nx;
  if (row < tokens) {
    const long long base = row * kHidden + col;
    nx = load16(x + base);
    nr = load16(residual + base);
    ndy = load16(dy + base);
    nds = load16(ds + base);
  }
  int parity = 0;
  for (; row < tokens; row += gridDim.x) {
    pack8 cx, cr, cdy, cds;
    cx.v = nx;
    cr.v = nr;
    cdy.v = ndy;
    cds.v = nds;
    const long long next = row + gridDim.x;
    if (next < tokens) {
      const long long base = next * kHidden + col;
      nx = load16(x + base);
      nr = load16(residual + base);
      ndy = load16(dy + base);
      nds = load16(ds + base);
    }

    // s = bf16(x + residual), h = fp32(s); grad_n = bf16(dy * weight)
    // (h and grad_n are recomputed from the packed vectors after the reduction instead of being kept
    // in 16 more registers, to keep register pressure and the one-row-ahead loads affordable)
    float square_sum = 0.0f, dot = 0.0f;
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      const float h = bf(rn(bf(cr.e[k]) + bf(cx.e[k])));
      const float g = bf(rn(bf(cdy.e[k]) * bf(wp.e[k])));
      square_sum += h * h;
      dot += g * h;
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
      square_sum += __shfl_xor_sync(0xffffffffu, square_sum, offset);
      dot += __shfl_xor_sync(0xffffffffu, dot, offset);
    }
    if (lane == 0) red[parity][warp] = make_float2(square_sum, dot);
    __syncthreads();
    float total_sq = 0.0f, total_dot = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const float2 p = red[parity][w];
      total_sq += p.x;
      total_dot += p.y;
    }
    parity ^= 1;

    // r = rsqrt(mean(h^2) + eps); grad_v = (-0.5 * grad_r) * r^3; grad_q = grad_v / hidden
    const float r = rsqrtf(total_sq / (float)kHidden + eps);
    const float grad_q = ((-0.5f * total_dot) * (r * r * r)) / (float)kHidden;
    pack8 out;
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      const float h = bf(rn(bf(cr.e[k]) + bf(cx.e[k])));
      const float g = bf(rn(bf(cdy.e[k]) * bf(wp.e[k])));
      const float n = bf(rn(h * r));                    // n = bf16(h * r)
      dw[k] += bf(rn(bf(cdy.e[k]) * n));                // bf16(dy * n), fp32 accumulation
      const float grad_h = g * r + grad_q * (2.0f * h);
      const float grad_s = bf(rn(grad_h));              // ToCopyBackward to bf16
      out.e[k] = rn(grad_s + bf(cds.e[k]));             // + residual-stream gradient, bf16
    }
    *reinterpret_cast<uint4 *>(dx + row * kHidden + col) = out.v;
  }

  float4 *dst = reinterpret_cast<float4 *>(dw_partial + (long long)blockIdx.x * kHidden + col);
  dst[0] = make_float4(dw[0], dw[1], dw[2], dw[3]);
  dst[1] = make_float4(dw[4], dw[5], dw[6], dw[7]);
}

// dweight[c] = bf16(sum over parts of dw_partial[p, c]); block (32, 32): 32 columns x 32 part lanes.
extern "C" __global__ void __launch_bounds__(1024)
dweight_reduce(const float *__restrict__ dw_partial, bf16 *__restrict__ dweight, int parts) {
  __shared__ float sums[32][33];
  const int c = blockIdx.x * 32 + threadIdx.x;
  float acc = 0.0f;
  if (c < kHidden)
    for (int p = threadIdx.y; p < parts; p += 32) acc += dw_partial[(long long)p * kHidden + c];
  sums[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && c < kHidden) {
    float total = 0.0f;
#pragma unroll 8
    for (int y = 0; y < 32; ++y) total += sums[y][threadIdx.x];
    dweight[c] = rn(total);
  }
}

/* mkb:plan
# 264 = 2 resident blocks per SM x 132 SMs (launch bounds: at most 96 registers per thread; 90 used, no spills).
# With the one-row-ahead loads, 640 threads x 64 bytes = 40 KiB are in flight per SM.
scratch dw_partial fp32[264 * hidden]
launch residual_rmsnorm_backward grid(264) block(320)
  args(x, residual, weight, dy, ds, dx, dw_partial, i32(tokens), f32(eps))
launch dweight_reduce grid(ceil_div(hidden, 32)) block(32, 32) args(dw_partial, dweight, i32(264))
*/
