// Fused FLUX.1 Kontext final layer (AdaLayerNormContinuous + proj_out) in CuTe C++: the algorithm, plan
// and rounding points of solutions/cuda.cu, fp32 accuracy, three launches:
//   1. silu_gemv: emb = silu(temb) @ norm_weight^T + norm_bias. Weight-streaming GEMV, one warp per
//      output row; CuTe views a weight row as (4, 32 lanes, 12, 2 chunks) and each lane copies a chunk of
//      12 float4 into a register fragment with streaming (ld.global.cs) 128-bit loads; silu(temb) is
//      staged in shared memory.
//   2. fold_weights: folds the modulation into the projection. With W = proj_weight,
//        y[t,o] = sum_c ((x[t,c] - mean_t) * rstd_t * (1 + scale[c]) + shift[c]) * W[o,c] + bias[o]
//               = rstd_t * (sum_c x[t,c] * Wf[o,c] - mean_t * csum[o]) + sbias[o]
//      with Wf[o,c] = W[o,c] * (1 + scale[c]), csum[o] = sum_c Wf[o,c], sbias[o] = sum_c shift[c] W[o,c] + bias[o]
//      (sums in double). Per batch entry: 64 x 3072 values.
//   3. adaln_proj: x @ Wf^T on tensor cores with CuTe's SM80 m16n8k8 TF32 MMA atom in a 2 x 4 warp
//      TiledMMA (3xTF32: a = hi + lo with cvt.rna, lo*hi' + hi*lo' + hi*hi', fp32 accumulation restarted
//      per 32-wide K tile and added to a running fp32 sum), reading x exactly once through an 8-stage
//      cp.async TiledCopy into padded shared-memory tiles; the LayerNorm statistics (sum and sum of
//      squares per row) come from the same shared-memory tiles, and the epilogue applies rstd, mean and
//      sbias. x never goes through a normalized copy.
//
// Shapes are fixed by the problem: batch = 1, tokens = 8192 = 128 * 64, dim = 3072 = 96 * 32, out = 64.
#include <cute/tensor.hpp>
#include <cutlass/numeric_types.h>

using namespace cute;

constexpr int kBatch = 1;
constexpr int kTokens = 8192;
constexpr int kDim = 3072;
constexpr int kEmb = 2 * kDim;
constexpr int kOut = 64;

__device__ __forceinline__ float warp_sum(float v) {
  CUTE_UNROLL
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ double warp_sum_d(double v) {
  CUTE_UNROLL
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// A 128-bit global load with the streaming cache hint (ld.global.cs, as __ldcs): the 75 MB modulation
// weight is read once.
struct StreamingLoad128 {
  using SRegisters = float4[1];
  using DRegisters = float4[1];
  CUTE_HOST_DEVICE static void copy(float4 const &src, float4 &dst) {
#if defined(__CUDA_ARCH__)
    dst = __ldcs(&src);
#else
    dst = src;
#endif
  }
};
namespace cute {
template <> struct Copy_Traits<StreamingLoad128> {
  using ThrID = Layout<_1>;
  using SrcLayout = Layout<Shape<_1, Int<128>>>;
  using DstLayout = Layout<Shape<_1, Int<128>>>;
  using RefLayout = SrcLayout;
};
} // namespace cute

// ---- 1. emb = silu(temb) @ norm_weight^T + norm_bias -----------------------------------------------------

constexpr int kGemvWarps = 8;
constexpr int kGemvChunk = 12;                          // float4 loads in flight per lane
constexpr int kGemvIters = kDim / 4 / 32;               // 24 float4 per lane per row
constexpr int kGemvChunks = kGemvIters / kGemvChunk;    // 2
static_assert(kDim % 128 == 0 && kGemvIters % kGemvChunk == 0, "GEMV row split");
static_assert(kEmb % kGemvWarps == 0, "GEMV grid covers every row exactly");

extern "C" __global__ void __launch_bounds__(256)
silu_gemv(const float *__restrict__ temb, const float *__restrict__ w, const float *__restrict__ bias,
          float *__restrict__ emb) {
  __shared__ float4 st_raw[kBatch * (kDim / 4)];
  auto rows_b = make_layout(make_shape(Int<kBatch>{}, Int<kDim>{}), LayoutRight{});
  Tensor gT = make_tensor(make_gmem_ptr(temb), rows_b);
  Tensor sT = make_tensor(make_smem_ptr(reinterpret_cast<float *>(st_raw)), rows_b);
  Tensor gW = make_tensor(make_gmem_ptr(w), make_layout(make_shape(Int<kEmb>{}, Int<kDim>{}), LayoutRight{}));
  Tensor gBias = make_tensor(make_gmem_ptr(bias), make_layout(make_shape(Int<kEmb>{})));
  Tensor gE = make_tensor(make_gmem_ptr(emb), make_layout(make_shape(Int<kBatch>{}, Int<kEmb>{}), LayoutRight{}));
  auto vec4 = make_shape(Int<4>{});

  for (int i = threadIdx.x; i < kBatch * (kDim / 4); i += blockDim.x) {
    const int b = i / (kDim / 4), k4 = i % (kDim / 4);
    Tensor v = make_tensor<float>(vec4);
    copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gT(b, _), vec4, make_coord(k4)), v);
    CUTE_UNROLL
    for (int e = 0; e < 4; ++e) v(e) = v(e) / (1.0f + expf(-v(e)));
    copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, v, local_tile(sT(b, _), vec4, make_coord(k4)));
  }
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const int j = blockIdx.x * kGemvWarps + (threadIdx.x >> 5);
  if (j >= kEmb) return;

  // A row of the weight (and of silu(temb)) as (element in float4, lane, float4 in chunk, chunk):
  // float4 number lane + 32 * (chunk * 12 + i) of the row, as in cuda.cu.
  auto by_lane = make_layout(make_shape(Int<4>{}, Int<32>{}, Int<kGemvChunk>{}, Int<kGemvChunks>{}), LayoutLeft{});
  Tensor tW = make_tensor(gW(j, _).data(), by_lane)(_, lane, _, _); // (4, 12, 2):(1, 128, 1536)
  float acc[kBatch];
  CUTE_UNROLL
  for (int b = 0; b < kBatch; ++b) acc[b] = 0.0f;
  CUTE_UNROLL
  for (int c = 0; c < kGemvChunks; ++c) {
    Tensor wv = make_tensor<float>(make_shape(Int<4>{}, Int<kGemvChunk>{}));
    Tensor tWc = tW(_, _, c);
    copy(Copy_Atom<StreamingLoad128, float>{}, tWc, wv); // 12 streamed 16-byte loads
    CUTE_UNROLL
    for (int i = 0; i < kGemvChunk; ++i) {
      CUTE_UNROLL
      for (int b = 0; b < kBatch; ++b) {
        Tensor sv = make_tensor(sT(b, _).data(), by_lane)(_, lane, i, c); // (4), one float4 of silu(temb)
        Tensor s = make_tensor<float>(vec4);
        copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, sv, s);
        acc[b] = fmaf(wv(0, i), s(0), acc[b]);
        acc[b] = fmaf(wv(1, i), s(1), acc[b]);
        acc[b] = fmaf(wv(2, i), s(2), acc[b]);
        acc[b] = fmaf(wv(3, i), s(3), acc[b]);
      }
    }
  }
  CUTE_UNROLL
  for (int b = 0; b < kBatch; ++b) {
    const float total = warp_sum(acc[b]);
    if (lane == 0) gE(b, j) = total + gBias(j);
  }
}

// ---- 2. Fold the modulation into the projection ---------------------------------------------------------

extern "C" __global__ void __launch_bounds__(256)
fold_weights(const float *__restrict__ emb, const float *__restrict__ pw, const float *__restrict__ pb,
             float *__restrict__ wf, float *__restrict__ csum, float *__restrict__ sbias) {
  __shared__ double part_c[8], part_s[8];
  const int o = blockIdx.x, b = blockIdx.y;
  // emb as (batch, scale/shift, dim): scale = emb[b, 0, :] comes first, shift = emb[b, 1, :].
  Tensor gEmb = make_tensor(make_gmem_ptr(emb), make_layout(make_shape(Int<kBatch>{}, Int<2>{}, Int<kDim>{}), LayoutRight{}));
  Tensor gPW = make_tensor(make_gmem_ptr(pw), make_layout(make_shape(Int<kOut>{}, Int<kDim>{}), LayoutRight{}));
  Tensor gPB = make_tensor(make_gmem_ptr(pb), make_layout(make_shape(Int<kOut>{})));
  Tensor gWF = make_tensor(make_gmem_ptr(wf), make_layout(make_shape(Int<kBatch>{}, Int<kOut>{}, Int<kDim>{}), LayoutRight{}));
  auto per_out = make_layout(make_shape(Int<kBatch>{}, Int<kOut>{}), LayoutRight{});
  Tensor gCS = make_tensor(make_gmem_ptr(csum), per_out);
  Tensor gSB = make_tensor(make_gmem_ptr(sbias), per_out);
  Tensor scale = gEmb(b, 0, _);
  Tensor shift = gEmb(b, 1, _);
  Tensor wrow = gPW(o, _);
  Tensor frow = gWF(b, o, _);

  double cs = 0.0, sb = 0.0;
  for (int c = threadIdx.x; c < kDim; c += blockDim.x) {
    const float wv = wrow(c);
    const float f = wv * (1.0f + scale(c));
    frow(c) = f;
    cs += (double)f;
    sb += (double)shift(c) * (double)wv;
  }
  cs = warp_sum_d(cs);
  sb = warp_sum_d(sb);
  if ((threadIdx.x & 31) == 0) {
    part_c[threadIdx.x >> 5] = cs;
    part_s[threadIdx.x >> 5] = sb;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    double tc = 0.0, ts = 0.0;
    for (int i = 0; i < 8; ++i) {
      tc += part_c[i];
      ts += part_s[i];
    }
    gCS(b, o) = (float)tc;
    gSB(b, o) = (float)(ts + (double)gPB(o));
  }
}

// ---- 3. x @ Wf^T with the LayerNorm folded into the epilogue --------------------------------------------

// 64 x 64 block tile (all 64 outputs), 32-wide K tile, 8-stage cp.async pipeline (x is streamed from HBM
// once), 8 warps as 2 (M) x 4 (N), each warp 32 x 16 = 2 x 2 MMA tiles of m16n8k8.
constexpr int BM = 64, BN = kOut, BK = 32, LDS = BK + 4, STAGES = 8, THREADS = 256;
constexpr int kStageFloats = (BM + BN) * LDS;
constexpr int kSmemBytes = STAGES * kStageFloats * 4;
constexpr int KT = kDim / BK;
static_assert(kSmemBytes == 147456, "adaln_proj's shared(...) in the plan");
static_assert(kTokens % BM == 0, "a block's rows lie in one batch entry");
static_assert(kDim % BK == 0 && KT >= STAGES, "K tiles");
static_assert(BM * BK / 4 == 2 * THREADS && BN * BK / 4 == 2 * THREADS, "two 16-byte chunks per thread per tile");
static_assert(BM * 4 == THREADS, "four threads per row for the statistics");

__device__ __forceinline__ uint32_t tf32_rna(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}
// x = hi + lo, both TF32 (rounded to nearest, ties away, as cvt.rna), lo from the exact remainder.
__device__ __forceinline__ void split_tf32(float x, cutlass::tfloat32_t &hi, cutlass::tfloat32_t &lo) {
  const uint32_t h = tf32_rna(x);
  hi = cutlass::tfloat32_t::bitcast(h);
  lo = cutlass::tfloat32_t::bitcast(tf32_rna(x - __uint_as_float(h)));
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
adaln_proj(const float *__restrict__ x, const float *__restrict__ wf, const float *__restrict__ csum,
           const float *__restrict__ sbias, float *__restrict__ y, float eps) {
  extern __shared__ float4 smem4[];
  float *smem = reinterpret_cast<float *>(smem4);
  __shared__ float row_mean[BM], row_rstd[BM];

  const int tid = threadIdx.x;
  const int m0 = blockIdx.x * BM;
  const int b = m0 / kTokens;

  // Global tensors: x as (batch * tokens, dim), Wf as (batch * 64, dim), y as (batch * tokens, 64).
  Tensor gX = make_tensor(make_gmem_ptr(x), make_layout(make_shape(Int<kBatch * kTokens>{}, Int<kDim>{}), LayoutRight{}));
  Tensor gWF = make_tensor(make_gmem_ptr(wf), make_layout(make_shape(Int<kBatch * kOut>{}, Int<kDim>{}), LayoutRight{}));
  Tensor gY = make_tensor(make_gmem_ptr(y), make_layout(make_shape(Int<kBatch * kTokens>{}, Int<kOut>{}), LayoutRight{}));
  auto per_out = make_layout(make_shape(Int<kBatch>{}, Int<kOut>{}), LayoutRight{});
  Tensor gCS = make_tensor(make_gmem_ptr(csum), per_out);
  Tensor gSB = make_tensor(make_gmem_ptr(sbias), per_out);

  // This block's tiles: A (64, 32, k-tile), B (64, 32, k-tile), Y (64, 64).
  Tensor gA = local_tile(gX, make_shape(Int<BM>{}, Int<BK>{}), make_coord(blockIdx.x, _));
  Tensor gB = local_tile(gWF, make_shape(Int<BN>{}, Int<BK>{}), make_coord(b, _));
  Tensor gYt = local_tile(gY, make_shape(Int<BM>{}, Int<BN>{}), make_coord(blockIdx.x, 0));

  // Shared memory: per stage an A tile then a B tile, rows padded to 36 floats (conflict-free fragments).
  auto stage_layout = make_layout(make_shape(Int<BM>{}, Int<BK>{}, Int<STAGES>{}),
                                  make_stride(Int<LDS>{}, Int<1>{}, Int<kStageFloats>{}));
  Tensor sA = make_tensor(make_smem_ptr(smem), stage_layout);            // (64, 32, 8)
  Tensor sB = make_tensor(make_smem_ptr(smem + BM * LDS), stage_layout); // (64, 32, 8)

  // cp.async: thread t copies the 16-byte chunks (t / 8 + 32 i, 4 (t % 8) .. + 4), i = 0, 1.
  auto g2s = make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>{},
                             make_layout(make_shape(Int<32>{}, Int<8>{}), LayoutRight{}),
                             make_layout(make_shape(Int<1>{}, Int<4>{})));
  auto thr_g2s = g2s.get_slice(tid);
  Tensor tAgA = thr_g2s.partition_S(gA); // (CPY, 2, 1, KT)
  Tensor tAsA = thr_g2s.partition_D(sA); // (CPY, 2, 1, STAGES)
  Tensor tBgB = thr_g2s.partition_S(gB);
  Tensor tBsB = thr_g2s.partition_D(sB);
  auto load_stage = [&](int stage, int kt) {
    copy(g2s, tAgA(_, _, _, kt), tAsA(_, _, _, stage));
    copy(g2s, tBgB(_, _, _, kt), tBsB(_, _, _, stage));
  };

  // 8 warps as 2 (M) x 4 (N); the permutations give warp (wm, wn) rows wm * 32 .. + 32 and columns
  // wn * 16 .. + 16 of the tile, as 2 x 2 atoms of m16n8k8.
  TiledMMA mma = make_tiled_mma(SM80_16x8x8_F32TF32TF32F32_TN{},
                                make_layout(make_shape(Int<2>{}, Int<4>{}, Int<1>{}), make_stride(Int<4>{}, Int<1>{}, Int<0>{})),
                                Tile<Layout<Shape<_16, _2, _2>, Stride<_1, _32, _16>>,
                                     Layout<Shape<_8, _4, _2>, Stride<_1, _16, _8>>, _8>{});
  auto thr_mma = mma.get_slice(tid);
  Tensor tCsA = thr_mma.partition_A(sA);                    // (MMA, 2, 4, STAGES) fp32 in shared memory
  Tensor tCsB = thr_mma.partition_B(sB);                    // (MMA, 2, 4, STAGES)
  Tensor tArH = thr_mma.partition_fragment_A(sA(_, _, 0)); // (MMA, 2, 4) TF32 hi / lo parts
  Tensor tArL = thr_mma.partition_fragment_A(sA(_, _, 0));
  Tensor tBrH = thr_mma.partition_fragment_B(sB(_, _, 0)); // (MMA, 2, 4)
  Tensor tBrL = thr_mma.partition_fragment_B(sB(_, _, 0));
  Tensor acc = thr_mma.partition_fragment_C(gYt);          // (MMA, 2, 2) running fp32 sums
  Tensor tacc = thr_mma.partition_fragment_C(gYt);         // (MMA, 2, 2) one K tile
  clear(acc);

  // LayerNorm statistics: thread tid owns row tid / 4, columns (tid % 4) * 8 .. + 8 of every K tile.
  const int srow = tid >> 2, spart = tid & 3;
  double rs = 0.0, rq = 0.0; // per-tile fp32 partials of 8 values, accumulated in double

  CUTE_UNROLL
  for (int s = 0; s < STAGES - 1; ++s) {
    load_stage(s, s);
    cp_async_fence();
  }

  for (int kt = 0; kt < KT; ++kt) {
    cp_async_wait<STAGES - 2>();
    __syncthreads(); // tile kt visible to all; everyone is done with tile kt - 1
    {
      const int nk = kt + STAGES - 1;
      if (nk < KT) load_stage(nk % STAGES, nk);
      cp_async_fence();
    }
    const int stage = kt % STAGES;
    {
      Tensor p = make_tensor<float>(make_shape(Int<8>{}));
      copy(AutoVectorizingCopyWithAssumedAlignment<128>{},
           local_tile(sA(srow, _, stage), make_shape(Int<8>{}), make_coord(spart)), p);
      const float s8 = ((p(0) + p(1)) + (p(2) + p(3))) + ((p(4) + p(5)) + (p(6) + p(7)));
      const float q8 = ((p(0) * p(0) + p(1) * p(1)) + (p(2) * p(2) + p(3) * p(3))) +
                       ((p(4) * p(4) + p(5) * p(5)) + (p(6) * p(6) + p(7) * p(7)));
      rs += (double)s8;
      rq += (double)q8;
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

  // Row statistics: the four threads of a row are adjacent lanes.
  rs += __shfl_xor_sync(0xffffffffu, rs, 1);
  rs += __shfl_xor_sync(0xffffffffu, rs, 2);
  rq += __shfl_xor_sync(0xffffffffu, rq, 1);
  rq += __shfl_xor_sync(0xffffffffu, rq, 2);
  if (spart == 0) {
    const double mean = rs / kDim;
    const double var = fmax(rq / kDim - mean * mean, 0.0);
    row_mean[srow] = (float)mean;
    row_rstd[srow] = (float)(1.0 / sqrt(var + (double)eps));
  }
  __syncthreads();

  // Epilogue: (row, column) of every accumulator from an identity tensor partitioned like the output;
  // pairs of adjacent columns leave as 8-byte stores.
  Tensor tCcY = thr_mma.partition_C(make_identity_tensor(make_shape(Int<BM>{}, Int<BN>{})));
  Tensor tCgY = thr_mma.partition_C(gYt);
  Tensor out = make_fragment_like(acc);
  CUTE_UNROLL
  for (int i = 0; i < size(acc); ++i) {
    const int r = get<0>(tCcY(i)), c = get<1>(tCcY(i));
    const float mean = row_mean[r], rstd = row_rstd[r];
    out(i) = (acc(i) - mean * gCS(b, c)) * rstd + gSB(b, c);
  }
  copy(AutoVectorizingCopyWithAssumedAlignment<64>{}, out, tCgY);
}

/* mkb:plan
scratch emb fp32[batch * 2 * dim]
scratch wf fp32[batch * out_channels * dim]
scratch csum fp32[batch * out_channels]
scratch sbias fp32[batch * out_channels]
launch silu_gemv grid(2 * dim / 8) block(256) args(temb, norm_weight, norm_bias, emb)
launch fold_weights grid(out_channels, batch) block(256) args(emb, proj_weight, proj_bias, wf, csum, sbias)
launch adaln_proj grid(batch * tokens / 64) block(256) shared(147456) args(x, wf, csum, sbias, y, f32(eps))
*/
