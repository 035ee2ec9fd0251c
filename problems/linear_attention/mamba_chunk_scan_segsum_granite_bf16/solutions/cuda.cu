// Chunked SSD scan in three launches, every product on bf16 tensor cores (mma.sync m16n8k16, fp32
// accumulation). Operands that are fp32 in the reference (the decay-weighted x, the decay-masked scores
// and the entering states) are split into two bf16 terms, hi = bf16(v) and lo = bf16(v - hi), and
// multiplied twice: about 16 bits of each survive, against bf16's 8. B, C and x are bf16 already, so
// C B^T is exact up to the fp32 summation.
//   chunk_states   (chunk, head, batch): the chunk's own end state S[d][n] = sum_t w_t x[t][d] B[t][n],
//                  w_t = exp(S_A[last] - S_A[t]) from fp32 prefix sums of A; also the chunk's A sum.
//   chunk_carry    (head, batch): H_0 = initial state; H_{c+1} = exp(sum A of chunk c) H_c + S_c; writes
//                  the state entering each chunk as hi/lo bf16 and the final state (bf16).
//   chunk_output   (64-token block, chunk, batch * head): y = exp(S_A[t]) (C_t . H_c) + sum_{s<=t}
//                  (C_t . B_s) exp(S_A[t] - S_A[s]) x_s + D x_t, the causal part as 64 x 64 blocks in the
//                  style of flash attention: the masked scores stay in registers and become the A
//                  operand of the next product.
#include <cuda_bf16.h>

typedef unsigned int uint32_t;

constexpr int kB = 8, kS = 1024, kH = 16, kP = 64, kN = 256, kL = 256, kC = kS / kL;
constexpr int kPadL = kL + 8;  // pitch (bf16) of rows that hold 256 values
constexpr int kPad64 = 64 + 8; // pitch of rows that hold 64 values

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
// Inclusive prefix sums of 256 fp32 values (8 a lane, in order, then across lanes), by one warp.
__device__ __forceinline__ void prefix256(const __nv_bfloat16 *a, float *out) {
  const int lane = threadIdx.x % 32;
  float v[8], run = 0.0f;
#pragma unroll
  for (int j = 0; j < 8; ++j) v[j] = run = run + __bfloat162float(a[lane * 8 + j]);
  float prefix = run;
  for (int offset = 1; offset < 32; offset *= 2) {
    const float other = __shfl_up_sync(0xffffffffu, prefix, offset);
    if (lane >= offset) prefix += other;
  }
  float before = __shfl_up_sync(0xffffffffu, prefix, 1);
  if (lane == 0) before = 0.0f;
#pragma unroll
  for (int j = 0; j < 8; ++j) out[lane * 8 + j] = before + v[j];
}

// ---- 1. each chunk's own end state ---------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(256)
chunk_states(const __nv_bfloat16 *__restrict__ hidden_states, const __nv_bfloat16 *__restrict__ A,
             const __nv_bfloat16 *__restrict__ B, float *__restrict__ local, float *__restrict__ chunk_sum) {
  extern __shared__ __align__(16) unsigned char smem[];
  __nv_bfloat16 *sXh = reinterpret_cast<__nv_bfloat16 *>(smem);  // (w x)^T hi: [d][t]
  __nv_bfloat16 *sXl = sXh + kP * kPadL;                          // (w x)^T lo
  __nv_bfloat16 *sBt = sXl + kP * kPadL;                          // B^T, one half of n: [n][t]
  float *sS = reinterpret_cast<float *>(sBt + 128 * kPadL);
  const int c = blockIdx.x, h = blockIdx.y, b = blockIdx.z;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane / 4, q = lane % 4;
  const long long token0 = (long long)b * kS + c * kL;

  if (warp == 0) prefix256(A + ((long long)b * kH + h) * kS + c * kL, sS);
  __syncthreads();
  const float last = sS[kL - 1];
  if (tid == 0) chunk_sum[((long long)b * kH + h) * kC + c] = last;
  for (int v = tid; v < kL * kP / 8; v += 256) {  // thread: token t, 8 consecutive d
    const int t = v % kL, d0 = (v / kL) * 8;
    const float w = expf(last - sS[t]);
    uint4 raw = *reinterpret_cast<const uint4 *>(hidden_states + ((token0 + t) * kH + h) * kP + d0);
    const __nv_bfloat16 *x = reinterpret_cast<const __nv_bfloat16 *>(&raw);
#pragma unroll
    for (int j = 0; j < 8; ++j) split(w * __bfloat162float(x[j]), sXh[(d0 + j) * kPadL + t], sXl[(d0 + j) * kPadL + t]);
  }
  const int r0 = (warp / 4) * 32, c0 = (warp % 4) * 32;  // d rows, n columns (within the half)
  for (int half = 0; half < 2; ++half) {
    __syncthreads();  // sBt free; (w x)^T written
    for (int v = tid; v < kL * 128 / 8; v += 256) {  // thread: token t, 8 consecutive n of the half
      const int t = v % kL, n0 = (v / kL) * 8;
      uint4 raw = *reinterpret_cast<const uint4 *>(B + (token0 + t) * kN + half * 128 + n0);
      const __nv_bfloat16 *bv = reinterpret_cast<const __nv_bfloat16 *>(&raw);
#pragma unroll
      for (int j = 0; j < 8; ++j) sBt[(n0 + j) * kPadL + t] = bv[j];
    }
    __syncthreads();
    float acc[2][4][4] = {};
    for (int k0 = 0; k0 < kL; k0 += 16) {
      uint32_t ah[2][4], al[2][4], bf[4][2];
#pragma unroll
      for (int mt = 0; mt < 2; ++mt) {
        load_a(ah[mt], sXh, kPadL, r0 + mt * 16, k0);
        load_a(al[mt], sXl, kPadL, r0 + mt * 16, k0);
      }
#pragma unroll
      for (int nt = 0; nt < 4; ++nt) load_b(bf[nt], sBt, kPadL, c0 + nt * 8, k0);
#pragma unroll
      for (int mt = 0; mt < 2; ++mt)
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
          mma_bf16(acc[mt][nt], ah[mt], bf[nt]);
          mma_bf16(acc[mt][nt], al[mt], bf[nt]);
        }
    }
    float *out = local + (((long long)b * kC + c) * kH + h) * kP * kN;
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
      for (int nt = 0; nt < 4; ++nt) {
        const int d = r0 + mt * 16 + g, n = half * 128 + c0 + nt * 8 + q * 2;
        *reinterpret_cast<float2 *>(out + d * kN + n) = make_float2(acc[mt][nt][0], acc[mt][nt][1]);
        *reinterpret_cast<float2 *>(out + (d + 8) * kN + n) = make_float2(acc[mt][nt][2], acc[mt][nt][3]);
      }
  }
}

// ---- 2. the recurrence across chunks ---------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(256)
chunk_carry(const __nv_bfloat16 *__restrict__ initial_states, const float *__restrict__ local,
            const float *__restrict__ chunk_sum, __nv_bfloat16 *__restrict__ enter_hi, __nv_bfloat16 *__restrict__ enter_lo,
            __nv_bfloat16 *__restrict__ final_state) {
  const int h = blockIdx.x, b = blockIdx.y;
  const long long state = ((long long)b * kH + h) * kP * kN;
  for (int e = threadIdx.x * 4; e < kP * kN; e += 256 * 4) {
    float v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j] = __bfloat162float(initial_states[state + e + j]);
    for (int c = 0; c < kC; ++c) {
      const long long at = (((long long)b * kC + c) * kH + h) * kP * kN + e;
      const float decay = expf(chunk_sum[((long long)b * kH + h) * kC + c]);
      const float4 s = *reinterpret_cast<const float4 *>(local + at);
      const float add[4] = {s.x, s.y, s.z, s.w};
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        __nv_bfloat16 hi, lo;
        split(v[j], hi, lo);
        enter_hi[at + j] = hi;
        enter_lo[at + j] = lo;
        v[j] = decay * v[j] + add[j];
      }
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) final_state[state + e + j] = __float2bfloat16_rn(v[j]);
  }
}

// ---- 3. outputs -----------------------------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(128)
chunk_output(const __nv_bfloat16 *__restrict__ hidden_states, const __nv_bfloat16 *__restrict__ A,
             const __nv_bfloat16 *__restrict__ B, const __nv_bfloat16 *__restrict__ C, const __nv_bfloat16 *__restrict__ D,
             const __nv_bfloat16 *__restrict__ enter_hi, const __nv_bfloat16 *__restrict__ enter_lo,
             __nv_bfloat16 *__restrict__ output) {
  extern __shared__ __align__(16) unsigned char smem[];
  __nv_bfloat16 *sC = reinterpret_cast<__nv_bfloat16 *>(smem);  // C rows of the block: [t][n]
  __nv_bfloat16 *sR = sC + 64 * kPadL;                            // phase 1: entering state hi, lo [d][n]
  __nv_bfloat16 *sHh = sR, *sHl = sR + kP * kPadL;
  __nv_bfloat16 *sB = sR;                                         // phase 2: B rows of a source block [s][n]
  __nv_bfloat16 *sXt = sR + 64 * kPadL;                           //          x^T of the source block [d][s]
  float *sS = reinterpret_cast<float *>(sR + 2 * kP * kPadL);
  const int tb = blockIdx.x, c = blockIdx.y, b = blockIdx.z / kH, h = blockIdx.z % kH;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane / 4, q = lane % 4;
  const long long token0 = (long long)b * kS + c * kL;
  const long long state = (((long long)b * kC + c) * kH + h) * kP * kN;

  if (warp == 0) prefix256(A + ((long long)b * kH + h) * kS + c * kL, sS);
  for (int v = tid; v < 64 * kN / 8; v += 128) {
    const int r = v / (kN / 8), col = (v % (kN / 8)) * 8;
    *reinterpret_cast<uint4 *>(sC + r * kPadL + col) =
        *reinterpret_cast<const uint4 *>(C + (token0 + tb * 64 + r) * kN + col);
  }
  for (int v = tid; v < kP * kN / 8; v += 128) {
    const int r = v / (kN / 8), col = (v % (kN / 8)) * 8;
    *reinterpret_cast<uint4 *>(sHh + r * kPadL + col) = *reinterpret_cast<const uint4 *>(enter_hi + state + r * kN + col);
    *reinterpret_cast<uint4 *>(sHl + r * kPadL + col) = *reinterpret_cast<const uint4 *>(enter_lo + state + r * kN + col);
  }
  __syncthreads();

  const int row = warp * 16;                 // this warp's 16 tokens within the block
  const int ta = tb * 64 + row + g, tb8 = ta + 8;  // chunk-local tokens of the fragment rows
  float acc[8][4] = {};
  // y_off = C_t . H_entering, then scaled by exp(S_A[t])
  for (int k0 = 0; k0 < kN; k0 += 16) {
    uint32_t a[4];
    load_a(a, sC, kPadL, row, k0);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      uint32_t bh[2], bl[2];
      load_b(bh, sHh, kPadL, j * 8, k0);
      load_b(bl, sHl, kPadL, j * 8, k0);
      mma_bf16(acc[j], a, bh);
      mma_bf16(acc[j], a, bl);
    }
  }
  const float sa = sS[ta], sb8 = sS[tb8];
  const float ea = expf(sa), eb = expf(sb8);
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    acc[j][0] *= ea; acc[j][1] *= ea;
    acc[j][2] *= eb; acc[j][3] *= eb;
  }

  for (int sblk = 0; sblk <= tb; ++sblk) {
    __syncthreads();  // the region is free
    for (int v = tid; v < 64 * kN / 8; v += 128) {
      const int r = v / (kN / 8), col = (v % (kN / 8)) * 8;
      *reinterpret_cast<uint4 *>(sB + r * kPadL + col) =
          *reinterpret_cast<const uint4 *>(B + (token0 + sblk * 64 + r) * kN + col);
    }
    for (int v = tid; v < 64 * kP / 8; v += 128) {  // thread: source token s, 8 consecutive d
      const int s = v % 64, d0 = (v / 64) * 8;
      uint4 raw = *reinterpret_cast<const uint4 *>(hidden_states + ((token0 + sblk * 64 + s) * kH + h) * kP + d0);
      const __nv_bfloat16 *x = reinterpret_cast<const __nv_bfloat16 *>(&raw);
#pragma unroll
      for (int j = 0; j < 8; ++j) sXt[(d0 + j) * kPad64 + s] = x[j];
    }
    __syncthreads();
    // scores of the warp's 16 tokens against the block's 64 sources
    float sc[8][4] = {};
    for (int k0 = 0; k0 < kN; k0 += 16) {
      uint32_t a[4];
      load_a(a, sC, kPadL, row, k0);
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        uint32_t bb[2];
        load_b(bb, sB, kPadL, j * 8, k0);
        mma_bf16(sc[j], a, bb);
      }
    }
    // decay mask, then the masked scores as A fragments (hi and lo) over the 64 sources
    uint32_t mh[4][4], ml[4][4];
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      float m[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int s = sblk * 64 + j * 8 + q * 2 + (e & 1);
        const int t = e < 2 ? ta : tb8;
        m[e] = s <= t ? sc[j][e] * expf((e < 2 ? sa : sb8) - sS[s]) : 0.0f;
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
      const __nv_bfloat162 x2 = *reinterpret_cast<const __nv_bfloat162 *>(hidden_states + (token * kH + h) * kP + d);
      const float y0 = acc[j][half * 2] + dh * __low2float(x2);
      const float y1 = acc[j][half * 2 + 1] + dh * __high2float(x2);
      *reinterpret_cast<__nv_bfloat162 *>(output + (token * kH + h) * kP + d) = __floats2bfloat162_rn(y0, y1);
    }
  }
}

/* mkb:plan
scratch local fp32[batch_size * seq_len / chunk_size * num_heads * head_dim * state_size]
scratch chunk_sum fp32[batch_size * num_heads * seq_len / chunk_size]
scratch enter_hi bf16[batch_size * seq_len / chunk_size * num_heads * head_dim * state_size]
scratch enter_lo bf16[batch_size * seq_len / chunk_size * num_heads * head_dim * state_size]
launch chunk_states grid(seq_len / chunk_size, num_heads, batch_size) block(256)
  shared((2 * 64 + 128) * 264 * 2 + 256 * 4) args(hidden_states, A, B, local, chunk_sum)
launch chunk_carry grid(num_heads, batch_size) block(256)
  args(initial_states, local, chunk_sum, enter_hi, enter_lo, final_state)
launch chunk_output grid(chunk_size / 64, seq_len / chunk_size, batch_size * num_heads) block(128)
  shared((64 + 2 * 64) * 264 * 2 + 256 * 4)
  args(hidden_states, A, B, C, D, enter_hi, enter_lo, output)
*/
