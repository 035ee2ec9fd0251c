// Fused SSD diagonal block: one 256-thread block per (batch, chunk, head), everything in shared memory
// and registers, bf16 tensor cores (mma.sync m16n8k16, fp32 accumulation).
//   1. load C and B of the head's group ([128 x 128] each) and X of the head, transposed ([p][s]);
//   2. G = C B^T on tensor cores (bf16 x bf16 products are exact in fp32; fp32 sums, as the reference);
//   3. M = G * exp(S[l] - S[s]) below and on the diagonal (S: fp32 inclusive prefix sums of a), else 0;
//      M is stored as a pair of bf16 (hi = bf16(M), lo = bf16(M - hi)) so that the second product keeps
//      about 16 bits of M instead of bf16's 8;
//   4. Y = M X = hi X + lo X on tensor cores, k-steps past the diagonal skipped; Y rounded to bf16 once.
// Warps tile each 128 x 128 product as 4 (rows) x 2 (columns) tiles of 32 x 64.
#include <cuda_bf16.h>
typedef unsigned int uint32_t;

constexpr int kLen = 128, kHeads = 32, kGroups = 8, kState = 128, kDim = 128;
constexpr int kPad = 136;  // row pitch in bf16 (272 bytes): fragment loads hit 32 distinct banks
constexpr int kThreads = 256;

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

// acc[mt][nt][4] += A[rows r0 + 16 mt ..][k] * Bt[cols c0 + 8 nt ..][k] over k in [k_begin, k_end), both
// operands row-major in shared memory with k contiguous (A: [row][k], Bt: [col][k]).
__device__ __forceinline__ void warp_gemm(float (&acc)[2][8][4], const __nv_bfloat16 *A, const __nv_bfloat16 *Bt,
                                          int r0, int c0, int k_end) {
  const int lane = threadIdx.x % 32, group = lane / 4, tig = lane % 4;
  for (int k0 = 0; k0 < k_end; k0 += 16) {
    uint32_t a[2][4], b[8][2];
#pragma unroll
    for (int mt = 0; mt < 2; ++mt) {
      const __nv_bfloat16 *row = A + (r0 + mt * 16 + group) * kPad + k0 + tig * 2;
      a[mt][0] = ld32(row);
      a[mt][1] = ld32(row + 8 * kPad);
      a[mt][2] = ld32(row + 8);
      a[mt][3] = ld32(row + 8 * kPad + 8);
    }
#pragma unroll
    for (int nt = 0; nt < 8; ++nt) {
      const __nv_bfloat16 *col = Bt + (c0 + nt * 8 + group) * kPad + k0 + tig * 2;
      b[nt][0] = ld32(col);
      b[nt][1] = ld32(col + 8);
    }
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
      for (int nt = 0; nt < 8; ++nt) mma_bf16(acc[mt][nt], a[mt], b[nt]);
  }
}

extern "C" __global__ void __launch_bounds__(kThreads)
ssd_diag(const __nv_bfloat16 *__restrict__ hidden_states, const __nv_bfloat16 *__restrict__ a_cumsum,
         const __nv_bfloat16 *__restrict__ B, const __nv_bfloat16 *__restrict__ C, __nv_bfloat16 *__restrict__ y_diag,
         int num_chunks) {
  extern __shared__ __align__(16) unsigned char smem[];
  __nv_bfloat16 *sC = reinterpret_cast<__nv_bfloat16 *>(smem);  // C [l][n], later M hi [l][s]
  __nv_bfloat16 *sB = sC + kLen * kPad;                          // B [s][n], later M lo [l][s]
  __nv_bfloat16 *sX = sB + kLen * kPad;                          // X transposed [p][s]
  float *sS = reinterpret_cast<float *>(sX + kDim * kPad);       // inclusive prefix sums of a

  const int h = blockIdx.x, bc = blockIdx.y;
  const int b = bc / num_chunks, c = bc % num_chunks, g = h / (kHeads / kGroups);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, group = lane / 4, tig = lane % 4;

  // 1. loads: rows of C and B (16-byte vectors), X transposed (thread = (s, 8 consecutive p))
  for (int v = tid; v < kLen * kState / 8; v += kThreads) {
    const int row = v / (kState / 8), col = (v % (kState / 8)) * 8;
    const long long at = (((long long)bc * kLen + row) * kGroups + g) * kState + col;
    *reinterpret_cast<uint4 *>(sC + row * kPad + col) = *reinterpret_cast<const uint4 *>(C + at);
    *reinterpret_cast<uint4 *>(sB + row * kPad + col) = *reinterpret_cast<const uint4 *>(B + at);
  }
  for (int v = tid; v < kLen * kDim / 8; v += kThreads) {
    const int s = v % kLen, p0 = (v / kLen) * 8;
    uint4 raw = *reinterpret_cast<const uint4 *>(hidden_states + (((long long)bc * kLen + s) * kHeads + h) * kDim + p0);
    const __nv_bfloat16 *x = reinterpret_cast<const __nv_bfloat16 *>(&raw);
#pragma unroll
    for (int j = 0; j < 8; ++j) sX[(p0 + j) * kPad + s] = x[j];
  }
  if (warp == 0) {  // prefix sums of a over the chunk, fp32, in order: 4 values a lane, then a warp scan
    const __nv_bfloat16 *a = a_cumsum + (((long long)b * kHeads + h) * num_chunks + c) * kLen;
    float v[4], run = 0.0f;
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j] = run = run + __bfloat162float(a[lane * 4 + j]);  // this lane's partial sums
    float prefix = run;
    for (int offset = 1; offset < 32; offset *= 2) {
      const float other = __shfl_up_sync(0xffffffffu, prefix, offset);
      if (lane >= offset) prefix += other;
    }
    float before = __shfl_up_sync(0xffffffffu, prefix, 1);
    if (lane == 0) before = 0.0f;
#pragma unroll
    for (int j = 0; j < 4; ++j) sS[lane * 4 + j] = before + v[j];  // S[l] = a[0] + ... + a[l]
  }
  __syncthreads();

  const int r0 = (warp / 2) * 32, c0 = (warp % 2) * 64;
  float acc[2][8][4];
  // 2. G = C B^T (tiles entirely above the diagonal are skipped: their M is zero)
#pragma unroll
  for (int mt = 0; mt < 2; ++mt)
#pragma unroll
    for (int nt = 0; nt < 8; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mt][nt][e] = 0.0f;
  const bool live = c0 <= r0 + 31;
  if (live) warp_gemm(acc, sC, sB, r0, c0, kState);
  __syncthreads();  // every warp is done reading C and B

  // 3. M = G * exp(S[l] - S[s]) for s <= l, else 0; stored as hi + lo bf16 pairs over C and B
  __nv_bfloat16 *sMh = sC, *sMl = sB;
#pragma unroll
  for (int mt = 0; mt < 2; ++mt) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int l = r0 + mt * 16 + group + half * 8;
      const float sl = sS[l];
#pragma unroll
      for (int nt = 0; nt < 8; ++nt) {
        const int s = c0 + nt * 8 + tig * 2;
        float m0 = s <= l ? acc[mt][nt][half * 2] * expf(sl - sS[s]) : 0.0f;
        float m1 = s + 1 <= l ? acc[mt][nt][half * 2 + 1] * expf(sl - sS[s + 1]) : 0.0f;
        if (!live) m0 = m1 = 0.0f;
        const __nv_bfloat16 h0 = __float2bfloat16_rn(m0), h1 = __float2bfloat16_rn(m1);
        const __nv_bfloat16 l0 = __float2bfloat16_rn(m0 - __bfloat162float(h0));
        const __nv_bfloat16 l1 = __float2bfloat16_rn(m1 - __bfloat162float(h1));
        *reinterpret_cast<uint32_t *>(sMh + l * kPad + s) = pack(h0, h1);
        *reinterpret_cast<uint32_t *>(sMl + l * kPad + s) = pack(l0, l1);
      }
    }
  }
  __syncthreads();

  // 4. Y = (hi + lo) X: rows r0 .. r0 + 31 need s < r0 + 32 only
#pragma unroll
  for (int mt = 0; mt < 2; ++mt)
#pragma unroll
    for (int nt = 0; nt < 8; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mt][nt][e] = 0.0f;
  warp_gemm(acc, sMh, sX, r0, c0, r0 + 32);
  warp_gemm(acc, sMl, sX, r0, c0, r0 + 32);

#pragma unroll
  for (int mt = 0; mt < 2; ++mt)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int l = r0 + mt * 16 + group + half * 8;
      __nv_bfloat16 *out = y_diag + (((long long)bc * kLen + l) * kHeads + h) * kDim;
#pragma unroll
      for (int nt = 0; nt < 8; ++nt) {
        const int p = c0 + nt * 8 + tig * 2;
        *reinterpret_cast<__nv_bfloat162 *>(out + p) =
            __floats2bfloat162_rn(acc[mt][nt][half * 2], acc[mt][nt][half * 2 + 1]);
      }
    }
}

/* mkb:plan
launch ssd_diag grid(num_heads, batch_size * num_chunks) block(256) shared(3 * 128 * 136 * 2 + 128 * 4)
  args(hidden_states, a_cumsum, B, C, y_diag, i32(num_chunks))
*/
