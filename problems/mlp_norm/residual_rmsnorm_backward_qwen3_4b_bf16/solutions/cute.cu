// Fused backward of residual add + RMSNorm (Qwen3-4B, hidden 2560) in CuTe C++: the algorithm of
// solutions/cuda.cu, forward recomputed in registers.
//
// Kernel 1 (persistent): 264 blocks = 2 per SM on 132 SMs, 320 threads each; a block walks rows
// blockIdx.x, blockIdx.x + gridDim.x, ... CuTe views every [tokens, hidden] tensor as a static
// (32768, 2560) row-major tensor and tiles a row into 8-column pieces, one per thread (320 * 8 = 2560),
// moved between global memory and register fragments with 128-bit vector copies. Per row: one pass
// over x, residual, dy, ds (copied one row ahead, so the next row's loads are in flight during this
// row's reduction), a single block reduction of two sums (sum h^2 and sum grad_n * h), then dx is
// written. The weight gradient is accumulated per thread in an fp32 register fragment across the
// block's rows and written once per block as an fp32 partial row. Kernel 2 sums the partial rows per
// column and rounds once to bf16. Rounding points follow the eager reference (reference.md) exactly;
// only summation orders differ.
#include <cute/tensor.hpp>
#include <cutlass/numeric_types.h>

using namespace cute;
using bf16 = cutlass::bfloat16_t;

constexpr int kTokens = 32768;
constexpr int kHidden = 2560;
constexpr int kVec = 8;                  // bf16 per 16-byte vector
constexpr int kThreads = kHidden / kVec; // 320
constexpr int kWarps = kThreads / 32;    // 10
static_assert(kThreads * kVec == kHidden, "each thread owns exactly one 16-byte vector of a row");
static_assert(kThreads % 32 == 0, "whole warps");

__device__ __forceinline__ float rn(float v) { return float(bf16(v)); } // round to bf16 (nearest even), back to fp32

extern "C" __global__ void __launch_bounds__(kThreads, 2)
residual_rmsnorm_backward(const bf16 *__restrict__ x, const bf16 *__restrict__ residual,
                          const bf16 *__restrict__ weight, const bf16 *__restrict__ dy,
                          const bf16 *__restrict__ ds, bf16 *__restrict__ dx, float *__restrict__ dw_partial,
                          int tokens, float eps) {
  __shared__ float2 red[2][kWarps]; // double-buffered by row parity: one __syncthreads per row
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

  auto rows = make_layout(make_shape(Int<kTokens>{}, Int<kHidden>{}), LayoutRight{});
  Tensor gX = make_tensor(make_gmem_ptr(x), rows);
  Tensor gR = make_tensor(make_gmem_ptr(residual), rows);
  Tensor gDY = make_tensor(make_gmem_ptr(dy), rows);
  Tensor gDS = make_tensor(make_gmem_ptr(ds), rows);
  Tensor gDX = make_tensor(make_gmem_ptr(dx), rows);
  Tensor gW = make_tensor(make_gmem_ptr(weight), make_layout(make_shape(Int<kHidden>{})));
  // One fp32 partial row of the weight gradient per block: (gridDim.x, hidden), row-major.
  Tensor gP = make_tensor(make_gmem_ptr(dw_partial),
                          make_layout(make_shape(int(gridDim.x), Int<kHidden>{}), LayoutRight{}));

  auto piece = make_shape(Int<kVec>{});
  auto mine = make_coord(tid); // this thread's 8 contiguous columns

  Tensor rW = make_tensor<bf16>(piece);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gW, piece, mine), rW);
  Tensor dw = make_tensor<float>(piece);
  CUTE_UNROLL
  for (int k = 0; k < kVec; ++k) dw(k) = 0.0f;

  // Register fragments: the next row's inputs (in flight) and the current row's.
  Tensor nX = make_tensor<bf16>(piece), nR = make_tensor<bf16>(piece);
  Tensor nDY = make_tensor<bf16>(piece), nDS = make_tensor<bf16>(piece);
  Tensor cX = make_tensor<bf16>(piece), cR = make_tensor<bf16>(piece);
  Tensor cDY = make_tensor<bf16>(piece), cDS = make_tensor<bf16>(piece);

  int row = blockIdx.x;
  if (row < tokens) {
    copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gX(row, _), piece, mine), nX);
    copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gR(row, _), piece, mine), nR);
    copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gDY(row, _), piece, mine), nDY);
    copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gDS(row, _), piece, mine), nDS);
  }
  int parity = 0;
  for (; row < tokens; row += gridDim.x) {
    copy(nX, cX);
    copy(nR, cR);
    copy(nDY, cDY);
    copy(nDS, cDS);
    const int next = row + gridDim.x;
    if (next < tokens) {
      copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gX(next, _), piece, mine), nX);
      copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gR(next, _), piece, mine), nR);
      copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gDY(next, _), piece, mine), nDY);
      copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gDS(next, _), piece, mine), nDS);
    }

    // s = bf16(residual + x), h = fp32(s); grad_n = bf16(dy * weight)
    // (h and grad_n are recomputed from the bf16 fragments after the reduction instead of being kept in
    // 16 more registers, to keep register pressure and the one-row-ahead loads affordable)
    float square_sum = 0.0f, dot = 0.0f;
    CUTE_UNROLL
    for (int k = 0; k < kVec; ++k) {
      const float h = rn(float(cR(k)) + float(cX(k)));
      const float g = rn(float(cDY(k)) * float(rW(k)));
      square_sum += h * h;
      dot += g * h;
    }
    CUTE_UNROLL
    for (int offset = 16; offset > 0; offset >>= 1) {
      square_sum += __shfl_xor_sync(0xffffffffu, square_sum, offset);
      dot += __shfl_xor_sync(0xffffffffu, dot, offset);
    }
    if (lane == 0) red[parity][warp] = make_float2(square_sum, dot);
    __syncthreads();
    float total_sq = 0.0f, total_dot = 0.0f;
    CUTE_UNROLL
    for (int w = 0; w < kWarps; ++w) {
      const float2 p = red[parity][w];
      total_sq += p.x;
      total_dot += p.y;
    }
    parity ^= 1;

    // r = rsqrt(mean(h^2) + eps); grad_v = (-0.5 * grad_r) * r^3; grad_q = grad_v / hidden
    const float r = rsqrtf(total_sq / (float)kHidden + eps);
    const float grad_q = ((-0.5f * total_dot) * (r * r * r)) / (float)kHidden;
    Tensor out = make_tensor<bf16>(piece);
    CUTE_UNROLL
    for (int k = 0; k < kVec; ++k) {
      const float h = rn(float(cR(k)) + float(cX(k)));
      const float g = rn(float(cDY(k)) * float(rW(k)));
      const float n = rn(h * r);                      // n = bf16(h * r)
      dw(k) += rn(float(cDY(k)) * n);                 // bf16(dy * n), fp32 accumulation
      const float grad_h = g * r + grad_q * (2.0f * h);
      const float grad_s = rn(grad_h);                // ToCopyBackward to bf16
      out(k) = bf16(grad_s + float(cDS(k)));          // + residual-stream gradient, bf16
    }
    copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, out, local_tile(gDX(row, _), piece, mine));
  }

  // This block's partial row: two 16-byte stores.
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, dw, local_tile(gP(blockIdx.x, _), piece, mine));
}

// dweight[c] = bf16(sum over parts of dw_partial[p, c]); block (32, 32): 32 columns x 32 part lanes.
extern "C" __global__ void __launch_bounds__(1024)
dweight_reduce(const float *__restrict__ dw_partial, bf16 *__restrict__ dweight, int parts) {
  __shared__ float sums[32][33];
  Tensor gP = make_tensor(make_gmem_ptr(dw_partial), make_layout(make_shape(parts, Int<kHidden>{}), LayoutRight{}));
  Tensor gD = make_tensor(make_gmem_ptr(dweight), make_layout(make_shape(Int<kHidden>{})));
  const int c = blockIdx.x * 32 + threadIdx.x;
  float acc = 0.0f;
  if (c < kHidden)
    for (int p = threadIdx.y; p < parts; p += 32) acc += gP(p, c);
  sums[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && c < kHidden) {
    float total = 0.0f;
#pragma unroll 8
    for (int y = 0; y < 32; ++y) total += sums[y][threadIdx.x];
    gD(c) = bf16(total); // round to nearest even, once
  }
}

/* mkb:plan
# 264 = 2 resident blocks per SM x 132 SMs (launch bounds: at most 96 registers per thread).
# With the one-row-ahead loads, 640 threads x 64 bytes = 40 KiB are in flight per SM.
scratch dw_partial fp32[264 * hidden]
launch residual_rmsnorm_backward grid(264) block(320)
  args(x, residual, weight, dy, ds, dx, dw_partial, i32(tokens), f32(eps))
launch dweight_reduce grid(ceil_div(hidden, 32)) block(32, 32) args(dw_partial, dweight, i32(264))
*/
