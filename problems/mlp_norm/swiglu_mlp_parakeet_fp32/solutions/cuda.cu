// SwiGLU MLP (original #32, reconstructed), fp32: out = (silu(gate) * up) @ w_down.T with
// gate, up = (x @ w_gate_up.T).chunk(2, -1) (the first half gates). Two launches: the gate-up GEMM with
// the gating in its epilogue (h is never written: each block computes 64 gate columns and the 64
// matching up columns), then the down GEMM. Both run on tensor cores as 3xTF32 (fp32-accurate;
// cuBLAS's fp32 GEMM is SIMT FFMA). The epilogue rounds as eager does: s = 1 / (1 + expf(-gate)),
// g = gate * s, act = g * up, each an fp32 operation.
// Shapes: hidden 1024, intermediate 4096 (multiples of 128 and of 32); tokens = 64 x 128 = 8192 (rows
// bounds-checked anyway).
// (no headers needed: plain CUDA C++ with inline PTX)

typedef unsigned int u32;

// ---- 3xTF32 tensor-core GEMM core (fp32-accurate) ---------------------------------------------------
// C[M, N] = A[M, K] * B[N, K]^T, both operands K-contiguous (A the activations, B an nn.Linear weight).
// Block tile 128x128x32, 256 threads (8 warps as 2 along M x 4 along N, each a 64x32 warp tile), a
// 4-stage cp.async pipeline (147456 bytes of dynamic shared memory, one block per SM, up to 255
// registers per thread so the four 8-wide k steps of a tile unroll fully).
// Each fp32 operand v is split into hi = tf32(v) and lo = v - hi; the product uses
// lo*hi' + hi*lo' + hi*hi' (mma.sync m16n8k8; the lo*lo' term is below fp32's rounding). Tensor-core
// accumulation truncates, so every 32-wide k tile is summed by the MMAs into a fresh partial
// accumulator that is then added to the main fp32 accumulator with an ordinary (round-to-nearest) add:
// the running sum never goes through the truncating accumulator.
// Requirements (met by the shapes this file launches): N % 128 == 0 and gridDim.x * 128 == N (gated:
// gridDim.x * 64 == inter), K % 32 == 0, K and the leading dimensions multiples of 4 floats (16-byte cp.async). A's rows at or
// past M are zero-filled (nothing read) and their outputs are not written, so any M works.
namespace gemm {
constexpr int BM = 128, BN = 128, BK = 32, STAGES = 4, THREADS = 256;
constexpr int KPAD = BK + 4;           // row stride (floats) of a K-contiguous tile: conflict-free fragments
constexpr int TILE_FLOATS = BM * KPAD; // 4608
constexpr int STAGE_FLOATS = 2 * TILE_FLOATS;
constexpr int SMEM_BYTES = STAGES * STAGE_FLOATS * 4; // 147456: the plan's shared(147456)
static_assert(BM == BN, "one tile shape for A and B");
static_assert(SMEM_BYTES == 147456, "plan shared size");

// 16-byte async copy; valid == false copies nothing and zero-fills the 16 bytes (src-size 0).
__device__ __forceinline__ void cp_async16(float *dst, const float *src, bool valid) {
  const u32 d = (u32)__cvta_generic_to_shared(dst);
  const int bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// The gate-up interleave of a B tile (GATED): tile row r (0..127) of block column bx holds weight row
// half * inter + bx * 64 + (r / 32) * 16 + r % 16 with half = (r / 16) % 2. So warp column wn's 32
// columns are 16 gate columns then the 16 matching up columns, and a thread's accumulator fragment
// nt (0, 1) is the gate of the output column whose up value is in its fragment nt + 2.
__device__ __forceinline__ int gated_row(int r, int bx, int inter) {
  return ((r >> 4) & 1) * inter + bx * 64 + (r >> 5) * 16 + (r & 15);
}

// Loads tile rows r in [0, 128) x k [k0, k0 + 32) of a K-contiguous operand: element (r, k) lives at
// g[row(r) * ld + k0 + k] and goes to s[r * KPAD + k], with row(r) = row0 + r, or gated_row(r, bx,
// inter) when GATED. Rows at or past `rows` are zero-filled.
template <bool GATED>
__device__ __forceinline__ void load_tile(float *s, const float *__restrict__ g, int ld, int rows, int row0, int k0,
                                          int tid, int bx = 0, int inter = 0) {
#pragma unroll
  for (int i = 0; i < (BM * BK / 4) / THREADS; ++i) { // 4 x 256 = 1024 16-byte chunks
    const int c = tid + i * THREADS;
    const int r = c >> 3, k = (c & 7) * 4;
    const int row = GATED ? gated_row(r, bx, inter) : row0 + r;
    const bool valid = row < rows;
    const float *src = valid ? g + (long long)row * ld + k0 + k : g;
    cp_async16(s + r * KPAD + k, src, valid);
  }
}

// hi = v rounded to TF32 (10 explicit mantissa bits, to nearest, ties away: what cvt.rna.tf32.f32
// does for finite v, in two integer operations); lo = v - hi is exact in fp32 and goes to the tensor
// core as it is (the MMA reads its top 10 mantissa bits: an error below 2^-21 |v|). The operands here
// (normalized activations, SiLU outputs, weights) are finite and far from fp32's overflow.
__device__ __forceinline__ void split(float v, u32 &hi, u32 &lo) {
  hi = (__float_as_uint(v) + 0x1000u) & 0xffffe000u;
  lo = __float_as_uint(v - __uint_as_float(hi));
}

__device__ __forceinline__ void mma_tf32(float *d, const u32 *a, const u32 *b) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// One 128x128 tile of A B^T at block (blockIdx.y, blockIdx.x) into acc (the mma fragment layout:
// acc[mt][nt] holds tile rows wm * 64 + mt * 16 + g (elements 0, 1) and + 8 (elements 2, 3), tile
// columns wn * 32 + nt * 8 + 2t (elements 0, 2) and + 1 (1, 3)). B's tile rows are rows n0 .. n0 + 127
// of B [N, K], or the gate-up interleave (GATED, N = 2 * inter rows).
template <bool GATED>
__device__ __forceinline__ void gemm_3xtf32(const float *__restrict__ A, const float *__restrict__ B, int M, int N,
                                            int K, int lda, int ldb, int inter, float (&acc)[4][4][4]) {
  extern __shared__ float4 smem4[];
  float *smem = reinterpret_cast<float *>(smem4);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp >> 2, wn = warp & 3; // 2 x 4 warps
  const int g = lane >> 2, t = lane & 3;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int KT = K / BK;

#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < KT) {
      load_tile<false>(smem + s * STAGE_FLOATS, A, lda, M, m0, s * BK, tid);
      load_tile<GATED>(smem + s * STAGE_FLOATS + TILE_FLOATS, B, ldb, N, n0, s * BK, tid, blockIdx.x, inter);
    }
    cp_async_commit();
  }

  for (int kt = 0; kt < KT; ++kt) {
    cp_async_wait<STAGES - 2>(); // tile kt has landed (this thread's copies)
    __syncthreads();             // everyone's copies visible; everyone done with tile kt - 1
    {
      const int nk = kt + STAGES - 1; // refill the stage tile kt - 1 used
      if (nk < KT) {
        const int s = nk % STAGES;
        load_tile<false>(smem + s * STAGE_FLOATS, A, lda, M, m0, nk * BK, tid);
        load_tile<GATED>(smem + s * STAGE_FLOATS + TILE_FLOATS, B, ldb, N, n0, nk * BK, tid, blockIdx.x, inter);
      }
      cp_async_commit(); // possibly empty: keeps the group count uniform
    }
    const float *As = smem + (kt % STAGES) * STAGE_FLOATS;
    const float *Bs = As + TILE_FLOATS;

    float part[4][4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) part[i][j][e] = 0.0f;

#pragma unroll
    for (int kk = 0; kk < BK; kk += 8) {
      u32 bh[4][2], bl[4][2];
#pragma unroll
      for (int nt = 0; nt < 4; ++nt) {
        const int n = wn * 32 + nt * 8 + g;
        split(Bs[n * KPAD + kk + t], bh[nt][0], bl[nt][0]);
        split(Bs[n * KPAD + kk + t + 4], bh[nt][1], bl[nt][1]);
      }
#pragma unroll
      for (int mt = 0; mt < 4; ++mt) {
        const int r = wm * 64 + mt * 16 + g;
        u32 ah[4], al[4];
        split(As[r * KPAD + kk + t], ah[0], al[0]);
        split(As[(r + 8) * KPAD + kk + t], ah[1], al[1]);
        split(As[r * KPAD + kk + t + 4], ah[2], al[2]);
        split(As[(r + 8) * KPAD + kk + t + 4], ah[3], al[3]);
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
          mma_tf32(part[mt][nt], al, bh[nt]);
          mma_tf32(part[mt][nt], ah, bl[nt]);
          mma_tf32(part[mt][nt], ah, bh[nt]);
        }
      }
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][j][e] += part[i][j][e];
  }
  cp_async_wait<0>();
}
} // namespace gemm

constexpr int kHidden = 1024, kInter = 4096;
static_assert(kHidden % gemm::BN == 0 && (2 * kInter) % gemm::BN == 0, "N tiles");
static_assert(kHidden % gemm::BK == 0 && kInter % gemm::BK == 0, "K tiles");

// act[t, j] = (gate * sigmoid(gate)) * up with gate = x[t] . w_gate_up[j], up = x[t] . w_gate_up[I + j].
// Block column bx covers act columns bx * 64 .. + 63 (grid.x = I / 64); warp column wn's fragments
// nt = 0, 1 are gates of columns bx * 64 + wn * 16 + nt * 8 + 2t (+1), fragments nt + 2 their ups.
extern "C" __global__ void __launch_bounds__(gemm::THREADS, 1)
mlp_gate_up(const float *__restrict__ x, const float *__restrict__ w_gate_up, float *__restrict__ act, int tokens) {
  if ((int)gridDim.x * 64 != kInter) return;
  float acc[4][4][4];
  gemm::gemm_3xtf32<true>(x, w_gate_up, tokens, 2 * kInter, kHidden, kHidden, kHidden, kInter, acc);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int wm = warp >> 2, wn = warp & 3, g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
#pragma unroll
    for (int nt = 0; nt < 2; ++nt) {
      const int col = blockIdx.x * 64 + wn * 16 + nt * 8 + 2 * t;
#pragma unroll
      for (int hh = 0; hh < 2; ++hh) { // rows g and g + 8
        const int row = blockIdx.y * gemm::BM + wm * 64 + mt * 16 + g + 8 * hh;
        if (row >= tokens) continue;
        float o[2];
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float gate = acc[mt][nt][2 * hh + e], up = acc[mt][nt + 2][2 * hh + e];
          const float s = 1.0f / (1.0f + expf(-gate)); // torch.sigmoid, rounded
          const float gs = gate * s;                    // gate * sigmoid(gate), rounded
          o[e] = gs * up;                               // * up, rounded
        }
        *reinterpret_cast<float2 *>(act + (long long)row * kInter + col) = make_float2(o[0], o[1]);
      }
    }
}

// out[t, i] = act[t] . w_down[i]: A = act [tokens][4096], B = w_down [1024][4096].
extern "C" __global__ void __launch_bounds__(gemm::THREADS, 1)
mlp_down(const float *__restrict__ act, const float *__restrict__ w_down, float *__restrict__ out, int tokens) {
  if ((int)gridDim.x * gemm::BN != kHidden) return;
  float acc[4][4][4];
  gemm::gemm_3xtf32<false>(act, w_down, tokens, kHidden, kInter, kInter, kInter, 0, acc);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int wm = warp >> 2, wn = warp & 3, g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
#pragma unroll
    for (int nt = 0; nt < 4; ++nt) {
      const int col = blockIdx.x * gemm::BN + wn * 32 + nt * 8 + 2 * t;
#pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        const int row = blockIdx.y * gemm::BM + wm * 64 + mt * 16 + g + 8 * hh;
        if (row < tokens)
          *reinterpret_cast<float2 *>(out + (long long)row * kHidden + col) =
              make_float2(acc[mt][nt][2 * hh], acc[mt][nt][2 * hh + 1]);
      }
    }
}

/* mkb:plan
scratch act fp32[batch_size * seq_len * intermediate_size]
launch mlp_gate_up grid(intermediate_size / 64, ceil_div(batch_size * seq_len, 128)) block(256) shared(147456)
  args(x, w_gate_up, act, i32(batch_size * seq_len))
launch mlp_down grid(hidden_size / 128, ceil_div(batch_size * seq_len, 128)) block(256) shared(147456)
  args(act, w_down, out, i32(batch_size * seq_len))
*/
