// SwiGLU MLP backward (Llama 3.1 8B shapes, 4096 tokens) with Hopper wgmma GEMMs and fused epilogues.
//
// Every product runs in one GEMM kernel template: C[M, N] = A[M, K] . B[N, K]^T, bf16 operands, fp32
// accumulation, 128 x 256 x 64 tiles, a 4-stage cp.async pipeline into 128-byte-swizzled shared tiles,
// two consumer warpgroups each issuing wgmma.m64n256k16 (one wgmma group kept in flight).
// Each operand is read straight from its row-major tensor, either K-major (K contiguous: the tile is
// stored as rows of 64 K values, 128 bytes) or MN-major (M or N contiguous: the tile is stored as
// 64-wide MN blocks of 64 K rows of 128 bytes, LBO = 8192 between MN blocks, SBO = 1024 between 8-row
// K groups, and the wgmma transpose bit set). So nothing is transposed in memory.
//   1. dh = bf16(dy . w_down)                        A = dy (K-major), B[n=i, k=h] = w_down (N-major)
//   2. gate/up GEMM, the B tile = 128 w_gate rows + the same 128 w_up rows (both K-major); the epilogue
//      applies the eager rounding points: g, u, a = silu(g), h = a u, da = dh u, du = dh a,
//      dg = silu'(g) da; writes h [T, I] and dgu [T, 2I] = (dg | du)
//   3. dw_down = bf16(dy^T . h)                      A[m=h, k=t] = dy (M-major), B[n=i, k=t] = h (N-major)
//   4. [dw_gate; dw_up] = bf16(dgu^T . x)            A[m=j, k=t] = dgu (M-major), B[n=h, k=t] = x (N-major)
//      tiles rasterized N-fastest so that a wave shares its A tiles (x, 32 MB, stays in L2)
//   5. dx = bf16([dg | du] . [w_gate; w_up])         A = dgu (K-major, K = 2I: both contributions in one
//      fp32 sum), B[n=h, k=j] = w_gate rows j < I, w_up rows j - I otherwise (N-major)
#include <cuda_bf16.h>

constexpr int kT = 4096, kH = 4096, kI = 14336;
constexpr int BM = 128, BN = 256, BK = 64, STAGES = 4, THREADS = 256;
constexpr int A_BYTES = BM * BK * 2, B_BYTES = BN * BK * 2, STAGE_BYTES = A_BYTES + B_BYTES; // 16K + 32K
constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + 1024;                                     // + alignment
static_assert(SMEM_BYTES == 197632, "plan shared() size");
static_assert(kT % BM == 0 && kH % BM == 0 && (2 * kI) % BM == 0 && kI % BM == 0, "M tiles");
static_assert(kI % BN == 0 && kH % BN == 0 && kI % (BN / 2) == 0, "N tiles");
static_assert(kH % BK == 0 && kT % BK == 0 && (2 * kI) % BK == 0 && kI % BK == 0, "K tiles");

typedef __nv_bfloat16 bf16;

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void cp_async16(unsigned dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// Shared-memory matrix descriptor, 128-byte swizzle, stride byte offset 1024 (8-row groups).
// K-major: the leading byte offset is unused (1). MN-major: LBO = bytes between 64-element MN blocks.
__device__ __forceinline__ unsigned long long make_desc(unsigned addr, unsigned lbo) {
  unsigned long long d = 0;
  d |= (unsigned long long)((addr & 0x3FFFF) >> 4);
  d |= (unsigned long long)((lbo & 0x3FFFF) >> 4) << 16; // leading byte offset
  d |= (unsigned long long)(1024 >> 4) << 32;            // stride byte offset
  d |= (unsigned long long)1 << 62;                      // 128-byte swizzle
  return d;
}
// TA / TB: 0 = K-major operand, 1 = MN-major (transposed) operand in shared memory.
template <int TA, int TB>
__device__ __forceinline__ void wgmma_m64n256k16(float *d, unsigned long long da, unsigned long long db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, %128, %129, p, 1, 1, %130, %131;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(da), "l"(db), "n"(TA), "n"(TB));
}
__device__ __forceinline__ void acc_fence(float *d) {
  asm volatile("" : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127]) :: "memory");
}

enum { EPI_STORE = 0, EPI_SWIGLU = 1, EPI_DWGU = 2 };

struct epi_args {
  bf16 *c;        // EPI_STORE: C [M, ldc]; EPI_DWGU: dw_gate
  bf16 *c2;       // EPI_DWGU: dw_up
  long long ldc;
  const bf16 *dh; // EPI_SWIGLU
  bf16 *h, *dgu;  // EPI_SWIGLU
};

__device__ __forceinline__ float rb(float v) { return __bfloat162float(__float2bfloat16_rn(v)); }

// Tile (m0, n0) of C = A . B^T.
//   A_MN = false: A[m, k] = a[m * lda + k];  A_MN = true: A[m, k] = a[k * lda + m].
//   B_MN = false: B[n, k] = b0[n * ldb + k], or for DUAL_B rows n0/2.. of b0 (tile rows < 128) and of b1;
//   B_MN = true:  B[n, k] = b0[k * ldb + n] for k < ksplit, b1[(k - ksplit) * ldb + n] otherwise.
//   NFAST: blockIdx.x indexes N tiles, blockIdx.y M tiles (else the reverse).
// Shared tile layouts (byte offsets inside a stage's A or B region, before/after the 128B swizzle that
// XORs the 16-byte chunk index, bits 4..6, with bits 7..9):
//   K-major:  row r (M or N), k:   r * 128 + ((k / 8) ^ (r % 8)) * 16 + (k % 8) * 2
//   MN-major: r, k: (r / 64) * 8192 + k * 128 + (((r % 64) / 8) ^ (k % 8)) * 16 + (r % 8) * 2
// Warpgroup wg owns rows 64 wg.. of the A tile: at byte 8192 wg in both layouts.
template <int EPI, bool A_MN, bool B_MN, bool DUAL_B, bool NFAST>
__device__ __forceinline__ void gemm_tile(const bf16 *__restrict__ a, int lda, const bf16 *__restrict__ b0,
                                          const bf16 *__restrict__ b1, int ldb, int ksplit, int K,
                                          const epi_args &ep) {
  extern __shared__ unsigned char smem_raw[];
  const unsigned smem0 = (smem_u32(smem_raw) + 1023u) & ~1023u;
  const int tid = threadIdx.x;
  const int mt = NFAST ? blockIdx.y : blockIdx.x;
  const int ny = NFAST ? blockIdx.x : blockIdx.y;
  const int m0 = mt * BM;
  const int KT = K / BK;

  // K-major copies: thread copies 16-byte chunk (tid & 7) of rows (tid >> 3) + 32 i.
  const int crow = tid >> 3, cch = tid & 7;
  const unsigned cdst = (unsigned)(crow * 128 + ((cch ^ (crow & 7)) * 16));
  // MN-major A copies: chunk (tid & 15) (8 M values) of K rows (tid >> 4) + 16 i, i < 4.
  const int ak = tid >> 4, amc = tid & 15;
  const unsigned adst_mn = (unsigned)((amc >> 3) * 8192 + ak * 128 + (((amc & 7) ^ (ak & 7)) * 16));
  // MN-major B copies: chunk (tid & 31) (8 N values) of K rows (tid >> 5) + 8 i, i < 8.
  const int bk = tid >> 5, bnc = tid & 31;
  const unsigned bdst_mn = (unsigned)((bnc >> 3) * 8192 + bk * 128 + (((bnc & 7) ^ (bk & 7)) * 16));

  auto b_row = [&](int r) -> const bf16 * {
    if (DUAL_B) return (r < 128 ? b0 + (long long)(ny * 128 + r) * ldb : b1 + (long long)(ny * 128 + r - 128) * ldb);
    return b0 + (long long)(ny * BN + r) * ldb;
  };

  auto load_stage = [&](int slot, int kt) {
    const unsigned sa = smem0 + slot * STAGE_BYTES, sb = sa + A_BYTES;
    const int kg = kt * BK;
    if (A_MN) {
      const bf16 *src = a + (long long)(kg + ak) * lda + m0 + amc * 8;
#pragma unroll
      for (int i = 0; i < 4; ++i) cp_async16(sa + adst_mn + i * 16 * 128, src + (long long)i * 16 * lda);
    } else {
      const bf16 *src = a + (long long)(m0 + crow) * lda + kg + cch * 8;
#pragma unroll
      for (int i = 0; i < BM / 32; ++i) cp_async16(sa + cdst + i * 32 * 128, src + (long long)i * 32 * lda);
    }
    if (B_MN) {
      const bf16 *bb = kg < ksplit ? b0 + (long long)kg * ldb : b1 + (long long)(kg - ksplit) * ldb;
      const bf16 *src = bb + (long long)bk * ldb + ny * BN + bnc * 8;
#pragma unroll
      for (int i = 0; i < 8; ++i) cp_async16(sb + bdst_mn + i * 8 * 128, src + (long long)i * 8 * ldb);
    } else {
#pragma unroll
      for (int i = 0; i < BN / 32; ++i) cp_async16(sb + cdst + i * 32 * 128, b_row(crow + i * 32) + cch * 8 + kg);
    }
  };

  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.0f;

  const int wg = tid >> 7;
#pragma unroll
  for (int s = 0; s < STAGES - 2; ++s) {
    if (s < KT) load_stage(s, s);
    cp_async_commit();
  }
  // K step of one wgmma (16): 32 bytes along a K-major row, two 8-row K groups (2048 bytes) MN-major.
  constexpr unsigned A_KSTEP = A_MN ? 2048u : 32u, B_KSTEP = B_MN ? 2048u : 32u;
  constexpr unsigned A_LBO = A_MN ? 8192u : 16u, B_LBO = B_MN ? 8192u : 16u;
  for (int kt = 0; kt < KT; ++kt) {
    cp_async_wait<STAGES - 3>();  // stage kt has landed (this thread's copies)
    fence_proxy_async();          // make them visible to the tensor-core (async) proxy
    __syncthreads();              // everyone's copies; and wgmma kt-2 finished in every warp
    {
      const int next = kt + STAGES - 2;  // into the slot read by wgmma kt-2, which has completed
      if (next < KT) load_stage(next % STAGES, next);
      cp_async_commit();
    }
    const unsigned sa = smem0 + (kt % STAGES) * STAGE_BYTES + wg * 8192, sb = smem0 + (kt % STAGES) * STAGE_BYTES + A_BYTES;
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk)
      wgmma_m64n256k16<A_MN ? 1 : 0, B_MN ? 1 : 0>(d, make_desc(sa + kk * A_KSTEP, A_LBO), make_desc(sb + kk * B_KSTEP, B_LBO));
    wgmma_commit();
    wgmma_wait<1>();
    acc_fence(d);
  }
  wgmma_wait<0>();
  acc_fence(d);
  cp_async_wait<0>();

  // Accumulator layout: d[i], i = 4 jb + r: row 64 wg + 16 warp + lane / 4 + 8 (r / 2),
  // column 8 jb + 2 (lane % 4) + (r % 2).
  const int lane = tid & 31, warp = (tid >> 5) & 3;
  const int row_base = m0 + wg * 64 + warp * 16 + (lane >> 2);
  const int col_base = 2 * (lane & 3);
  if (EPI == EPI_STORE || EPI == EPI_DWGU) {
    bf16 *dst = ep.c;
    int mrow = row_base;
    if (EPI == EPI_DWGU && m0 >= kI) { dst = ep.c2; mrow -= kI; }  // an M tile never straddles kI
#pragma unroll
    for (int jb = 0; jb < 32; ++jb)
#pragma unroll
      for (int hr = 0; hr < 2; ++hr) {
        const int m = mrow + hr * 8;
        const int n = ny * BN + jb * 8 + col_base;
        *reinterpret_cast<__nv_bfloat162 *>(dst + (long long)m * ep.ldc + n) =
            __floats2bfloat162_rn(d[jb * 4 + hr * 2], d[jb * 4 + hr * 2 + 1]);
      }
  } else {
    // gate columns jb < 16 pair with up columns jb + 16 (same thread, d[i] and d[i + 64])
#pragma unroll
    for (int jb = 0; jb < 16; ++jb)
#pragma unroll
      for (int hr = 0; hr < 2; ++hr) {
        const int t = row_base + hr * 8;
        const int j = ny * 128 + jb * 8 + col_base;
        const __nv_bfloat162 dh2 = *reinterpret_cast<const __nv_bfloat162 *>(ep.dh + (long long)t * kI + j);
        float dgv[2], duv[2], hv[2];
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float g = rb(d[jb * 4 + hr * 2 + e]);
          const float u = rb(d[64 + jb * 4 + hr * 2 + e]);
          const float dh = e == 0 ? __low2float(dh2) : __high2float(dh2);
          const float s = 1.0f / (1.0f + expf(-g));
          const float av = rb(g / (1.0f + expf(-g)));
          hv[e] = rb(av * u);
          const float da = rb(dh * u);
          duv[e] = rb(dh * av);
          dgv[e] = rb(da * (s * (1.0f + g * (1.0f - s))));
        }
        *reinterpret_cast<__nv_bfloat162 *>(ep.h + (long long)t * kI + j) = __floats2bfloat162_rn(hv[0], hv[1]);
        *reinterpret_cast<__nv_bfloat162 *>(ep.dgu + (long long)t * (2 * kI) + j) = __floats2bfloat162_rn(dgv[0], dgv[1]);
        *reinterpret_cast<__nv_bfloat162 *>(ep.dgu + (long long)t * (2 * kI) + kI + j) = __floats2bfloat162_rn(duv[0], duv[1]);
      }
  }
}

// dh = bf16(dy . w_down): A = dy [T, H] K-major, B[n, k] = w_down[k, n] (N-major, ldb = I)
extern "C" __global__ void __launch_bounds__(THREADS, 1)
gemm_dh(const bf16 *__restrict__ dy, const bf16 *__restrict__ w_down, bf16 *__restrict__ dh) {
  epi_args ep{};
  ep.c = dh;
  ep.ldc = kI;
  gemm_tile<EPI_STORE, false, true, false, false>(dy, kH, w_down, w_down, kI, 1 << 30, kH, ep);
}

// x . [w_gate; w_up]^T with the SwiGLU forward and backward in the epilogue
extern "C" __global__ void __launch_bounds__(THREADS, 1)
gemm_gate_up_swiglu(const bf16 *__restrict__ x, const bf16 *__restrict__ w_gate, const bf16 *__restrict__ w_up,
                    const bf16 *__restrict__ dh, bf16 *__restrict__ h, bf16 *__restrict__ dgu) {
  epi_args ep{};
  ep.dh = dh;
  ep.h = h;
  ep.dgu = dgu;
  gemm_tile<EPI_SWIGLU, false, false, true, false>(x, kH, w_gate, w_up, kH, 1 << 30, kH, ep);
}

// dw_down = bf16(dy^T . h): A[m, k] = dy[k, m] (M-major, lda = H), B[n, k] = h[k, n] (N-major, ldb = I)
extern "C" __global__ void __launch_bounds__(THREADS, 1)
gemm_dwdown(const bf16 *__restrict__ dy, const bf16 *__restrict__ h, bf16 *__restrict__ dw_down) {
  epi_args ep{};
  ep.c = dw_down;
  ep.ldc = kI;
  gemm_tile<EPI_STORE, true, true, false, false>(dy, kH, h, h, kI, 1 << 30, kT, ep);
}

// [dw_gate; dw_up] = bf16(dgu^T . x): A[m, k] = dgu[k, m] (M-major, lda = 2I), B[n, k] = x[k, n]
// (N-major, ldb = H); rows < I of C go to dw_gate, the rest to dw_up. blockIdx.x = N tile.
extern "C" __global__ void __launch_bounds__(THREADS, 1)
gemm_dwgu(const bf16 *__restrict__ dgu, const bf16 *__restrict__ x, bf16 *__restrict__ dw_gate, bf16 *__restrict__ dw_up) {
  epi_args ep{};
  ep.c = dw_gate;
  ep.c2 = dw_up;
  ep.ldc = kH;
  gemm_tile<EPI_DWGU, true, true, false, true>(dgu, 2 * kI, x, x, kH, 1 << 30, kT, ep);
}

// dx = bf16(dgu . [w_gate; w_up]): A = dgu [T, 2I] K-major, B[n, k] = w_gate[k, n] for k < I, else
// w_up[k - I, n] (N-major, ldb = H); K = 2I
extern "C" __global__ void __launch_bounds__(THREADS, 1)
gemm_dx(const bf16 *__restrict__ dgu, const bf16 *__restrict__ w_gate, const bf16 *__restrict__ w_up, bf16 *__restrict__ dx) {
  epi_args ep{};
  ep.c = dx;
  ep.ldc = kH;
  gemm_tile<EPI_STORE, false, true, false, false>(dgu, 2 * kI, w_gate, w_up, kH, kI, 2 * kI, ep);
}

/* mkb:plan
scratch dh bf16[tokens * intermediate]
scratch h bf16[tokens * intermediate]
scratch dgu bf16[tokens * 2 * intermediate]
launch gemm_dh grid(tokens / 128, intermediate / 256) block(256) shared(197632) args(dy, w_down, dh)
launch gemm_gate_up_swiglu grid(tokens / 128, intermediate / 128) block(256) shared(197632) args(x, w_gate, w_up, dh, h, dgu)
launch gemm_dwdown grid(hidden / 128, intermediate / 256) block(256) shared(197632) args(dy, h, dw_down)
launch gemm_dwgu grid(hidden / 256, 2 * intermediate / 128) block(256) shared(197632) args(dgu, x, dw_gate, dw_up)
launch gemm_dx grid(tokens / 128, hidden / 256) block(256) shared(197632) args(dgu, w_gate, w_up, dx)
*/
