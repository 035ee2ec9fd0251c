// The Mamba2 mixer in seven launches, every product on bf16 tensor cores (mma.sync m16n8k16, fp32
// accumulation), with eager's bf16 rounding points kept (the projection, the conv output, sigmoid and
// product, each dt step, y, the normalized y, the weight and gate products, the output).
//   gemm_bf16_nt (x2)  C[m][n] = sum_k A[m][k] W[n][k]: 128 x 256 tiles, 8 warps of 64 x 64, k steps of
//                      32 through a 4-stage cp.async ring, ldmatrix fragments, a bf16 epilogue staged
//                      through shared memory for 16-byte stores. The in- and the out-projection.
//   conv_silu          depthwise causal conv (4 taps) + bias, bf16; SiLU as bf16 sigmoid and bf16 product;
//                      token-major [token][20480] (x, B, C).
//   dt_prep            dt = clamp(softplus(dt_raw + dt_bias)) (bf16 steps) and a = -exp(A_log) dt (fp32),
//                      head-major [b][h][t].
//   chunk_scan_states  (head, batch): the state entering chunks 1..3, H_{c+1} = exp(sum a of chunk c) H_c
//                      + sum_t exp(a_cum[last] - a_cum[t]) dt_t x_t B_t^T, kept in registers across the
//                      chunks (from zero; the last chunk's end state is not needed); written as bf16 hi/lo.
//   chunk_output       (64-token block, chunk, batch * head): y = exp(a_cum[t]) (C_t . H_c) + sum_{s<=t}
//                      (C_t . B_s) exp(a_cum[t] - a_cum[s]) dt_s x_s + D x_t, the causal part in 64 x 64
//                      blocks whose masked scores stay in registers as the next product's A operand.
//   gated_norm         (token, group of 2048): rsqrt(mean y^2 + eps), then the bf16 products with the norm
//                      weight and silu(gate).
// Operands that are fp32 in the reference (the decay-weighted x dt, the masked scores, the entering
// states) are split into bf16 hi + lo and multiplied twice (about 16 bits each); B, C, x are bf16 already.
// Head h reads group h % 8 of B and C.
#include <cuda_bf16.h>

typedef unsigned int uint32_t;

constexpr int kB = 8, kS = 512, kH = 256, kP = 64, kN = 256, kG = 8, kL = 128, kC = kS / kL, kK = 4;
constexpr int kI = kH * kP, kGts = kG * kN, kCd = kI + 2 * kGts, kProj = kI + kCd + kH;
constexpr int kPadL = kL + 8;   // pitch (bf16) of rows that hold 128 tokens
constexpr int kPadN = kN + 8;   // pitch of rows that hold 256 state columns
constexpr int kPad64 = 64 + 8;  // pitch of rows that hold 64 values

__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ uint32_t ld32(const __nv_bfloat16 *p) { return *reinterpret_cast<const uint32_t *>(p); }
__device__ __forceinline__ uint32_t pack(__nv_bfloat16 lo, __nv_bfloat16 hi) {
  return (uint32_t)__bfloat16_as_ushort(lo) | ((uint32_t)__bfloat16_as_ushort(hi) << 16);
}
__device__ __forceinline__ void split(float v, __nv_bfloat16 &hi, __nv_bfloat16 &lo) {
  hi = __float2bfloat16_rn(v);
  lo = __float2bfloat16_rn(v - __bfloat162float(hi));
}
__device__ __forceinline__ float bf(float v) { return __bfloat162float(__float2bfloat16_rn(v)); }
// A fragment (16 x 16, rows r.., k k0..) from a row-major [row][k] bf16 array of pitch ld.
__device__ __forceinline__ void load_a(uint32_t (&a)[4], const __nv_bfloat16 *A, int ld, int r, int k0) {
  const int lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  const __nv_bfloat16 *p = A + (r + g) * ld + k0 + q * 2;
  a[0] = ld32(p);
  a[1] = ld32(p + 8 * ld);
  a[2] = ld32(p + 8);
  a[3] = ld32(p + 8 * ld + 8);
}
// B fragment (16 x 8, k k0.., columns c..) from an array holding B^T row-major: [column][k], pitch ld.
__device__ __forceinline__ void load_b(uint32_t (&b)[2], const __nv_bfloat16 *Bt, int ld, int c, int k0) {
  const int lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  const __nv_bfloat16 *p = Bt + (c + g) * ld + k0 + q * 2;
  b[0] = ld32(p);
  b[1] = ld32(p + 8);
}
// Inclusive prefix sums of 128 fp32 values (4 a lane, in order, then across lanes), by one warp.
__device__ __forceinline__ void prefix128(const float *a, float *out) {
  const int lane = threadIdx.x % 32;
  float v[4], run = 0.0f;
#pragma unroll
  for (int j = 0; j < 4; ++j) v[j] = run = run + a[lane * 4 + j];
  float prefix = run;
  for (int offset = 1; offset < 32; offset *= 2) {
    const float other = __shfl_up_sync(0xffffffffu, prefix, offset);
    if (lane >= offset) prefix += other;
  }
  float before = __shfl_up_sync(0xffffffffu, prefix, 1);
  if (lane == 0) before = 0.0f;
#pragma unroll
  for (int j = 0; j < 4; ++j) out[lane * 4 + j] = before + v[j];
}

// ---- the projections: C = A W^T, all bf16, row-major, M % 128 == N % 256 == K % 32 == 0 ------------------
constexpr int kBM = 128, kBN = 256, kBK = 32, kStages = 4, kPitch = kBK + 8;  // 80-byte rows: ldmatrix conflict-free
constexpr int kOutPitch = kBN + 8;

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int n> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(n)); }
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const __nv_bfloat16 *p) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(p);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}

extern "C" __global__ void __launch_bounds__(256, 1)
gemm_bf16_nt(const __nv_bfloat16 *__restrict__ A, const __nv_bfloat16 *__restrict__ W, __nv_bfloat16 *__restrict__ C,
             int M, int N, int K) {
  extern __shared__ __align__(16) unsigned char smem[];
  __nv_bfloat16 *sA = reinterpret_cast<__nv_bfloat16 *>(smem);      // [stage][128][kPitch]
  __nv_bfloat16 *sW = sA + kStages * kBM * kPitch;                   // [stage][256][kPitch]
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane / 4, q = lane % 4;
  const int m0 = blockIdx.x * kBM, n0 = blockIdx.y * kBN;
  const int wm = (warp / 4) * 64, wn = (warp % 4) * 64;
  const __nv_bfloat16 *Ab = A + (long long)m0 * K, *Wb = W + (long long)n0 * K;
  const int KT = K / kBK;

  auto load_stage = [&](int stage, int kt) {
    const int k0 = kt * kBK;
    __nv_bfloat16 *a = sA + stage * kBM * kPitch, *w = sW + stage * kBN * kPitch;
#pragma unroll
    for (int i = 0; i < 2; ++i) {  // 128 rows x 4 chunks of 8
      const int v = tid + i * 256, r = v / 4, kc = (v % 4) * 8;
      cp_async16(a + r * kPitch + kc, Ab + (long long)r * K + k0 + kc);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {  // 256 rows x 4 chunks of 8
      const int v = tid + i * 256, r = v / 4, kc = (v % 4) * 8;
      cp_async16(w + r * kPitch + kc, Wb + (long long)r * K + k0 + kc);
    }
  };

  float acc[4][8][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < KT) load_stage(s, s);
    cp_async_commit();
  }
  for (int kt = 0; kt < KT; ++kt) {
    cp_async_wait<kStages - 2>();
    __syncthreads();  // tile kt landed for every thread; the stage of tile kt - 1 is free
    if (kt + kStages - 1 < KT) load_stage((kt + kStages - 1) % kStages, kt + kStages - 1);
    cp_async_commit();
    const __nv_bfloat16 *a = sA + (kt % kStages) * kBM * kPitch, *w = sW + (kt % kStages) * kBN * kPitch;
#pragma unroll
    for (int kk = 0; kk < kBK; kk += 16) {
      uint32_t af[4][4], bfr[8][2];
#pragma unroll
      for (int mt = 0; mt < 4; ++mt) ldmatrix_x4(af[mt], a + (wm + mt * 16 + lane % 16) * kPitch + kk + (lane / 16) * 8);
#pragma unroll
      for (int p = 0; p < 4; ++p) {  // two n8 tiles a load: (n 0-7 | 8-15) x (k 0-7 | 8-15)
        uint32_t r[4];
        ldmatrix_x4(r, w + (wn + p * 16 + (lane / 16) * 8 + lane % 8) * kPitch + kk + ((lane / 8) % 2) * 8);
        bfr[2 * p][0] = r[0];
        bfr[2 * p][1] = r[1];
        bfr[2 * p + 1][0] = r[2];
        bfr[2 * p + 1][1] = r[3];
      }
#pragma unroll
      for (int mt = 0; mt < 4; ++mt)
#pragma unroll
        for (int nt = 0; nt < 8; ++nt) mma_bf16(acc[mt][nt], af[mt], bfr[nt]);
    }
  }
  cp_async_wait<0>();
  __syncthreads();  // the ring is free: stage the bf16 tile
  __nv_bfloat16 *sC = reinterpret_cast<__nv_bfloat16 *>(smem);  // [128][kOutPitch]
#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
#pragma unroll
    for (int nt = 0; nt < 8; ++nt) {
      const int r = wm + mt * 16 + g, c = wn + nt * 8 + q * 2;
      *reinterpret_cast<__nv_bfloat162 *>(sC + r * kOutPitch + c) = __floats2bfloat162_rn(acc[mt][nt][0], acc[mt][nt][1]);
      *reinterpret_cast<__nv_bfloat162 *>(sC + (r + 8) * kOutPitch + c) = __floats2bfloat162_rn(acc[mt][nt][2], acc[mt][nt][3]);
    }
  __syncthreads();
#pragma unroll 4
  for (int v = tid; v < kBM * kBN / 8; v += 256) {
    const int r = v / (kBN / 8), c = (v % (kBN / 8)) * 8;
    *reinterpret_cast<uint4 *>(C + (long long)(m0 + r) * N + n0 + c) = *reinterpret_cast<const uint4 *>(sC + r * kOutPitch + c);
  }
}

// ---- conv + SiLU: thread = (token, 8 channels) ------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(256)
conv_silu(const __nv_bfloat16 *__restrict__ proj, const __nv_bfloat16 *__restrict__ conv_w,
          const __nv_bfloat16 *__restrict__ conv_b, __nv_bfloat16 *__restrict__ act) {
  const long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= (long long)kB * kS * kCd / 8) return;
  const long long row = v / (kCd / 8);
  const int c0 = (int)(v % (kCd / 8)) * 8, t = (int)(row % kS);
  __nv_bfloat16 wv[8 * kK];
#pragma unroll
  for (int j = 0; j < 4; ++j) *reinterpret_cast<uint4 *>(wv + j * 8) = *reinterpret_cast<const uint4 *>(conv_w + c0 * kK + j * 8);
  uint4 braw = *reinterpret_cast<const uint4 *>(conv_b + c0);
  const __nv_bfloat16 *bv = reinterpret_cast<const __nv_bfloat16 *>(&braw);
  float u[8];
#pragma unroll
  for (int e = 0; e < 8; ++e) u[e] = __bfloat162float(bv[e]);
#pragma unroll
  for (int j = 0; j < kK; ++j) {  // tap j reads token t - 3 + j; zero history before token 0
    if (t - (kK - 1) + j < 0) continue;
    uint4 xraw = *reinterpret_cast<const uint4 *>(proj + (row - (kK - 1) + j) * kProj + kI + c0);
    const __nv_bfloat16 *xv = reinterpret_cast<const __nv_bfloat16 *>(&xraw);
#pragma unroll
    for (int e = 0; e < 8; ++e) u[e] += __bfloat162float(wv[e * kK + j]) * __bfloat162float(xv[e]);
  }
  uint4 out;
  __nv_bfloat16 *ov = reinterpret_cast<__nv_bfloat16 *>(&out);
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    const float ub = bf(u[e]);
    const float sig = bf(1.0f / (1.0f + expf(-ub)));
    ov[e] = __float2bfloat16_rn(ub * sig);
  }
  *reinterpret_cast<uint4 *>(act + row * kCd + c0) = out;
}

// ---- dt and a = -exp(A_log) dt, head-major [b][h][t] -------------------------------------------------------
extern "C" __global__ void __launch_bounds__(256)
dt_prep(const __nv_bfloat16 *__restrict__ proj, const __nv_bfloat16 *__restrict__ dt_bias,
        const __nv_bfloat16 *__restrict__ A_log, float lo, float hi, float *__restrict__ dt_hm, float *__restrict__ a_hm) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= kB * kS * kH) return;
  const int row = e / kH, h = e % kH, b = row / kS, t = row % kS;
  const float s1 = bf(__bfloat162float(proj[(long long)row * kProj + kProj - kH + h]) + __bfloat162float(dt_bias[h]));
  const float s2 = bf(s1 > 20.0f ? s1 : log1pf(expf(s1)));
  const float dt = bf(fminf(fmaxf(s2, lo), hi));
  const long long at = ((long long)b * kH + h) * kS + t;
  dt_hm[at] = dt;
  a_hm[at] = -expf(__bfloat162float(A_log[h])) * dt;
}

// ---- the states entering chunks 1..3 ------------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(256)
chunk_scan_states(const __nv_bfloat16 *__restrict__ act, const float *__restrict__ dt_hm, const float *__restrict__ a_hm,
                  __nv_bfloat16 *__restrict__ enter_hi, __nv_bfloat16 *__restrict__ enter_lo) {
  extern __shared__ __align__(16) unsigned char smem[];
  __nv_bfloat16 *sXh = reinterpret_cast<__nv_bfloat16 *>(smem);  // (w dt x)^T hi: [d][t]
  __nv_bfloat16 *sXl = sXh + kP * kPadL;                          // lo
  __nv_bfloat16 *sBt = sXl + kP * kPadL;                          // B^T: [n][t]
  float *sS = reinterpret_cast<float *>(sBt + kN * kPadL);
  const int h = blockIdx.x, b = blockIdx.y, grp = h % kG;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane / 4, q = lane % 4;
  const int r0 = (warp / 4) * 32, c0 = (warp % 4) * 64;  // d rows (2 m16 tiles), n columns (8 n8 tiles)
  const long long hm = ((long long)b * kH + h) * kS;
  float acc[2][8][4];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

  for (int c = 0; c < kC - 1; ++c) {
    const long long token0 = (long long)b * kS + c * kL;
    __syncthreads();  // the previous chunk's operands are consumed
    if (warp == 0) prefix128(a_hm + hm + c * kL, sS);
    for (int v = tid; v < kL * kN / 8; v += 256) {  // thread: token t, 8 consecutive n
      const int t = v % kL, n0 = (v / kL) * 8;
      uint4 raw = *reinterpret_cast<const uint4 *>(act + (token0 + t) * kCd + kI + grp * kN + n0);
      const __nv_bfloat16 *bv = reinterpret_cast<const __nv_bfloat16 *>(&raw);
#pragma unroll
      for (int j = 0; j < 8; ++j) sBt[(n0 + j) * kPadL + t] = bv[j];
    }
    __syncthreads();  // prefix sums ready
    const float last = sS[kL - 1];
    for (int v = tid; v < kL * kP / 8; v += 256) {  // thread: token t, 8 consecutive d
      const int t = v % kL, d0 = (v / kL) * 8;
      const float w = expf(last - sS[t]) * dt_hm[hm + c * kL + t];
      uint4 raw = *reinterpret_cast<const uint4 *>(act + (token0 + t) * kCd + h * kP + d0);
      const __nv_bfloat16 *x = reinterpret_cast<const __nv_bfloat16 *>(&raw);
#pragma unroll
      for (int j = 0; j < 8; ++j) split(w * __bfloat162float(x[j]), sXh[(d0 + j) * kPadL + t], sXl[(d0 + j) * kPadL + t]);
    }
    const float decay = expf(last);
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][j][e] *= decay;
    __syncthreads();
    for (int k0 = 0; k0 < kL; k0 += 16) {
      uint32_t ah[2][4], al[2][4], bfr[8][2];
#pragma unroll
      for (int mt = 0; mt < 2; ++mt) {
        load_a(ah[mt], sXh, kPadL, r0 + mt * 16, k0);
        load_a(al[mt], sXl, kPadL, r0 + mt * 16, k0);
      }
#pragma unroll
      for (int nt = 0; nt < 8; ++nt) load_b(bfr[nt], sBt, kPadL, c0 + nt * 8, k0);
#pragma unroll
      for (int mt = 0; mt < 2; ++mt)
#pragma unroll
        for (int nt = 0; nt < 8; ++nt) {
          mma_bf16(acc[mt][nt], ah[mt], bfr[nt]);
          mma_bf16(acc[mt][nt], al[mt], bfr[nt]);
        }
    }
    // acc is the state entering chunk c + 1
    const long long state = (((long long)b * (kC - 1) + c) * kH + h) * kP * kN;
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
      for (int nt = 0; nt < 8; ++nt) {
        const int d = r0 + mt * 16 + g, n = c0 + nt * 8 + q * 2;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          __nv_bfloat16 h0, l0, h1, l1;
          split(acc[mt][nt][half * 2], h0, l0);
          split(acc[mt][nt][half * 2 + 1], h1, l1);
          const long long at = state + (d + half * 8) * kN + n;
          *reinterpret_cast<uint32_t *>(enter_hi + at) = pack(h0, h1);
          *reinterpret_cast<uint32_t *>(enter_lo + at) = pack(l0, l1);
        }
      }
  }
}

// ---- y of one 64-token block of a chunk, one head ---------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(128)
chunk_output(const __nv_bfloat16 *__restrict__ act, const float *__restrict__ dt_hm, const float *__restrict__ a_hm,
             const __nv_bfloat16 *__restrict__ D, const __nv_bfloat16 *__restrict__ enter_hi,
             const __nv_bfloat16 *__restrict__ enter_lo, __nv_bfloat16 *__restrict__ y) {
  extern __shared__ __align__(16) unsigned char smem[];
  __nv_bfloat16 *sC = reinterpret_cast<__nv_bfloat16 *>(smem);  // C rows of the block: [t][n]
  __nv_bfloat16 *sR = sC + 64 * kPadN;
  __nv_bfloat16 *sHh = sR, *sHl = sR + kP * kPadN;                // phase 1: entering state hi, lo [d][n]
  __nv_bfloat16 *sB = sR;                                         // phase 2: B rows of a source block [s][n]
  __nv_bfloat16 *sXt = sR + 64 * kPadN;                           //          x^T of the source block [d][s]
  float *sS = reinterpret_cast<float *>(sR + 2 * kP * kPadN);
  float *sDt = sS + kL;
  const int tb = blockIdx.x, c = blockIdx.y, b = blockIdx.z / kH, h = blockIdx.z % kH, grp = h % kG;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane / 4, q = lane % 4;
  const long long token0 = (long long)b * kS + c * kL;
  const long long hm = ((long long)b * kH + h) * kS + c * kL;

  if (warp == 0) prefix128(a_hm + hm, sS);
  sDt[tid] = dt_hm[hm + tid];
  for (int v = tid; v < 64 * kN / 8; v += 128) {
    const int r = v / (kN / 8), col = (v % (kN / 8)) * 8;
    *reinterpret_cast<uint4 *>(sC + r * kPadN + col) =
        *reinterpret_cast<const uint4 *>(act + (token0 + tb * 64 + r) * kCd + kI + kGts + grp * kN + col);
  }
  if (c > 0) {
    const long long state = (((long long)b * (kC - 1) + c - 1) * kH + h) * kP * kN;
    for (int v = tid; v < kP * kN / 8; v += 128) {
      const int r = v / (kN / 8), col = (v % (kN / 8)) * 8;
      *reinterpret_cast<uint4 *>(sHh + r * kPadN + col) = *reinterpret_cast<const uint4 *>(enter_hi + state + r * kN + col);
      *reinterpret_cast<uint4 *>(sHl + r * kPadN + col) = *reinterpret_cast<const uint4 *>(enter_lo + state + r * kN + col);
    }
  }
  __syncthreads();

  const int row = warp * 16;                       // this warp's 16 tokens within the block
  const int ta = tb * 64 + row + g, tb8 = ta + 8;  // chunk-local tokens of the fragment rows
  const float sa = sS[ta], sb8 = sS[tb8];
  float acc[8][4] = {};
  if (c > 0) {  // y_off = (C_t . H_entering) exp(a_cum[t]); chunk 0 starts from a zero state
    for (int k0 = 0; k0 < kN; k0 += 16) {
      uint32_t a[4];
      load_a(a, sC, kPadN, row, k0);
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        uint32_t bh[2], bl[2];
        load_b(bh, sHh, kPadN, j * 8, k0);
        load_b(bl, sHl, kPadN, j * 8, k0);
        mma_bf16(acc[j], a, bh);
        mma_bf16(acc[j], a, bl);
      }
    }
    const float ea = expf(sa), eb = expf(sb8);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      acc[j][0] *= ea; acc[j][1] *= ea;
      acc[j][2] *= eb; acc[j][3] *= eb;
    }
  }

  for (int sblk = 0; sblk <= tb; ++sblk) {
    __syncthreads();  // the region is free
    for (int v = tid; v < 64 * kN / 8; v += 128) {
      const int r = v / (kN / 8), col = (v % (kN / 8)) * 8;
      *reinterpret_cast<uint4 *>(sB + r * kPadN + col) =
          *reinterpret_cast<const uint4 *>(act + (token0 + sblk * 64 + r) * kCd + kI + grp * kN + col);
    }
    for (int v = tid; v < 64 * kP / 8; v += 128) {  // thread: source token s, 8 consecutive d
      const int s = v % 64, d0 = (v / 64) * 8;
      uint4 raw = *reinterpret_cast<const uint4 *>(act + (token0 + sblk * 64 + s) * kCd + h * kP + d0);
      const __nv_bfloat16 *x = reinterpret_cast<const __nv_bfloat16 *>(&raw);
#pragma unroll
      for (int j = 0; j < 8; ++j) sXt[(d0 + j) * kPad64 + s] = x[j];
    }
    __syncthreads();
    float sc[8][4] = {};
    for (int k0 = 0; k0 < kN; k0 += 16) {
      uint32_t a[4];
      load_a(a, sC, kPadN, row, k0);
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        uint32_t bb[2];
        load_b(bb, sB, kPadN, j * 8, k0);
        mma_bf16(sc[j], a, bb);
      }
    }
    // causal decay mask and dt of the source, then the masked scores as A fragments (hi and lo)
    uint32_t mh[4][4], ml[4][4];
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      float m[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int s = sblk * 64 + j * 8 + q * 2 + (e & 1);
        const int t = e < 2 ? ta : tb8;
        m[e] = s <= t ? sc[j][e] * expf((e < 2 ? sa : sb8) - sS[s]) * sDt[s] : 0.0f;
      }
      __nv_bfloat16 h0, l0, h1, l1, h2, l2, h3, l3;
      split(m[0], h0, l0); split(m[1], h1, l1); split(m[2], h2, l2); split(m[3], h3, l3);
      const int kk = j / 2, half = j % 2;  // n8 tile j is the k-half `half` of k16 step kk
      mh[kk][half * 2 + 0] = pack(h0, h1);
      mh[kk][half * 2 + 1] = pack(h2, h3);
      ml[kk][half * 2 + 0] = pack(l0, l1);
      ml[kk][half * 2 + 1] = pack(l2, l3);
    }
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        uint32_t bx[2];
        load_b(bx, sXt, kPad64, j * 8, kk * 16);
        mma_bf16(acc[j], mh[kk], bx);
        mma_bf16(acc[j], ml[kk], bx);
      }
  }

  const float dh = __bfloat162float(D[h]);
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const int d = j * 8 + q * 2;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const long long token = token0 + (half ? tb8 : ta);
      const __nv_bfloat162 x2 = *reinterpret_cast<const __nv_bfloat162 *>(act + token * kCd + h * kP + d);
      const float y0 = acc[j][half * 2] + dh * __low2float(x2);
      const float y1 = acc[j][half * 2 + 1] + dh * __high2float(x2);
      *reinterpret_cast<__nv_bfloat162 *>(y + token * kI + h * kP + d) = __floats2bfloat162_rn(y0, y1);
    }
  }
}

// ---- grouped RMS norm and gate: block = (token, group of 2048), thread = 8 channels ---------------------------
extern "C" __global__ void __launch_bounds__(256)
gated_norm(const __nv_bfloat16 *__restrict__ y, const __nv_bfloat16 *__restrict__ proj,
           const __nv_bfloat16 *__restrict__ norm_w, float eps, __nv_bfloat16 *__restrict__ out) {
  __shared__ float partial[8];
  const long long row = blockIdx.x / kG;
  const int ch = (blockIdx.x % kG) * (kI / kG) + threadIdx.x * 8;
  uint4 yraw = *reinterpret_cast<const uint4 *>(y + row * kI + ch);
  const __nv_bfloat16 *yv = reinterpret_cast<const __nv_bfloat16 *>(&yraw);
  float ss = 0.0f;
#pragma unroll
  for (int e = 0; e < 8; ++e) ss += __bfloat162float(yv[e]) * __bfloat162float(yv[e]);
  for (int o = 16; o > 0; o /= 2) ss += __shfl_xor_sync(0xffffffffu, ss, o);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = ss;
  __syncthreads();
  float total = 0.0f;
#pragma unroll
  for (int w = 0; w < 8; ++w) total += partial[w];
  const float inv = rsqrtf(total / (kI / kG) + eps);
  uint4 zraw = *reinterpret_cast<const uint4 *>(proj + row * kProj + ch);
  uint4 wraw = *reinterpret_cast<const uint4 *>(norm_w + ch);
  const __nv_bfloat16 *zv = reinterpret_cast<const __nv_bfloat16 *>(&zraw);
  const __nv_bfloat16 *wv = reinterpret_cast<const __nv_bfloat16 *>(&wraw);
  uint4 res;
  __nv_bfloat16 *rv = reinterpret_cast<__nv_bfloat16 *>(&res);
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    const float yn = bf(__bfloat162float(yv[e]) * inv);
    const float yw = bf(yn * __bfloat162float(wv[e]));
    const float z = __bfloat162float(zv[e]);
    const float silu = bf(z * bf(1.0f / (1.0f + expf(-z))));
    rv[e] = __float2bfloat16_rn(yw * silu);
  }
  *reinterpret_cast<uint4 *>(out + row * kI + ch) = res;
}

/* mkb:plan
scratch projected bf16[batch_size * seq_len * projection_size]
scratch act bf16[batch_size * seq_len * conv_dim]
scratch dt_hm fp32[batch_size * num_heads * seq_len]
scratch a_hm fp32[batch_size * num_heads * seq_len]
scratch enter_hi bf16[batch_size * (seq_len / chunk_size - 1) * num_heads * head_dim * ssm_state_size]
scratch enter_lo bf16[batch_size * (seq_len / chunk_size - 1) * num_heads * head_dim * ssm_state_size]
scratch y bf16[batch_size * seq_len * intermediate_size]
scratch y_gated bf16[batch_size * seq_len * intermediate_size]
# in-projection: 4096 x 37120 x 8192 (128 x 256 tiles: 32 x 145 blocks); shared: 4 stages of (128 + 256) x 40 bf16
launch gemm_bf16_nt grid(batch_size * seq_len / 128, projection_size / 256) block(256) shared(4 * (128 + 256) * 40 * 2)
  args(hidden_states, in_proj_weight, projected, i32(batch_size * seq_len), i32(projection_size), i32(hidden_size))
launch conv_silu grid(ceil_div(batch_size * seq_len * conv_dim / 8, 256)) block(256) args(projected, conv1d_weight, conv1d_bias, act)
launch dt_prep grid(ceil_div(batch_size * seq_len * num_heads, 256)) block(256)
  args(projected, dt_bias, A_log, f32(time_step_limit_min), f32(time_step_limit_max), dt_hm, a_hm)
launch chunk_scan_states grid(num_heads, batch_size) block(256) shared((2 * 64 + 256) * 136 * 2 + 128 * 4)
  args(act, dt_hm, a_hm, enter_hi, enter_lo)
launch chunk_output grid(chunk_size / 64, seq_len / chunk_size, batch_size * num_heads) block(128)
  shared((64 + 2 * 64) * 264 * 2 + 2 * 128 * 4)
  args(act, dt_hm, a_hm, D, enter_hi, enter_lo, y)
launch gated_norm grid(batch_size * seq_len * n_groups) block(256) args(y, projected, norm_weight, f32(layer_norm_epsilon), y_gated)
# out-projection: 4096 x 8192 x 16384 (32 x 32 blocks)
launch gemm_bf16_nt grid(batch_size * seq_len / 128, hidden_size / 256) block(256) shared(4 * (128 + 256) * 40 * 2)
  args(y_gated, out_proj_weight, output, i32(batch_size * seq_len), i32(hidden_size), i32(intermediate_size))
*/
