// MetaKernelBench #37 (reconstructed: spec.json's notes), the tanh-GELU MLP backward in fp32 accuracy on
// tensor cores, in CuTe C++: the algorithm, plan and rounding points of solutions/cuda.cu. Four 3xTF32
// GEMMs, with the GELU backward and the grad_fc1_bias column sum fused into the epilogue of the dy W2 GEMM,
// and grad_fc2_bias (a column sum of the input dy) in one small kernel that also clears grad_fc1_bias for
// the atomics. Notation: dy = grad_output, x = hidden_states, p = fc1_output, act = gelu_output (as
// [T, features], T = batch_size * seq_len), W1 = fc1_weight, W2 = fc2_weight.
//
// Launches: (1) colsum_dy: db2 = sum_t dy, db1 = 0. (2) bwd_dh: da = dy W2 (never stored);
// dh = da * gelu_tanh'(p) stored (scratch), db1 += column sums of dh (fp32 atomics, 32 per column).
// (3) bwd_dw2: dW2 = dy^T act. (4) bwd_dw1: dW1 = dh^T x. (5) bwd_dx: dx = dh W1.
//
// GEMM (CuTe): 128x128x32 block tiles, 256 threads (TiledMMA of SM80_16x8x8_F32TF32TF32F32_TN, 8 warps
// as 2 x 4, each a 64x32 warp tile), a 4-stage cp.async TiledCopy pipeline. Operands are K-contiguous or
// M/N-contiguous in memory; the copy layouts and the shared-memory layouts follow (padded strides 36 and
// 136 floats keep the fragment reads free of bank conflicts).
//
// Shapes (spec): T = 64 * 128 = 8192, hidden_size = 2048, intermediate_size = 8192. M % 128, N % 128 and
// K % 32 must be 0 (all three are multiples of 128); the GEMM kernels return without writing otherwise.
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

namespace {
__device__ __forceinline__ bool tiles_fit(int M, int N, int K) {
  return M % g3x::BM == 0 && N % g3x::BN == 0 && K % g3x::BK == 0 && (int)gridDim.x * g3x::BN == N &&
         (int)gridDim.y * g3x::BM == M;
}
__device__ __forceinline__ float gelu_tanh_grad(float v) {
  const float k = 0.79788456080286536f, c = 0.044715f;
  const float th = tanhf(k * (v + c * v * v * v));
  return 0.5f * (1.0f + th) + 0.5f * v * (1.0f - th * th) * k * (1.0f + 3.0f * c * v * v);
}

__device__ __forceinline__ void store2(float *p, long long index, float v0, float v1) {
  *reinterpret_cast<float2 *>(p + index) = make_float2(v0, v1);
}
} // namespace

// db2[c] = sum_t dy[t, c] (block (32, 8): 32 columns, 8 row lanes); also db1 = 0 for the atomics.
extern "C" __global__ void colsum_dy(const float *__restrict__ dy, float *__restrict__ db2, float *__restrict__ db1,
                                     int rows, int cols, int cols1) {
  __shared__ float partial[8][33];
  const int c = blockIdx.x * 32 + threadIdx.x;
  float sum = 0.0f;
  if (c < cols)
    for (int r = threadIdx.y; r < rows; r += 8) sum += dy[(long long)r * cols + c];
  partial[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    for (int y = 1; y < 8; ++y) sum += partial[y][threadIdx.x];
    db2[c] = sum;
  }
  const int flat = threadIdx.y * 32 + threadIdx.x;
  for (int j = blockIdx.x * 256 + flat; j < cols1; j += gridDim.x * 256) db1[j] = 0.0f;
}

// da = dy W2 (M = T, N = intermediate, K = hidden; dy [T, H] K-contiguous, w2 [H, I] N-contiguous);
// dh = da * gelu_tanh'(p), db1 += sum over the tile's rows of dh.
extern "C" __global__ void __launch_bounds__(256, 1)
bwd_dh(const float *__restrict__ dy, const float *__restrict__ w2, const float *__restrict__ p, float *__restrict__ dh,
       float *__restrict__ db1, int M, int N, int K) {
  if (!tiles_fit(M, N, K)) return;
  // Column partial sums of dh for this thread: 4 column pairs (nt), over its 8 rows per pair.
  float colsum[4][2];
#pragma unroll
  for (int nt = 0; nt < 4; ++nt) colsum[nt][0] = colsum[nt][1] = 0.0f;
  const int lane = threadIdx.x & 31, t = lane & 3;
  const int wn = (threadIdx.x >> 5) & 3;
  const int col_base = blockIdx.x * g3x::BN + wn * 32 + 2 * t; // + nt * 8
  g3x::gemm_3xtf32<true, false, false>(dy, w2, M, N, K, K, N, [&](int nt, int row, int col, float v0, float v1) {
    const long long index = (long long)row * N + col;
    const float2 hv = *reinterpret_cast<const float2 *>(p + index);
    const float d0 = v0 * gelu_tanh_grad(hv.x), d1 = v1 * gelu_tanh_grad(hv.y);
    store2(dh, index, d0, d1);
    colsum[nt][0] += d0;
    colsum[nt][1] += d1;
  });
  // Reduce over the 8 lanes of equal t (g = lane >> 2), then one atomic per column per warp.
#pragma unroll
  for (int nt = 0; nt < 4; ++nt)
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      float s = colsum[nt][e];
      s += __shfl_xor_sync(0xffffffffu, s, 4);
      s += __shfl_xor_sync(0xffffffffu, s, 8);
      s += __shfl_xor_sync(0xffffffffu, s, 16);
      if (lane < 4) atomicAdd(db1 + col_base + nt * 8 + e, s);
    }
}

// dW2 = dy^T act (M = hidden, N = intermediate, K = T; dy [T, H] M-contiguous, act [T, I] N-contiguous).
extern "C" __global__ void __launch_bounds__(256, 1)
bwd_dw2(const float *__restrict__ dy, const float *__restrict__ act, float *__restrict__ dw2, int M, int N, int K) {
  if (!tiles_fit(M, N, K)) return;
  g3x::gemm_3xtf32<false, false, false>(dy, act, M, N, K, M, N, [&](int nt, int row, int col, float v0, float v1) {
    store2(dw2, (long long)row * N + col, v0, v1);
  });
}

// dW1 = dh^T x (M = intermediate, N = hidden, K = T; dh [T, I] M-contiguous, x [T, H] N-contiguous).
extern "C" __global__ void __launch_bounds__(256, 1)
bwd_dw1(const float *__restrict__ dh, const float *__restrict__ x, float *__restrict__ dw1, int M, int N, int K) {
  if (!tiles_fit(M, N, K)) return;
  g3x::gemm_3xtf32<false, false, false>(dh, x, M, N, K, M, N, [&](int nt, int row, int col, float v0, float v1) {
    store2(dw1, (long long)row * N + col, v0, v1);
  });
}

// dx = dh W1 (M = T, N = hidden, K = intermediate; dh [T, I] K-contiguous, w1 [I, H] N-contiguous).
extern "C" __global__ void __launch_bounds__(256, 1)
bwd_dx(const float *__restrict__ dh, const float *__restrict__ w1, float *__restrict__ dx, int M, int N, int K) {
  if (!tiles_fit(M, N, K)) return;
  g3x::gemm_3xtf32<true, false, false>(dh, w1, M, N, K, K, N, [&](int nt, int row, int col, float v0, float v1) {
    store2(dx, (long long)row * N + col, v0, v1);
  });
}

/* mkb:plan
scratch dh fp32[batch_size * seq_len * intermediate_size]
launch colsum_dy grid(ceil_div(hidden_size, 32)) block(32, 8)
  args(grad_output, grad_fc2_bias, grad_fc1_bias, i32(batch_size * seq_len), i32(hidden_size), i32(intermediate_size))
launch bwd_dh grid(intermediate_size / 128, batch_size * seq_len / 128) block(256) shared(147456)
  args(grad_output, fc2_weight, fc1_output, dh, grad_fc1_bias, i32(batch_size * seq_len), i32(intermediate_size), i32(hidden_size))
launch bwd_dw2 grid(intermediate_size / 128, hidden_size / 128) block(256) shared(147456)
  args(grad_output, gelu_output, grad_fc2_weight, i32(hidden_size), i32(intermediate_size), i32(batch_size * seq_len))
launch bwd_dw1 grid(hidden_size / 128, intermediate_size / 128) block(256) shared(147456)
  args(dh, hidden_states, grad_fc1_weight, i32(intermediate_size), i32(hidden_size), i32(batch_size * seq_len))
launch bwd_dx grid(hidden_size / 128, batch_size * seq_len / 128) block(256) shared(147456)
  args(dh, fc1_weight, grad_hidden_states, i32(batch_size * seq_len), i32(hidden_size), i32(intermediate_size))
*/
