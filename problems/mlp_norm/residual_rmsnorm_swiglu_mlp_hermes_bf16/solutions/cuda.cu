// Fused residual add + RMSNorm + SwiGLU MLP for a 32-token decode step (Llama 3.1 8B shapes).
//
// The sublayer is bound by streaming 352 MB of bf16 weights, so the design is three launches that keep
// HBM busy:
//   1. add_rmsnorm: one block per token: residual += x (in place), n = bf16(bf16(s * rsqrt) * w).
//   2. gate_up: each CTA owns 64 intermediate columns j (64 gate rows + the 64 matching up rows) over
//      the full K = 4096 (224 CTAs, 2 per SM), streams them with a double-buffered cp.async pipeline
//      (40 KB per stage, 256 contiguous bytes per weight row per stage), multiplies
//      with tensor cores (mma.sync m16n8k16, the weights as the M side, the 32 tokens as N) and applies
//      the eager rounding points SiLU(bf16 g) * bf16 u in registers: h = bf16 [32, 14336].
//   3. down: 128 output rows per CTA, split-K by 7 (224 CTAs, same pipeline), fp32 partials; the last
//      CTA of each row tile (atomic ticket) sums the 7 partials in a fixed order and writes y.
// (Tile shapes and stage counts were picked by measurement on an H200 among 64/112/32/16 rows per
// half, 2-10 stages, 64/128/256 k per stage; this one was fastest.)
//
// MMA fragment trick: a dot product does not depend on the order of its k terms, so each thread loads
// 8 contiguous k values (16 bytes) of a weight row and of a token row and uses them as the k slots its
// fragments own in two consecutive m16n8k16 steps; A and B use the same permutation, so the product
// is exact. No ldmatrix needed; shared tiles are XOR-swizzled so these 16-byte reads are conflict-free.
#include <cuda_bf16.h>

constexpr int kTokens = 32;
constexpr int kHidden = 4096;
constexpr int kInter = 14336;
constexpr int kBK = 128;                      // k per pipeline stage
constexpr int kChunks = kBK / 8;              // 16-byte chunks per row per stage
constexpr int kPitch = kBK * 2;               // bytes per shared row
// gate_up: 64 j per CTA (64 gate rows + the 64 matching up rows), 224 CTAs, 2 per SM.
constexpr int kGuHalf = 64, kGuThreads = (kGuHalf / 16) * 2 * 32, kGuStages = 2;     // 256 threads
constexpr int kGuStageBytes = (2 * kGuHalf + kTokens) * kBK * 2;                     // 40960
// down: 128 output rows per CTA, split-K by 7: 32 x 7 = 224 CTAs, 2 per SM.
constexpr int kDnHalf = 64, kDnThreads = (kDnHalf / 16) * 2 * 32, kDnStages = 2;     // 256 threads
constexpr int kDnStageBytes = (2 * kDnHalf + kTokens) * kBK * 2;                     // 40960
constexpr int kDownSplits = 7;
constexpr int kDownK = kInter / kDownSplits;  // 2048
constexpr int kMinBlocks = 2;
static_assert(kGuStages * kGuStageBytes == 81920 && kDnStages * kDnStageBytes == 81920, "plan shared() sizes");
static_assert(kHidden % kBK == 0 && kDownK % kBK == 0 && kInter % kDownSplits == 0, "k tiling");
static_assert(kInter % kGuHalf == 0 && kHidden % (2 * kDnHalf) == 0 && kGuHalf % 16 == 0, "row tiling");
static_assert(kTokens == 32, "warp layout assumes 32 tokens: 2 token halves of 16");

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void cp_async16(void *dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_u32(dst)), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// Swizzled 16-byte chunk index (the low 3 bits, i.e. within each 128-byte block of a row whose pitch is
// a multiple of 128 bytes): rows 2p and 2p+1 land in opposite halves of the block and consecutive row
// pairs rotate, so a quarter warp (2 rows x 4 chunks) hits 32 distinct banks.
__device__ __forceinline__ int swz(int row, int chunk) { return chunk ^ (((row & 1) << 2) | ((row >> 1) & 3)); }

__device__ __forceinline__ void mma_bf16(float *c, unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0,
                                         unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// One CTA: acc += A_tile[2 HALF rows, k range] . B[32 tokens, k range]^T.
// Rows [0, HALF) come from a0 + r * lda, rows [HALF, 2 HALF) from a1 + (r - HALF) * lda (gate and up
// rows, or two halves of w_down). b is [32, ldb] row-major (tokens x k). k_begin / k_tiles select the
// k range. With RW = HALF / 16, warp w owns rows (w % RW) * 16 .. +15 of each half and tokens
// (w / RW) * 16 .. +15.
// acc[half][ntile][4]: mma C fragments.
template <int HALF, int THREADS, int STAGES>
__device__ __forceinline__ void skinny_mainloop(const __nv_bfloat16 *__restrict__ a0, const __nv_bfloat16 *__restrict__ a1,
                                                long long lda, const __nv_bfloat16 *__restrict__ b, long long ldb,
                                                int k_begin, int k_tiles, unsigned char *smem, float acc[2][2][4]) {
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, q = lane & 3;
  constexpr int RW = HALF / 16;                 // row-subtile warps per token half
  constexpr int ROWS = 2 * HALF, STAGE_BYTES = (ROWS + kTokens) * kBK * 2;
  const int rsub = (warp % RW) * 16, tok0 = (warp / RW) * 16;

  auto load_stage = [&](int slot, int kt) {
    unsigned char *As = smem + slot * STAGE_BYTES;
    unsigned char *Bs = As + ROWS * kBK * 2;
    const int k0 = k_begin + kt * kBK;
#pragma unroll
    for (int idx = tid; idx < ROWS * kChunks; idx += THREADS) {
      const int r = idx / kChunks, c = idx % kChunks;
      const __nv_bfloat16 *src = (r < HALF ? a0 + (long long)r * lda : a1 + (long long)(r - HALF) * lda) + k0 + c * 8;
      cp_async16(As + r * kPitch + swz(r, c) * 16, src);
    }
    for (int idx = tid; idx < kTokens * kChunks; idx += THREADS) {
      const int r = idx / kChunks, c = idx % kChunks;
      cp_async16(Bs + r * kPitch + swz(r, c) * 16, b + (long long)r * ldb + k0 + c * 8);
    }
  };

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) load_stage(s, s);
    cp_async_commit();
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    {
      const int next = kt + STAGES - 1;
      if (next < k_tiles) load_stage(next % STAGES, next);
      cp_async_commit();
    }
    const unsigned char *As = smem + (kt % STAGES) * STAGE_BYTES;
    const unsigned char *Bs = As + ROWS * kBK * 2;
#pragma unroll
    for (int step = 0; step < kBK / 32; ++step) {  // 32-k steps
      const int chunk = step * 4 + q;
      uint4 ra[2][2];                              // [half][row g / g+8]
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int rr = 0; rr < 2; ++rr) {
          const int r = h * HALF + rsub + g + rr * 8;
          ra[h][rr] = *reinterpret_cast<const uint4 *>(As + r * kPitch + swz(r, chunk) * 16);
        }
      uint4 rb[2];
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
        const int r = tok0 + nt * 8 + g;
        rb[nt] = *reinterpret_cast<const uint4 *>(Bs + r * kPitch + swz(r, chunk) * 16);
      }
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int nt = 0; nt < 2; ++nt) {
          mma_bf16(acc[h][nt], ra[h][0].x, ra[h][1].x, ra[h][0].y, ra[h][1].y, rb[nt].x, rb[nt].y);
          mma_bf16(acc[h][nt], ra[h][0].z, ra[h][1].z, ra[h][0].w, ra[h][1].w, rb[nt].z, rb[nt].w);
        }
    }
  }
  cp_async_wait<0>();
}

// 1. residual += x; n = bf16(bf16(s * rsqrt(mean(s^2) + eps)) * w). One 512-thread block per token.
extern "C" __global__ void __launch_bounds__(512)
add_rmsnorm(const __nv_bfloat16 *__restrict__ x, __nv_bfloat16 *__restrict__ residual,
            const __nv_bfloat16 *__restrict__ weight, __nv_bfloat16 *__restrict__ n, float eps) {
  union pack8 { uint4 v; __nv_bfloat16 e[8]; };
  __shared__ float warp_sums[16];
  const long long row = (long long)blockIdx.x * kHidden;
  const int col = threadIdx.x * 8;
  pack8 xs, rs;
  xs.v = *reinterpret_cast<const uint4 *>(x + row + col);
  rs.v = *reinterpret_cast<const uint4 *>(residual + row + col);
  float s[8], sq = 0.0f;
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const __nv_bfloat16 v = __float2bfloat16_rn(__bfloat162float(xs.e[k]) + __bfloat162float(rs.e[k]));
    rs.e[k] = v;
    s[k] = __bfloat162float(v);
    sq += s[k] * s[k];
  }
  *reinterpret_cast<uint4 *>(residual + row + col) = rs.v;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) sq += __shfl_xor_sync(0xffffffffu, sq, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = sq;
  __syncthreads();
  float total = 0.0f;
#pragma unroll
  for (int w = 0; w < 16; ++w) total += warp_sums[w];
  const float inv = rsqrtf(total / kHidden + eps);
  pack8 ws, out;
  ws.v = *reinterpret_cast<const uint4 *>(weight + col);
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const __nv_bfloat16 m = __float2bfloat16_rn(s[k] * inv);
    out.e[k] = __float2bfloat16_rn(__bfloat162float(m) * __bfloat162float(ws.e[k]));
  }
  *reinterpret_cast<uint4 *>(n + row + col) = out.v;
}

// 2. h[t, j] = bf16(bf16(silu(bf16(g))) * bf16(u)) for the CTA's 64 j columns.
extern "C" __global__ void __launch_bounds__(kGuThreads, kMinBlocks)
gate_up_swiglu(const __nv_bfloat16 *__restrict__ n, const __nv_bfloat16 *__restrict__ w_gate,
               const __nv_bfloat16 *__restrict__ w_up, __nv_bfloat16 *__restrict__ h) {
  extern __shared__ __align__(128) unsigned char smem[];
  constexpr int RW = kGuHalf / 16;
  const int j0 = blockIdx.x * kGuHalf;
  float acc[2][2][4] = {};
  skinny_mainloop<kGuHalf, kGuThreads, kGuStages>(w_gate + (long long)j0 * kHidden, w_up + (long long)j0 * kHidden,
                                                  kHidden, n, kHidden, 0, kHidden / kBK, smem, acc);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  const int rsub = (warp % RW) * 16, tok0 = (warp / RW) * 16;
#pragma unroll
  for (int nt = 0; nt < 2; ++nt)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int j = j0 + rsub + g + (e >> 1) * 8;
      const int t = tok0 + nt * 8 + 2 * q + (e & 1);
      const float gv = __bfloat162float(__float2bfloat16_rn(acc[0][nt][e]));
      const float uv = __bfloat162float(__float2bfloat16_rn(acc[1][nt][e]));
      const float av = __bfloat162float(__float2bfloat16_rn(gv / (1.0f + expf(-gv))));
      h[(long long)t * kInter + j] = __float2bfloat16_rn(av * uv);
    }
}

// 3. y = bf16(h . w_down^T): CTA (row tile, split) computes fp32 partials; the last CTA of a row tile
// (ticket in `tickets`, zeroed scratch) sums the kDownSplits partials in split order.
extern "C" __global__ void __launch_bounds__(kDnThreads, kMinBlocks)
down_proj(const __nv_bfloat16 *__restrict__ h, const __nv_bfloat16 *__restrict__ w_down, float *__restrict__ partial,
          unsigned *__restrict__ tickets, __nv_bfloat16 *__restrict__ y) {
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ unsigned is_last;
  constexpr int RW = kDnHalf / 16, ROWS = 2 * kDnHalf;
  const int o0 = blockIdx.x * ROWS, split = blockIdx.y;
  float acc[2][2][4] = {};
  const __nv_bfloat16 *a = w_down + (long long)o0 * kInter;
  skinny_mainloop<kDnHalf, kDnThreads, kDnStages>(a, a + (long long)kDnHalf * kInter, kInter, h, kInter, split * kDownK,
                                                  kDownK / kBK, smem, acc);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  const int rsub = (warp % RW) * 16, tok0 = (warp / RW) * 16;
  float *mine = partial + (long long)split * kTokens * kHidden;
#pragma unroll
  for (int hh = 0; hh < 2; ++hh)
#pragma unroll
    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int o = o0 + hh * kDnHalf + rsub + g + (e >> 1) * 8;
        const int t = tok0 + nt * 8 + 2 * q + (e & 1);
        mine[(long long)t * kHidden + o] = acc[hh][nt][e];
      }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) is_last = (atomicAdd(&tickets[blockIdx.x], 1u) == kDownSplits - 1);
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  for (int i = threadIdx.x; i < kTokens * ROWS; i += kDnThreads) {
    const int t = i / ROWS, o = o0 + i % ROWS;
    float sum = 0.0f;
#pragma unroll
    for (int s = 0; s < kDownSplits; ++s) sum += __ldcg(partial + ((long long)s * kTokens + t) * kHidden + o);
    y[(long long)t * kHidden + o] = __float2bfloat16_rn(sum);
  }
}

/* mkb:plan
scratch n bf16[tokens * hidden]
scratch hbuf bf16[tokens * intermediate]
scratch partial fp32[7 * tokens * hidden]
scratch tickets int32[hidden / 128] zeroed
launch add_rmsnorm grid(tokens) block(512) args(x, residual, norm_weight, n, f32(eps))
launch gate_up_swiglu grid(intermediate / 64) block(256) shared(81920) args(n, w_gate, w_up, hbuf)
launch down_proj grid(hidden / 128, 7) block(256) shared(81920) args(hbuf, w_down, partial, tickets, y)
*/
