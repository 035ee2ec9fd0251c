// Parakeet FastConformer feed-forward module, fp32: out = x + 0.5 * (W2 silu(W1 LN(x) + b1) + b2).
// Three launches: a warp-per-row LayerNorm writing the normalized rows (32 MB), the up GEMM with bias
// and SiLU in its epilogue, the down GEMM with bias, the 0.5 scale and the residual in its epilogue.
// Both GEMMs run on tensor cores as 3xTF32 (fp32-accurate; cuBLAS's fp32 GEMM is SIMT FFMA).
// Shapes: d_model 1024, d_ff 4096 (both multiples of 128 and of 32); tokens any (rows bounds-checked).

// ---- 3xTF32 tensor-core GEMM core (fp32-accurate) ---------------------------------------------------
// C[M,N] = sum_k A(m,k) * B(k,n), fp32 in and out. Each product uses the split x = hi + lo with
// hi = tf32(x), lo = tf32(x - hi): per 8-wide k step, part = lo_a*hi_b + hi_a*lo_b + hi_a*hi_b
// (mma.sync m16n8k8 from a zero accumulator), then acc += part in fp32 (round to nearest). The dropped
// lo*lo term is ~2^-22 relative: fp32-level accuracy.
// Block tile 128x128x32, 8 warps (2 along M x 4 along N) of 64x32, 3-stage cp.async pipeline,
// 2 blocks per SM (110.6 KB of shared memory and at most 128 registers per thread each).
// Operand layouts (template flags): A K-major ([M][K], lda) or M-major ([K][M], lda);
// B K-major ([N][K], ldb: an nn.Linear weight used as x @ W.T) or N-major ([K][N], ldb).
// Requirements (checked by the shapes this file launches, see the plan): N % 128 == 0, the K range
// of a block a multiple of 32, M % 4 == 0 for an M-major A (K-major A rows are bounds-checked and
// zero-filled, so any M works), all leading dimensions multiples of 4 floats (16-byte cp.async).
namespace gemm {
constexpr int BM = 128, BN = 128, BK = 32, STAGES = 3, THREADS = 256;
constexpr int WN_TILES = 4; // n8 tiles per warp (warp tile 64 x 32)
constexpr int KPAD = BK + 4;  // row stride of a K-major tile: 36 floats, conflict-free fragment reads
constexpr int MPAD = BM + 8;  // row stride of an M/N-major tile: 136 floats, conflict-free too
constexpr int TILE_FLOATS = (BM * KPAD > BK * MPAD) ? BM * KPAD : BK * MPAD; // 4608
constexpr int STAGE_FLOATS = 2 * TILE_FLOATS;
// dynamic shared memory: STAGES * STAGE_FLOATS * 4 = 110592 bytes; two blocks fit in 227 KiB
static_assert(BM == BN, "one padded stride serves A and B");

__device__ __forceinline__ void cp_async16(float *dst, const float *src, bool valid) {
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  const int bytes = valid ? 16 : 0; // 0: the 16 bytes are zero-filled, nothing is read
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void split_tf32(float x, unsigned &hi, unsigned &lo) {
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(hi) : "f"(x));
  const float rest = x - __uint_as_float(hi);
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(lo) : "f"(rest));
}

__device__ __forceinline__ void mma_tf32(float *c, const unsigned *a, const unsigned *b) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Loads rows [r0, r0+128) x k [k0, k0+32) of an operand into a shared tile. K_MAJOR: element (r, k)
// at g[r * ld + k], tile s[r * KPAD + k]; else element (r, k) at g[k * ld + r], tile s[k * MPAD + r].
// Rows at or past `rows` are zero-filled.
template <bool K_MAJOR>
__device__ __forceinline__ void load_tile(float *s, const float *__restrict__ g, long long ld, int rows, int r0,
                                          int k0, int tid) {
#pragma unroll
  for (int it = 0; it < (BM * BK / 4) / THREADS; ++it) {
    const int c = tid + it * THREADS;
    if (K_MAJOR) {
      const int r = c >> 3, kc = (c & 7) * 4;
      const bool valid = r0 + r < rows;
      const float *src = valid ? g + (long long)(r0 + r) * ld + k0 + kc : g;
      cp_async16(s + r * KPAD + kc, src, valid);
    } else {
      const int k = c >> 5, rc = (c & 31) * 4;
      const bool valid = r0 + rc < rows;
      const float *src = valid ? g + (long long)(k0 + k) * ld + r0 + rc : g;
      cp_async16(s + k * MPAD + rc, src, valid);
    }
  }
}

template <bool K_MAJOR> __device__ __forceinline__ float tile_at(const float *s, int r, int k) {
  return K_MAJOR ? s[r * KPAD + k] : s[k * MPAD + r];
}

// One 128x128 output tile at block (blockIdx.y, blockIdx.x) over k in [k_begin, k_begin + 32*k_tiles).
// Calls epi(row, col, v0, v1) for columns col, col+1 (col even) of every row < M.
template <bool A_K, bool B_K, class Epi>
__device__ __forceinline__ void gemm_tile(const float *__restrict__ A, long long lda, const float *__restrict__ B,
                                          long long ldb, int M, int N, int k_begin, int k_tiles, const Epi &epi) {
  extern __shared__ __align__(16) float smem[];
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  const int wm = (warp >> 2) * 64, wn = (warp & 3) * 32;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

  float acc[4][WN_TILES][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < WN_TILES; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) {
      load_tile<A_K>(smem + s * STAGE_FLOATS, A, lda, M, m0, k_begin + s * BK, tid);
      load_tile<B_K>(smem + s * STAGE_FLOATS + TILE_FLOATS, B, ldb, N, n0, k_begin + s * BK, tid);
    }
    cp_async_commit();
  }

  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<STAGES - 2>(); // tile kt has landed (this thread's copies)
    __syncthreads();             // ... everyone's; and everyone is done reading tile kt-1's stage
    const int next = kt + STAGES - 1;
    if (next < k_tiles) {
      float *st = smem + (next % STAGES) * STAGE_FLOATS;
      load_tile<A_K>(st, A, lda, M, m0, k_begin + next * BK, tid);
      load_tile<B_K>(st + TILE_FLOATS, B, ldb, N, n0, k_begin + next * BK, tid);
    }
    cp_async_commit(); // possibly empty: keeps the group count uniform
    const float *sA = smem + (kt % STAGES) * STAGE_FLOATS;
    const float *sB = sA + TILE_FLOATS;
#pragma unroll 1 // unrolling the k steps spills at 128 registers
    for (int kk = 0; kk < BK; kk += 8) {
      unsigned bh[WN_TILES][2], bl[WN_TILES][2];
#pragma unroll
      for (int j = 0; j < WN_TILES; ++j) {
        const int n = wn + j * 8 + g;
        split_tf32(tile_at<B_K>(sB, n, kk + t), bh[j][0], bl[j][0]);
        split_tf32(tile_at<B_K>(sB, n, kk + t + 4), bh[j][1], bl[j][1]);
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int m = wm + i * 16 + g;
        unsigned ah[4], al[4];
        split_tf32(tile_at<A_K>(sA, m, kk + t), ah[0], al[0]);
        split_tf32(tile_at<A_K>(sA, m + 8, kk + t), ah[1], al[1]);
        split_tf32(tile_at<A_K>(sA, m, kk + t + 4), ah[2], al[2]);
        split_tf32(tile_at<A_K>(sA, m + 8, kk + t + 4), ah[3], al[3]);
#pragma unroll
        for (int j = 0; j < WN_TILES; ++j) {
          // The three products of this 8-wide k step go through a fresh tensor-core accumulator;
          // the running sum is kept outside the tensor cores with round-to-nearest adds, so the
          // tensor cores' truncating accumulation never acts on a long running sum.
          float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
          mma_tf32(part, al, bh[j]);
          mma_tf32(part, ah, bl[j]);
          mma_tf32(part, ah, bh[j]);
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[i][j][e] += part[e];
        }
      }
    }
  }
  cp_async_wait<0>();

#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int row = m0 + wm + i * 16 + g;
#pragma unroll
    for (int j = 0; j < WN_TILES; ++j) {
      const int col = n0 + wn + j * 8 + 2 * t;
      if (row < M) epi(row, col, acc[i][j][0], acc[i][j][1]);
      if (row + 8 < M) epi(row + 8, col, acc[i][j][2], acc[i][j][3]);
    }
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
  __device__ void operator()(int row, int col, float v0, float v1) const {
    const float h0 = v0 + b1[col], h1 = v1 + b1[col + 1];
    float2 o;
    o.x = h0 / (1.0f + expf(-h0));
    o.y = h1 / (1.0f + expf(-h1));
    *reinterpret_cast<float2 *>(act + (long long)row * kFF + col) = o;
  }
};

struct epi_bias_half_residual {
  const float *b2, *x;
  float *out;
  __device__ void operator()(int row, int col, float v0, float v1) const {
    const long long at = (long long)row * kModel + col;
    const float2 r = *reinterpret_cast<const float2 *>(x + at);
    float2 o;
    o.x = r.x + 0.5f * (v0 + b2[col]);
    o.y = r.y + 0.5f * (v1 + b2[col + 1]);
    *reinterpret_cast<float2 *>(out + at) = o;
  }
};

// act[tokens, 4096] = silu(xn @ W1.T + b1): A = xn K-major, B = W1 [4096][1024] K-major.
extern "C" __global__ void __launch_bounds__(gemm::THREADS, 2)
ffn_up(const float *__restrict__ xn, const float *__restrict__ W1, const float *__restrict__ b1,
       float *__restrict__ act, int tokens) {
  gemm::gemm_tile<true, true>(xn, kModel, W1, kModel, tokens, kFF, 0, kModel / gemm::BK, epi_bias_silu{b1, act});
}

// out[tokens, 1024] = x + 0.5 * (act @ W2.T + b2): A = act K-major, B = W2 [1024][4096] K-major.
extern "C" __global__ void __launch_bounds__(gemm::THREADS, 2)
ffn_down(const float *__restrict__ act, const float *__restrict__ W2, const float *__restrict__ b2,
         const float *__restrict__ x, float *__restrict__ out, int tokens) {
  gemm::gemm_tile<true, true>(act, kFF, W2, kFF, tokens, kModel, 0, kFF / gemm::BK,
                              epi_bias_half_residual{b2, x, out});
}

/* mkb:plan
scratch xn fp32[tokens * d_model]
scratch act fp32[tokens * d_ff]
launch layernorm_rows grid(ceil_div(tokens, 8)) block(256) args(x, ln_weight, ln_bias, xn, i32(tokens), f32(eps))
launch ffn_up grid(d_ff / 128, ceil_div(tokens, 128)) block(256) shared(110592) args(xn, W1, b1, act, i32(tokens))
launch ffn_down grid(d_model / 128, ceil_div(tokens, 128)) block(256) shared(110592) args(act, W2, b2, x, out, i32(tokens))
*/
