// Gemma 3n AltUp collapse in CuTe C++, fused into two launches: the algorithm, plan shape and rounding
// points of solutions/cuda.cu.
//
// 1. altup_unembed_gemm: the three 2048 x 2048 projections as one batched bf16 tensor-core GEMM in CuTe:
//    128 x 256 x 32 block tiles, 256 threads, a 4-stage cp.async pipeline (CuTe TiledCopy of 16-byte
//    SM80 cp.async) into XOR-swizzled shared tiles (Swizzle<2,3,3> over 8 x 32 atoms), ldmatrix fragment
//    loads (CuTe SM75_U32x4_LDSM_N copies retiled to the MMA), and a CuTe TiledMMA of the SM80 m16n8k16
//    bf16 atom with fp32 accumulation, 8 warps as 2 (M) x 4 (N), each warp 64 x 64. Grid 8 x 16 x 3 = 384
//    CTAs, one per SM. The epilogue rounds each projection to bf16 (as nn.Linear does), stores it, and
//    writes the per-row sum of squares of the CTA's 256 rounded values (fp32 partials), so no separate
//    pass over the projections is needed for their magnitudes.
// 2. altup_collapse: one block per token: RMS of stream 0, the three magnitudes from the partial sums,
//    and out = bf16((x0 + sum_s p_s * tm / sqrt(max(mean(p_s^2), eps))) / 4) in fp32 (the reference
//    allows fp32 intermediates; only the projections and the output are rounded), CuTe 128-bit copies.
//
// Shapes: hidden = 2048 is fixed (N = K = 2048: multiples of the 256-wide N tile and the 32-deep K tile);
// tokens is a runtime argument (rows past the end are clamped on load and skipped on store).
// Compile-checked only (no GPU run by the author). Expected speed: about cuda.cu's (the same mma.sync
// GEMM structure and tile shape, swizzled instead of padded shared tiles).
#include <cute/tensor.hpp>
#include <cutlass/numeric_types.h>

using namespace cute;
using bf16 = cutlass::bfloat16_t;

constexpr int kHidden = 2048;
constexpr int kStreams = 3;

namespace g80 {
constexpr int BM = 128, BN = 256, BK = 32, STAGES = 4, THREADS = 256;
// Shared tiles (rows, 32 k, stage) from 8 x 32 atoms (64-byte rows) with the XOR swizzle of 16-byte chunks
// that makes both the cp.async writes and the ldmatrix reads conflict-free.
using SmemAtom = decltype(composition(Swizzle<2, 3, 3>{}, Layout<Shape<_8, _32>, Stride<_32, _1>>{}));
using SmemA = decltype(tile_to_shape(SmemAtom{}, Shape<Int<BM>, Int<BK>, Int<STAGES>>{}));
using SmemB = decltype(tile_to_shape(SmemAtom{}, Shape<Int<BN>, Int<BK>, Int<STAGES>>{}));
constexpr int A_ELEMS = BM * BK * STAGES; // 16384
constexpr int B_ELEMS = BN * BK * STAGES; // 32768
constexpr int SMEM_BYTES = (A_ELEMS + B_ELEMS) * 2; // 98304: the plan's shared()
static_assert(SMEM_BYTES == 98304, "plan shared() size");

// Global -> shared: 256 threads as 64 rows x 4 chunks of 8 bf16 (a pass moves 64 rows x 32 k).
using G2S = decltype(make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, bf16>{},
                                     Layout<Shape<_64, _4>, Stride<_4, _1>>{}, Layout<Shape<_1, _8>>{}));
// 8 warps as 2 (M) x 4 (N); a 32 x 64 MMA tile (each warp 16 x 16 of it: 1 x 2 atoms), repeated 4 x 4
// times over the 128 x 256 block tile: each warp owns 64 x 64 outputs.
using MMA = decltype(make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN{},
                                    Layout<Shape<_2, _4, _1>, Stride<_4, _1, _0>>{}, Tile<_32, _64, _16>{}));

// One 128 x 256 tile of C = A[M, K] . B[N, K]^T (both K-contiguous, row strides K) at rows m0, columns n0;
// K % 32 == 0, B has at least n0 + 256 rows; A rows at or past M are clamped to M - 1 on load.
// Returns the accumulator fragment; tCc gives each element's (row, col) in the tile.
template <class Acc>
__device__ __forceinline__ void mainloop(const bf16 *__restrict__ A, const bf16 *__restrict__ B, int M, int K, int m0,
                                         int n0, bf16 *smem, Acc &acc) {
  const int tid = threadIdx.x;
  const int KT = K / BK;
  Tensor mA = make_tensor(make_gmem_ptr(A), make_layout(make_shape(M, K), make_stride((int64_t)K, _1{})));
  Tensor mB = make_tensor(make_gmem_ptr(B + (int64_t)n0 * K), make_layout(make_shape(Int<BN>{}, K), make_stride((int64_t)K, _1{})));
  Tensor gB = local_tile(mB, Shape<Int<BN>, Int<BK>>{}, make_coord(0, _)); // (256, 32, KT)
  Tensor sA = make_tensor(make_smem_ptr(smem), SmemA{});                    // (128, 32, STAGES)
  Tensor sB = make_tensor(make_smem_ptr(smem + A_ELEMS), SmemB{});          // (256, 32, STAGES)

  G2S g2s;
  auto thr_g2s = g2s.get_slice(tid);
  Tensor tBgB = thr_g2s.partition_S(gB); // (CPY, 4, 1, KT)
  Tensor tBsB = thr_g2s.partition_D(sB); // (CPY, 4, 1, STAGES)
  Tensor tAsA = thr_g2s.partition_D(sA); // (CPY, 2, 1, STAGES)
  // A rows: clamped (rows past M load row M - 1; their results are never stored).
  Tensor cA = thr_g2s.partition_S(make_identity_tensor(Shape<Int<BM>, Int<BK>>{})); // (CPY, 2, 1) -> (r, k)
  const bf16 *a_src[size<1>(cA)];
  CUTE_UNROLL
  for (int i = 0; i < size<1>(cA); ++i) {
    const int r = min(m0 + get<0>(cA(0, i, 0)), M - 1);
    a_src[i] = &mA(r, get<1>(cA(0, i, 0)));
  }
  auto load_stage = [&](int stage, int kt) {
    CUTE_UNROLL
    for (int i = 0; i < size<1>(cA); ++i) {
      // one 16-byte chunk: 8 contiguous bf16 of a clamped A row
      copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, bf16>{},
           make_tensor(make_gmem_ptr(a_src[i] + kt * BK), Layout<Shape<_8>>{}), tAsA(_, i, 0, stage));
    }
    copy(g2s, tBgB(_, _, _, kt), tBsB(_, _, _, stage));
  };

  MMA mma;
  auto thr_mma = mma.get_slice(tid);
  Tensor tCrA = thr_mma.partition_fragment_A(sA(_, _, 0)); // (MMA, 4, 2)
  Tensor tCrB = thr_mma.partition_fragment_B(sB(_, _, 0)); // (MMA, 8, 2)
  auto s2rA = make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, bf16>{}, mma);
  auto thr_s2rA = s2rA.get_slice(tid);
  Tensor tXsA = thr_s2rA.partition_S(sA); // (CPY, 4, 2, STAGES)
  Tensor tXrA = thr_s2rA.retile_D(tCrA);
  auto s2rB = make_tiled_copy_B(Copy_Atom<SM75_U32x4_LDSM_N, bf16>{}, mma);
  auto thr_s2rB = s2rB.get_slice(tid);
  Tensor tXsB = thr_s2rB.partition_S(sB); // (CPY, 4, 2, STAGES)
  Tensor tXrB = thr_s2rB.retile_D(tCrB);

  CUTE_UNROLL
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < KT) load_stage(s, s);
    cp_async_fence();
  }
  for (int kt = 0; kt < KT; ++kt) {
    cp_async_wait<STAGES - 2>(); // tile kt has landed (one group is committed per iteration)
    __syncthreads();             // ... for every thread, and the slot of tile kt - 1 is free again
    {
      const int next = kt + STAGES - 1;
      if (next < KT) load_stage(next % STAGES, next);
      cp_async_fence();
    }
    const int stage = kt % STAGES;
    CUTE_UNROLL
    for (int kb = 0; kb < size<2>(tCrA); ++kb) {
      copy(s2rA, tXsA(_, _, kb, stage), tXrA(_, _, kb));
      copy(s2rB, tXsB(_, _, kb, stage), tXrB(_, _, kb));
      gemm(mma, tCrA(_, _, kb), tCrB(_, _, kb), acc);
    }
  }
  cp_async_wait<0>(); // only empty groups remain; drain them before exit
}
} // namespace g80

// proj[z] = bf16(other_streams[z] @ unembed_weight[z]^T); partial[z][row][blockIdx.x] = sum over this
// block's 256 columns of bf16(proj)^2. grid(hidden / 256, ceil_div(tokens, 128), 3).
extern "C" __global__ void __launch_bounds__(g80::THREADS, 1)
altup_unembed_gemm(const bf16 *__restrict__ streams, const bf16 *__restrict__ weight, bf16 *__restrict__ proj,
                   float *__restrict__ partial, int tokens) {
  extern __shared__ uint128_t smem_raw[];
  __shared__ float row_part[4][g80::BM];
  bf16 *smem = reinterpret_cast<bf16 *>(smem_raw);
  const int n0 = blockIdx.x * g80::BN, m0 = blockIdx.y * g80::BM, z = blockIdx.z;
  const bf16 *A = streams + (int64_t)z * tokens * kHidden;
  const bf16 *B = weight + (int64_t)z * kHidden * kHidden;

  g80::MMA mma;
  auto thr_mma = mma.get_slice(threadIdx.x);
  auto tile = Shape<Int<g80::BM>, Int<g80::BN>>{};
  Tensor acc = partition_fragment_C(mma, tile); // (MMA, 4, 8)
  clear(acc);
  g80::mainloop(A, B, tokens, kHidden, m0, n0, smem, acc);

  // Accumulator atom (mt, nt): values 0, 1 at (row, col), (row, col + 1); values 2, 3 at row + 8.
  Tensor tCc = thr_mma.partition_C(make_identity_tensor(tile)); // (MMA, 4, 8) -> (row, col) in the tile
  Tensor gC = make_tensor(make_gmem_ptr(proj + (int64_t)z * tokens * kHidden),
                          make_layout(make_shape(tokens, Int<kHidden>{}), LayoutRight{}));
  const int lane = threadIdx.x & 31;
  // The 4 warps sharing a row differ in (col / 8) % 4 (their 8-column group in every 32 columns).
  const int slot = (get<1>(tCc(0, 0, 0)) / 8) % 4;
  CUTE_UNROLL
  for (int mt = 0; mt < size<1>(acc); ++mt) {
    CUTE_UNROLL
    for (int h = 0; h < 2; ++h) {
      const int row = get<0>(tCc(2 * h, mt, 0)); // row within the tile
      float ss = 0.0f;
      CUTE_UNROLL
      for (int nt = 0; nt < size<2>(acc); ++nt) {
        const int col = n0 + get<1>(tCc(2 * h, mt, nt));
        const bf16 v0 = bf16(acc(2 * h, mt, nt)), v1 = bf16(acc(2 * h + 1, mt, nt));
        const float f0 = float(v0), f1 = float(v1);
        ss += f0 * f0 + f1 * f1;
        if (m0 + row < tokens) {
          const uint32_t pair = uint32_t(v0.raw()) | (uint32_t(v1.raw()) << 16); // col, col + 1
          *reinterpret_cast<uint32_t *>(&gC(m0 + row, col)) = pair;
        }
      }
      ss += __shfl_xor_sync(0xffffffffu, ss, 1); // the 4 lanes of a quad share the row
      ss += __shfl_xor_sync(0xffffffffu, ss, 2);
      if ((lane & 3) == 0) row_part[slot][row] = ss;
    }
  }
  __syncthreads();
  const int tid = threadIdx.x;
  if (tid < g80::BM && m0 + tid < tokens) {
    const float s = row_part[0][tid] + row_part[1][tid] + row_part[2][tid] + row_part[3][tid];
    partial[((int64_t)z * tokens + m0 + tid) * (kHidden / g80::BN) + blockIdx.x] = s;
  }
}

// out[t] = (x0[t] + sum_s proj[s][t] * rms(x0[t]) / sqrt(max(mean(proj[s][t]^2), eps))) / 4.
// One 256-thread block per token, 8 contiguous columns per thread. grid(tokens).
extern "C" __global__ void __launch_bounds__(256)
altup_collapse(const bf16 *__restrict__ stream0, const bf16 *__restrict__ proj, const float *__restrict__ partial,
               bf16 *__restrict__ out, int tokens, float eps) {
  constexpr int kParts = kHidden / g80::BN; // 8 partial sums per row and stream
  __shared__ float warp_sums[8];
  __shared__ float scale[kStreams];
  const int row = blockIdx.x;
  auto piece = make_shape(Int<8>{});
  auto rows = make_layout(make_shape(tokens, Int<kHidden>{}), LayoutRight{});
  Tensor tX = local_tile(make_tensor(make_gmem_ptr(stream0), rows)(row, _), piece, make_coord(threadIdx.x));
  Tensor tO = local_tile(make_tensor(make_gmem_ptr(out), rows)(row, _), piece, make_coord(threadIdx.x));
  Tensor rX = make_tensor<bf16>(piece);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, tX, rX);
  Tensor rP = make_tensor<bf16>(make_shape(Int<8>{}, Int<kStreams>{}));
  CUTE_UNROLL
  for (int s = 0; s < kStreams; ++s) {
    Tensor tP = local_tile(make_tensor(make_gmem_ptr(proj + (int64_t)s * tokens * kHidden), rows)(row, _), piece,
                           make_coord(threadIdx.x));
    copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, tP, rP(_, s));
  }
  float xf[8], ss = 0.0f;
  CUTE_UNROLL
  for (int k = 0; k < 8; ++k) {
    xf[k] = float(rX(k));
    ss += xf[k] * xf[k];
  }
  CUTE_UNROLL
  for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = ss;
  __syncthreads();
  if (threadIdx.x < kStreams) {
    const int s = threadIdx.x;
    float total = 0.0f;
    CUTE_UNROLL
    for (int w = 0; w < 8; ++w) total += warp_sums[w];
    const float target = sqrtf(total / kHidden);
    const float *pp = partial + ((int64_t)s * tokens + row) * kParts;
    float q = 0.0f;
    CUTE_UNROLL
    for (int j = 0; j < kParts; ++j) q += pp[j];
    scale[s] = target / sqrtf(fmaxf(q / kHidden, eps));
  }
  __syncthreads();
  const float s0 = scale[0], s1 = scale[1], s2 = scale[2];
  Tensor rO = make_tensor<bf16>(piece);
  CUTE_UNROLL
  for (int k = 0; k < 8; ++k) {
    const float v = xf[k] + float(rP(k, 0)) * s0 + float(rP(k, 1)) * s1 + float(rP(k, 2)) * s2;
    rO(k) = bf16(0.25f * v);
  }
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, rO, tO);
}

/* mkb:plan
scratch proj bf16[streams * tokens * hidden]
scratch partial fp32[streams * tokens * (hidden / 256)]
launch altup_unembed_gemm grid(hidden / 256, ceil_div(tokens, 128), streams) block(256) shared(98304)
  args(other_streams, unembed_weight, proj, partial, i32(tokens))
launch altup_collapse grid(tokens) block(256) args(stream0, proj, partial, out, i32(tokens), f32(eps))
*/
