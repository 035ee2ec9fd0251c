// SwiGLU MLP backward (Llama 3.1 8B shapes, 4096 tokens) with Hopper wgmma GEMMs and fused epilogues.
//
// Every product runs in one GEMM kernel: C[M, N] = A[M, K] . B[N, K]^T with both operands K-major bf16,
// fp32 accumulation, 128 x 256 x 64 tiles, a 4-stage cp.async pipeline into 128-byte-swizzled shared
// tiles, and two consumer warpgroups each issuing wgmma.m64n256k16 (one wgmma group kept in flight).
// Operands that are not K-major in the inputs are transposed once by a small kernel (w_down, w_gate,
// w_up, x, dy), or written transposed by the epilogue that produces them (h, dg, du).
//   1. transposes: wdT [I, H], wguT [H, 2I] (w_gate^T | w_up^T), xT [H, T], dyT [H, T]
//   2. dh = bf16(dy . w_down)                                  (A = dy, B = wdT)
//   3. gate/up GEMM, the B tile = 128 w_gate rows + the same 128 w_up rows; the epilogue applies the
//      eager rounding points: g, u, a = silu(g), h = a u, da = dh u, du = dh a, dg = silu'(g) da;
//      writes hT [I, T], dgu [T, 2I] (dg | du) and dguT [2I, T]
//   4. dw_down = bf16(dyT . hT^T)                             (K = tokens)
//   5. [dw_gate; dw_up] = bf16(dguT . xT^T)                   (M = 2I, K = tokens)
//   6. dx = bf16([dg | du] . wguT^T)                           (K = 2I: both contributions in one fp32 sum)
#include <cuda_bf16.h>

constexpr int kT = 4096, kH = 4096, kI = 14336;
constexpr int BM = 128, BN = 256, BK = 64, STAGES = 4, THREADS = 256;
constexpr int A_BYTES = BM * BK * 2, B_BYTES = BN * BK * 2, STAGE_BYTES = A_BYTES + B_BYTES; // 16K + 32K
constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + 1024;                                     // + alignment
static_assert(SMEM_BYTES == 197632, "plan shared() size");
static_assert(kT % BM == 0 && kH % BM == 0 && (2 * kI) % BM == 0 && kI % BM == 0, "M tiles");
static_assert(kI % BN == 0 && kH % BN == 0 && kI % (BN / 2) == 0, "N tiles");
static_assert(kH % BK == 0 && kT % BK == 0 && (2 * kI) % BK == 0, "K tiles");

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

// Shared-memory matrix descriptor: K-major, 128-byte swizzle, 8-row groups 1024 bytes apart.
__device__ __forceinline__ unsigned long long make_desc(unsigned addr) {
  unsigned long long d = 0;
  d |= (unsigned long long)((addr & 0x3FFFF) >> 4);
  d |= (unsigned long long)1 << 16;             // leading byte offset (unused for swizzled K-major)
  d |= (unsigned long long)(1024 >> 4) << 32;   // stride byte offset
  d |= (unsigned long long)1 << 62;             // 128-byte swizzle
  return d;
}
__device__ __forceinline__ void wgmma_m64n256k16(float *d, unsigned long long da, unsigned long long db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, %128, %129, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(da), "l"(db));
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
  bf16 *hT, *dgu, *dguT;
};

__device__ __forceinline__ float rb(float v) { return __bfloat162float(__float2bfloat16_rn(v)); }

// A: rows m0.. of a [M, K]; B: for DUAL_B rows j0..j0+127 of b0 then of b1, else rows n0..n0+255 of b0.
template <int EPI, bool DUAL_B>
__device__ __forceinline__ void gemm_tile(const bf16 *__restrict__ a, const bf16 *__restrict__ b0,
                                          const bf16 *__restrict__ b1, int K, const epi_args &ep) {
  extern __shared__ unsigned char smem_raw[];
  const unsigned smem0 = (smem_u32(smem_raw) + 1023u) & ~1023u;
  const int tid = threadIdx.x;
  const int m0 = blockIdx.x * BM;
  const int ny = blockIdx.y;
  const int KT = K / BK;

  // Each thread copies chunk c = tid & 7 of rows (tid >> 3) + 32 i; the swizzle depends on row & 7 only.
  const int crow = tid >> 3, cch = tid & 7;
  const unsigned cdst = (unsigned)(crow * 128 + ((cch ^ (crow & 7)) * 16));
  const bf16 *a_src = a + (long long)(m0 + crow) * K + cch * 8;
  auto b_row = [&](int r) -> const bf16 * {
    if (DUAL_B) return (r < 128 ? b0 + (long long)(ny * 128 + r) * K : b1 + (long long)(ny * 128 + r - 128) * K);
    return b0 + (long long)(ny * BN + r) * K;
  };

  auto load_stage = [&](int slot, int kt) {
    const unsigned sa = smem0 + slot * STAGE_BYTES, sb = sa + A_BYTES;
    const long long koff = (long long)kt * BK;
#pragma unroll
    for (int i = 0; i < BM / 32; ++i) cp_async16(sa + cdst + i * 32 * 128, a_src + (long long)i * 32 * K + koff);
#pragma unroll
    for (int i = 0; i < BN / 32; ++i) cp_async16(sb + cdst + i * 32 * 128, b_row(crow + i * 32) + cch * 8 + koff);
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
  for (int kt = 0; kt < KT; ++kt) {
    cp_async_wait<STAGES - 3>();  // stage kt has landed (this thread's copies)
    fence_proxy_async();          // make them visible to the tensor-core (async) proxy
    __syncthreads();              // everyone's copies; and wgmma kt-2 finished in every warp
    {
      const int next = kt + STAGES - 2;  // into the slot read by wgmma kt-2, which has completed
      if (next < KT) load_stage(next % STAGES, next);
      cp_async_commit();
    }
    const unsigned sa = smem0 + (kt % STAGES) * STAGE_BYTES + wg * 64 * 128, sb = smem0 + (kt % STAGES) * STAGE_BYTES + A_BYTES;
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) wgmma_m64n256k16(d, make_desc(sa + kk * 32), make_desc(sb + kk * 32));
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
#pragma unroll
    for (int jb = 0; jb < 32; ++jb)
#pragma unroll
      for (int hr = 0; hr < 2; ++hr) {
        int m = row_base + hr * 8;
        const int n = ny * BN + jb * 8 + col_base;
        bf16 *dst = ep.c;
        if (EPI == EPI_DWGU && m >= kI) { dst = ep.c2; m -= kI; }
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
        float dgv[2], duv[2];
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float g = rb(d[jb * 4 + hr * 2 + e]);
          const float u = rb(d[64 + jb * 4 + hr * 2 + e]);
          const float dh = e == 0 ? __low2float(dh2) : __high2float(dh2);
          const float s = 1.0f / (1.0f + expf(-g));
          const float av = rb(g / (1.0f + expf(-g)));
          const float hv = rb(av * u);
          const float da = rb(dh * u);
          duv[e] = rb(dh * av);
          dgv[e] = rb(da * (s * (1.0f + g * (1.0f - s))));
          ep.hT[(long long)(j + e) * kT + t] = __float2bfloat16_rn(hv);
          ep.dguT[(long long)(j + e) * kT + t] = __float2bfloat16_rn(dgv[e]);
          ep.dguT[(long long)(kI + j + e) * kT + t] = __float2bfloat16_rn(duv[e]);
        }
        *reinterpret_cast<__nv_bfloat162 *>(ep.dgu + (long long)t * (2 * kI) + j) = __floats2bfloat162_rn(dgv[0], dgv[1]);
        *reinterpret_cast<__nv_bfloat162 *>(ep.dgu + (long long)t * (2 * kI) + kI + j) = __floats2bfloat162_rn(duv[0], duv[1]);
      }
  }
}

// C = bf16(A . B^T), C [M, ldc]
extern "C" __global__ void __launch_bounds__(THREADS, 1)
gemm_store(const bf16 *__restrict__ a, const bf16 *__restrict__ b, bf16 *__restrict__ c, int K, int ldc) {
  epi_args ep{};
  ep.c = c;
  ep.ldc = ldc;
  gemm_tile<EPI_STORE, false>(a, b, nullptr, K, ep);
}

// rows < I of C go to dw_gate, the rest to dw_up
extern "C" __global__ void __launch_bounds__(THREADS, 1)
gemm_dwgu(const bf16 *__restrict__ a, const bf16 *__restrict__ b, bf16 *__restrict__ dw_gate, bf16 *__restrict__ dw_up) {
  epi_args ep{};
  ep.c = dw_gate;
  ep.c2 = dw_up;
  ep.ldc = kH;
  gemm_tile<EPI_DWGU, false>(a, b, nullptr, kT, ep);
}

// x . [w_gate; w_up]^T with the SwiGLU forward and backward in the epilogue
extern "C" __global__ void __launch_bounds__(THREADS, 1)
gemm_gate_up_swiglu(const bf16 *__restrict__ x, const bf16 *__restrict__ w_gate, const bf16 *__restrict__ w_up,
                    const bf16 *__restrict__ dh, bf16 *__restrict__ hT, bf16 *__restrict__ dgu, bf16 *__restrict__ dguT) {
  epi_args ep{};
  ep.dh = dh;
  ep.hT = hT;
  ep.dgu = dgu;
  ep.dguT = dguT;
  gemm_tile<EPI_SWIGLU, true>(x, w_gate, w_up, kH, ep);
}

// dst[c * ldd + off + r] = src[r * cols + c]; 64 x 64 tiles, 256 threads. rows, cols multiples of 64.
extern "C" __global__ void __launch_bounds__(256)
transpose(const bf16 *__restrict__ src, bf16 *__restrict__ dst, int cols, long long ldd, long long off) {
  __shared__ bf16 tile[64][66];
  const int r0 = blockIdx.y * 64, c0 = blockIdx.x * 64;
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;  // 32 x 8
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = ty + 8 * i;
    const __nv_bfloat162 v = *reinterpret_cast<const __nv_bfloat162 *>(src + (long long)(r0 + r) * cols + c0 + 2 * tx);
    tile[r][2 * tx] = v.x;
    tile[r][2 * tx + 1] = v.y;
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int c = ty + 8 * i;
    __nv_bfloat162 v;
    v.x = tile[2 * tx][c];
    v.y = tile[2 * tx + 1][c];
    *reinterpret_cast<__nv_bfloat162 *>(dst + (long long)(c0 + c) * ldd + off + r0 + 2 * tx) = v;
  }
}

/* mkb:plan
scratch wdT bf16[intermediate * hidden]
scratch wguT bf16[hidden * 2 * intermediate]
scratch xT bf16[hidden * tokens]
scratch dyT bf16[hidden * tokens]
scratch dh bf16[tokens * intermediate]
scratch hT bf16[intermediate * tokens]
scratch dgu bf16[tokens * 2 * intermediate]
scratch dguT bf16[2 * intermediate * tokens]
launch transpose grid(intermediate / 64, hidden / 64) block(256) args(w_down, wdT, i32(intermediate), i64(hidden), i64(0))
launch transpose grid(hidden / 64, intermediate / 64) block(256) args(w_gate, wguT, i32(hidden), i64(2 * intermediate), i64(0))
launch transpose grid(hidden / 64, intermediate / 64) block(256) args(w_up, wguT, i32(hidden), i64(2 * intermediate), i64(intermediate))
launch transpose grid(hidden / 64, tokens / 64) block(256) args(x, xT, i32(hidden), i64(tokens), i64(0))
launch transpose grid(hidden / 64, tokens / 64) block(256) args(dy, dyT, i32(hidden), i64(tokens), i64(0))
launch gemm_store grid(tokens / 128, intermediate / 256) block(256) shared(197632) args(dy, wdT, dh, i32(hidden), i32(intermediate))
launch gemm_gate_up_swiglu grid(tokens / 128, intermediate / 128) block(256) shared(197632) args(x, w_gate, w_up, dh, hT, dgu, dguT)
launch gemm_store grid(hidden / 128, intermediate / 256) block(256) shared(197632) args(dyT, hT, dw_down, i32(tokens), i32(intermediate))
launch gemm_dwgu grid(2 * intermediate / 128, hidden / 256) block(256) shared(197632) args(dguT, xT, dw_gate, dw_up)
launch gemm_store grid(tokens / 128, hidden / 256) block(256) shared(197632) args(dgu, wguT, dx, i32(2 * intermediate), i32(hidden))
*/
