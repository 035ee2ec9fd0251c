// Ling 2.0 MTP input (shifted embedding + enorm/hnorm RMSNorms + concat + eh_proj) in CuTe C++: the
// algorithm, plan structure and rounding points of solutions/cuda.cu, two launches:
//   1. shift_embed_dual_rmsnorm: one 256-thread block per token t = b * seq + s gathers the embedding row
//      of the shifted id (input_ids[t + 1], id 0 at s = seq - 1) and the hidden row (CuTe views, one
//      8-column piece per thread, 128-bit vector copies), RMS-normalizes both with fp32 statistics and the
//      eager rounding points (bf16(x * rsqrt(mean(x^2) + eps)), then bf16(w * that)), and writes the
//      concatenated bf16 row [enorm(e), hnorm(h)] of the [tokens, 4096] scratch matrix cat.
//   2. eh_proj: y = bf16(cat . W^T), fp32 accumulation, one rounding: a CuTe GEMM of SM80 bf16 mma.sync
//      atoms (TiledMMA, ldmatrix and cp.async TiledCopies, 128 x 256 x 32 tiles, 4 stages).
// Tile checks: M = tokens = 8192 = 64 * 128, N = hidden = 2048 = 8 * 256, K = 2 * hidden = 4096 = 128 * 32.
// Status: compile-checked for sm_90a only (not run on a GPU); the epilogue coordinate mapping and the
// shared layouts were checked on the host. Expected speed: the GEMM (137 GFLOP) on mma.sync runs at
// roughly half of wgmma's rate, so about 0.6-0.7x of cuda.cu; still ahead of the ~16-launch eager
// baseline's norm traffic, roughly at par with it overall.
#include <cuda_bf16.h>
#include <cute/tensor.hpp>
#include <cutlass/numeric_types.h>

using namespace cute;

// ---- bf16 tensor-core GEMM core in CuTe (SM80 mma.sync, fp32 accumulation) ------------------------------
// One CTA computes a 128 x 256 output tile as two 128 x 128 halves that share the A tile: acc0 += A . B0^T,
// acc1 += A . B1^T, where B0 and B1 are 128-row operand tiles with independent base pointers (rows n0..,
// n0 + 128.. of one matrix, or the same rows of two different matrices: the gate/up pair).
// A[m, k] is K-contiguous (A_K: a[m * lda + k]) or M-contiguous (a[k * lda + m]); B[n, k] likewise
// (B_K: b[n * ldb + k], an nn.Linear weight; else b[k * ldb + n]). Nothing is transposed in memory.
// 256 threads = 8 warps as 2 (M) x 4 (N); CuTe TiledMMA of SM80_16x8x16_F32BF16BF16F32_TN with the
// 32 x 64 x 16 permutation tile (each warp: 4 x 4 atoms per 128 x 128 half, 2 halves = a 64 x 64 warp
// tile in all). K steps of 32, a 4-stage cp.async pipeline (CuTe TiledCopy, 16-byte chunks) into
// swizzled shared tiles: K-contiguous tiles as 8 x 32 atoms with Swizzle<2,3,3> (64-byte rows), read
// with ldmatrix (SM75_U32x4_LDSM_N); M/N-contiguous tiles as 64 x 8 atoms with Swizzle<3,3,3>
// (128-byte MN rows), read with the transposing ldmatrix (SM75_U16x8_LDSM_T). Both are conflict-free.
namespace gbf {
using bf = cutlass::bfloat16_t;
constexpr int BM = 128, BH = 128, BK = 32, STAGES = 4, THREADS = 256;
constexpr int TILE = BM * BK;                      // elements of one operand tile of one stage (8 KiB)
constexpr int REGION = STAGES * TILE;              // one operand over all stages
constexpr int SMEM_BYTES = 3 * REGION * 2;         // A, B0, B1: 98304 bytes, the plans' shared(98304)
static_assert(SMEM_BYTES == 98304, "plan shared size");
static_assert(BM == BH, "one tile shape for A and the B halves");

template <bool K_MAJOR> CUTE_HOST_DEVICE constexpr auto smem_layout() {
  if constexpr (K_MAJOR)
    return tile_to_shape(composition(Swizzle<2, 3, 3>{}, Layout<Shape<_8, _32>, Stride<_32, _1>>{}),
                         make_shape(Int<BM>{}, Int<BK>{}, Int<STAGES>{}));
  else
    return tile_to_shape(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_64, _8>, Stride<_1, _64>>{}),
                         make_shape(Int<BM>{}, Int<BK>{}, Int<STAGES>{}));
}

// An operand's 128 rows as a (128, K) tensor (p already points at the tile's first row, k = 0).
template <bool K_MAJOR> CUTE_HOST_DEVICE auto gmem_operand(const bf *p, int K, long long ld) {
  if constexpr (K_MAJOR)
    return make_tensor(make_gmem_ptr(p), make_layout(make_shape(Int<BM>{}, K), make_stride(ld, Int<1>{})));
  else
    return make_tensor(make_gmem_ptr(p), make_layout(make_shape(Int<BM>{}, K), make_stride(Int<1>{}, ld)));
}

// The 128 x 32 tile as 512 16-byte chunks, 2 per thread. K-contiguous: 64 rows x 4 chunks per copy
// step (thread t: row t / 4, k 8 (t % 4)); M-contiguous: 16 chunks along M x 16 k per step.
template <bool K_MAJOR> CUTE_HOST_DEVICE auto g2s_copy() {
  using Op = SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>;
  if constexpr (K_MAJOR)
    return make_tiled_copy(Copy_Atom<Op, bf>{}, Layout<Shape<_64, _4>, Stride<_4, _1>>{}, Layout<Shape<_1, _8>>{});
  else
    return make_tiled_copy(Copy_Atom<Op, bf>{}, Layout<Shape<_16, _16>, Stride<_1, _16>>{}, Layout<Shape<_8, _1>>{});
}

template <bool K_MAJOR>
using s2r_atom = conditional_t<K_MAJOR, Copy_Atom<SM75_U32x4_LDSM_N, bf>, Copy_Atom<SM75_U16x8_LDSM_T, bf>>;

CUTE_HOST_DEVICE auto tiled_mma() {
  return make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN{}, Layout<Shape<_2, _4, _1>>{}, Tile<_32, _64, _16>{});
}

using Acc = decltype(partition_fragment_C(tiled_mma(), make_shape(Int<BM>{}, Int<BH>{})));

__device__ __forceinline__ Acc make_acc() {
  Acc acc = partition_fragment_C(tiled_mma(), make_shape(Int<BM>{}, Int<BH>{}));
  clear(acc);
  return acc;
}

// acc0 += A . B0^T and acc1 += A . B1^T over k in [0, 32 k_tiles). a, b0, b1 point at row 0, k = 0 of
// their 128-row tiles. Ends with every copy complete and a barrier (smem free for the next call).
template <bool A_K, bool B_K>
__device__ __forceinline__ void mainloop(Acc &acc0, Acc &acc1, const bf *a, long long lda, const bf *b0,
                                         const bf *b1, long long ldb, int k_tiles, bf *smem) {
  const int tid = threadIdx.x;
  const int K = k_tiles * BK;
  Tensor gA = local_tile(gmem_operand<A_K>(a, K, lda), make_shape(Int<BM>{}, Int<BK>{}), make_coord(0, _));
  Tensor gB0 = local_tile(gmem_operand<B_K>(b0, K, ldb), make_shape(Int<BH>{}, Int<BK>{}), make_coord(0, _));
  Tensor gB1 = local_tile(gmem_operand<B_K>(b1, K, ldb), make_shape(Int<BH>{}, Int<BK>{}), make_coord(0, _));
  Tensor sA = make_tensor(make_smem_ptr(smem), smem_layout<A_K>());               // (128, 32, STAGES)
  Tensor sB0 = make_tensor(make_smem_ptr(smem + REGION), smem_layout<B_K>());     // (128, 32, STAGES)
  Tensor sB1 = make_tensor(make_smem_ptr(smem + 2 * REGION), smem_layout<B_K>()); // (128, 32, STAGES)

  auto g2sA = g2s_copy<A_K>();
  auto g2sB = g2s_copy<B_K>();
  auto thrA = g2sA.get_slice(tid);
  auto thrB = g2sB.get_slice(tid);
  Tensor tAgA = thrA.partition_S(gA); // (CPY, CPY_M, CPY_K, KT)
  Tensor tAsA = thrA.partition_D(sA); // (CPY, CPY_M, CPY_K, STAGES)
  Tensor tBgB0 = thrB.partition_S(gB0);
  Tensor tBsB0 = thrB.partition_D(sB0);
  Tensor tBgB1 = thrB.partition_S(gB1);
  Tensor tBsB1 = thrB.partition_D(sB1);
  auto load_stage = [&](int stage, int kt) {
    copy(g2sA, tAgA(_, _, _, kt), tAsA(_, _, _, stage));
    copy(g2sB, tBgB0(_, _, _, kt), tBsB0(_, _, _, stage));
    copy(g2sB, tBgB1(_, _, _, kt), tBsB1(_, _, _, stage));
  };

  TiledMMA mma = tiled_mma();
  auto thr_mma = mma.get_slice(tid);
  Tensor tCrA = thr_mma.partition_fragment_A(sA(_, _, 0));   // (MMA, 4, 2) bf16 registers
  Tensor tCrB0 = thr_mma.partition_fragment_B(sB0(_, _, 0)); // (MMA, 4, 2)
  Tensor tCrB1 = thr_mma.partition_fragment_B(sB1(_, _, 0));
  auto s2rA = make_tiled_copy_A(s2r_atom<A_K>{}, mma);
  auto s2rB = make_tiled_copy_B(s2r_atom<B_K>{}, mma);
  auto s2rA_thr = s2rA.get_slice(tid);
  auto s2rB_thr = s2rB.get_slice(tid);
  Tensor tXsA = s2rA_thr.partition_S(sA); // (CPY, CPY_M, CPY_K, STAGES)
  Tensor tXrA = s2rA_thr.retile_D(tCrA);
  Tensor tXsB0 = s2rB_thr.partition_S(sB0);
  Tensor tXrB0 = s2rB_thr.retile_D(tCrB0);
  Tensor tXsB1 = s2rB_thr.partition_S(sB1);
  Tensor tXrB1 = s2rB_thr.retile_D(tCrB1);

  CUTE_UNROLL
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) load_stage(s, s);
    cp_async_fence();
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<STAGES - 2>(); // tile kt has landed (this thread's copies)
    __syncthreads();             // everyone's copies visible; everyone done with tile kt - 1
    {
      const int nk = kt + STAGES - 1; // refill the stage tile kt - 1 used
      if (nk < k_tiles) load_stage(nk % STAGES, nk);
      cp_async_fence(); // possibly empty: keeps the group count uniform
    }
    const int stage = kt % STAGES;
    CUTE_UNROLL
    for (int kk = 0; kk < BK / 16; ++kk) {
      copy(s2rA, tXsA(_, _, kk, stage), tXrA(_, _, kk));
      copy(s2rB, tXsB0(_, _, kk, stage), tXrB0(_, _, kk));
      copy(s2rB, tXsB1(_, _, kk, stage), tXrB1(_, _, kk));
      gemm(mma, acc0, tCrA(_, _, kk), tCrB0(_, _, kk), acc0);
      gemm(mma, acc1, tCrA(_, _, kk), tCrB1(_, _, kk), acc1);
    }
  }
  cp_async_wait<0>();
  __syncthreads();
}

// Calls epi(row, col, v0, v1, w0, w1) for C0[row, col], C0[row, col + 1] (= v0, v1) and the same two
// elements of C1 (w0, w1), row and col relative to the 128 x 128 half tile (col even). The SM80 atom's
// accumulator values 0, 1 sit at (row, col), (row, col + 1), values 2, 3 at row + 8.
template <class Epi> __device__ __forceinline__ void epilogue(const Acc &acc0, const Acc &acc1, const Epi &epi) {
  auto thr_mma = tiled_mma().get_slice(threadIdx.x);
  Tensor tCcC = thr_mma.partition_C(make_identity_tensor(make_shape(Int<BM>{}, Int<BH>{}))); // (4, 4, 4)
  CUTE_UNROLL
  for (int mt = 0; mt < size<1>(acc0); ++mt)
    CUTE_UNROLL
    for (int nt = 0; nt < size<2>(acc0); ++nt) {
      const int row = get<0>(tCcC(0, mt, nt));
      const int col = get<1>(tCcC(0, mt, nt));
      epi(row, col, acc0(0, mt, nt), acc0(1, mt, nt), acc1(0, mt, nt), acc1(1, mt, nt));
      epi(row + 8, col, acc0(2, mt, nt), acc0(3, mt, nt), acc1(2, mt, nt), acc1(3, mt, nt));
    }
}
} // namespace gbf

constexpr int kTokens = 8192, kHidden = 2048, kVocab = 157184;
constexpr int kPrepThreads = 256, kPiece = 8; // one 16-byte piece of a row per thread
static_assert(kPrepThreads * kPiece == kHidden, "one piece per thread");
static_assert(kTokens % 128 == 0 && kHidden % 256 == 0 && (2 * kHidden) % gbf::BK == 0, "GEMM tiles");

using gbf::bf;

// One block per token t = b * seq + s: e = embedding[ids[t + 1]] (id 0 for s = seq - 1), h = hidden[t];
// cat[t] = [bf16(enorm_w * bf16(e * re)), bf16(hnorm_w * bf16(h * rh))], re / rh = rsqrt(mean sq + eps).
extern "C" __global__ void __launch_bounds__(kPrepThreads)
shift_embed_dual_rmsnorm(const int *__restrict__ input_ids, const bf *__restrict__ embedding,
                         const bf *__restrict__ hidden_states, const bf *__restrict__ enorm_weight,
                         const bf *__restrict__ hnorm_weight, bf *__restrict__ cat, int seq, float eps) {
  __shared__ float2 partial[kPrepThreads / 32];
  const int t = blockIdx.x;
  const int s = t % seq;
  const int id = s + 1 < seq ? input_ids[t + 1] : 0;

  auto piece = make_shape(Int<kPiece>{});
  Tensor gEmb = make_tensor(make_gmem_ptr(embedding), make_layout(make_shape(Int<kVocab>{}, Int<kHidden>{}), LayoutRight{}));
  Tensor gHid = make_tensor(make_gmem_ptr(hidden_states), make_layout(make_shape(Int<kTokens>{}, Int<kHidden>{}), LayoutRight{}));
  Tensor gCat = make_tensor(make_gmem_ptr(cat), make_layout(make_shape(Int<kTokens>{}, Int<2>{}, Int<kHidden>{}), LayoutRight{}));
  Tensor gEw = make_tensor(make_gmem_ptr(enorm_weight), make_layout(make_shape(Int<kHidden>{})));
  Tensor gHw = make_tensor(make_gmem_ptr(hnorm_weight), make_layout(make_shape(Int<kHidden>{})));

  Tensor rE = make_tensor<bf>(piece);
  Tensor rH = make_tensor<bf>(piece);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gEmb(id, _), piece, make_coord(threadIdx.x)), rE);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gHid(t, _), piece, make_coord(threadIdx.x)), rH);
  float ef[kPiece], hf[kPiece];
  float2 sq = make_float2(0.0f, 0.0f);
  CUTE_UNROLL
  for (int k = 0; k < kPiece; ++k) {
    ef[k] = float(rE(k));
    hf[k] = float(rH(k));
    sq.x += ef[k] * ef[k];
    sq.y += hf[k] * hf[k];
  }
  CUTE_UNROLL
  for (int o = 16; o > 0; o >>= 1) {
    sq.x += __shfl_xor_sync(0xffffffffu, sq.x, o);
    sq.y += __shfl_xor_sync(0xffffffffu, sq.y, o);
  }
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = sq;
  __syncthreads();
  float2 total = make_float2(0.0f, 0.0f);
  CUTE_UNROLL
  for (int w = 0; w < kPrepThreads / 32; ++w) {
    total.x += partial[w].x;
    total.y += partial[w].y;
  }
  const float re = rsqrtf(total.x / kHidden + eps);
  const float rh = rsqrtf(total.y / kHidden + eps);

  Tensor rEw = make_tensor<bf>(piece);
  Tensor rHw = make_tensor<bf>(piece);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gEw, piece, make_coord(threadIdx.x)), rEw);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gHw, piece, make_coord(threadIdx.x)), rHw);
  CUTE_UNROLL
  for (int k = 0; k < kPiece; ++k) {
    rE(k) = bf(float(rEw(k)) * float(bf(ef[k] * re))); // round to nearest even at both points
    rH(k) = bf(float(rHw(k)) * float(bf(hf[k] * rh)));
  }
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, rE, local_tile(gCat(t, 0, _), piece, make_coord(threadIdx.x)));
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, rH, local_tile(gCat(t, 1, _), piece, make_coord(threadIdx.x)));
}

// y[M, N] = bf16(cat[M, K] . W[N, K]^T), K = 2 * hidden: block (x, y) = columns 256 x.., rows 128 y...
extern "C" __global__ void __launch_bounds__(256, 1)
eh_proj(const bf *__restrict__ cat, const bf *__restrict__ w, bf *__restrict__ y) {
  if (gridDim.x != kHidden / 256 || gridDim.y != kTokens / 128 || blockDim.x != gbf::THREADS) return;
  extern __shared__ uint4 smem_u4[];
  bf *smem = reinterpret_cast<bf *>(smem_u4);
  constexpr int K = 2 * kHidden;
  const int m0 = blockIdx.y * 128, n0 = blockIdx.x * 256;
  gbf::Acc acc0 = gbf::make_acc(), acc1 = gbf::make_acc();
  gbf::mainloop<true, true>(acc0, acc1, cat + (long long)m0 * K, K, w + (long long)n0 * K,
                            w + (long long)(n0 + 128) * K, K, K / gbf::BK, smem);
  gbf::epilogue(acc0, acc1, [&](int r, int c, float v0, float v1, float w0, float w1) {
    const long long at = (long long)(m0 + r) * kHidden + n0 + c;
    *reinterpret_cast<__nv_bfloat162 *>(y + at) = __floats2bfloat162_rn(v0, v1);
    *reinterpret_cast<__nv_bfloat162 *>(y + at + 128) = __floats2bfloat162_rn(w0, w1);
  });
}

/* mkb:plan
scratch cat bf16[batch * seq * 2 * hidden]
launch shift_embed_dual_rmsnorm grid(batch * seq) block(256)
  args(input_ids, embedding, hidden_states, enorm_weight, hnorm_weight, cat, i32(seq), f32(eps))
launch eh_proj grid(hidden / 256, batch * seq / 128) block(256) shared(98304) args(cat, eh_proj_weight, y)
*/
