// MetaKernelBench #10 (reconstructed: spec.json's notes), the Gemma 3 attention-core backward in fp32
// accuracy on tensor cores. Every product is one batched 3xTF32 GEMM kernel (mma.sync m16n8k8, each fp32
// operand split into tf32 hi + lo, hi*hi' + hi*lo' + lo*hi' per product, every 32-wide k tile summed into
// a fresh partial accumulator that is added to the main one with an ordinary fp32 add), with per-batch
// operand offsets that read the heads straight out of the projections' [tokens, heads * D] layout (no
// repeat_kv or transpose copies: a query head h reads kv head h / 3), and K split into segments that
// sum the 3 query heads of a kv head inside one GEMM (dK, dV). The per-row work is fused:
//   fwd_norm_rope : RMSNorm (1 + w) and RoPE of a (token, head) row, one warp per row;
//   scores GEMM   : epilogue stores tt = tanh(scaling * qk / cap) (logit = cap * tt);
//   softmax_fwd   : causal softmax of cap * tt, one warp per row;
//   softmax_bwd   : dS = scaling * (1 - tt^2) * P * (dP - sum dP * P), in place over dP;
//   bwd_norm_rope : RoPE backward, RMSNorm backward (in place over dq / dk) and per-block partial sums
//                   of d_n * x_hat for the norm weights, reduced by colsum_final.
// Layouts: flat = [T, heads * D] (T = B * S tokens), scores = [B, 24, S, S].
// Shapes: S = 256, D = 128, every GEMM extent a multiple of 128 and every K (segment) of 32; the GEMM
// kernel returns without writing when a shape does not fit (so a wrong plan fails loudly: NaN outputs).
typedef unsigned int u32;

namespace {
constexpr int BM = 128, BN = 128, BK = 32, STAGES = 4, THREADS = 256;
constexpr int KPAD = BK + 4;   // row stride (floats) of a K-contiguous tile
constexpr int MPAD = BM + 8;   // row stride (floats) of an M/N-contiguous tile
constexpr int TILE_FLOATS = BM * KPAD; // 4608 >= BK * MPAD = 4352
constexpr int STAGE_FLOATS = 2 * TILE_FLOATS;
// dynamic shared memory: STAGES * STAGE_FLOATS * 4 = 147456 bytes (the plan's shared(147456))
constexpr int D = 128;

__device__ __forceinline__ void cp_async16(float *dst, const float *src) {
  u32 d = (u32)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// One 128 x 32 tile. K_MAJOR: element (r, k) at g[(row0 + r) * ld + k0 + k] -> s[r * KPAD + k];
// else element (r, k) at g[(k0 + k) * ld + row0 + r] -> s[k * MPAD + r].
template <bool K_MAJOR>
__device__ __forceinline__ void load_tile(float *s, const float *g, int ld, int row0, int k0, int tid) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int c = tid + i * THREADS;
    if (K_MAJOR) {
      const int r = c >> 3, k = (c & 7) * 4;
      cp_async16(s + r * KPAD + k, g + (long long)(row0 + r) * ld + k0 + k);
    } else {
      const int k = c >> 5, r = (c & 31) * 4;
      cp_async16(s + k * MPAD + r, g + (long long)(k0 + k) * ld + row0 + r);
    }
  }
}

template <bool K_MAJOR> __device__ __forceinline__ float frag(const float *s, int r, int k) {
  return K_MAJOR ? s[r * KPAD + k] : s[k * MPAD + r];
}

// hi = v rounded to TF32 (to nearest, ties away); lo = v - hi exact in fp32 (the MMA reads its top bits).
__device__ __forceinline__ void split(float v, u32 &hi, u32 &lo) {
  hi = (__float_as_uint(v) + 0x1000u) & 0xffffe000u;
  lo = __float_as_uint(v - __uint_as_float(hi));
}

__device__ __forceinline__ void mma_tf32(float *d, const u32 *a, const u32 *b) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Offset of batch z in an operand: (z / zdiv) * so + ((z % zdiv) / rep) * si.
__device__ __forceinline__ long long batch_off(int z, int zdiv, long long so, long long si, int rep) {
  return (long long)(z / zdiv) * so + (long long)((z % zdiv) / rep) * si;
}

// C_z[M, N] (op)= A_z[M, K] B_z[K, N], K = segments of kseg; segment s of A starts a_seg floats after
// segment 0 (and B b_seg), k restarting at 0. A is K-contiguous (A_K) or M-contiguous; B K-contiguous
// (B_K: stored [N, K]) or N-contiguous. mode 0: C = acc; 1: C += acc; 2: C = tanh(alpha * acc).
template <bool A_K, bool B_K>
__device__ __forceinline__ void gemm_body(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                                          int M, int N, int K, int kseg, int lda, int ldb, int ldc, int zdiv,
                                          long long a_so, long long a_si, int a_rep, long long a_seg,
                                          long long b_so, long long b_si, int b_rep, long long b_seg,
                                          long long c_so, long long c_si, int c_rep, int mode, float alpha) {
  if (M % BM != 0 || N % BN != 0 || K % BK != 0 || kseg % BK != 0 || K % kseg != 0 || (int)gridDim.x * BN != N ||
      (int)gridDim.y * BM != M)
    return;
  extern __shared__ float4 smem4[];
  float *smem = reinterpret_cast<float *>(smem4);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp >> 2, wn = warp & 3; // 2 x 4 warps, each 64 x 32
  const int g = lane >> 2, t = lane & 3;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int z = blockIdx.z;
  A += batch_off(z, zdiv, a_so, a_si, a_rep);
  B += batch_off(z, zdiv, b_so, b_si, b_rep);
  C += batch_off(z, zdiv, c_so, c_si, c_rep);
  const int KT = K / BK;

  float acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

  auto load_stage = [&](int s, int kt) {
    const int k0 = kt * BK, seg = k0 / kseg, kk = k0 - seg * kseg;
    load_tile<A_K>(smem + s * STAGE_FLOATS, A + seg * a_seg, lda, m0, kk, tid);
    load_tile<B_K>(smem + s * STAGE_FLOATS + TILE_FLOATS, B + seg * b_seg, ldb, n0, kk, tid);
  };

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < KT) load_stage(s, s);
    cp_async_commit();
  }

  for (int kt = 0; kt < KT; ++kt) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    {
      const int nk = kt + STAGES - 1;
      if (nk < KT) load_stage(nk % STAGES, nk);
      cp_async_commit();
    }
    const float *As = smem + (kt % STAGES) * STAGE_FLOATS;
    const float *Bs = As + TILE_FLOATS;

    float part[4][4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) part[i][j][e] = 0.0f;

#pragma unroll
    for (int kk = 0; kk < BK; kk += 8) {
      u32 bh[4][2], bl[4][2];
#pragma unroll
      for (int nt = 0; nt < 4; ++nt) {
        const int n = wn * 32 + nt * 8 + g;
        split(frag<B_K>(Bs, n, kk + t), bh[nt][0], bl[nt][0]);
        split(frag<B_K>(Bs, n, kk + t + 4), bh[nt][1], bl[nt][1]);
      }
#pragma unroll
      for (int mt = 0; mt < 4; ++mt) {
        const int r = wm * 64 + mt * 16 + g;
        u32 ah[4], al[4];
        split(frag<A_K>(As, r, kk + t), ah[0], al[0]);
        split(frag<A_K>(As, r + 8, kk + t), ah[1], al[1]);
        split(frag<A_K>(As, r, kk + t + 4), ah[2], al[2]);
        split(frag<A_K>(As, r + 8, kk + t + 4), ah[3], al[3]);
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
          mma_tf32(part[mt][nt], al, bh[nt]);
          mma_tf32(part[mt][nt], ah, bl[nt]);
          mma_tf32(part[mt][nt], ah, bh[nt]);
        }
      }
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][j][e] += part[i][j][e];
  }
  cp_async_wait<0>();

  // Fragment (mt, nt): rows g and g + 8 of the 16-row tile, columns 2t and 2t + 1 of the 8-column tile.
#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
#pragma unroll
    for (int nt = 0; nt < 4; ++nt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = m0 + wm * 64 + mt * 16 + g + h * 8;
        const int col = n0 + wn * 32 + nt * 8 + 2 * t;
        float2 *p = reinterpret_cast<float2 *>(C + (long long)row * ldc + col);
        float v0 = acc[mt][nt][2 * h], v1 = acc[mt][nt][2 * h + 1];
        if (mode == 1) {
          const float2 old = *p;
          v0 += old.x;
          v1 += old.y;
        } else if (mode == 2) {
          v0 = tanhf(alpha * v0);
          v1 = tanhf(alpha * v1);
        }
        *p = make_float2(v0, v1);
      }
}
} // namespace

#define GEMM_ENTRY(name, AK, BKM)                                                                               \
  extern "C" __global__ void __launch_bounds__(256, 1)                                                          \
  name(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N, int K,    \
       int kseg, int lda, int ldb, int ldc, int zdiv, long long a_so, long long a_si, int a_rep, long long a_seg, \
       long long b_so, long long b_si, int b_rep, long long b_seg, long long c_so, long long c_si, int c_rep,     \
       int mode, float alpha) {                                                                                 \
    gemm_body<AK, BKM>(A, B, C, M, N, K, kseg, lda, ldb, ldc, zdiv, a_so, a_si, a_rep, a_seg, b_so, b_si, b_rep, \
                       b_seg, c_so, c_si, c_rep, mode, alpha);                                                  \
  }
// nt: A [M, K] K-contiguous, B stored [N, K] (x W^T, q k^T); nn: B [K, N]; tn: A stored [K, M] (A^T B).
GEMM_ENTRY(gemm_nt, true, true)
GEMM_ENTRY(gemm_nn, true, false)
GEMM_ENTRY(gemm_tn, false, false)

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// RMSNorm (1 + w) and RoPE of each (token, head) row of raw [T, heads * D] into emb (same layout); rstd
// per row. One warp per row; lane l holds d = l, l + 32, l + 64, l + 96 (the RoPE pairs (l, l + 64) and
// (l + 32, l + 96) stay in the lane).
extern "C" __global__ void fwd_norm_rope(float *__restrict__ emb, float *__restrict__ rstd, const float *__restrict__ raw,
                                         const float *__restrict__ w, const float *__restrict__ cos_t,
                                         const float *__restrict__ sin_t, long long rows, int heads, float eps) {
  const long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int l = threadIdx.x & 31;
  if (row >= rows) return;
  const long long tok = row / heads;
  const float *x = raw + row * D;
  float v[4], c[4], s[4], n[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    v[j] = x[l + 32 * j];
    c[j] = cos_t[tok * D + l + 32 * j];
    s[j] = sin_t[tok * D + l + 32 * j];
  }
  const float ss = warp_sum(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
  const float r = rsqrtf(ss * (1.0f / D) + eps);
  if (l == 0) rstd[row] = r;
#pragma unroll
  for (int j = 0; j < 4; ++j) n[j] = v[j] * r * (1.0f + w[l + 32 * j]);
  float *e = emb + row * D;
  e[l] = n[0] * c[0] - n[2] * s[0];
  e[l + 32] = n[1] * c[1] - n[3] * s[1];
  e[l + 64] = n[2] * c[2] + n[0] * s[2];
  e[l + 96] = n[3] * c[3] + n[1] * s[3];
}

// Causal softmax of logit = cap * tt over rows of S = 256 (tt from the scores GEMM); one warp per row
// (b, h, i), lane l holds j = l + 32 c. Masked entries (j > i) get P = 0.
extern "C" __global__ void softmax_fwd(float *__restrict__ P, const float *__restrict__ tt, long long rows, int S, float cap) {
  const long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int l = threadIdx.x & 31;
  if (row >= rows || S != 256) return;
  const int i = (int)(row % S);
  const float *x = tt + row * S;
  float v[8];
  float m = -__int_as_float(0x7f800000);
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    const int j = l + 32 * c;
    v[c] = cap * x[j];
    if (j <= i) m = fmaxf(m, v[c]);
  }
  m = warp_max(m);
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    const int j = l + 32 * c;
    v[c] = j <= i ? expf(v[c] - m) : 0.0f;
    sum += v[c];
  }
  const float inv = 1.0f / warp_sum(sum);
#pragma unroll
  for (int c = 0; c < 8; ++c) P[row * S + l + 32 * c] = v[c] * inv;
}

// dS = scaling * (1 - tt^2) * P * (dP - sum_j dP * P), in place over dP; one warp per row.
extern "C" __global__ void softmax_bwd(float *__restrict__ dP, const float *__restrict__ P, const float *__restrict__ tt,
                                      long long rows, int S, float scaling) {
  const long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int l = threadIdx.x & 31;
  if (row >= rows || S != 256) return;
  const long long base = row * S;
  float dp[8], p[8];
  float dot = 0.0f;
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    dp[c] = dP[base + l + 32 * c];
    p[c] = P[base + l + 32 * c];
    dot += dp[c] * p[c];
  }
  dot = warp_sum(dot);
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    const float t = tt[base + l + 32 * c];
    dP[base + l + 32 * c] = scaling * (1.0f - t * t) * p[c] * (dp[c] - dot);
  }
}

// RoPE and RMSNorm backward of each (token, head) row, in place: demb [T, heads * D] holds d(emb) and
// receives dx. raw, rstd as in the forward. Warps grid-stride over rows; each block writes its partial
// column sums of d_n * x_hat to partial[blockIdx.x * D + d].
extern "C" __global__ void bwd_norm_rope(float *__restrict__ demb, float *__restrict__ partial,
                                         const float *__restrict__ raw, const float *__restrict__ rstd,
                                         const float *__restrict__ w, const float *__restrict__ cos_t,
                                         const float *__restrict__ sin_t, long long rows, int heads) {
  __shared__ float red[8][D];
  const int l = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float wp[4], accw[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int j = 0; j < 4; ++j) wp[j] = 1.0f + w[l + 32 * j];
  for (long long row = (long long)blockIdx.x * 8 + warp; row < rows; row += (long long)gridDim.x * 8) {
    const long long tok = row / heads;
    float gv[4], c[4], s[4], xh[4];
    const float r = rstd[row];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      gv[j] = demb[row * D + l + 32 * j];
      c[j] = cos_t[tok * D + l + 32 * j];
      s[j] = sin_t[tok * D + l + 32 * j];
      xh[j] = raw[row * D + l + 32 * j] * r;
    }
    float dn[4];
    dn[0] = gv[0] * c[0] + gv[2] * s[2];
    dn[1] = gv[1] * c[1] + gv[3] * s[3];
    dn[2] = gv[2] * c[2] - gv[0] * s[0];
    dn[3] = gv[3] * c[3] - gv[1] * s[1];
    float dot = 0.0f;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      accw[j] += dn[j] * xh[j];
      dot += dn[j] * wp[j] * xh[j];
    }
    dot = warp_sum(dot) * (1.0f / D);
#pragma unroll
    for (int j = 0; j < 4; ++j) demb[row * D + l + 32 * j] = r * (dn[j] * wp[j] - xh[j] * dot);
  }
#pragma unroll
  for (int j = 0; j < 4; ++j) red[warp][l + 32 * j] = accw[j];
  __syncthreads();
  if (threadIdx.x < D) {
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; ++k) sum += red[k][threadIdx.x];
    partial[(long long)blockIdx.x * D + threadIdx.x] = sum;
  }
}

// out[d] = sum over blocks of partial[b * D + d]; one block of D threads.
extern "C" __global__ void colsum_final(float *__restrict__ out, const float *__restrict__ partial, int blocks) {
  const int d = threadIdx.x;
  if (d >= D) return;
  float sum = 0.0f;
  for (int b = 0; b < blocks; ++b) sum += partial[(long long)b * D + d];
  out[d] = sum;
}

/* mkb:plan
scratch qraw fp32[batch_size * seq_len * q_proj_out]
scratch kraw fp32[batch_size * seq_len * kv_proj_out]
scratch vraw fp32[batch_size * seq_len * kv_proj_out]
scratch qemb fp32[batch_size * seq_len * q_proj_out]
scratch kemb fp32[batch_size * seq_len * kv_proj_out]
scratch qrstd fp32[batch_size * seq_len * num_attention_heads]
scratch krstd fp32[batch_size * seq_len * num_key_value_heads]
scratch tt fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch probs fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch dp fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch ctx fp32[batch_size * seq_len * q_proj_out]
scratch da fp32[batch_size * seq_len * q_proj_out]
scratch dq fp32[batch_size * seq_len * q_proj_out]
scratch dk fp32[batch_size * seq_len * kv_proj_out]
scratch dv fp32[batch_size * seq_len * kv_proj_out]
scratch partq fp32[1024 * head_dim]
scratch partk fp32[1024 * head_dim]
# projections q, k, v = x W^T
launch gemm_nt grid(q_proj_out / 128, batch_size * seq_len / 128, 1) block(256) shared(147456)
  args(hidden_states, q_weight, qraw, i32(batch_size * seq_len), i32(q_proj_out), i32(hidden_size), i32(hidden_size),
       i32(hidden_size), i32(hidden_size), i32(q_proj_out), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
launch gemm_nt grid(kv_proj_out / 128, batch_size * seq_len / 128, 1) block(256) shared(147456)
  args(hidden_states, k_weight, kraw, i32(batch_size * seq_len), i32(kv_proj_out), i32(hidden_size), i32(hidden_size),
       i32(hidden_size), i32(hidden_size), i32(kv_proj_out), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
launch gemm_nt grid(kv_proj_out / 128, batch_size * seq_len / 128, 1) block(256) shared(147456)
  args(hidden_states, v_weight, vraw, i32(batch_size * seq_len), i32(kv_proj_out), i32(hidden_size), i32(hidden_size),
       i32(hidden_size), i32(hidden_size), i32(kv_proj_out), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
# q/k RMSNorm + RoPE
launch fwd_norm_rope grid(batch_size * seq_len * num_attention_heads / 8) block(256)
  args(qemb, qrstd, qraw, q_norm_weight, cos, sin, i64(batch_size * seq_len * num_attention_heads), i32(num_attention_heads), f32(rms_norm_eps))
launch fwd_norm_rope grid(batch_size * seq_len * num_key_value_heads / 8) block(256)
  args(kemb, krstd, kraw, k_norm_weight, cos, sin, i64(batch_size * seq_len * num_key_value_heads), i32(num_key_value_heads), f32(rms_norm_eps))
# tt = tanh(scaling / cap * q_h k_g^T), batch z = b * 24 + h, kv head g = h / 3
launch gemm_nt grid(seq_len / 128, seq_len / 128, batch_size * num_attention_heads) block(256) shared(147456)
  args(qemb, kemb, tt, i32(seq_len), i32(seq_len), i32(head_dim), i32(head_dim), i32(q_proj_out), i32(kv_proj_out), i32(seq_len),
       i32(num_attention_heads),
       i64(seq_len * q_proj_out), i64(head_dim), i32(1), i64(0),
       i64(seq_len * kv_proj_out), i64(head_dim), i32(num_attention_heads / num_key_value_heads), i64(0),
       i64(num_attention_heads * seq_len * seq_len), i64(seq_len * seq_len), i32(1), i32(2), f32(scaling / attn_logit_softcapping))
launch softmax_fwd grid(batch_size * num_attention_heads * seq_len / 8) block(256)
  args(probs, tt, i64(batch_size * num_attention_heads * seq_len), i32(seq_len), f32(attn_logit_softcapping))
# ctx[b, i, h] = P_h v_g (flat layout)
launch gemm_nn grid(head_dim / 128, seq_len / 128, batch_size * num_attention_heads) block(256) shared(147456)
  args(probs, vraw, ctx, i32(seq_len), i32(head_dim), i32(seq_len), i32(seq_len), i32(seq_len), i32(kv_proj_out), i32(q_proj_out),
       i32(num_attention_heads),
       i64(num_attention_heads * seq_len * seq_len), i64(seq_len * seq_len), i32(1), i64(0),
       i64(seq_len * kv_proj_out), i64(head_dim), i32(num_attention_heads / num_key_value_heads), i64(0),
       i64(seq_len * q_proj_out), i64(head_dim), i32(1), i32(0), f32(1.0))
# grad_o_weight = grad_output^T ctx
launch gemm_tn grid(q_proj_out / 128, hidden_size / 128, 1) block(256) shared(147456)
  args(grad_output, ctx, grad_o_weight, i32(hidden_size), i32(q_proj_out), i32(batch_size * seq_len), i32(batch_size * seq_len),
       i32(hidden_size), i32(q_proj_out), i32(q_proj_out), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
# d_attn = grad_output o_weight (flat)
launch gemm_nn grid(q_proj_out / 128, batch_size * seq_len / 128, 1) block(256) shared(147456)
  args(grad_output, o_weight, da, i32(batch_size * seq_len), i32(q_proj_out), i32(hidden_size), i32(hidden_size),
       i32(hidden_size), i32(q_proj_out), i32(q_proj_out), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
# dP = d_attn_h v_g^T
launch gemm_nt grid(seq_len / 128, seq_len / 128, batch_size * num_attention_heads) block(256) shared(147456)
  args(da, vraw, dp, i32(seq_len), i32(seq_len), i32(head_dim), i32(head_dim), i32(q_proj_out), i32(kv_proj_out), i32(seq_len),
       i32(num_attention_heads),
       i64(seq_len * q_proj_out), i64(head_dim), i32(1), i64(0),
       i64(seq_len * kv_proj_out), i64(head_dim), i32(num_attention_heads / num_key_value_heads), i64(0),
       i64(num_attention_heads * seq_len * seq_len), i64(seq_len * seq_len), i32(1), i32(0), f32(1.0))
launch softmax_bwd grid(batch_size * num_attention_heads * seq_len / 8) block(256)
  args(dp, probs, tt, i64(batch_size * num_attention_heads * seq_len), i32(seq_len), f32(scaling))
# dv[b, :, g] = sum over the 3 heads h of g of P_h^T d_attn_h: batch z = b * 8 + g, K = 3 segments of seq_len
launch gemm_tn grid(head_dim / 128, seq_len / 128, batch_size * num_key_value_heads) block(256) shared(147456)
  args(probs, da, dv, i32(seq_len), i32(head_dim), i32(3 * seq_len), i32(seq_len), i32(seq_len), i32(q_proj_out), i32(kv_proj_out),
       i32(num_key_value_heads),
       i64(num_attention_heads * seq_len * seq_len), i64(3 * seq_len * seq_len), i32(1), i64(seq_len * seq_len),
       i64(seq_len * q_proj_out), i64(3 * head_dim), i32(1), i64(head_dim),
       i64(seq_len * kv_proj_out), i64(head_dim), i32(1), i32(0), f32(1.0))
# dq_emb = dS_h k_g (flat)
launch gemm_nn grid(head_dim / 128, seq_len / 128, batch_size * num_attention_heads) block(256) shared(147456)
  args(dp, kemb, dq, i32(seq_len), i32(head_dim), i32(seq_len), i32(seq_len), i32(seq_len), i32(kv_proj_out), i32(q_proj_out),
       i32(num_attention_heads),
       i64(num_attention_heads * seq_len * seq_len), i64(seq_len * seq_len), i32(1), i64(0),
       i64(seq_len * kv_proj_out), i64(head_dim), i32(num_attention_heads / num_key_value_heads), i64(0),
       i64(seq_len * q_proj_out), i64(head_dim), i32(1), i32(0), f32(1.0))
# dk_emb[b, :, g] = sum over h of g of dS_h^T q_h (flat)
launch gemm_tn grid(head_dim / 128, seq_len / 128, batch_size * num_key_value_heads) block(256) shared(147456)
  args(dp, qemb, dk, i32(seq_len), i32(head_dim), i32(3 * seq_len), i32(seq_len), i32(seq_len), i32(q_proj_out), i32(kv_proj_out),
       i32(num_key_value_heads),
       i64(num_attention_heads * seq_len * seq_len), i64(3 * seq_len * seq_len), i32(1), i64(seq_len * seq_len),
       i64(seq_len * q_proj_out), i64(3 * head_dim), i32(1), i64(head_dim),
       i64(seq_len * kv_proj_out), i64(head_dim), i32(1), i32(0), f32(1.0))
# RoPE + RMSNorm backward (in place) and the norm weights' gradients
launch bwd_norm_rope grid(1024) block(256)
  args(dq, partq, qraw, qrstd, q_norm_weight, cos, sin, i64(batch_size * seq_len * num_attention_heads), i32(num_attention_heads))
launch colsum_final grid(1) block(128) args(grad_q_norm_weight, partq, i32(1024))
launch bwd_norm_rope grid(1024) block(256)
  args(dk, partk, kraw, krstd, k_norm_weight, cos, sin, i64(batch_size * seq_len * num_key_value_heads), i32(num_key_value_heads))
launch colsum_final grid(1) block(128) args(grad_k_norm_weight, partk, i32(1024))
# weight gradients d^T x
launch gemm_tn grid(hidden_size / 128, q_proj_out / 128, 1) block(256) shared(147456)
  args(dq, hidden_states, grad_q_weight, i32(q_proj_out), i32(hidden_size), i32(batch_size * seq_len), i32(batch_size * seq_len),
       i32(q_proj_out), i32(hidden_size), i32(hidden_size), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
launch gemm_tn grid(hidden_size / 128, kv_proj_out / 128, 1) block(256) shared(147456)
  args(dk, hidden_states, grad_k_weight, i32(kv_proj_out), i32(hidden_size), i32(batch_size * seq_len), i32(batch_size * seq_len),
       i32(kv_proj_out), i32(hidden_size), i32(hidden_size), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
launch gemm_tn grid(hidden_size / 128, kv_proj_out / 128, 1) block(256) shared(147456)
  args(dv, hidden_states, grad_v_weight, i32(kv_proj_out), i32(hidden_size), i32(batch_size * seq_len), i32(batch_size * seq_len),
       i32(kv_proj_out), i32(hidden_size), i32(hidden_size), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
# grad_hidden_states = dq Wq + dk Wk + dv Wv (the second and third accumulate)
launch gemm_nn grid(hidden_size / 128, batch_size * seq_len / 128, 1) block(256) shared(147456)
  args(dq, q_weight, grad_hidden_states, i32(batch_size * seq_len), i32(hidden_size), i32(q_proj_out), i32(q_proj_out),
       i32(q_proj_out), i32(hidden_size), i32(hidden_size), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
launch gemm_nn grid(hidden_size / 128, batch_size * seq_len / 128, 1) block(256) shared(147456)
  args(dk, k_weight, grad_hidden_states, i32(batch_size * seq_len), i32(hidden_size), i32(kv_proj_out), i32(kv_proj_out),
       i32(kv_proj_out), i32(hidden_size), i32(hidden_size), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(1), f32(1.0))
launch gemm_nn grid(hidden_size / 128, batch_size * seq_len / 128, 1) block(256) shared(147456)
  args(dv, v_weight, grad_hidden_states, i32(batch_size * seq_len), i32(hidden_size), i32(kv_proj_out), i32(kv_proj_out),
       i32(kv_proj_out), i32(hidden_size), i32(hidden_size), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(1), f32(1.0))
*/
