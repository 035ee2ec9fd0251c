// Qwen3-Omni vision patch merger in CuTe C++ with Hopper GMMA (wgmma) GEMMs: the algorithm, rounding
// points and launch structure of solutions/cuda.cu (LayerNorm, then two bf16 tensor-core GEMMs whose
// epilogues apply the bias, and GELU for fc1, in registers, so neither linear's fp32 result nor the
// pre-GELU tensor reaches memory):
//   1. layernorm_rows: one warp per 1152-wide patch row, fp32 statistics (mean, then the biased variance
//      of the centred values), bf16 out: the [merged, 4608] view; CuTe 128-bit copies of 8-column chunks.
//   2. fc1_gelu: g = bf16(gelu(bf16(xn @ W1^T + b1))), erf GELU in fp32 on the rounded linear output.
//   3. fc2_bias: out = bf16(g @ W2^T + b2).
// GEMM (both; C[M, N] = A[M, K] . B[N, K]^T, A and B K-major): persistent and warp-specialized, the
// scheme of cuda.cu written with CuTe. 384 threads: warpgroup 0 produces, warpgroups 1 and 2 consume.
// A CTA loops over 128 x 256 output tiles (t = blockIdx.x, + gridDim.x, ...; grouped rasterization of
// 8 row tiles per group for L2 reuse of A and B). K advances in 64-element steps through a 4-stage
// shared-memory ring (A 128 x 64 and B 256 x 64 bf16 per stage, 48 KiB; 192 KiB in all):
//   - shared tiles: tile_to_shape(GMMA::Layout_K_SW128_Atom<bf16>, (rows, 64, 4)): 128-byte rows with
//     the 128-byte swizzle, the canonical K-major layout the GMMA descriptors describe;
//   - producer (128 threads): waits for empty[s], moves the step's A and B tiles in 16-byte SM80 cp.async
//     chunks (CuTe's SM80_CP_ASYNC_CACHEGLOBAL; 16 rows x 8 chunks per pass, 8 threads per 128-byte row)
//     to their places in the swizzled slot (addresses from the swizzled CuTe shared tensors), then binds
//     its copies to full[s] with cp.async.mbarrier.arrive.noinc (full[s] expects 128 arrivals), so no
//     thread waits on its own copies; A rows past M are clamped to row M - 1 on load (never stored);
//   - consumers: a CuTe TiledMMA of SM90_64x256x16_F32BF16BF16_SS (both operands K-major in shared memory,
//     fp32 accumulation), 2 warpgroups along M, each 64 x 256 (128 fp32 accumulators per thread);
//     fragments are GMMA descriptors (partition_fragment_A/B of the shared tensors). Per step: wait for
//     full[s], 4 wgmmas (k = 16 each) in one commit group, keep one group in flight (warpgroup_wait<1>),
//     then release the previous step's slot (empty[] expects 256 arrivals: every consumer thread).
//   - the step counter runs across tiles, so the producer fills the next tile's first slots while the
//     consumers run the epilogue: bias (+ GELU), bf16 pairs stored straight from the accumulators, whose
//     (row, col) come from thr_mma.partition_C of an identity tensor.
// Registers: the producer warpgroup drops to 40 per thread, the consumers rise to 232 (setmaxnreg);
// ptxas (sm_90a): 168 registers at launch, no spills; HGMMA.64x256x16 in both GEMM kernels.
// Checked on the host with CuTe before its first GPU run: the accumulator (row, col) of every consumer thread and
// value (partition_C of an identity tensor) equals cuda.cu's wgmma formula and covers the tile once; the
// shared placement of every element equals cuda.cu's (chunk c of row r at c ^ (r % 8)); the producer's
// chunk addresses cover each stage once at the tensors' own addresses; the GMMA descriptors equal
// cuda.cu's (LBO 16 B, SBO 1024 B, 128-byte swizzle; + 32 B per k16, + 16/32 KiB per stage).
// Shapes: N % 256 == 0 and K % 64 == 0 (4608 = 18 * 256 = 72 * 64, 2048 = 8 * 256); M = 6272 = 49 * 128.
// The GEMM grids are 132 persistent CTAs (one ~194 KiB CTA per SM).
// Measured on an H200 (2026-12-03): 711 us against the eager baseline's 850 us (1.20x); cuda.cu, the same
// scheme in raw PTX, ran at 643 us in the same session.
#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/copy_atom.hpp>
#include <cute/arch/mma_sm90.hpp>
#include <cute/arch/copy_sm80.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cutlass/numeric_types.h>

using namespace cute;
using bf16 = cutlass::bfloat16_t;

constexpr int kHidden = 1152;        // vision hidden_size (LayerNorm width)
constexpr int kChunks = kHidden / 8; // 144 chunks of 8 bf16 (16 bytes) per patch row
constexpr int kChunksPerLane = (kChunks + 31) / 32; // 5 (the last only for lanes < 16)

// y = bf16((x - mean) * rstd * gamma + beta) per 1152-wide row; one warp per row, 8 rows per block.
extern "C" __global__ void __launch_bounds__(256)
layernorm_rows(const bf16 *__restrict__ x, const bf16 *__restrict__ gamma, const bf16 *__restrict__ beta,
               bf16 *__restrict__ y, int rows, float eps) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t row = (int64_t)blockIdx.x * 8 + warp;
  if (row >= rows) return;
  // A row as (element in chunk, chunk): element e of chunk c at 8 c + e.
  auto chunks = make_layout(make_shape(Int<8>{}, Int<kChunks>{}));
  Tensor gX = make_tensor(make_gmem_ptr(x + row * kHidden), chunks);
  Tensor gY = make_tensor(make_gmem_ptr(y + row * kHidden), chunks);
  Tensor gG = make_tensor(make_gmem_ptr(gamma), chunks);
  Tensor gB = make_tensor(make_gmem_ptr(beta), chunks);
  Tensor rX = make_tensor<bf16>(make_shape(Int<8>{}, Int<kChunksPerLane>{}));
  float v[kChunksPerLane][8];
  float sum = 0.0f;
  CUTE_UNROLL
  for (int i = 0; i < kChunksPerLane; ++i) {
    const int chunk = lane + 32 * i;
    if (chunk < kChunks) copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, gX(_, chunk), rX(_, i));
    CUTE_UNROLL
    for (int k = 0; k < 8; ++k) {
      v[i][k] = chunk < kChunks ? float(rX(k, i)) : 0.0f;
      sum += v[i][k];
    }
  }
  CUTE_UNROLL
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  const float mean = sum / kHidden;
  float sq = 0.0f;
  CUTE_UNROLL
  for (int i = 0; i < kChunksPerLane; ++i) {
    if (lane + 32 * i < kChunks) {
      CUTE_UNROLL
      for (int k = 0; k < 8; ++k) {
        const float d = v[i][k] - mean;
        sq += d * d;
      }
    }
  }
  CUTE_UNROLL
  for (int o = 16; o > 0; o >>= 1) sq += __shfl_xor_sync(0xffffffffu, sq, o);
  const float rstd = rsqrtf(sq / kHidden + eps);
  CUTE_UNROLL
  for (int i = 0; i < kChunksPerLane; ++i) {
    const int chunk = lane + 32 * i;
    if (chunk < kChunks) {
      Tensor rG = make_tensor<bf16>(Shape<_8>{});
      Tensor rB = make_tensor<bf16>(Shape<_8>{});
      Tensor rY = make_tensor<bf16>(Shape<_8>{});
      copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, gG(_, chunk), rG);
      copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, gB(_, chunk), rB);
      CUTE_UNROLL
      for (int k = 0; k < 8; ++k) rY(k) = bf16((v[i][k] - mean) * rstd * float(rG(k)) + float(rB(k)));
      copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, rY, gY(_, chunk));
    }
  }
}

namespace g90 {
constexpr int BM = 128, BN = 256, BK = 64, STAGES = 4;
constexpr int THREADS = 384;          // producer warpgroup + 2 consumer warpgroups
constexpr int PRODUCER_THREADS = 128; // full[s] arrivals per phase
constexpr int CONSUMER_THREADS = 256; // empty[s] arrivals per phase
constexpr int kGroupM = 8;            // rasterization: 8 row tiles per group

// Shared tiles (rows, 64 k, stage): the 8 x 64 K-major 128-byte-swizzle GMMA atom (16-byte chunk c of
// row r stored at chunk c ^ (r % 8), rows 128 bytes apart, 8-row groups 1024 bytes apart), stacked along
// the rows, then the stages.
using SmemAtom = GMMA::Layout_K_SW128_Atom<bf16>;
using SmemA = decltype(tile_to_shape(SmemAtom{}, Shape<Int<BM>, Int<BK>, Int<STAGES>>{}));
using SmemB = decltype(tile_to_shape(SmemAtom{}, Shape<Int<BN>, Int<BK>, Int<STAGES>>{}));
constexpr int A_ELEMS = cosize_v<SmemA>; // 32768 (16 KiB per stage)
constexpr int B_ELEMS = cosize_v<SmemB>; // 65536 (32 KiB per stage)
static_assert(A_ELEMS == BM * BK * STAGES && B_ELEMS == BN * BK * STAGES, "dense shared tiles");
constexpr int SMEM_BYTES = (A_ELEMS + B_ELEMS) * 2 + 1024; // the ring plus 1024 bytes of alignment slack
static_assert(SMEM_BYTES == 4 * 49152 + 1024, "the plans' shared()");

// Global -> shared (producer warpgroup, 128 threads): thread tid moves the 16-byte chunks (rows r0 + 16 i,
// k0 .. k0 + 7) with r0 = tid / 8, k0 = 8 (tid % 8): A 8 chunks, B 16 per step, with SM80 cp.async (CuTe's
// SM80_CP_ASYNC_CACHEGLOBAL). The chunk's place is the address of element (r0, k0, 0) of the swizzled
// shared tensor, plus 16 i rows (16 i BK elements) and s stages: the 128-byte swizzle permutes the 16-byte
// chunks of a row by (byte address bits 7..9) = row % 8, which adding 16 rows (2048 bytes) or a stage
// (16 or 32 KiB) leaves alone, and keeps each chunk's 8 elements contiguous (checked on the host against
// the tensors for every thread, pass, stage and element with a 1024-byte-aligned base).

// 2 consumer warpgroups along M, each one m64n256k16 GMMA (64 x 256 of the tile); both operands K-major
// from shared memory (SS).
using MMA = decltype(make_tiled_mma(SM90_64x256x16_F32BF16BF16_SS<GMMA::Major::K, GMMA::Major::K>{},
                                    Layout<Shape<_2, _1, _1>>{}));
static_assert(size(MMA{}) == CONSUMER_THREADS, "two consumer warpgroups");

// Tile t -> (row tile, column tile): groups of kGroupM row tiles, row tile fastest inside a group.
__device__ __forceinline__ void tile_coords(int t, int mt, int nt, int &m_tile, int &n_tile) {
  const int group = t / (kGroupM * nt);
  const int first_m = group * kGroupM;
  const int group_m = min(mt - first_m, kGroupM);
  const int local = t - group * (kGroupM * nt);
  m_tile = first_m + local % group_m;
  n_tile = local / group_m;
}
} // namespace g90

// C = bf16(A @ B^T + bias), or with GELU: bf16(gelu(bf16(A @ B^T + bias))).
template <bool GELU>
__device__ __forceinline__ void gemm_bias(const bf16 *__restrict__ A, const bf16 *__restrict__ B,
                                          const bf16 *__restrict__ bias, bf16 *__restrict__ C, int M, int N, int K) {
  using namespace g90;
  extern __shared__ uint128_t smem_raw[];
  __shared__ alignas(8) uint64_t bars[2 * STAGES]; // full[0..3], empty[0..3]
  uint64_t *full = bars, *empty = bars + STAGES;
  // 1024-byte alignment of the ring (shared-window address), as the 128-byte swizzle requires.
  const uint32_t pad = (1024u - (cast_smem_ptr_to_uint(smem_raw) & 1023u)) & 1023u;
  bf16 *smem = reinterpret_cast<bf16 *>(reinterpret_cast<char *>(smem_raw) + pad);
  Tensor sA = make_tensor(make_smem_ptr(smem), SmemA{});           // (128, 64, STAGES)
  Tensor sB = make_tensor(make_smem_ptr(smem + A_ELEMS), SmemB{}); // (256, 64, STAGES)

  if (threadIdx.x == 0) {
    CUTE_UNROLL
    for (int s = 0; s < STAGES; ++s) {
      cutlass::arch::ClusterBarrier::init(&full[s], PRODUCER_THREADS);
      cutlass::arch::ClusterBarrier::init(&empty[s], CONSUMER_THREADS);
    }
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();

  const int mt = (M + BM - 1) / BM, nt = N / BN, tiles = mt * nt;
  const int KT = K / BK;
  const int warpgroup = threadIdx.x / 128;

  if (warpgroup == 0) {
    // ---------------- producer ----------------
    cutlass::arch::warpgroup_reg_dealloc<40>();
    const int tid = threadIdx.x; // 0..127
    // This thread's chunks: rows r0 + 16 i of the tile, 8 bf16 (16 bytes) at k0 (8 threads read one 128-byte
    // row segment; a warp reads 4 rows); their shared addresses come from the swizzled CuTe tensors (see above).
    const int r0 = tid / 8, k0 = (tid % 8) * 8;
    bf16 *const dA0 = &sA(r0, k0, 0); // this thread's chunk of pass 0, stage 0 (swizzled address)
    bf16 *const dB0 = &sB(r0, k0, 0);
    const int64_t b_step = (int64_t)16 * K; // 16 rows of B
    uint32_t it = 0; // global step counter (continues across tiles)
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
      int m_tile, n_tile;
      tile_coords(t, mt, nt, m_tile, n_tile);
      const int m0 = m_tile * BM, n0 = n_tile * BN;
      for (int kt = 0; kt < KT; ++kt, ++it) {
        const int s = it % STAGES;
        // Slot s is free once the consumers released its previous use (step it - STAGES).
        if (it >= (uint32_t)STAGES) cutlass::arch::ClusterBarrier::wait(&empty[s], ((it / STAGES) - 1) & 1);
        const int kg = kt * BK + k0;
        uint128_t *dA = reinterpret_cast<uint128_t *>(dA0 + s * (BM * BK));
        uint128_t *dB = reinterpret_cast<uint128_t *>(dB0 + s * (BN * BK));
        // Rolled loops (running pointers) keep the producer within its 40 registers.
#pragma unroll 2
        for (int i = 0; i < BM / 16; ++i) {
          // A row clamped to M - 1 (rows past M are loaded but never stored)
          const int row = min(m0 + r0 + 16 * i, M - 1);
          SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>::copy(*reinterpret_cast<const uint128_t *>(A + (int64_t)row * K + kg),
                                                     dA[i * (16 * BK / 8)]);
        }
        const bf16 *srcB = B + (int64_t)(n0 + r0) * K + kg;
#pragma unroll 2
        for (int i = 0; i < BN / 16; ++i, srcB += b_step)
          SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>::copy(*reinterpret_cast<const uint128_t *>(srcB), dB[i * (16 * BK / 8)]);
        // full[s] receives this thread's arrival once all its copies above have landed.
        cutlass::arch::cpasync_barrier_arrive_noinc(&full[s]);
      }
    }
    // Drain this thread's last copies before it exits (their full[] arrivals still fire).
    cp_async_wait<0>();
  } else {
    // ---------------- consumers ----------------
    cutlass::arch::warpgroup_reg_alloc<232>();
    const int ct = threadIdx.x - 128; // 0..255: warpgroup ct / 128 owns tile rows 64 (ct / 128) ..
    MMA mma;
    auto thr_mma = mma.get_slice(ct);
    Tensor tCrA = thr_mma.partition_fragment_A(sA); // (MMA, 1, 4, STAGES) GMMA descriptors
    Tensor tCrB = thr_mma.partition_fragment_B(sB); // (MMA, 1, 4, STAGES)
    auto tile = Shape<Int<BM>, Int<BN>>{};
    Tensor acc = partition_fragment_C(mma, tile); // (MMA, 1, 1): 128 fp32 per thread
    // (row, col) in the tile of each accumulator element.
    Tensor tCc = thr_mma.partition_C(make_identity_tensor(tile)); // (MMA, 1, 1) -> (row, col)
    static_assert(size(decltype(acc){}) == 128, "64 x 256 per warpgroup");
    Tensor gC = make_tensor(make_gmem_ptr(C), make_layout(make_shape(M, N), make_stride((int64_t)N, _1{})));

    uint32_t it = 0;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
      int m_tile, n_tile;
      tile_coords(t, mt, nt, m_tile, n_tile);
      const int m0 = m_tile * BM, n0 = n_tile * BN;
      mma.accumulate_ = GMMA::ScaleOut::Zero; // the tile's first wgmma overwrites the accumulators
      for (int kt = 0; kt < KT; ++kt, ++it) {
        const int s = it % STAGES;
        cutlass::arch::ClusterBarrier::wait(&full[s], (it / STAGES) & 1); // every chunk of step it landed
        cutlass::arch::fence_view_async_shared(); // the cp.async (generic proxy) data, seen by wgmma
        warpgroup_fence_operand(acc);
        warpgroup_arrive();
        CUTE_UNROLL
        for (int kb = 0; kb < size<2>(tCrA); ++kb) { // 4 x k16 along the 128-byte swizzled rows
          cute::gemm(mma, tCrA(_, _, kb, s), tCrB(_, _, kb, s), acc);
          mma.accumulate_ = GMMA::ScaleOut::One;
        }
        warpgroup_commit_batch();
        warpgroup_wait<1>(); // step it - 1 has completed; step it may still run
        warpgroup_fence_operand(acc);
        if (kt > 0) cutlass::arch::ClusterBarrier::arrive(&empty[(it - 1) % STAGES]); // its slot may be refilled
      }
      warpgroup_wait<0>();
      warpgroup_fence_operand(acc);
      cutlass::arch::ClusterBarrier::arrive(&empty[(it - 1) % STAGES]); // the tile's last slot

      // Epilogue. GMMA accumulator pairs (2 v, 2 v + 1) sit at (row, col), (row, col + 1), col even.
      CUTE_UNROLL
      for (int v = 0; v < size(acc); v += 2) {
        const int row = m0 + get<0>(tCc(v));
        const int col = n0 + get<1>(tCc(v));
        const uint32_t bb = __ldg(reinterpret_cast<const unsigned *>(bias + col)); // bias[col], bias[col + 1]
        float v0 = acc(v) + float(bf16::bitcast(uint16_t(bb & 0xffffu)));
        float v1 = acc(v + 1) + float(bf16::bitcast(uint16_t(bb >> 16)));
        if constexpr (GELU) {
          // the linear's output is rounded to bf16 first, then the erf GELU runs in fp32 on it
          v0 = float(bf16(v0));
          v1 = float(bf16(v1));
          v0 = 0.5f * v0 * (1.0f + erff(v0 * 0.70710678118654752f));
          v1 = 0.5f * v1 * (1.0f + erff(v1 * 0.70710678118654752f));
        }
        const uint32_t pair = uint32_t(bf16(v0).raw()) | (uint32_t(bf16(v1).raw()) << 16); // col, col + 1
        if (row < M) *reinterpret_cast<uint32_t *>(&gC(row, col)) = pair;
      }
    }
  }
}

extern "C" __global__ void __launch_bounds__(g90::THREADS, 1)
fc1_gelu(const bf16 *__restrict__ xn, const bf16 *__restrict__ w1, const bf16 *__restrict__ b1,
         bf16 *__restrict__ g, int M, int N, int K) {
  gemm_bias<true>(xn, w1, b1, g, M, N, K);
}

extern "C" __global__ void __launch_bounds__(g90::THREADS, 1)
fc2_bias(const bf16 *__restrict__ g, const bf16 *__restrict__ w2, const bf16 *__restrict__ b2,
         bf16 *__restrict__ out, int M, int N, int K) {
  gemm_bias<false>(g, w2, b2, out, M, N, K);
}

// The GEMM grids are 132 persistent CTAs (the H100/H200 SM count; one 194 KiB CTA fits per SM): fc1 has
// 49 x 18 = 882 tiles, fc2 49 x 8 = 392. shared(): 4 stages x 48 KiB + 1024 bytes of alignment slack
// (the 64 bytes of mbarriers are static shared memory).
/* mkb:plan
scratch xn bf16[merged * merged_hidden]
scratch g bf16[merged * merged_hidden]
launch layernorm_rows grid(ceil_div(merged * 4, 8)) block(256)
  args(x, ln_weight, ln_bias, xn, i32(merged * 4), f32(eps))
launch fc1_gelu grid(min(132, ceil_div(merged, 128) * (merged_hidden / 256))) block(384) shared(4 * 49152 + 1024)
  args(xn, fc1_weight, fc1_bias, g, i32(merged), i32(merged_hidden), i32(merged_hidden))
launch fc2_bias grid(min(132, ceil_div(merged, 128) * (out_hidden / 256))) block(384) shared(4 * 49152 + 1024)
  args(g, fc2_weight, fc2_bias, out, i32(merged), i32(out_hidden), i32(merged_hidden))
*/
