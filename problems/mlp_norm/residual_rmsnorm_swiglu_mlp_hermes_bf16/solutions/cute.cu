// Fused residual add + RMSNorm + SwiGLU MLP for a 32-token decode step (Llama 3.1 8B shapes) in CuTe C++:
// the algorithm, launch plan and rounding points of solutions/cuda.cu. The sublayer is bound by streaming
// 352 MB of bf16 weights once, so three launches keep HBM busy:
//   1. add_rmsnorm: one 512-thread block per token: residual = bf16(x + residual) in place,
//      n = bf16(bf16(s * rsqrt(mean(s^2) + eps)) * w); CuTe 128-bit vector copies of 8-column pieces.
//   2. gate_up_swiglu: a CTA owns 64 intermediate columns j (64 gate rows + the 64 matching up rows) over
//      the full K = 4096 (224 CTAs, 2 per SM). A double-buffered CuTe cp.async pipeline (TiledCopy of
//      16-byte SM80 cp.async, 128 k per stage = 256 contiguous bytes per weight row) fills XOR-swizzled
//      shared tiles (Swizzle<3,3,3> over 8 x 64 atoms); fragments are loaded with ldmatrix (CuTe
//      SM75_U32x4_LDSM_N copies retiled to the MMA) and multiplied with a CuTe TiledMMA of the SM80
//      m16n8k16 bf16 atom (fp32 accumulation): the weights are the M side (64 rows, 4 warps of 16), the 32
//      tokens the N side (2 warps of 16). The gate and up tiles share the token fragments; the epilogue
//      applies h = bf16(bf16(silu(bf16 g)) * bf16 u) in registers (gate and up values of one (j, t) sit
//      in the same thread) and writes h = bf16 [32, 14336].
//   3. down_proj: 128 output rows per CTA (two 64-row halves through the same mainloop), split-K by 7
//      (2048 each; 32 x 7 = 224 CTAs), fp32 partials; the last CTA of each row tile (atomic ticket in a
//      zeroed scratch) sums the 7 partials in split order and rounds once to bf16.
// Compile-checked only (no GPU run by the author). Expected speed: close to cuda.cu (same pipeline, tile
// shapes and traffic; ldmatrix instead of cuda.cu's permuted-k 16-byte fragment loads).
#include <cute/tensor.hpp>
#include <cutlass/numeric_types.h>

using namespace cute;
using bf16 = cutlass::bfloat16_t;

constexpr int kTokens = 32;
constexpr int kHidden = 4096;
constexpr int kInter = 14336;
constexpr int kBK = 128;     // k per pipeline stage
constexpr int kHalf = 64;    // weight rows per half tile (gate / up, or one half of 128 w_down rows)
constexpr int kStages = 2;
constexpr int kThreads = 256; // 8 warps: 4 (rows) x 2 (tokens)
constexpr int kDownSplits = 7;
constexpr int kDownK = kInter / kDownSplits; // 2048
constexpr int kDownRows = 2 * kHalf;         // 128 output rows per down CTA
constexpr int kHalfElems = kHalf * kBK * kStages;  // 16384 bf16 per half operand (all stages)
constexpr int kTokElems = kTokens * kBK * kStages; // 8192
constexpr int kSmemBytes = (2 * kHalfElems + kTokElems) * 2; // 81920: the plan's shared()
static_assert(kSmemBytes == 81920, "plan shared() size");
static_assert(kHidden % kBK == 0 && kDownK % kBK == 0 && kInter % kDownSplits == 0, "k tiling");
static_assert(kInter % kHalf == 0 && kHidden % kDownRows == 0, "row tiling");
static_assert(kTokens == 32, "the MMA tiling assumes 32 tokens");

namespace sk {
// Shared tiles: (rows, 128 k, stage), built from 8 x 64 atoms with the 128-byte XOR swizzle (16-byte
// chunk c of row r at chunk c ^ (r % 8)), so the cp.async writes and the ldmatrix reads are conflict-free.
using SmemAtom = decltype(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_8, _64>, Stride<_64, _1>>{}));
using SmemHalf = decltype(tile_to_shape(SmemAtom{}, Shape<Int<kHalf>, Int<kBK>, Int<kStages>>{}));
using SmemTok = decltype(tile_to_shape(SmemAtom{}, Shape<Int<kTokens>, Int<kBK>, Int<kStages>>{}));

// Global -> shared: 256 threads as 16 rows x 16 chunks of 8 bf16; a pass moves 16 rows x 128 k.
using G2S = decltype(make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, bf16>{},
                                     Layout<Shape<_16, _16>, Stride<_16, _1>>{}, Layout<Shape<_1, _8>>{}));

// 8 warps as 4 (M: 16 weight rows each) x 2 (N: 16 tokens each, as 2 atoms of 8); the N permutation
// gives warp wn tokens 16 wn .. 16 wn + 15.
using MMA = decltype(make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN{}, Layout<Shape<_4, _2, _1>>{},
                                    Tile<_64, Layout<Shape<_8, _2, _2>, Stride<_1, _16, _8>>, _16>{}));

// acc0 += A0[64 rows, k range] . B[32 tokens, k range]^T and acc1 += A1[...] . B^T.
// a0, a1, b point at the first k of the range; rows are lda / ldb elements apart; k_tiles stages of 128.
template <class Acc>
__device__ __forceinline__ void mainloop(const bf16 *__restrict__ a0, const bf16 *__restrict__ a1, int lda,
                                         const bf16 *__restrict__ b, int ldb, int k_tiles, bf16 *smem, Acc &acc0,
                                         Acc &acc1) {
  const int tid = threadIdx.x;
  const int K = k_tiles * kBK;
  // Global tiles (rows, 128, k tile).
  Tensor gA0 = local_tile(make_tensor(make_gmem_ptr(a0), make_layout(make_shape(Int<kHalf>{}, K), make_stride(lda, _1{}))),
                          Shape<Int<kHalf>, Int<kBK>>{}, make_coord(0, _));
  Tensor gA1 = local_tile(make_tensor(make_gmem_ptr(a1), make_layout(make_shape(Int<kHalf>{}, K), make_stride(lda, _1{}))),
                          Shape<Int<kHalf>, Int<kBK>>{}, make_coord(0, _));
  Tensor gB = local_tile(make_tensor(make_gmem_ptr(b), make_layout(make_shape(Int<kTokens>{}, K), make_stride(ldb, _1{}))),
                         Shape<Int<kTokens>, Int<kBK>>{}, make_coord(0, _));
  Tensor sA0 = make_tensor(make_smem_ptr(smem), SmemHalf{});                  // (64, 128, STAGES)
  Tensor sA1 = make_tensor(make_smem_ptr(smem + kHalfElems), SmemHalf{});     // (64, 128, STAGES)
  Tensor sB = make_tensor(make_smem_ptr(smem + 2 * kHalfElems), SmemTok{});   // (32, 128, STAGES)

  G2S g2s;
  auto thr_g2s = g2s.get_slice(tid);
  Tensor tAgA0 = thr_g2s.partition_S(gA0); // (CPY, 4, 1, KT)
  Tensor tAsA0 = thr_g2s.partition_D(sA0); // (CPY, 4, 1, STAGES)
  Tensor tAgA1 = thr_g2s.partition_S(gA1);
  Tensor tAsA1 = thr_g2s.partition_D(sA1);
  Tensor tBgB = thr_g2s.partition_S(gB);   // (CPY, 2, 1, KT)
  Tensor tBsB = thr_g2s.partition_D(sB);   // (CPY, 2, 1, STAGES)
  auto load_stage = [&](int stage, int kt) {
    copy(g2s, tAgA0(_, _, _, kt), tAsA0(_, _, _, stage));
    copy(g2s, tAgA1(_, _, _, kt), tAsA1(_, _, _, stage));
    copy(g2s, tBgB(_, _, _, kt), tBsB(_, _, _, stage));
  };

  MMA mma;
  auto thr_mma = mma.get_slice(tid);
  Tensor tCrA0 = thr_mma.partition_fragment_A(sA0(_, _, 0)); // (MMA, 1, 8)
  Tensor tCrA1 = thr_mma.partition_fragment_A(sA1(_, _, 0)); // (MMA, 1, 8)
  Tensor tCrB = thr_mma.partition_fragment_B(sB(_, _, 0));   // (MMA, 2, 8)

  auto s2rA = make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, bf16>{}, mma);
  auto thr_s2rA = s2rA.get_slice(tid);
  Tensor tXsA0 = thr_s2rA.partition_S(sA0); // (CPY, 1, 8, STAGES)
  Tensor tXsA1 = thr_s2rA.partition_S(sA1);
  Tensor tXrA0 = thr_s2rA.retile_D(tCrA0);
  Tensor tXrA1 = thr_s2rA.retile_D(tCrA1);
  auto s2rB = make_tiled_copy_B(Copy_Atom<SM75_U32x4_LDSM_N, bf16>{}, mma);
  auto thr_s2rB = s2rB.get_slice(tid);
  Tensor tXsB = thr_s2rB.partition_S(sB);   // (CPY, 1, 8, STAGES)
  Tensor tXrB = thr_s2rB.retile_D(tCrB);

  CUTE_UNROLL
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_tiles) load_stage(s, s);
    cp_async_fence();
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<kStages - 2>(); // tile kt has landed (this thread's copies)
    __syncthreads();              // ... everyone's; and everyone is done with tile kt - 1
    {
      const int next = kt + kStages - 1; // refill the slot tile kt - 1 used
      if (next < k_tiles) load_stage(next % kStages, next);
      cp_async_fence();
    }
    const int stage = kt % kStages;
    CUTE_UNROLL
    for (int kb = 0; kb < size<2>(tCrB); ++kb) {
      copy(s2rA, tXsA0(_, _, kb, stage), tXrA0(_, _, kb));
      copy(s2rA, tXsA1(_, _, kb, stage), tXrA1(_, _, kb));
      copy(s2rB, tXsB(_, _, kb, stage), tXrB(_, _, kb));
      gemm(mma, tCrA0(_, _, kb), tCrB(_, _, kb), acc0);
      gemm(mma, tCrA1(_, _, kb), tCrB(_, _, kb), acc1);
    }
  }
  cp_async_wait<0>();
}
} // namespace sk

// 1. residual += x; n = bf16(bf16(s * rsqrt(mean(s^2) + eps)) * w). One 512-thread block per token, 8
// contiguous columns per thread.
extern "C" __global__ void __launch_bounds__(512)
add_rmsnorm(const bf16 *__restrict__ x, bf16 *__restrict__ residual, const bf16 *__restrict__ weight,
            bf16 *__restrict__ n, float eps) {
  __shared__ float warp_sums[16];
  auto rows = make_layout(make_shape(Int<kTokens>{}, Int<kHidden>{}), LayoutRight{});
  auto piece = make_shape(Int<8>{});
  Tensor tX = local_tile(make_tensor(make_gmem_ptr(x), rows)(blockIdx.x, _), piece, make_coord(threadIdx.x));
  Tensor tR = local_tile(make_tensor(make_gmem_ptr(residual), rows)(blockIdx.x, _), piece, make_coord(threadIdx.x));
  Tensor tN = local_tile(make_tensor(make_gmem_ptr(n), rows)(blockIdx.x, _), piece, make_coord(threadIdx.x));
  Tensor tW = local_tile(make_tensor(make_gmem_ptr(weight), make_layout(make_shape(Int<kHidden>{}))), piece,
                         make_coord(threadIdx.x));
  Tensor rX = make_tensor<bf16>(piece);
  Tensor rR = make_tensor<bf16>(piece);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, tX, rX);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, tR, rR);
  float s[8], sq = 0.0f;
  CUTE_UNROLL
  for (int k = 0; k < 8; ++k) {
    const bf16 v = bf16(float(rX(k)) + float(rR(k)));
    rR(k) = v;
    s[k] = float(v);
    sq += s[k] * s[k];
  }
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, rR, tR);
  CUTE_UNROLL
  for (int o = 16; o > 0; o >>= 1) sq += __shfl_xor_sync(0xffffffffu, sq, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = sq;
  __syncthreads();
  float total = 0.0f;
  CUTE_UNROLL
  for (int w = 0; w < 16; ++w) total += warp_sums[w];
  const float inv = rsqrtf(total / kHidden + eps);
  Tensor rW = make_tensor<bf16>(piece);
  Tensor rN = make_tensor<bf16>(piece);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, tW, rW);
  CUTE_UNROLL
  for (int k = 0; k < 8; ++k) {
    const bf16 m = bf16(s[k] * inv);
    rN(k) = bf16(float(m) * float(rW(k)));
  }
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, rN, tN);
}

// 2. h[t, j] = bf16(bf16(silu(bf16(g))) * bf16(u)) for the CTA's 64 j columns.
extern "C" __global__ void __launch_bounds__(kThreads, 2)
gate_up_swiglu(const bf16 *__restrict__ n, const bf16 *__restrict__ w_gate, const bf16 *__restrict__ w_up,
               bf16 *__restrict__ h) {
  extern __shared__ uint128_t smem_raw[];
  bf16 *smem = reinterpret_cast<bf16 *>(smem_raw);
  const int j0 = blockIdx.x * kHalf;
  sk::MMA mma;
  auto thr_mma = mma.get_slice(threadIdx.x);
  auto tile = Shape<Int<kHalf>, Int<kTokens>>{};
  Tensor accG = partition_fragment_C(mma, tile); // (MMA, 1, 2): rows j0 + r, tokens t
  Tensor accU = partition_fragment_C(mma, tile);
  clear(accG);
  clear(accU);
  sk::mainloop(w_gate + (long long)j0 * kHidden, w_up + (long long)j0 * kHidden, kHidden, n, kHidden,
               kHidden / kBK, smem, accG, accU);
  Tensor tCc = thr_mma.partition_C(make_identity_tensor(tile)); // (MMA, 1, 2) -> (r, t)
  CUTE_UNROLL
  for (int i = 0; i < size(accG); ++i) {
    const int r = get<0>(tCc(i)), t = get<1>(tCc(i));
    const float gv = float(bf16(accG(i)));
    const float uv = float(bf16(accU(i)));
    const float av = float(bf16(gv / (1.0f + expf(-gv))));
    h[(long long)t * kInter + j0 + r] = bf16(av * uv);
  }
}

// 3. y = bf16(h . w_down^T): CTA (row tile, split) computes fp32 partials of 128 output rows over 2048 k;
// the last CTA of a row tile (ticket in `tickets`, zeroed scratch) sums the 7 partials in split order.
extern "C" __global__ void __launch_bounds__(kThreads, 2)
down_proj(const bf16 *__restrict__ h, const bf16 *__restrict__ w_down, float *__restrict__ partial,
          unsigned *__restrict__ tickets, bf16 *__restrict__ y) {
  extern __shared__ uint128_t smem_raw[];
  __shared__ unsigned is_last;
  bf16 *smem = reinterpret_cast<bf16 *>(smem_raw);
  const int o0 = blockIdx.x * kDownRows, split = blockIdx.y;
  sk::MMA mma;
  auto thr_mma = mma.get_slice(threadIdx.x);
  auto tile = Shape<Int<kHalf>, Int<kTokens>>{};
  Tensor acc0 = partition_fragment_C(mma, tile); // rows o0 + r
  Tensor acc1 = partition_fragment_C(mma, tile); // rows o0 + 64 + r
  clear(acc0);
  clear(acc1);
  const bf16 *a = w_down + (long long)o0 * kInter + (long long)split * kDownK;
  sk::mainloop(a, a + (long long)kHalf * kInter, kInter, h + (long long)split * kDownK, kInter, kDownK / kBK, smem,
               acc0, acc1);
  // partial[split] as (tokens, hidden) row-major fp32
  Tensor gP = make_tensor(make_gmem_ptr(partial + (long long)split * kTokens * kHidden),
                          make_layout(make_shape(Int<kTokens>{}, Int<kHidden>{}), LayoutRight{}));
  Tensor tCc = thr_mma.partition_C(make_identity_tensor(tile));
  CUTE_UNROLL
  for (int i = 0; i < size(acc0); ++i) {
    const int r = get<0>(tCc(i)), t = get<1>(tCc(i));
    gP(t, o0 + r) = acc0(i);
    gP(t, o0 + kHalf + r) = acc1(i);
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) is_last = (atomicAdd(&tickets[blockIdx.x], 1u) == kDownSplits - 1);
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  for (int i = threadIdx.x; i < kTokens * kDownRows; i += kThreads) {
    const int t = i / kDownRows, o = o0 + i % kDownRows;
    float sum = 0.0f;
    CUTE_UNROLL
    for (int s = 0; s < kDownSplits; ++s) sum += __ldcg(partial + ((long long)s * kTokens + t) * kHidden + o);
    y[(long long)t * kHidden + o] = bf16(sum);
  }
}

/* mkb:plan
scratch n bf16[tokens * hidden]
scratch hbuf bf16[tokens * intermediate]
scratch partial fp32[7 * tokens * hidden]
scratch tickets int32[hidden / 128] zeroed
launch add_rmsnorm grid(tokens) block(512) args(x, residual, norm_weight, n, f32(eps))
launch gate_up_swiglu grid(intermediate / 64) block(256) shared(81920) args(n, w_gate, w_up, hbuf)
launch down_proj grid(hidden / 128, 7) block(256) shared(81920) args(hbuf, w_down, partial, tickets, y)
*/
