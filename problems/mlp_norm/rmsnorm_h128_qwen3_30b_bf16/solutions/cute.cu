// Fused q_norm + k_norm in CuTe C++: the algorithm of solutions/cuda.cu. One 288-thread block per token
// covers its 36 head rows (32 of q, then 4 of k). CuTe views q and k as (tokens, heads, 128) tensors and
// tiles each head row into 16 pieces of 8 bf16; every thread takes two pieces (items t and t + 288, i.e.
// heads t/16 and t/16 + 18), copies both into register fragments with 128-bit vector copies before any
// arithmetic, and reduces the sum of squares over its 16-lane half-warp with shuffles. Rounding as the
// eager reference: fp32 statistics, bf16(h * rsqrt(ms + eps)), then bf16(n * w).
#include <cute/tensor.hpp>
#include <cutlass/numeric_types.h>

using namespace cute;
using bf16 = cutlass::bfloat16_t;

constexpr int kTokens = 16384;
constexpr int kQHeads = 32;
constexpr int kKHeads = 4;
constexpr int kHeadDim = 128;
constexpr int kHeads = kQHeads + kKHeads;         // 36 head rows per token
constexpr int kPerThread = 8;                     // 8 bf16 = one 16-byte vector
constexpr int kLanesPerHead = kHeadDim / kPerThread; // 16 lanes x 8 bf16
constexpr int kItems = kHeads * kLanesPerHead;    // 576 pieces per token
constexpr int kThreads = kItems / 2;              // 288 threads, two pieces each

static_assert(kLanesPerHead == 16, "a head row is 16 pieces of 16 bytes");
static_assert(kItems % 2 == 0 && kThreads % 32 == 0, "whole warps");
static_assert((kThreads / kLanesPerHead) * kLanesPerHead == kThreads, "item t + kThreads stays head-aligned");
static_assert((kQHeads * kLanesPerHead) % 32 == 0, "no warp straddles the q/k boundary");

extern "C" __global__ void __launch_bounds__(kThreads)
qk_rmsnorm(const bf16 *__restrict__ q, const bf16 *__restrict__ k, const bf16 *__restrict__ q_weight,
           const bf16 *__restrict__ k_weight, bf16 *__restrict__ q_out, bf16 *__restrict__ k_out, float eps) {
  // Global tensors, row-major with static shapes: (tokens, heads, head_dim) and (head_dim).
  auto q_rows = make_layout(make_shape(Int<kTokens>{}, Int<kQHeads>{}, Int<kHeadDim>{}), LayoutRight{});
  auto k_rows = make_layout(make_shape(Int<kTokens>{}, Int<kKHeads>{}, Int<kHeadDim>{}), LayoutRight{});
  Tensor gQ = make_tensor(make_gmem_ptr(q), q_rows);
  Tensor gK = make_tensor(make_gmem_ptr(k), k_rows);
  Tensor gQo = make_tensor(make_gmem_ptr(q_out), q_rows);
  Tensor gKo = make_tensor(make_gmem_ptr(k_out), k_rows);
  Tensor gQw = make_tensor(make_gmem_ptr(q_weight), make_layout(make_shape(Int<kHeadDim>{})));
  Tensor gKw = make_tensor(make_gmem_ptr(k_weight), make_layout(make_shape(Int<kHeadDim>{})));

  const int token = blockIdx.x;
  const int part = threadIdx.x % kLanesPerHead; // which 8 columns of the head row
  auto piece = make_shape(Int<kPerThread>{});

  // Both pieces' loads are issued before any arithmetic.
  Tensor rX = make_tensor<bf16>(make_shape(Int<kPerThread>{}, Int<2>{})); // (8, 2): column s = piece s
  Tensor rW = make_tensor<bf16>(make_shape(Int<kPerThread>{}, Int<2>{}));
  CUTE_UNROLL
  for (int s = 0; s < 2; ++s) {
    const int head = (threadIdx.x + s * kThreads) / kLanesPerHead; // 0 .. 35
    const bool is_q = head < kQHeads;
    // gQ(token, h, _) and gK(token, h, _) are both (128):(1) views, so one variable holds either.
    Tensor row = is_q ? gQ(token, head, _) : gK(token, head - kQHeads, _);
    Tensor w = is_q ? gQw : gKw;
    Tensor rXs = rX(_, s);
    Tensor rWs = rW(_, s);
    copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(row, piece, make_coord(part)), rXs);
    copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(w, piece, make_coord(part)), rWs);
  }

  CUTE_UNROLL
  for (int s = 0; s < 2; ++s) {
    const int head = (threadIdx.x + s * kThreads) / kLanesPerHead;
    const bool is_q = head < kQHeads;
    float h[kPerThread];
    float square_sum = 0.0f;
    CUTE_UNROLL
    for (int e = 0; e < kPerThread; ++e) {
      h[e] = float(rX(e, s));
      square_sum += h[e] * h[e];
    }
    // The 16 lanes of one head row are an aligned half-warp: xor offsets below 16 stay inside it.
    CUTE_UNROLL
    for (int offset = kLanesPerHead / 2; offset > 0; offset >>= 1)
      square_sum += __shfl_xor_sync(0xffffffffu, square_sum, offset);
    const float inv = rsqrtf(square_sum / (float)kHeadDim + eps);

    Tensor rY = make_tensor<bf16>(piece);
    CUTE_UNROLL
    for (int e = 0; e < kPerThread; ++e) {
      const bf16 n = bf16(h[e] * inv);                // round to nearest even
      rY(e) = bf16(float(rW(e, s)) * float(n));       // bf16 weight multiply, one rounding
    }
    Tensor dst = is_q ? gQo(token, head, _) : gKo(token, head - kQHeads, _);
    copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, rY, local_tile(dst, piece, make_coord(part)));
  }
}

/* mkb:plan
launch qk_rmsnorm grid(tokens) block(288) args(q, k, q_weight, k_weight, q_out, k_out, f32(eps))
*/
