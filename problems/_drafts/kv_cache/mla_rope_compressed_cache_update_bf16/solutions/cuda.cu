// Two kernels.
// 1. mla_cache_write: one block per token; a valid token's cache row gets kv_c (64 threads, 16-byte
//    vectors) and the rotated k_pe (4 threads, 8 dims of each half).
// 2. mla_q_gemm_rope: the q_b projection as a bf16 tensor-core GEMM (mma.sync m16n8k16, fp32 accumulation)
//    with the RoPE of q_pe fused into its epilogue. One 256-thread block computes a 128-token x 192-column
//    tile = one head for 128 tokens, so the head's rope dims are in the tile. K = 1536 in steps of 32
//    through a 4-stage cp.async pipeline; shared tiles are rows of 4 16-byte chunks, the chunk index
//    XOR-swizzled with (row / 2) % 4 so that ldmatrix reads are free of bank conflicts. 8 warps as 2 x 4,
//    each 64 x 48 (4 x 6 mma tiles). Epilogue: the fp32 tile rounded to bf16 (the GEMM's rounding) into
//    shared memory, then q_nope copied and q_pe rotated in bf16 arithmetic (each op rounded to bf16, as the
//    reference), 16-byte stores to q_out.
#include <cuda_bf16.h>

constexpr int kHeads = 16, kHeadDim = 192, kNope = 128, kRope = 64, kHalf = kRope / 2;
constexpr int kQRank = 1536, kKvRank = 512, kLoraRow = kQRank + kKvRank + kRope;  // 2112
constexpr int kN = kHeads * kHeadDim;                                             // 3072
constexpr int kCacheRow = kKvRank + kRope;                                        // 576
constexpr int BM = 128, BN = kHeadDim, BK = 32, kStages = 4, kThreads = 256;
constexpr int kKTiles = kQRank / BK;                   // 48
constexpr int kAStage = BM * BK, kBStage = BN * BK;    // elements
constexpr int kStageElems = kAStage + kBStage;         // 10240 bf16 = 20 KB
constexpr int kCStride = BN + 8;                       // epilogue tile row, padded
static_assert(BM * kCStride <= kStages * kStageElems, "the epilogue tile reuses the pipeline's shared memory");

union pack8 {
  uint4 raw;
  __nv_bfloat16 v[8];
};

__device__ __forceinline__ float rbf(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }
__device__ __forceinline__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void cp_async16(unsigned dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void mma_bf16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// The 16-byte chunk `chunk` (0..3) of row `row` of a stage tile (rows of BK = 32 bf16), swizzled.
__device__ __forceinline__ int swizzled(int row, int chunk) { return row * 4 + (chunk ^ ((row >> 1) & 3)); }

// out[j] = x1 c - x2 s, out[j + 32] = x2 c + x1 s for 8 consecutive j, every op rounded to bf16.
__device__ __forceinline__ void rotate8(const pack8 &x1, const pack8 &x2, const pack8 &c, const pack8 &s, pack8 &o1, pack8 &o2) {
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const float a = __bfloat162float(x1.v[k]), b = __bfloat162float(x2.v[k]);
    const float cc = __bfloat162float(c.v[k]), ss = __bfloat162float(s.v[k]);
    o1.v[k] = __float2bfloat16_rn(rbf(__fmul_rn(a, cc)) - rbf(__fmul_rn(b, ss)));
    o2.v[k] = __float2bfloat16_rn(rbf(__fmul_rn(b, cc)) + rbf(__fmul_rn(a, ss)));
  }
}

extern "C" __global__ void __launch_bounds__(128)
mla_cache_write(const __nv_bfloat16 *__restrict__ qkv_lora, const long long *__restrict__ positions,
                const __nv_bfloat16 *__restrict__ cos_sin_cache, const long long *__restrict__ slot_mapping,
                __nv_bfloat16 *__restrict__ kv_cache) {
  const int t = blockIdx.x, tid = threadIdx.x;
  const long long slot = __ldg(slot_mapping + t);
  if (slot < 0) return;
  const __nv_bfloat16 *row = qkv_lora + (long long)t * kLoraRow;
  __nv_bfloat16 *dst = kv_cache + slot * kCacheRow;  // row `slot` of [4096, 576]
  if (tid < kKvRank / 8) {
    *reinterpret_cast<uint4 *>(dst + tid * 8) = __ldg(reinterpret_cast<const uint4 *>(row + kQRank + tid * 8));
  } else if (tid < kKvRank / 8 + kHalf / 8) {
    const int j0 = (tid - kKvRank / 8) * 8;
    const __nv_bfloat16 *pe = row + kQRank + kKvRank;
    const __nv_bfloat16 *cs = cos_sin_cache + __ldg(positions + t) * kRope;
    pack8 x1, x2, c, s, o1, o2;
    x1.raw = __ldg(reinterpret_cast<const uint4 *>(pe + j0));
    x2.raw = __ldg(reinterpret_cast<const uint4 *>(pe + kHalf + j0));
    c.raw = __ldg(reinterpret_cast<const uint4 *>(cs + j0));
    s.raw = __ldg(reinterpret_cast<const uint4 *>(cs + kHalf + j0));
    rotate8(x1, x2, c, s, o1, o2);
    *reinterpret_cast<uint4 *>(dst + kKvRank + j0) = o1.raw;
    *reinterpret_cast<uint4 *>(dst + kKvRank + kHalf + j0) = o2.raw;
  }
}

__device__ __forceinline__ void load_stage(__nv_bfloat16 *stage, const __nv_bfloat16 *__restrict__ a,
                                           const __nv_bfloat16 *__restrict__ b, int m0, int n0, int k0, int tid) {
  __nv_bfloat16 *as = stage, *bs = stage + kAStage;
#pragma unroll
  for (int c = tid; c < BM * 4; c += kThreads) {
    const int r = c / 4, chunk = c % 4;
    cp_async16(smem_addr(as + swizzled(r, chunk) * 8), a + (long long)(m0 + r) * kLoraRow + k0 + chunk * 8);
  }
#pragma unroll
  for (int c = tid; c < BN * 4; c += kThreads) {
    const int r = c / 4, chunk = c % 4;
    cp_async16(smem_addr(bs + swizzled(r, chunk) * 8), b + (long long)(n0 + r) * kQRank + k0 + chunk * 8);
  }
}

extern "C" __global__ void __launch_bounds__(kThreads, 1)
mla_q_gemm_rope(const __nv_bfloat16 *__restrict__ qkv_lora, const __nv_bfloat16 *__restrict__ q_b_weight,
                const long long *__restrict__ positions, const __nv_bfloat16 *__restrict__ cos_sin_cache,
                __nv_bfloat16 *__restrict__ q_out) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __nv_bfloat16 *smem = reinterpret_cast<__nv_bfloat16 *>(smem_raw);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int head = blockIdx.x, m0 = blockIdx.y * BM, n0 = head * BN;
  const int wm = warp / 4, wn = warp % 4;  // warp tile: rows wm * 64, columns wn * 48

  float acc[4][6][4];
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int ni = 0; ni < 6; ++ni)
#pragma unroll
      for (int k = 0; k < 4; ++k) acc[mi][ni][k] = 0.0f;

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    load_stage(smem + s * kStageElems, qkv_lora, q_b_weight, m0, n0, s * BK, tid);
    cp_async_commit();
  }

  for (int kt = 0; kt < kKTiles; ++kt) {
    cp_async_wait<kStages - 2>();  // tile kt has landed (this thread's copies) ...
    __syncthreads();               // ... and everyone's; the stage refilled below is no longer read
    const int next = kt + kStages - 1;
    if (next < kKTiles) load_stage(smem + (next % kStages) * kStageElems, qkv_lora, q_b_weight, m0, n0, next * BK, tid);
    cp_async_commit();

    const __nv_bfloat16 *as = smem + (kt % kStages) * kStageElems, *bs = as + kAStage;
#pragma unroll
    for (int ks = 0; ks < BK / 16; ++ks) {
      unsigned a[4][4], b[3][4];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi) {
        // lanes 0-15: rows 0-15 at k 0-7; lanes 16-31: rows 0-15 at k 8-15 -> a0, a1, a2, a3
        const int row = wm * 64 + mi * 16 + (lane % 16), chunk = ks * 2 + lane / 16;
        ldmatrix_x4(a[mi], smem_addr(as + swizzled(row, chunk) * 8));
      }
#pragma unroll
      for (int nj = 0; nj < 3; ++nj) {
        // matrices: (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15)
        const int m = lane / 8;
        const int row = wn * 48 + nj * 16 + (lane % 8) + 8 * (m / 2), chunk = ks * 2 + (m % 2);
        ldmatrix_x4(b[nj], smem_addr(bs + swizzled(row, chunk) * 8));
      }
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int nj = 0; nj < 3; ++nj) {
          mma_bf16(acc[mi][2 * nj], a[mi], b[nj][0], b[nj][1]);
          mma_bf16(acc[mi][2 * nj + 1], a[mi], b[nj][2], b[nj][3]);
        }
    }
  }
  cp_async_wait<0>();
  __syncthreads();

  // The tile in bf16 (F.linear's output rounding), [BM][kCStride].
  __nv_bfloat16 *tile = smem;
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int ni = 0; ni < 6; ++ni) {
      const int row = wm * 64 + mi * 16 + lane / 4, col = wn * 48 + ni * 8 + 2 * (lane % 4);
      *reinterpret_cast<__nv_bfloat162 *>(tile + row * kCStride + col) = __floats2bfloat162_rn(acc[mi][ni][0], acc[mi][ni][1]);
      *reinterpret_cast<__nv_bfloat162 *>(tile + (row + 8) * kCStride + col) =
          __floats2bfloat162_rn(acc[mi][ni][2], acc[mi][ni][3]);
    }
  __syncthreads();

  // Per row: 16 vectors of q_nope copied, 4 pairs of q_pe vectors rotated.
  constexpr int kItems = kNope / 8 + kHalf / 8;  // 20
  for (int item = tid; item < BM * kItems; item += kThreads) {
    const int r = item / kItems, v = item % kItems;
    const int token = m0 + r;
    const __nv_bfloat16 *src = tile + r * kCStride;
    __nv_bfloat16 *dst = q_out + (long long)token * kN + n0;
    if (v < kNope / 8) {
      *reinterpret_cast<uint4 *>(dst + v * 8) = *reinterpret_cast<const uint4 *>(src + v * 8);
    } else {
      const int j0 = (v - kNope / 8) * 8;
      const __nv_bfloat16 *cs = cos_sin_cache + __ldg(positions + token) * kRope;
      pack8 x1, x2, c, s, o1, o2;
      x1.raw = *reinterpret_cast<const uint4 *>(src + kNope + j0);
      x2.raw = *reinterpret_cast<const uint4 *>(src + kNope + kHalf + j0);
      c.raw = __ldg(reinterpret_cast<const uint4 *>(cs + j0));
      s.raw = __ldg(reinterpret_cast<const uint4 *>(cs + kHalf + j0));
      rotate8(x1, x2, c, s, o1, o2);
      *reinterpret_cast<uint4 *>(dst + kNope + j0) = o1.raw;
      *reinterpret_cast<uint4 *>(dst + kNope + kHalf + j0) = o2.raw;
    }
  }
}

/* mkb:plan
launch mla_cache_write grid(num_tokens) block(128)
  args(qkv_lora, positions, cos_sin_cache, slot_mapping, kv_cache)
launch mla_q_gemm_rope grid(num_heads, num_tokens / 128) block(256) shared(81920)
  args(qkv_lora, q_b_weight, positions, cos_sin_cache, q_out)
*/
