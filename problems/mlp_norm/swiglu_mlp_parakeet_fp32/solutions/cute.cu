// Parakeet FastConformer feed-forward module, fp32, in CuTe C++: out = x + 0.5 * (W2 silu(W1 LN(x) + b1) + b2),
// with the algorithm, plan and rounding points of solutions/cuda.cu. Three launches: a warp-per-row
// LayerNorm writing the normalized rows (32 MB), the up GEMM with bias and SiLU in its epilogue, the down
// GEMM with bias, the 0.5 scale and the residual in its epilogue. Both GEMMs run on tensor cores as 3xTF32
// (fp32-accurate) through CuTe: TiledCopy cp.async into padded shared-memory tiles, TiledMMA of
// SM80_16x8x8_F32TF32TF32F32_TN.
// Shapes: d_model 1024, d_ff 4096 (both multiples of 128 and of 32); tokens any (rows bounds-checked:
// 8000 = 62 full 128-row tiles and one of 64 rows; rows past tokens are zero-filled by cp.async with
// src-size 0 and not stored).
#include <cute/tensor.hpp>
#include <cutlass/numeric_types.h>

using namespace cute;

// ---- 3xTF32 tensor-core GEMM core in CuTe (fp32-accurate) -----------------------------------------------
// C[M, N] = A[M, K] * B[K, N]; A is K-contiguous (A_K: element (m, k) at A[m * lda + k]) or M-contiguous
// (A[k * lda + m]); B is K-contiguous (B_K: stored [N, K] like an nn.Linear weight, B[n * ldb + k]) or
// N-contiguous (B[k * ldb + n]). Block tile 128x128x32, 256 threads; CuTe TiledMMA of the SM80
// m16n8k8 TF32 atom with 8 warps as 2 (M) x 4 (N), each warp a 64x32 tile of 4 x 4 atoms; a 4-stage
// cp.async pipeline (CuTe TiledCopy of 16-byte cp.async) into padded shared-memory tiles: K-contiguous
// tiles as [128][36] (row stride KPAD), M/N-contiguous tiles as [32][136] (row stride MPAD).
// Each fp32 operand v is split into hi = tf32(v) and lo = v - hi; per accumulator the MMAs run
// lo*hi', hi*lo', hi*hi' (the lo*lo' term is below fp32's rounding). Tensor-core accumulation
// truncates, so every 32-wide k tile is summed by the MMAs into a fresh partial accumulator that is then
// added to the main fp32 accumulator with an ordinary (round-to-nearest) add.
namespace g3x {
constexpr int BM = 128, BN = 128, BK = 32, STAGES = 4, THREADS = 256;
constexpr int KPAD = BK + 4;           // row stride (floats) of a K-contiguous tile: conflict-free fragments
constexpr int MPAD = BM + 8;           // row stride (floats) of an M/N-contiguous tile (BM == BN)
constexpr int TILE_FLOATS = BM * KPAD; // 4608 >= BK * MPAD = 4352
constexpr int STAGE_FLOATS = 2 * TILE_FLOATS;
constexpr int SMEM_BYTES = STAGES * STAGE_FLOATS * 4; // 147456: the plan's shared(147456)
static_assert(BK * MPAD <= TILE_FLOATS, "tile fits");
static_assert(BM == BN, "one tile shape for A and B");
static_assert(THREADS == 8 * 32, "8 warps: the 2 x 4 warp layout and the 256-thread copy layouts");
static_assert(SMEM_BYTES == 147456, "plan shared size");

// One operand's shared-memory tiles over all stages, (row, k, stage) -> float offset from the stage's
// operand slot: K-contiguous s[r * KPAD + k], else s[k * MPAD + r]; stages STAGE_FLOATS apart.
template <bool K_MAJOR> CUTE_HOST_DEVICE constexpr auto smem_layout() {
  if constexpr (K_MAJOR)
    return make_layout(make_shape(Int<BM>{}, Int<BK>{}, Int<STAGES>{}),
                       make_stride(Int<KPAD>{}, Int<1>{}, Int<STAGE_FLOATS>{}));
  else
    return make_layout(make_shape(Int<BM>{}, Int<BK>{}, Int<STAGES>{}),
                       make_stride(Int<1>{}, Int<MPAD>{}, Int<STAGE_FLOATS>{}));
}

// An operand in global memory as a (rows, K) tensor.
template <bool K_MAJOR> CUTE_HOST_DEVICE auto gmem_operand(const float *p, int rows, int K, int ld) {
  if constexpr (K_MAJOR)
    return make_tensor(make_gmem_ptr(p), make_layout(make_shape(rows, K), make_stride((int64_t)ld, Int<1>{})));
  else
    return make_tensor(make_gmem_ptr(p), make_layout(make_shape(rows, K), make_stride(Int<1>{}, (int64_t)ld)));
}

// The 128 x 32 tile as 1024 16-byte chunks, chunk c = tid + 256 i (i = 0..3):
// K-contiguous: row c / 8, k (c % 8) * 4 .. + 4; else k c / 32, rows (c % 32) * 4 .. + 4.
template <bool K_MAJOR, class Op> CUTE_HOST_DEVICE auto g2s_copy() {
  if constexpr (K_MAJOR)
    return make_tiled_copy(Copy_Atom<Op, float>{}, make_layout(make_shape(Int<32>{}, Int<8>{}), LayoutRight{}),
                           make_layout(make_shape(Int<1>{}, Int<4>{})));
  else
    return make_tiled_copy(Copy_Atom<Op, float>{}, make_layout(make_shape(Int<32>{}, Int<8>{}), LayoutLeft{}),
                           make_layout(make_shape(Int<4>{}, Int<1>{})));
}

// 8 warps as 2 (M) x 4 (N), warp = 4 * wm + wn; the permutations give warp (wm, wn) rows wm * 64 + 16 mt
// .. + 16 and columns wn * 32 + 8 nt .. + 8 of the tile for its atom (mt, nt), mt, nt = 0..3.
CUTE_HOST_DEVICE auto tiled_mma() {
  return make_tiled_mma(SM80_16x8x8_F32TF32TF32F32_TN{},
                        make_layout(make_shape(Int<2>{}, Int<4>{}, Int<1>{}), make_stride(Int<4>{}, Int<1>{}, Int<0>{})),
                        Tile<Layout<Shape<_16, _2, _4>, Stride<_1, _64, _16>>,
                             Layout<Shape<_8, _4, _4>, Stride<_1, _32, _8>>, _8>{});
}

// hi = v rounded to TF32 (10 explicit mantissa bits, to nearest, ties away: what cvt.rna.tf32.f32 does
// for finite v, in two integer operations); lo = v - hi is exact in fp32 and goes to the tensor core as
// it is (the MMA reads its top 10 mantissa bits: an error below 2^-21 |v|). Inputs here are finite.
__device__ __forceinline__ void split(float v, cutlass::tfloat32_t &hi, cutlass::tfloat32_t &lo) {
  const uint32_t h = (__float_as_uint(v) + 0x1000u) & 0xffffe000u;
  hi = cutlass::tfloat32_t::bitcast(h);
  lo = cutlass::tfloat32_t::bitcast(__float_as_uint(v - __uint_as_float(h)));
}

// One 128x128 output tile at block (blockIdx.y, blockIdx.x). Calls epi(nt, row, col, v0, v1) with
// C[row, col] and C[row, col + 1] (col even; nt = the warp's 8-column group, 0..3), atoms in the order
// mt = 0..3, nt = 0..3, rows g then g + 8. PRED_M: rows of A at or past M are zero-filled (nothing read:
// cp.async with src-size 0 from A's first chunk) and their outputs are not passed to epi; likewise rows
// of B at or past N. Without PRED_M, M and N must be multiples of 128.
template <bool A_K, bool B_K, bool PRED_M, class Epi>
__device__ __forceinline__ void gemm_3xtf32(const float *__restrict__ A, const float *__restrict__ B, int M, int N,
                                            int K, int lda, int ldb, const Epi &epi) {
  extern __shared__ float4 smem4[];
  float *smem = reinterpret_cast<float *>(smem4);
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int KT = K / BK;

  // Global tiles (128, 32, k tile); the layouts span whole tiles (rows past M / N only with PRED_M, never read).
  Tensor gA = local_tile(gmem_operand<A_K>(A, (int)gridDim.y * BM, K, lda), make_shape(Int<BM>{}, Int<BK>{}),
                         make_coord(blockIdx.y, _));
  Tensor gB = local_tile(gmem_operand<B_K>(B, (int)gridDim.x * BN, K, ldb), make_shape(Int<BN>{}, Int<BK>{}),
                         make_coord(blockIdx.x, _));
  Tensor sA = make_tensor(make_smem_ptr(smem), smem_layout<A_K>());               // (128, 32, STAGES)
  Tensor sB = make_tensor(make_smem_ptr(smem + TILE_FLOATS), smem_layout<B_K>()); // (128, 32, STAGES)

  using CpOp = conditional_t<PRED_M, SM80_CP_ASYNC_CACHEGLOBAL_ZFILL<uint128_t>, SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>>;
  auto g2sA = g2s_copy<A_K, CpOp>();
  auto g2sB = g2s_copy<B_K, CpOp>();
  auto thrA = g2sA.get_slice(tid);
  auto thrB = g2sB.get_slice(tid);
  Tensor tAgA = thrA.partition_S(gA); // (CPY, CPY_M, CPY_K, KT)
  Tensor tAsA = thrA.partition_D(sA); // (CPY, CPY_M, CPY_K, STAGES)
  Tensor tBgB = thrB.partition_S(gB);
  Tensor tBsB = thrB.partition_D(sB);
  // Row of every chunk of this thread within the tile (for the PRED_M bounds).
  Tensor tAcA = thrA.partition_S(make_identity_tensor(make_shape(Int<BM>{}, Int<BK>{})));
  Tensor tBcB = thrB.partition_S(make_identity_tensor(make_shape(Int<BN>{}, Int<BK>{})));

  auto load_stage = [&](int stage, int kt) {
    if constexpr (PRED_M) {
      Copy_Atom<CpOp, float> atom;
      CUTE_UNROLL
      for (int i = 0; i < size<1>(tAgA); ++i)
        CUTE_UNROLL
        for (int j = 0; j < size<2>(tAgA); ++j) {
          const bool ok = m0 + get<0>(tAcA(0, i, j)) < M;
          Tensor src = tAgA(_, i, j, kt);
          Tensor dst = tAsA(_, i, j, stage);
          copy(atom.with(ok), make_tensor(ok ? src.data() : make_gmem_ptr(A), src.layout()), dst);
        }
      CUTE_UNROLL
      for (int i = 0; i < size<1>(tBgB); ++i)
        CUTE_UNROLL
        for (int j = 0; j < size<2>(tBgB); ++j) {
          const bool ok = n0 + get<0>(tBcB(0, i, j)) < N;
          Tensor src = tBgB(_, i, j, kt);
          Tensor dst = tBsB(_, i, j, stage);
          copy(atom.with(ok), make_tensor(ok ? src.data() : make_gmem_ptr(B), src.layout()), dst);
        }
    } else {
      copy(g2sA, tAgA(_, _, _, kt), tAsA(_, _, _, stage));
      copy(g2sB, tBgB(_, _, _, kt), tBsB(_, _, _, stage));
    }
  };

  TiledMMA mma = tiled_mma();
  auto thr_mma = mma.get_slice(tid);
  Tensor tCsA = thr_mma.partition_A(sA);                    // (MMA, 4, 4, STAGES) fp32 in shared memory
  Tensor tCsB = thr_mma.partition_B(sB);                    // (MMA, 4, 4, STAGES)
  Tensor tArH = thr_mma.partition_fragment_A(sA(_, _, 0)); // (MMA, 4, 4) TF32 hi / lo parts
  Tensor tArL = thr_mma.partition_fragment_A(sA(_, _, 0));
  Tensor tBrH = thr_mma.partition_fragment_B(sB(_, _, 0)); // (MMA, 4, 4)
  Tensor tBrL = thr_mma.partition_fragment_B(sB(_, _, 0));
  auto tile_mn = make_shape(Int<BM>{}, Int<BN>{});
  Tensor acc = partition_fragment_C(mma, tile_mn);  // (MMA, 4, 4) running fp32 sums
  Tensor part = partition_fragment_C(mma, tile_mn); // (MMA, 4, 4) one K tile
  clear(acc);

  CUTE_UNROLL
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < KT) load_stage(s, s);
    cp_async_fence();
  }

  for (int kt = 0; kt < KT; ++kt) {
    cp_async_wait<STAGES - 2>(); // tile kt has landed (this thread's copies)
    __syncthreads();             // everyone's copies visible; everyone done with tile kt - 1
    {
      const int nk = kt + STAGES - 1; // refill the stage tile kt - 1 used
      if (nk < KT) load_stage(nk % STAGES, nk);
      cp_async_fence(); // possibly empty: keeps the group count uniform
    }
    const int stage = kt % STAGES;
    clear(part);
    CUTE_UNROLL
    for (int kk = 0; kk < BK / 8; ++kk) {
      Tensor sBk = tCsB(_, _, kk, stage);
      Tensor bh = tBrH(_, _, kk);
      Tensor bl = tBrL(_, _, kk);
      CUTE_UNROLL
      for (int i = 0; i < size(sBk); ++i) split(sBk(i), bh(i), bl(i));
      Tensor sAk = tCsA(_, _, kk, stage);
      Tensor ah = tArH(_, _, kk);
      Tensor al = tArL(_, _, kk);
      CUTE_UNROLL
      for (int i = 0; i < size(sAk); ++i) split(sAk(i), ah(i), al(i));
      // Per accumulator, as the cuda.cu: lo*hi', hi*lo', hi*hi'.
      gemm(mma, part, al, bh, part);
      gemm(mma, part, ah, bl, part);
      gemm(mma, part, ah, bh, part);
    }
    CUTE_UNROLL
    for (int i = 0; i < size(acc); ++i) acc(i) += part(i);
  }
  cp_async_wait<0>();

  // Accumulator atom (mt, nt): values 0, 1 at (row, col), (row, col + 1); values 2, 3 at row + 8.
  Tensor tCcC = thr_mma.partition_C(make_identity_tensor(tile_mn)); // (MMA, 4, 4) -> (row, col) in the tile
  CUTE_UNROLL
  for (int mt = 0; mt < size<1>(acc); ++mt)
    CUTE_UNROLL
    for (int nt = 0; nt < size<2>(acc); ++nt) {
      const int row = m0 + get<0>(tCcC(0, mt, nt));
      const int col = n0 + get<1>(tCcC(0, mt, nt));
      if (!PRED_M || row < M) epi(nt, row, col, acc(0, mt, nt), acc(1, mt, nt));
      if (!PRED_M || row + 8 < M) epi(nt, row + 8, col, acc(2, mt, nt), acc(3, mt, nt));
    }
}
} // namespace g3x

constexpr int kModel = 1024, kFF = 4096;
static_assert(kModel % g3x::BN == 0 && kFF % g3x::BN == 0, "N tiles");
static_assert(kModel % g3x::BK == 0 && kFF % g3x::BK == 0, "K tiles");

// LayerNorm over d_model = 1024, one warp per row, 8 rows per 256-thread block. Each lane holds
// 32 values (8 float4: float4 number q * 32 + lane of the row); two-pass mean and variance in registers,
// as torch's (x-mean)*rstd*w + b.
extern "C" __global__ void __launch_bounds__(256)
layernorm_rows(const float *__restrict__ x, const float *__restrict__ w, const float *__restrict__ b,
               float *__restrict__ xn, int rows, float eps) {
  const int row = blockIdx.x * 8 + (threadIdx.x >> 5), lane = threadIdx.x & 31;
  if (row >= rows) return;
  // A row as (element in float4, lane, q): element e of float4 q * 32 + lane.
  auto by_lane = make_layout(make_shape(Int<4>{}, Int<32>{}, Int<8>{}), LayoutLeft{});
  Tensor gX = make_tensor(make_gmem_ptr(x + (long long)row * kModel), by_lane)(_, lane, _);   // (4, 8)
  Tensor gXn = make_tensor(make_gmem_ptr(xn + (long long)row * kModel), by_lane)(_, lane, _); // (4, 8)
  Tensor gW = make_tensor(make_gmem_ptr(w), by_lane)(_, lane, _);
  Tensor gB = make_tensor(make_gmem_ptr(b), by_lane)(_, lane, _);
  Tensor v = make_tensor<float>(make_shape(Int<4>{}, Int<8>{}));
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, gX, v);
  float sum = 0.0f;
  CUTE_UNROLL
  for (int q = 0; q < 8; ++q) sum += (v(0, q) + v(1, q)) + (v(2, q) + v(3, q));
  CUTE_UNROLL
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  const float mean = sum * (1.0f / kModel);
  float sq = 0.0f;
  CUTE_UNROLL
  for (int q = 0; q < 8; ++q) {
    const float a = v(0, q) - mean, c = v(1, q) - mean, d = v(2, q) - mean, e = v(3, q) - mean;
    sq += (a * a + c * c) + (d * d + e * e);
  }
  CUTE_UNROLL
  for (int o = 16; o > 0; o >>= 1) sq += __shfl_xor_sync(0xffffffffu, sq, o);
  const float rstd = rsqrtf(sq * (1.0f / kModel) + eps);
  Tensor ww = make_tensor<float>(make_shape(Int<4>{}, Int<8>{}));
  Tensor bb = make_tensor<float>(make_shape(Int<4>{}, Int<8>{}));
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, gW, ww);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, gB, bb);
  Tensor o = make_tensor<float>(make_shape(Int<4>{}, Int<8>{}));
  CUTE_UNROLL
  for (int i = 0; i < size(o); ++i) o(i) = (v(i) - mean) * rstd * ww(i) + bb(i);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, o, gXn);
}

struct epi_bias_silu {
  const float *b1;
  float *act;
  __device__ __forceinline__ void operator()(int, int row, int col, float v0, float v1) const {
    const float2 bias = *reinterpret_cast<const float2 *>(b1 + col);
    const float h0 = v0 + bias.x, h1 = v1 + bias.y;
    float2 o;
    o.x = h0 / (1.0f + expf(-h0));
    o.y = h1 / (1.0f + expf(-h1));
    *reinterpret_cast<float2 *>(act + (long long)row * kFF + col) = o;
  }
};

struct epi_bias_half_residual {
  const float *b2, *x;
  float *out;
  __device__ __forceinline__ void operator()(int, int row, int col, float v0, float v1) const {
    const long long at = (long long)row * kModel + col;
    const float2 r = *reinterpret_cast<const float2 *>(x + at);
    const float2 bias = *reinterpret_cast<const float2 *>(b2 + col);
    float2 o;
    o.x = r.x + 0.5f * (v0 + bias.x);
    o.y = r.y + 0.5f * (v1 + bias.y);
    *reinterpret_cast<float2 *>(out + at) = o;
  }
};

// act[tokens, 4096] = silu(xn @ W1.T + b1): A = xn [tokens][1024], B = W1 [4096][1024].
extern "C" __global__ void __launch_bounds__(g3x::THREADS, 1)
ffn_up(const float *__restrict__ xn, const float *__restrict__ W1, const float *__restrict__ b1,
       float *__restrict__ act, int tokens) {
  if ((int)gridDim.x * g3x::BN != kFF) return;
  g3x::gemm_3xtf32<true, true, true>(xn, W1, tokens, kFF, kModel, kModel, kModel, epi_bias_silu{b1, act});
}

// out[tokens, 1024] = x + 0.5 * (act @ W2.T + b2): A = act [tokens][4096], B = W2 [1024][4096].
extern "C" __global__ void __launch_bounds__(g3x::THREADS, 1)
ffn_down(const float *__restrict__ act, const float *__restrict__ W2, const float *__restrict__ b2,
         const float *__restrict__ x, float *__restrict__ out, int tokens) {
  if ((int)gridDim.x * g3x::BN != kModel) return;
  g3x::gemm_3xtf32<true, true, true>(act, W2, tokens, kModel, kFF, kFF, kFF, epi_bias_half_residual{b2, x, out});
}

/* mkb:plan
scratch xn fp32[tokens * d_model]
scratch act fp32[tokens * d_ff]
launch layernorm_rows grid(ceil_div(tokens, 8)) block(256) args(x, ln_weight, ln_bias, xn, i32(tokens), f32(eps))
launch ffn_up grid(d_ff / 128, ceil_div(tokens, 128)) block(256) shared(147456) args(xn, W1, b1, act, i32(tokens))
launch ffn_down grid(d_model / 128, ceil_div(tokens, 128)) block(256) shared(147456) args(act, W2, b2, x, out, i32(tokens))
*/
