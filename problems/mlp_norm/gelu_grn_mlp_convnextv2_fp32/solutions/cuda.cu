// Fused ConvNeXt V2 MLP (original #30, reconstructed: Linear -> GELU -> GRN -> Linear), fp32 accuracy,
// three launches:
//   1. gemm1_gelu_grnsum: x @ w1^T on tensor cores (3xTF32), epilogue adds b1, applies GELU (erf), stores h
//      and accumulates the GRN's per-(image, channel) sum of squares (warp-reduced, then one atomic per
//      column and image a warp touches).
//   2. grn_scale: per image, Gx = sqrt(sum of squares), Nx = Gx / (mean Gx + eps); sc = gamma * Nx + 1.
//   3. gemm2_grn: (h * sc + beta) @ w2^T + b2 on tensor cores (3xTF32); the GRN affine is applied to each
//      A tile in shared memory right after it lands, so the GRN output never goes to memory. (It rounds
//      the GRN as h * (gamma * Nx + 1) + beta, not eager's four steps: a few fp32 ulps of g, within the
//      allowance; this arithmetic passed on the H200 in the earlier version of this problem.)
//
// 3xTF32: each fp32 operand is split into hi = tf32(a) and lo = tf32(a - hi); a*b ~ lo*hi' + hi*lo' + hi*hi'
// with fp32 accumulation (the lo*lo' term is below fp32 rounding). The tensor-core accumulation is
// restarted from zero for every 32-wide K tile and added to the running fp32 sum with ordinary FADDs, so
// any truncation inside the MMA only touches small partial sums.
//
// Shapes are fixed by the problem: rows T = 64 * 56 * 56 = 200704 = 1568 * 128 (3136 rows per image),
// dim = 128 = 1 * 128, hidden = 512 = 4 * 128; both K (128, 512) are multiples of the 32-wide K tile.

constexpr int kBatch = 64;
constexpr int kHW = 56 * 56;
constexpr int kRows = kBatch * kHW;
constexpr int kDim = 128;
constexpr int kHidden = 512;

// GEMM tiling: 128x128 block tile, 32-wide K tile, 4-stage cp.async pipeline, 8 warps as 2 (M) x 4 (N),
// each warp 64x32 = 4 x 4 MMA tiles of m16n8k8.
constexpr int BM = 128, BN = 128, BK = 32, LDS = BK + 4, STAGES = 4, THREADS = 256;
constexpr int WARPS_N = 4, WTM = 64, WTN = 32, MT = WTM / 16, NT = WTN / 8;
constexpr int kStageFloats = (BM + BN) * LDS;
constexpr int kGemmSmemBytes = STAGES * kStageFloats * 4;
static_assert(kGemmSmemBytes == 147456, "gemm1's shared(...) in the plan");
static_assert(kGemmSmemBytes + 3 * kHidden * 4 == 153600, "gemm2's shared(...) in the plan: + scs[2][hidden] + betas[hidden]");

static_assert(kRows % BM == 0, "rows must be a multiple of the M tile");
static_assert(kHidden % BN == 0 && kDim % BN == 0, "N must be a multiple of the N tile");
static_assert(kDim % BK == 0 && kHidden % BK == 0, "K must be a multiple of the K tile");
static_assert(BM <= kHW, "a block's rows must span at most two images");
static_assert(WTM <= kHW, "a warp's rows must span at most two images");
static_assert(kHidden % 256 == 0, "grn_scale holds kHidden / 256 channels per thread");
constexpr int kGrnPer = kHidden / 256;

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

__device__ __forceinline__ float gelu_erf(float v) { return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)); }

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// ---- The 3xTF32 GEMM main loop ----------------------------------------------------------------------------
// acc[128 x 128 tile at (m0, n0)] = A[m0.., :K] @ B[n0.., :K]^T, A and B row-major with K contiguous.
// With kGrnA, every A element a[r, k] is replaced by a * scs[sel(r) * K + k] + betas[k] (the GRN affine),
// sel(r) = image of row r minus img0, in {0, 1}; scs and betas are in shared memory.

template <bool kGrnA>
__device__ __forceinline__ void gemm_mainloop(const float *__restrict__ A, const float *__restrict__ B, const int K,
                                              const int m0, const int n0, float *smem, float (&acc)[MT][NT][4],
                                              const float *scs, const float *betas, const int img0) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int wm = warp / WARPS_N, wn = warp % WARPS_N;
  const int KT = K / BK;

  // Each thread copies 4 16-byte chunks of the A tile and 4 of the B tile per stage: chunk id = tid + 256 i,
  // row id / 8, column (id % 8) * 4.
  int sel[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) sel[i] = kGrnA ? (m0 + ((tid + 256 * i) >> 3)) / kHW - img0 : 0;

  auto load_stage = [&](int stage, int kt) {
    float *as = smem + stage * kStageFloats;
    float *bs = as + BM * LDS;
    const float *a_src = A + (long long)m0 * K + kt * BK;
    const float *b_src = B + (long long)n0 * K + kt * BK;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int id = tid + 256 * i, r = id >> 3, c = (id & 7) * 4;
      cp_async16(as + r * LDS + c, a_src + (long long)r * K + c);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int id = tid + 256 * i, r = id >> 3, c = (id & 7) * 4;
      cp_async16(bs + r * LDS + c, b_src + (long long)r * K + c);
    }
  };

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < KT) load_stage(s, s);
    cp_async_commit();
  }

  for (int kt = 0; kt < KT; ++kt) {
    cp_async_wait<STAGES - 2>(); // this thread's copies of tile kt have landed
    const int stage = kt % STAGES;
    float *as = smem + stage * kStageFloats;
    const float *bs = as + BM * LDS;
    if (kGrnA) {
      // Transform the chunks this thread copied itself (visible to it after the wait).
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int id = tid + 256 * i, r = id >> 3, c = (id & 7) * 4;
        float4 *p = reinterpret_cast<float4 *>(as + r * LDS + c);
        const float4 sv = *reinterpret_cast<const float4 *>(scs + sel[i] * K + kt * BK + c);
        const float4 bv = *reinterpret_cast<const float4 *>(betas + kt * BK + c);
        float4 v = *p;
        v.x = fmaf(v.x, sv.x, bv.x);
        v.y = fmaf(v.y, sv.y, bv.y);
        v.z = fmaf(v.z, sv.z, bv.z);
        v.w = fmaf(v.w, sv.w, bv.w);
        *p = v;
      }
    }
    __syncthreads(); // tile kt visible to all; everyone is done with tile kt - 1
    {
      const int nk = kt + STAGES - 1;
      if (nk < KT) load_stage(nk % STAGES, nk);
      cp_async_commit();
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
}

// ---- 1. GEMM 1 + bias + GELU + GRN sums of squares ------------------------------------------------------

extern "C" __global__ void __launch_bounds__(THREADS, 1)
gemm1_gelu_grnsum(const float *__restrict__ x, const float *__restrict__ w1, const float *__restrict__ b1,
                  float *__restrict__ h, float *__restrict__ ss) {
  extern __shared__ float4 smem4[];
  float *smem = reinterpret_cast<float *>(smem4);
  const int n0 = blockIdx.x * BN, m0 = blockIdx.y * BM;
  float acc[MT][NT][4];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mt][nt][e] = 0.0f;

  gemm_mainloop<false>(x, w1, kDim, m0, n0, smem, acc, nullptr, nullptr, 0);

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int wm = warp / WARPS_N, wn = warp % WARPS_N;
  const int rw = m0 + wm * WTM;                  // the warp's first row
  const int img_first = rw / kHW;
  const int boundary = (img_first + 1) * kHW;    // rows >= boundary belong to image img_first + 1
  float s_lo[NT][2], s_hi[NT][2];
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    s_lo[nt][0] = s_lo[nt][1] = 0.0f;
    s_hi[nt][0] = s_hi[nt][1] = 0.0f;
  }
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    const int c = n0 + wn * WTN + nt * 8 + 2 * t;
    const float bias0 = b1[c], bias1 = b1[c + 1];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = rw + mt * 16 + g + half * 8;
        const float v0 = gelu_erf(acc[mt][nt][2 * half] + bias0);
        const float v1 = gelu_erf(acc[mt][nt][2 * half + 1] + bias1);
        *reinterpret_cast<float2 *>(h + (long long)r * kHidden + c) = make_float2(v0, v1);
        if (r < boundary) {
          s_lo[nt][0] += v0 * v0;
          s_lo[nt][1] += v1 * v1;
        } else {
          s_hi[nt][0] += v0 * v0;
          s_hi[nt][1] += v1 * v1;
        }
      }
    }
  }
  // Sum over the 8 row groups g (lane bits 2..4); lanes 0..3 then hold the warp's column sums.
#pragma unroll
  for (int nt = 0; nt < NT; ++nt)
#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
      for (int o = 4; o < 32; o <<= 1) {
        s_lo[nt][j] += __shfl_xor_sync(0xffffffffu, s_lo[nt][j], o);
        s_hi[nt][j] += __shfl_xor_sync(0xffffffffu, s_hi[nt][j], o);
      }
  if (g == 0) {
    const bool spans_two = rw + WTM - 1 >= boundary; // then image img_first + 1 exists (rows < kRows)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int c = n0 + wn * WTN + nt * 8 + 2 * t + j;
        atomicAdd(ss + (long long)img_first * kHidden + c, s_lo[nt][j]);
        if (spans_two) atomicAdd(ss + (long long)(img_first + 1) * kHidden + c, s_hi[nt][j]);
      }
  }
}

// ---- 2. GRN scale per (image, channel) -----------------------------------------------------------------

extern "C" __global__ void __launch_bounds__(256)
grn_scale(const float *__restrict__ ss, const float *__restrict__ gamma, float *__restrict__ sc, float eps) {
  __shared__ float partial[8];
  const int b = blockIdx.x, tid = threadIdx.x;
  float gx[kGrnPer];
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < kGrnPer; ++j) {
    gx[j] = sqrtf(ss[(long long)b * kHidden + tid + 256 * j]);
    s += gx[j];
  }
  s = warp_sum(s);
  if ((tid & 31) == 0) partial[tid >> 5] = s;
  __syncthreads();
  float total = 0.0f;
#pragma unroll
  for (int w = 0; w < 8; ++w) total += partial[w];
  const float den = total / kHidden + eps;
#pragma unroll
  for (int j = 0; j < kGrnPer; ++j) {
    const int c = tid + 256 * j;
    sc[(long long)b * kHidden + c] = gamma[c] * (gx[j] / den) + 1.0f;
  }
}

// ---- 3. GEMM 2 on the GRN output + bias --------------------------------------------------------------------


extern "C" __global__ void __launch_bounds__(THREADS, 1)
gemm2_grn(const float *__restrict__ h, const float *__restrict__ w2, const float *__restrict__ b2,
          const float *__restrict__ sc, const float *__restrict__ beta, float *__restrict__ y) {
  extern __shared__ float4 smem4[];
  float *smem = reinterpret_cast<float *>(smem4);
  float *scs = smem + STAGES * kStageFloats; // [2][kHidden]: the scales of images img0 and img0 + 1
  float *betas = scs + 2 * kHidden;          // [kHidden]
  const int n0 = blockIdx.x * BN, m0 = blockIdx.y * BM;
  const int img0 = m0 / kHW;
  {
    const float4 *sc4 = reinterpret_cast<const float4 *>(sc);
    const float4 *beta4 = reinterpret_cast<const float4 *>(beta);
    float4 *scs4 = reinterpret_cast<float4 *>(scs);
    float4 *betas4 = reinterpret_cast<float4 *>(betas);
    for (int i = threadIdx.x; i < kHidden / 4; i += THREADS) {
      scs4[i] = sc4[(long long)img0 * (kHidden / 4) + i];
      scs4[kHidden / 4 + i] =
          img0 + 1 < kBatch ? sc4[(long long)(img0 + 1) * (kHidden / 4) + i] : make_float4(0.f, 0.f, 0.f, 0.f);
      betas4[i] = beta4[i];
    }
  }
  __syncthreads();

  float acc[MT][NT][4];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mt][nt][e] = 0.0f;

  gemm_mainloop<true>(h, w2, kHidden, m0, n0, smem, acc, scs, betas, img0);

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int wm = warp / WARPS_N, wn = warp % WARPS_N;
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    const int c = n0 + wn * WTN + nt * 8 + 2 * t;
    const float bias0 = b2[c], bias1 = b2[c + 1];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = m0 + wm * WTM + mt * 16 + g + half * 8;
        *reinterpret_cast<float2 *>(y + (long long)r * kDim + c) =
            make_float2(acc[mt][nt][2 * half] + bias0, acc[mt][nt][2 * half + 1] + bias1);
      }
  }
}

/* mkb:plan
scratch h fp32[batch_size * height * width * hidden_dim]
scratch ss fp32[batch_size * hidden_dim] zeroed
scratch sc fp32[batch_size * hidden_dim]
launch gemm1_gelu_grnsum grid(hidden_dim / 128, batch_size * height * width / 128) block(256) shared(147456)
  args(x, w1, b1, h, ss)
launch grn_scale grid(batch_size) block(256) args(ss, gamma, sc, f32(eps))
launch gemm2_grn grid(dim / 128, batch_size * height * width / 128) block(256) shared(153600)
  args(h, w2, b2, sc, beta, y)
*/
