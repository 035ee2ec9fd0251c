// Chunked gated delta rule (the definition's semantics, reference.md) in three launches, the products on
// bf16 tensor cores (mma.sync m16n8k16, fp32 accumulation). fp32 operands are split into bf16 pairs
// (hi = bf16(v), lo = bf16(v - hi)); a product of two split operands takes hi*hi + hi*lo + lo*hi.
//   l2norm_rows     q and k normalized in fp32 (one rounding to bf16: at least eager's bf16 accuracy).
//   chunk_prepare   per (chunk, value head, batch): K K^T and Q K^T (exact bf16 products); L =
//                   -beta_i (k_i . k_j) exp(G_i - G_j) below the diagonal; T = (I - L)^-1 by forward
//                   substitution in shared memory (the reference's row loop); W = T diag(beta e^g) K,
//                   U = T diag(beta) V; the decay-masked Q K^T * scale ("intra"); (e^(g_last - g) K)^T.
//   chunk_recurrence per (64 value dims, value head, batch): the [128, 64] slice of the state stays in
//                   registers across the 4 chunks (value dims are independent); per chunk v_new = U - W S,
//                   out = e^g scale (q S) + intra v_new, S = e^(g_last) S + (e^(g_last - g) k)^T v_new.
// Value head v reads key head v % 4.
#include <cuda_bf16.h>

typedef unsigned int uint32_t;

constexpr int kB = 16, kHK = 4, kHV = 16, kS = 256, kD = 128, kL = 64, kC = kS / kL;
constexpr int kPad128 = kD + 8, kPad64 = kL + 8;

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
// A fragment (16 x 16 at row r, k k0) of a row-major [row][k] bf16 array of pitch ld (shared or global).
__device__ __forceinline__ void load_a(uint32_t (&a)[4], const __nv_bfloat16 *A, int ld, int r, int k0) {
  const int lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  const __nv_bfloat16 *p = A + (long long)(r + g) * ld + k0 + q * 2;
  a[0] = ld32(p);
  a[1] = ld32(p + 8 * ld);
  a[2] = ld32(p + 8);
  a[3] = ld32(p + 8 * ld + 8);
}
// B fragment (16 x 8 at k k0, column c) of an array holding B^T row-major: [column][k], pitch ld.
__device__ __forceinline__ void load_b(uint32_t (&b)[2], const __nv_bfloat16 *Bt, int ld, int c, int k0) {
  const int lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  const __nv_bfloat16 *p = Bt + (long long)(c + g) * ld + k0 + q * 2;
  b[0] = ld32(p);
  b[1] = ld32(p + 8);
}

// ---- q, k normalized: a warp per row of 128 ----------------------------------------------------------------
extern "C" __global__ void l2norm_rows(const __nv_bfloat16 *__restrict__ query, const __nv_bfloat16 *__restrict__ key,
                                       __nv_bfloat16 *__restrict__ qn, __nv_bfloat16 *__restrict__ kn, int rows) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (warp >= 2 * rows) return;
  const bool is_key = warp >= rows;
  const long long row = is_key ? warp - rows : warp;
  const __nv_bfloat16 *x = (is_key ? key : query) + row * kD + lane * 4;
  __nv_bfloat16 *out = (is_key ? kn : qn) + row * kD + lane * 4;
  float v[4], ss = 0.0f;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    v[j] = __bfloat162float(x[j]);
    ss += v[j] * v[j];
  }
  for (int offset = 16; offset > 0; offset /= 2) ss += __shfl_xor_sync(0xffffffffu, ss, offset);
  const float inv = rsqrtf(ss + 1e-6f);
#pragma unroll
  for (int j = 0; j < 4; ++j) out[j] = __float2bfloat16_rn(v[j] * inv);
}

// ---- per chunk: the triangular solve and the chunk-local products ---------------------------------------------
extern "C" __global__ void __launch_bounds__(128)
chunk_prepare(const __nv_bfloat16 *__restrict__ qn, const __nv_bfloat16 *__restrict__ kn,
              const __nv_bfloat16 *__restrict__ value, const __nv_bfloat16 *__restrict__ g,
              const __nv_bfloat16 *__restrict__ beta, float scale, __nv_bfloat16 *__restrict__ w_hi,
              __nv_bfloat16 *__restrict__ w_lo, float *__restrict__ u_out, __nv_bfloat16 *__restrict__ intra_hi,
              __nv_bfloat16 *__restrict__ intra_lo, __nv_bfloat16 *__restrict__ kd_hi, __nv_bfloat16 *__restrict__ kd_lo) {
  extern __shared__ __align__(16) unsigned char smem[];
  __nv_bfloat16 *sKt = reinterpret_cast<__nv_bfloat16 *>(smem);  // k^T of the chunk: [dk][t]
  __nv_bfloat16 *sVt = sKt + kD * kPad64;                         // v^T: [dv][t]
  float(*sX)[kL + 1] = reinterpret_cast<float(*)[kL + 1]>(sVt + kD * kPad64);  // L, then X = T - I
  float *sRow = &sX[kL][0], *sCum = sRow + kL, *sBeta = sCum + kL, *sGexp = sBeta + kL, *sToLast = sGexp + kL;
  const int c = blockIdx.x, hv = blockIdx.y, b = blockIdx.z, hk = hv % kHK;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, gq = lane / 4, q = lane % 4;
  const long long kq_row0 = ((long long)(b * kHK + hk) * kS + c * kL);  // first row of the chunk in qn / kn
  const long long v_row0 = ((long long)(b * kHV + hv) * kS + c * kL);   // in value, g, beta
  const __nv_bfloat16 *kc = kn + kq_row0 * kD, *qc = qn + kq_row0 * kD;
  const long long blk = ((long long)(b * kHV + hv) * kC + c);           // this chunk's slot in the outputs

  for (int v = tid; v < kL * kD / 8; v += 128) {  // thread: token t, 8 consecutive dims
    const int t = v % kL, d0 = (v / kL) * 8;
    uint4 kraw = *reinterpret_cast<const uint4 *>(kc + t * kD + d0);
    uint4 vraw = *reinterpret_cast<const uint4 *>(value + (v_row0 + t) * kD + d0);
    const __nv_bfloat16 *kx = reinterpret_cast<const __nv_bfloat16 *>(&kraw);
    const __nv_bfloat16 *vx = reinterpret_cast<const __nv_bfloat16 *>(&vraw);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      sKt[(d0 + j) * kPad64 + t] = kx[j];
      sVt[(d0 + j) * kPad64 + t] = vx[j];
    }
  }
  if (warp == 0) {  // G = cumsum(g) in the chunk: two tokens a lane, then across lanes
    const float g0 = __bfloat162float(g[v_row0 + 2 * lane]), g1 = __bfloat162float(g[v_row0 + 2 * lane + 1]);
    const float pair = g0 + g1;
    float prefix = pair;
    for (int offset = 1; offset < 32; offset *= 2) {
      const float other = __shfl_up_sync(0xffffffffu, prefix, offset);
      if (lane >= offset) prefix += other;
    }
    float before = __shfl_up_sync(0xffffffffu, prefix, 1);
    if (lane == 0) before = 0.0f;
    sCum[2 * lane] = before + g0;
    sCum[2 * lane + 1] = before + g0 + g1;
    const float last = __bfloat162float(g[v_row0 + kL - 1]);
    for (int t = 2 * lane; t < 2 * lane + 2; ++t) {
      const float gt = __bfloat162float(g[v_row0 + t]);
      sBeta[t] = __bfloat162float(beta[v_row0 + t]);
      sGexp[t] = expf(gt);
      sToLast[t] = expf(last - gt);
    }
  }
  __syncthreads();

  const int r0 = warp * 16;  // this warp's 16 rows of the 64
  // K K^T -> L (strictly lower), Q K^T -> intra (lower, diagonal included)
  for (int which = 0; which < 2; ++which) {
    const __nv_bfloat16 *A = which ? qc : kc;
    float acc[8][4] = {};
    for (int k0 = 0; k0 < kD; k0 += 16) {
      uint32_t a[4];
      load_a(a, A, kD, r0, k0);
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        uint32_t bb[2];
        load_b(bb, kc, kD, j * 8, k0);
        mma_bf16(acc[j], a, bb);
      }
    }
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int i = r0 + gq + half * 8, col = j * 8 + q * 2;
        float v[2];
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int jj = col + e;
          const float decay = expf(sCum[i] - sCum[jj]);
          if (which == 0) v[e] = jj < i ? -sBeta[i] * acc[j][half * 2 + e] * decay : 0.0f;
          else v[e] = jj <= i ? scale * acc[j][half * 2 + e] * decay : 0.0f;
        }
        if (which == 0) {
          sX[i][col] = v[0];
          sX[i][col + 1] = v[1];
        } else {
          __nv_bfloat16 h0, l0, h1, l1;
          split(v[0], h0, l0);
          split(v[1], h1, l1);
          *reinterpret_cast<uint32_t *>(intra_hi + (blk * kL + i) * kL + col) = pack(h0, h1);
          *reinterpret_cast<uint32_t *>(intra_lo + (blk * kL + i) * kL + col) = pack(l0, l1);
        }
      }
  }
  __syncthreads();

  // forward substitution: X[i, :i] = L[i, :i] + L[i, :i] X[:i, :i], rows in order (row 0 of L is zero)
  for (int i = 1; i < kL; ++i) {
    if (tid < i) sRow[tid] = sX[i][tid];
    __syncthreads();
    if (tid < i) {
      float acc = sRow[tid];
      for (int k = tid + 1; k < i; ++k) acc += sRow[k] * sX[k][tid];
      sX[i][tid] = acc;
    }
    __syncthreads();
  }

  // W = T diag(beta e^g) K  and  U = T diag(beta) V, T = I + X
  for (int which = 0; which < 2; ++which) {
    const __nv_bfloat16 *Bt = which ? sVt : sKt;
    float acc[16][4] = {};
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      uint32_t ah[4], al[4];
#pragma unroll
      for (int reg = 0; reg < 4; ++reg) {
        const int i = r0 + gq + (reg & 1) * 8, j0 = kk * 16 + q * 2 + (reg >> 1) * 8;
        __nv_bfloat16 h[2], l[2];
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int j = j0 + e;
          const float t = i == j ? 1.0f : (j < i ? sX[i][j] : 0.0f);
          split(t * sBeta[j] * (which ? 1.0f : sGexp[j]), h[e], l[e]);
        }
        ah[reg] = pack(h[0], h[1]);
        al[reg] = pack(l[0], l[1]);
      }
#pragma unroll
      for (int n = 0; n < 16; ++n) {
        uint32_t bb[2];
        load_b(bb, Bt, kPad64, n * 8, kk * 16);
        mma_bf16(acc[n], ah, bb);
        mma_bf16(acc[n], al, bb);
      }
    }
#pragma unroll
    for (int n = 0; n < 16; ++n)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int i = r0 + gq + half * 8, d = n * 8 + q * 2;
        const long long at = (blk * kL + i) * kD + d;
        if (which) {
          *reinterpret_cast<float2 *>(u_out + at) = make_float2(acc[n][half * 2], acc[n][half * 2 + 1]);
        } else {
          __nv_bfloat16 h0, l0, h1, l1;
          split(acc[n][half * 2], h0, l0);
          split(acc[n][half * 2 + 1], h1, l1);
          *reinterpret_cast<uint32_t *>(w_hi + at) = pack(h0, h1);
          *reinterpret_cast<uint32_t *>(w_lo + at) = pack(l0, l1);
        }
      }
  }

  // (e^(g_last - g_t) k_t)^T as [dk][t]
  for (int e = tid; e < kD * kL; e += 128) {
    const int d = e / kL, t = e % kL;
    __nv_bfloat16 h, l;
    split(__bfloat162float(sKt[d * kPad64 + t]) * sToLast[t], h, l);
    kd_hi[blk * kD * kL + e] = h;
    kd_lo[blk * kD * kL + e] = l;
  }
}

// ---- the recurrence over the chunks, 64 value dims per block ---------------------------------------------------
extern "C" __global__ void __launch_bounds__(256)
chunk_recurrence(const __nv_bfloat16 *__restrict__ qn, const __nv_bfloat16 *__restrict__ g, float scale,
                 const __nv_bfloat16 *__restrict__ w_hi, const __nv_bfloat16 *__restrict__ w_lo,
                 const float *__restrict__ u_in, const __nv_bfloat16 *__restrict__ intra_hi,
                 const __nv_bfloat16 *__restrict__ intra_lo, const __nv_bfloat16 *__restrict__ kd_hi,
                 const __nv_bfloat16 *__restrict__ kd_lo, __nv_bfloat16 *__restrict__ output) {
  extern __shared__ __align__(16) unsigned char smem[];
  __nv_bfloat16 *sSh = reinterpret_cast<__nv_bfloat16 *>(smem), *sSl = sSh + 64 * kPad128;  // S^T slice: [dv][dk]
  __nv_bfloat16 *sVh = sSl + 64 * kPad128, *sVl = sVh + 64 * kPad64;                       // v_new^T: [dv][t]
  const int dv0 = blockIdx.x * 64, hv = blockIdx.y, b = blockIdx.z, hk = hv % kHK;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, gq = lane / 4, q = lane % 4;
  const int row0 = (warp % 4) * 16, col0 = (warp / 4) * 32;  // tiles of the [64 t, 64 dv] products
  float st[8][4] = {};  // S rows dk = 16 warp + gq (+8), columns dv = 8 j + 2 q (+1) of the slice

  for (int c = 0; c < kC; ++c) {
    const long long blk = ((long long)(b * kHV + hv) * kC + c);
    const long long g_row0 = (long long)(b * kHV + hv) * kS + c * kL;
    // (a) the state as split bf16 B operands
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int dk = warp * 16 + gq + (e >> 1) * 8, dv = j * 8 + q * 2 + (e & 1);
        split(st[j][e], sSh[dv * kPad128 + dk], sSl[dv * kPad128 + dk]);
      }
    __syncthreads();
    // (b) v_new = U - W S
    {
      float acc[4][4] = {};
      const __nv_bfloat16 *wh = w_hi + blk * kL * kD, *wl = w_lo + blk * kL * kD;
      for (int k0 = 0; k0 < kD; k0 += 16) {
        uint32_t ah[4], al[4];
        load_a(ah, wh, kD, row0, k0);
        load_a(al, wl, kD, row0, k0);
#pragma unroll
        for (int n = 0; n < 4; ++n) {
          uint32_t bh[2], bl[2];
          load_b(bh, sSh, kPad128, col0 + n * 8, k0);
          load_b(bl, sSl, kPad128, col0 + n * 8, k0);
          mma_bf16(acc[n], ah, bh);
          mma_bf16(acc[n], ah, bl);
          mma_bf16(acc[n], al, bh);
        }
      }
#pragma unroll
      for (int n = 0; n < 4; ++n)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int t = row0 + gq + half * 8, dv = col0 + n * 8 + q * 2;
          const float2 u = *reinterpret_cast<const float2 *>(u_in + (blk * kL + t) * kD + dv0 + dv);
          split(u.x - acc[n][half * 2], sVh[dv * kPad64 + t], sVl[dv * kPad64 + t]);
          split(u.y - acc[n][half * 2 + 1], sVh[(dv + 1) * kPad64 + t], sVl[(dv + 1) * kPad64 + t]);
        }
    }
    __syncthreads();
    // (c) out = e^g scale (q S) + intra v_new
    {
      float acc[4][4] = {};
      const __nv_bfloat16 *qc = qn + ((long long)(b * kHK + hk) * kS + c * kL) * kD;
      for (int k0 = 0; k0 < kD; k0 += 16) {
        uint32_t a[4];
        load_a(a, qc, kD, row0, k0);
#pragma unroll
        for (int n = 0; n < 4; ++n) {
          uint32_t bh[2], bl[2];
          load_b(bh, sSh, kPad128, col0 + n * 8, k0);
          load_b(bl, sSl, kPad128, col0 + n * 8, k0);
          mma_bf16(acc[n], a, bh);
          mma_bf16(acc[n], a, bl);
        }
      }
      const float fa = expf(__bfloat162float(g[g_row0 + row0 + gq])) * scale;
      const float fb = expf(__bfloat162float(g[g_row0 + row0 + gq + 8])) * scale;
#pragma unroll
      for (int n = 0; n < 4; ++n) {
        acc[n][0] *= fa; acc[n][1] *= fa;
        acc[n][2] *= fb; acc[n][3] *= fb;
      }
      const __nv_bfloat16 *ih = intra_hi + blk * kL * kL, *il = intra_lo + blk * kL * kL;
      for (int kk = 0; kk <= warp % 4; ++kk) {  // intra is zero above the diagonal
        uint32_t ah[4], al[4];
        load_a(ah, ih, kL, row0, kk * 16);
        load_a(al, il, kL, row0, kk * 16);
#pragma unroll
        for (int n = 0; n < 4; ++n) {
          uint32_t bh[2], bl[2];
          load_b(bh, sVh, kPad64, col0 + n * 8, kk * 16);
          load_b(bl, sVl, kPad64, col0 + n * 8, kk * 16);
          mma_bf16(acc[n], ah, bh);
          mma_bf16(acc[n], ah, bl);
          mma_bf16(acc[n], al, bh);
        }
      }
#pragma unroll
      for (int n = 0; n < 4; ++n)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int t = row0 + gq + half * 8, dv = dv0 + col0 + n * 8 + q * 2;
          *reinterpret_cast<__nv_bfloat162 *>(output + (((long long)b * kS + c * kL + t) * kHV + hv) * kD + dv) =
              __floats2bfloat162_rn(acc[n][half * 2], acc[n][half * 2 + 1]);
        }
    }
    // (d) S = e^(g_last) S + (e^(g_last - g) k)^T v_new
    {
      const float keep = expf(__bfloat162float(g[g_row0 + kL - 1]));
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) st[j][e] *= keep;
      const __nv_bfloat16 *kh = kd_hi + blk * kD * kL, *kl = kd_lo + blk * kD * kL;
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        uint32_t ah[4], al[4];
        load_a(ah, kh, kL, warp * 16, kk * 16);
        load_a(al, kl, kL, warp * 16, kk * 16);
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          uint32_t bh[2], bl[2];
          load_b(bh, sVh, kPad64, j * 8, kk * 16);
          load_b(bl, sVl, kPad64, j * 8, kk * 16);
          mma_bf16(st[j], ah, bh);
          mma_bf16(st[j], ah, bl);
          mma_bf16(st[j], al, bh);
        }
      }
    }
    __syncthreads();  // S^T and v_new^T are rewritten by the next chunk
  }
}

/* mkb:plan
scratch qn bf16[batch_size * num_k_heads * seq_len * head_k_dim]
scratch kn bf16[batch_size * num_k_heads * seq_len * head_k_dim]
scratch w_hi bf16[batch_size * num_v_heads * seq_len * head_k_dim]
scratch w_lo bf16[batch_size * num_v_heads * seq_len * head_k_dim]
scratch u fp32[batch_size * num_v_heads * seq_len * head_v_dim]
scratch intra_hi bf16[batch_size * num_v_heads * seq_len * chunk_size]
scratch intra_lo bf16[batch_size * num_v_heads * seq_len * chunk_size]
scratch kd_hi bf16[batch_size * num_v_heads * seq_len * head_k_dim]
scratch kd_lo bf16[batch_size * num_v_heads * seq_len * head_k_dim]
launch l2norm_rows grid(ceil_div(2 * batch_size * num_k_heads * seq_len, 8)) block(256)
  args(query, key, qn, kn, i32(batch_size * num_k_heads * seq_len))
launch chunk_prepare grid(seq_len / chunk_size, num_v_heads, batch_size) block(128)
  shared(2 * 128 * 72 * 2 + (64 * 65 + 5 * 64) * 4) args(qn, kn, value, g, beta, f32(scale), w_hi, w_lo, u, intra_hi, intra_lo, kd_hi, kd_lo)
launch chunk_recurrence grid(head_v_dim / 64, num_v_heads, batch_size) block(256)
  shared(2 * 64 * 136 * 2 + 2 * 64 * 72 * 2) args(qn, g, f32(scale), w_hi, w_lo, u, intra_hi, intra_lo, kd_hi, kd_lo, output)
*/
