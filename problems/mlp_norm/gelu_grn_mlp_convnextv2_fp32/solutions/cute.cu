// Fused ConvNeXt V2 MLP (LayerNorm -> Linear -> GELU -> GRN -> Linear) in CuTe C++: the algorithm, plan
// and rounding points of solutions/cuda.cu, fp32 accuracy, four launches:
//   1. ln_rows: LayerNorm, one warp per 512-wide row held in registers (two-pass statistics); CuTe views a
//      row as (4, 32 lanes, 4) so lane l holds float4 number l + 32 j, as cuda.cu.
//   2. gemm1_gelu_grnsum: xn @ w1^T on tensor cores (3xTF32), epilogue adds b1, applies GELU, stores h and
//      accumulates the GRN's per-(image, channel) sum of squares (warp-reduced, then one atomic per column).
//   3. grn_scale: per image, Gx = sqrt(sum of squares), Nx = Gx / (mean Gx + eps); sc = gamma * Nx + 1.
//   4. gemm2_grn: (h * sc + beta) @ w2^T + b2 on tensor cores (3xTF32); the GRN affine is applied to each
//      A tile in shared memory right after it lands, so the GRN output never goes to memory.
//
// GEMMs: CuTe's SM80 m16n8k8 TF32 MMA atom in a 2 (M) x 4 (N) warp TiledMMA, warp tile 64 x 32 (4 x 4
// atoms), 128 x 128 block tile, 32-wide K tile, 4-stage cp.async TiledCopy into shared rows padded to 36
// floats. 3xTF32: each fp32 operand is split into hi = tf32(a) (cvt.rna) and lo = tf32(a - hi); per
// accumulator and k8 step lo*hi' + hi*lo' + hi*hi'; the tensor-core accumulation restarts from zero for every
// 32-wide K tile and is added to the running fp32 sum with ordinary FADDs.
//
// Shapes are fixed by the problem: rows T = 64 * 14 * 14 = 12544 = 98 * 128, dim = 512 = 4 * 128,
// hidden = 2048 = 16 * 128; both K (512, 2048) are multiples of the 32-wide K tile.
#include <cute/tensor.hpp>
#include <cutlass/numeric_types.h>

using namespace cute;

constexpr int kBatch = 64;
constexpr int kHW = 14 * 14;
constexpr int kRows = kBatch * kHW;
constexpr int kDim = 512;
constexpr int kHidden = 2048;

constexpr int BM = 128, BN = 128, BK = 32, LDS = BK + 4, STAGES = 4, THREADS = 256;
constexpr int WARPS_N = 4, WTM = 64, WTN = 32, MT = WTM / 16, NT = WTN / 8;
constexpr int kStageFloats = (BM + BN) * LDS;
constexpr int kGemmSmemBytes = STAGES * kStageFloats * 4;
static_assert(kGemmSmemBytes == 147456, "gemm1's shared(...) in the plan");
static_assert(kGemmSmemBytes + 3 * kHidden * 4 == 172032, "gemm2's shared(...) in the plan: + scs[2][hidden] + betas[hidden]");
static_assert(kRows % BM == 0, "rows must be a multiple of the M tile");
static_assert(kHidden % BN == 0 && kDim % BN == 0, "N must be a multiple of the N tile");
static_assert(kDim % BK == 0 && kHidden % BK == 0, "K must be a multiple of the K tile");
static_assert(BM <= kHW, "a block's rows must span at most two images");
static_assert(WTM <= kHW, "a warp's rows must span at most two images");
static_assert(kDim == 32 * 16, "ln_rows holds 16 values per lane");
static_assert(kHidden == 8 * 256, "grn_scale holds 8 channels per thread");
static_assert(BM * BK / 4 == 4 * THREADS && BN * BK / 4 == 4 * THREADS, "four 16-byte chunks per thread per tile");

__device__ __forceinline__ uint32_t tf32_rna(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}
// x = hi + lo, both TF32 (cvt.rna), lo from the exact remainder.
__device__ __forceinline__ void split_tf32(float x, cutlass::tfloat32_t &hi, cutlass::tfloat32_t &lo) {
  const uint32_t h = tf32_rna(x);
  hi = cutlass::tfloat32_t::bitcast(h);
  lo = cutlass::tfloat32_t::bitcast(tf32_rna(x - __uint_as_float(h)));
}

__device__ __forceinline__ float gelu_erf(float v) { return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)); }

__device__ __forceinline__ float warp_sum(float v) {
  CUTE_UNROLL
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// ---- 1. LayerNorm ---------------------------------------------------------------------------------------

extern "C" __global__ void __launch_bounds__(256)
ln_rows(const float *__restrict__ x, const float *__restrict__ w, const float *__restrict__ b,
        float *__restrict__ xn, float eps) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * 8 + (threadIdx.x >> 5);
  if (row >= kRows) return;
  // A 512-wide row as (element in float4, lane, j): float4 number lane + 32 j.
  auto by_lane = make_layout(make_shape(Int<4>{}, Int<32>{}, Int<4>{}), LayoutLeft{});
  auto rows = make_layout(make_shape(Int<kRows>{}, Int<kDim>{}), LayoutRight{});
  Tensor gX = make_tensor(make_gmem_ptr(x), rows);
  Tensor gXn = make_tensor(make_gmem_ptr(xn), rows);
  Tensor tX = make_tensor(gX(row, _).data(), by_lane)(_, lane, _);                      // (4, 4)
  Tensor tO = make_tensor(gXn(row, _).data(), by_lane)(_, lane, _);                     // (4, 4)
  Tensor tW = make_tensor(make_gmem_ptr(w), by_lane)(_, lane, _);                       // (4, 4)
  Tensor tB = make_tensor(make_gmem_ptr(b), by_lane)(_, lane, _);                       // (4, 4)
  Tensor v = make_tensor<float>(make_shape(Int<4>{}, Int<4>{}));
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, tX, v);
  float s = 0.0f;
  CUTE_UNROLL
  for (int j = 0; j < 4; ++j) s += (v(0, j) + v(1, j)) + (v(2, j) + v(3, j));
  const float mean = warp_sum(s) * (1.0f / kDim);
  float q = 0.0f;
  CUTE_UNROLL
  for (int j = 0; j < 4; ++j) {
    const float a = v(0, j) - mean, bb = v(1, j) - mean, c = v(2, j) - mean, d = v(3, j) - mean;
    q += a * a + bb * bb + c * c + d * d;
  }
  const float rstd = rsqrtf(warp_sum(q) * (1.0f / kDim) + eps);
  Tensor ww = make_tensor<float>(make_shape(Int<4>{}, Int<4>{}));
  Tensor bv = make_tensor<float>(make_shape(Int<4>{}, Int<4>{}));
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, tW, ww);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, tB, bv);
  Tensor o = make_tensor<float>(make_shape(Int<4>{}, Int<4>{}));
  CUTE_UNROLL
  for (int j = 0; j < 4; ++j)
    CUTE_UNROLL
    for (int e = 0; e < 4; ++e) o(e, j) = (v(e, j) - mean) * rstd * ww(e, j) + bv(e, j);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, o, tO);
}

// ---- The 3xTF32 GEMM main loop ----------------------------------------------------------------------------
// acc[128 x 128 tile at (m0, n0)] = A[m0.., :K] @ B[n0.., :K]^T, A and B row-major with K contiguous.
// With kGrnA, every A element a[r, k] is replaced by a * scs[sel(r) * K + k] + betas[k] (the GRN affine),
// sel(r) = image of row r minus img0, in {0, 1}; scs and betas are in shared memory.

// 8 warps as 2 (M) x 4 (N), warp = 4 wm + wn; the permutations give warp (wm, wn) rows wm * 64 + mt * 16
// and columns wn * 32 + nt * 8 of the tile, as 4 x 4 atoms of m16n8k8.
using GemmMMA = decltype(make_tiled_mma(SM80_16x8x8_F32TF32TF32F32_TN{},
                                        Layout<Shape<_2, _4, _1>, Stride<_4, _1, _0>>{},
                                        Tile<Layout<Shape<_16, _2, _4>, Stride<_1, _64, _16>>,
                                             Layout<Shape<_8, _4, _4>, Stride<_1, _32, _8>>, _8>{}));

__device__ __forceinline__ auto gemm_tile_c() { return make_identity_tensor(make_shape(Int<BM>{}, Int<BN>{})); }

template <bool kGrnA, int K, class Acc>
__device__ __forceinline__ void gemm_mainloop(const float *__restrict__ A, const float *__restrict__ B, const int m0,
                                              const int n0, float *smem, Acc &acc, const float *scs,
                                              const float *betas, const int img0) {
  constexpr int KT = K / BK;
  const int tid = threadIdx.x;
  auto rowsK = make_layout(make_shape(Int<BM>{}, Int<K>{}), LayoutRight{});
  Tensor gA = local_tile(make_tensor(make_gmem_ptr(A + (long long)m0 * K), rowsK), make_shape(Int<BM>{}, Int<BK>{}),
                         make_coord(0, _)); // (128, 32, KT)
  Tensor gB = local_tile(make_tensor(make_gmem_ptr(B + (long long)n0 * K), rowsK), make_shape(Int<BN>{}, Int<BK>{}),
                         make_coord(0, _)); // (128, 32, KT)
  auto stage_layout = make_layout(make_shape(Int<BM>{}, Int<BK>{}, Int<STAGES>{}),
                                  make_stride(Int<LDS>{}, Int<1>{}, Int<kStageFloats>{}));
  Tensor sA = make_tensor(make_smem_ptr(smem), stage_layout);            // (128, 32, 4)
  Tensor sB = make_tensor(make_smem_ptr(smem + BM * LDS), stage_layout); // (128, 32, 4)

  // cp.async: thread t copies the 16-byte chunks (t / 8 + 32 i, 4 (t % 8) .. + 4), i = 0..3, of each tile.
  auto g2s = make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>{},
                             make_layout(make_shape(Int<32>{}, Int<8>{}), LayoutRight{}),
                             make_layout(make_shape(Int<1>{}, Int<4>{})));
  auto thr_g2s = g2s.get_slice(tid);
  Tensor tAgA = thr_g2s.partition_S(gA); // (CPY, 4, 1, KT)
  Tensor tAsA = thr_g2s.partition_D(sA); // (CPY, 4, 1, STAGES)
  Tensor tBgB = thr_g2s.partition_S(gB);
  Tensor tBsB = thr_g2s.partition_D(sB);
  auto load_stage = [&](int stage, int kt) {
    copy(g2s, tAgA(_, _, _, kt), tAsA(_, _, _, stage));
    copy(g2s, tBgB(_, _, _, kt), tBsB(_, _, _, stage));
  };

  // The GRN affine: this thread's chunks of A have column (tid % 8) * 4 of the K tile.
  const int ccol = (tid & 7) * 4;
  int sel[4];
  CUTE_UNROLL
  for (int i = 0; i < 4; ++i) sel[i] = kGrnA ? (m0 + ((tid + 256 * i) >> 3)) / kHW - img0 : 0;

  GemmMMA mma;
  auto thr_mma = mma.get_slice(tid);
  Tensor tCsA = thr_mma.partition_A(sA);                    // (MMA, 4, 4, STAGES) fp32 in shared memory
  Tensor tCsB = thr_mma.partition_B(sB);                    // (MMA, 4, 4, STAGES)
  Tensor tArH = thr_mma.partition_fragment_A(sA(_, _, 0)); // (MMA, 4, 4) TF32 hi / lo parts
  Tensor tArL = thr_mma.partition_fragment_A(sA(_, _, 0));
  Tensor tBrH = thr_mma.partition_fragment_B(sB(_, _, 0)); // (MMA, 4, 4)
  Tensor tBrL = thr_mma.partition_fragment_B(sB(_, _, 0));
  Tensor tacc = make_fragment_like(acc);                   // (MMA, 4, 4) one K tile

  CUTE_UNROLL
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < KT) load_stage(s, s);
    cp_async_fence();
  }

  for (int kt = 0; kt < KT; ++kt) {
    cp_async_wait<STAGES - 2>(); // this thread's copies of tile kt have landed
    const int stage = kt % STAGES;
    if (kGrnA) {
      // Transform the chunks this thread copied itself (visible to it after the wait).
      CUTE_UNROLL
      for (int i = 0; i < 4; ++i) {
        Tensor p = tAsA(_, i, 0, stage); // 4 floats in shared memory
        Tensor v = make_tensor<float>(make_shape(Int<4>{}));
        Tensor sv = make_tensor<float>(make_shape(Int<4>{}));
        Tensor bv = make_tensor<float>(make_shape(Int<4>{}));
        copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, p, v);
        copy(AutoVectorizingCopyWithAssumedAlignment<128>{},
             make_tensor(make_smem_ptr(scs + sel[i] * K + kt * BK + ccol), make_shape(Int<4>{})), sv);
        copy(AutoVectorizingCopyWithAssumedAlignment<128>{},
             make_tensor(make_smem_ptr(betas + kt * BK + ccol), make_shape(Int<4>{})), bv);
        CUTE_UNROLL
        for (int e = 0; e < 4; ++e) v(e) = fmaf(v(e), sv(e), bv(e));
        copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, v, p);
      }
    }
    __syncthreads(); // tile kt visible to all; everyone is done with tile kt - 1
    {
      const int nk = kt + STAGES - 1;
      if (nk < KT) load_stage(nk % STAGES, nk);
      cp_async_fence();
    }

    clear(tacc);
    CUTE_UNROLL
    for (int kk = 0; kk < BK / 8; ++kk) {
      Tensor sBk = tCsB(_, _, kk, stage);
      Tensor bh = tBrH(_, _, kk);
      Tensor bl = tBrL(_, _, kk);
      CUTE_UNROLL
      for (int i = 0; i < size(sBk); ++i) split_tf32(sBk(i), bh(i), bl(i));
      Tensor sAk = tCsA(_, _, kk, stage);
      Tensor ah = tArH(_, _, kk);
      Tensor al = tArL(_, _, kk);
      CUTE_UNROLL
      for (int i = 0; i < size(sAk); ++i) split_tf32(sAk(i), ah(i), al(i));
      // Per accumulator, as cuda.cu: lo*hi', hi*lo', hi*hi'.
      gemm(mma, tacc, al, bh, tacc);
      gemm(mma, tacc, ah, bl, tacc);
      gemm(mma, tacc, ah, bh, tacc);
    }
    CUTE_UNROLL
    for (int i = 0; i < size(acc); ++i) acc(i) += tacc(i);
  }
  cp_async_wait<0>();
}

// ---- 2. GEMM 1 + bias + GELU + GRN sums of squares ------------------------------------------------------

extern "C" __global__ void __launch_bounds__(THREADS, 1)
gemm1_gelu_grnsum(const float *__restrict__ xn, const float *__restrict__ w1, const float *__restrict__ b1,
                  float *__restrict__ h, float *__restrict__ ss) {
  extern __shared__ float4 smem4[];
  float *smem = reinterpret_cast<float *>(smem4);
  const int n0 = blockIdx.x * BN, m0 = blockIdx.y * BM;
  GemmMMA mma;
  auto thr_mma = mma.get_slice(threadIdx.x);
  Tensor gH = make_tensor(make_gmem_ptr(h), make_layout(make_shape(Int<kRows>{}, Int<kHidden>{}), LayoutRight{}));
  Tensor gHt = local_tile(gH, make_shape(Int<BM>{}, Int<BN>{}), make_coord(blockIdx.y, blockIdx.x)); // (128, 128)
  Tensor acc = thr_mma.partition_fragment_C(gHt); // (MMA, 4, 4)
  clear(acc);

  gemm_mainloop<false, kDim>(xn, w1, m0, n0, smem, acc, nullptr, nullptr, 0);

  // acc((j, half), mt, nt) is cuda.cu's acc[mt][nt][2 half + j]: row wm*64 + mt*16 + g + 8 half,
  // column wn*32 + nt*8 + 2t + j of the tile (checked on the host).
  Tensor tCc = thr_mma.partition_C(gemm_tile_c());
  Tensor tCgH = thr_mma.partition_C(gHt);
  Tensor gB1 = make_tensor(make_gmem_ptr(b1), make_layout(make_shape(Int<kHidden>{})));
  Tensor gSS = make_tensor(make_gmem_ptr(ss), make_layout(make_shape(Int<kBatch>{}, Int<kHidden>{}), LayoutRight{}));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2;
  const int wm = warp / WARPS_N;
  const int rw = m0 + wm * WTM;                  // the warp's first row
  const int img_first = rw / kHW;
  const int boundary = (img_first + 1) * kHW;    // rows >= boundary belong to image img_first + 1
  float s_lo[NT][2], s_hi[NT][2];
  CUTE_UNROLL
  for (int nt = 0; nt < NT; ++nt) {
    s_lo[nt][0] = s_lo[nt][1] = 0.0f;
    s_hi[nt][0] = s_hi[nt][1] = 0.0f;
  }
  CUTE_UNROLL
  for (int nt = 0; nt < NT; ++nt) {
    const int c = n0 + get<1>(tCc(make_coord(0, 0), 0, nt));
    const float bias0 = gB1(c), bias1 = gB1(c + 1);
    CUTE_UNROLL
    for (int mt = 0; mt < MT; ++mt) {
      CUTE_UNROLL
      for (int half = 0; half < 2; ++half) {
        const int r = m0 + get<0>(tCc(make_coord(0, half), mt, nt));
        Tensor v = make_tensor<float>(make_shape(Int<2>{}));
        v(0) = gelu_erf(acc(make_coord(0, half), mt, nt) + bias0);
        v(1) = gelu_erf(acc(make_coord(1, half), mt, nt) + bias1);
        copy(AutoVectorizingCopyWithAssumedAlignment<64>{}, v, tCgH(make_coord(_, half), mt, nt));
        if (r < boundary) {
          s_lo[nt][0] += v(0) * v(0);
          s_lo[nt][1] += v(1) * v(1);
        } else {
          s_hi[nt][0] += v(0) * v(0);
          s_hi[nt][1] += v(1) * v(1);
        }
      }
    }
  }
  // Sum over the 8 row groups g (lane bits 2..4); lanes 0..3 then hold the warp's column sums.
  CUTE_UNROLL
  for (int nt = 0; nt < NT; ++nt)
    CUTE_UNROLL
    for (int j = 0; j < 2; ++j)
      CUTE_UNROLL
      for (int o = 4; o < 32; o <<= 1) {
        s_lo[nt][j] += __shfl_xor_sync(0xffffffffu, s_lo[nt][j], o);
        s_hi[nt][j] += __shfl_xor_sync(0xffffffffu, s_hi[nt][j], o);
      }
  if (g == 0) {
    const bool spans_two = rw + WTM - 1 >= boundary; // then image img_first + 1 exists (rows < kRows)
    CUTE_UNROLL
    for (int nt = 0; nt < NT; ++nt)
      CUTE_UNROLL
      for (int j = 0; j < 2; ++j) {
        const int c = n0 + get<1>(tCc(make_coord(j, 0), 0, nt));
        atomicAdd(&gSS(img_first, c), s_lo[nt][j]);
        if (spans_two) atomicAdd(&gSS(img_first + 1, c), s_hi[nt][j]);
      }
  }
}

// ---- 3. GRN scale per (image, channel) -----------------------------------------------------------------

extern "C" __global__ void __launch_bounds__(256)
grn_scale(const float *__restrict__ ss, const float *__restrict__ gamma, float *__restrict__ sc, float eps) {
  __shared__ float partial[8];
  const int b = blockIdx.x, tid = threadIdx.x;
  // Per image, channel tid + 256 j of thread tid: (thread, j).
  auto per_thread = make_layout(make_shape(Int<256>{}, Int<8>{}));
  Tensor tSS = make_tensor(make_gmem_ptr(ss + (long long)b * kHidden), per_thread)(tid, _);
  Tensor tSC = make_tensor(make_gmem_ptr(sc + (long long)b * kHidden), per_thread)(tid, _);
  Tensor tG = make_tensor(make_gmem_ptr(gamma), per_thread)(tid, _);
  float gx[8];
  float s = 0.0f;
  CUTE_UNROLL
  for (int j = 0; j < 8; ++j) {
    gx[j] = sqrtf(tSS(j));
    s += gx[j];
  }
  s = warp_sum(s);
  if ((tid & 31) == 0) partial[tid >> 5] = s;
  __syncthreads();
  float total = 0.0f;
  CUTE_UNROLL
  for (int w = 0; w < 8; ++w) total += partial[w];
  const float den = total / kHidden + eps;
  CUTE_UNROLL
  for (int j = 0; j < 8; ++j) tSC(j) = tG(j) * (gx[j] / den) + 1.0f;
}

// ---- 4. GEMM 2 on the GRN output + bias --------------------------------------------------------------------

extern "C" __global__ void __launch_bounds__(THREADS, 1)
gemm2_grn(const float *__restrict__ h, const float *__restrict__ w2, const float *__restrict__ b2,
          const float *__restrict__ sc, const float *__restrict__ beta, float *__restrict__ y) {
  extern __shared__ float4 smem4[];
  float *smem = reinterpret_cast<float *>(smem4);
  float *scs = smem + STAGES * kStageFloats; // [2][kHidden]: the scales of images img0 and img0 + 1
  float *betas = scs + 2 * kHidden;          // [kHidden]
  const int n0 = blockIdx.x * BN, m0 = blockIdx.y * BM;
  const int img0 = m0 / kHW;
  {
    Tensor gSC = make_tensor(make_gmem_ptr(sc), make_layout(make_shape(Int<kBatch>{}, Int<kHidden>{}), LayoutRight{}));
    Tensor gBeta = make_tensor(make_gmem_ptr(beta), make_layout(make_shape(Int<kHidden>{})));
    Tensor sSC = make_tensor(make_smem_ptr(scs), make_layout(make_shape(Int<2>{}, Int<kHidden>{}), LayoutRight{}));
    Tensor sBeta = make_tensor(make_smem_ptr(betas), make_layout(make_shape(Int<kHidden>{})));
    auto vec4 = make_shape(Int<4>{});
    for (int i = threadIdx.x; i < kHidden / 4; i += THREADS) {
      Tensor t = make_tensor<float>(vec4);
      copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gSC(img0, _), vec4, make_coord(i)), t);
      copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, t, local_tile(sSC(0, _), vec4, make_coord(i)));
      if (img0 + 1 < kBatch)
        copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gSC(img0 + 1, _), vec4, make_coord(i)), t);
      else
        clear(t);
      copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, t, local_tile(sSC(1, _), vec4, make_coord(i)));
      copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gBeta, vec4, make_coord(i)), t);
      copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, t, local_tile(sBeta, vec4, make_coord(i)));
    }
  }
  __syncthreads();

  GemmMMA mma;
  auto thr_mma = mma.get_slice(threadIdx.x);
  Tensor gY = make_tensor(make_gmem_ptr(y), make_layout(make_shape(Int<kRows>{}, Int<kDim>{}), LayoutRight{}));
  Tensor gYt = local_tile(gY, make_shape(Int<BM>{}, Int<BN>{}), make_coord(blockIdx.y, blockIdx.x)); // (128, 128)
  Tensor acc = thr_mma.partition_fragment_C(gYt); // (MMA, 4, 4)
  clear(acc);

  gemm_mainloop<true, kHidden>(h, w2, m0, n0, smem, acc, scs, betas, img0);

  Tensor tCc = thr_mma.partition_C(gemm_tile_c());
  Tensor tCgY = thr_mma.partition_C(gYt);
  Tensor gB2 = make_tensor(make_gmem_ptr(b2), make_layout(make_shape(Int<kDim>{})));
  CUTE_UNROLL
  for (int nt = 0; nt < NT; ++nt) {
    const int c = n0 + get<1>(tCc(make_coord(0, 0), 0, nt));
    const float bias0 = gB2(c), bias1 = gB2(c + 1);
    CUTE_UNROLL
    for (int mt = 0; mt < MT; ++mt)
      CUTE_UNROLL
      for (int half = 0; half < 2; ++half) {
        Tensor v = make_tensor<float>(make_shape(Int<2>{}));
        v(0) = acc(make_coord(0, half), mt, nt) + bias0;
        v(1) = acc(make_coord(1, half), mt, nt) + bias1;
        copy(AutoVectorizingCopyWithAssumedAlignment<64>{}, v, tCgY(make_coord(_, half), mt, nt));
      }
  }
}

/* mkb:plan
scratch xn fp32[batch * height * width * dim]
scratch h fp32[batch * height * width * hidden]
scratch ss fp32[batch * hidden] zeroed
scratch sc fp32[batch * hidden]
launch ln_rows grid(ceil_div(batch * height * width, 8)) block(256) args(x, ln_weight, ln_bias, xn, f32(ln_eps))
launch gemm1_gelu_grnsum grid(hidden / 128, batch * height * width / 128) block(256) shared(147456)
  args(xn, w1, b1, h, ss)
launch grn_scale grid(batch) block(256) args(ss, grn_gamma, sc, f32(grn_eps))
launch gemm2_grn grid(dim / 128, batch * height * width / 128) block(256) shared(172032)
  args(h, w2, b2, sc, grn_beta, y)
*/
