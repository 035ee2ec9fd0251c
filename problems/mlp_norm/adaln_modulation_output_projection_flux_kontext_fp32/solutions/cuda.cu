// Fused FLUX.1 Kontext final layer (#39: LayerNorm, SiLU(temb) -> Linear -> scale/shift modulation,
// Linear to 64), fp32 accuracy, three launches:
//   1. silu_gemm: emb = silu(temb) @ mod_weight^T + mod_bias for all 32 batch entries, streaming the
//      weight once; silu(temb) staged in shared memory.
//   2. fold_weights: folds the modulation into the projection. With W = proj_weight,
//        y[t,o] = sum_c ((x[t,c] - mean_t) * rstd_t * (1 + scale[c]) + shift[c]) * W[o,c] + bias[o]
//               = rstd_t * (sum_c x[t,c] * Wf[o,c] - mean_t * csum[o]) + sbias[o]
//      with Wf[o,c] = W[o,c] * (1 + scale[c]), csum[o] = sum_c Wf[o,c], sbias[o] = sum_c shift[c] W[o,c] + bias[o]
//      (sums in double). Per batch entry: 64 x 3072 values (grid.y = batch).
//   3. adaln_proj: x @ Wf^T on tensor cores (3xTF32: a = hi + lo, lo*hi' + hi*lo' + hi*hi', fp32
//      accumulation restarted per 32-wide K tile and added to a running fp32 sum), reading x exactly once;
//      the LayerNorm statistics (sum and sum of squares per row) come from the same shared-memory tiles,
//      and the epilogue applies rstd, mean and sbias. x never goes through a normalized copy.
//
// Shapes are fixed by the problem: batch = 32, tokens = seq_len = 256 = 4 * 64 per batch entry (a 64-row
// block never straddles two entries), dim = 3072 = 96 * 32, out = 64.
// Adapted from the solution for the earlier batch-1 shapes (which passed on an H200 and beat the
// baseline): stages 2 and 3 are unchanged apart from the constants; stage 1 is new. Compile-checked only.

constexpr int kBatch = 32;
constexpr int kTokens = 256;
constexpr int kDim = 3072;
constexpr int kEmb = 2 * kDim;
constexpr int kOut = 64;

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ double warp_sum_d(double v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// ---- 1. emb = silu(temb) @ mod_weight^T + mod_bias ------------------------------------------------------

// A skinny GEMM (M = batch = 32, N = 6144, K = 3072) that streams the 75 MB weight once: one warp per
// output row j (8 rows per 256-thread block) computes all 32 batch entries. silu(temb) = t * sigmoid(t)
// (rounded as eager: sigmoid, then the product) is staged in shared memory 256 columns at a time
// (32 x 256 floats = 32 KB); lane l reads weight columns k0 + l + 32u (coalesced) and keeps 32 fp32
// accumulators, then a warp sum per batch entry.
constexpr int kGemvWarps = 8;
constexpr int kChunk = 256;
static_assert(kDim % kChunk == 0 && kChunk % 32 == 0, "K chunks");
static_assert(kEmb % kGemvWarps == 0, "grid covers every row exactly");

extern "C" __global__ void __launch_bounds__(256)
silu_gemm(const float *__restrict__ temb, const float *__restrict__ w, const float *__restrict__ bias,
          float *__restrict__ emb) {
  __shared__ float st[kBatch][kChunk];
  const int lane = threadIdx.x & 31;
  const int j = blockIdx.x * kGemvWarps + (threadIdx.x >> 5);
  const float *wr = w + (long long)j * kDim;
  float acc[kBatch];
#pragma unroll
  for (int b = 0; b < kBatch; ++b) acc[b] = 0.0f;
  for (int k0 = 0; k0 < kDim; k0 += kChunk) {
    __syncthreads(); // everyone is done with the previous chunk
    for (int i = threadIdx.x; i < kBatch * kChunk; i += blockDim.x) {
      const int b = i / kChunk, k = i % kChunk;
      const float t = temb[(long long)b * kDim + k0 + k];
      const float sg = 1.0f / (1.0f + expf(-t));
      st[b][k] = t * sg;
    }
    __syncthreads();
#pragma unroll 2
    for (int u = 0; u < kChunk / 32; ++u) {
      const int k = lane + 32 * u;
      const float wv = __ldcs(wr + k0 + k); // streamed once
#pragma unroll
      for (int b = 0; b < kBatch; ++b) acc[b] = fmaf(wv, st[b][k], acc[b]);
    }
  }
#pragma unroll
  for (int b = 0; b < kBatch; ++b) {
    const float total = warp_sum(acc[b]);
    if (lane == 0) emb[(long long)b * kEmb + j] = total + bias[j];
  }
}

// ---- 2. Fold the modulation into the projection ---------------------------------------------------------

extern "C" __global__ void __launch_bounds__(256)
fold_weights(const float *__restrict__ emb, const float *__restrict__ pw, const float *__restrict__ pb,
             float *__restrict__ wf, float *__restrict__ csum, float *__restrict__ sbias) {
  __shared__ double part_c[8], part_s[8];
  const int o = blockIdx.x, b = blockIdx.y;
  const float *scale = emb + (long long)b * kEmb;
  const float *shift = scale + kDim;
  const float *wrow = pw + (long long)o * kDim;
  float *frow = wf + ((long long)b * kOut + o) * kDim;
  double cs = 0.0, sb = 0.0;
  for (int c = threadIdx.x; c < kDim; c += blockDim.x) {
    const float wv = wrow[c];
    const float f = wv * (1.0f + scale[c]);
    frow[c] = f;
    cs += (double)f;
    sb += (double)shift[c] * (double)wv;
  }
  cs = warp_sum_d(cs);
  sb = warp_sum_d(sb);
  if ((threadIdx.x & 31) == 0) {
    part_c[threadIdx.x >> 5] = cs;
    part_s[threadIdx.x >> 5] = sb;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    double tc = 0.0, ts = 0.0;
    for (int i = 0; i < 8; ++i) {
      tc += part_c[i];
      ts += part_s[i];
    }
    csum[b * kOut + o] = (float)tc;
    sbias[b * kOut + o] = (float)(ts + (double)pb[o]);
  }
}

// ---- 3. x @ Wf^T with the LayerNorm folded into the epilogue --------------------------------------------

// 64 x 64 block tile (all 64 outputs), 32-wide K tile, 8-stage cp.async pipeline (x is streamed from HBM
// once), 8 warps as 2 (M) x 4 (N), each warp 32 x 16 = 2 x 2 MMA tiles of m16n8k8.
constexpr int BM = 64, BN = kOut, BK = 32, LDS = BK + 4, STAGES = 8, THREADS = 256;
constexpr int WARPS_N = 4, WTM = 32, WTN = 16, MT = WTM / 16, NT = WTN / 8;
constexpr int kStageFloats = (BM + BN) * LDS;
constexpr int kSmemBytes = STAGES * kStageFloats * 4;
static_assert(kSmemBytes == 147456, "adaln_proj's shared(...) in the plan");
static_assert(kTokens % BM == 0, "a block's rows lie in one batch entry");
static_assert(kDim % BK == 0 && kDim / BK >= STAGES, "K tiles");
static_assert(BM * BK / 4 == 2 * THREADS && BN * BK / 4 == 2 * THREADS, "two 16-byte chunks per thread per tile");
static_assert(BM * 4 == THREADS, "four threads per row for the statistics");

__device__ __forceinline__ unsigned tf32_rna(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ void split_tf32(float x, unsigned &hi, unsigned &lo) {
  hi = tf32_rna(x);
  lo = tf32_rna(x - __uint_as_float(hi));
}
__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ void cp_async16(float *smem, const float *gmem) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
adaln_proj(const float *__restrict__ x, const float *__restrict__ wf, const float *__restrict__ csum,
           const float *__restrict__ sbias, float *__restrict__ y, float eps) {
  extern __shared__ float4 smem4[];
  float *smem = reinterpret_cast<float *>(smem4);
  __shared__ float row_mean[BM], row_rstd[BM];

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int wm = warp / WARPS_N, wn = warp % WARPS_N;
  const int m0 = blockIdx.x * BM;
  const int b = m0 / kTokens;
  const float *A = x + (long long)m0 * kDim;
  const float *B = wf + (long long)b * kOut * kDim;
  constexpr int KT = kDim / BK;

  auto load_stage = [&](int stage, int kt) {
    float *as = smem + stage * kStageFloats;
    float *bs = as + BM * LDS;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int id = tid + THREADS * i, r = id >> 3, c = (id & 7) * 4;
      cp_async16(as + r * LDS + c, A + (long long)r * kDim + kt * BK + c);
      cp_async16(bs + r * LDS + c, B + (long long)r * kDim + kt * BK + c);
    }
  };

  float acc[MT][NT][4];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mt][nt][e] = 0.0f;
  // LayerNorm statistics: thread tid owns row tid / 4, columns (tid % 4) * 8 .. + 8 of every K tile.
  const int srow = tid >> 2, scol = (tid & 3) * 8;
  double rs = 0.0, rq = 0.0; // per-tile fp32 partials of 8 values, accumulated in double

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    load_stage(s, s);
    cp_async_commit();
  }

  for (int kt = 0; kt < KT; ++kt) {
    cp_async_wait<STAGES - 2>();
    __syncthreads(); // tile kt visible to all; everyone is done with tile kt - 1
    {
      const int nk = kt + STAGES - 1;
      if (nk < KT) load_stage(nk % STAGES, nk);
      cp_async_commit();
    }
    const float *as = smem + (kt % STAGES) * kStageFloats;
    const float *bs = as + BM * LDS;
    {
      const float4 p0 = *reinterpret_cast<const float4 *>(as + srow * LDS + scol);
      const float4 p1 = *reinterpret_cast<const float4 *>(as + srow * LDS + scol + 4);
      const float s8 = ((p0.x + p0.y) + (p0.z + p0.w)) + ((p1.x + p1.y) + (p1.z + p1.w));
      const float q8 = ((p0.x * p0.x + p0.y * p0.y) + (p0.z * p0.z + p0.w * p0.w)) +
                       ((p1.x * p1.x + p1.y * p1.y) + (p1.z * p1.z + p1.w * p1.w));
      rs += (double)s8;
      rq += (double)q8;
    }

    float tacc[MT][NT][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) tacc[mt][nt][e] = 0.0f;
#pragma unroll
    for (int kk = 0; kk < BK / 8; ++kk) {
      const int kc = kk * 8 + t;
      unsigned bh[NT][2], bl[NT][2];
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
        const float *bp = bs + (wn * WTN + nt * 8 + g) * LDS + kc;
        split_tf32(bp[0], bh[nt][0], bl[nt][0]); // (k = t,     n = g)
        split_tf32(bp[4], bh[nt][1], bl[nt][1]); // (k = t + 4, n = g)
      }
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        const float *ap = as + (wm * WTM + mt * 16 + g) * LDS + kc;
        unsigned ah[4], al[4];
        split_tf32(ap[0], ah[0], al[0]);           // (g,     t)
        split_tf32(ap[8 * LDS], ah[1], al[1]);     // (g + 8, t)
        split_tf32(ap[4], ah[2], al[2]);           // (g,     t + 4)
        split_tf32(ap[8 * LDS + 4], ah[3], al[3]); // (g + 8, t + 4)
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
          mma_tf32(tacc[mt][nt], al, bh[nt]);
          mma_tf32(tacc[mt][nt], ah, bl[nt]);
          mma_tf32(tacc[mt][nt], ah, bh[nt]);
        }
      }
    }
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[mt][nt][e] += tacc[mt][nt][e];
  }
  cp_async_wait<0>();

  // Row statistics: the four threads of a row are adjacent lanes.
  rs += __shfl_xor_sync(0xffffffffu, rs, 1);
  rs += __shfl_xor_sync(0xffffffffu, rs, 2);
  rq += __shfl_xor_sync(0xffffffffu, rq, 1);
  rq += __shfl_xor_sync(0xffffffffu, rq, 2);
  if ((tid & 3) == 0) {
    const double mean = rs / kDim;
    const double var = fmax(rq / kDim - mean * mean, 0.0);
    row_mean[srow] = (float)mean;
    row_rstd[srow] = (float)(1.0 / sqrt(var + (double)eps));
  }
  __syncthreads();

#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    const int c = wn * WTN + nt * 8 + 2 * t;
    const float cs0 = csum[b * kOut + c], cs1 = csum[b * kOut + c + 1];
    const float sb0 = sbias[b * kOut + c], sb1 = sbias[b * kOut + c + 1];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = wm * WTM + mt * 16 + g + half * 8;
        const float mean = row_mean[r], rstd = row_rstd[r];
        const float v0 = (acc[mt][nt][2 * half] - mean * cs0) * rstd + sb0;
        const float v1 = (acc[mt][nt][2 * half + 1] - mean * cs1) * rstd + sb1;
        *reinterpret_cast<float2 *>(y + (long long)(m0 + r) * kOut + c) = make_float2(v0, v1);
      }
  }
}

/* mkb:plan
scratch emb fp32[batch_size * modulation_dim]
scratch wf fp32[batch_size * output_dim * inner_dim]
scratch csum fp32[batch_size * output_dim]
scratch sbias fp32[batch_size * output_dim]
launch silu_gemm grid(modulation_dim / 8) block(256) args(temb, mod_weight, mod_bias, emb)
launch fold_weights grid(output_dim, batch_size) block(256) args(emb, out_weight, out_bias, wf, csum, sbias)
launch adaln_proj grid(batch_size * seq_len / 64) block(256) shared(147456) args(hidden_states, wf, csum, sbias, out, f32(eps))
*/
