// Backward of Kokoro-82M's PL-BERT (ALBERT) post-LN feed-forward block, fp32, activations recomputed, in
// CuTe C++: the algorithm, plan and rounding points of solutions/cuda.cu.
//   forward   h = x W1^T + b1, a = gelu_tanh(h), z = x + a W2^T + b2, LayerNorm statistics of z
//   backward  dz = LN-backward(dy), dW2 = dz^T a, db2 = sum dz, dh = (dz W2) * gelu_tanh'(h),
//             dW1 = dh^T x, db1 = sum dh, dx = dz + dh W1, dln_weight = sum dy*zhat, dln_bias = sum dy
// Six GEMMs on tensor cores as 3xTF32 (fp32-accurate), each with its elementwise work in the epilogue:
// the up GEMM writes a and gelu'(h), the down GEMM writes z, the dz W2 GEMM writes dh, the dh W1 GEMM
// adds dz. The GEMM core (namespace g3x) is the CuTe 3xTF32 core of this repository's
// gelu_mlp_backward_step1x_fp32 / gelu_feedforward_flux_fp32 cute.cu solutions: 128x128x32 block tiles,
// 256 threads (TiledMMA of SM80_16x8x8_F32TF32TF32F32_TN, 8 warps as 2 x 4), a 4-stage cp.async
// TiledCopy pipeline, hi/lo split with lo*hi' + hi*lo' + hi*hi' per 32-wide k tile summed into a fresh
// partial that is added to the fp32 accumulator with a round-to-nearest add.
// One warp-per-row kernel does the LayerNorm statistics and backward with per-block column partials of
// dy*zhat, dy and dz (CuTe views of the rows, 128-bit vector copies). The weight gradients reduce over
// 8192 tokens: split-K by 8 (blockIdx.z; the operands' pointers start at the split's first token) into
// fp32 partials, then a sum in split order. All reductions are deterministic (no atomics).
// Shapes: hidden 768 = 6*128, inter 2048 = 16*128, tokens 8192 = 64*128 = 8 splits * 1024 (32-row K tiles).
// Status: compile-checked for sm_90a only (not run on a GPU). Expected speed: close to cuda.cu (the same
// tiling and 3xTF32 scheme; 4 stages and one CTA per SM instead of 3 stages and two), i.e. ahead of the
// eager fp32 baseline.
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

constexpr int kTokens = 8192, kHidden = 768, kInter = 2048;
constexpr int kSplitK = 8;
static_assert(kHidden % 128 == 0 && kInter % 128 == 0 && kTokens % 128 == 0, "M and N tiles of 128");
static_assert(kHidden % 32 == 0 && kInter % 32 == 0 && (kTokens / kSplitK) % 32 == 0, "K tiles of 32");

namespace {
__device__ __forceinline__ bool tiles_fit(int M, int N, int K) {
  return M % g3x::BM == 0 && N % g3x::BN == 0 && K % g3x::BK == 0 && (int)gridDim.x * g3x::BN == N &&
         (int)gridDim.y * g3x::BM == M && blockDim.x == (unsigned)g3x::THREADS;
}
// gelu_new and its derivative at h (as cuda.cu).
__device__ __forceinline__ void gelu_tanh_and_grad(float h, float &a, float &gp) {
  const float k = 0.79788456080286536f, c = 0.044715f;
  const float t = tanhf(k * (h + c * h * h * h));
  a = 0.5f * h * (1.0f + t);
  gp = 0.5f * (1.0f + t) + 0.5f * h * (1.0f - t * t) * k * (1.0f + 3.0f * c * h * h);
}
__device__ __forceinline__ void store2(float *p, long long index, float v0, float v1) {
  *reinterpret_cast<float2 *>(p + index) = make_float2(v0, v1);
}
__device__ __forceinline__ float2 load2(const float *p, long long index) {
  return *reinterpret_cast<const float2 *>(p + index);
}
} // namespace

// act = gelu(x W1^T + b1), gp = gelu'(x W1^T + b1): M = tokens, N = inter, K = hidden (both K-contiguous).
extern "C" __global__ void __launch_bounds__(256, 1)
fwd_up(const float *__restrict__ x, const float *__restrict__ W1, const float *__restrict__ b1,
       float *__restrict__ act, float *__restrict__ gp) {
  if (!tiles_fit(kTokens, kInter, kHidden)) return;
  g3x::gemm_3xtf32<true, true, false>(x, W1, kTokens, kInter, kHidden, kHidden, kHidden,
                                      [&](int, int row, int col, float v0, float v1) {
    const float2 bias = load2(b1, col);
    float a0, a1, d0, d1;
    gelu_tanh_and_grad(v0 + bias.x, a0, d0);
    gelu_tanh_and_grad(v1 + bias.y, a1, d1);
    const long long at = (long long)row * kInter + col;
    store2(act, at, a0, a1);
    store2(gp, at, d0, d1);
  });
}

// z = x + (act W2^T + b2): M = tokens, N = hidden, K = inter (both K-contiguous).
extern "C" __global__ void __launch_bounds__(256, 1)
fwd_down(const float *__restrict__ act, const float *__restrict__ W2, const float *__restrict__ b2,
         const float *__restrict__ x, float *__restrict__ z) {
  if (!tiles_fit(kTokens, kHidden, kInter)) return;
  g3x::gemm_3xtf32<true, true, false>(act, W2, kTokens, kHidden, kInter, kInter, kInter,
                                      [&](int, int row, int col, float v0, float v1) {
    const long long at = (long long)row * kHidden + col;
    const float2 r = load2(x, at), bias = load2(b2, col);
    store2(z, at, r.x + (v0 + bias.x), r.y + (v1 + bias.y));
  });
}

// LayerNorm backward, one warp per row (768 = 32 lanes x 6 pieces of 4), 32 rows per 256-thread block.
// dz = rstd * (g - mean(g) - zhat * mean(g * zhat)) with g = dy * w, zhat = (z - mean) * rstd.
// Writes per-block column partials [block][col] of dy*zhat (pgam), dy (pbet) and dz (pb2).
constexpr int kLnRows = 32, kPieces = kHidden / 128; // 6 float4 pieces per lane
extern "C" __global__ void __launch_bounds__(256)
ln_backward(const float *__restrict__ z, const float *__restrict__ dy, const float *__restrict__ w,
            float *__restrict__ dz, float *__restrict__ pgam, float *__restrict__ pbet, float *__restrict__ pb2,
            float eps) {
  __shared__ __align__(16) float red[8][kHidden];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  // A row as (piece q, lane, 4): column 128 q + 4 lane + e, so a lane's piece is one 16-byte vector.
  auto row_layout = make_layout(make_shape(Int<kPieces>{}, Int<32>{}, Int<4>{}), make_stride(Int<128>{}, Int<4>{}, Int<1>{}));
  auto piece_layout = make_layout(make_shape(Int<kPieces>{}, Int<4>{}), LayoutRight{}); // registers: a lane's 6 x 4
  auto vcopy = AutoVectorizingCopyWithAssumedAlignment<128>{};
  Tensor gW = make_tensor(make_gmem_ptr(w), row_layout);
  Tensor rW = make_tensor<float>(piece_layout);
  CUTE_UNROLL
  for (int q = 0; q < kPieces; ++q) copy(vcopy, gW(q, lane, _), rW(q, _));
  Tensor pg = make_tensor<float>(piece_layout); // column partials: dy*zhat
  Tensor pb = make_tensor<float>(piece_layout); // dy
  Tensor pz = make_tensor<float>(piece_layout); // dz
  clear(pg);
  clear(pb);
  clear(pz);
  for (int rr = warp; rr < kLnRows; rr += 8) {
    const long long row = (long long)blockIdx.x * kLnRows + rr;
    Tensor gZ = make_tensor(make_gmem_ptr(z + row * kHidden), row_layout);
    Tensor gDy = make_tensor(make_gmem_ptr(dy + row * kHidden), row_layout);
    Tensor gDz = make_tensor(make_gmem_ptr(dz + row * kHidden), row_layout);
    Tensor zv = make_tensor<float>(piece_layout);
    Tensor dv = make_tensor<float>(piece_layout);
    Tensor gv = make_tensor<float>(piece_layout);
    CUTE_UNROLL
    for (int q = 0; q < kPieces; ++q) {
      copy(vcopy, gZ(q, lane, _), zv(q, _));
      copy(vcopy, gDy(q, lane, _), dv(q, _));
    }
    float sum = 0.f;
    CUTE_UNROLL
    for (int q = 0; q < kPieces; ++q) sum += (zv(q, 0) + zv(q, 1)) + (zv(q, 2) + zv(q, 3));
    CUTE_UNROLL
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    const float mean = sum * (1.0f / kHidden);
    float sq = 0.f;
    CUTE_UNROLL
    for (int q = 0; q < kPieces; ++q) {
      const float a = zv(q, 0) - mean, b = zv(q, 1) - mean, c = zv(q, 2) - mean, d = zv(q, 3) - mean;
      sq += (a * a + b * b) + (c * c + d * d);
    }
    CUTE_UNROLL
    for (int o = 16; o > 0; o >>= 1) sq += __shfl_xor_sync(0xffffffffu, sq, o);
    const float rstd = rsqrtf(sq * (1.0f / kHidden) + eps);
    float s1 = 0.f, s2 = 0.f; // sum g, sum g*zhat
    CUTE_UNROLL
    for (int q = 0; q < kPieces; ++q) {
      CUTE_UNROLL
      for (int e = 0; e < 4; ++e) {
        const float zh = (zv(q, e) - mean) * rstd;
        zv(q, e) = zh; // zv now holds zhat
        gv(q, e) = dv(q, e) * rW(q, e);
        pg(q, e) += dv(q, e) * zh;
        pb(q, e) += dv(q, e);
      }
      s1 += (gv(q, 0) + gv(q, 1)) + (gv(q, 2) + gv(q, 3));
      s2 += (gv(q, 0) * zv(q, 0) + gv(q, 1) * zv(q, 1)) + (gv(q, 2) * zv(q, 2) + gv(q, 3) * zv(q, 3));
    }
    CUTE_UNROLL
    for (int o = 16; o > 0; o >>= 1) {
      s1 += __shfl_xor_sync(0xffffffffu, s1, o);
      s2 += __shfl_xor_sync(0xffffffffu, s2, o);
    }
    const float m1 = s1 * (1.0f / kHidden), m2 = s2 * (1.0f / kHidden);
    CUTE_UNROLL
    for (int q = 0; q < kPieces; ++q) {
      CUTE_UNROLL
      for (int e = 0; e < 4; ++e) {
        const float o = rstd * (gv(q, e) - m1 - zv(q, e) * m2);
        gv(q, e) = o;
        pz(q, e) += o;
      }
      copy(vcopy, gv(q, _), gDz(q, lane, _));
    }
  }
  // combine the 8 warps' column partials, one quantity at a time
  CUTE_UNROLL
  for (int k = 0; k < 3; ++k) {
    float *part = k == 0 ? pgam : (k == 1 ? pbet : pb2);
    Tensor sRed = make_tensor(make_smem_ptr(&red[warp][0]), row_layout);
    CUTE_UNROLL
    for (int q = 0; q < kPieces; ++q) copy(vcopy, k == 0 ? pg(q, _) : (k == 1 ? pb(q, _) : pz(q, _)), sRed(q, lane, _));
    __syncthreads();
    for (int c = threadIdx.x; c < kHidden; c += 256) {
      float s = 0.f;
      CUTE_UNROLL
      for (int wv = 0; wv < 8; ++wv) s += red[wv][c];
      part[(long long)blockIdx.x * kHidden + c] = s;
    }
    __syncthreads();
  }
}

// out[c] = sum_p part[p * cols + c], in p order
extern "C" __global__ void sum_partials(const float *__restrict__ part, float *__restrict__ out, int parts, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float s = 0.f;
  for (int p = 0; p < parts; ++p) s += part[(long long)p * cols + c];
  out[c] = s;
}

// part[split][c] = sum of m[r][c] over rows r in [split * rows_per, (split + 1) * rows_per)
extern "C" __global__ void col_partials(const float *__restrict__ m, float *__restrict__ part, int rows, int cols,
                                        int rows_per) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const int r0 = blockIdx.y * rows_per, r1 = min(rows, r0 + rows_per);
  float s = 0.f;
  for (int r = r0; r < r1; ++r) s += m[(long long)r * cols + c];
  part[(long long)blockIdx.y * cols + c] = s;
}

// da = dz W2 (M = tokens, N = inter, K = hidden; dz K-contiguous, W2 [768][2048] N-contiguous); dh = da * gp
extern "C" __global__ void __launch_bounds__(256, 1)
bwd_dh(const float *__restrict__ dz, const float *__restrict__ W2, const float *__restrict__ gp,
       float *__restrict__ dh) {
  if (!tiles_fit(kTokens, kInter, kHidden)) return;
  g3x::gemm_3xtf32<true, false, false>(dz, W2, kTokens, kInter, kHidden, kHidden, kInter,
                                       [&](int, int row, int col, float v0, float v1) {
    const long long at = (long long)row * kInter + col;
    const float2 d = load2(gp, at);
    store2(dh, at, v0 * d.x, v1 * d.y);
  });
}

// dx = dz + dh W1 (M = tokens, N = hidden, K = inter; dh K-contiguous, W1 [2048][768] N-contiguous)
extern "C" __global__ void __launch_bounds__(256, 1)
bwd_dx(const float *__restrict__ dh, const float *__restrict__ W1, const float *__restrict__ dz,
       float *__restrict__ dx) {
  if (!tiles_fit(kTokens, kHidden, kInter)) return;
  g3x::gemm_3xtf32<true, false, false>(dh, W1, kTokens, kHidden, kInter, kInter, kHidden,
                                       [&](int, int row, int col, float v0, float v1) {
    const long long at = (long long)row * kHidden + col;
    const float2 r = load2(dz, at);
    store2(dx, at, r.x + v0, r.y + v1);
  });
}

// Split-K weight gradients, blockIdx.z = split s of the token axis (tokens [s * 1024, s * 1024 + 1024)):
// part2[s] [768][2048] = dz^T act over the split (A = dz M-contiguous, B = act N-contiguous);
// part1[s] [2048][768] = dh^T x over the split (A = dh M-contiguous, B = x N-contiguous).
extern "C" __global__ void __launch_bounds__(256, 1)
bwd_dw2(const float *__restrict__ dz, const float *__restrict__ act, float *__restrict__ part2) {
  constexpr int per = kTokens / kSplitK;
  if (!tiles_fit(kHidden, kInter, per) || gridDim.z != kSplitK) return;
  const long long t0 = (long long)blockIdx.z * per;
  float *out = part2 + (long long)blockIdx.z * kHidden * kInter;
  g3x::gemm_3xtf32<false, false, false>(dz + t0 * kHidden, act + t0 * kInter, kHidden, kInter, per, kHidden, kInter,
                                        [&](int, int row, int col, float v0, float v1) {
    store2(out, (long long)row * kInter + col, v0, v1);
  });
}
extern "C" __global__ void __launch_bounds__(256, 1)
bwd_dw1(const float *__restrict__ dh, const float *__restrict__ x, float *__restrict__ part1) {
  constexpr int per = kTokens / kSplitK;
  if (!tiles_fit(kInter, kHidden, per) || gridDim.z != kSplitK) return;
  const long long t0 = (long long)blockIdx.z * per;
  float *out = part1 + (long long)blockIdx.z * kInter * kHidden;
  g3x::gemm_3xtf32<false, false, false>(dh + t0 * kInter, x + t0 * kHidden, kInter, kHidden, per, kInter, kHidden,
                                        [&](int, int row, int col, float v0, float v1) {
    store2(out, (long long)row * kHidden + col, v0, v1);
  });
}

// out[i] = sum_s part[s * n + i] in split order, float4-wide (n % 4 == 0)
extern "C" __global__ void sum_splits(const float *__restrict__ part, float *__restrict__ out, long long n4) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  const float4 *p = reinterpret_cast<const float4 *>(part);
  float4 s = p[i];
  CUTE_UNROLL
  for (int k = 1; k < kSplitK; ++k) {
    const float4 v = p[(long long)k * n4 + i];
    s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
  }
  reinterpret_cast<float4 *>(out)[i] = s;
}

/* mkb:plan
# tokens = 8192: a multiple of 128 (GEMM rows), of 8 splits x 32 (split-K), of 32 (ln_backward rows)
scratch act fp32[tokens * inter]
scratch gp fp32[tokens * inter]
scratch z fp32[tokens * hidden]
scratch dz fp32[tokens * hidden]
scratch dh fp32[tokens * inter]
scratch pgam fp32[(tokens / 32) * hidden]
scratch pbet fp32[(tokens / 32) * hidden]
scratch pb2 fp32[(tokens / 32) * hidden]
scratch pb1 fp32[(tokens / 128) * inter]
scratch w2part fp32[8 * hidden * inter]
scratch w1part fp32[8 * inter * hidden]
launch fwd_up grid(inter / 128, tokens / 128) block(256) shared(147456) args(x, W1, b1, act, gp)
launch fwd_down grid(hidden / 128, tokens / 128) block(256) shared(147456) args(act, W2, b2, x, z)
launch ln_backward grid(tokens / 32) block(256) args(z, dy, ln_weight, dz, pgam, pbet, pb2, f32(eps))
launch sum_partials grid(ceil_div(hidden, 256)) block(256) args(pgam, dln_weight, i32(tokens / 32), i32(hidden))
launch sum_partials grid(ceil_div(hidden, 256)) block(256) args(pbet, dln_bias, i32(tokens / 32), i32(hidden))
launch sum_partials grid(ceil_div(hidden, 256)) block(256) args(pb2, db2, i32(tokens / 32), i32(hidden))
launch bwd_dh grid(inter / 128, tokens / 128) block(256) shared(147456) args(dz, W2, gp, dh)
launch col_partials grid(inter / 256, tokens / 128) block(256) args(dh, pb1, i32(tokens), i32(inter), i32(128))
launch sum_partials grid(ceil_div(inter, 256)) block(256) args(pb1, db1, i32(tokens / 128), i32(inter))
launch bwd_dx grid(hidden / 128, tokens / 128) block(256) shared(147456) args(dh, W1, dz, dx)
launch bwd_dw2 grid(inter / 128, hidden / 128, 8) block(256) shared(147456) args(dz, act, w2part)
launch bwd_dw1 grid(hidden / 128, inter / 128, 8) block(256) shared(147456) args(dh, x, w1part)
launch sum_splits grid(ceil_div(hidden * inter / 4, 256)) block(256) args(w2part, dW2, i64(hidden * inter / 4))
launch sum_splits grid(ceil_div(inter * hidden / 4, 256)) block(256) args(w1part, dW1, i64(inter * hidden / 4))
*/
