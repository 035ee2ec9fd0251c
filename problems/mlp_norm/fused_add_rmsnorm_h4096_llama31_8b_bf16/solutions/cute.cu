// Fused add + RMSNorm in CuTe C++: the algorithm of solutions/cuda.cu. One 512-thread block per row;
// CuTe tiles the row into 8-column pieces, one per thread, moved between global memory and register
// fragments with 128-bit vector copies. The fp32 sums stay in registers between the two passes;
// one block reduction per row. fp32 throughout and one rounding, as reference.md.
#include <cute/tensor.hpp>
#include <cutlass/numeric_types.h>

using namespace cute;
using bf16 = cutlass::bfloat16_t;

constexpr int kTokens = 14509;
constexpr int kHidden = 4096;
constexpr int kThreads = 512;
constexpr int kPerThread = kHidden / kThreads; // 8 bf16 = one 16-byte vector

extern "C" __global__ void __launch_bounds__(kThreads)
fused_add_rmsnorm(const bf16 *__restrict__ x, const bf16 *__restrict__ residual, const bf16 *__restrict__ weight,
                  bf16 *__restrict__ y, float eps) {
  __shared__ float warp_sums[kThreads / 32];

  auto rows = make_layout(make_shape(Int<kTokens>{}, Int<kHidden>{}), LayoutRight{});
  Tensor gX = make_tensor(make_gmem_ptr(x), rows);
  Tensor gR = make_tensor(make_gmem_ptr(residual), rows);
  Tensor gY = make_tensor(make_gmem_ptr(y), rows);
  Tensor gW = make_tensor(make_gmem_ptr(weight), make_layout(make_shape(Int<kHidden>{})));

  // This thread's 8 contiguous columns of this block's row (and of the weight).
  auto piece = make_shape(Int<kPerThread>{});
  Tensor tX = local_tile(gX(blockIdx.x, _), piece, make_coord(threadIdx.x)); // (8)
  Tensor tR = local_tile(gR(blockIdx.x, _), piece, make_coord(threadIdx.x)); // (8)
  Tensor tY = local_tile(gY(blockIdx.x, _), piece, make_coord(threadIdx.x)); // (8)
  Tensor tW = local_tile(gW, piece, make_coord(threadIdx.x));                 // (8)

  Tensor rX = make_tensor<bf16>(piece);
  Tensor rR = make_tensor<bf16>(piece);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, tX, rX);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, tR, rR);

  float sums[kPerThread];
  float square_sum = 0.0f;
  CUTE_UNROLL
  for (int k = 0; k < kPerThread; ++k) {
    sums[k] = float(rX(k)) + float(rR(k)); // not rounded
    square_sum += sums[k] * sums[k];
  }

  CUTE_UNROLL
  for (int offset = 16; offset > 0; offset >>= 1) square_sum += __shfl_xor_sync(0xffffffffu, square_sum, offset);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = square_sum;
  __syncthreads();
  float total = threadIdx.x < kThreads / 32 ? warp_sums[threadIdx.x] : 0.0f;
  if (threadIdx.x < 32) {
    CUTE_UNROLL
    for (int offset = 8; offset > 0; offset >>= 1) total += __shfl_xor_sync(0xffffffffu, total, offset);
    if (threadIdx.x == 0) warp_sums[0] = total;
  }
  __syncthreads();
  const float inv = rsqrtf(warp_sums[0] / kHidden + eps);

  Tensor rW = make_tensor<bf16>(piece);
  Tensor rY = make_tensor<bf16>(piece);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, tW, rW);
  CUTE_UNROLL
  for (int k = 0; k < kPerThread; ++k) {
    rY(k) = bf16((sums[k] * inv) * float(rW(k))); // the only rounding
  }
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, rY, tY);
}

/* mkb:plan
launch fused_add_rmsnorm grid(batch_size) block(512) args(hidden_states, residual, weight, y, f32(eps))
*/
