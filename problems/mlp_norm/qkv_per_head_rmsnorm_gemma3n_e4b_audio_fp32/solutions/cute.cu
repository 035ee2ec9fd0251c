// Fused Q/K/V projection + per-head RMSNorm of q and k in CuTe C++: the algorithm, plan and rounding
// points of solutions/cuda.cu, fp32 accuracy, one launch.
//
// The GEMM runs on tensor cores with CuTe's SM80 m16n8k8 TF32 MMA atom and a 3xTF32 split: each fp32
// operand a = big + small with big = tf32(a) (cvt.rna), small = tf32(a - big), and per accumulator
// small*big' + big*small' + big*big' for every k8 step. Each 32-deep k tile is summed by the tensor core
// from zero (12 mma steps) and then added to fp32 register accumulators with round-to-nearest.
//
// Tiling: one block computes 128 frames x 192 columns = 128 frames x one head of q, k or v
// (grid.x = 3 * 8 heads), so the per-head RMSNorm over head_dim = 192 is done in the epilogue.
// 8 warps as a 4 (M) x 2 (N) TiledMMA, warp tile 32 x 96 (2 x 12 atoms of m16n8k8); BK = 32, 3-stage
// cp.async TiledCopy into shared rows padded to 36 floats. As in cuda.cu, the A fragments of a whole
// k tile are split once and the B fragments are split per group of 2 n8 tiles, whose 2 x 2 short
// partial sums are then added to the running sums (the register budget of cuda.cu).
// Shapes: hidden = 1536 = 48 * 32 = 8 * 192 (fixed); frames is a runtime argument (rows past the end
// are clamped on load and skipped on store; 6000 = 46 * 128 + 112).
#include <cute/tensor.hpp>
#include <cutlass/numeric_types.h>

using namespace cute;

constexpr int kHidden = 1536;
constexpr int kHeads = 8;
constexpr int kHeadDim = 192;
constexpr int kBM = 128, kBN = kHeadDim, kBK = 32, kStages = 3;
constexpr int kThreads = 256;
constexpr int kLd = kBK + 4;                  // 36 floats = 144 bytes
constexpr int kATile = kBM * kLd;             // floats per stage
constexpr int kBTile = kBN * kLd;
constexpr int kStageFloats = kATile + kBTile; // 11520 floats = 46080 bytes; 3 stages = 138240 bytes
constexpr int kKTiles = kHidden / kBK;        // 48
constexpr int kMI = 2, kNI = 12;              // atoms per warp: 2 x m16, 12 x n8
constexpr int kKSteps = kBK / 8;              // 4 k8 steps per tile
constexpr int kGroup = 2;                     // n8 tiles whose mma chains are interleaved
static_assert(kStages * kStageFloats * 4 == 138240, "shared(...) in the plan");
static_assert(kNI % kGroup == 0, "groups");
static_assert(kHidden % kBK == 0 && kHeads * kHeadDim == kHidden && kHeadDim % 8 == 0, "shapes");
static_assert(kBM * kBK / 4 == 4 * kThreads && kBN * kBK / 4 == 6 * kThreads, "copy split");
static_assert(4 * 32 == kBM && 2 * kNI * 8 == kBN, "warp layout");

__device__ __forceinline__ uint32_t tf32_rna(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}
// big = tf32(x) (round to nearest, ties away), small = tf32(x - big)
__device__ __forceinline__ void split_tf32(float x, cutlass::tfloat32_t &big, cutlass::tfloat32_t &small) {
  const uint32_t b = tf32_rna(x);
  big = cutlass::tfloat32_t::bitcast(b);
  small = cutlass::tfloat32_t::bitcast(tf32_rna(x - __uint_as_float(b)));
}

// grid(3 * heads, ceil_div(frames, 128)) block(256) shared(138240)
extern "C" __global__ void __launch_bounds__(kThreads, 1)
qkv_rmsnorm_3xtf32(const float *__restrict__ x, const float *__restrict__ wq, const float *__restrict__ wk,
                   const float *__restrict__ wv, const float *__restrict__ q_norm_w,
                   const float *__restrict__ k_norm_w, float *__restrict__ q, float *__restrict__ k,
                   float *__restrict__ v, int frames, float eps) {
  extern __shared__ float4 smem4[];
  float *smem = reinterpret_cast<float *>(smem4);
  __shared__ float row_part[2][kBM];

  const int which = blockIdx.x / kHeads; // 0: q, 1: k, 2: v (block-uniform)
  const int head = blockIdx.x % kHeads;
  const int m0 = blockIdx.y * kBM;
  const float *W = which == 0 ? wq : which == 1 ? wk : wv;
  float *out = which == 0 ? q : which == 1 ? k : v;
  const int tid = threadIdx.x, warp = tid >> 5;

  // Global tensors: x (frames, hidden); this head's weight rows (192, hidden); output (frames, hidden).
  Tensor gX = make_tensor(make_gmem_ptr(x), make_layout(make_shape(frames, Int<kHidden>{}), LayoutRight{}));
  Tensor gW = make_tensor(make_gmem_ptr(W + (size_t)head * kHeadDim * kHidden),
                          make_layout(make_shape(Int<kHeadDim>{}, Int<kHidden>{}), LayoutRight{}));
  Tensor gO = make_tensor(make_gmem_ptr(out), make_layout(make_shape(frames, Int<kHidden>{}), LayoutRight{}));
  Tensor gA = local_tile(gX, make_shape(Int<kBM>{}, Int<kBK>{}), make_coord(blockIdx.y, _)); // (128, 32, 48)
  Tensor gB = local_tile(gW, make_shape(Int<kBN>{}, Int<kBK>{}), make_coord(0, _));          // (192, 32, 48)
  Tensor gOt = local_tile(gO, make_shape(Int<kBM>{}, Int<kBN>{}), make_coord(blockIdx.y, head)); // (128, 192)

  // Shared memory: per stage an A tile (128 x 32) then a B tile (192 x 32), rows padded to 36 floats.
  Tensor sA = make_tensor(make_smem_ptr(smem),
                          make_layout(make_shape(Int<kBM>{}, Int<kBK>{}, Int<kStages>{}),
                                      make_stride(Int<kLd>{}, Int<1>{}, Int<kStageFloats>{}))); // (128, 32, 3)
  Tensor sB = make_tensor(make_smem_ptr(smem + kATile),
                          make_layout(make_shape(Int<kBN>{}, Int<kBK>{}, Int<kStages>{}),
                                      make_stride(Int<kLd>{}, Int<1>{}, Int<kStageFloats>{}))); // (192, 32, 3)

  // cp.async: thread t copies the 16-byte chunks (t / 8 + 32 i, 4 (t % 8) .. + 4): A i = 0..3, B i = 0..5.
  auto g2s = make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>{},
                             make_layout(make_shape(Int<32>{}, Int<8>{}), LayoutRight{}),
                             make_layout(make_shape(Int<1>{}, Int<4>{})));
  auto thr_g2s = g2s.get_slice(tid);
  Tensor tAgA = thr_g2s.partition_S(gA); // (CPY, 4, 1, 48)
  Tensor tAsA = thr_g2s.partition_D(sA); // (CPY, 4, 1, 3)
  Tensor tBgB = thr_g2s.partition_S(gB); // (CPY, 6, 1, 48)
  Tensor tBsB = thr_g2s.partition_D(sB); // (CPY, 6, 1, 3)
  // Rows of x past the end are clamped to the last row (as cuda.cu: min(m0 + row, frames - 1)).
  int clamp_off[4];
  CUTE_UNROLL
  for (int i = 0; i < 4; ++i) {
    const int row = m0 + (tid >> 3) + 32 * i;
    clamp_off[i] = row < frames ? 0 : (frames - 1 - row) * kHidden;
  }
  auto load_stage = [&](int stage, int kt) {
    CUTE_UNROLL
    for (int i = 0; i < 4; ++i) {
      Tensor src = tAgA(_, i, _, kt);
      copy(g2s, make_tensor(src.data() + clamp_off[i], src.layout()), tAsA(_, i, _, stage));
    }
    copy(g2s, tBgB(_, _, _, kt), tBsB(_, _, _, stage));
  };

  // 8 warps as 4 (M) x 2 (N), warp = 2 wm + wn; the permutations give warp (wm, wn) rows wm * 32 + mi * 16
  // and columns wn * 96 + ni * 8 of the tile, as 2 x 12 atoms of m16n8k8.
  TiledMMA mma = make_tiled_mma(SM80_16x8x8_F32TF32TF32F32_TN{},
                                make_layout(make_shape(Int<4>{}, Int<2>{}, Int<1>{}), make_stride(Int<2>{}, Int<1>{}, Int<0>{})),
                                Tile<Layout<Shape<_16, _4, _2>, Stride<_1, _32, _16>>,
                                     Layout<Shape<_8, _2, _12>, Stride<_1, _96, _8>>, _8>{});
  auto thr_mma = mma.get_slice(tid);
  Tensor tCsA = thr_mma.partition_A(sA);                    // (MMA, 2, 4, 3) fp32 in shared memory
  Tensor tCsB = thr_mma.partition_B(sB);                    // (MMA, 12, 4, 3)
  Tensor tArH = thr_mma.partition_fragment_A(sA(_, _, 0)); // (MMA, 2, 4) TF32 big / small parts
  Tensor tArL = thr_mma.partition_fragment_A(sA(_, _, 0));
  Tensor acc = thr_mma.partition_fragment_C(gOt);          // (MMA, 2, 12) running fp32 sums
  // B fragments of one group of 2 n8 tiles over the whole k tile, and the group's short partial sums.
  auto bgroup = make_layout(make_shape(shape<0>(tCsB), Int<kGroup>{}, Int<kKSteps>{}));
  Tensor bH = make_tensor<cutlass::tfloat32_t>(bgroup); // (MMA, 2, 4)
  Tensor bL = make_tensor<cutlass::tfloat32_t>(bgroup);
  Tensor d = make_tensor<float>(make_layout(make_shape(shape<0>(acc), Int<kMI>{}, Int<kGroup>{}))); // (MMA, 2, 2)
  clear(acc);

  CUTE_UNROLL
  for (int s = 0; s < kStages - 1; ++s) {
    load_stage(s, s);
    cp_async_fence();
  }

  for (int kt = 0; kt < kKTiles; ++kt) {
    cp_async_wait<kStages - 2>(); // tile kt has landed (one group is committed per iteration)
    __syncthreads();              // ... for every thread, and stage (kt - 1) % kStages is free again
    {
      const int next = kt + kStages - 1;
      if (next < kKTiles) load_stage(next % kStages, next);
      cp_async_fence();
    }
    const int stage = kt % kStages;
    // A fragments of the whole 32-deep tile.
    {
      Tensor sAt = tCsA(_, _, _, stage);
      CUTE_UNROLL
      for (int i = 0; i < size(sAt); ++i) split_tf32(sAt(i), tArH(i), tArL(i));
    }
    CUTE_UNROLL
    for (int n2 = 0; n2 < kNI; n2 += kGroup) {
      CUTE_UNROLL
      for (int j = 0; j < kGroup; ++j) {
        CUTE_UNROLL
        for (int ks = 0; ks < kKSteps; ++ks) {
          Tensor sBk = tCsB(_, n2 + j, ks, stage);
          CUTE_UNROLL
          for (int i = 0; i < size(sBk); ++i) split_tf32(sBk(i), bH(i, j, ks), bL(i, j, ks));
        }
      }
      // Each group's 32-deep partial product is summed by the tensor core from zero, per accumulator
      // small*big', big*small', big*big' for each k8 step, then added to the fp32 running sums.
      clear(d);
      CUTE_UNROLL
      for (int ks = 0; ks < kKSteps; ++ks) {
        gemm(mma, d, tArL(_, _, ks), bH(_, _, ks), d);
        gemm(mma, d, tArH(_, _, ks), bL(_, _, ks), d);
        gemm(mma, d, tArH(_, _, ks), bH(_, _, ks), d);
      }
      CUTE_UNROLL
      for (int j = 0; j < kGroup; ++j)
        CUTE_UNROLL
        for (int mi = 0; mi < kMI; ++mi)
          CUTE_UNROLL
          for (int e = 0; e < size<0>(acc); ++e) acc(e, mi, n2 + j) += d(e, mi, j);
    }
  }
  cp_async_wait<0>(); // only empty groups remain; drain them before exit

  // Accumulator layout (checked against cuda.cu on the host): acc((j, h), mi, ni) is cuda.cu's
  // acc[mi][ni][2h + j], row wm*32 + mi*16 + g + 8h, column wn*96 + ni*8 + 2t + j of the tile.
  Tensor tCcO = thr_mma.partition_C(make_identity_tensor(make_shape(Int<kBM>{}, Int<kBN>{})));
  Tensor tCgO = thr_mma.partition_C(gOt); // (MMA, 2, 12)
  const bool norm = which < 2;
  if (norm) {
    const int t = threadIdx.x & 3;
    CUTE_UNROLL
    for (int mi = 0; mi < kMI; ++mi) {
      CUTE_UNROLL
      for (int h = 0; h < 2; ++h) {
        float ss = 0.0f;
        CUTE_UNROLL
        for (int ni = 0; ni < kNI; ++ni)
          ss += acc(make_coord(0, h), mi, ni) * acc(make_coord(0, h), mi, ni) +
                acc(make_coord(1, h), mi, ni) * acc(make_coord(1, h), mi, ni);
        ss += __shfl_xor_sync(0xffffffffu, ss, 1);
        ss += __shfl_xor_sync(0xffffffffu, ss, 2);
        if (t == 0) row_part[warp & 1][get<0>(tCcO(make_coord(0, h), mi, 0))] = ss;
      }
    }
    __syncthreads(); // block-uniform branch
  }
  Tensor gNW = make_tensor(make_gmem_ptr(which == 0 ? q_norm_w : k_norm_w), make_layout(make_shape(Int<kHeadDim>{})));
  CUTE_UNROLL
  for (int mi = 0; mi < kMI; ++mi) {
    CUTE_UNROLL
    for (int h = 0; h < 2; ++h) {
      const int row = get<0>(tCcO(make_coord(0, h), mi, 0));
      if (m0 + row >= frames) continue;
      float inv = 1.0f;
      if (norm) inv = 1.0f / sqrtf((row_part[0][row] + row_part[1][row]) / kHeadDim + eps);
      CUTE_UNROLL
      for (int ni = 0; ni < kNI; ++ni) {
        Tensor o2 = make_tensor<float>(make_shape(Int<2>{}));
        if (norm) {
          const int col = get<1>(tCcO(make_coord(0, h), mi, ni));
          Tensor w2 = make_tensor<float>(make_shape(Int<2>{}));
          copy(AutoVectorizingCopyWithAssumedAlignment<64>{}, local_tile(gNW, make_shape(Int<2>{}), make_coord(col / 2)), w2);
          o2(0) = acc(make_coord(0, h), mi, ni) * inv * w2(0);
          o2(1) = acc(make_coord(1, h), mi, ni) * inv * w2(1);
        } else {
          o2(0) = acc(make_coord(0, h), mi, ni);
          o2(1) = acc(make_coord(1, h), mi, ni);
        }
        copy(AutoVectorizingCopyWithAssumedAlignment<64>{}, o2, tCgO(make_coord(_, h), mi, ni));
      }
    }
  }
}

/* mkb:plan
launch qkv_rmsnorm_3xtf32 grid(3 * heads, ceil_div(frames, 128)) block(256) shared(138240)
  args(x, q_weight, k_weight, v_weight, q_norm_weight, k_norm_weight, q, k, v, i32(frames), f32(eps))
*/
