// Parakeet FastConformer feed-forward module, fp32: out = x + 0.5 * (W2 silu(W1 LN(x) + b1) + b2).
// Three launches: a warp-per-row LayerNorm writing the normalized rows (32 MB), the up GEMM with bias
// and SiLU in its epilogue, the down GEMM with bias, the 0.5 scale and the residual in its epilogue.
// Both GEMMs run on tensor cores as 3xTF32 (fp32-accurate; cuBLAS's fp32 GEMM is SIMT FFMA).
// Shapes: d_model 1024, d_ff 4096 (both multiples of 128 and of 32); tokens any (rows bounds-checked:
// 8000 = 62 full 128-row tiles and one of 64 rows).
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
// Requirements (met by the shapes this file launches): N % 128 == 0 and gridDim.x * 128 == N,
// K % 32 == 0, K and the leading dimensions multiples of 4 floats (16-byte cp.async). A's rows at or
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

// Loads rows [row0, row0 + 128) x k [k0, k0 + 32) of a K-contiguous operand: element (r, k) lives at
// g[(row0 + r) * ld + k0 + k] and goes to s[r * KPAD + k]. Rows at or past `rows` are zero-filled.
__device__ __forceinline__ void load_tile(float *s, const float *__restrict__ g, int ld, int rows, int row0, int k0,
                                          int tid) {
#pragma unroll
  for (int i = 0; i < (BM * BK / 4) / THREADS; ++i) { // 4 x 256 = 1024 16-byte chunks
    const int c = tid + i * THREADS;
    const int r = c >> 3, k = (c & 7) * 4;
    const bool valid = row0 + r < rows;
    const float *src = valid ? g + (long long)(row0 + r) * ld + k0 + k : g;
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

// One 128x128 output tile at block (blockIdx.y, blockIdx.x). Calls epi(row, col, v0, v1) with
// C[row, col] and C[row, col + 1] (col even) for every row < M.
template <class Epi>
__device__ __forceinline__ void gemm_3xtf32(const float *__restrict__ A, const float *__restrict__ B, int M, int N,
                                            int K, int lda, int ldb, const Epi &epi) {
  extern __shared__ float4 smem4[];
  float *smem = reinterpret_cast<float *>(smem4);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp >> 2, wn = warp & 3; // 2 x 4 warps
  const int g = lane >> 2, t = lane & 3;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int KT = K / BK;

  float acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < KT) {
      load_tile(smem + s * STAGE_FLOATS, A, lda, M, m0, s * BK, tid);
      load_tile(smem + s * STAGE_FLOATS + TILE_FLOATS, B, ldb, N, n0, s * BK, tid);
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
        load_tile(smem + s * STAGE_FLOATS, A, lda, M, m0, nk * BK, tid);
        load_tile(smem + s * STAGE_FLOATS + TILE_FLOATS, B, ldb, N, n0, nk * BK, tid);
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

  // Accumulator fragment (mt, nt): rows g, g + 8 of the 16-row group; columns 2t, 2t + 1.
#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
#pragma unroll
    for (int nt = 0; nt < 4; ++nt) {
      const int row = m0 + wm * 64 + mt * 16 + g;
      const int col = n0 + wn * 32 + nt * 8 + 2 * t;
      if (row < M) epi(row, col, acc[mt][nt][0], acc[mt][nt][1]);
      if (row + 8 < M) epi(row + 8, col, acc[mt][nt][2], acc[mt][nt][3]);
    }
}
} // namespace gemm

constexpr int kModel = 1024, kFF = 4096;
static_assert(kModel % gemm::BN == 0 && kFF % gemm::BN == 0, "N tiles");
static_assert(kModel % gemm::BK == 0 && kFF % gemm::BK == 0, "K tiles");

// LayerNorm over d_model = 1024, one warp per row, 8 rows per 256-thread block. Each lane holds
// 32 values (8 float4); two-pass mean and variance in registers, as torch's (x-mean)*rstd*w + b.
extern "C" __global__ void __launch_bounds__(256)
layernorm_rows(const float *__restrict__ x, const float *__restrict__ w, const float *__restrict__ b,
               float *__restrict__ xn, int rows, float eps) {
  const int row = blockIdx.x * 8 + (threadIdx.x >> 5), lane = threadIdx.x & 31;
  if (row >= rows) return;
  const float4 *src = reinterpret_cast<const float4 *>(x + (long long)row * kModel);
  float4 v[8];
  float sum = 0.0f;
#pragma unroll
  for (int q = 0; q < 8; ++q) {
    v[q] = src[q * 32 + lane];
    sum += (v[q].x + v[q].y) + (v[q].z + v[q].w);
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  const float mean = sum * (1.0f / kModel);
  float sq = 0.0f;
#pragma unroll
  for (int q = 0; q < 8; ++q) {
    const float a = v[q].x - mean, c = v[q].y - mean, d = v[q].z - mean, e = v[q].w - mean;
    sq += (a * a + c * c) + (d * d + e * e);
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) sq += __shfl_xor_sync(0xffffffffu, sq, o);
  const float rstd = rsqrtf(sq * (1.0f / kModel) + eps);
  float4 *dst = reinterpret_cast<float4 *>(xn + (long long)row * kModel);
  const float4 *w4 = reinterpret_cast<const float4 *>(w), *b4 = reinterpret_cast<const float4 *>(b);
#pragma unroll
  for (int q = 0; q < 8; ++q) {
    const float4 ww = w4[q * 32 + lane], bb = b4[q * 32 + lane];
    float4 o;
    o.x = (v[q].x - mean) * rstd * ww.x + bb.x;
    o.y = (v[q].y - mean) * rstd * ww.y + bb.y;
    o.z = (v[q].z - mean) * rstd * ww.z + bb.z;
    o.w = (v[q].w - mean) * rstd * ww.w + bb.w;
    dst[q * 32 + lane] = o;
  }
}

struct epi_bias_silu {
  const float *b1;
  float *act;
  __device__ __forceinline__ void operator()(int row, int col, float v0, float v1) const {
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
  __device__ __forceinline__ void operator()(int row, int col, float v0, float v1) const {
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
extern "C" __global__ void __launch_bounds__(gemm::THREADS, 1)
ffn_up(const float *__restrict__ xn, const float *__restrict__ W1, const float *__restrict__ b1,
       float *__restrict__ act, int tokens) {
  if ((int)gridDim.x * gemm::BN != kFF) return;
  gemm::gemm_3xtf32(xn, W1, tokens, kFF, kModel, kModel, kModel, epi_bias_silu{b1, act});
}

// out[tokens, 1024] = x + 0.5 * (act @ W2.T + b2): A = act [tokens][4096], B = W2 [1024][4096].
extern "C" __global__ void __launch_bounds__(gemm::THREADS, 1)
ffn_down(const float *__restrict__ act, const float *__restrict__ W2, const float *__restrict__ b2,
         const float *__restrict__ x, float *__restrict__ out, int tokens) {
  if ((int)gridDim.x * gemm::BN != kModel) return;
  gemm::gemm_3xtf32(act, W2, tokens, kModel, kFF, kFF, kFF, epi_bias_half_residual{b2, x, out});
}

/* mkb:plan
scratch xn fp32[tokens * d_model]
scratch act fp32[tokens * d_ff]
launch layernorm_rows grid(ceil_div(tokens, 8)) block(256) args(x, ln_weight, ln_bias, xn, i32(tokens), f32(eps))
launch ffn_up grid(d_ff / 128, ceil_div(tokens, 128)) block(256) shared(147456) args(xn, W1, b1, act, i32(tokens))
launch ffn_down grid(d_model / 128, ceil_div(tokens, 128)) block(256) shared(147456) args(act, W2, b2, x, out, i32(tokens))
*/
