// Gemma 3n audio local attention (#12), fp32, in three launches:
//  1. qkv_proj_3xtf32: the three projections x @ W^T on tensor cores with a 3xTF32 split (each fp32
//     operand a = big + small, big = tf32(a), small = tf32(a - big); a*b ~ big*big' + big*small' +
//     small*big', the dropped small*small' ~2^-22 relative). Each 32-deep k tile is summed by the tensor
//     core from zero and added to fp32 register accumulators with round-to-nearest, so the sum over
//     K = 512 keeps fp32 accuracy. Block tile 128 rows x 128 columns of one of q, k, v (grid.x = 3 * 4),
//     8 warps as 4 (M) x 2 (N), warp tile 32 x 64 (m16n8k8), BK = 32, 3-stage cp.async pipeline, shared
//     rows padded to 36 floats. q's epilogue applies q * q_scale * softplus(per_dim_scale) with eager's
//     two roundings. (GEMM core taken from this repository's #41 solution.)
//  2. rel_pos_table: P[r] = [sin(r * inv), cos(r * inv)] @ pos_proj_weight^T for distances r = 0..12.
//  3. local_attention: a block owns 32 consecutive frames of one batch row and 4 heads (128 threads,
//     one query each); the keys and values of frames t0 - 12 .. t0 + 31 are staged in shared memory
//     (rows of 257 floats: lanes reading different rows hit different banks). Per query: 13 logits
//     q.k + q.P[r], soft cap, masked softmax, weighted sum of values; outputs are staged in shared
//     memory and stored coalesced.

constexpr int kHidden = 512;                  // K and each projection's width
constexpr int kBM = 128, kBN = 128, kBK = 32, kStages = 3;
constexpr int kThreads = 256;
constexpr int kLd = kBK + 4;                  // 36 floats = 144 bytes
constexpr int kATile = kBM * kLd;             // floats per stage
constexpr int kBTile = kBN * kLd;
constexpr int kStageFloats = kATile + kBTile; // 9216 floats; 3 stages = 110592 bytes
constexpr int kKTiles = kHidden / kBK;        // 16
constexpr int kMI = 2, kNI = 8;               // mma tiles per warp: 2 x m16, 8 x n8
constexpr int kKSteps = kBK / 8;
constexpr int kGroup = 2;
constexpr int kColTiles = kHidden / kBN;      // 4
constexpr int kHeadDim = 64;
static_assert(kBM * kBK / 4 == 4 * kThreads && kBN * kBK / 4 == 4 * kThreads, "copy split");

__device__ __forceinline__ unsigned smem_addr(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async16(void *smem, const void *gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(smem)), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
// big = tf32(x) (round to nearest, ties away), small = tf32(x - big)
__device__ __forceinline__ void split_tf32(float x, unsigned &big, unsigned &small) {
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(big) : "f"(x));
  const float rest = x - __uint_as_float(big);
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(small) : "f"(rest));
}
__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// d = a * b + 0
__device__ __forceinline__ void mma_tf32_zero(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};\n"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(0.0f));
}


// grid(3 * 4, ceil_div(rows, 128)) block(256) shared(110592)
extern "C" __global__ void __launch_bounds__(kThreads, 1)
qkv_proj_3xtf32(const float *__restrict__ x, const float *__restrict__ wq, const float *__restrict__ wk,
                const float *__restrict__ wv, const float *__restrict__ per_dim_scale, float *__restrict__ q,
                float *__restrict__ k, float *__restrict__ v, int rows) {
  extern __shared__ __align__(16) float smem[];
  const int which = blockIdx.x / kColTiles;  // 0: q, 1: k, 2: v (block-uniform)
  const int ctile = blockIdx.x % kColTiles;
  const int m0 = blockIdx.y * kBM;
  const float *W = (which == 0 ? wq : which == 1 ? wk : wv) + (size_t)ctile * kBN * kHidden;
  float *out = which == 0 ? q : which == 1 ? k : v;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = (warp >> 1) * 32;
  const int wn = (warp & 1) * 64;
  const int g = lane >> 2, t = lane & 3;

  auto load_stage = [&](int stage, int kt) {
    float *as = smem + stage * kStageFloats;
    float *bs = as + kATile;
    const int k0 = kt * kBK;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int c = tid + i * kThreads; // 0..1023: 128 rows x 8 chunks of 4 floats
      const int row = c >> 3, col = (c & 7) * 4;
      const int arow = min(m0 + row, rows - 1);
      cp_async16(as + row * kLd + col, x + (size_t)arow * kHidden + k0 + col);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int c = tid + i * kThreads; // 0..1023: 128 rows x 8 chunks
      const int row = c >> 3, col = (c & 7) * 4;
      cp_async16(bs + row * kLd + col, W + (size_t)row * kHidden + k0 + col);
    }
  };

  float acc[kMI][kNI][4];
#pragma unroll
  for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
    for (int ni = 0; ni < kNI; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.0f;

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    load_stage(s, s);
    cp_async_commit();
  }

  for (int kt = 0; kt < kKTiles; ++kt) {
    cp_async_wait<kStages - 2>(); // tile kt has landed (one group is committed per iteration)
    __syncthreads();              // ... for every thread, and stage (kt - 1) % kStages is free again
    {
      const int next = kt + kStages - 1;
      if (next < kKTiles) load_stage(next % kStages, next);
      cp_async_commit();
    }
    const float *as = smem + (kt % kStages) * kStageFloats;
    const float *bs = as + kATile;
    // A fragments of the whole 32-deep tile (m16 x k8 each, row-major):
    // a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
    unsigned a_big[kMI][kKSteps][4], a_small[kMI][kKSteps][4];
#pragma unroll
    for (int mi = 0; mi < kMI; ++mi) {
#pragma unroll
      for (int ks = 0; ks < kKSteps; ++ks) {
        const float *ap = as + (wm + mi * 16 + g) * kLd + ks * 8 + t;
        split_tf32(ap[0], a_big[mi][ks][0], a_small[mi][ks][0]);
        split_tf32(ap[8 * kLd], a_big[mi][ks][1], a_small[mi][ks][1]);
        split_tf32(ap[4], a_big[mi][ks][2], a_small[mi][ks][2]);
        split_tf32(ap[8 * kLd + 4], a_big[mi][ks][3], a_small[mi][ks][3]);
      }
    }
#pragma unroll
    for (int n2 = 0; n2 < kNI; n2 += kGroup) {
      // B fragments (k8 x n8, "col"): b0 (k = t, n = g), b1 (k = t + 4, n = g); W rows are n, k contiguous
      unsigned b_big[kGroup][kKSteps][2], b_small[kGroup][kKSteps][2];
#pragma unroll
      for (int j = 0; j < kGroup; ++j) {
        const float *bp = bs + (wn + (n2 + j) * 8 + g) * kLd + t;
#pragma unroll
        for (int ks = 0; ks < kKSteps; ++ks) {
          split_tf32(bp[ks * 8], b_big[j][ks][0], b_small[j][ks][0]);
          split_tf32(bp[ks * 8 + 4], b_big[j][ks][1], b_small[j][ks][1]);
        }
      }
      // Each tile's 32-deep partial product is summed by the tensor core from zero (12 short mma
      // steps), then added to the fp32 accumulator with round-to-nearest. Consecutive mma are
      // independent (kGroup * kMI chains interleaved).
      float d[kGroup][kMI][4];
#pragma unroll
      for (int j = 0; j < kGroup; ++j)
#pragma unroll
        for (int mi = 0; mi < kMI; ++mi) mma_tf32_zero(d[j][mi], a_small[mi][0], b_big[j][0][0], b_big[j][0][1]);
#pragma unroll
      for (int j = 0; j < kGroup; ++j)
#pragma unroll
        for (int mi = 0; mi < kMI; ++mi) mma_tf32(d[j][mi], a_big[mi][0], b_small[j][0][0], b_small[j][0][1]);
#pragma unroll
      for (int j = 0; j < kGroup; ++j)
#pragma unroll
        for (int mi = 0; mi < kMI; ++mi) mma_tf32(d[j][mi], a_big[mi][0], b_big[j][0][0], b_big[j][0][1]);
#pragma unroll
      for (int ks = 1; ks < kKSteps; ++ks) {
#pragma unroll
        for (int j = 0; j < kGroup; ++j)
#pragma unroll
          for (int mi = 0; mi < kMI; ++mi) mma_tf32(d[j][mi], a_small[mi][ks], b_big[j][ks][0], b_big[j][ks][1]);
#pragma unroll
        for (int j = 0; j < kGroup; ++j)
#pragma unroll
          for (int mi = 0; mi < kMI; ++mi) mma_tf32(d[j][mi], a_big[mi][ks], b_small[j][ks][0], b_small[j][ks][1]);
#pragma unroll
        for (int j = 0; j < kGroup; ++j)
#pragma unroll
          for (int mi = 0; mi < kMI; ++mi) mma_tf32(d[j][mi], a_big[mi][ks], b_big[j][ks][0], b_big[j][ks][1]);
      }
#pragma unroll
      for (int j = 0; j < kGroup; ++j)
#pragma unroll
        for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[mi][n2 + j][e] += d[j][mi][e];
    }
  }
  cp_async_wait<0>();

  // acc[mi][ni][2h + j] is row wm + mi*16 + g + 8h, column wn + ni*8 + 2t + j of this tile.
  const float q_scale = 0.125f * (1.0f / log1pf(expf(0.0f)));  // head_dim ** -0.5 / softplus(0), fp32
#pragma unroll
  for (int mi = 0; mi < kMI; ++mi) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = wm + mi * 16 + g + 8 * h;
      if (m0 + row < rows) {
        float *orow = out + (size_t)(m0 + row) * kHidden + ctile * kBN;
#pragma unroll
        for (int ni = 0; ni < kNI; ++ni) {
          const int col = wn + ni * 8 + 2 * t;
          float a = acc[mi][ni][2 * h], b = acc[mi][ni][2 * h + 1];
          if (which == 0) {
            const float s0 = per_dim_scale[col % kHeadDim], s1 = per_dim_scale[(col + 1) % kHeadDim];
            a = (a * q_scale) * (s0 > 20.0f ? s0 : log1pf(expf(s0)));
            b = (b * q_scale) * (s1 > 20.0f ? s1 : log1pf(expf(s1)));
          }
          *reinterpret_cast<float2 *>(orow + col) = make_float2(a, b);
        }
      }
    }
  }
}

constexpr int kWindow = 13;              // distances 0..12
constexpr int kFrames = 32;              // query frames per block
constexpr int kRows = kFrames + kWindow - 1;  // 44 staged key rows
constexpr int kGroupHeads = 4;
constexpr int kGW = kGroupHeads * kHeadDim;   // 256 floats of a row per head group
constexpr int kSLd = kGW + 1;                 // 257
// dynamic shared: ks, vs [kRows][kSLd], ptab [kWindow][kGW], valid [kRows]
constexpr int kAttnShared = (2 * kRows * kSLd + kWindow * kGW) * 4 + kRows * 4;
static_assert(kAttnShared == 103952, "the plan's shared() of local_attention");

// grid(13) block(512): P[r][o] = sum_j sig_r[j] * Wpos[o][j]
extern "C" __global__ void rel_pos_table(float *__restrict__ table, const float *__restrict__ inv,
                                         const float *__restrict__ wpos) {
  __shared__ float sig[kHidden];
  const int r = blockIdx.x;
  for (int j = threadIdx.x; j < kHidden; j += blockDim.x) {
    const float a = (float)r * inv[j % (kHidden / 2)];
    sig[j] = j < kHidden / 2 ? sinf(a) : cosf(a);
  }
  __syncthreads();
  for (int o = threadIdx.x; o < kHidden; o += blockDim.x) {
    const float4 *w = reinterpret_cast<const float4 *>(wpos + (size_t)o * kHidden);
    float s = 0.0f;
    for (int j = 0; j < kHidden / 4; ++j) {
      const float4 c = __ldg(w + j);
      s += sig[4 * j] * c.x + sig[4 * j + 1] * c.y + sig[4 * j + 2] * c.z + sig[4 * j + 3] * c.w;
    }
    table[r * kHidden + o] = s;
  }
}

// grid(ceil_div(seq, 32), 2, batch) block(128) shared(kAttnShared)
extern "C" __global__ void __launch_bounds__(128)
local_attention(float *__restrict__ out, const float *__restrict__ q, const float *__restrict__ k,
                const float *__restrict__ v, const float *__restrict__ table, const unsigned char *__restrict__ mask,
                float cap, int seq) {
  extern __shared__ __align__(16) float sm[];
  float *ks = sm;
  float *vs = ks + kRows * kSLd;
  float *pt = vs + kRows * kSLd;
  int *valid = reinterpret_cast<int *>(pt + kWindow * kGW);
  const int t0 = blockIdx.x * kFrames, hg = blockIdx.y;
  const long long b = blockIdx.z;
  const int tid = threadIdx.x;

  for (int idx = tid; idx < kRows * (kGW / 4); idx += blockDim.x) {
    const int r = idx / (kGW / 4), e = (idx % (kGW / 4)) * 4;
    const int s = t0 - (kWindow - 1) + r;
    float4 kv = make_float4(0.f, 0.f, 0.f, 0.f), vv = kv;
    if (s >= 0 && s < seq) {
      const size_t off = (size_t)(b * seq + s) * kHidden + hg * kGW + e;
      kv = __ldg(reinterpret_cast<const float4 *>(k + off));
      vv = __ldg(reinterpret_cast<const float4 *>(v + off));
    }
    float *kd = ks + r * kSLd + e, *vd = vs + r * kSLd + e;
    kd[0] = kv.x; kd[1] = kv.y; kd[2] = kv.z; kd[3] = kv.w;
    vd[0] = vv.x; vd[1] = vv.y; vd[2] = vv.z; vd[3] = vv.w;
  }
  for (int idx = tid; idx < kWindow * kGW; idx += blockDim.x)
    pt[idx] = table[(idx / kGW) * kHidden + hg * kGW + idx % kGW];
  for (int r = tid; r < kRows; r += blockDim.x) {
    const int s = t0 - (kWindow - 1) + r;
    valid[r] = (s >= 0 && s < seq && mask[b * seq + s] == 0) ? 1 : 0;
  }

  const int hl = tid / 32, i = tid % 32;  // local head (warp), frame in block (lane)
  const int t = t0 + i;
  const bool active = t < seq;
  float qr[kHeadDim];
  if (active) {
    const float4 *qp = reinterpret_cast<const float4 *>(q + (size_t)(b * seq + t) * kHidden + hg * kGW + hl * kHeadDim);
#pragma unroll
    for (int d = 0; d < kHeadDim / 4; ++d) {
      const float4 c = __ldg(qp + d);
      qr[4 * d] = c.x; qr[4 * d + 1] = c.y; qr[4 * d + 2] = c.z; qr[4 * d + 3] = c.w;
    }
  }
  __syncthreads();

  float p[kWindow];
  if (active) {
    float mx = -__int_as_float(0x7f800000);
#pragma unroll
    for (int r = 0; r < kWindow; ++r) {
      const int row = i + kWindow - 1 - r;  // key frame t - r
      const float *kr = ks + row * kSLd + hl * kHeadDim;
      const float *pr = pt + r * kGW + hl * kHeadDim;
      float ac = 0.f, bd = 0.f;
#pragma unroll
      for (int d = 0; d < kHeadDim; ++d) {
        ac = fmaf(qr[d], kr[d], ac);
        bd = fmaf(qr[d], pr[d], bd);
      }
      const float l = tanhf((ac + bd) / cap) * cap;
      p[r] = valid[row] ? l : -__int_as_float(0x7f800000);
      mx = fmaxf(mx, p[r]);
    }
    float sum = 0.f;
#pragma unroll
    for (int r = 0; r < kWindow; ++r) {
      p[r] = valid[i + kWindow - 1 - r] ? expf(p[r] - mx) : 0.f;
      sum += p[r];
    }
#pragma unroll
    for (int r = 0; r < kWindow; ++r) p[r] = p[r] / sum;
  }
  __syncthreads();  // ks is free: it becomes the output staging area
  if (active) {
    float *o = ks + i * kSLd + hl * kHeadDim;
#pragma unroll 4
    for (int d = 0; d < kHeadDim; ++d) {
      float s = 0.f;
#pragma unroll
      for (int r = 0; r < kWindow; ++r) s = fmaf(p[r], vs[(i + kWindow - 1 - r) * kSLd + hl * kHeadDim + d], s);
      o[d] = s;
    }
  }
  __syncthreads();
  for (int idx = tid; idx < kFrames * kGW; idx += blockDim.x) {
    const int f = idx / kGW, e = idx % kGW;
    if (t0 + f < seq) out[(size_t)(b * seq + t0 + f) * kHidden + hg * kGW + e] = ks[f * kSLd + e];
  }
}

/* mkb:plan
scratch qs fp32[batch_size * seq_len * hidden_size]
scratch ks fp32[batch_size * seq_len * hidden_size]
scratch vs fp32[batch_size * seq_len * hidden_size]
scratch ptab fp32[num_rel_positions * hidden_size]
launch qkv_proj_3xtf32 grid(12, ceil_div(batch_size * seq_len, 128)) block(256) shared(110592)
  args(hidden_states, q_proj_weight, k_proj_weight, v_proj_weight, per_dim_scale, qs, ks, vs, i32(batch_size * seq_len))
launch rel_pos_table grid(num_rel_positions) block(512) args(ptab, inv_timescales, pos_proj_weight)
launch local_attention grid(ceil_div(seq_len, 32), 2, batch_size) block(128) shared(103952)
  args(context_vectors, qs, ks, vs, ptab, mask, f32(attention_logits_soft_cap), i32(seq_len))
*/
