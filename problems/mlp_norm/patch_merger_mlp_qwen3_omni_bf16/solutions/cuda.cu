// Qwen3-Omni vision patch merger (original #27), fused: LayerNorm with the 2x2 spatial merge folded into its
// store addresses, then two Hopper wgmma GEMMs whose epilogues apply the
// bias (and GELU for fc1) in registers, so neither linear's fp32 result nor the pre-GELU bf16 tensor ever
// reaches memory. Three launches instead of eager's ~25; rounding points as in eager PyTorch.
//   1. layernorm_rows: one warp per 1536-wide patch row, fp32 statistics, bf16 out written to its merged
//      position (the spec's invariant: every grid is 1 x 64 x 64): patch p goes to merged row
//      1024 (p / 4096) + 32 (p % 4096 / 128) + p % 64 / 2, column block 2 (p / 64 % 2) + p % 2 of [8192, 6144].
//   2. fc1_gelu: h = bf16(xn @ W1^T + b1); g = bf16(gelu(h))     (M x 6144 x 6144)
//   3. fc2_bias: out = bf16(g @ W2^T + b2)                       (M x 3584 x 6144)
// Shape checks for the GEMM tiles: 6144 % 256 == 0, 3584 % 256 == 0, 6144 % 64 == 0; M = 8192 = 64 * 128.
#include <cuda_bf16.h>

constexpr int kHidden = 1536;             // vision hidden_size (LayerNorm width)
constexpr int kChunks = kHidden / 8;      // 192 chunks of 8 bf16 (16 bytes) per patch row
constexpr int kChunksPerLane = (kChunks + 31) / 32; // 6

union pack8 {
  uint4 vector;
  __nv_bfloat16 values[8];
};

extern "C" __global__ void __launch_bounds__(256)
layernorm_rows(const __nv_bfloat16 *__restrict__ x, const __nv_bfloat16 *__restrict__ gamma,
               const __nv_bfloat16 *__restrict__ beta, __nv_bfloat16 *__restrict__ y, int rows, float eps) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long row = (long long)blockIdx.x * 8 + warp;
  if (row >= rows) return;
  const uint4 *src = reinterpret_cast<const uint4 *>(x + row * kHidden);
  float v[kChunksPerLane][8];
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < kChunksPerLane; ++i) {
    const int chunk = lane + 32 * i;
    pack8 p;
    p.vector = chunk < kChunks ? src[chunk] : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      v[i][k] = __bfloat162float(p.values[k]);
      sum += v[i][k];
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  const float mean = sum / kHidden;
  float sq = 0.0f;
#pragma unroll
  for (int i = 0; i < kChunksPerLane; ++i) {
    if (lane + 32 * i < kChunks) {
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const float d = v[i][k] - mean;
        sq += d * d;
      }
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) sq += __shfl_xor_sync(0xffffffffu, sq, o);
  const float rstd = rsqrtf(sq / kHidden + eps);
  // the merge: (grid g, patch row y, column x) of a 1 x 64 x 64 grid -> merged row (g, y / 2, x / 2), block 2 (y % 2) + x % 2
  const long long mrow = row / 4096 * 1024 + row % 4096 / 128 * 32 + row % 64 / 2;
  const int part = (int)(row / 64 % 2 * 2 + row % 2);
  uint4 *dst = reinterpret_cast<uint4 *>(y + mrow * (4 * kHidden) + part * kHidden);
  const uint4 *g4 = reinterpret_cast<const uint4 *>(gamma);
  const uint4 *b4 = reinterpret_cast<const uint4 *>(beta);
#pragma unroll
  for (int i = 0; i < kChunksPerLane; ++i) {
    const int chunk = lane + 32 * i;
    if (chunk < kChunks) {
      pack8 g, b, out;
      g.vector = g4[chunk];
      b.vector = b4[chunk];
#pragma unroll
      for (int k = 0; k < 8; ++k)
        out.values[k] = __float2bfloat16_rn((v[i][k] - mean) * rstd * __bfloat162float(g.values[k]) +
                                            __bfloat162float(b.values[k]));
      dst[chunk] = out.vector;
    }
  }
}

// ---- A Hopper (sm_90a) bf16 GEMM: C[M, N] = A[M, K] * B[N, K]^T, fp32 accumulation -----------------
// Both operands are K-major (A row-major activations, B an nn.Linear weight [out, in]), as wgmma wants.
// Persistent and warp-specialized: 384 threads = warpgroup 0 (producer) + warpgroups 1, 2 (consumers).
// A CTA loops over 128 x 256 output tiles (tile t = blockIdx.x, + gridDim.x, ...). K advances in 64-element
// steps (128 bytes = one 128B-swizzle row) through a 4-slot shared-memory ring:
//   producer: waits for slot s to be empty, issues its cp.async chunks of the step and binds them to
//             full[s] with cp.async.mbarrier.arrive.noinc (full[s] expects 128 such arrivals), so the phase
//             completes when every chunk has landed; no thread ever blocks on its own copies;
//   consumer warpgroup c (rows 64c..64c+63 of the tile): waits for full[s], issues 4 m64n256k16 wgmmas,
//             keeps one wgmma group in flight, and arrives on empty[] of the previous step once that
//             group has completed (empty[s] expects 256 arrivals: every consumer thread).
// A global step counter runs across tiles, so the ring (and its phases) continue from tile to tile and
// the producer fills the next tile's first slots while the consumers run the epilogue.
// No TMA, since a submission cannot build tensor maps on the host.
// Shapes: N % 256 == 0 and K % 64 == 0 are required (checked by the caller's shapes below); M is
// arbitrary (rows past M are zero-filled on load and skipped on store).
constexpr int kBM = 128, kBN = 256, kBK = 64, kStages = 4;
constexpr int kGemmThreads = 384;                           // producer warpgroup + 2 consumer warpgroups
constexpr int kTileABytes = kBM * kBK * 2;                  // 16 KiB
constexpr int kTileBBytes = kBN * kBK * 2;                  // 32 KiB
constexpr int kStageBytes = kTileABytes + kTileBBytes;      // 48 KiB
constexpr int kGroupM = 8;                                  // rasterization: 8 row tiles per group
static_assert(kStages * kStageBytes + 1024 == 4 * 49152 + 1024, "the plans' shared(): the ring plus 1024 bytes of alignment slack");

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void cp_async_16(unsigned dst, const void *src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0) : "memory");
}
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
// Keeps the compiler from moving accumulator reads or writes across the asynchronous wgmma boundary.
__device__ __forceinline__ void fence_accumulators(float *d) {
#pragma unroll
  for (int i = 0; i < 128; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// mbarriers (shared::cta, 8 bytes each)
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Waits until the phase with the given parity (0 for the barrier's first phase, 1 for its second, ...)
// has completed.
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
  unsigned done;
  do {
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n"
                 "}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  } while (!done);
}
// An arrive-on of `bar` that fires once all of this thread's earlier cp.async copies have completed; the
// barrier's expected count already includes it (.noinc).
__device__ __forceinline__ void cp_async_arrive_noinc(unsigned bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}
template <int kRegs> __device__ __forceinline__ void setmaxnreg_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs)); }
template <int kRegs> __device__ __forceinline__ void setmaxnreg_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs)); }

// Shared-memory matrix descriptor for a K-major tile stored as rows of 128 bytes with the 128-byte
// swizzle (16-byte chunk c of row r sits at chunk c ^ (r % 8)); 8-row groups are 1024 bytes apart.
__device__ __forceinline__ unsigned long long smem_desc(unsigned addr) {
  unsigned long long d = 0;
  d |= (unsigned long long)((addr & 0x3FFFF) >> 4);   // start address
  d |= (unsigned long long)1 << 16;                   // leading byte offset (unused with this swizzle)
  d |= (unsigned long long)(1024 >> 4) << 32;         // stride byte offset: next 8-row group
  d |= (unsigned long long)1 << 62;                   // 128-byte swizzle
  return d;
}
// One warpgroup-wide wgmma: D[64 x 256] (fp32, 128 registers per thread) += A[64 x 16] * B[16 x 256], both
// operands K-major in shared memory, described by 128-byte-swizzle descriptors.
__device__ __forceinline__ void wgmma_m64n256k16(float *d, unsigned long long desc_a, unsigned long long desc_b) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, "
      "%128, %129, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(1));
}

// Tile t -> (row tile, column tile): groups of kGroupM row tiles, row tile fastest inside a group, so the
// CTAs working at the same time share a few A row blocks and a few B column blocks in L2.
__device__ __forceinline__ void tile_coords(int t, int mt, int nt, int &m_tile, int &n_tile) {
  const int group = t / (kGroupM * nt);
  const int first_m = group * kGroupM;
  const int group_m = min(mt - first_m, kGroupM);
  const int local = t - group * (kGroupM * nt);
  m_tile = first_m + local % group_m;
  n_tile = local / group_m;
}

// Accumulator layout of m64nNk16 (per warp w of the warpgroup): for column block j (8 columns),
// acc[4j + 0, 1] sit at row 16w + lane/4, columns 8j + 2(lane%4) + {0, 1}; acc[4j + 2, 3] at row + 8.
template <int kEpilogue> // 0: store, 1: + bias, 2: gelu(bf16(+ bias))
__device__ __forceinline__ void gemm_persistent(const __nv_bfloat16 *__restrict__ A, const __nv_bfloat16 *__restrict__ B,
                                                const __nv_bfloat16 *__restrict__ bias, __nv_bfloat16 *__restrict__ C,
                                                int M, int N, int K) {
  extern __shared__ unsigned char gemm_smem[];
  __shared__ alignas(8) unsigned long long bars[2 * kStages]; // full[0..3], empty[0..3]
  const unsigned ring = (smem_u32(gemm_smem) + 1023u) & ~1023u;
  const unsigned full0 = smem_u32(&bars[0]), empty0 = smem_u32(&bars[kStages]);
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(full0 + 8 * s, 128);  // one cp.async-tracked arrival per producer thread
      mbar_init(empty0 + 8 * s, 256); // one arrival per consumer thread
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  const int mt = (M + kBM - 1) / kBM, nt = N / kBN, tiles = mt * nt;
  const int KT = K / kBK;
  const int warpgroup = threadIdx.x / 128;

  if (warpgroup == 0) {
    // ---- producer ----
    setmaxnreg_dec<40>();
    const int tid = threadIdx.x;        // 0..127
    const int r = tid >> 3, chunk = tid & 7; // rows r + 16 i, 16-byte chunk `chunk` of each 128-byte row
    const unsigned swz = (unsigned)((chunk ^ (r & 7)) << 4); // (r + 16 i) & 7 == r & 7
    unsigned it = 0;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
      int m_tile, n_tile;
      tile_coords(t, mt, nt, m_tile, n_tile);
      const int m0 = m_tile * kBM, n0 = n_tile * kBN;
      const __nv_bfloat16 *a_src[kBM / 16];
      bool a_ok[kBM / 16];
#pragma unroll
      for (int i = 0; i < kBM / 16; ++i) {
        a_ok[i] = m0 + r + 16 * i < M;
        a_src[i] = a_ok[i] ? A + (long long)(m0 + r + 16 * i) * K + chunk * 8 : A;
      }
      const __nv_bfloat16 *b_src = B + (long long)(n0 + r) * K + chunk * 8;
      for (int kt = 0; kt < KT; ++kt, ++it) {
        const unsigned s = it % kStages;
        if (it >= (unsigned)kStages) mbar_wait(empty0 + 8 * s, ((it / kStages) - 1) & 1);
        const unsigned slot = ring + s * kStageBytes;
        const int k0 = kt * kBK;
#pragma unroll
        for (int i = 0; i < kBM / 16; ++i) // 8 chunks of 16 bytes per thread
          cp_async_16(slot + (r + 16 * i) * 128 + swz, a_ok[i] ? a_src[i] + k0 : A, a_ok[i]);
        const unsigned slot_b = slot + kTileABytes;
#pragma unroll
        for (int i = 0; i < kBN / 16; ++i) // 16 chunks of 16 bytes per thread (N % 256 == 0: all valid)
          cp_async_16(slot_b + (r + 16 * i) * 128 + swz, b_src + (long long)(16 * i) * K + k0, true);
        cp_async_arrive_noinc(full0 + 8 * s);
      }
    }
    // Drain this thread's last copies before it exits (their full[] arrivals still fire).
    asm volatile("cp.async.wait_all;\n" ::: "memory");
  } else {
    // ---- consumers ----
    setmaxnreg_inc<232>();
    const int c = warpgroup - 1;                   // 0 or 1: rows 64c .. 64c + 63 of the tile
    const int ct = threadIdx.x - 128;              // 0..255
    const int warp = ct / 32, lane = ct % 32;      // warp 0..7 (warp / 4 == c)
    float acc[128];
    unsigned it = 0;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
      int m_tile, n_tile;
      tile_coords(t, mt, nt, m_tile, n_tile);
      const int m0 = m_tile * kBM, n0 = n_tile * kBN;
#pragma unroll
      for (int i = 0; i < 128; ++i) acc[i] = 0.0f;
      for (int kt = 0; kt < KT; ++kt, ++it) {
        const unsigned s = it % kStages;
        mbar_wait(full0 + 8 * s, (it / kStages) & 1); // every chunk of step `it` has landed
        fence_proxy_async();                          // the cp.async (generic proxy) data, seen by wgmma
        const unsigned slot = ring + s * kStageBytes;
        const unsigned a_base = slot + c * 64 * 128;  // this warpgroup's 64 rows (8 KiB, 1024-aligned)
        const unsigned b_base = slot + kTileABytes;
        fence_accumulators(acc);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kBK / 16; ++kk) // 16 elements = 32 bytes along the swizzled row
          wgmma_m64n256k16(acc, smem_desc(a_base + kk * 32), smem_desc(b_base + kk * 32));
        wgmma_commit();
        wgmma_wait<1>(); // step it-1 is complete; step it may still run
        fence_accumulators(acc);
        if (kt > 0) mbar_arrive(empty0 + 8 * ((it - 1) % kStages)); // its slot may be refilled
      }
      wgmma_wait<0>();
      fence_accumulators(acc);
      mbar_arrive(empty0 + 8 * ((it - 1) % kStages)); // the tile's last slot

      const int row0 = m0 + warp * 16 + lane / 4; // warp / 4 == c: rows 64c + 16 (warp % 4) + lane / 4
#pragma unroll
      for (int j = 0; j < 32; ++j) {
        const int col = n0 + j * 8 + (lane % 4) * 2;
        float b0 = 0.0f, b1 = 0.0f;
        if (kEpilogue >= 1) {
          const __nv_bfloat162 bb = *reinterpret_cast<const __nv_bfloat162 *>(bias + col);
          b0 = __bfloat162float(bb.x);
          b1 = __bfloat162float(bb.y);
        }
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int row = row0 + half * 8;
          float v0 = acc[4 * j + 2 * half] + b0, v1 = acc[4 * j + 2 * half + 1] + b1;
          __nv_bfloat162 out;
          if (kEpilogue == 2) {
            // The linear's output is rounded to bf16 first, then GELU (erf form) runs in fp32 on it.
            v0 = __bfloat162float(__float2bfloat16_rn(v0));
            v1 = __bfloat162float(__float2bfloat16_rn(v1));
            v0 = 0.5f * v0 * (1.0f + erff(v0 * 0.70710678118654752f));
            v1 = 0.5f * v1 * (1.0f + erff(v1 * 0.70710678118654752f));
          }
          out.x = __float2bfloat16_rn(v0);
          out.y = __float2bfloat16_rn(v1);
          if (row < M) *reinterpret_cast<__nv_bfloat162 *>(C + (long long)row * N + col) = out;
        }
      }
    }
  }
}

extern "C" __global__ void __launch_bounds__(kGemmThreads, 1)
fc1_gelu(const __nv_bfloat16 *__restrict__ xn, const __nv_bfloat16 *__restrict__ w1,
         const __nv_bfloat16 *__restrict__ b1, __nv_bfloat16 *__restrict__ g, int M, int N, int K) {
  gemm_persistent<2>(xn, w1, b1, g, M, N, K);
}

extern "C" __global__ void __launch_bounds__(kGemmThreads, 1)
fc2_bias(const __nv_bfloat16 *__restrict__ g, const __nv_bfloat16 *__restrict__ w2,
         const __nv_bfloat16 *__restrict__ b2, __nv_bfloat16 *__restrict__ out, int M, int N, int K) {
  gemm_persistent<1>(g, w2, b2, out, M, N, K);
}

// The GEMM grids are 132 persistent CTAs (the H100/H200 SM count; one 195 KiB CTA fits per SM): fc1 has
// 64 x 24 = 1536 tiles, fc2 64 x 14 = 896. Fewer SMs would only queue the extra CTAs.
/* mkb:plan
scratch xn bf16[num_patches * hidden_size]
scratch g bf16[num_patches / 4 * hidden_size_expanded]
launch layernorm_rows grid(ceil_div(num_patches, 8)) block(256)
  args(hidden, ln_weight, ln_bias, xn, i32(num_patches), f32(eps))
launch fc1_gelu grid(min(132, ceil_div(num_patches / 4, 128) * (hidden_size_expanded / 256))) block(384) shared(4 * 49152 + 1024)
  args(xn, fc1_weight, fc1_bias, g, i32(num_patches / 4), i32(hidden_size_expanded), i32(hidden_size_expanded))
launch fc2_bias grid(min(132, ceil_div(num_patches / 4, 128) * (out_hidden_size / 256))) block(384) shared(4 * 49152 + 1024)
  args(g, fc2_weight, fc2_bias, output, i32(num_patches / 4), i32(out_hidden_size), i32(hidden_size_expanded))
*/
